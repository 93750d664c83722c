//! Telling singular configurations apart (every singular configuration
//! passed is one event): two closer together than a step are two, and one the mechanism
//! lingers at is one.
//!
//! The modified 2x3 four-bar is singular whenever one of its two stages is flat: the lower
//! cranks horizontal (`sin(theta_crank1) = 0`) or the upper cranks along the lower coupler
//! (`sin(theta_crank5 - theta_coupler1) = 0`). Near t = 3.218 s the two happen 2.6e-3 s apart,
//! less than two steps of 2e-3 s and less than one of 5e-3 s or 1e-2 s. The reference times are
//! these geometric crossings, read off the simulated trajectory by linear interpolation of the
//! sines between steps (error O(h^2), below 1e-4 s here), not the detector's own output.

use approx::abs_diff_eq;
use singulab::live::{LiveSession, PauseReason};
use singulab::scene::Scene;
use singulab::solver::{Integrator, Settings};

use crate::common::scene;

/// Run length: it holds ten flat poses of either stage, two of them 2.6e-3 s apart.
const T_END: f64 = 4.0;

/// A located event and a geometric crossing closer than this are the same singular
/// configuration (the closest distinct ones are 2.6e-3 s apart).
const MATCH: f64 = 5e-4;

/// Index of body `name`'s angle in `x`.
fn angle_index(scene: &Scene, name: &str) -> usize {
    let body = scene.mechanism.body_index(name).expect(name);
    scene.mechanism.bodies()[body].offset + 2
}

fn with_dt(scene: &Scene, dt: f64) -> Settings {
    Settings {
        dt,
        ..scene.settings.clone()
    }
}

fn dopri5_with_dt(scene: &Scene, dt: f64) -> Settings {
    Settings {
        integrator: Integrator::Dopri5,
        ..with_dt(scene, dt)
    }
}

/// Flat-pose times of either stage (geometric crossings) and located event times, over
/// `T_END` at step `dt` with RK4.
fn crossings_and_events(dt: f64) -> (Vec<f64>, Vec<f64>) {
    let scene = scene("modified_2x3");
    let settings = with_dt(&scene, dt);
    crossings_and_events_with(&scene, settings)
}

/// The same with other settings.
fn crossings_and_events_with(scene: &Scene, settings: Settings) -> (Vec<f64>, Vec<f64>) {
    let dt = settings.dt;
    let (crank1, crank5, coupler1) = (
        angle_index(scene, "crank1"),
        angle_index(scene, "crank5"),
        angle_index(scene, "coupler1"),
    );
    let stages = |x: &nalgebra::DVector<f64>| [x[crank1].sin(), (x[crank5] - x[coupler1]).sin()];
    let mut sim = scene.simulation_with(settings).unwrap();
    let (mut crossings, mut events) = (Vec::new(), Vec::new());
    let (mut t_before, mut before) = (sim.time(), stages(sim.positions()));
    while sim.time() < T_END {
        let report = sim.step().unwrap();
        assert_eq!(report.events, sim.step_events().len());
        for event in sim.step_events() {
            assert_eq!(event.deficiency, 1, "dt {dt:e}: event at t = {}", event.t);
            assert!(
                event.rho_min < scene.settings.detection_tolerance,
                "dt {dt:e}: event at t = {} with rho {}",
                event.t,
                event.rho_min
            );
            events.push(event.t);
        }
        let now = stages(sim.positions());
        for (s0, s1) in before.iter().zip(&now) {
            if s0 * s1 < 0.0 {
                crossings.push(t_before + (sim.time() - t_before) * s0 / (s0 - s1));
            }
        }
        (t_before, before) = (sim.time(), now);
    }
    crossings.sort_by(f64::total_cmp);
    (crossings, events)
}

fn every_flat_pose_is_one_event(dt: f64) {
    let (crossings, events) = crossings_and_events(dt);
    assert!(
        crossings.windows(2).any(|w| w[1] - w[0] < 2.0 * dt),
        "dt {dt:e}: no two flat poses within two steps in {crossings:?}"
    );
    matched_one_to_one(dt, &crossings, &events);
}

