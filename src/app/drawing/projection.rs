//! Maps world points to the canvas: the planar orthographic view or the orbit camera.

use bevy_egui::egui::{Pos2, pos2};

use crate::live::{OrbitCamera, PlanarView};

/// Maps world points to the canvas.
pub(super) enum Projection {
    Planar {
        view: PlanarView,
        center: [f64; 2],
        width: f64,
    },
    Orbit {
        camera: OrbitCamera,
        center: Pos2,
        half_height: f64,
    },
}

impl Projection {
    pub(super) fn to_screen(&self, p: [f64; 3]) -> Option<Pos2> {
        match self {
            Projection::Planar {
                view,
                center,
                width,
            } => {
                let q = view.to_screen([p[0], p[1]], *center, *width);
                Some(pos2(q[0] as f32, q[1] as f32))
            }
            Projection::Orbit {
                camera,
                center,
                half_height,
            } => camera.project(p).map(|q| {
                pos2(
                    center.x + (q.x * half_height) as f32,
                    center.y - (q.y * half_height) as f32,
                )
            }),
        }
    }

    /// Pixels per metre at a world point.
    pub(super) fn scale_at(&self, p: [f64; 3]) -> f64 {
        match self {
            Projection::Planar { view, width, .. } => view.scale(*width),
            Projection::Orbit {
                camera,
                half_height,
                ..
            } => camera.project(p).map_or(0.0, |q| {
                half_height / (0.5 * camera.fov_y).tan() / q.depth.max(1e-9)
            }),
        }
    }
}
