//! In-place Cholesky factorisation and solves of small symmetric positive-definite systems, in
//! the leading block of a preallocated workspace (no allocation).
//!
//! This module owns [`cholesky_solve_leading`] (factor and solve once), [`factor_leading_block`]
//! and [`solve_factored`] (the factor kept for several solves), and their error
//! [`NotPositiveDefinite`]. The factorisation skips the zero entries of a sparse matrix's
//! columns (`A M^-1 A^T` of a linkage: a joint's rows meet only the rows of the joints at the
//! same bodies).

use nalgebra::DMatrix;

/// A Cholesky pivot `S_jj - sum_p L_jp^2` was `<= 0` or not finite: the matrix is not
/// (numerically) positive definite, or holds NaN/infinite values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NotPositiveDefinite {
    /// Index of the failing pivot.
    pub pivot: usize,
    /// Its value (the would-be `L_jj^2`).
    pub value: f64,
}

impl std::fmt::Display for NotPositiveDefinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "matrix is not positive definite: Cholesky pivot {} is {:e}",
            self.pivot, self.value
        )
    }
}

impl std::error::Error for NotPositiveDefinite {}

/// Solves `S x = b` in place for the symmetric positive-definite leading `k x k` block `S` of
/// `s` (only its lower triangle is read; it is overwritten by the Cholesky factor `L`, the
/// entries above the diagonal are left as they were), `b` (length `k`) by `x`. Returns
/// `Err(NotPositiveDefinite { pivot, value })` if a pivot is `<= 0` or not finite (no panic);
/// `s` is then partially overwritten and `b` untouched. No allocation. For the small dense
/// blocks of the reduced mass matrix; a sparse matrix solved several times goes through
/// [`factor_leading_block`] and [`solve_factored`], which skip the zeros below each column.
pub fn cholesky_solve_leading(
    s: &mut DMatrix<f64>,
    k: usize,
    b: &mut [f64],
) -> Result<(), NotPositiveDefinite> {
    factor(s, k, 0.0, None)?;
    substitute(s, k, None, b);
    Ok(())
}

/// Factorises the leading `k x k` block of `s` (its lower triangle is read) into its Cholesky
/// factor `L`, in place, and where each column of `L` ends into `ends` (length at least `k`:
/// one past its last row that can be non-zero). Fails if a pivot `L_jj^2` is at most
/// `min_pivot` or not finite; `s` is then partially overwritten. The entries above the
/// diagonal are neither read nor written. No allocation.
///
/// Right-looking, column by column: the column-major storage keeps every inner loop
/// contiguous. A column of `L` has no non-zero below the last one of its column of `S` and of
/// the columns that update it (fill stays inside this envelope), so each update runs only down
/// to the end of the column it subtracts, and a zero multiplier skips it. On a linkage's
/// `A M^-1 A^T`, rows in the scene's order, the envelope is tight: on the 2x3, 222 entries of
/// the 406 of the lower triangle, 191 of them non-zero in `L`.
pub fn factor_leading_block(
    s: &mut DMatrix<f64>,
    k: usize,
    min_pivot: f64,
    ends: &mut [usize],
) -> Result<(), NotPositiveDefinite> {
    factor(s, k, min_pivot, Some(ends))
}

/// Solves `L L^T x = b` in place with `L` the leading `k x k` factor left by
/// [`factor_leading_block`] and its column `ends` (`b` of length `k`). No allocation.
pub fn solve_factored(l: &DMatrix<f64>, k: usize, ends: &[usize], b: &mut [f64]) {
    substitute(l, k, Some(ends), b);
}

