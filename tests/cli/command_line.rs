//! The `singulab` binary run as a process (`CARGO_BIN_EXE_singulab`): bad input and solver
//! failures end with a non-zero exit and one `singulab:` line on stderr, never a panic; good
//! runs write the CSV the README describes; a reader that closes stdout early (`| head`) ends
//! the run quietly.
//!
//! References: the exit codes are the README's (2 for bad arguments, 1 for bad scenes and
//! solver failures, 0 for `--help`); the CSV's first and last rows are the README's contract
//! (t = 0 and exactly `--t-end`).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{scene_path, scratch, singulab, singulab_os};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scratch file");
    path.display().to_string()
}

/// Exit `code`, stderr one `singulab: ...` line holding every word of `words`, no panic.
fn assert_fails(output: &Output, code: i32, words: &[&str], case: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{case}: stderr {stderr}");
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{case}: one line expected, got {stderr}");
    assert!(lines[0].starts_with("singulab: "), "{case}: {stderr}");
    // README: `singulab: error: ` for bad scenes and failures, plain `singulab: ` for bad
    // arguments, except a run the arguments make too long for the scene (exit 2, an error
    // found once the scene is read).
    let too_long = code == 2 && lines[0].contains("more than 1e9");
    assert_eq!(
        lines[0].starts_with("singulab: error: "),
        code == 1 || too_long,
        "{case}: {stderr}"
    );
    for word in words {
        assert!(
            lines[0].contains(word),
            "{case}: {word:?} missing from {stderr}"
        );
    }
}

const FOUR_BAR_FLAT: &str = r#"Scene(
    title: "four-bar written down flat",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "crank1", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: 0.0),
        Bar(name: "coupler", length: 1.0, mass: 1.0, start: (1.0, 0.0), angle: 0.0),
        Bar(name: "crank2", length: 1.0, mass: 1.0, start: (1.0, 0.0), angle: 0.0),
    ],
    joints: [
        Pin(name: "O1", body: "crank1", at: Start, ground: (0.0, 0.0)),
        Pin(name: "O2", body: "crank2", at: Start, ground: (1.0, 0.0)),
        Revolute(name: "A", a: "crank1", at_a: End, b: "coupler", at_b: Start),
        Revolute(name: "B", a: "crank2", at_a: End, b: "coupler", at_b: End),
    ],
    velocities: [
        (body: "crank1", omega: 1.0),
        (body: "crank2", omega: 1.0),
        (body: "coupler", omega: 0.0),
    ],
)"#;

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let four_bar = scene_path("four_bar").display().to_string();
    // Each message names the option at fault and what is wrong with it.
    let cases: [(&[&str], &[&str]); 10] = [
        (&["run"], &["required", "SCENE.ron"]),
        (
            &["run", &four_bar, "--frobnicate"],
            &["unexpected argument", "--frobnicate"],
        ),
        (
            &["run", &four_bar, "--t-ed", "1"],
            &["unexpected argument", "--t-ed", "similar", "--t-end"],
        ),
        (
            &["run", &four_bar, "--dt", "1e-3", "--dt", "2e-3"],
            &["--dt", "multiple times"],
        ),
        (&["run", &four_bar, "--out", "-h"], &["--out", "value"]),
        (
            &["run", &four_bar, "--out", "--events", "e.csv"],
            &["--out", "value"],
        ),
        (
            &["run", &four_bar, "--every", "0"],
            &["--every", "positive"],
        ),
        (
            &["run", &four_bar, "--t-end", "x"],
            &["--t-end", "positive number of seconds"],
        ),
        (
            &["run", &four_bar, "--out", "-", "--events", "-"],
            &["--events -", "stdout"],
        ),
        (&["fly"], &["unrecognized subcommand", "fly"]),
    ];
    for (args, words) in cases {
        assert_fails(&singulab(args), 2, words, &format!("{args:?}"));
    }
}

