//! Admissible motions as arrows on the mechanism: one colour per column of `T`, continued
//! columns solid, new ones dashed, branches dotted, each motion labelled where its label
//! covers no other. Each arrow starts at its point; only arrows from one point that go the
//! same way, and would hide each other, are drawn side by side (fanned out across their
//! direction): those of different motions, and those of one motion at a point two bodies
//! share on the screen (collinear bars at a flat pose).

use bevy::prelude::*;
use bevy_egui::egui::{self, Color32, Pos2, Shape, Stroke, vec2};
use nalgebra::DVector;

use super::ink::Ink;
use super::{Canvas, ViewState};
use crate::app::theme::Palette;
use crate::live::motions::{self, Motion, MotionRole};

/// How many label heights (or half widths) a label may move from its arrow to find a free
/// place.
const MAX_LABEL_SHIFT: usize = 8;

/// Pixels between the arrows of two motions drawn from the same point: an arrow head's width,
/// so that heads side by side do not cover each other.
const FAN_SPACING: f32 = 11.0;

/// Opacity of the motions other than the one highlighted in the panel.
const DIMMED: f32 = 0.2;

/// The arrows of the motions drawn on a canvas, laid out on the screen before the bars are
/// drawn (their names keep clear of them) and painted after the bars and the names.
pub(super) struct MotionArrows {
    /// The motions drawn: indices into the motions shown.
    visible: Vec<usize>,
    /// Per motion drawn, its arrows (origin, vector) scaled as painted.
    scaled: Vec<Vec<(Pos2, egui::Vec2)>>,
    /// Per motion drawn and arrow, its offset across its direction ([`arrow_lanes`]).
    lanes: Vec<Vec<f32>>,
}

impl MotionArrows {
    /// The arrows of the `shown` motions drawn ([`ViewState::motion_drawn`]).
    pub(super) fn lay_out(
        canvas: &Canvas,
        shown: &[Motion],
        view: &ViewState,
        at_event: bool,
    ) -> Self {
        // The longest arrow of each motion gets this many pixels: columns of T are unit
        // vectors, only their shape on the mechanism matters.
        let target = 0.16 * canvas.rect.width().min(canvas.rect.height());
        let visible: Vec<usize> = (0..shown.len())
            .filter(|&k| view.motion_drawn(k, &shown[k], at_event))
            .collect();
        let scaled: Vec<Vec<(Pos2, egui::Vec2)>> = visible
            .iter()
            .map(|&k| {
                let (screen, longest) = screen_arrows(canvas, &shown[k].column);
                let scale = if longest > 1e-9 {
                    target / longest
                } else {
                    0.0
                };
                screen.into_iter().map(|(p, v)| (p, v * scale)).collect()
            })
            .collect();
        let lanes = arrow_lanes(&scaled);
        Self {
            visible,
            scaled,
            lanes,
        }
    }

    /// Where the arrows are (their heads, and their shafts in steps of a few pixels), for
    /// the bodies' names to keep clear of them.
    pub(super) fn footprint(&self) -> Vec<egui::Rect> {
        const STEP: f32 = 8.0;
        self.scaled
            .iter()
            .zip(&self.lanes)
            .flat_map(|(arrows, lanes)| arrows.iter().zip(lanes))
            .filter(|((_, v), _)| v.length() >= SHORTEST_ARROW)
            .flat_map(|(&(p, v), &lane)| {
                let across = vec2(-v.y, v.x) / v.length();
                let start = p + lane * across;
                let steps = (v.length() / STEP).ceil() as usize;
                let shaft = (0..steps).map(move |k| {
                    let at = start + v * (k as f32 / steps as f32);
                    egui::Rect::from_center_size(at, vec2(4.0, 4.0))
                });
                shaft.chain([head_rect(start + v, v)])
            })
            .collect()
    }
}

