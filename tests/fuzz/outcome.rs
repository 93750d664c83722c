//! Runs a case through the real binary, under a wall-clock and an address-space limit, and
//! sorts what happened into a pass or a failure class (the rules are in main.rs's docs).

use std::fs::File;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::case::Case;
use crate::csv_check;

/// The scene's file name in the case's directory, as the messages must name it.
pub const SCENE_FILE: &str = "case.ron";
/// The run's simulated time: a few steps at the shipped settings.
pub const T_END: f64 = 0.02;
/// The shell sets the limits, then becomes the binary: 4 GiB of address space (a runaway
/// allocation aborts instead of taking the machine down) and 512 MiB per written file (a
/// runaway row count stops instead of filling the disk). `ulimit -f` counts 512-byte blocks.
const LIMITED: &str = r#"ulimit -v 4194304; ulimit -f 1048576; exec "$0" "$@""#;
/// Enough of stderr to classify it; a longer one is a failure anyway.
const STDERR_READ: u64 = 1 << 20;

/// What a case's run came to.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// `ok`, `scene-error`, `usage-error` (passes) or a failure class.
    pub class: String,
    pub passed: bool,
    /// The first line of stderr, or what the class needs said.
    pub line: String,
    /// The start of stderr (for a replay).
    pub stderr: String,
    pub seconds: f64,
}

fn pass(class: &str, line: &str) -> Outcome {
    Outcome {
        class: class.into(),
        passed: true,
        line: line.into(),
        stderr: String::new(),
        seconds: 0.0,
    }
}

fn fail(class: impl Into<String>, line: &str) -> Outcome {
    Outcome {
        class: class.into(),
        passed: false,
        line: line.into(),
        stderr: String::new(),
        seconds: 0.0,
    }
}

/// Runs `case` in `dir` (created here, removed after) and classifies the result.
pub fn run_case(case: &Case, dir: &Path, timeout: Duration) -> Outcome {
    let started = Instant::now();
    let mut outcome = match run_in(case, dir, timeout) {
        Ok(outcome) => outcome,
        Err(error) => fail(
            "harness",
            &format!("the fuzzer could not run the case: {error}"),
        ),
    };
    outcome.seconds = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(dir);
    outcome
}

/// A lesson's folder in the case's directory: the lesson names its scene as `../NAME.ron`,
/// as the shipped lessons do.
const LESSON_DIR: &str = "lessons";

/// The case's run (a scene's `run` to [`T_END`], or a lesson's `run --script`), then for a
/// scene whose run passed, `analyze` on the same file; the first failure is the case's.
fn run_in(case: &Case, dir: &Path, timeout: Duration) -> std::io::Result<Outcome> {
    std::fs::create_dir_all(dir)?;
    let mut args: Vec<String> = match &case.lesson_scene {
        Some((name, scene)) => {
            std::fs::create_dir_all(dir.join(LESSON_DIR))?;
            std::fs::write(dir.join(LESSON_DIR).join(SCENE_FILE), &case.text)?;
            std::fs::write(dir.join(name), scene)?;
            let lesson = format!("{LESSON_DIR}/{SCENE_FILE}");
            vec!["run".into(), "--script".into(), lesson]
        }
        None => {
            std::fs::write(dir.join(SCENE_FILE), &case.text)?;
            let t_end = T_END.to_string();
            vec!["run".into(), SCENE_FILE.into(), "--t-end".into(), t_end]
        }
    };
    args.extend(["--out", "out.csv", "--events", "events.csv"].map(String::from));
    args.extend(case.extra_args.iter().cloned());
    let check = match case.lesson_scene {
        Some(_) => Check::Lesson,
        None => Check::Run,
    };
    let outcome = run_command(&args, check, dir, timeout)?;
    match &case.analyze_args {
        Some(extra) if outcome.passed => {
            let mut args = vec!["analyze".to_string(), SCENE_FILE.into()];
            args.extend(extra.iter().cloned());
            let json = extra.iter().any(|a| a == "--json");
            let mut analyzed = run_command(&args, Check::Analyze { json }, dir, timeout)?;
            if !analyzed.passed {
                analyzed.class = format!("analyze {}", analyzed.class);
            }
            Ok(if analyzed.passed { outcome } else { analyzed })
        }
        _ => Ok(outcome),
    }
}

/// What a successful command's outputs must be.
#[derive(Clone, Copy)]
enum Check {
    /// `run` to [`T_END`]: the CSVs, the trajectory to exactly t_end.
    Run,
    /// `run --script`: the CSVs (a lesson's rows may end at a `Pause` before its t_end).
    Lesson,
    /// `analyze`: a report on stdout, a JSON object with `--json`.
    Analyze { json: bool },
}

fn run_command(
    args: &[String],
    check: Check,
    dir: &Path,
    timeout: Duration,
) -> std::io::Result<Outcome> {
    let mut child = Command::new("sh")
        .args(["-c", LIMITED, env!("CARGO_BIN_EXE_singulab")])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(File::create(dir.join("stdout.txt"))?)
        .stderr(File::create(dir.join("stderr.txt"))?)
        .spawn()?;
    let status = wait_at_most(&mut child, timeout)?;
    let mut stderr = Vec::new();
    File::open(dir.join("stderr.txt"))?
        .take(STDERR_READ)
        .read_to_end(&mut stderr)?;
    let stderr = String::from_utf8_lossy(&stderr);
    let mut outcome = match status {
        None => fail("hang", &format!("killed after {} s", timeout.as_secs_f64())),
        Some(status) => classify(status, &stderr, dir, check),
    };
    outcome.stderr = stderr.chars().take(4096).collect();
    Ok(outcome)
}

