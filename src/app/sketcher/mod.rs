//! Edit mode (key E, File > New mechanism): the window side of [`crate::sketch`]. The
//! [`Sketcher`] resource holds the sketch being drawn with its history, the live counts and
//! what the pointer is doing; gestures on the canvas (`drawing::sketch_overlay`) and the
//! Sketch panel ([`panel`]) send [`SketchRequest`]s, applied here between frames.
//!
//! While editing, the session shows the sketch's scene at rest (rebuilt after every edit,
//! the view kept), so the mechanism is drawn as in run mode: a singular pose is an event
//! with its admissible motions, and a redundant sketch shows its first self-stress mode in
//! the reactions view. Play leaves edit mode and runs the drawn mechanism from its pose.

pub mod panel;
pub mod state;

pub use state::Sketcher;

use std::path::{Path, PathBuf};

use bevy::prelude::*;

use super::SingulabSystems;
use super::commands::{AppCommand, SketchRequest};
use super::drawing::{CanvasCamera, ViewState};
use super::simulation::{Live, Notice};
use crate::live::LiveSession;
use crate::sketch::{
    Sketch, SketchAnalysis, SketchCommand, SketchEditor, analyse_scene, scene_text,
    sketch_of_scene, sketch_scene,
};

pub struct SketcherPlugin;

impl Plugin for SketcherPlugin {
    fn build(&self, app: &mut App) {
        // After the simulation's commands: a scene opened leaves edit mode, and Play
        // replaces the session the simulation has just left alone.
        app.init_resource::<Sketcher>().add_systems(
            Update,
            apply_sketch_requests
                .in_set(SingulabSystems::Commands)
                .after(super::simulation::apply_commands),
        );
    }
}

/// What a request changes besides the sketch.
struct Affected<'a> {
    live: &'a mut Live,
    view: &'a mut ViewState,
    camera: &'a mut CanvasCamera,
}

fn apply_sketch_requests(
    mut commands: MessageReader<AppCommand>,
    mut sketcher: ResMut<Sketcher>,
    mut live: ResMut<Live>,
    mut view: ResMut<ViewState>,
    mut camera: ResMut<CanvasCamera>,
) {
    for command in commands.read() {
        let request = match command {
            AppCommand::Sketch(request) => request,
            AppCommand::OpenScene(_) | AppCommand::ReloadScene => {
                sketcher.active = false;
                if sketcher.unsaved {
                    live.notice = Some(Notice::brief(
                        "The drawn mechanism was not saved: Ctrl+N then Ctrl+Z brings it back \
                         to edit mode, Ctrl+S saves it."
                            .into(),
                    ));
                }
                continue;
            }
            _ => continue,
        };
        let mut affected = Affected {
            live: &mut live,
            view: &mut view,
            camera: &mut camera,
        };
        apply(&mut sketcher, request, &mut affected);
    }
}

fn apply(sketcher: &mut Sketcher, request: &SketchRequest, affected: &mut Affected) {
    match request {
        SketchRequest::EditScene => match sketch_of_scene(affected.live.session.scene()) {
            Ok(sketch) => {
                sketcher.file = Some(affected.live.path.clone());
                start(sketcher, sketch, affected);
            }
            Err(e) => {
                affected.live.notice = Some(Notice::brief(format!(
                    "This scene cannot be edited: {e}. File > New mechanism starts one."
                )));
            }
        },
        SketchRequest::New => {
            // The drawing before stays on the undo history (Ctrl+Z brings it back), also
            // one played or left unsaved.
            let before = (sketcher.active || sketcher.unsaved).then(|| sketcher.editor.clone());
            sketcher.file = None;
            start(sketcher, Sketch::default(), affected);
            if let Some(mut editor) = before {
                editor.replace(Sketch::default());
                sketcher.editor = editor;
            }
            affected.camera.show_area([0.5, 0.5], 5.0);
        }
        SketchRequest::Edit(command) => edit(sketcher, command, false, affected),
        SketchRequest::Continue(command) => edit(sketcher, command, true, affected),
        SketchRequest::EndGesture => sketcher.editor.end_gesture(),
        SketchRequest::Undo => {
            if sketcher.editor.undo() {
                refresh(sketcher, affected);
            }
        }
        SketchRequest::Redo => {
            if sketcher.editor.redo() {
                refresh(sketcher, affected);
            }
        }
        SketchRequest::Play | SketchRequest::Leave => leave(sketcher, request, affected),
        SketchRequest::Save(path) => save(sketcher, path, affected.live),
        SketchRequest::SaveHere => {
            let path = save_path_here(sketcher, affected.live);
            save(sketcher, &path, affected.live);
        }
        // The file dialogs' plugin asks where.
        SketchRequest::SaveDialog => {}
    }
}

