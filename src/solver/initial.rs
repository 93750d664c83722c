//! Initial conditions: assembling positions onto the constraint manifold (the position-level
//! rows, at the start time) and completing the velocities an author stated so that
//! `A xd = b` (every row; `b` is a driver's `d'(t)`, zero elsewhere).

use nalgebra::{DMatrix, DVector};

use super::error::SolverError;
use super::projection::{NewtonLimits, Projector};
use super::settings::NEWTON_TOLERANCE_ROUND_OFF;
use crate::linalg::PivotedQr;
use crate::model::Mechanism;

/// Relative rank tolerance used by the assembly Newton iterations.
const ASSEMBLY_RANK_TOLERANCE: f64 = 1e-8;
/// Absolute tolerance on every constraint residual after assembly (raised to the round-off of
/// scenes larger than about 140 m, as `newton_tolerance` must be).
const ASSEMBLY_TOLERANCE: f64 = 1e-12;
const ASSEMBLY_ITERATIONS: usize = 50;

/// The assembly's Newton iterations from `x`: every normal above the assembly rank tolerance,
/// the assembly tolerance or the round-off floor of `Settings::validate` there.
fn assembly_newton(mechanism: &Mechanism, x: &DVector<f64>) -> NewtonLimits {
    let round_off = NEWTON_TOLERANCE_ROUND_OFF * f64::EPSILON * mechanism.residual_scale(x);
    NewtonLimits {
        truncation: ASSEMBLY_RANK_TOLERANCE,
        tolerance: ASSEMBLY_TOLERANCE.max(round_off),
        max_iterations: ASSEMBLY_ITERATIONS,
        full_residual: false,
    }
}
/// Largest `|A xd|_inf` accepted after completing stated velocities, relative to the largest
/// velocity (at least 1).
const VELOCITY_TOLERANCE: f64 = 1e-9;
/// At the written pose of an assembled scene, stated velocities may miss the constraints by
/// this many times the assembly's correction (relative to the largest velocity).
const WRITTEN_SLACK: f64 = 10.0;

/// How far assembly moved the positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AssemblyReport {
    pub iterations: usize,
    /// Largest coordinate change `|x_assembled - x_given|_inf`.
    pub correction: f64,
    /// Index of the coordinate that moved most.
    pub coordinate: usize,
    /// Largest constraint residual before assembly.
    pub initial_residual: f64,
    /// Largest change of a stated velocity that no longer fitted the assembled pose (0 when
    /// none had to change).
    pub velocity_change: f64,
}

/// The row with the largest residual magnitude; a NaN counts as larger than any number.
fn worst_row(c: &DVector<f64>) -> usize {
    c.iter()
        .position(|v| v.is_nan())
        .unwrap_or_else(|| c.iamax())
}

/// Moves `x` onto `c(x) = 0` by Newton iterations along the constraint normals (minimum-norm
/// corrections). Fails when it does not converge, naming the joint with the largest residual
/// at the pose as written: Newton spreads the error of one misplaced pin over the whole loop,
/// so the residuals after it point anywhere.
pub fn assemble_positions(
    mechanism: &Mechanism,
    t: f64,
    x: &mut DVector<f64>,
) -> Result<AssemblyReport, SolverError> {
    let (n, m) = (mechanism.n(), mechanism.m());
    let given = x.clone();
    let mut c = DVector::zeros(m);
    mechanism.residual(t, x, &mut c);
    let initial_residual = if m == 0 { 0.0 } else { c.amax() };
    let written_joint = (m > 0).then(|| mechanism.joint_of_row(worst_row(&c)).name.clone());
    let mut projector = Projector::new(n, m);
    let mut qr = PivotedQr::new(n, m);
    let limits = assembly_newton(mechanism, x);
    let outcome = projector
        .project_positions(mechanism, limits, t, x, &mut qr)
        .map_err(|(iterations, residual, row)| SolverError::AssemblyFailed {
            iterations,
            residual,
            joint: written_joint
                .clone()
                .unwrap_or_else(|| mechanism.joint_of_row(row).name.clone()),
        })?;
    // Redundant rows left out of Newton must hold too, or the geometry is inconsistent.
    mechanism.residual(t, x, &mut c);
    if m > 0 && (c.amax().is_nan() || c.amax() > 1e3 * limits.tolerance) {
        return Err(SolverError::AssemblyFailed {
            iterations: outcome.iterations,
            residual: c.amax(),
            joint: written_joint.unwrap_or_default(),
        });
    }
    let change = &*x - &given;
    let coordinate = if n == 0 { 0 } else { change.iamax() };
    Ok(AssemblyReport {
        iterations: outcome.iterations,
        correction: if n == 0 { 0.0 } else { change.amax() },
        coordinate,
        initial_residual,
        velocity_change: 0.0,
    })
}

