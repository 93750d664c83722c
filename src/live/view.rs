//! Cameras of the mechanism view, as plain math: the planar view (orthographic, pan and zoom
//! about the cursor) and the orbit camera of spatial scenes (perspective, z up). Screen
//! coordinates are pixels with y down, as egui's.

/// Orthographic view of the plane: which world point is at the viewport centre and how many
/// metres the viewport spans horizontally.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarView {
    pub center: [f64; 2],
    pub width: f64,
}

impl PlanarView {
    /// Pixels per metre for a viewport this many pixels wide.
    pub fn scale(&self, viewport_width: f64) -> f64 {
        viewport_width / self.width
    }

    /// World point to screen pixel, in a viewport with this centre and width (pixels).
    pub fn to_screen(
        &self,
        p: [f64; 2],
        viewport_center: [f64; 2],
        viewport_width: f64,
    ) -> [f64; 2] {
        let s = self.scale(viewport_width);
        [
            viewport_center[0] + (p[0] - self.center[0]) * s,
            viewport_center[1] - (p[1] - self.center[1]) * s,
        ]
    }

    /// Screen pixel to world point (inverse of [`PlanarView::to_screen`]).
    pub fn to_world(
        &self,
        q: [f64; 2],
        viewport_center: [f64; 2],
        viewport_width: f64,
    ) -> [f64; 2] {
        let s = self.scale(viewport_width);
        [
            self.center[0] + (q[0] - viewport_center[0]) / s,
            self.center[1] - (q[1] - viewport_center[1]) / s,
        ]
    }

    /// Moves the view by a drag of `delta` pixels (the world follows the cursor).
    pub fn pan(&mut self, delta: [f64; 2], viewport_width: f64) {
        let s = self.scale(viewport_width);
        self.center[0] -= delta[0] / s;
        self.center[1] += delta[1] / s;
    }

    /// Zooms by `factor` (>1 zooms in) keeping the world point under `cursor` fixed.
    pub fn zoom_about(
        &mut self,
        factor: f64,
        cursor: [f64; 2],
        viewport_center: [f64; 2],
        viewport_width: f64,
    ) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let before = self.to_world(cursor, viewport_center, viewport_width);
        self.width = (self.width / factor).clamp(1e-4, 1e4);
        let after = self.to_world(cursor, viewport_center, viewport_width);
        self.center[0] += before[0] - after[0];
        self.center[1] += before[1] - after[1];
    }

    /// A grid spacing (1, 2 or 5 times a power of ten) giving lines about `pixels` apart.
    pub fn grid_step(&self, viewport_width: f64, pixels: f64) -> f64 {
        let raw = pixels / self.scale(viewport_width);
        let decade = 10f64.powf(raw.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * decade)
            .find(|&step| step >= raw)
            .unwrap_or(10.0 * decade)
    }
}

/// Perspective camera orbiting a target, z up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    pub target: [f64; 3],
    /// Azimuth of the eye about z, from the x axis (radians).
    pub yaw: f64,
    /// Elevation of the eye above the xy plane (radians, within +-89 degrees).
    pub pitch: f64,
    pub distance: f64,
    /// Vertical field of view (radians).
    pub fov_y: f64,
}

/// A projected point: normalized screen coordinates (y up, 1 = half the viewport height)
/// and its depth along the view direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    pub x: f64,
    pub y: f64,
    pub depth: f64,
}

