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
//! After a step the factorisation is needed at the final positions anyway (with its whole `Q`,
//! for the tangent bases and the basis predictor), and RK4's defect is so small (O(h^5)) that
//! Newton usually stops at the first iterate (most of the 2x3's steps at dt 1e-3), so the
//! factorisation at the new positions is its only one. Where the step's stages may be corrected
//! by simplified Newton (below), so is its end, and `A^T` is factorised once, at the converged
//! positions; elsewhere Newton refactorises at every iterate. Only the factorisation that ends
//! the projection forms `Q`; the corrections need just `R` and the reflectors.
//! A Runge-Kutta stage goes through a projection before its accelerations are evaluated,
//! the one below, except RK4's stages in the range space ([`integrator`](super::integrator)
//! says which and why).
//!
//! # Simplified Newton at the Runge-Kutta stages
//!
//! A stage state is off the manifold by O(h^2). Far from singular configurations its positions
//! are corrected by simplified Newton (Zhou et al. 2023, eqs. 18-19): `x <- x - Q1 R1^{-T}
//! c_piv[0..r]` with the factors and pivot order of the step's start throughout (applied as
//! reflectors, without `Q`). Dopri5's stages of planar mechanisms then take their velocity
//! projection and accelerations in the range space ([`range_space`](super::range_space), no
//! factorisation of `A^T` at the stage at all); otherwise `A^T` is factorised once, at the
//! converged positions, and only the tangent columns of `Q` are formed
//! ([`PivotedQr::form_q_columns`]). The corrections contract by the angle the normals turn
//! between the start and the stage: one or two corrections, each a residual evaluation instead
//! of a factorisation (A02 at dt 1e-3 over 10 s: a correction leaves at most 3.3e-3 of the
//! residual before it, 1.3e-6 at the median stage). Full Newton with a refactorisation per
//! iterate took 2.2 factorisations per stage; this takes one, or none in the range space.
//!
//! Every stage of a step is corrected with the same factorisation, the step's start's, so the
//! step is still the Runge-Kutta method applied to one system `y' = f(P(y))` and keeps its
//! order. Correcting each stage with the factorisation of the stage before (closer to it) gave
//! each stage its own `P`; the stages' positions then differed from one consistent projection
//! by O(h^3), and the four-bar's energy drift grew by three orders of magnitude (the runs:
//! `docs/measurements.md`, *Alternatives measured*).
//!
//! Full Newton stays (every iterate refactorised, as after a step) where the frozen normals
//! are not close to the stage's own:
//! - next to a singular configuration, `rho` at the step's start below
//!   `SIMPLIFIED_NEWTON_MIN_RHO` (1e-2, ten times the default detection tolerance): there the
//!   normals that the truncation keeps turn on the scale of the distance to the singular
//!   configuration, and a correction along stale ones would push the stage along a nearly free
//!   direction, towards the other branch;
//! - when the normals turn by more than `SIMPLIFIED_NEWTON_MAX_TURN` (0.02 rad, estimated as
//!   `h |dA/dt|_F / |A|_F`) over the step: the stage then lands on the manifold as far from
//!   full Newton's point, along it, as the turn times its distance off. That is still a
//!   consistent projection, but its error constant is larger: at coarse steps A02 drifted
//!   twice as much and its events moved (`a02_coarse_steps_still_locate_every_singularity`
//!   asserts 1e-4 s); with the limit, as full Newton;
//! - for mechanisms with velocity-level rows (knife edges), which full Newton leaves out;
//! - and when a correction shrinks the residual by less than 4 times, or 8 corrections do not
//!   reach the tolerance: full Newton then starts again from the unprojected stage.
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
//! crosses (on the stacked scenes, far above the drift of a crossing now).
//!
//! A residual can still build up along a normal left out: during a push at a singular
//! configuration the dynamics see the enlarged tangent space for as long as the push lasts, so
//! the mechanism moves along such a normal and the constraints' curvature turns that motion
//! into a residual along it, far above the tolerance (the four-bar pushed onto its fold, a long
//! push on A02's branch 2). Newton therefore also checks the full
//! residual `|c|_inf`: above the tolerance, it corrects along every normal not redundant
//! (`R` entry above 1e-10), as long as that brings `|c|_inf` within the tolerance by a small
//! move (at most 1e-3 of the positions' scale), which keeps it on the branch it is on
//! (`cargo test --test solver push_residual`: both stay within the tolerance at every step,
//! crank 2 within 1e-8 rad of its fold). A probe of the generic rank keeps the truncation
//! strict, as it must stay off the singular configuration it starts from.
//!
//! The default, 1e-4, gave the smallest energy drift at every step size but one in a
//! step-size scan of A02 with RK4, against 1e-8, 1e-5 and 1e-3 (smaller values keep more of the
//! near-singular normals, larger ones leave more of `beta''` out); the scan, and the linkages
//! without a closed-form reduction at the default, are in `docs/measurements.md` (*Normal
//! truncation*).
//!
//! `cargo test --test solver step_size_scan` holds such scans within 1e-6 E0, the smallest
//! span of the app's energy plot, so no crossing shows there as a cliff:
//! `rk4_step_size_scan_conserves_energy_on_the_other_linkages` the four-bar, the 2x2 and the
//! 2x3 over 10 s, and the `*_step_size_scan*` tests A02 over 5 s and the modified double and
//! triple four-bars over 3 s, at the scan's step sizes (1e-3, 9.7e-4, 1.13e-3, 7.9e-4, 1.37e-3
//! and 2e-3) and at 5e-4 and 2.5e-4, also on the branch and at the event times of their
//! closed-form reduction.

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
    /// Factorisations of `A^T` the projection took (Newton's iterates and the final one).
    pub factorizations: usize,
}

