//! The Admissible motions panel: the motions with their keys, and the push and leave controls.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::actions::{chosen_action, leave_buttons};
use crate::app::commands::AppCommand;
use crate::app::drawing::{MOTION_KEYS, ViewState, shown_motions};
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::{Motion, MotionRole};
use crate::solver::BasisMode;

pub(super) fn motions_panel(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    commands: &mut Vec<AppCommand>,
) {
    egui::CollapsingHeader::new("Admissible motions")
        .default_open(true)
        .show(ui, |ui| {
            ui.checkbox(&mut view.show_motions, "Show the columns of T");
            ui.checkbox(&mut view.ghost_preview, "Ghost of a motion's push on pointing")
                .on_hover_text("Off while a class predicts what a push will do");
            let shown = shown_motions(live, view, view.basis);
            if shown.is_empty() {
                ui.label(RichText::new("Shown automatically at singular events.").small());
                return;
            }
            motion_rows(ui, live, view, &shown, commands);
            if live.session.current_event().is_some()
                && live.session.branches().is_empty()
                && !live.session.branch_families()
            {
                ui.label(
                    RichText::new(
                        "No branch but the continuation: the new motions are admissible to first order only.",
                    )
                    .small(),
                );
            }
            push_controls(ui, live, view, &shown, commands);
        });
}

/// A row per motion: its colour, the push choice, a check box to show it, and for a branch
/// the buttons to leave along it. Rows wrap in a narrow panel (a projector's scale) instead
/// of running past its edge, where egui clips them.
pub(super) fn motion_rows(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    shown: &[Motion],
    commands: &mut Vec<AppCommand>,
) {
    let palette = Palette::for_theme(view.light);
    view.highlighted_motion = None;
    for (k, motion) in shown.iter().enumerate() {
        let row = ui.horizontal_wrapped(|ui| {
            let color = palette.motion(k);
            let (rect, _) = ui.allocate_exact_size(egui::vec2(16.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 2.0, color);
            // The choice first, without text: a row that wraps in a narrow panel does not
            // leave it on a line of its own, between two motions.
            let key = if k < 9 {
                format!(" (key {})", k + 1)
            } else {
                String::new()
            };
            ui.radio_value(&mut view.push.motion, k, "").on_hover_text(format!(
                "Choose this motion{key}: at an event it alone is drawn unless all are (key 0), and the button below acts on it (Enter)"
            ));
            let mut visible = view.motion_shown(motion);
            // The event's motions are labelled "T1 continued", "new 1", "branch 1" already.
            let role = if motion.role == MotionRole::Basis(BasisMode::Traditional) {
                " (traditional)"
            } else {
                ""
            };
            // The box alone shows or hides the motion: its name is a label, so a click
            // meant for the row (or the leave buttons next to it) does not hide it.
            if ui
                .checkbox(&mut visible, "")
                .on_hover_text("Draw this motion on the canvas (key H hides or shows the chosen one)")
                .changed()
            {
                view.set_motion_shown(motion, visible);
            }
            ui.label(format!("{}{role}", motion.label));
            if motion.role == MotionRole::Branch {
                leave_buttons(
                    ui,
                    live,
                    view.push.delta,
                    (&motion.label, &motion.column),
                    commands,
                );
            }
        });
        if ui.rect_contains_pointer(row.response.rect) {
            view.highlighted_motion = Some(k);
        }
    }
}

/// The push along the chosen motion: how much velocity over how long, and the button.
pub(super) fn push_controls(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    shown: &[Motion],
    commands: &mut Vec<AppCommand>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Δ velocity");
        ui.add(
            egui::DragValue::new(&mut view.push.delta)
                .speed(0.05)
                .range(-20.0..=20.0),
        );
        ui.label("over");
        ui.add(
            egui::DragValue::new(&mut view.push.duration)
                .speed(0.005)
                .range(0.005..=1.0)
                .suffix(" s"),
        );
    });
    let index = view.push.motion.min(shown.len() - 1);
    let (label, hover) = if shown[index].role == MotionRole::Branch {
        (
            format!("Leave on {}", shown[index].label),
            "Sends the mechanism along the chosen branch the way its arrows are drawn (Enter; Shift+Enter: back).",
        )
    } else {
        (
            format!("Push along {}", shown[index].label),
            "Applies the generalized force M t a for the given time along the motion t (unit length in the mass metric, oriented the way its arrows are drawn; a = Δv / time). Δv is a speed in sqrt(J): from rest along a free motion the push gives Δv²/2 J. At a singular event the dynamics see the enlarged tangent space while it lasts. Enter; Shift+Enter pushes by -Δv.",
        )
    };
    if ui.button(label).on_hover_text(hover).clicked()
        && let Some(command) = chosen_action(live, &view.push, shown, false)
    {
        commands.push(command);
    }
    ui.label(RichText::new(MOTION_KEYS).small());
    if live.session.is_pushing() {
        ui.label("pushing…");
    }
}
