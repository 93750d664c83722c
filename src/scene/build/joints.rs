//! The joints of a scene: each entry's bodies checked (planar joints on planar bodies) and
//! its kind built, distances measured from the pose as written where not given.

use std::collections::HashSet;

use nalgebra::{Vector2, Vector3};

use super::Builder;
use super::bodies::Bodies;
use super::limits::{LENGTH, check_bounded, check_positive};
use super::spatial;
use crate::model::{BodyKind, Joint, JointKind};
use crate::scene::SceneError;
use crate::scene::format::JointSpec;

impl<'a> Builder<'a> {
    /// Joints, in the order written.
    pub(super) fn joints(&self, bodies: &Bodies) -> Result<Vec<Joint>, SceneError> {
        let mut seen = HashSet::new();
        let mut joints = Vec::new();
        for (index, joint) in self.spec.joints.iter().enumerate() {
            let name = joint.name();
            self.check_name("joints", "joint", index, name, &mut seen)?;
            let kind = self.joint_kind(bodies, name, joint)?;
            let driver = match joint {
                JointSpec::Prismatic {
                    driver: Some(driver),
                    ..
                } => Some(self.driver(name, &kind, driver)?),
                _ => None,
            };
            joints.push(Joint {
                name: name.to_string(),
                kind,
                row: 0,
            });
            joints.extend(driver);
        }
        Ok(joints)
    }

    /// Index of the body that field `field` of joint `joint` names.
    pub(super) fn joint_body(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        body: &str,
    ) -> Result<usize, SceneError> {
        bodies.index_of.get(body).copied().ok_or_else(|| {
            let problem = if body == spatial::GROUND {
                "the ground is not a body here: `Pin` (its `ground` point), `Distance` (its \
                 `anchor`) and spatial joints (`a` or `b`) reach it"
                    .to_string()
            } else {
                self.unknown_body(body)
            };
            self.report.joint(joint, Some(field), problem)
        })
    }

    /// Revolute joints and pins act in the plane: body `body` (named in `field`) must be planar.
    pub(super) fn check_planar(
        &self,
        bodies: &Bodies,
        joint: &str,
        field: &str,
        body: usize,
    ) -> Result<(), SceneError> {
        match bodies.list[body].kind {
            BodyKind::Point3 => Err(self.report.joint(
                joint,
                Some(field),
                "revolute joints and pins are planar; use Distance for a spatial point".into(),
            )),
            BodyKind::Rigid { .. } => Err(self.report.joint(
                joint,
                Some(field),
                "revolute joints and pins are planar; a rigid body needs Spherical, Hinge, \
                 Universal, Translational or Distance"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    /// What joint `name` connects, and where on its bodies.
    pub(super) fn joint_kind(
        &self,
        bodies: &Bodies,
        name: &str,
        joint: &JointSpec,
    ) -> Result<JointKind, SceneError> {
        let report = &self.report;
        let point =
            |body: usize, spec, field: &str| self.planar_point(bodies, name, field, body, spec);
        Ok(match joint {
            JointSpec::Revolute {
                a, at_a, b, at_b, ..
            } => {
                let ia = self.joint_body(bodies, name, "a", a)?;
                let ib = self.joint_body(bodies, name, "b", b)?;
                if ia == ib {
                    return Err(report.joint(
                        name,
                        Some("b"),
                        "a revolute joint needs two different bodies".into(),
                    ));
                }
                self.check_planar(bodies, name, "a", ia)?;
                self.check_planar(bodies, name, "b", ib)?;
                JointKind::Revolute {
                    a: ia,
                    point_a: point(ia, at_a, "at_a")?,
                    b: ib,
                    point_b: point(ib, at_b, "at_b")?,
                }
            }
            JointSpec::Pin {
                body, at, ground, ..
            } => {
                let i = self.joint_body(bodies, name, "body", body)?;
                self.check_planar(bodies, name, "body", i)?;
                check_bounded(&[ground.0, ground.1], "ground point", LENGTH)
                    .map_err(|m| report.joint(name, Some("ground"), m))?;
                JointKind::Pin {
                    body: i,
                    point: point(i, at, "at")?,
                    ground: Vector2::new(ground.0, ground.1),
                }
            }
            JointSpec::Distance {
                body,
                at,
                anchor,
                length,
                ..
            } => self.distance_joint(bodies, name, body, at.as_ref(), anchor, *length)?,
            JointSpec::Prismatic { .. } | JointSpec::Slot { .. } => {
                self.prismatic(bodies, name, joint)?
            }
            JointSpec::KnifeEdge {
                body, at, normal, ..
            } => self.knife_edge(bodies, name, body, at, *normal)?,
            JointSpec::Slider {
                body,
                at,
                through,
                axis,
                ..
            } => self.slider(bodies, name, body, at, *through, *axis)?,
            _ => self.spatial_joint(bodies, name, joint)?,
        })
    }

    /// A point mass, or a rigid body's point `at`, held at `length` from `anchor`.
    pub(super) fn distance_joint(
        &self,
        bodies: &Bodies,
        name: &str,
        body: &str,
        at: Option<&crate::scene::format::SpatialPointSpec>,
        anchor: &[f64],
        length: f64,
    ) -> Result<JointKind, SceneError> {
        let report = &self.report;
        let i = self.joint_body(bodies, name, "body", body)?;
        if bodies.list[i].has_angle() {
            return Err(report.joint(
                name,
                Some("body"),
                "Distance constrains a point mass; a bar or a plate needs Pin or Revolute".into(),
            ));
        }
        if anchor.len() != bodies.list[i].translational_dim() {
            return Err(report.joint(
                name,
                Some("anchor"),
                format!(
                    "anchor has {} components, body \"{body}\" has {}",
                    anchor.len(),
                    bodies.list[i].translational_dim()
                ),
            ));
        }
        check_bounded(anchor, "anchor", LENGTH)
            .map_err(|m| report.joint(name, Some("anchor"), m))?;
        check_positive(length, "length", LENGTH)
            .map_err(|m| report.joint(name, Some("length"), m))?;
        if bodies.list[i].is_rigid() {
            let anchor = Vector3::from_column_slice(anchor);
            return self.rigid_distance(bodies, name, i, at, anchor, length);
        }
        if at.is_some_and(|at| *at != crate::scene::format::SpatialPointSpec::Center) {
            return Err(report.joint(
                name,
                Some("at"),
                "a point mass has only its centre (`Center`) as a joint point".into(),
            ));
        }
        let mut point = [0.0; 3];
        point[..anchor.len()].copy_from_slice(anchor);
        Ok(JointKind::Distance {
            body: i,
            anchor: point,
            length,
        })
    }
}
