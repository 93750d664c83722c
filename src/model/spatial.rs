//! Spatial joints assembled from four primitive constraints between body-fixed points and
//! vectors (Nikravesh 1988, sect. 7.3; Haug 1989, sect. 9.3):
//! - coincidence `p_a - p_b = 0` (3 rows);
//! - dot-1 `u_a . u_b = 0`: two body-fixed vectors stay perpendicular (1 row);
//! - dot-2 `u_a . (p_b - p_a) = 0`: a body-fixed vector stays perpendicular to the vector
//!   between two points (1 row);
//! - distance `|p_a - p_b|^2 - L^2 = 0` (1 row).
//!
//! A point or vector is fixed in a rigid body, in a spatial point mass (points only, at its
//! centre) or in the ground. [`Tracked`] holds what every primitive needs of one: its global
//! value, its velocity and the velocity-quadratic part of its acceleration (`dJ/dt xd`); the
//! Jacobian blocks are added by [`Frames`]. Each primitive writes its residual, Jacobian,
//! Jacobian rate and `gamma = -(dA/dt) xd` once; joints only list primitives.

use nalgebra::{DMatrix, DVector, Vector3, Vector4};

use super::body::{Body, BodyKind};
use super::rigid;

/// A point (`is_point`) or a direction fixed in a body, or in the ground (`body` `None`), in
/// body axes from the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment {
    pub body: Option<usize>,
    pub local: Vector3<f64>,
}

/// One primitive constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    Coincidence {
        a: Attachment,
        b: Attachment,
    },
    Dot1 {
        a: Attachment,
        b: Attachment,
    },
    Dot2 {
        axis: Attachment,
        from: Attachment,
        to: Attachment,
    },
    Distance {
        a: Attachment,
        b: Attachment,
        length: f64,
    },
}

impl Primitive {
    pub fn rows(&self) -> usize {
        match self {
            Self::Coincidence { .. } => 3,
            _ => 1,
        }
    }
}

/// A spatial joint: what it is (for drawing and naming) and the primitives it consists of.
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialJoint {
    pub kind: SpatialKind,
    pub primitives: Vec<Primitive>,
}

/// The spatial joint types, with the attachments a drawing needs. `a` is on the first body,
/// `b` on the second (or the ground).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpatialKind {
    /// Ball joint: the points coincide (3 rows).
    Spherical { a: Attachment, b: Attachment },
    /// Hinge: the points coincide and the axes stay parallel (5 rows).
    Revolute {
        a: Attachment,
        b: Attachment,
        axis_a: Attachment,
        axis_b: Attachment,
    },
    /// Cardan joint: the points coincide and the cross arms stay perpendicular (4 rows).
    Universal {
        a: Attachment,
        b: Attachment,
        arm_a: Attachment,
        arm_b: Attachment,
    },
    /// Prismatic joint: the bodies slide along the axis without rotating (5 rows). `lock_a`
    /// and `lock_b` are perpendicular to the axis and to each other at the assembled pose; a
    /// dot-1 between them locks the rotation about the axis.
    Prismatic {
        a: Attachment,
        b: Attachment,
        axis_a: Attachment,
        axis_b: Attachment,
        lock_a: Attachment,
        lock_b: Attachment,
    },
    /// A point of a body stays at `length` from a point of another body or the ground (1 row).
    Distance {
        a: Attachment,
        b: Attachment,
        length: f64,
    },
}

/// How the 3D view draws a spatial joint: the model's accessor for drawing, so that a new
/// kind of spatial joint picks one of these and the drawing needs no change. `a` is on the
/// first body, `b` on the second (or the ground).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpatialGlyph {
    /// A ball where the two points meet.
    Ball { a: Attachment, b: Attachment },
    /// A pin along `axis` through the meeting point.
    Pin {
        a: Attachment,
        b: Attachment,
        axis: Attachment,
    },
    /// The cross of two arms at the meeting point.
    Cross {
        a: Attachment,
        b: Attachment,
        arms: [Attachment; 2],
    },
    /// A guide rail along the axis, the guide on the ground side where there is one; `lock_a`
    /// and `lock_b` are perpendicular to the axis (the rail's other axes).
    Rail {
        a: Attachment,
        b: Attachment,
        axis_a: Attachment,
        axis_b: Attachment,
        lock_a: Attachment,
        lock_b: Attachment,
    },
    /// A rod of `length` between two points (a sphere of that radius about a ground point).
    Link {
        a: Attachment,
        b: Attachment,
        length: f64,
    },
}

