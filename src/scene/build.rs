//! Validation of a parsed scene and its conversion into a `Mechanism` with assembled initial
//! positions and completed initial velocities.

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{DVector, Vector2};

use super::format::{BodySpec, JointSpec, LoadSpec, PointSpec, SceneFile};
use super::{Scene, SceneError, locate};
use crate::model::{Body, BodyKind, Joint, JointKind, Load, LoadKind, LocalPoint, Mechanism};
use crate::number_text::number_text;
use crate::solver::{SolverError, assemble_positions, complete_velocities};

/// Where an error points: a named entry (and a field in it), an item of a list, or a section.
enum Site<'a> {
    /// Section, entry name, occurrence of that name in the section, field.
    Named(&'a str, &'a str, usize, Option<&'a str>),
    ListItem(&'a str, usize, Option<&'a str>),
    Field(&'a str),
    /// A field of a top-level struct (`solver`, `run`, `view`), else that struct.
    SectionField(&'a str, &'a str),
}

/// What is wrong with a body, joint or load name, if anything: it must not be empty, and it
/// heads columns of the trajectory CSV (`NAME.x`, ...), so it may not hold a comma, a double
/// quote or a line break.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("(this one is empty)")
    } else if name.contains([',', '"', '\n', '\r']) {
        Some("without commas, double quotes or line breaks (names head the CSV columns)")
    } else {
        None
    }
}

/// Builds errors located in one source.
struct Reporter<'a> {
    file: &'a str,
    source: &'a str,
}

impl Reporter<'_> {
    fn error(&self, site: Site, entity: Option<String>, message: String) -> SceneError {
        let offset = match site {
            Site::Named(section, name, occurrence, field) => {
                locate::locate_entry(self.source, section, name, occurrence, field)
            }
            Site::ListItem(list, index, field) => {
                locate::locate_list_item(self.source, list, index, field)
            }
            Site::Field(field) => locate::locate_top_field(self.source, field).unwrap_or(0),
            Site::SectionField(section, field) => {
                locate::locate_section_field(self.source, section, field).unwrap_or(0)
            }
        };
        let (line, column) = locate::line_column(self.source, offset);
        SceneError {
            file: self.file.to_string(),
            line,
            column,
            entity,
            message,
        }
    }

    fn body(&self, name: &str, field: &str, message: String) -> SceneError {
        self.error(
            Site::Named("bodies", name, 0, Some(field)),
            Some(format!("body \"{name}\"")),
            message,
        )
    }

    fn joint(&self, name: &str, field: Option<&str>, message: String) -> SceneError {
        self.error(
            Site::Named("joints", name, 0, field),
            Some(format!("joint \"{name}\"")),
            message,
        )
    }

    fn load(&self, name: &str, field: &str, message: String) -> SceneError {
        self.error(
            Site::Named("loads", name, 0, Some(field)),
            Some(format!("load \"{name}\"")),
            message,
        )
    }
}

fn check_positive(value: f64, what: &str) -> Result<(), String> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{what} must be a positive finite number, got {}",
            number_text(value)
        ))
    }
}

fn check_finite(values: &[f64], what: &str) -> Result<(), String> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(&v) => Err(format!("{what} must be finite, got {}", number_text(v))),
        None => Ok(()),
    }
}

/// Local point on a body of the given kind.
fn local_point(kind: &BodyKind, spec: PointSpec) -> Result<LocalPoint, String> {
    match kind {
        BodyKind::Bar { length } => {
            let half = 0.5 * length;
            Ok(match spec {
                PointSpec::Start => Vector2::new(-half, 0.0),
                PointSpec::End => Vector2::new(half, 0.0),
                PointSpec::Center => Vector2::zeros(),
                PointSpec::Fraction(f) => {
                    check_finite(&[f], "a fraction along the bar")?;
                    Vector2::new((f - 0.5) * length, 0.0)
                }
                PointSpec::Along(d) => {
                    check_finite(&[d], "a distance along the bar")?;
                    Vector2::new(d - half, 0.0)
                }
                PointSpec::Offset(a, b) => {
                    check_finite(&[a, b], "an offset")?;
                    Vector2::new(a, b)
                }
            })
        }
        _ => match spec {
            PointSpec::Center | PointSpec::Offset(0.0, 0.0) => Ok(Vector2::zeros()),
            _ => Err("a point mass has only its centre (`Center`) as a joint point".into()),
        },
    }
}

