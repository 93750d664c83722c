//! `singulab run`: integrates a scene headlessly and writes the trajectory and the singular
//! events as CSV (columns documented in README.md).

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use super::args::{EventsOutput, RunArgs};
use crate::number_text::time_text;
use crate::scene::{Scene, load_scene};
use crate::solver::{BasisMode, Branch, Simulation, SingularEvent, StepReport, branches};

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

/// The error `run` returns when the reader of stdout went away (`singulab run ... | head`):
/// the command line then stops quietly, as other tools do.
pub const OUTPUT_CLOSED: &str = "the output was closed";

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
fn check_outputs(args: &RunArgs) -> Result<(), String> {
    let events = match &args.events {
        Some(EventsOutput::File(path)) => Some(path.clone()),
        _ => None,
    };
    let outputs = [("--out", &args.out), ("--events", &events)];
    for (flag, path) in outputs {
        if let Some(path) = path
            && same_file(path, &args.scene)
        {
            return Err(format!(
                "{flag} {} would overwrite the scene file",
                path.display()
            ));
        }
    }
    if let (Some(out), Some(events)) = (&args.out, &events)
        && same_file(out, events)
    {
        return Err(format!(
            "--out and --events name the same file ({})",
            out.display()
        ));
    }
    Ok(())
}

/// CSV number format: shortest representation that reads back to the same `f64`.
fn number(out: &mut String, value: f64) {
    let _ = write!(out, "{value:?}");
}

/// Header of the trajectory CSV for a scene and its generic number of admissible motions.
pub fn trajectory_header(scene: &Scene, dof: usize) -> String {
    let mut header = String::from("t,energy,residual,rank,dof,basis_jump");
    for body in scene.mechanism.bodies() {
        for name in body.coordinate_names().iter().chain(body.velocity_names()) {
            let _ = write!(header, ",{}.{name}", body.name);
        }
    }
    for k in 1..=dof {
        let _ = write!(header, ",qd{k}");
    }
    header
}

/// One trajectory row of the current state.
fn trajectory_row(
    line: &mut String,
    sim: &Simulation,
    mode: BasisMode,
    residual: f64,
    rank: usize,
    basis_jump: f64,
    dof: usize,
) {
    line.clear();
    number(line, sim.time());
    line.push(',');
    number(line, sim.energy());
    line.push(',');
    number(line, residual);
    let n = sim.mechanism().n();
    let _ = write!(line, ",{rank},{},", n - rank);
    number(line, basis_jump);
    let (x, xd) = (sim.positions(), sim.velocities());
    for body in sim.mechanism().bodies() {
        for values in [x, xd] {
            for k in 0..body.dim() {
                line.push(',');
                number(line, values[body.offset + k]);
            }
        }
    }
    let qd = sim.basis(mode).qd();
    for k in 0..dof {
        line.push(',');
        if let Some(&v) = qd.get(k) {
            number(line, v);
        }
    }
    line.push('\n');
}

/// Header of the events CSV: one row per admissible motion of each event.
pub fn events_header(scene: &Scene) -> String {
    let mut header = String::from("t,rank,deficiency,rho_min,motion,kind");
    for body in scene.mechanism.bodies() {
        for name in body.coordinate_names() {
            let _ = write!(header, ",{}.d{name}", body.name);
        }
    }
    header
}

