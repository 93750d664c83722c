//! The mechanism itself: bars as solid rounded shapes with their names, hinges as circles,
//! ground pins with the hatched symbol, point masses and their links.

use bevy::prelude::*;
use bevy_egui::egui::{self, Align2, Pos2, Shape, Stroke, pos2, vec2};

use super::Canvas;
use super::bar_names::{Clearance, KeepClear};
use super::ink::Ink;
use super::projection::Projection;
use super::shapes::{body_point, stadium};
use crate::app::theme::Palette;
use crate::model::{BodyShape, Mechanism};

pub(super) fn ground_symbol(painter: &egui::Painter, p: Pos2, size: f32, palette: &Palette) {
    let stroke = Stroke::new(1.5, palette.ground);
    let base_y = p.y + size;
    let left = pos2(p.x - 0.8 * size, base_y);
    let right = pos2(p.x + 0.8 * size, base_y);
    painter.add(Shape::convex_polygon(
        vec![p, right, left],
        palette.ground.gamma_multiply(0.25),
        stroke,
    ));
    let wide = 1.2 * size;
    painter.line_segment([pos2(p.x - wide, base_y), pos2(p.x + wide, base_y)], stroke);
    let hatch = 6;
    for k in 0..=hatch {
        let x = p.x - wide + 2.0 * wide * k as f32 / hatch as f32;
        painter.line_segment(
            [pos2(x, base_y), pos2(x - 0.45 * size, base_y + 0.45 * size)],
            stroke,
        );
    }
}

/// Width of a bar not pinned to the ground relative to a crank's.
const COUPLER_WIDTH: f32 = 0.6;

/// What [`draw_mechanism`] leaves for the labels painted after it.
pub(super) struct DrawnMechanism {
    /// The bars, the hinges and the ground symbols, for the motions' labels to keep off.
    pub ink: Ink,
    /// The bars as drawn, the hinges and the ground symbols, which their names keep off.
    pub(super) bars: Vec<BarOnScreen>,
    pub(super) hinges: Vec<(Pos2, f32)>,
    pub(super) grounds: Vec<egui::Rect>,
    /// The plates' hulls on the canvas (the traces' names keep off them).
    pub plates: Vec<Vec<Pos2>>,
}

/// Paints the mechanism: links and ground symbols, bars (cranks under couplers), point
/// masses (named where `labels`), hinges on top. The bars' names are placed after the text
/// over the canvas is known ([`DrawnMechanism::place_names`]).
pub(super) fn draw_mechanism(canvas: &Canvas, labels: bool) -> DrawnMechanism {
    let mech = canvas.mech;
    let thickness = Thickness::of(mech);
    // Massless links of distance constraints and ground symbols first, under the bodies.
    let grounds = draw_links_and_grounds(canvas);
    // Bars pinned to the ground (cranks) at full width first, the others (couplers) narrower
    // on top: where a coupler lies on a crank (flat and folded poses) both stay visible.
    let grounded: Vec<bool> = (0..mech.bodies().len())
        .map(|index| mech.joints().iter().any(|j| j.pinned_body() == Some(index)))
        .collect();
    let order: Vec<usize> = (0..mech.bodies().len())
        .filter(|&i| grounded[i])
        .chain((0..mech.bodies().len()).filter(|&i| !grounded[i]))
        .collect();
    let bars = bars_on_screen(canvas, &thickness, &order, &grounded);
    let hinges = hinges_on_screen(canvas, &thickness);
    let mut plates = Vec::new();
    for &index in &order {
        match mech.bodies()[index].shape() {
            BodyShape::Bar { .. } => {
                if let Some(bar) = bars.iter().find(|bar| bar.index == index) {
                    canvas.painter.add(Shape::convex_polygon(
                        stadium(bar.ends[0], bar.ends[1], bar.radius),
                        canvas.palette.bar_fill,
                        Stroke::new(1.5, canvas.palette.bar_edge),
                    ));
                }
            }
            BodyShape::Plate => {
                let centre = body_point(mech, canvas.x, index, &nalgebra::Vector2::zeros());
                let width = thickness.at(canvas.projection, centre) * COUPLER_WIDTH;
                plates.push(super::plates::draw_plate(canvas, index, width));
            }
            BodyShape::PointMass { .. } => draw_point_mass(canvas, index, labels),
            // Drawn by the `spatial` module.
            BodyShape::Solid => {}
        }
    }
    super::plates::draw_planar_joints(canvas);
    draw_hinges(canvas, &hinges);
    let none = Clearance {
        arrows: &[],
        text: &[],
    };
    let ink = KeepClear::new(&none, &grounds, &hinges, &bars).into_ink();
    DrawnMechanism {
        ink,
        bars,
        hinges,
        grounds,
        plates,
    }
}

/// Bar thickness on the screen: from the typical bar length, never thinner than 7 px.
struct Thickness {
    typical: f64,
}

impl Thickness {
    fn of(mech: &Mechanism) -> Self {
        let lengths: Vec<f64> = mech
            .bodies()
            .iter()
            .filter_map(|b| b.bar_length())
            .collect();
        let typical = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / lengths.len() as f64
        };
        Self { typical }
    }

    /// The thickness (pixels) at a world point.
    fn at(&self, projection: &Projection, p: [f64; 3]) -> f32 {
        ((0.08 * self.typical * projection.scale_at(p)) as f32).max(7.0)
    }
}