/// Simplified Newton (corrections with a factorisation at a nearby configuration) is tried
/// only while that factorisation's `rho` is at least this; closer to a singular configuration
/// every iterate is refactorised (see "Simplified Newton" in the module docs).
pub(crate) const SIMPLIFIED_NEWTON_MIN_RHO: f64 = 1e-2;

/// ... and only while the constraint normals turn by at most this (rad, estimated as
/// `h |dA/dt|_F / |A|_F`) over the step: the frozen normals then point within that angle of
/// the stage's own.
pub(crate) const SIMPLIFIED_NEWTON_MAX_TURN: f64 = 2e-2;

/// Normals whose `R` entry (relative to `|R_00|`) is above this are corrected when the full
/// residual exceeds the tolerance after Newton (`Projector::correct_truncated_normals`); below
/// it are the redundant rows, whose residuals follow the others'.
const FULL_RESIDUAL_TRUNCATION: f64 = 1e-10;
/// The largest move (relative to the positions' scale, at least 1 m) those corrections may
/// make.
const FULL_RESIDUAL_MAX_MOVE: f64 = 1e-3;

/// Simplified Newton gives up (and full Newton starts again from the unprojected positions)
/// after this many corrections, or as soon as a correction shrinks the independent residual by
/// less than `SIMPLIFIED_NEWTON_CONTRACTION`.
const SIMPLIFIED_NEWTON_MAX_ITERATIONS: usize = 8;
const SIMPLIFIED_NEWTON_CONTRACTION: f64 = 0.25;

/// The stopping rule of Newton's position correction: constraint normals whose `R` entry is
/// at or below `truncation` (relative to `|R_00|`) are left out; it stops once the independent
/// residuals are at most `tolerance`, or fails after `max_iterations` corrections.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NewtonLimits {
    pub truncation: f64,
    pub tolerance: f64,
    pub max_iterations: usize,
    /// Whether a full residual above the tolerance, built up along the normals left out, is
    /// then corrected along them too (`Projector::correct_truncated_normals`).
    pub full_residual: bool,
}

impl NewtonLimits {
    /// The running settings' limits: truncation at `normal_truncation` (at least the rank
    /// tolerance), `newton_tolerance` and `newton_max_iterations`.
    pub fn of(settings: &Settings) -> Self {
        Self {
            truncation: settings.normal_truncation.max(settings.rank_tolerance),
            tolerance: settings.newton_tolerance,
            max_iterations: settings.newton_max_iterations,
            full_residual: true,
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
    /// The positions before a simplified Newton, to start again from if it does not converge.
    x_start: DVector<f64>,
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
            x_start: DVector::zeros(n),
        }
    }

    /// Evaluates the Jacobian at `x` into [`jacobian`](Self::jacobian) and returns it.
    pub fn jacobian_at(&mut self, mechanism: &Mechanism, x: &DVector<f64>) -> &DMatrix<f64> {
        mechanism.jacobian(x, &mut self.a);
        &self.a
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
        frozen: Option<&PivotedQr>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        let outcome = self.newton_near(mechanism, settings, t, x, frozen, qr)?;
        // Only normals this close to vanishing are kept out of the velocity projection: a
        // raised `normal_truncation` (1e-2) would leave out normals that are not turning
        // yet, and their components cost more than they save (A02 over 10 s: 4.2e-2 J).
        let keep_below = settings
            .normal_truncation
            .min(STAGE_VELOCITY_TRUNCATION)
            .max(settings.rank_tolerance);
        let rank = qr.rank(keep_below);
        // The stage needs only the tangent columns of `Q` (for the velocity projection and, at
        // the rank tolerance, which keeps at least as many normals, for the accelerations).
        qr.form_q_columns(rank);
        self.project_velocities(mechanism, t, qr, rank, xd);
        Ok(outcome)
    }

