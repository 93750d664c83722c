//! A deterministic mutation fuzzer of scene and lesson files, run through the real `singulab`
//! binary.
//!
//! Three cases in four start from a shipped scene (`scenes/*.ron`), one in four from a shipped
//! lesson (`scenes/lessons/*.ron`), and apply one to three mutations drawn from the case's own
//! seed: numbers scaled as by a slip of units, number literals replaced by
//! extremes (0, -1, +-1e308, 1e-300, 5e-324, NaN, +-inf, 1e16, -0.0...) or by spellings RON
//! does not read, long digit strings, tokens deleted or doubled, names swapped, emptied, 10 kB
//! long or holding line breaks, terminal escapes and control characters, identifiers swapped,
//! entries of the bodies, joints, loads and velocities (or any list or tuple element, or any
//! field) removed or doubled, unknown fields, values nested 10,000 deep, byte-order marks and
//! UTF-16, invalid UTF-8, truncation at a random byte, stray characters, a megabyte of
//! comment, CR or CRLF line endings, tabs, the scene twice, solver settings at or past their
//! limits (`newton_max_iterations: 18446744073709551615`, `dopri_min_step: 1e-300`,
//! `integrator: Dopri5`...), loads (planar, spatial torques and forces) and pulses of extreme
//! size, thousands of extra bodies; whole values of the spatial and planar-vector fields made
//! degenerate ([`surfaces`]: zero or parallel axes and arms, inertias that are singular,
//! indefinite or break the triangle inequality, zero or huge Euler parameters and
//! orientations with parallel axes, knife-edge normals of zero length, drivers whose steps go
//! past the linkage's reach, end before they start or last 1e-300 s); and for a lesson,
//! actions of every kind inserted with any trigger (now, `at`, `after`, events that never
//! come) and huge, tiny or non-finite numbers, and its `speed` and `t_end` replaced.
//!
//! A scene's case runs `singulab run case.ron --t-end 0.02 --out out.csv --events events.csv`
//! (sometimes with `--integrator dopri5`, `--dt`, `--basis traditional`, `--predictor zeroth`
//! or `--reactions reactions.csv`, checked as the other CSVs), then, if that passed,
//! `singulab analyze case.ron` (as text or `--json`, sometimes `--time 0.01`). A lesson's case
//! is `lessons/case.ron` beside the scene it names, and runs `singulab run --script
//! lessons/case.ron --out out.csv --events events.csv`, mostly with `--t-end` 0.05, 0.3 or 1
//! (a mutated `t_end` of hours would be an honest long run), one case in eight to its own
//! `t_end`. Each command runs in the case's own directory, killed after 20 s (lessons: 60 s in
//! the debug build, see [`DEBUG_LESSON_TIMEOUT_FACTOR`]), under `ulimit -v` 4 GiB and
//! `ulimit -f` 512 MiB so that a runaway allocation or row count cannot take the shared
//! machine down.
//!
//! A case passes when, as the README promises:
//! - exit 0: every stderr line starts with `singulab: ` (the summary, notes and warnings), and
//!   every field of both CSVs after the header is a finite number (but the events' `kind`
//!   word, and the last `qd` cells of a row whose basis has fewer columns than the generic
//!   degrees of freedom, as many as the row's `dof` says, which `run --help` allows when the
//!   run warns that the rank exceeded the generic rank), the trajectory running from t = 0 to
//!   exactly t_end (a lesson's rows may end early, at a `Pause` that holds): a run that says
//!   it succeeded must not hand over infinities, NaNs or a cut-short trajectory (a silent
//!   wrong result); `analyze` prints a report, with `--json` one JSON object;
//! - exit 1 or 2: stderr is exactly one line starting with `singulab: ` (`singulab: error: `
//!   for exit 1), because scripts and users read one line; for exit 1 (a bad scene or a failed
//!   solve) it holds `case.ron:LINE:COLUMN: `, so the author finds what to change.
//!
//! A case's class is its run's, or `analyze CLASS` when the run passed and `analyze` did not.
//!
//! Everything else fails: a panic, a signal (crash, abort on a failed allocation, a file over
//! the limit), a hang, a multi-line or unlocated error, another prefix, another exit code,
//! non-finite or missing output, and control characters in stderr (a name echoed with a raw
//! carriage return or escape sequence breaks the one line or rewrites the terminal).
//!
//! Environment: `SINGULAB_FUZZ_CASES` (default [`DEFAULT_CASES`], under a minute of the
//! debug build on two cores), `SINGULAB_FUZZ_SEED` (another stream), `SINGULAB_FUZZ_CASE=N` (replay
//! case N alone and print its scene), `SINGULAB_FUZZ_TIMEOUT` (seconds per case, default 20),
//! `SINGULAB_FUZZ_LOG=FILE` (every case and its outcome, one tab-separated line each).
//! A long run:
//!
//! ```text
//! SINGULAB_FUZZ_CASES=100000 cargo test --release --no-default-features --test fuzz -- --nocapture
//! ```

