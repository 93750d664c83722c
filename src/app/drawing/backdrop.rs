//! What lies behind the mechanism: the planar grid with its scale bar, and the floor grid
//! and axes of the spatial view.

use bevy::prelude::*;
use bevy_egui::egui::{self, Align2, Pos2, Stroke, pos2, vec2};

use super::projection::Projection;
use super::spatial::{Floor, floor_fill};
use crate::app::simulation::Live;
use crate::app::theme::Palette;
use crate::live::PlanarView;
use crate::model::BodyShape;

/// Draws the grid and the scale bar (clear of `avoid`, the mechanism's box on the screen,
/// where it can be); returns the scale bar's area.
pub(super) fn draw_grid(
    painter: &egui::Painter,
    rect: egui::Rect,
    view: &PlanarView,
    center: [f64; 2],
    width: f64,
    palette: &Palette,
    avoid: Option<egui::Rect>,
) -> egui::Rect {
    let step = view.grid_step(width, 70.0);
    let lo = view.to_world(
        [f64::from(rect.left()), f64::from(rect.bottom())],
        center,
        width,
    );
    let hi = view.to_world(
        [f64::from(rect.right()), f64::from(rect.top())],
        center,
        width,
    );
    let grid = Stroke::new(1.0, palette.grid);
    let axis = Stroke::new(1.5, palette.axis);
    let mut k = (lo[0] / step).floor() as i64;
    while (k as f64) * step <= hi[0] && k < (lo[0] / step).floor() as i64 + 500 {
        let wx = k as f64 * step;
        let sx = view.to_screen([wx, 0.0], center, width)[0] as f32;
        painter.line_segment(
            [pos2(sx, rect.top()), pos2(sx, rect.bottom())],
            if k == 0 { axis } else { grid },
        );
        k += 1;
    }
    let mut k = (lo[1] / step).floor() as i64;
    while (k as f64) * step <= hi[1] && k < (lo[1] / step).floor() as i64 + 500 {
        let wy = k as f64 * step;
        let sy = view.to_screen([0.0, wy], center, width)[1] as f32;
        painter.line_segment(
            [pos2(rect.left(), sy), pos2(rect.right(), sy)],
            if k == 0 { axis } else { grid },
        );
        k += 1;
    }
    let px = (step * view.scale(width)) as f32;
    draw_scale_bar(painter, rect, px, step, palette, avoid)
}

/// The scale bar, `px` pixels for `step` metres, with its length written after it on one
/// line low in the canvas' bottom left corner (below the ground symbols of a fitted pose,
/// which a label above the bar would meet), or the bottom right where the left one would lie on the
/// mechanism (its box on the screen, `avoid`); returns its area.
fn draw_scale_bar(
    painter: &egui::Painter,
    rect: egui::Rect,
    px: f32,
    step: f64,
    palette: &Palette,
    avoid: Option<egui::Rect>,
) -> egui::Rect {
    let galley = painter.layout_no_wrap(format_length(step), palette.font(13.0), palette.text);
    let gap = 6.0;
    let half = 0.5 * galley.size().y.max(10.0);
    let area = |a: Pos2| {
        egui::Rect::from_min_max(
            a - vec2(2.0, half),
            a + vec2(px + gap + galley.size().x, half),
        )
    };
    let y = rect.bottom() - 6.0 - half;
    let left = pos2(rect.left() + 16.0, y);
    let right = pos2(rect.right() - 16.0 - (area(left).width() - 2.0), y);
    let covers = |a: Pos2| avoid.is_some_and(|pose| area(a).intersects(pose));
    let a = if covers(left) && !covers(right) {
        right
    } else {
        left
    };
    let b = a + vec2(px, 0.0);
    let s = Stroke::new(2.0, palette.text);
    painter.line_segment([a, b], s);
    painter.line_segment([a - vec2(0.0, 5.0), a + vec2(0.0, 5.0)], s);
    painter.line_segment([b - vec2(0.0, 5.0), b + vec2(0.0, 5.0)], s);
    let corner = b + vec2(gap, -0.5 * galley.size().y);
    // The area the scale bar takes (the motions' labels keep off it).
    let taken = area(a).expand(6.0);
    painter.galley(corner, galley, palette.text);
    taken
}

