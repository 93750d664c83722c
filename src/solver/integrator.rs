//! Explicit Runge-Kutta steps of the first-order system `(x, xd)' = (xd, xdd(t, x, xd))`:
//! classical RK4 (fixed step, the default) and the embedded Dormand-Prince 5(4) pair (Dormand
//! and Prince 1980), adaptive, whose step control is in
//! [`Simulation::step_until`](super::Simulation::step_until).
//!
//! # Projected stages
//!
//! Next to a singular configuration every stage state is first projected onto the constraint
//! manifold and its tangent space ([`projection`](super::projection): by full Newton, as after
//! a step), and `A^T` is factorised at the stage, of which only the tangent columns of `Q` are
//! formed, so accelerations are only ever evaluated on the manifold. This is the RK method
//! applied to `y' = f(P(y))`, which has the manifold as an invariant set and the same solutions
//! on it, so the order is kept. It matters there: off the manifold the level sets of `c` pinch,
//! and the curvature term `Q1 R1^{-T} gamma` of an unprojected stage grows like (distance off
//! the manifold) / `rho`.
//!
//! Far from singular configurations (`rho` at least 1e-2 at the step's start, the normals
//! turning slowly over the step) a mechanism of planar bodies and points takes its stages in
//! the range space of the constraints ([`range_space`](super::range_space): one Cholesky
//! factorisation of `A M^-1 A^T` instead of a pivoted QR of `A^T`). RK4's stages are then not
//! projected at all: the accelerations are smooth off the manifold there, and the projection of
//! the accepted step removes the O(h^5) defect; this drifted less than projected stages.
//! Dopri5's are projected by simplified Newton with the step start's factorisation (its
//! controller crept at its smallest step without that). Rigid bodies and knife edges keep the
//! projected tangent-space stages, by simplified Newton where the step allows it. All stages of
//! one step use the same method. The first stage is the current state, already on the
//! manifold: it reuses the state's factorisation. The constraint projection of the accepted
//! step is applied by the caller. Loads are taken at the middle of the step, which never
//! crosses an edge of a pulse (the simulation lands a step on each edge).
//!
//! # Dopri5 across singular configurations: forced steps
//!
//! No step size meets an error tolerance next to a singular configuration, because the
//! right-hand side is rough there, for two reasons:
//! - inside the truncation window the part of `beta''` that is left out changes the
//!   accelerations by up to 78 `rho` m/s^2 on A02 ([`dynamics`](super::dynamics));
//! - a stage state is off the manifold by O(h^2) and is projected right next to a bifurcation
//!   point, where the other branch is close. Placing every stage outside the truncation window
//!   (stepping over it) did not make the error estimates pass either.
//!
//! Refining the step only creeps towards the singular point, with ever more evaluations right
//! next to it. So while `rho` at the step's start is below the detection tolerance, Dopri5
//! takes one step of its largest size (`dt`), as RK4 would, and accepts it whatever its error
//! estimate says; the step is reported as *forced*
//! ([`StepReport::forced`](super::StepReport::forced); `singulab run` prints how many).
//! Elsewhere the error control is the usual one, with a floor of `dopri_min_step * dt` (a step
//! at the floor that still fails is forced too). Every run below has at most one forced step
//! per singular configuration but one (A02 at dt 9.7e-4: 11 for its 10).
//!
//! Stepping on with the step size the controller had shrunk to, refining down to the smallest
//! step before forcing, stepping over the truncation window, or a lower truncation for Newton
//! and `beta''` all lost more energy or switched branch; those runs and Dopri5's drift over a
//! step-size scan of the linkages are in `docs/measurements.md` (*Dopri5 across singular
//! configurations*).
//!
//! Against A02's closed-form reduction over 10 s, at the default rtol and dt 1e-3, Dopri5
//! keeps the tip of the first crank closer than RK4 does at dt 1e-3 (`cargo test --test
//! solver a02_dopri5_matches` and `a02_double_four_bar_follows_the_reduction_for_10_s` print
//! both and assert their bounds; `modified_2x2_dopri5_conserves_energy` and
//! `modified_2x3_dopri5_conserves_energy` hold the stacked scenes within 1e-4 E0). RK4 stays
//! the default: a fixed number of evaluations per step, and no step accepted unchecked.

