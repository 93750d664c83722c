use super::*;
use approx::{abs_diff_eq, assert_abs_diff_eq};

use crate::linalg::test_rng::Rng;

fn max_abs(m: &DMatrix<f64>) -> f64 {
    m.iter().fold(0.0, |s, v| s.max(v.abs()))
}

fn factorize(a: &DMatrix<f64>) -> PivotedQr {
    let mut qr = PivotedQr::new(a.ncols(), a.nrows());
    qr.factorize_transposed(a);
    qr
}

/// `A^T` with its columns permuted by `perm`: column `j` is row `perm[j]` of `A`.
fn at_permuted(a: &DMatrix<f64>, perm: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(a.ncols(), a.nrows(), |i, j| a[(perm[j], i)])
}

fn check_factorization(a: &DMatrix<f64>, qr: &PivotedQr) {
    let (m, n) = a.shape();
    let (q, r, perm) = (qr.q(), qr.r(), qr.permutation());
    assert_eq!(q.shape(), (n, n));
    assert_eq!(r.shape(), (n, m));

    let mut sorted = perm.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..m).collect::<Vec<_>>(), "not a permutation");

    let (permuted, product) = (at_permuted(a, perm), q * r);
    let scale = a.norm().max(1.0);
    assert!(
        abs_diff_eq!(product, permuted, epsilon = 1e-12 * scale),
        "A^T P - QR = {:e} ({m}x{n})",
        max_abs(&(&permuted - &product))
    );

    let (qtq, identity) = (q.transpose() * q, DMatrix::identity(n, n));
    assert!(
        abs_diff_eq!(qtq, identity, epsilon = 1e-13),
        "Q^T Q - I = {:e} ({m}x{n})",
        max_abs(&(&qtq - &identity))
    );

    for j in 0..m {
        for i in j + 1..n {
            assert_eq!(r[(i, j)], 0.0, "R[{i},{j}] below diagonal not zero");
        }
    }
    check_diagonal(a, qr);
}

/// The `R` diagonal against an independent factorisation: nalgebra's unpivoted Householder
/// QR of `A^T P` with our permutation, which has the same `|R_jj|` in exact arithmetic and
/// no clamp. Ours may differ from it only at round-off level, so the clamp to the previous
/// magnitude (and the zeros below the round-off floor) change nothing that matters; and
/// its diagonal must itself be non-increasing up to round-off, so the pivots really are
/// taken by trailing norm. (Comparing our diagonal with itself cannot fail: the clamp makes
/// it non-increasing whatever the pivots.)
fn check_diagonal(a: &DMatrix<f64>, qr: &PivotedQr) {
    let (m, n) = a.shape();
    let reference = at_permuted(a, qr.permutation()).qr().r();
    let reference: Vec<f64> = (0..n.min(m)).map(|j| reference[(j, j)].abs()).collect();
    // Round-off relative to the largest column norm, plus what the floor may zero.
    let slack = (1e-14 + ROUND_OFF_FLOOR) * reference.first().copied().unwrap_or(0.0);
    for (j, &theirs) in reference.iter().enumerate() {
        let ours = qr.r_diag_abs(j);
        assert!(
            abs_diff_eq!(ours, theirs, epsilon = slack),
            "|R_{j}{j}| = {ours:e}, unpivoted QR of A^T P: {theirs:e} ({m}x{n})"
        );
        if j > 0 {
            assert!(
                theirs <= reference[j - 1] + slack,
                "|R_jj| increases at {j}: {:e} then {theirs:e} ({m}x{n})",
                reference[j - 1]
            );
        }
    }
}

