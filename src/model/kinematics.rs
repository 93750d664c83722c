//! Where the points of a body are and how fast they move: the one home of body kinematics
//! for the solver's drag, the live session's traces and motions, and the drawing.
//!
//! A point is given in body axes from the centre of mass: a bar's or a plate's in its plane
//! (`z` ignored), a point mass has only its centre, a spatial rigid body any point. Its
//! velocity is `v = v_c + omega perp(R s)` in the plane and `v = r' + D(e, s) e'` for a rigid
//! body (`D = d(A(e) s)/de`, the derivative of the rotated offset; Haug 1989, eq. 9.3.13).

use nalgebra::{DVector, Vector2, Vector3};

use super::body::BodyKind;
use super::joint::rotate;
use super::{Mechanism, rigid};

impl Mechanism {
    /// The point `local` as it acts on `body`: none for a point mass (its centre), in the
    /// plane for a bar or a plate, as given for a rigid body.
    pub fn acting_point(&self, body: usize, local: &Vector3<f64>) -> Vector3<f64> {
        match self.bodies[body].kind {
            BodyKind::Point2 | BodyKind::Point3 => Vector3::zeros(),
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => Vector3::new(local.x, local.y, 0.0),
            BodyKind::Rigid { .. } => *local,
        }
    }

    /// The velocity of point `local` of `body` when the coordinates move at `v` from `x`:
    /// `J_p(x) v` (z = 0 in the plane).
    pub fn point_velocity(
        &self,
        body: usize,
        local: &Vector3<f64>,
        x: &DVector<f64>,
        v: &DVector<f64>,
    ) -> Vector3<f64> {
        let b = &self.bodies[body];
        let o = b.offset;
        let local = self.acting_point(body, local);
        match &b.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => {
                let arm = rotate(x[o + 2], &local.xy());
                let w = v[o + 2];
                Vector3::new(v[o] - w * arm.y, v[o + 1] + w * arm.x, 0.0)
            }
            BodyKind::Point2 => Vector3::new(v[o], v[o + 1], 0.0),
            BodyKind::Point3 => Vector3::new(v[o], v[o + 1], v[o + 2]),
            BodyKind::Rigid { .. } => {
                let e = self.euler_parameters(body, x);
                let de = self.euler_parameters(body, v);
                Vector3::new(v[o], v[o + 1], v[o + 2]) + rigid::rotate_jacobian(&e, &local) * de
            }
        }
    }

    /// The point of a bar's axis between its ends nearest to `target` (its z ignored), in
    /// body axes; `None` for other bodies.
    pub fn nearest_on_bar(
        &self,
        body: usize,
        target: &Vector3<f64>,
        x: &DVector<f64>,
    ) -> Option<Vector3<f64>> {
        let b = &self.bodies[body];
        let BodyKind::Bar { length } = b.kind else {
            return None;
        };
        let o = b.offset;
        let axis = rotate(x[o + 2], &Vector2::x());
        let along = (target.x - x[o]) * axis.x + (target.y - x[o + 1]) * axis.y;
        Some(Vector3::new(
            along.clamp(-0.5 * length, 0.5 * length),
            0.0,
            0.0,
        ))
    }

    /// A bar's start and end at `x` (z = 0); `None` for other bodies.
    pub fn bar_ends(&self, body: usize, x: &DVector<f64>) -> Option<[Vector3<f64>; 2]> {
        let BodyKind::Bar { length } = self.bodies[body].kind else {
            return None;
        };
        let half = 0.5 * length;
        Some([-half, half].map(|along| self.planar_at(body, along, x)))
    }

    /// The point a fraction `along` of the way from a bar's start to its end (0.5 its
    /// centre of mass); any other body's centre of mass.
    pub fn point_along(&self, body: usize, along: f64, x: &DVector<f64>) -> Vector3<f64> {
        match self.bodies[body].kind {
            BodyKind::Bar { length } => self.planar_at(body, (along - 0.5) * length, x),
            _ => self.centre(body, x),
        }
    }

    /// The points a body's motion is shown at, in body axes: a bar's start, centre and end;
    /// any other body's centre of mass.
    pub fn marked_points(&self, body: usize) -> Vec<Vector3<f64>> {
        match self.bodies[body].kind {
            BodyKind::Bar { length } => [-0.5 * length, 0.0, 0.5 * length]
                .map(|along| Vector3::new(along, 0.0, 0.0))
                .to_vec(),
            _ => vec![Vector3::zeros()],
        }
    }

    /// A body's centre of mass at `x` (z = 0 in the plane).
    pub fn centre(&self, body: usize, x: &DVector<f64>) -> Vector3<f64> {
        let b = &self.bodies[body];
        let o = b.offset;
        if b.translational_dim() == 3 {
            Vector3::new(x[o], x[o + 1], x[o + 2])
        } else {
            Vector3::new(x[o], x[o + 1], 0.0)
        }
    }

    /// The point `along` a planar body's axis from its centre (z = 0).
    fn planar_at(&self, body: usize, along: f64, x: &DVector<f64>) -> Vector3<f64> {
        let p = self.planar_point(body, &Vector2::new(along, 0.0), x);
        Vector3::new(p.x, p.y, 0.0)
    }
}
