//! Joint reactions in physical units from Lagrange multipliers.
//!
//! With `M xdd + A^T lambda = f`, the constraint forces on the coordinates are `-A^T lambda`,
//! and a joint's share is `-A_X^T lambda_X` over its own rows `X` (Wojtyra and Frączek 2013,
//! eq. 16). On the joint's first body that generalised force is a force `F` (the translational
//! entries) and a moment about its centre of mass (the angle entry of a planar body;
//! `E(e) g_e / 2` from the Euler-parameter entries `g_e` of a rigid body, since a moment `tau`
//! has generalised force `2 E^T tau`). The reaction is reported as `F` and the moment about the
//! joint's point `P`, `M_P = M_centre - (P - r) x F`, in global axes: a revolute joint's
//! moment there is zero, so only the joints that stop a relative rotation report one. When the
//! first body is the ground, the reaction on the second body is reported with its sign
//! reversed (action and reaction).
//!
//! The same map applied to a self-stress mode instead of `lambda` gives the part of the
//! reaction that mode can change; see `solver::reactions`.

use nalgebra::{DMatrix, DVector, Vector2, Vector3};

use super::joint::LocalPoint;
use super::spatial::Attachment;
use super::{BodyKind, JointKind, Mechanism, rigid};

/// Where a joint's reaction acts: the body (ground `None`) and the point on it.
#[derive(Clone, Copy, Debug)]
enum ReactionSite {
    Planar { body: usize, point: LocalPoint },
    Spatial { at: Attachment, reversed: bool },
    None,
}

impl Mechanism {
    /// Names of joint `joint`'s reaction components, in CSV order: `fx, fy` (planar) or
    /// `fx, fy, fz` (spatial), then `mz` or `mx, my, mz` for the joints that carry a moment;
    /// none for the Euler-parameter normalisation rows.
    pub fn reaction_components(&self, joint: usize) -> &'static [&'static str] {
        let j = &self.joints[joint];
        let spatial = match &j.kind {
            JointKind::Normalization { .. } => return &[],
            JointKind::Spatial(_) => true,
            JointKind::Distance { body, .. } => self.bodies[*body].is_spatial(),
            _ => false,
        };
        match (spatial, j.carries_moment()) {
            (false, false) => &["fx", "fy"],
            (false, true) => &["fx", "fy", "mz"],
            (true, false) => &["fx", "fy", "fz"],
            (true, true) => &["fx", "fy", "fz", "mx", "my", "mz"],
        }
    }

    fn reaction_site(&self, joint: usize) -> ReactionSite {
        let planar = |body: usize, point: &LocalPoint| ReactionSite::Planar {
            body,
            point: *point,
        };
        match &self.joints[joint].kind {
            JointKind::Revolute { a, point_a, .. }
            | JointKind::Prismatic { a, point_a, .. }
            | JointKind::Slot { a, point_a, .. }
            | JointKind::Driver { a, point_a, .. } => planar(*a, point_a),
            JointKind::Pin { body, point, .. }
            | JointKind::KnifeEdge { body, point, .. }
            | JointKind::Slider { body, point, .. } => planar(*body, point),
            // A planar point mass stays on the planar path: its two coordinates are no
            // spatial point's three.
            JointKind::Distance { body, .. } if !self.bodies[*body].is_spatial() => {
                planar(*body, &LocalPoint::zeros())
            }
            JointKind::Distance { body, .. } => ReactionSite::Spatial {
                at: Attachment {
                    body: Some(*body),
                    local: Vector3::zeros(),
                },
                reversed: false,
            },
            JointKind::Spatial(spatial) => {
                let (a, b) = spatial.points();
                match a.body {
                    Some(_) => ReactionSite::Spatial {
                        at: a,
                        reversed: false,
                    },
                    None => ReactionSite::Spatial {
                        at: b,
                        reversed: true,
                    },
                }
            }
            JointKind::Normalization { .. } => ReactionSite::None,
        }
    }

    /// The global point joint `joint`'s reaction acts at (z = 0 in the plane).
    pub fn reaction_point(&self, joint: usize, x: &DVector<f64>) -> Option<Vector3<f64>> {
        match self.reaction_site(joint) {
            ReactionSite::Planar { body, point } => {
                let p = self.planar_point(body, &point, x);
                Some(Vector3::new(p.x, p.y, 0.0))
            }
            ReactionSite::Spatial { at, .. } => Some(self.spatial_point(&at, x)),
            ReactionSite::None => None,
        }
    }

    /// Joint `joint`'s reaction on its first body (see the module docs) from multipliers
    /// `lambda` (length m; a self-stress mode gives what that mode changes) and the Jacobian
    /// `a` at `x`, into `out` in the order of
    /// [`reaction_components`](Self::reaction_components); returns how many were written.
    pub fn joint_reaction(
        &self,
        joint: usize,
        x: &DVector<f64>,
        a: &DMatrix<f64>,
        lambda: &DVector<f64>,
        out: &mut [f64],
    ) -> usize {
        let count = self.reaction_components(joint).len();
        let site = self.reaction_site(joint);
        let body = match site {
            ReactionSite::Planar { body, .. } => body,
            ReactionSite::Spatial { at, .. } => match at.body {
                Some(body) => body,
                None => return 0,
            },
            ReactionSite::None => return 0,
        };
        let j = &self.joints[joint];
        let b = &self.bodies[body];
        // The joint's generalised force on the body's coordinates, -A_X^T lambda_X.
        let mut g = [0.0; 7];
        for (i, gi) in g.iter_mut().enumerate().take(b.dim()) {
            *gi = -(j.row..j.row + j.rows())
                .map(|row| a[(row, b.offset + i)] * lambda[row])
                .sum::<f64>();
        }
        let point = self.reaction_point(joint, x).unwrap_or_default();
        let centre = Vector3::new(x[b.offset], x[b.offset + 1], 0.0);
        let (force, moment) = match &b.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => {
                let force = Vector2::new(g[0], g[1]);
                let arm = point.xy() - centre.xy();
                let moment = g[2] - (arm.x * force.y - arm.y * force.x);
                (
                    Vector3::new(force.x, force.y, 0.0),
                    Vector3::new(0.0, 0.0, moment),
                )
            }
            BodyKind::Point2 => (Vector3::new(g[0], g[1], 0.0), Vector3::zeros()),
            BodyKind::Point3 => (Vector3::new(g[0], g[1], g[2]), Vector3::zeros()),
            BodyKind::Rigid { .. } => {
                let force = Vector3::new(g[0], g[1], g[2]);
                let e = self.euler_parameters(body, x);
                let g_e = nalgebra::Vector4::new(g[3], g[4], g[5], g[6]);
                let about_centre = rigid::e_matrix(&e) * g_e * 0.5;
                let r = Vector3::new(x[b.offset], x[b.offset + 1], x[b.offset + 2]);
                (force, about_centre - (point - r).cross(&force))
            }
        };
        let sign = match site {
            ReactionSite::Spatial { reversed: true, .. } => -1.0,
            _ => 1.0,
        };
        let values: [f64; 6] = match count {
            2 => [force.x, force.y, 0.0, 0.0, 0.0, 0.0],
            3 if j.carries_moment() => [force.x, force.y, moment.z, 0.0, 0.0, 0.0],
            3 => [force.x, force.y, force.z, 0.0, 0.0, 0.0],
            _ => [force.x, force.y, force.z, moment.x, moment.y, moment.z],
        };
        for (o, v) in out.iter_mut().zip(&values[..count]) {
            *o = sign * v;
        }
        count
    }
}
