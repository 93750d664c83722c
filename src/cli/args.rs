//! The command line's grammar (clap): `singulab [view | run | analyze | bench | record]`, the
//! options of each, and the checks on their values. Paths are taken as the OS gives them (not necessarily UTF-8).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use clap::builder::{OsStringValueParser, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::solver::{BasisMode, Integrator, Predictor};

/// The whole command line.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "singulab",
    bin_name = "singulab",
    version,
    about = "Singulab: singular configurations of constrained mechanisms",
    after_help = "Without a command, singulab opens the visualizer on the double four-bar. \
                  `singulab COMMAND --help` lists a command's options."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// A command; none opens the visualizer on the default scene.
#[derive(Subcommand, Clone, Debug, PartialEq)]
pub enum Command {
    /// Open the visualizer on a scene
    View(ViewArgs),
    /// Integrate a scene without the visualizer and write its trajectory and singular events as CSV
    Run(RunArgs),
    /// Report a scene's redundancy, self-stress modes and which joint reactions are unique
    Analyze(AnalyzeArgs),
    /// Time the solver on scenes and print the table of docs/measurements.md (build with --release)
    Bench(BenchArgs),
    /// Record a scene's run to an MP4, a GIF or PNG frames, at a fixed simulated time per frame
    Record(RecordArgs),
    /// Trace a scene's configuration set, every branch through its singular points, as CSV
    Atlas(AtlasArgs),
}

/// What `singulab run --help` says about its two CSV files.
const RUN_CSV_COLUMNS: &str = "\
Trajectory CSV: a row per step (per --every steps; the first at t = 0, the last at t_end), \
numbers in shortest round-trip form. Columns: t, energy (kinetic plus gravitational, J, datum \
y = 0 or z = 0), residual (|c|_inf after projection), rank and dof (the rank the dynamics see, \
n - rank), basis_jump (|T_{k+1} - T_k|_F over the step); then per body in scene order \
NAME.x, NAME.y, NAME.theta, NAME.vx, NAME.vy, NAME.omega for bars (centre of mass; theta of the \
axis from start to end, from +x counter-clockwise) or NAME.x, NAME.y(, NAME.z), NAME.vx, \
NAME.vy(, NAME.vz) for point masses or NAME.x, NAME.y, NAME.z, NAME.e0..NAME.e3, NAME.vx, \
NAME.vy, NAME.vz, NAME.wx, NAME.wy, NAME.wz for spatial rigid bodies (centre of mass; Euler \
parameters, body to global; angular velocity in global axes, rad/s); then qd1..qdK, the \
generalized velocities T^T xd in the chosen basis, either sign, in mixed units (m/s, rad/s \
for bars, 1/s for Euler-parameter rates). K is the degrees of freedom at the start; on a step \
where the rank exceeds the generic rank, which the run warns about, the basis has fewer \
columns and the last qd cells are empty.

Events CSV: a row per admissible motion and per branch of each singular event: t, rank (at the \
detection tolerance), deficiency (generic rank minus rank), rho_min (how close to singular the \
located state is), motion (1, 2, ...), kind (continued, new, branch, or traditional with \
--basis traditional), then the unit motion per coordinate (NAME.dx, NAME.dy, NAME.dtheta or \
NAME.dz, NAME.de0..NAME.de3), each oriented the way the mechanism moves along it at the \
event (at rest: downhill).

Reactions CSV (--reactions): a row with each trajectory row: t, then per joint in scene order its reaction on the joint's first body (the second's, reversed, when the first is the ground), in global axes: JOINT.fx, JOINT.fy (N) for planar joints, JOINT.fx, JOINT.fy, JOINT.fz for spatial ones, and for the joints that stop a relative rotation (prismatic, hinge, universal, translational) the moment about the joint's point, JOINT.mz or JOINT.mx, JOINT.my, JOINT.mz (N m). A prismatic joint's driver is the joint NAME.driver (its force along the axis). Where constraints are redundant the values are the minimum-norm multipliers' (one choice among infinitely many for the reactions `singulab analyze` calls not unique). Scenes with drivers end with driver_power (W, the power the drivers put in) and driver_work (J, its integral since t = 0).";