/// Paints the `arrows` of the `shown` motions and places their labels clear of the text
/// `avoid` and of each other, on as little of the `ink` (bars, hinges, arrows) as a place
/// near their arrows allows, for [`paint_labels`] to paint after every arrow.
pub(super) fn draw_motions(
    canvas: &Canvas,
    shown: &[Motion],
    arrows: MotionArrows,
    view: &ViewState,
    (avoid, ink): (&[egui::Rect], &Ink),
    listed_half: bool,
    last_labels: &mut LabelSpots,
) -> Vec<PlacedLabel> {
    let rect = canvas.rect;
    let MotionArrows {
        visible,
        scaled,
        lanes,
    } = arrows;
    let mut labels = Vec::new();
    // Labels go where no text is yet (the legend and the time are drawn first).
    let mut placed_labels: Vec<egui::Rect> = avoid.to_vec();
    for ((&k, screen), lanes) in visible.iter().zip(scaled).zip(lanes) {
        let motion = &shown[k];
        if screen.iter().all(|(_, v)| v.length() <= 1e-9) {
            continue;
        }
        let dimmed = listed_half && view.highlighted_motion.is_some_and(|h| h != k);
        let color = if dimmed {
            canvas.palette.motion(k).gamma_multiply(DIMMED)
        } else {
            canvas.palette.motion(k)
        };
        let dash = match motion.role {
            MotionRole::New => Some((7.0, 5.0)),
            MotionRole::Branch => Some((2.5, 4.0)),
            _ => None,
        };
        let style = ArrowStyle { color, dash };
        // The name only: the legend says what a branch is, and a long label has to move
        // further from its arrows to find a free place.
        // The label keeps its motion's full colour when the arrows dim: faded, it read 2.4:1
        // on the light theme (trial 19).
        let label_color = canvas.palette.motion_label(k);
        let galley = canvas.painter.layout_no_wrap(
            motion.label.clone(),
            canvas.palette.font(15.0),
            label_color,
        );
        let label_size = galley.size() + vec2(6.0, 6.0);
        let (label_spots, tips) = paint_arrows(canvas.painter, &screen, &lanes, &style, label_size);
        let place = place_label_after(
            &label_spots,
            label_size,
            (&placed_labels, ink),
            (rect, last_labels.get(&k).copied()),
        );
        match place {
            Some((r, _)) => last_labels.insert(k, r.center()),
            None => last_labels.remove(&k),
        };
        if let Some((r, spot)) = place {
            // A label moved from its spot is tied to the arrow's tip, not to the spot.
            let tip = label_spots
                .iter()
                .zip(&tips)
                .find(|((_, at), _)| *at == spot)
                .map_or(spot, |(_, tip)| *tip);
            placed_labels.push(r);
            labels.push(PlacedLabel {
                rect: r,
                anchor: tip,
                galley,
                color: label_color,
            });
        }
    }
    labels
}

/// The box around the head [`arrow_head`] paints at `tip` for the arrow `v`.
fn head_rect(tip: Pos2, v: egui::Vec2) -> egui::Rect {
    let d = v.normalized();
    let n = vec2(-d.y, d.x);
    let back = tip - HEAD_SIZE * d;
    egui::Rect::from_points(&[tip, back + 0.5 * HEAD_SIZE * n, back - 0.5 * HEAD_SIZE * n])
}

/// Length and width (pixels) of an arrow head.
const HEAD_SIZE: f32 = 11.0;

/// Arrows shorter than this (pixels) are not drawn: a point at rest, or nearly.
const SHORTEST_ARROW: f32 = 4.0;
/// Screen points closer than this (pixels) are one point for the arrows' lanes.
const SAME_POINT: f32 = 2.0;
/// Arrows from one point that differ by less than this (pixels) look the same.
const SAME_ARROW_PX: f32 = 3.0;

