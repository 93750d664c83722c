//! The motions and branches the window lists and a lesson's actions count, in that order: at
//! a singular event the event's motions in the chosen basis (continued: the continued
//! columns, then the new ones; traditional: the factorisation's columns), then the branches;
//! elsewhere the running basis' columns `T1`, `T2`, ... Each points the way the mechanism
//! moves along it (at rest: downhill, [`orient_motion`]): a column of `T` has no sign of its
//! own, and the arrows, a positive push and "leave on" all mean that way.

use nalgebra::DVector;

use super::format::Way;
use crate::live::motions::{basis_motions, branch_motions, event_motions, orient_motion};
use crate::live::{LiveSession, Motion};
use crate::solver::BasisMode;

pub use crate::live::motions::AT_REST;

/// The motions listed at the session's state (`Push(motion: k)` indexes this list by k - 1),
/// oriented.
pub fn listed_motions(session: &LiveSession, basis: BasisMode) -> Vec<Motion> {
    let mut motions = match session.current_event() {
        Some(event) => {
            let mut motions = event_motions(event, basis);
            motions.extend(branch_motions(session.branches()));
            motions
        }
        None => basis_motions(session.simulation().basis(basis), basis),
    };
    for motion in &mut motions {
        motion.column = oriented(session, &motion.column);
    }
    motions
}

fn oriented(session: &LiveSession, column: &DVector<f64>) -> DVector<f64> {
    let sim = session.simulation();
    let mechanism = &session.scene().mechanism;
    orient_motion(mechanism, sim.positions(), sim.velocities(), column)
}

/// The direction of `Leave(branch: k, way)` (k counted from 1), if the session is at an event
/// with that branch: forward is the way the branch is listed (continuing the sense of the
/// motion that reached the event; from rest, downhill), back the other.
pub fn leave_direction(session: &LiveSession, branch: usize, way: Way) -> Option<DVector<f64>> {
    let direction = &session.branches().get(branch.checked_sub(1)?)?.direction;
    let forward = oriented(session, direction);
    Some(match way {
        Way::Forward => forward,
        Way::Back => -forward,
    })
}

/// Whether the mechanism is at rest for "leave" (it then needs a speed).
pub fn at_rest(session: &LiveSession) -> bool {
    session.simulation().velocities().amax() < AT_REST
}
