//! Planar pieces of a scene beyond bars and pins: plates (planar rigid bodies with named
//! points), the points joints hold planar bodies at, prismatic joints with their optional
//! driver, and knife edges (Wojtyra and Frączek 2013, eqs. 30, 42 and 43). Directions
//! (`axis`, `normal`) are written in body axes, as the paper gives them, and normalised.

use std::collections::BTreeMap;

use nalgebra::{DVector, Vector2};

use super::bodies::Bodies;
use super::limits::{
    ANGLE, FRACTION, INERTIA, LENGTH, MASS, SCALE_FREE, check_bounded, check_driver_law,
    check_positive, check_reach,
};
use super::{Builder, Reporter};
use crate::model::{Body, BodyKind, Joint, JointKind, LocalPoint, Mechanism};
use crate::number_text::number_text;
use crate::scene::SceneError;
use crate::scene::format::{DriverSpec, JointSpec, PointSpec};

/// The suffix of the joint a prismatic joint's driver becomes (`H.driver`).
pub const DRIVER_SUFFIX: &str = ".driver";

/// Named points of a plate as written, body axes from the centre of mass.
pub type NamedPoints = BTreeMap<String, (f64, f64)>;

/// A driver's `d(0)` may miss the distance as written by this much (m, the size at which
/// assembly's note calls a pose far off) or by [`DRIVER_RELATIVE_MISS`] of the driver's size,
/// whichever is smaller; a larger miss is an error, not a pose to move.
const DRIVER_MISS: f64 = 1e-2;
const DRIVER_RELATIVE_MISS: f64 = 1e-3;

/// The point `spec` of a planar body of kind `kind` (`named` its declared points, if a plate).
pub fn local_point(
    kind: &BodyKind,
    named: Option<&NamedPoints>,
    spec: &PointSpec,
) -> Result<LocalPoint, String> {
    match kind {
        BodyKind::Bar { length } => bar_point(*length, spec),
        BodyKind::Plate { .. } => plate_point(named, spec),
        _ => match spec {
            PointSpec::Center | PointSpec::Offset(0.0, 0.0) => Ok(Vector2::zeros()),
            _ => Err("a point mass has only its centre (`Center`) as a joint point".into()),
        },
    }
}

fn bar_point(length: f64, spec: &PointSpec) -> Result<LocalPoint, String> {
    let half = 0.5 * length;
    let point = match *spec {
        PointSpec::Start => Vector2::new(-half, 0.0),
        PointSpec::End => Vector2::new(half, 0.0),
        PointSpec::Center => Vector2::zeros(),
        PointSpec::Fraction(f) => {
            check_bounded(&[f], "a fraction along the bar", FRACTION)?;
            Vector2::new((f - 0.5) * length, 0.0)
        }
        PointSpec::Along(d) => {
            check_bounded(&[d], "a distance along the bar", LENGTH)?;
            Vector2::new(d - half, 0.0)
        }
        PointSpec::Offset(a, b) => {
            check_bounded(&[a, b], "an offset", LENGTH)?;
            Vector2::new(a, b)
        }
        PointSpec::Point(_) => {
            return Err(
                "a bar has no named points: use Start, End, Center, Fraction(f), \
                        Along(d) or Offset(a, b)"
                    .into(),
            );
        }
    };
    check_reach(point.norm(), length)?;
    Ok(point)
}

fn plate_point(named: Option<&NamedPoints>, spec: &PointSpec) -> Result<LocalPoint, String> {
    match spec {
        PointSpec::Center => Ok(Vector2::zeros()),
        PointSpec::Offset(x, y) => {
            check_bounded(&[*x, *y], "an offset", LENGTH)?;
            Ok(Vector2::new(*x, *y))
        }
        PointSpec::Point(name) => named
            .and_then(|points| points.get(name))
            .map(|&(x, y)| Vector2::new(x, y))
            .ok_or_else(|| {
                let known: Vec<String> = named
                    .into_iter()
                    .flat_map(|points| points.keys())
                    .map(|k| format!("\"{k}\""))
                    .collect();
                let known = if known.is_empty() {
                    "none declared in its `points`".to_string()
                } else {
                    known.join(", ")
                };
                format!("unknown point \"{name}\" (points: {known}; `Center` is implied)")
            }),
        _ => Err("a plate has no start or end: use Center, Offset(x, y) or Point(\"name\")".into()),
    }
}