use nalgebra::DVector;

use super::dynamics::{Evaluator, Rhs};
use super::error::SolverError;
use super::projection::Projector;
use super::range_space::RangeSpace;
use crate::linalg::PivotedQr;
use crate::model::Mechanism;

/// A Butcher tableau with at most seven stages.
struct Tableau {
    stages: usize,
    c: [f64; 7],
    a: [[f64; 7]; 7],
    b: [f64; 7],
    /// `b - b_hat` of an embedded pair (all zero when there is no error estimate).
    e: [f64; 7],
    /// Whether its stages in the range space are projected first (Dopri5's: see
    /// [`range_space`](super::range_space)).
    projects_range_space_stages: bool,
}

const RK4: Tableau = Tableau {
    stages: 4,
    c: [0.0, 0.5, 0.5, 1.0, 0.0, 0.0, 0.0],
    a: [
        [0.0; 7],
        [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.0; 7],
        [0.0; 7],
        [0.0; 7],
    ],
    b: [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0, 0.0, 0.0, 0.0],
    e: [0.0; 7],
    projects_range_space_stages: false,
};

/// Dormand and Prince (1980), the pair behind Matlab's ode45 used by Masarati et al. 2023 and Zhou
/// et al. 2023.
const DOPRI5: Tableau = Tableau {
    stages: 7,
    c: [0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0],
    a: [
        [0.0; 7],
        [0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0, 0.0],
        [
            19372.0 / 6561.0,
            -25360.0 / 2187.0,
            64448.0 / 6561.0,
            -212.0 / 729.0,
            0.0,
            0.0,
            0.0,
        ],
        [
            9017.0 / 3168.0,
            -355.0 / 33.0,
            46732.0 / 5247.0,
            49.0 / 176.0,
            -5103.0 / 18656.0,
            0.0,
            0.0,
        ],
        [
            35.0 / 384.0,
            0.0,
            500.0 / 1113.0,
            125.0 / 192.0,
            -2187.0 / 6784.0,
            11.0 / 84.0,
            0.0,
        ],
    ],
    b: [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
        0.0,
    ],
    e: [
        71.0 / 57600.0,
        0.0,
        -71.0 / 16695.0,
        71.0 / 1920.0,
        -17253.0 / 339200.0,
        22.0 / 525.0,
        -1.0 / 40.0,
    ],
    projects_range_space_stages: true,
};

/// One step to take: from `(t, x, xd)` on the constraint manifold, where `start` holds the
/// factorisation of `A(x)^T` (the simulation's current state), over `h`.
pub(crate) struct Step<'a> {
    pub t: f64,
    pub x: &'a DVector<f64>,
    pub xd: &'a DVector<f64>,
    pub start: &'a PivotedQr,
    pub h: f64,
    /// Project the stages by simplified Newton first, with the factorisation `start` (the step
    /// starts far enough from a singular configuration).
    pub simplify: bool,
}

/// Stage buffers.
#[derive(Clone, Debug)]
pub(crate) struct Stepper {
    kx: Vec<DVector<f64>>,
    kv: Vec<DVector<f64>>,
    x_stage: DVector<f64>,
    xd_stage: DVector<f64>,
    projector: Projector,
    /// The range-space stages, for mechanisms they apply to.
    range_space: Option<RangeSpace>,
    /// Factorisations done by stage projections and evaluations since the last take.
    factorizations: u64,
    /// Stages evaluated in the range space since the last take.
    range_space_stages: u64,
}

/// How the stages of a step project their states and evaluate their accelerations.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StageMethod {
    /// Factorising `A^T` at every stage, in the tangent space ([`Projector::project_stage`]
    /// and the dynamics' minimal-coordinate-set accelerations).
    Tangent,
    /// [`RangeSpace`]: unprojected (RK4) or after simplified Newton (Dopri5).
    RangeSpace,
}

