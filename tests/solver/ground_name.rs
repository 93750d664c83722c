//! `"ground"` names the fixed frame in joints, so no body may take that name, planar or
//! spatial; a planar joint that names the ground as a body is told how planar joints reach it.
//!
//! References: the positions were counted by hand in the sources below (and each is checked
//! against the text there); the hanging arm's pivot and length are those written in its scene.

use singulab::scene::{SceneError, parse_scene};

const FILE: &str = "ground.ron";

/// A rigid body named "ground" and an arm meant to hang from the fixed frame by a ball joint.
/// Line 5 is the first body: 8 spaces and `Rigid(` (columns 9-14), so `name` is at column 15.
const SPATIAL: &str = r#"Scene(
    title: "a body named ground",
    gravity: [0.0, 0.0, -9.81],
    bodies: [
        Rigid(name: "ground", mass: 1.0, inertia: Principal(0.1, 0.1, 0.1), center: (0.0, 0.0, 0.0), points: {"p": (0.5, 0.0, 0.0)}),
        Rigid(name: "arm", mass: 1.0, inertia: Principal(0.1, 0.1, 0.1), center: (1.0, 0.0, 0.0), points: {"q": (-0.5, 0.0, 0.0)}),
    ],
    joints: [
        Spherical(name: "S", a: "arm", at_a: Point("q"), b: "ground", at_b: At(0.5, 0.0, 0.0)),
    ],
)"#;

/// A planar pendulum whose bar is named "ground". Line 5: 8 spaces and `Bar(` (columns 9-12),
/// so `name` is at column 13.
const PLANAR: &str = r#"Scene(
    title: "a bar named ground",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "ground", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: 0.0),
    ],
    joints: [
        Pin(name: "O", body: "ground", at: Start, ground: (0.0, 0.0)),
    ],
)"#;

fn error(source: &str) -> SceneError {
    match parse_scene(FILE, source) {
        Ok(_) => panic!("the scene loaded:\n{source}"),
        Err(e) => e,
    }
}

/// The error is one line at `(line, column)`, where `token` starts, and names `entity`.
fn check(e: &SceneError, source: &str, (line, column): (usize, usize), token: &str, entity: &str) {
    let at: String = source
        .lines()
        .nth(line - 1)
        .unwrap()
        .chars()
        .skip(column - 1)
        .collect();
    assert!(
        at.starts_with(token),
        "test bug: {token:?} is not at {line}:{column}"
    );
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        (FILE, line, column),
        "{e}"
    );
    assert_eq!(e.entity.as_deref(), Some(entity), "{e}");
    assert_eq!(e.to_string().lines().count(), 1, "{e}");
}

#[test]
fn a_rigid_body_may_not_be_named_ground() {
    let e = error(SPATIAL);
    check(
        &e,
        SPATIAL,
        (5, 15),
        r#"name: "ground""#,
        r#"body "ground""#,
    );
    assert!(e.message.contains("fixed frame"), "{e}");
}

#[test]
fn a_planar_body_may_not_be_named_ground() {
    let e = error(PLANAR);
    check(&e, PLANAR, (5, 13), r#"name: "ground""#, r#"body "ground""#);
}

#[test]
fn a_ball_joint_to_ground_holds_the_arm_at_the_ground_point() {
    let source = SPATIAL.replace(r#"name: "ground""#, r#"name: "block""#);
    let scene = parse_scene(FILE, &source).unwrap_or_else(|e| panic!("{e}"));
    let mechanism = &scene.mechanism;
    let arm = mechanism.body_index("arm").expect("arm");
    let q = nalgebra::Vector3::new(-0.5, 0.0, 0.0);
    let tip = mechanism.point_of_body(arm, &q, &scene.x0);
    assert!(
        (tip - nalgebra::Vector3::new(0.5, 0.0, 0.0)).norm() < 1e-12,
        "{tip}"
    );
    // The three coincidence rows bind only the arm: none touches the block's coordinates.
    let block = &mechanism.bodies()[mechanism.body_index("block").expect("block")];
    let mut a = nalgebra::DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(&scene.x0, &mut a);
    for row in 0..3 {
        for k in block.offset..block.offset + block.dim() {
            assert_eq!(a[(row, k)], 0.0, "row {row}, coordinate {k}");
        }
    }
}

#[test]
fn a_planar_joint_naming_the_ground_as_a_body_says_how_to_reach_it() {
    let source = PLANAR
        .replace(r#"name: "ground""#, r#"name: "bar""#)
        .replace(
            r#"Pin(name: "O", body: "ground", at: Start, ground: (0.0, 0.0))"#,
            r#"Revolute(name: "O", a: "bar", at_a: Start, b: "ground", at_b: Start)"#,
        );
    // Line 8: 8 spaces, `Revolute(` 9-17, `name: "O", ` 18-28, `a: "bar", ` 29-38,
    // `at_a: Start, ` 39-51: `b` at column 52.
    let e = error(&source);
    check(&e, &source, (8, 52), r#"b: "ground""#, r#"joint "O""#);
    assert!(e.message.contains("`Pin`"), "{e}");
}
