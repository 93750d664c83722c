//! Runge-Kutta stages away from singular configurations, in the range space of the
//! constraints: with `W = M^{-1}` (a diagonal mass matrix), the accelerations
//! `xdd = W (f - A^T lambda)`, `(A W A^T) lambda = A W f - gamma`, the solution of
//! `M xdd + A^T lambda = f`, `A xdd = gamma`; for Dopri5's stages also the velocity projection
//! `xd <- xd - A^T mu`, `(A A^T) mu = A xd - b` (Euclidean, as the tangent-space stages'
//! `T T^T xd`, [`projection`](super::projection)).
//!
//! These are the same accelerations as the minimal-coordinate-set ones of
//! [`dynamics`](super::dynamics) (Masarati et al. 2023, eqs. 7-11): both are the unique
//! solution of the constrained equations of motion when the independent rows of `A` have full
//! rank, only computed another way. Only the rows the step start's factorisation found
//! independent (its first `r` pivots) enter `S = A W A^T` (and `A A^T`), which is then positive
//! definite; the redundant rows of a stacked linkage are consistent with them on the manifold.
//! `A` has a handful of non-zeros per column (a coordinate belongs to one body, and a body to
//! the joints at it), and `S` keeps the rows in the scene's order, where a joint's rows meet
//! only those of the joints at the same bodies: forming `S` runs over the entries the Jacobian
//! writes alone (found once per mechanism), and its Cholesky factor stays inside the envelope
//! of `S` ([`factor_leading_block`]; on the 2x3, `A` 32 x 30
//! and `r` 28, `S` has 189 non-zeros in its lower triangle of 406, its factor 191 inside an
//! envelope of 222). One such factorisation costs much less than the pivoted QR of `A^T` and
//! the tangent columns of `Q` it replaces.
//!
//! # RK4's stages are not projected
//!
//! An RK4 stage here takes the accelerations at its state as it is, off the manifold by O(h^2):
//! there they are a smooth function of it, the stages integrate the index-1 equations
//! `A xdd = gamma`, whose exact solutions keep `c` and `A xd - b` at zero, and the projection
//! after the step ([`velocity`](super::velocity)) removes RK4's O(h^5) defect. Projecting each
//! stage as well (simplified Newton with the step start's factorisation, then the velocity
//! projection with a second factorisation, of `A A^T`) cost two thirds of a stage and drifted
//! more on every linkage, with the same events (`docs/measurements.md`, *Alternatives
//! measured*); the step-size scans of [`projection`](super::projection) are as small or
//! smaller.
//!
//! Dopri5's stages stay projected: unprojected, its controller crept at its smallest step
//! towards some singular configurations (the four-bar at dt 1e-3 took 45 steps of 1e-5 s while
//! `rho` fell from 2.3e-3 to 1e-3, each accepted without meeting the tolerance: 59 forced steps
//! over 10 s against 14; the 2x2, 106 against 14).
//!
//! Next to a singular configuration the stages are projected and taken in the tangent space
//! ([`integrator`](super::integrator) says why), so this form serves only at the stages of a
//! step that starts far from one (`rho` at least `SIMPLIFIED_NEWTON_MIN_RHO`, the normals
//! turning slowly over the step, [`projection`](super::projection)), for mechanisms with a
//! constant diagonal mass matrix (planar bodies and points) and no velocity-level rows. There
//! the pivots of `S` are about `rho^2` times the mass ratios or more, far above
//! [`MIN_RELATIVE_PIVOT`]. A stage where a pivot is smaller, or a value is not finite,
//! declines, and the whole step is taken again with the tangent-space stages, so the stages of
//! one step always share one method. Accepted states, events, the bases and everything shown
//! still come from the QR factorisation.
//!
//! `cargo test --lib range_space` compares the accelerations of both forms along every shipped
//! planar scene's run (relative difference below 1e-10 where `rho` is at least 1e-2) and with
//! a moving driver, and checks the velocity projection: on the constraints (`A xd = b`), moved
//! along their normals.

use nalgebra::{DMatrix, DVector};

use super::dynamics::Rhs;
use crate::linalg::PivotedQr;
use crate::linalg::cholesky::{factor_leading_block, solve_factored};
use crate::model::Mechanism;

