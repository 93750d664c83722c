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

#[cfg(test)]
mod tests {
    use super::dot;

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
