//! The [`Simulation`] value: state, settings and preallocated workspace, advanced by `step()`.
//!
//! One step: decide whether it starts far enough from a singular configuration for its stages
//! and its end to be corrected with the start's factorisation (`rho` at the start and how fast
//! the normals turn: [`projection`](super::projection)), integrate `(x, xd)` (RK4 or Dopri5,
//! which stages are projected and how: [`integrator`](super::integrator)), project onto the
//! constraint manifold and its tangent space, which leaves `A^T` factorised at the new
//! positions ([`projection`](super::projection)),
//! update both tangent bases from that one factorisation (the physics never reads them:
//! [`dynamics`](super::dynamics), [`basis`](super::basis)), feed the singularity detector
//! ([`events`](super::events); the search for the configurations it reports and their event
//! states are in [`locate`]), and report. Time is summed with compensation, so `t = k dt`
//! stays exact to round-off.
//!
//! Planar angles are kept in (-pi, pi] with their whole turns counted beside the state, so
//! a mechanism turning for hours runs as in its first seconds; [`Simulation::positions`] shows
//! them continuous (`turns`).
//!
//! # Pulses land on their edges
//!
//! A step never crosses an edge of a pulse load (the scene's, or a push's): it is shortened to
//! land on the edge, the steps after it go on from there, and a step takes the loads at its
//! middle. So a pulse is integrated as the piecewise-constant load it is: 20 N m for 0.05 s on
//! the four-bar's crank is 5.5e-11 rad off its one-degree-of-freedom reduction after 2 s at
//! dt 1e-3, edges on the step grid or off it (`cargo test --test solver pulses`, which asserts
//! 1e-9 for RK4 and Dopri5 at dt 1e-3 and 7e-4). A step ends on every edge and takes the
//! loads of its own window, not of its stages' times: a last stage on the edge would see the
//! half-open pulse as already off. An edge within a rounding error of the run's
//! end is the end, and Dopri5 keeps the step size it had before a short landing rather than
//! grow back from it.
//!
//! # Leaving along a branch
//!
//! [`Simulation::leave_along`] places the mechanism on a branch of a singular configuration
//! ([`branches`](super::branches())) a short way out, `x_event + s b` with `s` one step's travel
//! and at least 1e-3, brought back onto the constraints by Newton, which lands on the branch `b` is
//! tangent to, where the configuration is regular. The velocity is `b` projected on that tangent
//! space, scaled to the energy asked for (the event's, or the potential energy there plus
//! `v^2 b^T M b / 2` at speed `v`); time advances by `s / v` and both bases continue from the
//! event's. The choices, and what they avoid:
//! - no step runs with the detection tolerance as rank tolerance while the state is placed:
//!   gravity then acted along the motion being left, and leaving from rest lost part of the
//!   energy asked for (2.4 % at 1 m/s, 10.6 % at 0.2 m/s);
//! - a placement closer than a step's travel makes the first step start where the
//!   accelerations vary like `1 / rho` (the four-bar's fold, 0.5 s after leaving: 1.2e-5 J of
//!   drift from 1e-3 out, 9e-8 J from 5e-3);
//! - the jump is kept as a step from the event state along the branch, so the first search of
//!   `rho` covers it: a singular configuration inside it (the 2x3's second flat pose, 2.6e-3 s
//!   after its first, at dt 5e-3) was otherwise skipped unseen
//!   (`leaving_the_first_of_two_close_flat_poses_finds_the_second`).
//!
//! Leaving the four-bar's fold either way, the energy stays within 8.7e-9 J of the event's
//! over the next 0.5 s (`leaving_along_the_fold_keeps_the_energy_and_stays_folded` asserts
//! 1e-6 J), and 20 steps after leaving from rest at 0.2 and 1 m/s the energy is the one asked
//! for within 1e-6 of it (`leaving_a_rest_point_takes_the_energy_asked_for`).
//!
//! # No allocation per step
//!
//! After warm-up a step allocates nothing, including the steps that locate singular events:
//! the simulation fills preallocated events in place (its report counts them in `events`, and
//! [`Simulation::step_events`] describes them until the next step; the caller clones them to
//! keep them, as the app does for its event list). `tests/alloc/main.rs` checks this per
//! thread with a counting allocator, on six runs through their singular events (RK4 and
//! Dopri5, coarse steps, the zeroth-order predictor): `cargo test --test alloc`.