/// Options of `singulab run`.
#[derive(Args, Clone, Debug, PartialEq)]
#[command(after_help = RUN_CSV_COLUMNS)]
pub struct RunArgs {
    /// The scene file (with --script: instead of the lesson's)
    #[arg(value_name = "SCENE.ron", required_unless_present = "script")]
    pub scene: Option<PathBuf>,
    /// Simulated time to run to, in seconds [default: the scene's run.t_end]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub t_end: Option<f64>,
    /// Time step in seconds [default: the scene's]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub dt: Option<f64>,
    /// Tangent basis of the qd columns and of the events' motions
    #[arg(long, value_name = "BASIS", value_parser = basis_value(), default_value = "continued")]
    pub basis: BasisMode,
    /// Predictor of the continued basis [default: the scene's]
    #[arg(long, value_name = "PREDICTOR", value_parser = predictor_value())]
    pub predictor: Option<Predictor>,
    /// Time integrator [default: the scene's]
    #[arg(long, value_name = "INTEGRATOR", value_parser = integrator_value())]
    pub integrator: Option<Integrator>,
    /// Write a row every N steps (the first and the last are always written)
    #[arg(long, value_name = "N", value_parser = at_least_one, allow_hyphen_values = true, default_value = "1")]
    pub every: usize,
    /// Trajectory CSV file (stdout if omitted or -)
    #[arg(long, value_name = "FILE.csv", value_parser = path_value())]
    pub out: Option<PathBuf>,
    /// Singular events CSV file (-: stdout, when --out names a file)
    #[arg(long, value_name = "FILE.csv", value_parser = events_value())]
    pub events: Option<EventsOutput>,
    /// Joint reactions CSV file (columns below)
    #[arg(long, value_name = "FILE.csv", value_parser = path_value())]
    pub reactions: Option<PathBuf>,
    /// Replay a lesson script: its actions at their times and events, headless; both CSVs
    /// then have a `segment` column after `t` (1, then one more at each leave, go-to, or
    /// push from behind the run's latest time), and `t` increases within a segment
    /// [default: a plain run]
    #[arg(long, value_name = "LESSON.ron", value_parser = path_value(), conflicts_with = "reactions")]
    pub script: Option<PathBuf>,
}

impl RunArgs {
    /// The step, predictor and integrator asked for, over a scene's `settings`.
    pub(super) fn override_settings(&self, settings: &mut crate::solver::Settings) {
        if let Some(dt) = self.dt {
            settings.dt = dt;
        }
        if let Some(predictor) = self.predictor {
            settings.predictor = predictor;
        }
        if let Some(integrator) = self.integrator {
            settings.integrator = integrator;
        }
    }
}

/// Where `--events` writes the events CSV.
#[derive(Clone, Debug, PartialEq)]
pub enum EventsOutput {
    /// `--events -`, only when the trajectory goes to a file.
    Stdout,
    File(PathBuf),
}

/// What `singulab analyze --help` says about its output.
const ANALYZE_OUTPUT: &str = "\
Prints n (coordinates), m (constraint rows: position-level and velocity-level), the rank of the \
position-level rows, of the velocity-level rows and of all rows at the dynamics' rank_tolerance, \
the rank of all rows at the scene's detection_tolerance (the rank `run --events` reports: below \
the generic rank at a singular configuration), the redundancy p = m - rank and \
the degrees of freedom n - rank at the rank tolerance, each self-stress mode (a unit basis vector of the left null \
space of the constraint Jacobian A: multipliers that load the joints without moving anything; \
entries per joint row, JOINT#k for the joint's k-th row), and per joint and reaction component \
its minimum-norm value and whether it is unique (the same for every solution of the rigid \
model) or not unique (the self-stress modes change it: the rigid model does not determine it; \
Wojtyra and Fraczek 2013). With --json the same as one JSON object: scene, t, n, m, \
position_rows, velocity_rows, rank_position, rank_velocity, rank, redundancy, dof, \
rank_tolerance, detection_tolerance, rank_detection, deficiency (generic rank minus \
rank_detection), tolerance \
(relative, for uniqueness), row_names (m strings), self_stress_modes (p arrays of m numbers, in \
row order), joints (name, unique, components: name, value, unique, largest_change: the most a \
unit self-stress mode changes it).";

