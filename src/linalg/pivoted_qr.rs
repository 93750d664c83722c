//! Householder QR with column-norm pivoting (Businger and Golub 1965) of the transposed
//! constraint Jacobian, `A^T P = Q R`, with the full orthogonal `Q` formed explicitly.
//!
//! This module owns [`PivotedQr`]: its workspace is sized once in [`PivotedQr::new`] and every
//! compute method runs without heap allocation. The factorisation is deterministic: the same
//! input gives bit-identical `Q`, `R` and permutation.
//!
//! # What the solver reads from it
//!
//! With `A` the `m x n` Jacobian and `r` the number of diagonal entries of `R` above a relative
//! tolerance ([`PivotedQr::rank`]), `Q = [Q1 T]`: the first `r` columns span the independent
//! constraint normals, the last `n - r` the tangent space (the *traditional* basis). `P`
//! permutes the constraints, so redundant rows of `A` end up behind the independent ones and
//! `R1` (the leading `r x r` block) stays invertible. Every Newton iterate (of the projection
//! after a step and of each Runge-Kutta stage) and every sample of the singularity indicator is
//! one factorisation; the dynamics reuse the one at their state.
//!
//! Column-norm pivoting takes at each step the column of `A^T` with the largest norm below the
//! rows already reduced, so `|R[0, 0]| >= |R[1, 1]| >= ...`. That ordering is what the solver
//! relies on: a relative tolerance on the diagonal is a numerical rank, and
//! `rho = |R[r_g-1, r_g-1]| / |R[0, 0]|` (`r_g` the generic rank) measures how close the
//! mechanism is to losing a rank.
//!
//! # Why not nalgebra's `ColPivQR`
//!
//! - It pivots on the column holding the largest *entry* of the trailing block, not the
//!   largest column norm, so its `R` diagonal is not ordered: on A02 it rises somewhere along
//!   the diagonal at every state sampled along the default run (by up to 1.43 times the entry
//!   before), and neither a rank tolerance nor `rho` could be read from it.
//! - It returns the thin `Q` (`n x min(n, m)`): for A02 (`n` 15, `m` 14) that leaves out the
//!   one tangent column.
//! - It allocates its factors on every call; this kernel runs in its workspace, as the solver's
//!   step must: after warm-up a step allocates nothing (`tests/alloc`).
//!
//! # Round-off floor
//!
//! The factorisation stops when the largest trailing column norm falls to [`ROUND_OFF_FLOOR`]
//! (1e-13) of the first pivot's, and sets the rest of `R` to zero. For a redundant mechanism
//! what is left there is rounding noise (below 1.5e-15 relative on the shipped redundant scenes
//! over 2000 steps); reflecting it would make the trailing columns of `Q`, its tangent basis, a
//! function of that noise (`tangent_basis_ignores_round_off_of_redundant_rows` in this
//! module's tests). With the floor, the redundant pendulum's traditional basis flips sign 8
//! times in 10 s, as the planar pendulum's does, because its tangent column is fixed by the
//! first reflector alone (Masarati et al. 2023, eq. 43, with `s2` tied to `s1`); reflecting
//! the noise flipped it 4580 times. Rank tolerances below the floor are rejected by
//! [`Settings::validate`](crate::solver::Settings::validate).
//!
//! # Cost
//!
//! The kernel works on contiguous columns of the column-major storage, applies each reflector
//! to two trailing columns per pass (two independent sums hide each other's latency; each
//! column's arithmetic is the same as alone), updates the trailing norms in the same pass
//! (recomputed, not downdated, so there is no cancellation), and forms `Q` only on request
//! ([`PivotedQr::factorize_without_q`]): a Newton iterate that is not the last and a sample of
//! `rho` need only `R` and the reflectors.
//!
//! A Runge-Kutta stage in the tangent space needs only the tangent columns of `Q` (its
//! velocity projection and its accelerations): [`PivotedQr::form_q_columns`] forms columns
//! `from..n` alone, bit-identical to those of the full `Q`, for `n - from` reflected unit
//! vectors instead of `n`.
//!
//! A step factorises at its end (with `Q`), in the searches for singular events, and in its
//! stages only next to singular configurations (elsewhere they are taken in the range space,
//! `solver::range_space`). `singulab bench` prints the factorisations per step and the CPU
//! time per simulated second of every shipped scene (docs/measurements.md).

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::kernels::{dot, dot_pair};

