//! Planar plates and the joints that have no hinge symbol: a plate is drawn as the convex
//! hull of the points its revolute joints, pins and knife edges use (a rounded link when they
//! are collinear); a knife edge as a wheel, a dark rounded segment across its normal at the
//! contact point; a prismatic joint as its slot, a line from the guide's point along the axis
//! through the slider's point, with `d(t)` beside it when a driver moves it.

use bevy_egui::egui::{Align2, Pos2, Shape, Stroke};
use nalgebra::Vector2;

use super::Canvas;
use super::shapes::{body_point, stadium};
use crate::model::{LocalPoint, Mechanism};

/// Half the length of a knife edge's wheel, in metres.
const WHEEL_HALF_LENGTH: f64 = 0.04;

/// The points of `body` that its revolute joints, pins and knife edges use (body axes).
fn plate_points(mech: &Mechanism, body: usize) -> Vec<LocalPoint> {
    std::iter::once(LocalPoint::zeros())
        .chain(
            mech.joints()
                .iter()
                .filter_map(|joint| joint.held_point(body)),
        )
        .collect()
}

/// Convex hull of screen points, counter-clockwise (the spatial view's hull, in pixels).
fn convex_hull(points: Vec<Pos2>) -> Vec<Pos2> {
    let points = points
        .iter()
        .map(|p| [f64::from(p.x), f64::from(p.y)])
        .collect();
    super::shapes::convex_hull(points)
        .iter()
        .map(|p| Pos2::new(p[0] as f32, p[1] as f32))
        .collect()
}

/// Paints plate `index`: its hull filled, or a rounded link between its two farthest points.
/// Returns the hull, on the canvas.
pub(super) fn draw_plate(canvas: &Canvas, index: usize, width: f32) -> Vec<Pos2> {
    let points: Vec<Pos2> = plate_points(canvas.mech, index)
        .iter()
        .filter_map(|p| {
            let world = body_point(canvas.mech, canvas.x, index, p);
            canvas.projection.to_screen(world)
        })
        .collect();
    let hull = convex_hull(points);
    let (fill, edge) = (canvas.palette.bar_fill, canvas.palette.bar_edge);
    let outline = Stroke::new(1.5, edge);
    let thin = hull.len() < 3 || hull_area(&hull) < width * width;
    if thin {
        let (a, b) = farthest_pair(&hull);
        canvas.painter.add(Shape::convex_polygon(
            stadium(a, b, 0.5 * width),
            fill,
            outline,
        ));
    } else {
        // A rounded outline: the hull stroked as wide as a bar, then filled.
        let mut closed = hull.clone();
        closed.push(hull[0]);
        canvas
            .painter
            .add(Shape::line(closed, Stroke::new(width, edge)));
        canvas
            .painter
            .add(Shape::convex_polygon(hull.clone(), fill, Stroke::NONE));
    }
    hull
}

/// Pixels from `p` to the convex polygon `hull` (counter-clockwise or clockwise), 0 inside.
pub(super) fn distance_to_hull(p: Pos2, hull: &[Pos2]) -> f32 {
    let n = hull.len();
    let edges = (0..n).map(|i| (hull[i], hull[(i + 1) % n]));
    let to_edges = edges
        .clone()
        .map(|(a, b)| {
            let ab = b - a;
            let t = ((p - a).dot(ab) / ab.length_sq().max(1e-12)).clamp(0.0, 1.0);
            p.distance(a + t * ab)
        })
        .fold(f32::INFINITY, f32::min);
    let cross = |(a, b): (Pos2, Pos2)| (b - a).x * (p - a).y - (b - a).y * (p - a).x;
    let inside = n >= 3
        && (edges.clone().all(|e| cross(e) >= 0.0) || edges.clone().all(|e| cross(e) <= 0.0));
    if inside { 0.0 } else { to_edges }
}

fn hull_area(hull: &[Pos2]) -> f32 {
    let n = hull.len();
    0.5 * (0..n)
        .map(|i| {
            let (p, q) = (hull[i], hull[(i + 1) % n]);
            p.x * q.y - q.x * p.y
        })
        .sum::<f32>()
        .abs()
}

fn farthest_pair(points: &[Pos2]) -> (Pos2, Pos2) {
    let mut best = (points[0], points[0], 0.0);
    for (i, p) in points.iter().enumerate() {
        for q in &points[i + 1..] {
            let d = (*p - *q).length();
            if d > best.2 {
                best = (*p, *q, d);
            }
        }
    }
    (best.0, best.1)
}

