//! What is written up to scale: Euler parameters of any length are the rotation of their unit
//! multiple (the rotation matrix of `e` is that of `e / |e|`), so normalising them moves no
//! pose and needs no note; and their components, like a direction's, have no unit.
//!
//! References: the shipped spin top (Euler(1, 0, 0, 0)) for the trajectory; the bound 1e6 and
//! the scale-free wording from the scene format's limits (README, "Limits").

use singulab::scene::{SceneError, parse_scene};

use crate::common::{scene, scene_path};

fn shipped_with(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scene_path(name)).expect("shipped scene");
    assert_eq!(
        text.matches(from).count(),
        1,
        "test bug: {from:?} must occur once"
    );
    text.replacen(from, to, 1)
}

fn error(source: &str) -> SceneError {
    match parse_scene("test.ron", source) {
        Ok(_) => panic!("loaded without error"),
        Err(e) => e,
    }
}

#[test]
fn doubled_euler_parameters_start_the_top_quietly_on_the_shipped_trajectory() {
    let shipped = scene("spin_top");
    let source = shipped_with(
        "spin_top",
        "Euler(1.0, 0.0, 0.0, 0.0)",
        "Euler(2.0, 0.0, 0.0, 0.0)",
    );
    let doubled = parse_scene("test.ron", &source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doubled.assembly_note(), shipped.assembly_note());
    assert!(!doubled.assembled_far_off());
    assert_eq!(doubled.x0, shipped.x0);
    assert_eq!(doubled.xd0, shipped.xd0);
    let (mut a, mut b) = (shipped.simulation().unwrap(), doubled.simulation().unwrap());
    for _ in 0..200 {
        a.step().expect("shipped step");
        b.step().expect("doubled step");
    }
    assert_eq!(a.positions(), b.positions());
    assert_eq!(a.velocities(), b.velocities());
}

#[test]
fn a_rotation_written_at_another_scale_is_the_same_pose() {
    // (0.5, 0.5, 0.5, 0.5) is a third of a turn about (1, 1, 1); three times it is the same.
    let unit = "Euler(0.5, 0.5, 0.5, 0.5)";
    let source = |e: &str| shipped_with("spin_top", "Euler(1.0, 0.0, 0.0, 0.0)", e);
    let a = parse_scene("test.ron", &source(unit)).unwrap_or_else(|e| panic!("{e}"));
    let b = parse_scene("test.ron", &source("Euler(1.5, 1.5, 1.5, 1.5)"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.x0, b.x0);
    assert_eq!(a.assembly_note(), b.assembly_note());
}

/// The message bounds a scale-free quantity without a unit: "at most 1000000 in magnitude".
fn assert_scale_free(e: &SceneError, field: &str) {
    let text = e.to_string();
    assert!(text.contains("at most 1000000 in magnitude"), "{text}");
    assert!(!text.contains(" m "), "a unit in: {text}");
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert!(e.entity.is_some(), "{text}");
    assert!(text.contains(field), "{text}");
}

#[test]
fn euler_parameters_and_directions_are_bounded_without_a_unit() {
    let e = error(&shipped_with(
        "spin_top",
        "Euler(1.0, 0.0, 0.0, 0.0)",
        "Euler(2e6, 0.0, 0.0, 0.0)",
    ));
    assert_scale_free(&e, "Euler parameters");
    let e = error(&shipped_with(
        "slider_crank",
        "At(0.0, 0.1, 0.12), axis: (1.0, 0.0, 0.0)",
        "At(0.0, 0.1, 0.12), axis: (2e6, 0.0, 0.0)",
    ));
    assert_scale_free(&e, "axis");
    let e = error(&shipped_with(
        "mobile_robot",
        "axis: (0.0, 1.0)",
        "axis: (0.0, 2e6)",
    ));
    assert_scale_free(&e, "axis");
}
