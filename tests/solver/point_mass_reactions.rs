//! Reactions of planar point masses on distance joints, as a user asks for them
//! (`singulab analyze`, `singulab run --reactions`).
//!
//! Reference, derived here by hand: a point mass m on a massless link of length l pivoted at
//! the origin, released at rest from horizontal. With phi the angle below horizontal, energy
//! gives `v^2 = 2 g l sin(phi)`, and the radial balance `T - m g sin(phi) = m v^2 / l` gives
//! the link tension `T = 3 m g sin(phi)` (zero at release). The link pulls the bob towards
//! the pivot: at `(l cos(phi), -l sin(phi))` the force on it is `T (-cos(phi), sin(phi))`.
//!
//! With the link written twice (the redundant pendulum) the two rows have the same gradient,
//! so only the sum of their forces is fixed by the motion; how it splits between them is not.

use crate::common::{Table, read_table, scene_path, scratch, singulab};

const G: f64 = 9.81;

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// Runs `scene` for 1 s with a reactions file; returns the trajectory's and the reactions'
/// headers and rows.
fn run_with_reactions(scene: &str) -> (Table, Table) {
    let dir = scratch(&format!("point-mass-reactions-{scene}"));
    let (out, reactions) = (dir.join("t.csv"), dir.join("r.csv"));
    let output = singulab(&[
        "run",
        scene_path(scene).to_str().unwrap(),
        "--t-end",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--reactions",
        reactions.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    (read_table(&out), read_table(&reactions))
}

/// The force on the bob from the tension `3 m g sin(phi)` at the bob's position `(x, y)`.
fn tension_force(x: f64, y: f64) -> (f64, f64) {
    let l = x.hypot(y);
    let (cos_phi, sin_phi) = (x / l, -y / l);
    let tension = 3.0 * 1.0 * G * sin_phi;
    (-tension * cos_phi, tension * sin_phi)
}

/// Checks `force(row)` against the tension at every row; the bob swings through phi = pi/2
/// (bottom) within the second.
fn assert_tension(
    trajectory: &Table,
    reactions: &[Vec<f64>],
    force: impl Fn(&[f64]) -> (f64, f64),
) {
    let (header, rows) = trajectory;
    let (bx, by) = (column(header, "bob.x"), column(header, "bob.y"));
    assert_eq!(
        rows.len(),
        reactions.len(),
        "a reactions row per trajectory row"
    );
    let first = force(&reactions[0]);
    assert!(
        first.0.abs() < 1e-9 && first.1.abs() < 1e-9,
        "at release: {first:?}"
    );
    let mut lowest = 0.0_f64;
    for (row, reaction) in rows.iter().zip(reactions) {
        let want = tension_force(row[bx], row[by]);
        let got = force(reaction);
        lowest = lowest.max(-row[by]);
        // The tension follows the integrator's energy: 1e-6 N is above its error at dt 1e-3
        // and far below the force (up to 29.4 N).
        assert!(
            (got.0 - want.0).abs() < 1e-6 && (got.1 - want.1).abs() < 1e-6,
            "t = {}: {got:?} against {want:?}",
            reaction[0]
        );
    }
    assert!(lowest > 0.999, "the bob passes the bottom ({lowest})");
}

#[test]
fn the_planar_pendulums_link_pulls_with_three_m_g_sin_phi() {
    let (trajectory, (header, rows)) = run_with_reactions("planar_pendulum");
    assert_eq!(header, ["t", "link.fx", "link.fy"]);
    assert_tension(&trajectory, &rows, |r| (r[1], r[2]));
}

#[test]
fn the_redundant_pendulums_two_links_pull_with_three_m_g_sin_phi_together() {
    let (trajectory, (header, rows)) = run_with_reactions("redundant_pendulum");
    assert_eq!(
        header,
        ["t", "link.fx", "link.fy", "link_again.fx", "link_again.fy"]
    );
    assert_tension(&trajectory, &rows, |r| (r[1] + r[3], r[2] + r[4]));
}

#[test]
fn analyze_reports_the_pendulums_links() {
    for (scene, redundancy) in [("planar_pendulum", 0), ("redundant_pendulum", 1)] {
        let path = scene_path(scene);
        for extra in [&[][..], &["--json"], &["--time", "0.3"]] {
            let mut args = vec!["analyze", path.to_str().unwrap()];
            args.extend_from_slice(extra);
            let output = singulab(&args);
            assert!(output.status.success(), "{scene} {extra:?}: {output:?}");
        }
        let output = singulab(&["analyze", path.to_str().unwrap(), "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(json["redundancy"], redundancy, "{scene}");
        // Each link's force is unique only when the link is written once.
        for joint in json["joints"].as_array().unwrap() {
            assert_eq!(joint["unique"], redundancy == 0, "{scene}: {joint}");
        }
    }
}
