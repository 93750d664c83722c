//! What a push is: `Push(motion, delta, duration)` changes the velocity along the motion by
//! `delta` in the mass metric (sqrt(J)), oriented along the motion's own velocity, whatever
//! the coordinates (a bar's angle or a rigid body's Euler parameters), the step size or the
//! duration, down to durations no step can resolve.
//!
//! Reference: a compound pendulum (uniform bar, 1 kg, 1 m, hinged at one end, I_O = 1/3 kg m^2)
//! turning at omega = 2 rad/s has kinetic energy 2/3 J, i.e. speed s = sqrt(4/3) along its one
//! motion in the mass metric. A push by delta too short for gravity to do work takes it to
//! s + delta: the energy rises by s delta + delta^2 / 2.

use nalgebra::DVector;
use singulab::live::LiveSession;
use singulab::scene::parse_scene;
use singulab::solver::{BasisMode, Settings};

const PLANAR: &str = r#"Scene(
    title: "bar pendulum", gravity: [0.0, -9.81],
    bodies: [Bar(name: "bar", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: -1.0)],
    joints: [Pin(name: "O", body: "bar", at: Start, ground: (0.0, 0.0))],
    velocities: [(body: "bar", omega: 2.0)],
)"#;

/// The same pendulum as a rigid body on a hinge about z: the bar's axis along body x, its
/// inertia about the centre 1/12 kg m^2 about body y and z.
fn spatial() -> String {
    let (c, s) = ((-1.0_f64).cos(), (-1.0_f64).sin());
    format!(
        r#"Scene(
    title: "rigid bar pendulum", gravity: [0.0, -9.81, 0.0],
    bodies: [Rigid(
        name: "bar", mass: 1.0, inertia: Principal(1e-3, {i}, {i}),
        center: ({cx}, {cy}, 0.0),
        orientation: Axes(x: ({c}, {s}, 0.0), y: ({ms}, {c}, 0.0)),
        points: {{"O": (-0.5, 0.0, 0.0)}},
    )],
    joints: [Hinge(name: "O", a: "bar", at_a: Point("O"), b: "ground", at_b: At(0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0))],
    velocities: [(body: "bar", wz: 2.0)],
)"#,
        i = 1.0 / 12.0,
        cx = 0.5 * c,
        cy = 0.5 * s,
        ms = -s,
    )
}

/// The energy change of a push by `delta` for `duration` along the first motion, measured
/// once the push is over; the same for either sign of the basis column (the push orients it).
fn energy_change(text: &str, dt: f64, delta: f64, duration: f64) -> f64 {
    let scene = parse_scene("pendulum.ron", text).unwrap_or_else(|e| panic!("{e}"));
    let settings = Settings {
        dt,
        ..scene.settings.clone()
    };
    let changes: Vec<f64> = [1.0, -1.0]
        .iter()
        .map(|sign| {
            let mut session = LiveSession::with_settings(scene.clone(), settings.clone()).unwrap();
            let sim = session.simulation();
            let e0 = sim.energy();
            let basis = sim.basis(BasisMode::Traditional);
            let column = DVector::from_column_slice(basis.columns().column(0).as_slice()) * *sign;
            session.push_along(&column, delta, duration).unwrap();
            for _ in 0..10 {
                if !session.is_pushing() {
                    break;
                }
                session.single_step();
            }
            assert!(!session.is_pushing(), "the push lasts {duration} s");
            session.simulation().energy() - e0
        })
        .collect();
    assert!(
        (changes[0] - changes[1]).abs() <= 1e-12,
        "either sign of the column: {changes:?}"
    );
    changes[0]
}

fn expected(delta: f64) -> f64 {
    let s = (4.0_f64 / 3.0).sqrt();
    s * delta + 0.5 * delta * delta
}

#[test]
fn a_push_means_the_same_for_a_bar_and_a_rigid_body_at_any_dt_and_duration() {
    let spatial = spatial();
    for (name, text) in [("planar", PLANAR), ("spatial", spatial.as_str())] {
        for dt in [1e-3, 1e-4] {
            for duration in [1e-19, 1e-12] {
                for delta in [0.5, -0.3] {
                    let change = energy_change(text, dt, delta, duration);
                    let want = expected(delta);
                    assert!(
                        (change - want).abs() <= 1e-6,
                        "{name} dt {dt} duration {duration} delta {delta}: {change} J, expected {want} J"
                    );
                }
            }
        }
    }
}
