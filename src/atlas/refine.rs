//! Refining a located singular point beyond what the minimum of `rho` resolves.
//!
//! Golden-section search on `rho` along a curve finds the singular point only as well as the
//! curve's points are on the set: next to it one normal's `R` entry vanishes, and Newton's
//! residual tolerance `eps` leaves the points up to `sqrt(eps / curvature)` off along that
//! normal (about 1e-6 rad at the default 1e-12). The point itself is the isolated solution
//! of `c(x) = 0` together with `g(x) = U^T A(x) V = 0`, `U` and `V` the singular vectors of
//! `A` whose singular values vanish there (every one from the rank at the point on: the
//! whole block, as two vanish together at A02's crossings, one of them all along a curve that
//! stays singular, and a redundant scene's are zero everywhere), frozen at each iterate: on the set, `g` changes sign through the point, as the singular value's
//! signed twin. Gauss-Newton on `[c; g]` with the pseudo-inverse of `[A; grad g]`: its
//! gradient `u^T c''(v, e_k)` comes from the section's curvature by polarisation,
//! `c''(v, w) = -(gamma(v + w) - gamma(v - w)) / 4`. The Jacobian is itself singular at the
//! point (rank `n - 1`: the set's two tangents there differ in `c`'s second order only), so
//! the iteration converges linearly; it runs until the step is at round-off.

use nalgebra::{DMatrix, DVector};

use super::section::Section;

/// Gauss-Newton iterations at most, and the step (`|dx|_inf`) at which they stop.
const ITERATIONS: usize = 100;
const CONVERGED_STEP: f64 = 1e-14;
/// A refinement that moves the point farther than this from where the search left it has
/// left the singular point: the search's point stands.
const MAX_MOVE: f64 = 1e-4;
/// Singular values below this fraction of the largest are left out of the pseudo-inverse.
const PSEUDO_INVERSE_TOLERANCE: f64 = 1e-12;

/// The singular point near `x` where the singular values of the section's Jacobian from
/// `low` on (in decreasing order; `low` the rank at the point, `high` the generic rank: two
/// vanish at A02's crossings, where both loops lie flat) vanish, or `None` when the iteration
/// leaves its neighbourhood.
pub(super) fn refine(
    section: &mut Section,
    x: &DVector<f64>,
    low: usize,
    high: usize,
) -> Option<DVector<f64>> {
    let n = section.n();
    // With redundant rows the singular values that vanish at the point sit beside those that
    // are zero everywhere (their `u^T A` is zero: rows of zeros below), and with two nearly
    // equal neither pair alone is defined: the block takes every one from `low` on.
    let total = section.c.len().min(n).max(high);
    let count = total.checked_sub(low).filter(|&k| k > 0)?;
    let extra = count * count;
    let mut point = x.clone();
    let mut gamma_plus = DVector::zeros(section.c.len());
    let mut gamma_minus = DVector::zeros(section.c.len());
    let mut w = DVector::zeros(n);
    for _ in 0..ITERATIONS {
        section.residual(&point);
        section.jacobian(&point);
        let m = section.a.nrows();
        let svd = section.a.clone().svd(true, true);
        let (u_all, v_t) = (svd.u.as_ref()?, svd.v_t.as_ref()?);
        let mut order: Vec<usize> = (0..svd.singular_values.len()).collect();
        order.sort_by(|&i, &j| svd.singular_values[j].total_cmp(&svd.singular_values[i]));
        let vanishing = order.get(low..total)?;
        let mut jacobian = DMatrix::zeros(m + extra, n);
        jacobian.rows_mut(0, m).copy_from(&section.a);
        let mut residual = DVector::zeros(m + extra);
        residual.rows_mut(0, m).copy_from(&section.c);
        // The whole block `U^T A V` of the vanishing pairs: with two of them (nearly) equal,
        // each pair alone is not defined, the block's subspaces are.
        let pairs = vanishing
            .iter()
            .flat_map(|&i| vanishing.iter().map(move |&j| (i, j)));
        for (row, (i, j)) in pairs.enumerate() {
            let u = u_all.column(i).into_owned();
            let v = v_t.row(j).transpose();
            residual[m + row] = u.dot(&(&section.a * &v));
            for k in 0..n {
                w.fill(0.0);
                w[k] = 1.0;
                section.curvature(&point, &(&v + &w), &mut gamma_plus);
                section.curvature(&point, &(&v - &w), &mut gamma_minus);
                jacobian[(m + row, k)] = -0.25 * u.dot(&(&gamma_plus - &gamma_minus));
            }
        }
        let svd = jacobian.svd(true, true);
        let largest = svd.singular_values.max();
        let step = svd
            .solve(&residual, PSEUDO_INVERSE_TOLERANCE * largest)
            .ok()?;
        point -= &step;
        if !point.iter().all(|v| v.is_finite()) || (&point - x).amax() > MAX_MOVE {
            return None;
        }
        if step.amax() <= CONVERGED_STEP {
            break;
        }
    }
    Some(point)
}
