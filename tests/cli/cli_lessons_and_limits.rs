//! The command line over lessons, limits and untrusted files: outputs never
//! overwrite a run's inputs, lessons and `analyze` refuse runs of more than 1e9 steps up front,
//! a lesson stops at its `t_end`, the energy check counts the work of drivers and of constant
//! spatial torques, summaries state what was written, messages name what is wrong, and names
//! or files from a shared lesson cannot act on a spreadsheet or be quoted.
//!
//! References: the limits and exit codes are the README's (more than 1e9 steps refused, exit 2
//! for arguments and 1 for a file's own value); the wheel's energy is the closed form of a
//! constant torque about a fixed axis; event times and ranks come from `run --events`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{scene_path, scratch, singulab};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scratch file");
    path.display().to_string()
}

fn text(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).expect("file readable")
}

/// The time column of a CSV file's last row, as written.
fn last_time(path: &Path) -> String {
    let rows = text(path);
    let last = rows.lines().last().expect("a row");
    last.split(',').next().expect("a time").to_string()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// One `singulab: ` line on stderr with exit `code`, holding every word of `words`.
fn assert_one_line(output: &Output, code: i32, words: &[&str], case: &str) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{case}: {err}");
    assert!(!err.contains("panicked"), "{case}: {err}");
    assert_eq!(err.lines().count(), 1, "{case}: {err}");
    for word in words {
        assert!(err.contains(word), "{case}: {word:?} missing from {err}");
    }
    err
}

/// Runs the binary, killed after `limit` (then `None`: it ran away).
fn singulab_within(args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_singulab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the singulab binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().expect("output"))
}

/// A folder with a copy of a shipped scene and a lesson beside it.
fn lesson_folder(test: &str, scene: &str, lesson: &str) -> (PathBuf, String, String) {
    let dir = scratch(test);
    let scene_file = write(&dir, &format!("{scene}.ron"), &text(scene_path(scene)));
    let lesson_file = write(&dir, "lesson.ron", lesson);
    (dir, scene_file, lesson_file)
}

fn four_bar_lesson(extra: &str) -> String {
    format!("Lesson(\n    scene: \"four_bar.ron\",\n    t_end: 0.05,\n{extra}    actions: [],\n)\n")
}

#[test]
fn a_lesson_run_never_writes_over_its_scene_or_itself() {
    let (dir, scene, lesson) = lesson_folder("script-inputs", "four_bar", &four_bar_lesson(""));
    let scene_text = text(&scene);
    let lesson_text = text(&lesson);
    let out = dir.join("out.csv").display().to_string();
    for flag in ["--out", "--events"] {
        let mut args = vec!["run", "--script", &lesson, flag, &scene];
        if flag == "--events" {
            args.extend(["--out", &out]);
        }
        assert_one_line(
            &singulab(&args),
            1,
            &[flag, "would overwrite the scene file"],
            flag,
        );
        assert_eq!(text(&scene), scene_text, "{flag} wrote over the scene");
    }
    let onto_lesson = singulab(&["run", "--script", &lesson, "--out", &lesson]);
    assert_one_line(
        &onto_lesson,
        1,
        &["would overwrite the lesson file"],
        "--out L",
    );
    assert_eq!(text(&lesson), lesson_text);
    // Any two outputs on one file: both named.
    let plain = singulab(&[
        "run",
        &scene,
        "--t-end",
        "0.01",
        "--out",
        &out,
        "--reactions",
        &out,
    ]);
    assert_one_line(
        &plain,
        1,
        &["--out and --reactions name the same file"],
        "r=o",
    );
    let events = dir.join("e.csv").display().to_string();
    let plain = singulab(&[
        "run",
        &scene,
        "--t-end",
        "0.01",
        "--out",
        &out,
        "--events",
        &events,
        "--reactions",
        &events,
    ]);
    assert_one_line(
        &plain,
        1,
        &["--events and --reactions name the same file"],
        "r=e",
    );
}