impl Stepper {
    pub fn new(mechanism: &Mechanism) -> Self {
        let (n, m) = (mechanism.n(), mechanism.m());
        Self {
            kx: vec![DVector::zeros(n); 7],
            kv: vec![DVector::zeros(n); 7],
            x_stage: DVector::zeros(n),
            xd_stage: DVector::zeros(n),
            projector: Projector::new(n, m),
            range_space: RangeSpace::for_mechanism(mechanism),
            factorizations: 0,
            range_space_stages: 0,
        }
    }

    /// Factorisations of `A^T` and range-space stages since the last call (for the work
    /// counters).
    pub fn take_work(&mut self) -> (u64, u64) {
        (
            std::mem::take(&mut self.factorizations),
            std::mem::take(&mut self.range_space_stages),
        )
    }

    /// One RK4 step into `(x_out, xd_out)`.
    pub fn rk4(
        &mut self,
        rhs: &Rhs,
        evaluator: &mut Evaluator,
        step: &Step,
        x_out: &mut DVector<f64>,
        xd_out: &mut DVector<f64>,
    ) -> Result<(), SolverError> {
        self.run(&RK4, rhs, evaluator, step, x_out, xd_out)?;
        Ok(())
    }

    /// One Dormand-Prince attempt into `(x_out, xd_out)`; returns the scaled RMS error norm
    /// (accept when <= 1) with the tolerances `dopri_rtol` and `dopri_atol` of `rhs.settings`.
    pub fn dopri5(
        &mut self,
        rhs: &Rhs,
        evaluator: &mut Evaluator,
        step: &Step,
        x_out: &mut DVector<f64>,
        xd_out: &mut DVector<f64>,
    ) -> Result<f64, SolverError> {
        self.run(&DOPRI5, rhs, evaluator, step, x_out, xd_out)?;
        let (x, xd, h) = (step.x, step.xd, step.h);
        let (rtol, atol) = (rhs.settings.dopri_rtol, rhs.settings.dopri_atol);
        let n = x.len();
        let mut sum = 0.0;
        for i in 0..n {
            let mut ex = 0.0;
            let mut ev = 0.0;
            for s in 0..DOPRI5.stages {
                ex += DOPRI5.e[s] * self.kx[s][i];
                ev += DOPRI5.e[s] * self.kv[s][i];
            }
            let sx = atol + rtol * x[i].abs().max(x_out[i].abs());
            let sv = atol + rtol * xd[i].abs().max(xd_out[i].abs());
            sum += (h * ex / sx).powi(2) + (h * ev / sv).powi(2);
        }
        Ok((sum / (2 * n) as f64).sqrt())
    }

    /// Runs the stages of `tableau` over `step`, then combines them into `(x_out, xd_out)`:
    /// in the range space where the step allows it, else (or if a stage declines) in the
    /// tangent space.
    fn run(
        &mut self,
        tableau: &Tableau,
        rhs: &Rhs,
        evaluator: &mut Evaluator,
        step: &Step,
        x_out: &mut DVector<f64>,
        xd_out: &mut DVector<f64>,
    ) -> Result<(), SolverError> {
        let in_range_space = step.simplify
            && self.range_space.is_some()
            && self.run_stages(tableau, rhs, evaluator, step, StageMethod::RangeSpace)?;
        if !in_range_space {
            self.run_stages(tableau, rhs, evaluator, step, StageMethod::Tangent)?;
        }
        x_out.copy_from(step.x);
        xd_out.copy_from(step.xd);
        for s in 0..tableau.stages {
            let b = tableau.b[s];
            if b != 0.0 {
                x_out.axpy(step.h * b, &self.kx[s], 1.0);
                xd_out.axpy(step.h * b, &self.kv[s], 1.0);
            }
        }
        Ok(())
    }

