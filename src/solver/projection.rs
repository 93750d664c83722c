//! Constraint stabilisation after each accepted step: Newton on positions
//! along the constraint normals, `x <- x - Q1 R1^{-T} c_piv[0..r]`, then projection of the
//! velocities onto the tangent space: at a Runge-Kutta stage the Euclidean
//! `xd <- xd - Q1 Q1^T xd + beta'` with `beta' = Q1 R1^{-T} b_piv[0..r]` (Masarati et al. 2023,
//! eq. 9), where `A xd = b` is `d'(t)` on driver rows and zero elsewhere (`beta'` is zero, and
//! skipped, without drivers); at an accepted state the mass-orthogonal one of
//! [`velocity`](super::velocity), which keeps the kinetic energy to second order.
//!
//! Newton sees the position-level rows only: velocity-level rows (knife edges) have no
//! position form, so they are zeroed in its Jacobian and fall to the end of the pivoting. The
//! iterate that ends the loop is then refactorised with all rows, for the velocity projection,
//! the tangent bases, the accelerations and the events; without velocity-level rows the last
//! Newton factorisation serves as it is.
//!
//! Newton refactorises `A^T` at every iterate (rather than keeping the step's `Q1` as Zhou et al.
//! 2023, eqs. 18-19, do): the factorisation is needed at the final positions anyway, for the
//! velocity projection and the tangent bases, and it gives quadratic convergence. Only the
//! iterate that ends the loop forms `Q`; the corrections need just `R` and the reflectors.
//! Every Runge-Kutta stage goes through the same projection before its accelerations are
//! evaluated ([`integrator`](super::integrator) says why).
//!
//! # Passing singular configurations: `normal_truncation`
//!
//! Normals whose `R` entry is below `normal_truncation * |R_00|` (default 1e-4) are left out
//! of Newton's correction and of the curvature term `beta''` ([`dynamics`](super::dynamics)),
//! so that nothing divides by a vanishing `R` entry and Newton never pushes the mechanism along
//! a nearly free direction, onto another branch. A stage's velocity also keeps its component
//! along those normals ([`Projector::project_stage`]; the accepted step's projection, at the
//! rank tolerance, removes what is left): next to a singular configuration such a normal turns
//! on the scale of the distance to it, so at a stage a few `h^2` off the path it points partly
//! along the motion, and removing that component took kinetic energy out of the one step that
//! crosses (5.9e-2 J on the 2x2 at dt 2e-3, 1.7e-4 J on the 2x3 at dt 1e-3).
//!
//! The default was chosen by a step-size scan of A02 over 10 s with RK4: the largest
//! `|E - E0|` in J (E0 = 35.835 J), on copies of `scenes/double_four_bar.ron` with
//! `solver: (dt: 1e-3, normal_truncation: NT)`, each measured with
//! `singulab run COPY.ron --dt DT` (the energy column, every step), the last column with
//! `--integrator dopri5 --dt 1e-3`:
//!
//! | normal_truncation | dt 1e-3 | 9.7e-4 | 1.13e-3 | 7.9e-4 | 1.37e-3 | 2e-3 | Dopri5 |
//! |---|---|---|---|---|---|---|---|
//! | 1e-8 | 1.1e-9 | 6.5e-9 | 4.7e-9 | 1.5e-6 | 1.2e-5 | 1.9e-8 | 9.7e-8 |
//! | 1e-5 | 1.1e-9 | 6.5e-9 | 4.7e-9 | 2.4e-8 | 5.8e-8 | 1.9e-8 | 9.7e-8 |
//! | 1e-4 | 1.1e-9 | 3.2e-9 | 4.3e-9 | 2.0e-9 | 2.7e-8 | 1.9e-8 | 2.4e-10 |
//! | 1e-3 | 1.5e-7 | 4.8e-7 | 5.7e-8 | 1.3e-6 | 3.6e-7 | 7.1e-7 | 2.6e-8 |
//!
//! 1e-4 gives the smallest drift at every step size but one (1.1e-3 and 9.7e-4 tie with
//! 1e-8); smaller values keep more of the near-singular normals and cost up to 1.2e-5 J
//! (1e-8 at dt 1.37e-3), while 1e-3 widens the window and what it leaves out of `beta''`
//! costs up to 1.3e-6 J. With the Euclidean velocity projection the accepted states had
//! before the mass-orthogonal one of [`velocity`](super::velocity), the same scan gave up to
//! 2.0e-6 J at 1e-4 and 1.9 J at 1e-8 (one crossing step of dt 7.9e-4). Every run of the
//! table finds A02's 10 singular configurations and stays on its parallelogram branch.
//!
//! The same scan on the linkages without a closed-form reduction, with the default
//! truncation (`singulab run SCENE.ron --t-end 10 --dt DT`, DT over the six step sizes above):
//!
//! | scene | largest energy drift (J) over the six step sizes |
//! |---|---|
//! | four_bar | 7.8e-10 .. 2.1e-8 |
//! | modified_2x2 | 5.1e-7 .. 2.1e-5 |
//! | modified_2x3 | 1.3e-6 .. 5.0e-5 |
//!
//! `cargo test --test solver step_size_scan` holds these scans within 1e-6 E0, the smallest
//! span of the app's energy plot, so no crossing shows there as a cliff:
//! `rk4_step_size_scan_conserves_energy_on_the_other_linkages` the three above over 10 s, and
//! the `*_step_size_scan*` tests A02 over 5 s and the modified double and triple four-bars
//! over 3 s, at these step sizes and at 5e-4 and 2.5e-4, also on the branch and at the event
//! times of their closed-form reduction.