/// Completes velocities at time `t`: the components with `stated[i]` keep `xd[i]`, the others
/// are the minimum-norm solution of `A_u xd_u = b - A_s xd_s` (A at `x`). Fails when the stated
/// components alone already violate the constraints.
///
/// `written` is the pose as written and how far assembly moved it, when it had to. Stated
/// velocities that fit the written pose (up to what that move explains) may no longer fit the
/// assembled one: they are then projected onto the tangent space (the smallest change), and
/// the largest change is returned. Stated velocities that do not fit are an error (returns 0
/// when all fit).
pub fn complete_velocities(
    mechanism: &Mechanism,
    t: f64,
    x: &DVector<f64>,
    stated: &[bool],
    xd: &mut DVector<f64>,
    written: Option<(&DVector<f64>, f64)>,
) -> Result<f64, SolverError> {
    let (n, m) = (mechanism.n(), mechanism.m());
    let mut a = DMatrix::zeros(m, n);
    if let Some((written_x, correction)) = written {
        // At the written pose the stated velocities must fit but for what the move explains
        // (A changes by about `correction` per unit of velocity): a pin 1 mm off leaves 2e-6,
        // opposite crank rates on a parallelogram 8.
        let mut at_written = xd.clone();
        let residual = complete_at(mechanism, t, written_x, stated, &mut at_written, &mut a);
        let scale = at_written.amax().max(1.0);
        let allowed = (VELOCITY_TOLERANCE + WRITTEN_SLACK * correction) * scale;
        if m > 0 && (residual.amax().is_nan() || residual.amax() > allowed) {
            return Err(SolverError::InconsistentVelocities {
                residual: residual.amax(),
                joint: mechanism.joint_of_row(residual.iamax()).name.clone(),
            });
        }
    }
    let residual = complete_at(mechanism, t, x, stated, xd, &mut a);
    if m == 0 {
        return Ok(0.0);
    }
    let tolerance = VELOCITY_TOLERANCE * xd.amax().max(1.0);
    if residual.amax() <= tolerance {
        return Ok(0.0);
    }
    if written.is_some() && residual.amax().is_finite() {
        let before = xd.clone();
        let mut projector = Projector::new(n, m);
        let mut x_copy = x.clone();
        let mut qr = PivotedQr::new(n, m);
        let limits = assembly_newton(mechanism, x);
        let projected = projector.project_positions(mechanism, limits, t, &mut x_copy, &mut qr);
        if projected.is_ok() {
            let rank = qr.rank(ASSEMBLY_RANK_TOLERANCE);
            projector.project_velocities(mechanism, t, &qr, rank, xd);
            mechanism.jacobian(x, &mut a);
            let mut b = DVector::zeros(m);
            mechanism.velocity_rhs(t, &mut b);
            if (&a * &*xd - b).amax() <= tolerance {
                return Ok((&*xd - before).amax());
            }
        }
    }
    Err(SolverError::InconsistentVelocities {
        residual: residual.amax(),
        joint: mechanism.joint_of_row(residual.iamax()).name.clone(),
    })
}

/// The minimum-norm completion of the unstated components at `x`; returns `A xd - b`. Stated and
/// completed components are velocity coordinates (`Mechanism::jacobian_in_velocity_coordinates`:
/// a rigid body's angular velocity in global axes for its `ed`, so that an author states
/// `wx, wy, wz` and the rate of `|e|` is completed, to zero); `xd` holds the coordinate rates
/// afterwards, and `a` the Jacobian in velocity coordinates. Without rigid bodies both are
/// plain `xd` and `A(x)`.
fn complete_at(
    mechanism: &Mechanism,
    t: f64,
    x: &DVector<f64>,
    stated: &[bool],
    xd: &mut DVector<f64>,
    a: &mut DMatrix<f64>,
) -> DVector<f64> {
    let (n, m) = (mechanism.n(), mechanism.m());
    mechanism.jacobian(x, a);
    mechanism.jacobian_in_velocity_coordinates(x, a);
    let unknown: Vec<usize> = (0..n).filter(|&i| !stated[i]).collect();
    for &i in &unknown {
        xd[i] = 0.0;
    }
    let mut required = DVector::zeros(m);
    mechanism.velocity_rhs(t, &mut required);
    if m > 0 && !unknown.is_empty() {
        // b - A_s xd_s, with the unknown components zeroed above.
        let b = &required - &*a * &*xd;
        let mut a_u = DMatrix::zeros(m, unknown.len());
        for (k, &i) in unknown.iter().enumerate() {
            a_u.set_column(k, &a.column(i));
        }
        let mut qr = PivotedQr::new(unknown.len(), m);
        qr.factorize_transposed(&a_u);
        let rank = qr.rank(ASSEMBLY_RANK_TOLERANCE);
        let mut b_piv = DVector::zeros(m);
        qr.to_pivot_order(&b, &mut b_piv);
        let mut y = vec![0.0; m];
        let mut u = DVector::zeros(unknown.len());
        qr.normal_solve(rank, b_piv.as_slice(), &mut y, &mut u);
        for (k, &i) in unknown.iter().enumerate() {
            xd[i] = u[k];
        }
    }
    let residual = &*a * &*xd - required;
    mechanism.from_velocity_coordinates(x, xd);
    residual
}
