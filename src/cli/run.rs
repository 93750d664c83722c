//! `singulab run`: integrates a scene headlessly and writes the trajectory and the singular
//! events as CSV (columns documented in `singulab run --help`, rows written by the private
//! `cli::csv_files`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use super::args::{EventsOutput, RunArgs};
use super::csv_files::{
    CsvOutput, CsvRow, event_columns, trajectory_columns, trajectory_row, write_event_rows,
};
use super::error::{CliError, RowsKept, Stream};
use crate::scene::{Scene, load_scene};
use crate::solver::{BasisMode, Simulation, SolverError, StepReport, branches};

pub use super::csv_files::{events_header, trajectory_header};

/// What a run did, for the caller's summary line.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub steps: u64,
    pub rows: u64,
    pub events: usize,
    pub t_end: f64,
    /// Steps whose rank exceeded the generic rank (the mechanism left its branch for a
    /// locked one: a singular crossing went wrong).
    pub steps_above_generic_rank: u64,
    /// Dopri5 steps accepted without meeting the tolerance (across singular configurations).
    pub forced_steps: u64,
    /// QR factorisations of `A^T` over the run (stages, Newton iterates, events).
    pub factorizations: u64,
    /// The rank at the start and the generic rank, when the start is a singular configuration.
    pub starts_singular: Option<(usize, usize)>,
    /// Largest `|E - E0|` over the written and unwritten steps, when the scene conserves
    /// energy (gravity only, no loads); `None` otherwise.
    pub energy_drift: Option<f64>,
    /// `E0`, the energy at the start.
    pub energy0: f64,
    /// Largest kinetic energy over the steps (the scale of the energy warning).
    pub kinetic_max: f64,
}

impl RunSummary {
    /// The summary of a run that has written its first row (t = 0) and taken no step.
    fn at_start(scene: &Scene, sim: &Simulation, t_end: f64) -> Self {
        Self {
            steps: 0,
            rows: 1,
            events: 0,
            t_end,
            steps_above_generic_rank: 0,
            forced_steps: 0,
            factorizations: 0,
            starts_singular: sim.starts_singular(),
            energy_drift: scene.mechanism.loads().is_empty().then_some(0.0),
            energy0: sim.energy(),
            kinetic_max: scene.mechanism.kinetic_energy(sim.velocities()),
        }
    }

    /// Accounts for a step that reached `sim`'s current state.
    fn record_step(&mut self, scene: &Scene, sim: &Simulation, report: &StepReport) {
        self.steps += 1;
        self.steps_above_generic_rank += u64::from(report.rank > sim.generic_rank());
        self.forced_steps += u64::from(report.forced);
        if let Some(drift) = self.energy_drift.as_mut() {
            *drift = drift.max((report.energy - self.energy0).abs());
        }
        self.kinetic_max = self
            .kinetic_max
            .max(scene.mechanism.kinetic_energy(sim.velocities()));
    }
}

/// Most steps a run may take (at `dt = 1e-300` it would never end).
const MAX_STEPS: f64 = 1e9;

/// Whether two paths name the same regular file, existing or to be created: existing ones by
/// their canonical paths, new ones by their canonical folder and name. Devices and pipes
/// (`/dev/null`, `/dev/stdout`) are never "the same file".
fn same_file(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| -> Option<std::path::PathBuf> {
        match std::fs::metadata(p) {
            Ok(meta) if meta.is_file() => p.canonicalize().ok(),
            Ok(_) => None,
            Err(_) => {
                let folder = p.parent().filter(|f| !f.as_os_str().is_empty());
                let folder = folder.unwrap_or(Path::new(".")).canonicalize().ok()?;
                Some(folder.join(p.file_name()?))
            }
        }
    };
    matches!((resolve(a), resolve(b)), (Some(a), Some(b)) if a == b)
}

/// Refuses outputs that would overwrite the scene or each other.
fn check_outputs(args: &RunArgs) -> Result<(), CliError> {
    let events = match &args.events {
        Some(EventsOutput::File(path)) => Some(path.clone()),
        _ => None,
    };
    let outputs = [("--out", &args.out), ("--events", &events)];
    for (flag, path) in outputs {
        if let Some(path) = path
            && same_file(path, &args.scene)
        {
            return Err(CliError::OverwritesScene {
                flag,
                path: path.clone(),
            });
        }
    }
    if let (Some(out), Some(events)) = (&args.out, &events)
        && same_file(out, events)
    {
        return Err(CliError::SameOutputs { path: out.clone() });
    }
    Ok(())
}

/// Draws a progress bar on stderr.
struct Progress {
    enabled: bool,
    last_percent: i64,
}

impl Progress {
    fn new(enabled: bool) -> Self {
        Self {
            enabled,
            last_percent: -1,
        }
    }

    fn update(&mut self, t: f64, t_end: f64) {
        if !self.enabled {
            return;
        }
        let percent = ((t / t_end) * 100.0).floor() as i64;
        if percent != self.last_percent {
            self.last_percent = percent;
            let filled = (percent / 4) as usize;
            eprint!(
                "\r[{}{}] {percent:3}%  t = {t:.3} / {t_end} s",
                "#".repeat(filled),
                " ".repeat(25 - filled.min(25))
            );
        }
    }

    fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}

/// A CSV output file opened (created if new) but not emptied yet: an existing file is only
/// emptied once every output has opened, so a bad `--events` path does not wipe `--out`.
fn open_output_file(path: &Path) -> Result<File, CliError> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| CliError::create(path, e))
}

/// A CSV output (an opened file, emptied now, or stdout for `None`) and whether it is a
/// terminal.
fn start_output(file: Option<(File, &Path)>) -> Result<(Box<dyn Write>, bool), CliError> {
    match file {
        Some((file, path)) => {
            // A regular file only: `/dev/null` or a pipe cannot be truncated.
            if file.metadata().is_ok_and(|m| m.is_file()) {
                file.set_len(0).map_err(|source| CliError::Empty {
                    path: path.to_path_buf(),
                    source,
                })?;
            }
            let terminal = file.is_terminal();
            Ok((Box::new(BufWriter::new(file)), terminal))
        }
        None => {
            let stdout = io::stdout();
            let terminal = stdout.is_terminal();
            Ok((Box::new(BufWriter::new(stdout.lock())), terminal))
        }
    }
}

/// The run's two outputs, opened and emptied, with whether each is a terminal.
struct Outputs {
    trajectory: Box<dyn Write>,
    trajectory_on_terminal: bool,
    events: Option<Box<dyn Write>>,
    events_on_terminal: bool,
}

impl Outputs {
    /// Opens `--out` and `--events` (stdout where they say so); both files open before either
    /// is emptied.
    fn open(args: &RunArgs) -> Result<Self, CliError> {
        let out_file = match args.out.as_deref() {
            Some(path) => Some((open_output_file(path)?, path)),
            None => None,
        };
        let events_file = match &args.events {
            Some(EventsOutput::File(path)) => Some(Some((open_output_file(path)?, path.as_path()))),
            Some(EventsOutput::Stdout) => Some(None),
            None => None,
        };
        let (trajectory, trajectory_on_terminal) = start_output(out_file)?;
        let (events, events_on_terminal) = match events_file {
            Some(file) => start_output(file).map(|(w, terminal)| (Some(w), terminal))?,
            None => (None, false),
        };
        Ok(Self {
            trajectory,
            trajectory_on_terminal,
            events,
            events_on_terminal,
        })
    }

    fn flush(&mut self) -> Result<(), CliError> {
        self.trajectory
            .flush()
            .map_err(|e| CliError::write(Stream::Trajectory, e))?;
        if let Some(w) = self.events.as_mut() {
            w.flush().map_err(|e| CliError::write(Stream::Events, e))?;
        }
        Ok(())
    }
}

/// Whether to draw the progress bar: only on a terminal stderr, and not while a CSV goes to a
/// terminal, where the bar's carriage returns would overwrite its lines.
pub fn draws_progress(stderr_on_terminal: bool, csv_on_terminal: &[bool]) -> bool {
    stderr_on_terminal && !csv_on_terminal.contains(&true)
}

/// Runs `singulab run` with files or stdout as outputs.
pub fn run(args: &RunArgs) -> Result<RunSummary, CliError> {
    check_outputs(args)?;
    let scene = load_scene(&args.scene)?;
    if let Some(note) = scene.assembly_note() {
        eprintln!("singulab: {note}");
    }
    let mut outputs = Outputs::open(args)?;
    let progress = draws_progress(
        io::stderr().is_terminal(),
        &[outputs.trajectory_on_terminal, outputs.events_on_terminal],
    );
    let summary = run_scene(
        &scene,
        args,
        &mut outputs.trajectory,
        outputs
            .events
            .as_mut()
            .map(|w| w.as_mut() as &mut dyn Write),
        progress,
    )?;
    outputs.flush()?;
    Ok(summary)
}

/// The scene's simulation with the settings `args` override, and the time to run to.
fn start_simulation(scene: &Scene, args: &RunArgs) -> Result<(Simulation, f64), CliError> {
    let mut settings = scene.settings.clone();
    if let Some(dt) = args.dt {
        settings.dt = dt;
    }
    if let Some(predictor) = args.predictor {
        settings.predictor = predictor;
    }
    if let Some(integrator) = args.integrator {
        settings.integrator = integrator;
    }
    let t_end = args.t_end.unwrap_or(scene.t_end);
    let sim = scene
        .simulation_with(settings)
        .map_err(|e| CliError::solver(&scene.file, e))?;
    let steps = t_end / sim.settings().dt;
    if steps > MAX_STEPS {
        return Err(CliError::TooManySteps {
            file: scene.file.clone(),
            t_end,
            dt: sim.settings().dt,
            steps,
            limit: MAX_STEPS,
        });
    }
    Ok((sim, t_end))
}

