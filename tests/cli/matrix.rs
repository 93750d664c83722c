//! Every headless command (`run`, `analyze`, `atlas`) over every shipped scene and lesson: exit 0, no panic, one prefix on
//! every stderr line, and outputs that parse (CSV: a header, every row the header's width, every
//! field a finite number but the events' `kind` word; JSON: one object serde_json reads).
//!
//! Scenes and lessons are found by listing `scenes/` and `scenes/lessons/`, so a new file joins
//! the matrix by being shipped. Runs stop at [`T_END`] so the whole matrix stays quick; lessons
//! play to their own end because their actions are timed against it.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{scratch, singulab};

/// Long enough for tens to hundreds of steps at the shipped dts, short enough for a quick matrix.
const T_END: &str = "0.05";

/// The warning that allows empty trailing `qd` cells (see `singulab run --help`).
const JAM_WARNING: &str = "the rank exceeded the generic rank";

fn ron_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ron"))
        .collect();
    files.sort();
    files
}

fn shipped(sub: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(sub);
    let files = ron_files(&dir);
    assert!(!files.is_empty(), "no .ron files in {}", dir.display());
    files
}

/// One failure of the matrix: the command and what went wrong.
type Failure = String;

/// Runs `args`, returning the output if it exited 0 with a clean stderr.
fn run_clean(args: &[&str]) -> Result<Output, Failure> {
    let output = singulab(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let command = format!("singulab {}", args.join(" "));
    if output.status.code() != Some(0) {
        return Err(format!(
            "{command}: exit {:?}: {stderr}",
            output.status.code()
        ));
    }
    if let Some(line) = stderr.lines().find(|line| !line.starts_with("singulab: ")) {
        return Err(format!("{command}: stderr line without the prefix: {line}"));
    }
    Ok(output)
}

/// Checks a CSV: header, rows of its width, finite numbers (but `text_column`, and empty cells
/// where `allow_empty`).
fn check_csv(path: &Path, text_column: Option<&str>, allow_empty: bool) -> Result<usize, String> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let header = reader
        .headers()
        .map_err(|e| format!("{}: header: {e}", path.display()))?
        .clone();
    if header.is_empty() || header.iter().any(str::is_empty) {
        return Err(format!("{}: header {header:?}", path.display()));
    }
    let text = text_column.and_then(|name| header.iter().position(|h| h == name));
    let mut rows = 0;
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("{}: row {}: {e}", path.display(), index + 2))?;
        if record.len() != header.len() {
            return Err(format!(
                "{}: row {} has {} fields, the header {}",
                path.display(),
                index + 2,
                record.len(),
                header.len()
            ));
        }
        for (column, field) in record.iter().enumerate() {
            if Some(column) == text || (allow_empty && field.is_empty()) {
                continue;
            }
            if !field.parse::<f64>().is_ok_and(f64::is_finite) {
                return Err(format!(
                    "{}: row {} column {}: {field:?} is not a finite number",
                    path.display(),
                    index + 2,
                    &header[column]
                ));
            }
        }
        rows += 1;
    }
    Ok(rows)
}

