//! What the user asks for, from the panels, the keyboard or a dropped file, as one message
//! type the simulation plugin applies between frames (so the egui pass only reads state).

use std::path::PathBuf;

use bevy::prelude::*;
use nalgebra::DVector;

use crate::live::TracePoint;
use crate::solver::Settings;

#[derive(Message, Clone, Debug)]
pub enum AppCommand {
    TogglePlay,
    SingleStep,
    Reset,
    /// Index into [`crate::live::SPEEDS`].
    SetSpeedIndex(usize),
    /// One speed step faster (+1) or slower (-1).
    ChangeSpeed(i32),
    SetSettings(Box<Settings>),
    SetAutoPause(bool),
    OpenScene(PathBuf),
    ReloadScene,
    /// Ask for a scene with the file dialog.
    OpenDialog,
    /// Ask where to save the plotted history as CSV.
    ExportCsvDialog,
    /// Save the plotted history as CSV in the working directory, no dialog.
    ExportCsvHere,
    /// Save a screenshot of the window in the working directory, named uniquely.
    SaveScreenshot,
    /// Start recording the window to a uniquely named video, or stop.
    ToggleRecording,
    /// Presentation mode on or off (no side panels, large type, captions).
    TogglePresentation,
    /// Show the run at this time (the timeline under the canvas).
    Seek(f64),
    /// Undo the last push, leave or drag.
    Undo,
    /// Grab a point of a body: posing it while paused, pulling it with a spring while running.
    BeginDrag(crate::solver::GrabPoint),
    /// Move the grabbed point's target (world coordinates).
    DragTo([f64; 3]),
    EndDrag,
    /// Pose the mechanism at these positions, at rest (a point of the configuration-space
    /// plot clicked).
    PoseAt(nalgebra::DVector<f64>),
    /// Ask where to save what the user did as a lesson.
    SaveLessonDialog,
    /// Save what the user did as a lesson file.
    SaveLesson(PathBuf),
    GotoEvent(usize),
    /// Push along a motion (unit vector in `x` space) by about `delta` in velocity.
    Push {
        /// The motion's name as listed ("T1 continued", "new 2").
        label: String,
        column: DVector<f64>,
        delta: f64,
        duration: f64,
        /// What to tell the user once the push has started (advice on its likely effect).
        note: Option<String>,
    },
    /// Leave the current singular event along a direction, with the event's kinetic energy
    /// or at a given speed.
    Leave {
        /// The branch's name as listed ("branch 1").
        label: String,
        direction: DVector<f64>,
        speed: Option<f64>,
    },
    SetTrace(Option<TracePoint>),
    /// The points of rigid bodies whose paths are traced: body and point in body axes.
    SetTracedPoints(Vec<(usize, nalgebra::Vector3<f64>)>),
    ClearTrace,
    /// Edit mode: the sketcher's requests ([`SketchRequest`]).
    Sketch(SketchRequest),
    /// A motion chosen or hidden by its key while a lesson plays: the lesson holds where it is
    /// so the user can look (Space goes on with it, Enter takes over).
    HoldLesson,
}

/// What the user asks of the sketcher (edit mode).
#[derive(Clone, Debug)]
pub enum SketchRequest {
    /// Edit the scene shown (planar bars, pivots and revolute joints).
    EditScene,
    /// Start from an empty sketch.
    New,
    /// One edit of the sketch.
    Edit(crate::sketch::SketchCommand),
    /// One step of a gesture (a point dragged, a value dragged): the whole gesture is one
    /// undo step.
    Continue(crate::sketch::SketchCommand),
    /// The gesture is over.
    EndGesture,
    Undo,
    Redo,
    /// Leave edit mode and run the drawn mechanism from its pose.
    Play,
    /// Leave edit mode, the drawn mechanism at rest.
    Leave,
    /// Ask where to save the sketch as a scene file.
    SaveDialog,
    /// Save the sketch as a scene file here.
    Save(PathBuf),
    /// Save it in the scenes folder under a new name, no dialog.
    SaveHere,
}
