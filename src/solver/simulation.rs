//! The `Simulation` value: state, settings and preallocated workspace, advanced by `step()`.
//!
//! One step: integrate `(x, xd)` (RK4 or Dopri5), project onto the constraint manifold,
//! factorise `A^T` once at the new positions, then update both tangent bases from that one
//! factorisation (the physics never reads them), feed the singularity detector, and report.
//! After warm-up a step allocates nothing, also when it locates singular events: they are
//! filled in place in preallocated storage and read with `step_events()`.

use std::sync::Arc;

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::basis::{BasisStats, BasisUpdater, TangentBasis};
use super::dynamics::Evaluator;
use super::error::SolverError;
use super::events::{
    EventDetector, Excursions, LocatedMinimum, MAX_EVENTS_PER_STEP, SingularEvent,
};
use super::integrator::{Rhs, Stepper};
use super::predictor::BasisPredictor;
use super::projection::{ProjectionOutcome, Projector};
use super::settings::{BasisMode, Integrator, Predictor, Settings};
use crate::linalg::PivotedQr;
use crate::model::{Load, Mechanism};

/// What one accepted step did.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// Time at the end of the step and the step size taken.
    pub t: f64,
    pub h: f64,
    /// Kinetic plus gravitational potential energy, J.
    pub energy: f64,
    /// `|c|_inf` over all constraints after projection.
    pub residual: f64,
    /// `|c_piv[0..r]|_inf`, the independent residuals Newton drives to tolerance.
    pub independent_residual: f64,
    /// `|A xd|_inf` after the velocity projection.
    pub velocity_residual: f64,
    pub newton_iterations: usize,
    /// Rank seen by the dynamics and the matching number of admissible motions `n - rank`.
    pub rank: usize,
    pub dof: usize,
    /// `|R[r_g-1, r_g-1]| / |R[0, 0]|`, the singularity indicator.
    pub rho: f64,
    /// Predictor actually used for the continued basis and `|Omega|_F`.
    pub predictor: Predictor,
    pub omega_norm: f64,
    pub traditional: BasisStats,
    pub continued: BasisStats,
    /// Rejected Dopri5 attempts before this step was accepted.
    pub rejected: usize,
    /// Dopri5 accepted this step without meeting the tolerance: across a singular
    /// configuration (at the largest step), or at its floor size.
    pub forced: bool,
    /// Singular configurations located by this step (usually 0 or 1; two configurations
    /// closer than a step give 2): `Simulation::step_events` describes them until the next
    /// step.
    pub events: usize,
}

/// An accepted state kept to restart from when an event is located inside the last steps.
#[derive(Clone, Debug)]
struct Snapshot {
    t: f64,
    /// The singularity indicator there.
    rho: f64,
    x: DVector<f64>,
    xd: DVector<f64>,
    traditional: TangentBasis,
    continued: TangentBasis,
}

impl Snapshot {
    fn new(n: usize) -> Self {
        Self {
            t: f64::NAN,
            rho: f64::NAN,
            x: DVector::zeros(n),
            xd: DVector::zeros(n),
            traditional: TangentBasis::new(n),
            continued: TangentBasis::new(n),
        }
    }
}

/// Counts of the work done, for benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkCounters {
    pub steps: u64,
    pub factorizations: u64,
}

/// A running simulation of one mechanism. `Clone` and deterministic: a clone stepped N times
/// equals the original stepped N times, bit for bit.
#[derive(Clone, Debug)]
pub struct Simulation {
    mechanism: Arc<Mechanism>,
    settings: Settings,
    t: f64,
    t_compensation: f64,
    x: DVector<f64>,
    xd: DVector<f64>,
    generic_rank: usize,
    /// Rank of `A` at the initial state (below the generic rank when it is singular).
    initial_rank: usize,
    rank: usize,
    extra_loads: Vec<Load>,
    traditional: TangentBasis,
    continued: TangentBasis,
    detector: EventDetector,
    /// The last `history_len` accepted states before the current one, oldest first, at the
    /// end of the array.
    history: [Snapshot; KEPT_STATES],
    history_len: usize,
    /// The last step located an event: the next one searches the step after it too.
    search_next_step: bool,
    adaptive_h: f64,
    counters: WorkCounters,
    // Workspace.
    evaluator: Evaluator,
    stepper: Stepper,
    projector: Projector,
    qr_state: PivotedQr,
    qr_next: PivotedQr,
    a_next: DMatrix<f64>,
    x_next: DVector<f64>,
    xd_next: DVector<f64>,
    av: DVector<f64>,
    predictor: BasisPredictor,
    updater: BasisUpdater,
    event_basis: TangentBasis,
    /// `MAX_EVENTS_PER_STEP` preallocated events; the first `event_count` were located by
    /// the last step, in time order.
    events: Vec<SingularEvent>,
    event_count: usize,
    /// Which minima of `rho` are new singular configurations.
    excursions: Excursions,
}

