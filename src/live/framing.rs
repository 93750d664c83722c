//! What a view must hold to show a mechanism: the bounding box of a planar pose (bar ends,
//! point masses, pins to the ground and anchors of distance links), and of every pose a run
//! or a lesson will reach, which a video is framed on once so that nothing runs off the
//! picture or under its captions later.

use std::ops::ControlFlow;

use nalgebra::DVector;

use super::LiveSession;
use crate::lesson::Player;
use crate::model::{Joint, Mechanism};

/// `[lo, hi]` corners in the plane.
pub type PlaneBox = [[f64; 2]; 2];

/// The bounding box of the planar pose `x`; `None` without bodies.
pub fn pose_box(mechanism: &Mechanism, x: &DVector<f64>) -> Option<PlaneBox> {
    let mut span = Span::default();
    span.add_pose(mechanism, x);
    span.plane_box()
}

/// The box of every pose `session` reaches from its state to `t_end` (passing events), or,
/// with `lesson`, of every pose the lesson's headless replay reaches; `None` for spatial
/// scenes (their camera orbits) and when the run fails at once.
pub fn run_box(session: &LiveSession, lesson: Option<&Player>, t_end: f64) -> Option<PlaneBox> {
    let mechanism = &session.scene().mechanism;
    if mechanism.has_rigid_bodies() {
        return None;
    }
    let mut span = Span::default();
    let mut run = session.clone();
    span.add_pose(mechanism, run.simulation().positions());
    // A replay or run longer than this many steps is framed on what it reached by then.
    let budget = 2_000_000u64;
    match lesson {
        Some(player) => {
            let mut player = player.clone();
            // A recording of a lesson stops the first time its clock reaches `t_end`.
            let _ = player.play_headless(&mut run, budget, |session, _| {
                span.add_pose(mechanism, session.simulation().positions());
                if session.time() >= t_end {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        }
        None => {
            run.auto_pause = false;
            run.set_stop_time(Some(t_end));
            run.play();
            let mut steps = 0;
            while !run.is_paused() && steps < budget {
                steps += run.run_until_paused(1).steps as u64;
                span.add_pose(mechanism, run.simulation().positions());
            }
        }
    }
    span.plane_box()
}

#[derive(Clone, Copy)]
struct Span {
    lo: [f64; 2],
    hi: [f64; 2],
}

impl Default for Span {
    fn default() -> Self {
        Self {
            lo: [f64::INFINITY; 2],
            hi: [f64::NEG_INFINITY; 2],
        }
    }
}

impl Span {
    fn add(&mut self, p: [f64; 2]) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        for ((lo, hi), v) in self.lo.iter_mut().zip(&mut self.hi).zip(p) {
            *lo = lo.min(v);
            *hi = hi.max(v);
        }
    }

    fn add_pose(&mut self, mechanism: &Mechanism, x: &DVector<f64>) {
        for body in 0..mechanism.bodies().len() {
            match mechanism.bar_ends(body, x) {
                Some(ends) => ends.iter().for_each(|end| self.add([end.x, end.y])),
                None => {
                    let centre = mechanism.centre(body, x);
                    self.add([centre.x, centre.y]);
                    // A plate reaches as far as the points its joints hold (the mobile
                    // robot's wheel carriers).
                    for point in mechanism.joints().iter().filter_map(|j| j.held_point(body)) {
                        let p = mechanism.planar_point(body, &point, x);
                        self.add([p.x, p.y]);
                    }
                }
            }
        }
        for anchor in mechanism.joints().iter().filter_map(Joint::ground_anchor) {
            self.add([anchor[0], anchor[1]]);
        }
    }

    fn plane_box(&self) -> Option<PlaneBox> {
        (self.lo[0] <= self.hi[0]).then_some([self.lo, self.hi])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load_scene;

    #[test]
    fn a_runs_box_holds_every_pose_it_reaches() {
        // The four-bar's cranks (1 m, pinned at (0, 0) and (1, 0)) turn all the way round in
        // its 4 s: the box reaches 1 m left of the first pin and 1 m below both, where the
        // starting pose (cranks up) reaches neither.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/four_bar.ron");
        let session = LiveSession::new(load_scene(&path).unwrap()).unwrap();
        let start = pose_box(&session.scene().mechanism, session.simulation().positions()).unwrap();
        let run = run_box(&session, None, 4.0).unwrap();
        println!("start {start:?}, run {run:?}");
        assert!(start[0][1] > -0.5, "test bug: {start:?}");
        assert!(
            (run[0][1] + 1.0).abs() < 0.01 && (run[0][0] + 1.0).abs() < 0.01,
            "{run:?}"
        );
        assert!(run[1][0] >= start[1][0] && run[1][1] >= start[1][1]);
    }

    #[test]
    fn a_lesson_cut_short_is_framed_on_what_it_shows() {
        // The A02 lesson's cranks start upright on pins at y = 0; by 0.05 s they have turned
        // less than 0.3 rad, so nothing of the cut lesson is more than 0.1 m below its pins,
        // while the whole lesson (branch 1 folds a crank under the ground line) goes lower.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let lesson = crate::lesson::load_lesson(&root.join("scenes/lessons/a02_branches.ron"));
        let (player, session) = Player::start(lesson.unwrap()).unwrap();
        let cut = run_box(&session, Some(&player), 0.05).unwrap();
        let whole = run_box(&session, Some(&player), f64::INFINITY).unwrap();
        println!("cut {cut:?}, whole {whole:?}");
        assert!(cut[0][1] > -0.1, "{cut:?}");
        assert!(whole[0][1] < cut[0][1] - 0.2, "{whole:?}");
    }
}
