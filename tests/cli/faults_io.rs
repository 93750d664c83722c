//! Bad input and faults around the solver: the scene file as read (its size, encoding and
//! byte-order mark), the outputs of `singulab run` (links to the scene, a closed stdout), one
//! line per message whatever the names hold, Dopri5's step budget, the energy check with loads,
//! and the order of the notes. Each builds its bad input itself.
//!
//! References: the README's contract (one line on stderr per error, exit codes 0/1/2, a
//! warning when a conservative run's energy drifts by more than 1e-3 of its largest kinetic
//! energy) and, for the constant torque, the four-bar's one-coordinate reduction (as in
//! `pulses.rs`): `I theta'' = -c g cos(theta) + tau` conserves
//! `I omega^2 / 2 + c g sin(theta) - tau theta`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use singulab::cli::args::RunArgs;
use singulab::cli::run::{RunSummary, run_scene};
use singulab::scene::{MAX_SCENE_BYTES, SceneError, load_scene, parse_scene};
use singulab::solver::BasisMode;

use crate::common::{scene_path, scratch, singulab};

fn four_bar_text() -> String {
    std::fs::read_to_string(scene_path("four_bar")).expect("four_bar.ron")
}

/// `four_bar.ron` with its first `from` replaced by `to` (which must be there).
fn four_bar_with(from: &str, to: &str) -> String {
    let text = four_bar_text();
    assert!(
        text.contains(from),
        "test bug: four_bar.ron has no {from:?}"
    );
    text.replacen(from, to, 1)
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// stderr as lines, after checking that there is no panic.
fn stderr_lines(output: &Output) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr.lines().map(String::from).collect()
}

/// Exit 1 and one `singulab: error: ` line holding each of `words`; returns the line.
fn assert_one_error_line(output: &Output, words: &[&str], case: &str) -> String {
    let lines = stderr_lines(output);
    assert_eq!(output.status.code(), Some(1), "{case}: {lines:?}");
    assert_eq!(lines.len(), 1, "{case}: one line expected, got {lines:?}");
    assert!(
        lines[0].starts_with("singulab: error: "),
        "{case}: {lines:?}"
    );
    for word in words {
        assert!(
            lines[0].contains(word),
            "{case}: {word:?} missing from {lines:?}"
        );
    }
    lines[0].clone()
}

#[cfg(unix)]
#[test]
fn an_output_hard_linked_to_the_scene_is_refused() {
    let dir = scratch("links");
    let text = four_bar_text();
    let scene = dir.join("scene.ron");
    std::fs::write(&scene, &text).unwrap();
    let hard = dir.join("hard.csv");
    std::fs::hard_link(&scene, &hard).unwrap();
    let soft = dir.join("soft.csv");
    std::os::unix::fs::symlink(&scene, &soft).unwrap();
    let (scene, hard, soft) = (path_text(&scene), path_text(&hard), path_text(&soft));
    let new = path_text(&dir.join("new.csv"));
    for (flag, link) in [("--out", &hard), ("--events", &hard), ("--out", &soft)] {
        let other = if flag == "--out" { "--events" } else { "--out" };
        let output = singulab(&["run", &scene, "--t-end", "0.01", flag, link, other, &new]);
        assert_one_error_line(
            &output,
            &[flag, "overwrite the scene"],
            &format!("{flag} {link}"),
        );
        assert_eq!(
            std::fs::read_to_string(&scene).unwrap(),
            text,
            "{flag} {link}"
        );
    }
    // --out and --events as two names of one existing file: refused, the file kept.
    let out = dir.join("out.csv");
    std::fs::write(&out, "earlier results\n").unwrap();
    let events = dir.join("events.csv");
    std::fs::hard_link(&out, &events).unwrap();
    let output = singulab(&[
        "run",
        &scene,
        "--out",
        &path_text(&out),
        "--events",
        &path_text(&events),
    ]);
    assert_one_error_line(&output, &["same file"], "--out and --events hard-linked");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "earlier results\n");
    // Two new outputs under one name (the same folder written two ways) are refused too.
    let same = path_text(&dir.join("same.csv"));
    let same_again = path_text(&dir.join(".").join("same.csv"));
    let output = singulab(&["run", &scene, "--out", &same, "--events", &same_again]);
    assert_one_error_line(&output, &["same file"], "one new file twice");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `singulab run ARGS` in a shell that changes its stdout by `redirect` first.
#[cfg(unix)]
fn singulab_with_stdout(redirect: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirect}"))
        .arg(env!("CARGO_BIN_EXE_singulab"))
        .args(args)
        .output()
        .expect("sh runs")
}

