//! One step of a [`Simulation`]: its plan (size, where it lands, whether its stages may be
//! corrected with the start's factorisation), the integration (RK4 or Dopri5), the
//! projection of its end, the bases' update and the singularity detection.
//!
//! # Pulses land on their edges
//!
//! A step never crosses an edge of a pulse load (the scene's, or a push's): it is shortened to
//! land on the edge, the steps after it go on from there, and a step takes the loads at its
//! middle. So a pulse is integrated as the piecewise-constant load it is: 20 N m for 0.05 s on
//! the four-bar's crank follows its one-degree-of-freedom reduction over 2 s, edges on the
//! step grid or off it (`cargo test --test solver pulses`, which asserts 1e-9 rad for RK4 and
//! Dopri5 at dt 1e-3 and 7e-4). A step ends on every edge and takes the
//! loads of its own window, not of its stages' times: a last stage on the edge would see the
//! half-open pulse as already off. An edge within a rounding error of the run's
//! end is the end, and Dopri5 keeps the step size it had before a short landing rather than
//! grow back from it.

use super::{KEPT_STATES, Simulation, StepReport, non_finite_state};
use crate::solver::basis::StepEnd;
use crate::solver::dynamics::Rhs;
use crate::solver::error::SolverError;
use crate::solver::indicator::rho;
use crate::solver::integrator::Step;
use crate::solver::projection::{
    ProjectionOutcome, SIMPLIFIED_NEWTON_MAX_TURN, SIMPLIFIED_NEWTON_MIN_RHO,
};
use crate::solver::settings::{Integrator, Predictor};

/// The size of a step about to be taken and where it lands.
struct StepPlan {
    /// The step size (Dopri5 shrinks it while attempts are rejected).
    h: f64,
    /// The limit the step was asked not to pass.
    t_limit: f64,
    /// `t_limit`, or the next edge of a pulse load before it.
    limit: f64,
    /// From the current time to `limit`.
    remaining: f64,
    /// The step is sized to end on `limit`.
    lands: bool,
    /// Dopri5's smallest step.
    h_min: f64,
    /// The current state is next to a singular configuration (`rho` below the detection
    /// tolerance).
    near_singular: bool,
    /// Far enough from a singular configuration (`rho` at least `SIMPLIFIED_NEWTON_MIN_RHO`),
    /// and the normals turn little enough over the step (`SIMPLIFIED_NEWTON_MAX_TURN`), for
    /// the stages to be projected by simplified Newton first.
    simplify: bool,
}

impl StepPlan {
    /// The step ends exactly on `limit`.
    fn lands_exactly(&self) -> bool {
        self.lands && self.h == self.remaining
    }
}

impl Simulation {
    /// The first edge (start or end) of a pulse load, the scene's or a push's, after the
    /// current time by more than a rounding error; infinite if none.
    fn next_load_edge(&self) -> f64 {
        let after = self.t + 1e-9 * self.settings.dt;
        self.mechanism
            .loads()
            .iter()
            .chain(&self.extra_loads)
            .filter_map(|load| load.window)
            .flat_map(|(start, end)| [start, end])
            .filter(|&edge| edge > after)
            .fold(f64::INFINITY, f64::min)
    }

    /// Advances by one step of the configured size.
    pub fn step(&mut self) -> Result<StepReport, SolverError> {
        self.step_until(f64::INFINITY)
    }

    /// Advances by one step, shortened if needed so as not to pass `t_limit`.
    pub fn step_until(&mut self, t_limit: f64) -> Result<StepReport, SolverError> {
        self.take_step(t_limit).map_err(|mut error| {
            if let SolverError::NewtonDiverged { t, round_off, .. } = &mut error {
                // Newton's round-off is that of the state the step left: a stage predicted far
                // off (a step that outran the motion) would make any residual look like
                // round-off.
                *round_off = f64::EPSILON * self.mechanism.residual_scale(&self.x);
                if let Some(driver) = self.driver_out_of_reach() {
                    return SolverError::DriverBeyondReach { t: *t, driver };
                }
            }
            error
        })
    }

