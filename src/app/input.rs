//! Keyboard shortcuts (ignored while egui has keyboard focus), `.ron` files dropped on the
//! window, and automatic reload when the open scene file changes on disk.

use std::time::Duration;

use web_time::Instant;

use bevy::input::ButtonState;
use bevy::input::keyboard::KeyboardInput;
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use super::SingulabSystems;
use super::actions::chosen_action;
use super::commands::{AppCommand, SketchRequest};
use super::drawing::{CanvasCamera, ViewState, shown_motions};
use super::lesson::lesson_playing;
use super::simulation::{Live, modified_time};
use super::window_layout::{WindowLayout, Zoom};
use crate::solver::BasisMode;

/// Keyboard shortcuts turned into [`AppCommand`]s and view changes, while egui does not
/// have the keyboard focus.
pub struct ShortcutsPlugin;

impl Plugin for ShortcutsPlugin {
    fn build(&self, app: &mut App) {
        // F fits the canvas' view: the camera is the drawing's, which a headless app leaves out.
        app.init_resource::<CanvasCamera>()
            .init_resource::<WindowLayout>()
            .add_systems(Update, shortcuts.in_set(SingulabSystems::Input));
    }
}

/// The part of the input that needs no window or egui (so headless tests can drive it): a
/// `.ron` dropped on the window opens it, and a change of the open file on disk reloads it.
pub struct SceneFileInputPlugin;

impl Plugin for SceneFileInputPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<FileDragAndDrop>()
            .init_resource::<ScenePollInterval>()
            .add_systems(
                Update,
                (dropped_files, watch_scene_file).in_set(SingulabSystems::Input),
            );
    }
}

/// How often the open scene file's modification time is read (no watcher thread needed).
/// Twice a second by default; a test sets zero to check on every update.
#[derive(Resource, Clone, Copy, Debug)]
pub struct ScenePollInterval(pub Duration);

impl Default for ScenePollInterval {
    fn default() -> Self {
        Self(Duration::from_millis(500))
    }
}

/// Each key press of the frame, in order: a slow frame can hold several (four quick `]`
/// are four speed steps, not one), and a Ctrl held only between two frames still counts for
/// the key pressed under it. Presses that reach egui (a text field, a menu) are its own.
fn shortcuts(
    mut presses: MessageReader<KeyboardInput>,
    egui_wants: Res<EguiWantsInput>,
    mut held: Local<Modifiers>,
    mut view: ResMut<ViewState>,
    mut camera: ResMut<CanvasCamera>,
    mut window: ResMut<WindowLayout>,
    live: Option<Res<Live>>,
    sketcher: Option<ResMut<crate::app::sketcher::state::Sketcher>>,
    mut writer: MessageWriter<AppCommand>,
) {
    let mut sketcher = sketcher;
    for press in presses.read() {
        let down = press.state == ButtonState::Pressed;
        match press.key_code {
            KeyCode::ControlLeft => held.ctrl_left = down,
            KeyCode::ControlRight => held.ctrl_right = down,
            KeyCode::ShiftLeft => held.shift_left = down,
            KeyCode::ShiftRight => held.shift_right = down,
            key if down && !press.repeat && !egui_wants.wants_any_keyboard_input() => {
                let ctrl = held.ctrl_left || held.ctrl_right;
                let shift = held.shift_left || held.shift_right;
                if let Some(sketcher) = sketcher.as_deref_mut()
                    && let Some(request) = sketch_key(key, ctrl, shift, sketcher)
                {
                    writer.write(AppCommand::Sketch(request));
                    continue;
                }
                // The motions' keys act on the session shown (none without one).
                let command = match (&live, ctrl) {
                    (Some(live), false) => motion_key(key, shift, live, &mut view),
                    _ => None,
                };
                if let Some(command) = command
                    .unwrap_or_else(|| shortcut(key, ctrl, &mut view, &mut camera, &mut window))
                {
                    writer.write(command);
                }
            }
            _ => {}
        }
    }
}

