//! The window's run of a scene pauses at the scene's `t_end` (where `run` and `record` end),
//! Space runs on past it, and R starts a run that pauses there again.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use singulab::app::{AppCommand, FrameBudget, Live, SimulationPlugin};
use singulab::live::{LiveSession, PauseReason};
use singulab::scene::load_scene;

use super::scene_path;

/// Plays (Space again at each singular event) until the session pauses otherwise.
fn play_to_a_stop(app: &mut App) -> Option<PauseReason> {
    app.world_mut().write_message(AppCommand::TogglePlay);
    for _ in 0..2_000 {
        app.update();
        let session = &app.world().resource::<Live>().session;
        match session.pause_reason() {
            Some(PauseReason::Event) => {
                app.world_mut().write_message(AppCommand::TogglePlay);
            }
            Some(other) => return Some(other.clone()),
            None => {}
        }
    }
    None
}

fn time(app: &App) -> f64 {
    app.world().resource::<Live>().session.time()
}

#[test]
fn a_scene_opened_in_the_window_pauses_at_its_end_and_space_runs_on() {
    let placeholder = scene_path("double_four_bar");
    let session = LiveSession::new(load_scene(&placeholder).unwrap()).unwrap();
    let mut live = Live::new(session, placeholder);
    // The four-bar's scene ends at t_end = 2.0 s (scenes/four_bar.ron).
    assert!(live.load(&scene_path("four_bar")));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(live)
        .add_plugins(SimulationPlugin)
        .insert_resource(FrameBudget::new(Duration::from_secs(60)))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.update();

    assert_eq!(play_to_a_stop(&mut app), Some(PauseReason::TimeReached));
    assert_eq!(time(&app), 2.0, "paused at the scene's end");

    app.world_mut().write_message(AppCommand::TogglePlay);
    for _ in 0..30 {
        app.update();
    }
    let session = &app.world().resource::<Live>().session;
    assert!(!session.is_paused(), "Space runs on past the end");
    assert!(time(&app) > 2.2, "t = {}", time(&app));

    app.world_mut().write_message(AppCommand::Reset);
    app.update();
    assert!(time(&app) < 0.1, "R starts again: t = {}", time(&app));
    assert_eq!(play_to_a_stop(&mut app), Some(PauseReason::TimeReached));
    assert_eq!(time(&app), 2.0, "the new run pauses at the end again");
}
