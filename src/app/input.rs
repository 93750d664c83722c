//! Keyboard shortcuts (ignored while egui has keyboard focus), `.ron` files dropped on the
//! window, and automatic reload when the open scene file changes on disk.

use std::time::{Duration, Instant};

use bevy::input::ButtonState;
use bevy::input::keyboard::KeyboardInput;
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use super::SingulabSystems;
use super::commands::AppCommand;
use super::drawing::{ViewState, Zoom};
use super::simulation::{Live, modified_time};
use crate::solver::BasisMode;

/// Keyboard shortcuts turned into [`AppCommand`]s and view changes, while egui does not
/// have the keyboard focus.
pub struct ShortcutsPlugin;

impl Plugin for ShortcutsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, shortcuts.in_set(SingulabSystems::Input));
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
    mut ctrl: Local<ControlKeys>,
    mut view: ResMut<ViewState>,
    mut writer: MessageWriter<AppCommand>,
) {
    for press in presses.read() {
        let down = press.state == ButtonState::Pressed;
        match press.key_code {
            KeyCode::ControlLeft => ctrl.left = down,
            KeyCode::ControlRight => ctrl.right = down,
            key if down && !press.repeat && !egui_wants.wants_any_keyboard_input() => {
                if let Some(command) = shortcut(key, ctrl.left || ctrl.right, &mut view) {
                    writer.write(command);
                }
            }
            _ => {}
        }
    }
}

/// Which Control keys are down, as the key messages say.
#[derive(Default)]
struct ControlKeys {
    left: bool,
    right: bool,
}

/// What pressing `key` (with Ctrl down or not) does: a command, or a change of the view.
pub fn shortcut(key: KeyCode, ctrl: bool, view: &mut ViewState) -> Option<AppCommand> {
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
            toggle_view(key, ctrl, view);
            None
        }
    }
}

fn toggle_view(key: KeyCode, ctrl: bool, view: &mut ViewState) {
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
        (KeyCode::KeyF, _) => view.refit(),
        (KeyCode::Equal | KeyCode::NumpadAdd, true) => view.pending_zoom = Some(Zoom::In),
        (KeyCode::Minus | KeyCode::NumpadSubtract, true) => view.pending_zoom = Some(Zoom::Out),
        (KeyCode::Digit0 | KeyCode::Numpad0, true) => view.pending_zoom = Some(Zoom::Reset),
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

    #[test]
    fn ctrl_plus_minus_zero_size_the_interface_and_leave_the_speed() {
        let mut view = ViewState::default();
        for (key, zoom) in [
            (KeyCode::Equal, Zoom::In),
            (KeyCode::NumpadAdd, Zoom::In),
            (KeyCode::Minus, Zoom::Out),
            (KeyCode::Digit0, Zoom::Reset),
        ] {
            view.pending_zoom = None;
            assert!(shortcut(key, true, &mut view).is_none(), "{key:?}");
            assert_eq!(view.pending_zoom, Some(zoom), "{key:?}");
        }
        // Without Ctrl, = and - change the speed.
        view.pending_zoom = None;
        assert!(matches!(
            shortcut(KeyCode::Equal, false, &mut view),
            Some(AppCommand::ChangeSpeed(1))
        ));
        assert_eq!(view.pending_zoom, None);
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