mod case;
mod csv_check;
mod lexer;
mod mutations;
mod outcome;
mod report;
mod structure;
mod surfaces;
// The unit tests' generator, shared by file rather than exported by the library.
#[expect(
    dead_code,
    reason = "the fuzzer draws numbers only, not matrices or vectors"
)]
#[path = "../../src/linalg/test_rng.rs"]
mod test_rng;

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use case::{Case, generate};
use outcome::{Outcome, run_case};
use report::Record;

/// Cases of a default run, with the matrix test within two minutes of CI on the 2-core
/// machine: 2,500 took 90 s with the Bevy-free debug
/// build, the matrix 3 s (scene cases run `analyze` too, and lessons play up to 1 s or more).
const DEFAULT_CASES: u64 = 2_500;
const DEFAULT_SEED: u64 = 0x5EED_0019;

const THREADS: usize = 2;

/// The run's settings, from the environment.
struct Config {
    cases: u64,
    seed: u64,
    replay: Option<u64>,
    timeout: Duration,
    log: Option<PathBuf>,
}

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let number = text
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{name}={text:?} is not a whole number"));
    Some(number)
}

impl Config {
    fn from_env() -> Self {
        Self {
            cases: env_number("SINGULAB_FUZZ_CASES").unwrap_or(DEFAULT_CASES),
            seed: env_number("SINGULAB_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
            replay: env_number("SINGULAB_FUZZ_CASE"),
            timeout: Duration::from_secs(env_number("SINGULAB_FUZZ_TIMEOUT").unwrap_or(20)),
            log: std::env::var_os("SINGULAB_FUZZ_LOG").map(PathBuf::from),
        }
    }

    /// The environment that replays case `index` of this stream.
    fn replay_command(&self, index: u64) -> String {
        let seed = if self.seed == DEFAULT_SEED {
            String::new()
        } else {
            format!("SINGULAB_FUZZ_SEED={} ", self.seed)
        };
        format!(
            "{seed}SINGULAB_FUZZ_CASE={index} cargo test --no-default-features --test fuzz -- --nocapture"
        )
    }
}

/// The shipped scenes (file name, text), in name order.
fn shipped_scenes() -> Vec<(String, Vec<u8>)> {
    shipped("scenes")
}

/// The shipped lessons (file name, text), in name order.
fn shipped_lessons() -> Vec<(String, Vec<u8>)> {
    shipped("scenes/lessons")
}

/// The `.ron` files of a folder of the project (file name, text), in name order.
fn shipped(folder: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut scenes: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the scenes directory")
        .map(|entry| entry.expect("a scenes entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "ron"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("a shipped scene"))
        })
        .collect();
    scenes.sort();
    assert!(!scenes.is_empty(), "no .ron files in {}", dir.display());
    scenes
}

/// A directory of its own for case `index`.
fn case_dir(index: u64) -> PathBuf {
    std::env::temp_dir().join(format!("singulab-fuzz-{}-{index}", std::process::id()))
}

/// A lesson that waits for what never comes plays up to the headless step budget (200,000
/// steps at least, documented in the player) before its located error: a few seconds of the
/// release build, up to half a minute of the debug build, so the debug build gives lessons
/// [`DEBUG_LESSON_TIMEOUT_FACTOR`] times the timeout.
const DEBUG_LESSON_TIMEOUT_FACTOR: u32 = 3;

fn run_one(case: &Case, config: &Config) -> Outcome {
    let timeout = if case.lesson_scene.is_some() && cfg!(debug_assertions) {
        config.timeout * DEBUG_LESSON_TIMEOUT_FACTOR
    } else {
        config.timeout
    };
    run_case(case, &case_dir(case.index), timeout)
}

/// Runs cases `0..config.cases` on [`THREADS`] threads.
/// What cases start from: the shipped scenes and lessons.
struct Sources {
    scenes: Vec<(String, Vec<u8>)>,
    lessons: Vec<(String, Vec<u8>)>,
}

impl Sources {
    fn shipped() -> Self {
        Self {
            scenes: shipped_scenes(),
            lessons: shipped_lessons(),
        }
    }