/// The child's status, or `None` after killing it at `timeout`.
fn wait_at_most(
    child: &mut std::process::Child,
    timeout: Duration,
) -> std::io::Result<Option<ExitStatus>> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if started.elapsed() > timeout {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn classify(status: ExitStatus, stderr: &str, dir: &Path, check: Check) -> Outcome {
    let first = stderr.lines().next().unwrap_or("").to_string();
    if stderr.contains("panicked") {
        let line = stderr
            .lines()
            .find(|l| l.contains("panicked"))
            .unwrap_or("");
        return fail("panic", line);
    }
    if let Some(signal) = status.signal() {
        return fail(format!("signal {}", signal_name(signal, stderr)), &first);
    }
    if let Some(bad) = stderr.chars().find(|&c| is_line_breaking_control(c)) {
        return fail(
            "control-char",
            &format!("{} in: {first}", bad.escape_unicode()),
        );
    }
    match status.code() {
        Some(0) => classify_success(stderr, dir, check),
        Some(code @ (1 | 2)) => classify_error(code, stderr),
        code => fail(format!("exit-code {code:?}"), &first),
    }
}

/// Control characters (other than the line feed that ends each line and the tab) and the
/// Unicode line and paragraph separators: they break the one line on a terminal, move the
/// cursor or change its colours.
pub fn is_line_breaking_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{2028}' || c == '\u{2029}'
}

fn signal_name(signal: i32, stderr: &str) -> String {
    let name = match signal {
        6 if stderr.contains("memory allocation") => "SIGABRT (allocation failed)",
        6 if stderr.contains("overflowed its stack") => "SIGABRT (stack overflow)",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        25 => "SIGXFSZ (an output file passed 512 MiB)",
        _ => return signal.to_string(),
    };
    name.into()
}

/// Exit 1 or 2: one line, `singulab: error: ` and located in the scene for 1, `singulab: `
/// for 2.
fn classify_error(code: i32, stderr: &str) -> Outcome {
    let lines: Vec<&str> = stderr.lines().collect();
    let first = lines.first().copied().unwrap_or("");
    if lines.len() != 1 {
        return fail("multi-line", &format!("{} lines: {first}", lines.len()));
    }
    if code == 2 {
        return if first.starts_with("singulab: ") {
            pass("usage-error", first)
        } else {
            fail("bad-prefix", first)
        };
    }
    if !first.starts_with("singulab: error: ") {
        fail("bad-prefix", first)
    } else if !is_located(first) {
        fail("unlocated-error", first)
    } else {
        pass("scene-error", first)
    }
}

/// Whether `line` holds `case.ron:LINE:COLUMN: `.
fn is_located(line: &str) -> bool {
    let prefix = format!("{SCENE_FILE}:");
    line.match_indices(&prefix).any(|(at, _)| {
        let rest = &line[at + prefix.len()..];
        let Some((row, rest)) = split_number(rest) else {
            return false;
        };
        let Some((column, rest)) = rest.strip_prefix(':').and_then(split_number) else {
            return false;
        };
        row > 0 && column > 0 && rest.starts_with(": ")
    })
}

fn split_number(text: &str) -> Option<(u64, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    Some((text[..digits].parse().ok()?, &text[digits..]))
}

/// Exit 0: every stderr line a `singulab: ` line, and both CSVs as `run --help` describes
/// them ([`crate::csv_check`]).
fn classify_success(stderr: &str, dir: &Path, check: Check) -> Outcome {
    let first = stderr.lines().next().unwrap_or("");
    if let Some(line) = stderr.lines().find(|l| !l.starts_with("singulab: ")) {
        return fail("bad-prefix", line);
    }
    let checked = match check {
        Check::Run => csv_check::check_outputs(dir, stderr, Some(T_END)),
        Check::Lesson => csv_check::check_outputs(dir, stderr, None),
        Check::Analyze { json } => check_report(dir, json),
    };
    match checked {
        Ok(()) => pass("ok", first),
        Err((class, why)) => fail(class, &format!("{why}; stderr: {first}")),
    }
}

/// `analyze`'s stdout: not empty, and a JSON object when `--json` asked for one.
fn check_report(dir: &Path, json: bool) -> Result<(), csv_check::CsvFault> {
    let stdout = std::fs::read(dir.join("stdout.txt"))
        .map_err(|e| ("bad-report", format!("stdout: {e}")))?;
    if stdout.is_empty() {
        return Err(("bad-report", "analyze printed nothing".into()));
    }
    if json {
        let parsed = serde_json::from_slice::<serde_json::Value>(&stdout);
        if !parsed.as_ref().is_ok_and(serde_json::Value::is_object) {
            return Err((
                "bad-report",
                format!("stdout is not a JSON object: {parsed:?}"),
            ));
        }
    }
    Ok(())
}

#[test]
fn an_error_is_located_by_file_line_and_column() {
    assert!(is_located(
        "singulab: error: case.ron:12:5: joint \"A\": unknown body"
    ));
    assert!(!is_located("singulab: error: case.ron: at t = 0.1 s ..."));
    assert!(!is_located("singulab: error: case.ron:12: no column"));
    assert!(!is_located("singulab: error: case.ron:0:5: line 0"));
    assert!(!is_located("singulab: error: other.ron:12:5: another file"));
}
