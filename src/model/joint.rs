//! The joint kinds a scene names (what each is, for building its constraints, naming and
//! drawing) and the planar point kinematics the constraints share; the rows themselves are
//! written by `constraint`.
//!
//! Each joint contributes rows to the Jacobian `A` and to its time derivative `dA/dt` along the
//! velocity. Position-level rows come from `c(x, t) = 0` with `A = dc/dx`; only a driver's row
//! depends on time, `c = g(x) - d(t)`, so that `A xd = d'(t)` on it and the
//! acceleration-level right-hand side is `gamma = -(dA/dt) xd + d''(t)`. Velocity-level
//! (Pfaffian) rows, the knife edge's, are `A(x) xd = 0` with no position-level form: their
//! residual is zero, and Newton's position correction leaves them out.

use nalgebra::{DMatrix, DVector, Vector2};

use super::driver::DriverLaw;
use super::spatial::{SpatialGlyph, SpatialJoint};

/// A point fixed on a body, in the body frame: components along the bar's axis and
/// perpendicular to it, measured from the centre of mass. Point masses only have the origin.
pub type LocalPoint = Vector2<f64>;

/// The kinds of constraint a scene can use.
#[derive(Clone, Debug, PartialEq)]
pub enum JointKind {
    /// Revolute joint between two planar bodies: the two local points coincide (2 rows).
    Revolute {
        a: usize,
        point_a: LocalPoint,
        b: usize,
        point_b: LocalPoint,
    },
    /// Revolute joint to the ground: the local point stays at a fixed position (2 rows).
    Pin {
        body: usize,
        point: LocalPoint,
        ground: Vector2<f64>,
    },
    /// Point-mass distance constraint in the form `|r - anchor|^2 - length^2 = 0` (1 row),
    /// in 2D or 3D (anchor components beyond the body's dimension are ignored).
    Distance {
        body: usize,
        anchor: [f64; 3],
        length: f64,
    },
    /// Planar prismatic joint between two bodies with an angle: point `point_a` of `a`
    /// stays on the line through point `point_b` of `b` along `axis` (a unit vector in `b`'s
    /// axes), and `theta_a - theta_b` stays `angle` (2 rows: the offset across the axis, then
    /// the angle; Wojtyra and Frączek 2013, eq. 42).
    Prismatic {
        a: usize,
        point_a: LocalPoint,
        b: usize,
        point_b: LocalPoint,
        axis: Vector2<f64>,
        angle: f64,
    },
    /// Driver of a prismatic joint: the distance from point `point_a` of `a` to point `point_b`
    /// of `b`, along `axis` fixed in `b`, follows `law` (1 rheonomic row,
    /// `(Q - P) . (R_b axis) - d(t) = 0`; Wojtyra and Frączek 2013, eq. 43).
    Driver {
        a: usize,
        point_a: LocalPoint,
        b: usize,
        point_b: LocalPoint,
        axis: Vector2<f64>,
        law: DriverLaw,
    },
    /// Pin in a slot: point `point_a` of `a` stays on the line through point `point_b` of `b`
    /// along `axis` (a unit vector in `b`'s axes), free to turn (1 row, the offset across the
    /// axis: the prismatic joint without its angle row; Wojtyra and Frączek 2013, eq. 42).
    Slot {
        a: usize,
        point_a: LocalPoint,
        b: usize,
        point_b: LocalPoint,
        axis: Vector2<f64>,
    },
    /// Slider on a ground guide: `point` of `body` stays on the fixed line through `origin`
    /// along `axis` (a unit vector in the world), free to turn there, as a massless block
    /// sliding in a straight slot and hinged to the body (1 row: the offset across the line).
    Slider {
        body: usize,
        point: LocalPoint,
        origin: Vector2<f64>,
        axis: Vector2<f64>,
    },
    /// Knife edge: the velocity of `point` of `body` along `normal` (a unit vector in body
    /// axes, across the edge) is zero (1 velocity-level row; Wojtyra and Frączek 2013,
    /// eq. 30).
    KnifeEdge {
        body: usize,
        point: LocalPoint,
        normal: Vector2<f64>,
    },
    /// A joint between spatial bodies (or a spatial body and the ground), made of primitive
    /// constraints.
    Spatial(SpatialJoint),
    /// A rigid body's Euler parameters stay a unit quaternion, `e.e - 1 = 0` (1 row); added by
    /// `Mechanism::new` for every rigid body, after the scene's joints.
    Normalization { body: usize },
}

/// A named constraint of the mechanism with its first row in `c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    pub name: String,
    pub kind: JointKind,
    /// Index of the joint's first row in `c` and `A`.
    pub row: usize,
}

