//! Keyboard shortcuts (ignored while egui has keyboard focus), `.ron` files dropped on the
//! window, and automatic reload when the open scene file changes on disk.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;

use super::SingulabSystems;
use super::commands::AppCommand;
use super::drawing::ViewState;
use super::simulation::{Live, modified_time};
use crate::solver::BasisMode;

/// Keyboard shortcuts turned into [`AppCommand`]s and view changes, while egui does not
/// have the keyboard focus.
pub struct ShortcutsPlugin;

impl Plugin for ShortcutsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            shortcuts
                .run_if(not(egui_wants_any_keyboard_input))
                .in_set(SingulabSystems::Input),
        );
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

fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    mut view: ResMut<ViewState>,
    mut writer: MessageWriter<AppCommand>,
) {
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    let pressed = |k: KeyCode| keys.just_pressed(k);
    if pressed(KeyCode::Space) {
        writer.write(AppCommand::TogglePlay);
    }
    if pressed(KeyCode::Period) {
        writer.write(AppCommand::SingleStep);
    }
    if pressed(KeyCode::KeyR) && !ctrl {
        writer.write(AppCommand::Reset);
    }
    // Ctrl + / Ctrl - are egui's interface size, not the speed.
    if !ctrl && (pressed(KeyCode::BracketRight) || pressed(KeyCode::Equal)) {
        writer.write(AppCommand::ChangeSpeed(1));
    }
    if !ctrl && (pressed(KeyCode::BracketLeft) || pressed(KeyCode::Minus)) {
        writer.write(AppCommand::ChangeSpeed(-1));
    }
    if pressed(KeyCode::KeyB) {
        view.basis = match view.basis {
            BasisMode::Continued => BasisMode::Traditional,
            BasisMode::Traditional => BasisMode::Continued,
        };
    }
    if pressed(KeyCode::KeyC) && !ctrl {
        view.side_by_side = !view.side_by_side;
    }
    if pressed(KeyCode::KeyM) {
        view.show_motions = !view.show_motions;
    }
    if pressed(KeyCode::KeyL) {
        view.light = !view.light;
    }
    if pressed(KeyCode::KeyA) && !ctrl {
        view.show_body_axes = !view.show_body_axes;
    }
    if pressed(KeyCode::KeyJ) {
        view.show_reactions = !view.show_reactions;
    }
    if pressed(KeyCode::KeyF) {
        view.refit();
    }
    if pressed(KeyCode::KeyO) && ctrl {
        writer.write(AppCommand::OpenDialog);
    }
    if pressed(KeyCode::F5) {
        writer.write(AppCommand::ReloadScene);
    }
    if pressed(KeyCode::F12) {
        writer.write(AppCommand::SaveScreenshot);
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
