//! Scene files: RON descriptions of a mechanism, its initial state, loads and solver settings
//! (`scenes/*.ron`; the format is documented in README.md). Loading validates everything,
//! assembles the initial positions and completes the stated initial velocities; every error
//! names the file, line and column and the entry at fault, and is shown as one line
//! ([`one_line`]). A file is UTF-8 text (a leading byte-order mark is skipped) of at most
//! [`MAX_SCENE_BYTES`].

mod build;
mod error;
pub mod format;
pub mod locate;
pub mod look;

use std::path::Path;
use std::sync::Arc;

use nalgebra::DVector;

pub use error::{MAX_QUOTED_CHARS, SceneError, one_line};
pub use format::ViewSpec;
pub use look::{BodyLook, Shape};

use crate::model::Mechanism;
use crate::solver::{AssemblyReport, Setting, Settings, Simulation, SolverError};
use build::{Reporter, Site};

/// The scenes shipped in `scenes/` (file stems), simplest first (pendulums, then the four-bar
/// family, then the spatial rigid bodies, then the mobile robot with its knife edges and
/// driver).
pub const SHIPPED_SCENES: [&str; 12] = [
    "planar_pendulum",
    "redundant_pendulum",
    "spatial_pendulum",
    "four_bar",
    "double_four_bar",
    "modified_double_four_bar",
    "modified_triple_four_bar",
    "modified_2x2",
    "modified_2x3",
    "slider_crank",
    "spin_top",
    "mobile_robot",
];

/// A loaded scene, ready to start a simulation.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file name as given (used in messages).
    pub file: String,
    /// The file's text, to locate failures found after loading ([`Scene::locate_failure`]).
    pub source: Arc<str>,
    pub title: String,
    pub description: String,
    pub mechanism: Arc<Mechanism>,
    /// Assembled initial positions and completed initial velocities.
    pub x0: DVector<f64>,
    pub xd0: DVector<f64>,
    pub settings: Settings,
    /// Default end time of a run.
    pub t_end: f64,
    pub view: ViewSpec,
    /// The looks of the spatial rigid bodies, in body order.
    pub looks: Vec<BodyLook>,
    /// Points of spatial bodies whose paths the 3D view traces from the start: body index and
    /// the point in body axes (from the view's `trace_points`).
    pub traced_points: Vec<(usize, nalgebra::Vector3<f64>)>,
    /// How far assembly moved the given positions.
    pub assembly: AssemblyReport,
}

/// An assembly correction above this (m or rad) is not rounding in the stated pose but a pose
/// that does not fit the joints: the note says so.
const FAR_OFF_POSE: f64 = 1e-2;

impl Scene {
    /// A simulation of this scene with its own settings.
    pub fn simulation(&self) -> Result<Simulation, SolverError> {
        self.simulation_with(self.settings.clone())
    }

    /// `body.coordinate` name of a coordinate index (`crank1.theta`).
    pub fn coordinate_name(&self, index: usize) -> String {
        match self.mechanism.body_of_coordinate(index) {
            Some(body) => format!(
                "{}.{}",
                body.name,
                body.coordinate_names()[index - body.offset]
            ),
            None => format!("coordinate {index}"),
        }
    }

    /// Whether assembly moved the stated pose far more than rounding: the pose did not fit
    /// the joints, and the mechanism starts in another one.
    pub fn assembled_far_off(&self) -> bool {
        self.assembly.correction > FAR_OFF_POSE
    }

    /// One line saying how assembly moved the given positions, if it moved them.
    pub fn assembly_note(&self) -> Option<String> {
        let report = &self.assembly;
        (report.correction > 0.0).then(|| {
            let far = if self.assembled_far_off() {
                "; far more than rounding: the stated pose does not fit the joints, so the mechanism starts in another pose (check the scene's lengths, angles and pins)"
            } else {
                ""
            };
            let velocities = if report.velocity_change > 0.0 {
                format!(
                    "; the stated velocities were adjusted to the assembled pose by up to {:.3e}",
                    report.velocity_change
                )
            } else {
                String::new()
            };
            format!(
                "assembled the initial positions in {} Newton iterations: largest change {:.3e} in {}{far}{velocities}",
                report.iterations,
                report.correction,
                self.coordinate_name(report.coordinate)
            )
        })
    }

