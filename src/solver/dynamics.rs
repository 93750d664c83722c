//! Minimal-coordinate-set accelerations (Masarati et al. 2023, eqs. 7-11, with the pivoted QR of
//! eq. 23): `xdd = T qdd + beta''`, `beta'' = Q1 R1ns^{-T} gamma_piv[0..r]`,
//! `(T^T M T) qdd = T^T (f - M beta'')`.
//!
//! `A^T P = Q R` is the factorisation at the state's positions, `Q = [Q1 T]` with `r` normals
//! (`R` entries above `rank_tolerance`), `gamma = -(dA/dt) xd` the acceleration-level right-hand
//! side in pivot order and `M` the mass matrix at `x` (diagonal for planar bodies and points,
//! with a 4 x 4 block per rigid body's Euler parameters; see `model::mass`). `beta''` is the
//! least-norm acceleration that satisfies the constraints at acceleration level, `T qdd` the
//! tangent part that the reduced equations of motion give.
//!
//! The Runge-Kutta stages of a step far from singular configurations take the same
//! accelerations in the range space instead ([`range_space`](super::range_space)); accepted
//! states, events and bases always come from this form.
//!
//! # One factorisation, two bases
//!
//! The tangent basis used here is always the one of the current factorisation, whatever basis
//! is displayed: eq. 11 is unchanged under `T -> T U` for any orthogonal `U`, so the physical
//! acceleration does not depend on which orthonormal basis of the tangent space is used. Both
//! the traditional and the continued basis are updated every step from that same factorisation
//! at the new positions (`basis`), and the basis option of the app and of `singulab run` only
//! chooses what is shown and the `qd` columns. That this holds numerically, not just by
//! construction, is tested:
//! - `cargo test --test solver accelerations_do_not_depend_on_the_basis`: along every scene's
//!   whole default run (through all its singular configurations), the accelerations recomputed
//!   with the traditional basis, the continued basis, or the factorisation's `T` times a random
//!   orthogonal matrix agree with those the steps use to 1e-12 relative (largest difference
//!   1.7e-15, printed by the test);
//! - `cargo test --test solver cli_basis_option_changes_only_basis_columns`: the physical
//!   columns of `singulab run` are bit-identical under `--basis traditional` and
//!   `--basis continued` on A02 and the 2x3.
//!
//! # The truncated curvature term
//!
//! Next to a singular configuration the last `R` entries of the normals vanish, and with them
//! the matching components of `gamma`; on a consistent state their ratio stays accurate.
//! `beta''` leaves out the normals whose `R` entry is below `normal_truncation` (see
//! `projection` for why, and for the choice of the default). The tests of this module measure
//! what that costs on the exact parallelogram branch of A02 against its closed-form kinematics
//! (`cargo test --lib dynamics`):
//! - without truncation the accelerations match the closed form down to `rho` of a few 1e-8
//!   (asserted below 1e-6 m/s^2);
//! - with the default truncation nothing changes outside the window, and inside it the dropped
//!   part changes the accelerations by 78 `rho` m/s^2 at most (asserted below 100 `rho`): it
//!   vanishes at the singular pose like the distance to it.

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::error::SolverError;
use super::settings::Settings;
use crate::linalg::PivotedQr;
use crate::linalg::cholesky::cholesky_solve_leading;
use crate::model::{Load, MassMatrix, Mechanism};

/// What an evaluation of accelerations needs besides the state: the mechanism, the loads
/// added at run time, and the settings (rank tolerance and normal truncation).
pub(crate) struct Rhs<'a> {
    pub mechanism: &'a Mechanism,
    pub extra_loads: &'a [Load],
    pub settings: &'a Settings,
}

/// Preallocated buffers for one acceleration evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Evaluator {
    pub qr: PivotedQr,
    gamma: DVector<f64>,
    gamma_piv: DVector<f64>,
    y: Vec<f64>,
    beta: DVector<f64>,
    force: DVector<f64>,
    rhs_full: DVector<f64>,
    mass_block: DMatrix<f64>,
    rhs: DVector<f64>,
    /// The mechanism's mass matrix, brought to each evaluation's positions.
    mass: MassMatrix,
}

impl Evaluator {
    pub fn new(mechanism: &Mechanism) -> Self {
        let (n, m) = (mechanism.n(), mechanism.m());
        Self {
            qr: PivotedQr::new(n, m),
            gamma: DVector::zeros(m),
            gamma_piv: DVector::zeros(m),
            y: vec![0.0; m.max(1)],
            beta: DVector::zeros(n),
            force: DVector::zeros(n),
            rhs_full: DVector::zeros(n),
            mass_block: DMatrix::zeros(n, n),
            rhs: DVector::zeros(n),
            mass: mechanism.mass_matrix().clone(),
        }
    }

