//! The one constraint interface: every joint is a list of [`Constraint`]s, each of which
//! writes its rows of the residual `c`, the Jacobian `A`, its rate `dA/dt` along the
//! velocity, `gamma = -(dA/dt) xd` (plus a driver's `d''(t)`) and the size of the numbers its
//! residual is computed from. A joint kind only says which constraints it is made of
//! ([`Constraint::of_joint`]); `Mechanism` runs one loop over them.
//!
//! The planar constraints are the point coincidence in the plane (a revolute joint, or a pin
//! to the ground), the relative angle and the projected offset (a prismatic joint, a driver;
//! `planar`), a point on a fixed line (a slider, `planar`), the knife edge's velocity-level
//! row (`planar`) and a point mass's squared
//! distance to an anchor; the spatial ones are the four primitives of `spatial`; a rigid
//! body's Euler parameters stay a unit quaternion.

use nalgebra::{DMatrix, DVector, Vector2, Vector4};

use super::body::Body;
use super::driver::DriverLaw;
use super::joint::{JointKind, LocalPoint, PlanarFrame, perp};
use super::planar::{
    BodyPoint, GroundLineRow, KnifeEdgeRow, ProjectedOffset, RowEntries, relative_angle_entries,
};
use super::spatial::{Frames, Primitive};

/// A point fixed in a planar body (with or without an angle).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanarPoint {
    pub frame: PlanarFrame,
    pub local: LocalPoint,
}

impl PlanarPoint {
    fn position(&self, x: &DVector<f64>) -> Vector2<f64> {
        self.frame.point(x, &self.local)
    }

    /// The largest of the body's position and the point's offset (times one plus the
    /// angle, whose round-off moves the point by `|angle| |offset| eps`).
    fn scale(&self, x: &DVector<f64>) -> f64 {
        self.frame.point_scale(x, &self.local)
    }
}

/// What a planar point coincides with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PlanarTarget {
    Point(PlanarPoint),
    Ground(Vector2<f64>),
}

/// One constraint of a joint, with the data its rows need.
#[derive(Clone, Debug)]
pub(crate) enum Constraint {
    /// A planar point stays on another body's point or on a ground point (2 rows).
    Coincidence {
        point: PlanarPoint,
        on: PlanarTarget,
    },
    /// `theta_a - theta_b - angle = 0` modulo whole turns (1 row); `a`, `b` are the bodies'
    /// coordinate offsets.
    RelativeAngle { a: usize, b: usize, angle: f64 },
    /// The projected offset held at zero (a prismatic joint, across its axis) or driven
    /// along `law` (a driver, along its axis) (1 row, rheonomic with a law).
    Offset {
        offset: ProjectedOffset,
        law: Option<DriverLaw>,
    },
    /// The knife edge's velocity-level row (1 row, no position-level form).
    KnifeEdge(KnifeEdgeRow),
    /// A body point on a fixed line (a slider on a ground guide; 1 row).
    GroundLine(GroundLineRow),
    /// `|r - anchor|^2 - length^2 = 0` for a point mass of `dim` coordinates (1 row).
    SquaredDistance {
        offset: usize,
        dim: usize,
        anchor: [f64; 3],
        length: f64,
    },
    /// A spatial primitive (`spatial`).
    Spatial(Primitive),
    /// `e . e - 1 = 0` for the Euler parameters from coordinate `offset` on (1 row).
    UnitQuaternion { offset: usize },
}