#[test]
fn lessons_and_analyze_refuse_more_than_1e9_steps_up_front() {
    let (dir, _, lesson) = lesson_folder("script-steps", "four_bar", &four_bar_lesson(""));
    let limit = Duration::from_secs(20);
    // From the arguments: exit 2, the message after `singulab: error: ` as for a plain run.
    // The message states the value asked for (the advice names both flags whichever it was).
    for (flag, value, stated) in [
        ("--t-end", "1e12", "t_end 1e12 s at dt 0.001 s"),
        ("--dt", "1e-12", "t_end 0.05 s at dt 1e-12 s"),
    ] {
        let out = dir.join("x.csv").display().to_string();
        let args = ["run", "--script", &lesson, flag, value, "--out", &out];
        let output = singulab_within(&args, limit).unwrap_or_else(|| panic!("{flag} ran away"));
        let line = assert_one_line(&output, 2, &["more than 1e9", stated], flag);
        assert!(line.starts_with("singulab: error: "), "{line}");
    }
    // The lesson's own t_end: exit 1, at the value in the lesson file.
    let lesson_text = "Lesson(\n    scene: \"four_bar.ron\",\n    t_end: 1e300,\n)\n";
    let huge = write(&dir, "huge.ron", lesson_text);
    let output = singulab_within(&["run", "--script", &huge, "--out", "/dev/null"], limit)
        .expect("a lesson of t_end 1e300 ran away");
    assert_one_line(
        &output,
        1,
        &["huge.ron:3:5:", "1e300", "more than 1e9"],
        "1e300",
    );
    let four_bar = scene_path("four_bar").display().to_string();
    let output = singulab_within(&["analyze", "--time", "1e12", &four_bar], limit)
        .expect("analyze --time 1e12 ran away");
    assert_one_line(
        &output,
        2,
        &["--time 1e12 s", "more than 1e9"],
        "analyze --time",
    );
}

#[test]
fn a_lesson_waiting_for_an_event_that_never_comes_stops_at_its_end() {
    // The planar pendulum has no singular configuration: no event comes.
    let dir = scratch("never-event");
    write(&dir, "pendulum.ron", &text(scene_path("planar_pendulum")));
    let lesson = write(
        &dir,
        "lesson.ron",
        "Lesson(\n    scene: \"pendulum.ron\",\n    t_end: 0.5,\n    actions: [\n        (do: Caption(\"x\", 1.0)),\n        (at_event: 1, do: Pause),\n    ],\n)\n",
    );
    let out = dir.join("x.csv");
    let out_text = out.display().to_string();
    let output = singulab_within(
        &["run", "--script", &lesson, "--out", &out_text],
        Duration::from_secs(60),
    )
    .expect("ran away");
    assert_one_line(
        &output,
        1,
        &[
            "lesson.ron:6:10:",
            "action 2 (Pause)",
            "event 1",
            "t_end = 0.5 s",
        ],
        "at_event",
    );
    let last_t: f64 = last_time(&out).parse().unwrap();
    assert!(last_t <= 0.5, "rows past the lesson's end: t = {last_t}");
}

/// The pendulum lesson (t_end 0.01 s, dt 1e-3) whose first action is `first`, followed by a
/// jump back, replayed with `extra` arguments: its output and the rows' last time.
fn replay_wait_then_jump(name: &str, first: &str, extra: &[&str]) -> (Output, f64) {
    let dir = scratch(name);
    write(&dir, "pendulum.ron", &text(scene_path("planar_pendulum")));
    let lesson = write(
        &dir,
        "lesson.ron",
        &format!(
            "Lesson(\n    scene: \"pendulum.ron\",\n    t_end: 0.01,\n    actions: [\n        {first},\n        (do: GoToEvent(1)),\n    ],\n)\n"
        ),
    );
    let out = dir.join("x.csv");
    let out_text = out.display().to_string();
    let mut args = vec!["run", "--script", &lesson, "--out", &out_text];
    args.extend_from_slice(extra);
    let output = singulab_within(&args, Duration::from_secs(60)).expect("ran away");
    let last = if out.exists() {
        last_time(&out).parse().unwrap()
    } else {
        0.0
    };
    (output, last)
}

