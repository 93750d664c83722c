//! The two tangent bases shown to the user, tracked every step from the same factorisation:
//! *traditional* (the columns `Q[:, r..n]` the QR returns) and *continued* (Masarati et al. 2023,
//! sect. 2.4 and appendix A: predictor, then the polar / orthogonal-Procrustes corrector).
//! Neither enters the physics ([`dynamics`](super::dynamics)); they give the generalized
//! velocities `qd = T^T xd` that are plotted and written, and the admissible motions shown.
//!
//! # Traditional
//!
//! The QR's own tangent columns flip sign whenever the sign of a Householder reflection
//! (which follows the sign of its column's leading entry) or the pivot order changes; the
//! stacked scenes flip on most steps because their pivot alternates between equivalent
//! constraints. Over 10 s at dt 1e-3 that is 394 sign flips on A02 and 5172 on the 2x3
//! (`singulab bench`, "traditional flips"; every scene's count is in [`crate::cli::bench`]).
//!
//! # Continued
//!
//! The predicted basis `T_pred` ([`predictor`](super::predictor): `T_k` carried by
//! `exp(h Omega)`, or `T_k` itself) is corrected to the nearest orthonormal basis of the exact
//! tangent space. With `T_hat` the exact basis (n x K) and `T_pred` the predicted one (n x k),
//! `C = T_hat^T T_pred`:
//! - K >= k: the continued columns are `T_hat C (C^T C)^{-1/2}`, which equals `T_hat W V^T` with
//!   `C = W S V^T` (the polar factor); if K > k (a singular configuration) the new admissible
//!   motions span `T_hat N`, `N` the null space of `C^T`, given a canonical basis:
//!   eigenvectors of the mass-weighted Gram matrix, sorted by decreasing eigenvalue, each with
//!   its largest component positive;
//! - K < k (leaving one): the k old columns best represented in the new space (largest column
//!   norms of `C`) survive, matched by the same polar factor.
//!
//! The continued columns keep their identity through changes of dimension, and the continued basis
//! has no sign flip on any shipped scene (`singulab bench`, "continued flips").
//! `cargo test --test solver continued_basis` checks, for every scene, that it never flips, that
//! its jump per step is O(h) (bounded by the geometry's turning rate, halved with the step), that
//! it spans the traditional basis' space, and at every singular event the counts of continued and
//! new motions (Masarati et al. 2023, sect. 3; Quro 2023, table 5.1).

use nalgebra::{DMatrix, DMatrixView, DVector};

use crate::linalg::sym_eigen::SymmetricEigen;

/// Where a column of the continued basis comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColumnOrigin {
    /// Present since the initial factorisation (or since the last reset).
    Initial,
    /// Appeared when the rank dropped at time `t` (an admissible motion new to the mechanism).
    New { t: f64 },
}

/// Identity of a basis column, kept across steps by the continuation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnLabel {
    pub id: u32,
    pub origin: ColumnOrigin,
}

impl ColumnLabel {
    pub fn is_new(&self) -> bool {
        matches!(self.origin, ColumnOrigin::New { .. })
    }
}

/// What happened to a basis over the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BasisStats {
    /// `|T_{k+1} - T_k|_F` over the columns that exist at both steps.
    pub jump: f64,
    /// Columns with `T_{k+1}[:, j] . T_k[:, j] < 0`.
    pub sign_flips: usize,
    /// The number of columns changed.
    pub dimension_changed: bool,
    /// The continuation could not relate the new space to the old one and restarted from the
    /// QR's columns (never expected with a sensible step size; reported, never hidden).
    pub reset: bool,
}

/// A tangent basis `T` (n x dim) with its column labels, generalized velocities `qd = T^T xd`
/// and generalized coordinates `q` (integrated from `qd` with the trapezoidal rule).
#[derive(Clone, Debug, PartialEq)]
pub struct TangentBasis {
    dim: usize,
    data: DMatrix<f64>,
    labels: Vec<ColumnLabel>,
    q: DVector<f64>,
    qd: DVector<f64>,
    next_id: u32,
    stats: BasisStats,
    total_flips: usize,
}