impl Constraint {
    /// The constraints joint kind `kind` is made of, in the order of its rows.
    pub fn of_joint(kind: &JointKind, bodies: &[Body]) -> Vec<Self> {
        let frame = |body: usize| PlanarFrame {
            offset: bodies[body].offset,
            rotates: bodies[body].has_angle(),
        };
        let planar = |body: usize, local: &LocalPoint| PlanarPoint {
            frame: frame(body),
            local: *local,
        };
        let body_point = |body: usize, local: &LocalPoint| BodyPoint {
            offset: bodies[body].offset,
            local: *local,
        };
        match kind {
            JointKind::Revolute {
                a,
                point_a,
                b,
                point_b,
            } => vec![Self::Coincidence {
                point: planar(*a, point_a),
                on: PlanarTarget::Point(planar(*b, point_b)),
            }],
            JointKind::Pin {
                body,
                point,
                ground,
            } => vec![Self::Coincidence {
                point: planar(*body, point),
                on: PlanarTarget::Ground(*ground),
            }],
            JointKind::Distance {
                body,
                anchor,
                length,
            } => vec![Self::SquaredDistance {
                offset: bodies[*body].offset,
                dim: bodies[*body].dim(),
                anchor: *anchor,
                length: *length,
            }],
            JointKind::Prismatic {
                a,
                point_a,
                b,
                point_b,
                axis,
                angle,
            } => vec![
                Self::Offset {
                    offset: ProjectedOffset {
                        p: body_point(*a, point_a),
                        q: body_point(*b, point_b),
                        direction: perp(axis),
                    },
                    law: None,
                },
                Self::RelativeAngle {
                    a: bodies[*a].offset,
                    b: bodies[*b].offset,
                    angle: *angle,
                },
            ],
            JointKind::Slot {
                a,
                point_a,
                b,
                point_b,
                axis,
            } => vec![Self::Offset {
                offset: ProjectedOffset {
                    p: body_point(*a, point_a),
                    q: body_point(*b, point_b),
                    direction: perp(axis),
                },
                law: None,
            }],
            JointKind::Driver {
                a,
                point_a,
                b,
                point_b,
                axis,
                law,
            } => vec![Self::Offset {
                offset: ProjectedOffset {
                    p: body_point(*a, point_a),
                    q: body_point(*b, point_b),
                    direction: *axis,
                },
                law: Some(law.clone()),
            }],
            JointKind::KnifeEdge {
                body,
                point,
                normal,
            } => vec![Self::KnifeEdge(KnifeEdgeRow {
                point: body_point(*body, point),
                normal: *normal,
            })],
            JointKind::Slider {
                body,
                point,
                origin,
                axis,
            } => vec![Self::GroundLine(GroundLineRow {
                point: body_point(*body, point),
                origin: *origin,
                normal: perp(axis),
            })],
            JointKind::Spatial(spatial) => spatial
                .primitives
                .iter()
                .copied()
                .map(Self::Spatial)
                .collect(),
            JointKind::Normalization { body } => vec![Self::UnitQuaternion {
                offset: bodies[*body].offset + 3,
            }],
        }
    }

    pub fn rows(&self) -> usize {
        match self {
            Self::Coincidence { .. } => 2,
            Self::Spatial(primitive) => primitive.rows(),
            _ => 1,
        }
    }

    /// Whether the rows are velocity-level (`A(x) xd = 0` without a position form).
    pub fn is_velocity_level(&self) -> bool {
        matches!(self, Self::KnifeEdge(_))
    }

    /// The driver's law, on a driven row.
    pub fn law(&self) -> Option<&DriverLaw> {
        match self {
            Self::Offset { law, .. } => law.as_ref(),
            _ => None,
        }
    }

    /// Residuals at time `t` into `c[row..row + rows]` (zero on a velocity-level row).
    pub fn residual(
        &self,
        frames: &Frames,
        t: f64,
        x: &DVector<f64>,
        row: usize,
        c: &mut DVector<f64>,
    ) {
        match self {
            Self::Coincidence { point, on } => {
                let d = match on {
                    PlanarTarget::Point(other) => point.position(x) - other.position(x),
                    PlanarTarget::Ground(ground) => point.position(x) - ground,
                };
                c[row] = d.x;
                c[row + 1] = d.y;
            }
            Self::RelativeAngle { a, b, angle } => {
                // Modulo whole turns: the simulation keeps each angle in (-pi, pi].
                let relative = x[a + 2] - x[b + 2] - angle;
                c[row] =
                    relative - (relative / std::f64::consts::TAU).round() * std::f64::consts::TAU;
            }
            Self::Offset { offset, law: None } => c[row] = offset.value(x),
            Self::Offset {
                offset,
                law: Some(law),
            } => c[row] = offset.value(x) - law.at(t)[0],
            Self::KnifeEdge(_) => c[row] = 0.0,
            Self::GroundLine(line) => c[row] = line.value(x),
            Self::SquaredDistance {
                offset,
                dim,
                anchor,
                length,
            } => {
                let mut sq = 0.0;
                for k in 0..*dim {
                    let d = x[offset + k] - anchor[k];
                    sq += d * d;
                }
                c[row] = sq - length * length;
            }
            Self::Spatial(primitive) => primitive.residual(frames, x, row, c),
            Self::UnitQuaternion { offset } => {
                let e = euler_parameters(x, *offset);
                c[row] = e.dot(&e) - 1.0;
            }
        }
    }