impl SpatialGlyph {
    /// The two points that meet at a ball, a pin or a cross.
    pub fn meeting_points(&self) -> Option<[Attachment; 2]> {
        match *self {
            Self::Ball { a, b } | Self::Pin { a, b, .. } | Self::Cross { a, b, .. } => Some([a, b]),
            Self::Rail { .. } | Self::Link { .. } => None,
        }
    }
}

impl SpatialKind {
    /// How the 3D view draws the joint.
    pub fn glyph(&self) -> SpatialGlyph {
        match *self {
            Self::Spherical { a, b } => SpatialGlyph::Ball { a, b },
            Self::Revolute { a, b, axis_a, .. } => SpatialGlyph::Pin { a, b, axis: axis_a },
            Self::Universal { a, b, arm_a, arm_b } => SpatialGlyph::Cross {
                a,
                b,
                arms: [arm_a, arm_b],
            },
            Self::Prismatic {
                a,
                b,
                axis_a,
                axis_b,
                lock_a,
                lock_b,
            } => SpatialGlyph::Rail {
                a,
                b,
                axis_a,
                axis_b,
                lock_a,
                lock_b,
            },
            Self::Distance { a, b, length } => SpatialGlyph::Link { a, b, length },
        }
    }
}

/// Two unit vectors perpendicular to `axis` (and to each other).
pub fn perpendiculars(axis: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let unit = axis.normalize();
    let helper = if unit.x.abs() < 0.6 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let first = unit.cross(&helper).normalize();
    (first, unit.cross(&first))
}

impl SpatialJoint {
    /// The joint of the given kind with its primitives. Axes need not be unit vectors; the
    /// perpendiculars the primitives use are unit vectors.
    pub fn new(kind: SpatialKind) -> Self {
        let primitives = match kind {
            SpatialKind::Spherical { a, b } => vec![Primitive::Coincidence { a, b }],
            SpatialKind::Universal { a, b, arm_a, arm_b } => vec![
                Primitive::Coincidence { a, b },
                Primitive::Dot1 { a: arm_a, b: arm_b },
            ],
            SpatialKind::Revolute {
                a,
                b,
                axis_a,
                axis_b,
            } => {
                let (f, g) = perpendiculars(&axis_b.local);
                vec![
                    Primitive::Coincidence { a, b },
                    Primitive::Dot1 {
                        a: axis_a,
                        b: axis_b.with_local(f),
                    },
                    Primitive::Dot1 {
                        a: axis_a,
                        b: axis_b.with_local(g),
                    },
                ]
            }
            SpatialKind::Prismatic {
                a,
                b,
                axis_a,
                axis_b,
                lock_a,
                lock_b,
            } => {
                let (f, g) = perpendiculars(&axis_b.local);
                let (f, g) = (axis_b.with_local(f), axis_b.with_local(g));
                vec![
                    Primitive::Dot1 { a: axis_a, b: f },
                    Primitive::Dot1 { a: axis_a, b: g },
                    Primitive::Dot2 {
                        axis: f,
                        from: b,
                        to: a,
                    },
                    Primitive::Dot2 {
                        axis: g,
                        from: b,
                        to: a,
                    },
                    Primitive::Dot1 {
                        a: lock_a,
                        b: lock_b,
                    },
                ]
            }
            SpatialKind::Distance { a, b, length } => {
                vec![Primitive::Distance { a, b, length }]
            }
        };
        Self { kind, primitives }
    }

    pub fn rows(&self) -> usize {
        self.primitives.iter().map(Primitive::rows).sum()
    }

