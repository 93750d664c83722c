//! `singulab run`: integrates a scene headlessly and writes the trajectory and the singular
//! events as CSV (columns documented in `singulab run --help`, rows written by the private
//! `cli::csv_files`).
//!
//! Its outputs never overwrite the scene or each other, under whatever names (hard and symbolic
//! links are compared by device and inode); a CSV on stdout is written through a descriptor of
//! its own, so that a closed or read-only stdout is an error, not a run that reports rows it
//! never wrote. A run stops with an error when Dopri5 takes far more steps than `t_end / dt`
//! ([`step_budget`]); the energy is checked wherever the scene conserves it (the private
//! `cli::energy_check`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::args::{EventsOutput, RunArgs};
use super::energy_check::EnergyCheck;
use super::error::{CliError, FileSite, Input, RowsKept, Stream};
use super::reaction_log::{LogError, ReactionLog};
use super::run_writer::RunWriter;
use crate::scene::{Scene, load_scene};
use crate::solver::{Integrator, Setting, Simulation, SolverError, StepReport};

pub use super::csv_files::{events_header, trajectory_header};
pub use super::run_limits::step_budget;
pub use super::run_summary::RunSummary;

use super::progress::Progress;
use super::run_limits::{MAX_STEPS, RUN_ADVICE};

/// What an output names, for telling whether two paths are one file.
#[derive(Clone, Debug, PartialEq, Eq)]
enum FileIdentity {
    /// An existing regular file: its device and inode, whatever links lead to it.
    #[cfg(unix)]
    Inode(u64, u64),
    /// A file to be created (or, without inodes, an existing one): its canonical folder and
    /// its name.
    Path(PathBuf),
}

