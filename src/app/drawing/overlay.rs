//! Text over the canvas: the legend of the motions shown, the simulated time and the basis.
//! Returns where it wrote, so that the motions' labels are placed elsewhere.

use bevy::prelude::*;
use bevy_egui::egui::{self, Align2, FontId, pos2, vec2};

use super::{Canvas, ViewState};
use crate::app::simulation::Live;
use crate::app::ui::speed_text;
use crate::lesson::choices::AT_REST;
use crate::live::motions::{Motion, MotionRole};
use crate::solver::BasisMode;

/// Canvas width (points) below which the legend is left out.
const LEGEND_MIN_CANVAS: f32 = 420.0;

/// The fraction of the canvas' height the legend's rows may take before it lists the
/// motions drawn only.
const LEGEND_MOST_HEIGHT: f32 = 0.5;

/// Canvas width (points) below which the legend is compact (colour and name only).
const LEGEND_BESIDE_TIME: f32 = 660.0;

/// Writes the time, the basis and the legend of the `shown` motions over the canvas;
/// returns the areas written on.
pub(super) fn draw_overlay_text(
    canvas: &Canvas,
    t: f64,
    live: &Live,
    view: &ViewState,
    basis: BasisMode,
    shown: &[Motion],
) -> Vec<egui::Rect> {
    let mut drawn = Vec::with_capacity(shown.len() + 4);
    // Presenting, the status line with the speed is hidden: a class sees "1/4x" by the time,
    // and "1.57x of 4x" where the run falls behind.
    let speed = Some(live.session.speed())
        .filter(|&s| view.presenting && (s != 1.0 || view.achieved_when_behind.is_some()))
        .map(|asked| match view.achieved_when_behind {
            Some(achieved) => format!("  {achieved:.2}x of {}", speed_text(asked)),
            None => format!("  {}", speed_text(asked)),
        });
    draw_time_and_basis(canvas, (t, speed), view.side_by_side, basis, &mut drawn);
    // Too narrow a canvas (a larger interface scale on 1280 x 720, side by side beside the
    // configuration space, a hall's type) has no room for the legend beside the mechanism:
    // the Admissible motions panel lists the same motions, and the label on the arrows names
    // the one drawn (a legend of that one row, under the time, would take a short canvas' room).
    if !shown.is_empty() && canvas.rect.width() >= LEGEND_MIN_CANVAS {
        draw_legend(canvas, live, view, basis, shown, &mut drawn);
    }
    drawn
}

/// The simulated time of the drawn (interpolated) state, followed by the `speed` where it
/// is given, top right, large enough for a projector, and the basis under it (side by side, the
/// canvas' title as large as the time); on a short canvas (a hall's type) both on one row
/// where it is wide enough.
fn draw_time_and_basis(
    canvas: &Canvas,
    (t, speed): (f64, Option<String>),
    side_by_side: bool,
    basis: BasisMode,
    drawn: &mut Vec<egui::Rect>,
) {
    let (rect, palette) = (canvas.rect, canvas.palette);
    // A short canvas (a projector's interface scale, side by side) keeps its mechanism room:
    // the time takes at most a tenth of its height. Whole sizes: their glyphs are in the
    // font atlas from the start (`font_warmup`), none missing from a recorded frame.
    let size = (0.1 * rect.height()).clamp(11.0, 20.0).round();
    let speed = speed.unwrap_or_default();
    let time = canvas.painter.layout_no_wrap(
        format!("t = {t:.3} s{speed}"),
        FontId::monospace(size),
        palette.text,
    );
    let (basis_size, basis_color) = if side_by_side {
        (size, palette.text)
    } else {
        ((0.7 * size).round(), palette.text.gamma_multiply(0.75))
    };
    let basis_galley = canvas.painter.layout_no_wrap(
        format!("{} QR", basis_name(basis)),
        FontId::proportional(basis_size),
        basis_color,
    );
    let corner = pos2(rect.right() - 14.0, rect.top() + 10.0);
    let one_row_width = time.size().x + basis_galley.size().x + ROW_GAP + 28.0;
    let one_row = rect.height() < ONE_ROW_BELOW && one_row_width <= rect.width();
    let time_rect = text_on_backdrop(canvas, corner, time);
    let basis_at = if one_row {
        pos2(time_rect.left() - ROW_GAP, rect.top() + 10.0)
    } else {
        pos2(corner.x, rect.top() + 12.0 + 1.2 * size)
    };
    drawn.push(time_rect);
    drawn.push(text_on_backdrop(canvas, basis_at, basis_galley));
}

