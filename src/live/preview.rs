//! What a push or a leave would do, shown before the user does it: the same action run on a
//! copy of the session for a short span, its poses kept for the app to animate as a ghost.
//! The session itself is not touched, and the poses are the ones the action will reach
//! (the same solver on the same state), not a first-order sketch: a push along a motion
//! that is admissible to first order only shows where the constraints really take it.

use nalgebra::DVector;

use super::LiveSession;
use crate::solver::SolverError;

/// The action previewed.
#[derive(Clone, Debug, PartialEq)]
pub enum Preview {
    /// [`LiveSession::push_along`] with these arguments.
    Push {
        column: DVector<f64>,
        delta: f64,
        duration: f64,
    },
    /// [`LiveSession::leave_along`] with these arguments.
    Leave {
        direction: DVector<f64>,
        speed: Option<f64>,
    },
}

/// Steps the copy may take per pose: a preview never holds the window for long.
const MAX_STEPS_PER_POSE: usize = 20_000;

/// `frames` poses evenly over `span` seconds of simulated time after doing `what` on a copy
/// of `session`, passing singular events. Stops early, with the poses reached, if the
/// solver fails or a pose takes too many steps.
pub fn preview_poses(
    session: &LiveSession,
    what: &Preview,
    span: f64,
    frames: usize,
) -> Result<Vec<DVector<f64>>, SolverError> {
    let mut copy = session.clone();
    copy.auto_pause = false;
    let t0 = copy.time();
    match what {
        Preview::Push {
            column,
            delta,
            duration,
        } => copy.push_along(column, *delta, *duration)?,
        Preview::Leave { direction, speed } => copy.leave_along(direction, *speed)?,
    }
    let mut poses = vec![copy.simulation().positions().clone()];
    for k in 1..=frames {
        copy.play();
        copy.set_stop_time(Some(t0 + span * k as f64 / frames as f64));
        let out = copy.run_until_paused(MAX_STEPS_PER_POSE);
        if out.failed || !copy.is_paused() {
            break;
        }
        poses.push(copy.simulation().positions().clone());
    }
    Ok(poses)
}
