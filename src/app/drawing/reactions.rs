//! The reactions view (key J): at each joint its reaction force as an arrow from the joint's
//! point, on one scale for the whole run (its largest force, rounded up to 1, 2, 3 or 5 times
//! a power of ten, spans a quarter of the canvas: [`super::reaction_scale`]), and a marker:
//! filled for a unique reaction, a ring and a dashed, hollow-headed arrow for one the rigid
//! model does not determine (the minimum-norm choice among infinitely many). A selected
//! self-stress mode is drawn as the forces it puts on the joints, in its own colour and scale
//! (the reactions fade then). A legend in the canvas' lower right says which is which and
//! draws the scale as an arrow labelled with its force (a class compares an arrow with it as
//! a map's distance with its scale bar), and each joint has its name beside it.

use bevy_egui::egui::{self, Color32, Pos2, Shape, Stroke, vec2};

use super::arrows::arrow_head;
use super::joint_labels::place_labels;
use super::reaction_scale::{RunPeak, force_length, round_scale};
use super::{Canvas, ViewState};
use crate::app::simulation::Live;
use crate::live::{ReactionArrow, ReactionDisplay};

const UNIQUE: Color32 = Color32::from_rgb(46, 160, 90);
/// Crimson: none of the motions' first five colours (the first, orange, is `T1`'s, drawn at
/// the same joints).
const UNDETERMINED: Color32 = Color32::from_rgb(200, 40, 80);
const MODE: Color32 = Color32::from_rgb(155, 89, 208);
/// The scale's force spans this fraction of the canvas' smaller side.
const FORCE_SPAN: f32 = 0.25;

/// The reactions of one state, and the largest force of the run.
#[derive(Clone, Debug)]
pub struct ReactionCache {
    key: (u64, u64, Option<usize>, u64),
    pub display: Result<ReactionDisplay, String>,
    peak: RunPeak,
    /// The name of each joint.
    joints: Vec<String>,
}

/// What the legend's arrow stands for: a round force, the run's largest force so far and
/// its joint.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ForceScale<'a> {
    force: f64,
    peak: f64,
    joint: &'a str,
}

impl ReactionCache {
    /// Whether the run's largest force is traced for `live`'s state.
    pub fn is_settled(&self, live: &Live) -> bool {
        self.peak.is_settled(live)
    }

    fn scale(&self) -> Option<ForceScale<'_>> {
        let (peak, joint) = self.peak.peak()?;
        Some(ForceScale {
            force: round_scale(peak),
            peak,
            joint: self.joints.get(joint).map_or("", String::as_str),
        })
    }
}

/// Brings the cached reactions to the session's state (computed once per state).
pub fn update_reactions(view: &mut ViewState, live: &Live) {
    let session = &live.session;
    let key = (
        live.generation,
        session.steps_total(),
        session.current_event_index(),
        session.time().to_bits(),
    );
    let mut peak = match view.reactions.take() {
        Some(mut cache) if cache.key == key => {
            cache.peak.update(live, None);
            view.reactions = Some(cache);
            return;
        }
        Some(cache) => cache.peak,
        None => RunPeak::default(),
    };
    let display = ReactionDisplay::of(session).map_err(|e| e.to_string());
    peak.update(live, display.as_ref().ok());
    let joints = session
        .scene()
        .mechanism
        .joints()
        .iter()
        .map(|joint| joint.name.clone())
        .collect();
    view.reactions = Some(ReactionCache {
        key,
        display,
        peak,
        joints,
    });
}