impl Simulation {
    /// Starts a simulation from positions and velocities that satisfy the constraints (the
    /// scene loader assembles them); they are projected once more to tolerance. The generic
    /// rank is the rank at this initial configuration, or next to it if it is singular.
    pub fn new(
        mechanism: Arc<Mechanism>,
        x0: DVector<f64>,
        xd0: DVector<f64>,
        settings: Settings,
    ) -> Result<Self, SolverError> {
        settings.validate().map_err(SolverError::InvalidSettings)?;
        let (n, m) = (mechanism.n(), mechanism.m());
        if x0.len() != n || xd0.len() != n {
            return Err(SolverError::InvalidState(format!(
                "expected {n} coordinates and velocities, got {} and {}",
                x0.len(),
                xd0.len()
            )));
        }
        let mut sim = Self {
            settings,
            t: 0.0,
            t_compensation: 0.0,
            x: x0,
            xd: xd0,
            generic_rank: 0,
            initial_rank: 0,
            rank: 0,
            extra_loads: Vec::new(),
            traditional: TangentBasis::new(n),
            continued: TangentBasis::new(n),
            detector: EventDetector::default(),
            history: std::array::from_fn(|_| Snapshot::new(n)),
            history_len: 0,
            search_next_step: false,
            adaptive_h: 0.0,
            counters: WorkCounters::default(),
            evaluator: Evaluator::new(n, m),
            stepper: Stepper::new(n, m),
            projector: Projector::new(n, m),
            qr_state: PivotedQr::new(n, m),
            qr_next: PivotedQr::new(n, m),
            a_next: DMatrix::zeros(m, n),
            x_next: DVector::zeros(n),
            xd_next: DVector::zeros(n),
            av: DVector::zeros(m),
            predictor: BasisPredictor::new(n, m),
            updater: BasisUpdater::new(n),
            event_basis: TangentBasis::new(n),
            events: (0..MAX_EVENTS_PER_STEP)
                .map(|_| SingularEvent::with_capacity(n))
                .collect(),
            event_count: 0,
            excursions: Excursions::default(),
            mechanism,
        };
        sim.adaptive_h = sim.settings.dt;
        sim.project_current()?;
        sim.initial_rank = sim.rank;
        sim.generic_rank = sim.probe_generic_rank();
        sim.reset_bases();
        Ok(sim)
    }

    /// The rank of `A` at the start or, if that is a singular configuration, at the
    /// configurations next to it: the start moved by `PROBE_STEP` along each direction of the
    /// null space of `A` there, and along their sum, then projected onto the constraints. A
    /// four-bar written down flat has rank 7 there and 8 everywhere else; taking 7 would
    /// give it two degrees of freedom and hide every later singular configuration.
    fn probe_generic_rank(&mut self) -> usize {
        let n = self.mechanism.n();
        let start_rank = self.rank;
        let mut generic = start_rank;
        let free = n - start_rank;
        if start_rank == self.mechanism.m().min(n) {
            return generic;
        }
        for probe in 0..=free {
            self.x_next.copy_from(&self.x);
            for j in 0..free {
                if probe == free || probe == j {
                    let direction = self.qr_state.q().column(start_rank + j);
                    self.x_next.axpy(PROBE_STEP, &direction, 1.0);
                }
            }
            // Counted at Newton's truncation: a probe Newton stopped with entries below it
            // (converged on the others) would otherwise count them (a redundant linkage
            // written flat got rank 12 for its generic 11).
            if self.project_scratch_positions() {
                let truncation = self
                    .settings
                    .normal_truncation
                    .max(self.settings.rank_tolerance);
                generic = generic.max(self.qr_next.rank(truncation));
            }
        }
        generic
    }

    /// Whether the simulation started at a singular configuration: the rank of `A` there and
    /// the generic rank, when the first is lower.
    pub fn starts_singular(&self) -> Option<(usize, usize)> {
        (self.initial_rank < self.generic_rank).then_some((self.initial_rank, self.generic_rank))
    }

    /// Projects the current state and refactorises into `qr_state`.
    fn project_current(&mut self) -> Result<ProjectionOutcome, SolverError> {
        let outcome = self.projector.project(
            &self.mechanism,
            &self.settings,
            self.t,
            &mut self.x,
            &mut self.xd,
            &mut self.a_next,
            &mut self.qr_state,
        )?;
        if !(self.x.iter().all(|v| v.is_finite()) && self.xd.iter().all(|v| v.is_finite())) {
            return Err(SolverError::NotFinite {
                t: self.t,
                what: "state",
            });
        }
        self.rank = self.qr_state.rank(self.settings.rank_tolerance);
        Ok(outcome)
    }

    fn reset_bases(&mut self) {
        let n = self.mechanism.n();
        let t_hat = self.qr_state.q().columns(self.rank, n - self.rank);
        self.traditional.reset(&t_hat, &self.xd);
        self.continued.reset(&t_hat, &self.xd);
        self.detector.clear();
        self.history_len = 0;
        self.search_next_step = false;
        self.excursions.clear();
    }

    pub fn mechanism(&self) -> &Arc<Mechanism> {
        &self.mechanism
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes settings between steps (tolerances, step size, integrator, predictor).
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), SolverError> {
        settings.validate().map_err(SolverError::InvalidSettings)?;
        if settings.dt != self.settings.dt {
            self.adaptive_h = settings.dt;
        }
        self.settings = settings;
        Ok(())
    }

    pub fn time(&self) -> f64 {
        self.t
    }

    pub fn positions(&self) -> &DVector<f64> {
        &self.x
    }

    pub fn velocities(&self) -> &DVector<f64> {
        &self.xd
    }

    /// Rank of `A` at the initial configuration (rank tolerance of the dynamics).
    pub fn generic_rank(&self) -> usize {
        self.generic_rank
    }

