//! The mass matrix: block diagonal, with a constant diagonal for point masses, planar bars and
//! the centres of mass of rigid bodies, and a configuration-dependent 4 x 4 block
//! `4 G(e)^T J' G(e)` per rigid body's Euler parameters (Nikravesh 1988, sect. 11.3).

use nalgebra::{DMatrix, DMatrixView, DVector, Matrix3, Matrix4, Vector4};

use super::rigid;

/// One rigid body's rotational block.
#[derive(Clone, Debug, PartialEq)]
struct RotationBlock {
    /// Index of `e0` in `x`.
    offset: usize,
    inertia: Matrix3<f64>,
    block: Matrix4<f64>,
}

/// The mass matrix at one configuration (`update` brings it to another without allocating).
#[derive(Clone, Debug, PartialEq)]
pub struct MassMatrix {
    /// Diagonal entries; zero on the Euler parameters, whose mass is in `rotations`.
    diagonal: DVector<f64>,
    rotations: Vec<RotationBlock>,
}

impl MassMatrix {
    /// A mass matrix with the given diagonal and no rotational blocks.
    pub fn diagonal_only(diagonal: DVector<f64>) -> Self {
        Self {
            diagonal,
            rotations: Vec::new(),
        }
    }

    /// Adds a rigid body's rotational block for the Euler parameters at `offset`.
    pub fn add_rotation(&mut self, offset: usize, inertia: Matrix3<f64>) {
        self.rotations.push(RotationBlock {
            offset,
            inertia,
            block: Matrix4::zeros(),
        });
    }

    /// The constant diagonal (zero on Euler parameters).
    pub fn diagonal(&self) -> &DVector<f64> {
        &self.diagonal
    }

    /// Whether the matrix is constant and diagonal (no rigid bodies).
    pub fn is_diagonal(&self) -> bool {
        self.rotations.is_empty()
    }

    /// Recomputes the rotational blocks at the positions `x`.
    pub fn update(&mut self, x: &DVector<f64>) {
        for rotation in &mut self.rotations {
            let o = rotation.offset;
            let e = Vector4::new(x[o], x[o + 1], x[o + 2], x[o + 3]);
            rotation.block = rigid::mass_block(&e, &rotation.inertia);
        }
    }

    /// `out -= M v`.
    pub fn subtract_product(&self, v: &DVector<f64>, out: &mut DVector<f64>) {
        for i in 0..out.len() {
            out[i] -= self.diagonal[i] * v[i];
        }
        self.subtract_block_product(v, out);
    }

    /// `out -= B v` for the rotational blocks `B` only.
    pub fn subtract_block_product(&self, v: &DVector<f64>, out: &mut DVector<f64>) {
        for rotation in &self.rotations {
            let o = rotation.offset;
            let product = rotation.block * v.fixed_rows::<4>(o);
            let mut target = out.fixed_rows_mut::<4>(o);
            target -= product;
        }
    }

    /// Adds `T^T B T` of the rotational blocks `B` to the leading `dof x dof` block of
    /// `out`, with `T` = `tangent` (n x dof).
    pub fn add_block_projection(&self, tangent: &DMatrixView<f64>, out: &mut DMatrix<f64>) {
        let dof = tangent.ncols();
        for rotation in &self.rotations {
            let rows = tangent.fixed_rows::<4>(rotation.offset);
            for i in 0..dof {
                let bi = rotation.block * rows.column(i);
                for j in 0..=i {
                    let s = bi.dot(&rows.column(j));
                    out[(i, j)] += s;
                    if i != j {
                        out[(j, i)] += s;
                    }
                }
            }
        }
    }
}
