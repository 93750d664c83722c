//! Headless Bevy tests of the simulation plugin: `MinimalPlugins` and no window. The app's
//! fixed-timestep stepping must give exactly the state of the solver stepped directly, and
//! the solver's events must arrive as Bevy messages.

use std::path::PathBuf;
use std::time::Duration;

use approx::abs_diff_eq;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use singulab::app::{FrameBudget, Live, SimulationPlugin, SingularityReached};
use singulab::live::{LiveSession, PauseReason};
use singulab::scene::{Scene, load_scene};

mod matrix;
mod recording;
mod scene_end;
mod scene_files;

fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.ron"))
}

fn headless_app(scene: &Scene, path: PathBuf) -> App {
    let mut session = LiveSession::new(scene.clone()).unwrap();
    session.play();
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(Live::new(session, path))
        .add_plugins(SimulationPlugin)
        // A generous budget so a slow test machine never drops simulated time.
        .insert_resource(FrameBudget::new(Duration::from_secs(60)))
        // Each update runs exactly one 1/60 s fixed step.
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app
}

#[derive(Resource, Default)]
struct Reached(Vec<SingularityReached>);

fn collect(mut reader: MessageReader<SingularityReached>, mut reached: ResMut<Reached>) {
    reached.0.extend(reader.read().cloned());
}

#[test]
fn fixed_updates_step_the_session_like_the_solver() {
    let path = scene_path("four_bar");
    let scene = load_scene(&path).unwrap();
    let mut app = headless_app(&scene, path);
    app.world_mut().resource_mut::<Live>().session.auto_pause = false;
    // The first update only starts the clock; then 60 fixed steps of 1/60 s at 1x.
    for _ in 0..61 {
        app.update();
    }
    let live = app.world().resource::<Live>();
    let session = &live.session;
    let steps = session.steps_total();
    let dt = scene.settings.dt;
    assert!(
        abs_diff_eq!(session.time(), 1.0, epsilon = dt + 1e-9),
        "one second of fixed updates at 1x reached t = {}",
        session.time()
    );
    let mut direct = scene.simulation().unwrap();
    for _ in 0..steps {
        direct.step().unwrap();
    }
    assert_eq!(session.time(), direct.time());
    assert_eq!(session.simulation().positions(), direct.positions());
    assert_eq!(session.simulation().velocities(), direct.velocities());
}

#[test]
fn the_first_singular_event_pauses_and_arrives_as_a_message() {
    let path = scene_path("double_four_bar");
    let scene = load_scene(&path).unwrap();
    let mut app = headless_app(&scene, path);
    app.init_resource::<Reached>().add_systems(Update, collect);
    for _ in 0..600 {
        app.update();
        if app.world().resource::<Live>().session.is_paused() {
            break;
        }
    }
    app.update();
    let live = app.world().resource::<Live>();
    assert_eq!(live.session.pause_reason(), Some(&PauseReason::Event));
    let event = live.session.current_event().unwrap();
    let reached = &app.world().resource::<Reached>().0;
    assert_eq!(reached.len(), 1, "one message per event");
    assert_eq!(reached[0].t, event.t);
    // Masarati et al. 2023, sect. 3.2: deficiency 2, three admissible motions at the flat pose.
    assert_eq!(reached[0].deficiency, 2);
    assert_eq!(reached[0].motions, 3);
    // Paused: further frames do not move the state.
    let t = live.session.time();
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(app.world().resource::<Live>().session.time(), t);
}

/// A class and a video see no panel: a push and a leave at A02's first event leave a line
/// naming the motion, the velocity given and the instant, for the banner to show presenting
/// and recording (`banners::banner`).
#[test]
fn a_push_and_a_leave_say_what_was_done() {
    use singulab::app::AppCommand;
    let path = scene_path("double_four_bar");
    let scene = load_scene(&path).unwrap();
    let mut app = headless_app(&scene, path);
    app.world_mut()
        .resource_mut::<Live>()
        .session
        .run_until_paused(100_000);
    let column = {
        let live = app.world().resource::<Live>();
        let event = live
            .session
            .current_event()
            .expect("A02 pauses at its first flat pose");
        event.continued().column(0).into_owned()
    };
    app.world_mut().write_message(AppCommand::Leave {
        label: "branch 2".into(),
        direction: column.clone(),
        speed: Some(0.5),
    });
    app.update();
    let said = action_said(&app, "a leave");
    assert!(
        said.text
            .starts_with("Left along branch 2 at speed 0.50 (from rest) at t = "),
        "{}",
        said.text
    );
    let t = app.world().resource::<Live>().session.time();
    app.world_mut().write_message(AppCommand::Push {
        label: "T1 continued".into(),
        column,
        delta: 1.0,
        duration: 0.05,
        note: None,
    });
    app.update();
    let said = action_said(&app, "a push");
    let at: f64 = said
        .text
        .strip_prefix("Pushed along T1 continued: Δv +1.00 over 0.05 s, at t = ")
        .and_then(|rest| rest.strip_suffix(" s."))
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{}", said.text));
    // The frame's steps come before its commands: the push is at most one frame (in whole
    // steps) later.
    let frame = 1.0 / 60.0 + scene.settings.dt;
    assert!(at >= t && at <= t + frame, "{at} after {t}");
}