    /// Whether the joint stops a relative rotation (its reaction includes a moment).
    pub fn carries_moment(&self) -> bool {
        !matches!(
            self.kind,
            SpatialKind::Spherical { .. } | SpatialKind::Distance { .. }
        )
    }

    /// The two attachment points, on the first body and on the second (or the ground).
    pub fn points(&self) -> (Attachment, Attachment) {
        match self.kind {
            SpatialKind::Spherical { a, b }
            | SpatialKind::Revolute { a, b, .. }
            | SpatialKind::Universal { a, b, .. }
            | SpatialKind::Prismatic { a, b, .. }
            | SpatialKind::Distance { a, b, .. } => (a, b),
        }
    }

    /// The bodies the joint connects (ground as `None`).
    pub fn bodies(&self) -> (Option<usize>, Option<usize>) {
        match self.kind {
            SpatialKind::Spherical { a, b }
            | SpatialKind::Revolute { a, b, .. }
            | SpatialKind::Universal { a, b, .. }
            | SpatialKind::Prismatic { a, b, .. }
            | SpatialKind::Distance { a, b, .. } => (a.body, b.body),
        }
    }
}

impl Attachment {
    fn with_local(self, local: Vector3<f64>) -> Self {
        Self { local, ..self }
    }
}

/// A point's or vector's global value, velocity and velocity-quadratic acceleration.
#[derive(Clone, Copy, Debug)]
pub struct Tracked {
    pub value: Vector3<f64>,
    pub velocity: Vector3<f64>,
    pub quadratic: Vector3<f64>,
}

/// How a body moves a point fixed in it.
#[derive(Clone, Copy)]
enum Carrier {
    Ground,
    /// Translation only (a point mass): offset of `(x, y, z)`.
    Translating(usize),
    /// Offset of `(r, e)`.
    Rigid(usize),
}

/// The bodies' kinematics, shared by every primitive.
pub struct Frames<'a> {
    pub bodies: &'a [Body],
}

fn vec3(x: &DVector<f64>, o: usize) -> Vector3<f64> {
    Vector3::new(x[o], x[o + 1], x[o + 2])
}

fn vec4(x: &DVector<f64>, o: usize) -> Vector4<f64> {
    Vector4::new(x[o], x[o + 1], x[o + 2], x[o + 3])
}