    /// Newton on positions as [`newton_without_q`](Self::newton_without_q), first as simplified Newton with
    /// the factorisation `frozen` at a nearby configuration when one is given (and the
    /// mechanism has no velocity-level rows, which Newton must leave out): then `qr` is
    /// factorised once, at the converged positions. If the simplified iteration does not
    /// contract, full Newton starts again from the positions as they were. Leaves `Q`
    /// unformed ([`PivotedQr::form_q_columns`] forms what the caller needs).
    pub fn newton_near(
        &mut self,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        frozen: Option<&PivotedQr>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        if let Some(frozen) = frozen.filter(|_| !mechanism.has_velocity_rows())
            && let Some(iterations) = self.simplified_positions(mechanism, settings, t, x, frozen)
            && self.c.amax() <= settings.newton_tolerance
        {
            // `self.c` holds the residuals at the converged positions.
            qr.factorize_without_q(&self.a);
            let r = qr.rank(NewtonLimits::of(settings).truncation);
            qr.to_pivot_order(&self.c, &mut self.c_piv);
            return Ok(ProjectionOutcome {
                iterations,
                independent_residual: self.c_piv.rows(0, r).amax(),
                residual: self.c.amax(),
                factorizations: 1,
            });
        }
        self.newton_without_q(mechanism, settings, t, x, qr)
    }

    /// Simplified Newton on positions with the factorisation `frozen` (see
    /// [`simplified_newton`](Self::simplified_newton)); once it converges, the Jacobian at the
    /// converged positions is in [`jacobian`](Self::jacobian) and the number of corrections is
    /// returned. If it does not, `x` is restored and `None` returned.
    pub fn simplified_positions(
        &mut self,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        frozen: &PivotedQr,
    ) -> Option<usize> {
        self.x_start.copy_from(x);
        let limits = NewtonLimits::of(settings);
        let Some(iterations) = self.simplified_newton(mechanism, limits, t, x, frozen) else {
            x.copy_from(&self.x_start);
            return None;
        };
        mechanism.jacobian(x, &mut self.a);
        Some(iterations)
    }

    /// Simplified Newton (Zhou et al. 2023, eqs. 18-19): `x <- x - Q1 R1^{-T} c_piv[0..r]` with
    /// the factors of `frozen` throughout, `r` its rank at the truncation. Returns the number of
    /// corrections once the independent residuals (in `frozen`'s pivot order) are within
    /// tolerance, or `None` if a correction shrinks them by less than
    /// `SIMPLIFIED_NEWTON_CONTRACTION` or they are not within tolerance after
    /// `SIMPLIFIED_NEWTON_MAX_ITERATIONS` corrections.
    fn simplified_newton(
        &mut self,
        mechanism: &Mechanism,
        limits: NewtonLimits,
        t: f64,
        x: &mut DVector<f64>,
        frozen: &PivotedQr,
    ) -> Option<usize> {
        let r = frozen.rank(limits.truncation);
        let mut previous = f64::INFINITY;
        for iterations in 0..=SIMPLIFIED_NEWTON_MAX_ITERATIONS {
            mechanism.residual(t, x, &mut self.c);
            frozen.to_pivot_order(&self.c, &mut self.c_piv);
            let independent = self.c_piv.rows(0, r).amax();
            if !independent.is_finite() {
                return None;
            }
            if independent <= limits.tolerance {
                return Some(iterations);
            }
            if independent > SIMPLIFIED_NEWTON_CONTRACTION * previous {
                return None;
            }
            previous = independent;
            frozen.normal_solve_implicit(r, self.c_piv.as_slice(), &mut self.y, &mut self.dx);
            *x -= &self.dx;
        }
        None
    }

    /// Newton on positions with the running settings (truncation, tolerance, iterations),
    /// leaving `qr` factorised at the final positions without `Q`; a failure names the joint
    /// of the worst row at time `t`.
    fn newton_without_q(
        &mut self,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        self.newton_iterations(mechanism, NewtonLimits::of(settings), t, x, qr)
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
        let outcome = self.newton_iterations(mechanism, limits, t, x, qr);
        qr.form_q();
        outcome
    }