#[test]
fn a_wait_before_a_jump_back_ends_at_t_end_and_names_its_step() {
    // The lesson's time never passes t_end, a later GoToEvent or not: each wait that cannot
    // be met by then is an error at its step, with no row past t_end.
    for (name, first, expected) in [
        (
            "never-event-jump",
            "(at_event: 1, do: Pause)",
            &[
                "lesson.ron:5:10:",
                "action 1 (Pause)",
                "event 1",
                "t_end = 0.01 s",
            ][..],
        ),
        (
            "long-after-jump",
            "(after: 1e40, do: Pause)",
            &[
                "lesson.ron:5:10:",
                "action 1 (Pause)",
                "1e40 s after t = 0 s",
                "t_end = 0.01 s",
            ][..],
        ),
    ] {
        let (output, last) = replay_wait_then_jump(name, first, &[]);
        assert_one_line(&output, 1, expected, first);
        assert!(last <= 0.01 + 1e-12, "{first}: a row at t = {last}");
    }
    // An `at` past t_end is refused before anything runs, at its value.
    let (output, _) = replay_wait_then_jump("late-at-jump", "(at: 1e9, do: Pause)", &[]);
    assert_one_line(
        &output,
        1,
        &["lesson.ron:5:10:", "at 1e9 s", "t_end = 0.01 s"],
        "at 1e9",
    );
}

#[test]
fn a_replay_told_to_stop_at_t_end_stops_there_and_says_what_was_left() {
    let (output, last) = replay_wait_then_jump(
        "cut-short",
        "(at_event: 1, do: Pause)",
        &["--t-end", "0.005"],
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!((last - 0.005).abs() < 1e-12, "rows end at {last}");
    assert!(
        err.contains("--t-end 0.005 s stopped the lesson before action 1 of 2"),
        "{err}"
    );
}

#[test]
fn a_lesson_on_a_driven_scene_counts_the_drivers_work() {
    // A slide driven 0.05 m out and back on a free base: the driver puts in up to 5.5 J of
    // kinetic energy and takes it back, so only the energy less the driver's work is conserved.
    let dir = scratch("driven-lesson");
    write(
        &dir,
        "driven.ron",
        r#"Scene(
    title: "driven slide",
    gravity: [0.0, 0.0],
    bodies: [
        Plate(name: "base", mass: 4.0, inertia: 0.2, center: (0.0, 0.0), angle: 0.0, points: {"Q": (0.0, 0.0)}),
        Bar(name: "slide", length: 0.4, mass: 0.5, center: (0.0, -0.1), angle: 1.5707963267948966),
    ],
    joints: [
        Pin(name: "fix", body: "base", at: Center, ground: (0.0, 0.0)),
        Prismatic(name: "P", a: "slide", at_a: Center, b: "base", at_b: Point("Q"), axis: (0.0, 1.0),
            driver: Driver(constant: 0.1, steps: [Step(amplitude: 0.05, start: 0.01, end: 0.03)])),
    ],
    solver: (dt: 1e-4),
    run: (t_end: 0.1),
)"#,
    );
    let lesson = write(
        &dir,
        "lesson.ron",
        "Lesson(\n    scene: \"driven.ron\",\n    t_end: 0.1,\n    actions: [],\n)\n",
    );
    let out = dir.join("x.csv").display().to_string();
    let output = singulab(&["run", "--script", &lesson, "--out", &out]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let csv = text(&out);
    let energy = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|h| h == "energy")
        .unwrap();
    let peak = csv
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(energy).unwrap().parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(peak > 1.0, "test bug: the driver gave only {peak} J");
    assert!(!err.contains("warning"), "{err}");
    assert!(err.contains("the drivers did"), "{err}");
}