/// The identity of an existing file from its metadata, `None` for devices and pipes
/// (`/dev/null`, `/dev/stdout`), which are never "the same file".
#[cfg(unix)]
fn existing_identity(_path: &Path, meta: &std::fs::Metadata) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    meta.is_file()
        .then(|| FileIdentity::Inode(meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn existing_identity(path: &Path, meta: &std::fs::Metadata) -> Option<FileIdentity> {
    if meta.is_file() {
        path.canonicalize().ok().map(FileIdentity::Path)
    } else {
        None
    }
}

/// The identity of the file `path` names, existing (following links) or to be created.
fn path_identity(path: &Path) -> Option<FileIdentity> {
    match std::fs::metadata(path) {
        Ok(meta) => existing_identity(path, &meta),
        Err(_) => {
            let folder = path.parent().filter(|f| !f.as_os_str().is_empty());
            let folder = folder.unwrap_or(Path::new(".")).canonicalize().ok()?;
            Some(FileIdentity::Path(folder.join(path.file_name()?)))
        }
    }
}

/// An output file: its flag, its path and what it names.
type NamedOutput<'a> = (&'static str, &'a Path, Option<FileIdentity>);

/// Refuses outputs that are an input or each other, naming both files at fault.
fn refuse_shared_files(inputs: &[RunInput], outputs: &[NamedOutput]) -> Result<(), CliError> {
    for (input, input_path) in inputs {
        let input_identity = path_identity(input_path);
        for (flag, path, identity) in outputs {
            if identity.is_some() && *identity == input_identity {
                return Err(CliError::OverwritesInput {
                    flag,
                    path: path.to_path_buf(),
                    input: *input,
                });
            }
        }
    }
    for (k, (first, path, identity)) in outputs.iter().enumerate() {
        let shared = outputs[k + 1..]
            .iter()
            .find(|(_, _, other)| identity.is_some() && other == identity);
        if let Some((second, _, _)) = shared {
            return Err(CliError::SameOutputs {
                first,
                second,
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// The `--events` file, if the events go to one.
fn events_path(args: &RunArgs) -> Option<&Path> {
    match &args.events {
        Some(EventsOutput::File(path)) => Some(path),
        _ => None,
    }
}

/// Refuses outputs that would overwrite an input or each other, before anything is opened.
fn check_outputs(args: &RunArgs, inputs: &[RunInput]) -> Result<(), CliError> {
    fn output<'a>(flag: &'static str, path: Option<&'a Path>) -> NamedOutput<'a> {
        (
            flag,
            path.unwrap_or(Path::new("")),
            path.and_then(path_identity),
        )
    }
    let outputs = [
        output("--out", args.out.as_deref()),
        output("--events", events_path(args)),
        output("--reactions", args.reactions.as_deref()),
    ];
    refuse_shared_files(inputs, &outputs)
}

/// A file a run reads, which no output may overwrite.
type RunInput = (Input, PathBuf);

/// The files named on the command line: the scene, the lesson script.
fn argument_inputs(args: &RunArgs) -> Vec<RunInput> {
    let scene = args.scene.iter().map(|path| (Input::Scene, path.clone()));
    let script = args.script.iter().map(|path| (Input::Lesson, path.clone()));
    scene.chain(script).collect()
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

/// An opened output file, emptied now, and whether it is a terminal.
fn start_file_output(file: File, path: &Path) -> Result<(Box<dyn Write>, bool), CliError> {
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

/// Stdout as a file of its own (a duplicate of descriptor 1), and whether it is a terminal.
/// Written through `std::io::Stdout`, a write to a read-only descriptor would fail with EBADF,
/// which `Stdout` treats as success; and a stdout closed at the start is open on `/dev/null`,
/// read and write, as Rust's runtime reopens a closed standard descriptor there (a shell's
/// `>/dev/null` opens it write-only: that is a chosen discard, and runs). Both are refused
/// before the run, so no summary reports rows that were never written.
#[cfg(unix)]
pub(super) fn stdout_output(stream: Stream) -> Result<(Box<dyn Write>, bool), CliError> {
    use std::io::Read;
    use std::os::fd::AsFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let closed = CliError::Stdout {
        stream,
        why: "closed",
    };
    let file = match io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => File::from(fd),
        Err(_) => return Err(closed),
    };
    // A write of nothing checks the descriptor's access mode (EBADF if read-only); other
    // failures (ENOSPC on /dev/full) are the OS's reason, said as such.
    if let Err(error) = (&file).write(&[]) {
        return Err(if error.raw_os_error() == Some(EBADF) {
            CliError::Stdout {
                stream,
                why: "not open for writing",
            }
        } else {
            CliError::Write {
                stream,
                source: error,
            }
        });
    }
    // Readable too (a read of nothing succeeds), and `/dev/null`: the runtime's stand-in.
    let reopened_on_null = file.metadata().is_ok_and(|meta| {
        meta.file_type().is_char_device()
            && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == meta.rdev())
    }) && (&file).read(&mut []).is_ok();
    if reopened_on_null {
        return Err(closed);
    }
    let terminal = file.is_terminal();
    Ok((Box::new(BufWriter::new(file)), terminal))
}

/// "Bad file descriptor" (the same number on Linux, the BSDs and macOS).
#[cfg(unix)]
const EBADF: i32 = 9;

#[cfg(not(unix))]
pub(super) fn stdout_output(_stream: Stream) -> Result<(Box<dyn Write>, bool), CliError> {
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    Ok((Box::new(BufWriter::new(stdout.lock())), terminal))
}

/// The identity of an opened output file (the same file as another, whatever the names).
fn opened_identity(file: &File, path: &Path) -> Option<FileIdentity> {
    file.metadata()
        .ok()
        .and_then(|meta| existing_identity(path, &meta))
}

/// The run's outputs, opened and emptied, with whether each is a terminal.
struct Outputs {
    trajectory: Box<dyn Write>,
    trajectory_on_terminal: bool,
    events: Option<Box<dyn Write>>,
    events_on_terminal: bool,
    reactions: Option<Box<dyn Write>>,
}

impl Outputs {
    /// Opens `--out` and `--events` (stdout where they say so); both files open, and are
    /// checked once more against the inputs and each other as opened (a link created since
    /// [`check_outputs`], a dangling symbolic link to the other output), before either is
    /// emptied.
    fn open(args: &RunArgs, inputs: &[RunInput]) -> Result<Self, CliError> {
        let out_file = match args.out.as_deref() {
            Some(path) => Some((open_output_file(path)?, path)),
            None => None,
        };
        let events_file = match events_path(args) {
            Some(path) => Some((open_output_file(path)?, path)),
            None => None,
        };
        let reactions_file = match args.reactions.as_deref() {
            Some(path) => Some((open_output_file(path)?, path)),
            None => None,
        };
        fn opened<'a>(flag: &'static str, file: &Option<(File, &'a Path)>) -> NamedOutput<'a> {
            match file {
                Some((file, path)) => (flag, path, opened_identity(file, path)),
                None => (flag, Path::new(""), None),
            }
        }
        let outputs = [
            opened("--out", &out_file),
            opened("--events", &events_file),
            opened("--reactions", &reactions_file),
        ];
        refuse_shared_files(inputs, &outputs)?;
        let (trajectory, trajectory_on_terminal) = match out_file {
            Some((file, path)) => start_file_output(file, path)?,
            None => stdout_output(Stream::Trajectory)?,
        };
        let events = match (events_file, &args.events) {
            (Some((file, path)), _) => Some(start_file_output(file, path)?),
            (None, Some(EventsOutput::Stdout)) => Some(stdout_output(Stream::Events)?),
            (None, _) => None,
        };
        let (events, events_on_terminal) = match events {
            Some((events, terminal)) => (Some(events), terminal),
            None => (None, false),
        };
        let reactions = match reactions_file {
            Some((file, path)) => Some(start_file_output(file, path)?.0),
            None => None,
        };
        Ok(Self {
            trajectory,
            trajectory_on_terminal,
            events,
            events_on_terminal,
            reactions,
        })
    }

    fn flush(&mut self) -> Result<(), CliError> {
        self.trajectory
            .flush()
            .map_err(|e| CliError::write(Stream::Trajectory, e))?;
        if let Some(w) = self.events.as_mut() {
            w.flush().map_err(|e| CliError::write(Stream::Events, e))?;
        }
        if let Some(w) = self.reactions.as_mut() {
            w.flush()
                .map_err(|e| CliError::write(Stream::Reactions, e))?;
        }
        Ok(())
    }
}

/// Whether to draw the progress bar: only on a terminal stderr, and not while a CSV goes to a
/// terminal, where the bar's carriage returns would overwrite its lines.
pub fn draws_progress(stderr_on_terminal: bool, csv_on_terminal: &[bool]) -> bool {
    stderr_on_terminal && !csv_on_terminal.contains(&true)
}

/// Runs `singulab run` with files or stdout as outputs. Nothing is printed: the caller prints
/// the summary and its notes on success, the error alone on failure.
pub fn run(args: &RunArgs) -> Result<RunSummary, CliError> {
    let mut inputs = argument_inputs(args);
    check_outputs(args, &inputs)?;
    if let Some(script) = &args.script {
        let lesson = super::run_script::load(script, args)?;
        // The scene the lesson names is read too (a SCENE argument is already listed).
        if let Some(scene) = &lesson.scene_path {
            inputs.push((Input::Scene, scene.clone()));
            check_outputs(args, &inputs)?;
        }
        let mut outputs = Outputs::open(args, &inputs)?;
        let progress = draws_progress(
            io::stderr().is_terminal(),
            &[outputs.trajectory_on_terminal, outputs.events_on_terminal],
        );
        let events = outputs
            .events
            .as_mut()
            .map(|w| w.as_mut() as &mut dyn Write);
        let summary =
            super::run_script::run_lesson(lesson, args, &mut outputs.trajectory, events, progress)?;
        outputs.flush()?;
        return Ok(summary);
    }
    // The grammar asks for a scene without --script.
    let scene = load_scene(args.scene.as_deref().unwrap_or(Path::new("")))?;
    let mut outputs = Outputs::open(args, &inputs)?;
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
        outputs
            .reactions
            .as_mut()
            .map(|w| w.as_mut() as &mut dyn Write),
        progress,
    )
    .map_err(|e| with_far_off_start(&scene, e))?;
    outputs.flush()?;
    Ok(summary)
}

/// A failed run from a pose that assembly moved far, with that said: the note that would have
/// told it is printed only after a run that succeeds.
fn with_far_off_start(scene: &Scene, error: CliError) -> CliError {
    let failed_run = matches!(error, CliError::Solver { .. } | CliError::StepBudget { .. });
    if failed_run && scene.assembled_far_off() {
        CliError::FarOffStart {
            source: Box::new(error),
            coordinate: scene.coordinate_name(scene.assembly.coordinate),
            correction: scene.assembly.correction,
        }
    } else {
        error
    }
}

/// The scene's simulation with the settings `args` override, and the time to run to.
fn start_simulation(scene: &Scene, args: &RunArgs) -> Result<(Simulation, f64), CliError> {
    let mut settings = scene.settings.clone();
    args.override_settings(&mut settings);
    let t_end = args.t_end.unwrap_or(scene.t_end);
    let sim = scene
        .simulation_with(settings)
        .map_err(|e| CliError::solver(scene, e))?;
    let steps = t_end / sim.settings().dt;
    if steps > MAX_STEPS {
        let from_arguments = args.dt.is_some() || args.t_end.is_some();
        let site = match args.dt {
            Some(_) => FileSite::file(&scene.file),
            None => FileSite::of_setting(scene, &[Setting::Dt]),
        };
        return Err(CliError::TooManySteps {
            site: Box::new(site),
            time: "t_end",
            advice: RUN_ADVICE,
            from_arguments,
            t_end,
            dt: sim.settings().dt,
            steps,
            limit: MAX_STEPS,
        });
    }
    Ok((sim, t_end))
}

/// A failure of the reactions log: the solver's, located as a step's, or the output's.
fn log_failure(scene: &Scene, kept: Option<RowsKept>, error: LogError) -> CliError {
    match error {
        LogError::Solver(source) => CliError::Solver {
            site: Box::new(FileSite::of_failure(scene, &source)),
            source,
            kept,
        },
        LogError::Output(e) => e,
    }
}

/// Integrates `scene` with the options of `args`, writing CSV to `out`, `events` and
/// `reactions`.
pub fn run_scene<'a>(
    scene: &'a Scene,
    args: &'a RunArgs,
    out: &'a mut dyn Write,
    events: Option<&'a mut dyn Write>,
    reactions: Option<&'a mut dyn Write>,
    progress: bool,
) -> Result<RunSummary, CliError> {
    let (mut sim, t_end) = start_simulation(scene, args)?;
    let reactions =
        ReactionLog::new(scene, &mut sim, reactions).map_err(|e| log_failure(scene, None, e))?;
    let writer = RunWriter::start(scene, &sim, args.basis, out, events, None)?;
    let summary = RunSummary::at_start(scene, &sim, t_end);
    // Steps shorter than this fraction of dt (or of the run) at the end are merged into the
    // previous one.
    let end_slack = 1e-9 * sim.settings().dt.min(t_end);
    let budget = (sim.settings().integrator == Integrator::Dopri5)
        .then(|| step_budget(t_end, sim.settings().dt));
    let mut run = RunLoop {
        scene,
        args,
        reactions,
        energy: EnergyCheck::new(
            &scene.mechanism,
            sim.time(),
            sim.positions(),
            sim.velocities(),
        ),
        sim,
        writer,
        summary,
        bar: Progress::new(progress),
        t_end,
        end_slack,
        budget,
    };
    let outcome = run.step_to_end();
    run.bar.finish();
    outcome?;
    run.writer.flush()?;
    run.reactions.flush()?;
    run.summary.driver_work = scene.mechanism.is_rheonomic().then(|| run.reactions.work());
    run.summary.factorizations = run.sim.counters().factorizations;
    run.summary.energy_drift = run.energy.drift();
    run.summary.drift_after_pulse = run.energy.drift_after_pulse();
    Ok(run.summary)
}

/// A run in progress: the simulation, its outputs and what it has done so far.
struct RunLoop<'a> {
    scene: &'a Scene,
    args: &'a RunArgs,
    sim: Simulation,
    writer: RunWriter<'a>,
    reactions: ReactionLog<'a>,
    summary: RunSummary,
    energy: EnergyCheck,
    bar: Progress,
    t_end: f64,
    end_slack: f64,
    /// Most steps the run may take ([`step_budget`]; Dopri5 only).
    budget: Option<u64>,
}

impl RunLoop<'_> {
    /// Steps to `t_end`, writing the rows that are due and every event's rows.
    fn step_to_end(&mut self) -> Result<(), CliError> {
        while self.sim.time() < self.t_end - self.end_slack {
            let t_reached = self.sim.time();
            if let Some(budget) = self.budget
                && self.summary.steps >= budget
            {
                return Err(self.budget_spent(budget));
            }
            let report = self
                .sim
                .step_until(self.t_end)
                .map_err(|e| self.step_failure(t_reached, e))?;
            self.summary.record_step(self.scene, &self.sim, &report);
            let due = self.row_due();
            self.reactions
                .record_step(&mut self.sim, due)
                .map_err(|e| log_failure(self.scene, self.rows_kept(t_reached), e))?;
            self.energy.record_step(
                &self.scene.mechanism,
                t_reached,
                self.sim.time(),
                report.energy - self.reactions.work(),
                self.sim.positions(),
                self.sim.velocities(),
            );
            self.write_events()?;
            self.write_row_if_due(&report)?;
            self.bar.update(self.sim.time(), self.t_end);
        }
        Ok(())
    }

    /// Where the rows written so far, to `t`, are: in a regular file, which keeps them (not
    /// `/dev/null` or a pipe).
    fn rows_kept(&self, t: f64) -> Option<RowsKept> {
        let path = self.args.out.as_ref()?;
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file())
            .then(|| RowsKept {
                t,
                path: path.clone(),
            })
    }

    /// A failed step.
    fn step_failure(&self, t_reached: f64, source: SolverError) -> CliError {
        CliError::Solver {
            site: Box::new(FileSite::of_failure(self.scene, &source)),
            source,
            kept: self.rows_kept(t_reached),
        }
    }

    /// The step budget spent before `t_end`.
    fn budget_spent(&self, budget: u64) -> CliError {
        let settings = self.sim.settings();
        CliError::StepBudget {
            site: Box::new(FileSite::of_setting(
                self.scene,
                &[
                    Setting::DopriMinStep,
                    Setting::DopriRtol,
                    Setting::DopriAtol,
                ],
            )),
            steps: self.summary.steps,
            budget,
            t: self.sim.time(),
            dt: settings.dt,
            rtol: settings.dopri_rtol,
            atol: settings.dopri_atol,
            min_step: settings.dopri_min_step,
            kept: self.rows_kept(self.sim.time()),
        }
    }

    /// Counts the singular events of the last step and writes their rows.
    fn write_events(&mut self) -> Result<(), CliError> {
        for event in self.sim.step_events() {
            self.summary.events += 1;
            self.writer.event(self.scene, event, None)?;
        }
        Ok(())
    }

    /// Whether the last step's row is due: every `--every` steps and at the end.
    fn row_due(&self) -> bool {
        let last = self.sim.time() >= self.t_end - self.end_slack;
        last || self.summary.steps.is_multiple_of(self.args.every as u64)
    }

    /// Writes the row of the last step when it is due.
    fn write_row_if_due(&mut self, report: &StepReport) -> Result<(), CliError> {
        if self.row_due() {
            self.writer.step_row(&self.sim, report, None)?;
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