/// The sketcher's keys: Ctrl+N draws a new mechanism, E enters or leaves edit mode; in it Space plays, Ctrl+Z and Ctrl+Y
/// (or Ctrl+Shift+Z) undo and redo, Delete removes the selection, Ctrl+S saves, Escape
/// drops the selection. `None` for the other keys, which keep their meaning.
fn sketch_key(
    key: KeyCode,
    ctrl: bool,
    shift: bool,
    sketcher: &mut crate::app::sketcher::state::Sketcher,
) -> Option<SketchRequest> {
    if key == KeyCode::KeyN && ctrl {
        return Some(SketchRequest::New);
    }
    if !sketcher.active {
        // A drawn mechanism played before it was saved is saved from run mode too.
        return match (key, ctrl) {
            (KeyCode::KeyE, false) => Some(SketchRequest::EditScene),
            (KeyCode::KeyS, true) if sketcher.unsaved => Some(SketchRequest::SaveHere),
            _ => None,
        };
    }
    match (key, ctrl) {
        (KeyCode::KeyE, false) => Some(SketchRequest::Leave),
        (KeyCode::Space, _) => Some(SketchRequest::Play),
        (KeyCode::KeyZ, true) if shift => Some(SketchRequest::Redo),
        (KeyCode::KeyZ, true) => Some(SketchRequest::Undo),
        (KeyCode::KeyY, true) => Some(SketchRequest::Redo),
        (KeyCode::KeyS, true) => Some(SketchRequest::SaveHere),
        (KeyCode::Delete | KeyCode::Backspace, false) => {
            let name = sketcher.selected.take()?;
            Some(SketchRequest::Edit(crate::sketch::SketchCommand::Delete {
                name,
            }))
        }
        (KeyCode::Escape, _) => {
            sketcher.selected = None;
            sketcher.gesture = None;
            None
        }
        _ => None,
    }
}

/// Which Control and Shift keys are down, as the key messages say.
#[derive(Default)]
struct Modifiers {
    ctrl_left: bool,
    ctrl_right: bool,
    shift_left: bool,
    shift_right: bool,
}

/// The keys of the admissible motions (the legend and the panel state them): 1 to 9 draw
/// and choose motion k, 0 draws them all, Enter acts on the chosen one as the panel's
/// button does (Shift: the other way), H hides or shows it. `None` for another key;
/// `Some(command)` for one of these, with the command it gives, if any.
pub fn motion_key(
    key: KeyCode,
    shift: bool,
    live: &Live,
    view: &mut ViewState,
) -> Option<Option<AppCommand>> {
    let digit = match key {
        KeyCode::Digit0 | KeyCode::Numpad0 => Some(0),
        KeyCode::Digit1 | KeyCode::Numpad1 => Some(1),
        KeyCode::Digit2 | KeyCode::Numpad2 => Some(2),
        KeyCode::Digit3 | KeyCode::Numpad3 => Some(3),
        KeyCode::Digit4 | KeyCode::Numpad4 => Some(4),
        KeyCode::Digit5 | KeyCode::Numpad5 => Some(5),
        KeyCode::Digit6 | KeyCode::Numpad6 => Some(6),
        KeyCode::Digit7 | KeyCode::Numpad7 => Some(7),
        KeyCode::Digit8 | KeyCode::Numpad8 => Some(8),
        KeyCode::Digit9 | KeyCode::Numpad9 => Some(9),
        _ => None,
    };
    let shown = shown_motions(live, view, view.basis);
    // Looking at a motion while a lesson plays holds the lesson.
    let looked = lesson_playing(live).then_some(AppCommand::HoldLesson);
    match (key, digit) {
        (_, Some(0)) => view.all_motions = true,
        (_, Some(k)) => {
            if k <= shown.len() {
                view.push.motion = k - 1;
                view.all_motions = false;
            }
        }
        (KeyCode::Enter | KeyCode::NumpadEnter, _) => {
            return Some(chosen_action(live, &view.push, &shown, shift));
        }
        (KeyCode::KeyH, _) => {
            if let Some(motion) = shown.get(view.push.motion) {
                let was_shown = view.motion_shown(motion);
                view.set_motion_shown(motion, !was_shown);
            }
        }
        _ => return None,
    }
    Some(looked)
}

