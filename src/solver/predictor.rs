//! Predictor of the continued tangent basis (Masarati et al. 2023, sect. 2.4 and appendices B and
//! C).
//!
//! With `Q_k = [Q1_k  T_k]` (exact normals, continued tangent basis) and the pivoted
//! `J = Q_k^T (dA/dt)^T P` restricted to its first r columns, `X = J R1ns^{-1}` gives
//! `Omega_s = X[r.., :]` (eq. 85) and `Omega_ns = L - L^T`, `L = stril(X[..r, :])` (eqs. 87-88);
//! the tangent-tangent block of `Omega` is zero (the basis turns no more than it must).
//! `Q_pred = Q_k exp(h Omega)` (eq. 22); only the tangent block `exp(h Omega)[:, r..]` is
//! formed, by the Taylor series of its action on `[0; I]`. `Omega` divides by `R1ns`, so near a
//! singular configuration `h |Omega|` grows: above `omega_step_limit` (default 0.5) the
//! zeroth-order predictor `T_pred = T_k` is used instead, and the corrector
//! ([`basis`](super::basis)) alone carries the basis across.
//!
//! Both predictors approximate the same minimal-rotation transport of the basis, so the
//! continued bases they give agree to O(h) where there is a choice (two or more degrees of
//! freedom) and to round-off on a one-degree-of-freedom scene, where the corrector only keeps
//! the sign (`cargo test --test solver predictors_agree`). Neither changes the motion:
//! `predictor_choice_does_not_change_physics` finds positions and velocities bit-identical over
//! 2000 steps of A02 and the 2x2 with either.

use nalgebra::{DMatrix, DMatrixView};

use super::basis::TangentBasis;
use super::settings::Predictor;
use crate::linalg::PivotedQr;

/// Largest number of Taylor terms (reached only when `h |Omega|` is near the limit).
const MAX_TERMS: usize = 40;

/// The series stops at the first term whose entries are all below this: the result has unit
/// columns, and such a term changes nothing that shows. Measured on the 2x3 over 10 s at
/// dt 1e-3: the continued `qd` (every 10th step) bit-identical to stopping at 1e-18.
const LAST_TERM: f64 = 1e-16;

#[derive(Clone, Debug)]
pub(crate) struct BasisPredictor {
    /// The non-zero entries of one row of `adot`, (column, value), at its start (a fixed
    /// length n, so that no step grows it, even in a clone).
    adot_nonzero: Vec<(usize, f64)>,
    omega: DMatrix<f64>,
    x_block: DMatrix<f64>,
    action: DMatrix<f64>,
    term: DMatrix<f64>,
    next_term: DMatrix<f64>,
    prediction: DMatrix<f64>,
    omega_norm: f64,
    /// Rank split of the prepared `Omega` (`r = n - k`) and tangent dimension k.
    r: usize,
    k: usize,
}

impl BasisPredictor {
    pub fn new(n: usize, m: usize) -> Self {
        Self {
            adot_nonzero: vec![(0, 0.0); n],
            omega: DMatrix::zeros(n, n),
            x_block: DMatrix::zeros(n, n.min(m).max(1)),
            action: DMatrix::zeros(n, n),
            term: DMatrix::zeros(n, n),
            next_term: DMatrix::zeros(n, n),
            prediction: DMatrix::zeros(n, n),
            omega_norm: 0.0,
            r: 0,
            k: 0,
        }
    }

    /// `|Omega|_F` of the last preparation.
    pub fn omega_norm(&self) -> f64 {
        self.omega_norm
    }

