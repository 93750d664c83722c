//! `singulab run --reactions` and `singulab analyze` as a user runs them (the binary as a
//! process).
//!
//! References, derived here by hand:
//! - the four-bar (`scenes/four_bar.ron`) at t = 0: cranks vertical, coupler horizontal at
//!   y = 1, crank rates 4 rad/s. On the parallelogram branch the crank angle obeys
//!   `I theta'' = -V'(theta)` with `V` proportional to `sin(theta)`, so at theta = pi/2 the
//!   angular acceleration is zero and every point moves on a circle at 4 rad/s: the coupler's
//!   centre accelerates by (0, -16) m/s^2, each crank's centre by (0, -8). The coupler's balance
//!   `m a = F_A + F_B + m g` with `F_A = F_B` by symmetry gives a force (0, -3.095) N from
//!   each pin on the coupler, so the reaction on crank1 (joint A's first body) is (0, 3.095) N;
//!   crank1's balance `(0, -8) = F_O1 + (0, 3.095) + (0, -9.81)` gives F_O1 = (0, -1.285) N.
//! - the modified double four-bar (`scenes/modified_double_four_bar.ron`) at t = 0: three
//!   vertical cranks hinged to one horizontal coupler. A self-stress mode is a set of pin
//!   forces that loads nothing: vertical forces `f_k` at the crank tips along the cranks
//!   balance each crank through its ground pin, and balance the coupler when
//!   `f_1 + f_2 + f_3 = 0` and their moments about its centre cancel, `-f_1 + f_3 = 0`:
//!   `(1, -2, 1)`. Horizontal pin forces would bend the cranks: no mode has any. So p = 1,
//!   every horizontal component is unique and every vertical one is not.

use std::path::Path;

use crate::common::{read_table, scene_path, scratch, singulab};

/// `singulab run` on the four-bar for 0.01 s with these two outputs.
fn run_four_bar(out: &Path, reactions: &Path) -> std::process::Output {
    singulab(&[
        "run",
        scene_path("four_bar").to_str().unwrap(),
        "--t-end",
        "0.01",
        "--out",
        out.to_str().unwrap(),
        "--reactions",
        reactions.to_str().unwrap(),
    ])
}

#[test]
fn the_reactions_csv_of_the_four_bar_matches_its_free_body_balances() {
    let dir = scratch("reactions-four-bar");
    let (out, reactions) = (dir.join("t.csv"), dir.join("r.csv"));
    let output = run_four_bar(&out, &reactions);
    assert!(output.status.success(), "{:?}", output);
    let (header, rows) = read_table(&reactions);
    assert_eq!(
        header,
        [
            "t", "O1.fx", "O1.fy", "O2.fx", "O2.fy", "A.fx", "A.fy", "B.fx", "B.fy"
        ]
    );
    let (_, trajectory) = read_table(&out);
    assert_eq!(
        rows.len(),
        trajectory.len(),
        "a reactions row per trajectory row"
    );
    let first = &rows[0];
    let expected = [0.0, 0.0, -1.285, 0.0, -1.285, 0.0, 3.095, 0.0, 3.095];
    for (k, (got, want)) in first.iter().zip(expected).enumerate() {
        assert!(
            (got - want).abs() < 1e-9,
            "{}: {got} against {want}",
            header[k]
        );
    }
}

#[test]
fn the_reactions_file_may_not_be_another_output() {
    let dir = scratch("reactions-same-file");
    let out = dir.join("same.csv");
    let output = run_four_bar(&out, &out);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn analyze_gives_the_modified_double_four_bar_its_vertical_self_stress() {
    let output = singulab(&[
        "analyze",
        scene_path("modified_double_four_bar").to_str().unwrap(),
        "--json",
    ]);
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["n"], 12);
    assert_eq!(json["m"], 12);
    assert_eq!(json["rank"], 11);
    assert_eq!(json["redundancy"], 1);
    assert_eq!(json["dof"], 1);
    let names: Vec<&str> = json["row_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mode: Vec<f64> = json["self_stress_modes"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let at = |row: &str| mode[names.iter().position(|n| *n == row).unwrap()];
    // The tips' vertical rows (A1#2, A2#2, A3#2) carry (1, -2, 1) up to scale; the ground
    // pins the same pattern (the cranks pass it on); no horizontal row carries any.
    let scale = at("A1#2");
    assert!(scale.abs() > 0.1);
    for (row, ratio) in [("A2#2", -2.0), ("A3#2", 1.0)] {
        assert!((at(row) / scale - ratio).abs() < 1e-9, "{row}: {mode:?}");
    }
    for row in ["O1#1", "O2#1", "O3#1", "A1#1", "A2#1", "A3#1"] {
        assert!(at(row).abs() < 1e-12, "{row}: {mode:?}");
    }
    for joint in json["joints"].as_array().unwrap() {
        assert_eq!(joint["unique"], false, "{joint}");
        let components = joint["components"].as_array().unwrap();
        assert_eq!(components[0]["name"], "fx");
        assert_eq!(components[0]["unique"], true, "{joint}");
        assert_eq!(components[1]["name"], "fy");
        assert_eq!(components[1]["unique"], false, "{joint}");
    }
}

#[test]
fn analyze_says_every_reaction_of_the_four_bar_is_unique() {
    let output = singulab(&["analyze", scene_path("four_bar").to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("redundancy p = 0"), "{text}");
    assert!(text.contains("unique reactions: O1, O2, A, B"), "{text}");
    assert!(text.contains("not unique: none"), "{text}");
}
