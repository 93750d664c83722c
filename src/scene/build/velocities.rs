//! The initial state of a scene: the stated velocities (by body and component), the
//! positions assembled onto the constraints and the velocities completed, and the error that
//! names the stated velocity the constraints do not allow.

use nalgebra::DVector;

use super::limits::{ANGULAR_SPEED, SPEED, check_bounded};
use super::rigid::{self, RigidInfo};
use super::{Builder, Site};
use crate::model::{Body, Mechanism};
use crate::scene::SceneError;
use crate::scene::format::VelocitySpec;
use crate::solver::{AssemblyReport, SolverError, assemble_positions, complete_velocities};

/// The stated initial velocity components (the others zero, to be completed).
pub(super) struct StatedVelocities {
    pub(super) xd0: DVector<f64>,
    /// Which coordinates have a stated velocity.
    pub(super) mask: Vec<bool>,
    pub(super) components: Vec<StatedComponent>,
}

/// The assembled initial positions, the completed velocities and how assembly went.
pub(super) struct InitialState {
    pub(super) x0: DVector<f64>,
    pub(super) xd0: DVector<f64>,
    pub(super) assembly: AssemblyReport,
}

/// The components a velocity entry may state for `body`: field, value and slot (`None` where
/// the body has no such component). A rigid body's `omega_body` is turned to global axes at
/// its orientation as written.
pub(super) fn velocity_components(
    body: &Body,
    velocity: &VelocitySpec,
    rigid: Option<&RigidInfo>,
) -> Vec<(&'static str, Option<f64>, Option<usize>)> {
    let is_rigid = body.is_rigid();
    let mut components = vec![
        ("vx", velocity.vx, Some(0)),
        ("vy", velocity.vy, Some(1)),
        ("vz", velocity.vz, body.is_spatial().then_some(2)),
        ("omega", velocity.omega, body.has_angle().then_some(2)),
        ("wx", velocity.wx, is_rigid.then_some(4)),
        ("wy", velocity.wy, is_rigid.then_some(5)),
        ("wz", velocity.wz, is_rigid.then_some(6)),
    ];
    if let Some(omega) = velocity.omega_body {
        let global = rigid.map(|info| info.rotation * rigid::vector(omega));
        for k in 0..3 {
            components.push((
                "omega_body",
                Some(global.map_or(f64::NAN, |g| g[k])),
                global.map(|_| 4 + k),
            ));
        }
    }
    components
}

/// A stated initial velocity component: its coordinate and where it is written.
pub(super) struct StatedComponent {
    pub(super) coordinate: usize,
    /// Index in the `velocities` list.
    pub(super) item: usize,
    pub(super) field: &'static str,
}

/// The stated component that contributes most to a misfit of the stated velocities at `x`:
/// the one whose removal (completing it like the unstated ones) leaves the smallest `|A xd|`.
/// Equal ones go to the one stated last, which contradicts those stated before it. Returns it
/// and the residual left without it (`None` when the others then fit).
pub(super) fn worst_stated<'a>(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    components: &'a [StatedComponent],
    xd: &DVector<f64>,
) -> Option<(&'a StatedComponent, Option<f64>)> {
    let mut stated = vec![false; mechanism.n()];
    for c in components {
        stated[c.coordinate] = true;
    }
    let mut worst: Option<(&StatedComponent, Option<f64>)> = None;
    for c in components {
        stated[c.coordinate] = false;
        let completed = complete_velocities(mechanism, 0.0, x, &stated, &mut xd.clone(), None);
        stated[c.coordinate] = true;
        let left = match completed {
            Ok(_) => None,
            Err(SolverError::InconsistentVelocities { residual, .. }) => Some(residual),
            Err(_) => continue,
        };
        let key = |left: Option<f64>| left.unwrap_or(0.0);
        // A relative slack, so that round-off does not break a tie between equal culprits.
        if worst.is_none_or(|(_, best)| key(left) <= key(best) * (1.0 + 1e-9)) {
            worst = Some((c, left));
        }
    }
    worst
}