/// Paints the reactions (and the selected mode), the joints' names and the legend (above
/// the `scale_bar`), the force of an arrow cut at the canvas' edge off the `overlay` (the
/// motions' legend and the time, painted after); returns the areas their text takes (other
/// labels keep off them).
pub(super) fn draw_reactions(
    canvas: &Canvas,
    view: &ViewState,
    body_names: &[egui::Rect],
    scale_bar: Option<egui::Rect>,
    overlay: &[egui::Rect],
) -> Vec<egui::Rect> {
    let Some(cache) = view.reactions.as_ref() else {
        return Vec::new();
    };
    let Ok(display) = cache.display.as_ref() else {
        return Vec::new();
    };
    let side = canvas_side(canvas);
    let mode = view.reaction_mode.and_then(|k| display.modes.get(k));
    // With a mode drawn, the reactions step back so that its pattern reads.
    let fade = if mode.is_some() { 0.3 } else { 1.0 };
    let scale = cache
        .scale()
        .map_or(0.0, |scale| FORCE_SPAN * side / scale.force as f32);
    for arrow in &display.arrows {
        let color = if arrow.unique { UNIQUE } else { UNDETERMINED };
        paint_force(
            canvas,
            (arrow, overlay),
            scale,
            color.gamma_multiply(fade),
            !arrow.unique,
        );
    }
    for arrow in &display.arrows {
        paint_marker(canvas, arrow);
    }
    if let Some(mode) = mode {
        let largest = mode.iter().map(force_length).fold(0.0, f64::max);
        if largest > 0.0 {
            let scale = 0.75 * FORCE_SPAN * side / largest as f32;
            for arrow in mode {
                paint_force(canvas, (arrow, overlay), scale, MODE, false);
            }
        }
    }
    // The legend before the names, which keep off it (trial 15: the legend's backing,
    // painted after them, greyed the "C" of "C, W2").
    let legend = paint_legend(canvas, display, view, cache, scale_bar);
    let clear: Vec<egui::Rect> = body_names.iter().copied().chain([legend]).collect();
    let names: Vec<String> = display
        .arrows
        .iter()
        .map(|arrow| cache.joints.get(arrow.joint).cloned().unwrap_or_default())
        .collect();
    let mut taken = paint_names(canvas, &display.arrows, &names, scale, &clear);
    taken.push(legend);
    taken
}

/// Joints closer than this (pixels) on the canvas share a marker: one name lists them all.
const SAME_POINT: f32 = 3.0;