/// What pressing `key` (with Ctrl down or not) does: a command, or a change of the view.
pub fn shortcut(
    key: KeyCode,
    ctrl: bool,
    view: &mut ViewState,
    camera: &mut CanvasCamera,
    window: &mut WindowLayout,
) -> Option<AppCommand> {
    match (key, ctrl) {
        (KeyCode::Space, _) => Some(AppCommand::TogglePlay),
        (KeyCode::Period, _) => Some(AppCommand::SingleStep),
        (KeyCode::KeyR, false) => Some(AppCommand::Reset),
        // Ctrl + / Ctrl - are egui's interface size, not the speed.
        (KeyCode::BracketRight | KeyCode::Equal, false) => Some(AppCommand::ChangeSpeed(1)),
        (KeyCode::BracketLeft | KeyCode::Minus, false) => Some(AppCommand::ChangeSpeed(-1)),
        (KeyCode::KeyO, true) => Some(AppCommand::OpenDialog),
        (KeyCode::KeyZ, true) => Some(AppCommand::Undo),
        (KeyCode::F5, _) => Some(AppCommand::ReloadScene),
        (KeyCode::F12, _) => Some(AppCommand::SaveScreenshot),
        (KeyCode::KeyR, true) => Some(AppCommand::ToggleRecording),
        (KeyCode::KeyP, false) => Some(AppCommand::TogglePresentation),
        _ => {
            toggle_view(key, ctrl, view, camera, window);
            None
        }
    }
}

fn toggle_view(
    key: KeyCode,
    ctrl: bool,
    view: &mut ViewState,
    camera: &mut CanvasCamera,
    window: &mut WindowLayout,
) {
    match (key, ctrl) {
        (KeyCode::KeyB, _) => {
            view.basis = match view.basis {
                BasisMode::Continued => BasisMode::Traditional,
                BasisMode::Traditional => BasisMode::Continued,
            }
        }
        (KeyCode::KeyC, false) => view.side_by_side = !view.side_by_side,
        (KeyCode::KeyM, _) => view.show_motions = !view.show_motions,
        (KeyCode::KeyL, _) => view.light = !view.light,
        (KeyCode::KeyA, false) => view.show_body_axes = !view.show_body_axes,
        (KeyCode::KeyJ, _) => view.show_reactions = !view.show_reactions,
        (KeyCode::KeyG, _) => view.atlas_beside = !view.atlas_beside,
        (KeyCode::KeyF, _) => camera.refit(),
        (KeyCode::Equal | KeyCode::NumpadAdd, true) => window.pending_zoom = Some(Zoom::In),
        (KeyCode::Minus | KeyCode::NumpadSubtract, true) => window.pending_zoom = Some(Zoom::Out),
        (KeyCode::Digit0 | KeyCode::Numpad0, true) => window.pending_zoom = Some(Zoom::Reset),
        _ => {}
    }
}

fn dropped_files(mut drops: MessageReader<FileDragAndDrop>, mut writer: MessageWriter<AppCommand>) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            writer.write(AppCommand::OpenScene(path_buf.clone()));
        }
    }
}

/// Reads the scene file's modification time every [`ScenePollInterval`]; a change reloads it.
fn watch_scene_file(
    live: Res<Live>,
    interval: Res<ScenePollInterval>,
    mut last_check: Local<Option<Instant>>,
    mut writer: MessageWriter<AppCommand>,
) {
    if last_check.is_some_and(|t| t.elapsed() < interval.0) {
        return;
    }
    *last_check = Some(Instant::now());
    let now = modified_time(&live.path);
    if now.is_some() && now != live.modified {
        writer.write(AppCommand::ReloadScene);
    }
}

/// The interface sizes Ctrl + and Ctrl - step through: steps of a fifth or more, so a few
/// presses reach a projector's size (egui's own steps are about 7 %).
pub const ZOOM_LADDER: [f32; 11] = [0.5, 0.6, 0.75, 1.0, 1.25, 1.5, 1.8, 2.2, 2.7, 3.3, 4.0];