impl Frames<'_> {
    /// A body-fixed point's (`is_point`) or vector's global value at `x`.
    pub fn position(&self, at: &Attachment, is_point: bool, x: &DVector<f64>) -> Vector3<f64> {
        match self.carrier(at.body) {
            Carrier::Ground => at.local,
            Carrier::Translating(o) if is_point => vec3(x, o) + at.local,
            Carrier::Translating(_) => at.local,
            Carrier::Rigid(o) => {
                let turned = rigid::rotate(&vec4(x, o + 3), &at.local);
                if is_point {
                    vec3(x, o) + turned
                } else {
                    turned
                }
            }
        }
    }

    fn carrier(&self, body: Option<usize>) -> Carrier {
        match body.map(|b| &self.bodies[b]) {
            None => Carrier::Ground,
            Some(b) => match b.kind {
                BodyKind::Rigid { .. } => Carrier::Rigid(b.offset),
                _ => Carrier::Translating(b.offset),
            },
        }
    }

    /// A body-fixed point (`is_point`) or vector at `(x, xd)`.
    pub fn track(
        &self,
        at: &Attachment,
        is_point: bool,
        x: &DVector<f64>,
        xd: &DVector<f64>,
    ) -> Tracked {
        let zero = Vector3::zeros();
        match self.carrier(at.body) {
            Carrier::Ground => Tracked {
                value: at.local,
                velocity: zero,
                quadratic: zero,
            },
            Carrier::Translating(o) => Tracked {
                value: if is_point {
                    vec3(x, o) + at.local
                } else {
                    at.local
                },
                velocity: if is_point { vec3(xd, o) } else { zero },
                quadratic: zero,
            },
            Carrier::Rigid(o) => {
                let (e, ed) = (vec4(x, o + 3), vec4(xd, o + 3));
                let turned = rigid::rotate(&e, &at.local);
                let velocity = rigid::rotate_jacobian(&e, &at.local) * ed;
                let quadratic = rigid::rotate(&ed, &at.local) * 2.0;
                if is_point {
                    Tracked {
                        value: vec3(x, o) + turned,
                        velocity: vec3(xd, o) + velocity,
                        quadratic,
                    }
                } else {
                    Tracked {
                        value: turned,
                        velocity,
                        quadratic,
                    }
                }
            }
        }
    }

    /// Adds `weight^T d(value)/dx` to row `row` of `a`; with `rate`, adds
    /// `weight^T d/dt(d(value)/dx)` instead (the Jacobian's rate along `xd`).
    pub fn add_row(
        &self,
        at: &Attachment,
        is_point: bool,
        weight: &Vector3<f64>,
        x: &DVector<f64>,
        rate: Option<&DVector<f64>>,
        row: usize,
        a: &mut DMatrix<f64>,
    ) {
        match self.carrier(at.body) {
            Carrier::Ground => {}
            Carrier::Translating(o) => {
                if is_point && rate.is_none() {
                    for k in 0..3 {
                        a[(row, o + k)] += weight[k];
                    }
                }
            }
            Carrier::Rigid(o) => {
                if is_point && rate.is_none() {
                    for k in 0..3 {
                        a[(row, o + k)] += weight[k];
                    }
                }
                // d(A s)/de is linear in e, so its rate is the same map at ed.
                let e = vec4(rate.unwrap_or(x), o + 3);
                let block = weight.transpose() * rigid::rotate_jacobian(&e, &at.local);
                for k in 0..4 {
                    a[(row, o + 3 + k)] += block[k];
                }
            }
        }
    }
}

/// Which attachments of a primitive are points.
const POINT: bool = true;
const VECTOR: bool = false;

impl Primitive {
    /// Residuals into `c[row..row + rows]`.
    pub fn residual(&self, frames: &Frames, x: &DVector<f64>, row: usize, c: &mut DVector<f64>) {
        let at = |a: &Attachment, p: bool| frames.position(a, p, x);
        match self {
            Self::Coincidence { a, b } => {
                let d = at(a, POINT) - at(b, POINT);
                c.rows_mut(row, 3).copy_from(&d);
            }
            Self::Dot1 { a, b } => c[row] = at(a, VECTOR).dot(&at(b, VECTOR)),
            Self::Dot2 { axis, from, to } => {
                c[row] = at(axis, VECTOR).dot(&(at(to, POINT) - at(from, POINT)));
            }
            Self::Distance { a, b, length } => {
                let d = at(a, POINT) - at(b, POINT);
                c[row] = d.dot(&d) - length * length;
            }
        }
    }

    /// Jacobian rows (`rate` `None`) or their rate along `rate = xd` into `a`, which the caller
    /// zeroed.
    pub fn jacobian(
        &self,
        frames: &Frames,
        x: &DVector<f64>,
        rate: Option<&DVector<f64>>,
        row: usize,
        a: &mut DMatrix<f64>,
    ) {
        let xd = rate.unwrap_or(x);
        let track = |t: &Attachment, p: bool| frames.track(t, p, x, xd);
        // Adds w^T J_t (or its rate w^T dJ_t/dt + wd^T J_t) for attachment t.
        let mut add = |t: &Attachment, p: bool, w: Vector3<f64>, wd: Vector3<f64>, r: usize| {
            frames.add_row(t, p, &w, x, rate, r, a);
            if rate.is_some() {
                frames.add_row(t, p, &wd, x, None, r, a);
            }
        };
        let zero = Vector3::zeros();
        match self {
            Self::Coincidence { a: pa, b: pb } => {
                for k in 0..3 {
                    let unit = Vector3::ith(k, 1.0);
                    add(pa, POINT, unit, zero, row + k);
                    add(pb, POINT, -unit, zero, row + k);
                }
            }
            Self::Dot1 { a: ua, b: ub } => {
                let (u, w) = (track(ua, VECTOR), track(ub, VECTOR));
                add(ua, VECTOR, w.value, w.velocity, row);
                add(ub, VECTOR, u.value, u.velocity, row);
            }
            Self::Dot2 { axis, from, to } => {
                let u = track(axis, VECTOR);
                let (p, q) = (track(from, POINT), track(to, POINT));
                let d = q.value - p.value;
                let dd = q.velocity - p.velocity;
                add(axis, VECTOR, d, dd, row);
                add(to, POINT, u.value, u.velocity, row);
                add(from, POINT, -u.value, -u.velocity, row);
            }
            Self::Distance { a: pa, b: pb, .. } => {
                let (p, q) = (track(pa, POINT), track(pb, POINT));
                let d = (p.value - q.value) * 2.0;
                let dd = (p.velocity - q.velocity) * 2.0;
                add(pa, POINT, d, dd, row);
                add(pb, POINT, -d, -dd, row);
            }
        }
    }

