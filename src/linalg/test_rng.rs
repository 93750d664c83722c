//! Deterministic random numbers for the tests (xorshift64*: no dependency, the same numbers on
//! every run and machine). The kernels' unit tests use it as `crate::linalg::test_rng`; the
//! integration tests include this file as their own module (tests/solver/main.rs), so the
//! library does not export test code.

use nalgebra::{DMatrix, DVector};

pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        lo + (hi - lo) * ((u as f64) / ((1u64 << 53) as f64))
    }

    /// Uniform in [-1, 1).
    pub(crate) fn next(&mut self) -> f64 {
        self.uniform(-1.0, 1.0)
    }

    /// Entries uniform in [-1, 1), filled column by column.
    pub(crate) fn matrix(&mut self, rows: usize, cols: usize) -> DMatrix<f64> {
        DMatrix::from_fn(rows, cols, |_, _| self.next())
    }

    pub(crate) fn vector(&mut self, len: usize) -> DVector<f64> {
        DVector::from_fn(len, |_, _| self.next())
    }

    /// `B + B^T` with `B` uniform in [-1, 1).
    pub(crate) fn symmetric(&mut self, k: usize) -> DMatrix<f64> {
        let b = self.matrix(k, k);
        &b + b.transpose()
    }
}