    /// Accelerations `xdd` at `(t, x, xd)`, with `self.qr` already holding the factorisation
    /// of `A(x)^T` (with at least its tangent columns of `Q` at the rank tolerance formed); returns the rank used (relative tolerance `rank_tolerance` of
    /// `rhs.settings` on the `R` diagonal). `T` is the factorisation's tangent columns, or
    /// `tangent` if given (n x dof, orthonormal columns spanning the same space: for showing
    /// that the basis does not enter the physics).
    pub fn acceleration(
        &mut self,
        rhs: &Rhs,
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        tangent: Option<DMatrixView<f64>>,
        xdd: &mut DVector<f64>,
    ) -> Result<usize, SolverError> {
        let mechanism = rhs.mechanism;
        let n = mechanism.n();
        let rank = self.qr.rank(rhs.settings.rank_tolerance);
        let dof = n - rank;
        self.curvature_term(rhs, t, x, xd);
        mechanism.forces(t, x, xd, rhs.extra_loads, &mut self.force);
        let mass = &mut self.mass;
        mass.update(x);
        self.rhs_full.copy_from(&self.force);
        mass.subtract_product(&self.beta, &mut self.rhs_full);

        xdd.copy_from(&self.beta);
        if dof == 0 {
            return Ok(rank);
        }
        let tangent = match tangent {
            Some(tangent) if tangent.shape() == (n, dof) => tangent,
            Some(_) => {
                return Err(SolverError::TangentBasisShape);
            }
            None => self.qr.q_columns(rank),
        };
        project_onto_tangent(
            &tangent,
            mass.diagonal(),
            &self.rhs_full,
            &mut self.mass_block,
            &mut self.rhs,
        );
        mass.add_block_projection(&tangent, &mut self.mass_block);
        let qdd = &mut self.rhs.as_mut_slice()[..dof];
        cholesky_solve_leading(&mut self.mass_block, dof, qdd).map_err(|e| {
            if let Some(body) = mechanism.non_finite_body(&self.rhs_full) {
                return SolverError::NotFinite {
                    t,
                    what: "forces",
                    body: Some(body),
                };
            }
            SolverError::SingularMassBlock {
                t,
                pivot: e.pivot,
                value: e.value,
                body: most_moved_body(mechanism, &tangent, e.pivot),
            }
        })?;
        xdd.gemv(1.0, &tangent, &self.rhs.rows(0, dof), 1.0);
        Ok(rank)
    }

    /// `beta''` into `self.beta`, over the normals whose `R` entry is above the truncation
    /// (Masarati et al. 2023, eq. 10).
    fn curvature_term(&mut self, rhs: &Rhs, t: f64, x: &DVector<f64>, xd: &DVector<f64>) {
        let settings = rhs.settings;
        let curvature_rank = self
            .qr
            .rank(settings.normal_truncation.max(settings.rank_tolerance));
        rhs.mechanism.gamma(t, x, xd, &mut self.gamma);
        self.qr.to_pivot_order(&self.gamma, &mut self.gamma_piv);
        self.qr.normal_solve_implicit(
            curvature_rank,
            self.gamma_piv.as_slice(),
            &mut self.y,
            &mut self.beta,
        );
    }
}

/// `T^T D T` (with `D` the diagonal part of the mass matrix; the caller adds the rotational
/// blocks) into the leading dof x dof block of `mass_block`, and `T^T (f - M beta'')` into the
/// first dof entries of `rhs`, with `T` = `tangent` (n x dof) and `rhs_full` = `f - M beta''`.
fn project_onto_tangent(
    tangent: &DMatrixView<f64>,
    mass: &DVector<f64>,
    rhs_full: &DVector<f64>,
    mass_block: &mut DMatrix<f64>,
    rhs: &mut DVector<f64>,
) {
    let (n, dof) = tangent.shape();
    for i in 0..dof {
        for j in 0..=i {
            let mut s = 0.0;
            for k in 0..n {
                s += tangent[(k, i)] * mass[k] * tangent[(k, j)];
            }
            mass_block[(i, j)] = s;
            mass_block[(j, i)] = s;
        }
        let mut s = 0.0;
        for k in 0..n {
            s += tangent[(k, i)] * rhs_full[k];
        }
        rhs[i] = s;
    }
}

/// The body with the largest entry in column `column` of `tangent` (the direction of motion a
/// failed pivot belongs to).
fn most_moved_body(
    mechanism: &Mechanism,
    tangent: &DMatrixView<f64>,
    column: usize,
) -> Option<String> {
    let direction = tangent.column(column.min(tangent.ncols().checked_sub(1)?));
    let index = direction.iamax();
    mechanism.body_of_coordinate(index).map(|b| b.name.clone())
}

#[cfg(test)]
mod tests {
    //! The accelerations on the exact parallelogram branch of the A02 double four-bar, next to
    //! its flat (singular) pose, against the branch's closed-form kinematics: every crank at
    //! angle `theta` with `theta'' = -3.5 g cos(theta) / 3` (the one-degree-of-freedom reduction,
    //! `I = 3`, `V = 3.5 g sin(theta)`), couplers translating with the crank tips.

