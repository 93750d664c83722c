//! The equations of one section of the configuration set: the mechanism's configuration rows
//! ([`Mechanism::configuration_rows`]) and the held coordinates `x_i = v_i`, with their
//! residual, Jacobian, curvature and the minimum-norm Newton corrector, in a workspace sized
//! once.

use nalgebra::{DMatrix, DVector};

use crate::linalg::PivotedQr;
use crate::model::Mechanism;

/// The rows of a section and the workspace that evaluates and factorises them.
pub(super) struct Section<'a> {
    mechanism: &'a Mechanism,
    rows: &'a [usize],
    holds: Vec<(usize, f64)>,
    full_c: DVector<f64>,
    full_a: DMatrix<f64>,
    full_gamma: DVector<f64>,
    /// The section's residual and Jacobian at the last point evaluated.
    pub c: DVector<f64>,
    pub a: DMatrix<f64>,
    /// The factorisation of `A^T` at the last point factorised.
    pub qr: PivotedQr,
    c_piv: DVector<f64>,
    y: Vec<f64>,
    dx: DVector<f64>,
    saved: DVector<f64>,
}

/// What Newton's corrector is allowed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Corrector {
    /// `|c|_inf` at which a point is on the set.
    pub tolerance: f64,
    /// Normals whose `R` entry is below this fraction of `|R_00|` are left out of a first
    /// attempt (no division by a vanishing entry next to a singular point).
    pub truncation: f64,
    /// Normals below this (the rank tolerance) are redundant and always left out.
    pub redundant: f64,
    /// The largest move (`|dx|_inf`) a correction may make before it counts as failed.
    pub max_move: f64,
}

/// Iterations of a first, truncated attempt; then of the attempt with every normal not
/// redundant, which converges only linearly along a curve that stays singular.
const TRUNCATED_ITERATIONS: usize = 8;
const FULL_ITERATIONS: usize = 60;

impl<'a> Section<'a> {
    pub fn new(mechanism: &'a Mechanism, rows: &'a [usize], holds: Vec<(usize, f64)>) -> Self {
        let (n, m) = (mechanism.n(), rows.len() + holds.len());
        Self {
            mechanism,
            rows,
            holds,
            full_c: DVector::zeros(mechanism.m()),
            full_a: DMatrix::zeros(mechanism.m(), n),
            full_gamma: DVector::zeros(mechanism.m()),
            c: DVector::zeros(m),
            a: DMatrix::zeros(m, n),
            qr: PivotedQr::new(n, m),
            c_piv: DVector::zeros(m),
            y: vec![0.0; m],
            dx: DVector::zeros(n),
            saved: DVector::zeros(n),
        }
    }

    pub fn n(&self) -> usize {
        self.mechanism.n()
    }

    /// Writes the residual at `x` into `c`; returns `|c|_inf`.
    pub fn residual(&mut self, x: &DVector<f64>) -> f64 {
        self.mechanism.residual(0.0, x, &mut self.full_c);
        for (k, &row) in self.rows.iter().enumerate() {
            self.c[k] = self.full_c[row];
        }
        let held = self.rows.len();
        for (k, &(coordinate, value)) in self.holds.iter().enumerate() {
            self.c[held + k] = x[coordinate] - value;
        }
        self.c.amax()
    }

    /// Writes the Jacobian at `x` into `a`.
    pub fn jacobian(&mut self, x: &DVector<f64>) {
        self.mechanism.jacobian(x, &mut self.full_a);
        for (k, &row) in self.rows.iter().enumerate() {
            self.a.row_mut(k).copy_from(&self.full_a.row(row));
        }
        let held = self.rows.len();
        for (k, &(coordinate, _)) in self.holds.iter().enumerate() {
            self.a.row_mut(held + k).fill(0.0);
            self.a[(held + k, coordinate)] = 1.0;
        }
    }

    /// Factorises `A(x)^T` with its whole `Q` (the tangent space is its last columns).
    pub fn factorize(&mut self, x: &DVector<f64>) {
        self.jacobian(x);
        self.qr.factorize_transposed(&self.a);
    }

    /// `|R[k, k]| / |R[0, 0]|` of the last factorisation.
    pub fn relative_entry(&self, k: usize) -> f64 {
        let r0 = self.qr.r_diag_abs(0);
        if r0 == 0.0 {
            0.0
        } else {
            self.qr.r_diag_abs(k) / r0
        }
    }

    /// The section's curvature `gamma(x, t) = -(dA/dx t) t` on its rows (zero on the held
    /// coordinates, which are linear).
    pub fn curvature(&mut self, x: &DVector<f64>, t: &DVector<f64>, out: &mut DVector<f64>) {
        self.mechanism.gamma(0.0, x, t, &mut self.full_gamma);
        out.fill(0.0);
        for (k, &row) in self.rows.iter().enumerate() {
            out[k] = self.full_gamma[row];
        }
    }

    /// Minimum-norm Newton from `x` onto the section: `x <- x - Q1 R1^{-T} c_piv` (Allgower
    /// and Georg 1990, sect. 3.3, the Moore-Penrose corrector), first with the normals above
    /// the truncation, then, if that does not converge, with every normal not redundant.
    /// Returns the iterations, or `None` (and `x` unchanged) when neither converges.
    pub fn correct(&mut self, x: &mut DVector<f64>, corrector: &Corrector) -> Option<usize> {
        self.saved.copy_from(x);
        for (truncation, iterations) in [
            (corrector.truncation, TRUNCATED_ITERATIONS),
            (corrector.redundant, FULL_ITERATIONS),
        ] {
            if let Some(done) = self.newton(x, corrector, truncation, iterations) {
                return Some(done);
            }
            x.copy_from(&self.saved);
        }
        None
    }

    fn newton(
        &mut self,
        x: &mut DVector<f64>,
        corrector: &Corrector,
        truncation: f64,
        iterations: usize,
    ) -> Option<usize> {
        for iteration in 0..=iterations {
            if self.residual(x) <= corrector.tolerance {
                return Some(iteration);
            }
            if iteration == iterations {
                break;
            }
            self.jacobian(x);
            self.qr.factorize_without_q(&self.a);
            let rank = self.qr.rank(truncation);
            self.qr.to_pivot_order(&self.c, &mut self.c_piv);
            self.qr
                .normal_solve_implicit(rank, self.c_piv.as_slice(), &mut self.y, &mut self.dx);
            *x -= &self.dx;
            // A non-finite step fails too.
            let step = self.dx.amax();
            if step.is_nan() || step > corrector.max_move {
                return None;
            }
        }
        None
    }
}