/// A pivot of a product's Cholesky factorisation at or below this times its largest
/// diagonal entry declines the range-space stage.
const MIN_RELATIVE_PIVOT: f64 = 1e-11;

/// Which product of `A` a solve uses: `A A^T` (velocities) or `A W A^T` (accelerations).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    Euclidean,
    Mass,
}

/// Buffers for the range-space stage: `A A^T` and `A W A^T` and their factors, the rows kept,
/// the sparsity of `A`.
#[derive(Clone, Debug)]
pub(crate) struct RangeSpace {
    inverse_mass: DVector<f64>,
    /// `A_r A_r^T` in its leading `r x r` block (lower triangle), then its Cholesky factor.
    euclidean: DMatrix<f64>,
    /// `A_r W A_r^T` likewise.
    weighted: DMatrix<f64>,
    /// For each coordinate, the rows of `A` that can be non-zero there, ascending: the entries
    /// the Jacobian writes, found once by evaluating it at NaN positions (each entry it writes
    /// is then NaN or a non-zero constant; the others stay exact zeros at every state).
    written: Vec<Vec<usize>>,
    /// The rows of `A` in `S`, ascending; `kept` is where the next stage's are gathered to be
    /// compared with them.
    rows: Vec<usize>,
    kept: Vec<usize>,
    /// For each coordinate, the positions (in `rows`) of the kept rows that can be non-zero
    /// there, ascending.
    rows_of: Vec<Vec<usize>>,
    /// The right-hand side of the solve: `b` for velocities, `gamma` for accelerations.
    gamma: DVector<f64>,
    /// Where each column of the factors of `euclidean` and `weighted` ends
    /// ([`factor_leading_block`]).
    euclidean_ends: Vec<usize>,
    weighted_ends: Vec<usize>,
    /// Multipliers for the kept rows (the first `rows.len()` entries).
    multipliers: Vec<f64>,
    /// `A^T multipliers` or `W A^T multipliers`.
    correction: DVector<f64>,
}

impl RangeSpace {
    /// Buffers for `mechanism`, or `None` where the range-space stage does not apply: a mass
    /// matrix that is not constant and diagonal with positive entries (rigid bodies' Euler
    /// parameters), or velocity-level rows.
    pub fn for_mechanism(mechanism: &Mechanism) -> Option<Self> {
        let mass = mechanism.mass_matrix();
        let positive = mass.diagonal().iter().all(|&m| m > 0.0 && m.is_finite());
        if !mass.is_diagonal() || !positive || mechanism.has_velocity_rows() {
            return None;
        }
        let (n, m) = (mechanism.n(), mechanism.m());
        let mut a = DMatrix::zeros(m, n);
        mechanism.jacobian(&DVector::from_element(n, f64::NAN), &mut a);
        let written = a
            .column_iter()
            .map(|column| (0..m).filter(|&row| column[row] != 0.0).collect())
            .collect();
        Some(Self {
            inverse_mass: mass.diagonal().map(|m| 1.0 / m),
            written,
            kept: Vec::with_capacity(m),
            euclidean: DMatrix::zeros(m, m),
            weighted: DMatrix::zeros(m, m),
            rows: Vec::with_capacity(m),
            rows_of: vec![Vec::with_capacity(m); n],
            gamma: DVector::zeros(m),
            euclidean_ends: vec![0; m],
            weighted_ends: vec![0; m],
            multipliers: vec![0.0; m],
            correction: DVector::zeros(n),
        })
    }

    /// Forms and factorises `A_r W A_r^T` for the Jacobian `a` (m x n), and `A_r A_r^T` too
    /// for [`project_velocities`](Self::project_velocities) if `velocities`, with `A_r` the
    /// rows that `start` (a factorisation at a nearby configuration) found independent at
    /// `rank_tolerance`; returns whether they are positive definite to [`MIN_RELATIVE_PIVOT`]
    /// (the stage may then use this form).
    pub fn factorize(
        &mut self,
        a: &DMatrix<f64>,
        start: &PivotedQr,
        rank_tolerance: f64,
        velocities: bool,
    ) -> bool {
        self.keep_rows(start, start.rank(rank_tolerance));
        let (rows, rows_of, inverse_mass) = (&self.rows, &self.rows_of, &self.inverse_mass);
        let r = rows.len();
        if velocities {
            form_product(&mut self.euclidean, a, rows, rows_of, |_| 1.0);
            if !factor_relative(&mut self.euclidean, r, &mut self.euclidean_ends) {
                return false;
            }
        }
        form_product(&mut self.weighted, a, rows, rows_of, |k| inverse_mass[k]);
        factor_relative(&mut self.weighted, r, &mut self.weighted_ends)
    }

