//! Lagrange multipliers, self-stress modes and which joint reactions are unique.
//!
//! With `M xdd + A^T lambda = f` and the factorisation `A^T P = Q R` the step already has,
//! `lambda` solves `A^T lambda = w`, `w = f - M xdd`. In pivot order `mu = P^T lambda` this is
//! `[R11 R12] mu = Q1^T w` (`R11` the leading `r x r` block, `r` the rank). When `A` has full
//! row rank (`r = m`) that is the unique solution. Otherwise the redundancy `p = m - r` is the
//! dimension of the left null space of `A`: the self-stress modes `u` with `A^T u = 0`,
//! multipliers that load the joints without acting on any body (Wojtyra and Frączek 2013,
//! sect. 3). In pivot order they are spanned by `[-R11^{-1} R12; I_p]`, orthonormalised here
//! (Gram-Schmidt, twice). They depend on `A` only, not on the masses. The basic solution
//! `[R11^{-1} Q1^T w; 0]` minus its components along the modes is the minimum-norm `lambda`,
//! the one this module reports.
//!
//! A joint's reaction (`model::reaction`) is a linear map of its multipliers. Adding any
//! combination of modes changes a component by that map applied to the modes, so a component
//! is unique exactly when the map gives zero on every mode (Wojtyra and Frączek 2013,
//! sect. 3.2; their eq. 27 applies the same test to the generalised force `A_X^T u`). Here a
//! component counts as not unique when some unit mode changes it by more than
//! [`SOLVABILITY_TOLERANCE`] times the largest change any mode makes to any component. On the
//! paper's mobile robot, along its run, the joints whose reactions are unique change by at most
//! 8.9e-15 of that largest change and the others by at least 0.42, so the per-joint verdict does
//! not depend on the exact value. Single components in global axes can pass through zero: a
//! wheel's force is across its edge, so while the robot drives straight the x components of the
//! non-unique wheel forces are exactly zero (and unique); just into a turn they are small (3.4e-5
//! of the largest change, 1.1 s into the run), still far above the tolerance
//! (`cargo test --test solver mobile_robot`).
//!
//! Near a singular configuration the rigid model's reactions can be unbounded, and the
//! reported ones are then large because the model's are, not by round-off. On A02's
//! parallelogram branch (three cranks at angle theta, couplers translating, m = l = 1; I = 3,
//! V = 3.5 g sin(theta), so theta'' = -7 g cos(theta) / 6), Newton-Euler on each bar gives
//! the pin forces across the bars bounded (the couplers' pins share `K_y / 2`,
//! `K = m g_vec - m a_tip`), while the ones along the bars are not: joint A1's on crank 1 is
//! `(cos(theta) K_y / 2 - tau) / sin(theta)`, `tau = theta'' / 3 + g cos(theta) / 2`, which
//! tends to `-g cos(theta) / (36 sin(theta))` and changes sign through the flat pose. At the
//! flat pose itself the rank drops by two: the rigid model still determines the components
//! across the bars (and each coupler's sum along it, `A1.fx + B1.fx = K_x`), but not those
//! along the bars, which the two new self-stress modes change; and no finite multipliers
//! balance the branch's accelerations there (crank 1's moment needs a force `g / 9` across it
//! at its tip, coupler 1's balance gives `K_y / 2 = g / 12`), hence the 1 / sin(theta) growth
//! on either side. `singulab run scenes/double_four_bar.ron --reactions` shows it in the rows
//! next to each event: up to 571 N along A1 at 0.49 mrad from the flat pose and 1082 N at O2,
//! where the median of each row's largest component is 17.4 N; the rows agree with the
//! formula above to 2.5e-4 relative (`cargo test --test solver flat_pose_reactions`). A real
//! mechanism deforms there; a smaller dt only puts rows closer to the flat pose.

use nalgebra::{DMatrix, DVector, DVectorView};

use crate::linalg::PivotedQr;
use crate::model::{Load, MassMatrix, Mechanism};

/// Relative size below which what a self-stress mode does to a reaction component is taken
/// as zero (see the module docs).
pub const SOLVABILITY_TOLERANCE: f64 = 1e-8;

/// Multipliers and self-stress modes at one state, in preallocated buffers.
#[derive(Clone, Debug)]
pub struct Reactions {
    lambda: DVector<f64>,
    /// Orthonormal self-stress modes in the columns `0..p` (original row order).
    modes: DMatrix<f64>,
    /// The same in pivot order.
    modes_piv: DMatrix<f64>,
    redundancy: usize,
    w: DVector<f64>,
    mu: DVector<f64>,
    mass: MassMatrix,
}

impl Reactions {
    pub fn new(mechanism: &Mechanism) -> Self {
        let (n, m) = (mechanism.n(), mechanism.m());
        Self {
            lambda: DVector::zeros(m),
            modes: DMatrix::zeros(m, m),
            modes_piv: DMatrix::zeros(m, m),
            redundancy: 0,
            w: DVector::zeros(n),
            mu: DVector::zeros(m),
            mass: mechanism.mass_matrix().clone(),
        }
    }

    /// The minimum-norm multipliers of the last [`solve`](Self::solve) (length m).
    pub fn lambda(&self) -> &DVector<f64> {
        &self.lambda
    }

    /// The degree of redundancy `p = m - rank`.
    pub fn redundancy(&self) -> usize {
        self.redundancy
    }