#[test]
fn the_diagonal_check_catches_a_wrong_pivot_order() {
    // The check must be able to fail: rows of norms 1 and 2, factorised in the wrong
    // order (the permutation swapped after the fact), and a diagonal changed by far more
    // than round-off.
    let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 2.0]);
    let mut qr = factorize(&a);
    check_diagonal(&a, &qr);
    qr.perm.swap(0, 1);
    assert!(std::panic::catch_unwind(|| check_diagonal(&a, &qr)).is_err());
    let mut qr = factorize(&a);
    qr.r[(1, 1)] *= 1.0 + 1e-9;
    assert!(std::panic::catch_unwind(|| check_diagonal(&a, &qr)).is_err());
}

#[test]
fn random_shapes_factorize() {
    let shapes = [
        (1, 2),
        (2, 2),
        (1, 3),
        (8, 9),
        (14, 15),
        (12, 12),
        (16, 15),
        (24, 24),
        (32, 30),
        (5, 3),
    ];
    let mut rng = Rng::new(1);
    for &(m, n) in &shapes {
        for scale in [1.0, 1e3] {
            let a = rng.matrix(m, n) * scale;
            let qr = factorize(&a);
            check_factorization(&a, &qr);
            assert_eq!(qr.rank(1e-10), m.min(n), "random {m}x{n} not full rank");
        }
    }
}

#[test]
fn trailing_columns_of_q_alone_match_the_full_q() {
    // The columns formed alone are those of the full Q, bit for bit, and they are
    // orthonormal and orthogonal to every row of A past the rank (the tangent space).
    let mut rng = Rng::new(7);
    for &(m, n) in &[(8, 9), (14, 15), (32, 30), (24, 24)] {
        let a = rng.matrix(m, n);
        let mut partial = PivotedQr::new(n, m);
        partial.factorize_without_q(&a);
        let full = factorize(&a);
        let rank = full.rank(1e-10);
        for from in [n, rank, rank.saturating_sub(3), 0] {
            partial.form_q_columns(from);
            let columns = partial.q_columns(from);
            assert_eq!(
                columns,
                full.q().columns(from, n - from),
                "{m}x{n} from {from}"
            );
            let gram = columns.transpose() * columns;
            let identity = DMatrix::<f64>::identity(n - from, n - from);
            assert_abs_diff_eq!(gram, identity, epsilon = 1e-13);
            if from >= rank {
                assert!(max_abs(&(&a * columns)) < 1e-12 * a.norm(), "{m}x{n}");
            }
        }
    }
}

#[test]
fn orthogonal_equal_norm_columns_stay_ordered() {
    // A = an orthogonal matrix: all column norms of A^T tie at 1, a rounding near-tie case.
    let mut rng = Rng::new(2);
    for n in [3, 7, 16] {
        let a = rng.matrix(n, n).qr().q();
        let qr = factorize(&a);
        check_factorization(&a, &qr);
        for i in 0..n {
            assert_abs_diff_eq!(qr.r_diag_abs(i), 1.0, epsilon = 1e-14);
        }
    }
}

#[test]
fn degenerate_shapes() {
    // Zero matrix: R = 0, Q = I, rank 0.
    let a = DMatrix::zeros(3, 4);
    let qr = factorize(&a);
    check_factorization(&a, &qr);
    assert_eq!(qr.rank(1e-10), 0);
    assert_eq!(qr.q(), &DMatrix::identity(4, 4));
    // No constraints at all.
    let a = DMatrix::zeros(0, 3);
    let qr = factorize(&a);
    assert_eq!(qr.rank(1e-10), 0);
    assert_eq!(qr.r_diag_abs(0), 0.0);
    assert_eq!(qr.q(), &DMatrix::identity(3, 3));
}

/// Random rank-k m x n matrix B C.
fn low_rank(rng: &mut Rng, m: usize, n: usize, k: usize) -> DMatrix<f64> {
    rng.matrix(m, k) * rng.matrix(k, n)
}

const DEFICIENT: [(usize, usize, usize); 8] = [
    (2, 3, 1),
    (3, 3, 2),
    (5, 8, 3),
    (8, 9, 7),
    (12, 12, 6),
    (16, 15, 10),
    (30, 20, 12),
    (24, 30, 1),
];

