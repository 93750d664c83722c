//! The reactions of A02 (`scenes/double_four_bar.ron`) near its flat pose, against Newton-Euler
//! on each bar (see `solver::reactions`, "Near a singular configuration").
//!
//! Reference, derived here by hand: on the parallelogram branch the three cranks share the
//! angle theta and the couplers translate (m = l = 1, I = 3 about the pivots, V = 3.5 g
//! sin(theta)), so theta'' = -7 g cos(theta) / 6. With `s, c = sin, cos(theta)`, a crank tip
//! accelerates by `theta'' (-s, c) - theta'^2 (c, s)`; a coupler's balance gives the forces of
//! its two pins on it, `-K` in sum with `K = m g_vec - m a_tip`, and (no angular acceleration)
//! equal y components. Crank 1's moment about its centre gives `c T_y - s T_x = tau`,
//! `tau = theta'' / 3 + g c / 2`, for the force `T` of joint A1 on it; so
//! `A1.fy = B1.fy = K_y / 2`, `A1.fx = (c K_y / 2 - tau) / s` and `B1.fx = K_x - A1.fx`.
//! `A1.fx` tends to `-g c / (36 s)`: it grows as 1 / s next to the flat pose.

use std::path::Path;

use crate::common::{scene_path, scratch, singulab};

const G: f64 = 9.81;

fn rows(path: &Path) -> Vec<std::collections::HashMap<String, f64>> {
    let mut reader = csv::Reader::from_path(path).expect("a CSV file");
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            let r = r.expect("a record");
            header
                .iter()
                .cloned()
                .zip(r.iter().map(|v| v.parse::<f64>().expect("a number")))
                .collect()
        })
        .collect()
}

/// Joint A1's and B1's forces on their cranks from Newton-Euler at `(theta, theta')`.
fn newton_euler(theta: f64, omega: f64) -> [f64; 4] {
    let (s, c) = theta.sin_cos();
    let acceleration = -7.0 * G * c / 6.0;
    let tip = [
        -acceleration * s - omega * omega * c,
        acceleration * c - omega * omega * s,
    ];
    let k = [-tip[0], -G - tip[1]];
    let tau = acceleration / 3.0 + G * c / 2.0;
    let a1x = (c * k[1] / 2.0 - tau) / s;
    [a1x, k[1] / 2.0, k[0] - a1x, k[1] / 2.0]
}

#[test]
fn a02s_forces_along_the_bars_grow_as_one_over_sin_theta_next_to_the_flat_pose() {
    let dir = scratch("flat-pose-reactions");
    let (out, reactions) = (dir.join("t.csv"), dir.join("r.csv"));
    let output = singulab(&[
        "run",
        scene_path("double_four_bar").to_str().unwrap(),
        "--t-end",
        "1.3",
        "--out",
        out.to_str().unwrap(),
        "--reactions",
        reactions.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let (trajectory, forces) = (rows(&out), rows(&reactions));
    assert_eq!(trajectory.len(), forces.len());
    let mut largest = 0.0_f64;
    for (state, force) in trajectory.iter().zip(&forces) {
        let want = newton_euler(state["crank1.theta"], state["crank1.omega"]);
        let got = [
            force["A1.fx"],
            force["A1.fy"],
            force["B1.fx"],
            force["B1.fy"],
        ];
        for (g, w) in got.iter().zip(want) {
            // The trajectory's own error, amplified like the force: 1e-3 relative.
            assert!(
                (g - w).abs() <= 1e-3 * (1.0 + w.abs()),
                "t = {}: {got:?} against {want:?}",
                state["t"]
            );
        }
        largest = largest.max(got[0].abs());
    }
    // Both flat poses of the first 1.3 s (t = 0.714 s, 1.228 s) lie within a step of a row.
    assert!(largest > 100.0, "largest A1.fx {largest}");
}