/// Enters edit mode on `sketch`.
fn start(sketcher: &mut Sketcher, sketch: Sketch, affected: &mut Affected) {
    sketcher.editor = SketchEditor::new(sketch);
    sketcher.active = true;
    sketcher.selected = None;
    sketcher.refusal = None;
    affected.live.lesson = None;
    affected.view.side_by_side = false;
    affected.live.session.pause();
    refresh(sketcher, affected);
    // A scene opened for editing, or an empty canvas, has nothing to save yet.
    sketcher.unsaved = false;
}

fn edit(
    sketcher: &mut Sketcher,
    command: &SketchCommand,
    continuing: bool,
    affected: &mut Affected,
) {
    let result = if continuing {
        sketcher.editor.apply_continuing(command)
    } else {
        sketcher.editor.apply(command)
    };
    match result {
        Ok(()) => {
            sketcher.refusal = None;
            // A renamed selection stays selected.
            if let SketchCommand::Rename { from, to } = command
                && sketcher.selected.as_deref() == Some(from.as_str())
            {
                sketcher.selected = Some(to.clone());
            }
            refresh(sketcher, affected);
        }
        Err(e) => sketcher.refusal = Some(e.to_string()),
    }
}

/// After an edit: the counts, and the session showing the sketch's scene at rest (the
/// view kept); a singular pose is an event, a redundant sketch shows its self-stress mode.
fn refresh(sketcher: &mut Sketcher, affected: &mut Affected) {
    sketcher.unsaved = true;
    let sketch = sketcher.editor.sketch().clone();
    if let Some(selected) = &sketcher.selected
        && !sketch.name_taken(selected)
    {
        sketcher.selected = None;
    }
    sketcher.shows_mechanism = false;
    // The scene is loaded once, for the counts and the session.
    let shown = if sketch.bars.is_empty() {
        Ok(SketchAnalysis::default())
    } else {
        sketch_scene(&sketch)
            .map_err(|e| e.to_string())
            .and_then(|scene| {
                let analysis = analyse_scene(&scene).map_err(|e| e.to_string())?;
                let session = at_rest_session(scene)?;
                let path = sketch_path(sketcher, affected.live);
                affected.live.replace_session(session, path);
                affected.camera.keep_view(affected.live.generation);
                sketcher.shows_mechanism = true;
                Ok(analysis)
            })
    };
    sketcher.analysis = shown;
    let redundant = sketcher
        .analysis
        .as_ref()
        .is_ok_and(|a| a.redundancy > 0 && sketcher.shows_mechanism);
    if redundant {
        affected.view.show_reactions = true;
        affected.view.reaction_mode = Some(0);
        sketcher.showing_mode = true;
    } else {
        hide_mode(sketcher, affected.view);
    }
}

/// The session of the sketch's scene, posed at rest (so a singular pose is an event).
fn at_rest_session(scene: crate::scene::Scene) -> Result<LiveSession, String> {
    let x0 = scene.x0.clone();
    let mut session = LiveSession::new(scene).map_err(|e| e.to_string())?;
    session.pose_at(&x0).map_err(|e| e.to_string())?;
    Ok(session)
}