    /// Rank seen by the dynamics at the current state.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The factorisation of `A^T` at the current positions.
    pub fn factorization(&self) -> &PivotedQr {
        &self.qr_state
    }

    /// The requested tangent basis (both are always tracked).
    pub fn basis(&self, mode: BasisMode) -> &TangentBasis {
        match mode {
            BasisMode::Traditional => &self.traditional,
            BasisMode::Continued => &self.continued,
        }
    }

    /// Accelerations of the current state computed with `tangent` (n x dof, orthonormal
    /// columns spanning the tangent space: e.g. one of the two bases) as `T` instead of the
    /// factorisation's own tangent columns, which is what the steps use. Physically they are
    /// the same (seed 000 eq. 11 is invariant under `T -> T U` for orthogonal `U`): the tests
    /// compare them to show that the basis shown never changes the motion. Allocates.
    pub fn accelerations_with_tangent(
        &self,
        tangent: Option<DMatrixView<f64>>,
    ) -> Result<DVector<f64>, SolverError> {
        let mut evaluator = self.evaluator.clone();
        evaluator.qr.clone_from(&self.qr_state);
        let mut xdd = DVector::zeros(self.mechanism.n());
        evaluator.acceleration(
            tangent,
            &self.mechanism,
            &self.extra_loads,
            self.t,
            &self.x,
            &self.xd,
            self.settings.rank_tolerance,
            self.settings.normal_truncation,
            &mut xdd,
        )?;
        Ok(xdd)
    }

    /// Kinetic plus gravitational potential energy of the current state.
    pub fn energy(&self) -> f64 {
        self.mechanism.energy(&self.x, &self.xd)
    }

    /// Singularity indicator `|R[r_g-1]| / |R[0]|` at the current state.
    pub fn rho(&self) -> f64 {
        rho(&self.qr_state, self.generic_rank)
    }

    pub fn counters(&self) -> WorkCounters {
        self.counters
    }

    /// Loads added at run time (pushes), on top of the scene's.
    pub fn extra_loads(&self) -> &[Load] {
        &self.extra_loads
    }

    /// Adds a run-time load, e.g. a torque pulse that pushes the mechanism at a singularity.
    pub fn add_load(&mut self, load: Load) -> Result<(), SolverError> {
        if load.body >= self.mechanism.bodies().len() {
            return Err(SolverError::InvalidState(format!(
                "load on body index {} but the mechanism has {} bodies",
                load.body,
                self.mechanism.bodies().len()
            )));
        }
        self.extra_loads.push(load);
        Ok(())
    }

