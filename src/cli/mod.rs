//! The command line: `singulab run`, `singulab analyze` and `singulab bench` work without the
//! visualizer;
//! `singulab view`, `singulab record` and the bare `singulab` open it (built with the default
//! `app` feature).
//!
//! Exit codes: 0 on success (also when the reader of stdout closes it early), 2 for bad
//! arguments (one line after `singulab: `; after `singulab: error: ` when `--dt`, `--t-end` or
//! `analyze --time` make a run of more than 1e9 steps), 1 for a failure (one line after
//! `singulab: error: `).
//! Every line printed is one line whatever names the scene holds (`scene::one_line`). A run's
//! notes and warnings come after its summary, once it has succeeded; a failed run prints its
//! error line alone.

pub mod analyze;
pub mod args;
pub mod atlas;
pub mod bench;
mod csv_files;
mod energy_check;
pub mod error;
mod progress;
mod reaction_log;
pub mod run;
mod run_limits;
mod run_script;
mod run_summary;
mod run_writer;

use std::ffi::OsString;

use args::{Command, ViewArgs};
pub use error::CliError;
use run::RunSummary;

use crate::scene::one_line;
use crate::solver::Integrator;

/// A conservative run warns when its energy drifts by more than this fraction of the largest
/// kinetic energy of the run (independent of the potential's datum, unlike `E0`).
const ENERGY_WARNING: f64 = 1e-3;

/// Opens the visualizer with `view`'s options, or on the default scene for `None`.
#[cfg(feature = "app")]
fn open_visualizer(view: Option<ViewArgs>) -> Result<(), CliError> {
    let config = view.map_or_else(crate::app::ViewConfig::default, Into::into);
    crate::app::run(config).map_err(CliError::Visualizer)
}

#[cfg(not(feature = "app"))]
fn open_visualizer(_view: Option<ViewArgs>) -> Result<(), CliError> {
    Err(CliError::NoVisualizer)
}

/// `singulab record`: the visualizer drives itself frame by frame and writes the video.
#[cfg(feature = "app")]
fn record(args: &args::RecordArgs) -> Result<(), CliError> {
    crate::app::record(args.into(), args.into()).map_err(CliError::Visualizer)
}

#[cfg(not(feature = "app"))]
fn record(_args: &args::RecordArgs) -> Result<(), CliError> {
    Err(CliError::NoVisualizer)
}

/// `n` and the noun, in the plural unless `n` is 1.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A time or step in seconds for messages: plainly in the usual range, in exponent form far
/// outside it (`1e-300`, not three hundred zeros).
pub(crate) fn seconds(value: f64) -> String {
    crate::number_text::number_text(value)
}

/// Entry point of the binary: `args` as `std::env::args_os` gives them (the program's name
/// first); returns the process exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match args::parse(&args) {
        Ok(cli) => cli,
        Err(error) => return report_usage(&error, &args),
    };
    match execute(cli.command) {
        // `singulab run ... | head`: the reader has what it wanted.
        Ok(()) | Err(CliError::OutputClosed) => 0,
        Err(error) => {
            // clap's usage errors read `singulab: ...`; these, found once the arguments met
            // the files (exit 2 for a run the arguments make too long), `singulab: error: ...`.
            eprintln!("singulab: error: {}", one_line(&error.to_string()));
            error.exit_code()
        }
    }
}

/// Prints help or the version on stdout (exit 0), or a usage error as one line on stderr
/// (exit 2).
fn report_usage(error: &clap::Error, args: &[OsString]) -> i32 {
    if error.use_stderr() {
        eprintln!(
            "singulab: {}",
            one_line(&args::usage_error_line(error, args))
        );
    } else {
        // A closed stdout has nothing left to tell.
        let _ = error.print();
    }
    error.exit_code()
}

