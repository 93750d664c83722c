//! Numbers a scene or its settings may hold that the solver cannot meet: each is refused at
//! load with one located line, or fails in the run with the body, joint or setting at fault.
//! Every test builds its bad scene from a shipped one by replacing one piece of text, and
//! checks that the error points at that text (found by searching the source, not counted by
//! the loader).

use std::sync::Arc;

use nalgebra::DVector;
use singulab::model::{Body, BodyKind, Mechanism};
use singulab::scene::{SceneError, parse_scene};
use singulab::solver::{Settings, Simulation, SolverError};

use crate::common::scene_path;

const FILE: &str = "bad.ron";

/// The shipped scene `name` with `from` (which must occur once) replaced by `to`.
fn shipped_variant(name: &str, from: &str, to: &str) -> String {
    let source = std::fs::read_to_string(scene_path(name)).expect("shipped scene");
    assert_eq!(
        source.matches(from).count(),
        1,
        "test bug: {from:?} in {name}"
    );
    source.replacen(from, to, 1)
}

fn load_error(source: &str) -> SceneError {
    match parse_scene(FILE, source) {
        Ok(_) => panic!("the scene loaded; expected an error"),
        Err(e) => e,
    }
}

/// The error points at the `occurrence`-th (0-based) `token` of the source and its message
/// holds every word of `words`.
fn assert_at(e: &SceneError, source: &str, token: &str, occurrence: usize, words: &[&str]) {
    let offset = source
        .match_indices(token)
        .nth(occurrence)
        .unwrap_or_else(|| panic!("test bug: no {token:?} #{occurrence}"))
        .0;
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    assert_eq!((e.line, e.column), (line, column), "{e}");
    for word in words {
        assert!(e.to_string().contains(word), "{word:?} missing from: {e}");
    }
    assert!(!e.to_string().contains('\n'), "one line: {e}");
}

/// `Fraction(1e308)` on a 1 m bar put the joint point at infinity: the mechanism fell apart
/// over 2 s with exit 0 and no word.
#[test]
fn a_joint_point_far_off_its_bar_is_refused_at_the_point() {
    let c2 = r#"name: "C2", a: "crank5", at_a: Start, b: "coupler1", at_b: Along(1.0)"#;
    let src = shipped_variant(
        "modified_2x2",
        c2,
        &c2.replace("Along(1.0)", "Fraction(1e308)"),
    );
    let e = load_error(&src);
    assert_at(
        &e,
        &src,
        "at_b: Fraction",
        0,
        &["joint \"C2\"", "at most 1000 bar lengths"],
    );
    // Within a thousand bar lengths it is a (strange) bracket, not an error.
    let src = shipped_variant(
        "modified_2x2",
        c2,
        &c2.replace("Along(1.0)", "Offset(0.0, 2.0)"),
    );
    let e = load_error(&src);
    assert!(e.message.contains("initial positions"), "{e}");
}

/// Gravity of 1e308 made the accelerations NaN, reported as a massless direction or as
/// Newton failing at a joint.
#[test]
fn gravity_beyond_any_mechanism_is_refused_at_the_gravity() {
    for (scene, from, to) in [
        (
            "modified_2x3",
            "gravity: [0.0, -9.81]",
            "gravity: [0.0, -1e308]",
        ),
        (
            "planar_pendulum",
            "gravity: [0.0, -9.81]",
            "gravity: [0.0, 1e308]",
        ),
    ] {
        let src = shipped_variant(scene, from, to);
        assert_at(
            &load_error(&src),
            &src,
            "gravity",
            0,
            &["must be at most", "m/s^2"],
        );
    }
}

/// A bar 5e-324 m long was accepted; its inertia is 0 and the run failed with "pivot 0" and
/// no body named.
#[test]
fn a_bar_shorter_than_its_scene_resolves_is_refused_at_its_length() {
    let src = shipped_variant(
        "four_bar",
        "length: 1.0, mass: 1.0, start: (0.0, 1.0)",
        "length: 5e-324, mass: 1.0, start: (0.0, 1.0)",
    );
    let e = load_error(&src);
    assert_at(
        &e,
        &src,
        "length: 5e-324",
        0,
        &["body \"coupler\"", "scene's size"],
    );
}

/// A mass a trillion times smaller than the others leaves a direction the Cholesky factor
/// cannot tell from massless.
#[test]
fn a_mass_matrix_spanning_more_than_twelve_decades_names_the_light_body() {
    let src = shipped_variant(
        "four_bar",
        "length: 1.0, mass: 1.0, start: (0.0, 1.0)",
        "length: 1.0, mass: 1e-13, start: (0.0, 1.0)",
    );
    let e = load_error(&src);
    assert_at(
        &e,
        &src,
        "mass: 1e-13",
        0,
        &["body \"coupler\"", "almost no mass"],
    );
}

/// A velocity of 1e308 made the energy column `inf` from t = 0 with exit 0.
#[test]
fn a_speed_whose_energy_overflows_is_refused_at_the_component() {
    let src = shipped_variant("spatial_pendulum", "vz: 0.0", "vz: 1e308");
    let e = load_error(&src);
    assert_at(&e, &src, "vz: 1e308", 0, &["at most 1000000 m/s"]);
}

