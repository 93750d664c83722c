//! Validation of a parsed scene and its conversion into a `Mechanism` with assembled initial
//! positions and completed initial velocities.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use nalgebra::{DVector, Vector2, Vector3};

mod limits;
mod planar;
mod rigid;
mod spatial;

use limits::{
    ANGLE, ANGULAR_SPEED, FORCE, GRAVITY, LENGTH, MASS, SPEED, TIME, TORQUE, check_bounded,
    check_positive,
};
use planar::{NamedPoints, PlateSpec};
use rigid::{RigidInfo, RigidSpec};

use super::format::{BodySpec, JointSpec, LoadSpec, SceneFile, VelocitySpec};
use super::look::BodyLook;
use super::{Scene, SceneError, locate};
use crate::model::{Body, BodyKind, Joint, JointKind, Load, LoadKind, Mechanism};
use crate::solver::{AssemblyReport, SolverError, assemble_positions, complete_velocities};

/// Where an error points: a named entry (and a field in it), an item of a list, or a section.
pub(super) enum Site<'a> {
    /// Section, entry name, occurrence of that name in the section, field.
    Named(&'a str, &'a str, usize, Option<&'a str>),
    ListItem(&'a str, usize, Option<&'a str>),
    Field(&'a str),
    /// A field of a top-level struct (`solver`, `run`, `view`), else that struct.
    SectionField(&'a str, &'a str),
    /// Section, entry name, field, and which occurrence of the field inside the entry (the
    /// `start` of a driver's third step).
    NthField(&'a str, &'a str, &'a str, usize),
}

/// What is wrong with a body, joint or load name, if anything. It must not be empty, and it
/// names its entry in one-line messages and heads trajectory CSV columns (`NAME.x`, ...): a
/// CSV writer quotes commas and double quotes, but a line break or another control character
/// would split or garble a message line, so those are refused.
fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("(this one is empty)")
    } else if name.chars().any(char::is_control) {
        Some("without line breaks or other control characters")
    } else {
        None
    }
}

/// Builds errors located in one source.
pub(super) struct Reporter<'a> {
    pub file: &'a str,
    pub source: &'a str,
}

impl Reporter<'_> {
    pub fn error(&self, site: Site, entity: Option<String>, message: String) -> SceneError {
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
            Site::NthField(section, name, field, nth) => {
                locate::locate_nth_field(self.source, section, name, field, nth)
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

    pub fn body(&self, name: &str, field: &str, message: String) -> SceneError {
        self.error(
            Site::Named("bodies", name, 0, Some(field)),
            Some(format!("body \"{name}\"")),
            message,
        )
    }

    /// An error at joint `name`'s entry, or at the `driver` (or `field` inside it) of the
    /// prismatic joint whose driver it is.
    pub fn joint(&self, name: &str, field: Option<&str>, message: String) -> SceneError {
        let entity = Some(format!("joint \"{name}\""));
        if let Some(prismatic) = name.strip_suffix(planar::DRIVER_SUFFIX)
            && !locate::has_entry(self.source, "joints", name)
        {
            let field = field.filter(|&f| f != "name").unwrap_or("driver");
            return self.error(
                Site::Named("joints", prismatic, 0, Some(field)),
                entity,
                message,
            );
        }
        self.error(Site::Named("joints", name, 0, field), entity, message)
    }

    fn load(&self, name: &str, field: &str, message: String) -> SceneError {
        self.error(
            Site::Named("loads", name, 0, Some(field)),
            Some(format!("load \"{name}\"")),
            message,
        )
    }
}

/// Validates `file` and builds the scene: bodies, joints and loads make the mechanism, then
/// the stated velocities and the settings are checked, and the initial state is assembled.
pub fn build(file_name: &str, source: &str, spec: SceneFile) -> Result<Scene, SceneError> {
    let report = Reporter {
        file: file_name,
        source,
    };
    let builder = Builder::new(report, &spec)?;
    let bodies = builder.bodies()?;
    let joints = builder.joints(&bodies)?;
    let loads = builder.loads(&bodies)?;
    let mechanism = Mechanism::new(bodies.list, joints, loads, builder.gravity());
    planar::check_drivers(&builder.report, &mechanism, &bodies.x0)?;
    limits::check_length_span(&builder.report, &mechanism, &bodies.x0)?;
    limits::check_mass_span(&builder.report, &mechanism)?;
    let stated = builder.stated_velocities(&mechanism, &bodies.rigid)?;
    let traced_points = builder.check_sections(&mechanism, &bodies.rigid, &bodies.named)?;
    let looks = builder.looks(&mechanism, &bodies.rigid)?;
    let initial = builder.initial_state(&mechanism, bodies.x0, stated)?;
    limits::check_solver_settings(&builder.report, &spec, &mechanism, &initial.x0)?;
    Ok(Scene {
        file: file_name.to_string(),
        source: Arc::from(source),
        title: spec.title.clone(),
        description: spec.description.clone(),
        mechanism: Arc::new(mechanism),
        x0: initial.x0,
        xd0: initial.xd0,
        settings: spec.solver.settings(),
        t_end: spec.run.t_end,
        view: spec.view.clone(),
        looks,
        traced_points,
        assembly: initial.assembly,
    })
}

/// What every phase of `build` reads: the parsed file, where its errors point, and whether
/// the scene is planar (2) or spatial (3).
struct Builder<'a> {
    spec: &'a SceneFile,
    report: Reporter<'a>,
    dimension: usize,
}

