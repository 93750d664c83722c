//! The reactions view (key J): at each joint its reaction force as an arrow from the joint's
//! point, on one scale for the last simulated second (the largest force of the states shown
//! in it, or a hundredth of the largest so far where that is more, rounded up to 1, 2 or 5
//! times a power of ten, spans a fifth of the canvas: a start's peak would otherwise leave
//! the later forces a pixel or two, as on the mobile robot, and rounding would be drawn as
//! large as a load), and a marker: filled for a unique reaction, a ring and a dashed,
//! hollow-headed arrow for one the rigid model does not determine (the minimum-norm choice
//! among infinitely many). A selected self-stress mode is drawn as the forces it puts on the
//! joints, in its own colour and scale (the reactions fade then). A legend in the canvas'
//! lower right says which is which and draws the scale as an arrow labelled with its force
//! (a class compares an arrow with it as a map's distance with its scale bar), and each
//! joint has its name beside it.

use bevy_egui::egui::{self, Color32, Pos2, Shape, Stroke, vec2};

use super::arrows::arrow_head;
use super::joint_labels::place_labels;
use super::{Canvas, ViewState};
use crate::app::simulation::Live;
use crate::live::{ReactionArrow, ReactionDisplay};

const UNIQUE: Color32 = Color32::from_rgb(46, 160, 90);
/// Crimson: none of the motions' first five colours (the first, orange, is `T1`'s, drawn at
/// the same joints).
const UNDETERMINED: Color32 = Color32::from_rgb(200, 40, 80);
const MODE: Color32 = Color32::from_rgb(155, 89, 208);
/// The largest force of the scale's window spans this fraction of the canvas' smaller side.
const FORCE_SPAN: f32 = 0.2;

/// The simulated seconds whose states' largest force sets the arrows' scale: the arrows of
/// one swing compare, and a peak long past no longer shrinks them.
const SCALE_WINDOW: f64 = 1.0;

/// The reactions of one state, and the largest forces of the states shown in the last
/// [`SCALE_WINDOW`].
#[derive(Clone, Debug)]
pub struct ReactionCache {
    key: (u64, u64, Option<usize>, u64),
    pub display: Result<ReactionDisplay, String>,
    peaks: PeakWindow,
    /// The name of each arrow's joint.
    names: Vec<String>,
}

/// The arrows' scale never stands for less than this fraction of the largest force shown
/// since the scene was loaded: the mobile robot driving straight has reactions of 1e-6 N,
/// rounding, which a scale of the last second alone drew a fifth of the canvas long.
const LEAST_SCALE: f64 = 0.01;

/// Forces under this (newtons) are rounding, not loads: the mobile robot before its driver
/// moves has reactions of 1e-16 N, which no arrow stands for.
const NO_FORCE: f64 = 1e-9;

/// The force `f` rounded up to 1, 2 or 5 times a power of ten: the arrows' scale is a round
/// number, and changes only where the forces cross one.
fn round_scale(f: f64) -> f64 {
    let decade = 10f64.powf(f.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&step| f <= step * (1.0 + 1e-9))
        .unwrap_or(10.0 * decade)
}

/// The largest force of each state shown (simulated time, force, joint), over the last
/// [`SCALE_WINDOW`] of simulated time, since the state shown last jumped (a seek, an event
/// gone to, an undo: the window's earlier states may be of another run), and the largest of
/// all.
#[derive(Clone, Debug, Default)]
struct PeakWindow {
    epoch: u64,
    peaks: std::collections::VecDeque<(f64, f64, String)>,
    of_all: f64,
}

/// The force a fifth of the canvas stands for, and the joint that carried it in the last
/// second (`None`: the scale's least, a hundredth of the largest so far).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ForceScale<'a> {
    force: f64,
    joint: Option<&'a str>,
}

impl PeakWindow {
    /// Adds the state at `t` whose largest force is `force`, at `joint`.
    fn add(&mut self, epoch: u64, t: f64, force: f64, joint: String) {
        if epoch != self.epoch {
            // A reset or a seek: the peaks were another run's (trial 15: after R the old
            // peak set the scale at t = 0).
            *self = Self {
                epoch,
                ..Self::default()
            };
        }
        let force = if force >= NO_FORCE { force } else { 0.0 };
        self.peaks
            .retain(|&(seen, _, _)| seen <= t && seen >= t - SCALE_WINDOW);
        self.peaks.push_back((t, force, joint));
        self.of_all = self.of_all.max(force);
    }