impl TangentBasis {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            dim: 0,
            data: DMatrix::zeros(n, n),
            labels: Vec::with_capacity(n),
            q: DVector::zeros(n),
            qd: DVector::zeros(n),
            next_id: 0,
            stats: BasisStats::default(),
            total_flips: 0,
        }
    }

    /// Number of columns.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The basis, n x dim.
    pub fn columns(&self) -> DMatrixView<'_, f64> {
        self.data.columns(0, self.dim)
    }

    pub fn labels(&self) -> &[ColumnLabel] {
        &self.labels
    }

    /// Generalized velocities `T^T xd`, one per column.
    pub fn qd(&self) -> &[f64] {
        &self.qd.as_slice()[..self.dim]
    }

    /// Generalized coordinates integrated from `qd` (a column born at a singularity starts at 0).
    pub fn q(&self) -> &[f64] {
        &self.q.as_slice()[..self.dim]
    }

    /// Statistics of the last update.
    pub fn stats(&self) -> BasisStats {
        self.stats
    }

    /// Sign flips accumulated since the start.
    pub fn total_sign_flips(&self) -> usize {
        self.total_flips
    }

    /// Copies another basis of the same mechanism into this one without allocating (only
    /// the `dim` columns in use: the step copies two bases into its snapshot every time).
    pub(crate) fn copy_from(&mut self, other: &TangentBasis) {
        self.dim = other.dim;
        self.data
            .columns_mut(0, other.dim)
            .copy_from(&other.data.columns(0, other.dim));
        self.labels.clear();
        self.labels.extend_from_slice(&other.labels);
        self.q.copy_from(&other.q);
        self.qd.copy_from(&other.qd);
        self.next_id = other.next_id;
        self.stats = other.stats;
        self.total_flips = other.total_flips;
    }

    /// Starts the basis from `t_hat` (fresh labels, `q = 0`).
    pub(crate) fn reset(&mut self, t_hat: &DMatrixView<f64>, xd: &DVector<f64>) {
        let k = t_hat.ncols();
        self.dim = k;
        self.data.columns_mut(0, k).copy_from(t_hat);
        self.labels.clear();
        for _ in 0..k {
            self.labels.push(ColumnLabel {
                id: self.next_id,
                origin: ColumnOrigin::Initial,
            });
            self.next_id += 1;
        }
        self.q.fill(0.0);
        self.update_velocities(xd);
        self.stats = BasisStats::default();
    }

    /// Recomputes `qd = T^T xd`.
    pub(crate) fn update_velocities(&mut self, xd: &DVector<f64>) {
        let k = self.dim;
        let t = self.data.columns(0, k);
        self.qd.rows_mut(0, k).gemv_tr(1.0, &t, xd, 0.0);
    }
}

/// Where the step a basis update follows ended: the tangent space there (`t_hat`, n x K,
/// the QR's columns), the velocities, the step's length and the time reached.
pub(crate) struct StepEnd<'a> {
    pub t_hat: DMatrixView<'a, f64>,
    pub xd: &'a DVector<f64>,
    pub h: f64,
    pub t: f64,
}

/// Scratch space for basis updates (all n x n, used by top-left views).
#[derive(Clone, Debug)]
pub(crate) struct BasisUpdater {
    c: DMatrix<f64>,
    gram: DMatrix<f64>,
    polar: DMatrix<f64>,
    scratch: DMatrix<f64>,
    next: TangentBasis,
    eigen: SymmetricEigen,
    selected: Vec<usize>,
    norms: Vec<f64>,
}

/// Below this smallest eigenvalue of `C^T C` the predicted columns have left the new tangent
/// space and the continuation restarts.
const DEGENERATE_OVERLAP: f64 = 1e-8;

impl BasisUpdater {
    pub fn new(n: usize) -> Self {
        Self {
            c: DMatrix::zeros(n, n),
            gram: DMatrix::zeros(n, n),
            polar: DMatrix::zeros(n, n),
            scratch: DMatrix::zeros(n, n),
            next: TangentBasis::new(n),
            eigen: SymmetricEigen::new(n),
            selected: Vec::with_capacity(n),
            norms: Vec::with_capacity(n),
        }
    }