/// How far (pixels) each arrow is moved across its direction, per motion (`arrows[m]`: the
/// screen arrows of the m-th motion drawn, scaled as painted) and arrow. An arrow stays on
/// its point unless others from the same point go the same way (within about 20 degrees),
/// which would hide it: such a bundle is fanned out, one lane per different arrow, centred
/// on the point. Different arrows of one motion from one point (at a flat pose two bars lie
/// on top of each other, and their centres coincide while their velocities differ) get lanes
/// of their own too, so that a shorter arrow is not hidden inside a longer one of the same
/// colour; the same arrow twice (a hinge shared by two bars) keeps one.
fn arrow_lanes(arrows: &[Vec<(Pos2, egui::Vec2)>]) -> Vec<Vec<f32>> {
    let mut lanes: Vec<Vec<f32>> = arrows.iter().map(|m| vec![0.0; m.len()]).collect();
    let drawn: Vec<(usize, usize)> = arrows
        .iter()
        .enumerate()
        .flat_map(|(m, motion)| (0..motion.len()).map(move |i| (m, i)))
        .filter(|&(m, i)| arrows[m][i].1.length() >= SHORTEST_ARROW)
        .collect();
    let mut bundled = vec![false; drawn.len()];
    for first in 0..drawn.len() {
        if bundled[first] {
            continue;
        }
        let (p, v) = arrows[drawn[first].0][drawn[first].1];
        let bundle: Vec<usize> = (first..drawn.len())
            .filter(|&k| {
                let (q, w) = arrows[drawn[k].0][drawn[k].1];
                !bundled[k]
                    && q.distance(p) <= SAME_POINT
                    && v.normalized().dot(w.normalized()) >= OVERLAPPING_COS
            })
            .collect();
        // One lane per motion and different arrow.
        let mut distinct: Vec<(usize, egui::Vec2)> = Vec::new();
        let lane_of: Vec<usize> = bundle
            .iter()
            .map(|&k| {
                let (m, i) = drawn[k];
                let w = arrows[m][i].1;
                distinct
                    .iter()
                    .position(|&(n, d)| n == m && (d - w).length() <= SAME_ARROW_PX)
                    .unwrap_or_else(|| {
                        distinct.push((m, w));
                        distinct.len() - 1
                    })
            })
            .collect();
        let middle = 0.5 * (distinct.len() as f32 - 1.0);
        for (&k, &lane) in bundle.iter().zip(&lane_of) {
            bundled[k] = true;
            let (m, i) = drawn[k];
            lanes[m][i] = (lane as f32 - middle) * FAN_SPACING;
        }
    }
    lanes
}

/// Arrows from one point whose directions' cosine is at least this (about 20 degrees apart)
/// cover each other.
const OVERLAPPING_COS: f32 = 0.94;

/// The arrows of the motion `column` on the screen: each arrow's origin and its velocity in
/// pixels per unit of velocity, and the longest of those lengths.
fn screen_arrows(canvas: &Canvas, column: &DVector<f64>) -> (Vec<(Pos2, egui::Vec2)>, f32) {
    let projection = canvas.projection;
    let rigid_points = canvas.rigid.map_or(&[][..], |r| r.arrow_points.as_slice());
    let arrows = motions::arrows_at(canvas.mech, canvas.x, column, rigid_points);
    // Screen length of each arrow per unit of velocity, measured by projecting its tip.
    let probe = 1e-3;
    let mut longest = 0.0f32;
    let mut screen = Vec::with_capacity(arrows.len());
    for arrow in &arrows {
        let o = arrow.origin;
        let tip = [
            o[0] + probe * arrow.velocity[0],
            o[1] + probe * arrow.velocity[1],
            o[2] + probe * arrow.velocity[2],
        ];
        if let (Some(p), Some(q)) = (projection.to_screen(o), projection.to_screen(tip)) {
            let v = (q - p) / probe as f32;
            longest = longest.max(v.length());
            screen.push((p, v));
        }
    }
    (screen, longest)
}