/// Validates `file` and builds the scene.
pub fn build(file_name: &str, source: &str, spec: SceneFile) -> Result<Scene, SceneError> {
    let report = Reporter {
        file: file_name,
        source,
    };
    let dimension = spec.gravity.len();
    if !(dimension == 2 || dimension == 3) {
        return Err(report.error(
            Site::Field("gravity"),
            None,
            format!(
                "gravity must have 2 components (planar scene) or 3 (spatial scene), got {dimension}"
            ),
        ));
    }
    check_finite(&spec.gravity, "gravity")
        .map_err(|m| report.error(Site::Field("gravity"), None, m))?;
    if spec.bodies.is_empty() {
        return Err(report.error(
            Site::Field("bodies"),
            None,
            "a scene needs at least one body".into(),
        ));
    }

    // Bodies and their initial poses.
    let mut bodies = Vec::new();
    let mut x0 = Vec::new();
    let mut index_of: HashMap<&str, usize> = HashMap::new();
    for (index, body) in spec.bodies.iter().enumerate() {
        let name = body.name();
        if let Some(problem) = name_problem(name) {
            return Err(report.error(
                Site::ListItem("bodies", index, Some("name")),
                Some(format!("body {}", index + 1)),
                format!("every body needs a name {problem}"),
            ));
        }
        if index_of.insert(name, bodies.len()).is_some() {
            return Err(report.error(
                Site::Named("bodies", name, 1, Some("name")),
                Some(format!("body \"{name}\"")),
                "a second body has this name".into(),
            ));
        }
        match body {
            BodySpec::Bar {
                length,
                mass,
                start,
                center,
                angle,
                ..
            } => {
                if dimension != 2 {
                    return Err(report.body(
                        name,
                        "name",
                        "bars are planar; this scene's gravity makes it spatial".into(),
                    ));
                }
                check_positive(*mass, "mass").map_err(|m| report.body(name, "mass", m))?;
                check_positive(*length, "length").map_err(|m| report.body(name, "length", m))?;
                check_finite(&[*angle], "angle").map_err(|m| report.body(name, "angle", m))?;
                let axis = Vector2::new(angle.cos(), angle.sin());
                let centre = match (start, center) {
                    (Some((x, y)), None) => Vector2::new(*x, *y) + axis * (0.5 * length),
                    (None, Some((x, y))) => Vector2::new(*x, *y),
                    _ => {
                        return Err(report.body(
                            name,
                            "name",
                            "give exactly one of `start` and `center`".into(),
                        ));
                    }
                };
                let field = if start.is_some() { "start" } else { "center" };
                check_finite(&[centre.x, centre.y], "position")
                    .map_err(|m| report.body(name, field, m))?;
                x0.extend_from_slice(&[centre.x, centre.y, *angle]);
                bodies.push(Body {
                    name: name.to_string(),
                    kind: BodyKind::Bar { length: *length },
                    mass: *mass,
                    offset: 0,
                });
            }
            BodySpec::Point { mass, position, .. } => {
                check_positive(*mass, "mass").map_err(|m| report.body(name, "mass", m))?;
                if position.len() != dimension {
                    return Err(report.body(
                        name,
                        "position",
                        format!(
                            "position has {} components but the scene is {dimension}-dimensional (see gravity)",
                            position.len()
                        ),
                    ));
                }
                check_finite(position, "position").map_err(|m| report.body(name, "position", m))?;
                x0.extend_from_slice(position);
                bodies.push(Body {
                    name: name.to_string(),
                    kind: if dimension == 2 {
                        BodyKind::Point2
                    } else {
                        BodyKind::Point3
                    },
                    mass: *mass,
                    offset: 0,
                });
            }
        }
    }

    // Joints.
    let find = |joint: &str, field: &str, body: &str| -> Result<usize, SceneError> {
        index_of.get(body).copied().ok_or_else(|| {
            report.joint(
                joint,
                Some(field),
                format!("unknown body \"{body}\" (bodies: {})", body_list(&spec)),
            )
        })
    };
    let planar = |joint: &str, field: &str, body: usize| -> Result<(), SceneError> {
        if matches!(bodies[body].kind, BodyKind::Point3) {
            Err(report.joint(
                joint,
                Some(field),
                "revolute joints and pins are planar; use Distance for a spatial point".into(),
            ))
        } else {
            Ok(())
        }
    };
    let mut joint_names: HashMap<&str, ()> = HashMap::new();
    let mut joints = Vec::new();
    for (index, joint) in spec.joints.iter().enumerate() {
        let name = joint.name();
        if let Some(problem) = name_problem(name) {
            return Err(report.error(
                Site::ListItem("joints", index, Some("name")),
                Some(format!("joint {}", index + 1)),
                format!("every joint needs a name {problem}"),
            ));
        }
        if joint_names.insert(name, ()).is_some() {
            return Err(report.error(
                Site::Named("joints", name, 1, Some("name")),
                Some(format!("joint \"{name}\"")),
                "a second joint has this name".into(),
            ));
        }
        let kind = match joint {
            JointSpec::Revolute {
                a, at_a, b, at_b, ..
            } => {
                let ia = find(name, "a", a)?;
                let ib = find(name, "b", b)?;
                if ia == ib {
                    return Err(report.joint(
                        name,
                        Some("b"),
                        "a revolute joint needs two different bodies".into(),
                    ));
                }
                planar(name, "a", ia)?;
                planar(name, "b", ib)?;
                JointKind::Revolute {
                    a: ia,
                    point_a: local_point(&bodies[ia].kind, *at_a)
                        .map_err(|m| report.joint(name, Some("at_a"), m))?,
                    b: ib,
                    point_b: local_point(&bodies[ib].kind, *at_b)
                        .map_err(|m| report.joint(name, Some("at_b"), m))?,
                }
            }
            JointSpec::Pin {
                body, at, ground, ..
            } => {
                let i = find(name, "body", body)?;
                planar(name, "body", i)?;
                check_finite(&[ground.0, ground.1], "ground point")
                    .map_err(|m| report.joint(name, Some("ground"), m))?;
                JointKind::Pin {
                    body: i,
                    point: local_point(&bodies[i].kind, *at)
                        .map_err(|m| report.joint(name, Some("at"), m))?,
                    ground: Vector2::new(ground.0, ground.1),
                }
            }
            JointSpec::Distance {
                body,
                anchor,
                length,
                ..
            } => {
                let i = find(name, "body", body)?;
                if bodies[i].is_bar() {
                    return Err(report.joint(
                        name,
                        Some("body"),
                        "Distance constrains a point mass; a bar needs Pin or Revolute".into(),
                    ));
                }
                if anchor.len() != bodies[i].dim() {
                    return Err(report.joint(
                        name,
                        Some("anchor"),
                        format!(
                            "anchor has {} components, body \"{body}\" has {}",
                            anchor.len(),
                            bodies[i].dim()
                        ),
                    ));
                }
                check_finite(anchor, "anchor")
                    .map_err(|m| report.joint(name, Some("anchor"), m))?;
                check_positive(*length, "length")
                    .map_err(|m| report.joint(name, Some("length"), m))?;
                let mut point = [0.0; 3];
                point[..anchor.len()].copy_from_slice(anchor);
                JointKind::Distance {
                    body: i,
                    anchor: point,
                    length: *length,
                }
            }
        };
        joints.push(Joint {
            name: name.to_string(),
            kind,
            row: 0,
        });
    }

    // Loads.
    let mut loads = Vec::new();
    let mut load_names: HashMap<&str, ()> = HashMap::new();
    for (index, load) in spec.loads.iter().enumerate() {
        let name = load.name();
        if let Some(problem) = name_problem(name) {
            return Err(report.error(
                Site::ListItem("loads", index, Some("name")),
                Some(format!("load {}", index + 1)),
                format!("every load needs a name {problem}"),
            ));
        }
        if load_names.insert(name, ()).is_some() {
            return Err(report.error(
                Site::Named("loads", name, 1, Some("name")),
                Some(format!("load \"{name}\"")),
                "a second load has this name".into(),
            ));
        }
        let (body, start, duration) = match load {
            LoadSpec::Torque {
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
            } => (body, start, duration),
        };
        let i = index_of.get(body.as_str()).copied().ok_or_else(|| {
            report.load(
                name,
                "body",
                format!("unknown body \"{body}\" (bodies: {})", body_list(&spec)),
            )
        })?;
        let window = match (start, duration) {
            (None, None) => None,
            (Some(start), Some(duration)) => {
                check_finite(&[*start], "start").map_err(|m| report.load(name, "start", m))?;
                check_positive(*duration, "duration")
                    .map_err(|m| report.load(name, "duration", m))?;
                Some((*start, start + duration))
            }
            _ => {
                return Err(report.load(
                    name,
                    "name",
                    "a pulse needs both `start` and `duration` (a constant load neither)".into(),
                ));
            }
        };
        let kind = match load {
            LoadSpec::Torque { torque, .. } => {
                if !bodies[i].is_bar() {
                    return Err(report.load(
                        name,
                        "body",
                        "a torque needs a bar; point masses do not rotate".into(),
                    ));
                }
                check_finite(&[*torque], "torque").map_err(|m| report.load(name, "torque", m))?;
                LoadKind::Torque(*torque)
            }
            LoadSpec::Force { force, .. } => {
                if force.len() != dimension {
                    return Err(report.load(
                        name,
                        "force",
                        format!(
                            "force has {} components, the scene is {dimension}-dimensional",
                            force.len()
                        ),
                    ));
                }
                check_finite(force, "force").map_err(|m| report.load(name, "force", m))?;
                let mut f = [0.0; 3];
                f[..force.len()].copy_from_slice(force);
                LoadKind::Force(f)
            }
        };
        loads.push(Load {
            body: i,
            kind,
            window,
        });
    }

    let mut gravity = [0.0; 3];
    gravity[..dimension].copy_from_slice(&spec.gravity);
    let mechanism = Mechanism::new(bodies, joints, loads, gravity);
    let n = mechanism.n();

    // Stated velocity components.
    let mut xd0 = DVector::zeros(n);
    let mut stated = vec![false; n];
    let mut stated_components = Vec::new();
    for (item, velocity) in spec.velocities.iter().enumerate() {
        let at = |field: Option<&'static str>, message: String| {
            report.error(
                Site::ListItem("velocities", item, field),
                Some(format!("velocity of \"{}\"", velocity.body)),
                message,
            )
        };
        let Some(i) = mechanism.body_index(&velocity.body) else {
            return Err(at(
                Some("body"),
                format!(
                    "unknown body \"{}\" (bodies: {})",
                    velocity.body,
                    body_list(&spec)
                ),
            ));
        };
        let body = &mechanism.bodies()[i];
        let components = [
            ("vx", velocity.vx, Some(0)),
            ("vy", velocity.vy, Some(1)),
            (
                "vz",
                velocity.vz,
                matches!(body.kind, BodyKind::Point3).then_some(2),
            ),
            ("omega", velocity.omega, body.is_bar().then_some(2)),
        ];
        for (field, value, slot) in components {
            let Some(value) = value else { continue };
            let Some(slot) = slot else {
                return Err(at(
                    Some(field),
                    format!("body \"{}\" has no component `{field}`", velocity.body),
                ));
            };
            check_finite(&[value], field).map_err(|m| at(Some(field), m))?;
            let index = body.offset + slot;
            if stated[index] {
                return Err(at(
                    Some(field),
                    format!("`{field}` of \"{}\" is stated twice", velocity.body),
                ));
            }
            stated[index] = true;
            xd0[index] = value;
            stated_components.push(StatedComponent {
                coordinate: index,
                item,
                field,
            });
        }
    }

    spec.solver
        .validate()
        .map_err(|e| report.error(Site::SectionField("solver", e.field()), None, e.to_string()))?;
    check_positive(spec.run.t_end, "t_end")
        .map_err(|m| report.error(Site::SectionField("run", "t_end"), None, m))?;
    if let Some((x, y)) = spec.view.center {
        check_finite(&[x, y], "center")
            .map_err(|m| report.error(Site::SectionField("view", "center"), None, m))?;
    }
    if let Some(width) = spec.view.width {
        check_positive(width, "width")
            .map_err(|m| report.error(Site::SectionField("view", "width"), None, m))?;
    }
    if let Some(trace) = &spec.view.trace
        && mechanism.body_index(trace).is_none()
    {
        return Err(report.error(
            Site::SectionField("view", "trace"),
            None,
            format!("trace names unknown body \"{trace}\""),
        ));
    }

    // Assembly and velocity completion.
    let mut x0 = DVector::from_vec(x0);
    let written = x0.clone();
    let mut assembly = assemble_positions(&mechanism, &mut x0).map_err(|e| match &e {
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
    let stated_xd = xd0.clone();
    assembly.velocity_change = complete_velocities(
        &mechanism,
        &x0,
        &stated,
        &mut xd0,
        (assembly.correction > 0.0).then_some((&written, assembly.correction)),
    )
    .map_err(|e| {
        let culprit = worst_stated(&mechanism, &written, &stated_components, &stated_xd);
        velocity_error(&report, &spec, culprit, e)
    })?;

    Ok(Scene {
        file: file_name.to_string(),
        title: spec.title.clone(),
        description: spec.description.clone(),
        mechanism: Arc::new(mechanism),
        x0,
        xd0,
        settings: spec.solver.clone(),
        t_end: spec.run.t_end,
        view: spec.view.clone(),
        assembly,
    })
}

/// A stated initial velocity component: its coordinate and where it is written.
struct StatedComponent {
    coordinate: usize,
    /// Index in the `velocities` list.
    item: usize,
    field: &'static str,
}

/// The stated component that contributes most to a misfit of the stated velocities at `x`:
/// the one whose removal (completing it like the unstated ones) leaves the smallest `|A xd|`.
/// Equal ones go to the one stated last, which contradicts those stated before it. Returns it
/// and the residual left without it (`None` when the others then fit).
fn worst_stated<'a>(
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
        let completed = complete_velocities(mechanism, x, &stated, &mut xd.clone(), None);
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

/// The error for stated velocities that violate the constraints, at the component that
/// contributes most (else at the `velocities` list).
fn velocity_error(
    report: &Reporter,
    spec: &SceneFile,
    culprit: Option<(&StatedComponent, Option<f64>)>,
    e: SolverError,
) -> SceneError {
    let (SolverError::InconsistentVelocities { residual, .. }, Some((c, left))) = (&e, culprit)
    else {
        return report.error(Site::Field("velocities"), None, e.to_string());
    };
    let field = c.field;
    let why = match left {
        None => format!("without this `{field}` the others fit"),
        Some(left) => {
            format!("this `{field}` contributes most (|A xd| = {left:.3e} without it)")
        }
    };
    report.error(
        Site::ListItem("velocities", c.item, Some(field)),
        Some(format!("velocity of \"{}\"", spec.velocities[c.item].body)),
        format!(
            "the stated initial velocities violate the constraints (|A xd| = {residual:.3e}); \
             {why}: state fewer components"
        ),
    )
}

fn body_list(spec: &SceneFile) -> String {
    spec.bodies
        .iter()
        .map(|b| format!("\"{}\"", b.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