#[cfg(unix)]
#[test]
fn a_closed_or_read_only_stdout_fails_and_dev_null_runs() {
    let scene = path_text(&scene_path("four_bar"));
    let run = ["run", scene.as_str(), "--t-end", "0.05"];
    // Closed: the runtime reopens it on /dev/null, where the rows would vanish unreported.
    let closed = singulab_with_stdout(">&-", &run);
    assert_one_error_line(
        &closed,
        &["cannot write the output", "stdout is closed"],
        ">&-",
    );
    // Open for reading only: every write fails with EBADF, which Rust's stdout ignores.
    let read_only = singulab_with_stdout("1</dev/null", &run);
    assert_one_error_line(&read_only, &["not open for writing"], "1</dev/null");
    // The events to a closed stdout, and bench's table.
    let events = singulab_with_stdout(
        ">&-",
        &[&run[..], &["--out", "/dev/null", "--events", "-"]].concat(),
    );
    assert_one_error_line(&events, &["cannot write the events"], "--events - >&-");
    let bench = singulab_with_stdout(">&-", &["bench", &scene, "--t-end", "0.01"]);
    assert_one_error_line(&bench, &["cannot write the table"], "bench >&-");
    // A closed stdout that nothing is written to is no error.
    let unused = singulab_with_stdout(">&-", &[&run[..], &["--out", "/dev/null"]].concat());
    assert_eq!(unused.status.code(), Some(0), "{unused:?}");
    // Discarding the rows on purpose runs, and the summary counts them.
    let discarded = Command::new(env!("CARGO_BIN_EXE_singulab"))
        .args(run)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let lines = stderr_lines(&discarded);
    assert_eq!(discarded.status.code(), Some(0), "{lines:?}");
    assert!(lines[0].contains("51 rows"), "{lines:?}");
}

fn load_error(path: &Path) -> SceneError {
    match load_scene(path) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => e,
    }
}