    pub fn clear_extra_loads(&mut self) {
        self.extra_loads.clear();
    }

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
            return Err(SolverError::InvalidState(
                "leaving needs a non-zero direction of this mechanism".into(),
            ));
        }
        self.set_event_state(event)?;
        let unit = direction / norm;
        let unit_mass = 2.0 * self.mechanism.kinetic_energy(&unit);
        let kinetic = self.mechanism.kinetic_energy(&self.xd);
        let (speed, target) = match speed {
            Some(s) if s.is_finite() && s > 0.0 => {
                (s, self.energy() - kinetic + 0.5 * unit_mass * s * s)
            }
            Some(_) => {
                return Err(SolverError::InvalidState(
                    "the speed to leave with must be positive".into(),
                ));
            }
            None => ((2.0 * kinetic / unit_mass).sqrt(), self.energy()),
        };
        if speed.is_nan() || speed <= 0.0 {
            return Err(SolverError::InvalidState(
                "the mechanism is at rest here: give it a speed to leave with".into(),
            ));
        }
        let distance = (self.settings.dt * speed).max(LEAVE_DISTANCE);
        let h = distance / speed;
        self.t = event.t + h;
        self.x.axpy(distance, &unit, 1.0);
        self.xd.copy_from(&(&unit * speed));
        self.project_current()?;
        rescale_kinetic_energy(&self.mechanism, &self.x, &mut self.xd, target);
        self.continue_bases_from(event, h);
        Ok(())
    }

    /// Puts the simulation at the state of a singular event (time, positions, velocities and
    /// the continued basis as it reached the event). The bases are then brought to the
    /// current rank tolerance: with the detection tolerance as rank tolerance the dynamics see
    /// the enlarged tangent space, which is what pushing at a singularity needs.
    pub fn set_event_state(&mut self, event: &SingularEvent) -> Result<(), SolverError> {
        let n = self.mechanism.n();
        if event.x.len() != n || event.continued().nrows() != n {
            return Err(SolverError::InvalidState(
                "the event belongs to a different mechanism".into(),
            ));
        }
        self.t = event.t;
        self.t_compensation = 0.0;
        self.x.copy_from(&event.x);
        self.xd.copy_from(&event.xd);
        self.project_current()?;
        self.continue_bases_from(event, 0.0);
        Ok(())
    }

    /// Continues both bases from those `event` stored to the tangent space of the current
    /// (projected) state, as over a step of length `h`, and restarts event detection.
    fn continue_bases_from(&mut self, event: &SingularEvent, h: f64) {
        let n = self.mechanism.n();
        let t_hat = self.qr_state.q().columns(self.rank, n - self.rank);
        self.traditional.copy_from(&event.traditional_basis);
        self.updater
            .update_traditional(&mut self.traditional, &t_hat, &self.xd, h);
        let pred = event.basis.columns();
        self.continued.copy_from(&event.basis);
        self.updater.update_continued(
            &mut self.continued,
            &pred,
            &t_hat,
            self.mechanism.mass_diagonal(),
            &self.xd,
            h,
            self.t,
        );
        self.detector
            .resume(self.t, rho(&self.qr_state, self.generic_rank));
        self.history_len = 0;
        self.search_next_step = false;
        self.excursions.resume_at(event.t);
    }

    /// The singular events located by the last step, in time order (empty if none).
    pub fn step_events(&self) -> &[SingularEvent] {
        &self.events[..self.event_count]
    }

    /// Advances by one step of the configured size.
    pub fn step(&mut self) -> Result<StepReport, SolverError> {
        self.step_until(f64::INFINITY)
    }

    /// Advances by one step, shortened if needed so as not to pass `t_limit`.
    pub fn step_until(&mut self, t_limit: f64) -> Result<StepReport, SolverError> {
        self.event_count = 0;
        self.excursions.begin_step();
        let n = self.mechanism.n();
        let nominal = match self.settings.integrator {
            Integrator::Rk4 => self.settings.dt,
            Integrator::Dopri5 => self.adaptive_h.min(self.settings.dt),
        };
        // Land exactly on the limit when it is within a rounding error of one more step.
        let remaining = t_limit - self.t;
        let lands = remaining <= nominal * (1.0 + 1e-6);
        let mut h = if lands { remaining } else { nominal };
        if h.is_nan() || h <= 0.0 {
            return Err(SolverError::InvalidState(format!(
                "nothing to step: t = {} is not before the limit {t_limit}",
                self.t
            )));
        }
        if self.settings.predictor == Predictor::Omega {
            self.predictor.prepare(
                &self.mechanism,
                &self.x,
                &self.xd,
                &self.qr_state,
                &self.continued,
            );
        }

        let rhs = Rhs {
            mechanism: &self.mechanism,
            extra_loads: &self.extra_loads,
            settings: &self.settings,
        };
        let mut rejected = 0;
        let mut forced = false;
        let h_min = (self.settings.dt * self.settings.dopri_min_step).min(h);
        let near_singular =
            rho(&self.qr_state, self.generic_rank) < self.settings.detection_tolerance;
        if near_singular && self.settings.integrator == Integrator::Dopri5 && !lands {
            // Next to a singular configuration Dopri5 crosses in one step of the largest
            // size, as RK4 does. With the step the controller had shrunk to on the way in,
            // it took dozens of forced steps right at the singular point, one of them
            // landing on it (rho = 0, 1.3e-2 J lost on the 2x3); in one step, every scene's
            // energy drift over 10 s is below 3.3e-6 J (README, "Dopri5").
            h = self.settings.dt.min(remaining);
        }
        match self.settings.integrator {
            Integrator::Rk4 => {
                self.stepper.rk4(
                    &rhs,
                    &mut self.evaluator,
                    &self.qr_state,
                    self.t,
                    &self.x,
                    &self.xd,
                    h,
                    &mut self.x_next,
                    &mut self.xd_next,
                )?;
            }
            Integrator::Dopri5 => loop {
                let attempt = self.stepper.dopri5(
                    &rhs,
                    &mut self.evaluator,
                    &self.qr_state,
                    self.t,
                    &self.x,
                    &self.xd,
                    h,
                    self.settings.dopri_rtol,
                    self.settings.dopri_atol,
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
                    self.adaptive_h =
                        (h * factor).clamp(h_min.min(self.settings.dt), self.settings.dt);
                    break;
                }
                if error.is_finite() && (h <= h_min || near_singular) {
                    // Near a singular configuration no step size meets the error estimate:
                    // the accelerations vary like 1/rho there. Refining only creeps towards
                    // the singular point and multiplies evaluations right next to it, so the
                    // step (of the largest size, above) is accepted as it is, like a
                    // fixed-step method's, and reported.
                    forced = true;
                    self.adaptive_h = h.max(h_min);
                    break;
                }
                if h <= h_min {
                    return Err(SolverError::StepTooSmall { t: self.t, h });
                }
                rejected += 1;
                h = (h * if error.is_finite() {
                    factor.min(0.9)
                } else {
                    0.2
                })
                .max(h_min);
            },
        }

        self.counters.factorizations += self.stepper.take_factorizations();
        let outcome = self.projector.project(
            &self.mechanism,
            &self.settings,
            self.t + h,
            &mut self.x_next,
            &mut self.xd_next,
            &mut self.a_next,
            &mut self.qr_next,
        )?;
        self.counters.factorizations += outcome.iterations as u64 + 1;
        if !(self.x_next.iter().all(|v| v.is_finite())
            && self.xd_next.iter().all(|v| v.is_finite()))
        {
            return Err(SolverError::NotFinite {
                t: self.t + h,
                what: "state",
            });
        }

        // Accept: remember the state we leave, for locating events inside the last steps.
        self.history.rotate_left(1);
        let snapshot = &mut self.history[KEPT_STATES - 1];
        snapshot.t = self.t;
        snapshot.rho = rho(&self.qr_state, self.generic_rank);
        snapshot.x.copy_from(&self.x);
        snapshot.xd.copy_from(&self.xd);
        snapshot.traditional.copy_from(&self.traditional);
        snapshot.continued.copy_from(&self.continued);
        self.history_len = (self.history_len + 1).min(KEPT_STATES);

        let predictor_used = self.predictor.predict(
            self.settings.predictor,
            h,
            self.settings.omega_step_limit,
            &self.qr_state,
            &self.continued,
        );
        // Compensated (Kahan) summation keeps t = k dt exact to round-off over long runs.
        let increment = h - self.t_compensation;
        let sum = self.t + increment;
        self.t_compensation = (sum - self.t) - increment;
        self.t = sum;
        if lands && h == remaining {
            self.t = t_limit;
            self.t_compensation = 0.0;
        }
        std::mem::swap(&mut self.x, &mut self.x_next);
        std::mem::swap(&mut self.xd, &mut self.xd_next);
        std::mem::swap(&mut self.qr_state, &mut self.qr_next);
        self.rank = self.qr_state.rank(self.settings.rank_tolerance);

        let t_hat = self.qr_state.q().columns(self.rank, n - self.rank);
        self.updater
            .update_traditional(&mut self.traditional, &t_hat, &self.xd, h);
        let prediction = self.predictor.prediction();
        self.updater.update_continued(
            &mut self.continued,
            &prediction,
            &t_hat,
            self.mechanism.mass_diagonal(),
            &self.xd,
            h,
            self.t,
        );

        self.a_next.mul_to(&self.xd, &mut self.av);
        let rho = rho(&self.qr_state, self.generic_rank);
        let fitted = self.detector.push(self.t, rho);
        let search_step = std::mem::take(&mut self.search_next_step);
        if fitted.is_some() || search_step {
            self.locate_events(fitted, search_step)?;
        }
        self.excursions
            .observe(self.t, rho, self.settings.detection_tolerance);
        self.counters.steps += 1;
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

    /// The smallest `rho` in the detector's window (its middle point when it reports).
    fn detector_sampled_minimum(&self) -> f64 {
        self.detector
            .window()
            .iter()
            .map(|&(_, rho)| rho)
            .fold(f64::INFINITY, f64::min)
    }

    /// Locates the singular configurations passed in the last steps into `events` (time
    /// order): when the detector's window reports a local minimum of `rho` (`fitted`, the
    /// parabola's vertex there), and on the step after one that located an event
    /// (`search_step`).
    ///
    /// A fit below the tolerance is taken if the interpolated trajectory is well below it
    /// there (with steps of 1e-3 s it is: 1e-6 .. 8e-5); the minima are searched for on the
    /// interpolated trajectory when the fit was rough (steps of 1e-2 s) or put a shallow
    /// minimum above the tolerance, and in any case for further ones. Two singular
    /// configurations can lie within two steps (the 2x3's at 3.2171 and 3.2198 s with steps of
    /// 2e-3 s): then `rho` can fall all the way over three steps to a sampled minimum next to
    /// the second one and rise over three after the first. So the search covers the window
    /// and the step before it, and the step after it once the next step is taken.
    fn locate_events(
        &mut self,
        fitted: Option<LocatedMinimum>,
        search_step: bool,
    ) -> Result<(), SolverError> {
        let tolerance = self.settings.detection_tolerance;
        if let Some(fitted) = fitted {
            let verified = if fitted.rho < tolerance {
                Some(self.interpolated_rho(fitted.t))
                    .filter(|&rho| rho < VERIFIED_FRACTION * tolerance)
                    // The reported minimum is the `rho` of the state there, not the fit's.
                    .map(|rho| LocatedMinimum { t: fitted.t, rho })
            } else {
                None
            };
            let search = verified.is_some()
                || fitted.rho.min(self.detector_sampled_minimum()) < REFINE_BELOW;
            if search {
                if self.window_is_kept() {
                    // The window and the step before it, when kept.
                    let first = self.history_len.saturating_sub(3);
                    self.search_kept(first, verified);
                } else {
                    // Without the window to search (it cannot happen after three accepted
                    // steps, but then) the fit decides.
                    self.excursions.offer(verified.unwrap_or(fitted), tolerance);
                }
            }
        }
        if search_step && self.history_len >= 2 {
            // The step before this one (searched already, it gives the minima at its end
            // their left side) and this one.
            self.search_kept(self.history_len - 2, None);
        }
        for slot in 0..self.excursions.found().len() {
            let minimum = self.excursions.found()[slot];
            self.locate_event(minimum, slot)?;
        }
        self.event_count = self.excursions.found().len();
        self.search_next_step = self.event_count > 0;
        Ok(())
    }

    /// Whether the detector's window is made of the last two kept states and the current one.
    fn window_is_kept(&self) -> bool {
        let window = self.detector.window();
        let len = self.history_len;
        window.len() == 3
            && len >= 2
            && window[0].0 == self.kept_time(len - 2)
            && window[1].0 == self.kept_time(len - 1)
            && window[2].0 == self.t
    }

    /// Time of kept state `i`: the `history_len` snapshots, oldest first, then the current
    /// state.
    fn kept_time(&self, i: usize) -> f64 {
        if i == self.history_len {
            self.t
        } else {
            self.history[KEPT_STATES - self.history_len + i].t
        }
    }

    fn kept_rho(&self, i: usize) -> f64 {
        if i == self.history_len {
            rho(&self.qr_state, self.generic_rank)
        } else {
            self.history[KEPT_STATES - self.history_len + i].rho
        }
    }

    /// Searches the trajectory between kept state `first` and the current state for minima
    /// of `rho` and hands them to `excursions`, which tells the new singular configurations.
    /// The trajectory is interpolated between the accepted steps (cubic Hermite, as the event
    /// state is); `rho` is sampled `SEARCH_SAMPLES` times per step, and each sampled local
    /// minimum below `REFINE_BELOW` is searched for between its neighbours, unless the
    /// `verified` fit or the last configuration lies there. Costs `SEARCH_SAMPLES - 1`
    /// factorisations without `Q` per step, and about 25 more per minimum searched for.
    fn search_kept(&mut self, first: usize, verified: Option<LocatedMinimum>) {
        const MOST: usize = KEPT_STATES * SEARCH_SAMPLES + 1;
        let mut samples = [(0.0, 0.0); MOST];
        let mut len = 0;
        for i in first..self.history_len {
            let (a, b) = (self.kept_time(i), self.kept_time(i + 1));
            samples[len] = (a, self.kept_rho(i));
            len += 1;
            for j in 1..SEARCH_SAMPLES {
                let t = a + (b - a) * j as f64 / SEARCH_SAMPLES as f64;
                samples[len] = (t, self.interpolated_rho(t));
                len += 1;
            }
        }
        samples[len] = (self.t, self.kept_rho(self.history_len));
        len += 1;
        let mut verified = verified;
        let mut minima = [LocatedMinimum {
            t: f64::NAN,
            rho: f64::NAN,
        }; MOST];
        let mut count = 0;
        for j in 1..len - 1 {
            let ((a, before), (_, here), (b, after)) = (samples[j - 1], samples[j], samples[j + 1]);
            if !(here <= before && here < after && here < REFINE_BELOW) {
                continue;
            }
            let minimum = match verified {
                Some(fit) if (a..=b).contains(&fit.t) => verified.take(),
                // The last configuration, found again by an overlapping search.
                _ if self.excursions.last().is_some_and(|t| (a..=b).contains(&t)) => None,
                _ => self.golden_minimum(a, b, 1e-5 * (b - a)),
            };
            if let Some(minimum) = minimum {
                minima[count] = minimum;
                count += 1;
            }
        }
        if let Some(fit) = verified {
            minima[count] = fit;
            count += 1;
        }
        let minima = &mut minima[..count];
        minima.sort_unstable_by(|a, b| a.t.total_cmp(&b.t));
        // In time order: a minimum is new if `rho` reached the tolerance before it.
        let tolerance = self.settings.detection_tolerance;
        let mut next = 0;
        for &(t, rho) in &samples[..len] {
            while next < minima.len() && minima[next].t <= t {
                self.excursions.offer(minima[next], tolerance);
                next += 1;
            }
            self.excursions.observe(t, rho, tolerance);
        }
        for &minimum in &minima[next..] {
            self.excursions.offer(minimum, tolerance);
        }
    }

    /// Golden-section search for the minimum of `rho` over `[a, b]` (inside the kept
    /// steps) on the interpolated trajectory, down to a bracket of `precision`.
    ///
    /// The point returned is the closest one to the minimum whose `rho` stays above
    /// `EVENT_RHO_FLOOR` times the rank tolerance (at most a tenth of the detection
    /// tolerance), else the closest of all: the event state is resumed from, and there the
    /// dynamics must still see the generic rank (as they do with the fit's vertex, about
    /// 1e-5 from the singular configuration on A02). `None` if `rho` was nowhere finite.
    fn golden_minimum(&mut self, mut a: f64, mut b: f64, precision: f64) -> Option<LocatedMinimum> {
        const INVERSE_PHI: f64 = 0.618_033_988_749_894_9;
        let mut c = b - INVERSE_PHI * (b - a);
        let mut d = a + INVERSE_PHI * (b - a);
        // The floor stays below the detection tolerance whatever the rank tolerance (a push
        // sets it to the detection tolerance).
        let floor = (EVENT_RHO_FLOOR * self.settings.rank_tolerance)
            .min(0.1 * self.settings.detection_tolerance);
        let (mut best, mut nearest): (Option<LocatedMinimum>, Option<LocatedMinimum>) =
            (None, None);
        let mut keep = |t: f64, rho: f64| {
            if !rho.is_finite() {
                return;
            }
            if rho >= floor && best.is_none_or(|m| rho < m.rho) {
                best = Some(LocatedMinimum { t, rho });
            }
            if nearest.is_none_or(|m| rho < m.rho) {
                nearest = Some(LocatedMinimum { t, rho });
            }
        };
        let (mut fc, mut fd) = (self.interpolated_rho(c), self.interpolated_rho(d));
        keep(c, fc);
        keep(d, fd);
        // Each reduction shrinks the bracket by 0.618; 40 of them reach 1e-8 of it.
        for _ in 0..40 {
            if b - a <= precision {
                break;
            }
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - INVERSE_PHI * (b - a);
                fc = self.interpolated_rho(c);
                keep(c, fc);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + INVERSE_PHI * (b - a);
                fd = self.interpolated_rho(d);
                keep(d, fd);
            }
        }
        best.or(nearest)
    }

    /// `rho` at the state interpolated at `t` (inside the kept steps), infinite if not
    /// finite; uses the step's scratch storage. The cubic Hermite interpolant is within
    /// O(h^4) of the constraint manifold (below 1e-8 m with steps of 1e-2 s), and `rho` is
    /// as close to its value at the projected state: no projection is needed to compare it
    /// with the detection tolerance, and `R` alone (no `Q`) gives it, a third of the work of
    /// projecting (1 factorisation without `Q` against about 2.5 with it).
    fn interpolated_rho(&mut self, t: f64) -> f64 {
        self.interpolate_kept(t);
        self.mechanism.jacobian(&self.x_next, &mut self.a_next);
        self.qr_next.factorize_without_q(&self.a_next);
        self.counters.factorizations += 1;
        let rho = rho(&self.qr_next, self.generic_rank);
        if rho.is_finite() { rho } else { f64::INFINITY }
    }

    /// The trajectory at `t` interpolated between the kept states around it (the first or
    /// the last step's polynomial outside them), into `x_next` and `xd_next`.
    fn interpolate_kept(&mut self, t: f64) {
        let len = self.history_len;
        let kept = &self.history[KEPT_STATES - len..];
        if kept.is_empty() {
            self.x_next.copy_from(&self.x);
            self.xd_next.copy_from(&self.xd);
            return;
        }
        // The last snapshot at or before t (the first if none is).
        let i = kept.iter().rposition(|s| s.t <= t).unwrap_or(0);
        let start = &kept[i];
        let end = match kept.get(i + 1) {
            Some(s) => (s.t, &s.x, &s.xd),
            None => (self.t, &self.x, &self.xd),
        };
        hermite(
            (start.t, &start.x, &start.xd),
            end,
            t,
            &mut self.x_next,
            &mut self.xd_next,
        );
    }

    /// Newton projection of the scratch positions `x_next` onto the constraints with the
    /// running settings, leaving `A` factorised there in `qr_next`; false if it fails.
    fn project_scratch_positions(&mut self) -> bool {
        let outcome = self.projector.newton_at(
            &self.mechanism,
            &self.settings,
            self.t,
            &mut self.x_next,
            &mut self.a_next,
            &mut self.qr_next,
        );
        match outcome {
            Ok(outcome) => {
                self.counters.factorizations += outcome.iterations as u64 + 1;
                true
            }
            Err(_) => false,
        }
    }

    /// Describes the configuration at the located minimum (interpolated between the accepted
    /// steps around it, then projected) at the detection tolerance, into `events[slot]`.
    fn locate_event(&mut self, minimum: LocatedMinimum, slot: usize) -> Result<(), SolverError> {
        let n = self.mechanism.n();
        // The latest kept snapshot not after the minimum (the current state if the minimum
        // is at it).
        let kept = &self.history[KEPT_STATES - self.history_len..];
        let source = if minimum.t < self.t {
            kept.iter().rposition(|s| s.t <= minimum.t)
        } else {
            None
        };
        // The event state is interpolated between the accepted steps around the minimum (cubic
        // Hermite in x and xd, error O(h^4) in x and O(h^3) in xd), then projected. Integrating
        // a partial step onto the singular configuration instead would evaluate accelerations
        // right where the near-singular normals are truncated, and the state handed to the
        // user (and resumed from) would carry that error: 1.2e-3 J of energy on A02.
        let (t0, x0, xd0, traditional0, basis0) = match source {
            Some(i) => {
                let s = &kept[i];
                (s.t, &s.x, &s.xd, &s.traditional, &s.continued)
            }
            None => (
                self.t,
                &self.x,
                &self.xd,
                &self.traditional,
                &self.continued,
            ),
        };
        let end = source.map(|i| match kept.get(i + 1) {
            Some(s) => (s.t, &s.x, &s.xd),
            None => (self.t, &self.x, &self.xd),
        });
        match end {
            Some((t1, x1, xd1)) if t1 > t0 && minimum.t > t0 => {
                hermite(
                    (t0, x0, xd0),
                    (t1, x1, xd1),
                    minimum.t.min(t1),
                    &mut self.x_next,
                    &mut self.xd_next,
                );
            }
            _ => {
                self.x_next.copy_from(x0);
                self.xd_next.copy_from(xd0);
            }
        }
        // The energy the event state should have: that of the accepted steps around it,
        // interpolated linearly in time.
        let energy_target = match end {
            Some((t1, x1, xd1)) if t1 > t0 => {
                let (e0, e1) = (
                    self.mechanism.energy(x0, xd0),
                    self.mechanism.energy(x1, xd1),
                );
                let s = ((minimum.t - t0) / (t1 - t0)).clamp(0.0, 1.0);
                e0 + s * (e1 - e0)
            }
            _ => self.mechanism.energy(x0, xd0),
        };
        self.event_basis.copy_from(basis0);
        self.projector.project(
            &self.mechanism,
            &self.settings,
            minimum.t,
            &mut self.x_next,
            &mut self.xd_next,
            &mut self.a_next,
            &mut self.qr_next,
        )?;
        // Projecting the interpolated velocity removes its component along the normal that
        // is vanishing here, which turns fast next to the singular configuration: on the 2x3
        // at its first event that took 1.3e-3 J of kinetic energy. Scaling the velocity (it
        // stays tangent) gives back the energy of the steps around the event.
        rescale_kinetic_energy(
            &self.mechanism,
            &self.x_next,
            &mut self.xd_next,
            energy_target,
        );
        // q of both bases is carried from t0 to the event (trapezoidal, as in a step).
        let h = minimum.t - t0;
        let rank = self.qr_next.rank(self.settings.detection_tolerance);
        let t_hat = self.qr_next.q().columns(rank, n - rank);
        let pred = basis0.columns();
        self.updater.update_continued(
            &mut self.event_basis,
            &pred,
            &t_hat,
            self.mechanism.mass_diagonal(),
            &self.xd_next,
            h,
            minimum.t,
        );
        let event = &mut self.events[slot];
        event.set_motions(&self.event_basis, &t_hat, minimum.t);
        // The bases the event hands back on restore: both at the event state and the rank
        // tolerance (the detection tolerance only names the motions).
        let rank_running = self.qr_next.rank(self.settings.rank_tolerance);
        let t_running = self.qr_next.q().columns(rank_running, n - rank_running);
        event.basis.copy_from(basis0);
        self.updater.update_continued(
            &mut event.basis,
            &pred,
            &t_running,
            self.mechanism.mass_diagonal(),
            &self.xd_next,
            h,
            minimum.t,
        );
        event.traditional_basis.copy_from(traditional0);
        self.updater
            .update_traditional(&mut event.traditional_basis, &t_running, &self.xd_next, h);
        event.t = minimum.t;
        // The located state's own `rho` (the search's value, or the fit's when it decided).
        event.rho_min = rho(&self.qr_next, self.generic_rank);
        event.rank = rank;
        event.deficiency = self.generic_rank.saturating_sub(rank);
        event.x.copy_from(&self.x_next);
        event.xd.copy_from(&self.xd_next);
        Ok(())
    }
}