/// Options of `singulab analyze`.
#[derive(Args, Clone, Debug, PartialEq)]
#[command(after_help = ANALYZE_OUTPUT)]
pub struct AnalyzeArgs {
    /// The scene file
    #[arg(value_name = "SCENE.ron")]
    pub scene: PathBuf,
    /// Run the scene to this simulated time first (passing singular events) [default: its start]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub time: Option<f64>,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

/// What `singulab atlas --help` says about its output.
const ATLAS_CSV_COLUMNS: &str = "\
The configuration set is that of the scene's holonomic rows that do not depend on time: a knife \
edge's velocity-level rows and a driver's row are left out (the summary line says how many). A \
set of more than one dimension is traced in sections, all but one coordinate held (--hold, or \
by default the angles that move most at the assembled pose, held there; the summary says which).

Atlas CSV (--out): a row per traced point: curve (0, 1, ...), s (arclength along the curve in \
the coordinates, m and rad mixed; the curve through the assembled pose has s = 0 there), rank \
(at the detection tolerance: lower at and next to singular points, and along a curve that stays \
singular), then the body columns as `singulab run` writes the positions (NAME.x, NAME.y, \
NAME.theta; NAME.x..NAME.e3 for spatial rigid bodies).

Singular points CSV (--singular): point (0, 1, ...), rank (at the detection tolerance), curves \
(the curves that start or end there, separated by spaces), then the same body columns, angles in \
(-pi, pi] (along a curve they run on continuously). The summary line counts the rows of the \
atlas CSV.";

/// Options of `singulab atlas`.
#[derive(Args, Clone, Debug, PartialEq)]
#[command(after_help = ATLAS_CSV_COLUMNS)]
pub struct AtlasArgs {
    /// The scene file
    #[arg(value_name = "SCENE.ron")]
    pub scene: PathBuf,
    /// The traced points as CSV
    #[arg(long, value_name = "FILE.csv")]
    pub out: PathBuf,
    /// The singular points as CSV
    #[arg(long, value_name = "FILE.csv")]
    pub singular: Option<PathBuf>,
    /// Hold a coordinate at each of these values in turn (a section per value; repeat for
    /// more coordinates), e.g. crank1.theta=0,0.5,1
    #[arg(long, value_name = "BODY.COORD=V1,V2,...")]
    pub hold: Vec<String>,
    /// The most points traced in all
    #[arg(long, value_name = "N", default_value = "20000")]
    pub max_points: usize,
}

/// Options of `singulab bench`.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct BenchArgs {
    /// Scene files [default: the shipped scenes and four_bar_stopping, from ./scenes]
    #[arg(value_name = "SCENE.ron")]
    pub scenes: Vec<PathBuf>,
    /// Simulated time of each run, in seconds
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true, default_value = "10")]
    pub t_end: f64,
    /// Also write the table into this Markdown file (docs/measurements.md), between its lines
    /// `<!-- singulab bench -->` and `<!-- /singulab bench -->`, with the date it was measured;
    /// the rest of the file is kept
    #[arg(long, value_name = "FILE.md")]
    pub markdown: Option<PathBuf>,
}

/// What `singulab record --help` says after the options.
const RECORD_OUTPUT: &str = "\
Frame k shows the simulated time k * speed / fps from the start, whatever time it took to draw, \
so the video plays at --speed; frames run from t = 0 to --t-end inclusive (the last shows \
t_end where the frames fall on it). Singular events are passed, not paused at. A LESSON.ron plays \
as written (its pauses, speeds and captions, its wall-clock waits as still frames), --speed \
multiplying its own speeds (1: as written, 2: twice as fast). The window opens \
(a display is needed: under xvfb-run on a server) and the frames are its pictures, with the \
overlays and plots. FILE.mp4: H.264 (yuv420p, sizes padded to even) by ffmpeg, which must be \
on PATH. FILE.gif: a Rust encoder, at 50, 25 (its default), 20 or 10 frames per second (GIF \
delays are whole hundredths of a second). DIR/ (or a name without an extension): \
frame_00000.png, frame_00001.png, ... (ffmpeg -framerate FPS -i DIR/frame_%05d.png makes a \
video of them). A progress bar goes to stderr when it is a terminal.";

