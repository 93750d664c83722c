//! The Solver panel: the basis shown, predictor, integrator, dt and the tolerances.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use crate::app::commands::AppCommand;
use crate::app::drawing::ViewState;
use crate::app::simulation::Live;
use crate::solver::{BasisMode, Integrator, Predictor, Settings};

pub(super) const DT_CHOICES: [f64; 8] = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5];

pub(super) fn solver_panel(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    commands: &mut Vec<AppCommand>,
) {
    egui::CollapsingHeader::new("Solver")
        .default_open(false)
        .show(ui, |ui| {
            let before = live.session.settings().clone();
            let mut s: Settings = before.clone();
            // Narrower than egui's default so the panel fits narrow windows.
            ui.spacing_mut().slider_width = 70.0;
            // A grid where the panel is wide enough; in a narrow one (a projector) each
            // setting is a row that wraps, so that nothing is cut off at the panel's edge.
            let narrow = ui.available_width() < 260.0;
            let mut rows = |ui: &mut Ui| {
                setting_row(ui, narrow, |ui| ui.label("Basis shown"), |ui| {
                    ui.selectable_value(&mut view.basis, BasisMode::Continued, "continued");
                    ui.selectable_value(&mut view.basis, BasisMode::Traditional, "traditional");
                });
                setting_row(ui, narrow, |ui| ui.label("Predictor"), |ui| {
                    ui.selectable_value(&mut s.predictor, Predictor::Omega, "omega");
                    ui.selectable_value(&mut s.predictor, Predictor::Zeroth, "zeroth");
                });
                setting_row(ui, narrow, |ui| ui.label("Integrator"), |ui| {
                    ui.selectable_value(&mut s.integrator, Integrator::Rk4, "RK4");
                    ui.selectable_value(&mut s.integrator, Integrator::Dopri5, "DOPRI5");
                });
                setting_row(ui, narrow, |ui| ui.label("dt"), |ui| {
                    egui::ComboBox::from_id_salt("dt")
                        .selected_text(format!("{:e} s", s.dt))
                        .show_ui(ui, |ui| {
                            for dt in DT_CHOICES {
                                ui.selectable_value(&mut s.dt, dt, format!("{dt:e} s"));
                            }
                        });
                });
                setting_row(
                    ui,
                    narrow,
                    |ui| {
                        ui.label("Rank tol.").on_hover_text(
                            "Rank tolerance of the dynamics, relative to |R_00| (far below the detection tolerance)",
                        )
                    },
                    |ui| log_slider(ui, &mut s.rank_tolerance, 1e-12, 1e-4),
                );
                setting_row(
                    ui,
                    narrow,
                    |ui| {
                        ui.label("Detection tol.").on_hover_text(
                            "A located minimum of |R_ii| / |R_00| below this is a singular event",
                        )
                    },
                    |ui| log_slider(ui, &mut s.detection_tolerance, 1e-6, 1e-1),
                );
            };
            if narrow {
                rows(ui);
            } else {
                egui::Grid::new("solver_grid").num_columns(2).show(ui, rows);
            }
            // The rank tolerance stays at or below the detection tolerance.
            s.rank_tolerance = s.rank_tolerance.min(s.detection_tolerance);
            if s != before {
                commands.push(AppCommand::SetSettings(Box::new(s)));
            }
            ui.label(
                RichText::new(
                    "Both bases are tracked every step from the same factorisation: switching the basis never changes the motion.",
                )
                .small(),
            );
        });
}

/// One setting of the Solver panel: in a two-column grid, or (`narrow`) as a row that wraps.
pub(super) fn setting_row(
    ui: &mut Ui,
    narrow: bool,
    label: impl FnOnce(&mut Ui) -> egui::Response,
    contents: impl FnOnce(&mut Ui),
) {
    if narrow {
        ui.horizontal_wrapped(|ui| {
            label(ui);
            contents(ui);
        });
    } else {
        label(ui);
        ui.horizontal(contents);
        ui.end_row();
    }
}

pub(super) fn log_slider(ui: &mut Ui, value: &mut f64, lo: f64, hi: f64) {
    // A slider with its value box is one `horizontal` that a wrapping row does not move to
    // the next line by itself: where it does not fit it would widen the whole panel's
    // content past its visible edge. (Outside a wrapping row `end_row` does nothing.)
    if ui.available_size_before_wrap().x < ui.spacing().slider_width + 60.0 {
        ui.end_row();
    }
    let mut exponent = value.log10();
    let response = ui.add(
        egui::Slider::new(&mut exponent, lo.log10()..=hi.log10())
            .step_by(0.5)
            .custom_formatter(|e, _| format!("1e{e}"))
            .custom_parser(|text| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| *v > 0.0)
                    .map(f64::log10)
            }),
    );
    if response.changed() {
        *value = 10f64.powf(exponent);
    }
}