const MAX_PITCH: f64 = 89.0 * std::f64::consts::PI / 180.0;

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl OrbitCamera {
    /// A camera looking at `target` from `distance`, slightly from above and the side.
    pub fn looking_at(target: [f64; 3], distance: f64) -> Self {
        Self {
            target,
            yaw: -60f64.to_radians(),
            pitch: 25f64.to_radians(),
            distance,
            fov_y: 40f64.to_radians(),
        }
    }

    /// Eye position and the camera's right, up and forward unit vectors.
    fn frame(&self) -> ([f64; 3], [f64; 3], [f64; 3], [f64; 3]) {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let back = [cp * cy, cp * sy, sp];
        let eye = [
            self.target[0] + self.distance * back[0],
            self.target[1] + self.distance * back[1],
            self.target[2] + self.distance * back[2],
        ];
        let forward = [-back[0], -back[1], -back[2]];
        // right = forward x z, normalised (|forward x z| = cos(pitch) > 0).
        let right = [-sy, cy, 0.0];
        // up = right x forward.
        let up = [
            right[1] * forward[2] - right[2] * forward[1],
            right[2] * forward[0] - right[0] * forward[2],
            right[0] * forward[1] - right[1] * forward[0],
        ];
        (eye, right, up, forward)
    }

    /// Projects a world point; `None` when it is behind (or at) the eye.
    pub fn project(&self, p: [f64; 3]) -> Option<Projected> {
        let (eye, right, up, forward) = self.frame();
        let d = sub(p, eye);
        let depth = dot(d, forward);
        if depth <= 1e-9 * self.distance.max(1e-9) {
            return None;
        }
        let f = 1.0 / (0.5 * self.fov_y).tan();
        Some(Projected {
            x: f * dot(d, right) / depth,
            y: f * dot(d, up) / depth,
            depth,
        })
    }

    /// Turns the camera about the target (radians).
    pub fn orbit(&mut self, d_yaw: f64, d_pitch: f64) {
        self.yaw += d_yaw;
        self.pitch = (self.pitch + d_pitch).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Moves the eye closer (`factor` > 1) or farther.
    pub fn zoom(&mut self, factor: f64) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance / factor).clamp(1e-3, 1e3);
        }
    }
}

#[cfg(test)]
mod tests {
    use approx::assert_abs_diff_eq;

    use super::*;

    #[test]
    fn planar_round_trip_and_zoom_keeps_cursor_point() {
        let mut view = PlanarView {
            center: [1.0, -0.5],
            width: 4.0,
        };
        let (c, w) = ([400.0, 300.0], 800.0);
        let p = [2.5, 0.25];
        let q = view.to_screen(p, c, w);
        // 200 px per metre, y up in the world and down on screen.
        assert_eq!(q, [700.0, 150.0]);
        let back = view.to_world(q, c, w);
        assert_abs_diff_eq!(back.as_slice(), p.as_slice(), epsilon = 1e-12);
        view.zoom_about(2.0, q, c, w);
        assert_abs_diff_eq!(view.width, 2.0, epsilon = 1e-12);
        let still = view.to_world(q, c, w);
        assert_abs_diff_eq!(still.as_slice(), p.as_slice(), epsilon = 1e-12);
        view.pan([100.0, -50.0], w);
        let moved = view.to_screen(p, c, w);
        assert_abs_diff_eq!(
            moved.as_slice(),
            [q[0] + 100.0, q[1] - 50.0].as_slice(),
            epsilon = 1e-9
        );
    }

    #[test]
    fn grid_steps_are_one_two_five() {
        let view = PlanarView {
            center: [0.0, 0.0],
            width: 5.0,
        };
        // 800 px for 5 m: 160 px/m; 60 px is 0.375 m, next nice step 0.5 m.
        assert_abs_diff_eq!(view.grid_step(800.0, 60.0), 0.5, epsilon = 1e-12);
        assert_abs_diff_eq!(view.grid_step(800.0, 10.0), 0.1, epsilon = 1e-12);
    }

    #[test]
    fn orbit_camera_centres_the_target_and_keeps_z_up() {
        let mut cam = OrbitCamera::looking_at([0.0, 0.0, 0.0], 1.0);
        for _ in 0..8 {
            let t = cam.project([0.0, 0.0, 0.0]).unwrap();
            assert_abs_diff_eq!(t.x, 0.0, epsilon = 1e-12);
            assert_abs_diff_eq!(t.y, 0.0, epsilon = 1e-12);
            assert_abs_diff_eq!(t.depth, 1.0, epsilon = 1e-12);
            // A point straight above the target appears above the centre.
            assert!(cam.project([0.0, 0.0, 0.1]).unwrap().y > 0.0);
            cam.orbit(0.7, 0.3);
        }
        // Pitch is clamped short of the pole, so "up" stays defined.
        assert!(cam.pitch < 90f64.to_radians());
        // From the side (yaw 0, pitch 0: eye on +x, looking along -x with z up) the +y axis
        // points to the right.
        let side = OrbitCamera {
            yaw: 0.0,
            pitch: 0.0,
            ..cam
        };
        assert!(side.project([0.0, 0.1, 0.0]).unwrap().x > 0.0);
        assert!(side.project([2.0, 0.0, 0.0]).is_none(), "behind the eye");
    }
}