/// How one motion's arrows look: their colour, and dashes and gaps (solid without).
struct ArrowStyle {
    color: Color32,
    dash: Option<(f32, f32)>,
}

/// Paints one motion's arrows (`screen`, scaled as they are painted), each moved across its
/// direction by its lane (pixels, from [`arrow_lanes`]). Returns, per arrow drawn, its
/// length and where a label of `label_size` would name it, and its tip.
fn paint_arrows(
    painter: &egui::Painter,
    screen: &[(Pos2, egui::Vec2)],
    lanes: &[f32],
    style: &ArrowStyle,
    label_size: egui::Vec2,
) -> (Vec<(f32, Pos2)>, Vec<Pos2>) {
    let stroke = Stroke::new(3.0, style.color);
    let mut label_spots: Vec<(f32, Pos2)> = Vec::with_capacity(screen.len());
    let mut tips = Vec::with_capacity(screen.len());
    for (&(p, v), &lane) in screen.iter().zip(lanes) {
        if v.length() < SHORTEST_ARROW {
            continue;
        }
        let across = vec2(-v.y, v.x) / v.length();
        let p = p + lane * across;
        let tip = p + v;
        if let Some((dash, gap)) = style.dash {
            painter.extend(Shape::dashed_line(&[p, tip - 0.1 * v], stroke, dash, gap));
        } else {
            painter.line_segment([p, tip - 0.1 * v], stroke);
        }
        arrow_head(painter, tip, v, style.color);
        label_spots.push((v.length(), label_spot(tip, v, label_size)));
        tips.push(tip);
    }
    (label_spots, tips)
}

/// Where (the centre) each shown motion's label stood on the last frame of one canvas, by
/// the motion's place among those shown.
pub(super) type LabelSpots = std::collections::HashMap<usize, Pos2>;

/// A label placed on the canvas, painted after every arrow (so none crosses it).
pub(super) struct PlacedLabel {
    pub rect: egui::Rect,
    /// The tip of the arrow the label names.
    pub anchor: Pos2,
    pub galley: std::sync::Arc<egui::Galley>,
    pub color: Color32,
}

/// A label further than this (pixels) from the arrow tip it names gets a leader line to it...
const LEADER_FROM: f32 = 8.0;
/// ... unless it is further than this, or the line would pass under another label: a long
/// line across the mechanism (at A02's flat pose side by side, down through a pivot and
/// past the arrow it names), or one that seems to end at another motion's label, says less
/// than none; the label's colour names its motion.
const LEADER_TO: f32 = 40.0;

/// Paints labels on an opaque backing: a translucent one over the arrows is grey on the light
/// theme's white, and the label hard to read. A label that had to move away from its arrow
/// (the spots near it were taken) is tied to the arrow's tip by a thin line, unless the line
/// would pass under another label or the `text` (the bars' names: a line through "coupler2"
/// read as a stroke of it).
pub(super) fn paint_labels(
    painter: &egui::Painter,
    labels: Vec<PlacedLabel>,
    text: &[egui::Rect],
    palette: &Palette,
) {
    for (i, label) in labels.iter().enumerate() {
        let nearest = label.anchor.clamp(label.rect.min, label.rect.max);
        let length = nearest.distance(label.anchor);
        let under_another = || {
            let others = labels
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, other)| other.rect);
            others.chain(text.iter().copied()).any(|other| {
                (1..20).any(|k| other.contains(label.anchor.lerp(nearest, k as f32 / 20.0)))
            })
        };
        if length > LEADER_FROM && length <= LEADER_TO && !under_another() {
            painter.line_segment(
                [label.anchor, nearest],
                Stroke::new(1.0, label.color.gamma_multiply(0.8)),
            );
        }
    }
    for label in labels {
        painter.rect_filled(label.rect, 3.0, palette.background);
        painter.galley(label.rect.min + vec2(3.0, 3.0), label.galley, label.color);
    }
}