/// Runs a parsed command; none opens the visualizer on the default scene.
fn execute(command: Option<Command>) -> Result<(), CliError> {
    match command {
        None => open_visualizer(None),
        Some(Command::View(view)) => open_visualizer(Some(view)),
        Some(Command::Record(record_args)) => record(&record_args),
        Some(Command::Run(run)) => run::run(&run).map(|summary| print_summary(&summary)),
        Some(Command::Analyze(analyze)) => {
            run::stdout_output(error::Stream::Table)?;
            analyze::analyze(&analyze)
        }
        Some(Command::Atlas(atlas_args)) => atlas::atlas(&atlas_args),
        Some(Command::Bench(bench)) => {
            // The table goes to stdout: refused up front if stdout is closed.
            run::stdout_output(error::Stream::Table)?;
            bench::bench(&bench)
        }
    }
}

/// The run's summary line on stderr, then its notes and warnings.
fn print_summary(summary: &RunSummary) {
    eprintln!(
        "singulab: {} to t = {} s, {}, {}, {}",
        counted(summary.steps, "step"),
        seconds(summary.t_end),
        counted(summary.rows, "row"),
        counted(summary.events as u64, "singular event"),
        counted(summary.factorizations, "QR factorisation")
    );
    let note = |text: &str| eprintln!("singulab: note: {}", one_line(text));
    if let Some(lesson_end) = summary.lesson_ended_before {
        note(&format!(
            "the lesson's rows end at t = {} s, before its t_end {} s: a Pause held the \
             mechanism to the end, or the lesson went back to an earlier event",
            seconds(summary.t_end),
            seconds(lesson_end)
        ));
    }
    if let Some((next, actions)) = summary.lesson_stopped_before {
        note(&format!(
            "--t-end {} s stopped the lesson before action {next} of {actions}",
            seconds(summary.t_end)
        ));
    }
    match &summary.assembly_note {
        Some(far_off) if summary.assembly_far_off => {
            eprintln!("singulab: warning: {}", one_line(far_off));
        }
        Some(assembly) => note(assembly),
        None => {}
    }
    if summary.forced_steps > 0 {
        note(&format!(
            "{} Dopri5 steps were accepted without meeting the tolerance (across singular configurations, where no step size meets it)",
            summary.forced_steps
        ));
    }
    if let Some((rank, generic)) = summary.starts_singular {
        note(&format!(
            "the scene starts at a singular configuration (rank {rank} \
             there, {generic} next to it); its degrees of freedom and the qd columns \
             are those of the generic rank, and no event is reported at t = 0; \
             velocities completed there need not follow a branch (state every rate of \
             the one you mean), and the first step keeps only their part along it"
        ));
    }
    if let Some(work) = summary.driver_work {
        note(&format!(
            "the drivers did {work:.6e} J of work on the mechanism (a plain run's --reactions file has driver_power and driver_work); the energy check compares the energy less that work with its start"
        ));
    }
    warn_about_energy(summary);
    if summary.steps_above_generic_rank > 0 {
        let advice = match summary.integrator {
            Integrator::Rk4 => "try another dt",
            Integrator::Dopri5 => "try RK4 or another dt",
        };
        eprintln!(
            "singulab: warning: on {} steps the rank exceeded the generic rank: the mechanism left its branch at a singular configuration and jammed; {advice}",
            summary.steps_above_generic_rank
        );
    }
}

/// Warns when the energy drifted by more than [`ENERGY_WARNING`] of the largest kinetic energy
/// of the run where the scene conserves it (with the potential of its constant loads, outside
/// its load pulses).
fn warn_about_energy(summary: &RunSummary) {
    let drift = summary.energy_drift;
    if drift <= ENERGY_WARNING * summary.kinetic_max.max(1e-6) {
        return;
    }
    let why = if summary.drift_after_pulse {
        "the step is too large for the velocities a load pulse gave, try a smaller --dt"
    } else if summary.starts_singular.is_some() {
        "the velocities at the singular start did not follow a branch (see the note), or the \
         step is too large"
    } else {
        "the step is too large for this scene, try a smaller --dt"
    };
    let scope = if summary.has_pulses {
        " outside its load pulses"
    } else {
        ""
    };
    let what = if summary.driver_work.is_some() {
        "the energy less the drivers' work drifted by"
    } else {
        "the energy drifted by"
    };
    eprintln!(
        "singulab: warning: {what} {drift:.3e} J although the scene conserves it{scope} \
         (largest kinetic energy {:.6} J); {why}",
        summary.kinetic_max
    );
}