    fn take_step(&mut self, t_limit: f64) -> Result<StepReport, SolverError> {
        self.event_count = 0;
        self.excursions.begin_step();
        let mut plan = self.plan_step(t_limit)?;
        // `dA/dt` at the state, for the predictor and for how fast the normals turn: one
        // evaluation serves both.
        let omega = self.track_continued && self.settings.predictor == Predictor::Omega;
        if omega || plan.simplify {
            self.mechanism
                .jacobian_dot(&self.x, &self.xd, &mut self.a_dot);
        }
        plan.simplify = plan.simplify && self.normals_turn(plan.h) <= SIMPLIFIED_NEWTON_MAX_TURN;
        if omega {
            self.predictor
                .prepare(&self.a_dot, &self.qr_state, &self.continued);
        }
        let (rejected, forced) = match self.settings.integrator {
            Integrator::Rk4 => {
                self.integrate_rk4(plan.h, plan.simplify)?;
                (0, false)
            }
            Integrator::Dopri5 => self.integrate_dopri5(&mut plan)?,
        };
        let h = plan.h;
        let (factorizations, range_space_stages) = self.stepper.take_work();
        self.counters.factorizations += factorizations;
        self.counters.range_space_stages += range_space_stages;
        let outcome = self.project_step_end(h, plan.simplify)?;

        // Accept: remember the state we leave, for locating events inside the last steps.
        self.keep_current_state();
        let predictor_used = if self.track_continued {
            self.predictor.predict(
                self.settings.predictor,
                h,
                self.settings.omega_step_limit,
                &self.qr_state,
                &self.continued,
            )
        } else {
            Predictor::Zeroth
        };
        self.advance_to_step_end(&plan);
        self.update_bases(h);
        // `A xd` for the report's velocity residual (A at the projected positions).
        self.projector.jacobian().mul_to(&self.xd, &mut self.av);
        if self
            .watched
            .update(&self.qr_state, &self.x, self.settings.detection_tolerance)
        {
            // The window's values were of another entry.
            self.detector.clear();
            self.history_len = 0;
        }
        let rho = rho(&self.qr_state, self.watched.rank());
        self.detect_events(&plan, rho)?;
        self.wrap_angles();
        self.refresh_shown();
        self.counters.steps += 1;
        let n = self.mechanism.n();
        Ok(StepReport {
            t: self.t,
            h,
            energy: self.energy(),
            residual: outcome.residual,
            independent_residual: outcome.independent_residual,
            velocity_residual: self.av.amax(),
            newton_iterations: outcome.iterations,
            rank: self.rank,
            dof: n - self.rank,
            rho,
            predictor: predictor_used,
            omega_norm: self.predictor.omega_norm(),
            traditional: self.traditional.stats(),
            continued: self.continued.stats(),
            rejected,
            forced,
            events: self.event_count,
        })
    }

    /// The size of the next step and whether it lands on `t_limit` or on the next edge of a
    /// pulse load before it.
    fn plan_step(&self, t_limit: f64) -> Result<StepPlan, SolverError> {
        let nominal = match self.settings.integrator {
            Integrator::Rk4 => self.settings.dt,
            Integrator::Dopri5 => self.adaptive_h.min(self.settings.dt),
        };
        // Land exactly on the limit, or on the next edge of a pulse load before it, when it
        // is within a rounding error of one more step: a step across an edge integrates the
        // pulse to first order only (20 N m for 0.05 s on the four-bar's crank, edges off the
        // grid: its angle 4.7e-3 rad off after 2 s at dt 1e-3).
        // An edge within a rounding error of the limit is the limit (a pulse ending at
        // 0.7 + 2.5174 s ends at 3.2173999999999996): otherwise the run's last step would
        // land just short of `t_end`, and the search that closes a run would not run.
        let edge = self.next_load_edge();
        let limit = if edge < t_limit - 1e-9 * self.settings.dt {
            edge
        } else {
            t_limit
        };
        let remaining = limit - self.t;
        let mut lands = remaining <= nominal * (1.0 + 1e-6);
        let mut h = if lands { remaining } else { nominal };
        if h.is_nan() || h <= 0.0 {
            return Err(SolverError::NothingToStep {
                t: self.t,
                limit: t_limit,
            });
        }
        let h_min = (self.settings.dt * self.settings.dopri_min_step).min(h);
        let rho_start = rho(&self.qr_state, self.watched.rank());
        let near_singular = rho_start < self.settings.detection_tolerance;
        if near_singular && self.settings.integrator == Integrator::Dopri5 && !lands {
            // Next to a singular configuration Dopri5 crosses in one step of the largest
            // size, as RK4 does. With the step the controller shrinks to on the way in, it
            // would take dozens of forced steps right at the singular point and could land on
            // it (rho = 0: 1.3e-2 J lost on the 2x3); in one step, every scene's energy
            // drift over 10 s stays below 1.4e-7 J (`solver::integrator`, "Dopri5").
            lands = remaining <= self.settings.dt * (1.0 + 1e-6);
            h = if lands { remaining } else { self.settings.dt };
        }
        Ok(StepPlan {
            h,
            t_limit,
            limit,
            remaining,
            lands,
            h_min,
            near_singular,
            simplify: rho_start >= SIMPLIFIED_NEWTON_MIN_RHO,
        })
    }