    /// `gamma = -(dA/dt) xd` into `gamma[row..row + rows]`.
    pub fn gamma(
        &self,
        frames: &Frames,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        row: usize,
        gamma: &mut DVector<f64>,
    ) {
        let track = |t: &Attachment, p: bool| frames.track(t, p, x, xd);
        // d2/dt2 (u . w) without the acceleration terms: uq.w + 2 ud.wd + u.wq.
        let dot = |u: Tracked, w: Tracked| {
            u.quadratic.dot(&w.value)
                + 2.0 * u.velocity.dot(&w.velocity)
                + u.value.dot(&w.quadratic)
        };
        match self {
            Self::Coincidence { a, b } => {
                let g = track(b, POINT).quadratic - track(a, POINT).quadratic;
                gamma.rows_mut(row, 3).copy_from(&g);
            }
            Self::Dot1 { a, b } => gamma[row] = -dot(track(a, VECTOR), track(b, VECTOR)),
            Self::Dot2 { axis, from, to } => {
                let (p, q) = (track(from, POINT), track(to, POINT));
                let d = Tracked {
                    value: q.value - p.value,
                    velocity: q.velocity - p.velocity,
                    quadratic: q.quadratic - p.quadratic,
                };
                gamma[row] = -dot(track(axis, VECTOR), d);
            }
            Self::Distance { a, b, .. } => {
                let (p, q) = (track(a, POINT), track(b, POINT));
                let d = Tracked {
                    value: p.value - q.value,
                    velocity: p.velocity - q.velocity,
                    quadratic: p.quadratic - q.quadratic,
                };
                gamma[row] = -dot(d, d);
            }
        }
    }

    /// The largest offset or length among the primitive's attachments (the scene's size).
    pub fn attachment_size(&self) -> f64 {
        match self {
            Self::Coincidence { a, b } | Self::Dot1 { a, b } => a.local.amax().max(b.local.amax()),
            Self::Dot2 { axis, from, to } => axis
                .local
                .amax()
                .max(from.local.amax())
                .max(to.local.amax()),
            Self::Distance { a, b, length } => a.local.amax().max(b.local.amax()).max(*length),
        }
    }

    /// The largest magnitude the residual is computed from at `x`: body positions and the
    /// attachments' offsets (see `Mechanism::residual_scale`).
    pub fn residual_scale(&self, frames: &Frames, x: &DVector<f64>) -> f64 {
        let point = |t: &Attachment| {
            let local = t.local.amax();
            match frames.carrier(t.body) {
                Carrier::Ground => local,
                Carrier::Translating(o) | Carrier::Rigid(o) => vec3(x, o).amax().max(local),
            }
        };
        match self {
            Self::Coincidence { a, b } => point(a).max(point(b)),
            Self::Dot1 { a, b } => a.local.amax() * b.local.amax(),
            Self::Dot2 { axis, from, to } => axis.local.amax() * point(from).max(point(to)),
            Self::Distance { a, b, length } => {
                point(a).max(point(b)).max(length.abs()) * length.abs()
            }
        }
    }
}
