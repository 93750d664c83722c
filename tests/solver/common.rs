//! Helpers shared by the integration tests.

use std::path::PathBuf;

use singulab::scene::{Scene, load_scene};

/// Names of the nine shipped scenes, in DESIGN.md's order.
pub use singulab::scene::SHIPPED_SCENES as SCENES;

/// Path of a shipped scene.
pub fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.ron"))
}

/// Loads a shipped scene, panicking with the loader's message if it fails.
pub fn scene(name: &str) -> Scene {
    load_scene(&scene_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Four-bar launched from hanging down so that it just reaches the flat pose and stops there
/// (thesis sect. 5.2.2). With two cranks and the coupler, I = 2/3 + 1 and V = 2 g sin(theta):
/// reaching theta = pi from 3 pi / 2 at rest needs omega^2 = 4 g / I.
pub fn stopping_four_bar() -> singulab::scene::Scene {
    let g: f64 = 9.81;
    let omega = -(4.0 * g / (5.0 / 3.0)).sqrt() * (1.0 - 1e-10);
    let source = format!(
        r#"Scene(
    title: "four-bar stopping flat",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "crank1", length: 1.0, mass: 1.0, start: (0.0, 0.0), angle: 4.71238898038469),
        Bar(name: "coupler", length: 1.0, mass: 1.0, start: (0.0, -1.0), angle: 0.0),
        Bar(name: "crank2", length: 1.0, mass: 1.0, start: (1.0, 0.0), angle: 4.71238898038469),
    ],
    joints: [
        Pin(name: "O1", body: "crank1", at: Start, ground: (0.0, 0.0)),
        Pin(name: "O2", body: "crank2", at: Start, ground: (1.0, 0.0)),
        Revolute(name: "A", a: "crank1", at_a: End, b: "coupler", at_b: Start),
        Revolute(name: "B", a: "crank2", at_a: End, b: "coupler", at_b: End),
    ],
    velocities: [(body: "crank1", omega: {omega:?}), (body: "coupler", omega: 0.0)],
)"#
    );
    singulab::scene::parse_scene("stopping.ron", &source).unwrap_or_else(|e| panic!("{e}"))
}
