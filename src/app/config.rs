//! What the visualizer is asked to open and do: the scene, the basis, when to stop by itself,
//! a screenshot or a frame measurement, the window. `singulab view`'s options convert into a
//! [`ViewConfig`]; the bare `singulab` opens [`ViewConfig::default`].

use std::path::PathBuf;

use crate::solver::BasisMode;

/// When the visualizer stops the simulation by itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewStop {
    /// Runs until the user pauses (the app still pauses at singular events).
    Never,
    /// Runs to this simulated time and pauses.
    Time(f64),
    /// Pauses at the first singular event, as the app's auto-pause does.
    UntilEvent,
}

/// How the visualizer opens.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewConfig {
    /// The scene file; `None` is the double four-bar (`app::default_scene_path`).
    pub scene: Option<PathBuf>,
    pub basis: BasisMode,
    pub stop: ViewStop,
    /// Write a PNG of the window after the stop and `after_frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    pub after_frames: u32,
    pub light: bool,
    /// Opens with the traditional and the continued basis side by side.
    pub side_by_side: bool,
    /// Opens with the reactions shown, and self-stress mode `mode` (1-based) drawn.
    pub reactions: bool,
    pub mode: Option<usize>,
    /// Window size in logical pixels.
    pub size: (u32, u32),
    /// Solver step instead of the scene's.
    pub dt: Option<f64>,
    /// Run this many frames, print the CPU time per frame (solver, UI) and exit.
    pub measure_frames: Option<u32>,
    /// Size of the whole interface (text, panels, canvas labels) relative to the default.
    pub ui_scale: f32,
    /// Opens in presentation mode (no side panels, large type, captions, no notices).
    pub presentation: bool,
    /// The picture of a video (`singulab record`): no controls, timeline or key hints.
    pub video: bool,
    /// The plots shown (a video leaves them out unless asked).
    pub plots: bool,
    /// Presenting, the configuration-space plot beside the canvas (`record --atlas`, key G).
    pub atlas: bool,
}

impl Default for ViewConfig {
    fn default() -> Self {
        Self {
            scene: None,
            basis: BasisMode::Continued,
            stop: ViewStop::Never,
            screenshot: None,
            after_frames: 5,
            light: false,
            side_by_side: false,
            reactions: false,
            mode: None,
            size: (1600, 900),
            ui_scale: 1.0,
            dt: None,
            measure_frames: None,
            presentation: false,
            video: false,
            plots: true,
            atlas: false,
        }
    }
}
