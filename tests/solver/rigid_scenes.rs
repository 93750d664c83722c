//! The spatial rigid-body scenes (Zhou et al. 2023, sects. 3.2 and 3.4): their sizes, their
//! initial states against hand-derived values, short runs against the slider-crank's
//! geometric travel and the invariants of the top, and the loader's located errors on bad
//! rigid bodies and spatial joints.
//!
//! References, derived here:
//! - slider-crank at theta = 0 (crank at +6 rad/s about +x, B - A = (0, 0, 0.08)):
//!   `v_B = omega x (B - A) = (0, -0.48, 0)`; the rod's length fixes the slider's rate `s`
//!   from `(v_C - v_B) . (C - B) = 0` with `C - B = (0.2, -0.1, -0.2)`: `0.2 s - 0.048 = 0`,
//!   `s = 0.24` m/s;
//! - the slider's travel: with the crank angle theta, `B = (0, 0.1 - 0.08 sin theta, 0.12 +
//!   0.08 cos theta)` and `x_C = sqrt(0.09 - B_y^2 - B_z^2)`, between 0.1849519 and 0.2901600 m;
//! - spin top at t = 0: the tip `r + A u0 = (0, -1, 0)` moves at `v + omega x u0 = (-0.1, 0,
//!   0)`, perpendicular to it, so the stated velocities fit the sphere as written.

use approx::assert_abs_diff_eq;
use nalgebra::{DVector, Vector3};
use singulab::scene::{Scene, SceneError, Shape, parse_scene};

use crate::common::{scene, scene_path};

/// Sizes as Zhou et al. 2023 count them: n, m (joint rows and one normalisation per body),
/// rank and degrees of freedom.
#[test]
fn sizes_of_the_spatial_scenes() {
    for (name, sizes) in [
        ("slider_crank", (21, 20, 20, 1)),
        ("spin_top", (7, 2, 2, 5)),
    ] {
        let sc = scene(name);
        let sim = sc.simulation().expect("simulation");
        let (n, m, rank) = (sc.mechanism.n(), sc.mechanism.m(), sim.generic_rank());
        assert_eq!((n, m, rank, n - rank), sizes, "{name}: n, m, rank, dof");
    }
}

/// Index of the first coordinate of body `name`.
fn offset(sc: &Scene, name: &str) -> usize {
    let body = sc.mechanism.body_index(name).expect("body");
    sc.mechanism.bodies()[body].offset
}

#[test]
fn slider_crank_starts_as_written() {
    let sc = scene("slider_crank");
    assert_eq!(
        sc.assembly.correction, 0.0,
        "the written pose fits the joints"
    );
    let (crank, slider) = (offset(&sc, "crank"), offset(&sc, "slider"));
    let half = std::f64::consts::FRAC_1_SQRT_2;
    assert_abs_diff_eq!(
        sc.x0.rows(crank, 7).into_owned(),
        DVector::from_vec(vec![0.0, 0.1, 0.16, half, half, 0.0, 0.0]),
        epsilon = 1e-15
    );
    let mut w = [0.0; 6];
    sc.mechanism.body_velocity(0, &sc.x0, &sc.xd0, &mut w);
    assert_abs_diff_eq!(
        &w[..],
        &[0.0, -0.24, 0.0, 6.0, 0.0, 0.0][..],
        epsilon = 1e-12
    );
    assert_abs_diff_eq!(sc.x0[slider], 0.2, epsilon = 1e-15);
    assert_abs_diff_eq!(sc.xd0[slider], 0.24, epsilon = 1e-12);
    assert_eq!(sc.looks.len(), 3);
    assert!(matches!(sc.looks[2].shape, Shape::Block { .. }));
    assert_eq!(sc.traced_points.len(), 2);
}

/// The slider's x over `t_end` at the scene's dt: samples (t, x) and the energy drift.
fn slider_run(t_end: f64) -> (Vec<(f64, f64)>, f64) {
    let sc = scene("slider_crank");
    let slider = offset(&sc, "slider");
    let mut sim = sc.simulation().expect("simulation");
    let e0 = sim.energy();
    let mut samples = vec![(0.0, sim.positions()[slider])];
    let mut drift: f64 = 0.0;
    while sim.time() < t_end - 1e-12 {
        sim.step().expect("step");
        samples.push((sim.time(), sim.positions()[slider]));
        drift = drift.max((sim.energy() - e0).abs() / e0.abs());
    }
    (samples, drift)
}

#[test]
fn slider_travel_stays_within_the_geometric_bounds() {
    let (samples, drift) = slider_run(1.2);
    let (low, high) = (0.1849519, 0.2901600);
    for &(t, x) in &samples {
        assert!(
            x > low - 1e-7 && x < high + 1e-7,
            "slider x {x} at t {t} outside {low} .. {high}"
        );
    }
    let extremes: Vec<(f64, f64)> = samples
        .windows(3)
        .filter(|w| (w[1].1 - w[0].1) * (w[2].1 - w[1].1) < 0.0)
        .map(|w| w[1])
        .collect();
    eprintln!("slider extremes {extremes:?}, relative energy drift {drift:e}");
    // Published (Gonzalez, the benchmark's site): max 0.290059 m at 0.27 s, min 0.184953 m at
    // 0.50 s, max 0.290120 m at 0.85 s, min 0.184955 m at 1.08 s.
    let published = [
        (0.27, 0.290059),
        (0.50, 0.184953),
        (0.85, 0.290120),
        (1.08, 0.184955),
    ];
    assert!(extremes.len() >= 4, "extremes {extremes:?}");
    for (&(t, x), (tp, xp)) in extremes.iter().zip(published) {
        assert_abs_diff_eq!(t, tp, epsilon = 0.01);
        assert_abs_diff_eq!(x, xp, epsilon = 2e-4);
    }
}
