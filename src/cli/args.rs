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
    /// The trajectory CSV's file; `None` is stdout.
    pub out: Option<PathBuf>,
    pub events: Option<EventsOutput>,
}

/// Where `--events` writes the events CSV.
#[derive(Clone, Debug, PartialEq)]
pub enum EventsOutput {
    /// `--events -`, only when the trajectory goes to a file.
    Stdout,
    File(PathBuf),
}

/// Options of `singulab bench`.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchArgs {
    pub scenes: Vec<PathBuf>,
    pub t_end: f64,
}

/// When `singulab view` stops the simulation by itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewStop {
    /// Runs until the user pauses (the app still pauses at singular events).
    Never,
    /// Runs to this simulated time and pauses.
    Time(f64),
    /// Pauses at the first singular event, as the app's auto-pause does.
    UntilEvent,
}

/// Options of `singulab view` (and of the bare `singulab`, which opens the default scene).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewArgs {
    pub scene: Option<PathBuf>,
    pub basis: BasisMode,
    pub stop: ViewStop,
    /// Write a PNG of the window after the stop and `after_frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    pub after_frames: u32,
    pub light: bool,
    /// Opens with the traditional and the continued basis side by side.
    pub side_by_side: bool,
    /// Window size in logical pixels.
    pub size: (u32, u32),
    /// Solver step instead of the scene's.
    pub dt: Option<f64>,
    /// Run this many frames, print the CPU time per frame (solver, UI) and exit.
    pub measure_frames: Option<u32>,
    /// Size of the whole interface (text, panels, canvas labels) relative to the default.
    pub ui_scale: f32,
}

impl Default for ViewArgs {
    fn default() -> Self {
        Self {
            scene: None,
            basis: BasisMode::Continued,
            stop: ViewStop::Never,
            screenshot: None,
            after_frames: 5,
            light: false,
            side_by_side: false,
            size: (1600, 900),
            ui_scale: 1.0,
            dt: None,
            measure_frames: None,
        }
    }
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Run(RunArgs),
    Bench(BenchArgs),
    View(ViewArgs),
    Help,
    Version,
    /// No command: what `cargo run` does.
    Default,
}

/// The value after `flag`; an option there (`--out --events x.csv`, `--out -h`) is a
/// missing value, not a file named like an option. Other values starting with `-` pass
/// (`-1` is then rejected as a negative number, `-results.csv` is a file).
fn value<'a>(flag: &str, it: &mut impl Iterator<Item = &'a String>) -> Result<&'a str, String> {
    match it.next().map(String::as_str) {
        Some(text) if text.starts_with("--") || ["-h", "-V"].contains(&text) => {
            Err(format!("{flag} needs a value, got the option {text}"))
        }
        Some(text) => Ok(text),
        None => Err(format!("{flag} needs a value")),
    }
}

/// Rejects an option given twice (`--dt 1e-3 --dt 5e-3` would silently take the last).
fn once<'a>(seen: &mut Vec<&'a str>, arg: &'a str) -> Result<(), String> {
    if arg.starts_with("--") && seen.contains(&arg) {
        return Err(format!("{arg} is given twice"));
    }
    seen.push(arg);
    Ok(())
}

/// Whether `arg` asks for help.
fn is_help(arg: &str) -> bool {
    arg == "-h" || arg == "--help"
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
    // `singulab run --help` asks for help (the sub-parsers return `None`), not for a scene
    // called --help.
    let help = |parsed: Option<Command>| parsed.unwrap_or(Command::Help);
    match first.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "run" => parse_run(&args[1..]).map(|r| help(r.map(Command::Run))),
        "bench" => parse_bench(&args[1..]).map(|b| help(b.map(Command::Bench))),
        "view" => parse_view(&args[1..]).map(|v| help(v.map(Command::View))),
        other => Err(format!("unknown command \"{other}\" (try --help)")),
    }
}