/// The admissible motions of an event (`continued`, `new`), then the branches through it
/// other than the continuation (`branch`, unit tangents, see `solver::branches`).
fn event_rows(out: &mut String, event: &SingularEvent, branches: &[Branch], basis: BasisMode) {
    // Continued QR splits the motions; traditional QR gives its own columns, which mix them.
    let new = event.new_motions();
    let (first, first_kind, new_count) = match basis {
        BasisMode::Continued => (event.continued(), "continued", new.ncols()),
        BasisMode::Traditional => (event.traditional(), "traditional", 0),
    };
    let motions = first
        .column_iter()
        .map(|c| (first_kind, c.as_slice().to_vec()))
        .chain(
            new.column_iter()
                .take(new_count)
                .map(|c| ("new", c.as_slice().to_vec())),
        )
        .chain(
            branches
                .iter()
                .map(|b| ("branch", b.direction.as_slice().to_vec())),
        );
    for (index, (kind, column)) in motions.enumerate() {
        number(out, event.t);
        let _ = write!(out, ",{},{},", event.rank, event.deficiency);
        number(out, event.rho_min);
        let _ = write!(out, ",{},{kind}", index + 1);
        for v in column.iter() {
            out.push(',');
            number(out, *v);
        }
        out.push('\n');
    }
}

/// Draws a progress bar on stderr.
struct Progress {
    enabled: bool,
    last_percent: i64,
}

impl Progress {
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

/// The message of a failed write to the trajectory (`what` = "output") or the events: a closed
/// pipe is the reader being done (`singulab run ... | head`), anything else an error.
fn write_error(what: &'static str) -> impl Fn(io::Error) -> String {
    move |e| {
        if e.kind() == io::ErrorKind::BrokenPipe {
            OUTPUT_CLOSED.to_string()
        } else {
            format!("cannot write the {what}: {e}")
        }
    }
}

/// A CSV output file opened (created if new) but not emptied yet: an existing file is only
/// emptied once every output has opened, so a bad `--events` path does not wipe `--out`.
fn open_output_file(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))
}

