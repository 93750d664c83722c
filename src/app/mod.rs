//! The visualizer (behind the default `app` feature): a Bevy app whose plugins wrap the
//! Bevy-free [`crate::live`] session.
//!
//! | plugin | owns |
//! |---|---|
//! | [`SimulationPlugin`] | the [`Live`] session, stepping it in `FixedUpdate` within a per-frame budget, applying [`AppCommand`]s, emitting [`SingularityReached`], [`SceneLoaded`], [`SolverFailed`] |
//! | [`DrawingPlugin`] | the mechanism canvas: cameras, grid, bars, joints, trace, admissible-motion arrows |
//! | [`PanelsPlugin`] | the egui layout: menu and transport bar, scene/solver/motion panels, status line |
//! | [`PlotsPlugin`] | the egui_plot panel over the session's history, CSV export |
//! | [`AtlasViewPlugin`] | the scene's configuration-space atlas, traced on a thread when it loads, and its plot |
//! | [`SceneFileInputPlugin`] | `.ron` files dropped on the window, reload when the scene file changes ([`ScenePollInterval`]) |
//! | [`ShortcutsPlugin`] | keyboard shortcuts (while egui does not have the keyboard focus) |
//! | [`FilesPlugin`] | rfd open/save dialogs on tasks, CSV export, screenshots on request |
//! | [`CapturePlugin`] | `view --screenshot`: run to the stop, let frames render, save the PNG, exit |
//! | [`RecordPlugin`] | `singulab record` and the Record button: a fixed simulated time per frame, each frame's screenshot to an encoder thread (MP4 through ffmpeg, GIF, PNG) |
//! | [`PresentationPlugin`] | presentation mode (P, `--presentation`): no panels, large type, captions, no cursor |
//! | `WindowFitPlugin` | a window larger than its monitor takes the monitor's size |
//! | [`SketcherPlugin`] | edit mode (E, File > New mechanism): the [`Sketcher`] and its requests, the drawn mechanism shown at rest |
//!
//! Schedules: `FixedUpdate` steps the solver; in `Update` the sets of [`SingulabSystems`] run
//! in the order configured here (input, then commands, then files and capture); the egui pass
//! draws the whole layout from one system, because egui 0.36 panels nest in one root `Ui`.

mod actions;
mod atlas_view;
mod capture;
mod commands;
pub mod config;
mod cpu_clock;
mod drawing;
mod files;
mod font_warmup;
mod gif_video;
mod input;
mod lesson;
mod plots;
mod presentation;
mod record;
mod record_encode;
mod shown;
mod simulation;
mod sketcher;
mod theme;
mod ui;
mod video_folder;
pub mod web;
mod window_fit;
mod window_layout;

use std::path::{Path, PathBuf};

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy::winit::WinitSettings;
use bevy_egui::EguiPlugin;

use crate::lesson::is_lesson_file;
use crate::live::LiveSession;
use crate::live::recording::{RecordPlan, prepare_output};
use lesson::LessonRun;

pub use atlas_view::{AtlasView, AtlasViewPlugin};
pub use capture::{CaptureMode, CapturePlugin};
pub use commands::{AppCommand, SketchRequest};
pub use config::{ViewConfig, ViewStop};
pub use drawing::{CanvasCamera, DrawingPlugin, ViewState};
pub use files::FilesPlugin;
pub use input::{SceneFileInputPlugin, ScenePollInterval, ShortcutsPlugin};
pub use plots::PlotsPlugin;
pub use presentation::{Presentation, PresentationPlugin};
pub use record::{FrameTick, RecordPlugin, Recorder};
pub use simulation::{
    FrameBudget, FrameStats, Live, Notice, SceneLoaded, SimulationPlugin, SingularityReached,
    SolverFailed,
};
pub use sketcher::{Sketcher, SketcherPlugin};
pub use ui::PanelsPlugin;
pub use window_layout::{WindowLayout, Zoom};

/// Ordering of the app's systems in `Update`, configured once in [`SingulabPlugins`].
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum SingulabSystems {
    /// Keyboard, dropped files, file watching: turned into [`AppCommand`]s.
    Input,
    /// Commands applied to the session (load, play, settings, push...).
    Commands,
    /// File dialogs in flight, screenshots.
    Output,
}

/// All of Singulab's plugins, in dependency order.
pub struct SingulabPlugins;

impl PluginGroup for SingulabPlugins {
    fn build(self) -> PluginGroupBuilder {
        let group = PluginGroupBuilder::start::<Self>()
            .add(SimulationPlugin)
            .add(DrawingPlugin)
            .add(PlotsPlugin)
            .add(AtlasViewPlugin)
            .add(PanelsPlugin)
            .add(SceneFileInputPlugin)
            .add(ShortcutsPlugin)
            .add(FilesPlugin)
            .add(CapturePlugin)
            .add(RecordPlugin)
            .add(PresentationPlugin)
            .add(SketcherPlugin)
            .add(window_fit::WindowFitPlugin);
        #[cfg(target_arch = "wasm32")]
        let group = group.add(web::WebPagePlugin);
        group
    }
}

/// Configures the system-set order used by all plugins.
pub(crate) fn configure_sets(app: &mut App) {
    app.configure_sets(
        Update,
        (
            SingulabSystems::Input,
            SingulabSystems::Commands,
            SingulabSystems::Output,
        )
            .chain(),
    );
}