/// The bodies built so far, their poses as written and their indices by name.
struct Bodies<'a> {
    list: Vec<Body>,
    /// Initial coordinates as written, body after body.
    x0: Vec<f64>,
    index_of: HashMap<&'a str, usize>,
    /// What joints and looks need of each rigid body (`None` for other bodies).
    rigid: Vec<Option<RigidInfo>>,
    /// The named points of each plate as written (`None` for other bodies).
    named: Vec<Option<&'a NamedPoints>>,
}

impl Bodies<'_> {
    /// The angle of planar body `index` as written.
    fn written_angle(&self, index: usize) -> f64 {
        let offset: usize = self.list[..index].iter().map(Body::dim).sum();
        self.x0[offset + 2]
    }
}

/// The stated initial velocity components (the others zero, to be completed).
struct StatedVelocities {
    xd0: DVector<f64>,
    /// Which coordinates have a stated velocity.
    mask: Vec<bool>,
    components: Vec<StatedComponent>,
}

/// The assembled initial positions, the completed velocities and how assembly went.
struct InitialState {
    x0: DVector<f64>,
    xd0: DVector<f64>,
    assembly: AssemblyReport,
}

impl<'a> Builder<'a> {
    /// Checks what every later phase relies on: gravity gives the dimension, and there is a
    /// body.
    fn new(report: Reporter<'a>, spec: &'a SceneFile) -> Result<Self, SceneError> {
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
        check_bounded(&spec.gravity, "gravity", GRAVITY)
            .map_err(|m| report.error(Site::Field("gravity"), None, m))?;
        limits::check_size(&report, spec)?;
        if spec.bodies.is_empty() {
            return Err(report.error(
                Site::Field("bodies"),
                None,
                "a scene needs at least one body".into(),
            ));
        }
        Ok(Self {
            spec,
            report,
            dimension,
        })
    }

    /// Gravity as the mechanism takes it (three components, the third 0 in a planar scene).
    fn gravity(&self) -> [f64; 3] {
        let mut gravity = [0.0; 3];
        gravity[..self.dimension].copy_from_slice(&self.spec.gravity);
        gravity
    }

