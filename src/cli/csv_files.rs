//! The rows of `singulab run`'s CSV files, written with the csv crate: names are quoted where
//! CSV needs it (a comma or a double quote in a body's name), header cells that a spreadsheet
//! would take for a formula get a leading apostrophe (`crate::number_text::csv_header_cell`),
//! numbers are in shortest
//! round-trip form (`crate::number_text::push_csv_number`), so the files hold the values bit
//! for bit.

use std::fmt::{Display, Write as _};
use std::io::Write;

use csv::ByteRecord;

use super::error::{CliError, Stream};
use crate::live::motions::orient_motion;
use crate::model::Mechanism;
use crate::number_text::{csv_header_cell, push_csv_number};
use crate::scene::Scene;
use crate::solver::{BasisMode, Branch, Simulation, SingularEvent};

/// One CSV row being built: its fields in a reused record, each number formatted in a reused
/// text (no allocation per row once they have grown).
#[derive(Default)]
pub(super) struct CsvRow {
    record: ByteRecord,
    text: String,
}

impl CsvRow {
    fn clear(&mut self) {
        self.record.clear();
    }

    /// A number in shortest round-trip form.
    fn number(&mut self, value: f64) {
        self.text.clear();
        push_csv_number(&mut self.text, value);
        self.record.push_field(self.text.as_bytes());
    }

    /// A count, a name or a kind, as written by `Display`.
    fn display(&mut self, value: impl Display) {
        self.text.clear();
        let _ = write!(self.text, "{value}");
        self.record.push_field(self.text.as_bytes());
    }

    fn empty(&mut self) {
        self.record.push_field(b"");
    }

    /// Puts `segment` second, after `t` (a lesson's rows say which stretch of its run they
    /// belong to).
    pub(super) fn insert_segment(&mut self, segment: u32) {
        let mut with =
            ByteRecord::with_capacity(self.record.as_slice().len() + 4, self.record.len() + 1);
        let mut fields = self.record.iter();
        if let Some(t) = fields.next() {
            with.push_field(t);
        }
        with.push_field(segment.to_string().as_bytes());
        for field in fields {
            with.push_field(field);
        }
        self.record = with;
    }
}

/// A CSV output: the csv crate's writer (quoting where needed) and which file it is, for the
/// messages of its errors.
pub(super) struct CsvOutput<'a> {
    writer: csv::Writer<&'a mut dyn Write>,
    stream: Stream,
}

impl<'a> CsvOutput<'a> {
    pub(super) fn new(out: &'a mut dyn Write, stream: Stream) -> Self {
        Self {
            writer: csv::Writer::from_writer(out),
            stream,
        }
    }

    pub(super) fn write_header(&mut self, columns: &[String]) -> Result<(), CliError> {
        self.writer
            .write_record(columns.iter().map(|c| csv_header_cell(c).into_owned()))
            .map_err(|e| CliError::csv(self.stream, e))
    }

    pub(super) fn write_row(&mut self, row: &CsvRow) -> Result<(), CliError> {
        self.writer
            .write_byte_record(&row.record)
            .map_err(|e| CliError::csv(self.stream, e))
    }

    pub(super) fn flush(&mut self) -> Result<(), CliError> {
        self.writer
            .flush()
            .map_err(|e| CliError::write(self.stream, e))
    }
}

/// Columns as one CSV line (no line end), quoted where needed.
fn csv_line(columns: &[String]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(columns.iter().map(|c| csv_header_cell(c).into_owned()))
        .expect("writing to memory cannot fail");
    let bytes = writer.into_inner().expect("writing to memory cannot fail");
    let line = String::from_utf8(bytes).expect("the columns are UTF-8");
    line.trim_end_matches('\n').to_string()
}

/// Columns of the trajectory CSV for a scene and its generic number of admissible motions.
pub(super) fn trajectory_columns(scene: &Scene, dof: usize) -> Vec<String> {
    let mut columns: Vec<String> = ["t", "energy", "residual", "rank", "dof", "basis_jump"]
        .map(String::from)
        .into();
    for body in scene.mechanism.bodies() {
        for name in body.coordinate_names().iter().chain(body.velocity_names()) {
            columns.push(format!("{}.{name}", body.name));
        }
    }
    columns.extend((1..=dof).map(|k| format!("qd{k}")));
    columns
}

/// Header line of the trajectory CSV for a scene and its generic number of admissible motions.
pub fn trajectory_header(scene: &Scene, dof: usize) -> String {
    csv_line(&trajectory_columns(scene, dof))
}

