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
/// `s` is then partially overwritten and `b` untouched. No allocation.
pub fn cholesky_solve_leading(
    s: &mut DMatrix<f64>,
    k: usize,
    b: &mut [f64],
) -> Result<(), NotPositiveDefinite> {
    factor_leading_block(s, k, 0.0)?;
    solve_factored(s, k, b);
    Ok(())
}

/// Factorises the leading `k x k` block of `s` (its lower triangle is read) into its Cholesky
/// factor `L`, in place (right-looking, column by column: the column-major storage keeps every
/// inner loop contiguous, and a zero multiplier skips its whole column update). Fails if a
/// pivot `L_jj^2` is at most `min_pivot` or not finite; `s` is then partially overwritten. The
/// entries above the diagonal are neither read nor written. No allocation.
pub fn factor_leading_block(
    s: &mut DMatrix<f64>,
    k: usize,
    min_pivot: f64,
) -> Result<(), NotPositiveDefinite> {
    let stride = s.nrows();
    assert!(
        k <= stride && k <= s.ncols(),
        "factor_leading_block: block too large"
    );
    let s = s.as_mut_slice();
    for j in 0..k {
        let d = s[j * stride + j];
        if !(d > min_pivot && d.is_finite()) {
            return Err(NotPositiveDefinite { pivot: j, value: d });
        }
        let ljj = d.sqrt();
        s[j * stride + j] = ljj;
        for v in &mut s[j * stride + j + 1..j * stride + k] {
            *v /= ljj;
        }
        let (head, tail) = s.split_at_mut((j + 1) * stride);
        let column_j = &head[j * stride..j * stride + k];
        for c in j + 1..k {
            let lcj = column_j[c];
            if lcj == 0.0 {
                continue;
            }
            let target = &mut tail[(c - j - 1) * stride + c..(c - j - 1) * stride + k];
            for (t, lij) in target.iter_mut().zip(&column_j[c..k]) {
                *t -= lij * lcj;
            }
        }
    }
    Ok(())
}

/// Solves `L L^T x = b` in place with `L` the leading `k x k` factor left by
/// [`factor_leading_block`] (`b` of length `k`). No allocation.
pub fn solve_factored(l: &DMatrix<f64>, k: usize, b: &mut [f64]) {
    let stride = l.nrows();
    assert_eq!(b.len(), k, "solve_factored: right-hand side length");
    let l = l.as_slice();
    for j in 0..k {
        let column = &l[j * stride..j * stride + k];
        let zj = b[j] / column[j];
        b[j] = zj;
        if zj != 0.0 {
            for (bi, lij) in b[j + 1..].iter_mut().zip(&column[j + 1..]) {
                *bi -= lij * zj;
            }
        }
    }
    for j in (0..k).rev() {
        let column = &l[j * stride..j * stride + k];
        let mut x = b[j];
        for (bi, lij) in b[j + 1..].iter().zip(&column[j + 1..]) {
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
        factor_leading_block(&mut buffer, k, 0.0).expect("SPD");
        let mut x = b.as_slice().to_vec();
        solve_factored(&buffer, k, &mut x);
        let x = DVector::from_vec(x);
        assert!((&x - &expected).amax() < 1e-14, "{x} against {expected}");
        assert!((&s * &x - &b).amax() < 1e-13);
    }

    #[test]
    fn a_pivot_at_or_below_the_floor_fails() {
        // [[1, 1], [1, 1 + 1e-9]]: the second pivot is 1e-9 (up to rounding).
        let mut s = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, 1.0 + 1e-9]);
        let error = factor_leading_block(&mut s, 2, 1e-8).unwrap_err();
        assert_eq!(error.pivot, 1);
        let mut s = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, 1.0 + 1e-9]);
        assert!(factor_leading_block(&mut s, 2, 1e-10).is_ok());
        let mut s = DMatrix::from_row_slice(1, 1, &[f64::NAN]);
        assert!(factor_leading_block(&mut s, 1, 0.0).is_err());
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
