//! Shapes and placements the drawings share: a bar's stadium outline, a convex hull, where a
//! body's point is on the canvas, and a body's name placed beside it.

use bevy_egui::egui::{self, Pos2, vec2};
use nalgebra::DVector;

use crate::model::Mechanism;

/// A bar as a convex "stadium": two half discs joined by straight sides.
pub(super) fn stadium(a: Pos2, b: Pos2, radius: f32) -> Vec<Pos2> {
    let d = b - a;
    let angle = d.y.atan2(d.x);
    let segments = 10;
    let mut points = Vec::with_capacity(2 * segments + 2);
    for (end, start_angle) in [
        (b, angle - 0.5 * std::f32::consts::PI),
        (a, angle + 0.5 * std::f32::consts::PI),
    ] {
        for k in 0..=segments {
            let t = start_angle + std::f32::consts::PI * k as f32 / segments as f32;
            points.push(end + radius * vec2(t.cos(), t.sin()));
        }
    }
    points
}

/// Where point `local` (body axes) of `body` is at `x`, for the canvas (z = 0 in the plane;
/// a point mass at its centre).
pub(super) fn body_point(
    mech: &Mechanism,
    x: &DVector<f64>,
    body: usize,
    local: &nalgebra::Vector2<f64>,
) -> [f64; 3] {
    let local = mech.acting_point(body, &nalgebra::Vector3::new(local.x, local.y, 0.0));
    mech.point_of_body(body, &local, x).into()
}

/// A body's name placed beside it, painted after the arrows so that none crosses it.
pub(super) struct BodyName {
    pub rect: egui::Rect,
    pub galley: std::sync::Arc<egui::Galley>,
    /// The name lies over motion arrows (no free place near its bar): it is painted after
    /// them, in a halo instead of on a box, so that both read.
    pub over_arrows: bool,
    /// Where on its body a name placed away from it (bars lying on each other) is tied to.
    pub leader: Option<egui::Pos2>,
}

impl BodyName {
    /// The area the name covers with its backing.
    pub fn area(&self) -> egui::Rect {
        self.rect.expand(1.0)
    }
}

/// The 2D convex hull of `points` (Andrew's monotone chain), counter-clockwise.
pub(super) fn convex_hull(mut points: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * points.len());
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in ordered {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}