    /// Checks the name of entry `index` of `list` (`bodies`, `joints` or `loads`, each entry
    /// a `kind`): a valid name that no earlier entry of the list has.
    fn check_name(
        &self,
        list: &str,
        kind: &str,
        index: usize,
        name: &'a str,
        seen: &mut HashSet<&'a str>,
    ) -> Result<(), SceneError> {
        if let Some(problem) = name_problem(name) {
            return Err(self.report.error(
                Site::ListItem(list, index, Some("name")),
                Some(format!("{kind} {}", index + 1)),
                format!("every {kind} needs a name {problem}"),
            ));
        }
        if !seen.insert(name) {
            return Err(self.report.error(
                Site::Named(list, name, 1, Some("name")),
                Some(format!("{kind} \"{name}\"")),
                format!("a second {kind} has this name"),
            ));
        }
        Ok(())
    }

    /// `"ground"` names the fixed frame wherever a joint names a body, so no body may take it.
    fn check_not_ground(&self, name: &str) -> Result<(), SceneError> {
        if name != spatial::GROUND {
            return Ok(());
        }
        Err(self.report.error(
            Site::Named("bodies", name, 0, Some("name")),
            Some(format!("body \"{name}\"")),
            "\"ground\" is the fixed frame's name in joints; give the body another name".into(),
        ))
    }

    /// The message for a reference to a body that does not exist.
    fn unknown_body(&self, body: &str) -> String {
        format!("unknown body \"{body}\" (bodies: {})", body_list(self.spec))
    }

