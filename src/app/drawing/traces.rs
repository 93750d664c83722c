//! The traces: the path of the point the Scene panel traces and of the scene's traced points,
//! each named (where several are drawn, or for a class or a video, who see no panel) by the
//! point it follows, back along its path clear of the mechanism.

use bevy_egui::egui::{self, Color32, Pos2, Shape, Stroke};

use super::{Canvas, joint_labels, plates};
use crate::app::simulation::Live;

/// The paths of the traced point and of the rigid bodies' traced points; when there are
/// several, or for `viewers` (presenting, a video), the label of each (its path, what, its
/// colour) to paint over the mechanism.
pub(super) fn draw_trace(
    canvas: &Canvas,
    live: &Live,
    viewers: bool,
) -> Vec<(Vec<Pos2>, String, Color32)> {
    let paths: Vec<Vec<Pos2>> = live
        .session
        .shown_traces()
        .map(|path| {
            path.filter_map(|p| canvas.projection.to_screen(*p))
                .collect()
        })
        .collect();
    // Several traces are told apart by a label; one needs none where the Scene panel names
    // it, but a class and a video do not see the panel.
    let named = viewers || paths.iter().filter(|path| path.len() > 1).count() > 1;
    let mut labels = Vec::new();
    for (k, points) in paths.into_iter().enumerate() {
        if points.len() > 1 {
            let colour = canvas.palette.trace_colour(k).gamma_multiply(0.8);
            // Each trace says which point it follows, along its path, in its colour.
            if let Some(name) = trace_name(live, k).filter(|_| named) {
                labels.push((points.clone(), name, colour));
            }
            canvas
                .painter
                .add(Shape::line(points, Stroke::new(1.5, colour)));
        }
    }
    labels
}

/// Pixels along a trace, back from the point it follows, where its name may go first: at the
/// newest end it sat among the joints' names (trial 15, on the mobile robot).
const TRACE_NAME_BACK: f32 = 90.0;

/// Pixels between a trace's name's point and the nearest ink of the mechanism.
const TRACE_NAME_CLEAR: f32 = 24.0;

/// Where a trace's name goes: the first point of its path [`TRACE_NAME_BACK`] or more back
/// from its newest end (the oldest, on a shorter path) clear of the mechanism's `ink` and
/// `plates`; none
/// where the path lies under the mechanism (a name there covered the robot's platform).
fn trace_name_point(points: &[Pos2], ink: &[egui::Rect], plates: &[Vec<Pos2>]) -> Option<Pos2> {
    let clear = |p: &Pos2| {
        let pieces = ink.iter().map(|piece| piece.distance_to_pos(*p));
        let hulls = plates.iter().map(|hull| plates::distance_to_hull(*p, hull));
        pieces.chain(hulls).all(|d| d > TRACE_NAME_CLEAR)
    };
    // Points tried a few pixels apart: a long path tested point by point against every
    // piece of ink cost every frame as many tests as it has points.
    let (mut along, mut next) = (0.0, TRACE_NAME_BACK);
    let far_back = points.windows(2).rev().filter_map(|pair| {
        along += pair[0].distance(pair[1]);
        (along >= next).then(|| {
            next = along + CANDIDATE_STEP;
            pair[0]
        })
    });
    let mut candidates = far_back.peekable();
    if candidates.peek().is_none() {
        return points.first().copied().filter(clear);
    }
    candidates.find(clear)
}

/// Pixels along a path between the points tried for its name.
const CANDIDATE_STEP: f32 = 8.0;

/// Pixels from its path beyond which a trace's name is tied to it by a line.
const TRACE_LEADER_FROM: f32 = 12.0;