/// The interface size after a Ctrl +, Ctrl - or Ctrl 0 at size `current`: the next size of
/// [`ZOOM_LADDER`] up or down (a size between two, as `--ui-scale` may give, goes to the nearer
/// one in that direction), or 1.
pub fn zoomed(current: f32, zoom: Zoom) -> f32 {
    let tolerance = 1e-3;
    match zoom {
        Zoom::In => ZOOM_LADDER
            .into_iter()
            .find(|&z| z > current + tolerance)
            .unwrap_or(current),
        Zoom::Out => ZOOM_LADDER
            .into_iter()
            .rev()
            .find(|&z| z < current - tolerance)
            .unwrap_or(current),
        Zoom::Reset => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::Way;
    use crate::lesson::choices::leave_direction;
    use crate::live::LiveSession;
    use crate::scene::load_scene;

    /// A02 paused at its first flat pose: T1 continued, new 1, new 2, branch 1, branch 2.
    fn a02_at_first_event() -> Live {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/double_four_bar.ron");
        let mut session = LiveSession::new(load_scene(&path).unwrap()).unwrap();
        session.run_until_paused(100_000);
        assert!(session.current_event().is_some());
        Live::new(session, path)
    }

    fn drawn(live: &Live, view: &ViewState) -> Vec<String> {
        shown_motions(live, view, view.basis)
            .iter()
            .enumerate()
            .filter(|(k, m)| view.motion_drawn(*k, m, true))
            .map(|(_, m)| m.label.clone())
            .collect()
    }

    #[test]
    fn keys_choose_draw_and_hide_the_motions_and_the_choice_holds_across_events_and_halves() {
        let mut live = a02_at_first_event();
        let mut view = ViewState::default();
        // One motion drawn at a flat pose by default, the first; 2 draws new 1, 0 all.
        assert_eq!(drawn(&live, &view), ["T1 continued"]);
        assert!(matches!(
            motion_key(KeyCode::Digit2, false, &live, &mut view),
            Some(None)
        ));
        assert_eq!(drawn(&live, &view), ["new 1"]);
        motion_key(KeyCode::Digit0, false, &live, &mut view);
        assert_eq!(drawn(&live, &view).len(), 5);
        // H hides the chosen motion (new 1); branch 2 hidden from its row's box.
        motion_key(KeyCode::KeyH, false, &live, &mut view);
        let shown = shown_motions(&live, &view, view.basis);
        view.set_motion_shown(&shown[4], false);
        assert_eq!(drawn(&live, &view), ["T1 continued", "new 2", "branch 1"]);
        // The traditional half lists T1, T2, T3 and the same branches: branch 2 hidden there.
        view.basis = BasisMode::Traditional;
        assert_eq!(drawn(&live, &view), ["T1", "T2", "T3", "branch 1"]);
        view.basis = BasisMode::Continued;
        // At the next event (the continuation's next flat pose) the choices still hold.
        live.session.play();
        live.session.run_until_paused(100_000);
        assert!(live.session.time() > 1.0, "t {}", live.session.time());
        let labels: Vec<String> = shown_motions(&live, &view, view.basis)
            .iter()
            .map(|m| m.label.clone())
            .collect();
        assert!(labels.contains(&"new 1".to_owned()), "{labels:?}");
        assert!(!drawn(&live, &view).contains(&"new 1".to_owned()));
        // H again shows new 1 (still the chosen motion).
        motion_key(KeyCode::Digit2, false, &live, &mut view);
        motion_key(KeyCode::KeyH, false, &live, &mut view);
        assert_eq!(drawn(&live, &view), ["new 1"]);
    }

    #[test]
    fn a_choice_the_next_scene_does_not_list_falls_back_to_a_listed_motion() {
        // A02's branch 2 (key 5) chosen, then four_bar_stopping opened: at its flat pose it
        // lists three motions, and the one drawn is the first, the motion it had.
        let a02 = a02_at_first_event();
        let mut view = ViewState::default();
        view.settle_motion_choice(a02.generation, Some(5));
        motion_key(KeyCode::Digit5, false, &a02, &mut view);
        assert_eq!(drawn(&a02, &view), ["branch 2"]);
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/four_bar_stopping.ron");
        let mut session = LiveSession::new(load_scene(&path).unwrap()).unwrap();
        session.run_until_paused(100_000);
        let mut stopping = Live::new(session, path);
        stopping.generation = a02.generation + 1;
        let listed = shown_motions(&stopping, &view, view.basis).len();
        assert_eq!(listed, 3);
        view.settle_motion_choice(stopping.generation, Some(listed));
        assert_eq!(drawn(&stopping, &view), ["T1 continued"]);
        // On the same scene a choice past a shorter list draws the last listed.
        view.push.motion = 7;
        view.settle_motion_choice(stopping.generation, Some(listed));
        assert_eq!(drawn(&stopping, &view), ["branch 1"]);
    }

    #[test]
    fn enter_acts_on_the_chosen_motion_and_shift_enter_the_other_way() {
        let live = a02_at_first_event();
        let mut view = ViewState::default();
        let shown = shown_motions(&live, &view, view.basis);
        motion_key(KeyCode::Digit2, false, &live, &mut view);
        for (shift, sign) in [(false, 1.0), (true, -1.0)] {
            match motion_key(KeyCode::Enter, shift, &live, &mut view) {
                Some(Some(AppCommand::Push { column, delta, .. })) => {
                    assert_eq!(column, shown[1].column);
                    assert_eq!(delta, sign * view.push.delta);
                }
                other => panic!("Enter (shift {shift}) on new 1: {other:?}"),
            }
        }
        // On branch 1: leave on, the way its arrows are drawn, and back.
        motion_key(KeyCode::Digit4, false, &live, &mut view);
        for (shift, way) in [(false, Way::Forward), (true, Way::Back)] {
            match motion_key(KeyCode::NumpadEnter, shift, &live, &mut view) {
                Some(Some(AppCommand::Leave {
                    direction,
                    speed: None,
                    ..
                })) => {
                    assert_eq!(Some(direction), leave_direction(&live.session, 1, way));
                }
                other => panic!("Enter (shift {shift}) on branch 1: {other:?}"),
            }
        }
    }

    #[test]
    fn ctrl_plus_minus_zero_size_the_interface_and_leave_the_speed() {
        let mut view = ViewState::default();
        let (mut camera, mut window) = (CanvasCamera::default(), WindowLayout::default());
        for (key, zoom) in [
            (KeyCode::Equal, Zoom::In),
            (KeyCode::NumpadAdd, Zoom::In),
            (KeyCode::Minus, Zoom::Out),
            (KeyCode::Digit0, Zoom::Reset),
        ] {
            window.pending_zoom = None;
            assert!(
                shortcut(key, true, &mut view, &mut camera, &mut window).is_none(),
                "{key:?}"
            );
            assert_eq!(window.pending_zoom, Some(zoom), "{key:?}");
        }
        // Without Ctrl, = and - change the speed.
        window.pending_zoom = None;
        assert!(matches!(
            shortcut(KeyCode::Equal, false, &mut view, &mut camera, &mut window),
            Some(AppCommand::ChangeSpeed(1))
        ));
        assert_eq!(window.pending_zoom, None);
    }

    #[test]
    fn ctrl_plus_steps_by_a_fifth_or_more_and_back() {
        let mut size = 1.0;
        let mut sizes = vec![size];
        for _ in 0..4 {
            size = zoomed(size, Zoom::In);
            sizes.push(size);
        }
        for pair in sizes.windows(2) {
            assert!(pair[1] >= 1.2 * pair[0] - 1e-4, "{sizes:?}");
        }
        // Four presses make the type at least twice as large (a projector).
        assert!(size >= 2.0, "{sizes:?}");
        for _ in 0..4 {
            size = zoomed(size, Zoom::Out);
        }
        assert_eq!(size, 1.0);
        // From a size off the ladder, one press in each direction moves.
        assert_eq!(zoomed(1.1, Zoom::In), 1.25);
        assert_eq!(zoomed(1.1, Zoom::Out), 1.0);
        assert_eq!(zoomed(4.0, Zoom::In), 4.0);
        assert_eq!(zoomed(2.7, Zoom::Reset), 1.0);
    }
}
