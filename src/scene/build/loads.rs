//! The loads of a scene: forces, torques, springs and dampers on named bodies, and the
//! windows of pulse loads.

use std::collections::HashSet;

use super::Builder;
use super::bodies::Bodies;
use super::limits::{FORCE, TIME, TORQUE, check_bounded, check_positive};
use crate::model::{Body, Load, LoadKind};
use crate::scene::SceneError;
use crate::scene::format::LoadSpec;

impl<'a> Builder<'a> {
    /// Loads, in the order written.
    pub(super) fn loads(&self, bodies: &Bodies) -> Result<Vec<Load>, SceneError> {
        let mut loads = Vec::new();
        let mut seen = HashSet::new();
        for (index, load) in self.spec.loads.iter().enumerate() {
            let name = load.name();
            self.check_name("loads", "load", index, name, &mut seen)?;
            let (body, start, duration) = match load {
                LoadSpec::Torque {
                    body,
                    start,
                    duration,
                    ..
                }
                | LoadSpec::SpatialTorque {
                    body,
                    start,
                    duration,
                    ..
                }
                | LoadSpec::Force {
                    body,
                    start,
                    duration,
                    ..
                } => (body, *start, *duration),
            };
            let i = bodies
                .index_of
                .get(body.as_str())
                .copied()
                .ok_or_else(|| self.report.load(name, "body", self.unknown_body(body)))?;
            let window = self.pulse_window(name, start, duration)?;
            loads.push(Load {
                body: i,
                kind: self.load_kind(&bodies.list[i], name, load)?,
                window,
            });
        }
        Ok(loads)
    }

    /// The time window `[start, start + duration)` of a pulse; `None` for a constant load.
    pub(super) fn pulse_window(
        &self,
        name: &str,
        start: Option<f64>,
        duration: Option<f64>,
    ) -> Result<Option<(f64, f64)>, SceneError> {
        let report = &self.report;
        match (start, duration) {
            (None, None) => Ok(None),
            (Some(start), Some(duration)) => {
                check_bounded(&[start], "start", TIME)
                    .map_err(|m| report.load(name, "start", m))?;
                check_positive(duration, "duration", TIME)
                    .map_err(|m| report.load(name, "duration", m))?;
                if start + duration <= start {
                    return Err(report.load(
                        name,
                        "duration",
                        "the pulse is shorter than the rounding of its start time".into(),
                    ));
                }
                Ok(Some((start, start + duration)))
            }
            _ => Err(report.load(
                name,
                "name",
                "a pulse needs both `start` and `duration` (a constant load neither)".into(),
            )),
        }
    }

    /// What load `name` applies to `body`.
    pub(super) fn load_kind(
        &self,
        body: &Body,
        name: &str,
        load: &LoadSpec,
    ) -> Result<LoadKind, SceneError> {
        let report = &self.report;
        match load {
            LoadSpec::Torque { .. } if body.is_rigid() => Err(report.load(
                name,
                "body",
                "`Torque` is a planar torque (one number); a rigid body takes a torque vector as \
                 `SpatialTorque(name, body, torque: [tx, ty, tz])` in global axes"
                    .into(),
            )),
            LoadSpec::SpatialTorque { .. } if !body.is_rigid() => Err(report.load(
                name,
                "body",
                "a spatial torque needs a rigid body (`Rigid`)".into(),
            )),
            LoadSpec::SpatialTorque { torque, .. } => {
                let &[tx, ty, tz] = torque.as_slice() else {
                    return Err(report.load(
                        name,
                        "torque",
                        format!("torque has {} components, a spatial torque 3", torque.len()),
                    ));
                };
                check_bounded(torque, "torque", TORQUE)
                    .map_err(|m| report.load(name, "torque", m))?;
                Ok(LoadKind::SpatialTorque([tx, ty, tz]))
            }
            LoadSpec::Torque { torque, .. } => {
                if !body.has_angle() {
                    return Err(report.load(
                        name,
                        "body",
                        "a torque needs a bar or a plate; point masses do not rotate".into(),
                    ));
                }
                check_bounded(&[*torque], "torque", TORQUE)
                    .map_err(|m| report.load(name, "torque", m))?;
                Ok(LoadKind::Torque(*torque))
            }
            LoadSpec::Force { force, .. } => {
                if force.len() != self.dimension {
                    return Err(report.load(
                        name,
                        "force",
                        format!(
                            "force has {} components, the scene is {}-dimensional",
                            force.len(),
                            self.dimension
                        ),
                    ));
                }
                check_bounded(force, "force", FORCE).map_err(|m| report.load(name, "force", m))?;
                let mut f = [0.0; 3];
                f[..force.len()].copy_from_slice(force);
                Ok(LoadKind::Force(f))
            }
        }
    }
}