/// Each trace's name beside a point of its path, in its colour on a backing of the canvas'
/// `backdrop`, clear of the text in `taken`, the `ink`, the `plates` and the other traces' names,
/// or none.
pub(super) fn paint_trace_labels(
    painter: &egui::Painter,
    labels: Vec<(Vec<Pos2>, String, Color32)>,
    (taken, ink, plates): (&[egui::Rect], &[egui::Rect], &[Vec<Pos2>]),
    (font, backdrop): (egui::FontId, Color32),
) {
    let (points, labels): (Vec<Pos2>, Vec<_>) = labels
        .into_iter()
        .filter_map(|(path, name, colour)| {
            Some((trace_name_point(&path, ink, plates)?, (name, colour)))
        })
        .unzip();
    let galleys: Vec<_> = labels
        .into_iter()
        .map(|(name, colour)| (painter.layout_no_wrap(name, font.clone(), colour), colour))
        .collect();
    // A margin: two names side by side ran into one ("trolley Ncarrier1 B").
    let sizes: Vec<_> = galleys
        .iter()
        .map(|(galley, _)| galley.size() + egui::vec2(10.0, 2.0))
        .collect();
    // A name with no free place is left out: over another it garbles both. Nor over the
    // bars and arrows (A02's "coupler1 centre" covered crank 3 in a lesson's video).
    let bounds = painter.clip_rect();
    let plate_boxes = plates.iter().map(|hull| egui::Rect::from_points(hull));
    let kept: Vec<egui::Rect> = taken
        .iter()
        .chain(ink)
        .copied()
        .chain(plate_boxes)
        .collect();
    let places = joint_labels::place_free_labels(&points, &sizes, 3.0, (&kept, bounds));
    for (((galley, colour), place), point) in galleys.into_iter().zip(places).zip(points) {
        if let Some(place) = place {
            // On a backing: over the mobile robot's platform the coloured name did not read.
            let backing = place.shrink2(egui::vec2(3.0, 0.0));
            // A name pushed out by others is tied to its path, as a joint's to its ring.
            let nearest = point.clamp(backing.min, backing.max);
            if nearest.distance(point) > TRACE_LEADER_FROM {
                painter.line_segment([point, nearest], Stroke::new(1.0, colour));
            }
            painter.rect_filled(backing, 2.0, backdrop.gamma_multiply(0.85));
            painter.galley(place.min + egui::vec2(5.0, 1.0), galley, colour);
        }
    }
}

/// The point trace `k` follows (0: the trace chosen in the Scene panel, then the scene's
/// traced points): the body's name and which of its points.
fn trace_name(live: &Live, k: usize) -> Option<String> {
    let session = &live.session;
    let bodies = session.scene().mechanism.bodies();
    if k == 0 {
        let point = session.trace_point()?;
        let which = match point.along {
            0.5 => "centre".to_owned(),
            0.0 => "start".to_owned(),
            1.0 => "end".to_owned(),
            along => format!("at {along:.2}"),
        };
        return Some(format!("{} {which}", bodies.get(point.body)?.name));
    }
    let trace = session.point_traces().get(k - 1)?;
    let scene = session.scene();
    // The point's name in the scene's `trace_points` ("platform:L": the mobile robot's
    // wheel L, which coordinates did not name), else the names the Scene panel gives the
    // points: the centre, and the look's named points.
    let written = scene
        .traced_points
        .iter()
        .zip(&scene.view.trace_points)
        .find(|&(&(body, local), _)| body == trace.body && local == trace.local)
        .and_then(|(_, text)| text.split_once(':'))
        .map(|(_, point)| point.to_owned());
    let named = scene
        .looks
        .iter()
        .filter(|look| look.body == trace.body)
        .flat_map(|look| look.points.iter())
        .find(|&(_, p)| *p == trace.local)
        .map(|(name, _)| name.clone());
    let which = match written.or(named) {
        Some(name) => name,
        None if trace.local.norm() == 0.0 => "centre".to_owned(),
        None => {
            let p = trace.local;
            format!("({:.2}, {:.2}, {:.2})", p.x, p.y, p.z)
        }
    };
    Some(format!("{} {which}", bodies.get(trace.body)?.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace's name goes 90 px back along its path from the point it follows (the newest
    /// end), not among that point's joints, and clear of the mechanism; a shorter path names
    /// it at its start.
    #[test]
    fn a_trace_is_named_back_along_its_path() {
        let path: Vec<Pos2> = (0..=20).map(|k| Pos2::new(10.0 * k as f32, 0.0)).collect();
        assert_eq!(
            trace_name_point(&path, &[], &[]),
            Some(Pos2::new(110.0, 0.0))
        );
        assert_eq!(
            trace_name_point(&path[..5], &[], &[]),
            Some(Pos2::new(0.0, 0.0))
        );
        // A bar across the path from 60 to 120 px: the name goes past it.
        let bar = [egui::Rect::from_min_max(
            Pos2::new(60.0, -5.0),
            Pos2::new(120.0, 5.0),
        )];
        assert_eq!(
            trace_name_point(&path, &bar, &[]),
            Some(Pos2::new(30.0, 0.0))
        );
        // The whole path under a plate: no name.
        let plate = vec![
            Pos2::new(-50.0, -5.0),
            Pos2::new(250.0, -5.0),
            Pos2::new(250.0, 5.0),
            Pos2::new(-50.0, 5.0),
        ];
        assert_eq!(
            trace_name_point(&path, &[], std::slice::from_ref(&plate)),
            None
        );
        assert_eq!(trace_name_point(&path[..5], &[], &[plate]), None);
    }
}