    /// The arrows' scale: the largest force in the window, or a hundredth of the largest of
    /// all where that is more, rounded up to 1, 2 or 5 times a power of ten (`None` before
    /// any force of [`NO_FORCE`] or more).
    fn scale(&self) -> Option<ForceScale<'_>> {
        let least = LEAST_SCALE * self.of_all;
        let latest = self
            .peaks
            .iter()
            .filter(|(_, force, _)| *force > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match latest {
            Some((_, force, joint)) if *force >= least => Some(ForceScale {
                force: round_scale(*force),
                joint: Some(joint.as_str()),
            }),
            _ => (least > 0.0).then_some(ForceScale {
                force: round_scale(least),
                joint: None,
            }),
        }
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
    let mut peaks = match view.reactions.take() {
        Some(cache) if cache.key == key => {
            view.reactions = Some(cache);
            return;
        }
        Some(cache) if cache.key.0 == live.generation => cache.peaks,
        _ => PeakWindow::default(),
    };
    let display = ReactionDisplay::of(session).map_err(|e| e.to_string());
    let joints = session.scene().mechanism.joints();
    if let Ok(display) = &display
        && let Some(peak) = display
            .arrows
            .iter()
            .max_by(|a, b| force_length(a).total_cmp(&force_length(b)))
    {
        peaks.add(
            session.jump_epoch(),
            session.time(),
            force_length(peak),
            joints[peak.joint].name.clone(),
        );
    }
    let names = display.as_ref().map_or_else(
        |_| Vec::new(),
        |d| {
            d.arrows
                .iter()
                .map(|a| joints[a.joint].name.clone())
                .collect()
        },
    );
    view.reactions = Some(ReactionCache {
        key,
        display,
        peaks,
        names,
    });
}

/// Paints the reactions (and the selected mode), the joints' names and the legend (above
/// the `scale_bar`); returns the areas their text takes (other labels keep off them).
pub(super) fn draw_reactions(
    canvas: &Canvas,
    view: &ViewState,
    body_names: &[egui::Rect],
    scale_bar: Option<egui::Rect>,
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
        .peaks
        .scale()
        .map_or(0.0, |scale| FORCE_SPAN * side / scale.force as f32);
    for arrow in &display.arrows {
        let color = if arrow.unique { UNIQUE } else { UNDETERMINED };
        paint_force(
            canvas,
            arrow,
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
                paint_force(canvas, arrow, scale, MODE, false);
            }
        }
    }
    // The legend before the names, which keep off it (trial 15: the legend's backing,
    // painted after them, greyed the "C" of "C, W2").
    let legend = paint_legend(canvas, display, view, cache, scale_bar);
    let clear: Vec<egui::Rect> = body_names.iter().copied().chain([legend]).collect();
    let mut taken = paint_names(canvas, &display.arrows, &cache.names, scale, &clear);
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
        // On a backing too: over the robot's blue wheels a bare name read grey on blue.
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
        canvas
            .painter
            .rect_filled(area, 2.0, canvas.palette.background);
        canvas
            .painter
            .galley(area.min + vec2(2.0, 1.0), galley, canvas.palette.text);
        taken.push(area);
    }
    taken
}

/// Pixels from its joint beyond which a joint's name is tied to it by a line (the first ring
/// of places is 11 pixels out).
const LEADER_FROM: f32 = 16.0;

/// An arrow this long (pixels) or longer from a point shared by several joints carries its
/// joint's name at its tip.
const TIP_NAME_FROM: f32 = 24.0;

