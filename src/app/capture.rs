//! `singulab view` options that drive the app by themselves: the stop (`--time`,
//! `--until-event`), the screenshot mode (`--screenshot`: run to the stop exactly as the app's
//! auto-pause would, let frames render, save the PNG, exit 0 once it is on disk) and the frame
//! measurement (`--measure-frames`: play, then print the CPU time per frame, as the threads'
//! CPU clocks count it (`super::cpu_clock`), and exit). The measurement prints the mean over
//! all frames and, on a second line, over the frames after the first [`WARMUP_FRAMES`]: the
//! first frame fills the font atlas (`super::font_warmup`), which is a start-up cost rather
//! than a frame's. For
//! `singulab record` it only applies `--dt` and leaves the frames to the recorder
//! (`super::record`). While capturing or recording, egui ignores the mouse pointer so that
//! the pictures do not depend on it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use web_time::Instant;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

use super::SingulabSystems;
use super::config::{ViewConfig, ViewStop};
use super::drawing::{CanvasCamera, ViewState};
use super::shown::pause_at_scene_end;
use super::simulation::{FrameStats, Live, Notice, SingularityReached};
use crate::live::PauseReason;

/// Steps allowed for reaching the stop synchronously before the first frame.
const MAX_STEPS: usize = 20_000_000;
/// Frames to wait for a requested screenshot before giving up.
const MAX_WAIT_FRAMES: u32 = 600;
/// Frames left out of `--measure-frames`' second line: the start-up's.
const WARMUP_FRAMES: u32 = 10;

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Start,
    Settling(u32),
    Requested(u32),
    Saved,
    /// Frames left to measure, and the wall-clock instant and simulated time it began at.
    Measuring(u32, Instant, f64),
    Done,
}

#[derive(Resource, Clone, Debug)]
pub struct CaptureMode {
    stop: ViewStop,
    screenshot: Option<PathBuf>,
    after_frames: u32,
    measure_frames: Option<u32>,
    /// `singulab record`: the recorder draws the frames.
    records: bool,
    dt: Option<f64>,
    phase: Phase,
    /// The frame statistics' totals after the first [`WARMUP_FRAMES`] measured frames.
    warmed_up: Option<Totals>,
    /// Frames waited for the view's frame of the run to be traced (at most
    /// [`MAX_WAIT_FRAMES`]: a canvas never drawn traces nothing).
    waited_for_frame: u32,
    /// Why the capture failed, read by `app::run` after the window closed so that the
    /// command prints one error line.
    failure: Arc<Mutex<Option<String>>>,
}

impl CaptureMode {
    /// Whether this run writes a screenshot (then the status line leaves out the frame time:
    /// it differs from run to run and is the only text that changes while paused).
    /// Neither a screenshot nor a frame measurement: a window for a person.
    pub fn is_interactive(&self) -> bool {
        self.screenshot.is_none() && self.measure_frames.is_none() && !self.records
    }

    /// A screenshot or a recording: pictures that should not depend on the machine's timing.
    pub fn takes_screenshot(&self) -> bool {
        self.screenshot.is_some() || self.records
    }

    /// For `singulab record`.
    pub fn recording(self) -> Self {
        Self {
            records: true,
            ..self
        }
    }

    /// Ends the app with `message` as the command's error.
    pub fn fail_with(&self, exit: &mut MessageWriter<AppExit>, message: String) {
        fail(self, exit, message);
    }

    pub fn from_args(args: &ViewConfig) -> Self {
        Self {
            stop: args.stop,
            screenshot: args.screenshot.clone(),
            after_frames: args.after_frames,
            measure_frames: args.measure_frames,
            records: false,
            dt: args.dt,
            phase: Phase::Start,
            warmed_up: None,
            waited_for_frame: 0,
            failure: Arc::default(),
        }
    }

    /// Shares the slot where a failure's message lands.
    pub fn failure_slot(&self) -> Arc<Mutex<Option<String>>> {
        Arc::clone(&self.failure)
    }
}

impl Default for CaptureMode {
    fn default() -> Self {
        Self::from_args(&ViewConfig::default())
    }
}

pub struct CapturePlugin;

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CaptureMode>()
            .add_systems(Startup, ignore_pointer_when_capturing)
            .add_systems(Update, drive.in_set(SingulabSystems::Output));
    }
}

/// A screenshot must not depend on where the mouse pointer happens to be (a plot's hover
/// readout, a highlighted button): egui is not told about the pointer at all.
fn ignore_pointer_when_capturing(
    capture: Res<CaptureMode>,
    mut egui: ResMut<bevy_egui::EguiGlobalSettings>,
) {
    if capture.takes_screenshot() {
        let input = &mut egui.input_system_settings;
        input.run_write_window_pointer_moved_messages = false;
        input.run_write_pointer_button_messages = false;
        input.run_write_mouse_wheel_messages_system = false;
    }
}