/// Workspace and result of the pivoted QR factorization of `A^T` for an `m x n` Jacobian `A`.
///
/// `Q` is `n x n` orthogonal, `R` is `n x m` upper trapezoidal with non-increasing diagonal
/// magnitudes, and `P` is the column permutation of `A^T` (i.e. a permutation of constraints).
#[derive(Clone, Debug)]
pub struct PivotedQr {
    n: usize,
    m: usize,
    /// `A^T P`, overwritten in place by `R` (n x m).
    r: DMatrix<f64>,
    /// Full orthogonal factor (n x n).
    q: DMatrix<f64>,
    /// Householder vector of step j in rows j..n of column j (implicit leading 1 stored), n x k.
    house: DMatrix<f64>,
    /// Householder scalars, len k = min(n, m).
    tau: Vec<f64>,
    /// Trailing column norms of the current step, len m.
    norms: Vec<f64>,
    /// `perm[j]`: the original constraint index in pivot position `j` (length m).
    perm: Vec<usize>,
    /// Columns `q_from..n` of `q` hold those of the current reflectors' product (0: all of
    /// `Q`; above `n`: none).
    q_from: usize,
}

/// 2-norm of `x`, scaled by its largest magnitude to avoid overflow/underflow. Fixed
/// summation order, so the result is deterministic. The slow path of [`column_norm`].
fn scaled_norm(x: &[f64]) -> f64 {
    let scale = x.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        // All zero, or an infinity (the norm is then infinite); NaN propagates through the sum.
        return x.iter().fold(scale, |s, v| s + v.abs());
    }
    let sum: f64 = x.iter().fold(0.0, |s, v| {
        let t = v / scale;
        s + t * t
    });
    scale * sum.sqrt()
}

/// Sums of squares below this (or not finite) may have lost digits to underflow/overflow; the
/// norm is then recomputed with scaling. sqrt of it is about 1e-140, far below any Jacobian
/// column that matters, so the fast path covers every mechanism in practice.
const SAFE_SUM_OF_SQUARES: f64 = 1e-280;

/// 2-norm of a column from its plain sum of squares `sum` (computed by the caller in a fused
/// pass), falling back to the scaled two-pass norm when `sum` may have under- or overflowed.
fn column_norm(sum: f64, x: &[f64]) -> f64 {
    if sum.is_finite() && sum >= SAFE_SUM_OF_SQUARES {
        sum.sqrt()
    } else {
        scaled_norm(x)
    }
}

/// Trailing norms at or below this fraction of the first pivot's norm are round-off: the
/// factorization stops there and sets the rest of `R` to zero. Measured on the shipped
/// redundant scenes over 2000 steps, that noise stays below 1.5e-15; rank tolerances are
/// meaningful only above this floor (the default is 1e-10).
pub const ROUND_OFF_FLOOR: f64 = 1e-13;

