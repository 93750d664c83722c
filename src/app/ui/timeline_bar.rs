//! The timeline under the canvas: the run's span, its marks, the instant shown.

use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, Ui};

use crate::app::commands::AppCommand;
use crate::app::drawing::ViewState;
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::MarkKind;

/// The run's timeline under the canvas: its span, the singular events and the user's
/// pushes, leaves and drags marked, the instant shown; pressing or dragging on it shows the
/// mechanism at that instant (replayed exactly), and Undo takes back the last action.
pub(super) fn timeline_bar(
    ui: &mut Ui,
    live: &Live,
    view: &ViewState,
    commands: &mut Vec<AppCommand>,
) {
    let session = &live.session;
    let palette = Palette::for_theme(view.light);
    let (start, end) = session.timeline_span();
    ui.horizontal(|ui| {
        let undo = ui
            .add_enabled(session.can_undo(), egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z: takes back the last push, leave or drag, exactly");
        if undo.clicked() {
            commands.push(AppCommand::Undo);
        }
        ui.label(format!("{start:.2} s"));
        let width = (ui.available_width() - 70.0).max(40.0);
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(width, 20.0), egui::Sense::click_and_drag());
        let span = (end - start).max(1e-9);
        let x_of =
            |t: f64| rect.left() + ((t - start) / span).clamp(0.0, 1.0) as f32 * rect.width();
        let painter = ui.painter_at(rect.expand(4.0));
        let track = egui::Rect::from_min_max(
            egui::pos2(rect.left(), rect.center().y - 3.0),
            egui::pos2(rect.right(), rect.center().y + 3.0),
        );
        painter.rect_filled(track, 3.0, ui.visuals().widgets.inactive.bg_fill);
        for mark in session.marks() {
            let color = mark_color(mark.kind, palette);
            let x = x_of(mark.t);
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
                egui::Stroke::new(2.0, color),
            );
        }
        let now = x_of(session.time());
        painter.circle_filled(egui::pos2(now, rect.center().y), 6.0, palette.text);
        let response = response.on_hover_text(
            "The whole run: singular events (orange), pushes (pink), leaves (blue), drags \
             (green). Press or drag to see the mechanism at that instant, exactly; Space goes \
             on from there (what came later is dropped).",
        );
        if (response.dragged() || response.clicked())
            && let Some(p) = response.interact_pointer_pos()
        {
            let t = start + f64::from((p.x - rect.left()) / rect.width()).clamp(0.0, 1.0) * span;
            if (t - session.time()).abs() > 1e-9 {
                commands.push(AppCommand::Seek(t));
            }
        }
        ui.label(format!("{end:.2} s"));
    });
}

/// The colour of a mark on the timeline.
pub(super) fn mark_color(kind: MarkKind, palette: &Palette) -> Color32 {
    match kind {
        MarkKind::Event => Color32::from_rgb(230, 140, 40),
        MarkKind::Push => palette.motion(1),
        MarkKind::Leave => palette.motion(3),
        MarkKind::Drag => palette.motion(2),
    }
}