    /// An estimate of the angle (rad) the constraint normals turn over a step of size `h` from
    /// the current state: `h |dA/dt|_F / |A|_F` (`|A|_F = |R|_F`, `dA/dt` in `a_dot`).
    /// Infinite without constraints.
    fn normals_turn(&self, h: f64) -> f64 {
        let a_norm = self.qr_state.r().norm();
        if a_norm == 0.0 {
            return f64::INFINITY;
        }
        h * self.a_dot.norm() / a_norm
    }

    /// One RK4 step of size `h` from the current state into `(x_next, xd_next)`.
    fn integrate_rk4(&mut self, h: f64, simplify: bool) -> Result<(), SolverError> {
        let rhs = Rhs {
            mechanism: &self.mechanism,
            extra_loads: &self.extra_loads,
            settings: &self.settings,
        };
        let step = Step {
            t: self.t,
            x: &self.x,
            xd: &self.xd,
            start: &self.qr_state,
            h,
            simplify,
        };
        self.stepper.rk4(
            &rhs,
            &mut self.evaluator,
            &step,
            &mut self.x_next,
            &mut self.xd_next,
        )
    }

    /// Dopri5 attempts from the current state into `(x_next, xd_next)`, shrinking `plan.h`
    /// until one is accepted, and the step size for the next step into `adaptive_h`. Returns
    /// the number of rejected attempts and whether the accepted one was forced.
    fn integrate_dopri5(&mut self, plan: &mut StepPlan) -> Result<(usize, bool), SolverError> {
        let rhs = Rhs {
            mechanism: &self.mechanism,
            extra_loads: &self.extra_loads,
            settings: &self.settings,
        };
        let h_min = plan.h_min;
        let mut rejected = 0;
        loop {
            let h = plan.h;
            let step = Step {
                t: self.t,
                x: &self.x,
                xd: &self.xd,
                start: &self.qr_state,
                h,
                simplify: plan.simplify,
            };
            let attempt = self.stepper.dopri5(
                &rhs,
                &mut self.evaluator,
                &step,
                &mut self.x_next,
                &mut self.xd_next,
            );
            let error = match attempt {
                Ok(error) => error,
                // A stage whose projection fails means a step too long: rejected like one
                // that fails its error estimate, down to the smallest step.
                Err(SolverError::NewtonDiverged { .. }) if h > h_min => f64::INFINITY,
                Err(e) => return Err(e),
            };
            let factor = if error > 0.0 {
                (0.9 * error.powf(-0.2)).clamp(0.2, 5.0)
            } else {
                5.0
            };
            if error.is_finite() && error <= 1.0 {
                let grown = (h * factor).clamp(h_min.min(self.settings.dt), self.settings.dt);
                // A step shortened to land on an edge or the limit says nothing about the
                // step size the solution needs: keep the one before (the controller would
                // otherwise restart from the landing's length, down to nanoseconds).
                self.adaptive_h = if plan.lands_exactly() {
                    grown.max(self.adaptive_h)
                } else {
                    grown
                };
                return Ok((rejected, false));
            }
            if error.is_finite() && (h <= h_min || plan.near_singular) {
                // Near a singular configuration no step size meets the error estimate:
                // the accelerations vary like 1/rho there. Refining only creeps towards
                // the singular point and multiplies evaluations right next to it, so the
                // step (of the largest size, above) is accepted as it is, like a
                // fixed-step method's, and reported.
                self.adaptive_h = h.max(h_min);
                return Ok((rejected, true));
            }
            if h <= h_min {
                return Err(SolverError::StepTooSmall { t: self.t, h });
            }
            rejected += 1;
            plan.h = (h * if error.is_finite() {
                factor.min(0.9)
            } else {
                0.2
            })
            .max(h_min);
        }
    }

