//! Presentation mode, for a projector and for recordings (key P, `--presentation`): the side
//! panels, the menu and transport bar and the status line are left out, the type is
//! [`LARGE_TYPE`] times larger, the brief notices are not shown (the banner over the canvas,
//! which says what the mechanism is doing, stays), the mouse cursor is hidden over the window,
//! and a captions area at the bottom shows the lesson's current caption (none: the scene's
//! title) in place of the caption over the canvas, so a caption shows once. Leaving it
//! restores the interface size and the cursor. Its key, P, is one of `input`'s shortcuts.

use bevy::prelude::*;
use bevy::window::{CursorOptions, PrimaryWindow};
use bevy_egui::EguiContexts;
use bevy_egui::egui::{self, RichText, Ui};

use super::SingulabSystems;
use super::commands::AppCommand;
use super::drawing::ViewState;
use super::simulation::Live;

/// How much larger the type is in presentation mode.
pub const LARGE_TYPE: f32 = 1.5;

#[derive(Resource, Default)]
pub struct Presentation {
    pub on: bool,
    /// The interface size before presentation, restored after it.
    zoom_before: Option<f32>,
    /// Whether the window and the interface size are set for `on`.
    applied: bool,
}

impl Presentation {
    pub fn new(on: bool) -> Self {
        Self {
            on,
            ..Self::default()
        }
    }
}

pub struct PresentationPlugin;

impl Plugin for PresentationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Presentation>().add_systems(
            Update,
            (toggle, apply).chain().in_set(SingulabSystems::Output),
        );
    }
}

fn toggle(mut reader: MessageReader<AppCommand>, mut presentation: ResMut<Presentation>) {
    for command in reader.read() {
        if matches!(command, AppCommand::TogglePresentation) {
            presentation.on = !presentation.on;
        }
    }
}

/// Sets the interface size and the cursor for the mode, once the interface size asked for
/// at launch (`--ui-scale`) is in place.
fn apply(
    mut presentation: ResMut<Presentation>,
    view: Res<ViewState>,
    mut contexts: EguiContexts,
    mut cursors: Query<&mut CursorOptions, With<PrimaryWindow>>,
) -> Result {
    if presentation.on == presentation.applied || view.pending_ui_scale.is_some() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    if presentation.on {
        let zoom = ctx.zoom_factor();
        presentation.zoom_before = Some(zoom);
        ctx.set_zoom_factor(zoom * LARGE_TYPE);
    } else {
        ctx.set_zoom_factor(presentation.zoom_before.take().unwrap_or(1.0));
    }
    for mut cursor in &mut cursors {
        cursor.visible = !presentation.on;
    }
    presentation.applied = presentation.on;
    Ok(())
}

/// The captions area: one or two rows of large type under the canvas, the lesson's caption
/// (the canvas then shows none) or the scene's title.
pub(super) fn captions(root: &mut Ui, live: &Live) {
    let caption = live.lesson.as_ref().and_then(|run| run.player.caption());
    let text = caption.map_or_else(|| live.session.scene().title.clone(), |c| c.text.clone());
    egui::Panel::bottom("captions").show(root, |ui| {
        ui.add_space(6.0);
        ui.vertical_centered(|ui| {
            ui.label(RichText::new(text).size(22.0));
        });
        ui.add_space(6.0);
    });
}