fn parse_run(args: &[String]) -> Result<Option<RunArgs>, String> {
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
    let mut seen = Vec::new();
    while let Some(arg) = it.next() {
        if is_help(arg) {
            return Ok(None);
        }
        once(&mut seen, arg)?;
        match arg.as_str() {
            "--t-end" => run.t_end = Some(positive(arg, value(arg, &mut it)?)?),
            "--dt" => run.dt = Some(positive(arg, value(arg, &mut it)?)?),
            "--basis" => run.basis = basis(value(arg, &mut it)?)?,
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
            // `--out -` is stdout, as no --out.
            "--out" => {
                run.out = Some(value(arg, &mut it)?)
                    .filter(|path| *path != "-")
                    .map(PathBuf::from)
            }
            "--events" => {
                run.events = Some(match value(arg, &mut it)? {
                    "-" => EventsOutput::Stdout,
                    path => EventsOutput::File(PathBuf::from(path)),
                })
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            path => {
                if scene.replace(PathBuf::from(path)).is_some() {
                    return Err(format!("only one scene per run (extra \"{path}\")"));
                }
            }
        }
    }
    run.scene = scene.ok_or("run needs a scene file, e.g. singulab run scenes/four_bar.ron")?;
    if run.out.is_none() && run.events == Some(EventsOutput::Stdout) {
        return Err(
            "--events - and the trajectory cannot share stdout; give one of them a file (--out FILE.csv)"
                .into(),
        );
    }
    Ok(Some(run))
}

fn basis(text: &str) -> Result<BasisMode, String> {
    match text {
        "traditional" => Ok(BasisMode::Traditional),
        "continued" => Ok(BasisMode::Continued),
        other => Err(format!(
            "--basis expects traditional or continued, got \"{other}\""
        )),
    }
}

fn parse_view(args: &[String]) -> Result<Option<ViewArgs>, String> {
    let mut view = ViewArgs::default();
    let mut it = args.iter();
    let mut seen = Vec::new();
    while let Some(arg) = it.next() {
        if is_help(arg) {
            return Ok(None);
        }
        // --time and --until-event have their own message below.
        if arg != "--time" && arg != "--until-event" {
            once(&mut seen, arg)?;
        }
        match arg.as_str() {
            "--basis" => view.basis = basis(value(arg, &mut it)?)?,
            "--time" | "--until-event" if view.stop != ViewStop::Never => {
                return Err("view takes one stop: --time S or --until-event, not both".into());
            }
            "--time" => view.stop = ViewStop::Time(positive(arg, value(arg, &mut it)?)?),
            "--until-event" => view.stop = ViewStop::UntilEvent,
            "--screenshot" => view.screenshot = Some(PathBuf::from(value(arg, &mut it)?)),
            "--after-frames" => {
                let text = value(arg, &mut it)?;
                view.after_frames = text.parse().map_err(|_| {
                    format!("--after-frames expects a number of frames, got \"{text}\"")
                })?;
            }
            "--light" => view.light = true,
            "--side-by-side" => view.side_by_side = true,
            "--ui-scale" => {
                let text = value(arg, &mut it)?;
                view.ui_scale = text
                    .parse::<f32>()
                    .ok()
                    .filter(|s| (0.5..=3.0).contains(s))
                    .ok_or_else(|| {
                        format!("--ui-scale expects a factor from 0.5 to 3, got \"{text}\"")
                    })?;
            }
            "--dt" => view.dt = Some(positive(arg, value(arg, &mut it)?)?),
            "--measure-frames" => {
                let text = value(arg, &mut it)?;
                view.measure_frames =
                    Some(text.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!(
                            "--measure-frames expects a positive number of frames, got \"{text}\""
                        )
                    })?);
            }
            "--size" => {
                let text = value(arg, &mut it)?;
                view.size = text
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| {
                        (320..=8192).contains(&w) && (240..=8192).contains(&h)
                    })
                    .ok_or_else(|| {
                        format!("--size expects WIDTHxHEIGHT, e.g. 1600x900, got \"{text}\"")
                    })?;
            }
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            path => {
                if view.scene.replace(PathBuf::from(path)).is_some() {
                    return Err(format!("view opens one scene (extra \"{path}\")"));
                }
            }
        }
    }
    Ok(Some(view))
}