use nalgebra::{DMatrix, DVector};

use super::error::SolverError;
use super::settings::Settings;
use crate::linalg::PivotedQr;
use crate::model::Mechanism;

/// Relative `R` entry below which a stage's velocity keeps its component along the normal
/// (the default `normal_truncation`; see `Projector::project_stage`).
const STAGE_VELOCITY_TRUNCATION: f64 = 1e-4;

/// Result of a projection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProjectionOutcome {
    pub iterations: usize,
    /// Largest independent residual `|c_piv[0..r]|_inf` at the end.
    pub independent_residual: f64,
    /// Largest residual over all constraints `|c|_inf` (differs from the independent one only
    /// by round-off when rows are redundant, and by the truncated rows near a singularity).
    pub residual: f64,
}

/// The stopping rule of Newton's position correction: constraint normals whose `R` entry is
/// at or below `truncation` (relative to `|R_00|`) are left out; it stops once the independent
/// residuals are at most `tolerance`, or fails after `max_iterations` corrections.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NewtonLimits {
    pub truncation: f64,
    pub tolerance: f64,
    pub max_iterations: usize,
}

impl NewtonLimits {
    /// The running settings' limits: truncation at `normal_truncation` (at least the rank
    /// tolerance), `newton_tolerance` and `newton_max_iterations`.
    pub fn of(settings: &Settings) -> Self {
        Self {
            truncation: settings.normal_truncation.max(settings.rank_tolerance),
            tolerance: settings.newton_tolerance,
            max_iterations: settings.newton_max_iterations,
        }
    }
}

/// Buffers for the projection, with the Jacobian at the last Newton iterate.
#[derive(Clone, Debug)]
pub(crate) struct Projector {
    a: DMatrix<f64>,
    c: DVector<f64>,
    c_piv: DVector<f64>,
    y: Vec<f64>,
    dx: DVector<f64>,
    normal_velocity: DVector<f64>,
    b: DVector<f64>,
}

impl Projector {
    pub fn new(n: usize, m: usize) -> Self {
        Self {
            a: DMatrix::zeros(m, n),
            c: DVector::zeros(m),
            c_piv: DVector::zeros(m),
            y: vec![0.0; m.max(1)],
            dx: DVector::zeros(n),
            normal_velocity: DVector::zeros(n),
            b: DVector::zeros(m),
        }
    }

    /// The Jacobian `A` (m x n) at the positions the last projection ended at.
    pub fn jacobian(&self) -> &DMatrix<f64> {
        &self.a
    }

    /// The projection of a Runge-Kutta stage: Newton, then the Euclidean velocity projection
    /// (not the accepted state's mass-orthogonal one, `velocity`), where the velocity keeps its component along the normals left out of Newton (`R` entry below
    /// `normal_truncation`, at most `STAGE_VELOCITY_TRUNCATION`). Next to a singular
    /// configuration such a normal turns on the scale of the distance to it, so at a stage a
    /// few `h^2` off the path it points partly along the motion, and removing that component
    /// took kinetic energy out of the step that crosses (1.7e-4 J on the 2x3 at its first
    /// singular configuration).
    pub fn project_stage(
        &mut self,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        xd: &mut DVector<f64>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        let outcome = self.newton_at(mechanism, settings, t, x, qr)?;
        // Only normals this close to vanishing are kept out of the velocity projection: a
        // raised `normal_truncation` (1e-2) would leave out normals that are not turning
        // yet, and their components cost more than they save (A02 over 10 s: 4.2e-2 J).
        let keep_below = settings
            .normal_truncation
            .min(STAGE_VELOCITY_TRUNCATION)
            .max(settings.rank_tolerance);
        let rank = qr.rank(keep_below);
        self.project_velocities(mechanism, t, qr, rank, xd);
        Ok(outcome)
    }