    fn case(&self, seed: u64, index: u64) -> Case {
        generate(seed, index, &self.scenes, &self.lessons)
    }
}

fn run_stream(config: &Config, sources: &Sources) -> Vec<Record> {
    let next = AtomicU64::new(0);
    let records = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= config.cases {
                        break;
                    }
                    let case = sources.case(config.seed, index);
                    let outcome = run_one(&case, config);
                    let record = Record::new(&case, outcome);
                    let mut records = records.lock().unwrap();
                    records.push(record);
                    report::progress(records.len() as u64, config.cases, &records);
                }
            });
        }
    });
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.index);
    records
}

fn replay(index: u64, config: &Config, sources: &Sources) {
    let case = sources.case(config.seed, index);
    println!("case {index}: {}", case.describe());
    println!(
        "--- case.ron ({} bytes; control and invisible characters as <U+XXXX>) ---",
        case.text.len()
    );
    for line in String::from_utf8_lossy(&case.text).split('\n') {
        println!("{}", report::visible(line));
    }
    println!("--- end of case.ron ---");
    let outcome = run_one(&case, config);
    println!("outcome: {} ({:.2} s)", outcome.class, outcome.seconds);
    println!("stderr (control and invisible characters as <U+XXXX>):");
    for line in outcome.stderr.lines() {
        println!("{}", report::visible(line));
    }
    assert!(outcome.passed, "case {index} fails: {}", outcome.class);
}

#[test]
fn mutated_scenes_fail_cleanly() {
    let config = Config::from_env();
    let sources = Sources::shipped();
    if let Some(index) = config.replay {
        replay(index, &config, &sources);
        return;
    }
    let started = Instant::now();
    let records = run_stream(&config, &sources);
    let failures = report::print(&records, started.elapsed(), |index| {
        config.replay_command(index)
    });
    if let Some(log) = &config.log {
        report::write_log(log, &records).expect("the fuzz log");
    }
    assert_eq!(failures, 0, "{failures} fuzz cases failed (see above)");
}

/// The harness's own check: every shipped scene (run, then analyze) and lesson, unmutated,
/// passes the rules (so a failure above is the mutation's doing, not the harness's).
#[test]
fn shipped_scenes_and_lessons_pass_the_rules() {
    let config = Config::from_env();
    let sources = Sources::shipped();
    let lessons = sources.lessons.iter().map(|lesson| (lesson, true));
    let scenes = sources.scenes.iter().map(|scene| (scene, false));
    for (index, ((name, text), is_lesson)) in scenes.chain(lessons).enumerate() {
        let lesson_scene = is_lesson.then(|| {
            let named = case::named_scene(text).expect("the lesson names its scene");
            let found = sources.scenes.iter().find(|(file, _)| *file == named);
            found.expect("the lesson's scene is shipped").clone()
        });
        let analyze_args = (!is_lesson).then(|| match index % 2 {
            0 => vec!["--json".to_string()],
            _ => vec!["--time".to_string(), "0.01".to_string()],
        });
        let case = Case {
            index: u64::MAX - index as u64,
            scene: name.clone(),
            text: text.clone(),
            lesson_scene,
            mutations: Vec::new(),
            extra_args: Vec::new(),
            analyze_args,
        };
        let outcome = run_one(&case, &config);
        assert_eq!(
            outcome.class, "ok",
            "{name}: {} {}",
            outcome.line, outcome.stderr
        );
    }
}
