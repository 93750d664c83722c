//! Eigen-decomposition of small symmetric matrices by cyclic Jacobi rotations.
//!
//! This module owns [`SymmetricEigen`], a workspace sized once for a maximum dimension; each
//! [`SymmetricEigen::compute`] runs without heap allocation and returns eigenpairs sorted by
//! descending eigenvalue with a deterministic eigenvector sign convention.

use nalgebra::{DMatrix, DMatrixView};

/// Relative off-diagonal tolerance: stop when `off(A) <= TOL * ||A||_F`.
const TOL: f64 = 1e-15;
/// Maximum number of cyclic sweeps.
const MAX_SWEEPS: usize = 100;

/// Eigen-decomposition of a symmetric k x k matrix (k <= capacity) by cyclic Jacobi rotations.
#[derive(Clone, Debug)]
pub struct SymmetricEigen {
    capacity: usize,
    /// Dimension of the last decomposition.
    k: usize,
    /// Working copy of the matrix, rotated towards diagonal form.
    a: DMatrix<f64>,
    /// Accumulated rotations: eigenvectors in columns.
    v: DMatrix<f64>,
    /// Eigenvalues, descending.
    values: Vec<f64>,
}

impl SymmetricEigen {
    /// Workspace for symmetric matrices up to `capacity x capacity`.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            k: 0,
            a: DMatrix::zeros(capacity, capacity),
            v: DMatrix::zeros(capacity, capacity),
            values: vec![0.0; capacity],
        }
    }

    /// Maximum dimension this workspace accepts.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Dimension of the last decomposition (0 before the first).
    pub fn dim(&self) -> usize {
        self.k
    }

    /// Decompose the symmetric k x k matrix `a` (only its values are read, and only its lower
    /// triangle: the upper one is taken as its mirror; it may be a view into a larger buffer).
    /// Afterwards [`eigenvalue`](Self::eigenvalue) and [`eigenvectors`](Self::eigenvectors)
    /// (a k x k view, columns orthonormal) are available, sorted by DESCENDING eigenvalue, each
    /// eigenvector's sign fixed so that its largest-magnitude component is positive (first such
    /// index on ties). No allocation. Returns the dimension k. Converges to off-diagonal norm
    /// `<= 1e-15 * ||a||_F` or 100 sweeps. Panics if `a` is not square or k > capacity.
    pub fn compute(&mut self, a: &DMatrixView<'_, f64>) -> usize {
        let k = a.nrows();
        assert_eq!(a.ncols(), k, "SymmetricEigen: matrix must be square");
        assert!(
            k <= self.capacity,
            "SymmetricEigen: dimension exceeds capacity"
        );
        self.k = k;

        let mut fro2 = 0.0;
        for j in 0..k {
            for i in j..k {
                let x = a[(i, j)];
                self.a[(i, j)] = x;
                self.a[(j, i)] = x;
                fro2 += if i == j { x * x } else { 2.0 * x * x };
            }
        }
        let tol = TOL * fro2.sqrt();
        for j in 0..k {
            for i in 0..k {
                self.v[(i, j)] = if i == j { 1.0 } else { 0.0 };
            }
        }

        for _ in 0..MAX_SWEEPS {
            let mut off2 = 0.0;
            for j in 0..k {
                for i in j + 1..k {
                    off2 += 2.0 * self.a[(i, j)] * self.a[(i, j)];
                }
            }
            let off = off2.sqrt();
            // Also stops on NaN/inf input (then the result is meaningless but no panic/loop).
            if off <= tol || !off.is_finite() {
                break;
            }
            for p in 0..k {
                for q in p + 1..k {
                    self.rotate(p, q);
                }
            }
        }

        for i in 0..k {
            self.values[i] = self.a[(i, i)];
        }
        // Selection sort, descending; the first maximum wins so ties keep their order.
        for i in 0..k {
            let mut best = i;
            for j in i + 1..k {
                if self.values[j] > self.values[best] {
                    best = j;
                }
            }
            if best != i {
                self.values.swap(i, best);
                self.v.swap_columns(i, best);
            }
        }
        // Sign: largest-magnitude component positive (first index on ties).
        for j in 0..k {
            let mut imax = 0;
            for i in 1..k {
                if self.v[(i, j)].abs() > self.v[(imax, j)].abs() {
                    imax = i;
                }
            }
            if self.v[(imax, j)] < 0.0 {
                for i in 0..k {
                    self.v[(i, j)] = -self.v[(i, j)];
                }
            }
        }
        k
    }

    /// One Jacobi rotation annihilating `a[p, q]` (Golub-Van Loan sym.schur2):
    /// `A <- J^T A J`, `V <- V J` with `J = [[c, s], [-s, c]]` in rows/columns p, q.
    fn rotate(&mut self, p: usize, q: usize) {
        let apq = self.a[(p, q)];
        if apq == 0.0 {
            return;
        }
        let k = self.k;
        // t = tan(theta) is the smaller root of t^2 + 2 tau t - 1 = 0; hypot avoids overflow.
        let tau = (self.a[(q, q)] - self.a[(p, p)]) / (2.0 * apq);
        let t = if tau >= 0.0 {
            1.0 / (tau + 1.0_f64.hypot(tau))
        } else {
            -1.0 / (-tau + 1.0_f64.hypot(tau))
        };
        let c = 1.0 / 1.0_f64.hypot(t);
        let s = t * c;

        for i in 0..k {
            let (aip, aiq) = (self.a[(i, p)], self.a[(i, q)]);
            self.a[(i, p)] = c * aip - s * aiq;
            self.a[(i, q)] = s * aip + c * aiq;
        }
        for j in 0..k {
            let (apj, aqj) = (self.a[(p, j)], self.a[(q, j)]);
            self.a[(p, j)] = c * apj - s * aqj;
            self.a[(q, j)] = s * apj + c * aqj;
        }
        // Exactly zero by construction of t; drop the rounding residue.
        self.a[(p, q)] = 0.0;
        self.a[(q, p)] = 0.0;
        for i in 0..k {
            let (vip, viq) = (self.v[(i, p)], self.v[(i, q)]);
            self.v[(i, p)] = c * vip - s * viq;
            self.v[(i, q)] = s * vip + c * viq;
        }
    }

    /// The i-th eigenvalue (descending order) of the last decomposition; panics if i >= k.
    pub fn eigenvalue(&self, i: usize) -> f64 {
        self.values[..self.k][i]
    }

    /// Eigenvectors of the last decomposition as columns of a k x k view, in eigenvalue order.
    pub fn eigenvectors(&self) -> DMatrixView<'_, f64> {
        self.v.view((0, 0), (self.k, self.k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    use crate::linalg::test_rng::Rng;

    fn check(a: &DMatrix<f64>, eig: &SymmetricEigen) {
        let k = a.nrows();
        let v = eig.eigenvectors().into_owned();
        assert_eq!(v.shape(), (k, k));
        let lambda = DMatrix::from_fn(k, k, |i, j| if i == j { eig.eigenvalue(i) } else { 0.0 });
        let scale = a.norm().max(1.0);
        let (av, vl) = (a * &v, &v * lambda);
        assert!(
            abs_diff_eq!(av, vl, epsilon = 1e-12 * scale),
            "A V - V L = {:e} (k = {k})",
            (&av - &vl).amax()
        );
        let (vtv, identity) = (v.transpose() * &v, DMatrix::identity(k, k));
        assert!(
            abs_diff_eq!(vtv, identity, epsilon = 1e-13),
            "V^T V - I = {:e}",
            (&vtv - &identity).amax()
        );
        for i in 1..k {
            assert!(eig.eigenvalue(i) <= eig.eigenvalue(i - 1), "not descending");
        }
        for j in 0..k {
            let col = v.column(j);
            let imax = col.iamax();
            // Largest component positive, and no earlier component of equal magnitude.
            assert!(col[imax] > 0.0, "sign convention, column {j}");
            assert!(col.iter().take(imax).all(|x| x.abs() < col[imax]));
        }
    }

    #[test]
    fn random_symmetric_sizes_1_to_6() {
        let mut rng = Rng::new(11);
        let mut eig = SymmetricEigen::new(6);
        for k in 1..=6 {
            for _ in 0..20 {
                let a = rng.symmetric(k);
                assert_eq!(eig.compute(&a.as_view()), k);
                check(&a, &eig);
                // Trace and Frobenius norm are invariants of the spectrum.
                let tr: f64 = (0..k).map(|i| eig.eigenvalue(i)).sum();
                assert_abs_diff_eq!(tr, a.trace(), epsilon = 1e-12);
                let f2: f64 = (0..k).map(|i| eig.eigenvalue(i).powi(2)).sum();
                let f2_expected = a.norm_squared();
                assert_abs_diff_eq!(f2, f2_expected, epsilon = 1e-12 * f2_expected.max(1.0));
            }
        }
    }

    #[test]
    fn view_into_larger_buffer() {
        let mut rng = Rng::new(12);
        let big = rng.symmetric(8);
        let mut eig = SymmetricEigen::new(6);
        let view = big.view((2, 2), (4, 4));
        assert_eq!(eig.compute(&view), 4);
        check(&view.into_owned(), &eig);
    }

    #[test]
    fn diagonal_matrix() {
        let a = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![2.0, -1.0, 5.0, 0.0]));
        let mut eig = SymmetricEigen::new(4);
        eig.compute(&a.as_view());
        let values: Vec<f64> = (0..4).map(|i| eig.eigenvalue(i)).collect();
        assert_eq!(values, vec![5.0, 2.0, 0.0, -1.0]);
        // Eigenvectors are the permuted unit vectors, signs positive.
        let v = eig.eigenvectors();
        for (j, &axis) in [2, 0, 3, 1].iter().enumerate() {
            assert_eq!(v[(axis, j)], 1.0);
        }
        check(&a, &eig);
    }

    #[test]
    fn two_by_two_closed_form() {
        // [[a, b], [b, d]]: lambda = (a + d)/2 +- sqrt(((a - d)/2)^2 + b^2).
        let (a, b, d) = (3.0, 1.5, -2.0);
        let m = DMatrix::from_row_slice(2, 2, &[a, b, b, d]);
        let mut eig = SymmetricEigen::new(2);
        eig.compute(&m.as_view());
        let mean = 0.5 * (a + d);
        let radius = (0.25 * (a - d) * (a - d) + b * b).sqrt();
        assert_abs_diff_eq!(eig.eigenvalue(0), mean + radius, epsilon = 1e-14);
        assert_abs_diff_eq!(eig.eigenvalue(1), mean - radius, epsilon = 1e-14);
        check(&m, &eig);
        // [[2, 1], [1, 2]]: eigenvalues 3, 1 with vectors (1, 1)/sqrt2, (1, -1)/sqrt2 (sign
        // convention: first index on the tie, so the second vector is (1, -1)/sqrt2).
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        eig.compute(&m.as_view());
        assert_abs_diff_eq!(eig.eigenvalue(0), 3.0, epsilon = 1e-15);
        assert_abs_diff_eq!(eig.eigenvalue(1), 1.0, epsilon = 1e-15);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let v = eig.eigenvectors();
        assert_abs_diff_eq!(v[(0, 1)], h, epsilon = 1e-15);
        assert_abs_diff_eq!(v[(1, 1)], -h, epsilon = 1e-15);
    }

    #[test]
    fn repeated_eigenvalues_no_nan() {
        let mut eig = SymmetricEigen::new(5);
        let id = DMatrix::<f64>::identity(5, 5);
        eig.compute(&id.as_view());
        for i in 0..5 {
            assert_eq!(eig.eigenvalue(i), 1.0);
        }
        assert!(eig.eigenvectors().iter().all(|x| x.is_finite()));
        check(&id, &eig);

        let zero = DMatrix::<f64>::zeros(3, 3);
        eig.compute(&zero.as_view());
        assert_eq!(eig.eigenvalue(2), 0.0);
        check(&zero, &eig);

        // Q diag(2, 2, 2, -1) Q^T with a random orthogonal Q: a triple eigenvalue.
        let mut rng = Rng::new(13);
        let q = DMatrix::from_fn(4, 4, |_, _| rng.next()).qr().q();
        let d = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![2.0, 2.0, 2.0, -1.0]));
        let a = &q * d * q.transpose();
        let a = 0.5 * (&a + a.transpose());
        eig.compute(&a.as_view());
        for (i, want) in [2.0, 2.0, 2.0, -1.0].into_iter().enumerate() {
            assert_abs_diff_eq!(eig.eigenvalue(i), want, epsilon = 1e-13);
        }
        check(&a, &eig);
    }

    #[test]
    fn empty_matrix() {
        let mut eig = SymmetricEigen::new(3);
        let e = DMatrix::<f64>::zeros(0, 0);
        assert_eq!(eig.compute(&e.as_view()), 0);
        assert_eq!(eig.eigenvectors().shape(), (0, 0));
    }
}