    /// Traditional update: the basis becomes `end.t_hat` as the QR returned it.
    pub fn update_traditional(&mut self, basis: &mut TangentBasis, end: &StepEnd) {
        let t_hat = &end.t_hat;
        let k_new = t_hat.ncols();
        let next = &mut self.next;
        next.dim = k_new;
        next.data.columns_mut(0, k_new).copy_from(t_hat);
        next.labels.clear();
        for j in 0..k_new {
            next.labels
                .push(basis.labels.get(j).copied().unwrap_or(ColumnLabel {
                    id: j as u32,
                    origin: ColumnOrigin::Initial,
                }));
        }
        self.selected.clear();
        self.selected.extend(0..k_new.min(basis.dim));
        finish_update(basis, next, &self.selected, end.xd, end.h);
    }

    /// Continued update from the predicted basis `t_pred` (n x basis.dim, same column order and
    /// labels as `basis`) to the exact tangent space spanned by `end.t_hat` (n x K). `mass` is
    /// the mass diagonal, which orders new admissible motions.
    pub fn update_continued(
        &mut self,
        basis: &mut TangentBasis,
        t_pred: &DMatrixView<f64>,
        mass: &DVector<f64>,
        end: &StepEnd,
    ) {
        let t_hat = &end.t_hat;
        let k_hat = t_hat.ncols();
        let k_pred = t_pred.ncols();
        self.next.next_id = basis.next_id;
        self.next.labels.clear();
        if k_hat == 0 || k_pred == 0 {
            // Nothing to continue from (or to): start afresh from the QR's columns.
            self.restart(basis, end);
            basis.stats.reset = k_pred > 0;
            return;
        }

        // C = T_hat^T T_pred (K x k).
        self.c
            .view_mut((0, 0), (k_hat, k_pred))
            .gemm_tr(1.0, t_hat, t_pred, 0.0);
        self.select_continuing_columns(k_hat, k_pred);
        let k_cont = self.selected.len();
        if !self.overlap_inverse_sqrt(k_hat, k_cont) {
            self.restart(basis, end);
            basis.stats.reset = true;
            return;
        }
        self.continue_columns(basis, t_hat, k_cont);
        let k_new = k_hat - k_cont;
        if k_new > 0 {
            self.add_new_motions(t_hat, mass, k_cont, end.t);
        }
        self.next.dim = k_hat;
        finish_update(basis, &mut self.next, &self.selected, end.xd, end.h);
    }

    /// The continuation restarts from the QR's columns `end.t_hat`, all with fresh labels.
    fn restart(&mut self, basis: &mut TangentBasis, end: &StepEnd) {
        let k_hat = end.t_hat.ncols();
        let next = &mut self.next;
        next.dim = k_hat;
        next.data.columns_mut(0, k_hat).copy_from(&end.t_hat);
        for _ in 0..k_hat {
            next.labels.push(ColumnLabel {
                id: next.next_id,
                origin: ColumnOrigin::Initial,
            });
            next.next_id += 1;
        }
        self.selected.clear();
        finish_update(basis, next, &self.selected, end.xd, end.h);
    }

    /// Columns of `T_pred` that continue into `selected`: all of them if K >= k, else the K
    /// best represented (largest column norms of `C`), in their old order. Their columns of
    /// `C` are moved to the front.
    fn select_continuing_columns(&mut self, k_hat: usize, k_pred: usize) {
        self.selected.clear();
        if k_hat >= k_pred {
            self.selected.extend(0..k_pred);
            return;
        }
        self.norms.clear();
        for j in 0..k_pred {
            self.norms
                .push(self.c.view((0, j), (k_hat, 1)).norm_squared());
        }
        let mut order: [usize; 64] = [0; 64];
        let count = k_pred.min(64);
        for (j, slot) in order.iter_mut().enumerate().take(count) {
            *slot = j;
        }
        // Largest norms first, ties to the lower index; then keep original order.
        order[..count].sort_by(|&i, &j| {
            self.norms[j]
                .partial_cmp(&self.norms[i])
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(i.cmp(&j))
        });
        order[..k_hat].sort_unstable();
        self.selected.extend_from_slice(&order[..k_hat]);
        for (slot, &j) in self.selected.iter().enumerate() {
            if slot != j {
                let (src, dst) = (j, slot);
                for i in 0..k_hat {
                    self.c[(i, dst)] = self.c[(i, src)];
                }
            }
        }
    }