    /// The first `r` pivots of `start`, in ascending row order, and where they meet each
    /// coordinate (rebuilt only when they differ from the last stage's).
    fn keep_rows(&mut self, start: &PivotedQr, r: usize) {
        self.kept.clear();
        self.kept.extend_from_slice(&start.permutation()[..r]);
        self.kept.sort_unstable();
        if self.kept == self.rows {
            return;
        }
        std::mem::swap(&mut self.rows, &mut self.kept);
        for (positions, written) in self.rows_of.iter_mut().zip(&self.written) {
            positions.clear();
            positions.extend(
                self.rows
                    .iter()
                    .enumerate()
                    .filter(|&(_, row)| written.binary_search(row).is_ok())
                    .map(|(p, _)| p),
            );
        }
    }

    /// `multipliers <- (A_r D A_r^T)^-1 (A_r v - gamma_r)`, then
    /// `correction <- D A_r^T multipliers`, with `D` the identity or `W` (`metric`).
    fn solve(&mut self, metric: Metric, a: &DMatrix<f64>, v: &DVector<f64>) {
        let (m, a) = (a.nrows(), a.as_slice());
        let r = self.rows.len();
        let y = &mut self.multipliers[..r];
        for (p, yp) in y.iter_mut().enumerate() {
            *yp = -self.gamma[self.rows[p]];
        }
        for (k, positions) in self.rows_of.iter().enumerate() {
            let column = &a[k * m..(k + 1) * m];
            for &p in positions {
                y[p] += column[self.rows[p]] * v[k];
            }
        }
        let (factor, ends) = match metric {
            Metric::Euclidean => (&self.euclidean, &self.euclidean_ends),
            Metric::Mass => (&self.weighted, &self.weighted_ends),
        };
        solve_factored(factor, r, ends, y);
        for (k, positions) in self.rows_of.iter().enumerate() {
            let column = &a[k * m..(k + 1) * m];
            let sum: f64 = positions.iter().map(|&p| column[self.rows[p]] * y[p]).sum();
            self.correction[k] = match metric {
                Metric::Euclidean => sum,
                Metric::Mass => self.inverse_mass[k] * sum,
            };
        }
    }

    /// Projects `xd` onto `A xd = b` (Euclidean), with `b` the velocity right-hand side at
    /// `t` (zero without moving drivers), `a` the Jacobian last factorised with `velocities`.
    pub fn project_velocities(
        &mut self,
        mechanism: &Mechanism,
        a: &DMatrix<f64>,
        t: f64,
        xd: &mut DVector<f64>,
    ) {
        if mechanism.is_rheonomic() {
            mechanism.velocity_rhs(t, &mut self.gamma);
        } else {
            self.gamma.fill(0.0);
        }
        self.solve(Metric::Euclidean, a, xd);
        *xd -= &self.correction;
    }

    /// Accelerations `xdd` at `(t, x, xd)` with `a` the Jacobian at `x` last factorised.
    /// Returns `false` (and leaves `xdd` unspecified) if they are not finite: the caller then
    /// evaluates the stage in the tangent space, which names the body at fault.
    pub fn acceleration(
        &mut self,
        rhs: &Rhs,
        a: &DMatrix<f64>,
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        xdd: &mut DVector<f64>,
    ) -> bool {
        let mechanism = rhs.mechanism;
        mechanism.forces(t, x, xd, rhs.extra_loads, xdd);
        mechanism.gamma(t, x, xd, &mut self.gamma);
        xdd.component_mul_assign(&self.inverse_mass);
        self.solve(Metric::Mass, a, xdd);
        *xdd -= &self.correction;
        xdd.iter().all(|v| v.is_finite())
    }
}

