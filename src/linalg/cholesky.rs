//! In-place Cholesky solve of small symmetric positive-definite systems.
//!
//! This module owns [`cholesky_solve_in_place`] and its error [`NotPositiveDefinite`]. The solve
//! works on caller-provided views (e.g. into preallocated workspaces) and never allocates.

use nalgebra::{DMatrixViewMut, DVectorViewMut};

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

/// Solve `S x = b` in place for symmetric positive-definite `S` (k x k view into any buffer):
/// `S` is overwritten by its Cholesky factor `L` (lower, with exact zeros above the diagonal),
/// `b` by `x`. Only the lower triangle of `S` is read. Returns
/// `Err(NotPositiveDefinite { pivot, value })` if a pivot is `<= 0` or not finite (no panic); `S`
/// is then partially overwritten and `b` untouched. No allocation. Panics only if `S` is not
/// square or `b` does not have length k.
pub fn cholesky_solve_in_place(
    s: &mut DMatrixViewMut<'_, f64>,
    b: &mut DVectorViewMut<'_, f64>,
) -> Result<(), NotPositiveDefinite> {
    let k = s.nrows();
    assert_eq!(s.ncols(), k, "cholesky_solve_in_place: S must be square");
    assert_eq!(b.len(), k, "cholesky_solve_in_place: b must have length k");

    // Column-by-column (left-looking) factorization S = L L^T.
    for j in 0..k {
        let mut d = s[(j, j)];
        for p in 0..j {
            d -= s[(j, p)] * s[(j, p)];
        }
        // `!(d > 0)` also catches NaN.
        if !(d > 0.0 && d.is_finite()) {
            return Err(NotPositiveDefinite { pivot: j, value: d });
        }
        let ljj = d.sqrt();
        s[(j, j)] = ljj;
        for i in j + 1..k {
            let mut x = s[(i, j)];
            for p in 0..j {
                x -= s[(i, p)] * s[(j, p)];
            }
            s[(i, j)] = x / ljj;
            s[(j, i)] = 0.0;
        }
    }

    // Forward substitution L z = b, then back substitution L^T x = z.
    for i in 0..k {
        let mut x = b[i];
        for p in 0..i {
            x -= s[(i, p)] * b[p];
        }
        b[i] = x / s[(i, i)];
    }
    for i in (0..k).rev() {
        let mut x = b[i];
        for p in i + 1..k {
            x -= s[(p, i)] * b[p];
        }
        b[i] = x / s[(i, i)];
    }
    Ok(())
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
        cholesky_solve_in_place(&mut l.as_view_mut(), &mut x.as_view_mut())?;
        Ok((l, x))
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
    fn views_into_larger_buffers() {
        // 2x2 SPD block at (1, 1) of a 4x4 buffer, rhs in a column of another matrix.
        let mut buf = DMatrix::from_element(4, 4, 7.0);
        buf[(1, 1)] = 4.0;
        buf[(2, 1)] = 2.0;
        buf[(1, 2)] = 2.0;
        buf[(2, 2)] = 5.0;
        let mut rhs = DMatrix::from_element(3, 2, 9.0);
        rhs[(0, 1)] = 2.0;
        rhs[(1, 1)] = 1.0;
        cholesky_solve_in_place(
            &mut buf.view_mut((1, 1), (2, 2)),
            &mut rhs.view_mut((0, 1), (2, 1)).column_mut(0),
        )
        .unwrap();
        // [[4, 2], [2, 5]] x = [2, 1]  =>  x = [0.5, 0].
        assert_abs_diff_eq!(rhs[(0, 1)], 0.5, epsilon = 1e-15);
        assert_abs_diff_eq!(rhs[(1, 1)], 0.0, epsilon = 1e-15);
        // L = [[2, 0], [1, 2]]; entries outside the block untouched.
        assert_eq!(
            (buf[(1, 1)], buf[(2, 1)], buf[(1, 2)], buf[(2, 2)]),
            (2.0, 1.0, 0.0, 2.0)
        );
        assert_eq!(
            (buf[(0, 0)], buf[(3, 3)], rhs[(2, 1)], rhs[(0, 0)]),
            (7.0, 7.0, 9.0, 9.0)
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
