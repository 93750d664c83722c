//! Validation of a parsed scene and its conversion into a `Mechanism` with assembled initial
//! positions and completed initial velocities.

use std::collections::HashSet;
use std::sync::Arc;

use nalgebra::Vector3;

mod bodies;
mod joints;
mod limits;
mod loads;
mod planar;
mod rigid;
mod spatial;
mod velocities;

use limits::{GRAVITY, LENGTH, TIME, check_bounded, check_positive};
use planar::NamedPoints;
use rigid::RigidInfo;

use super::format::SceneFile;
use super::look::BodyLook;
use super::{Scene, SceneError, locate};
use crate::model::Mechanism;

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
