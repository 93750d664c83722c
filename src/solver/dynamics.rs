//! Minimal-coordinate-set accelerations (seed 000, eqs. 7-11, with the pivoted QR of eq. 23):
//! `xdd = T qdd + beta''`, `beta'' = Q1 R1ns^{-T} gamma_piv[0..r]`,
//! `(T^T M T) qdd = T^T (f - M beta'')`.
//!
//! The tangent basis used here is always the one of the current factorisation: the physical
//! acceleration does not depend on which orthonormal basis of the tangent space is used, so the
//! displayed basis (traditional or continued) never enters the physics.

use nalgebra::{DMatrix, DVector};

use super::error::SolverError;
use crate::linalg::PivotedQr;
use crate::linalg::cholesky::cholesky_solve_in_place;
use crate::model::{Load, Mechanism};

/// Preallocated buffers for one acceleration evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Evaluator {
    pub a: DMatrix<f64>,
    pub qr: PivotedQr,
    gamma: DVector<f64>,
    gamma_piv: DVector<f64>,
    y: Vec<f64>,
    beta: DVector<f64>,
    force: DVector<f64>,
    rhs_full: DVector<f64>,
    mass_block: DMatrix<f64>,
    rhs: DVector<f64>,
}

impl Evaluator {
    pub fn new(n: usize, m: usize) -> Self {
        Self {
            a: DMatrix::zeros(m, n),
            qr: PivotedQr::new(n, m),
            gamma: DVector::zeros(m),
            gamma_piv: DVector::zeros(m),
            y: vec![0.0; m.max(1)],
            beta: DVector::zeros(n),
            force: DVector::zeros(n),
            rhs_full: DVector::zeros(n),
            mass_block: DMatrix::zeros(n, n),
            rhs: DVector::zeros(n),
        }
    }

    /// Accelerations `xdd` at `(t, x, xd)`, with `self.qr` already holding the factorisation
    /// of `A(x)^T`; returns the rank used (relative tolerance `rank_tolerance` on the `R`
    /// diagonal).
    #[allow(clippy::too_many_arguments)]
    pub fn acceleration(
        &mut self,
        mechanism: &Mechanism,
        extra_loads: &[Load],
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        rank_tolerance: f64,
        normal_truncation: f64,
        xdd: &mut DVector<f64>,
    ) -> Result<usize, SolverError> {
        let n = mechanism.n();
        let rank = self.qr.rank(rank_tolerance);
        let dof = n - rank;

        // beta'' over the normals whose R entry is above the truncation (seed 000, eq. 10).
        let curvature_rank = self.qr.rank(normal_truncation.max(rank_tolerance));
        mechanism.gamma(x, xd, &mut self.gamma);
        self.qr.to_pivot_order(&self.gamma, &mut self.gamma_piv);
        self.qr.normal_solve(
            curvature_rank,
            self.gamma_piv.as_slice(),
            &mut self.y,
            &mut self.beta,
        );

        mechanism.forces(t, extra_loads, &mut self.force);
        let mass = mechanism.mass_diagonal();
        for i in 0..n {
            self.rhs_full[i] = self.force[i] - mass[i] * self.beta[i];
        }

        xdd.copy_from(&self.beta);
        if dof == 0 {
            return Ok(rank);
        }
        let q = self.qr.q();
        let tangent = q.columns(rank, dof);
        // T^T M T with diagonal M, and T^T (f - M beta'').
        for i in 0..dof {
            for j in 0..=i {
                let mut s = 0.0;
                for k in 0..n {
                    s += tangent[(k, i)] * mass[k] * tangent[(k, j)];
                }
                self.mass_block[(i, j)] = s;
                self.mass_block[(j, i)] = s;
            }
            let mut s = 0.0;
            for k in 0..n {
                s += tangent[(k, i)] * self.rhs_full[k];
            }
            self.rhs[i] = s;
        }
        let mut block = self.mass_block.view_mut((0, 0), (dof, dof));
        let mut qdd = self.rhs.rows_mut(0, dof);
        cholesky_solve_in_place(&mut block, &mut qdd).map_err(|e| {
            SolverError::SingularMassBlock {
                t,
                pivot: e.pivot,
                value: e.value,
            }
        })?;
        xdd.gemv(1.0, &tangent, &self.rhs.rows(0, dof), 1.0);
        Ok(rank)
    }
}
