//! The recorder in a headless app (no window, so no picture arrives): while it captures, the
//! wall clock does not step the session, and each update advances it to the frame's instant,
//! k * speed / fps (README, `singulab record`), however much wall time the update took.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use singulab::app::{CaptureMode, Live, RecordPlugin, Recorder, SimulationPlugin};
use singulab::live::LiveSession;
use singulab::live::recording::{OutputKind, RecordPlan};
use singulab::scene::load_scene;

use super::scene_path;

#[test]
fn each_update_of_a_recording_advances_a_fixed_simulated_time() {
    let path = scene_path("double_four_bar");
    let session = LiveSession::new(load_scene(&path).unwrap()).unwrap();
    let out = std::env::temp_dir().join(format!("singulab-app-record-{}", std::process::id()));
    let plan = RecordPlan {
        out,
        kind: OutputKind::PngFolder,
        fps: 50,
        speed: 0.5,
        t_end: Some(2.0),
    };
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(Live::new(session, path))
        .add_plugins(SimulationPlugin)
        .insert_resource(CaptureMode::default().recording())
        .insert_resource(Recorder::for_command_line(plan))
        .add_plugins(RecordPlugin)
        // Half a second of wall time per update: 30 fixed steps of 1/60 s if the wall clock
        // stepped the session.
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            500,
        )));
    // Five updates let the window settle (`SETTLE_FRAMES`), the sixth draws frame 0.
    for _ in 0..6 {
        app.update();
    }
    assert_eq!(app.world().resource::<Live>().session.time(), 0.0);
    for k in 1..=10 {
        app.update();
        let session = &app.world().resource::<Live>().session;
        // Frame k of 50 fps at half speed: k / 100 s, at any interpolation fraction.
        assert_eq!(session.display_time(0.5), k as f64 / 100.0, "frame {k}");
        assert!(!session.is_paused());
    }
    let next = app.world().resource::<Recorder>().next_frame().unwrap();
    assert_eq!((next.frame, next.t), (11, 0.11));
}