/// The unit vector along a planar direction written as `what`; zero or non-finite is an error.
fn unit_direction((x, y): (f64, f64), what: &str) -> Result<Vector2<f64>, String> {
    let v = Vector2::new(x, y);
    check_bounded(v.as_slice(), what, SCALE_FREE)?;
    let norm = v.norm();
    if norm == 0.0 || !norm.is_finite() || norm < 1e-12 * v.amax() {
        return Err(format!("{what} has zero length: a direction is needed"));
    }
    Ok(v / norm)
}

/// The pieces of a `Plate(...)` body as written.
pub struct PlateSpec<'a> {
    pub name: &'a str,
    pub mass: f64,
    pub inertia: f64,
    pub center: (f64, f64),
    pub angle: f64,
    pub points: &'a NamedPoints,
}

impl<'a> Builder<'a> {
    /// A plate and its pose `[x, y, angle]` (planar scenes only).
    pub(super) fn plate(&self, spec: &PlateSpec) -> Result<(Body, [f64; 3]), SceneError> {
        let (report, name) = (&self.report, spec.name);
        if self.dimension != 2 {
            return Err(report.body(
                name,
                "name",
                "plates are planar; this scene's gravity makes it spatial (a spatial body is \
                 `Rigid`)"
                    .into(),
            ));
        }
        check_positive(spec.mass, "mass", MASS).map_err(|m| report.body(name, "mass", m))?;
        check_positive(spec.inertia, "inertia", INERTIA)
            .map_err(|m| report.body(name, "inertia", m))?;
        let (x, y) = spec.center;
        check_bounded(&[x, y], "center", LENGTH).map_err(|m| report.body(name, "center", m))?;
        check_bounded(&[spec.angle], "angle", ANGLE).map_err(|m| report.body(name, "angle", m))?;
        for (point, &(px, py)) in spec.points {
            check_bounded(&[px, py], &format!("point \"{point}\""), LENGTH)
                .map_err(|m| report.body(name, "points", m))?;
        }
        let plate = Body {
            name: name.to_string(),
            kind: BodyKind::Plate {
                inertia: spec.inertia,
            },
            mass: spec.mass,
            offset: 0,
        };
        Ok((plate, [x, y, spec.angle]))
    }

    /// The point `spec` of body `body`, written in field `field` of joint `joint`.
    pub(super) fn planar_point(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        body: usize,
        spec: &PointSpec,
    ) -> Result<LocalPoint, SceneError> {
        local_point(&bodies.list[body].kind, bodies.named[body], spec)
            .map_err(|m| self.report.joint(joint, Some(field), m))
    }

    /// Index of the body named in field `field` of joint `joint`, which must have an angle
    /// (a bar or a plate).
    fn angled_body(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        body: &str,
    ) -> Result<usize, SceneError> {
        let index = self.joint_body(bodies, joint, field, body)?;
        if bodies.list[index].has_angle() {
            return Ok(index);
        }
        let what = if bodies.list[index].is_spatial() {
            "is spatial"
        } else {
            "is a point mass, which has no angle"
        };
        Err(self.report.joint(
            joint,
            Some(field),
            format!(
                "body \"{body}\" {what}: prismatic joints and knife edges need planar bodies \
                 with an angle (`Bar` or `Plate`)"
            ),
        ))
    }

    /// A prismatic joint (`JointSpec::Prismatic`): its rows hold the relative angle as
    /// written; or a pin in a slot (`JointSpec::Slot`), the same without the angle.
    pub(super) fn prismatic(
        &self,
        bodies: &Bodies,
        name: &str,
        joint: &JointSpec,
    ) -> Result<JointKind, SceneError> {
        let (JointSpec::Prismatic {
            a,
            at_a,
            b,
            at_b,
            axis,
            ..
        }
        | JointSpec::Slot {
            a,
            at_a,
            b,
            at_b,
            axis,
            ..
        }) = joint
        else {
            unreachable!("only prismatic joints and slots are built here");
        };
        let ia = self.angled_body(bodies, name, "a", a)?;
        let ib = self.angled_body(bodies, name, "b", b)?;
        if ia == ib {
            return Err(self.report.joint(
                name,
                Some("b"),
                "a prismatic joint needs two different bodies".into(),
            ));
        }
        let axis =
            unit_direction(*axis, "axis").map_err(|m| self.report.joint(name, Some("axis"), m))?;
        let point_a = self.planar_point(bodies, name, "at_a", ia, at_a)?;
        let point_b = self.planar_point(bodies, name, "at_b", ib, at_b)?;
        if matches!(joint, JointSpec::Slot { .. }) {
            return Ok(JointKind::Slot {
                a: ia,
                point_a,
                b: ib,
                point_b,
                axis,
            });
        }
        Ok(JointKind::Prismatic {
            a: ia,
            point_a,
            b: ib,
            point_b,
            axis,
            angle: bodies.written_angle(ia) - bodies.written_angle(ib),
        })
    }