/// Options of `singulab record`; they convert into the app's `RecordConfig`.
#[derive(Args, Clone, Debug, PartialEq)]
#[command(after_help = RECORD_OUTPUT)]
pub struct RecordArgs {
    /// The scene file, or a lesson file
    #[arg(value_name = "SCENE.ron")]
    pub scene: PathBuf,
    /// FILE.mp4, FILE.gif, or DIR/ for a PNG per frame
    #[arg(long, value_name = "FILE", value_parser = path_value(), required = true)]
    pub out: PathBuf,
    /// Frames per second of the video [default: 60; 25 for a GIF]
    #[arg(long, value_name = "N", value_parser = fps_value, allow_hyphen_values = true)]
    pub fps: Option<u32>,
    /// Simulated seconds per second of video, from 1/64 to 64 (0.25 or 1/4); for a lesson,
    /// the factor its own speeds are played at
    #[arg(long, value_name = "S", value_parser = crate::live::recording::parse_speed, allow_hyphen_values = true, default_value = "1")]
    pub speed: f64,
    /// Window and video size in pixels, WIDTHxHEIGHT (320x240 to 8192x8192)
    #[arg(long, value_name = "WxH", value_parser = window_size, default_value = "1920x1080")]
    pub size: (u32, u32),
    /// Simulated time of the last frame, in seconds [default: the scene's run.t_end]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub t_end: Option<f64>,
    /// The traditional and the continued basis side by side
    #[arg(long)]
    pub side_by_side: bool,
    /// Presentation mode: no side panels, large type, the captions area (the default picture
    /// of a recording; kept for older commands)
    #[arg(long)]
    pub presentation: bool,
    /// Record the whole window (menus, panels, timeline) instead of what a student should
    /// see: the canvas and the captions, no controls or key hints
    #[arg(long, conflicts_with = "presentation")]
    pub interface: bool,
    /// The generalized velocities' plots in a single-basis video too (a side-by-side one
    /// has each half's under it where the picture has room)
    #[arg(long)]
    pub plots: bool,
    /// The configuration-space plot beside the canvas (the atlas is traced before the first
    /// frame, so every frame shows it)
    #[arg(long, conflicts_with = "interface")]
    pub atlas: bool,
    /// Tangent basis shown
    #[arg(long, value_name = "BASIS", value_parser = basis_value(), default_value = "continued")]
    pub basis: BasisMode,
    /// Light theme
    #[arg(long)]
    pub light: bool,
    /// Time step in seconds [default: the scene's]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub dt: Option<f64>,
}

impl RecordArgs {
    /// What `--out` names (checked by [`parse`]).
    pub fn output_kind(&self) -> crate::live::recording::OutputKind {
        crate::live::recording::OutputKind::of(&self.out)
            .unwrap_or(crate::live::recording::OutputKind::PngFolder)
    }

    /// `--fps`, or the output kind's default.
    pub fn frames_per_second(&self) -> u32 {
        self.fps.unwrap_or_else(|| self.output_kind().default_fps())
    }
}

/// Options of `singulab view`; they convert into the app's `ViewConfig`.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct ViewArgs {
    /// The scene file [default: scenes/double_four_bar.ron]
    #[arg(value_name = "SCENE.ron")]
    pub scene: Option<PathBuf>,
    /// Tangent basis shown
    #[arg(long, value_name = "BASIS", value_parser = basis_value(), default_value = "continued")]
    pub basis: BasisMode,
    /// Run to this simulated time and pause (passing singular events)
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true, conflicts_with = "until_event")]
    pub time: Option<f64>,
    /// Pause at the first singular event, as the app's auto-pause does
    #[arg(long)]
    pub until_event: bool,
    /// Run to the stop, let --after-frames frames render, write this PNG and exit
    #[arg(long, value_name = "FILE.png", value_parser = path_value())]
    pub screenshot: Option<PathBuf>,
    /// Frames rendered before the screenshot is taken
    #[arg(long, value_name = "N", value_parser = frame_count, allow_hyphen_values = true, default_value = "5")]
    pub after_frames: u32,
    /// Window size in logical pixels, WIDTHxHEIGHT (320x240 to 8192x8192)
    #[arg(long, value_name = "WxH", value_parser = window_size, default_value = "1600x900")]
    pub size: (u32, u32),
    /// Light theme
    #[arg(long)]
    pub light: bool,
    /// Time step in seconds [default: the scene's]
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_hyphen_values = true)]
    pub dt: Option<f64>,
    /// Play N frames, print the CPU time per frame (solver, interface) and exit
    #[arg(long, value_name = "N", value_parser = positive_frame_count, allow_hyphen_values = true)]
    pub measure_frames: Option<u32>,
    /// Size of the whole interface relative to the default, from 0.5 to 3
    #[arg(long, value_name = "F", value_parser = ui_scale, allow_hyphen_values = true, default_value = "1")]
    pub ui_scale: f32,
    /// Show the traditional and the continued basis side by side
    #[arg(long)]
    pub side_by_side: bool,
    /// Show the joint reactions (unique or not determined by the rigid model)
    #[arg(long)]
    pub reactions: bool,
    /// With --reactions, draw self-stress mode K (1, 2, ...) on the mechanism
    #[arg(long, value_name = "K", value_parser = at_least_one, allow_hyphen_values = true, requires = "reactions")]
    pub mode: Option<usize>,
    /// Presentation mode (key P): no side panels, large type, the captions area, no notices
    #[arg(long)]
    pub presentation: bool,
}