#[test]
fn a_device_or_a_file_over_the_size_limit_is_refused_as_a_scene() {
    // A device reports length 0 and never ends: read to the limit and refused.
    #[cfg(unix)]
    {
        let e = load_error(Path::new("/dev/zero"));
        assert_eq!((e.line, e.column), (1, 1), "{e}");
        assert!(e.message.contains("larger than 1048576 bytes"), "{e}");
        let output = singulab(&["run", "/dev/zero", "--out", "/dev/null"]);
        assert_one_error_line(&output, &["/dev/zero:1:1", "1 MiB"], "/dev/zero");
    }
    // A scene padded with spaces to exactly the limit loads; one byte more is refused.
    let dir = scratch("size");
    let text = four_bar_text();
    let padded = format!(
        "{text}{}",
        " ".repeat(MAX_SCENE_BYTES as usize - text.len())
    );
    let at_limit = dir.join("at_limit.ron");
    std::fs::write(&at_limit, &padded).unwrap();
    load_scene(&at_limit).unwrap_or_else(|e| panic!("{e}"));
    let over = dir.join("over.ron");
    std::fs::write(&over, format!("{padded} ")).unwrap();
    let e = load_error(&over);
    assert!(e.message.contains("tens of kB"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_scene_that_is_not_utf8_names_its_first_bad_byte() {
    let dir = scratch("encoding");
    // A Latin-1 `ä` (0xe4) in the title on line 5, after `    title: "Four-b`.
    let text = four_bar_with("Four-bar linkage\",", "Four-b\u{1}r linkage\",");
    let mut bytes = text.into_bytes();
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xe4;
    let path = dir.join("latin1.ron");
    std::fs::write(&path, &bytes).unwrap();
    let e = load_error(&path);
    assert_eq!((e.line, e.column), (5, 19), "{e}");
    assert!(
        e.message.contains("not UTF-8") && e.message.contains("0xe4"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_byte_order_mark_is_skipped_and_later_positions_stay_right() {
    let with_bom = format!("\u{feff}{}", four_bar_text());
    let scene = parse_scene("bom.ron", &with_bom).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.title, "Four-bar linkage");
    // An error after it is where it is without the mark: line 9, `mass` of crank1.
    let zero_mass = four_bar_with("mass: 1.0", "mass: 0.0");
    let plain = parse_scene("x.ron", &zero_mass).expect_err("zero mass is an error");
    let marked =
        parse_scene("x.ron", &format!("\u{feff}{zero_mass}")).expect_err("zero mass is an error");
    assert_eq!(marked, plain);
    assert_eq!(plain.line, 9, "{plain}");
    // On the first line, columns count from after the mark, as an editor shows them.
    let plain = parse_scene("x.ron", "Scene(title: 5)").err().unwrap();
    let marked = parse_scene("x.ron", "\u{feff}Scene(title: 5)")
        .err()
        .unwrap();
    assert_eq!(
        (marked.line, marked.column),
        (plain.line, plain.column),
        "{marked}"
    );
    assert_eq!(plain.line, 1, "{plain}");
    // Through the file reader too.
    let dir = scratch("bom");
    let path = dir.join("bom.ron");
    std::fs::write(&path, &with_bom).unwrap();
    load_scene(&path).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_with_line_breaks_or_control_characters_stay_on_one_line() {
    let dir = scratch("one-line");
    let long = "x".repeat(10_000);
    let cases = [
        // A joint naming a body "a\nb" (escaped in RON), and the trace naming it.
        (
            "newline.ron",
            four_bar_with("a: \"crank1\"", "a: \"a\\nb\""),
            "\"a\\nb\"",
        ),
        (
            "trace.ron",
            four_bar_with("trace: \"coupler\"", "trace: \"a\\nb\""),
            "\"a\\nb\"",
        ),
        // An unterminated name: ron's message quotes the source up to the next quote, across
        // the line end.
        (
            "unterminated.ron",
            four_bar_with("\"crank1\", length", "\"crank1&, length"),
            "\\n",
        ),
        // A raw escape character and a tab in a name.
        (
            "escape.ron",
            four_bar_with("a: \"crank1\"", "a: \"cr\u{1b}[31m\tank\""),
            "\"cr\\u{1b}[31m\\tank\"",
        ),
        // A 10 kB name: shortened in the middle.
        (
            "long.ron",
            four_bar_with("a: \"crank1\"", &format!("a: \"{long}\"")),
            "xxx…xxx",
        ),
    ];
    for (file, text, shown) in cases {
        let path = dir.join(file);
        std::fs::write(&path, &text).unwrap();
        let output = singulab(&["run", &path_text(&path)]);
        let line = assert_one_error_line(&output, &[file, shown], file);
        assert!(
            line.chars().count() < 400,
            "{file}: {} characters",
            line.len()
        );
        // The app shows the error's Display: one line too.
        let shown_by_app = parse_scene(file, &text).expect_err("an error").to_string();
        assert!(!shown_by_app.contains('\n'), "{file}: {shown_by_app}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The four-bar with `loads` (RON list items) and its own settings otherwise.
fn four_bar_with_loads(loads: &str) -> String {
    four_bar_with("solver:", &format!("loads: [{loads}],\n    solver:"))
}

#[test]
fn energy_that_grows_after_a_pulse_warns_at_a_step_too_large() {
    // 1e6 N m on crank1 for 1 ms at 0.5 s: the crank then turns at about 600 rad/s, 0.6 rad
    // per step at dt 1e-3, and over 3 s the energy after the pulse drifts by millions of
    // joules; at dt 1e-4 it stays within the bound of the check.
    let dir = scratch("pulse");
    let path = dir.join("kick.ron");
    let kick = "Torque(name: \"kick\", body: \"crank1\", torque: 1e6, start: 0.5, duration: 1e-3)";
    std::fs::write(&path, four_bar_with_loads(kick)).unwrap();
    let run = |dt: &str| {
        singulab(&[
            "run",
            &path_text(&path),
            "--t-end",
            "3",
            "--dt",
            dt,
            "--out",
            &path_text(&dir.join("rows.csv")),
        ])
    };
    let coarse = run("1e-3");
    let lines = stderr_lines(&coarse);
    assert_eq!(coarse.status.code(), Some(0), "{lines:?}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    for words in [
        "warning: the energy drifted by",
        "outside its load pulses",
        "too large for the velocities a load pulse gave, try a smaller --dt",
    ] {
        assert!(lines[1].contains(words), "{words:?} missing from {lines:?}");
    }
    let fine = run("1e-4");
    let lines = stderr_lines(&fine);
    assert_eq!(fine.status.code(), Some(0), "{lines:?}");
    assert_eq!(lines.len(), 1, "no warning expected: {lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `text` to `t_end` at `dt` through the library, returning the summary and the energy
/// column of the trajectory (kinetic plus gravitational).
fn run_text(text: &str, t_end: f64, dt: f64) -> (RunSummary, Vec<f64>) {
    let scene = parse_scene("loaded.ron", text).unwrap_or_else(|e| panic!("{e}"));
    let args = RunArgs {
        scene: Some(PathBuf::from("loaded.ron")),
        t_end: Some(t_end),
        dt: Some(dt),
        basis: BasisMode::Continued,
        predictor: None,
        integrator: None,
        every: 1,
        out: None,
        events: None,
        reactions: None,
        script: None,
    };
    let mut out = Vec::new();
    let summary =
        run_scene(&scene, &args, &mut out, None, None, false).unwrap_or_else(|e| panic!("{e}"));
    let csv = String::from_utf8(out).unwrap();
    let energy = csv
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    (summary, energy)
}

#[test]
fn a_constant_torque_is_checked_with_its_potential() {
    // 5 N m on crank1 and a 3 N, 1 N force on the coupler, for 2 s: T + V_gravity changes by
    // 90 J, T + V_gravity + V_load stays within the README's 1e-3 of the largest kinetic
    // energy (0.13 J; measured 9.0e-9 J at dt 1e-3, 2.5 J at dt 0.1).
    let text = four_bar_with_loads(
        "Torque(name: \"drive\", body: \"crank1\", torque: 5.0), \
         Force(name: \"wind\", body: \"coupler\", force: [3.0, 1.0])",
    );
    let (summary, energy) = run_text(&text, 2.0, 1e-3);
    let bound = 1e-3 * summary.kinetic_max;
    let work = energy
        .iter()
        .map(|e| (e - energy[0]).abs())
        .fold(0.0, f64::max);
    assert!(work > 50.0, "the loads did {work} J of work");
    assert!(
        summary.energy_drift < bound,
        "drift {:.3e} J, bound {bound:.3e} J",
        summary.energy_drift
    );
    assert!(!summary.has_pulses);
    // The check is live: steps of 0.1 s lose it.
    let (summary, _) = run_text(&text, 2.0, 0.1);
    assert!(
        summary.energy_drift > 1e-3 * summary.kinetic_max,
        "drift {:.3e} J at dt 0.1",
        summary.energy_drift
    );
}

#[test]
fn notes_follow_the_summary_and_a_failed_run_prints_its_error_alone() {
    // crank2's ground pin 0.3 m off the stated pose: assembly moves the pose far.
    let dir = scratch("notes");
    let path = dir.join("far.ron");
    std::fs::write(
        &path,
        four_bar_with("ground: (1.0, 0.0)", "ground: (1.3, 0.0)"),
    )
    .unwrap();
    let path = path_text(&path);
    let good = singulab(&["run", &path, "--t-end", "0.1", "--out", "/dev/null"]);
    let lines = stderr_lines(&good);
    assert_eq!(good.status.code(), Some(0), "{lines:?}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("100 steps to t = 0.1 s"), "{lines:?}");
    assert!(
        lines[1].starts_with("singulab: warning: assembled the initial positions"),
        "{lines:?}"
    );
    // Half-second steps fail (Newton): the error alone, saying the pose was far off.
    let bad = singulab(&[
        "run",
        &path,
        "--dt",
        "0.5",
        "--t-end",
        "10",
        "--out",
        "/dev/null",
    ]);
    assert_one_error_line(
        &bad,
        &["did not converge", "the stated pose did not fit the joints"],
        "far-off pose, dt 0.5",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A step that fails names the joint it failed at, with its line and column in the scene file,
/// on the one error line.
#[test]
fn a_failed_step_points_at_its_joint_in_the_scene_file() {
    let dir = scratch("located");
    // One Newton iteration after a step of 0.3 s cannot bring the fast four-bar back.
    let text = four_bar_with("dt: 1e-3", "dt: 0.3, newton_max_iterations: 1");
    let path = dir.join("coarse.ron");
    std::fs::write(&path, &text).unwrap();
    let output = singulab(&["run", &path_text(&path), "--out", "/dev/null"]);
    let line = assert_one_error_line(&output, &["did not converge", "joint \""], "coarse");
    // `coarse.ron:LINE:COLUMN: joint "NAME": ...`, and the joint's name is at that place.
    let after = line.split_once("coarse.ron:").expect("the file is named").1;
    let mut parts = after.splitn(3, ':');
    let row: usize = parts.next().unwrap().parse().expect("a line number");
    let column: usize = parts.next().unwrap().parse().expect("a column number");
    let name = parts
        .next()
        .unwrap()
        .split('"')
        .nth(1)
        .expect("a quoted joint");
    let at: String = text
        .lines()
        .nth(row - 1)
        .unwrap()
        .chars()
        .skip(column - 1)
        .collect();
    assert!(
        at.starts_with(&format!("name: \"{name}\"")),
        "{line} points at {at:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