/// `A_r D A_r^T` into the lower triangle of the leading `r x r` block of `s` (`r` the kept
/// rows), with `D = diag(weight(k))`, summed over the entries of `A` that can be non-zero.
fn form_product(
    s: &mut DMatrix<f64>,
    a: &DMatrix<f64>,
    rows: &[usize],
    rows_of: &[Vec<usize>],
    weight: impl Fn(usize) -> f64,
) {
    let (m, r, a) = (a.nrows(), rows.len(), a.as_slice());
    let entries = s.as_mut_slice();
    for q in 0..r {
        entries[q * m + q..q * m + r].fill(0.0);
    }
    for (k, positions) in rows_of.iter().enumerate() {
        let (w, column) = (weight(k), &a[k * m..(k + 1) * m]);
        for (index, &p) in positions.iter().enumerate() {
            let wa = w * column[rows[p]];
            for &q in &positions[..=index] {
                entries[q * m + p] += wa * column[rows[q]];
            }
        }
    }
}

/// Factorises the leading `r x r` block of `s` in place (column ends into `ends`); whether every pivot is above
/// [`MIN_RELATIVE_PIVOT`] times its largest diagonal entry.
fn factor_relative(s: &mut DMatrix<f64>, r: usize, ends: &mut [usize]) -> bool {
    let largest = (0..r).map(|p| s[(p, p)]).fold(0.0, f64::max);
    factor_leading_block(s, r, MIN_RELATIVE_PIVOT * largest, ends).is_ok()
}

#[cfg(test)]
mod tests {
    //! The range-space form against the tangent-space form of [`dynamics`](super::super::dynamics)
    //! (itself tested against A02's closed form there), at the states of every shipped planar
    //! scene's run, where `rho` is at least 1e-2 (where the stages use it); and the velocity
    //! projection against what it must be: on the constraints, moved along their normals.

    use super::*;
    use crate::solver::dynamics::Evaluator;
    use crate::solver::{Settings, Simulation};

    const PLANAR_SCENES: [&str; 8] = [
        "double_four_bar",
        "four_bar",
        "modified_2x2",
        "modified_2x3",
        "modified_double_four_bar",
        "modified_triple_four_bar",
        "planar_pendulum",
        "redundant_pendulum",
    ];

    fn scene(name: &str) -> crate::scene::Scene {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(format!("{name}.ron"));
        crate::scene::load_scene(&path).expect("shipped scene")
    }

    /// The accelerations at `sim`'s state from the tangent-space form and from `range`
    /// (factorised with the state's own factorisation as the start), as (expected, got).
    fn both_accelerations(sim: &Simulation, range: &mut RangeSpace) -> [DVector<f64>; 2] {
        let (mechanism, settings) = (sim.mechanism(), sim.settings());
        let rhs = Rhs {
            mechanism,
            extra_loads: &[],
            settings,
        };
        let (n, m) = (mechanism.n(), mechanism.m());
        let (t, x, xd) = (sim.time(), sim.positions(), sim.velocities());
        let mut a = DMatrix::zeros(m, n);
        mechanism.jacobian(x, &mut a);
        let mut evaluator = Evaluator::new(mechanism);
        evaluator.qr.factorize_transposed(&a);
        let [mut expected, mut got] = [DVector::zeros(n), DVector::zeros(n)];
        evaluator
            .acceleration(&rhs, t, x, xd, None, &mut expected)
            .expect("evaluates");
        assert!(range.factorize(&a, sim.factorization(), settings.rank_tolerance, false));
        assert!(range.acceleration(&rhs, &a, t, x, xd, &mut got));
        [expected, got]
    }

    #[test]
    fn accelerations_match_the_tangent_space_form_along_every_planar_run() {
        for name in PLANAR_SCENES {
            let scene = scene(name);
            let mut range = RangeSpace::for_mechanism(&scene.mechanism).expect("planar: applies");
            let mut sim = scene.simulation_with(Settings::default()).expect("starts");
            let (mut compared, mut worst) = (0, 0.0_f64);
            for step in 0..2000 {
                sim.step().expect("steps");
                if step % 10 != 0 || sim.rho() < 1e-2 {
                    continue;
                }
                let [expected, got] = both_accelerations(&sim, &mut range);
                worst = worst.max((&got - &expected).amax() / expected.amax().max(1.0));
                compared += 1;
            }
            assert!(compared > 50, "{name}: {compared} states compared");
            assert!(worst < 1e-10, "{name}: relative difference {worst:e}");
        }
    }