/// [`factor_leading_block`], with every column ending at `k` when `ends` is `None`.
fn factor(
    s: &mut DMatrix<f64>,
    k: usize,
    min_pivot: f64,
    mut ends: Option<&mut [usize]>,
) -> Result<(), NotPositiveDefinite> {
    let stride = s.nrows();
    assert!(
        k <= stride && k <= s.ncols(),
        "factor_leading_block: block too large"
    );
    let s = s.as_mut_slice();
    if let Some(ends) = ends.as_deref_mut() {
        assert!(ends.len() >= k, "factor_leading_block: ends too short");
        for (j, end) in ends[..k].iter_mut().enumerate() {
            let column = &s[j * stride + j..j * stride + k];
            *end = j
                + 1
                + column[1..]
                    .iter()
                    .rposition(|&v| v != 0.0)
                    .map_or(0, |p| p + 1);
        }
    }
    for j in 0..k {
        let d = s[j * stride + j];
        if !(d > min_pivot && d.is_finite()) {
            return Err(NotPositiveDefinite { pivot: j, value: d });
        }
        let end = ends.as_deref().map_or(k, |ends| ends[j]);
        let ljj = d.sqrt();
        s[j * stride + j] = ljj;
        for v in &mut s[j * stride + j + 1..j * stride + end] {
            *v /= ljj;
        }
        let (head, tail) = s.split_at_mut((j + 1) * stride);
        let column_j = &head[j * stride..j * stride + end];
        for c in j + 1..end {
            let lcj = column_j[c];
            if lcj == 0.0 {
                continue;
            }
            let target = &mut tail[(c - j - 1) * stride + c..(c - j - 1) * stride + end];
            for (t, lij) in target.iter_mut().zip(&column_j[c..end]) {
                *t -= lij * lcj;
            }
            if let Some(ends) = ends.as_deref_mut() {
                ends[c] = ends[c].max(end);
            }
        }
    }
    Ok(())
}