use std::sync::Arc;

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::basis::{BasisStats, BasisUpdater, StepEnd, TangentBasis};
use super::dynamics::{Evaluator, Rhs};
use super::error::SolverError;
use super::events::{EventDetector, Excursions, MAX_EVENTS_PER_STEP, SingularEvent};
use super::indicator::{WatchedRank, rho};
use super::integrator::{Step, Stepper};
use super::predictor::BasisPredictor;
use super::projection::{
    NewtonLimits, ProjectionOutcome, Projector, SIMPLIFIED_NEWTON_MAX_TURN,
    SIMPLIFIED_NEWTON_MIN_RHO,
};
use super::reactions::Reactions;
use super::settings::{BasisMode, Integrator, Predictor, Settings};
use super::velocity::VelocityProjection;
use crate::linalg::PivotedQr;
use crate::model::{Load, Mechanism};

mod checkpoint;
mod locate;
mod pose;
mod reach;
mod turns;

pub use checkpoint::Checkpoint;
pub use pose::DragReport;

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

impl StepReport {
    /// The statistics of the basis `mode`.
    pub fn basis(&self, mode: BasisMode) -> &BasisStats {
        match mode {
            BasisMode::Traditional => &self.traditional,
            BasisMode::Continued => &self.continued,
        }
    }
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
    /// Pivoted QR factorisations of `A^T`.
    pub factorizations: u64,
    /// Runge-Kutta stages evaluated in the range space (one pivoted Cholesky factorisation of
    /// `A M^-1 A^T` each, instead of a QR factorisation).
    pub range_space_stages: u64,
}

