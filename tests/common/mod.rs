//! Helpers shared by the integration tests.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use approx::abs_diff_eq;
use singulab::scene::{Scene, load_scene};

/// Names of the nine shipped scenes, simplest first (pendulums, then the four-bar family).
pub use singulab::scene::SHIPPED_SCENES as SCENES;

/// Path of a shipped scene.
pub fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.ron"))
}

/// A planar slider-crank: crank r = 0.1 m on a pivot at the origin, rod l = 0.3 m whose end
/// B slides along the x axis; the crank starts upright at 6 rad/s.
pub const PLANAR_SLIDER_CRANK: &str = r#"Scene(
    title: "Planar slider-crank",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "crank", length: 0.1, mass: 0.12, start: (0.0, 0.0), angle: 1.5707963267948966),
        Bar(name: "rod", length: 0.3, mass: 0.5, start: (0.0, 0.1), angle: -0.3398369094541219),
    ],
    joints: [
        Pin(name: "O", body: "crank", at: Start, ground: (0.0, 0.0)),
        Revolute(name: "A", a: "crank", at_a: End, b: "rod", at_b: Start),
        Slider(name: "B", body: "rod", at: End, through: (0.0, 0.0), axis: (1.0, 0.0)),
    ],
    velocities: [(body: "crank", omega: 6.0)],
    solver: (dt: 1e-4),
)"#;

/// Loads a shipped scene, panicking with the loader's message if it fails.
pub fn scene(name: &str) -> Scene {
    load_scene(&scene_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The shipped four-bar launched from hanging down so that it just reaches the flat pose and
/// stops there (thesis sect. 5.2.2). Its crank rate is checked against the closed form: with
/// two cranks and the translating coupler, I = 2/3 + 1 and V = 2 g sin(theta), so reaching
/// theta = pi from 3 pi / 2 at rest needs omega^2 = 4 g / I (the file takes 1e-10 off).
pub fn stopping_four_bar() -> Scene {
    let scene = scene("four_bar_stopping");
    let g: f64 = 9.81;
    let omega = -(4.0 * g / (5.0 / 3.0)).sqrt() * (1.0 - 1e-10);
    let crank1 = scene.mechanism.body_index("crank1").expect("crank1");
    let offset = scene.mechanism.bodies()[crank1].offset;
    let stated = scene.xd0[offset + 2];
    assert!(
        abs_diff_eq!(stated, omega, epsilon = 1e-14),
        "four_bar_stopping.ron: crank1 omega {stated}, closed form {omega}"
    );
    scene
}

/// Runs the `singulab` binary with `args` (which need not be UTF-8).
pub fn singulab_os<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_singulab"))
        .args(args)
        .output()
        .expect("the singulab binary runs")
}

pub fn singulab(args: &[&str]) -> Output {
    singulab_os(args)
}

/// A scratch directory of its own for each test (names are unique across the test files).
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("singulab-test-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A numeric CSV file's header and rows.
pub type Table = (Vec<String>, Vec<Vec<f64>>);

/// Reads a CSV file of numbers written by `singulab`, panicking on anything else.
pub fn read_table(path: &Path) -> Table {
    let mut reader = csv::Reader::from_path(path).expect("a CSV file");
    let header = reader
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(|r| {
            let r = r.expect("a record");
            r.iter().map(|v| v.parse().expect("a number")).collect()
        })
        .collect();
    (header, rows)
}

/// The configuration set of `scene` traced from its start, with the scene's tolerances, at
/// most 20 000 points, and `holds` (none for a one-dimensional set).
pub fn atlas_of(scene: &Scene, holds: Vec<singulab::atlas::Hold>) -> singulab::atlas::Atlas {
    let settings = singulab::atlas::AtlasSettings {
        max_points: 20_000,
        detection_tolerance: scene.settings.detection_tolerance,
        rank_tolerance: scene.settings.rank_tolerance,
        normal_truncation: scene.settings.normal_truncation,
        newton_tolerance: scene.settings.newton_tolerance,
        holds,
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    singulab::atlas::trace_atlas(&scene.mechanism, &scene.x0, &settings, &cancel)
        .unwrap_or_else(|e| panic!("{}: {e}", scene.file))
}