    /// Builds `Omega` at the accepted state `(x, xd)`, where `dA/dt` is `adot`, the
    /// factorisation `qr` and the continued basis `basis` (spanning `Q[:, r..n]`,
    /// r = n - basis.dim()).
    pub fn prepare(&mut self, adot: &DMatrix<f64>, qr: &PivotedQr, basis: &TangentBasis) {
        let n = qr.n();
        let k = basis.dim();
        let r = n - k;
        self.r = r;
        self.k = k;
        self.omega.as_mut_slice().fill(0.0);
        self.omega_norm = 0.0;
        if r == 0 || k == 0 {
            return;
        }
        let q = qr.q();
        let tangent = basis.columns();
        let perm = qr.permutation();
        let rmat = qr.r();
        // J[i, j] = (column i of Q_k) . (row perm[j] of dA/dt), then X = J R1ns^{-1} column by
        // column: X[:, j] = (J[:, j] - sum_{p<j} R1[p, j] X[:, p]) / R1[j, j]. Each row of X
        // solves its own triangular system, and `Omega` reads X[i, j] only below the diagonal
        // (i > j), which needs X[i, p] for p < j only: column j is computed on rows j+1..n.
        // A row of dA/dt has the few entries of the bodies its joint connects, so J is summed
        // over those alone.
        let rows = self.x_block.nrows();
        let x_block = self.x_block.as_mut_slice();
        for j in 0..r {
            let row = perm[j];
            let mut count = 0;
            for l in 0..n {
                let value = adot[(row, l)];
                if value != 0.0 {
                    self.adot_nonzero[count] = (l, value);
                    count += 1;
                }
            }
            let nonzero = &self.adot_nonzero[..count];
            let (done, rest) = x_block.split_at_mut(j * rows);
            let xj = &mut rest[..n];
            let normals = q.as_slice();
            for (i, entry) in xj.iter_mut().enumerate().take(r).skip(j + 1) {
                let column = &normals[i * n..(i + 1) * n];
                *entry = nonzero.iter().map(|&(l, value)| column[l] * value).sum();
            }
            for (c, entry) in xj[r..].iter_mut().enumerate() {
                let column = tangent.column(c);
                *entry = nonzero.iter().map(|&(l, value)| column[l] * value).sum();
            }
            for (p, xp) in done.chunks_exact(rows).enumerate() {
                let coefficient = rmat[(p, j)];
                for (entry, value) in xj[j + 1..].iter_mut().zip(&xp[j + 1..n]) {
                    *entry -= coefficient * value;
                }
            }
            let pivot = rmat[(j, j)];
            for entry in xj[j + 1..].iter_mut() {
                *entry /= pivot;
            }
        }
        for i in 0..r {
            for j in 0..i {
                let l = self.x_block[(i, j)];
                self.omega[(i, j)] = l;
                self.omega[(j, i)] = -l;
            }
        }
        for i in r..n {
            for j in 0..r {
                let s = self.x_block[(i, j)];
                self.omega[(i, j)] = s;
                self.omega[(j, i)] = -s;
            }
        }
        self.omega_norm = self.omega.norm();
    }

    /// Predicted basis for a step of size `h` (n x k view). Returns the predictor actually used.
    pub fn predict(
        &mut self,
        requested: Predictor,
        h: f64,
        omega_step_limit: f64,
        qr: &PivotedQr,
        basis: &TangentBasis,
    ) -> Predictor {
        let tangent = basis.columns();
        let k = basis.dim();
        if requested == Predictor::Zeroth || k != self.k {
            // Zeroth order requested, or Omega not prepared for this basis.
            self.k = k;
            self.prediction.columns_mut(0, k).copy_from(&tangent);
            return Predictor::Zeroth;
        }
        let r = self.r;
        let n = r + k;
        let use_omega = r > 0 && k > 0 && h * self.omega_norm <= omega_step_limit;
        if !use_omega {
            self.prediction.columns_mut(0, k).copy_from(&tangent);
            return Predictor::Zeroth;
        }
        // action = exp(h Omega) [0; I_k] by Taylor series: term_{i+1} = (h / i+1) Omega term_i.
        self.action.columns_mut(0, k).fill(0.0);
        self.term.columns_mut(0, k).fill(0.0);
        for j in 0..k {
            self.action[(r + j, j)] = 1.0;
            self.term[(r + j, j)] = 1.0;
        }
        for i in 1..=MAX_TERMS {
            multiply_columns(
                h / i as f64,
                &self.omega,
                &self.term,
                k,
                &mut self.next_term,
            );
            std::mem::swap(&mut self.term, &mut self.next_term);
            let mut largest: f64 = 0.0;
            for j in 0..k {
                for l in 0..n {
                    let v = self.term[(l, j)];
                    self.action[(l, j)] += v;
                    largest = largest.max(v.abs());
                }
            }
            if largest < LAST_TERM {
                break;
            }
        }
        // T_pred = Q1_k action[..r] + T_k action[r..].
        let q1 = qr.q().columns(0, r);
        let mut prediction = self.prediction.columns_mut(0, k);
        prediction.gemm(1.0, &q1, &self.action.view((0, 0), (r, k)), 0.0);
        prediction.gemm(1.0, &tangent, &self.action.view((r, 0), (k, k)), 1.0);
        Predictor::Omega
    }

    /// The last prediction (n x k).
    pub fn prediction(&self) -> DMatrixView<'_, f64> {
        self.prediction.columns(0, self.k)
    }
}

/// `out[:, ..k] = scale * a * b[:, ..k]` for square `a` (n x n) and `b`, `out` with n rows: a
/// column of the product is a sum of columns of `a`, each a contiguous axpy (nalgebra's `gemm`
/// packs its operands first, which costs more than the product at these sizes).
fn multiply_columns(
    scale: f64,
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    k: usize,
    out: &mut DMatrix<f64>,
) {
    let n = a.nrows();
    let a = a.as_slice();
    for j in 0..k {
        let target = &mut out.as_mut_slice()[j * n..(j + 1) * n];
        target.fill(0.0);
        for (l, column) in a.chunks_exact(n).enumerate() {
            let factor = scale * b[(l, j)];
            if factor != 0.0 {
                for (t, v) in target.iter_mut().zip(column) {
                    *t += factor * v;
                }
            }
        }
    }
}