    /// Newton on positions with the running settings (truncation, tolerance, iterations); a
    /// failure names the joint of the worst row at time `t`.
    pub fn newton_at(
        &mut self,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        self.project_positions(mechanism, NewtonLimits::of(settings), t, x, qr)
            .map_err(|(iterations, residual, row)| {
                // Positions that are no longer numbers are not Newton's failure.
                if let Some(body) = mechanism.non_finite_body(x) {
                    return SolverError::NotFinite {
                        t,
                        what: "positions",
                        body: Some(body),
                    };
                }
                SolverError::NewtonDiverged {
                    t,
                    iterations,
                    residual,
                    tolerance: settings.newton_tolerance,
                    joint: mechanism.joint_of_row(row).name.clone(),
                    // At the last iterate; a step's failure is judged at the state it left
                    // instead (`Simulation::step_until`).
                    round_off: f64::EPSILON * mechanism.residual_scale(x),
                }
            })
    }

    /// Newton iterations on positions at time `t`, leaving `qr` factorised (with `Q`, all rows)
    /// at the last iterate. On failure returns (iterations, residual, worst row).
    pub fn project_positions(
        &mut self,
        mechanism: &Mechanism,
        limits: NewtonLimits,
        t: f64,
        x: &mut DVector<f64>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, (usize, f64, usize)> {
        let mut iterations = 0;
        loop {
            mechanism.residual(t, x, &mut self.c);
            mechanism.jacobian(x, &mut self.a);
            mechanism.clear_velocity_rows(&mut self.a);
            // Q is formed only for the iterate that ends the loop; the corrections need just
            // the reflectors.
            qr.factorize_without_q(&self.a);
            let r = qr.rank(limits.truncation);
            qr.to_pivot_order(&self.c, &mut self.c_piv);
            let independent = self.c_piv.rows(0, r).amax();
            if !independent.is_finite() {
                qr.form_q();
                return Err((iterations, independent, 0));
            }
            if independent <= limits.tolerance {
                self.factorize_all_rows(mechanism, x, qr);
                return Ok(ProjectionOutcome {
                    iterations,
                    independent_residual: independent,
                    residual: self.c.amax(),
                });
            }
            if iterations == limits.max_iterations {
                qr.form_q();
                let worst = self.c.iamax();
                return Err((iterations, independent, worst));
            }
            qr.normal_solve_implicit(r, self.c_piv.as_slice(), &mut self.y, &mut self.dx);
            *x -= &self.dx;
            iterations += 1;
        }
    }

    /// Forms `Q` of the last Newton iterate, or refactorises with every row (and the full
    /// Jacobian in `self.a`) when Newton left velocity-level rows out.
    fn factorize_all_rows(&mut self, mechanism: &Mechanism, x: &DVector<f64>, qr: &mut PivotedQr) {
        if mechanism.has_velocity_rows() {
            mechanism.jacobian(x, &mut self.a);
            qr.factorize_transposed(&self.a);
        } else {
            qr.form_q();
        }
    }

    /// `xd <- xd - Q1 Q1^T xd + Q1 R1^{-T} b_piv` with `Q1` the first `rank` columns of `Q` and
    /// `b` the velocity right-hand side at `t` (the last term only for drivers).
    pub fn project_velocities(
        &mut self,
        mechanism: &Mechanism,
        t: f64,
        qr: &PivotedQr,
        rank: usize,
        xd: &mut DVector<f64>,
    ) {
        if rank == 0 {
            return;
        }
        let q1 = qr.q().columns(0, rank);
        let mut coefficients = self.dx.rows_mut(0, rank);
        coefficients.gemv_tr(1.0, &q1, xd, 0.0);
        self.normal_velocity
            .gemv(1.0, &q1, &self.dx.rows(0, rank), 0.0);
        *xd -= &self.normal_velocity;
        if mechanism.is_rheonomic() {
            mechanism.velocity_rhs(t, &mut self.b);
            qr.to_pivot_order(&self.b, &mut self.c_piv);
            qr.normal_solve(
                rank,
                self.c_piv.as_slice(),
                &mut self.y,
                &mut self.normal_velocity,
            );
            *xd += &self.normal_velocity;
        }
    }
}
