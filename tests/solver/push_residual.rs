//! A push at a singular configuration keeps the mechanism on its constraints: while it lasts
//! the dynamics see the enlarged tangent space (the detection tolerance as rank tolerance), so
//! the mechanism moves along normals whose `R` entries nearly vanish, and the constraints'
//! curvature turns that motion into a residual along them, which Newton must remove too.

use std::path::Path;

use crate::common::{scratch, singulab};

/// The trajectory CSV of `singulab run --script LESSON`: the header and the rows.
fn run_lesson(lesson: &Path, out: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let output = singulab(&[
        "run",
        "--script",
        lesson.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = std::fs::read_to_string(out).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|line| {
            line.split(',')
                .map(|cell| cell.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

/// The largest residual over the rows, with its time.
fn worst_residual(header: &[String], rows: &[Vec<f64>]) -> (f64, f64) {
    let (t, residual) = (column(header, "t"), column(header, "residual"));
    rows.iter()
        .map(|row| (row[residual], row[t]))
        .fold((0.0, f64::NAN), |a, b| if b.0 > a.0 { b } else { a })
}

/// The shipped lesson pushes the four-bar, at rest at its flat pose, along the new motion
/// that folds it: crank 2 stays at pi (the fold's closed form: crank 1 and the coupler turn
/// together about the hinge B at (1, 0), crank 2 lies along the ground from (1, 0) to (0, 0)).
#[test]
fn a_push_onto_the_four_bars_fold_stays_on_the_constraints() {
    let lesson =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/lessons/four_bar_stopping_push.ron");
    let out = scratch("push-residual-four-bar").join("fold.csv");
    let (header, rows) = run_lesson(&lesson, &out);
    let (residual, t) = worst_residual(&header, &rows);
    assert!(residual <= 1e-10, "residual {residual:e} m at t = {t} s");
    // From the push (the first row at rank 7) to the end.
    let rank = column(&header, "rank");
    let start = rows
        .iter()
        .position(|row| row[rank] == 7.0)
        .expect("a push at rank 7");
    let (t, theta) = (column(&header, "t"), column(&header, "crank2.theta"));
    let (drift, at) = rows[start..]
        .iter()
        .map(|row| ((row[theta] - std::f64::consts::PI).abs(), row[t]))
        .fold((0.0, f64::NAN), |a, b| if b.0 > a.0 { b } else { a });
    assert!(
        drift <= 1e-6,
        "crank 2 off pi by {drift:e} rad at t = {t} s",
        t = at
    );
}

/// A02's lesson up to its branch 2, where the first loop stays flat (singular) for good,
/// then a long push along motion 1 there to t = 2 s (the lesson's time reaches 1.72 s on
/// branch 1 before it goes back to the first event, at 0.72 s).
#[test]
fn a_long_push_on_a02s_singular_branch_stays_on_the_constraints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("push-residual-a02");
    std::fs::copy(
        root.join("scenes/double_four_bar.ron"),
        dir.join("double_four_bar.ron"),
    )
    .unwrap();
    let lesson = std::fs::read_to_string(root.join("scenes/lessons/a02_branches.ron")).unwrap();
    let start = lesson.find("Lesson(").unwrap();
    let mut text = lesson[start..]
        .replace("\"../double_four_bar.ron\"", "\"double_four_bar.ron\"")
        .replace("t_end: 6.0", "t_end: 2.0");
    // Every step after the leave on branch 2 gives way to the push.
    let leave = text.find("Leave(branch: 2").unwrap();
    let after_leave = text[leave..].find('\n').unwrap() + leave + 1;
    let end = text.rfind("    ],").unwrap();
    text.replace_range(
        after_leave..end,
        "        (do: Push(motion: 1, delta: 1.0, duration: 1e9)),\n",
    );
    let path = dir.join("push.ron");
    std::fs::write(&path, &text).unwrap();
    let (header, rows) = run_lesson(&path, &dir.join("push.csv"));
    let t = column(&header, "t");
    assert_eq!(rows.last().unwrap()[t], 2.0);
    let (residual, at) = worst_residual(&header, &rows);
    assert!(residual <= 1e-10, "residual {residual:e} m at t = {at} s");
}
