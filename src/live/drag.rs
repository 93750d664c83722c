//! Dragging a point of a body in the live session. Paused, the drag poses the mechanism at
//! rest ([`Simulation::drag_toward`]: the point follows the pointer as closely as the
//! constraints allow). Running, a spring-damper pulls the point towards the pointer, as
//! MuJoCo's viewer does: the force `f = k (target - p) - c v_p` at the point, applied as the
//! generalised force `J_p^T f` (a force at the body's centre of mass and the torque of `f`
//! about it), updated before every step from the state the step starts from.
//!
//! The spring is as stiff as the mechanism is heavy at the point: `k = m_eff omega^2` and
//! `c = 2 zeta m_eff omega` with `omega = 2 pi SPRING_FREQUENCY` and `zeta = SPRING_DAMPING`,
//! where `m_eff` is the mass the point feels along the constraints at the grab,
//! `d / trace(Lambda^-1)` with `Lambda^-1 = J_p T (T^T M T)^-1 T^T J_p^T` the inverse of the
//! operational-space inertia at the point (Khatib 1987, eq. 10; `d` = 2 in the plane, 3 in
//! space). So a pull feels the same on every scene: the point alone would oscillate at
//! `SPRING_FREQUENCY`, nearly critically damped.

use nalgebra::{DMatrix, DVector, Vector3};

use crate::live::timeline::Spring;
use crate::model::Mechanism;
use crate::solver::{GrabPoint, Simulation, SolverError};

/// The frequency (Hz) the grabbed point alone would have on the spring.
pub const SPRING_FREQUENCY: f64 = 2.0;
/// The spring's damping ratio.
pub const SPRING_DAMPING: f64 = 0.7;
/// Moves a paused drag takes at most per call (each at most 0.02 in any coordinate).
pub const DRAG_MOVES_PER_CALL: usize = 40;

/// How a drag moves the mechanism.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DragMode {
    /// Paused: posed at rest along the constraints.
    Pose,
    /// Running: pulled by a spring-damper.
    Spring,
}

/// A drag in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drag {
    pub point: GrabPoint,
    pub mode: DragMode,
    /// Where the pointer is (the grabbed point's own position until the first move).
    pub target: [f64; 3],
    /// The spring's constants (running drags).
    pub stiffness: f64,
    pub damping: f64,
}

impl Drag {
    /// Starts a drag of `point` from its current position in `sim`.
    pub fn new(sim: &Simulation, point: GrabPoint, mode: DragMode) -> Self {
        let mechanism = sim.mechanism();
        let p = point.position(mechanism, sim.positions());
        let mass = effective_mass(sim, &point);
        let omega = 2.0 * std::f64::consts::PI * SPRING_FREQUENCY;
        Self {
            point,
            mode,
            target: [p.x, p.y, p.z],
            stiffness: mass * omega * omega,
            damping: 2.0 * SPRING_DAMPING * mass * omega,
        }
    }

    /// The spring this drag pulls with.
    pub fn spring(&self) -> Spring {
        Spring {
            point: self.point,
            target: self.target,
            stiffness: self.stiffness,
            damping: self.damping,
        }
    }
}

/// The mass the point feels along the constraints (see the module docs); the whole
/// mechanism's mass if the constraints hold the point still.
pub fn effective_mass(sim: &Simulation, point: &GrabPoint) -> f64 {
    let mechanism = sim.mechanism();
    let total: f64 = mechanism.bodies().iter().map(|b| b.mass).sum();
    let x = sim.positions();
    let n = mechanism.n();
    let rank = sim.rank();
    let k = n - rank;
    let tangent = sim.factorization().q().columns(rank, k).into_owned();
    let columns: Vec<DVector<f64>> = (0..k).map(|j| tangent.column(j).into_owned()).collect();
    // T^T M T by polarisation of the kinetic energy: a^T M b = KE(a + b) - KE(a) - KE(b).
    let energies: Vec<f64> = columns
        .iter()
        .map(|c| mechanism.kinetic_energy(x, c))
        .collect();
    let gram = DMatrix::from_fn(k, k, |i, j| {
        mechanism.kinetic_energy(x, &(&columns[i] + &columns[j])) - energies[i] - energies[j]
    });
    let moved = DMatrix::from_fn(3, k, |row, j| {
        point.velocity(mechanism, x, &columns[j])[row]
    });
    let Some(inverse) = gram.try_inverse() else {
        return total;
    };
    let lambda_inverse = &moved * inverse * moved.transpose();
    let dims = if mechanism.is_spatial() { 3.0 } else { 2.0 };
    let trace = lambda_inverse.trace();
    if trace > 0.0 && trace.is_finite() {
        dims / trace
    } else {
        total
    }
}

impl Spring {
    /// The spring-damper force at the point for the state `(x, xd)`.
    pub fn force(
        &self,
        mechanism: &Mechanism,
        x: &DVector<f64>,
        xd: &DVector<f64>,
    ) -> Vector3<f64> {
        let p = self.point.position(mechanism, x);
        let v = self.point.velocity(mechanism, x, xd);
        let mut f = (Vector3::from(self.target) - p) * self.stiffness - v * self.damping;
        if !mechanism.is_spatial() {
            f.z = 0.0;
        }
        f
    }

    /// Sets the simulation's run-time loads to this spring's force at the current state: a
    /// force at the body's centre of mass and its torque about it (`J_p^T f`). Replaces any
    /// other run-time load (a drag ends a push first).
    pub fn apply(&self, sim: &mut Simulation) -> Result<(), SolverError> {
        let mechanism = sim.mechanism().clone();
        let (x, xd) = (sim.positions(), sim.velocities());
        let f = self.force(&mechanism, x, xd);
        let at = self.point.position(&mechanism, x);
        let loads = mechanism.point_force_loads(self.point.body, &at, &f, x);
        sim.clear_extra_loads();
        for load in loads {
            sim.add_load(load)?;
        }
        Ok(())
    }
}
