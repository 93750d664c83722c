//! A driver whose law goes past the linkage's reach: Newton fails at the same time at every
//! step size, and the message says that the driver asks for a pose the linkage cannot reach,
//! naming the driver and the time, instead of advising a smaller step.

use singulab::scene::parse_scene;

use crate::common::scene_path;

/// The shipped mobile robot with its first steering step 15 times larger (-0.15 m instead of
/// -0.01 m): the slider pulls the wheel carriers past where the links can turn them.
fn overdriven_robot() -> singulab::scene::Scene {
    let text = std::fs::read_to_string(scene_path("mobile_robot")).unwrap();
    let stepped = "Step(amplitude: -0.01, start: 1.0, end: 2.0)";
    assert!(text.contains(stepped));
    let text = text.replace(stepped, "Step(amplitude: -0.15, start: 1.0, end: 2.0)");
    parse_scene("mobile_robot.ron", &text).unwrap_or_else(|e| panic!("{e}"))
}

/// The line of the shipped robot's driver `steps` field, found in the file's text.
fn text_line_of_steps() -> usize {
    let text = std::fs::read_to_string(scene_path("mobile_robot")).unwrap();
    let offset = text.find("steps:").expect("the robot's driver has steps");
    text[..offset].lines().count()
}

#[test]
fn a_driver_past_the_linkages_reach_is_named_at_every_dt() {
    let robot = overdriven_robot();
    let mut times = Vec::new();
    for dt in [1e-3, 1e-4] {
        let settings = singulab::solver::Settings {
            dt,
            ..robot.settings.clone()
        };
        let mut sim = robot.simulation_with(settings).unwrap();
        let error = loop {
            if sim.time() > 1.7 {
                panic!("dt {dt}: no failure by t = 1.7 s");
            }
            if let Err(error) = sim.step() {
                break error;
            }
        };
        let message = error.to_string();
        assert!(
            message.contains("the driver \"H.driver\" asks for a pose the linkage cannot reach"),
            "dt {dt}: {message}"
        );
        assert!(!message.contains("smaller dt"), "dt {dt}: {message}");
        // Located at the driver's steps in the prismatic joint "H".
        let located = robot.locate_failure(&error).map(|e| e.to_string());
        let located = located.unwrap_or_else(|| panic!("dt {dt}: unlocated: {message}"));
        assert!(
            located.starts_with("mobile_robot.ron:") && located.contains("joint \"H.driver\""),
            "dt {dt}: {located}"
        );
        let line = text_line_of_steps();
        assert!(
            located.starts_with(&format!("mobile_robot.ron:{line}:")),
            "{located}"
        );
        times.push(sim.time());
    }
    // The same limit at both step sizes (within the coarser step).
    assert!((times[0] - times[1]).abs() <= 1e-3, "{times:?}");
}