/// One trajectory row of the current state.
pub(super) fn trajectory_row(
    row: &mut CsvRow,
    sim: &Simulation,
    mode: BasisMode,
    residual: f64,
    rank: usize,
    basis_jump: f64,
    dof: usize,
) {
    row.clear();
    row.number(sim.time());
    row.number(sim.energy());
    row.number(residual);
    let n = sim.mechanism().n();
    row.display(rank);
    row.display(n - rank);
    row.number(basis_jump);
    let (x, xd) = (sim.positions(), sim.velocities());
    let mechanism = sim.mechanism();
    let mut velocity = [0.0; 7];
    for (index, body) in mechanism.bodies().iter().enumerate() {
        for k in 0..body.dim() {
            row.number(x[body.offset + k]);
        }
        mechanism.body_velocity(index, x, xd, &mut velocity);
        for v in &velocity[..body.velocity_names().len()] {
            row.number(*v);
        }
    }
    let qd = sim.basis(mode).qd();
    for k in 0..dof {
        match qd.get(k) {
            Some(&v) => row.number(v),
            None => row.empty(),
        }
    }
}

/// Columns of the reactions CSV: `t`, each joint's reaction components in scene order, and
/// for scenes with drivers `driver_power` and `driver_work`.
pub(super) fn reaction_columns(scene: &Scene) -> Vec<String> {
    let mechanism = &scene.mechanism;
    let mut columns = vec!["t".to_string()];
    for (index, joint) in mechanism.joints().iter().enumerate() {
        for name in mechanism.reaction_components(index) {
            columns.push(format!("{}.{name}", joint.name));
        }
    }
    if mechanism.is_rheonomic() {
        columns.extend(["driver_power", "driver_work"].map(String::from));
    }
    columns
}

/// One reactions row: the reactions from `lambda` (minimum norm) at the current state, with
/// the Jacobian `a` there; `driver` is the drivers' power and work for scenes with drivers.
pub(super) fn reactions_row(
    row: &mut CsvRow,
    sim: &Simulation,
    a: &nalgebra::DMatrix<f64>,
    lambda: &nalgebra::DVector<f64>,
    driver: Option<(f64, f64)>,
) {
    row.clear();
    row.number(sim.time());
    let mechanism = sim.mechanism();
    let mut values = [0.0; 6];
    for joint in 0..mechanism.joints().len() {
        let count = mechanism.joint_reaction(joint, sim.positions(), a, lambda, &mut values);
        for v in &values[..count] {
            row.number(*v);
        }
    }
    if let Some((power, work)) = driver {
        row.number(power);
        row.number(work);
    }
}

/// Columns of the events CSV: one row per admissible motion of each event.
pub(super) fn event_columns(scene: &Scene) -> Vec<String> {
    let mut columns: Vec<String> = ["t", "rank", "deficiency", "rho_min", "motion", "kind"]
        .map(String::from)
        .into();
    for body in scene.mechanism.bodies() {
        for name in body.coordinate_names() {
            columns.push(format!("{}.d{name}", body.name));
        }
    }
    columns
}

/// Header line of the events CSV: one row per admissible motion of each event.
pub fn events_header(scene: &Scene) -> String {
    csv_line(&event_columns(scene))
}

/// The admissible motions of an event (`continued`, `new`), then the branches through it
/// (after `t`, a lesson's `segment` if given) other than the continuation (`branch`, unit tangents, see `solver::branches`), each
/// oriented the way the mechanism moves along it at the event (at rest: downhill), as the
/// window draws them ([`orient_motion`]).
pub(super) fn write_event_rows(
    out: &mut CsvOutput,
    row: &mut CsvRow,
    mechanism: &Mechanism,
    event: &SingularEvent,
    branches: &[Branch],
    basis: BasisMode,
    segment: Option<u32>,
) -> Result<(), CliError> {
    // Continued QR splits the motions; traditional QR gives its own columns, which mix them.
    let new = event.new_motions();
    let (first, first_kind, new_count) = match basis {
        BasisMode::Continued => (event.continued(), "continued", new.ncols()),
        BasisMode::Traditional => (event.traditional(), "traditional", 0),
    };
    let motions = first
        .column_iter()
        .map(|c| (first_kind, c.into_owned()))
        .chain(
            new.column_iter()
                .take(new_count)
                .map(|c| ("new", c.into_owned())),
        )
        .chain(branches.iter().map(|b| ("branch", b.direction.clone())))
        .map(|(kind, column)| (kind, orient_motion(mechanism, &event.x, &event.xd, &column)));
    for (index, (kind, column)) in motions.enumerate() {
        row.clear();
        row.number(event.t);
        row.display(event.rank);
        row.display(event.deficiency);
        row.number(event.rho_min);
        row.display(index + 1);
        row.display(kind);
        for v in column.iter() {
            row.number(*v);
        }
        if let Some(segment) = segment {
            row.insert_segment(segment);
        }
        out.write_row(row)?;
    }
    Ok(())
}