fn force_length(arrow: &ReactionArrow) -> f64 {
    arrow.force.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// Where the force of `arrow` starts on the canvas and its extent there, `scale` pixels per
/// newton; `None` off the canvas or when shorter than two pixels. It starts at the edge of
/// its joint's marker: a short one drawn from the centre hid inside the ring.
fn force_vector(canvas: &Canvas, arrow: &ReactionArrow, scale: f32) -> Option<(Pos2, egui::Vec2)> {
    let projection = canvas.projection;
    let point = projection.to_screen(arrow.point)?;
    let tip_world: [f64; 3] = std::array::from_fn(|k| arrow.point[k] + arrow.force[k]);
    let direction = projection.to_screen(tip_world)? - point;
    let pixels = scale * force_length(arrow) as f32;
    (direction.length() >= 1e-6 && pixels >= 2.0).then(|| {
        let d = direction.normalized();
        (point + MARKER_EDGE * d, d * pixels)
    })
}

/// Points from a joint's centre to the outer edge of its marker (the ring's radius and half
/// its stroke), where its force starts.
const MARKER_EDGE: f32 = 8.0;

/// The force of `arrow` from its point, `scale` pixels per newton.
fn paint_force(canvas: &Canvas, arrow: &ReactionArrow, scale: f32, color: Color32, dashed: bool) {
    let Some((start, v)) = force_vector(canvas, arrow, scale) else {
        return;
    };
    let tip = start + v;
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
    let scale = cache.peaks.scale();
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

/// What the legend's arrow stands for: the force of the scale, the largest of the last
/// simulated second and where, or a hundredth of the largest so far (`brief`: in fewer
/// words, for viewers).
fn scale_text(scale: Option<ForceScale>, brief: bool) -> String {
    let Some(ForceScale { force, joint }) = scale else {
        return "no force over 1e-9 N yet".into();
    };
    let force = newtons(force);
    match (joint, brief) {
        (Some(joint), true) => format!("{force} (scale of the last 1 s, peak at {joint})"),
        (None, true) => format!("{force} (scale: 1% of the run's peak)"),
        (Some(joint), false) => format!(
            "{force}: the arrows' scale, the largest force of the last simulated second rounded up (joint \"{joint}\")"
        ),
        (None, false) => format!(
            "{force}: the arrows' scale, a hundredth of the largest force so far (the last second's are smaller)"
        ),
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
        let peak = Some(ForceScale {
            force: 0.5,
            joint: Some("W1"),
        });
        for brief in [false, true] {
            let text = scale_text(peak, brief);
            assert!(text.starts_with("0.5 N"), "{text}");
            assert!(text.contains("last"), "{text}");
            assert!(text.contains("W1"), "{text}");
        }
        let least = Some(ForceScale {
            force: 0.002,
            joint: None,
        });
        assert!(scale_text(least, true).contains("0.002 N (scale: 1% of the run's peak)"));
        assert!(scale_text(least, false).contains("a hundredth of the largest force so far"));
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

    /// The mobile robot's start: 0.263 N at the driver, then 0.01 N. A second later the
    /// arrows' scale is the later forces' (the start's peak left them under 2 pixels); a
    /// scrub back (a jump) forgets the states of the run it left; states later than the one
    /// shown leave the window. Forces of 1e-6 N (rounding, the robot driving straight) are
    /// drawn on a scale of a hundredth of the start's peak, not a fifth of the canvas long.
    #[test]
    fn the_scale_forgets_a_peak_a_second_old_down_to_a_hundredth_of_it() {
        let at = |force: f64, joint| {
            Some(ForceScale {
                force,
                joint: Some(joint),
            })
        };
        let mut window = PeakWindow::default();
        window.add(0, 0.0, 0.263, "H.driver".into());
        window.add(0, 0.5, 0.010, "D".into());
        assert_eq!(window.scale(), at(0.5, "H.driver"));
        window.add(0, 1.2, 0.012, "B".into());
        assert_eq!(window.scale(), at(0.02, "B"));
        window.add(0, 1.3, 0.011, "B".into());
        assert_eq!(window.scale(), at(0.02, "B"));
        window.add(0, 0.9, 0.005, "C".into());
        assert_eq!(window.scale(), at(0.01, "D"), "the states after 0.9 s left");
        window.add(0, 40.0, 1e-6, "W5".into());
        let least = window.scale().unwrap();
        assert!((least.force - 0.005).abs() < 1e-15 && least.joint.is_none());
        window.add(7, 1.0, 0.004, "C".into());
        assert_eq!(window.scale(), at(0.005, "C"), "a jump starts afresh");
    }

    /// Rounding, 1.7e-16 N before the robot's driver moves, sets no scale (trial 15 read
    /// "1/5 canvas = 1.7e-16 N").
    #[test]
    fn rounding_is_no_force() {
        let mut window = PeakWindow::default();
        window.add(0, 0.6, 1.7e-16, "W1".into());
        assert_eq!(window.scale(), None);
    }

    /// Scales are round numbers: 1, 2 or 5 times a power of ten, the least not under the
    /// force.
    #[test]
    fn a_scale_is_rounded_up_to_one_two_or_five() {
        for (force, scale) in [
            (0.263, 0.5),
            (0.034, 0.05),
            (0.01, 0.01),
            (0.0101, 0.02),
            (1.7, 2.0),
            (5.0, 5.0),
            (7.0, 10.0),
        ] {
            let rounded = round_scale(force);
            assert!((rounded / scale - 1.0).abs() < 1e-12, "{force}: {rounded}");
        }
    }
}
