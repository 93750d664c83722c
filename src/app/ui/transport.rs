//! The transport bar: play, step, reset, speed, basis, pause at singularities, record.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::commands::AppCommand;
use crate::app::drawing::ViewState;
use crate::app::record::{self, Recorder};
use crate::app::simulation::Live;
use crate::live::SPEEDS;
use crate::solver::BasisMode;

pub(super) fn transport(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    recorder: &Recorder,
    commands: &mut Vec<AppCommand>,
) {
    let session = &live.session;
    // Wraps onto a second row in a narrow window (1024 points at a projector's scale).
    ui.horizontal_wrapped(|ui| {
        let playing = !session.is_paused();
        let label = if playing { "⏸ Pause" } else { "▶ Play" };
        if ui
            .button(RichText::new(label).size(16.0))
            .on_hover_text("Space")
            .clicked()
        {
            commands.push(AppCommand::TogglePlay);
        }
        if ui
            .button("Step")
            .on_hover_text("One solver step (.)")
            .clicked()
        {
            commands.push(AppCommand::SingleStep);
        }
        if ui.button("Reset").on_hover_text("R").clicked() {
            commands.push(AppCommand::Reset);
        }
        ui.separator();
        ui.label("Speed");
        let current = SPEEDS
            .iter()
            .position(|s| (s - session.speed()).abs() < 1e-12)
            .unwrap_or(6);
        let mut chosen = current;
        egui::ComboBox::from_id_salt("speed")
            .selected_text(speed_text(SPEEDS[current]))
            .show_ui(ui, |ui| {
                for (i, s) in SPEEDS.iter().enumerate() {
                    ui.selectable_value(&mut chosen, i, speed_text(*s));
                }
            });
        if chosen != current {
            commands.push(AppCommand::SetSpeedIndex(chosen));
        }
        ui.separator();
        ui.label("Basis");
        ui.selectable_value(&mut view.basis, BasisMode::Continued, "continued");
        ui.selectable_value(&mut view.basis, BasisMode::Traditional, "traditional");
        ui.separator();
        let mut auto = session.auto_pause;
        if ui.checkbox(&mut auto, "pause at singularities").changed() {
            commands.push(AppCommand::SetAutoPause(auto));
        }
        ui.checkbox(&mut view.show_motions, "show T");
        record::record_button(ui, recorder, commands);
    });
}

pub fn speed_text(speed: f64) -> String {
    if speed >= 1.0 {
        format!("{speed}x")
    } else {
        format!("1/{}x", (1.0 / speed).round())
    }
}