#[cfg(feature = "app")]
impl From<ViewArgs> for crate::app::config::ViewConfig {
    fn from(args: ViewArgs) -> Self {
        use crate::app::config::ViewStop;
        let stop = match (args.time, args.until_event) {
            (_, true) => ViewStop::UntilEvent,
            (Some(t), false) => ViewStop::Time(t),
            (None, false) => ViewStop::Never,
        };
        Self {
            scene: args.scene,
            basis: args.basis,
            stop,
            screenshot: args.screenshot,
            after_frames: args.after_frames,
            light: args.light,
            side_by_side: args.side_by_side,
            reactions: args.reactions,
            mode: args.mode,
            size: args.size,
            dt: args.dt,
            measure_frames: args.measure_frames,
            ui_scale: args.ui_scale,
            presentation: args.presentation,
            video: false,
            plots: true,
            atlas: false,
        }
    }
}

#[cfg(feature = "app")]
impl From<&RecordArgs> for crate::app::config::ViewConfig {
    /// The window a recording opens: the scene from its start, never stopping by itself.
    fn from(args: &RecordArgs) -> Self {
        Self {
            scene: Some(args.scene.clone()),
            basis: args.basis,
            light: args.light,
            side_by_side: args.side_by_side,
            size: args.size,
            dt: args.dt,
            // Presentation's type follows the picture's height, as on a projector of that
            // size (`app::presentation::LARGE_TYPE`).
            presentation: !args.interface,
            video: !args.interface,
            plots: args.interface || args.plots,
            atlas: args.atlas,
            ..Self::default()
        }
    }
}

impl From<&RecordArgs> for crate::live::recording::RecordPlan {
    fn from(args: &RecordArgs) -> Self {
        Self {
            out: args.out.clone(),
            kind: args.output_kind(),
            fps: args.frames_per_second(),
            speed: args.speed,
            t_end: args.t_end,
        }
    }
}

/// Parses a whole command line (the program's name first, as `std::env::args_os` gives it),
/// with the checks that concern several options at once. Help and version requests come back
/// as clap errors of their kind, as clap reports them.
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut cli = Cli::try_parse_from(args)?;
    if let Some(Command::Record(record)) = &cli.command {
        check_record(record)?;
    }
    if let Some(Command::Run(run)) = &mut cli.command {
        // `--out -` is stdout, as no --out.
        if run.out.as_deref() == Some(Path::new("-")) {
            run.out = None;
        }
        if run.out.is_none() && run.events == Some(EventsOutput::Stdout) {
            return Err(Cli::command().error(
                ErrorKind::ArgumentConflict,
                "--events - and the trajectory cannot share stdout; give one of them a file \
                 (--out FILE.csv)",
            ));
        }
    }
    Ok(cli)
}

/// `record`'s checks across options: the output's extension, and a GIF's frame rate.
fn check_record(record: &RecordArgs) -> Result<(), clap::Error> {
    use crate::live::recording::{OutputKind, check_fps};
    let usage = |message: String| {
        let mut command = Cli::command();
        let command = command.find_subcommand_mut("record").cloned();
        command
            .unwrap_or_else(Cli::command)
            .error(ErrorKind::ValueValidation, message)
    };
    let kind = OutputKind::of(&record.out)
        .map_err(|why| usage(format!("--out {}: {why}", record.out.display())))?;
    check_fps(&kind, record.frames_per_second())
        .map_err(|why| usage(format!("--out {}: {why}", record.out.display())))
}