/// The bars on the screen, in drawing order (`order`: cranks first), each with its half
/// width: a coupler narrower than a crank, so one lying on the other leaves both visible.
fn bars_on_screen(
    canvas: &Canvas,
    thickness: &Thickness,
    order: &[usize],
    grounded: &[bool],
) -> Vec<BarOnScreen> {
    let projection = canvas.projection;
    order
        .iter()
        .filter_map(|&index| {
            let [a, b] = canvas.mech.bar_ends(index, canvas.x)?.map(Into::into);
            let ends = [projection.to_screen(a)?, projection.to_screen(b)?];
            let width = if grounded[index] { 1.0 } else { COUPLER_WIDTH };
            Some(BarOnScreen {
                index,
                ends,
                radius: 0.5 * thickness.at(projection, a) * width,
            })
        })
        .collect()
}

/// The massless links of distance constraints with the ground symbols at their anchors,
/// and the ground symbols of pins. Returns where the symbols are, under their points.
fn draw_links_and_grounds(canvas: &Canvas) -> Vec<egui::Rect> {
    let (mech, projection, painter) = (canvas.mech, canvas.projection, canvas.painter);
    let mut symbols = Vec::new();
    let mut symbol = |p: Pos2, size: f32| {
        ground_symbol(painter, p, size, canvas.palette);
        symbols.push(egui::Rect::from_min_max(
            pos2(p.x - 1.2 * size, p.y + 3.0),
            pos2(p.x + 1.2 * size, p.y + 1.5 * size),
        ));
    };
    for joint in mech.joints() {
        if let Some((body, anchor)) = joint.distance_link() {
            // The anchor in the body's space: a planar one's z is 0.
            let anchor = if mech.bodies()[body].translational_dim() == 3 {
                anchor
            } else {
                [anchor[0], anchor[1], 0.0]
            };
            let tip = body_point(mech, canvas.x, body, &nalgebra::Vector2::zeros());
            if let (Some(p), Some(q)) = (projection.to_screen(anchor), projection.to_screen(tip)) {
                painter.line_segment([p, q], Stroke::new(2.0, canvas.palette.link));
                symbol(p, 12.0);
            }
        } else if let Some(p) = joint.ground_anchor().and_then(|g| projection.to_screen(g)) {
            symbol(p, 14.0);
        }
    }
    symbols
}

/// A bar as drawn: its body index, its ends on the screen and its half width.
pub(super) struct BarOnScreen {
    pub index: usize,
    pub ends: [Pos2; 2],
    pub radius: f32,
}

impl BarOnScreen {
    /// Pixels from `p` to the segment between the bar's ends.
    pub(super) fn axis_distance(&self, p: Pos2) -> f32 {
        let [a, b] = self.ends;
        let ab = b - a;
        let along = ((p - a).dot(ab) / ab.length_sq().max(f32::EPSILON)).clamp(0.0, 1.0);
        (p - (a + along * ab)).length()
    }

    /// Pixels from the rectangle `r` to the segment between the bar's ends (0 where it
    /// crosses the segment), to within a fortieth of the bar's length.
    pub(super) fn axis_distance_to_rect(&self, r: &egui::Rect) -> f32 {
        let [a, b] = self.ends;
        (0..=40)
            .map(|k| r.distance_to_pos(a.lerp(b, k as f32 / 40.0)))
            .fold(f32::INFINITY, f32::min)
    }
}

/// A point mass as a disc (growing nearer the camera in the spatial view), its name beside it.
fn draw_point_mass(canvas: &Canvas, index: usize, labels: bool) {
    let projection = canvas.projection;
    let p = body_point(canvas.mech, canvas.x, index, &nalgebra::Vector2::zeros());
    let Some(q) = projection.to_screen(p) else {
        return;
    };
    let r = match projection {
        Projection::Planar { .. } => 10.0,
        Projection::Orbit { .. } => (0.012 * projection.scale_at(p)).clamp(4.0, 30.0) as f32,
    };
    let palette = canvas.palette;
    canvas
        .painter
        .circle(q, r, palette.bar_fill, Stroke::new(1.5, palette.bar_edge));
    if labels {
        canvas.painter.text(
            q + vec2(r + 6.0, -r - 4.0),
            Align2::LEFT_BOTTOM,
            &canvas.mech.bodies()[index].name,
            canvas.palette.font(14.0),
            palette.text,
        );
    }
}

/// The hinges on the screen: each one's centre and radius (pixels).
fn hinges_on_screen(canvas: &Canvas, thickness: &Thickness) -> Vec<(Pos2, f32)> {
    let mech = canvas.mech;
    mech.joints()
        .iter()
        .filter_map(|joint| {
            let (body, point) = joint.hinge()?;
            let p = body_point(mech, canvas.x, body, &point);
            let q = canvas.projection.to_screen(p)?;
            Some((q, (0.32 * thickness.at(canvas.projection, p)).max(3.5)))
        })
        .collect()
}

/// Hinges as circles on top of the bars.
fn draw_hinges(canvas: &Canvas, hinges: &[(Pos2, f32)]) {
    for &(q, r) in hinges {
        canvas.painter.circle(
            q,
            r,
            canvas.palette.hinge_fill,
            Stroke::new(1.8, canvas.palette.hinge_edge),
        );
    }
}
