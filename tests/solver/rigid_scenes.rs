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

/// Angular momentum about the origin, vertical component, and the body spin `omega'_3` of the
/// top at a state.
fn top_invariants(sc: &Scene, x: &DVector<f64>, xd: &DVector<f64>) -> (f64, f64) {
    let (r, rotation) = sc.mechanism.rigid_pose(0, x);
    let mut v = [0.0; 6];
    sc.mechanism.body_velocity(0, x, xd, &mut v);
    let (velocity, omega) = (
        Vector3::new(v[0], v[1], v[2]),
        Vector3::new(v[3], v[4], v[5]),
    );
    let inertia = Vector3::new(90.0, 90.0, 30.0);
    let body_omega = rotation.transpose() * omega;
    let spin_momentum = rotation * body_omega.component_mul(&inertia);
    let momentum = r.cross(&(velocity * 30.0)) + spin_momentum;
    (momentum.z, body_omega.z)
}

#[test]
fn spin_top_starts_as_written_and_keeps_its_invariants() {
    let sc = scene("spin_top");
    assert_eq!(
        sc.assembly.correction, 0.0,
        "the written pose fits the sphere"
    );
    assert_abs_diff_eq!(
        sc.x0,
        DVector::from_vec(vec![0.0, -1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
        epsilon = 1e-15
    );
    let mut v = [0.0; 6];
    sc.mechanism.body_velocity(0, &sc.x0, &sc.xd0, &mut v);
    assert_abs_diff_eq!(
        &v[..],
        &[0.0, -0.1, 0.0, 0.1, 0.1, 0.3][..],
        epsilon = 1e-15
    );
    assert!(matches!(sc.looks[0].shape, Shape::Cone { .. }));
    assert_eq!(
        sc.traced_points,
        vec![(0, Vector3::new(0.0, 0.0, -1.0)), (0, Vector3::zeros())]
    );

    let mut sim = sc.simulation().expect("simulation");
    let e0 = sim.energy();
    let (lz0, spin0) = top_invariants(&sc, &sc.x0, &sc.xd0);
    let (mut energy, mut lz, mut spin, mut sphere, mut norm) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    while sim.time() < 2.0 - 1e-12 {
        sim.step().expect("step");
        let (x, xd) = (sim.positions(), sim.velocities());
        let (l, s) = top_invariants(&sc, x, xd);
        energy = energy.max(((sim.energy() - e0) / e0).abs());
        lz = lz.max(((l - lz0) / lz0).abs());
        spin = spin.max(((s - spin0) / spin0).abs());
        let (r, rotation) = sc.mechanism.rigid_pose(0, x);
        let tip = r + rotation * Vector3::new(0.0, 0.0, -1.0);
        sphere = sphere.max((tip.norm() - 1.0).abs());
        norm = norm.max((x.fixed_rows::<4>(3).norm() - 1.0).abs());
    }
    eprintln!(
        "spin top over 2 s: energy {energy:e}, Lz {lz:e}, spin {spin:e}, sphere {sphere:e} m, |e| - 1 {norm:e}"
    );
    assert!(energy < 1e-8 && lz < 1e-8 && spin < 1e-8, "relative drifts");
    assert!(
        sphere < 1e-10 && norm < 1e-12,
        "tip off the sphere or |e| off 1"
    );
}

/// Loads `source` (a shipped scene with `from` replaced by `to`, `from` occurring once),
/// requiring an error.
fn error_in(name: &str, from: &str, to: &str) -> (String, SceneError) {
    let text = std::fs::read_to_string(scene_path(name)).expect("shipped scene");
    assert_eq!(
        text.matches(from).count(),
        1,
        "test bug: {from:?} must occur once"
    );
    let source = text.replacen(from, to, 1);
    match parse_scene("test.ron", &source) {
        Ok(_) => panic!("loaded without error: {to}"),
        Err(e) => (source, e),
    }
}

/// The error points at `field` (the source there starts with it), names `entity` (none if
/// empty) and says `words`; it is one line.
fn assert_located((source, e): (String, SceneError), field: &str, entity: &str, words: &str) {
    let line = source.lines().nth(e.line - 1).expect("line");
    let at: String = line.chars().skip(e.column - 1).collect();
    assert!(
        at.starts_with(field),
        "{e}: points at {at:?}, not {field:?}"
    );
    let entity = (!entity.is_empty()).then_some(entity);
    assert_eq!(e.entity.as_deref(), entity, "{e}");
    assert!(e.message.contains(words), "{e}: should say {words:?}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn bad_inertia_is_a_located_error() {
    let crank = "Principal(1e-4, 1e-5, 1e-4)";
    for bad in ["Principal(0.0, 1e-5, 1e-4)", "Principal(1e-4, -1e-5, 1e-4)"] {
        assert_located(
            error_in("slider_crank", crank, bad),
            "inertia:",
            "body \"crank\"",
            "positive",
        );
    }
    assert_located(
        error_in(
            "slider_crank",
            "Principal(4e-3, 4e-4, 4e-3)",
            "Principal(4e-3, 4e-4, 5e-3)",
        ),
        "inertia:",
        "body \"rod\"",
        "triangle inequality",
    );
    let slider = "Principal(1e-4, 1e-4, 1e-4)";
    assert_located(
        error_in(
            "slider_crank",
            slider,
            "Matrix((1e-4, 1e-5, 0.0), (0.0, 1e-4, 0.0), (0.0, 0.0, 1e-4))",
        ),
        "inertia:",
        "body \"slider\"",
        "symmetric",
    );
    // Eigenvalues 3e-4, 1e-4 and 0.5e-4: a full matrix is checked on them.
    assert_located(
        error_in(
            "slider_crank",
            slider,
            "Matrix((2e-4, 1e-4, 0.0), (1e-4, 2e-4, 0.0), (0.0, 0.0, 0.5e-4))",
        ),
        "inertia:",
        "body \"slider\"",
        "triangle inequality",
    );
}

#[test]
fn an_orientation_that_is_no_rotation_is_a_located_error() {
    let axes = "Axes(x: (1.0, 0.0, 0.0), y: (0.0, 0.0, 1.0))";
    for (bad, words) in [
        (
            "Axes(x: (1.0, 0.0, 0.0), y: (0.1, 0.0, 1.0))",
            "perpendicular",
        ),
        (
            "Axes(x: (0.0, 0.0, 0.0), y: (0.0, 0.0, 1.0))",
            "zero length",
        ),
        (
            "AxisAngle(axis: (0.0, 0.0, 0.0), angle: 1.0)",
            "zero length",
        ),
    ] {
        assert_located(
            error_in("slider_crank", axes, bad),
            "orientation:",
            "body \"crank\"",
            words,
        );
    }
    assert_located(
        error_in(
            "spin_top",
            "Euler(1.0, 0.0, 0.0, 0.0)",
            "Euler(0.0, 0.0, 0.0, 0.0)",
        ),
        "orientation:",
        "body \"top\"",
        "no rotation",
    );
}

#[test]
fn written_orientations_agree_and_non_unit_euler_parameters_are_normalised() {
    let text = std::fs::read_to_string(scene_path("slider_crank")).expect("scene");
    let axes = "Axes(x: (1.0, 0.0, 0.0), y: (0.0, 0.0, 1.0))";
    let turned = text.replacen(
        axes,
        "AxisAngle(axis: (2.0, 0.0, 0.0), angle: 1.5707963267948966)",
        1,
    );
    let sc = parse_scene("test.ron", &turned).expect("axis and angle");
    assert_abs_diff_eq!(sc.x0, scene("slider_crank").x0, epsilon = 1e-15);

    let text = std::fs::read_to_string(scene_path("spin_top")).expect("scene");
    let long = text.replacen("Euler(1.0, 0.0, 0.0, 0.0)", "Euler(2.0, 0.0, 0.0, 0.0)", 1);
    let sc = parse_scene("test.ron", &long).expect("normalised");
    assert_eq!(sc.x0[3], 1.0);
    // The same rotation: normalising moved no pose (tests/solver/written_orientations.rs).
    assert_eq!(sc.assembly.correction, 0.0);
}

#[test]
fn bad_spatial_joints_are_located_errors() {
    let hinge_axis = "At(0.0, 0.1, 0.12), axis: (1.0, 0.0, 0.0)";
    assert_located(
        error_in(
            "slider_crank",
            hinge_axis,
            "At(0.0, 0.1, 0.12), axis: (0.0, 0.0, 0.0)",
        ),
        "axis:",
        "joint \"A\"",
        "zero length",
    );
    let arm = "arm_b: (0.0, 2.0, -1.0)";
    for (bad, words) in [
        ("arm_b: (0.0, 0.0, 0.0)", "zero length"),
        ("arm_b: (1.0, 2.0, -1.0)", "perpendicular"),
    ] {
        assert_located(
            error_in("slider_crank", arm, bad),
            "arm_b:",
            "joint \"C\"",
            words,
        );
    }
    assert_located(
        error_in("slider_crank", "at_b: Point(\"C\")", "at_b: Point(\"D\")"),
        "at_b:",
        "joint \"C\"",
        "unknown point \"D\"",
    );
    assert_located(
        error_in(
            "slider_crank",
            "name: \"D\", a: \"slider\"",
            "name: \"D\", a: \"ground\"",
        ),
        "b:",
        "joint \"D\"",
        "both sides are the ground",
    );
    assert_located(
        error_in(
            "slider_crank",
            "    ],\n    velocities",
            "        Pin(name: \"P\", body: \"crank\", at: Center, ground: (0.0, 0.0)),\n    ],\n    velocities",
        ),
        "body:",
        "joint \"P\"",
        "planar",
    );
    assert_located(
        error_in(
            "four_bar",
            "    joints: [\n",
            "    joints: [\n        Spherical(name: \"S\", a: \"crank1\", at_a: Center, b: \"ground\", at_b: At(0.0, 0.0, 0.0)),\n",
        ),
        "a:",
        "joint \"S\"",
        "planar",
    );
}

#[test]
fn planar_and_spatial_do_not_mix_and_rigid_loads_and_velocities_are_checked() {
    assert_located(
        error_in(
            "four_bar",
            "    bodies: [\n",
            "    bodies: [\n        Rigid(name: \"r\", mass: 1.0, inertia: Principal(1.0, 1.0, 1.0), center: (0.0, 0.0, 0.0)),\n",
        ),
        "name:",
        "body \"r\"",
        "planar",
    );
    assert_located(
        error_in(
            "slider_crank",
            "    velocities: [",
            "    loads: [Torque(name: \"drive\", body: \"crank\", torque: 1.0)],\n    velocities: [",
        ),
        "body:",
        "load \"drive\"",
        "SpatialTorque",
    );
    assert_located(
        error_in(
            "slider_crank",
            "(body: \"crank\", wx: 6.0)",
            "(body: \"crank\", omega: 6.0)",
        ),
        "omega:",
        "velocity of \"crank\"",
        "no component `omega`",
    );
    assert_located(
        error_in("spin_top", "\"top:tip\"", "\"top:toe\""),
        "trace_points:",
        "",
        "unknown point \"toe\"",
    );
    let text = std::fs::read_to_string(scene_path("slider_crank")).expect("scene");
    let driven = text.replacen(
        "    velocities: [",
        "    loads: [SpatialTorque(name: \"drive\", body: \"crank\", torque: [0.01, 0.0, 0.0])],\n    velocities: [",
        1,
    );
    let sc = parse_scene("test.ron", &driven).expect("a spatial torque on a rigid body");
    assert_eq!(sc.mechanism.loads().len(), 1);
}

/// The scene format's spatial example (docs/scene-format.md, its second `ron` block) loads as the shipped slider-crank.
#[test]
fn the_documented_spatial_example_is_the_shipped_slider_crank() {
    let readme = include_str!("../../docs/scene-format.md");
    let block = readme
        .split("```ron\n")
        .nth(2)
        .and_then(|rest| rest.split("```").next())
        .expect("a second ron block");
    let example = parse_scene("scene-format.md", block).unwrap_or_else(|e| panic!("{e}"));
    let shipped = scene("slider_crank");
    assert_eq!(example.x0, shipped.x0);
    assert_eq!(example.xd0, shipped.xd0);
    assert_eq!(example.looks, shipped.looks);
    assert_eq!(example.mechanism.joints(), shipped.mechanism.joints());
}
