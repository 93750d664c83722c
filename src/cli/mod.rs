//! The command line: `singulab run` and `singulab bench` work without the visualizer; with no
//! command the visualizer opens (once the `app` feature carries it).

pub mod args;
pub mod bench;
pub mod run;

use args::Command;

/// Usage text.
pub const USAGE: &str = "\
singulab: singular configurations of constrained mechanisms

USAGE:
    singulab                      open the visualizer
    singulab run SCENE.ron [--t-end S] [--dt S] [--basis traditional|continued]
                 [--predictor omega|zeroth] [--integrator rk4|dopri5] [--every N]
                 [--out FILE.csv] [--events FILE.csv]
    singulab bench [SCENE.ron ...] [--t-end S]
    singulab --help | --version

run writes the trajectory CSV to --out (stdout if omitted) and the singular events to
--events; the CSV columns are described in README.md.";

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
        Command::Default => {
            println!(
                "{USAGE}\n\nThe visualizer is not part of this build yet; use `singulab run`."
            );
            Ok(())
        }
        Command::Run(run) => run::run(&run).map(|summary| {
            eprintln!(
                "singulab: {} steps to t = {} s, {} rows, {} singular events",
                summary.steps, summary.t_end, summary.rows, summary.events
            );
            if summary.forced_steps > 0 {
                eprintln!(
                    "singulab: note: {} Dopri5 steps near singular configurations were accepted at the smallest step without meeting the tolerance",
                    summary.forced_steps
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
        Err(message) => {
            eprintln!("singulab: error: {message}");
            1
        }
    }
}
