//! The Admissible motions panel: the motions with their keys, and the push and leave controls.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::commands::AppCommand;
use crate::app::drawing::{MOTION_KEYS, ViewState, shown_motions};
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::motions::AT_REST;
use crate::live::{Motion, MotionRole, motions};
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
            ui.radio_value(&mut view.push_motion, k, "").on_hover_text(format!(
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
                leave_buttons(ui, live, view, &motion.column, commands);
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
            egui::DragValue::new(&mut view.push_delta)
                .speed(0.05)
                .range(-20.0..=20.0),
        );
        ui.label("over");
        ui.add(
            egui::DragValue::new(&mut view.push_duration)
                .speed(0.005)
                .range(0.005..=1.0)
                .suffix(" s"),
        );
    });
    let index = view.push_motion.min(shown.len() - 1);
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
        && let Some(command) = chosen_action(live, view, shown, false)
    {
        commands.push(command);
    }
    ui.label(RichText::new(MOTION_KEYS).small());
    if live.session.is_pushing() {
        ui.label("pushing…");
    }
}

/// What acting on the chosen motion does (the panel's button, Enter; `reverse`: Shift+Enter):
/// a push along it by the Δ velocity (reversed: by minus it), or on a branch a leave the way
/// its arrows are drawn (reversed: back), at the Δ velocity where the mechanism is at rest.
pub(crate) fn chosen_action(
    live: &Live,
    view: &ViewState,
    shown: &[Motion],
    reverse: bool,
) -> Option<AppCommand> {
    let motion = shown.get(view.push_motion.min(shown.len().checked_sub(1)?))?;
    let sign = if reverse { -1.0 } else { 1.0 };
    Some(if motion.role == MotionRole::Branch {
        let at_rest = live.session.simulation().velocities().amax() < AT_REST;
        AppCommand::Leave {
            direction: &motion.column * sign,
            speed: at_rest.then_some(view.push_delta.abs().max(0.1)),
        }
    } else {
        let delta = sign * view.push_delta;
        AppCommand::Push {
            column: motion.column.clone(),
            delta,
            duration: view.push_duration,
            note: push_note(live, motion, delta),
        }
    })
}

/// Advice for a push along a motion that is new at the singular configuration while the
/// mechanism moves faster than the push's Δ velocity: such a motion is admissible to first order only, so unless the push is
/// large next to the speed the constraints take its velocity back as the mechanism moves
/// off the configuration, and it keeps its branch (A02 at Δv 1: only the energy changes).
pub(super) fn push_note(live: &Live, motion: &Motion, delta: f64) -> Option<String> {
    let sim = live.session.simulation();
    let speed = motions::mass_speed(
        &live.session.scene().mechanism,
        sim.positions(),
        sim.velocities(),
    );
    (motion.role == MotionRole::New && speed > delta.abs().max(AT_REST)).then(|| {
        format!(
            "Pushing along {} (Δv {delta:.2}) at speed ({speed:.2} in the same units): a new motion is admissible to first order only, so a push small next to the motion usually leaves the mechanism on its branch. To change branch at speed, leave along a branch.",
            motion.label
        )
    })
}

/// "leave on" and "leave back" along a branch listed as `direction` (oriented the way the
/// mechanism moves, downhill at rest: [`crate::lesson::choices::leave_direction`]).
pub(crate) fn leave_buttons(
    ui: &mut Ui,
    live: &Live,
    view: &ViewState,
    direction: &nalgebra::DVector<f64>,
    commands: &mut Vec<AppCommand>,
) {
    // At rest for a lecture's purposes: four_bar_stopping arrives at its flat pose with
    // about 1e-5 m/s left (it is launched 1e-10 short of the energy to get there).
    let at_rest = live.session.simulation().velocities().amax() < AT_REST;
    let speed = at_rest.then_some(view.push_delta.abs().max(0.1));
    let (how, on) = if at_rest {
        let how = format!(
            "at {:.2} (the Δ velocity below): the mechanism is at rest here",
            view.push_delta.abs().max(0.1)
        );
        (how, "downhill (as drawn: the mechanism is at rest)")
    } else {
        let how = "with the kinetic energy it has here".to_owned();
        (how, "on the way it came, as drawn")
    };
    for (text, sign, way) in [
        ("leave on", 1.0, on),
        ("leave back", -1.0, "against the arrow"),
    ] {
        if ui
            .small_button(text)
            .on_hover_text(format!(
                "Sends the mechanism along this branch, {way}, {how}."
            ))
            .clicked()
        {
            commands.push(AppCommand::Leave {
                direction: direction * sign,
                speed,
            });
        }
    }
}