fn matched_one_to_one(dt: f64, crossings: &[f64], events: &[f64]) {
    assert!(
        events.windows(2).all(|w| w[0] < w[1]),
        "dt {dt:e}: events out of order: {events:?}"
    );
    for &t in crossings {
        let matching = events
            .iter()
            .filter(|&&e| abs_diff_eq!(e, t, epsilon = MATCH))
            .count();
        assert_eq!(
            matching, 1,
            "dt {dt:e}: flat pose at t = {t:.6} matched by {matching} events: {events:?}"
        );
    }
    assert_eq!(
        events.len(),
        crossings.len(),
        "dt {dt:e}: events {events:?}, flat poses {crossings:?}"
    );
}

#[test]
fn two_flat_poses_within_two_steps_of_2e_3_are_two_events() {
    every_flat_pose_is_one_event(2e-3);
}

#[test]
fn two_flat_poses_within_one_step_of_5e_3_are_two_events() {
    every_flat_pose_is_one_event(5e-3);
}

#[test]
fn two_flat_poses_within_one_step_of_1e_2_are_two_events() {
    every_flat_pose_is_one_event(1e-2);
}

/// Dopri5 shortens its steps between the two (`rho` stays just above the tolerance there):
/// three of them can end after the first pose, so a search of the last three steps would miss
/// it (26 events of 27 over 10 s at these step sizes).
#[test]
fn dopri5_with_short_steps_between_two_flat_poses_finds_both() {
    let scene = scene("modified_2x3");
    for dt in [1.75e-3, 3e-3, 7e-3] {
        let (crossings, events) = crossings_and_events_with(&scene, dopri5_with_dt(&scene, dt));
        matched_one_to_one(dt, &crossings, &events);
    }
}

/// A run that ends right after a flat pose (a twentieth of a step) reports it: no later step
/// comes to put a point after the minimum of `rho` (the 2x2's last crossing is 1e-3 s before
/// t = 10 s at dt 1e-2).
#[test]
fn a_flat_pose_in_the_last_step_of_a_run_is_reported() {
    let scene = scene("modified_2x3");
    let dt = 5e-3;
    let (crossings, _) = crossings_and_events(dt);
    for &crossing in crossings.iter().take(4) {
        let end = crossing + 0.05 * dt;
        let mut sim = scene.simulation_with(with_dt(&scene, dt)).unwrap();
        let mut events = Vec::new();
        while sim.time() < end {
            sim.step_until(end).unwrap();
            events.extend(sim.step_events().iter().map(|e| e.t));
        }
        assert!(
            events
                .iter()
                .any(|&e| abs_diff_eq!(e, crossing, epsilon = MATCH)),
            "run to {end:.6}: flat pose at {crossing:.6} not among {events:?}"
        );
    }
}

/// Leaving the first of the two poses on (along the motion) finds the second one: the state
/// placed a whole step out jumped over it at dt 5e-3, or past the rise of `rho` between them
/// at dt 2e-3, which then made it look like the same excursion.
#[test]
fn leaving_the_first_of_two_close_flat_poses_finds_the_second() {
    let scene = scene("modified_2x3");
    for dt in [2e-3, 5e-3, 1e-2] {
        let mut session = LiveSession::with_settings(scene.clone(), with_dt(&scene, dt)).unwrap();
        session.auto_pause = false;
        session.set_stop_time(Some(3.2));
        session.run_until_paused(10_000_000);
        session.auto_pause = true;
        session.set_stop_time(None);
        session.run_until_paused(10_000_000);
        let first = session.current_event().expect("at the first pose").t;
        let along = session.simulation().velocities().clone();
        session.leave_along(&along, None).unwrap();
        session.run_until_paused(10_000_000);
        let second = session.current_event().expect("at the second pose").t;
        assert!(
            abs_diff_eq!(second - first, 2.6e-3, epsilon = 2e-4),
            "dt {dt:e}: left the pose at {first:.6}, paused next at {second:.6}"
        );
    }
}

