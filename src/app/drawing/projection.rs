//! Maps world points to the canvas: the planar orthographic view or the orbit camera.

use bevy_egui::egui::{Pos2, pos2};

use nalgebra::Vector3;

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

    /// The orbit camera's eye (`None` for the planar view).
    pub(super) fn eye(&self) -> Option<Vector3<f64>> {
        match self {
            Projection::Planar { .. } => None,
            Projection::Orbit { camera, .. } => Some(orbit_eye(camera)),
        }
    }
}

/// Where the orbit camera's eye is: `distance` from the target along the direction of its
/// yaw and pitch.
pub(super) fn orbit_eye(camera: &OrbitCamera) -> Vector3<f64> {
    Vector3::from(camera.target) + camera.distance * orbit_back(camera)
}

/// The unit vector from the orbit camera's target to its eye.
fn orbit_back(camera: &OrbitCamera) -> Vector3<f64> {
    let (sy, cy) = camera.yaw.sin_cos();
    let (sp, cp) = camera.pitch.sin_cos();
    Vector3::new(cp * cy, cp * sy, sp)
}

/// The orbit camera's right and up unit vectors (z up).
pub(super) fn orbit_right_up(camera: &OrbitCamera) -> (Vector3<f64>, Vector3<f64>) {
    let (sy, cy) = camera.yaw.sin_cos();
    let right = Vector3::new(-sy, cy, 0.0);
    let up = right.cross(&-orbit_back(camera));
    (right, up)
}
