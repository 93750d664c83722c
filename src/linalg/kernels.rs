//! Small dense kernels shared by the factorizations and the basis predictor: contiguous-slice
//! loops written so the compiler can vectorise them while the summation order stays fixed
//! (results are bit-for-bit reproducible).

/// Dot product with four interleaved partial sums (fixed order, so deterministic; lets the
/// compiler use SIMD, which a single running sum forbids without reassociation).
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    let mut acc = [0.0; 4];
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// [`dot`] of `a` with `b` and with `c` in one pass, each with exactly [`dot`]'s summation
/// order (so the results are bit-identical to two calls); the two independent sums hide each
/// other's latency.
#[inline]
pub(crate) fn dot_pair(a: &[f64], b: &[f64], c: &[f64]) -> (f64, f64) {
    debug_assert!(a.len() == b.len() && a.len() == c.len());
    let (ca, cb, cc) = (a.chunks_exact(4), b.chunks_exact(4), c.chunks_exact(4));
    let (ra, rb, rc) = (ca.remainder(), cb.remainder(), cc.remainder());
    let (mut ab, mut ac) = ([0.0; 4], [0.0; 4]);
    for ((x, y), z) in ca.zip(cb).zip(cc) {
        for l in 0..4 {
            ab[l] += x[l] * y[l];
            ac[l] += x[l] * z[l];
        }
    }
    let mut sb = (ab[0] + ab[1]) + (ab[2] + ab[3]);
    let mut sc = (ac[0] + ac[1]) + (ac[2] + ac[3]);
    for ((x, y), z) in ra.iter().zip(rb).zip(rc) {
        sb += x * y;
        sc += x * z;
    }
    (sb, sc)
}

#[cfg(test)]
mod tests {
    use super::{dot, dot_pair};

    #[test]
    fn dot_pair_is_bit_identical_to_two_dots() {
        for len in 0..11 {
            let a: Vec<f64> = (0..len).map(|i| (i as f64 * 0.37).sin()).collect();
            let b: Vec<f64> = (0..len).map(|i| (i as f64 * 1.3).cos()).collect();
            let c: Vec<f64> = (0..len).map(|i| 1.0 / (i as f64 + 0.7)).collect();
            let (ab, ac) = dot_pair(&a, &b, &c);
            assert_eq!(ab.to_bits(), dot(&a, &b).to_bits(), "length {len}");
            assert_eq!(ac.to_bits(), dot(&a, &c).to_bits(), "length {len}");
        }
    }

    /// Lengths around the four-lane blocking, against a plain sum of exactly representable
    /// products (small integers, so every order gives the same exact result).
    #[test]
    fn dot_matches_plain_sum_for_every_remainder() {
        for len in 0..11 {
            let a: Vec<f64> = (0..len).map(|i| i as f64 - 3.0).collect();
            let b: Vec<f64> = (0..len).map(|i| 2.0 * i as f64 + 1.0).collect();
            let expected: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), expected, "length {len}");
        }
    }
}