    /// `(C^T C)^{-1/2}` (k_cont x k_cont, C the K x k_cont overlap of the continuing columns)
    /// into `gram`, through the eigen-decomposition of `C^T C`; false, with nothing computed,
    /// when the predicted columns have left the new tangent space (smallest eigenvalue below
    /// `DEGENERATE_OVERLAP`).
    fn overlap_inverse_sqrt(&mut self, k_hat: usize, k_cont: usize) -> bool {
        let c = self.c.view((0, 0), (k_hat, k_cont));
        self.gram
            .view_mut((0, 0), (k_cont, k_cont))
            .gemm_tr(1.0, &c, &c, 0.0);
        self.eigen
            .compute(&self.gram.view((0, 0), (k_cont, k_cont)));
        if self.eigen.eigenvalue(k_cont - 1) < DEGENERATE_OVERLAP {
            return false;
        }
        let v = self.eigen.eigenvectors();
        // scratch = V diag(lambda^{-1/2}), then gram = scratch V^T = (C^T C)^{-1/2}.
        for j in 0..k_cont {
            let s = 1.0 / self.eigen.eigenvalue(j).sqrt();
            for i in 0..k_cont {
                self.scratch[(i, j)] = v[(i, j)] * s;
            }
        }
        for i in 0..k_cont {
            for j in 0..k_cont {
                let mut s = 0.0;
                for l in 0..k_cont {
                    s += self.scratch[(i, l)] * v[(j, l)];
                }
                self.gram[(i, j)] = s;
            }
        }
        true
    }

    /// The continuing columns of the next basis, `T_hat U` with the polar factor
    /// `U = C (C^T C)^{-1/2}` (K x k_cont, into `polar`), keeping their labels.
    fn continue_columns(&mut self, basis: &TangentBasis, t_hat: &DMatrixView<f64>, k_cont: usize) {
        let k_hat = t_hat.ncols();
        let c = self.c.view((0, 0), (k_hat, k_cont));
        if k_hat == 1 && k_cont == 1 {
            // The polar factor of a 1 x 1 matrix is its sign; c / sqrt(c^2) can miss +-1 by an
            // ulp, which would scale the column, and make it depend on the predictor.
            self.polar[(0, 0)] = c[(0, 0)].signum();
        } else {
            self.polar.view_mut((0, 0), (k_hat, k_cont)).gemm(
                1.0,
                &c,
                &self.gram.view((0, 0), (k_cont, k_cont)),
                0.0,
            );
        }
        self.next.data.columns_mut(0, k_cont).gemm(
            1.0,
            t_hat,
            &self.polar.view((0, 0), (k_hat, k_cont)),
            0.0,
        );
        for &j in &self.selected {
            self.next.labels.push(basis.labels[j]);
        }
    }

    /// New admissible motions after the `k_cont` continuing columns: `T_hat` times the null
    /// space of `C^T`, in canonical form (eigenvectors of the mass-weighted Gram matrix,
    /// largest component positive), labelled as new at time `t`.
    fn add_new_motions(
        &mut self,
        t_hat: &DMatrixView<f64>,
        mass: &DVector<f64>,
        k_cont: usize,
        t: f64,
    ) {
        let (n, k_hat) = t_hat.shape();
        let k_new = k_hat - k_cont;
        let c = self.c.view((0, 0), (k_hat, k_cont));
        // C C^T (K x K): its eigenvectors of (near-)zero eigenvalue span the null space of C^T.
        for i in 0..k_hat {
            for j in 0..=i {
                let mut s = 0.0;
                for l in 0..k_cont {
                    s += c[(i, l)] * c[(j, l)];
                }
                self.gram[(i, j)] = s;
                self.gram[(j, i)] = s;
            }
        }
        self.eigen.compute(&self.gram.view((0, 0), (k_hat, k_hat)));
        self.scratch
            .view_mut((0, 0), (k_hat, k_new))
            .copy_from(&self.eigen.eigenvectors().columns(k_cont, k_new));
        let null_space = self.scratch.view((0, 0), (k_hat, k_new));
        let mut fresh = self.next.data.columns_mut(k_cont, k_new);
        fresh.gemm(1.0, t_hat, &null_space, 0.0);
        // Mass-weighted Gram matrix of the new columns.
        for i in 0..k_new {
            for j in 0..=i {
                let mut s = 0.0;
                for r in 0..n {
                    s += fresh[(r, i)] * mass[r] * fresh[(r, j)];
                }
                self.gram[(i, j)] = s;
                self.gram[(j, i)] = s;
            }
        }
        self.eigen.compute(&self.gram.view((0, 0), (k_new, k_new)));
        let rotation = self.eigen.eigenvectors();
        let mut canonical = self.polar.view_mut((0, 0), (n, k_new));
        canonical.gemm(1.0, &fresh, &rotation, 0.0);
        for j in 0..k_new {
            let mut column = canonical.column_mut(j);
            let largest = column.iamax();
            if column[largest] < 0.0 {
                column.neg_mut();
            }
        }
        fresh.copy_from(&canonical);
        for _ in 0..k_new {
            self.next.labels.push(ColumnLabel {
                id: self.next.next_id,
                origin: ColumnOrigin::New { t },
            });
            self.next.next_id += 1;
        }
    }
}

