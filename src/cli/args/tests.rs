use super::*;

fn parse_strs(args: &[&str]) -> Result<Cli, clap::Error> {
    parse(std::iter::once("singulab").chain(args.iter().copied()))
}

fn command(args: &[&str]) -> Command {
    parse_strs(args)
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        .command
        .unwrap_or_else(|| panic!("{args:?}: no command"))
}

fn view(args: &[&str]) -> ViewArgs {
    match command(args) {
        Command::View(view) => view,
        other => panic!("not a view: {other:?}"),
    }
}

fn run(args: &[&str]) -> RunArgs {
    match command(args) {
        Command::Run(run) => run,
        other => panic!("not a run: {other:?}"),
    }
}

#[test]
fn the_grammar_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn no_command_opens_the_visualizer() {
    assert_eq!(parse_strs(&[]).unwrap().command, None);
}

#[test]
fn view_for_a_screenshot() {
    let shot = view(&[
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
    ]);
    assert_eq!(
        shot.scene,
        Some(PathBuf::from("scenes/double_four_bar.ron"))
    );
    assert_eq!(shot.basis, BasisMode::Traditional);
    assert!(shot.until_event);
    assert_eq!(shot.time, None);
    assert_eq!(shot.screenshot, Some(PathBuf::from("shot.png")));
    assert_eq!(shot.after_frames, 8);
    assert_eq!(shot.size, (1280, 720));
    assert_eq!(view(&["view", "a.ron", "--time", "1.5"]).time, Some(1.5));
    let scaled = view(&["view", "--ui-scale", "1.5"]);
    assert_eq!(scaled.ui_scale, 1.5);
    assert!(!scaled.side_by_side);
    assert!(view(&["view", "--side-by-side"]).side_by_side);
    for bad in [
        vec!["view", "--time", "-1"],
        vec!["view", "--time", "1", "--until-event"],
        vec!["view", "--until-event", "--until-event"],
        vec!["view", "--size", "10x10"],
        vec!["view", "--ui-scale", "9"],
        vec!["view", "--after-frames", "many"],
        vec!["view", "--measure-frames", "0"],
        vec!["view", "a.ron", "b.ron"],
    ] {
        assert!(parse_strs(&bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn view_defaults() {
    let defaults = view(&["view"]);
    assert_eq!(defaults.basis, BasisMode::Continued);
    assert_eq!((defaults.after_frames, defaults.size), (5, (1600, 900)));
    assert_eq!(defaults.ui_scale, 1.0);
    #[cfg(feature = "app")]
    assert_eq!(
        crate::app::config::ViewConfig::from(defaults),
        crate::app::config::ViewConfig::default(),
        "`singulab view` opens as the bare `singulab` does"
    );
}

#[test]
fn run_with_every_option() {
    let run = run(&[
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
    ]);
    assert_eq!(run.scene, Some(PathBuf::from("a.ron")));
    assert_eq!(run.t_end, Some(2.0));
    assert_eq!(run.dt, Some(1e-4));
    assert_eq!(run.basis, BasisMode::Traditional);
    assert_eq!(run.predictor, Some(Predictor::Zeroth));
    assert_eq!(run.integrator, Some(Integrator::Dopri5));
    assert_eq!(run.every, 10);
    assert_eq!(run.out, Some(PathBuf::from("o.csv")));
    assert_eq!(run.events, Some(EventsOutput::File(PathBuf::from("e.csv"))));
}

fn record(args: &[&str]) -> RecordArgs {
    match command(args) {
        Command::Record(record) => record,
        other => panic!("not a record: {other:?}"),
    }
}

#[test]
fn record_with_every_option() {
    let record = record(&[
        "record",
        "a.ron",
        "--out",
        "talk.mp4",
        "--fps",
        "30",
        "--speed",
        "1/4",
        "--size",
        "1280x720",
        "--side-by-side",
        "--presentation",
        "--t-end",
        "3",
        "--basis",
        "traditional",
        "--light",
        "--dt",
        "5e-4",
    ]);
    assert_eq!(record.scene, PathBuf::from("a.ron"));
    assert_eq!(record.out, PathBuf::from("talk.mp4"));
    assert_eq!((record.fps, record.speed), (Some(30), 0.25));
    assert_eq!((record.size, record.t_end), ((1280, 720), Some(3.0)));
    assert!(record.side_by_side && record.presentation && record.light);
    assert_eq!(
        (record.basis, record.dt),
        (BasisMode::Traditional, Some(5e-4))
    );
}

#[test]
fn record_defaults_follow_the_output() {
    use crate::live::recording::{OutputKind, RecordPlan};
    let mp4 = record(&["record", "a.ron", "--out", "talk.mp4"]);
    assert_eq!((mp4.size, mp4.speed, mp4.t_end), ((1920, 1080), 1.0, None));
    assert!(!mp4.side_by_side && !mp4.presentation);
    let plan = RecordPlan::from(&mp4);
    assert_eq!((plan.kind, plan.fps), (OutputKind::Mp4, 60));
    let gif = RecordPlan::from(&record(&["record", "a.ron", "--out", "loop.gif"]));
    assert_eq!((gif.kind, gif.fps), (OutputKind::Gif, 25));
    let png = RecordPlan::from(&record(&["record", "a.ron", "--out", "frames/"]));
    assert_eq!((png.kind, png.fps), (OutputKind::PngFolder, 60));
}

#[test]
fn run_defaults_and_equals_signs() {
    let plain = run(&["run", "a.ron"]);
    assert_eq!((plain.t_end, plain.dt, plain.every), (None, None, 1));
    assert_eq!(plain.basis, BasisMode::Continued);
    assert_eq!((plain.predictor, plain.integrator), (None, None));
    assert_eq!((plain.out, plain.events), (None, None));
    let equals = run(&["run", "a.ron", "--t-end=0.01", "--out=-results.csv"]);
    assert_eq!(equals.t_end, Some(0.01));
    assert_eq!(equals.out, Some(PathBuf::from("-results.csv")));
}

#[cfg(unix)]
#[test]
fn paths_need_not_be_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let scene = OsStr::from_bytes(b"sc\xffne.ron");
    let out = OsStr::from_bytes(b"o\xfe.csv");
    let args = [
        OsStr::new("singulab"),
        OsStr::new("run"),
        scene,
        OsStr::new("--out"),
        out,
    ];
    let Some(Command::Run(run)) = parse(args).unwrap().command else {
        panic!("not a run")
    };
    assert_eq!(run.scene, Some(PathBuf::from(scene)));
    assert_eq!(run.out, Some(PathBuf::from(out)));
}

#[test]
fn events_to_stdout_only_beside_a_trajectory_file() {
    let run = run(&["run", "a.ron", "--out", "o.csv", "--events", "-"]);
    assert_eq!(run.out, Some(PathBuf::from("o.csv")));
    assert_eq!(run.events, Some(EventsOutput::Stdout));
    // The trajectory on stdout too, explicitly or by default: one stream, two CSVs.
    for args in [
        vec!["run", "a.ron", "--out", "-", "--events", "-"],
        vec!["run", "a.ron", "--events", "-"],
        vec!["run", "a.ron", "--events", "-", "--out", "-"],
    ] {
        let error = parse_strs(&args).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{args:?}");
        assert!(
            error.to_string().contains("share stdout"),
            "{args:?}: {error}"
        );
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
        vec!["run", "a.ron", "--events=--out"],
        vec!["view", "--light", "--light"],
        vec!["bench", "--t-end", "1", "--t-end", "2"],
        vec!["fly"],
    ] {
        let error = parse_strs(&bad).expect_err(&format!("{bad:?} accepted"));
        assert_eq!(error.exit_code(), 2, "{bad:?}: {error}");
    }
}

#[test]
fn value_errors_say_what_is_wrong() {
    let cases: [(&[&str], &[&str]); 5] = [
        (&["run", "a.ron", "--dt", "-1"], &["--dt", "positive"]),
        (&["run", "a.ron", "--out", "-h"], &["--out", "value"]),
        (&["run", "a.ron", "--every", "0"], &["--every", "positive"]),
        (
            &["run", "a.ron", "--t-end", "1", "--t-end", "2"],
            &["--t-end", "multiple"],
        ),
        (&["view", "--size", "10x10"], &["--size", "WIDTHxHEIGHT"]),
    ];
    for (args, words) in cases {
        let error = parse_strs(args).unwrap_err();
        let mut line_args = vec![OsString::from("singulab")];
        line_args.extend(args.iter().map(OsString::from));
        let line = usage_error_line(&error, &line_args);
        assert!(!line.contains('\n'), "{line}");
        for word in words {
            assert!(
                line.contains(word),
                "{args:?}: {word:?} missing from {line}"
            );
        }
        assert!(
            line.ends_with(&format!("(see singulab {} --help)", args[0])),
            "{line}"
        );
    }
}

#[test]
fn help_anywhere_but_as_a_value() {
    for args in [
        vec!["--help"],
        vec!["-h"],
        vec!["help"],
        vec!["run", "a.ron", "--help"],
        vec!["run", "-h"],
        vec!["view", "scenes/x.ron", "-h"],
        vec!["bench", "--help"],
    ] {
        let error = parse_strs(&args).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::DisplayHelp, "{args:?}");
        assert_eq!(error.exit_code(), 0, "{args:?}");
    }
    let version = parse_strs(&["--version"]).unwrap_err();
    assert_eq!(version.kind(), ErrorKind::DisplayVersion);
}
