//! The Reactions and redundancy panel.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::drawing::{self, ViewState};
use crate::app::simulation::Live;

/// Reactions and redundancy: the toggle, `p` (here and generically), the self-stress mode
/// drawn, and per joint whether its reaction is unique.
pub(super) fn reactions_panel(ui: &mut Ui, live: &Live, view: &mut ViewState) {
    egui::CollapsingHeader::new("Reactions and redundancy")
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut view.show_reactions, "Show reactions (J)");
            drawing::reactions::update_reactions(view, live);
            let Some(cache) = view.reactions.as_ref() else {
                return;
            };
            let display = match &cache.display {
                Ok(display) => display.clone(),
                Err(message) => {
                    ui.label(RichText::new(message).small());
                    return;
                }
            };
            ui.label(display.redundancy_text());
            if !display.modes.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.label("Self-stress mode:");
                    ui.selectable_value(&mut view.reaction_mode, None, "none");
                    for k in 0..display.modes.len() {
                        ui.selectable_value(&mut view.reaction_mode, Some(k), format!("{}", k + 1));
                    }
                });
            }
            let mech = &live.session.scene().mechanism;
            for arrow in &display.arrows {
                let force = arrow.force.iter().map(|c| c * c).sum::<f64>().sqrt();
                ui.label(RichText::new(format!(
                    "{}: {}, |F| {force:.3e} N",
                    mech.joints()[arrow.joint].name,
                    arrow.verdict()
                )));
            }
        });
}