fn fail(capture: &CaptureMode, exit: &mut MessageWriter<AppExit>, message: String) {
    if let Ok(mut slot) = capture.failure.lock() {
        *slot = Some(message);
    }
    exit.write(AppExit::error());
}

/// One frame of the capture: each phase does its part and says which comes next.
fn drive(
    mut capture: ResMut<CaptureMode>,
    mut live: ResMut<Live>,
    stats: Res<FrameStats>,
    camera: Res<CanvasCamera>,
    view: Res<ViewState>,
    mut commands: Commands,
    mut reached: MessageWriter<SingularityReached>,
    mut exit: MessageWriter<AppExit>,
) {
    // The reactions' scale is the run's, traced ahead as the view's frame is.
    let reactions_settled = !view.show_reactions
        || view
            .reactions
            .as_ref()
            .is_some_and(|cache| cache.is_settled(&live));
    match capture.phase.clone() {
        Phase::Start => start(&mut capture, &mut live, &mut reached, &mut exit),
        // The frames count once the view's frame of the run is traced.
        Phase::Settling(_)
            if !(camera.is_settled(&live) && reactions_settled)
                && capture.waited_for_frame < MAX_WAIT_FRAMES =>
        {
            capture.waited_for_frame += 1;
        }
        Phase::Settling(0) => request_screenshot(&mut capture, &mut commands, &mut exit),
        Phase::Settling(n) => capture.phase = Phase::Settling(n - 1),
        Phase::Requested(waited) => {
            if waited > MAX_WAIT_FRAMES {
                return fail(&capture, &mut exit, "the screenshot never arrived".into());
            }
            capture.phase = Phase::Requested(waited + 1);
        }
        Phase::Saved => finish_screenshot(&mut capture, &mut exit),
        Phase::Measuring(0, started, t_started) => {
            print_measurement(&stats, &live, started, t_started);
            if let Some(warm) = capture.warmed_up {
                print_after_warmup(&Totals::of(&stats), &warm);
            }
            capture.phase = Phase::Done;
            exit.write(AppExit::Success);
        }
        Phase::Measuring(n, started, t_started) => {
            if capture
                .measure_frames
                .is_some_and(|all| all - n == WARMUP_FRAMES)
            {
                capture.warmed_up = Some(Totals::of(&stats));
            }
            capture.phase = Phase::Measuring(n - 1, started, t_started);
        }
        Phase::Done => {}
    }
}

/// The first frame: the solver settings and the stop asked for; interactive, stay paused
/// (a measurement plays); for a screenshot, run to the stop now and let frames settle.
fn start(
    capture: &mut CaptureMode,
    live: &mut Live,
    reached: &mut MessageWriter<SingularityReached>,
    exit: &mut MessageWriter<AppExit>,
) {
    if let Some(dt) = capture.dt {
        let settings = crate::solver::Settings {
            dt,
            ..live.session.settings().clone()
        };
        if let Err(e) = live.session.set_settings(settings) {
            return fail(capture, exit, e.to_string());
        }
    }
    if capture.records {
        capture.phase = Phase::Done;
        return;
    }
    apply_stop(live, capture.stop);
    if capture.screenshot.is_none() {
        // Interactive: open paused (Space plays) on the initial state, or at the stop asked
        // for, run to before the window shows; a measurement plays from the first frame,
        // through singular events (an auto-pause would count paused frames in the achieved
        // speed).
        if capture.measure_frames.is_some() {
            live.session.auto_pause = false;
            live.session.set_stop_time(None);
            live.session.play();
        } else if capture.stop != ViewStop::Never {
            open_at_stop(capture.stop, live, reached);
        }
        capture.phase = match capture.measure_frames {
            Some(n) => Phase::Measuring(n, Instant::now(), live.session.time()),
            None => Phase::Done,
        };
        return;
    }
    let session = &mut live.session;
    if capture.stop != ViewStop::Never {
        session.run_until_paused(MAX_STEPS);
    }
    // The panel shows the app's default again: a `--time` run only passed the events
    // on its way.
    session.auto_pause = true;
    if let Err(message) = check_stop_reached(capture.stop, live, reached) {
        return fail(capture, exit, message);
    }
    capture.phase = Phase::Settling(capture.after_frames);
}

/// An interactive window launched with `--time` or `--until-event` opens there, paused, with
/// the app's auto-pause and the stop at the scene's end (Space goes on); an event not reached
/// is said in a notice.
fn open_at_stop(stop: ViewStop, live: &mut Live, reached: &mut MessageWriter<SingularityReached>) {
    live.session.run_until_paused(MAX_STEPS);
    live.session.auto_pause = true;
    pause_at_scene_end(&mut live.session);
    if let Err(message) = check_stop_reached(stop, live, reached) {
        live.notice = Some(Notice::lasting(message, true));
    }
}