/// `rank_tolerance` 0.5 (A02's energy 35.8 -> 134 J in 2 s) and 1e-2 with detection 0.5 (one
/// of its ten singular configurations found) ran to exit 0 without a warning.
#[test]
fn loose_relative_tolerances_are_refused_at_the_setting() {
    for (settings, field, words) in [
        (
            "rank_tolerance: 0.5, detection_tolerance: 0.999999",
            "rank_tolerance",
            "at most 0.0001",
        ),
        (
            "rank_tolerance: 1e-5, detection_tolerance: 0.999999",
            "detection_tolerance",
            "at most 0.1",
        ),
        (
            "rank_tolerance: 1e-2, detection_tolerance: 0.05",
            "rank_tolerance",
            "at most 0.0001",
        ),
        (
            "detection_tolerance: 0.5",
            "detection_tolerance",
            "at most 0.1",
        ),
    ] {
        let src = shipped_variant(
            "double_four_bar",
            "solver: (dt: 1e-3)",
            &format!("solver: (dt: 1e-3, {settings})"),
        );
        assert_at(&load_error(&src), &src, field, 0, &[words]);
    }
}

/// Newton allowed 2^64 - 1 iterations towards a tolerance below round-off and never returned;
/// a tolerance of 1e-16 alone failed in the first step advising a smaller dt.
#[test]
fn unreachable_newton_settings_are_refused_at_the_setting() {
    let src = shipped_variant(
        "modified_2x2",
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, newton_tolerance: 1e-16)",
    );
    assert_at(
        &load_error(&src),
        &src,
        "newton_tolerance",
        0,
        &["round-off"],
    );
    let src = shipped_variant(
        "modified_2x2",
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, newton_max_iterations: 18446744073709551615)",
    );
    assert_at(
        &load_error(&src),
        &src,
        "newton_max_iterations",
        0,
        &["from 1 to 100"],
    );
}

/// Dopri5 with its smallest step at 1e-300 of dt crept 1e-300 s per step, writing rows
/// without end.
#[test]
fn a_creeping_smallest_dopri5_step_is_refused_at_the_setting() {
    let src = shipped_variant(
        "four_bar",
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, integrator: Dopri5, dopri_rtol: 1e-300, dopri_atol: 1e-300, dopri_min_step: 1e-300)",
    );
    assert_at(
        &load_error(&src),
        &src,
        "dopri_rtol",
        0,
        &["at least 1e-13"],
    );
    let src = shipped_variant(
        "four_bar",
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, integrator: Dopri5, dopri_min_step: 1e-300)",
    );
    assert_at(
        &load_error(&src),
        &src,
        "dopri_min_step",
        0,
        &["at least 1e-6"],
    );
}

/// A mechanism 1000 km from the origin: its positions are only known to about 1e-10 m, so the
/// default `newton_tolerance` of 1e-12 m cannot be met. Not written in the file, it is reported
/// at the joint whose numbers are that large; written, at the setting.
#[test]
fn a_tolerance_below_the_scenes_round_off_points_at_the_far_joint_or_the_setting() {
    let far = shipped_variant(
        "planar_pendulum",
        "anchor: [0.0, 0.0]",
        "anchor: [9e5, 0.0]",
    )
    .replace("position: [1.0, 0.0]", "position: [900001.0, 0.0]");
    let e = load_error(&far);
    assert_at(
        &e,
        &far,
        "name: \"link\"",
        0,
        &["joint \"link\"", "default newton_tolerance"],
    );
    let written = far.replace(
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, newton_tolerance: 1e-12)",
    );
    assert_at(
        &load_error(&written),
        &written,
        "newton_tolerance",
        0,
        &["round-off"],
    );
    let loosened = far.replace(
        "solver: (dt: 1e-3)",
        "solver: (dt: 1e-3, newton_tolerance: 1e-8, dopri_atol: 1e-8)",
    );
    if let Err(e) = parse_scene(FILE, &loosened) {
        panic!("{e}");
    }
}

/// 30,000 free bars asked for a 65 GB allocation and aborted; the limit is checked on the
/// file's counts before anything of the scene's size is allocated.
#[test]
fn a_scene_larger_than_the_dense_solver_holds_is_refused_before_allocating() {
    let bars: String = (0..201)
        .map(|i| format!("        Bar(name: \"b{i}\", length: 1.0, mass: 1.0, start: ({i}.0, 0.0), angle: 0.0),\n"))
        .collect();
    let src = format!(
        "Scene(\n    title: \"many\",\n    gravity: [0.0, -9.81],\n    bodies: [\n{bars}    ],\n)\n"
    );
    let e = load_error(&src);
    assert_at(
        &e,
        &src,
        "bodies",
        0,
        &["603 coordinates", "more than 600", "dense"],
    );
    let fits: String = bars.lines().take(200).map(|l| format!("{l}\n")).collect();
    let src = format!(
        "Scene(\n    title: \"many\",\n    gravity: [0.0, -9.81],\n    bodies: [\n{fits}    ],\n)\n"
    );
    assert!(parse_scene(FILE, &src).is_ok());
}

/// A free point whose speed grows without bound until its state is no longer a number: the
/// failure names the body. (Direct construction: a scene's bounds keep this out of files.)
#[test]
fn a_state_that_overflows_names_its_body() {
    let body = Body {
        name: "rocket".into(),
        kind: BodyKind::Point2,
        mass: 1.0,
        offset: 0,
    };
    let mechanism = Arc::new(Mechanism::new(
        vec![body],
        vec![],
        vec![],
        [0.0, 1e307, 0.0],
    ));
    let x0 = DVector::from_vec(vec![0.0, 0.0]);
    let xd0 = DVector::from_vec(vec![0.0, 1e307]);
    let settings = Settings {
        dt: 1e3,
        ..Settings::default()
    };
    let mut sim = Simulation::new(mechanism, x0, xd0, settings).expect("valid start");
    let error = (0..100)
        .find_map(|_| sim.step().err())
        .expect("the state overflows");
    assert!(
        matches!(&error, SolverError::NotFinite { body: Some(b), .. } if b == "rocket"),
        "{error}"
    );
    assert!(error.to_string().contains("body \"rocket\""), "{error}");
}