    /// Self-stress mode `k < p` (unit length, length m, original row order).
    pub fn mode(&self, k: usize) -> DVectorView<'_, f64> {
        self.modes.column(k)
    }

    /// The self-stress modes of the factorisation `qr` of `A^T` (with `Q` formed) at rank
    /// `rank`.
    pub fn find_modes(&mut self, qr: &PivotedQr, rank: usize) {
        let m = qr.m();
        let r = rank.min(m);
        self.redundancy = m - r;
        let rm = qr.r();
        for k in 0..self.redundancy {
            let column = r + k;
            let mut mode = self.modes_piv.column_mut(k);
            mode.fill(0.0);
            mode[column] = 1.0;
            // R11 v = -R12[:, k] by back substitution.
            for i in (0..r).rev() {
                let mut s = -rm[(i, column)];
                for j in i + 1..r {
                    s -= rm[(i, j)] * mode[j];
                }
                mode[i] = s / rm[(i, i)];
            }
        }
        orthonormalize(&mut self.modes_piv, self.redundancy);
        let perm = qr.permutation();
        for k in 0..self.redundancy {
            for (j, &row) in perm.iter().enumerate() {
                self.modes[(row, k)] = self.modes_piv[(j, k)];
            }
        }
    }

    /// The minimum-norm multipliers at `(t, x, xd)` with accelerations `xdd`, from the
    /// factorisation `qr` of `A(x)^T` (with `Q`) at rank `rank`; also finds the modes.
    pub fn solve(
        &mut self,
        mechanism: &Mechanism,
        qr: &PivotedQr,
        rank: usize,
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        xdd: &DVector<f64>,
        extra_loads: &[Load],
    ) {
        self.find_modes(qr, rank);
        mechanism.forces(t, x, xd, extra_loads, &mut self.w);
        self.mass.update(x);
        self.mass.subtract_product(xdd, &mut self.w);
        let r = rank.min(qr.m());
        let (q, rm) = (qr.q(), qr.r());
        self.mu.fill(0.0);
        for i in 0..r {
            self.mu[i] = q.column(i).dot(&self.w);
        }
        for i in (0..r).rev() {
            let mut s = self.mu[i];
            for j in i + 1..r {
                s -= rm[(i, j)] * self.mu[j];
            }
            self.mu[i] = s / rm[(i, i)];
        }
        for k in 0..self.redundancy {
            let along = self.modes_piv.column(k).dot(&self.mu);
            self.mu.axpy(-along, &self.modes_piv.column(k), 1.0);
        }
        for (j, &row) in qr.permutation().iter().enumerate() {
            self.lambda[row] = self.mu[j];
        }
    }
}

/// Modified Gram-Schmidt, twice, on the first `count` columns of `v`.
fn orthonormalize(v: &mut DMatrix<f64>, count: usize) {
    for _ in 0..2 {
        for k in 0..count {
            for j in 0..k {
                let along = v.column(j).dot(&v.column(k));
                let (left, mut right) = v.columns_range_pair_mut(j, k);
                right.axpy(-along, &left, 1.0);
            }
            let norm = v.column(k).norm();
            v.column_mut(k).unscale_mut(norm);
        }
    }
}

/// Whether each reaction component of one joint is unique, and by how much the self-stress
/// modes can change it.
#[derive(Clone, Debug, PartialEq)]
pub struct JointSolvability {
    pub joint: usize,
    /// Per component (`Mechanism::reaction_components` order): the largest change a unit
    /// self-stress mode makes to it, and whether it is unique.
    pub components: Vec<ComponentSolvability>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComponentSolvability {
    pub name: &'static str,
    pub largest_change: f64,
    pub unique: bool,
}

impl JointSolvability {
    /// Whether every component of the joint's reaction is unique.
    pub fn unique(&self) -> bool {
        self.components.iter().all(|c| c.unique)
    }
}

/// Which reaction components are unique, for every joint with a reaction, with the modes of
/// `reactions` and the Jacobian `a` at `x` (allocates: for analysis and display, not steps).
pub fn solvability(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    a: &DMatrix<f64>,
    reactions: &Reactions,
) -> Vec<JointSolvability> {
    let mut out = Vec::new();
    let mut values = [0.0; 6];
    let mut mode = DVector::zeros(mechanism.m());
    for joint in 0..mechanism.joints().len() {
        let names = mechanism.reaction_components(joint);
        if names.is_empty() {
            continue;
        }
        let mut largest = vec![0.0_f64; names.len()];
        for k in 0..reactions.redundancy() {
            mode.copy_from(&reactions.mode(k));
            let count = mechanism.joint_reaction(joint, x, a, &mode, &mut values);
            for (l, v) in largest.iter_mut().zip(&values[..count]) {
                *l = l.max(v.abs());
            }
        }
        out.push(JointSolvability {
            joint,
            components: names
                .iter()
                .zip(largest)
                .map(|(name, largest_change)| ComponentSolvability {
                    name,
                    largest_change,
                    unique: true,
                })
                .collect(),
        });
    }
    let scale = out
        .iter()
        .flat_map(|j| j.components.iter().map(|c| c.largest_change))
        .fold(0.0, f64::max);
    for component in out.iter_mut().flat_map(|j| j.components.iter_mut()) {
        component.unique = component.largest_change <= SOLVABILITY_TOLERANCE * scale;
    }
    out
}
