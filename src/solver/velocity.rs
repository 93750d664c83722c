//! The velocity projection of an accepted state: mass-orthogonal onto the tangent space.
//!
//! After Newton has brought the positions onto the constraints, the integrated velocity `v`
//! is replaced by the admissible velocity nearest to it in the kinetic-energy metric:
//! `xd = beta' + T (T^T M T)^-1 T^T M (v - beta')`, with `T` the tangent columns of the
//! factorisation at the projected positions and `beta' = Q1 R1^-T b` the part a driver
//! prescribes (Masarati et al. 2023, eq. 9). This is the impulse an ideal constraint would
//! apply: the velocity removed is `M`-orthogonal to the one kept, so the kinetic energy changes
//! by the removed part's own energy, second order in it. The Euclidean projection
//! `xd = v - Q1 Q1^T v + beta'` changes it at first order when `M` is not a multiple of the
//! identity (bars: mass 1, inertia 1/12), by `-(q^T M v) c` for a removed component `c` along a
//! normal `q`. That was invisible on regular motion, where `c` is a rounding error, but not
//! where a normal turns within a step: A02 left at its first flat pose with the first loop
//! flat, crossing the second loop's flat poses, lost energy at every crossing; mass-orthogonal,
//! it keeps it within the bound `cargo test --test solver on_a_branch_that_stays_singular`
//! asserts (the run before and after: `docs/measurements.md`, *Alternatives measured*).
//!
//! The Runge-Kutta stages keep the Euclidean projection of
//! [`Projector::project_stage`](super::projection::Projector::project_stage), which leaves
//! the components along vanishing normals in place.

use nalgebra::{DMatrix, DVector};

use super::error::SolverError;
use super::projection::{ProjectionOutcome, Projector};
use super::settings::Settings;
use crate::linalg::PivotedQr;
use crate::linalg::cholesky::cholesky_solve_leading;
use crate::model::{MassMatrix, Mechanism};

/// Buffers of the mass-orthogonal projection.
#[derive(Clone, Debug)]
pub(crate) struct VelocityProjection {
    mass: MassMatrix,
    given: DVector<f64>,
    particular: DVector<f64>,
    weighted: DVector<f64>,
    block: DMatrix<f64>,
    reduced: DVector<f64>,
}

impl VelocityProjection {
    pub fn new(mechanism: &Mechanism) -> Self {
        let n = mechanism.n();
        Self {
            mass: mechanism.mass_matrix().clone(),
            given: DVector::zeros(n),
            particular: DVector::zeros(n),
            weighted: DVector::zeros(n),
            block: DMatrix::zeros(n, n),
            reduced: DVector::zeros(n),
        }
    }

    /// Newton on the positions `x` (simplified Newton with the factorisation `frozen` at a
    /// nearby configuration first, when one is given: [`Projector::newton_near`]), then `xd`
    /// projected mass-orthogonally at the rank tolerance; `qr` is left factorised (with `Q`) at
    /// the final positions.
    #[allow(clippy::too_many_arguments)]
    pub fn project(
        &mut self,
        projector: &mut Projector,
        mechanism: &Mechanism,
        settings: &Settings,
        t: f64,
        x: &mut DVector<f64>,
        xd: &mut DVector<f64>,
        frozen: Option<&PivotedQr>,
        qr: &mut PivotedQr,
    ) -> Result<ProjectionOutcome, SolverError> {
        let outcome = projector.newton_near(mechanism, settings, t, x, frozen, qr)?;
        qr.form_q();
        let rank = qr.rank(settings.rank_tolerance);
        self.given.copy_from(xd);
        projector.project_velocities(mechanism, t, qr, rank, xd);
        self.reweight(x, qr, rank, xd);
        Ok(outcome)
    }

    /// From the Euclidean projection `xd = beta' + T T^T v` of `self.given = v` to the
    /// mass-orthogonal one; leaves `xd` as it is if `T^T M T` is not positive definite.
    fn reweight(&mut self, x: &DVector<f64>, qr: &PivotedQr, rank: usize, xd: &mut DVector<f64>) {
        let n = xd.len();
        let dof = n - rank;
        if dof == 0 {
            return;
        }
        let q = qr.q();
        let tangent = q.columns(rank, dof);
        let mut coefficients = self.reduced.rows_mut(0, dof);
        coefficients.gemv_tr(1.0, &tangent, xd, 0.0);
        self.particular.copy_from(xd);
        self.particular
            .gemv(-1.0, &tangent, &self.reduced.rows(0, dof), 1.0);
        // weighted = M (v - beta')
        self.mass.update(x);
        self.given -= &self.particular;
        self.weighted.fill(0.0);
        self.mass.subtract_product(&self.given, &mut self.weighted);
        self.weighted.neg_mut();
        let diagonal = self.mass.diagonal();
        for i in 0..dof {
            for j in 0..=i {
                let mut s = 0.0;
                for k in 0..n {
                    s += tangent[(k, i)] * diagonal[k] * tangent[(k, j)];
                }
                self.block[(i, j)] = s;
                self.block[(j, i)] = s;
            }
            self.reduced[i] = tangent.column(i).dot(&self.weighted);
        }
        self.mass.add_block_projection(&tangent, &mut self.block);
        let reduced = &mut self.reduced.as_mut_slice()[..dof];
        if cholesky_solve_leading(&mut self.block, dof, reduced).is_err() {
            return;
        }
        xd.copy_from(&self.particular);
        xd.gemv(1.0, &tangent, &self.reduced.rows(0, dof), 1.0);
    }
}
