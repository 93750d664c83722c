//! Branches through a singular configuration: of the admissible motions at an event (first
//! order, `A t = 0`), the directions along which the mechanism can actually leave it.
//!
//! A curve `x(s)` on the constraint manifold through the event state with tangent `t`
//! satisfies `A t = 0` and, differentiating `A x' = 0` once more, `A x'' = gamma(x, t)`
//! (`gamma = -(dA/ds) x'`, the acceleration term of the dynamics). For every `u` in the left
//! null space of `A` (`u^T A = 0`, from the eigenvectors of `A A^T`) this leaves the
//! second-order condition `u^T gamma(x, t) = 0`, a quadratic form in the coefficients of `t` in
//! the admissible basis. At a bifurcation (the four-bar at its flat pose) these forms vanish on
//! two or more lines, the branch tangents; where the new motions are first order only (a crank
//! pinned to a rigid coupler beside two others), no line leaves the continued space. Only the
//! branches that are not the continuation are returned: the continued columns already show it.
//! They are listed in the order of the first body they set moving, each signed so that it
//! continues the sense of the motion that reached the event (positive `t^T M xd`), so that
//! "branch 2, forward" means the same motion whatever step size reached the event.
//!
//! # The search
//!
//! The common zeros of the forms are found by Gauss-Newton on the unit sphere from 256
//! deterministic starts; a zero counts when every form is below 1e-8 of the largest, two
//! closer than 1e-3 are one, and a branch other than the continuation has a component of at
//! least 1e-2 on the new motions. Isolated common zeros of quadrics in `k` coefficients are at
//! most `2^(k-1)` lines (Bezout), so more distinct zeros than that mean the branches fill
//! surfaces (two independent four-bars flat at once gave 183 scattered zeros): they are
//! reported as families, none listed. A02's second fold keeps the first loop flat; there the
//! two conics touch and Gauss-Newton converges only to about 1e-6, which the merging absorbs.
//!
//! The small-angle geometry of the linkages gives the expected answer, which
//! `cargo test --test solver branches` checks: with crank angles `th_1` and coupler angle
//! `phi` from the flat pose, a coupler joining two crank tips needs `th_1 phi = 0` (fold or
//! parallelogram), one carrying a third tip also `phi^2 + 2 th_1 phi = 0`, so `phi = 0`. So
//! the four-bar has one branch besides the continuation (the fold), A02 one per loop at its
//! flat poses, and the modified linkages none.
//!
//! The search allocates and costs far more than a step (milliseconds per event on the 2x3,
//! docs/measurements.md), so it runs once per event, on request (the app, `singulab run --events`), not in
//! the step. [`Simulation::leave_along`](super::Simulation::leave_along) sends the mechanism
//! along a branch.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use super::events::SingularEvent;
use crate::model::Mechanism;

/// A branch leaving the singular configuration, other than the continuation.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// Unit tangent in the coordinates `x` (either sign is a way out).
    pub direction: DVector<f64>,
    /// Its coefficients on the event's admissible motions (continued columns, then new).
    pub coefficients: DVector<f64>,
}

/// What the search found at an event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BranchSearch {
    /// The isolated branches other than the continuation.
    pub branches: Vec<Branch>,
    /// More distinct common zeros than isolated lines can number (Bezout): the branches
    /// fill surfaces there (two four-bars side by side going flat together), and none is
    /// listed.
    pub families: bool,
}

/// A branch's direction and coefficients, signed so that "forward" continues the sense of
/// the motion that reached the event: positive kinetic-energy product `t^T M xd` with its
/// velocity (the motion's basis columns, and so the coefficients' signs, depend on the step
/// size that reached the event). From rest (kinetic energy at most `REST_KINETIC_ENERGY`), the
/// largest coordinate change is positive.
fn oriented(
    mechanism: &Mechanism,
    event: &SingularEvent,
    basis: &DMatrix<f64>,
    mut alpha: DVector<f64>,
) -> Branch {
    let mut direction = basis * &alpha;
    let along = mechanism.kinetic_energy(&event.x, &(&direction + &event.xd))
        - mechanism.kinetic_energy(&event.x, &direction)
        - mechanism.kinetic_energy(&event.x, &event.xd);
    let kinetic = mechanism.kinetic_energy(&event.x, &event.xd);
    let speed_scale = 2.0 * kinetic;
    let moving = kinetic > REST_KINETIC_ENERGY;
    let backward = if moving && along.abs() > SAME_SENSE * speed_scale.sqrt() {
        along < 0.0
    } else {
        let largest = direction
            .iter()
            .fold(0.0f64, |a, &b| if b.abs() > a.abs() { b } else { a });
        largest < 0.0
    };
    if backward {
        direction.neg_mut();
        alpha.neg_mut();
    }
    Branch {
        direction,
        coefficients: alpha,
    }
}

