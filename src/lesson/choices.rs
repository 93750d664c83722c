//! The motions and branches a lesson's actions count, in the order the app lists them: at a
//! singular event the event's motions in the chosen basis (continued: the continued columns,
//! then the new ones; traditional: the factorisation's columns), then the branches, each
//! pointing the way the mechanism moves; elsewhere the running basis' columns `T1`, `T2`, ...

use nalgebra::DVector;

use super::format::Way;
use crate::live::motions::{basis_motions, branch_motions, event_motions};
use crate::live::{LiveSession, Motion, MotionRole};
use crate::solver::BasisMode;

/// Largest coordinate rate (m/s, rad/s) below which the mechanism is at rest for "leave": the
/// app's threshold, under which it asks for a speed (four_bar_stopping arrives at its flat
/// pose with about 1e-5 m/s left).
pub const AT_REST: f64 = 1e-3;

/// The motions `Push(motion: k)` counts (k - 1 indexes this list).
pub fn push_motions(session: &LiveSession, basis: BasisMode) -> Vec<Motion> {
    let Some(event) = session.current_event() else {
        return basis_motions(session.simulation().basis(basis), basis);
    };
    let mut motions = event_motions(event, basis);
    motions.extend(branch_motions(session.branches()));
    let xd = session.simulation().velocities();
    for motion in &mut motions {
        if motion.role == MotionRole::Branch && motion.column.dot(xd) < 0.0 {
            motion.column.neg_mut();
        }
    }
    motions
}

/// The direction of `Leave(branch: k, way)` (k counted from 1), if the session is at an event
/// with that branch: forward continues the sense of the motion that reached the event.
pub fn leave_direction(session: &LiveSession, branch: usize, way: Way) -> Option<DVector<f64>> {
    let direction = &session.branches().get(branch.checked_sub(1)?)?.direction;
    let forward = if direction.dot(session.simulation().velocities()) < 0.0 {
        -1.0
    } else {
        1.0
    };
    let sign = match way {
        Way::Forward => forward,
        Way::Back => -forward,
    };
    Some(direction * sign)
}

/// Whether the mechanism is at rest for "leave" (it then needs a speed).
pub fn at_rest(session: &LiveSession) -> bool {
    session.simulation().velocities().amax() < AT_REST
}