/// Where a motion's label goes, and the spot it names: beyond the tip of one of its longest
/// arrows (`spots` holds each arrow's screen length and the point just past its tip), or
/// moved from the best of those spots (up or down by half label heights, at most
/// `MAX_LABEL_SHIFT` heights, sideways by quarter widths, at most two), never over a label
/// already `placed`, and of those places the one whose move plus [`INK_COST`] per piece of
/// `ink` it covers is least (a label over a bar or an arrow hides what it names; one moved
/// far from its arrow reads as another's). Several motions at a singular configuration often
/// have their longest arrows at the same hinge. Labels are kept inside `bounds` (the canvas),
/// shifted in from its edges; with no free place, the best spot itself.
#[cfg(test)]
pub(super) fn place_label(
    spots: &[(f32, Pos2)],
    size: egui::Vec2,
    (placed, ink): (&[egui::Rect], &Ink),
    bounds: egui::Rect,
) -> Option<(egui::Rect, Pos2)> {
    place_label_after(spots, size, (placed, ink), (bounds, None))
}

/// [`place_label`] for a label centred at `last` on the last frame: moves from its best
/// spot count from the long arrow's spot nearest there, and a place costs
/// [`LAST_COST`] per pixel from there too, so a label stays with its arrows from frame to
/// frame (trial 19: "T1" changed place nearly every frame of a video while its longest
/// arrow changed).
pub(super) fn place_label_after(
    spots: &[(f32, Pos2)],
    size: egui::Vec2,
    (placed, ink): (&[egui::Rect], &Ink),
    (bounds, last): (egui::Rect, Option<Pos2>),
) -> Option<(egui::Rect, Pos2)> {
    // Arrows at least this fraction of the longest one are good places for the label.
    const LONG_ENOUGH: f32 = 0.6;
    let longest = spots
        .iter()
        .map(|(length, _)| *length)
        .fold(0.0f32, f32::max);
    if longest <= 0.0 {
        return None;
    }
    let free = |r: &egui::Rect| placed.iter().all(|other| !other.intersects(*r));
    let inside = |r: egui::Rect| {
        let dx = (bounds.left() - r.left()).max(0.0) + (bounds.right() - r.right()).min(0.0);
        let dy = (bounds.top() - r.top()).max(0.0) + (bounds.bottom() - r.bottom()).min(0.0);
        r.translate(vec2(dx, dy))
    };
    let mut candidates: Vec<&(f32, Pos2)> = spots
        .iter()
        .filter(|(length, _)| *length >= LONG_ENOUGH * longest)
        .collect();
    match last {
        Some(last) => candidates.sort_by(|a, b| a.1.distance(last).total_cmp(&b.1.distance(last))),
        None => candidates.sort_by(|a, b| b.0.total_cmp(&a.0)),
    }
    let anchor = candidates[0].1;
    let best = inside(egui::Rect::from_center_size(anchor, size));
    let reach = 2 * MAX_LABEL_SHIFT as i32;
    let mut shifts: Vec<egui::Vec2> = (-reach..=reach)
        .flat_map(|i| {
            (-8..=8).map(move |j| vec2(0.25 * j as f32 * size.x, 0.5 * i as f32 * size.y))
        })
        .collect();
    // Stable: of two as near, the one above (a label under the mechanism is nearer the
    // plots and the edge).
    shifts.sort_by(|a, b| a.length().total_cmp(&b.length()));
    // Each long arrow's own spot (no move), then the moves from the best one, nearest first.
    let at_spots = candidates
        .iter()
        .map(|(_, at)| (0.0, inside(egui::Rect::from_center_size(*at, size)), *at));
    let moved = shifts
        .into_iter()
        .map(|shift| (shift.length(), inside(best.translate(shift)), anchor));
    let mut chosen: Option<(f32, egui::Rect, Pos2)> = None;
    for (moved_by, r, at) in at_spots.chain(moved) {
        // Nearest first: no later place can cost less than the chosen one.
        if chosen.is_some_and(|(cost, ..)| moved_by >= cost) {
            break;
        }
        if !free(&r) {
            continue;
        }
        let from_last = last.map_or(0.0, |last| r.center().distance(last));
        let cost = moved_by + INK_COST * ink.covered(&r) as f32 + LAST_COST * from_last;
        if chosen.is_none_or(|(least, ..)| cost < least) {
            chosen = Some((cost, r, at));
        }
    }
    Some(chosen.map_or((best, anchor), |(_, r, at)| (r, at)))
}