/// A local minimum of `rho` whose parabola fit is not below the detection tolerance is
/// searched for on the interpolated trajectory when its sampled or fitted value is below this
/// (relative `R` entry): a minimum that shallow may hide a singular configuration between
/// coarse steps. Costs a search of the window (`search_kept`).
const REFINE_BELOW: f64 = 0.25;

/// Samples of `rho` per step when the kept steps are searched for its minima: two singular
/// configurations further apart than two samples (a fifth of a step) are told apart.
const SEARCH_SAMPLES: usize = 10;

/// Accepted states kept before the current one, for the search of the window and the step
/// before it.
const KEPT_STATES: usize = 3;

/// A fitted minimum is taken as it is when the interpolated trajectory's `rho` there is below
/// this fraction of the detection tolerance; above it the fit was rough (steps of 1e-2 s) and
/// the minimum is searched for.
const VERIFIED_FRACTION: f64 = 0.1;

/// A refined event state keeps `rho` at least this many rank tolerances (1e-7 by default):
/// nearer, the running rank would drop at the state the simulation resumes from.
const EVENT_RHO_FLOOR: f64 = 1e3;

/// How far (m or rad along a unit null-space direction) the start is moved to probe the
/// generic rank next to it.
const PROBE_STEP: f64 = 1e-2;