/// Each joint's name beside its marker, clear of the other markers and names, so that a
/// reaction can be matched to the joint `analyze` and the panel name. Joints at one point
/// (a wheel's axle on a link's end) share one name, "C, W2", and each of their arrows is
/// named at its tip. The names keep off `body_names`. Returns the areas of the names and the
/// markers.
fn paint_names(
    canvas: &Canvas,
    arrows: &[ReactionArrow],
    names: &[String],
    scale: f32,
    body_names: &[egui::Rect],
) -> Vec<egui::Rect> {
    let font = canvas.palette.font(13.0);
    let on_screen: Vec<(Pos2, &ReactionArrow, &String)> = arrows
        .iter()
        .zip(names)
        .filter_map(|(arrow, name)| Some((canvas.projection.to_screen(arrow.point)?, arrow, name)))
        .collect();
    let mut points = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut tips = Vec::new();
    for (i, &(p, _, _)) in on_screen.iter().enumerate() {
        let same = |&(q, _, _): &(Pos2, &ReactionArrow, &String)| q.distance(p) <= SAME_POINT;
        if on_screen[..i].iter().any(same) {
            continue;
        }
        let group: Vec<_> = on_screen[i..].iter().filter(|j| same(j)).collect();
        if group.len() > 1 {
            tips.extend(group.iter().filter_map(|&&(_, arrow, name)| {
                let (start, v) = force_vector(canvas, arrow, scale)?;
                (v.length() > TIP_NAME_FROM).then(|| (start + v + 9.0 * v.normalized(), name))
            }));
        }
        points.push(p);
        texts.push(
            group
                .iter()
                .map(|(_, _, name)| name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    let galleys: Vec<_> = texts
        .into_iter()
        .map(|text| {
            canvas
                .painter
                .layout_no_wrap(text, font.clone(), canvas.palette.text)
        })
        .collect();
    let sizes: Vec<_> = galleys.iter().map(|g| g.size() + vec2(6.0, 2.0)).collect();
    let places = place_labels(&points, &sizes, 8.0, (body_names, canvas.rect));
    for ((galley, place), &point) in galleys.into_iter().zip(&places).zip(&points) {
        // A name set a ring or more out is tied to its joint by a thin line (trial 15: "C,
        // W2" 100 px from its ring read as another joint's).
        let nearest = point.clamp(place.min, place.max);
        if nearest.distance(point) > LEADER_FROM && place.is_positive() {
            let from = point + (nearest - point).normalized() * 9.0;
            canvas.painter.line_segment(
                [from, nearest],
                Stroke::new(1.0, canvas.palette.text.gamma_multiply(0.6)),
            );
        }
        // Opaque: a wheel or bar seen through the backing greys the name out.
        canvas
            .painter
            .rect_filled(*place, 3.0, canvas.palette.background);
        canvas
            .painter
            .galley(place.min + vec2(3.0, 1.0), galley, canvas.palette.text);
    }
    let small = canvas.palette.font(11.0);
    let markers = on_screen
        .iter()
        .map(|&(p, _, _)| egui::Rect::from_center_size(p, vec2(16.0, 16.0)));
    let mut taken: Vec<egui::Rect> = places.into_iter().chain(markers).collect();
    for (at, name) in tips {
        let galley =
            canvas
                .painter
                .layout_no_wrap(name.clone(), small.clone(), canvas.palette.text);
        let area = egui::Rect::from_center_size(at, galley.size() + vec2(4.0, 2.0));
        // None over another name (trial 14: "CGW2" where the tips' names ran into the
        // joints'): the joints' shared name says them all.
        if taken
            .iter()
            .chain(body_names)
            .any(|other| other.intersects(area))
        {
            continue;
        }
        paint_on_backing(canvas, area, galley);
        taken.push(area);
    }
    taken
}

/// Points from its joint beyond which a joint's name is tied to it by a line: the first ring
/// of places is 11 points out beside the joint, 15.6 at a corner, where the name read as
/// floating off its marker at a presentation's zoom (trial 16: "D").
const LEADER_FROM: f32 = 13.0;

/// An arrow this long (pixels) or longer from a point shared by several joints carries its
/// joint's name at its tip.
const TIP_NAME_FROM: f32 = 24.0;

/// Where the force of `arrow` starts on the canvas and its extent there, `scale` pixels per
/// newton; `None` off the canvas or when shorter than two pixels. It is drawn from the edge
/// of its joint's marker (from the centre a short one hid inside the ring) to where its
/// length from the joint's centre ends, as the legend's arrow measures it (trial 18: drawn
/// from the edge on, presenting, arrows read 20 to 30 % longer than the legend said); one
/// ending inside the marker is a stub out of it.
fn force_vector(canvas: &Canvas, arrow: &ReactionArrow, scale: f32) -> Option<(Pos2, egui::Vec2)> {
    let projection = canvas.projection;
    let point = projection.to_screen(arrow.point)?;
    let tip_world: [f64; 3] = std::array::from_fn(|k| arrow.point[k] + arrow.force[k]);
    let direction = projection.to_screen(tip_world)? - point;
    let pixels = scale * force_length(arrow) as f32;
    (direction.length() >= 1e-6 && pixels >= 2.0).then(|| {
        let d = direction.normalized();
        (
            point + MARKER_EDGE * d,
            d * (pixels - MARKER_EDGE).max(STUB),
        )
    })
}

/// Points a force ending inside its joint's marker is drawn out of it.
const STUB: f32 = 4.0;

/// Points from a joint's centre to the outer edge of its marker (the ring's radius and half
/// its stroke), where its force starts.
const MARKER_EDGE: f32 = 8.0;

/// The force of `arrow` from its point, `scale` pixels per newton.
/// One longer than the canvas allows is cut at its edge, its head there, and says its force
/// beside it, off the `overlay` (trial 19 read the driver's "0.27 N" under the time).
fn paint_force(
    canvas: &Canvas,
    (arrow, overlay): (&ReactionArrow, &[egui::Rect]),
    scale: f32,
    color: Color32,
    dashed: bool,
) {
    let Some((start, whole)) = force_vector(canvas, arrow, scale) else {
        return;
    };
    let kept = cut_at(canvas.rect.shrink(EDGE_ROOM), start, whole);
    let v = whole * kept;
    let tip = start + v;
    if kept < 1.0 {
        // Its length no longer stands for the force: the number does (trial 17: the robot's
        // driver force, the scale's peak, ran off the canvas' top).
        let text = format!("{:.2} N", force_length(arrow));
        let font = canvas.palette.font(12.0);
        let galley = canvas
            .painter
            .layout_no_wrap(text, font, canvas.palette.text);
        let size = galley.size() + vec2(4.0, 2.0);
        let aside = vec2(0.6 * galley.size().x + 10.0, 0.0);
        let d = whole.normalized();
        let places = [16.0, 48.0, 80.0]
            .into_iter()
            .flat_map(|back| [tip - back * d + aside, tip - back * d - aside])
            .map(|at| egui::Rect::from_center_size(at, size));
        let free = |r: &egui::Rect| {
            canvas.rect.contains_rect(*r) && !overlay.iter().any(|o| o.intersects(*r))
        };
        let first = egui::Rect::from_center_size(tip - 16.0 * d + aside, size);
        let beside = places.into_iter().find(free).unwrap_or(first);
        paint_on_backing(canvas, beside, galley);
    }
    let stroke = Stroke::new(2.5, color);
    if dashed {
        canvas
            .painter
            .add(Shape::dashed_line(&[start, tip], stroke, 6.0, 4.0));
        let d = v.normalized();
        let n = vec2(-d.y, d.x);
        canvas.painter.add(Shape::closed_line(
            vec![tip, tip - 11.0 * d + 5.5 * n, tip - 11.0 * d - 5.5 * n],
            Stroke::new(2.0, color),
        ));
    } else {
        canvas.painter.line_segment([start, tip], stroke);
        arrow_head(canvas.painter, tip, v, color);
    }
}

/// A small label in `area`, on the canvas' background (over a wheel or bar a bare name read
/// grey on blue).
fn paint_on_backing(canvas: &Canvas, area: egui::Rect, galley: std::sync::Arc<egui::Galley>) {
    canvas
        .painter
        .rect_filled(area, 2.0, canvas.palette.background);
    canvas
        .painter
        .galley(area.min + vec2(2.0, 1.0), galley, canvas.palette.text);
}

/// Pixels an arrow's head keeps from the canvas' edge.
const EDGE_ROOM: f32 = 6.0;

/// The fraction (at most 1) of the segment from `start` along `v` inside `area` (a start
/// outside it keeps the whole).
fn cut_at(area: egui::Rect, start: Pos2, v: egui::Vec2) -> f32 {
    if !area.contains(start) || area.contains(start + v) {
        return 1.0;
    }
    let limit = |from: f32, d: f32, lo: f32, hi: f32| {
        if d > 0.0 {
            (hi - from) / d
        } else if d < 0.0 {
            (lo - from) / d
        } else {
            f32::INFINITY
        }
    };
    let along_x = limit(start.x, v.x, area.left(), area.right());
    let along_y = limit(start.y, v.y, area.top(), area.bottom());
    along_x.min(along_y).clamp(0.0, 1.0)
}

/// A filled disc for a unique reaction, a ring for one the rigid model does not determine.
fn paint_marker(canvas: &Canvas, arrow: &ReactionArrow) {
    let Some(p) = canvas.projection.to_screen(arrow.point) else {
        return;
    };
    if arrow.unique {
        canvas
            .painter
            .circle(p, 5.5, UNIQUE, Stroke::new(1.0, canvas.palette.text));
    } else {
        canvas
            .painter
            .circle_stroke(p, 6.5, Stroke::new(2.5, UNDETERMINED));
    }
}

/// The legend in the canvas' lower right corner (the left one where fewer joints lie under
/// it), as wide as its longest line and never wider than the canvas (longer lines wrap).
/// For viewers (presenting, a video) in fewer words: in large type the whole legend covered
/// half the mobile robot.
fn paint_legend(
    canvas: &Canvas,
    display: &ReactionDisplay,
    view: &ViewState,
    cache: &ReactionCache,
    scale_bar: Option<egui::Rect>,
) -> egui::Rect {
    let brief = view.for_viewers();
    let undetermined = if brief {
        format!(
            "not determined (rigid model); {}",
            display.redundancy_text()
        )
    } else {
        "not determined by the rigid model (minimum-norm shown)".into()
    };
    let mut lines: Vec<(Key, String)> = vec![
        (Key::Disc(UNIQUE), "reaction unique".into()),
        (Key::Ring(UNDETERMINED), undetermined),
    ];
    if !brief {
        lines.push((Key::Blank, display.redundancy_text()));
    }
    if let Some(k) = view.reaction_mode.filter(|&k| k < display.modes.len()) {
        lines.push((
            Key::Disc(MODE),
            format!(
                "self-stress mode {} of {} (forces that load nothing)",
                k + 1,
                display.modes.len()
            ),
        ));
    }
    let scale = cache.scale();
    let sample = scale.map_or(Key::Blank, |_| Key::Arrow(FORCE_SPAN * canvas_side(canvas)));
    lines.push((sample, scale_text(scale, brief)));
    let font = canvas.palette.font(13.0);
    let (pad, margin) = (6.0, 10.0);
    let indent = |key: &Key| match key {
        Key::Arrow(length) => length + 22.0,
        _ => 28.0,
    };
    let galleys: Vec<_> = lines
        .iter()
        .map(|(key, text)| {
            let wrap = (canvas.rect.width() - 2.0 * margin - indent(key) - pad).max(40.0);
            canvas
                .painter
                .layout(text.clone(), font.clone(), canvas.palette.text, wrap)
        })
        .collect();
    let widest = lines
        .iter()
        .zip(&galleys)
        .map(|((key, _), g)| indent(key) + g.size().x)
        .fold(0.0, f32::max);
    let height: f32 = galleys.iter().map(|g| g.size().y + 4.0).sum::<f32>() + 2.0 * pad;
    let size = vec2(widest + pad, height);
    let joints: Vec<Pos2> = display
        .arrows
        .iter()
        .filter_map(|arrow| canvas.projection.to_screen(arrow.point))
        .collect();
    let mut area = legend_rect(canvas.rect, size, margin, &joints);
    if let Some(bar) = scale_bar.filter(|bar| bar.intersects(area)) {
        area = area.translate(vec2(0.0, bar.top() - 4.0 - area.bottom()));
    }
    canvas
        .painter
        .rect_filled(area, 4.0, canvas.palette.background.gamma_multiply(0.85));
    let mut y = area.top() + pad;
    for ((key, _), galley) in lines.iter().zip(galleys) {
        let at = Pos2::new(area.left() + 14.0, y + 2.0 + font.size * 0.6);
        paint_key(canvas, key, at);
        let rows = galley.size().y;
        canvas.painter.galley(
            Pos2::new(area.left() + indent(key), y + 2.0),
            galley,
            canvas.palette.text,
        );
        y += rows + 4.0;
    }
    area
}

/// What stands before a line of the legend: a joint's marker, an arrow of the scale's
/// length (pixels), or nothing.
enum Key {
    Disc(Color32),
    Ring(Color32),
    Arrow(f32),
    Blank,
}

/// Paints `key` with its left end's centre at `at` (an arrow starts a little left of it).
fn paint_key(canvas: &Canvas, key: &Key, at: Pos2) {
    match *key {
        Key::Disc(color) => {
            canvas.painter.circle_filled(at, 5.0, color);
        }
        Key::Ring(color) => {
            canvas
                .painter
                .circle_stroke(at, 5.5, Stroke::new(2.5, color));
        }
        Key::Arrow(length) => {
            let (start, tip) = (at - vec2(4.0, 0.0), at + vec2(length - 4.0, 0.0));
            canvas
                .painter
                .line_segment([start, tip], Stroke::new(2.5, canvas.palette.text));
            arrow_head(canvas.painter, tip, vec2(1.0, 0.0), canvas.palette.text);
        }
        Key::Blank => {}
    }
}

/// The canvas' smaller side, whose [`FORCE_SPAN`] the scale's force spans.
fn canvas_side(canvas: &Canvas) -> f32 {
    canvas.rect.width().min(canvas.rect.height())
}

/// What the legend's arrow stands for: the scale's round force, and the run's largest force
/// it is the rounding up of, and where (`brief`: in fewer words, for viewers).
fn scale_text(scale: Option<ForceScale>, brief: bool) -> String {
    let Some(ForceScale { force, peak, joint }) = scale else {
        return "no force over 1e-9 N yet".into();
    };
    let force = newtons(force);
    if brief {
        format!("{force} (run's peak {peak:.2} N, {joint})")
    } else {
        format!(
            "{force}: the arrows' scale, one for the whole run: its largest force, {peak:.3e} N at joint \"{joint}\", rounded up"
        )
    }
}

/// A scale's force (1, 2 or 5 times a power of ten) as written: `0.05 N`, `2e-6 N`.
fn newtons(force: f64) -> String {
    let round: f64 = format!("{force:.0e}").parse().unwrap_or(force);
    if (1e-3..1e5).contains(&round) {
        format!("{round} N")
    } else {
        format!("{round:e} N")
    }
}

/// The legend's area of `size` in the lower right corner of `canvas`, or the lower left one
/// where fewer of the `joints` lie under it, `margin` from its edges, shrunk to the canvas
/// where it is larger.
fn legend_rect(canvas: egui::Rect, size: egui::Vec2, margin: f32, joints: &[Pos2]) -> egui::Rect {
    let inner = canvas.shrink(margin);
    let size = size.min(inner.size()).max(egui::Vec2::ZERO);
    let right = egui::Rect::from_min_size(inner.right_bottom() - size, size);
    let left = egui::Rect::from_min_size(inner.left_bottom() - vec2(0.0, size.y), size);
    let under = |area: egui::Rect| joints.iter().filter(|p| area.contains(**p)).count();
    if under(left) < under(right) {
        left
    } else {
        right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_stays_inside_the_canvas_at_any_width() {
        let size = vec2(430.0, 110.0);
        for width in [1200.0, 431.0, 300.0, 60.0] {
            let canvas = egui::Rect::from_min_size(Pos2::new(250.0, 40.0), vec2(width, 600.0));
            let area = legend_rect(canvas, size, 10.0, &[]);
            assert!(
                canvas.contains_rect(area),
                "{width}: {area:?} in {canvas:?}"
            );
            assert_eq!(area.right(), canvas.right() - 10.0);
            assert_eq!(area.bottom(), canvas.bottom() - 10.0);
        }
    }

    #[test]
    fn the_legend_goes_to_the_corner_with_fewer_joints_under_it() {
        let canvas = egui::Rect::from_min_size(Pos2::new(0.0, 0.0), vec2(800.0, 600.0));
        let size = vec2(300.0, 80.0);
        let right = legend_rect(canvas, size, 10.0, &[Pos2::new(700.0, 560.0)]);
        assert_eq!(right.left(), 10.0);
        let both = [Pos2::new(700.0, 560.0), Pos2::new(100.0, 560.0)];
        assert_eq!(legend_rect(canvas, size, 10.0, &both).right(), 790.0);
    }

    #[test]
    fn the_scale_line_says_what_the_legends_arrow_stands_for() {
        let scale = Some(ForceScale {
            force: 0.5,
            peak: 0.269,
            joint: "H.driver",
        });
        for brief in [false, true] {
            let text = scale_text(scale, brief);
            assert!(text.starts_with("0.5 N"), "{text}");
            assert!(text.contains("run"), "{text}");
            assert!(text.contains("H.driver"), "{text}");
        }
        assert!(scale_text(scale, true).contains("peak 0.27 N, H.driver"));
        assert!(scale_text(scale, false).contains("2.690e-1 N"));
        assert_eq!(scale_text(None, true), "no force over 1e-9 N yet");
    }

    /// Scales as a student reads them: no float residue (`0.05`, not `0.05000000000000001`),
    /// exponents far from a newton.
    #[test]
    fn a_scales_force_is_written_as_a_round_number() {
        for (force, text) in [
            (0.5, "0.5 N"),
            (5.0 * 0.01, "0.05 N"),
            (2.0 * 1e-3, "0.002 N"),
            (2.0 * 1e-6, "2e-6 N"),
            (100.0, "100 N"),
        ] {
            assert_eq!(newtons(force), text);
        }
    }

    /// An arrow reaching past the canvas stops at its edge; one inside, or starting outside
    /// it, is whole.
    #[test]
    fn an_arrow_past_the_canvas_is_cut_at_its_edge() {
        let area = egui::Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(100.0, 100.0));
        assert_eq!(cut_at(area, Pos2::new(50.0, 50.0), vec2(0.0, -100.0)), 0.5);
        assert_eq!(cut_at(area, Pos2::new(50.0, 50.0), vec2(100.0, 25.0)), 0.5);
        assert_eq!(cut_at(area, Pos2::new(50.0, 50.0), vec2(10.0, 10.0)), 1.0);
        assert_eq!(cut_at(area, Pos2::new(150.0, 50.0), vec2(10.0, 0.0)), 1.0);
    }
}