#[test]
fn rank_of_low_rank_products() {
    let mut rng = Rng::new(3);
    for &(m, n, k) in &DEFICIENT {
        let a = low_rank(&mut rng, m, n, k);
        let qr = factorize(&a);
        check_factorization(&a, &qr);
        assert_eq!(qr.rank(1e-10), k, "rank of B C with ({m},{n},{k})");
    }
}

#[test]
fn rank_with_duplicated_rows() {
    // Constraints r0, r1, r0, r2, r1, r1: three distinct rows.
    let mut rng = Rng::new(4);
    let rows = rng.matrix(3, 6);
    let order = [0, 1, 0, 2, 1, 1];
    let a = DMatrix::from_fn(order.len(), 6, |i, j| rows[(order[i], j)]);
    let qr = factorize(&a);
    check_factorization(&a, &qr);
    assert_eq!(qr.rank(1e-10), 3);
    // The three kept pivots are distinct constraints.
    let kept: Vec<usize> = qr.permutation()[..3].iter().map(|&p| order[p]).collect();
    let mut kept_sorted = kept.clone();
    kept_sorted.sort_unstable();
    assert_eq!(kept_sorted, vec![0, 1, 2], "kept {kept:?}");
}

#[test]
fn tangent_columns_annihilate_jacobian() {
    let mut rng = Rng::new(5);
    for &(m, n, k) in &DEFICIENT {
        let a = low_rank(&mut rng, m, n, k);
        let qr = factorize(&a);
        let r = qr.rank(1e-10);
        assert_eq!(r, k);
        let tangent = qr.q().columns(r, n - r).into_owned();
        let res = max_abs(&(&a * tangent));
        assert!(res <= 1e-12, "A Q[:, r..] = {res:e} for ({m},{n},{k})");
    }
}

#[test]
fn normal_solve_full_row_rank_is_min_norm() {
    let mut rng = Rng::new(6);
    for (m, n) in [(1, 2), (3, 5), (8, 9), (14, 15), (10, 30)] {
        let a = rng.matrix(m, n);
        let b = rng.vector(m);
        let qr = factorize(&a);
        let r = qr.rank(1e-10);
        assert_eq!(r, m);
        let mut b_piv = DVector::zeros(m);
        qr.to_pivot_order(&b, &mut b_piv);
        let mut y = vec![0.0; m];
        let mut x = DVector::zeros(n);
        qr.normal_solve(r, b_piv.as_slice(), &mut y, &mut x);

        assert!(
            abs_diff_eq!(&a * &x, b, epsilon = 1e-12),
            "A x - b = {:e} ({m}x{n})",
            (&a * &x - &b).amax()
        );
        // Minimum norm <=> x in the row space of A <=> x orthogonal to the tangent space.
        let along_tangent = (qr.q().columns(r, n - r).transpose() * &x).amax();
        assert!(
            along_tangent <= 1e-12,
            "x not orthogonal to tangent: {along_tangent:e}"
        );
        // Independent check: the min-norm solution is A^T (A A^T)^{-1} b.
        let reference = a.transpose() * (&a * a.transpose()).lu().solve(&b).unwrap();
        assert_abs_diff_eq!(x, reference, epsilon = 1e-10);
    }
}

#[test]
fn normal_solve_rank_deficient_consistent() {
    let mut rng = Rng::new(7);
    for &(m, n, k) in &DEFICIENT {
        let a = low_rank(&mut rng, m, n, k);
        let b = &a * rng.vector(n);
        let qr = factorize(&a);
        let r = qr.rank(1e-10);
        let mut b_piv = DVector::zeros(m);
        qr.to_pivot_order(&b, &mut b_piv);
        let mut y = vec![0.0; r];
        let mut x = DVector::zeros(n);
        qr.normal_solve(r, b_piv.as_slice(), &mut y, &mut x);
        assert!(
            abs_diff_eq!(&a * &x, b, epsilon = 1e-12),
            "A x - b = {:e} for ({m},{n},{k})",
            (&a * &x - &b).amax()
        );
    }
}