/// Knife edges as wheels, prismatic joints as slots, sliders as blocks on their guides.
pub(super) fn draw_planar_joints(canvas: &Canvas) {
    let (mech, x) = (canvas.mech, canvas.x);
    for joint in mech.joints() {
        if let Some((body, point, origin, axis)) = joint.guide() {
            let [px, py, _] = body_point(mech, x, body, &point);
            draw_guide(canvas, Vector2::new(px, py), origin, axis);
        }
        if let Some((body, point, normal)) = joint.wheel() {
            let along = Vector2::new(-normal.y, normal.x) * WHEEL_HALF_LENGTH;
            let ends = [point - along, point + along]
                .map(|p| canvas.projection.to_screen(body_point(mech, x, body, &p)));
            if let [Some(a), Some(b)] = ends {
                canvas.painter.add(Shape::convex_polygon(
                    stadium(a, b, 3.5),
                    canvas.palette.ground,
                    Stroke::new(1.0, canvas.palette.text),
                ));
            }
        }
        if let Some((ends, driver)) = joint.slide() {
            let ends =
                ends.map(|(body, p)| canvas.projection.to_screen(body_point(mech, x, body, &p)));
            let [Some(p), Some(q)] = ends else {
                continue;
            };
            if driver {
                canvas.painter.text(
                    p + 0.5 * (q - p) + bevy_egui::egui::vec2(8.0, 0.0),
                    Align2::LEFT_CENTER,
                    "d(t)",
                    canvas.palette.font(12.0),
                    canvas.palette.text,
                );
            } else {
                draw_slot(canvas, p, q);
            }
        }
    }
}

/// A slider: its guide, a ground line through `origin` along `axis` across the view with
/// hatching under it, and the block at `at` (world) along it.
fn draw_guide(canvas: &Canvas, at: Vector2<f64>, origin: Vector2<f64>, axis: Vector2<f64>) {
    let screen = |p: Vector2<f64>| canvas.projection.to_screen([p.x, p.y, 0.0]);
    let reach = 1e3;
    let (Some(a), Some(b), Some(block)) = (
        screen(origin - reach * axis),
        screen(origin + reach * axis),
        screen(at),
    ) else {
        return;
    };
    let stroke = Stroke::new(2.0, canvas.palette.ground);
    canvas.painter.line_segment([a, b], stroke);
    let along = (b - a).normalized();
    let across = bevy_egui::egui::vec2(along.y, -along.x);
    // Hatching under the guide near the block, where the eye looks.
    for k in -6..=6 {
        let foot = block + along * (12.0 * k as f32);
        canvas.painter.line_segment(
            [foot, foot - across * 8.0 - along * 5.0],
            Stroke::new(1.0, canvas.palette.ground),
        );
    }
    let half = [along * 14.0, across * 8.0];
    let corners = [
        block - half[0] - half[1],
        block + half[0] - half[1],
        block + half[0] + half[1],
        block - half[0] + half[1],
    ];
    canvas.painter.add(Shape::convex_polygon(
        corners.to_vec(),
        canvas.palette.bar_fill,
        Stroke::new(1.5, canvas.palette.bar_edge),
    ));
}

/// The slot between a prismatic joint's two points.
fn draw_slot(canvas: &Canvas, p: Pos2, q: Pos2) {
    canvas.painter.add(Shape::dashed_line(
        &[p, q],
        Stroke::new(2.0, canvas.palette.link),
        6.0,
        4.0,
    ));
    for end in [p, q] {
        canvas.painter.rect_stroke(
            bevy_egui::egui::Rect::from_center_size(end, bevy_egui::egui::vec2(9.0, 9.0)),
            1.0,
            Stroke::new(1.5, canvas.palette.link),
            bevy_egui::egui::StrokeKind::Middle,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_inside_a_plate_is_at_no_distance_and_one_outside_at_its_edges() {
        let square = [
            Pos2::new(0.0, 0.0),
            Pos2::new(10.0, 0.0),
            Pos2::new(10.0, 10.0),
            Pos2::new(0.0, 10.0),
        ];
        assert_eq!(distance_to_hull(Pos2::new(5.0, 5.0), &square), 0.0);
        assert_eq!(distance_to_hull(Pos2::new(13.0, 5.0), &square), 3.0);
        assert_eq!(distance_to_hull(Pos2::new(13.0, 14.0), &square), 5.0);
        let reversed: Vec<Pos2> = square.iter().rev().copied().collect();
        assert_eq!(distance_to_hull(Pos2::new(5.0, 5.0), &reversed), 0.0);
    }
}