/// How far (m or rad along the unit direction) a leaving mechanism is placed from the
/// singular configuration at least: far beyond the event state's own distance from it
/// (`rho` about 5e-5 on A02), so that Newton lands on the branch left along.
const LEAVE_DISTANCE: f64 = 1e-3;

/// Scales `xd` so that the energy at `(x, xd)` is `target`, when the kinetic energy allows it
/// (positive before and after).
fn rescale_kinetic_energy(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    xd: &mut DVector<f64>,
    target: f64,
) {
    let total = mechanism.energy(x, xd);
    let kinetic = mechanism.kinetic_energy(xd);
    let wanted = kinetic + (target - total);
    if kinetic > 0.0 && wanted > 0.0 && target.is_finite() {
        *xd *= (wanted / kinetic).sqrt();
    }
}

/// Cubic Hermite interpolation of positions and velocities between two states at `t`.
fn hermite(
    (t0, x0, xd0): (f64, &DVector<f64>, &DVector<f64>),
    (t1, x1, xd1): (f64, &DVector<f64>, &DVector<f64>),
    t: f64,
    x: &mut DVector<f64>,
    xd: &mut DVector<f64>,
) {
    let h = t1 - t0;
    let s = (t - t0) / h;
    let (s2, s3) = (s * s, s * s * s);
    let (h00, h10, h01, h11) = (
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    );
    let (d00, d10, d01, d11) = (
        6.0 * s2 - 6.0 * s,
        3.0 * s2 - 4.0 * s + 1.0,
        -6.0 * s2 + 6.0 * s,
        3.0 * s2 - 2.0 * s,
    );
    for i in 0..x.len() {
        x[i] = h00 * x0[i] + h10 * h * xd0[i] + h01 * x1[i] + h11 * h * xd1[i];
        xd[i] = (d00 * x0[i] + d01 * x1[i]) / h + d10 * xd0[i] + d11 * xd1[i];
    }
}

/// `|R[r_g-1, r_g-1]| / |R[0, 0]|` (0 when `R[0, 0]` is 0, 1 when the generic rank is 0).
fn rho(qr: &PivotedQr, generic_rank: usize) -> f64 {
    if generic_rank == 0 {
        return 1.0;
    }
    let r00 = qr.r_diag_abs(0);
    if r00 == 0.0 {
        0.0
    } else {
        qr.r_diag_abs(generic_rank - 1) / r00
    }
}