/// The reflector form of the solve (used by Newton before `Q` is formed) agrees with the
/// explicit one, and `factorize_without_q` + `form_q` is `factorize_transposed` exactly.
#[test]
fn implicit_normal_solve_matches_explicit() {
    let mut rng = Rng::new(9);
    for &(m, n, k) in &DEFICIENT {
        let a = low_rank(&mut rng, m, n, k);
        let b = rng.vector(m);
        let explicit = factorize(&a);
        let mut lazy = PivotedQr::new(n, m);
        lazy.factorize_without_q(&a);
        let r = lazy.rank(1e-10);
        let mut b_piv = DVector::zeros(m);
        lazy.to_pivot_order(&b, &mut b_piv);
        let (mut y, mut x_implicit, mut x_explicit) =
            (vec![0.0; m.max(1)], DVector::zeros(n), DVector::zeros(n));
        lazy.normal_solve_implicit(r, b_piv.as_slice(), &mut y, &mut x_implicit);
        explicit.normal_solve(r, b_piv.as_slice(), &mut y, &mut x_explicit);
        let scale = x_explicit.amax().max(1.0);
        assert!(
            abs_diff_eq!(x_implicit, x_explicit, epsilon = 1e-13 * scale),
            "differ by {:e} ({m},{n},{k})",
            (&x_implicit - &x_explicit).amax()
        );
        lazy.form_q();
        assert_eq!(lazy.q(), explicit.q());
        assert_eq!(lazy.r(), explicit.r());
    }
}

#[test]
fn pivots_by_column_norm() {
    // Rows (constraints) with norms 0.1, 3, sqrt(2): row 1 first. After removing its
    // direction e1, the remaining trailing norms are 0.1 (row 0) and 1 (row 2), so row 2 is
    // second. All rows lie in the xy-plane, so row 0 then has nothing left: R_22 = 0.
    let a = DMatrix::from_row_slice(3, 3, &[0.1, 0.0, 0.0, 0.0, 3.0, 0.0, 1.0, 1.0, 0.0]);
    let qr = factorize(&a);
    check_factorization(&a, &qr);
    assert_eq!(qr.permutation(), &[1, 2, 0]);
    assert_abs_diff_eq!(qr.r_diag_abs(0), 3.0, epsilon = 1e-15);
    assert_abs_diff_eq!(qr.r_diag_abs(1), 1.0, epsilon = 1e-15);
    assert_abs_diff_eq!(qr.r_diag_abs(2), 0.0, epsilon = 1e-15);
    assert_eq!(qr.rank(1e-10), 2);

    // Norm, not largest entry: row 0 has the largest entry (2.5) but row 1 the larger norm
    // (1.5 * sqrt(3) = 2.598...).
    let a = DMatrix::from_row_slice(2, 3, &[2.5, 0.0, 0.0, 1.5, 1.5, 1.5]);
    let qr = factorize(&a);
    assert_eq!(qr.permutation()[0], 1);
    assert_abs_diff_eq!(qr.r_diag_abs(0), 1.5 * 3f64.sqrt(), epsilon = 1e-15);

    // Ties go to the lowest index.
    let a = DMatrix::from_row_slice(3, 2, &[0.0, 1.0, 1.0, 0.0, -1.0, 0.0]);
    assert_eq!(factorize(&a).permutation()[0], 0);
}

