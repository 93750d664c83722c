//! The ghost preview: while the pointer is on a motion's row at a singular event, the
//! mechanism is drawn again, translucent and in the motion's colour, moving as the panel's
//! action on that motion would move it ("leave on" for a branch, the push for the others),
//! over the next [`SPAN`] seconds of simulated time, looped. The poses come from
//! [`crate::live::preview`]: the real action on a copy of the session, so a motion that is
//! admissible to first order only shows where the constraints actually take a push.

use web_time::Instant;

use bevy_egui::egui::{self, Color32, FontId, Shape, Stroke};
use nalgebra::DVector;

use super::shapes::stadium;
use super::{Canvas, ViewState};
use crate::lesson::choices::AT_REST;
use crate::live::{LiveSession, Motion, MotionRole, Preview, motions, preview_poses};
use crate::model::BodyShape;

/// Simulated seconds the ghost shows, in [`FRAMES`] poses, looped every [`LOOP`] seconds.
const SPAN: f64 = 0.5;
const FRAMES: usize = 30;
const LOOP: f64 = 2.0;
/// Pixels above the canvas' bottom of the line that says what a ghost shows: above the scale
/// bar and its label.
const GHOST_LINE_ABOVE: f32 = 50.0;

/// A computed preview and what it was computed for.
#[derive(Clone, Debug)]
pub struct Ghost {
    key: (u64, usize, String, u64, u64),
    poses: Vec<DVector<f64>>,
    started: Instant,
    what: String,
}

/// The action the panel would take on `motion` (see `actions::chosen_action`).
fn action(session: &LiveSession, motion: &Motion, view: &ViewState) -> (Preview, String) {
    let velocities = session.simulation().velocities();
    if motion.role == MotionRole::Branch {
        let at_rest = velocities.amax() < AT_REST;
        // Listed the way "leave on" takes it.
        let preview = Preview::Leave {
            direction: motion.column.clone(),
            speed: at_rest.then_some(view.push.delta.abs().max(0.1)),
        };
        (preview, format!("leave on {}", motion.label))
    } else {
        let preview = Preview::Push {
            column: motion.column.clone(),
            delta: view.push.delta,
            duration: view.push.duration,
        };
        // As the push's own note says (`actions::push_note`): a new motion is admissible to
        // first order only, and at speed the constraints take a small push back.
        let sim = session.simulation();
        let speed = motions::mass_speed(&session.scene().mechanism, sim.positions(), velocities);
        let undone = motion.role == MotionRole::New && speed > view.push.delta.abs().max(AT_REST);
        let what = if undone {
            format!(
                "push along {} at speed: the constraints take it back; leave along a branch \
                 to change branch",
                motion.label
            )
        } else {
            format!("push along {}", motion.label)
        };
        (preview, what)
    }
}

/// Draws the ghost of the highlighted motion at the session's event (planar bars and point
/// masses), computing it the first time it is asked for.
pub(super) fn draw_ghost(
    canvas: &Canvas,
    session: &LiveSession,
    shown: &[Motion],
    view: &mut ViewState,
) {
    let (Some(k), Some(_), true) = (
        view.highlighted_motion,
        session.current_event(),
        view.ghost_preview,
    ) else {
        view.ghost = None;
        return;
    };
    let Some(motion) = shown.get(k) else {
        return;
    };
    // The label too: another basis lists other motions under the same index.
    let key = (
        session.time().to_bits(),
        k,
        motion.label.clone(),
        view.push.delta.to_bits(),
        view.push.duration.to_bits(),
    );
    if view.ghost.as_ref().is_none_or(|g| g.key != key) {
        let (preview, what) = action(session, motion, view);
        let poses = preview_poses(session, &preview, SPAN, FRAMES).unwrap_or_default();
        view.ghost = Some(Ghost {
            key,
            poses,
            started: Instant::now(),
            what,
        });
    }
    let Some(ghost) = &view.ghost else {
        return;
    };
    if ghost.poses.is_empty() {
        return;
    }
    let phase = (ghost.started.elapsed().as_secs_f64() / LOOP).fract();
    let index = ((phase * ghost.poses.len() as f64) as usize).min(ghost.poses.len() - 1);
    let color = canvas.palette.motion(k);
    paint_pose(canvas, &ghost.poses[index], color);
    let t = SPAN * index as f64 / FRAMES as f64;
    canvas.painter.text(
        canvas.rect.left_bottom() + egui::vec2(12.0, -GHOST_LINE_ABOVE),
        egui::Align2::LEFT_BOTTOM,
        format!(
            "ghost: {}: {t:.2} s later (replaying the next {SPAN} s)",
            ghost.what
        ),
        FontId::proportional(14.0),
        color,
    );
}

/// The pose the pointer is at in the configuration-space plot, faint in the theme's text
/// colour, with a line saying what it is (planar bars and point masses).
pub(super) fn draw_atlas_ghost(canvas: &Canvas, view: &ViewState) {
    let Some(x) = &view.atlas_ghost else {
        return;
    };
    if x.len() != canvas.mech.n() {
        return;
    }
    let color = canvas.palette.text;
    paint_pose(canvas, x, color);
    canvas.painter.text(
        canvas.rect.left_bottom() + egui::vec2(12.0, -GHOST_LINE_ABOVE),
        egui::Align2::LEFT_BOTTOM,
        "ghost: the pose at the pointer in the configuration space (a click poses it there)",
        FontId::proportional(14.0),
        color,
    );
}

/// The bars and point masses at `x`, faint in `color` with dashed outlines (never mistaken
/// for the mechanism, whose bars are solid).
fn paint_pose(canvas: &Canvas, x: &DVector<f64>, color: Color32) {
    let fill = color.gamma_multiply(0.12);
    let edge = Stroke::new(2.0, color);
    for (index, body) in canvas.mech.bodies().iter().enumerate() {
        let o = body.offset;
        match body.shape() {
            BodyShape::Bar { .. } => {
                let Some([a, b]) = canvas.mech.bar_ends(index, x).map(|e| e.map(Into::into)) else {
                    continue;
                };
                if let (Some(pa), Some(pb)) = (
                    canvas.projection.to_screen(a),
                    canvas.projection.to_screen(b),
                ) {
                    let mut outline = stadium(pa, pb, 4.0);
                    canvas
                        .painter
                        .add(Shape::convex_polygon(outline.clone(), fill, Stroke::NONE));
                    outline.push(outline[0]);
                    canvas
                        .painter
                        .extend(Shape::dashed_line(&outline, edge, 6.0, 4.0));
                }
            }
            BodyShape::PointMass { spatial: false } => {
                if let Some(p) = canvas.projection.to_screen([x[o], x[o + 1], 0.0]) {
                    canvas.painter.circle(p, 6.0, fill, edge);
                }
            }
            BodyShape::Plate | BodyShape::PointMass { spatial: true } | BodyShape::Solid => {}
        }
    }
}