impl Joint {
    /// Number of scalar constraint equations.
    pub fn rows(&self) -> usize {
        match &self.kind {
            JointKind::Revolute { .. } | JointKind::Pin { .. } | JointKind::Prismatic { .. } => 2,
            JointKind::Distance { .. }
            | JointKind::Normalization { .. }
            | JointKind::Driver { .. }
            | JointKind::Slot { .. }
            | JointKind::Slider { .. }
            | JointKind::KnifeEdge { .. } => 1,
            JointKind::Spatial(spatial) => spatial.rows(),
        }
    }

    /// The largest offset, ground point, anchor or length the joint is written with (the
    /// scene's size).
    pub fn attachment_size(&self) -> f64 {
        match &self.kind {
            JointKind::Revolute {
                point_a, point_b, ..
            }
            | JointKind::Prismatic {
                point_a, point_b, ..
            }
            | JointKind::Driver {
                point_a, point_b, ..
            }
            | JointKind::Slot {
                point_a, point_b, ..
            } => point_a.amax().max(point_b.amax()),
            JointKind::Pin { point, ground, .. } => point.amax().max(ground.amax()),
            JointKind::Distance { anchor, length, .. } => {
                anchor.iter().fold(*length, |a, b| a.max(b.abs()))
            }
            JointKind::Spatial(spatial) => spatial
                .primitives
                .iter()
                .map(|p| p.attachment_size())
                .fold(0.0, f64::max),
            JointKind::KnifeEdge { point, .. } => point.amax(),
            JointKind::Slider { point, origin, .. } => point.amax().max(origin.amax()),
            JointKind::Normalization { .. } => 0.0,
        }
    }

    /// A distance joint's length.
    pub fn distance_length(&self) -> Option<f64> {
        match self.kind {
            JointKind::Distance { length, .. } => Some(length),
            _ => None,
        }
    }

    /// The ground point a pin holds its body at, or the anchor of a distance link (z = 0 in
    /// the plane); `None` for other joints (a spatial joint's attachments are in its kind).
    pub fn ground_anchor(&self) -> Option<[f64; 3]> {
        match &self.kind {
            JointKind::Pin { ground, .. } => Some([ground.x, ground.y, 0.0]),
            JointKind::Distance { anchor, .. } => Some(*anchor),
            _ => None,
        }
    }

    /// The point mass a distance link holds, and the link's anchor.
    pub fn distance_link(&self) -> Option<(usize, [f64; 3])> {
        match &self.kind {
            JointKind::Distance { body, anchor, .. } => Some((*body, *anchor)),
            _ => None,
        }
    }

    /// Where a planar hinge is drawn: a revolute joint's point on its first body, a pin's on
    /// its body.
    pub fn hinge(&self) -> Option<(usize, LocalPoint)> {
        match &self.kind {
            JointKind::Revolute { a, point_a, .. } => Some((*a, *point_a)),
            JointKind::Pin { body, point, .. } => Some((*body, *point)),
            _ => None,
        }
    }

    /// The point of `body` the joint holds, for a plate's outline to reach it: a revolute
    /// joint's point on it, a pin's, a knife edge's contact point.
    pub fn held_point(&self, body: usize) -> Option<LocalPoint> {
        match &self.kind {
            JointKind::Revolute {
                a,
                point_a,
                b,
                point_b,
            } => [(*a, point_a), (*b, point_b)]
                .into_iter()
                .find(|(on, _)| *on == body)
                .map(|(_, point)| *point),
            JointKind::Pin {
                body: on, point, ..
            }
            | JointKind::KnifeEdge {
                body: on, point, ..
            } if *on == body => Some(*point),
            _ => None,
        }
    }

    /// A knife edge's wheel: its body, its contact point and the normal to its rolling
    /// direction (body axes).
    pub fn wheel(&self) -> Option<(usize, LocalPoint, Vector2<f64>)> {
        match &self.kind {
            JointKind::KnifeEdge {
                body,
                point,
                normal,
            } => Some((*body, *point, *normal)),
            _ => None,
        }
    }

    /// The two points a planar slide joins, each on its body: a prismatic joint's (drawn as
    /// its slot) or a driver's (drawn as the distance it prescribes), and whether it is the
    /// driver.
    pub fn slide(&self) -> Option<([(usize, LocalPoint); 2], bool)> {
        match &self.kind {
            JointKind::Prismatic {
                a,
                point_a,
                b,
                point_b,
                ..
            } => Some(([(*a, *point_a), (*b, *point_b)], false)),
            JointKind::Slot {
                a,
                point_a,
                b,
                point_b,
                ..
            } => Some(([(*a, *point_a), (*b, *point_b)], false)),
            JointKind::Driver {
                a,
                point_a,
                b,
                point_b,
                ..
            } => Some(([(*a, *point_a), (*b, *point_b)], true)),
            _ => None,
        }
    }