/// Forward and back substitution with the factor `l`, each column read down to its end.
fn substitute(l: &DMatrix<f64>, k: usize, ends: Option<&[usize]>, b: &mut [f64]) {
    let stride = l.nrows();
    assert_eq!(b.len(), k, "solve_factored: right-hand side length");
    let l = l.as_slice();
    let end_of = |j: usize| ends.map_or(k, |ends| ends[j]);
    for j in 0..k {
        let end = end_of(j);
        let column = &l[j * stride..j * stride + end];
        let zj = b[j] / column[j];
        b[j] = zj;
        if zj != 0.0 {
            for (bi, lij) in b[j + 1..end].iter_mut().zip(&column[j + 1..]) {
                *bi -= lij * zj;
            }
        }
    }
    for j in (0..k).rev() {
        let end = end_of(j);
        let column = &l[j * stride..j * stride + end];
        let mut x = b[j];
        for (bi, lij) in b[j + 1..end].iter().zip(&column[j + 1..]) {
            x -= lij * bi;
        }
        b[j] = x / column[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};
    use nalgebra::{DMatrix, DVector};

    use crate::linalg::test_rng::Rng;

    fn solve(
        s: &DMatrix<f64>,
        b: &DVector<f64>,
    ) -> Result<(DMatrix<f64>, DVector<f64>), NotPositiveDefinite> {
        let (mut l, mut x) = (s.clone(), b.clone());
        cholesky_solve_leading(&mut l, s.nrows(), x.as_mut_slice())?;
        Ok((l.lower_triangle(), x))
    }

    #[test]
    fn random_spd_solves() {
        let mut rng = Rng::new(21);
        for k in [1, 2, 3, 6, 12, 30] {
            let bm = DMatrix::from_fn(k, k, |_, _| rng.next());
            let s = bm.transpose() * &bm + DMatrix::identity(k, k);
            let b = DVector::from_fn(k, |_, _| rng.next());
            let (l, x) = solve(&s, &b).expect("SPD");
            assert!(
                abs_diff_eq!(&s * &x, b, epsilon = 1e-12 * s.norm()),
                "S x - b = {:e} (k = {k})",
                (&s * &x - &b).amax()
            );
            // L is lower triangular with a positive diagonal and L L^T = S.
            assert!((0..k).all(|j| l[(j, j)] > 0.0 && (0..j).all(|i| l[(i, j)] == 0.0)));
            assert_abs_diff_eq!(&l * l.transpose(), s, epsilon = 1e-12 * s.norm());
        }
    }

    #[test]
    fn the_kept_factor_solves_like_nalgebras_cholesky_with_sparse_columns() {
        // A sparse SPD matrix (a chain's Gram matrix: tridiagonal) in the leading block of a
        // larger buffer, filled above the diagonal with garbage that must not be read.
        let mut rng = Rng::new(23);
        let k = 9;
        let mut s = DMatrix::zeros(k, k);
        for i in 0..k {
            s[(i, i)] = 4.0 + rng.next();
            if i + 1 < k {
                let off = rng.next() - 0.5;
                s[(i + 1, i)] = off;
                s[(i, i + 1)] = off;
            }
        }
        let b = DVector::from_fn(k, |_, _| rng.next());
        let expected = s.clone().cholesky().expect("SPD").solve(&b);
        let mut buffer = DMatrix::from_element(k + 3, k + 3, f64::NAN);
        for j in 0..k {
            for i in j..k {
                buffer[(i, j)] = s[(i, j)];
            }
        }
        let mut ends = vec![0; k];
        factor_leading_block(&mut buffer, k, 0.0, &mut ends).expect("SPD");
        assert_eq!(ends, (0..k).map(|j| (j + 2).min(k)).collect::<Vec<_>>());
        let mut x = b.as_slice().to_vec();
        solve_factored(&buffer, k, &ends, &mut x);
        let x = DVector::from_vec(x);
        assert!((&x - &expected).amax() < 1e-14, "{x} against {expected}");
        assert!((&s * &x - &b).amax() < 1e-13);
    }

    /// A sparse pattern whose factor fills in below the matrix's own non-zeros: `B B^T + I`
    /// with `B` having two non-zeros per row at scattered columns. Reference: nalgebra's dense
    /// Cholesky of the same matrix.
    #[test]
    fn fill_below_the_last_non_zero_of_a_column_is_kept() {
        let mut rng = Rng::new(24);
        let k = 14;
        let mut bm = DMatrix::zeros(k, k);
        for i in 0..k {
            bm[(i, i)] = 1.0 + rng.next();
            bm[(i, (i * 5 + 3) % k)] = rng.next() - 0.5;
        }
        let s = &bm * bm.transpose() + DMatrix::identity(k, k);
        let expected = s.clone().cholesky().expect("SPD");
        let mut factor = s.clone();
        let mut ends = vec![0; k];
        factor_leading_block(&mut factor, k, 0.0, &mut ends).expect("SPD");
        let l = factor.lower_triangle();
        assert!((&l - expected.l()).amax() < 1e-14, "L against nalgebra's");
        let filled = (0..k).any(|j| (j..k).any(|i| s[(i, j)] == 0.0 && l[(i, j)].abs() > 1e-12));
        assert!(
            filled,
            "the pattern must fill in for this test to mean anything"
        );
        let b = DVector::from_fn(k, |_, _| rng.next());
        let mut x = b.as_slice().to_vec();
        solve_factored(&factor, k, &ends, &mut x);
        assert!((DVector::from_vec(x) - expected.solve(&b)).amax() < 1e-13);
    }

    #[test]
    fn a_pivot_at_or_below_the_floor_fails() {
        // [[1, 1], [1, 1 + 1e-9]]: the second pivot is 1e-9 (up to rounding).
        let mut s = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, 1.0 + 1e-9]);
        let ends = &mut [0; 2];
        let error = factor_leading_block(&mut s, 2, 1e-8, ends).unwrap_err();
        assert_eq!(error.pivot, 1);
        let mut s = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, 1.0 + 1e-9]);
        assert!(factor_leading_block(&mut s, 2, 1e-10, ends).is_ok());
        let mut s = DMatrix::from_row_slice(1, 1, &[f64::NAN]);
        assert!(factor_leading_block(&mut s, 1, 0.0, ends).is_err());
    }

    #[test]
    fn the_leading_block_of_a_larger_buffer() {
        // 2x2 SPD block at (0, 0) of a 4x4 buffer, rhs the first two entries of a longer slice.
        let mut buf = DMatrix::from_element(4, 4, 7.0);
        buf[(0, 0)] = 4.0;
        buf[(1, 0)] = 2.0;
        buf[(0, 1)] = 2.0;
        buf[(1, 1)] = 5.0;
        let mut rhs = [2.0, 1.0, 9.0];
        cholesky_solve_leading(&mut buf, 2, &mut rhs[..2]).unwrap();
        // [[4, 2], [2, 5]] x = [2, 1]  =>  x = [0.5, 0].
        assert_abs_diff_eq!(rhs[0], 0.5, epsilon = 1e-15);
        assert_abs_diff_eq!(rhs[1], 0.0, epsilon = 1e-15);
        // L = [[2, 0], [1, 2]] in the lower triangle; the rest untouched.
        assert_eq!((buf[(0, 0)], buf[(1, 0)], buf[(1, 1)]), (2.0, 1.0, 2.0));
        assert_eq!(
            (buf[(0, 1)], buf[(2, 2)], buf[(3, 0)], rhs[2]),
            (2.0, 7.0, 7.0, 9.0)
        );
    }

    #[test]
    fn singular_and_indefinite_fail() {
        let b = DVector::from_vec(vec![1.0, 2.0]);
        // Singular: [[1, 2], [2, 4]], second pivot 4 - 2^2 = 0.
        let s = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        assert_eq!(
            solve(&s, &b).unwrap_err(),
            NotPositiveDefinite {
                pivot: 1,
                value: 0.0
            }
        );
        // Indefinite: [[1, 2], [2, 1]], second pivot 1 - 4 = -3.
        let s = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert_eq!(
            solve(&s, &b).unwrap_err(),
            NotPositiveDefinite {
                pivot: 1,
                value: -3.0
            }
        );
        // Negative definite: first pivot.
        let s = -DMatrix::<f64>::identity(2, 2);
        assert_eq!(solve(&s, &b).unwrap_err().pivot, 0);
        // Rank-deficient Gram matrix B^T B with B 2x4: pivot 2 or 3 collapses to rounding level.
        let mut rng = Rng::new(22);
        let bm = DMatrix::from_fn(2, 4, |_, _| rng.next());
        let s = bm.transpose() * &bm;
        let b4 = DVector::from_element(4, 1.0);
        if let Ok((_, x)) = solve(&s, &b4) {
            // Rounding may leave a tiny positive pivot; then the "solution" must be huge.
            assert!(x.amax() > 1e8, "singular Gram matrix solved to {x}");
        }
    }

    #[test]
    fn non_finite_input_fails() {
        let b = DVector::from_vec(vec![1.0, 1.0, 1.0]);
        let mut s = DMatrix::<f64>::identity(3, 3) * 2.0;
        s[(2, 0)] = f64::NAN;
        s[(0, 2)] = f64::NAN;
        let err = solve(&s, &b).unwrap_err();
        assert_eq!(err.pivot, 2);
        assert!(err.value.is_nan());

        let mut s = DMatrix::<f64>::identity(3, 3);
        s[(0, 0)] = f64::NAN;
        assert_eq!(solve(&s, &b).unwrap_err().pivot, 0);

        let mut s = DMatrix::<f64>::identity(3, 3);
        s[(1, 1)] = f64::INFINITY;
        assert_eq!(solve(&s, &b).unwrap_err().pivot, 1);

        assert!(
            NotPositiveDefinite {
                pivot: 1,
                value: -3.0
            }
            .to_string()
            .contains("pivot 1")
        );
    }
}