#[test]
fn bad_scenes_and_failures_exit_1_with_one_line() {
    let dir = scratch("bad");
    let four_bar = std::fs::read_to_string(scene_path("four_bar")).expect("four_bar.ron");
    // Settings that once panicked in a clamp (smallest Dopri5 step above the largest).
    let min_step = write(
        &dir,
        "min_step.ron",
        &four_bar.replacen("dt: 1e-3", "dt: 1e-3, dopri_min_step: 5.0", 1),
    );
    assert!(
        four_bar.contains("dt: 1e-3"),
        "test bug: four_bar.ron has no `dt: 1e-3` to edit"
    );
    let malformed = write(&dir, "malformed.ron", "Scene(title: \"x\", bodies: [");
    let zero_mass = write(
        &dir,
        "zero_mass.ron",
        &four_bar.replacen("mass: 1.0", "mass: 0.0", 1),
    );
    let missing = dir.join("missing.ron").display().to_string();
    let directory = dir.display().to_string();
    let four_bar_path = scene_path("four_bar").display().to_string();
    let a02 = scene_path("double_four_bar").display().to_string();
    let victim = write(&dir, "victim.ron", &four_bar);
    let same = dir.join("same.csv").display().to_string();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["run", &missing], vec!["missing.ron"]),
        (vec!["run", &directory], vec!["cannot read"]),
        (vec!["run", &malformed], vec!["malformed.ron"]),
        (
            vec!["run", &zero_mass],
            vec!["zero_mass.ron", "crank1", "mass"],
        ),
        (
            vec!["run", &min_step, "--integrator", "dopri5"],
            vec!["dopri_min_step"],
        ),
        (
            vec!["run", &four_bar_path, "--out", &same, "--events", &same],
            vec!["same file"],
        ),
        (
            vec!["run", &victim, "--out", &victim],
            vec!["overwrite the scene"],
        ),
        // A step far too large for the linkage: Newton's projection fails.
        (
            vec!["run", &a02, "--dt", "0.5", "--t-end", "20"],
            vec!["t = "],
        ),
    ];
    for (args, words) in &cases {
        assert_fails(&singulab(args), 1, words, &format!("{args:?}"));
    }
    // A run the arguments make endless is a usage error; the same from the scene's own `dt`
    // points at it.
    let endless = ["run", &four_bar_path, "--dt", "1e-300", "--t-end", "1"];
    assert_fails(&singulab(&endless), 2, &["steps", "1e-300"], "--dt 1e-300");
    let tiny_dt = write(
        &dir,
        "tiny_dt.ron",
        &four_bar.replacen("dt: 1e-3", "dt: 1e-300", 1),
    );
    assert_fails(
        &singulab(&["run", &tiny_dt]),
        1,
        &["tiny_dt.ron:24:14: ", "steps", "1e-300"],
        "dt: 1e-300",
    );
    // The scene file that --out named is untouched.
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), four_bar);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Devices are not files to protect: both outputs to /dev/null is a run that only wants the
/// summary.
#[cfg(unix)]
#[test]
fn both_outputs_to_dev_null_run() {
    let output = singulab(&[
        "run",
        &scene_path("four_bar").display().to_string(),
        "--t-end",
        "0.01",
        "--out",
        "/dev/null",
        "--events",
        "/dev/null",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn a_run_writes_rows_from_zero_to_exactly_t_end() {
    let dir = scratch("good");
    let out = dir.join("out.csv");
    let output = singulab(&[
        "run",
        &scene_path("four_bar").display().to_string(),
        "--t-end",
        "0.0105",
        "--every",
        "4",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("t,energy,residual,rank,dof,basis_jump,crank1.x,"));
    assert!(rows[0].ends_with(",qd1"), "{}", rows[0]);
    // Steps of 1e-3 s: rows at steps 0, 4, 8, then the shortened last step to 0.0105.
    let times: Vec<f64> = rows[1..]
        .iter()
        .map(|r| r.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(times.len(), 4, "{times:?}");
    assert_eq!(times[0], 0.0);
    assert_eq!(*times.last().unwrap(), 0.0105);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn events_to_stdout_beside_a_trajectory_file() {
    // Run from a scratch directory: `--events -` once created a file named `-` there.
    let dir = scratch("events-stdout");
    let out = dir.join("out.csv");
    let output = Command::new(env!("CARGO_BIN_EXE_singulab"))
        .current_dir(&dir)
        .args([
            "run",
            &scene_path("four_bar").display().to_string(),
            "--t-end",
            "1",
            "--out",
            "out.csv",
            "--events",
            "-",
        ])
        .output()
        .expect("the singulab binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!dir.join("-").exists(), "a file named - was created");
    let events = String::from_utf8(output.stdout).expect("UTF-8 events");
    let lines: Vec<&str> = events.lines().collect();
    assert!(
        lines[0].starts_with("t,rank,deficiency,rho_min,motion,kind,crank1.dx,"),
        "{events}"
    );
    // As many singular events as the summary counts, each with its continued motion first.
    let count: usize = stderr
        .split(" singular event")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no event count in {stderr}"));
    assert!(count > 0, "{stderr}");
    let continued = lines.iter().filter(|l| l.contains(",continued,")).count();
    assert_eq!(continued, count, "{events}");
    // The trajectory went to its file, with no event rows mixed in.
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.starts_with("t,energy,"), "{csv}");
    assert!(!csv.contains("continued"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_checks_every_scene_before_printing() {
    // The second scene is missing: no table header on stdout before the error.
    let four_bar = scene_path("four_bar").display().to_string();
    let missing = scratch("bench").join("missing.ron").display().to_string();
    let output = singulab(&["bench", &four_bar, &missing, "--t-end", "0.01"]);
    assert_fails(&output, 1, &["missing.ron"], "bench with a missing scene");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
}

#[test]
fn bench_writes_its_table_between_the_markdown_files_markers() {
    let dir = scratch("bench-markdown");
    let doc = dir.join("measurements.md");
    let before =
        "# Title\n\ntext\n<!-- singulab bench -->\nold table\n<!-- /singulab bench -->\nafter\n";
    std::fs::write(&doc, before).unwrap();
    let pendulum = scene_path("planar_pendulum").display().to_string();
    let output = singulab(&[
        "bench",
        &pendulum,
        "--t-end",
        "0.2",
        "--markdown",
        doc.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let written = std::fs::read_to_string(&doc).unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    // The file keeps what is around the markers and holds the printed table between them.
    assert!(
        written.starts_with("# Title\n\ntext\n<!-- singulab bench -->\nMeasured by"),
        "{written}"
    );
    assert!(
        written.ends_with("<!-- /singulab bench -->\nafter\n"),
        "{written}"
    );
    assert!(!written.contains("old table"));
    assert!(
        written.contains(printed.trim_end()),
        "{written}\n---\n{printed}"
    );
    // A file without the markers is an error before any run, and stays as it was.
    std::fs::write(&doc, "no markers\n").unwrap();
    let output = singulab(&["bench", &pendulum, "--markdown", doc.to_str().unwrap()]);
    assert_fails(
        &output,
        1,
        &["measurements.md", "<!-- singulab bench -->"],
        "bench --markdown without markers",
    );
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), "no markers\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reader_that_closes_stdout_ends_the_run_quietly() {
    // four_bar's 2 s at dt 1e-3 write about 0.9 MB, far more than a pipe holds.
    let mut child = Command::new(env!("CARGO_BIN_EXE_singulab"))
        .args(["run", &scene_path("four_bar").display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the singulab binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("t,energy"), "{first}");
    // The reader is dropped here: the next writes fail with a broken pipe.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_scene_starting_singular_has_the_generic_dof() {
    // The four-bar written down flat has rank 7 there and 8 everywhere else (Quro 2023,
    // table 5.1: four_bar rank 8, 7 when flat), so one degree of freedom and one qd column. Its
    // rates are those of the parallelogram branch, so the energy stays (no warning).
    let dir = scratch("flat");
    let (output, out, _) = run_flat_four_bar(&dir, "flat", FOUR_BAR_FLAT);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("starts at a singular configuration (rank 7 there, 8 next to it)"),
        "{stderr}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",qd1"), "{header}");
    // Every row after the start has rank 8, dof 1 and its qd1 written.
    for row in csv.lines().skip(2) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!((cells[3], cells[4]), ("8", "1"), "{row}");
        assert!(!cells.last().unwrap().is_empty(), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_conservative_run_that_loses_its_energy_says_so() {
    // The four-bar at steps of 0.1 s (0.4 rad of crank per step): no solver error, but its
    // energy (gravity only, no loads) drifts by 1.5 J from E0 = 32.95 J. (At 0.2 s and
    // above Newton fails instead, an error of its own.)
    let output = singulab(&[
        "run",
        &scene_path("four_bar").display().to_string(),
        "--dt",
        "0.1",
        "--t-end",
        "20",
        "--out",
        if cfg!(windows) { "NUL" } else { "/dev/null" },
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: the energy drifted by"),
        "{stderr}"
    );
    // The shipped step keeps it (no warning).
    let output = singulab(&[
        "run",
        &scene_path("four_bar").display().to_string(),
        "--out",
        if cfg!(windows) { "NUL" } else { "/dev/null" },
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// An output that cannot be opened leaves the other one as it was (both open before either
/// is emptied), and a solver failure says where the rows written before it are.
#[test]
fn a_bad_output_path_keeps_the_other_file_and_a_failure_names_the_rows_kept() {
    let dir = scratch("keep");
    let out = dir.join("keep.csv");
    std::fs::write(&out, "earlier results\n").unwrap();
    let missing = dir.join("no_such_dir").join("events.csv");
    let scene = scene_path("four_bar").display().to_string();
    let output = singulab(&[
        "run",
        &scene,
        "--out",
        &out.display().to_string(),
        "--events",
        &missing.display().to_string(),
    ]);
    assert_fails(
        &output,
        1,
        &["cannot create", "events.csv"],
        "missing events dir",
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "earlier results\n");
    // Steps of 0.35 s on the four-bar fail at t = 3.675 s (Newton, next to the flat pose).
    let output = singulab(&[
        "run",
        &scene,
        "--dt",
        "0.35",
        "--t-end",
        "10",
        "--out",
        &out.display().to_string(),
    ]);
    assert_fails(
        &output,
        1,
        &[
            "did not converge",
            "rows written before the failure",
            "keep.csv",
        ],
        "failing run",
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(csv.starts_with("t,energy,"), "{csv}");
    assert!(csv.lines().count() > 2, "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_lists_each_commands_options() {
    for (args, options) in [
        (vec!["--help"], vec!["view", "run", "bench"]),
        (
            vec!["run", "--help"],
            vec!["--t-end", "--dt", "--every", "--out", "--events"],
        ),
        (
            vec!["view", "-h"],
            vec!["--screenshot", "--until-event", "--ui-scale"],
        ),
        (vec!["bench", "--help"], vec!["--t-end"]),
    ] {
        let output = singulab(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
        assert!(output.stderr.is_empty(), "{args:?}: {output:?}");
        for option in options {
            assert!(
                stdout.contains(option),
                "{args:?}: {option} missing from {stdout}"
            );
        }
    }
    // One line of explanation per option: run's `--events` line says what it writes.
    let output = singulab(&["run", "--help"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let events = stdout
        .lines()
        .find(|line| line.trim_start().starts_with("--events"))
        .unwrap_or_else(|| panic!("no --events line in {stdout}"));
    assert!(events.contains("events CSV"), "{events}");
    let output = singulab(&["--version"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("singulab "));
}

#[test]
fn an_option_takes_its_value_after_an_equals_sign() {
    let dir = scratch("equals");
    let out = dir.join("out.csv");
    let scene = scene_path("four_bar").display().to_string();
    let out_option = format!("--out={}", out.display());
    let output = singulab(&["run", &scene, "--t-end=0.01", &out_option]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let last = csv.lines().last().unwrap().split(',').next().unwrap();
    // The last row is exactly at --t-end (the README's contract), so compared exactly.
    assert_eq!(last.parse::<f64>().unwrap(), 0.01, "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scene path is handed to the loader as the OS gave it: one that is not UTF-8 is a file
/// like any other (missing: exit 1 from the loader, not an argument error).
#[cfg(unix)]
#[test]
fn a_scene_path_need_not_be_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("not-utf8");
    let missing = dir.join(OsStr::from_bytes(b"no_sc\xe8ne.ron"));
    let output = singulab_os(&[OsStr::new("run"), missing.as_os_str()]);
    assert_fails(
        &output,
        1,
        &["cannot read", "no_sc"],
        "missing non-UTF-8 scene",
    );
    let scene = dir.join(OsStr::from_bytes(b"four_b\xe4r.ron"));
    std::fs::copy(scene_path("four_bar"), &scene).expect("scratch scene");
    let out = dir.join(OsStr::from_bytes(b"\xfftrajectory.csv"));
    let output = singulab_os(&[
        OsStr::new("run"),
        scene.as_os_str(),
        OsStr::new("--t-end"),
        OsStr::new("0.01"),
        OsStr::new("--out"),
        out.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("t,energy,")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads a CSV file with the csv crate: its header and its records.
fn read_csv(path: &Path) -> (csv::StringRecord, Vec<csv::StringRecord>) {
    let mut reader = csv::Reader::from_path(path).expect("a CSV file");
    let header = reader.headers().expect("a header").clone();
    let records = reader
        .records()
        .collect::<Result<Vec<_>, _>>()
        .expect("well-formed records");
    (header, records)
}

/// Runs the flat four-bar (it passes singular configurations, so the events CSV has rows) to
/// 1.5 s, writing both CSVs into `dir` under `tag`; returns the process output and the two
/// CSV paths.
fn run_flat_four_bar(dir: &Path, tag: &str, scene_text: &str) -> (Output, PathBuf, PathBuf) {
    let scene = write(dir, &format!("{tag}.ron"), scene_text);
    let out = dir.join(format!("{tag}.csv"));
    let events = dir.join(format!("{tag}_events.csv"));
    let output = singulab(&[
        "run",
        &scene,
        "--t-end",
        "1.5",
        "--out",
        &out.display().to_string(),
        "--events",
        &events.display().to_string(),
    ]);
    (output, out, events)
}

#[test]
fn names_with_commas_and_quotes_are_quoted_in_the_csv() {
    let dir = scratch("names");
    // The same scene with plain names and with a comma and a double quote in two of them.
    let quoted = FOUR_BAR_FLAT
        .replace("\"crank1\"", "\"a,b\"")
        .replace("\"coupler\"", "\"say \\\"hi\\\"\"");
    assert_ne!(quoted, FOUR_BAR_FLAT, "test bug: no name replaced");
    let (plain, plain_out, plain_events) = run_flat_four_bar(&dir, "plain", FOUR_BAR_FLAT);
    assert_eq!(plain.status.code(), Some(0), "plain: {plain:?}");
    let (output, out, events) = run_flat_four_bar(&dir, "quoted", &quoted);
    assert_eq!(output.status.code(), Some(0), "quoted: {output:?}");

    let (header, rows) = read_csv(&out);
    let (plain_header, plain_rows) = read_csv(&plain_out);
    assert_eq!(header.len(), plain_header.len());
    assert_eq!(&header[6], "a,b.x", "{header:?}");
    assert!(header.iter().any(|h| h == "say \"hi\".theta"), "{header:?}");
    // Names change no number: the rows are the same text.
    assert_eq!(rows, plain_rows);
    // The written numbers read back as numbers.
    let energy0: f64 = rows[0][1].parse().unwrap();
    let energy1: f64 = rows[1][1].parse().unwrap();
    approx::assert_relative_eq!(energy1, energy0, max_relative = 1e-3);

    let (event_header, event_rows) = read_csv(&events);
    let (_, plain_event_rows) = read_csv(&plain_events);
    assert_eq!(&event_header[6], "a,b.dx", "{event_header:?}");
    assert!(
        !event_rows.is_empty(),
        "the flat four-bar passes singular configurations"
    );
    assert_eq!(event_rows, plain_event_rows);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `atlas --hold` names what is wrong in it, with the scene file, and writes nothing.
#[test]
fn atlas_hold_errors_name_the_body_or_coordinate_at_fault() {
    let dir = scratch("atlas-hold");
    let out = dir.join("atlas.csv");
    let scene = crate::common::scene_path("four_bar");
    let scene = scene.to_str().expect("a UTF-8 path");
    for (hold, expected) in [
        ("crank9.theta=1", "the scene has no body `crank9`"),
        (
            "crank1.phi=1",
            "body `crank1` has the coordinates x, y, theta",
        ),
        ("crank1.theta=one", "`one` is not a number"),
        ("crank1.theta", "expected BODY.COORD=V1,V2,..."),
    ] {
        let output = singulab(&[
            "atlas",
            scene,
            "--out",
            out.to_str().expect("a UTF-8 path"),
            "--hold",
            hold,
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{hold}: {stderr}");
        assert!(
            stderr.contains("four_bar.ron") && stderr.contains(expected),
            "{hold}: {stderr}"
        );
        assert!(!out.exists(), "{hold}: a file was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