/// Runs `args` (which write `out.csv`, `events.csv` and maybe `reactions.csv` in `dir`) and
/// checks every CSV it wrote.
fn run_and_check(dir: &Path, args: &[&str]) -> Result<(), Failure> {
    for file in ["out.csv", "events.csv", "reactions.csv"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    let output = run_clean(args)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let command = format!("singulab {}", args.join(" "));
    let trajectory = check_csv(&dir.join("out.csv"), None, stderr.contains(JAM_WARNING))
        .map_err(|e| format!("{command}: {e}"))?;
    if trajectory == 0 {
        return Err(format!("{command}: out.csv has no rows"));
    }
    check_csv(&dir.join("events.csv"), Some("kind"), false)
        .map_err(|e| format!("{command}: {e}"))?;
    if args.contains(&"--reactions") {
        check_csv(&dir.join("reactions.csv"), None, false)
            .map_err(|e| format!("{command}: {e}"))?;
    }
    Ok(())
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// `run` with each integrator, basis and predictor, events and reactions written.
fn run_variants(dir: &Path, scene: &str) -> Vec<Failure> {
    let (out, events, reactions) = (
        dir.join("out.csv"),
        dir.join("events.csv"),
        dir.join("reactions.csv"),
    );
    let mut failures = Vec::new();
    for integrator in ["rk4", "dopri5"] {
        for basis in ["traditional", "continued"] {
            for predictor in ["omega", "zeroth"] {
                let args = [
                    "run",
                    scene,
                    "--t-end",
                    T_END,
                    "--integrator",
                    integrator,
                    "--basis",
                    basis,
                    "--predictor",
                    predictor,
                    "--out",
                    path_str(&out),
                    "--events",
                    path_str(&events),
                    "--reactions",
                    path_str(&reactions),
                ];
                failures.extend(run_and_check(dir, &args).err());
            }
        }
    }
    // The plain run without reactions: what a user types first.
    let args = [
        "run",
        scene,
        "--t-end",
        T_END,
        "--out",
        path_str(&out),
        "--events",
        path_str(&events),
    ];
    failures.extend(run_and_check(dir, &args).err());
    failures
}

/// `analyze` as text, as JSON, and at a time into the run.
fn analyze_variants(scene: &str) -> Vec<Failure> {
    let mut failures = Vec::new();
    for args in [
        vec!["analyze", scene],
        vec!["analyze", scene, "--time", T_END],
    ] {
        match run_clean(&args) {
            Ok(output) if output.stdout.is_empty() => {
                failures.push(format!("singulab {}: no report", args.join(" ")));
            }
            Ok(_) => {}
            Err(failure) => failures.push(failure),
        }
    }
    for args in [
        vec!["analyze", scene, "--json"],
        vec!["analyze", scene, "--json", "--time", T_END],
    ] {
        match run_clean(&args) {
            Ok(output) => {
                let parsed = serde_json::from_slice::<serde_json::Value>(&output.stdout);
                if !parsed.as_ref().is_ok_and(serde_json::Value::is_object) {
                    failures.push(format!(
                        "singulab {}: stdout is not a JSON object: {parsed:?}",
                        args.join(" ")
                    ));
                }
            }
            Err(failure) => failures.push(failure),
        }
    }
    failures
}

/// `atlas` with both files (its budget cut to keep the matrix quick): the summary line counts
/// the points CSV's rows.
fn atlas_variant(dir: &Path, scene: &str) -> Vec<Failure> {
    let (out, singular) = (dir.join("atlas.csv"), dir.join("singular.csv"));
    let args = [
        "atlas",
        scene,
        "--out",
        path_str(&out),
        "--singular",
        path_str(&singular),
        "--max-points",
        "2000",
    ];
    let output = match run_clean(&args) {
        Ok(output) => output,
        Err(failure) => return vec![failure],
    };
    let mut failures = Vec::new();
    let command = format!("singulab {}", args.join(" "));
    match check_csv(&out, None, false) {
        Ok(rows) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !stderr.contains(&format!(", {rows} points in ")) {
                failures.push(format!("{command}: {rows} rows, summary {stderr}"));
            }
        }
        Err(why) => failures.push(format!("{command}: atlas CSV: {why}")),
    }
    if let Err(why) = check_csv(&singular, Some("curves"), false) {
        failures.push(format!("{command}: singular points CSV: {why}"));
    }
    failures
}

/// Fails with every failure found.
fn report(failures: Vec<Failure>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_command_on_every_shipped_scene_exits_0_with_parsable_outputs() {
    let dir = scratch("matrix-scenes");
    let mut failures = Vec::new();
    for scene in shipped("scenes") {
        let scene = path_str(&scene);
        failures.extend(run_variants(&dir, scene));
        failures.extend(analyze_variants(scene));
        failures.extend(atlas_variant(&dir, scene));
    }
    let _ = std::fs::remove_dir_all(&dir);
    report(failures);
}

#[test]
fn every_shipped_lesson_replays_with_exit_0_and_parsable_outputs() {
    let dir = scratch("matrix-lessons");
    let (out, events) = (dir.join("out.csv"), dir.join("events.csv"));
    let mut failures = Vec::new();
    for lesson in shipped("scenes/lessons") {
        let args = [
            "run",
            "--script",
            path_str(&lesson),
            "--out",
            path_str(&out),
            "--events",
            path_str(&events),
        ];
        failures.extend(run_and_check(&dir, &args).err());
    }
    let _ = std::fs::remove_dir_all(&dir);
    report(failures);
}