fn parse_bench(args: &[String]) -> Result<Option<BenchArgs>, String> {
    let mut bench = BenchArgs {
        scenes: Vec::new(),
        t_end: 10.0,
    };
    let mut it = args.iter();
    let mut seen = Vec::new();
    while let Some(arg) = it.next() {
        if is_help(arg) {
            return Ok(None);
        }
        once(&mut seen, arg)?;
        match arg.as_str() {
            "--t-end" => bench.t_end = positive(arg, value(arg, &mut it)?)?,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            path => bench.scenes.push(PathBuf::from(path)),
        }
    }
    Ok(Some(bench))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn view_for_a_screenshot() {
        let command = parse(&strings(&[
            "view",
            "scenes/double_four_bar.ron",
            "--basis",
            "traditional",
            "--until-event",
            "--screenshot",
            "shot.png",
            "--after-frames",
            "8",
            "--size",
            "1280x720",
        ]))
        .unwrap();
        let Command::View(view) = command else {
            panic!("not a view")
        };
        assert_eq!(
            view.scene,
            Some(PathBuf::from("scenes/double_four_bar.ron"))
        );
        assert_eq!(view.basis, BasisMode::Traditional);
        assert_eq!(view.stop, ViewStop::UntilEvent);
        assert_eq!(view.screenshot, Some(PathBuf::from("shot.png")));
        assert_eq!(view.after_frames, 8);
        assert_eq!(view.size, (1280, 720));
        let Command::View(timed) = parse(&strings(&["view", "a.ron", "--time", "1.5"])).unwrap()
        else {
            panic!("not a view")
        };
        assert_eq!(timed.stop, ViewStop::Time(1.5));
        assert!(parse(&strings(&["view", "--time", "-1"])).is_err());
        assert!(parse(&strings(&["view", "--time", "1", "--until-event"])).is_err());
        assert!(parse(&strings(&["view", "--until-event", "--until-event"])).is_err());
        assert!(parse(&strings(&["view", "--size", "10x10"])).is_err());
        assert!(parse(&strings(&["view", "--ui-scale", "9"])).is_err());
        let Command::View(scaled) = parse(&strings(&["view", "--ui-scale", "1.5"])).unwrap() else {
            panic!("not a view")
        };
        assert_eq!(scaled.ui_scale, 1.5);
        assert!(!scaled.side_by_side);
        let Command::View(both) = parse(&strings(&["view", "--side-by-side"])).unwrap() else {
            panic!("not a view")
        };
        assert!(both.side_by_side);
        assert_eq!(parse(&strings(&["run", "--help"])), Ok(Command::Help));
        assert!(parse(&strings(&["view", "--after-frames", "many"])).is_err());
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
        assert_eq!(run.events, Some(EventsOutput::File(PathBuf::from("e.csv"))));
    }

    #[test]
    fn events_to_stdout_only_beside_a_trajectory_file() {
        let Command::Run(run) = parse(&strings(&[
            "run", "a.ron", "--out", "o.csv", "--events", "-",
        ]))
        .unwrap() else {
            panic!("not a run")
        };
        assert_eq!(run.out, Some(PathBuf::from("o.csv")));
        assert_eq!(run.events, Some(EventsOutput::Stdout));
        // The trajectory on stdout too, explicitly or by default: one stream, two CSVs.
        for args in [
            vec!["run", "a.ron", "--out", "-", "--events", "-"],
            vec!["run", "a.ron", "--events", "-"],
            vec!["run", "a.ron", "--events", "-", "--out", "-"],
        ] {
            let message = parse(&strings(&args)).unwrap_err();
            assert!(message.contains("share stdout"), "{args:?}: {message}");
        }
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
            vec!["run", "a.ron", "-x"],
            vec!["run", "a.ron", "--dt", "1e-3", "--dt", "5e-3"],
            vec!["run", "a.ron", "--out", "--events", "e.csv"],
            vec!["run", "a.ron", "--out", "-h"],
            vec!["view", "--light", "--light"],
            vec!["bench", "--t-end", "1", "--t-end", "2"],
            vec!["fly"],
        ] {
            assert!(parse(&strings(&bad)).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn help_anywhere_but_as_a_value() {
        for args in [
            vec!["run", "a.ron", "--help"],
            vec!["run", "-h"],
            vec!["view", "scenes/x.ron", "-h"],
            vec!["bench", "--help"],
        ] {
            assert_eq!(parse(&strings(&args)), Ok(Command::Help), "{args:?}");
        }
    }
}
