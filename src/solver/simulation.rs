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

use super::basis::{BasisStats, BasisUpdater, TangentBasis};
use super::dynamics::{Evaluator, Rhs};
use super::error::SolverError;
use super::events::{EventDetector, Excursions, MAX_EVENTS_PER_STEP, SingularEvent};
use super::indicator::{WatchedRank, rho};
use super::integrator::Stepper;
use super::predictor::BasisPredictor;
use super::projection::{NewtonLimits, ProjectionOutcome, Projector};
use super::reactions::Reactions;
use super::settings::{BasisMode, Predictor, Settings};
use super::velocity::VelocityProjection;
use crate::linalg::PivotedQr;
use crate::model::{Load, Mechanism};

mod checkpoint;
mod leave;
mod locate;
mod pose;
mod reach;
mod step;
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

    /// The singular events located by the last step, in time order (empty if none).
    pub fn step_events(&self) -> &[SingularEvent] {
        &self.events[..self.event_count]
    }
}

/// Accepted states kept before the current one, for the search of the window and the steps
/// before it (`SEARCH_SPAN` steps of the configured size: more of Dopri5's shorter ones).
pub(super) const KEPT_STATES: usize = 8;

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

/// Fails if a position or velocity is NaN or infinite, naming the first body with one.
pub(super) fn non_finite_state(
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