pub(super) fn format_length(metres: f64) -> String {
    if metres >= 1.0 {
        format!("{metres} m")
    } else if metres >= 0.01 {
        format!("{} cm", (metres * 100.0 * 1e6).round() / 1e6)
    } else {
        format!("{} mm", (metres * 1000.0 * 1e6).round() / 1e6)
    }
}

/// The floor's grid (and, under a mechanism of rigid bodies, its fill: their shadows fall on
/// it), and the world axes from the origin.
pub(super) fn draw_floor(
    painter: &egui::Painter,
    projection: &Projection,
    live: &Live,
    palette: &Palette,
    floor: &Floor,
    filled: bool,
) {
    if filled && let Some(fill) = floor_fill(projection, floor, palette) {
        painter.add(fill);
    }
    let size = 2.0 * floor.half;
    let half = floor.half;
    let [cx, cy] = floor.centre;
    let z = floor.z;
    let n = floor.cells;
    let grid = Stroke::new(1.0, palette.grid);
    for i in 0..=n {
        let s = -half + size * i as f64 / n as f64;
        for (a, b) in [
            ([cx + s, cy - half, z], [cx + s, cy + half, z]),
            ([cx - half, cy + s, z], [cx + half, cy + s, z]),
        ] {
            if let (Some(p), Some(q)) = (projection.to_screen(a), projection.to_screen(b)) {
                painter.line_segment([p, q], grid);
            }
        }
    }
    // Axes from the origin: x, y, z, out to the floor's edge and at least a third beyond the
    // farthest body, so that their labels are not under a body. The camera looks down on
    // the pivot from a little above, so a tip may fall outside the canvas (z above it): the
    // axis stops short of the canvas edge instead, its label still inside.
    let x = live.session.simulation().positions();
    let reach = live
        .session
        .scene()
        .mechanism
        .bodies()
        .iter()
        .filter(|b| b.shape() == BodyShape::PointMass { spatial: true })
        .map(|b| (x[b.offset].powi(2) + x[b.offset + 1].powi(2) + x[b.offset + 2].powi(2)).sqrt())
        .fold(0.0, f64::max);
    let length = half.max(1.35 * reach);
    let inside = painter.clip_rect().shrink(18.0);
    let o = projection.to_screen([0.0, 0.0, 0.0]);
    let axes = [
        ([length, 0.0, 0.0], "x", palette.motions[5]),
        ([0.0, length, 0.0], "y", palette.motions[2]),
        ([0.0, 0.0, length], "z", palette.motions[3]),
    ];
    for (tip, name, color) in axes {
        let (Some(o), Some(t)) = (o, projection.to_screen(tip)) else {
            continue;
        };
        let t = clip_to(o, t, inside);
        painter.line_segment([o, t], Stroke::new(1.5, color.gamma_multiply(0.8)));
        let along = (t - o).normalized();
        painter.text(
            t + 9.0 * along,
            Align2::CENTER_CENTER,
            name,
            palette.font(15.0),
            color,
        );
    }
}

/// The end of the segment from `o` towards `t` where it leaves `rect` (`t` itself if it
/// stays inside; `o` is assumed inside).
fn clip_to(o: egui::Pos2, t: egui::Pos2, rect: egui::Rect) -> egui::Pos2 {
    if !rect.contains(o) {
        return t;
    }
    let mut s: f32 = 1.0;
    for k in 0..2 {
        let d = t[k] - o[k];
        if t[k] > rect.max[k] {
            s = s.min((rect.max[k] - o[k]) / d);
        } else if t[k] < rect.min[k] {
            s = s.min((rect.min[k] - o[k]) / d);
        }
    }
    o + s.max(0.0) * (t - o)
}
