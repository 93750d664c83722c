//! The command line: `singulab run` and `singulab bench` work without the visualizer;
//! `singulab view` and the bare `singulab` open it (built with the default `app` feature).

pub mod args;
pub mod bench;
pub mod run;

use args::Command;

/// A conservative run warns when its energy drifts by more than this fraction of the largest
/// kinetic energy of the run (independent of the potential's datum, unlike `E0`).
const ENERGY_WARNING: f64 = 1e-3;

/// Usage text.
pub const USAGE: &str = "\
singulab: singular configurations of constrained mechanisms

USAGE:
    singulab                      open the visualizer on the double four-bar
    singulab view [SCENE.ron] [--basis traditional|continued] [--time S | --until-event]
                  [--screenshot FILE.png] [--after-frames N] [--size WxH] [--light]
                  [--dt S] [--measure-frames N] [--ui-scale F] [--side-by-side]
    singulab run SCENE.ron [--t-end S] [--dt S] [--basis traditional|continued]
                 [--predictor omega|zeroth] [--integrator rk4|dopri5] [--every N]
                 [--out FILE.csv] [--events FILE.csv]
    singulab bench [SCENE.ron ...] [--t-end S]
    singulab --help | --version

run writes the trajectory CSV to --out (stdout if omitted or -) and the singular events to
--events (- for stdout when --out is a file); the CSV columns are described in README.md. view with --screenshot runs to the
stop (--time or --until-event), lets N frames render (default 5), writes the PNG and exits;
--measure-frames N plays N frames, prints the CPU time per frame and exits; --side-by-side
shows the traditional and the continued basis next to each other.";

#[cfg(feature = "app")]
fn open_visualizer(view: args::ViewArgs) -> Result<(), String> {
    crate::app::run(view)
}

#[cfg(not(feature = "app"))]
fn open_visualizer(_view: args::ViewArgs) -> Result<(), String> {
    Err("this build has no visualizer (built without the `app` feature); use `singulab run`".into())
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

/// Entry point shared by the binary; returns the process exit code.
pub fn main(args: &[String]) -> i32 {
    let command = match args::parse(args) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("singulab: {message}");
            return 2;
        }
    };
    let outcome = match command {
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
        Command::Version => {
            println!("singulab {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Command::Default => open_visualizer(args::ViewArgs::default()),
        Command::View(view) => open_visualizer(view),
        Command::Run(run) => run::run(&run).map(|summary| {
            eprintln!(
                "singulab: {} to t = {} s, {}, {}, {}",
                counted(summary.steps, "step"),
                seconds(summary.t_end),
                counted(summary.rows, "row"),
                counted(summary.events as u64, "singular event"),
                counted(summary.factorizations, "QR factorisation")
            );
            if summary.forced_steps > 0 {
                eprintln!(
                    "singulab: note: {} Dopri5 steps were accepted without meeting the tolerance (across singular configurations, where no step size meets it)",
                    summary.forced_steps
                );
            }
            if let Some((rank, generic)) = summary.starts_singular {
                eprintln!(
                    "singulab: note: the scene starts at a singular configuration (rank {rank} \
                     there, {generic} next to it); its degrees of freedom and the qd columns \
                     are those of the generic rank, and no event is reported at t = 0; \
                     velocities completed there need not follow a branch (state every rate of \
                     the one you mean), and the first step keeps only their part along it"
                );
            }
            if let Some(drift) = summary.energy_drift
                && drift > ENERGY_WARNING * summary.kinetic_max.max(1e-6)
            {
                let why = if summary.starts_singular.is_some() {
                    "the velocities at the singular start did not follow a branch (see the note), \
                     or the step is too large"
                } else {
                    "the step is too large for this scene, try a smaller --dt"
                };
                eprintln!(
                    "singulab: warning: the energy drifted by {drift:.3e} J although the scene \
                     conserves it (largest kinetic energy {:.6} J); {why}",
                    summary.kinetic_max
                );
            }
            if summary.steps_above_generic_rank > 0 {
                eprintln!(
                    "singulab: warning: on {} steps the rank exceeded the generic rank: the mechanism left its branch at a singular configuration and jammed; try RK4 or another dt",
                    summary.steps_above_generic_rank
                );
            }
        }),
        Command::Bench(bench) => bench::bench(&bench),
    };
    match outcome {
        Ok(()) => 0,
        // `singulab run ... | head`: the reader has what it wanted.
        Err(message) if message == run::OUTPUT_CLOSED => 0,
        Err(message) => {
            eprintln!("singulab: error: {message}");
            1
        }
    }
}