/// Compares `next` with the old `basis` column by column (`matched[j]` is the old column that
/// `next`'s column j continues), accumulates `q`, then makes `next` the current basis.
fn finish_update(
    basis: &mut TangentBasis,
    next: &mut TangentBasis,
    matched: &[usize],
    xd: &DVector<f64>,
    h: f64,
) {
    let n = basis.data.nrows();
    next.update_velocities(xd);
    let mut jump_sq = 0.0;
    let mut flips = 0;
    next.q.fill(0.0);
    for (j, &old) in matched.iter().enumerate() {
        let mut dot = 0.0;
        for i in 0..n {
            let d = next.data[(i, j)] - basis.data[(i, old)];
            jump_sq += d * d;
            dot += next.data[(i, j)] * basis.data[(i, old)];
        }
        if dot < 0.0 {
            flips += 1;
        }
        next.q[j] = basis.q[old] + 0.5 * h * (basis.qd[old] + next.qd[j]);
    }
    next.stats = BasisStats {
        jump: jump_sq.sqrt(),
        sign_flips: flips,
        dimension_changed: next.dim != basis.dim,
        reset: false,
    };
    next.total_flips = basis.total_flips + flips;
    if next.next_id < basis.next_id {
        next.next_id = basis.next_id;
    }
    std::mem::swap(basis, next);
}

#[cfg(test)]
mod tests {
    //! Changes of dimension of the continued basis on hand-built subspaces of R^5, where the
    //! expected columns follow from the definitions in the module docs.
    use approx::assert_abs_diff_eq;

    use super::*;

    const N: usize = 5;

    fn unit(i: usize) -> DVector<f64> {
        let mut e = DVector::zeros(N);
        e[i] = 1.0;
        e
    }

    fn matrix(columns: &[DVector<f64>]) -> DMatrix<f64> {
        DMatrix::from_columns(columns)
    }

