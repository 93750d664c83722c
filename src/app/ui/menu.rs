//! The menu bar: File (open, reload, shipped scenes, save, export, screenshot), View, Help.

use bevy::prelude::*;
use bevy_egui::egui::{self, RichText, Ui};

use super::catalog::SceneCatalog;
use crate::app::commands::{AppCommand, SketchRequest};
use crate::app::drawing::{CanvasCamera, ViewState};
use crate::app::simulation::Live;
use crate::app::sketcher::state::Sketcher;
use crate::app::window_layout::WindowLayout;

pub(super) fn menu_bar(
    ui: &mut Ui,
    live: &Live,
    view: &mut ViewState,
    camera: &mut CanvasCamera,
    window: &mut WindowLayout,
    catalog: &SceneCatalog,
    sketcher: &Sketcher,
    commands: &mut Vec<AppCommand>,
) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            sketch_menu(ui, sketcher, commands);
            ui.separator();
            file_menu(ui, live, catalog, commands);
        });
        ui.menu_button("View", |ui| view_menu(ui, view, camera, window));
        ui.menu_button("Help", |ui| {
            ui.label(SHORTCUTS);
        });
        ui.separator();
        ui.label(RichText::new(&live.session.scene().title).strong());
        // A drawn mechanism names the file it will be saved to before it is.
        let saved = if live.path.exists() {
            ""
        } else {
            " (not saved)"
        };
        ui.label(
            RichText::new(format!("{}{saved}", live.path.display()))
                .small()
                .color(ui.visuals().weak_text_color()),
        );
    });
}

/// The sketcher's entries: a new mechanism, editing the one shown, saving a drawn one.
fn sketch_menu(ui: &mut Ui, sketcher: &Sketcher, commands: &mut Vec<AppCommand>) {
    let mut item = |ui: &mut Ui, text: &str, request: SketchRequest| {
        if ui.button(text).clicked() {
            commands.push(AppCommand::Sketch(request));
            ui.close();
        }
    };
    item(ui, "New mechanism (draw it)  (Ctrl+N)", SketchRequest::New);
    if sketcher.active {
        item(ui, "Save mechanism  (Ctrl+S)", SketchRequest::SaveHere);
        item(ui, "Save mechanism as…", SketchRequest::SaveDialog);
        item(ui, "Play the mechanism  (Space)", SketchRequest::Play);
        item(ui, "Leave edit mode  (E)", SketchRequest::Leave);
    } else {
        item(ui, "Edit this mechanism  (E)", SketchRequest::EditScene);
        if sketcher.unsaved {
            item(
                ui,
                "Save the drawn mechanism  (Ctrl+S)",
                SketchRequest::SaveHere,
            );
            item(
                ui,
                "Save the drawn mechanism as…",
                SketchRequest::SaveDialog,
            );
        }
    }
}

pub(super) fn file_menu(
    ui: &mut Ui,
    live: &Live,
    catalog: &SceneCatalog,
    commands: &mut Vec<AppCommand>,
) {
    if ui.button("Open scene or lesson…  (Ctrl+O)").clicked() {
        commands.push(AppCommand::OpenDialog);
        ui.close();
    }
    if ui.button("Reload  (F5)").clicked() {
        commands.push(AppCommand::ReloadScene);
        ui.close();
    }
    ui.menu_button("Shipped scenes", |ui| {
        for path in &catalog.files {
            let name = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            if ui.button(name).clicked() {
                commands.push(AppCommand::OpenScene(path.clone()));
                ui.close();
            }
        }
    });
    ui.separator();
    if ui
        .button("Save lesson…")
        .on_hover_text(
            "What you did since the scene was opened or reset, as a lesson that replays it.",
        )
        .clicked()
    {
        commands.push(AppCommand::SaveLessonDialog);
        ui.close();
    }
    if ui
        .button("Save lesson here")
        .on_hover_text(
            "Writes <scene>_lesson.ron next to the scene's lessons (scenes/lessons/ for a shipped \
             scene, else beside the scene file), no dialog; never over an earlier one.",
        )
        .clicked()
    {
        commands.push(AppCommand::SaveLesson(
            crate::app::lesson::lesson_path_here(live),
        ));
        ui.close();
    }
    ui.separator();
    if ui.button("Export plotted history to CSV…").clicked() {
        commands.push(AppCommand::ExportCsvDialog);
        ui.close();
    }
    if ui
        .button("Export plotted history here")
        .on_hover_text("Writes singulab_<scene>_history.csv in the working directory, no dialog.")
        .clicked()
    {
        commands.push(AppCommand::ExportCsvHere);
        ui.close();
    }
    if ui.button("Save screenshot  (F12)").clicked() {
        commands.push(AppCommand::SaveScreenshot);
        ui.close();
    }
}

pub(super) fn view_menu(
    ui: &mut Ui,
    view: &mut ViewState,
    camera: &mut CanvasCamera,
    window: &mut WindowLayout,
) {
    ui.checkbox(&mut view.light, "Light theme  (L)");
    ui.checkbox(&mut view.show_grid, "Grid");
    ui.checkbox(&mut view.show_labels, "Body names");
    ui.checkbox(&mut view.show_trace, "Motion trace");
    ui.checkbox(&mut view.show_body_axes, "Body axes (rigid bodies)  (A)");
    ui.checkbox(&mut view.show_motions, "Columns of T  (M)");
    ui.checkbox(&mut view.compare_bases, "Plot both bases");
    ui.checkbox(
        &mut view.side_by_side,
        "Side by side: traditional | continued  (C)",
    );
    ui.separator();
    ui.checkbox(&mut window.show_controls, "Controls panel");
    ui.checkbox(&mut window.show_plots, "Plots panel");
    ui.label("Interface size (for projectors):");
    egui::gui_zoom::zoom_menu_buttons(ui);
    ui.label(format!("{:.0} %", 100.0 * ui.ctx().zoom_factor()));
    ui.separator();
    if ui.button("Fit view  (F / double-click)").clicked() {
        camera.refit();
        ui.close();
    }
}

pub const SHORTCUTS: &str = "\
Space  play / pause
.  (period)  one solver step
R  reset to the initial state
[ and ]  slower / faster (1/64x to 64x)
B  switch traditional / continued basis
C  side by side: traditional | continued
M  show / hide the columns of T
L  light / dark theme
P  presentation (no panels, large type, captions)
E  edit mode: edit the planar mechanism shown;  Ctrl+N  draw a new one
Ctrl+R  record the window to a video (again: stop)
F  fit the view
Ctrl+O  open a scene,  F5  reload
F12  save a screenshot
Drag: pan (orbit in 3D), wheel: zoom, right-click: menu";
