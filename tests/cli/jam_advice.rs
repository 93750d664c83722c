//! The advice after a jam depends on the settings in use: a run already on RK4 is not told to
//! try RK4.

use crate::common::{scratch, singulab};

/// A dumbbell held by a spherical joint whose top point is kept on a sphere tangent to the
/// one the spherical joint allows (a singular start), beside a four-bar of hinges: the run
/// jams on RK4.
const TANGENT_SPHERES: &str = r#"Scene(
    title: "four-bar of hinges",
    gravity: [0.0, -9.81, 0.0],
    bodies: [
        Rigid(name: "crank1", mass: 1.0, inertia: Principal(0.08333333333333333, 0.08333333333333333, 0.001), center: (0.0, 0.5, 0.0),
            orientation: Axes(x: (0.0, 0.0, 1.0), y: (1.0, 0.0, 0.0)),
            points: {"s": (0.0, 0.0, -0.5), "e": (0.0, 0.0, 0.5)}),
        Rigid(name: "coupler", mass: 1.0, inertia: Principal(0.001, 0.08333333333333333, 0.08333333333333333), center: (0.5, 1.0, 0.0),
            points: {"s": (-0.5, 0.0, 0.0), "e": (0.5, 0.0, 0.0)}),
        Rigid(name: "crank2", mass: 1.0, inertia: Principal(0.08333333333333333, 0.08333333333333333, 0.001), center: (1.0, 0.5, 0.0),
            orientation: Axes(x: (0.0, 0.0, 1.0), y: (1.0, 0.0, 0.0)),
            points: {"s": (0.0, 0.0, -0.5), "e": (0.0, 0.0, 0.5)}),
        Point(name: "p3", mass: 0.3, position: [3.0, 0.0, 0.0]),
        Rigid(name: "dumb", mass: 1.0, inertia: Principal(0.1, 0.1, 0.05), center: (3.0, 1.0, 0.0), points: {"t": (0.0, 0.0, 0.5)}),
    ],
    joints: [
        Hinge(name: "O1", a: "crank1", at_a: Point("s"), b: "ground", at_b: At(0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0)),
        Hinge(name: "O2", a: "crank2", at_a: Point("s"), b: "ground", at_b: At(1.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0)),
        Hinge(name: "A", a: "crank1", at_a: Point("e"), b: "coupler", at_b: Point("s"), axis: (0.0, 0.0, 1.0)),
        Hinge(name: "B", a: "crank2", at_a: Point("e"), b: "coupler", at_b: Point("e"), axis: (0.0, 0.0, 1.0)),
        Distance(name: "pl", body: "p3", anchor: [3.0, 0.0, 1.0], length: 1.0),
        Distance(name: "dl", body: "dumb", at: Point("t"), anchor: [3.0, 1.0, 0.501], length: 1e-3),
        Spherical(name: "ps", a: "dumb", at_a: At(0.0, 0.0, -0.5), b: "ground", at_b: At(3.0, 1.0, -0.5)),
    ],
    loads: [SpatialTorque(name: "st", body: "dumb", torque: [0.0, 0.0, 0.1], start: 0.01, duration: 0.01), Force(name: "pf", body: "p3", force: [0.0, 1.0, 0.0])],
    velocities: [
        (body: "crank1", wz: 4.0),
        (body: "coupler", wz: 0.0),
        (body: "crank2", wz: 4.0),
        (body: "p3", vy: 0.5),
        (body: "dumb", wz: 2.0),
    ],
    solver: (dt: 1e-3),
    run: (t_end: 0.2),
)"#;

#[test]
fn a_jam_on_rk4_is_not_told_to_try_rk4() {
    let dir = scratch("jam-advice");
    let scene = dir.join("tangent_spheres.ron");
    std::fs::write(&scene, TANGENT_SPHERES).unwrap();
    let out = dir.join("out.csv");
    let output = singulab(&[
        "run",
        scene.to_str().unwrap(),
        "--integrator",
        "rk4",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("jammed"), "{stderr}");
    assert!(!stderr.contains("try RK4"), "{stderr}");
}
