//! The one writer of `singulab run`'s trajectory and events CSVs, shared by a plain run and a
//! lesson's replay (`run --script`): the headers and the row of the start, a row per step due,
//! the rows of each singular event. A replay's rows carry the segment they belong to in a
//! column after `t`; a plain run's have none.
//!
//! The two loops that feed it stay apart: a plain run steps its `Simulation` to `t_end`, a
//! replay's player drives a live session (pauses, pushes, jumps back to an event).

use std::io::Write;

use super::csv_files::{
    CsvOutput, CsvRow, event_columns, trajectory_columns, trajectory_row, write_event_rows,
};
use super::error::{CliError, Stream};
use crate::scene::Scene;
use crate::solver::{BasisMode, Simulation, SingularEvent, StepReport, branches};

/// The CSV outputs of a run and the row buffer they share.
pub(super) struct RunWriter<'a> {
    trajectory: CsvOutput<'a>,
    events: Option<CsvOutput<'a>>,
    row: CsvRow,
    basis: BasisMode,
    /// The generalized velocities' columns (the degrees of freedom at the start).
    dof: usize,
}

impl<'a> RunWriter<'a> {
    /// Writes the headers and the row of `sim`'s start (`segment` 1 for a replay: `Some`
    /// adds the column).
    pub fn start(
        scene: &Scene,
        sim: &Simulation,
        basis: BasisMode,
        out: &'a mut dyn Write,
        events: Option<&'a mut dyn Write>,
        segment: Option<u32>,
    ) -> Result<Self, CliError> {
        let dof = scene.mechanism.n() - sim.generic_rank();
        let columns = |mut columns: Vec<String>| {
            if segment.is_some() {
                columns.insert(1, "segment".into());
            }
            columns
        };
        let mut trajectory = CsvOutput::new(out, Stream::Trajectory);
        trajectory.write_header(&columns(trajectory_columns(scene, dof)))?;
        let mut events = events.map(|w| CsvOutput::new(w, Stream::Events));
        if let Some(events) = events.as_mut() {
            events.write_header(&columns(event_columns(scene)))?;
        }
        let mut writer = Self {
            trajectory,
            events,
            row: CsvRow::default(),
            basis,
            dof,
        };
        let residual = initial_residual(scene, sim);
        trajectory_row(&mut writer.row, sim, basis, residual, sim.rank(), 0.0, dof);
        writer.write_trajectory_row(segment)?;
        Ok(writer)
    }

    /// The rows of `event` (its admissible motions and branches).
    pub fn event(
        &mut self,
        scene: &Scene,
        event: &SingularEvent,
        segment: Option<u32>,
    ) -> Result<(), CliError> {
        let Some(events) = self.events.as_mut() else {
            return Ok(());
        };
        let mechanism = &scene.mechanism;
        let through = branches(mechanism, event);
        write_event_rows(
            events,
            &mut self.row,
            mechanism,
            event,
            &through.branches,
            self.basis,
            segment,
        )
    }

    /// The trajectory row of `sim` after the step `report` describes.
    pub fn step_row(
        &mut self,
        sim: &Simulation,
        report: &StepReport,
        segment: Option<u32>,
    ) -> Result<(), CliError> {
        let jump = report.basis(self.basis).jump;
        trajectory_row(
            &mut self.row,
            sim,
            self.basis,
            report.residual,
            report.rank,
            jump,
            self.dof,
        );
        self.write_trajectory_row(segment)
    }

    fn write_trajectory_row(&mut self, segment: Option<u32>) -> Result<(), CliError> {
        if let Some(segment) = segment {
            self.row.insert_segment(segment);
        }
        self.trajectory.write_row(&self.row)
    }

    /// Flushes both files.
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.trajectory.flush()?;
        if let Some(events) = self.events.as_mut() {
            events.flush()?;
        }
        Ok(())
    }
}

/// `|c|_inf` of the constraints at the start (0 without constraints).
fn initial_residual(scene: &Scene, sim: &Simulation) -> f64 {
    let mut c = nalgebra::DVector::zeros(scene.mechanism.m());
    scene
        .mechanism
        .residual(sim.time(), sim.positions(), &mut c);
    if c.is_empty() { 0.0 } else { c.amax() }
}