/// The line the viewers' banner names the last action with (`Live::action`).
fn action_said(app: &App, what: &str) -> singulab::app::Notice {
    app.world()
        .resource::<Live>()
        .action
        .clone()
        .unwrap_or_else(|| panic!("{what} is not named"))
}

#[derive(Resource, Default)]
struct Commands(Vec<singulab::app::AppCommand>);

fn collect_commands(
    mut reader: MessageReader<singulab::app::AppCommand>,
    mut commands: ResMut<Commands>,
) {
    commands.0.extend(reader.read().cloned());
}

fn key(key_code: KeyCode, state: bevy::input::ButtonState) -> bevy::input::keyboard::KeyboardInput {
    bevy::input::keyboard::KeyboardInput {
        key_code,
        logical_key: bevy::input::keyboard::Key::Unidentified(
            bevy::input::keyboard::NativeKey::Unidentified,
        ),
        state,
        text: None,
        repeat: false,
        window: Entity::PLACEHOLDER,
    }
}

/// An app without a window that reads key presses: `MinimalPlugins`, the key and command
/// messages, egui's wish for the keyboard (none) and the view.
fn keys_app() -> App {
    use singulab::app::{AppCommand, ViewState};
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_message::<bevy::input::keyboard::KeyboardInput>()
        .add_message::<AppCommand>()
        .init_resource::<bevy_egui::input::EguiWantsInput>()
        .insert_resource(ViewState::default());
    app
}

/// A slow frame (the software renderer draws one every 100-350 ms) receives several key
/// presses at once: each counts, and a Ctrl pressed and released within the frame still
/// modifies the key pressed under it.
#[test]
fn every_key_press_of_a_slow_frame_counts() {
    use bevy::input::ButtonState::{Pressed, Released};
    use singulab::app::ShortcutsPlugin;
    let mut app = keys_app();
    app.init_resource::<Commands>()
        .add_plugins(ShortcutsPlugin)
        .add_systems(PostUpdate, collect_commands);
    let presses = [
        key(KeyCode::BracketRight, Pressed),
        key(KeyCode::BracketRight, Released),
        key(KeyCode::BracketRight, Pressed),
        key(KeyCode::BracketRight, Released),
        key(KeyCode::BracketRight, Pressed),
        key(KeyCode::BracketRight, Released),
        key(KeyCode::BracketRight, Pressed),
        key(KeyCode::BracketRight, Released),
        key(KeyCode::ControlLeft, Pressed),
        key(KeyCode::KeyO, Pressed),
        key(KeyCode::KeyO, Released),
        key(KeyCode::ControlLeft, Released),
        key(KeyCode::KeyR, Pressed),
    ];
    for press in presses {
        app.world_mut().write_message(press);
    }
    app.update();
    let commands: Vec<String> = app
        .world()
        .resource::<Commands>()
        .0
        .iter()
        .map(|c| format!("{c:?}"))
        .collect();
    assert_eq!(
        commands,
        [
            "ChangeSpeed(1)",
            "ChangeSpeed(1)",
            "ChangeSpeed(1)",
            "ChangeSpeed(1)",
            "OpenDialog",
            "Reset"
        ]
    );
}

/// The README's A02 lesson opened as the window opens it, playing, with the keys' plugin.
fn a02_lesson_app() -> App {
    use singulab::app::{AppCommand, ShortcutsPlugin};
    let placeholder = scene_path("four_bar");
    let session = LiveSession::new(load_scene(&placeholder).unwrap()).unwrap();
    let mut live = Live::new(session, placeholder);
    let lesson = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/lessons/a02_branches.ron");
    assert!(live.load(&lesson));
    let mut app = keys_app();
    app.insert_resource(live)
        .add_plugins((SimulationPlugin, ShortcutsPlugin))
        .insert_resource(FrameBudget::new(Duration::from_secs(60)))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().write_message(AppCommand::TogglePlay);
    app
}

fn press(app: &mut App, key_code: KeyCode) {
    use bevy::input::ButtonState::{Pressed, Released};
    app.world_mut().write_message(key(key_code, Pressed));
    app.world_mut().write_message(key(key_code, Released));
    app.update();
}

