//! Spatial joints of a scene (ball, hinge, Cardan, prismatic, and a rigid body's point at a
//! distance from a ground point), built from what the author writes: body-frame points
//! (declared names, `Center` or coordinates; global on the ground) and directions written
//! once in global axes at the pose as written, which the loader fixes in each body.

use nalgebra::{Matrix3, Vector3};

use super::Builder;
use super::bodies::Bodies;
use super::rigid::{PERPENDICULAR_SLACK, body_point, direction, vector};
use crate::model::{Attachment, BodyKind, JointKind, SpatialJoint, SpatialKind, spatial};
use crate::scene::SceneError;
use crate::scene::format::{JointSpec, SpatialPointSpec};

/// The name that stands for the ground on either side of a spatial joint (reserved: no body
/// may take it).
pub const GROUND: &str = "ground";

/// One side of a spatial joint: its body (`None` for the ground) and the rotation of its axes
/// as written (identity for the ground and for point masses).
#[derive(Clone, Copy)]
struct Side {
    body: Option<usize>,
    rotation: Matrix3<f64>,
}

impl Side {
    /// A global direction as fixed in this side's axes.
    fn fixed(&self, global: &Vector3<f64>) -> Attachment {
        Attachment {
            body: self.body,
            local: self.rotation.transpose() * global,
        }
    }
}

/// What every spatial joint writes: its name, its two sides and their points.
struct Ends<'s> {
    a: &'s str,
    at_a: &'s SpatialPointSpec,
    b: &'s str,
    at_b: &'s SpatialPointSpec,
}