/// A running simulation of one mechanism. `Clone` and deterministic: a clone stepped N times
/// equals the original stepped N times, bit for bit.
#[derive(Clone, Debug)]
pub struct Simulation {
    mechanism: Arc<Mechanism>,
    settings: Settings,
    t: f64,
    t_compensation: f64,
    /// Positions with every planar angle in (-pi, pi] (`turns`).
    x: DVector<f64>,
    xd: DVector<f64>,
    /// Whole turns of each angle row of `x` (zero elsewhere), and the continuous positions
    /// `x + turns TAU` that [`Simulation::positions`] shows.
    turns: DVector<f64>,
    shown: DVector<f64>,
    /// The lowest leverage of a driver on the linkage at the start (`reach`; 1 without).
    start_leverage: f64,
    generic_rank: usize,
    /// The rank whose `R` entry `rho` watches (`indicator`).
    watched: WatchedRank,
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
    /// Whether the continued basis (predictor and corrector) is brought along each step; off
    /// only to measure what it costs (`singulab bench`).
    track_continued: bool,
    // Workspace.
    evaluator: Evaluator,
    stepper: Stepper,
    projector: Projector,
    velocity: VelocityProjection,
    qr_state: PivotedQr,
    qr_next: PivotedQr,
    a_next: DMatrix<f64>,
    /// `dA/dt` at the current state, for how fast the normals turn.
    a_dot: DMatrix<f64>,
    x_next: DVector<f64>,
    xd_next: DVector<f64>,
    /// Accelerations of the current state, when asked for (`solve_reactions`).
    accelerations: DVector<f64>,
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
        let (n, m) = (mechanism.n(), mechanism.m());
        if x0.len() != n || xd0.len() != n {
            return Err(SolverError::StateLength {
                expected: n,
                positions: x0.len(),
                velocities: xd0.len(),
            });
        }
        let mut sim = Self {
            settings,
            t: 0.0,
            t_compensation: 0.0,
            x: DVector::zeros(n),
            xd: xd0,
            turns: DVector::zeros(n),
            shown: DVector::zeros(n),
            start_leverage: 1.0,
            generic_rank: 0,
            watched: WatchedRank::new(n),
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
            track_continued: true,
            evaluator: Evaluator::new(&mechanism),
            stepper: Stepper::new(&mechanism),
            projector: Projector::new(n, m),
            velocity: VelocityProjection::new(&mechanism),
            qr_state: PivotedQr::new(n, m),
            qr_next: PivotedQr::new(n, m),
            a_next: DMatrix::zeros(m, n),
            a_dot: DMatrix::zeros(m, n),
            x_next: DVector::zeros(n),
            xd_next: DVector::zeros(n),
            accelerations: DVector::zeros(n),
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
        sim.adopt_positions(&x0);
        sim.validate(&sim.settings)?;
        sim.adaptive_h = sim.settings.dt;
        let (x_given, xd_given) = (sim.x.clone(), sim.xd.clone());
        sim.project_current()?;
        // A scene's velocities are completed so that `A xd = 0` with the stated components
        // held fixed; projecting them again would move those by rounding (a stated crank rate
        // of -1 would no longer be exactly -1). Given velocities that already fit the unmoved
        // positions are kept as they are.
        if sim.x == x_given {
            sim.mechanism.jacobian(&sim.x, &mut sim.a_next);
            sim.a_next.mul_to(&xd_given, &mut sim.av);
            if sim.av.amax() <= GIVEN_VELOCITY_FIT * xd_given.amax().max(1.0) {
                sim.xd.copy_from(&xd_given);
            }
        }
        sim.initial_rank = sim.rank;
        sim.generic_rank = sim.probe_generic_rank();
        sim.watched.reset(sim.generic_rank, &sim.x);
        sim.reset_bases();
        sim.refresh_shown();
        sim.start_leverage = sim
            .lowest_driver_leverage()
            .map_or(1.0, |(leverage, _)| leverage);
        Ok(sim)
    }

