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