    /// Jacobian rows (`rate` `None`) or their rate along `rate = xd` into `a` from `row`
    /// on; the caller zeroed `a`.
    pub fn jacobian(
        &self,
        frames: &Frames,
        x: &DVector<f64>,
        rate: Option<&DVector<f64>>,
        row: usize,
        a: &mut DMatrix<f64>,
    ) {
        match self {
            Self::Coincidence { point, on } => {
                let add = |p: &PlanarPoint, sign: f64, a: &mut DMatrix<f64>| match rate {
                    None => p.frame.add_jacobian(x, &p.local, sign, row, a),
                    Some(xd) => p.frame.add_jacobian_dot(x, xd, &p.local, sign, row, a),
                };
                add(point, 1.0, a);
                if let PlanarTarget::Point(other) = on {
                    add(other, -1.0, a);
                }
            }
            // The relative angle's row is constant: no rate.
            Self::RelativeAngle { a: body_a, b, .. } => {
                if rate.is_none() {
                    add_entries(&relative_angle_entries(*body_a, *b), row, a);
                }
            }
            Self::Offset { offset, .. } => add_entries(&offset.entries(x, rate), row, a),
            Self::KnifeEdge(knife) => add_entries(&knife.entries(x, rate), row, a),
            Self::GroundLine(line) => add_entries(&line.entries(x, rate), row, a),
            Self::SquaredDistance {
                offset,
                dim,
                anchor,
                ..
            } => {
                for k in 0..*dim {
                    a[(row, offset + k)] = match rate {
                        None => 2.0 * (x[offset + k] - anchor[k]),
                        Some(xd) => 2.0 * xd[offset + k],
                    };
                }
            }
            Self::Spatial(primitive) => primitive.jacobian(frames, x, rate, row, a),
            Self::UnitQuaternion { offset } => {
                let v = rate.unwrap_or(x);
                for k in 0..4 {
                    a[(row, offset + k)] = 2.0 * v[offset + k];
                }
            }
        }
    }

    /// `gamma = -(dA/dt) xd` (plus `d''(t)` on a driven row) into `gamma[row..row + rows]`.
    pub fn gamma(
        &self,
        frames: &Frames,
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        row: usize,
        gamma: &mut DVector<f64>,
    ) {
        match self {
            Self::Coincidence { point, on } => {
                let mut g = point.frame.centripetal(x, xd, &point.local);
                if let PlanarTarget::Point(other) = on {
                    g -= other.frame.centripetal(x, xd, &other.local);
                }
                gamma[row] = g.x;
                gamma[row + 1] = g.y;
            }
            Self::RelativeAngle { .. } => gamma[row] = 0.0,
            Self::Offset { offset, law } => {
                gamma[row] = -offset.entries(x, Some(xd)).dot(xd);
                if let Some(law) = law {
                    gamma[row] += law.at(t)[2];
                }
            }
            // -(perp(R n) theta') . r' (Wojtyra and Frączek 2013, eq. 31).
            Self::KnifeEdge(knife) => gamma[row] = -knife.entries(x, Some(xd)).dot(xd),
            Self::GroundLine(line) => gamma[row] = -line.entries(x, Some(xd)).dot(xd),
            Self::SquaredDistance { offset, dim, .. } => {
                let mut sq = 0.0;
                for k in 0..*dim {
                    sq += xd[offset + k] * xd[offset + k];
                }
                gamma[row] = -2.0 * sq;
            }
            Self::Spatial(primitive) => primitive.gamma(frames, x, xd, row, gamma),
            Self::UnitQuaternion { offset } => {
                let ed = euler_parameters(xd, *offset);
                gamma[row] = -2.0 * ed.dot(&ed);
            }
        }
    }

    /// The largest magnitude the residual is computed from at `x` (see
    /// `Mechanism::residual_scale`).
    pub fn residual_scale(&self, frames: &Frames, x: &DVector<f64>) -> f64 {
        match self {
            Self::Coincidence { point, on } => match on {
                PlanarTarget::Point(other) => point.scale(x).max(other.scale(x)),
                PlanarTarget::Ground(ground) => point.scale(x).max(ground.amax()),
            },
            // Its numbers are angles, below the offset row's of the same joint.
            Self::RelativeAngle { .. } => 0.0,
            Self::Offset { offset, law } => {
                let points = offset.p.scale(x).max(offset.q.scale(x));
                law.as_ref()
                    .map_or(points, |law| points.max(law.magnitude()))
            }
            Self::KnifeEdge(_) => 0.0,
            Self::GroundLine(line) => line.point.scale(x).max(line.origin.amax()),
            Self::SquaredDistance {
                offset,
                dim,
                anchor,
                length,
            } => {
                let reach = (0..*dim)
                    .map(|k| x[offset + k].abs().max(anchor[k].abs()))
                    .fold(length.abs(), f64::max);
                reach * length.abs()
            }
            Self::Spatial(primitive) => primitive.residual_scale(frames, x),
            Self::UnitQuaternion { .. } => 1.0,
        }
    }
}

fn add_entries(entries: &RowEntries, row: usize, a: &mut DMatrix<f64>) {
    for &(column, value) in entries.iter() {
        a[(row, column)] += value;
    }
}

fn euler_parameters(v: &DVector<f64>, o: usize) -> Vector4<f64> {
    Vector4::new(v[o], v[o + 1], v[o + 2], v[o + 3])
}