impl Builder<'_> {
    /// A spatial joint (`Spherical`, `Hinge`, `Universal`, `Translational`).
    pub(super) fn spatial_joint(
        &self,
        bodies: &Bodies,
        name: &str,
        joint: &JointSpec,
    ) -> Result<JointKind, SceneError> {
        let (ends, needs_axes) = match joint {
            JointSpec::Spherical {
                a, at_a, b, at_b, ..
            } => (Ends { a, at_a, b, at_b }, false),
            JointSpec::Hinge {
                a, at_a, b, at_b, ..
            }
            | JointSpec::Universal {
                a, at_a, b, at_b, ..
            }
            | JointSpec::Translational {
                a, at_a, b, at_b, ..
            } => (Ends { a, at_a, b, at_b }, true),
            _ => unreachable!("planar joints are built by `joint_kind`"),
        };
        let side_a = self.side(bodies, name, "a", ends.a, needs_axes)?;
        let side_b = self.side(bodies, name, "b", ends.b, needs_axes)?;
        if side_a.body.is_none() && side_b.body.is_none() {
            return Err(self.report.joint(
                name,
                Some("b"),
                "both sides are the ground: a joint needs a body on at least one side".into(),
            ));
        }
        if side_a.body == side_b.body {
            return Err(self.report.joint(
                name,
                Some("b"),
                "a joint needs two different bodies".into(),
            ));
        }
        let a = self.attachment(bodies, name, "at_a", side_a, ends.at_a)?;
        let b = self.attachment(bodies, name, "at_b", side_b, ends.at_b)?;
        let kind = self.spatial_kind(name, joint, (side_a, a), (side_b, b))?;
        Ok(JointKind::Spatial(SpatialJoint::new(kind)))
    }

    /// The joint's kind from its points and its directions, which are written in global
    /// axes and fixed here in each side's axes.
    fn spatial_kind(
        &self,
        name: &str,
        joint: &JointSpec,
        (side_a, a): (Side, Attachment),
        (side_b, b): (Side, Attachment),
    ) -> Result<SpatialKind, SceneError> {
        let axis = |field: &'static str, v: (f64, f64, f64)| {
            direction(v, field).map_err(|m| self.report.joint(name, Some(field), m))
        };
        Ok(match joint {
            JointSpec::Hinge { axis: v, .. } => {
                let u = axis("axis", *v)?;
                SpatialKind::Revolute {
                    a,
                    b,
                    axis_a: side_a.fixed(&u),
                    axis_b: side_b.fixed(&u),
                }
            }
            JointSpec::Universal { arm_a, arm_b, .. } => {
                let (u, w) = (axis("arm_a", *arm_a)?, axis("arm_b", *arm_b)?);
                if u.dot(&w).abs() > PERPENDICULAR_SLACK {
                    return Err(self.report.joint(
                        name,
                        Some("arm_b"),
                        format!(
                            "the cross arms must be perpendicular at the pose as written; they are \
                             {:.6} deg apart",
                            u.dot(&w).clamp(-1.0, 1.0).acos().to_degrees()
                        ),
                    ));
                }
                SpatialKind::Universal {
                    a,
                    b,
                    arm_a: side_a.fixed(&u),
                    arm_b: side_b.fixed(&(w - u * u.dot(&w)).normalize()),
                }
            }
            JointSpec::Translational { axis: v, .. } => {
                let u = axis("axis", *v)?;
                // The rotation about the axis is locked by two vectors perpendicular to it and
                // to each other at the pose as written.
                let (lock, _) = spatial::perpendiculars(&u);
                SpatialKind::Prismatic {
                    a,
                    b,
                    axis_a: side_a.fixed(&u),
                    axis_b: side_b.fixed(&u),
                    lock_a: side_a.fixed(&lock),
                    lock_b: side_b.fixed(&u.cross(&lock)),
                }
            }
            _ => SpatialKind::Spherical { a, b },
        })
    }

    /// A rigid body's point held at `length` from the ground point `anchor`.
    pub(super) fn rigid_distance(
        &self,
        bodies: &Bodies,
        name: &str,
        body: usize,
        at: Option<&SpatialPointSpec>,
        anchor: Vector3<f64>,
        length: f64,
    ) -> Result<JointKind, SceneError> {
        let side = self.side(bodies, name, "body", &bodies.list[body].name, false)?;
        let a = self.attachment(
            bodies,
            name,
            "at",
            side,
            at.unwrap_or(&SpatialPointSpec::Center),
        )?;
        let b = Attachment {
            body: None,
            local: anchor,
        };
        Ok(JointKind::Spatial(SpatialJoint::new(
            SpatialKind::Distance { a, b, length },
        )))
    }

    /// The side named `body` in field `field`: the ground, a rigid body, or (for joints
    /// without axes) a spatial point mass.
    fn side(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        body: &str,
        needs_axes: bool,
    ) -> Result<Side, SceneError> {
        if body == GROUND {
            return Ok(Side {
                body: None,
                rotation: Matrix3::identity(),
            });
        }
        let index = self.joint_body(bodies, joint, field, body)?;
        let problem = match &bodies.list[index].kind {
            BodyKind::Rigid { .. } => None,
            BodyKind::Point3 if !needs_axes => None,
            BodyKind::Point3 => Some(
                "a point mass has no axes: hinges, Cardan and prismatic joints need rigid bodies"
                    .to_string(),
            ),
            _ => Some(format!(
                "body \"{body}\" is planar: spatial joints need rigid bodies (`Rigid`) or \
                 spatial point masses"
            )),
        };
        if let Some(problem) = problem {
            return Err(self.report.joint(joint, Some(field), problem));
        }
        Ok(Side {
            body: Some(index),
            rotation: bodies.rigid[index]
                .as_ref()
                .map_or_else(Matrix3::identity, |info| info.rotation),
        })
    }

    /// The point `spec` of `side` as an attachment (body axes; global on the ground).
    fn attachment(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        side: Side,
        spec: &SpatialPointSpec,
    ) -> Result<Attachment, SceneError> {
        let local = match side.body {
            None => match spec {
                SpatialPointSpec::At(x, y, z) => {
                    let p = vector((*x, *y, *z));
                    super::check_bounded(p.as_slice(), "a ground point", super::LENGTH).map(|()| p)
                }
                _ => Err("the ground's points are global coordinates: write `At(x, y, z)`".into()),
            },
            Some(index) => match &bodies.rigid[index] {
                Some(info) => body_point(info, spec),
                None if matches!(spec, SpatialPointSpec::Center)
                    || *spec == SpatialPointSpec::At(0.0, 0.0, 0.0) =>
                {
                    Ok(Vector3::zeros())
                }
                None => Err("a point mass has only its centre (`Center`) as a joint point".into()),
            },
        };
        let local = local.map_err(|m| self.report.joint(joint, Some(field), m))?;
        Ok(Attachment {
            body: side.body,
            local,
        })
    }
}
