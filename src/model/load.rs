//! Applied loads: constant or time-windowed forces (at the centre of mass) and torques, and
//! the loads of a push along a motion.

use nalgebra::{DVector, Vector3};

use super::{BodyKind, Mechanism};

/// What a load applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadKind {
    /// Force at the centre of mass, world components (the third is ignored in the plane).
    Force([f64; 3]),
    /// Torque about the centre of mass of a bar, counter-clockwise positive.
    Torque(f64),
    /// Torque about the centre of mass of a spatial rigid body, in global axes.
    SpatialTorque([f64; 3]),
}

/// A load on one body, always on or active for `start <= t < start + duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    pub body: usize,
    pub kind: LoadKind,
    /// `Some((start, end))` for a pulse, `None` for a constant load.
    pub window: Option<(f64, f64)>,
}

impl Load {
    /// Whether the load acts at time `t` (half-open window).
    pub fn active(&self, t: f64) -> bool {
        match self.window {
            None => true,
            Some((start, end)) => t >= start && t < end,
        }
    }
}

impl Mechanism {
    /// The constant loads equivalent to force `force` applied at the global point `at` of
    /// `body` at `x`: the force at the centre of mass and, on a body that turns, its moment
    /// about it (`J_p^T f`).
    pub fn point_force_loads(
        &self,
        body: usize,
        at: &Vector3<f64>,
        force: &Vector3<f64>,
        x: &DVector<f64>,
    ) -> Vec<Load> {
        let torque = (at - self.centre(body, x)).cross(force);
        let load = |kind| Load {
            body,
            kind,
            window: None,
        };
        let mut loads = vec![load(LoadKind::Force([force.x, force.y, force.z]))];
        match self.bodies()[body].kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => {
                loads.push(load(LoadKind::Torque(torque.z)));
            }
            BodyKind::Rigid { .. } => {
                loads.push(load(LoadKind::SpatialTorque(torque.into())));
            }
            BodyKind::Point2 | BodyKind::Point3 => {}
        }
        loads
    }

    /// The loads that give the mechanism the acceleration `acceleration` times the motion
    /// `column` at `x` during `window`: on each body the force `m a column_r`, and for a
    /// planar body with an angle the torque `I a column_theta`, for a rigid body the torque
    /// of [`push_torque`](Self::push_torque); in body order.
    pub fn push_loads(
        &self,
        x: &DVector<f64>,
        column: &DVector<f64>,
        acceleration: f64,
        window: Option<(f64, f64)>,
    ) -> Vec<Load> {
        let a = acceleration;
        let mut loads = Vec::new();
        for (index, body) in self.bodies().iter().enumerate() {
            let (o, m) = (body.offset, body.mass);
            let mut force = [0.0; 3];
            for (k, f) in force.iter_mut().enumerate().take(body.translational_dim()) {
                *f = m * a * column[o + k];
            }
            let load = |kind| Load {
                body: index,
                kind,
                window,
            };
            loads.push(load(LoadKind::Force(force)));
            if body.has_angle() {
                loads.push(load(LoadKind::Torque(body.inertia() * a * column[o + 2])));
            }
            if let Some(torque) = self.push_torque(index, x, column, a) {
                loads.push(load(LoadKind::SpatialTorque(torque)));
            }
        }
        loads
    }
}