    /// Bodies and their initial poses.
    fn bodies(&self) -> Result<Bodies<'a>, SceneError> {
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
    fn body(
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
    fn rigid(&self, bodies: &mut Bodies, spec: &RigidSpec) -> Result<(), SceneError> {
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
    fn bar(
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
    fn point_mass(&self, name: &str, mass: f64, position: &[f64]) -> Result<Body, SceneError> {
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

    /// Joints, in the order written.
    fn joints(&self, bodies: &Bodies) -> Result<Vec<Joint>, SceneError> {
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
    fn joint_body(
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
    fn check_planar(
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
    fn joint_kind(
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
            JointSpec::Prismatic { .. } => self.prismatic(bodies, name, joint)?,
            JointSpec::KnifeEdge {
                body, at, normal, ..
            } => self.knife_edge(bodies, name, body, at, *normal)?,
            _ => self.spatial_joint(bodies, name, joint)?,
        })
    }

    /// A point mass, or a rigid body's point `at`, held at `length` from `anchor`.
    fn distance_joint(
        &self,
        bodies: &Bodies,
        name: &str,
        body: &str,
        at: Option<&super::format::SpatialPointSpec>,
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
        if at.is_some_and(|at| *at != super::format::SpatialPointSpec::Center) {
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

    /// Loads, in the order written.
    fn loads(&self, bodies: &Bodies) -> Result<Vec<Load>, SceneError> {
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
    fn pulse_window(
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
    fn load_kind(&self, body: &Body, name: &str, load: &LoadSpec) -> Result<LoadKind, SceneError> {
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

    /// The stated initial velocity components, each checked: a component the body has,
    /// finite, stated once. A rigid body's are in the velocity coordinates of the completion
    /// (`Mechanism::jacobian_in_velocity_coordinates`): `vx, vy, vz`, then the angular velocity
    /// in global axes in slots 4 to 6 (slot 3, the rate of `|e|`, is never stated).
    fn stated_velocities(
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

    /// The `run` and `view` sections (`solver` is checked at the assembled positions).
    /// Returns the points to trace (points of spatial bodies and plates).
    fn check_sections(
        &self,
        mechanism: &Mechanism,
        rigid: &[Option<RigidInfo>],
        named: &[Option<&NamedPoints>],
    ) -> Result<Vec<(usize, Vector3<f64>)>, SceneError> {
        let (spec, report) = (self.spec, &self.report);
        check_positive(spec.run.t_end, "t_end", TIME)
            .map_err(|m| report.error(Site::SectionField("run", "t_end"), None, m))?;
        if let Some((x, y)) = spec.view.center {
            check_bounded(&[x, y], "center", LENGTH)
                .map_err(|m| report.error(Site::SectionField("view", "center"), None, m))?;
        }
        if let Some(width) = spec.view.width {
            check_positive(width, "width", LENGTH)
                .and_then(|()| limits::check_view_width(width))
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
        spec.view
            .trace_points
            .iter()
            .map(|traced| {
                self.traced_point(mechanism, rigid, named, traced)
                    .map_err(|m| report.error(Site::SectionField("view", "trace_points"), None, m))
            })
            .collect()
    }

    /// A traced point `"body"` (its centre of mass) or `"body:point"` of a spatial body or a
    /// plate.
    fn traced_point(
        &self,
        mechanism: &Mechanism,
        rigid: &[Option<RigidInfo>],
        named: &[Option<&NamedPoints>],
        traced: &str,
    ) -> Result<(usize, Vector3<f64>), String> {
        let (body, point) = match traced.split_once(':') {
            Some((body, point)) => (body, Some(point)),
            None => (traced, None),
        };
        let index = mechanism
            .body_index(body)
            .ok_or_else(|| format!("trace_points: {}", self.unknown_body(body)))?;
        if let Some(points) = named.get(index).copied().flatten() {
            let local = match point {
                None => (0.0, 0.0),
                Some(point) => *points.get(point).ok_or_else(|| {
                    format!("trace_points \"{traced}\": plate \"{body}\" has no point \"{point}\"")
                })?,
            };
            return Ok((index, Vector3::new(local.0, local.1, 0.0)));
        }
        if !mechanism.bodies()[index].is_spatial() {
            return Err(format!(
                "trace_points: body \"{body}\" is a bar or a planar point; trace_points takes \
                 spatial bodies and plates (use `trace` for bars)"
            ));
        }
        let local = match (point, &rigid[index]) {
            (None, _) => Vector3::zeros(),
            (Some(point), Some(info)) => {
                rigid::body_point(info, &super::format::SpatialPointSpec::Point(point.into()))
                    .map_err(|m| format!("trace_points \"{traced}\": {m}"))?
            }
            (Some(_), None) => {
                return Err(format!(
                    "trace_points \"{traced}\": a point mass has no named points"
                ));
            }
        };
        Ok((index, local))
    }

    /// The looks of the rigid bodies, in body order.
    fn looks(
        &self,
        mechanism: &Mechanism,
        rigid: &[Option<RigidInfo>],
    ) -> Result<Vec<BodyLook>, SceneError> {
        rigid
            .iter()
            .enumerate()
            .filter_map(|(index, info)| info.as_ref().map(|info| (index, info)))
            .map(|(index, info)| {
                rigid::look(mechanism, index, info).map_err(|(field, m)| {
                    self.report.body(&mechanism.bodies()[index].name, field, m)
                })
            })
            .collect()
    }

    /// Assembles the written positions `x0` and completes the stated velocities.
    fn initial_state(
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
    fn velocity_error(
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

/// The components a velocity entry may state for `body`: field, value and slot (`None` where
/// the body has no such component). A rigid body's `omega_body` is turned to global axes at
/// its orientation as written.
fn velocity_components(
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

/// The scene's body names for a message: all of them up to [`LISTED_BODIES`], else the first
/// ones and how many there are.
fn body_list(spec: &SceneFile) -> String {
    let names: Vec<String> = spec
        .bodies
        .iter()
        .take(LISTED_BODIES)
        .map(|b| format!("\"{}\"", b.name()))
        .collect();
    let more = spec.bodies.len().saturating_sub(LISTED_BODIES);
    if more == 0 {
        names.join(", ")
    } else {
        format!("{}, … and {more} more", names.join(", "))
    }
}

/// Most body names an "unknown body" message lists.
const LISTED_BODIES: usize = 12;