/// `|c|_inf` of the constraints at the start (0 without constraints).
fn initial_residual(scene: &Scene, sim: &Simulation) -> f64 {
    let mut c = nalgebra::DVector::zeros(scene.mechanism.m());
    scene.mechanism.residual(sim.positions(), &mut c);
    if c.is_empty() { 0.0 } else { c.amax() }
}

/// Integrates `scene` with the options of `args`, writing CSV to `out` and `events`.
pub fn run_scene(
    scene: &Scene,
    args: &RunArgs,
    out: &mut dyn Write,
    events: Option<&mut dyn Write>,
    progress: bool,
) -> Result<RunSummary, CliError> {
    let (sim, t_end) = start_simulation(scene, args)?;
    let dof = scene.mechanism.n() - sim.generic_rank();
    let mut trajectory = CsvOutput::new(out, Stream::Trajectory);
    trajectory.write_header(&trajectory_columns(scene, dof))?;
    let mut events = events.map(|w| CsvOutput::new(w, Stream::Events));
    if let Some(events) = events.as_mut() {
        events.write_header(&event_columns(scene))?;
    }
    let mut row = CsvRow::default();
    let residual0 = initial_residual(scene, &sim);
    trajectory_row(&mut row, &sim, args.basis, residual0, sim.rank(), 0.0, dof);
    trajectory.write_row(&row)?;
    let summary = RunSummary::at_start(scene, &sim, t_end);
    // Steps shorter than this fraction of dt (or of the run) at the end are merged into the
    // previous one.
    let end_slack = 1e-9 * sim.settings().dt.min(t_end);
    let mut run = RunLoop {
        scene,
        args,
        sim,
        trajectory,
        events,
        row,
        summary,
        bar: Progress::new(progress),
        dof,
        t_end,
        end_slack,
    };
    let outcome = run.step_to_end();
    run.bar.finish();
    outcome?;
    run.trajectory.flush()?;
    if let Some(events) = run.events.as_mut() {
        events.flush()?;
    }
    run.summary.factorizations = run.sim.counters().factorizations;
    Ok(run.summary)
}

/// A run in progress: the simulation, its outputs and what it has done so far.
struct RunLoop<'a> {
    scene: &'a Scene,
    args: &'a RunArgs,
    sim: Simulation,
    trajectory: CsvOutput<'a>,
    events: Option<CsvOutput<'a>>,
    row: CsvRow,
    summary: RunSummary,
    bar: Progress,
    dof: usize,
    t_end: f64,
    end_slack: f64,
}

impl RunLoop<'_> {
    /// Steps to `t_end`, writing the rows that are due and every event's rows.
    fn step_to_end(&mut self) -> Result<(), CliError> {
        while self.sim.time() < self.t_end - self.end_slack {
            let t_reached = self.sim.time();
            let report = self
                .sim
                .step_until(self.t_end)
                .map_err(|e| self.step_failure(t_reached, e))?;
            self.summary.record_step(self.scene, &self.sim, &report);
            self.write_events()?;
            self.write_row_if_due(&report)?;
            self.bar.update(self.sim.time(), self.t_end);
        }
        Ok(())
    }

    /// A failed step; rows written so far stay in a file output: it says where they end.
    fn step_failure(&self, t_reached: f64, source: SolverError) -> CliError {
        CliError::Solver {
            file: self.scene.file.clone(),
            source,
            kept: self.args.out.as_ref().map(|path| RowsKept {
                t: t_reached,
                path: path.clone(),
            }),
        }
    }

    /// Counts the singular events of the last step and writes their rows.
    fn write_events(&mut self) -> Result<(), CliError> {
        for event in self.sim.step_events() {
            self.summary.events += 1;
            if let Some(events) = self.events.as_mut() {
                let branches = branches(&self.scene.mechanism, event);
                write_event_rows(
                    events,
                    &mut self.row,
                    event,
                    &branches.branches,
                    self.args.basis,
                )?;
            }
        }
        Ok(())
    }

    /// Writes the row of the last step every `--every` steps and at the end.
    fn write_row_if_due(&mut self, report: &StepReport) -> Result<(), CliError> {
        let last = self.sim.time() >= self.t_end - self.end_slack;
        if last || self.summary.steps.is_multiple_of(self.args.every as u64) {
            let jump = match self.args.basis {
                BasisMode::Traditional => report.traditional.jump,
                BasisMode::Continued => report.continued.jump,
            };
            trajectory_row(
                &mut self.row,
                &self.sim,
                self.args.basis,
                report.residual,
                report.rank,
                jump,
                self.dof,
            );
            self.trajectory.write_row(&self.row)?;
            self.summary.rows += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::draws_progress;

    #[test]
    fn the_progress_bar_keeps_off_a_csv_on_the_terminal() {
        // Outputs: the trajectory, the events.
        assert!(draws_progress(true, &[false, false]));
        // `singulab run x.ron` in a terminal: the CSV scrolls there, the bar would cut it.
        assert!(!draws_progress(true, &[true, false]));
        // `--out file.csv --events -` in a terminal.
        assert!(!draws_progress(true, &[false, true]));
        // stderr redirected: never a bar.
        assert!(!draws_progress(false, &[false, false]));
    }
}
