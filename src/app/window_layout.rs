//! What the window shows around the canvas, a resource of its own: the side panels, the
//! interface size asked for (at launch, with Ctrl + / Ctrl - / Ctrl 0), and where the canvas
//! was in the last frame (what the app's recording crops to). The layout, the keys,
//! presentation mode and the recorder read it; the drawing does not.

use bevy::prelude::*;

use super::config::ViewConfig;

/// A step of the interface's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    In,
    Out,
    Reset,
}

#[derive(Resource, Clone, Debug)]
pub struct WindowLayout {
    /// Side panels shown (hiding them gives the mechanism the whole width on a projector).
    pub show_controls: bool,
    pub show_plots: bool,
    /// Interface scale to apply on the next frame (`--ui-scale`); egui keeps it afterwards
    /// (Ctrl + / Ctrl - / Ctrl 0 and the View menu change it).
    pub pending_ui_scale: Option<f32>,
    /// Ctrl + / Ctrl - / Ctrl 0 pressed: the interface one step larger, smaller, or 100 %.
    pub pending_zoom: Option<Zoom>,
    /// Where the canvas and its banner (presenting, and the captions under them) were on the
    /// window in the last frame, in physical pixels (x, y, width, height): what the app's
    /// Record button records.
    pub canvas_area: Option<[u32; 4]>,
}

impl Default for WindowLayout {
    fn default() -> Self {
        Self {
            show_controls: true,
            show_plots: true,
            pending_ui_scale: None,
            pending_zoom: None,
            canvas_area: None,
        }
    }
}

impl WindowLayout {
    pub fn from_args(args: &ViewConfig) -> Self {
        Self {
            pending_ui_scale: (args.ui_scale != 1.0).then_some(args.ui_scale),
            show_plots: args.plots,
            ..Self::default()
        }
    }
}