    /// The slopes of every stage into `kx` and `kv`; returns `false` if a stage declines the
    /// range-space method (the step is then taken again in the tangent space, so that the
    /// stages of one step share one projection).
    fn run_stages(
        &mut self,
        tableau: &Tableau,
        rhs: &Rhs,
        evaluator: &mut Evaluator,
        step: &Step,
        method: StageMethod,
    ) -> Result<bool, SolverError> {
        // Loads are piecewise constant in time and a step never crosses an edge of one (the
        // simulation lands on it), so every stage takes them inside the step: the last stage,
        // at its end, would see a pulse that ends there as already off (half-open window).
        let loads_at = step.t + 0.5 * step.h;
        for s in 0..tableau.stages {
            self.stage_state(tableau, s, step);
            if s > 0 && method == StageMethod::RangeSpace {
                if !self.range_space_stage(tableau, s, rhs, step, loads_at) {
                    return Ok(false);
                }
                self.range_space_stages += 1;
                continue;
            }
            self.project_stage_state(tableau, s, rhs, evaluator, step)?;
            self.kx[s].copy_from(&self.xd_stage);
            evaluator.acceleration(
                rhs,
                loads_at,
                &self.x_stage,
                &self.xd_stage,
                None,
                &mut self.kv[s],
            )?;
        }
        Ok(true)
    }

    /// Stage `s` (not the first) in the range space: accelerations by [`RangeSpace`] at the
    /// stage state as it is (RK4), or after simplified Newton with the step start's
    /// factorisation and the velocity projection (Dopri5; see
    /// [`range_space`](super::range_space) for why). Returns `false` where that does not apply
    /// (Newton does not contract, `S` is not positive definite over the rows the step start
    /// found independent, or the accelerations are not finite).
    fn range_space_stage(
        &mut self,
        tableau: &Tableau,
        s: usize,
        rhs: &Rhs,
        step: &Step,
        loads_at: f64,
    ) -> bool {
        let Some(range_space) = self.range_space.as_mut() else {
            return false;
        };
        let (mechanism, settings) = (rhs.mechanism, rhs.settings);
        let t_stage = step.t + tableau.c[s] * step.h;
        let project = tableau.projects_range_space_stages;
        if project
            && self
                .projector
                .simplified_positions(mechanism, settings, t_stage, &mut self.x_stage, step.start)
                .is_none()
        {
            return false;
        }
        let a = if project {
            self.projector.jacobian()
        } else {
            self.projector.jacobian_at(mechanism, &self.x_stage)
        };
        if !range_space.factorize(a, step.start, settings.rank_tolerance, project) {
            return false;
        }
        if project {
            range_space.project_velocities(mechanism, a, t_stage, &mut self.xd_stage);
        }
        self.kx[s].copy_from(&self.xd_stage);
        range_space.acceleration(
            rhs,
            a,
            loads_at,
            &self.x_stage,
            &self.xd_stage,
            &mut self.kv[s],
        )
    }

    /// The unprojected state of stage `s` into `(x_stage, xd_stage)`: the step's start plus
    /// the earlier stages' slopes weighted by row `s` of the tableau.
    fn stage_state(&mut self, tableau: &Tableau, s: usize, step: &Step) {
        self.x_stage.copy_from(step.x);
        self.xd_stage.copy_from(step.xd);
        for j in 0..s {
            let a = tableau.a[s][j];
            if a != 0.0 {
                self.x_stage.axpy(step.h * a, &self.kx[j], 1.0);
                self.xd_stage.axpy(step.h * a, &self.kv[j], 1.0);
            }
        }
    }

    /// Projects stage `s`'s state onto the manifold, leaving the factorisation there in
    /// `evaluator.qr`. The first stage is the step's start, already on the manifold: it reuses
    /// `step.start` instead of projecting and refactorising.
    fn project_stage_state(
        &mut self,
        tableau: &Tableau,
        s: usize,
        rhs: &Rhs,
        evaluator: &mut Evaluator,
        step: &Step,
    ) -> Result<(), SolverError> {
        let t_stage = step.t + tableau.c[s] * step.h;
        if s == 0 {
            // Only the velocity projection (at the current rank tolerance) is repeated.
            evaluator.qr.copy_from(step.start);
            let rank = evaluator.qr.rank(rhs.settings.rank_tolerance);
            self.projector.project_velocities(
                rhs.mechanism,
                t_stage,
                &evaluator.qr,
                rank,
                &mut self.xd_stage,
            );
        } else {
            let outcome = self.projector.project_stage(
                rhs.mechanism,
                rhs.settings,
                t_stage,
                &mut self.x_stage,
                &mut self.xd_stage,
                step.simplify.then_some(step.start),
                &mut evaluator.qr,
            )?;
            self.factorizations += outcome.factorizations as u64;
        }
        Ok(())
    }
}