/// Play: the drawn mechanism from its pose with its stated rates, running; Leave: the
/// same, paused.
fn leave(sketcher: &mut Sketcher, request: &SketchRequest, affected: &mut Affected) {
    // Nothing edited: the scene file as it was (its description, settings and view).
    if let Some(file) = sketcher
        .file
        .clone()
        .filter(|f| !sketcher.unsaved && f.exists())
    {
        sketcher.active = false;
        hide_mode(sketcher, affected.view);
        affected.live.load(&file);
        affected.camera.keep_view(affected.live.generation);
        if matches!(request, SketchRequest::Play) {
            affected.live.session.toggle();
        }
        return;
    }
    let sketch = sketcher.sketch();
    if sketch.bars.is_empty() {
        sketcher.refusal = Some("Draw a bar first: there is nothing to run.".into());
        return;
    }
    let session = sketch_scene(sketch)
        .map_err(|e| e.to_string())
        .and_then(|scene| LiveSession::new(scene).map_err(|e| e.to_string()));
    match session {
        Ok(mut session) => {
            if matches!(request, SketchRequest::Play) {
                session.toggle();
            }
            let path = sketch_path(sketcher, affected.live);
            affected.live.replace_session(session, path);
            affected.camera.keep_view(affected.live.generation);
            sketcher.active = false;
            hide_mode(sketcher, affected.view);
        }
        Err(e) => sketcher.refusal = Some(e),
    }
}

/// Turns off the reactions view edit mode turned on to show a self-stress mode.
fn hide_mode(sketcher: &mut Sketcher, view: &mut ViewState) {
    if std::mem::take(&mut sketcher.showing_mode) {
        view.show_reactions = false;
        view.reaction_mode = None;
    }
}

/// The file the session names while editing: the saved file, else where Save would write.
fn sketch_path(sketcher: &Sketcher, live: &Live) -> PathBuf {
    match &sketcher.file {
        Some(file) if !is_shipped(file) => file.clone(),
        _ => save_path_here(sketcher, live),
    }
}

/// A shipped scene is never written over: an edit of one saves under a new name.
fn is_shipped(path: &Path) -> bool {
    let stem = super::files::stem(path);
    crate::scene::SHIPPED_SCENES.contains(&stem.as_str())
}

/// Where Save here writes: the scenes folder (the catalogue's), `<title>.ron` or the edited
/// scene's name with `_edited`, numbered so no file is written over.
fn save_path_here(sketcher: &Sketcher, live: &Live) -> PathBuf {
    if let Some(file) = &sketcher.file
        && !is_shipped(file)
    {
        return file.clone();
    }
    let folder = live
        .path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let base = match &sketcher.file {
        Some(file) => format!("{}_edited", super::files::stem(file)),
        None => file_stem_of(&sketcher.sketch().title),
    };
    (1..)
        .map(|k| {
            let name = if k == 1 {
                format!("{base}.ron")
            } else {
                format!("{base}_{k}.ron")
            };
            folder.join(name)
        })
        .find(|path| !path.exists())
        .expect("some name is free")
}

/// A title as a file name: letters and digits, the rest underscores.
fn file_stem_of(title: &str) -> String {
    let stem: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let stem = stem.trim_matches('_').to_owned();
    if stem.is_empty() {
        "sketch".into()
    } else {
        stem
    }
}

/// Writes the scene file and says where; the session is now that file's (hot reload and the
/// catalogue see it).
fn save(sketcher: &mut Sketcher, path: &Path, live: &mut Live) {
    let path = path.with_extension("ron");
    if is_shipped(&path) {
        live.notice = Some(Notice::lasting(
            format!(
                "{} is a shipped scene: save the edited mechanism under another name.",
                path.display()
            ),
            true,
        ));
        return;
    }
    match crate::source::write(&path, scene_text(sketcher.sketch()).as_bytes()) {
        Ok(()) => {
            sketcher.file = Some(path.clone());
            sketcher.unsaved = false;
            live.path = path.clone();
            live.modified = super::simulation::modified_time(&path);
            live.notice = Some(Notice::brief(format!(
                "Saved the drawn mechanism to {}",
                path.display()
            )));
        }
        Err(e) => {
            live.notice = Some(Notice::lasting(
                format!("Could not save {}: {e}", path.display()),
                true,
            ));
        }
    }
}