    /// A slider's body and point, and its guide: a point of the line and its direction.
    pub fn guide(&self) -> Option<(usize, LocalPoint, Vector2<f64>, Vector2<f64>)> {
        match &self.kind {
            JointKind::Slider {
                body,
                point,
                origin,
                axis,
            } => Some((*body, *point, *origin, *axis)),
            _ => None,
        }
    }

    /// How the 3D view draws a spatial joint; `None` for a planar one.
    pub fn spatial_glyph(&self) -> Option<SpatialGlyph> {
        match &self.kind {
            JointKind::Spatial(spatial) => Some(spatial.kind.glyph()),
            _ => None,
        }
    }

    /// The body a pin holds to the ground.
    pub fn pinned_body(&self) -> Option<usize> {
        match &self.kind {
            JointKind::Pin { body, .. } => Some(*body),
            _ => None,
        }
    }

    /// Whether the joint is a driver (a prescribed motion).
    pub fn is_driver(&self) -> bool {
        matches!(self.kind, JointKind::Driver { .. })
    }

    /// Whether the joint's rows are velocity-level (`A(x) xd = 0` without a position form).
    pub fn is_velocity_level(&self) -> bool {
        matches!(self.kind, JointKind::KnifeEdge { .. })
    }

    /// Whether the joint's reaction includes a moment (planar `mz`, spatial `mx, my, mz`) as
    /// well as a force: the joints that stop a relative rotation.
    pub fn carries_moment(&self) -> bool {
        match &self.kind {
            JointKind::Prismatic { .. } => true,
            JointKind::Spatial(spatial) => spatial.carries_moment(),
            _ => false,
        }
    }
}

/// Rotation of a local point by angle `theta`.
#[inline]
pub(crate) fn rotate(theta: f64, p: &LocalPoint) -> Vector2<f64> {
    let (s, c) = super::angle::sin_cos(theta);
    Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y)
}

/// Perpendicular `(-v_y, v_x)`, i.e. the derivative of a rotated vector with respect to its angle.
#[inline]
pub(crate) fn perp(v: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

/// Geometry of one planar body for the joint kernels: offset, whether it has an angle, angle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanarFrame {
    pub offset: usize,
    pub rotates: bool,
}

impl PlanarFrame {
    /// World position of a local point.
    pub fn point(&self, x: &DVector<f64>, p: &LocalPoint) -> Vector2<f64> {
        let o = self.offset;
        let base = Vector2::new(x[o], x[o + 1]);
        if self.rotates {
            base + rotate(x[o + 2], p)
        } else {
            base + p
        }
    }

    /// The largest of the body's position and the point's offset times one plus the angle
    /// (whose round-off moves the point by `|angle| |offset| eps`).
    pub fn point_scale(&self, x: &DVector<f64>, p: &LocalPoint) -> f64 {
        let o = self.offset;
        let position = x[o].abs().max(x[o + 1].abs());
        let angle = if self.rotates { x[o + 2].abs() } else { 0.0 };
        position.max(p.amax() * (1.0 + angle))
    }

    /// Adds `sign * d(point)/dx` into the two rows `row, row+1` of `a`.
    pub fn add_jacobian(
        &self,
        x: &DVector<f64>,
        p: &LocalPoint,
        sign: f64,
        row: usize,
        a: &mut DMatrix<f64>,
    ) {
        let o = self.offset;
        a[(row, o)] += sign;
        a[(row + 1, o + 1)] += sign;
        if self.rotates {
            let d = perp(&rotate(x[o + 2], p));
            a[(row, o + 2)] += sign * d.x;
            a[(row + 1, o + 2)] += sign * d.y;
        }
    }

    /// Adds `sign * d/dt(d(point)/dx)` into rows `row, row+1` of `adot`:
    /// `d/dt perp(R p) = -omega R p`.
    pub fn add_jacobian_dot(
        &self,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        p: &LocalPoint,
        sign: f64,
        row: usize,
        adot: &mut DMatrix<f64>,
    ) {
        if self.rotates {
            let o = self.offset;
            let rp = rotate(x[o + 2], p);
            let omega = xd[o + 2];
            adot[(row, o + 2)] -= sign * omega * rp.x;
            adot[(row + 1, o + 2)] -= sign * omega * rp.y;
        }
    }

    /// `sign * omega^2 R p`: this point's share of `gamma = -(dA/dt) xd` (centripetal term).
    pub fn centripetal(&self, x: &DVector<f64>, xd: &DVector<f64>, p: &LocalPoint) -> Vector2<f64> {
        if self.rotates {
            let o = self.offset;
            let omega = xd[o + 2];
            rotate(x[o + 2], p) * (omega * omega)
        } else {
            Vector2::zeros()
        }
    }
}