/// The scene opened when none is given: the double four-bar, from `scenes/` next to the
/// working directory or, failing that, the source tree the binary was built from.
pub fn default_scene_path() -> PathBuf {
    let local = Path::new("scenes").join("double_four_bar.ron");
    // A browser has no files: the shipped scene is compiled in under this path.
    if cfg!(target_arch = "wasm32") || local.exists() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join("double_four_bar.ron")
}

/// Opens the visualizer. A scene that fails to load opens the window on the default scene
/// with the error in its banner, as a reload does; a screenshot or a measurement, which
/// scripts run, fail with it instead.
pub fn run(args: ViewConfig) -> Result<(), String> {
    launch(args, None, |_| {})
}

/// `singulab record`: opens the window on `view`, records `plan` (frames to its `t_end`, or
/// the scene's) and exits once the video is written.
pub fn record(view: ViewConfig, plan: RecordPlan) -> Result<(), String> {
    record_with(view, plan, |_| {})
}

/// [`record`] with more of the app: `setup` adds, say, a lesson player that reads
/// [`Recorder::next_frame`] and sends [`AppCommand`]s in [`SingulabSystems::Input`].
pub fn record_with(
    view: ViewConfig,
    plan: RecordPlan,
    setup: impl FnOnce(&mut App),
) -> Result<(), String> {
    launch(view, Some(plan), setup)
}

/// Opens the window; with a plan, records it.
fn launch(
    args: ViewConfig,
    plan: Option<RecordPlan>,
    setup: impl FnOnce(&mut App),
) -> Result<(), String> {
    let launched = web_time::Instant::now();
    let mut capture = CaptureMode::from_args(&args);
    if plan.is_some() {
        capture = capture.recording();
    }
    let path = args.scene.clone().unwrap_or_else(default_scene_path);
    let ((session, lesson), path, startup_error) = match open_session(&path) {
        Ok(opened) => (opened, path, None),
        Err(error) if capture.is_interactive() && path != default_scene_path() => {
            let fallback = default_scene_path();
            let opened = open_session(&fallback).map_err(|_| error.clone())?;
            (opened, fallback, Some(error))
        }
        Err(error) => return Err(error),
    };
    let title = simulation::window_title(&session);
    // A recording's output is checked (ffmpeg, a writable file) before the window opens.
    let video_end = plan
        .as_ref()
        .and_then(|plan| plan.t_end)
        .unwrap_or(session.scene().t_end);
    let recorder = match plan {
        Some(mut plan) => {
            prepare_output(&plan)?;
            plan.t_end = Some(plan.t_end.unwrap_or(session.scene().t_end));
            Recorder::for_command_line(plan)
        }
        None => Recorder::default(),
    };
    check_display()?;
    let mut live = Live::new(session, path);
    live.lesson = lesson;
    if let Some(error) = startup_error {
        live.notice = Some(Notice::lasting(error, true));
    }
    let failure = capture.failure_slot();
    let view = ViewState::from_args(&args);
    let layout = WindowLayout::from_args(&args);
    let mut camera = CanvasCamera::default();
    if args.video {
        let lesson = live.lesson.as_ref().map(|run| &run.player);
        camera.motion_box = crate::live::framing::run_box(&live.session, lesson, video_end);
        // The video is framed on that box: the lesson's own frame is not traced.
        if let Some(run) = live.lesson.as_mut() {
            run.frame = lesson::LessonFrame::Traced(None);
        }
    }

    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title,
            resolution: WindowResolution::from(args.size),
            // In a browser: the page's canvas, as large as the page gives it.
            canvas: cfg!(target_arch = "wasm32").then(|| "#singulab".to_owned()),
            fit_canvas_to_parent: cfg!(target_arch = "wasm32"),
            ..default()
        }),
        ..default()
    }))
    // Frames keep coming when unfocused (Xvfb has no focus; live plots need it anyway).
    .insert_resource(WinitSettings::continuous())
    .add_plugins(EguiPlugin::default())
    .insert_resource(live)
    .insert_resource(capture)
    .insert_resource(view)
    .insert_resource(camera)
    .insert_resource(layout)
    .insert_resource(FrameStats::since(launched))
    .insert_resource(recorder)
    .insert_resource(Presentation::launched(args.presentation, args.ui_scale))
    .add_plugins(SingulabPlugins);
    setup(&mut app);
    match app.run() {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => Err(failure
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
            .unwrap_or_else(|| format!("the visualizer exited with code {code}"))),
    }
}

/// The session of a scene file, or of a lesson file with the lesson waiting to be played.
fn open_session(path: &Path) -> Result<(LiveSession, Option<LessonRun>), String> {
    if is_lesson_file(path) {
        shown::open_lesson(path).map(|(session, run)| (session, Some(run)))
    } else {
        simulation::open_scene(path).map(|session| (session, None))
    }
}

/// A window needs a display server; without one winit would panic deep inside the event
/// loop, so say it in one line instead.
fn check_display() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("DISPLAY") || set("WAYLAND_DISPLAY") {
        Ok(())
    } else {
        Err(
            "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); \
             run it on a desktop or under xvfb-run, or use `singulab run` without a window"
                .into(),
        )
    }
}