#[test]
fn a_constant_spatial_torque_is_no_energy_drift() {
    // A wheel on a hinge about z, torque 0.1 N m about z, I_zz = 1, omega(0) = 1 rad/s: the
    // kinetic energy grows by the torque's work, 0.5 (1 + 0.1 t)^2 at time t.
    let dir = scratch("spatial-torque");
    let scene = write(
        &dir,
        "wheel.ron",
        r#"Scene(
    title: "constant spatial torque",
    gravity: [0.0, 0.0, 0.0],
    bodies: [
        Rigid(name: "wheel", mass: 1.0, inertia: Principal(0.5, 0.5, 1.0), center: (0.0, 0.0, 0.0)),
    ],
    joints: [
        Hinge(name: "H", a: "wheel", at_a: Center, b: "ground", at_b: At(0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0)),
    ],
    loads: [
        SpatialTorque(name: "drive", body: "wheel", torque: [0.0, 0.0, 0.1]),
    ],
    velocities: [(body: "wheel", wz: 1.0)],
    solver: (dt: 1e-3),
    run: (t_end: 1.0),
)"#,
    );
    for dt in ["1e-3", "1e-2"] {
        let out = dir.join("x.csv").display().to_string();
        let output = singulab(&["run", &scene, "--dt", dt, "--out", &out]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{err}");
        let last = text(&out).lines().last().unwrap().to_string();
        let energy: f64 = last.split(',').nth(1).unwrap().parse().unwrap();
        assert!(
            (energy - 0.5 * 1.1f64.powi(2)).abs() < 1e-9,
            "dt {dt}: {energy}"
        );
        assert!(!err.contains("warning"), "dt {dt}: {err}");
    }
}