    use super::*;

    const G: f64 = 9.81;
    /// Crank rate at the flat pose of the A02 scene (energy 35.835 J = 3/2 omega^2).
    const OMEGA: f64 = 4.887;

    /// State and exact accelerations at crank angle `theta` (bodies in the scene's order:
    /// crank1, coupler1, crank2, coupler2, crank3; cranks pivoted at x = 0, 1, 2).
    fn branch_state(theta: f64, n: usize) -> [DVector<f64>; 3] {
        let alpha = -3.5 * G * theta.cos() / 3.0;
        let (s, c) = theta.sin_cos();
        let (w, w2) = (OMEGA, OMEGA * OMEGA);
        let [mut x, mut xd, mut xdd] = [DVector::zeros(n), DVector::zeros(n), DVector::zeros(n)];
        // A point at distance d along a crank: position d (c, s), acceleration
        // d (-s alpha - c w^2, c alpha - s w^2).
        for (body, pivot) in [(0, 0.0), (2, 1.0), (4, 2.0)] {
            let i = 3 * body;
            x.rows_mut(i, 3)
                .copy_from_slice(&[pivot + 0.5 * c, 0.5 * s, theta]);
            xd.rows_mut(i, 3)
                .copy_from_slice(&[-0.5 * s * w, 0.5 * c * w, w]);
            xdd.rows_mut(i, 3).copy_from_slice(&[
                -0.5 * (s * alpha + c * w2),
                0.5 * (c * alpha - s * w2),
                alpha,
            ]);
        }
        for (body, left) in [(1, 0.0), (3, 1.0)] {
            let i = 3 * body;
            x.rows_mut(i, 3).copy_from_slice(&[left + c + 0.5, s, 0.0]);
            xd.rows_mut(i, 3).copy_from_slice(&[-s * w, c * w, 0.0]);
            xdd.rows_mut(i, 3)
                .copy_from_slice(&[-(s * alpha + c * w2), c * alpha - s * w2, 0.0]);
        }
        [x, xd, xdd]
    }

    /// `(rho, |xdd - exact|_inf)` at crank angle `theta` with the given normal truncation.
    fn branch_error(theta: f64, normal_truncation: f64) -> (f64, f64) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join("double_four_bar.ron");
        let scene = crate::scene::load_scene(&path).expect("shipped scene");
        let mechanism = &scene.mechanism;
        let n = mechanism.n();
        let [x, xd, exact] = branch_state(theta, n);
        let mut evaluator = Evaluator::new(mechanism);
        let mut a = DMatrix::zeros(mechanism.m(), n);
        mechanism.jacobian(&x, &mut a);
        evaluator.qr.factorize_transposed(&a);
        let rho = evaluator.qr.r_diag_abs(13) / evaluator.qr.r_diag_abs(0);
        let mut xdd = DVector::zeros(n);
        let settings = Settings {
            normal_truncation,
            ..Settings::default()
        };
        let rhs = Rhs {
            mechanism,
            extra_loads: &[],
            settings: &settings,
        };
        let rank = evaluator
            .acceleration(&rhs, 0.0, &x, &xd, None, &mut xdd)
            .expect("regular mass block");
        assert_eq!(
            rank, 14,
            "theta {theta:e}: the dynamics must see the generic rank"
        );
        (rho, (xdd - exact).amax())
    }

    #[test]
    fn untruncated_accelerations_follow_the_branch_up_to_the_flat_pose() {
        // Consistent state, no truncation: gamma_s and R_ss vanish together and their ratio
        // stays accurate (measured 1.4e-8 m/s^2 at theta = 1e-7 rad, rho 3.7e-8).
        let floor = Settings::default().rank_tolerance;
        for k in 1..=7 {
            let theta = 10f64.powi(-k);
            let (rho, error) = branch_error(theta, floor);
            assert!(
                error < 1e-6,
                "theta {theta:e} (rho {rho:e}): error {error:e} m/s^2"
            );
        }
    }

    #[test]
    fn the_truncated_curvature_term_costs_at_most_a_multiple_of_rho() {
        // Outside the truncation window nothing is dropped; inside it, the dropped part of
        // beta'' vanishes at the singular pose like the distance to it, so the error shrinks
        // with rho (measured: 78 rho) and never exceeds ~1e-4 of the 24 m/s^2 accelerations.
        let truncation = Settings::default().normal_truncation;
        for k in 1..=7 {
            let theta = 10f64.powi(-k);
            let (rho, error) = branch_error(theta, truncation);
            if rho > truncation {
                assert!(
                    error < 1e-9,
                    "theta {theta:e} (rho {rho:e}): error {error:e}"
                );
            } else {
                assert!(
                    error < 100.0 * rho && error < 1e-2,
                    "theta {theta:e} (rho {rho:e}): error {error:e}"
                );
            }
        }
    }
}