/// The app pauses at each of the two: resumed from the first event's state, the run locates
/// the second one, 2.6e-3 s later, again.
#[test]
fn auto_pause_stops_at_both_of_two_close_flat_poses() {
    let scene = scene("modified_2x3");
    for dt in [2e-3, 5e-3] {
        let mut session = LiveSession::with_settings(scene.clone(), with_dt(&scene, dt)).unwrap();
        session.auto_pause = false;
        session.set_stop_time(Some(3.2));
        session.run_until_paused(10_000_000);
        assert_eq!(session.pause_reason(), Some(&PauseReason::TimeReached));
        session.auto_pause = true;
        session.set_stop_time(None);
        let mut paused_at = Vec::new();
        for _ in 0..2 {
            session.run_until_paused(10_000_000);
            assert_eq!(
                session.pause_reason(),
                Some(&PauseReason::Event),
                "dt {dt:e}: paused at {paused_at:?}, then not at an event"
            );
            paused_at.push(session.current_event().expect("at an event").t);
        }
        let (crossings, _) = crossings_and_events(dt);
        let close: Vec<f64> = crossings
            .into_iter()
            .filter(|t| (3.2..3.3).contains(t))
            .collect();
        assert_eq!(close.len(), 2, "dt {dt:e}: flat poses {close:?}");
        assert!(
            abs_diff_eq!(paused_at[..], close[..], epsilon = MATCH),
            "dt {dt:e}: paused at {paused_at:?}, the flat poses are at {close:?}"
        );
    }
}

/// The other side of telling configurations apart: the four-bar launched to come to rest at its
/// flat pose (thesis sect. 5.2.2) lingers there, `rho` rippling at 1e-9 for a few steps, and
/// turns back; each visit is one singular configuration. The visits are the turning points of
/// the crank (its rate changes sign), one every 1.08 s.
#[test]
fn a_four_bar_resting_at_its_flat_pose_is_one_event_per_visit() {
    let scene = crate::common::stopping_four_bar();
    let crank1 = angle_index(&scene, "crank1");
    let mut sim = scene.simulation().unwrap();
    let (mut turns, mut events) = (Vec::new(), Vec::new());
    let mut rate_before = sim.velocities()[crank1];
    while sim.time() < 10.0 {
        sim.step().unwrap();
        events.extend(sim.step_events().iter().map(|e| e.t));
        let rate = sim.velocities()[crank1];
        if rate * rate_before < 0.0 {
            turns.push(sim.time());
        }
        rate_before = rate;
    }
    assert!(turns.len() >= 8, "turning points {turns:?}");
    for &t in &turns {
        let matching = events
            .iter()
            .filter(|&&e| abs_diff_eq!(e, t, epsilon = 0.05))
            .count();
        assert_eq!(
            matching, 1,
            "turning point at t = {t:.4} matched by {matching} events: {events:?}"
        );
    }
    assert_eq!(
        events.len(),
        turns.len(),
        "events {events:?}, turns {turns:?}"
    );
}

/// A pulse whose end is a rounding error short of the run's end (0.7 + 2.5174 s is
/// 3.2173999999999996) does not end the run early: the last row is at t_end and the search
/// that closes a run still finds the flat pose in its last step.
#[test]
fn a_pulse_ending_a_rounding_error_before_the_end_does_not_hide_the_last_pose() {
    let path = crate::common::scene_path("modified_2x3");
    let source = std::fs::read_to_string(&path).unwrap();
    let with_pulse = source.replacen(
        "    solver:",
        "    loads: [Torque(name: \"nudge\", body: \"crank1\", torque: 0.0, start: 0.7, duration: 2.5174)],\n    solver:",
        1,
    );
    let t_end = 3.2174;
    let mut found = Vec::new();
    for text in [&source, &with_pulse] {
        let scene = singulab::scene::parse_scene("2x3.ron", text).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = scene.simulation_with(with_dt(&scene, 2e-3)).unwrap();
        let mut events = Vec::new();
        while sim.time() < t_end - 1e-12 {
            sim.step_until(t_end).unwrap();
            events.extend(sim.step_events().iter().map(|e| e.t));
        }
        assert_eq!(sim.time(), t_end);
        found.push(events);
    }
    assert_eq!(found[0].len(), found[1].len(), "{found:?}");
    assert!(
        found[1]
            .iter()
            .any(|&t| abs_diff_eq!(t, 3.21708, epsilon = MATCH)),
        "the pose at 3.21708 s: {found:?}"
    );
}
