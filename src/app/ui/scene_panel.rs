//! The Scene panel: the catalogue, the traced point and the 3D traced points.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use super::catalog::SceneCatalog;
use crate::app::commands::AppCommand;
use crate::app::simulation::Live;
use crate::live::TracePoint;

pub(super) fn scene_panel(
    ui: &mut Ui,
    live: &Live,
    catalog: &SceneCatalog,
    commands: &mut Vec<AppCommand>,
) {
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let scene = live.session.scene();
            if !scene.description.is_empty() {
                // A long description (the robot's 17 lines) scrolls rather than pushing
                // the panels below it off the screen.
                egui::ScrollArea::vertical()
                    .id_salt("scene_description")
                    .max_height(6.0 * ui.text_style_height(&egui::TextStyle::Body))
                    .show(ui, |ui| {
                        ui.label(RichText::new(&scene.description).italics());
                    });
            }
            scene_list(ui, live, catalog, commands);
            trace_controls(ui, live, commands);
            ui.horizontal(|ui| {
                if ui.button("Open…").clicked() {
                    commands.push(AppCommand::OpenDialog);
                }
                if ui.button("Reload").clicked() {
                    commands.push(AppCommand::ReloadScene);
                }
            });
            ui.label(
                RichText::new(
                    "Drop a .ron file on the window to open it; edits on disk reload it.",
                )
                .small(),
            );
        });
}

/// The scenes and lessons next to the open one, the open one highlighted, in a list of at
/// most [`LIST_ROWS`] rows that scrolls: the 16 shipped files pushed the Admissible motions
/// and the events below a 720-row window (trial 17).
fn scene_list(ui: &mut Ui, live: &Live, catalog: &SceneCatalog, commands: &mut Vec<AppCommand>) {
    let current = live.path.canonicalize().ok();
    let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    egui::ScrollArea::vertical()
        .id_salt("scene_list")
        .max_height(LIST_ROWS * row)
        .show(ui, |ui| {
            for path in &catalog.files {
                let name = path
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                let selected = current.as_ref() == Some(path);
                let label = ui.selectable_label(selected, name);
                if label.clicked() && !selected {
                    commands.push(AppCommand::OpenScene(path.clone()));
                }
                // The open scene brought into sight once when it opens (it may lie below
                // the rows shown), then the list scrolls as the user likes.
                let scrolled_to = egui::Id::new("scene_list_scrolled_to");
                if selected
                    && ui.data(|d| d.get_temp::<PathBuf>(scrolled_to)).as_ref() != Some(path)
                {
                    label.scroll_to_me(None);
                    ui.data_mut(|d| d.insert_temp(scrolled_to, path.clone()));
                }
            }
        });
}

/// Rows of the scene list shown before it scrolls.
const LIST_ROWS: f32 = 6.0;

/// The point that leaves the motion trace: a body, and along a bar its start, centre, end or
/// any fraction of its length (coupler curves of a four-bar come from its coupler's points).
pub(super) fn trace_controls(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    if live.session.scene().mechanism.has_rigid_bodies() {
        traced_point_controls(ui, live, commands);
        return;
    }
    let bodies = live.session.scene().mechanism.bodies();
    let current = live.session.trace_point();
    let mut chosen = current;
    ui.horizontal(|ui| {
        ui.label("Trace");
        egui::ComboBox::from_id_salt("trace_body")
            .selected_text(current.map_or("none", |p| bodies[p.body].name.as_str()))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut chosen, None, "none");
                for (i, body) in bodies.iter().enumerate() {
                    let keep_along = chosen.map_or(0.5, |p| p.along);
                    let point = TracePoint {
                        body: i,
                        along: keep_along,
                    };
                    if ui
                        .selectable_label(chosen.map(|p| p.body) == Some(i), &body.name)
                        .clicked()
                    {
                        chosen = Some(point);
                    }
                }
            });
    });
    if let Some(point) = chosen.as_mut()
        && bodies[point.body].is_bar()
    {
        ui.horizontal_wrapped(|ui| {
            ui.label("at");
            for (name, along) in [("start", 0.0), ("centre", 0.5), ("end", 1.0)] {
                if ui.selectable_label(point.along == along, name).clicked() {
                    point.along = along;
                }
            }
            ui.add(
                egui::DragValue::new(&mut point.along)
                    .speed(0.01)
                    .range(0.0..=1.0)
                    .max_decimals(3),
            )
            .on_hover_text("fraction of the bar's length from its start end");
        });
    }
    if chosen != current {
        commands.push(AppCommand::SetTrace(chosen));
    }
}

/// The points of rigid bodies whose paths are traced, any number at once: each body's centre
/// and the named points of its look, toggled on and off.
pub(super) fn traced_point_controls(ui: &mut Ui, live: &Live, commands: &mut Vec<AppCommand>) {
    let scene = live.session.scene();
    let current = live.session.traced_points();
    let mut chosen = current.clone();
    ui.label("Trace points");
    for (index, body) in scene.mechanism.bodies().iter().enumerate() {
        if !body.is_rigid() {
            continue;
        }
        let named = scene
            .looks
            .iter()
            .filter(|look| look.body == index)
            .flat_map(|look| look.points.iter().map(|(name, p)| (name.as_str(), *p)));
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{}:", body.name));
            for (name, local) in
                std::iter::once(("centre", nalgebra::Vector3::zeros())).chain(named)
            {
                let at = chosen.iter().position(|&(b, p)| b == index && p == local);
                if ui.selectable_label(at.is_some(), name).clicked() {
                    match at {
                        Some(k) => {
                            chosen.remove(k);
                        }
                        None => chosen.push((index, local)),
                    }
                }
            }
        });
    }
    if chosen != current {
        commands.push(AppCommand::SetTracedPoints(chosen));
    }
}
