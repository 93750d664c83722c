//! The window fits the screen it opens on: a window larger than its monitor (the default
//! 1600x900 on a 1280x720 projector) is cut off at the screen's edges, with the canvas'
//! right side and the status line out of sight. Interactive windows only: a screenshot or a
//! recording keeps the size asked for, whatever the screen.

use bevy::prelude::*;
use bevy::window::{Monitor, PrimaryMonitor, PrimaryWindow, WindowPosition};

use super::capture::CaptureMode;

pub struct WindowFitPlugin;

impl Plugin for WindowFitPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, fit_window_to_monitor);
    }
}

/// Once the primary monitor is known: a window larger than it takes the monitor's size, at
/// its corner.
fn fit_window_to_monitor(
    mut done: Local<bool>,
    capture: Res<CaptureMode>,
    monitors: Query<&Monitor, With<PrimaryMonitor>>,
    mut windows: Query<&mut Window, With<PrimaryWindow>>,
) {
    if *done || !capture.is_interactive() {
        return;
    }
    let (Ok(monitor), Ok(mut window)) = (monitors.single(), windows.single_mut()) else {
        return;
    };
    *done = true;
    let (width, height) = (monitor.physical_width, monitor.physical_height);
    let size = window.resolution.physical_size();
    // Each side at most the monitor's.
    let fitted = size.min(UVec2::new(width, height));
    if width == 0 || height == 0 || fitted == size {
        return;
    }
    window
        .resolution
        .set_physical_resolution(fitted.x, fitted.y);
    window.position = WindowPosition::At(monitor.physical_position);
}
