//! Points of bodies for direct manipulation: the point of the mechanism nearest to a world
//! position ([`pick`]), where a point fixed in a body is ([`GrabPoint::position`]) and how fast
//! it moves along a motion of the coordinates ([`GrabPoint::velocity`], the point's Jacobian
//! `J_p` applied to it): `v = v_c + omega perp(R s)` for a planar body, `v = r' + D(e, s) e'`
//! for a spatial rigid body (`D = d(A(e) s)/de`, Haug 1989, eq. 9.3.13's derivative of the
//! rotated offset), the translation for a point mass.
//!
//! The pose a drag reaches and the spring pulled while running are in
//! [`pose`](super::simulation) (`Simulation::drag_toward`) and the live session.

use nalgebra::{DVector, Vector3};

use crate::model::Mechanism;

/// A point fixed in a body: the body's index and the point in body axes from its centre of
/// mass (a planar body's in its plane, `z` ignored; a point mass is its own point).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrabPoint {
    pub body: usize,
    pub local: Vector3<f64>,
}

impl GrabPoint {
    /// Whether the body exists and the point is finite.
    pub fn fits(&self, mechanism: &Mechanism) -> bool {
        self.body < mechanism.bodies().len() && self.local.iter().all(|v| v.is_finite())
    }

    /// Where the point is at positions `x` (z = 0 in the plane).
    pub fn position(&self, mechanism: &Mechanism, x: &DVector<f64>) -> Vector3<f64> {
        let local = mechanism.acting_point(self.body, &self.local);
        mechanism.point_of_body(self.body, &local, x)
    }

    /// The point's velocity when the coordinates move at `v` from `x`: `J_p(x) v`.
    pub fn velocity(
        &self,
        mechanism: &Mechanism,
        x: &DVector<f64>,
        v: &DVector<f64>,
    ) -> Vector3<f64> {
        mechanism.point_velocity(self.body, &self.local, x, v)
    }
}

/// The point of the mechanism nearest to `world` at positions `x`, with its distance: on a
/// bar, the nearest point of its axis between its ends; a plate, a point mass or a spatial
/// rigid body is picked at its centre of mass. `None` for a mechanism without bodies or a
/// position that is not finite. In the plane `world`'s z is ignored.
pub fn pick(mechanism: &Mechanism, x: &DVector<f64>, world: [f64; 3]) -> Option<(GrabPoint, f64)> {
    if !world.iter().all(|v| v.is_finite()) {
        return None;
    }
    let target = Vector3::from(world);
    let planar = !mechanism.is_spatial();
    let mut best: Option<(GrabPoint, f64)> = None;
    for body in 0..mechanism.bodies().len() {
        let local = mechanism
            .nearest_on_bar(body, &target, x)
            .unwrap_or_else(Vector3::zeros);
        let point = GrabPoint { body, local };
        let mut gap = point.position(mechanism, x) - target;
        if planar {
            gap.z = 0.0;
        }
        let distance = gap.norm();
        if best.is_none_or(|(_, d)| distance < d) {
            best = Some((point, distance));
        }
    }
    best
}