/// How far down from the canvas' top (points) the time and the basis reach on a canvas of
/// `size`, at most ([`draw_time_and_basis`]), whatever the legend beside them.
pub(super) fn time_corner_bottom(size: egui::Vec2) -> f32 {
    let text = (0.1 * size.y).clamp(11.0, 20.0).round();
    let rows = if size.y < ONE_ROW_BELOW { 1.0 } else { 2.0 };
    12.0 + rows * 1.3 * text + 4.0
}

/// Canvas height (points) below which the basis is written beside the time, not under it:
/// a hall's type at 720 rows leaves the canvas about 160 points.
const ONE_ROW_BELOW: f32 = 240.0;

/// Points between the basis and the time written on one row.
const ROW_GAP: f32 = 16.0;

/// Text with its top right corner at `at`, on a patch of the background: a mechanism that
/// moves under the corner (a folding loop, a large presentation type) does not garble it.
fn text_on_backdrop(
    canvas: &Canvas,
    at: egui::Pos2,
    galley: std::sync::Arc<egui::Galley>,
) -> egui::Rect {
    let rect = Align2::RIGHT_TOP.anchor_size(at, galley.size());
    let backdrop = canvas.palette.background.gamma_multiply(0.8);
    canvas.painter.rect_filled(rect.expand(3.0), 3.0, backdrop);
    canvas.painter.galley(rect.min, galley, canvas.palette.text);
    rect
}