/// [`reflect`], returning the sum of squares of the updated `y[1..]` (the column's trailing
/// norm for the next step) from the same pass. Summation order is that of [`dot`].
#[inline]
fn reflect_with_tail_norm(tau: f64, v: &[f64], y: &mut [f64]) -> f64 {
    let tw = tau * dot(v, y);
    y[0] -= tw * v[0];
    let (mut yc, mut vc) = (y[1..].chunks_exact_mut(4), v[1..].chunks_exact(4));
    let mut acc = [0.0; 4];
    for (yb, vb) in (&mut yc).zip(&mut vc) {
        for l in 0..4 {
            yb[l] -= tw * vb[l];
            acc[l] += yb[l] * yb[l];
        }
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (yi, vi) in yc.into_remainder().iter_mut().zip(vc.remainder()) {
        *yi -= tw * vi;
        sum += *yi * *yi;
    }
    sum
}

/// [`reflect_with_tail_norm`] on two columns `y` and `z` in one pass, each with exactly its
/// arithmetic (bit-identical results): the two columns' sums are independent, so each hides
/// the other's latency, and `v` is read once.
#[inline]
fn reflect_pair_with_tail_norms(tau: f64, v: &[f64], y: &mut [f64], z: &mut [f64]) -> (f64, f64) {
    let (vy, vz) = dot_pair(v, y, z);
    let (ty, tz) = (tau * vy, tau * vz);
    y[0] -= ty * v[0];
    z[0] -= tz * v[0];
    let (mut yc, mut zc) = (y[1..].chunks_exact_mut(4), z[1..].chunks_exact_mut(4));
    let mut vc = v[1..].chunks_exact(4);
    let (mut acc_y, mut acc_z) = ([0.0; 4], [0.0; 4]);
    for ((yb, zb), vb) in (&mut yc).zip(&mut zc).zip(&mut vc) {
        for l in 0..4 {
            yb[l] -= ty * vb[l];
            acc_y[l] += yb[l] * yb[l];
            zb[l] -= tz * vb[l];
            acc_z[l] += zb[l] * zb[l];
        }
    }
    let mut sum_y = (acc_y[0] + acc_y[1]) + (acc_y[2] + acc_y[3]);
    let mut sum_z = (acc_z[0] + acc_z[1]) + (acc_z[2] + acc_z[3]);
    let rest = yc.into_remainder().iter_mut().zip(zc.into_remainder());
    for ((yi, zi), vi) in rest.zip(vc.remainder()) {
        *yi -= ty * vi;
        sum_y += *yi * *yi;
        *zi -= tz * vi;
        sum_z += *zi * *zi;
    }
    (sum_y, sum_z)
}

/// [`reflect`] on two columns in one pass, each with exactly its arithmetic.
#[inline]
fn reflect_pair(tau: f64, v: &[f64], y: &mut [f64], z: &mut [f64]) {
    let (vy, vz) = dot_pair(v, y, z);
    let (ty, tz) = (tau * vy, tau * vz);
    for ((yi, zi), vi) in y.iter_mut().zip(z.iter_mut()).zip(v) {
        *yi -= ty * vi;
        *zi -= tz * vi;
    }
}

/// `y <- y - (tau v.y) v`: applies the reflector `I - tau v v^T` to one column.
#[inline]
fn reflect(tau: f64, v: &[f64], y: &mut [f64]) {
    let tw = tau * dot(v, y);
    for (yi, vi) in y.iter_mut().zip(v) {
        *yi -= tw * vi;
    }
}

impl PivotedQr {
    /// Workspace for Jacobians with `m` rows (constraints) and `n` columns (coordinates).
    pub fn new(n: usize, m: usize) -> Self {
        let k = n.min(m);
        Self {
            n,
            m,
            r: DMatrix::zeros(n, m),
            q: DMatrix::identity(n, n),
            house: DMatrix::zeros(n, k),
            tau: vec![0.0; k],
            norms: vec![0.0; m],
            perm: (0..m).collect(),
            q_from: 0,
        }
    }

    /// Copies another factorization of the same shape into this workspace (no allocation,
    /// unlike `clone_from`).
    pub fn copy_from(&mut self, other: &PivotedQr) {
        assert_eq!(
            (self.n, self.m),
            (other.n, other.m),
            "copy_from: shapes differ"
        );
        self.r.copy_from(&other.r);
        self.q.copy_from(&other.q);
        self.house.copy_from(&other.house);
        self.tau.copy_from_slice(&other.tau);
        self.norms.copy_from_slice(&other.norms);
        self.perm.copy_from_slice(&other.perm);
        self.q_from = other.q_from;
    }

    /// Number of coordinates (columns of `A`, rows of `A^T`).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of constraints (rows of `A`, columns of `A^T`).
    pub fn m(&self) -> usize {
        self.m
    }

    /// Number of Householder steps, `min(n, m)`.
    fn steps(&self) -> usize {
        self.n.min(self.m)
    }

    /// Factorize `A^T`, with `a` the `m x n` Jacobian (panics only if the shape differs from
    /// [`new`](Self::new)). No allocation. Also forms the full `Q` (n x n) explicitly by
    /// accumulating the reflectors.
    pub fn factorize_transposed(&mut self, a: &DMatrix<f64>) {
        self.factorize_without_q(a);
        self.form_q();
    }

    /// The factorization of [`factorize_transposed`](Self::factorize_transposed) without
    /// forming `Q`: `R`, the permutation and the reflectors are ready, [`q`](Self::q) is not
    /// until [`form_q`](Self::form_q) is called. A Newton iterate that is not the last needs
    /// only [`normal_solve_implicit`](Self::normal_solve_implicit), and forming `Q` is about
    /// half the work.
    ///
    /// Works on the column-major storage directly: column `c` of `A^T P` is the slice
    /// `c*n..(c+1)*n`, so every inner loop is a contiguous dot product or axpy.
    pub fn factorize_without_q(&mut self, a: &DMatrix<f64>) {
        assert_eq!(
            a.shape(),
            (self.m, self.n),
            "PivotedQr: Jacobian shape differs from the workspace (m x n)"
        );
        self.load_transposed(a);
        self.q_from = usize::MAX;
        if self.n == 0 {
            return;
        }
        let n = self.n;
        for (c, column) in self.r.as_slice().chunks_exact(n).enumerate() {
            self.norms[c] = column_norm(dot(column, column), column);
        }

        let mut prev_diag = f64::INFINITY;
        let mut floor = 0.0;
        for j in 0..self.steps() {
            self.pivot_largest_column(j);
            if j == 0 {
                floor = ROUND_OFF_FLOOR * self.norms[0];
            }
            if self.norms[j] <= floor {
                self.drop_round_off(j);
                break;
            }
            let beta = self.store_reflector(j);
            self.reflect_trailing_columns(j);
            prev_diag = self.finish_r_column(j, beta, prev_diag);
        }
    }

    /// Copies `A^T` into `R` (column `c` of `R` is row `c` of `A`, which is column-major,
    /// m x n) and resets the permutation to the identity.
    fn load_transposed(&mut self, a: &DMatrix<f64>) {
        let (n, m) = (self.n, self.m);
        let a = a.as_slice();
        for (c, column) in self
            .r
            .as_mut_slice()
            .chunks_exact_mut(n.max(1))
            .enumerate()
            .take(m)
        {
            for (i, entry) in column.iter_mut().enumerate() {
                *entry = a[i * m + c];
            }
        }
        for (j, p) in self.perm.iter_mut().enumerate() {
            *p = j;
        }
    }

    /// Businger-Golub pivot of step `j`: swaps into position `j` the column with the largest
    /// trailing norm (rows j..n) among columns j..m, lowest index on ties. The norms are sums
    /// of squares of the current entries, refreshed while the previous reflector was applied
    /// (not downdated, so no cancellation).
    fn pivot_largest_column(&mut self, j: usize) {
        let (n, m) = (self.n, self.m);
        let mut piv = j;
        for c in j + 1..m {
            if self.norms[c] > self.norms[piv] {
                piv = c;
            }
        }
        if piv != j {
            let r = self.r.as_mut_slice();
            for i in 0..n {
                r.swap(j * n + i, piv * n + i);
            }
            self.perm.swap(j, piv);
            self.norms.swap(j, piv);
        }
    }

    /// What is left from step `j` on is round-off (or exactly zero): drop it instead of
    /// reflecting noise, so the trailing columns of Q (the tangent basis of a redundant
    /// mechanism) are a smooth function of A, not of its rounding errors.
    fn drop_round_off(&mut self, j: usize) {
        let n = self.n;
        for column in self.r.as_mut_slice()[j * n..].chunks_exact_mut(n) {
            column[j..].fill(0.0);
        }
        self.tau[j..].fill(0.0);
    }

    /// Stores the Householder reflector of step `j` (its vector in column `j` of `house`, its
    /// scalar in `tau[j]`) and returns `beta`, the new diagonal entry.
    ///
    /// H = I - tau v v^T (v_j = 1) with H x = beta e_j and beta = -sign(x_j) |x|, sign(0) = +1
    /// (dlarfg form, except that dlarfg skips the reflection when x_{j+1..} = 0; here that
    /// case still maps x_j to -x_j (tau = 2) so the sign rule holds uniformly). x = 0 gives
    /// H = I (tau = 0), beta = 0.
    fn store_reflector(&mut self, j: usize) -> f64 {
        let n = self.n;
        let r = self.r.as_slice();
        let norm = self.norms[j];
        let alpha = r[j * n + j];
        let (beta, tau) = if norm == 0.0 {
            (0.0, 0.0)
        } else {
            let beta = if alpha >= 0.0 { -norm } else { norm };
            (beta, (beta - alpha) / beta)
        };
        let v0 = alpha - beta;
        let v = &mut self.house.as_mut_slice()[j * n + j..(j + 1) * n];
        v[0] = 1.0;
        for (vi, x) in v[1..].iter_mut().zip(&r[j * n + j + 1..(j + 1) * n]) {
            *vi = if tau == 0.0 { 0.0 } else { x / v0 };
        }
        self.tau[j] = tau;
        beta
    }

    /// Applies the reflector of step `j` to the trailing columns j+1..m (rows j..n), and
    /// refreshes their trailing norms over rows j+1..n for the next pivot choice.
    fn reflect_trailing_columns(&mut self, j: usize) {
        let n = self.n;
        let tau = self.tau[j];
        let v = &self.house.as_slice()[j * n + j..(j + 1) * n];
        let trailing = &mut self.r.as_mut_slice()[(j + 1) * n..];
        if tau == 0.0 {
            for (offset, column) in trailing.chunks_exact_mut(n).enumerate() {
                let sum = dot(&column[j + 1..], &column[j + 1..]);
                self.norms[j + 1 + offset] = column_norm(sum, &column[j + 1..]);
            }
            return;
        }
        let mut pairs = trailing.chunks_exact_mut(2 * n);
        let mut c = j + 1;
        for pair in &mut pairs {
            let (first, second) = pair.split_at_mut(n);
            let (sum_first, sum_second) =
                reflect_pair_with_tail_norms(tau, v, &mut first[j..], &mut second[j..]);
            self.norms[c] = column_norm(sum_first, &first[j + 1..]);
            self.norms[c + 1] = column_norm(sum_second, &second[j + 1..]);
            c += 2;
        }
        let last = pairs.into_remainder();
        if !last.is_empty() {
            let sum = reflect_with_tail_norm(tau, v, &mut last[j..]);
            self.norms[c] = column_norm(sum, &last[j + 1..]);
        }
    }

    /// Column `j` of R: `beta` on the diagonal, exact zeros below; returns the diagonal
    /// magnitude, the next step's `prev_diag`.
    ///
    /// In exact arithmetic the trailing norms never grow from one step to the next, so |R_jj|
    /// is non-increasing; rounding can break that by a few ulps on near-ties (e.g. orthogonal
    /// columns of equal norm), so clamp to the previous magnitude. The change is at rounding
    /// level relative to |R_jj| and keeps the ordering guarantee exact.
    fn finish_r_column(&mut self, j: usize, beta: f64, prev_diag: f64) -> f64 {
        let n = self.n;
        let beta = if beta.abs() > prev_diag {
            prev_diag.copysign(beta)
        } else {
            beta
        };
        let column = &mut self.r.as_mut_slice()[j * n..(j + 1) * n];
        column[j] = beta;
        column[j + 1..].fill(0.0);
        beta.abs()
    }

    /// Forms the full `Q` from the reflectors of the last factorization (idempotent).
    pub fn form_q(&mut self) {
        self.form_q_columns(0);
    }

    /// Forms columns `from..n` of `Q` only (idempotent), for [`q_columns`](Self::q_columns):
    /// the tangent columns of a Runge-Kutta stage cost `n - from` reflected unit vectors
    /// instead of all `n`. The columns are bit-identical to those of [`form_q`](Self::form_q).
    pub fn form_q_columns(&mut self, from: usize) {
        if self.q_from <= from {
            return;
        }
        let (n, k) = (self.n, self.steps());
        let from = from.min(n);
        self.q_from = from;
        let house = self.house.as_slice();
        // Q = H_0 H_1 ... H_{k-1}, accumulated backwards from the identity. When H_j is applied,
        // rows/columns j..n of the partial product are the only ones that differ from I, so a
        // column c is touched by H_j only for j <= c: columns from..n never read the others.
        let q = self.q.as_mut_slice();
        for (c, column) in q[from * n..].chunks_exact_mut(n.max(1)).enumerate() {
            column.fill(0.0);
            column[from + c] = 1.0;
        }
        for j in (0..k).rev() {
            let tau = self.tau[j];
            if tau == 0.0 {
                continue;
            }
            let v = &house[j * n + j..(j + 1) * n];
            let mut pairs = q[j.max(from) * n..].chunks_exact_mut(2 * n);
            for pair in &mut pairs {
                let (first, second) = pair.split_at_mut(n);
                reflect_pair(tau, v, &mut first[j..], &mut second[j..]);
            }
            let last = pairs.into_remainder();
            if !last.is_empty() {
                reflect(tau, v, &mut last[j..]);
            }
        }
    }

    /// Full orthogonal factor, n x n. Columns `0..r` span the constraint normals, `r..n` the
    /// tangent space (r = numerical rank).
    ///
    /// Panics if the last factorization was [`factorize_without_q`](Self::factorize_without_q)
    /// and [`form_q`](Self::form_q) has not been called since.
    pub fn q(&self) -> &DMatrix<f64> {
        assert!(
            self.q_from == 0,
            "PivotedQr::q: Q not formed since the last factorization"
        );
        &self.q
    }

    /// Columns `from..n` of `Q` (n x (n - from)): the tangent columns when `from` is the rank.
    ///
    /// Panics unless [`form_q`](Self::form_q) or [`form_q_columns`](Self::form_q_columns) with
    /// at most `from` was called since the last factorization.
    pub fn q_columns(&self, from: usize) -> DMatrixView<'_, f64> {
        assert!(
            self.q_from <= from && from <= self.n,
            "PivotedQr::q_columns: columns {from}.. of Q not formed since the last factorization"
        );
        self.q.columns(from, self.n - from)
    }

    /// R as an n x m matrix (exact zeros below the diagonal).
    pub fn r(&self) -> &DMatrix<f64> {
        &self.r
    }

    /// |R_ii| for i < min(n, m), 0 for i >= min(n, m).
    pub fn r_diag_abs(&self, i: usize) -> f64 {
        if i < self.steps() {
            self.r[(i, i)].abs()
        } else {
            0.0
        }
    }

    /// `perm[j]` = index of the original constraint (row of `A`, column of `A^T`) in pivot
    /// position j; length m.
    pub fn permutation(&self) -> &[usize] {
        &self.perm
    }

    /// Numerical rank: number of i < min(n, m) with |R_ii| > rel_tol * |R_00| (0 if R_00 == 0).
    pub fn rank(&self, rel_tol: f64) -> usize {
        let r0 = self.r_diag_abs(0);
        if r0 == 0.0 {
            return 0;
        }
        let tol = rel_tol * r0;
        (0..self.steps())
            .filter(|&i| self.r_diag_abs(i) > tol)
            .count()
    }

    /// For the leading r x r block `R1 = R[0..r, 0..r]` (r <= rank), solve `R1^T y =
    /// rhs_piv[0..r]` by forward substitution (`rhs_piv` already in pivot order, len >= r),
    /// storing y in `y[0..r]`, then write `out = Q[:, 0..r] * y` (length n). No allocation.
    ///
    /// With `A^T P = Q R`, `x = Q[:, 0..r] y` satisfies the first r pivoted equations of
    /// `(P^T A) x = R^T Q^T x = rhs_piv` exactly and is orthogonal to the tangent space, so for a
    /// consistent system it is the minimum-norm solution of `A x = b`.
    pub fn normal_solve(&self, r: usize, rhs_piv: &[f64], y: &mut [f64], out: &mut DVector<f64>) {
        self.solve_r1_transposed(r, rhs_piv, y, out);
        let q = self.q();
        for row in 0..self.n {
            let mut s = 0.0;
            for (i, yi) in y.iter().enumerate().take(r) {
                s += q[(row, i)] * yi;
            }
            out[row] = s;
        }
    }

    /// [`normal_solve`](Self::normal_solve) without the explicit `Q`: `out = H_0 ... H_{k-1}
    /// [y; 0]`, applying the reflectors to the padded vector (works after
    /// [`factorize_without_q`](Self::factorize_without_q)). Same result up to rounding.
    pub fn normal_solve_implicit(
        &self,
        r: usize,
        rhs_piv: &[f64],
        y: &mut [f64],
        out: &mut DVector<f64>,
    ) {
        self.solve_r1_transposed(r, rhs_piv, y, out);
        let n = self.n;
        let out = out.as_mut_slice();
        out.fill(0.0);
        out[..r].copy_from_slice(&y[..r]);
        let house = self.house.as_slice();
        for j in (0..self.steps()).rev() {
            let tau = self.tau[j];
            if tau != 0.0 {
                reflect(tau, &house[j * n + j..(j + 1) * n], &mut out[j..]);
            }
        }
    }

    /// Forward substitution `R1^T y = rhs_piv[0..r]` with `R1 = R[0..r, 0..r]`, after checking
    /// the arguments of the normal solves (`out` is their length-n result).
    fn solve_r1_transposed(&self, r: usize, rhs_piv: &[f64], y: &mut [f64], out: &DVector<f64>) {
        assert!(r <= self.steps(), "normal_solve: r exceeds min(n, m)");
        assert!(
            rhs_piv.len() >= r && y.len() >= r,
            "normal_solve: slices shorter than r"
        );
        assert_eq!(out.len(), self.n, "normal_solve: out must have length n");
        // R1^T is lower triangular: sum_{i <= j} R[i, j] y_i = rhs_j.
        for j in 0..r {
            let mut s = rhs_piv[j];
            for (i, yi) in y[..j].iter().enumerate() {
                s -= self.r[(i, j)] * yi;
            }
            y[j] = s / self.r[(j, j)];
        }
    }

    /// Permute a vector of m per-constraint values into pivot order: `out[j] = v[perm[j]]`.
    pub fn to_pivot_order(&self, v: &DVector<f64>, out: &mut DVector<f64>) {
        assert!(
            v.len() == self.m && out.len() == self.m,
            "to_pivot_order: vectors must have length m"
        );
        for (j, &p) in self.perm.iter().enumerate() {
            out[j] = v[p];
        }
    }
}

#[cfg(test)]
mod tests;