/// Where the session stops by itself: at its first singular event (by the scene's `t_end`),
/// or at a given time, passing the events on its way.
fn apply_stop(live: &mut Live, stop: ViewStop) {
    let session = &mut live.session;
    match stop {
        ViewStop::UntilEvent => {
            session.auto_pause = true;
            let t_end = session.scene().t_end;
            session.set_stop_time(Some(t_end));
        }
        ViewStop::Time(t) => {
            // Run to the requested time: pass singular events (they are still
            // recorded in the events panel) instead of pausing at them.
            session.auto_pause = false;
            session.set_stop_time(Some(t));
        }
        ViewStop::Never => {}
    }
}

/// After running to the stop: the event reached is announced (on stderr and as a message);
/// a solver failure, or no event before `t_end` when one was asked for, is the error.
fn check_stop_reached(
    stop: ViewStop,
    live: &Live,
    reached: &mut MessageWriter<SingularityReached>,
) -> Result<(), String> {
    let session = &live.session;
    match (stop, session.pause_reason().cloned()) {
        (_, Some(PauseReason::Failed(message))) => Err(format!(
            "the solver failed before the screenshot: {message}"
        )),
        (ViewStop::UntilEvent, Some(PauseReason::Event)) => {
            let event = session.current_event().expect("paused at an event");
            eprintln!(
                "singulab: singular event at t = {:.6} s, rank {} (deficiency {}), {} admissible motions",
                event.t,
                event.rank,
                event.deficiency,
                event.motion_count()
            );
            reached.write(SingularityReached {
                t: event.t,
                deficiency: event.deficiency,
                motions: event.motion_count(),
            });
            Ok(())
        }
        (ViewStop::UntilEvent, _) => Err(format!(
            "no singular event before t = {} s (the scene's t_end)",
            session.scene().t_end
        )),
        _ => Ok(()),
    }
}

/// The frames have settled: ask for the screenshot, saved to disk when it arrives.
fn request_screenshot(
    capture: &mut CaptureMode,
    commands: &mut Commands,
    exit: &mut MessageWriter<AppExit>,
) {
    let path = capture.screenshot.clone().expect("screenshot mode");
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(
            capture,
            exit,
            format!("cannot create {}: {e}", dir.display()),
        );
    }
    let _ = std::fs::remove_file(&path);
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut capture: ResMut<CaptureMode>| {
            let mut save = save_to_disk(path.clone());
            save(captured);
            capture.phase = Phase::Saved;
        },
    );
    capture.phase = Phase::Requested(0);
}

/// The screenshot was handed to the disk: exit 0 once the file is there, with an error if not.
fn finish_screenshot(capture: &mut CaptureMode, exit: &mut MessageWriter<AppExit>) {
    let path = capture.screenshot.clone().expect("screenshot mode");
    match std::fs::metadata(&path) {
        Ok(meta) if meta.len() > 0 => {
            eprintln!("singulab: screenshot saved to {}", path.display());
            capture.phase = Phase::Done;
            exit.write(AppExit::Success);
        }
        _ => fail(
            capture,
            exit,
            format!("the screenshot could not be written to {}", path.display()),
        ),
    }
}

/// `--measure-frames`: the CPU time per frame and the speed achieved since `started`.
fn print_measurement(stats: &FrameStats, live: &Live, started: Instant, t_started: f64) {
    let frames = stats.frames.max(1) as f64;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let wall = started.elapsed().as_secs_f64();
    let simulated = live.session.time() - t_started;
    let paused = match live.session.pause_reason() {
        Some(reason) if live.session.is_paused() => format!(", paused: {reason:?}"),
        _ => String::new(),
    };
    println!(
        "frames {}  solver {:.2} ms/frame (max {:.2})  ui+plots {:.2} ms/frame (max {:.2})  frame {:.1} ms  simulated {simulated:.3} s in {wall:.3} s of wall time: achieved speed {:.3}x of {}x{paused}",
        stats.frames,
        ms(stats.sim_total) / frames,
        ms(stats.sim_max),
        ms(stats.ui_total) / frames,
        ms(stats.ui_max),
        stats.frame_ms,
        simulated / wall.max(1e-9),
        live.session.speed(),
    );
}

/// The frame statistics' running totals at one frame.
#[derive(Clone, Copy, Debug)]
struct Totals {
    frames: u64,
    sim: std::time::Duration,
    ui: std::time::Duration,
}

impl Totals {
    fn of(stats: &FrameStats) -> Self {
        Self {
            frames: stats.frames,
            sim: stats.sim_total,
            ui: stats.ui_total,
        }
    }
}

/// `--measure-frames`' second line: the CPU time per frame over the frames after the
/// start-up's (`warm` is the totals at the end of the start-up).
fn print_after_warmup(end: &Totals, warm: &Totals) {
    let frames = end.frames.saturating_sub(warm.frames).max(1) as f64;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3 / frames;
    println!(
        "after the first {WARMUP_FRAMES} frames: frames {}  solver {:.2} ms/frame  ui+plots {:.2} ms/frame",
        end.frames.saturating_sub(warm.frames),
        ms(end.sim.saturating_sub(warm.sim)),
        ms(end.ui.saturating_sub(warm.ui)),
    );
}