    /// [`project_positions`](Self::project_positions) without forming `Q` at the end (only
    /// a failure forms it).
    fn newton_iterations(
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
            if limits.full_residual
                && independent <= limits.tolerance
                && self.c.amax() > limits.tolerance
            {
                let extra = self.correct_truncated_normals(mechanism, limits, t, x, qr);
                iterations += extra;
                if extra > 0 {
                    continue;
                }
            }
            if independent <= limits.tolerance {
                let refactorised = self.factorize_all_rows(mechanism, x, qr);
                return Ok(ProjectionOutcome {
                    iterations,
                    independent_residual: independent,
                    residual: self.c.amax(),
                    factorizations: iterations + 1 + usize::from(refactorised),
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

    /// Newton's corrections along the normals its truncation left out, for a residual that
    /// built up along them: the mechanism kept a velocity component along a nearly vanishing
    /// normal for many steps (a push at a singular configuration, where the dynamics see the
    /// enlarged tangent space), and the constraints' curvature turned it into a residual that
    /// the truncated Newton never sees. With `x` converged on the kept normals (`qr` factorised
    /// there, `self.c` its residuals), corrects along every normal above
    /// `FULL_RESIDUAL_TRUNCATION` while the full residual exceeds the tolerance, and keeps the
    /// result only if it brings the full residual within tolerance by a move of at most
    /// `FULL_RESIDUAL_MAX_MOVE` (relative to the positions' scale): a larger one would leave
    /// along a nearly free direction, onto another branch, which the truncation is there to
    /// prevent. Returns the corrections kept (Newton's loop then evaluates `x` again), or 0
    /// with `x`, `self.c` and `qr` as they were.
    fn correct_truncated_normals(
        &mut self,
        mechanism: &Mechanism,
        limits: NewtonLimits,
        t: f64,
        x: &mut DVector<f64>,
        qr: &mut PivotedQr,
    ) -> usize {
        self.x_start.copy_from(x);
        let max_move = FULL_RESIDUAL_MAX_MOVE * mechanism.residual_scale(x).max(1.0);
        let mut iterations = 0;
        let kept = loop {
            if iterations == limits.max_iterations {
                break false;
            }
            let r = qr.rank(FULL_RESIDUAL_TRUNCATION);
            qr.to_pivot_order(&self.c, &mut self.c_piv);
            qr.normal_solve_implicit(r, self.c_piv.as_slice(), &mut self.y, &mut self.dx);
            *x -= &self.dx;
            iterations += 1;
            mechanism.residual(t, x, &mut self.c);
            let moved = (&*x - &self.x_start).amax();
            if moved.is_nan() || moved > max_move {
                break false;
            }
            if self.c.amax() <= limits.tolerance {
                break true;
            }
            mechanism.jacobian(x, &mut self.a);
            mechanism.clear_velocity_rows(&mut self.a);
            qr.factorize_without_q(&self.a);
        };
        if kept {
            return iterations;
        }
        // Back to where Newton converged, with its residuals and factorisation.
        x.copy_from(&self.x_start);
        mechanism.residual(t, x, &mut self.c);
        mechanism.jacobian(x, &mut self.a);
        mechanism.clear_velocity_rows(&mut self.a);
        qr.factorize_without_q(&self.a);
        0
    }

    /// Refactorises with every row (without `Q`; the full Jacobian in `self.a`) when Newton
    /// left velocity-level rows out; returns whether it refactorised.
    fn factorize_all_rows(
        &mut self,
        mechanism: &Mechanism,
        x: &DVector<f64>,
        qr: &mut PivotedQr,
    ) -> bool {
        if mechanism.has_velocity_rows() {
            mechanism.jacobian(x, &mut self.a);
            qr.factorize_without_q(&self.a);
            true
        } else {
            false
        }
    }

    /// `xd <- T T^T xd + Q1 R1^{-T} b_piv`, the same as `xd - Q1 Q1^T xd + ...`, with `Q1` the
    /// first `rank` columns of `Q`, `T` the others and `b` the velocity right-hand side at `t`
    /// (the last term only for drivers). Reads only columns `rank..n` of `Q`
    /// ([`PivotedQr::q_columns`]) and the reflectors.
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
        let tangent = qr.q_columns(rank);
        let dof = tangent.ncols();
        let mut coefficients = self.dx.rows_mut(0, dof);
        coefficients.gemv_tr(1.0, &tangent, xd, 0.0);
        xd.gemv(1.0, &tangent, &self.dx.rows(0, dof), 0.0);
        if mechanism.is_rheonomic() {
            mechanism.velocity_rhs(t, &mut self.b);
            qr.to_pivot_order(&self.b, &mut self.c_piv);
            qr.normal_solve_implicit(
                rank,
                self.c_piv.as_slice(),
                &mut self.y,
                &mut self.normal_velocity,
            );
            *xd += &self.normal_velocity;
        }
    }
}