/// A usage error as one line for `singulab: `: clap's message and tips, without its usage
/// block, and where to read the command's options.
pub fn usage_error_line(error: &clap::Error, args: &[OsString]) -> String {
    let rendered = error.render().to_string();
    let mut message = Vec::new();
    let mut tips = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            // Not clap's "to pass '-x' as a value, use '-- -x'": after `--` it would be a scene.
            if !tip.starts_with("to pass") {
                tips.push(tip);
            }
        } else if !line.is_empty() {
            message.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    let mut text = message.join(" ");
    for tip in tips {
        text.push_str("; ");
        text.push_str(tip);
    }
    let command = args
        .get(1)
        .and_then(|arg| arg.to_str())
        .filter(|arg| ["view", "run", "bench", "record"].contains(arg));
    match command {
        Some(command) => text.push_str(&format!(" (see singulab {command} --help)")),
        None => text.push_str(" (see singulab --help)"),
    }
    text
}

/// A path value. clap takes a value starting with `-` for an option (`--out -h` misses its
/// value, `--out=-results.csv` names a file); after `=` an option's name is still taken for
/// a mistake, not a file named like an option (`--out=--events`).
fn path_value() -> impl TypedValueParser<Value = PathBuf> {
    OsStringValueParser::new().try_map(|text| {
        if is_option(&text) {
            Err("an option where a value belongs")
        } else {
            Ok(PathBuf::from(text))
        }
    })
}

/// `--events`: `-` is stdout.
fn events_value() -> impl TypedValueParser<Value = EventsOutput> {
    path_value().map(|path| {
        if path == Path::new("-") {
            EventsOutput::Stdout
        } else {
            EventsOutput::File(path)
        }
    })
}

fn is_option(text: &OsStr) -> bool {
    text.to_str()
        .is_some_and(|text| text.starts_with("--") || text == "-h" || text == "-V")
}

fn positive_seconds(text: &str) -> Result<f64, &'static str> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err("expected a positive number of seconds"),
    }
}

fn at_least_one(text: &str) -> Result<usize, &'static str> {
    match text.parse::<usize>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err("expected a positive integer"),
    }
}

fn fps_value(text: &str) -> Result<u32, &'static str> {
    match text.parse::<u32>() {
        Ok(n) if (1..=240).contains(&n) => Ok(n),
        _ => Err("expected a whole number of frames per second from 1 to 240"),
    }
}

fn frame_count(text: &str) -> Result<u32, &'static str> {
    text.parse().map_err(|_| "expected a number of frames")
}

fn positive_frame_count(text: &str) -> Result<u32, &'static str> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a positive number of frames"),
    }
}

fn ui_scale(text: &str) -> Result<f32, &'static str> {
    text.parse::<f32>()
        .ok()
        .filter(|s| (0.5..=3.0).contains(s))
        .ok_or("expected a factor from 0.5 to 3")
}

fn window_size(text: &str) -> Result<(u32, u32), &'static str> {
    text.split_once('x')
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
        .filter(|&(w, h): &(u32, u32)| (320..=8192).contains(&w) && (240..=8192).contains(&h))
        .ok_or("expected WIDTHxHEIGHT from 320x240 to 8192x8192, e.g. 1600x900")
}

fn basis_value() -> impl TypedValueParser<Value = BasisMode> {
    PossibleValuesParser::new(["traditional", "continued"]).map(|text| match text.as_str() {
        "traditional" => BasisMode::Traditional,
        _ => BasisMode::Continued,
    })
}

fn predictor_value() -> impl TypedValueParser<Value = Predictor> {
    PossibleValuesParser::new(["omega", "zeroth"]).map(|text| match text.as_str() {
        "zeroth" => Predictor::Zeroth,
        _ => Predictor::Omega,
    })
}

fn integrator_value() -> impl TypedValueParser<Value = Integrator> {
    PossibleValuesParser::new(["rk4", "dopri5"]).map(|text| match text.as_str() {
        "dopri5" => Integrator::Dopri5,
        _ => Integrator::Rk4,
    })
}

#[cfg(test)]
mod tests;