    /// A 3 x 3 orthogonal matrix (a rotation, optionally with a reflection): the QR is free
    /// to return any orthonormal basis of the tangent space.
    fn orthogonal(angle: f64, reflect: bool) -> DMatrix<f64> {
        let (s, c) = angle.sin_cos();
        let rz = DMatrix::from_row_slice(3, 3, &[c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]);
        let (s2, c2) = (0.7 * angle).sin_cos();
        let rx = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.0, c2, -s2, 0.0, s2, c2]);
        let mut r = rz * rx;
        if reflect {
            r.column_mut(2).neg_mut();
        }
        r
    }

    fn basis_from(columns: &DMatrix<f64>, xd: &DVector<f64>) -> TangentBasis {
        let mut basis = TangentBasis::new(N);
        basis.reset(&columns.columns(0, columns.ncols()), xd);
        basis
    }

    /// Growth (a singular configuration): the old column e0 continues unchanged with its
    /// label; the two new columns span what is left, {e1, e3}, in the canonical form: sorted
    /// by decreasing kinetic energy per unit speed (mass 4 on coordinate 3, 1 on coordinate
    /// 1), largest component positive: e3 then e1, whatever basis the QR returned.
    #[test]
    fn growth_keeps_the_old_column_and_orders_the_new_ones_canonically() {
        let mass = DVector::from_vec(vec![1.0, 1.0, 1.0, 4.0, 1.0]);
        let xd = unit(0) * 2.0;
        for (angle, reflect) in [(0.3, false), (2.1, true), (-1.2, false)] {
            let mut basis = basis_from(&matrix(&[unit(0)]), &xd);
            let before_label = basis.labels()[0];
            let space = matrix(&[unit(0), unit(1), unit(3)]);
            let t_hat = &space * orthogonal(angle, reflect);
            let pred = basis.columns().into_owned();
            let mut updater = BasisUpdater::new(N);
            let end = StepEnd {
                t_hat: t_hat.columns(0, 3),
                xd: &xd,
                h: 1e-3,
                t: 0.7,
            };
            updater.update_continued(&mut basis, &pred.columns(0, 1), &mass, &end);
            let columns = basis.columns();
            assert_eq!(basis.dim(), 3);
            assert_abs_diff_eq!(columns.column(0).into_owned(), unit(0), epsilon = 1e-12);
            assert_abs_diff_eq!(columns.column(1).into_owned(), unit(3), epsilon = 1e-12);
            assert_abs_diff_eq!(columns.column(2).into_owned(), unit(1), epsilon = 1e-12);
            let labels = basis.labels();
            assert_eq!(labels[0], before_label);
            assert_eq!(labels[1].origin, ColumnOrigin::New { t: 0.7 });
            assert_eq!(labels[2].origin, ColumnOrigin::New { t: 0.7 });
            assert!(labels[1].id != labels[2].id && labels[1].id > before_label.id);
            assert_eq!(basis.stats().sign_flips, 0);
            assert!(basis.stats().dimension_changed);
            // q of the continued column: 0 + h (2 + 2) / 2.
            assert_abs_diff_eq!(basis.q()[0], 2e-3, epsilon = 1e-15);
        }
    }

    /// Shrinking (leaving a singular configuration): of the old columns e0, e1, e2 the two
    /// best represented in the new space span{(e0 + 0.1 e1) / |.|, e2} continue, in their old
    /// order with their labels and `q`: e0 (squared overlap 1/1.01) and e2 (1); e1 (0.01/1.01)
    /// is dropped. The continued columns are the polar factor's: the new space's own vectors
    /// closest to e0 and e2, which are the two given ones.
    #[test]
    fn shrinking_keeps_the_best_represented_columns_in_order() {
        let mass = DVector::from_element(N, 1.0);
        let xd = unit(2) * 3.0;
        let mut basis = basis_from(&matrix(&[unit(0), unit(1), unit(2)]), &xd);
        basis.q.copy_from_slice(&[0.5, 0.6, 0.7, 0.0, 0.0]);
        let old_labels = basis.labels().to_vec();
        let tilted = (unit(0) + unit(1) * 0.1).normalize();
        let (s, c) = 0.4f64.sin_cos();
        let t_hat = matrix(&[&tilted * c + unit(2) * s, unit(2) * c - &tilted * s]);
        let pred = basis.columns().into_owned();
        let mut updater = BasisUpdater::new(N);
        let end = StepEnd {
            t_hat: t_hat.columns(0, 2),
            xd: &xd,
            h: 1e-3,
            t: 1.0,
        };
        updater.update_continued(&mut basis, &pred.columns(0, 3), &mass, &end);
        assert_eq!(basis.dim(), 2);
        let columns = basis.columns();
        assert_abs_diff_eq!(columns.column(0).into_owned(), tilted, epsilon = 1e-12);
        assert_abs_diff_eq!(columns.column(1).into_owned(), unit(2), epsilon = 1e-12);
        assert_eq!(basis.labels(), &[old_labels[0], old_labels[2]]);
        // q carried from the matching old columns: e0 had qd 0, e2 had qd 3 before and after.
        assert_abs_diff_eq!(basis.q()[0], 0.5, epsilon = 1e-15);
        assert_abs_diff_eq!(basis.q()[1], 0.7 + 3e-3, epsilon = 1e-15);
        assert_eq!(basis.stats().sign_flips, 0);
    }
}