    /// The located form of a solver failure in this scene, `file:line:column: entity:
    /// message`, if something in the file is at fault: it points at the joint Newton failed
    /// at, the body whose numbers stopped being numbers or that carries no mass, or the
    /// setting at fault (`solver`'s field, when the file writes it).
    pub fn locate_failure(&self, error: &SolverError) -> Option<SceneError> {
        let report = Reporter {
            file: &self.file,
            source: &self.source,
        };
        let message = error.to_string();
        let setting = |field: Setting| {
            let name = field.name();
            locate::find_section_field(&self.source, "solver", name)
                .map(|_| report.error(Site::SectionField("solver", name), None, message.clone()))
        };
        match error {
            SolverError::NewtonDiverged { joint, .. } => error
                .newton_tolerance_at_fault()
                .then(|| setting(Setting::NewtonTolerance))
                .flatten()
                .or_else(|| Some(report.joint(joint, None, message.clone()))),
            SolverError::NotFinite {
                body: Some(body), ..
            }
            | SolverError::SingularMassBlock {
                body: Some(body), ..
            } => Some(report.body(body, "name", message.clone())),
            SolverError::StepTooSmall { .. } => {
                setting(Setting::DopriMinStep).or_else(|| setting(Setting::DopriRtol))
            }
            SolverError::InvalidSettings(e) => setting(e.field()),
            SolverError::DriverBeyondReach { driver, .. } => {
                Some(report.joint(driver, Some("steps"), message.clone()))
            }
            _ => None,
        }
    }

    /// Line and column of the `solver` setting `field`, if the file writes it.
    pub fn setting_position(&self, field: Setting) -> Option<(usize, usize)> {
        locate::find_section_field(&self.source, "solver", field.name())
            .map(|offset| locate::line_column(&self.source, offset))
    }

    /// A simulation of this scene with other settings.
    pub fn simulation_with(&self, settings: Settings) -> Result<Simulation, SolverError> {
        Simulation::new(
            self.mechanism.clone(),
            self.x0.clone(),
            self.xd0.clone(),
            settings,
        )
    }
}

/// Largest scene file read, in bytes (1 MiB). A scene at the solver's size limit, a few
/// hundred bodies with their joints, is tens of kB, and the largest shipped scene
/// (`modified_2x3.ron`) is 3.2 kB; reading stops one byte past this, so that a device such as
/// `/dev/zero` (whose length the file system reports as 0) is refused, not read until memory
/// runs out.
pub const MAX_SCENE_BYTES: u64 = 1 << 20;

/// Reads and loads a scene file: UTF-8 text (a leading byte-order mark is skipped) of at most
/// [`MAX_SCENE_BYTES`].
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let file = path.display().to_string();
    let error = |line, column, message| SceneError {
        file: file.clone(),
        line,
        column,
        entity: None,
        message,
    };
    let bytes = crate::source::read_at_most(path, MAX_SCENE_BYTES)
        .map_err(|e| error(1, 1, format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > MAX_SCENE_BYTES {
        return Err(error(
            1,
            1,
            format!(
                "the file is larger than {} bytes (1 MiB), the most a scene file may be: a \
                 scene at the solver's size limit is tens of kB",
                MAX_SCENE_BYTES
            ),
        ));
    }
    let source = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bad = e.as_bytes()[valid];
        let text = std::str::from_utf8(&e.as_bytes()[..valid]).unwrap_or_default();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (line, column) = locate::line_column(text, text.len());
        error(
            line,
            column,
            format!("not UTF-8 text (byte 0x{bad:02x}); scene files are UTF-8"),
        )
    })?;
    parse_scene(&file, &source)
}

/// Loads a scene from its source text; `file` is used in messages. A leading byte-order mark
/// is skipped, as editors do (they show none): lines and columns are counted without it.
pub fn parse_scene(file: &str, source: &str) -> Result<Scene, SceneError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let spec: format::SceneFile = options.from_str(source).map_err(|e| {
        let position = e.span.start;
        let offset = locate::offset_of(source, position.line, position.col);
        SceneError {
            file: file.to_string(),
            line: position.line,
            column: position.col,
            entity: locate::enclosing_entry(source, offset),
            message: e.code.to_string(),
        }
    })?;
    build::build(file, source, spec)
}