/// Updates (1/60 s of wall clock each) until `done`, at most `frames`.
fn update_until(app: &mut App, frames: usize, done: impl Fn(&Live) -> bool) {
    for _ in 0..frames {
        app.update();
        if done(app.world().resource::<Live>()) {
            return;
        }
    }
    panic!("not reached in {frames} frames");
}

/// At the A02 lesson's first event, where it waits for its caption to be read, a student
/// presses 5 (branch 2) to look at it: the lesson holds instead of leaving on branch 1 by
/// itself, and Enter then leaves on branch 2, the user's, the lesson stopped.
#[test]
fn a_motions_key_holds_a_lesson_and_enter_takes_over() {
    let mut app = a02_lesson_app();
    update_until(&mut app, 2_000, |live| {
        live.session.current_event().is_some()
    });
    let at_event = app.world().resource::<Live>().session.time();
    press(&mut app, KeyCode::Digit5);
    // Ten seconds of wall clock: twice the caption's five before the lesson's leave.
    for _ in 0..600 {
        app.update();
    }
    let live = app.world().resource::<Live>();
    assert_eq!(live.session.time(), at_event, "the lesson held");
    assert!(live.lesson.as_ref().is_some_and(|run| !run.running));
    assert!(
        live.notice
            .as_ref()
            .is_some_and(|n| n.text.contains("holds")),
        "{:?}",
        live.notice.as_ref().map(|n| &n.text)
    );
    press(&mut app, KeyCode::Enter);
    let live = app.world().resource::<Live>();
    assert!(live.lesson.is_none(), "Enter took over");
    let said = live
        .action
        .as_ref()
        .map(|a| a.text.clone())
        .unwrap_or_default();
    assert!(said.starts_with("Left along branch 2"), "{said}");
}

/// The lesson leaves on branch 1 and asks the session to stop 1 s later (to go back to its
/// first event); a user's push after the leave takes over, and the run then goes on through
/// that instant (pausing only at singular events) instead of stopping "as requested".
#[test]
fn a_lesson_taken_over_leaves_no_stop_of_its_own() {
    use singulab::app::AppCommand;
    let mut app = a02_lesson_app();
    update_until(&mut app, 5_000, |live| {
        live.session.time() > 0.8 && !live.session.is_paused()
    });
    let column = {
        let velocities = app
            .world()
            .resource::<Live>()
            .session
            .simulation()
            .velocities()
            .clone();
        velocities.normalize()
    };
    app.world_mut().write_message(AppCommand::Push {
        label: "T1".into(),
        column,
        delta: 0.1,
        duration: 0.05,
        note: None,
    });
    app.update();
    assert!(
        app.world().resource::<Live>().lesson.is_none(),
        "the push took over"
    );
    let lessons_stop = 0.7144 + 1.0;
    for _ in 0..20_000 {
        app.update();
        let live = app.world().resource::<Live>();
        assert_ne!(
            live.session.pause_reason(),
            Some(&PauseReason::TimeReached),
            "stopped at t = {}",
            live.session.time()
        );
        if live.session.time() > lessons_stop + 0.2 {
            return;
        }
        if live.session.is_paused() {
            app.world_mut().write_message(AppCommand::TogglePlay);
        }
    }
    panic!("the run did not pass t = {lessons_stop}");
}

/// A video shows the run jump back when the user goes to an event: the banner says so
/// (`banners::banner` shows `Live::action` to viewers).
#[test]
fn going_back_to_an_event_is_said() {
    use singulab::app::AppCommand;
    let path = scene_path("double_four_bar");
    let scene = load_scene(&path).unwrap();
    let mut app = headless_app(&scene, path);
    let event_t = {
        let mut live = app.world_mut().resource_mut::<Live>();
        live.session.run_until_paused(100_000);
        let t = live.session.time();
        live.session.play();
        t
    };
    for _ in 0..30 {
        app.update();
    }
    let from = app.world().resource::<Live>().session.time();
    assert!(from > event_t, "the run went on");
    app.world_mut().write_message(AppCommand::GotoEvent(0));
    app.update();
    let said = action_said(&app, "the jump");
    // The frame's steps come before its commands: the jump is from at most a frame later.
    let jumped_from: f64 = said
        .text
        .strip_prefix(&format!(
            "Back to the singular event at t = {event_t:.4} s (from t = "
        ))
        .and_then(|rest| rest.strip_suffix(" s)."))
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{}", said.text));
    assert!(
        jumped_from >= from && jumped_from <= from + 0.02,
        "{jumped_from} after {from}"
    );
}
