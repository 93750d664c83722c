//! Presentation mode, for a projector and for recordings (key P, `--presentation`): the side
//! panels, the menu and transport bar, the timeline, the plots' controls and the status line
//! are left out (the cursor is hidden; the keys act), side by side the plots take less of
//! the height, the view is fitted again for the new canvas, the type is
//! [`LARGE_TYPE`] times larger, the brief notices are not shown (the banner over the canvas,
//! which says what the mechanism is doing, stays), the mouse cursor is hidden over the window,
//! and a captions area at the bottom shows the lesson's current caption (none: the scene's
//! title) in place of the caption over the canvas, so a caption shows once. Leaving it
//! restores the interface size and the cursor; a size chosen with Ctrl + / Ctrl - while
//! presenting is kept for the next time (the lecturer sets it once for the room). Its key,
//! P, is one of `input`'s shortcuts.

use bevy::prelude::*;
use bevy::window::{CursorOptions, PrimaryWindow};
use bevy_egui::EguiContexts;
use bevy_egui::egui::{self, RichText, Ui};

use super::SingulabSystems;
use super::commands::AppCommand;
use super::drawing::ViewState;
use super::simulation::Live;

/// How much larger the type is in presentation mode, the first time: body text of about
/// 25 px, which a 1080p projector shows at a size read from the back of a room.
pub const LARGE_TYPE: f32 = 2.0;

/// Size (points) of the captions area's text.
pub const CAPTION_SIZE: f32 = 22.0;

#[derive(Resource, Default)]
pub struct Presentation {
    pub on: bool,
    /// The interface size outside presentation, restored when leaving it.
    zoom_before: Option<f32>,
    /// The interface size presentation last had, given back when entering it again.
    zoom_presenting: Option<f32>,
    /// Whether the window and the interface size are set for `on`.
    applied: bool,
    /// The interface size asked for at launch (`--ui-scale`), which the first switch starts
    /// from (egui reports a new zoom factor only a frame after it is set).
    launch_scale: Option<f32>,
}

impl Presentation {
    pub fn new(on: bool) -> Self {
        Self {
            on,
            ..Self::default()
        }
    }

    /// Presentation as launched with the interface size `scale`.
    pub fn launched(on: bool, scale: f32) -> Self {
        Self {
            launch_scale: Some(scale),
            ..Self::new(on)
        }
    }

    /// The interface size for the mode just switched to, from the size `current` the other
    /// mode had (remembered for when it comes back).
    pub fn switched_zoom(&mut self, current: f32) -> f32 {
        if self.on {
            self.zoom_before = Some(current);
            self.zoom_presenting.unwrap_or(current * LARGE_TYPE)
        } else {
            self.zoom_presenting = Some(current);
            self.zoom_before.take().unwrap_or(1.0)
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
    let current = presentation
        .launch_scale
        .take()
        .unwrap_or_else(|| ctx.zoom_factor());
    let zoom = presentation.switched_zoom(current);
    ctx.set_zoom_factor(zoom);
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
    // Two rows at least, as most captions take: the canvas above keeps its size when a
    // caption replaces the title, and a video's framing holds.
    let rows = 2.0 * CAPTION_SIZE * 1.35 + 12.0;
    egui::Panel::bottom("captions")
        .min_size(rows)
        .show(root, |ui| {
            ui.add_space(6.0);
            ui.vertical_centered(|ui| {
                ui.label(RichText::new(text).size(CAPTION_SIZE).strong());
            });
            ui.add_space(6.0);
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P, P again, as `apply` does it: the size each switch gives.
    fn switch(presentation: &mut Presentation, current: f32) -> f32 {
        presentation.on = !presentation.on;
        presentation.switched_zoom(current)
    }

    #[test]
    fn the_size_chosen_while_presenting_survives_leaving_and_coming_back() {
        let mut presentation = Presentation::new(false);
        let presenting = switch(&mut presentation, 1.25);
        assert_eq!(presenting, 1.25 * LARGE_TYPE);
        // The lecturer makes it larger for the room, leaves to set something up, comes back.
        assert_eq!(switch(&mut presentation, 3.3), 1.25);
        assert_eq!(switch(&mut presentation, 1.25), 3.3);
        assert_eq!(switch(&mut presentation, 3.3), 1.25);
    }

    #[test]
    fn presentation_type_is_at_least_twice_the_default() {
        let mut presentation = Presentation::new(false);
        assert!(switch(&mut presentation, 1.0) >= 2.0);
    }
}