    /// The driver joint `NAME.driver` of prismatic joint `name` (built as `prismatic`): the
    /// same points and axis, and the law as written.
    pub(super) fn driver(
        &self,
        name: &str,
        prismatic: &JointKind,
        spec: &DriverSpec,
    ) -> Result<Joint, SceneError> {
        let driver_name = format!("{name}{DRIVER_SUFFIX}");
        if self.spec.joints.iter().any(|j| j.name() == driver_name) {
            return Err(self.report.joint(
                &driver_name,
                Some("name"),
                format!(
                    "this name is taken by the driver of prismatic joint \"{name}\": rename one"
                ),
            ));
        }
        let law = check_driver_law(spec).map_err(|e| {
            let site = super::Site::NthField("joints", name, e.field, e.nth);
            self.report
                .error(site, Some(format!("joint \"{driver_name}\"")), e.message)
        })?;
        let &JointKind::Prismatic {
            a,
            point_a,
            b,
            point_b,
            axis,
            ..
        } = prismatic
        else {
            unreachable!("a driver drives a prismatic joint");
        };
        Ok(Joint {
            name: driver_name,
            kind: JointKind::Driver {
                a,
                point_a,
                b,
                point_b,
                axis,
                law,
            },
            row: 0,
        })
    }

    /// A slider on a ground guide (`JointSpec::Slider`).
    pub(super) fn slider(
        &self,
        bodies: &Bodies,
        name: &str,
        body: &str,
        at: &PointSpec,
        through: (f64, f64),
        axis: (f64, f64),
    ) -> Result<JointKind, SceneError> {
        let index = self.angled_body(bodies, name, "body", body)?;
        let axis =
            unit_direction(axis, "axis").map_err(|m| self.report.joint(name, Some("axis"), m))?;
        check_bounded(&[through.0, through.1], "the guide's point", LENGTH)
            .map_err(|m| self.report.joint(name, Some("through"), m))?;
        Ok(JointKind::Slider {
            body: index,
            point: self.planar_point(bodies, name, "at", index, at)?,
            origin: Vector2::new(through.0, through.1),
            axis,
        })
    }

    /// A knife edge (`JointSpec::KnifeEdge`).
    pub(super) fn knife_edge(
        &self,
        bodies: &Bodies,
        name: &str,
        body: &str,
        at: &PointSpec,
        normal: (f64, f64),
    ) -> Result<JointKind, SceneError> {
        let index = self.angled_body(bodies, name, "body", body)?;
        let normal = unit_direction(normal, "normal")
            .map_err(|m| self.report.joint(name, Some("normal"), m))?;
        Ok(JointKind::KnifeEdge {
            body: index,
            point: self.planar_point(bodies, name, "at", index, at)?,
            normal,
        })
    }
}

/// Every driver's `d(0)` fits the pose as written `x0`, to within what assembly moves
/// quietly: a larger miss is almost always `d`'s sign or direction, (Q_b - P_a) . axis, from
/// `at_a` to `at_b` (Wojtyra and Frączek 2013, eq. 43).
pub fn check_drivers(
    report: &Reporter,
    mechanism: &Mechanism,
    x0: &[f64],
) -> Result<(), SceneError> {
    let x = DVector::from_column_slice(x0);
    for joint in mechanism.joints() {
        let JointKind::Driver {
            a,
            point_a,
            b,
            point_b,
            axis,
            law,
        } = &joint.kind
        else {
            continue;
        };
        let (p, q) = (
            mechanism.planar_point(*a, point_a, &x),
            mechanism.planar_point(*b, point_b, &x),
        );
        let direction = crate::model::joint::rotate(x[mechanism.bodies()[*b].offset + 2], axis);
        let written = (q - p).dot(&direction);
        let d0 = law.at(0.0)[0];
        let size = p.amax().max(q.amax()).max(d0.abs());
        if (written - d0).abs() > DRIVER_MISS.min(DRIVER_RELATIVE_MISS * size) {
            return Err(report.joint(
                &joint.name,
                Some("constant"),
                format!(
                    "d(0) = {} m, but as written the distance from `at_a` to `at_b` along the \
                     axis ((Q_b - P_a) . axis, the axis in b's body axes) is {} m: change the \
                     law's constant or the pose",
                    number_text(d0),
                    number_text(written)
                ),
            ));
        }
    }
    Ok(())
}
