//! Command-line parsing for the headless commands (no dependency: a handful of flags).

use std::path::PathBuf;

use crate::solver::{BasisMode, Integrator, Predictor};

/// Options of `singulab run`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunArgs {
    pub scene: PathBuf,
    pub t_end: Option<f64>,
    pub dt: Option<f64>,
    pub basis: BasisMode,
    pub predictor: Option<Predictor>,
    pub integrator: Option<Integrator>,
    pub every: usize,
    pub out: Option<PathBuf>,
    pub events: Option<PathBuf>,
}

/// Options of `singulab bench`.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchArgs {
    pub scenes: Vec<PathBuf>,
    pub t_end: f64,
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Run(RunArgs),
    Bench(BenchArgs),
    Help,
    Version,
    /// No command: what `cargo run` does.
    Default,
}

fn value<'a>(flag: &str, it: &mut impl Iterator<Item = &'a String>) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value"))
}

fn positive(flag: &str, text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "{flag} expects a positive number of seconds, got \"{text}\""
        )),
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let Some(first) = args.first() else {
        return Ok(Command::Default);
    };
    match first.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "run" => parse_run(&args[1..]).map(Command::Run),
        "bench" => parse_bench(&args[1..]).map(Command::Bench),
        other => Err(format!("unknown command \"{other}\" (try --help)")),
    }
}

fn parse_run(args: &[String]) -> Result<RunArgs, String> {
    let mut scene = None;
    let mut run = RunArgs {
        scene: PathBuf::new(),
        t_end: None,
        dt: None,
        basis: BasisMode::Continued,
        predictor: None,
        integrator: None,
        every: 1,
        out: None,
        events: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--t-end" => run.t_end = Some(positive(arg, value(arg, &mut it)?)?),
            "--dt" => run.dt = Some(positive(arg, value(arg, &mut it)?)?),
            "--basis" => {
                run.basis = match value(arg, &mut it)? {
                    "traditional" => BasisMode::Traditional,
                    "continued" => BasisMode::Continued,
                    other => {
                        return Err(format!(
                            "--basis expects traditional or continued, got \"{other}\""
                        ));
                    }
                }
            }
            "--predictor" => {
                run.predictor = Some(match value(arg, &mut it)? {
                    "omega" => Predictor::Omega,
                    "zeroth" => Predictor::Zeroth,
                    other => {
                        return Err(format!(
                            "--predictor expects omega or zeroth, got \"{other}\""
                        ));
                    }
                })
            }
            "--integrator" => {
                run.integrator = Some(match value(arg, &mut it)? {
                    "rk4" => Integrator::Rk4,
                    "dopri5" => Integrator::Dopri5,
                    other => {
                        return Err(format!(
                            "--integrator expects rk4 or dopri5, got \"{other}\""
                        ));
                    }
                })
            }
            "--every" => {
                let text = value(arg, &mut it)?;
                run.every = match text.parse::<usize>() {
                    Ok(v) if v > 0 => v,
                    _ => {
                        return Err(format!(
                            "--every expects a positive integer, got \"{text}\""
                        ));
                    }
                }
            }
            "--out" => run.out = Some(PathBuf::from(value(arg, &mut it)?)),
            "--events" => run.events = Some(PathBuf::from(value(arg, &mut it)?)),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            path => {
                if scene.replace(PathBuf::from(path)).is_some() {
                    return Err(format!("only one scene per run (extra \"{path}\")"));
                }
            }
        }
    }
    run.scene = scene.ok_or("run needs a scene file, e.g. singulab run scenes/four_bar.ron")?;
    Ok(run)
}

fn parse_bench(args: &[String]) -> Result<BenchArgs, String> {
    let mut bench = BenchArgs {
        scenes: Vec::new(),
        t_end: 10.0,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--t-end" => bench.t_end = positive(arg, value(arg, &mut it)?)?,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            path => bench.scenes.push(PathBuf::from(path)),
        }
    }
    Ok(bench)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn run_with_every_option() {
        let command = parse(&strings(&[
            "run",
            "a.ron",
            "--t-end",
            "2",
            "--dt",
            "1e-4",
            "--basis",
            "traditional",
            "--predictor",
            "zeroth",
            "--integrator",
            "dopri5",
            "--every",
            "10",
            "--out",
            "o.csv",
            "--events",
            "e.csv",
        ]))
        .unwrap();
        let Command::Run(run) = command else {
            panic!("not a run")
        };
        assert_eq!(run.scene, PathBuf::from("a.ron"));
        assert_eq!(run.t_end, Some(2.0));
        assert_eq!(run.dt, Some(1e-4));
        assert_eq!(run.basis, BasisMode::Traditional);
        assert_eq!(run.predictor, Some(Predictor::Zeroth));
        assert_eq!(run.integrator, Some(Integrator::Dopri5));
        assert_eq!(run.every, 10);
        assert_eq!(run.out, Some(PathBuf::from("o.csv")));
        assert_eq!(run.events, Some(PathBuf::from("e.csv")));
    }

    #[test]
    fn bad_values_are_errors() {
        for bad in [
            vec!["run"],
            vec!["run", "a.ron", "--dt", "-1"],
            vec!["run", "a.ron", "--dt"],
            vec!["run", "a.ron", "--basis", "sideways"],
            vec!["run", "a.ron", "--every", "0"],
            vec!["run", "a.ron", "b.ron"],
            vec!["run", "a.ron", "--frobnicate"],
            vec!["fly"],
        ] {
            assert!(parse(&strings(&bad)).is_err(), "{bad:?} accepted");
        }
    }
}