#[test]
fn householder_sign_convention() {
    // R_00 = -sign(x0) |x| with sign(0) = +1.
    let qr = factorize(&DMatrix::from_row_slice(1, 2, &[3.0, 4.0]));
    assert_eq!(qr.r()[(0, 0)], -5.0);
    let qr = factorize(&DMatrix::from_row_slice(1, 2, &[-3.0, 4.0]));
    assert_eq!(qr.r()[(0, 0)], 5.0);
    let qr = factorize(&DMatrix::from_row_slice(1, 2, &[0.0, 2.0]));
    assert_eq!(qr.r()[(0, 0)], -2.0);
    // The scaled norm neither overflows nor underflows.
    let qr = factorize(&DMatrix::from_row_slice(1, 2, &[3e200, 4e200]));
    assert_abs_diff_eq!(qr.r()[(0, 0)] / 5e200, -1.0, epsilon = 1e-15);
    let qr = factorize(&DMatrix::from_row_slice(1, 2, &[3e-200, 4e-200]));
    assert_abs_diff_eq!(qr.r()[(0, 0)] / 5e-200, -1.0, epsilon = 1e-15);
}

#[test]
fn deterministic_bit_identical() {
    let mut rng = Rng::new(8);
    let a = rng.matrix(14, 15);
    let other = rng.matrix(14, 15);
    let mut qr = PivotedQr::new(15, 14);
    qr.factorize_transposed(&a);
    let (q1, r1, p1) = (qr.q().clone(), qr.r().clone(), qr.permutation().to_vec());
    qr.factorize_transposed(&other);
    qr.factorize_transposed(&a);
    let bits = |m: &DMatrix<f64>| m.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&q1), bits(qr.q()));
    assert_eq!(bits(&r1), bits(qr.r()));
    assert_eq!(p1, qr.permutation());
    let fresh = factorize(&a);
    assert_eq!(bits(&q1), bits(fresh.q()));
    assert_eq!(bits(&r1), bits(fresh.r()));
}

/// Entries near the limits of the exponent range (2^-700 and 2^700, where a plain sum of
/// squares under- or overflows) take the scaled norm path. Scaling by a power of two is exact,
/// so the factorization must be the unscaled one with R scaled: same pivots, same Q.
#[test]
fn extreme_scales_use_scaled_norms() {
    let mut rng = Rng::new(11);
    let a = rng.matrix(7, 9);
    let reference = factorize(&a);
    for exponent in [-700, 700] {
        let scale = 2.0_f64.powi(exponent);
        let scaled = factorize(&(&a * scale));
        assert_eq!(
            scaled.permutation(),
            reference.permutation(),
            "2^{exponent}"
        );
        let unscaled_r = scaled.r() / scale;
        assert!(
            abs_diff_eq!(unscaled_r, reference.r(), epsilon = 1e-12),
            "R differs by {:e} at 2^{exponent}",
            max_abs(&(&unscaled_r - reference.r()))
        );
        assert!(
            abs_diff_eq!(scaled.q(), reference.q(), epsilon = 1e-12),
            "Q differs by {:e} at 2^{exponent}",
            max_abs(&(scaled.q() - reference.q()))
        );
    }
}

/// A duplicated constraint perturbed at the last bit leaves only round-off below the
/// rank. Without the floor the last reflectors would be built from that noise and turn the
/// 3-dimensional tangent basis arbitrarily; with it, both matrices give the same basis.
#[test]
fn tangent_basis_ignores_round_off_of_redundant_rows() {
    let mut rng = Rng::new(5);
    let mut a = rng.matrix(4, 6);
    for i in 0..6 {
        a[(3, i)] = a[(0, i)];
    }
    let mut perturbed = a.clone();
    for i in (0..6).step_by(2) {
        perturbed[(3, i)] *= 1.0 + f64::EPSILON;
    }
    let (exact, noisy) = (factorize(&a), factorize(&perturbed));
    assert_eq!(exact.rank(1e-10), 3);
    assert_eq!(noisy.r_diag_abs(3), 0.0, "round-off left in R");
    let (exact_basis, noisy_basis) = (exact.q().columns(3, 3), noisy.q().columns(3, 3));
    assert!(
        abs_diff_eq!(exact_basis, noisy_basis, epsilon = 1e-12),
        "tangent bases differ by {:e}",
        max_abs(&(exact_basis - noisy_basis))
    );
}