/// The first coordinate a branch moves by at least a tenth of its largest change: branches
/// are listed in the order of the bodies they set moving, the same at any step size.
fn first_moved_coordinate(direction: &DVector<f64>) -> usize {
    let largest = direction.amax();
    direction
        .iter()
        .position(|d| d.abs() >= 0.1 * largest)
        .unwrap_or(0)
}

/// Below this `|t^T M xd| / sqrt(xd^T M xd)` the motion before says nothing about the sense.
const SAME_SENSE: f64 = 1e-6;

/// Kinetic energy (J) at or below which an event state is at rest (1 kg at 1.4 um/s): a
/// mechanism that comes to rest at a singular configuration (`four_bar_stopping`) reaches it
/// with a velocity of round-off size (1.5e-8 m/s there), whose sign depends on the step that
/// reached it, not on the motion.
const REST_KINETIC_ENERGY: f64 = 1e-12;

/// Starting points of the search for common zeros (deterministic).
const STARTS: usize = 256;
/// Gauss-Newton iterations from each start.
const ITERATIONS: usize = 40;
/// A common zero: every form below this, relative to the largest form.
const ZERO: f64 = 1e-8;
/// A branch leaves the continued space when its new coefficients have at least this norm.
const LEAVES_CONTINUATION: f64 = 1e-2;
/// Two unit directions closer than this are one branch.
const SAME_BRANCH: f64 = 1e-3;

/// The branches through `event`'s configuration that are not its continuation.
pub fn branches(mechanism: &Mechanism, event: &SingularEvent) -> BranchSearch {
    let (n, m) = (mechanism.n(), mechanism.m());
    let continued = event.continued();
    let new = event.new_motions();
    let (k_cont, k) = (continued.ncols(), continued.ncols() + new.ncols());
    if new.ncols() == 0 || m == 0 {
        return BranchSearch::default();
    }
    let mut basis = DMatrix::zeros(n, k);
    basis.columns_mut(0, k_cont).copy_from(&continued);
    basis.columns_mut(k_cont, k - k_cont).copy_from(&new);

    let mut a = DMatrix::zeros(m, n);
    mechanism.jacobian(&event.x, &mut a);
    let curvature = |t: &DVector<f64>, out: &mut DVector<f64>| {
        mechanism.gamma(event.t, &event.x, t, out);
    };
    let forms = second_order_forms(&a, event.rank, &basis, curvature);
    let found: Vec<DVector<f64>> = common_zero_lines(&forms)
        .into_iter()
        .filter(|alpha| alpha.rows(k_cont, k - k_cont).norm() >= LEAVES_CONTINUATION)
        .collect();
    // Isolated common zeros of quadrics in k coefficients are at most 2^(k-1) lines
    // (Bezout); more distinct ones mean the zeros fill surfaces, found at scattered points
    // of them. (A tangential zero, like the fold of A02's second loop that keeps the first
    // loop flat, is isolated but found to only about 1e-6: its points merge into one.)
    let families = found.len() > 1 << (k - 1);
    let found = if families { Vec::new() } else { found };
    let mut branches: Vec<Branch> = found
        .into_iter()
        .map(|alpha| oriented(mechanism, event, &basis, alpha))
        .collect();
    branches.sort_by_key(|b| first_moved_coordinate(&b.direction));
    BranchSearch { branches, families }
}