impl<'a> Builder<'a> {
    /// The stated initial velocity components, each checked: a component the body has,
    /// finite, stated once. A rigid body's are in the velocity coordinates of the completion
    /// (`Mechanism::jacobian_in_velocity_coordinates`): `vx, vy, vz`, then the angular velocity
    /// in global axes in slots 4 to 6 (slot 3, the rate of `|e|`, is never stated).
    pub(super) fn stated_velocities(
        &self,
        mechanism: &Mechanism,
        rigid: &[Option<RigidInfo>],
    ) -> Result<StatedVelocities, SceneError> {
        let n = mechanism.n();
        let mut stated = StatedVelocities {
            xd0: DVector::zeros(n),
            mask: vec![false; n],
            components: Vec::new(),
        };
        for (item, velocity) in self.spec.velocities.iter().enumerate() {
            let at = |field: Option<&'static str>, message: String| {
                self.report.error(
                    Site::ListItem("velocities", item, field),
                    Some(format!("velocity of \"{}\"", velocity.body)),
                    message,
                )
            };
            let Some(i) = mechanism.body_index(&velocity.body) else {
                return Err(at(Some("body"), self.unknown_body(&velocity.body)));
            };
            let body = &mechanism.bodies()[i];
            let components = velocity_components(body, velocity, rigid[i].as_ref());
            for (field, value, slot) in components {
                let Some(value) = value else { continue };
                let Some(slot) = slot else {
                    let hint = if body.is_rigid() && field == "omega" {
                        " (a rigid body's angular velocity is `wx`, `wy`, `wz` in global axes \
                         or `omega_body: (x, y, z)` in its body axes)"
                    } else {
                        ""
                    };
                    return Err(at(
                        Some(field),
                        format!(
                            "body \"{}\" has no component `{field}`{hint}",
                            velocity.body
                        ),
                    ));
                };
                let bound = if matches!(field, "vx" | "vy" | "vz") {
                    SPEED
                } else {
                    ANGULAR_SPEED
                };
                check_bounded(&[value], field, bound).map_err(|m| at(Some(field), m))?;
                let index = body.offset + slot;
                if stated.mask[index] {
                    return Err(at(
                        Some(field),
                        format!("`{field}` of \"{}\" is stated twice", velocity.body),
                    ));
                }
                stated.mask[index] = true;
                stated.xd0[index] = value;
                stated.components.push(StatedComponent {
                    coordinate: index,
                    item,
                    field,
                });
            }
        }
        Ok(stated)
    }

    /// Assembles the written positions `x0` and completes the stated velocities.
    pub(super) fn initial_state(
        &self,
        mechanism: &Mechanism,
        x0: Vec<f64>,
        stated: StatedVelocities,
    ) -> Result<InitialState, SceneError> {
        let report = &self.report;
        let mut x0 = DVector::from_vec(x0);
        let written = x0.clone();
        let mut assembly = assemble_positions(mechanism, 0.0, &mut x0).map_err(|e| match &e {
            SolverError::AssemblyFailed {
                iterations,
                residual,
                joint,
            } => report.joint(
                joint,
                None,
                format!(
                    "the initial positions cannot be assembled (residual {residual:.3e} after \
                     {iterations} Newton iterations); largest residual as written at this joint: \
                     check the initial poses"
                ),
            ),
            _ => report.error(Site::Field("bodies"), None, e.to_string()),
        })?;
        // Velocities that fit the written pose are adjusted to the assembled one (reported in the
        // assembly note); stated velocities that do not fit are an error.
        let StatedVelocities {
            mut xd0,
            mask,
            components,
        } = stated;
        let stated_xd = xd0.clone();
        assembly.velocity_change = complete_velocities(
            mechanism,
            0.0,
            &x0,
            &mask,
            &mut xd0,
            (assembly.correction > 0.0).then_some((&written, assembly.correction)),
        )
        .map_err(|e| {
            let culprit = worst_stated(mechanism, &written, &components, &stated_xd);
            self.velocity_error(culprit, e)
        })?;
        Ok(InitialState { x0, xd0, assembly })
    }

    /// The error for stated velocities that violate the constraints, at the component that
    /// contributes most (else at the `velocities` list).
    pub(super) fn velocity_error(
        &self,
        culprit: Option<(&StatedComponent, Option<f64>)>,
        e: SolverError,
    ) -> SceneError {
        let (SolverError::InconsistentVelocities { residual, .. }, Some((c, left))) = (&e, culprit)
        else {
            return self
                .report
                .error(Site::Field("velocities"), None, e.to_string());
        };
        let field = c.field;
        let why = match left {
            None => format!("without this `{field}` the others fit"),
            Some(left) => {
                format!("this `{field}` contributes most (|A xd| = {left:.3e} without it)")
            }
        };
        self.report.error(
            Site::ListItem("velocities", c.item, Some(field)),
            Some(format!(
                "velocity of \"{}\"",
                self.spec.velocities[c.item].body
            )),
            format!(
                "the stated initial velocities violate the constraints (|A xd| = {residual:.3e}); \
                 {why}: state fewer components"
            ),
        )
    }
}
