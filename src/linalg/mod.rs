//! Dense linear-algebra kernels the solver needs, written over nalgebra storage so that they run
//! in preallocated workspaces (no heap allocation after construction).
//!
//! - [`pivoted_qr`]: Householder QR with column-norm (Businger-Golub) pivoting of `A^T`, full `Q`.
//! - [`sym_eigen`]: cyclic Jacobi eigen-decomposition of small symmetric matrices.
//! - [`cholesky`]: in-place Cholesky solve of small symmetric positive-definite systems, and a
//!   factorisation kept for several solves that skips the zeros of sparse matrices.
//! - `kernels`: the vectorisable dot product they share.

pub mod cholesky;
mod kernels;
pub mod pivoted_qr;
pub mod sym_eigen;
#[cfg(test)]
mod test_rng;

pub use pivoted_qr::PivotedQr;
