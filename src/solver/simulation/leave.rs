//! Leaving a singular configuration along a branch, and placing a simulation at an event's
//! state.
//!
//! [`Simulation::leave_along`] places the mechanism on a branch of a singular configuration
//! ([`branches`](crate::solver::branches())) a short way out, `x_event + s b` with `s` one step's travel
//! and at least 1e-3, brought back onto the constraints by Newton, which lands on the branch `b` is
//! tangent to, where the configuration is regular. The velocity is `b` projected on that tangent
//! space, scaled to the energy asked for (the event's, or the potential energy there plus
//! `v^2 b^T M b / 2` at speed `v`); time advances by `s / v` and both bases continue from the
//! event's. The choices, and what they avoid:
//! - no step runs with the detection tolerance as rank tolerance while the state is placed:
//!   gravity then acted along the motion being left, and leaving from rest lost part of the
//!   energy asked for, the more the slower;
//! - a placement closer than a step's travel makes the first step start where the
//!   accelerations vary like `1 / rho`, and the energy drifts from there (the runs behind
//!   both: `docs/measurements.md`, *Alternatives measured*);
//! - the jump is kept as a step from the event state along the branch, so the first search of
//!   `rho` covers it: a singular configuration inside it (the 2x3's second flat pose, 2.6e-3 s
//!   after its first, at dt 5e-3) would otherwise be skipped unseen
//!   (`leaving_the_first_of_two_close_flat_poses_finds_the_second`).
//!
//! Leaving the four-bar's fold either way, the energy stays that of the event over the next
//! 0.5 s (`leaving_along_the_fold_keeps_the_energy_and_stays_folded` asserts 1e-6 J), and 20
//! steps after leaving from rest at 0.2 and 1 m/s the energy is the one asked
//! for within 1e-6 of it (`leaving_a_rest_point_takes_the_energy_asked_for`).

use nalgebra::DVector;

use super::{KEPT_STATES, Simulation, turns};
use crate::model::Mechanism;
use crate::solver::basis::StepEnd;
use crate::solver::error::SolverError;
use crate::solver::events::SingularEvent;
use crate::solver::indicator::rho;

/// How far (m or rad along the unit direction) a leaving mechanism is placed from the
/// singular configuration at least: far beyond the event state's own distance from it
/// (`rho` about 1e-7 on A02), so that Newton lands on the branch left along.
const LEAVE_DISTANCE: f64 = 1e-3;

/// Scales `xd` so that the energy at `(x, xd)` is `target`, when the kinetic energy allows it
/// (positive before and after).
pub(super) fn rescale_kinetic_energy(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    xd: &mut DVector<f64>,
    target: f64,
) {
    let total = mechanism.energy(x, xd);
    let kinetic = mechanism.kinetic_energy(x, xd);
    let wanted = kinetic + (target - total);
    if kinetic > 0.0 && wanted > 0.0 && target.is_finite() {
        *xd *= (wanted / kinetic).sqrt();
    }
}