/// A CSV output (an opened file, emptied now, or stdout for `None`) and whether it is a
/// terminal.
fn start_output(file: Option<(File, &Path)>) -> Result<(Box<dyn Write>, bool), String> {
    match file {
        Some((file, path)) => {
            // A regular file only: `/dev/null` or a pipe cannot be truncated.
            if file.metadata().is_ok_and(|m| m.is_file()) {
                file.set_len(0)
                    .map_err(|e| format!("cannot empty {}: {e}", path.display()))?;
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

/// Whether to draw the progress bar: only on a terminal stderr, and not while a CSV goes to a
/// terminal, where the bar's carriage returns would overwrite its lines.
pub fn draws_progress(stderr_on_terminal: bool, csv_on_terminal: &[bool]) -> bool {
    stderr_on_terminal && !csv_on_terminal.contains(&true)
}

/// Runs `singulab run` with files or stdout as outputs.
pub fn run(args: &RunArgs) -> Result<RunSummary, String> {
    check_outputs(args)?;
    let scene = load_scene(&args.scene).map_err(|e| e.to_string())?;
    if let Some(note) = scene.assembly_note() {
        eprintln!("singulab: {note}");
    }
    let events_path = args.events.as_ref().map(|events| match events {
        EventsOutput::File(path) => Some(path.as_path()),
        EventsOutput::Stdout => None,
    });
    // Both files open before either is emptied.
    let out_file = match args.out.as_deref() {
        Some(path) => Some((open_output_file(path)?, path)),
        None => None,
    };
    let events_file = match events_path {
        Some(Some(path)) => Some(Some((open_output_file(path)?, path))),
        Some(None) => Some(None),
        None => None,
    };
    let (mut out, out_on_terminal) = start_output(out_file)?;
    let (mut events, events_on_terminal) = match events_file {
        Some(file) => start_output(file).map(|(w, terminal)| (Some(w), terminal))?,
        None => (None, false),
    };
    let progress = draws_progress(
        io::stderr().is_terminal(),
        &[out_on_terminal, events_on_terminal],
    );
    let summary = run_scene(
        &scene,
        args,
        &mut out,
        events.as_mut().map(|w| w.as_mut() as &mut dyn Write),
        progress,
    )?;
    out.flush().map_err(write_error("output"))?;
    if let Some(w) = events.as_mut() {
        w.flush().map_err(write_error("events"))?;
    }
    Ok(summary)
}

/// Integrates `scene` with the options of `args`, writing CSV to `out` and `events`.
pub fn run_scene(
    scene: &Scene,
    args: &RunArgs,
    out: &mut dyn Write,
    mut events: Option<&mut dyn Write>,
    progress: bool,
) -> Result<RunSummary, String> {
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
    let mut sim = scene
        .simulation_with(settings)
        .map_err(|e| format!("{}: {e}", scene.file))?;
    let steps = t_end / sim.settings().dt;
    if steps > MAX_STEPS {
        return Err(format!(
            "{}: t_end {} s at dt {} s is {steps:.1e} steps, more than {MAX_STEPS:.0e}; \
             use a larger --dt or a shorter --t-end",
            scene.file,
            super::seconds(t_end),
            super::seconds(sim.settings().dt)
        ));
    }
    let n = scene.mechanism.n();
    let dof = n - sim.generic_rank();
    let io_error = write_error("output");
    let events_error = write_error("events");

    let mut line = trajectory_header(scene, dof);
    line.push('\n');
    out.write_all(line.as_bytes()).map_err(&io_error)?;
    if let Some(w) = events.as_mut() {
        let mut header = events_header(scene);
        header.push('\n');
        w.write_all(header.as_bytes()).map_err(&events_error)?;
    }
    let residual0 = {
        let mut c = nalgebra::DVector::zeros(scene.mechanism.m());
        scene.mechanism.residual(sim.positions(), &mut c);
        if c.is_empty() { 0.0 } else { c.amax() }
    };
    trajectory_row(&mut line, &sim, args.basis, residual0, sim.rank(), 0.0, dof);
    out.write_all(line.as_bytes()).map_err(&io_error)?;

    let mut bar = Progress {
        enabled: progress,
        last_percent: -1,
    };
    let mut summary = RunSummary {
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
    };
    // Steps shorter than this fraction of dt (or of the run) at the end are merged into the
    // previous one.
    let end_slack = 1e-9 * sim.settings().dt.min(t_end);
    let mut event_text = String::new();
    while sim.time() < t_end - end_slack {
        let t_reached = sim.time();
        let report: StepReport = sim.step_until(t_end).map_err(|e| {
            bar.finish();
            // Rows written so far stay in a file output: say where they end.
            let kept = match &args.out {
                Some(path) => format!(
                    " (the rows written before the failure, to t = {} at most, are in {})",
                    time_text(t_reached),
                    path.display()
                ),
                None => String::new(),
            };
            format!("{}: {e}{kept}", scene.file)
        })?;
        summary.steps += 1;
        summary.steps_above_generic_rank += u64::from(report.rank > sim.generic_rank());
        summary.forced_steps += u64::from(report.forced);
        if let Some(drift) = summary.energy_drift.as_mut() {
            *drift = drift.max((report.energy - summary.energy0).abs());
        }
        summary.kinetic_max = summary
            .kinetic_max
            .max(scene.mechanism.kinetic_energy(sim.velocities()));
        for event in sim.step_events() {
            summary.events += 1;
            if let Some(w) = events.as_mut() {
                event_text.clear();
                let branches = branches(&scene.mechanism, event);
                event_rows(&mut event_text, event, &branches.branches, args.basis);
                w.write_all(event_text.as_bytes()).map_err(&events_error)?;
            }
        }
        let last = sim.time() >= t_end - end_slack;
        if last || summary.steps.is_multiple_of(args.every as u64) {
            let stats = match args.basis {
                BasisMode::Traditional => report.traditional,
                BasisMode::Continued => report.continued,
            };
            trajectory_row(
                &mut line,
                &sim,
                args.basis,
                report.residual,
                report.rank,
                stats.jump,
                dof,
            );
            out.write_all(line.as_bytes()).map_err(&io_error)?;
            summary.rows += 1;
        }
        bar.update(sim.time(), t_end);
    }
    bar.finish();
    summary.factorizations = sim.counters().factorizations;
    Ok(summary)
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
