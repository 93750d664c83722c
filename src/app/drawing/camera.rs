//! The canvas' camera: the planar view and the orbit camera, and what fitting them
//! remembers (`fit`), a resource of its own: the display choices ([`super::ViewState`]) do
//! not move it, and it knows nothing of them.

use bevy::prelude::*;
use bevy_egui::egui;

use crate::live::framing;
use crate::live::{OrbitCamera, PlanarView};

#[derive(Resource, Clone, Debug, Default)]
pub struct CanvasCamera {
    pub(super) planar: Option<PlanarView>,
    pub(super) orbit: Option<OrbitCamera>,
    /// The scene the view was set up for (from its view hints) on loading.
    pub(super) fitted_generation: Option<u64>,
    /// "Fit view" asked for: fit the current pose on the next frame.
    pub(super) fit_requested: bool,
    /// A singular event was reached: if the pose runs off the canvas and the user has not
    /// panned or zoomed since the view was set up, fit it on the next frame.
    pub(super) check_pose_visible: bool,
    /// The session was paused at the last frame: a pause (the user's, or a stop) checks that
    /// the pose is on the canvas, as a singular event does.
    pub(super) was_paused: bool,
    /// The poses of the last running frames (`fit::RECENT_FRAMES`), brought into sight
    /// together when the pose runs off the canvas.
    pub(super) recent: std::collections::VecDeque<framing::PlaneBox>,
    /// The canvas' size in the last frame.
    pub(super) canvas_size: Option<bevy_egui::egui::Vec2>,
    /// The user panned or zoomed the planar view since it was last set up or fitted.
    pub(super) moved_by_user: bool,
    /// The layout the view was set up for (side by side, presenting): turning either on or
    /// off goes back to the scene's view (a view panned or zoomed on the whole canvas may
    /// cut the mechanism off a half; presenting, the canvas changes its size and shape).
    pub(super) fitted_layout: (bool, bool),
    /// How far down from the canvas' top the legend and the time reached in the last frame:
    /// "Fit view" places the mechanism below them.
    pub(super) overlay_height: f32,
    /// The legend's and the time's areas in the last frame: the reactions, drawn before
    /// them, keep their numbers off them.
    pub(super) overlay: Vec<egui::Rect>,
    /// A video's frame: the box of every pose its run reaches, which the view fits once
    /// ([`framing::run_box`]) instead of the scene's view and the pose at each event.
    pub motion_box: Option<framing::PlaneBox>,
    /// The state jump (a seek, an undo, a reset) the view last saw: after another, the poses
    /// of the `recent` frames belong to a run no longer shown.
    pub(super) seen_jump: Option<u64>,
    /// When a vehicle's view last followed it (the next step pans by the time since).
    pub(super) followed_at: Option<web_time::Instant>,
    /// The frame of the scene's run while the user drives it.
    pub(super) run_frame: super::run_frame::RunFrame,
}

impl CanvasCamera {
    /// Fits the view to the mechanism's current pose on the next frame (F, double-click,
    /// the menus); a loaded scene starts from its view hints instead.
    pub fn refit(&mut self) {
        self.fit_requested = true;
    }

    /// A new session of the same drawing (an edit in the sketcher): the view stays as it is.
    pub fn keep_view(&mut self, generation: u64) {
        self.fitted_generation = Some(generation);
        self.check_pose_visible = false;
        self.run_frame.suspend();
    }

    /// Whether the frame of the scene's run is traced for `live`'s state (a screenshot waits
    /// for it).
    pub fn is_settled(&self, live: &crate::app::simulation::Live) -> bool {
        self.run_frame.is_settled(live)
    }

    /// Shows this area (centre and width, m) from now on, as the user had panned there.
    pub fn show_area(&mut self, center: [f64; 2], width: f64) {
        self.planar = Some(crate::live::PlanarView { center, width });
        self.moved_by_user = true;
    }
}