    /// The rank of `A` at the start or, if that is a singular configuration, at the
    /// configurations next to it: the start moved by `PROBE_STEP` along each direction of the
    /// null space of `A` there, and along their sum, then projected onto the constraints. A
    /// four-bar written down flat has rank 7 there and 8 everywhere else; taking 7 would
    /// give it two degrees of freedom and hide every later singular configuration.
    ///
    /// With more than `EXHAUSTIVE_PROBES` directions the probes are their sum and
    /// `MIXED_PROBES - 1` fixed mixtures of them: the singular configurations are a thinner set
    /// than the configurations around them, so a move along a mixture of all directions leaves
    /// them, and the start costs a few projections instead of one per direction (200 bars
    /// with every joint written twice: one a direction would be 201 projections of 800 rows,
    /// about 44 s).
    fn probe_generic_rank(&mut self) -> usize {
        let n = self.mechanism.n();
        let start_rank = self.rank;
        let mut generic = start_rank;
        let free = n - start_rank;
        if start_rank == self.mechanism.m().min(n) {
            return generic;
        }
        let probes = if free <= EXHAUSTIVE_PROBES {
            free + 1
        } else {
            MIXED_PROBES
        };
        for probe in 0..probes {
            self.x_next.copy_from(&self.x);
            for j in 0..free {
                let weight = probe_weight(probe, j, free);
                if weight != 0.0 {
                    let direction = self.qr_state.q().column(start_rank + j);
                    self.x_next.axpy(PROBE_STEP * weight, &direction, 1.0);
                }
            }
            // Counted at Newton's truncation: a probe Newton stopped with entries below it
            // (converged on the others) would otherwise count them, and a redundant linkage
            // written flat would get a generic rank above its true one.
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
        let outcome = self.velocity.project(
            &mut self.projector,
            &self.mechanism,
            &self.settings,
            self.t,
            &mut self.x,
            &mut self.xd,
            None,
            &mut self.qr_state,
        )?;
        non_finite_state(&self.mechanism, self.t, &self.x, &self.xd)?;
        self.rank = self.qr_state.rank(self.settings.rank_tolerance);
        Ok(outcome)
    }

    /// Newton projection of the scratch positions `x_next` onto the constraints with the
    /// running settings, leaving `A` factorised there in `qr_next`; false if it fails. The
    /// normals left out stay out even where a residual remains along them: a probe next to a
    /// singular configuration would otherwise be brought back onto it.
    fn project_scratch_positions(&mut self) -> bool {
        let limits = NewtonLimits {
            full_residual: false,
            ..NewtonLimits::of(&self.settings)
        };
        let outcome = self.projector.project_positions(
            &self.mechanism,
            limits,
            self.t,
            &mut self.x_next,
            &mut self.qr_next,
        );
        match outcome {
            Ok(outcome) => {
                self.counters.factorizations += outcome.factorizations as u64;
                true
            }
            Err(_) => false,
        }
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

    /// Turns the continued basis' tracking off (or back on) from the next step: with it off,
    /// the steps bring only the traditional basis along and the continued one stays where it
    /// was. The motion is the same either way (`dynamics`); `singulab bench` compares the two
    /// to measure what the continuation costs.
    pub fn set_continued_tracking(&mut self, on: bool) {
        self.track_continued = on;
    }

    /// Changes settings between steps (tolerances, step size, integrator, predictor).
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), SolverError> {
        self.validate(&settings)?;
        self.install_settings(settings);
        Ok(())
    }

    /// Runs a push with `usual`'s settings raised for it ([`Settings::during_push`]); `usual`
    /// must be valid (the raised rank tolerance is only valid during a push).
    pub fn set_push_settings(&mut self, usual: &Settings) -> Result<(), SolverError> {
        self.validate(usual)?;
        self.install_settings(usual.during_push());
        Ok(())
    }

    /// Checks `settings` against the current positions' round-off.
    fn validate(&self, settings: &Settings) -> Result<(), SolverError> {
        settings
            .validate(self.mechanism.residual_scale(&self.x))
            .map_err(SolverError::InvalidSettings)
    }

    fn install_settings(&mut self, settings: Settings) {
        if settings.dt != self.settings.dt {
            self.adaptive_h = settings.dt;
        }
        self.settings = settings;
    }

    pub fn time(&self) -> f64 {
        self.t
    }

    /// The positions, planar angles continuous (whole turns included: `simulation::turns`).
    pub fn positions(&self) -> &DVector<f64> {
        &self.shown
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
    /// the same (Masarati et al. 2023, eq. 11, is invariant under `T -> T U` for orthogonal `U`):
    /// the tests compare them to show that the basis shown never changes the motion. Allocates.
    pub fn accelerations_with_tangent(
        &self,
        tangent: Option<DMatrixView<f64>>,
    ) -> Result<DVector<f64>, SolverError> {
        let mut evaluator = self.evaluator.clone();
        evaluator.qr.clone_from(&self.qr_state);
        let mut xdd = DVector::zeros(self.mechanism.n());
        let rhs = Rhs {
            mechanism: &self.mechanism,
            extra_loads: &self.extra_loads,
            settings: &self.settings,
        };
        evaluator.acceleration(&rhs, self.t, &self.x, &self.xd, tangent, &mut xdd)?;
        Ok(xdd)
    }

    /// The minimum-norm Lagrange multipliers and the self-stress modes of the current state
    /// into `reactions`, at the rank the dynamics uses (see `reactions`); no allocation.
    pub fn solve_reactions(&mut self, reactions: &mut Reactions) -> Result<(), SolverError> {
        self.evaluator.qr.copy_from(&self.qr_state);
        let rhs = Rhs {
            mechanism: &self.mechanism,
            extra_loads: &self.extra_loads,
            settings: &self.settings,
        };
        let rank = self.evaluator.acceleration(
            &rhs,
            self.t,
            &self.x,
            &self.xd,
            None,
            &mut self.accelerations,
        )?;
        reactions.solve(
            &self.mechanism,
            &self.qr_state,
            rank,
            self.t,
            &self.x,
            &self.xd,
            &self.accelerations,
            &self.extra_loads,
        );
        Ok(())
    }

    /// Kinetic plus gravitational potential energy of the current state.
    pub fn energy(&self) -> f64 {
        self.mechanism.energy(&self.x, &self.xd)
    }

    /// Singularity indicator `|R[r_g-1]| / |R[0]|` at the current state.
    pub fn rho(&self) -> f64 {
        rho(&self.qr_state, self.watched.rank())
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
            return Err(SolverError::LoadBodyOutOfRange {
                body: load.body,
                bodies: self.mechanism.bodies().len(),
            });
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
    fn restart_detection(&mut self, resumed_at: f64) {
        self.watched.reset(self.generic_rank, &self.x);
        self.detector
            .resume(self.t, rho(&self.qr_state, self.watched.rank()));
        self.history_len = 0;
        self.search_next_step = false;
        self.excursions.resume_at(resumed_at);
    }

    /// The singular events located by the last step, in time order (empty if none).
    pub fn step_events(&self) -> &[SingularEvent] {
        &self.events[..self.event_count]
    }

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

/// Accepted states kept before the current one, for the search of the window and the steps
/// before it (`SEARCH_SPAN` steps of the configured size: more of Dopri5's shorter ones).
const KEPT_STATES: usize = 8;

/// Given initial velocities with `|A xd|` below this (relative to the largest) are kept as
/// given rather than projected again.
const GIVEN_VELOCITY_FIT: f64 = 1e-12;

/// How far (m or rad along a unit null-space direction) the start is moved to probe the
/// generic rank next to it.
const PROBE_STEP: f64 = 1e-2;

/// Up to this many null-space directions at the start each get a probe of their own (and
/// one along their sum); beyond, `MIXED_PROBES` mixtures of them.
const EXHAUSTIVE_PROBES: usize = 8;
const MIXED_PROBES: usize = 3;

/// The weight of null-space direction `j` (of `free`) in probe `probe`: with few directions
/// each alone and then all together; with many, all together and then fixed mixtures with
/// weights spread over [-1, 1] (the fractional parts of multiples of the golden ratio).
fn probe_weight(probe: usize, j: usize, free: usize) -> f64 {
    if free <= EXHAUSTIVE_PROBES {
        return if probe == free || probe == j {
            1.0
        } else {
            0.0
        };
    }
    if probe == 0 {
        return 1.0;
    }
    let golden = 0.5 * (1.0 + 5.0_f64.sqrt());
    2.0 * ((j + 1) as f64 * probe as f64 * golden).fract() - 1.0
}

/// How far (m or rad along the unit direction) a leaving mechanism is placed from the
/// singular configuration at least: far beyond the event state's own distance from it
/// (`rho` about 1e-7 on A02), so that Newton lands on the branch left along.
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
    let kinetic = mechanism.kinetic_energy(x, xd);
    let wanted = kinetic + (target - total);
    if kinetic > 0.0 && wanted > 0.0 && target.is_finite() {
        *xd *= (wanted / kinetic).sqrt();
    }
}

/// Fails if a position or velocity is NaN or infinite, naming the first body with one.
fn non_finite_state(
    mechanism: &Mechanism,
    t: f64,
    x: &DVector<f64>,
    xd: &DVector<f64>,
) -> Result<(), SolverError> {
    match mechanism
        .non_finite_body(x)
        .or_else(|| mechanism.non_finite_body(xd))
    {
        Some(body) => Err(SolverError::NotFinite {
            t,
            what: "state",
            body: Some(body),
        }),
        None => Ok(()),
    }
}
