//! Helpers shared by the integration tests.

use std::path::PathBuf;

use singulab::scene::{Scene, load_scene};

/// Names of the nine shipped scenes, in DESIGN.md's order.
pub const SCENES: [&str; 9] = [
    "planar_pendulum",
    "redundant_pendulum",
    "spatial_pendulum",
    "four_bar",
    "double_four_bar",
    "modified_double_four_bar",
    "modified_triple_four_bar",
    "modified_2x2",
    "modified_2x3",
];

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