    /// Projects the integrated state `(x_next, xd_next)` at `t + h` onto the constraints,
    /// leaving `A^T` factorised there in `qr_next`. Where the step's stages could be corrected
    /// with the factorisation of its start (`simplify`), so can its end: Newton's corrections
    /// then cost a residual each, and `A^T` is factorised once, at the converged positions.
    fn project_step_end(
        &mut self,
        h: f64,
        simplify: bool,
    ) -> Result<ProjectionOutcome, SolverError> {
        let outcome = self.velocity.project(
            &mut self.projector,
            &self.mechanism,
            &self.settings,
            self.t + h,
            &mut self.x_next,
            &mut self.xd_next,
            simplify.then_some(&self.qr_state),
            &mut self.qr_next,
        )?;
        self.counters.factorizations += outcome.factorizations as u64;
        non_finite_state(&self.mechanism, self.t + h, &self.x_next, &self.xd_next)?;
        Ok(outcome)
    }

    /// Keeps the current state as the newest snapshot, dropping the oldest.
    fn keep_current_state(&mut self) {
        self.history.rotate_left(1);
        let snapshot = &mut self.history[KEPT_STATES - 1];
        snapshot.t = self.t;
        snapshot.rho = rho(&self.qr_state, self.watched.rank());
        snapshot.x.copy_from(&self.x);
        snapshot.xd.copy_from(&self.xd);
        snapshot.traditional.copy_from(&self.traditional);
        snapshot.continued.copy_from(&self.continued);
        self.history_len = (self.history_len + 1).min(KEPT_STATES);
    }

    /// Makes the projected step end the current state: time, positions, velocities, the
    /// factorisation there and its rank.
    fn advance_to_step_end(&mut self, plan: &StepPlan) {
        // Compensated (Kahan) summation keeps t = k dt exact to round-off over long runs.
        let increment = plan.h - self.t_compensation;
        let sum = self.t + increment;
        self.t_compensation = (sum - self.t) - increment;
        self.t = sum;
        if plan.lands_exactly() {
            self.t = plan.limit;
            self.t_compensation = 0.0;
        }
        std::mem::swap(&mut self.x, &mut self.x_next);
        std::mem::swap(&mut self.xd, &mut self.xd_next);
        std::mem::swap(&mut self.qr_state, &mut self.qr_next);
        self.rank = self.qr_state.rank(self.settings.rank_tolerance);
    }

    /// Brings both tangent bases to the current state after a step of length `h`: the
    /// traditional one to the QR's columns, the continued one from the predictor's basis.
    fn update_bases(&mut self, h: f64) {
        let n = self.mechanism.n();
        let end = StepEnd {
            t_hat: self.qr_state.q().columns(self.rank, n - self.rank),
            xd: &self.xd,
            h,
            t: self.t,
        };
        self.updater.update_traditional(&mut self.traditional, &end);
        if !self.track_continued {
            return;
        }
        let prediction = self.predictor.prediction();
        self.updater.update_continued(
            &mut self.continued,
            &prediction,
            self.mechanism.motion_weights(),
            &end,
        );
    }

    /// Feeds the singularity indicator `rho` of the current state to the detector and locates
    /// the singular configurations the last steps passed, when there may be one.
    fn detect_events(&mut self, plan: &StepPlan, rho: f64) -> Result<(), SolverError> {
        let fitted = self.detector.push(self.t, rho);
        let search_step = std::mem::take(&mut self.search_next_step);
        // The last step of a run (it landed on the limit) with `rho` still falling: a minimum
        // in it would only be seen by a step that does not come.
        let closing = plan.lands_exactly()
            && plan.limit == plan.t_limit
            && self.history_len > 0
            && rho < self.history[KEPT_STATES - 1].rho;
        if fitted.is_some() || search_step || closing {
            self.locate_events(fitted, search_step, closing)?;
        }
        self.excursions
            .observe(self.t, rho, self.settings.detection_tolerance);
        Ok(())
    }
}