/// The legend of the motions, top left: a title, a row per motion (colour, name and role;
/// faded when hidden) and a caption. A canvas too narrow for the full legend beside the time
/// (1280 x 720 windows, larger interface scales, side by side) gets a compact one: colour
/// and name only, no title or caption, which fits beside the time and keeps off the
/// mechanism.
fn draw_legend(
    canvas: &Canvas,
    live: &Live,
    view: &ViewState,
    basis: BasisMode,
    shown: &[Motion],
    drawn: &mut Vec<egui::Rect>,
) {
    let (painter, rect, palette) = (canvas.painter, canvas.rect, canvas.palette);
    let compact = rect.width() < LEGEND_BESIDE_TIME;
    // A short canvas (a hall's type) lists the motions drawn only, or none (the labels on
    // the arrows name them): five rows covered the mechanism.
    let row = if view.for_viewers() { 22.0 } else { 19.0 };
    let room = LEGEND_MOST_HEIGHT * rect.height();
    let at_event = live.session.current_event().is_some();
    let drawn_count = shown
        .iter()
        .enumerate()
        .filter(|(k, m)| view.motion_drawn(*k, m, at_event))
        .count();
    let drawn_only = shown.len() as f32 * row > room;
    if drawn_only && drawn_count as f32 * row > room {
        return;
    }
    // Posed by hand or come to rest: there was no motion before to continue.
    let at_rest = live.session.simulation().velocities().amax() < AT_REST;
    // The rows listed, laid out: each motion's index, whether it is drawn, and its text.
    let rows: Vec<_> = shown
        .iter()
        .enumerate()
        .map(|(k, motion)| (k, view.motion_drawn(k, motion, at_event)))
        .filter(|&(_, drawn_here)| drawn_here || !drawn_only)
        .map(|(k, drawn_here)| {
            // At an event the keys 1 to 9 draw and choose a motion.
            let key = match k {
                0..9 if at_event => format!("{}  ", k + 1),
                _ => String::new(),
            };
            let role = if compact {
                ""
            } else {
                role_text(&shown[k].role, at_event, at_rest)
            };
            let text = format!("{key}{}  {role}", shown[k].label);
            let font = FontId::proportional(row_size(view));
            (
                k,
                drawn_here,
                painter.layout_no_wrap(text, font, palette.text),
            )
        })
        .collect();
    let title = (!compact).then(|| {
        let text = if at_event {
            format!(
                "Admissible motions at the singular configuration ({} QR)",
                basis_name(basis)
            )
        } else {
            format!("Columns of T ({} QR)", basis_name(basis))
        };
        painter.layout_no_wrap(text, FontId::proportional(14.0), palette.text)
    });
    // Beside the time, or under it where a row or the title would reach it (the time and
    // the basis on one row over a short canvas).
    let time_left = drawn.iter().map(|r| r.left()).fold(f32::INFINITY, f32::min);
    let widest = rows
        .iter()
        .map(|(.., g)| 32.0 + g.size().x)
        .chain(title.iter().map(|g| g.size().x))
        .fold(0.0, f32::max);
    let beside = rect.left() + 12.0 + widest + 8.0 <= time_left;
    let mut y = if beside {
        rect.top() + 12.0
    } else {
        drawn.iter().map(|r| r.bottom()).fold(rect.top(), f32::max) + 8.0
    };
    // The small print wraps short of the time beside it (at 1280 x 720 its line of keys ran
    // under the time, and the legend's backing covered it).
    let print_width = if beside {
        time_left - rect.left() - 28.0
    } else {
        rect.width() - 24.0
    };
    // A patch of the background under the legend, set once its extent is known: a trace or
    // a bar passing under it does not run through its text.
    let backdrop = painter.add(egui::Shape::Noop);
    let first = drawn.len();
    if let Some(title) = title {
        let at = pos2(rect.left() + 12.0, y);
        drawn.push(egui::Rect::from_min_size(at, title.size()));
        painter.galley(at, title, palette.text);
        y += 20.0;
    }
    for (k, drawn_here, galley) in rows {
        let color = palette.motion(k);
        // A motion not drawn stays as readable in the list (its key draws it): its swatch is
        // an outline in its colour (a faded name read 2.9:1 on the light theme's backdrop,
        // a faded swatch near black on the dark one).
        let (step, swatch, text_x) = if view.for_viewers() {
            (22.0, vec2(21.0, 12.0), 44.0)
        } else {
            (19.0, vec2(18.0, 10.0), 40.0)
        };
        let sw = egui::Rect::from_min_size(pos2(rect.left() + 14.0, y + 3.0), swatch);
        if drawn_here {
            painter.rect_filled(sw, 2.0, color);
        } else {
            painter.rect_stroke(
                sw.shrink(1.0),
                2.0,
                egui::Stroke::new(2.0, color),
                egui::StrokeKind::Inside,
            );
        }
        let at = pos2(rect.left() + text_x, y);
        drawn.push(egui::Rect::from_min_size(at, galley.size()));
        painter.galley(at, galley, palette.text);
        y += step;
    }
    // Presenting and recording, the class sees the rows alone: the small print and the keys
    // would run through the mechanism in the large canvas corner, and read as a smudge in a
    // video.
    if !compact && !view.for_viewers() {
        let points = if canvas.rigid.is_some() {
            "velocity of body centres, solid ends and named points"
        } else {
            "velocity of bar ends and centres"
        };
        let mut lines = vec![
            "arrows: the way the mechanism moves along each motion (at rest: downhill)".to_owned(),
            format!("{points}; the longest arrow of each motion the same length"),
        ];
        // A recording is for viewers: no keys.
        if at_event && !view.video {
            lines.push(MOTION_KEYS.to_owned());
        }
        // In the text's colour, smaller than the rows: faded to 0.6 its strokes read 2.6:1 on
        // the light theme's backdrop (trial 17), at 0.8 still 4.1:1.
        let print = palette.text;
        for line in lines {
            let galley = painter.layout(
                line,
                FontId::proportional(12.0),
                print,
                print_width.max(120.0),
            );
            let at = pos2(rect.left() + 12.0, y + 2.0);
            drawn.push(egui::Rect::from_min_size(at, galley.size()));
            y += galley.size().y + 1.0;
            painter.galley(at, galley, print);
        }
    }
    let extent = drawn[first..]
        .iter()
        .fold(egui::Rect::NOTHING, |a, b| a.union(*b));
    if extent.is_positive() {
        let patch = egui::Rect::from_min_max(pos2(rect.left() + 8.0, extent.top()), extent.max);
        painter.set(
            backdrop,
            egui::Shape::rect_filled(
                patch.expand(3.0),
                3.0,
                palette.background.gamma_multiply(0.8),
            ),
        );
    }
}

/// The size (points) of a legend row's text: presenting and recording, the rows are what
/// the class reads from afar, a size larger.
fn row_size(view: &ViewState) -> f32 {
    if view.for_viewers() { 16.0 } else { 14.0 }
}

/// The keys of the motions at an event, as the legend states them.
pub const MOTION_KEYS: &str = "keys: 1-9 draw and choose a motion, 0 all, Enter push (a branch: leave on), Shift+Enter the other way, H hide";

/// What a legend row says about a motion's role.
fn role_text(role: &MotionRole, at_event: bool, at_rest: bool) -> &'static str {
    match role {
        MotionRole::Continued if at_rest => {
            "continues the basis' direction (at rest here: drawn downhill)"
        }
        MotionRole::Continued => "continues the motion before",
        MotionRole::New => "new at the singularity (dashed)",
        MotionRole::Branch => "a branch it can leave along (dotted)",
        MotionRole::Basis(BasisMode::Traditional) if at_event => "column of Q as the QR returns it",
        MotionRole::Basis(_) => "",
    }
}

pub fn basis_name(mode: BasisMode) -> &'static str {
    match mode {
        BasisMode::Traditional => "traditional",
        BasisMode::Continued => "continued",
    }
}