/// What a pixel from where a label stood on the last frame costs its place, in pixels of
/// moving it from its arrow.
const LAST_COST: f32 = 0.5;

/// What covering one piece of ink costs a label's place, in pixels of moving it from its
/// arrow: crossing an arrow's shaft (two or three pieces) is worth moving the label a label
/// height or two.
const INK_COST: f32 = 16.0;

/// Centre of a label of `size` named after the arrow `v` ending at `tip`: beyond the tip
/// along the arrow, clear of its head by a few pixels whatever the label's extent (at a
/// larger interface scale a label centred just past the tip hid the head: "T3" read as a
/// "T" on its shaft).
fn label_spot(tip: Pos2, v: egui::Vec2, size: egui::Vec2) -> Pos2 {
    let d = v.normalized();
    let half_extent = 0.5 * (d.x.abs() * size.x + d.y.abs() * size.y);
    tip + (LABEL_GAP + half_extent) * d
}

/// Pixels between an arrow's tip and its label.
const LABEL_GAP: f32 = 3.0;

pub(super) fn arrow_head(painter: &egui::Painter, tip: Pos2, v: egui::Vec2, color: Color32) {
    let d = v.normalized();
    let n = vec2(-d.y, d.x);
    let size = HEAD_SIZE;
    painter.add(Shape::convex_polygon(
        vec![
            tip,
            tip - size * d + 0.5 * size * n,
            tip - size * d - 0.5 * size * n,
        ],
        color,
        Stroke::NONE,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_egui::egui::pos2;

    /// A label stays by the long arrow nearest where it stood on the last frame, though
    /// another grew a little longer (trial 19: "T1" changed place nearly every frame of a
    /// video); with no last place, by the longest.
    #[test]
    fn a_label_stays_by_the_arrow_it_named_on_the_last_frame() {
        let size = vec2(30.0, 16.0);
        let spots = [(100.0, Pos2::new(0.0, 0.0)), (90.0, Pos2::new(200.0, 0.0))];
        let none: (&[egui::Rect], &Ink) = (&[], &Ink::default());
        let (_, first) = place_label_after(&spots, size, none, (everywhere(), None)).unwrap();
        assert_eq!(first, Pos2::new(0.0, 0.0));
        let last = Some(Pos2::new(200.0, -4.0));
        let (r, anchor) = place_label_after(&spots, size, none, (everywhere(), last)).unwrap();
        assert_eq!(anchor, Pos2::new(200.0, 0.0));
        assert!(r.center().distance(Pos2::new(200.0, 0.0)) < 1.0, "{r:?}");
    }

    #[test]
    fn labels_of_motions_with_the_same_longest_arrow_do_not_overlap() {
        let size = vec2(80.0, 20.0);
        // Two motions whose longest arrows end at the same hinge; the second also has a
        // long arrow elsewhere, and a third has only that one hinge.
        let first = [(100.0, pos2(200.0, 100.0)), (40.0, pos2(300.0, 100.0))];
        let second = [(100.0, pos2(200.0, 100.0)), (90.0, pos2(400.0, 100.0))];
        let third = [(100.0, pos2(200.0, 100.0))];
        let mut placed = Vec::new();
        let mut anchors = Vec::new();
        for spots in [&first[..], &second[..], &third[..]] {
            let (r, anchor) = place_label(spots, size, (&placed, &Ink::default()), everywhere())
                .expect("a label");
            assert!(
                placed.iter().all(|p: &egui::Rect| !p.intersects(r)),
                "{r:?} overlaps {placed:?}"
            );
            placed.push(r);
            anchors.push(anchor);
        }
        // Each label names the arrow tip it was placed for: the stacked one still its hinge
        // (it gets a leader line there).
        assert_eq!(
            anchors,
            [pos2(200.0, 100.0), pos2(400.0, 100.0), pos2(200.0, 100.0)]
        );
        // The second label moved to its other long arrow, the third was stacked above.
        assert_eq!(placed[1].center(), pos2(400.0, 100.0));
        assert_eq!(placed[2].center().x, 200.0);
        assert!(placed[2].center().y < 100.0);
    }

    /// The right half of A02's first event side by side, presenting at 1280x720: the label's
    /// spot under the canvas' bottom is taken (a bar's name), as is every whole label height
    /// above it (the bars' names, the legend's last row by 0.3 px) and every half width
    /// sideways (the scale bar, the other names); a free place remains up and to the right.
    #[test]
    fn a_label_finds_the_free_place_between_names_legend_and_scale_bar() {
        let rect = |x0, y0, x1, y1| egui::Rect::from_min_max(pos2(x0, y0), pos2(x1, y1));
        let placed = [
            rect(528.0, 168.9, 613.3, 187.7),
            rect(599.1, 241.5, 654.5, 264.5),
            rect(694.3, 241.5, 749.7, 264.5),
            rect(789.5, 241.5, 844.9, 264.5),
            rect(685.6, 292.6, 758.4, 315.6),
            rect(780.8, 292.6, 853.6, 315.6),
            rect(498.0, 287.2, 597.2, 320.7),
        ];
        let bounds = rect(484.0, 68.9, 960.0, 332.7);
        let size = vec2(122.8, 29.2);
        let spot = pos2(674.4, 330.0);
        let (r, _) =
            place_label(&[(100.0, spot)], size, (&placed, &Ink::default()), bounds).unwrap();
        assert!(placed.iter().all(|p| !p.intersects(r)), "{r:?}");
        assert!(bounds.contains_rect(r), "{r:?}");
    }

    /// A02's flat pose: an arrow's tip spot lies on the row of bars (a bar lying across the
    /// spot, a hinge at it) and another motion's arrow crosses just above; the label moves to
    /// the nearest place on no ink, within a label height and a half of its spot.
    #[test]
    fn a_label_moves_off_bars_hinges_and_arrows_near_its_spot() {
        let spot = pos2(200.0, 100.0);
        let size = vec2(60.0, 20.0);
        let mut ink = Ink::default();
        ink.segment(pos2(0.0, 100.0), pos2(400.0, 100.0), 5.0);
        ink.disc(pos2(210.0, 100.0), 5.0);
        ink.segment(pos2(150.0, 80.0), pos2(250.0, 80.0), 2.0);
        let (r, anchor) = place_label(&[(50.0, spot)], size, (&[], &ink), everywhere()).unwrap();
        assert_eq!(anchor, spot);
        assert_eq!(ink.covered(&r), 0, "{r:?}");
        assert!(r.center().distance(spot) <= 1.5 * size.y, "{r:?}");
        // Below the row: above it the other arrow's shaft is in the way.
        assert!(r.center().y > spot.y, "{r:?}");
    }

    #[test]
    fn no_label_without_arrows() {
        assert!(place_label(&[], vec2(10.0, 10.0), (&[], &Ink::default()), everywhere()).is_none());
    }

    #[test]
    fn labels_stay_inside_the_canvas() {
        let canvas = egui::Rect::from_min_max(pos2(0.0, 0.0), pos2(500.0, 300.0));
        let (r, anchor) = place_label(
            &[(100.0, pos2(495.0, 5.0))],
            vec2(80.0, 20.0),
            (&[], &Ink::default()),
            canvas,
        )
        .unwrap();
        assert!(canvas.contains_rect(r), "{r:?}");
        assert_eq!(anchor, pos2(495.0, 5.0));
        assert_eq!(r.right(), 500.0);
        assert_eq!(r.top(), 0.0);
    }

    #[test]
    fn a_label_clears_its_arrow_head_in_every_direction() {
        let size = vec2(60.0, 24.0);
        let tip = pos2(300.0, 200.0);
        for angle in (0..16).map(|k| k as f32 * std::f32::consts::TAU / 16.0) {
            let v = 50.0 * vec2(angle.cos(), angle.sin());
            let label = egui::Rect::from_center_size(label_spot(tip, v, size), size);
            assert!(
                !label.contains(tip),
                "angle {angle}: {label:?} covers the tip"
            );
            // The head is the triangle back from the tip; its base corners too.
            let d = v.normalized();
            let n = vec2(-d.y, d.x);
            for corner in [tip - 11.0 * d + 5.5 * n, tip - 11.0 * d - 5.5 * n] {
                assert!(
                    !label.contains(corner),
                    "angle {angle}: {label:?} covers the head"
                );
            }
        }
    }

    #[test]
    fn only_arrows_that_would_cover_each_other_leave_their_point() {
        let (hinge, centre, end) = (pos2(100.0, 100.0), pos2(200.0, 100.0), pos2(300.0, 100.0));
        let down = |length: f32| vec2(0.0, length);
        // At a flat pose the centres of two bars coincide with different velocities (the
        // first motion's two arrows there); the second motion has one arrow there.
        let first = vec![
            (hinge, down(50.0)),
            (centre, down(25.0)),
            (centre, down(60.0)),
            (end, down(40.0)),
        ];
        // Its hinge arrow goes the other way, a point at rest is drawn not at all, and at
        // the end it goes sideways.
        let second = vec![
            (hinge, down(-40.0)),
            (centre, down(0.0)),
            (centre, down(30.0)),
            (end, vec2(40.0, 0.0)),
        ];
        let lanes = arrow_lanes(&[first, second]);
        // Opposite or crossing arrows from one point hide nothing: they stay on it.
        assert_eq!((lanes[0][0], lanes[1][0]), (0.0, 0.0));
        assert_eq!((lanes[0][3], lanes[1][3]), (0.0, 0.0));
        // At the centre three arrows down: three lanes a fan spacing apart, centred.
        let mut at_centre = [lanes[0][1], lanes[0][2], lanes[1][2]];
        at_centre.sort_by(f32::total_cmp);
        assert_eq!(at_centre, [-FAN_SPACING, 0.0, FAN_SPACING]);
    }

    #[test]
    fn two_motions_along_one_arrow_lie_side_by_side() {
        let p = pos2(10.0, 10.0);
        // 10 degrees apart: they would cover each other.
        let turned = 30.0 * vec2(10f32.to_radians().cos(), 10f32.to_radians().sin());
        let lanes = arrow_lanes(&[vec![(p, vec2(30.0, 0.0))], vec![(p, turned)]]);
        assert_eq!(lanes, [vec![-0.5 * FAN_SPACING], vec![0.5 * FAN_SPACING]]);
    }

    #[test]
    fn the_same_arrow_twice_keeps_one_lane() {
        // A hinge shared by two bars gives the same arrow from each.
        let p = pos2(10.0, 10.0);
        let lanes = arrow_lanes(&[vec![(p, vec2(30.0, 0.0)), (p, vec2(30.5, 0.0))]]);
        assert_eq!(lanes, [vec![0.0, 0.0]]);
    }

    fn everywhere() -> egui::Rect {
        egui::Rect::from_min_max(pos2(-1e6, -1e6), pos2(1e6, 1e6))
    }
}
