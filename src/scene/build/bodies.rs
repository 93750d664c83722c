//! The bodies of a scene: bars, point masses, plates and rigid bodies, checked and built
//! with their initial coordinates as written and their indices by name.

use std::collections::{HashMap, HashSet};

use nalgebra::Vector2;

use super::Builder;
use super::limits::{ANGLE, LENGTH, MASS, check_bounded, check_positive};
use super::planar::{NamedPoints, PlateSpec};
use super::rigid::{self, RigidInfo, RigidSpec};
use crate::model::{Body, BodyKind};
use crate::scene::SceneError;
use crate::scene::format::BodySpec;

/// The bodies built so far, their poses as written and their indices by name.
pub(super) struct Bodies<'a> {
    pub(super) list: Vec<Body>,
    /// Initial coordinates as written, body after body.
    pub(super) x0: Vec<f64>,
    pub(super) index_of: HashMap<&'a str, usize>,
    /// What joints and looks need of each rigid body (`None` for other bodies).
    pub(super) rigid: Vec<Option<RigidInfo>>,
    /// The named points of each plate as written (`None` for other bodies).
    pub(super) named: Vec<Option<&'a NamedPoints>>,
}

impl Bodies<'_> {
    /// The angle of planar body `index` as written.
    pub(super) fn written_angle(&self, index: usize) -> f64 {
        let offset: usize = self.list[..index].iter().map(Body::dim).sum();
        self.x0[offset + 2]
    }
}

impl<'a> Builder<'a> {
    /// Bodies and their initial poses.
    pub(super) fn bodies(&self) -> Result<Bodies<'a>, SceneError> {
        let mut bodies = Bodies {
            list: Vec::new(),
            x0: Vec::new(),
            index_of: HashMap::new(),
            rigid: Vec::new(),
            named: Vec::new(),
        };
        let mut seen = HashSet::new();
        for (index, body) in self.spec.bodies.iter().enumerate() {
            let name = body.name();
            self.check_name("bodies", "body", index, name, &mut seen)?;
            self.check_not_ground(name)?;
            bodies.index_of.insert(name, bodies.list.len());
            self.body(&mut bodies, name, body)?;
            bodies.rigid.resize(bodies.list.len(), None);
            bodies.named.resize(bodies.list.len(), None);
        }
        Ok(bodies)
    }

    /// Body `name` as written, with its pose, appended to `bodies`.
    pub(super) fn body(
        &self,
        bodies: &mut Bodies<'a>,
        name: &str,
        body: &'a BodySpec,
    ) -> Result<(), SceneError> {
        match body {
            BodySpec::Bar {
                length,
                mass,
                start,
                center,
                angle,
                ..
            } => {
                let (bar, pose) = self.bar(name, *length, *mass, *start, *center, *angle)?;
                bodies.x0.extend_from_slice(&pose);
                bodies.list.push(bar);
            }
            BodySpec::Point { mass, position, .. } => {
                let point = self.point_mass(name, *mass, position)?;
                bodies.x0.extend_from_slice(position);
                bodies.list.push(point);
            }
            BodySpec::Rigid {
                mass,
                inertia,
                center,
                orientation,
                points,
                shape,
                ..
            } => self.rigid(
                bodies,
                &RigidSpec {
                    name,
                    mass: *mass,
                    inertia,
                    center: *center,
                    orientation: orientation.as_ref(),
                    points,
                    shape: shape.as_ref(),
                },
            )?,
            BodySpec::Plate {
                mass,
                inertia,
                center,
                angle,
                points,
                ..
            } => {
                let (plate, pose) = self.plate(&PlateSpec {
                    name,
                    mass: *mass,
                    inertia: *inertia,
                    center: *center,
                    angle: *angle,
                    points,
                })?;
                bodies.x0.extend_from_slice(&pose);
                bodies.list.push(plate);
                bodies.named.push(Some(points));
            }
        }
        Ok(())
    }

    /// A rigid body (spatial scenes only), its pose and what its joints need.
    pub(super) fn rigid(&self, bodies: &mut Bodies, spec: &RigidSpec) -> Result<(), SceneError> {
        if self.dimension != 3 {
            return Err(self.report.body(
                spec.name,
                "name",
                "rigid bodies are spatial; this scene's gravity makes it planar (give 3 components)"
                    .into(),
            ));
        }
        let checked =
            rigid::check_rigid(spec).map_err(|(field, m)| self.report.body(spec.name, field, m))?;
        bodies.x0.extend_from_slice(&checked.pose);
        bodies.list.push(checked.body);
        bodies.rigid.push(Some(checked.info));
        Ok(())
    }

    /// A bar and its pose `[x, y, angle]` from its start end or centre (exactly one given).
    pub(super) fn bar(
        &self,
        name: &str,
        length: f64,
        mass: f64,
        start: Option<(f64, f64)>,
        center: Option<(f64, f64)>,
        angle: f64,
    ) -> Result<(Body, [f64; 3]), SceneError> {
        let report = &self.report;
        if self.dimension != 2 {
            return Err(report.body(
                name,
                "name",
                "bars are planar; this scene's gravity makes it spatial".into(),
            ));
        }
        check_positive(mass, "mass", MASS).map_err(|m| report.body(name, "mass", m))?;
        check_positive(length, "length", LENGTH).map_err(|m| report.body(name, "length", m))?;
        check_bounded(&[angle], "angle", ANGLE).map_err(|m| report.body(name, "angle", m))?;
        let axis = Vector2::new(angle.cos(), angle.sin());
        let centre = match (start, center) {
            (Some((x, y)), None) => Vector2::new(x, y) + axis * (0.5 * length),
            (None, Some((x, y))) => Vector2::new(x, y),
            _ => {
                return Err(report.body(
                    name,
                    "name",
                    "give exactly one of `start` and `center`".into(),
                ));
            }
        };
        let field = if start.is_some() { "start" } else { "center" };
        check_bounded(&[centre.x, centre.y], "position", LENGTH)
            .map_err(|m| report.body(name, field, m))?;
        let bar = Body {
            name: name.to_string(),
            kind: BodyKind::Bar { length },
            mass,
            offset: 0,
        };
        Ok((bar, [centre.x, centre.y, angle]))
    }

    /// A point mass at `position` (as many components as the scene has dimensions).
    pub(super) fn point_mass(
        &self,
        name: &str,
        mass: f64,
        position: &[f64],
    ) -> Result<Body, SceneError> {
        let report = &self.report;
        check_positive(mass, "mass", MASS).map_err(|m| report.body(name, "mass", m))?;
        if position.len() != self.dimension {
            return Err(report.body(
                name,
                "position",
                format!(
                    "position has {} components but the scene is {}-dimensional (see gravity)",
                    position.len(),
                    self.dimension
                ),
            ));
        }
        check_bounded(position, "position", LENGTH)
            .map_err(|m| report.body(name, "position", m))?;
        Ok(Body {
            name: name.to_string(),
            kind: if self.dimension == 2 {
                BodyKind::Point2
            } else {
                BodyKind::Point3
            },
            mass,
            offset: 0,
        })
    }
}
