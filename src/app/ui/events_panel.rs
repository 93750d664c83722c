//! The Singular events panel: newest first, each with go to.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::commands::AppCommand;
use crate::app::simulation::Live;

pub(super) fn events_panel(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    let events = live.session.events();
    egui::CollapsingHeader::new(format!("Singular events ({})", events.len()))
        .default_open(true)
        .show(ui, |ui| {
            if events.is_empty() {
                ui.label(RichText::new("None yet.").small());
            }
            for (i, event) in events.iter().enumerate().rev().take(50) {
                // The button first: a long time (10 s and more) must not push it out of a
                // narrow panel.
                ui.horizontal_wrapped(|ui| {
                    if ui.small_button("go to").clicked() {
                        commands.push(AppCommand::GotoEvent(i));
                    }
                    let text = RichText::new(format!(
                        "t {:.4} s  rank {} (-{})  {} motions",
                        event.t,
                        event.rank,
                        event.deficiency,
                        event.motion_count()
                    ))
                    .monospace();
                    if live.session.current_event_index() == Some(i) {
                        ui.label(text.strong())
                            .on_hover_text("The state is at this event");
                    } else {
                        ui.label(text);
                    }
                });
            }
        });
}