#[test]
fn a_lesson_held_by_a_pause_reports_the_rows_it_wrote() {
    let lesson_text = "Lesson(\n    scene: \"four_bar.ron\",\n    t_end: 1.0,\n    actions: [\n        (at: 0.1, do: Pause),\n        (after: 1e9, do: Caption(\"x\", 1.0)),\n    ],\n)\n";
    let (dir, _, lesson) = lesson_folder("pause-summary", "four_bar", lesson_text);
    let out = dir.join("x.csv");
    let out_text = out.display().to_string();
    let output = singulab(&["run", "--script", &lesson, "--out", &out_text]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let rows = text(&out).lines().count() - 1;
    let last_t = last_time(&out);
    let summary = err.lines().next().unwrap();
    assert!(
        summary.contains(&format!("to t = {last_t} s, {rows} rows")),
        "rows {rows} to t = {last_t}: {summary}"
    );
    assert!(err.contains("before its t_end 1 s"), "{err}");
}

#[cfg(unix)]
#[test]
fn messages_say_what_is_wrong() {
    let four_bar = scene_path("four_bar").display().to_string();
    // A full disk is said as such.
    let full = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >/dev/full")
        .arg(env!("CARGO_BIN_EXE_singulab"))
        .args(["run", &four_bar, "--t-end", "0.01"])
        .output()
        .expect("sh runs");
    let line = assert_one_line(
        &full,
        1,
        &["cannot write the output", "No space left"],
        "full",
    );
    assert!(!line.contains("not open for writing"), "{line}");
    // A negative number is a value, checked by the option's own range.
    let negative = singulab(&["run", &four_bar, "--dt", "-1e-3"]);
    assert_one_line(&negative, 2, &["--dt", "positive"], "--dt -1e-3");
    // A lesson's speed in exponent form, not 309 digits.
    let (_, _, lesson) = lesson_folder(
        "speed-text",
        "four_bar",
        &four_bar_lesson("    speed: 1e308,\n"),
    );
    let line = assert_one_line(
        &singulab(&["run", "--script", &lesson]),
        1,
        &["1e308"],
        "speed",
    );
    assert!(line.len() < 200, "{line}");
    // A run the arguments make too long, located in the scene: an error line all the same.
    let long = singulab(&["run", &four_bar, "--t-end", "1e12"]);
    let line = assert_one_line(&long, 2, &["more than 1e9"], "--t-end 1e12");
    assert!(line.starts_with("singulab: error: "), "{line}");
}

#[test]
fn bench_of_a_short_run_prints_no_meaningless_numbers() {
    let pendulum = scene_path("planar_pendulum").display().to_string();
    let output = singulab(&["bench", &pendulum, "--t-end", "0.1"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    let row = table.lines().nth(2).expect("a row");
    for meaningless in ["inf", "NaN", "| 0.0000 |"] {
        assert!(!row.contains(meaningless), "{meaningless}: {row}");
    }
}

#[test]
fn analyze_at_an_event_reports_the_rank_run_reports() {
    let a02 = scene_path("double_four_bar").display().to_string();
    let dir = scratch("analyze-event");
    let events = dir.join("e.csv").display().to_string();
    let output = singulab(&[
        "run",
        &a02,
        "--t-end",
        "1",
        "--out",
        "/dev/null",
        "--events",
        &events,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let events = text(&events);
    let first: Vec<&str> = events
        .lines()
        .nth(1)
        .expect("an event")
        .split(',')
        .collect();
    let (t, rank, deficiency) = (first[0], first[1], first[2]);
    let output = singulab(&["analyze", "--time", t, &a02]);
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains(&format!("all rows {rank} at the detection tolerance")),
        "rank {rank} at t = {t}: {report}"
    );
    assert!(
        report.contains(&format!("deficiency {deficiency}")),
        "{report}"
    );
    let json = singulab(&["analyze", "--time", t, "--json", &a02]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(json["rank_detection"].to_string(), rank);
    assert_eq!(json["deficiency"].to_string(), deficiency);
    // Away from an event both tolerances agree: no singular configuration at the start.
    let start = singulab(&["analyze", &a02]);
    assert!(String::from_utf8_lossy(&start.stdout).contains("not a singular configuration"));
}

#[test]
fn names_that_spreadsheets_would_run_are_text_in_csv_headers() {
    let dir = scratch("csv-injection");
    let scene = write(
        &dir,
        "formula.ron",
        r#"Scene(
    title: "pendulum with hostile names",
    gravity: [0.0, -9.81],
    bodies: [Bar(name: "=cmd|x", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: -0.5)],
    joints: [Pin(name: "@SUM(A1)", body: "=cmd|x", at: Start, ground: (0.0, 0.0))],
)"#,
    );
    let out = dir.join("x.csv");
    let reactions = dir.join("r.csv");
    let output = singulab(&[
        "run",
        &scene,
        "--t-end",
        "0.01",
        "--out",
        &out.display().to_string(),
        "--reactions",
        &reactions.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut trajectory = csv::Reader::from_path(&out).expect("CSV");
    let header = trajectory.headers().expect("header").clone();
    assert!(header.iter().any(|cell| cell == "'=cmd|x.x"), "{header:?}");
    let mut reaction_file = csv::Reader::from_path(&reactions).expect("CSV");
    let header = reaction_file.headers().expect("header").clone();
    assert!(
        header.iter().any(|cell| cell == "'@SUM(A1).fx"),
        "{header:?}"
    );
    for cells in [trajectory.headers().unwrap().clone(), header] {
        for cell in cells.iter() {
            assert!(!cell.starts_with(['=', '+', '-', '@']), "{cell}");
        }
    }
    // The numbers stay numbers: the bar's centre starts below the pin, at y < 0.
    let row = trajectory.records().next().expect("a row").expect("row");
    assert!(
        row.iter()
            .any(|cell| cell.starts_with('-') && cell.parse::<f64>().is_ok())
    );
}

#[test]
fn a_lesson_names_only_a_scene_and_nothing_else_is_quoted() {
    let dir = scratch("lesson-points-at");
    let secret = "root:x:0:0:root:/root:/bin/bash\n";
    write(&dir, "passwd", secret);
    write(&dir, "passwd.ron", secret);
    write(
        &dir,
        "other.ron",
        "Lesson(\n    scene: \"passwd.ron\",\n)\n",
    );
    for (target, words) in [
        (
            "passwd",
            vec!["lesson.ron:2:5:", "not a scene file", ".ron"],
        ),
        (
            "passwd.ron",
            vec!["lesson.ron:2:5:", "not a scene file", "Scene("],
        ),
        (
            "other.ron",
            vec!["lesson.ron:2:5:", "is a lesson, not a scene"],
        ),
    ] {
        let lesson = write(
            &dir,
            "lesson.ron",
            &format!("Lesson(\n    scene: \"{target}\",\n)\n"),
        );
        let output = singulab(&["run", "--script", &lesson, "--out", "/dev/null"]);
        let line = assert_one_line(&output, 1, &words, target);
        assert!(!line.contains("root"), "{target}: {line}");
    }
}