    #[test]
    fn projected_velocities_satisfy_the_constraints_and_move_along_the_normals() {
        let settings = Settings::default();
        for name in ["modified_2x3", "four_bar"] {
            let scene = scene(name);
            let mechanism = scene.mechanism.clone();
            let mut range = RangeSpace::for_mechanism(&mechanism).expect("planar: applies");
            let mut sim = scene.simulation_with(settings.clone()).expect("starts");
            for _ in 0..137 {
                sim.step().expect("steps");
            }
            let (n, m) = (mechanism.n(), mechanism.m());
            let mut a = DMatrix::zeros(m, n);
            mechanism.jacobian(sim.positions(), &mut a);
            assert!(range.factorize(&a, sim.factorization(), settings.rank_tolerance, true));
            let original =
                sim.velocities() + DVector::from_fn(n, |i, _| ((i * 7) % 5) as f64 - 2.0);
            let mut xd = original.clone();
            range.project_velocities(&mechanism, &a, sim.time(), &mut xd);
            assert!((&a * &xd).amax() < 1e-12 * original.amax(), "{name}: A xd");
            // The correction is A^T mu: orthogonal to the tangent space (from the QR).
            let tangent = sim.factorization().q_columns(sim.rank());
            let along = tangent.transpose() * (&original - &xd);
            assert!(
                along.amax() < 1e-12 * original.amax(),
                "{name}: T^T dxd {along}"
            );
        }
    }

    /// The mobile robot of `scenes/mobile_robot.ron` without its knife edges: a planar
    /// mechanism with a moving driver (the slider's law), so `b` and `gamma` carry `d'(t)` and
    /// `d''(t)`.
    fn driven_linkage() -> crate::scene::Scene {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/mobile_robot.ron");
        let text = std::fs::read_to_string(path).expect("shipped scene");
        let without_knives: String = text
            .lines()
            .filter(|line| !line.contains("KnifeEdge("))
            .map(|line| format!("{line}\n"))
            .collect();
        crate::scene::parse_scene("driven.ron", &without_knives).expect("loads")
    }

    #[test]
    fn with_a_moving_driver_both_forms_agree_and_velocities_meet_the_drivers_rate() {
        let scene = driven_linkage();
        let mechanism = scene.mechanism.clone();
        assert!(mechanism.is_rheonomic() && !mechanism.has_velocity_rows());
        let mut range = RangeSpace::for_mechanism(&mechanism).expect("planar: applies");
        let mut sim = scene.simulation_with(Settings::default()).expect("starts");
        // The driver's law moves between 1 and 2 s (its first smooth step).
        while sim.time() < 1.5 {
            sim.step().expect("steps");
        }
        let [expected, got] = both_accelerations(&sim, &mut range);
        let difference = (&got - &expected).amax() / expected.amax();
        assert!(difference < 1e-10, "relative difference {difference:e}");
        let (n, m, t) = (mechanism.n(), mechanism.m(), sim.time());
        let mut b = DVector::zeros(m);
        mechanism.velocity_rhs(t, &mut b);
        assert!(
            b.amax() > 1e-3,
            "the driver moves at t = {t}: b = {}",
            b.amax()
        );
        let mut a = DMatrix::zeros(m, n);
        mechanism.jacobian(sim.positions(), &mut a);
        assert!(range.factorize(
            &a,
            sim.factorization(),
            Settings::default().rank_tolerance,
            true
        ));
        let offset = DVector::from_fn(n, |i, _| 0.01 * (((i * 3) % 7) as f64 - 3.0));
        let mut projected = sim.velocities() + offset;
        range.project_velocities(&mechanism, &a, t, &mut projected);
        let violation = (&a * &projected - &b).amax();
        assert!(violation < 1e-13, "A xd - b = {violation:e}");
    }

    #[test]
    fn it_does_not_apply_to_rigid_bodies_nor_knife_edges() {
        for name in ["spin_top", "mobile_robot", "spatial_pendulum"] {
            let scene = scene(name);
            let applies = RangeSpace::for_mechanism(&scene.mechanism).is_some();
            let rigid_or_knife =
                scene.mechanism.has_rigid_bodies() || scene.mechanism.has_velocity_rows();
            assert_eq!(applies, !rigid_or_knife, "{name}");
        }
    }
}