/// `Q_j[a][b] = u_j^T gamma(x; N_a, N_b)` for each left null vector `u_j` of the Jacobian
/// `a` of rank `rank` (the `m - rank` eigenvectors of `A A^T` of the smallest eigenvalues),
/// `N` the columns of `basis`, by polarisation of the quadratic `gamma(x, t)` that
/// `curvature(t, out)` writes (a driver's `d''(t)` is the same in every call and cancels).
pub(crate) fn second_order_forms(
    a: &DMatrix<f64>,
    rank: usize,
    basis: &DMatrix<f64>,
    mut curvature: impl FnMut(&DVector<f64>, &mut DVector<f64>),
) -> Vec<DMatrix<f64>> {
    let m = a.nrows();
    let k = basis.ncols();
    let eigen = SymmetricEigen::new(a * a.transpose());
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| eigen.eigenvalues[i].total_cmp(&eigen.eigenvalues[j]));
    let null_count = m.saturating_sub(rank);
    let mut gamma_plus = DVector::zeros(m);
    let mut gamma_minus = DVector::zeros(m);
    // gamma of every pair, shared by all forms.
    let mut pairs = vec![DVector::zeros(m); k * k];
    for p in 0..k {
        for q in p..k {
            let plus = basis.column(p) + basis.column(q);
            let minus = basis.column(p) - basis.column(q);
            curvature(&plus, &mut gamma_plus);
            curvature(&minus, &mut gamma_minus);
            pairs[p * k + q] = (&gamma_plus - &gamma_minus) * 0.25;
        }
    }
    order[..null_count]
        .iter()
        .map(|&i| {
            let u = eigen.eigenvectors.column(i);
            DMatrix::from_fn(k, k, |p, q| {
                let (p, q) = (p.min(q), p.max(q));
                u.dot(&pairs[p * k + q])
            })
        })
        .collect()
}

/// The lines through the origin on which every form of `forms` vanishes (the branch tangents,
/// as unit coefficient vectors, each with its largest coefficient positive), distinct and in
/// a deterministic order (by their coefficients, the first one first): found by Gauss-Newton
/// from [`STARTS`] deterministic starts. Empty when every form is zero.
pub(crate) fn common_zero_lines(forms: &[DMatrix<f64>]) -> Vec<DVector<f64>> {
    let scale = forms.iter().map(DMatrix::norm).fold(0.0, f64::max);
    let Some(k) = forms.first().map(DMatrix::ncols).filter(|_| scale > 0.0) else {
        return Vec::new();
    };
    let mut found: Vec<DVector<f64>> = Vec::new();
    let mut seed: u64 = 0x5EED;
    for _ in 0..STARTS {
        let start = DVector::from_fn(k, |_, _| uniform(&mut seed) - 0.5);
        let Some(mut alpha) = common_zero(forms, start) else {
            continue;
        };
        let residual = forms
            .iter()
            .map(|q| quadratic(q, &alpha).abs())
            .fold(0.0, f64::max);
        if residual > ZERO * scale {
            continue;
        }
        // One sign per line: the largest coefficient positive.
        let largest = alpha
            .iter()
            .fold(0.0f64, |a, &b| if b.abs() > a.abs() { b } else { a });
        if largest < 0.0 {
            alpha.neg_mut();
        }
        if !found.iter().any(|b| (b - &alpha).norm() < SAME_BRANCH) {
            found.push(alpha);
        }
    }
    found.sort_by(|a, b| {
        a.iter()
            .zip(b.iter())
            .map(|(x, y)| y.total_cmp(x))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    found
}

/// `alpha^T Q alpha`.
fn quadratic(q: &DMatrix<f64>, alpha: &DVector<f64>) -> f64 {
    alpha.dot(&(q * alpha))
}

/// Gauss-Newton on `alpha^T Q_j alpha = 0` for all `j` and `|alpha| = 1`, from `start`.
fn common_zero(forms: &[DMatrix<f64>], start: DVector<f64>) -> Option<DVector<f64>> {
    let k = start.len();
    let norm = start.norm();
    if norm == 0.0 {
        return None;
    }
    let mut alpha = start / norm;
    let rows = forms.len() + 1;
    let mut jacobian = DMatrix::zeros(rows, k);
    let mut residual = DVector::zeros(rows);
    for _ in 0..ITERATIONS {
        for (j, q) in forms.iter().enumerate() {
            let q_alpha = q * &alpha;
            residual[j] = alpha.dot(&q_alpha);
            jacobian.row_mut(j).copy_from(&(2.0 * q_alpha).transpose());
        }
        residual[rows - 1] = alpha.norm_squared() - 1.0;
        jacobian
            .row_mut(rows - 1)
            .copy_from(&(2.0 * &alpha).transpose());
        let step = jacobian
            .clone()
            .svd(true, true)
            .solve(&residual, 1e-12)
            .ok()?;
        alpha -= step;
        if !alpha.iter().all(|v| v.is_finite()) {
            return None;
        }
    }
    let norm = alpha.norm();
    (norm > 0.0).then(|| alpha / norm)
}

/// A uniform number in [0, 1) from a 64-bit linear congruential generator (Knuth's MMIX).
fn uniform(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}
