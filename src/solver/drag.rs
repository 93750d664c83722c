//! Points of bodies for direct manipulation: the point of the mechanism nearest to a world
//! position ([`pick`]), where a point fixed in a body is ([`GrabPoint::position`]) and how fast
//! it moves along a motion of the coordinates ([`GrabPoint::velocity`], the point's Jacobian
//! `J_p` applied to it): `v = v_c + omega perp(R s)` for a planar body, `v = r' + D(e, s) e'`
//! for a spatial rigid body (`D = d(A(e) s)/de`, Haug 1989, eq. 9.3.13's derivative of the
//! rotated offset), the translation for a point mass.
//!
//! The pose a drag reaches and the spring pulled while running are in
//! [`pose`](super::simulation) (`Simulation::drag_toward`) and the live session.

use nalgebra::{DVector, Vector2, Vector3};

use crate::model::{BodyKind, Mechanism, rigid};

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
        mechanism.point_of_body(self.body, &self.effective_local(mechanism), x)
    }

    /// The point's velocity when the coordinates move at `v` from `x`: `J_p(x) v`.
    pub fn velocity(
        &self,
        mechanism: &Mechanism,
        x: &DVector<f64>,
        v: &DVector<f64>,
    ) -> Vector3<f64> {
        let body = &mechanism.bodies()[self.body];
        let o = body.offset;
        let local = self.effective_local(mechanism);
        match &body.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => {
                let (s, c) = x[o + 2].sin_cos();
                let arm = Vector2::new(c * local.x - s * local.y, s * local.x + c * local.y);
                let w = v[o + 2];
                Vector3::new(v[o] - w * arm.y, v[o + 1] + w * arm.x, 0.0)
            }
            BodyKind::Point2 => Vector3::new(v[o], v[o + 1], 0.0),
            BodyKind::Point3 => Vector3::new(v[o], v[o + 1], v[o + 2]),
            BodyKind::Rigid { .. } => {
                let e = mechanism.euler_parameters(self.body, x);
                let de = mechanism.euler_parameters(self.body, v);
                Vector3::new(v[o], v[o + 1], v[o + 2]) + rigid::rotate_jacobian(&e, &local) * de
            }
        }
    }

    /// The point's offset from the centre of mass in body axes as it acts: none for a point
    /// mass, in the plane for a planar body.
    fn effective_local(&self, mechanism: &Mechanism) -> Vector3<f64> {
        match mechanism.bodies()[self.body].kind {
            BodyKind::Point2 | BodyKind::Point3 => Vector3::zeros(),
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => {
                Vector3::new(self.local.x, self.local.y, 0.0)
            }
            BodyKind::Rigid { .. } => self.local,
        }
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
    for (body, b) in mechanism.bodies().iter().enumerate() {
        let local = match b.kind {
            BodyKind::Bar { length } => {
                let (s, c) = x[b.offset + 2].sin_cos();
                let along = (target.x - x[b.offset]) * c + (target.y - x[b.offset + 1]) * s;
                Vector3::new(along.clamp(-0.5 * length, 0.5 * length), 0.0, 0.0)
            }
            _ => Vector3::zeros(),
        };
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