impl Simulation {
    /// Sends the mechanism from `event`'s configuration along `direction` (a branch tangent,
    /// or any admissible motion there) at `speed` (m/s or rad/s of its unit vector; `None`
    /// keeps the event's kinetic energy). The state is placed on the branch a short way out,
    /// `x_event + s direction` (`s` = one step's travel, at least `LEAVE_DISTANCE`) brought
    /// back onto the constraints by Newton, which lands on the branch `direction` is tangent
    /// to; there the configuration is regular, so the velocity is `direction` projected on
    /// its tangent space, scaled to the energy asked for. The time advances by `s / speed`
    /// and both bases are continued from the event's. No step runs with an enlarged tangent
    /// space, so gravity cannot act along the motion being left while the state is placed.
    pub fn leave_along(
        &mut self,
        event: &SingularEvent,
        direction: &DVector<f64>,
        speed: Option<f64>,
    ) -> Result<(), SolverError> {
        let n = self.mechanism.n();
        let norm = direction.norm();
        if direction.len() != n || !norm.is_finite() || norm == 0.0 {
            return Err(SolverError::LeaveDirectionInvalid);
        }
        self.set_event_state(event)?;
        let unit = direction / norm;
        let unit_mass = 2.0 * self.mechanism.kinetic_energy(&self.x, &unit);
        let kinetic = self.mechanism.kinetic_energy(&self.x, &self.xd);
        let (speed, target) = match speed {
            Some(s) if s.is_finite() && s > 0.0 => {
                (s, self.energy() - kinetic + 0.5 * unit_mass * s * s)
            }
            Some(_) => {
                return Err(SolverError::LeaveSpeedNotPositive);
            }
            None => ((2.0 * kinetic / unit_mass).sqrt(), self.energy()),
        };
        if speed.is_nan() || speed <= 0.0 {
            return Err(SolverError::LeaveFromRest);
        }
        // A step's travel: the first step from a state placed closer starts where the
        // accelerations vary like 1 / rho (the four-bar's fold, 0.5 s after leaving: 1.2e-5 J
        // of drift from 1e-3 out, 9e-8 J from 5e-3).
        let distance = (self.settings.dt * speed).max(LEAVE_DISTANCE);
        let h = distance / speed;
        self.t = event.t + h;
        self.x.axpy(distance, &unit, 1.0);
        self.xd.copy_from(&(&unit * speed));
        self.project_current()?;
        // With a driver the velocity has a prescribed part and the energy is not conserved:
        // the speed asked for is kept as it is.
        if !self.mechanism.is_rheonomic() {
            rescale_kinetic_energy(&self.mechanism, &self.x, &mut self.xd, target);
        }
        self.continue_bases_from(event, h);
        self.refresh_shown();
        // The jump is kept as a step from the event state along the branch, so that the first
        // search of `rho` covers it: a singular configuration inside it was skipped unseen
        // (the 2x3's second flat pose, 2.6e-3 s after its first, at dt 5e-3).
        let jump = &mut self.history[KEPT_STATES - 1];
        jump.t = event.t;
        jump.rho = event.rho_min;
        jump.x.copy_from(&event.x);
        turns::remove_turns(&self.mechanism, &self.turns, &mut jump.x);
        jump.xd.copy_from(&self.xd);
        jump.traditional.copy_from(&event.traditional_basis);
        jump.continued.copy_from(&event.basis);
        self.history_len = 1;
        Ok(())
    }

    /// Puts the simulation at the state of a singular event (time, positions, velocities and
    /// the continued basis as it reached the event). The bases are then brought to the
    /// current rank tolerance: with the detection tolerance as rank tolerance the dynamics see
    /// the enlarged tangent space, which is what pushing at a singularity needs.
    pub fn set_event_state(&mut self, event: &SingularEvent) -> Result<(), SolverError> {
        let n = self.mechanism.n();
        if event.x.len() != n || event.continued().nrows() != n {
            return Err(SolverError::EventOfAnotherMechanism);
        }
        self.t = event.t;
        self.t_compensation = 0.0;
        self.adopt_positions(&event.x);
        self.xd.copy_from(&event.xd);
        self.project_current()?;
        self.continue_bases_from(event, 0.0);
        self.refresh_shown();
        Ok(())
    }

    /// Continues both bases from those `event` stored to the tangent space of the current
    /// (projected) state, as over a step of length `h`, and restarts event detection.
    fn continue_bases_from(&mut self, event: &SingularEvent, h: f64) {
        let n = self.mechanism.n();
        let end = StepEnd {
            t_hat: self.qr_state.q().columns(self.rank, n - self.rank),
            xd: &self.xd,
            h,
            t: self.t,
        };
        self.traditional.copy_from(&event.traditional_basis);
        self.updater.update_traditional(&mut self.traditional, &end);
        let pred = event.basis.columns();
        self.continued.copy_from(&event.basis);
        self.updater.update_continued(
            &mut self.continued,
            &pred,
            self.mechanism.motion_weights(),
            &end,
        );
        self.restart_detection(event.t);
    }

    /// Starts event detection again from the current state, as a new start (the watched
    /// rank generic, no history), no minimum before `resumed_at` counting as a new one.
    pub(super) fn restart_detection(&mut self, resumed_at: f64) {
        self.watched.reset(self.generic_rank, &self.x);
        self.detector
            .resume(self.t, rho(&self.qr_state, self.watched.rank()));
        self.history_len = 0;
        self.search_next_step = false;
        self.excursions.resume_at(resumed_at);
    }
}
