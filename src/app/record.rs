//! Recording: `singulab record` and, in the app, the Record button (Ctrl+R).
//!
//! While a recording captures, the wall clock no longer steps the session (the simulation
//! plugin's fixed-update stepping is off): each frame the recorder advances the session to
//! the instant its [`FrameClock`] gives that frame ([`LiveSession::advance_to`], no budget),
//! the frame is drawn as usual (overlays, plots), and a screenshot of it goes to the encoder
//! thread ([`super::record_encode`]). So the video plays at the recorded speed however slow
//! the frames were. In the app, a paused stretch follows the wall clock instead (what the user
//! does while paused takes as long in the video as it did), at most one capture per frame
//! standing for as many video frames as the time since the last one calls for.
//!
//! `singulab record` lets [`SETTLE_FRAMES`] frames render first (fonts, the fitted view),
//! then records from the scene's start, passing singular events, to `t_end`, and exits once
//! the last frame is written. A lesson player can drive a recording: [`Recorder::next_frame`]
//! tells a system in [`SingulabSystems::Input`] which instant the coming frame shows; the
//! [`AppCommand`]s it sends are applied before the frame advances (`record_with` adds its
//! plugin).

use std::path::PathBuf;
use web_time::Instant;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

use super::SingulabSystems;
use super::capture::CaptureMode;
use super::commands::AppCommand;
use super::drawing::ViewState;
use super::files::TakenFileNames;
use super::record_encode::{CapturedFrame, EncodeSummary, Encoder, MP4_LAST_HOLD};
use super::simulation::{
    FrameStats, Live, Notice, SingularityReached, SolverFailed, WallClockStepping, report,
};
use super::window_layout::WindowLayout;
use crate::lesson::video::lesson_frame;
use crate::live::PauseReason;
use crate::live::recording::{
    FrameClock, OutputKind, RecordPlan, ffmpeg_on_path, frame_count, prepare_output,
};

/// Frames drawn before `singulab record`'s first (fonts loaded, the view fitted).
pub const SETTLE_FRAMES: u32 = 5;
/// Solver steps one frame may take (a frame at 64x on a small `dt`).
const MAX_STEPS_PER_FRAME: usize = 20_000_000;
/// Frames to wait for the last screenshots before giving up on them.
const MAX_WAIT_FRAMES: u32 = 600;
/// Frames per second of the app's own recordings (lighter than 60 on the window's frames).
const APP_FPS: u32 = 30;

/// The frame about to be drawn: its index among the video frames and the simulated time it
/// shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameTick {
    pub frame: u64,
    pub t: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Settling(u32),
    Capturing,
    /// No more frames: waiting for the screenshots asked for (frames waited).
    Draining(u32),
}

/// A recording in progress.
struct Recording {
    plan: RecordPlan,
    clock: FrameClock,
    phase: Phase,
    /// Video frames asked for (the next frame's index on the clock).
    video_frames: u64,
    requested: u64,
    captured: u64,
    encoder: Encoder,
    /// The session ran at the last frame (a resume starts a new segment of the clock).
    was_running: bool,
    /// In the app, while paused: since when, and the video frames that stretch gave.
    paused: Option<(Instant, u64)>,
    /// In the app, while paused: the pose and the view's choices of the last frame, and the
    /// video frames given since either last changed (an idle pause is cut to
    /// [`IDLE_SECONDS`]).
    still: Option<(nalgebra::DVector<f64>, u64, u64)>,
    /// The view's choices this frame ([`ViewState::picture_key`]).
    picture: u64,
    /// `singulab record`: the simulated time of the last frame.
    t_last: Option<f64>,
    /// In the app, the part of the window recorded: the canvas under the banner, in
    /// physical pixels (the panels, the transport bar and the Stop button are not the
    /// students' picture).
    crop: Option<[u32; 4]>,
    /// A frame that could not be read or handed over.
    error: Option<String>,
    /// The simulated time of the first frame.
    t_first: Option<f64>,
}

/// The recording in progress, if any, and `singulab record`'s plan.
#[derive(Resource, Default)]
pub struct Recorder {
    command_line: Option<RecordPlan>,
    active: Option<Recording>,
}

impl Recorder {
    /// `singulab record`: records `plan` (its `t_end` set) once the window has settled.
    pub fn for_command_line(plan: RecordPlan) -> Self {
        Self {
            command_line: Some(plan),
            active: None,
        }
    }

    /// Frames are being captured (the wall clock does not step the session).
    pub fn is_capturing(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(|r| r.phase == Phase::Capturing)
    }

    /// The coming frame while capturing: a script player applies what is due by `t`.
    pub fn next_frame(&self) -> Option<FrameTick> {
        let recording = self.active.as_ref()?;
        (recording.phase == Phase::Capturing).then(|| FrameTick {
            frame: recording.video_frames,
            t: recording.clock.time_of(recording.video_frames),
        })
    }

    /// `singulab record` has taken its last frame: the picture says the video ends (a
    /// lesson's last caption may still be up at `t_end`, under its last event's banner).
    pub fn video_end(&self) -> Option<VideoEnd> {
        let r = self.active.as_ref()?;
        let ended = !r.interactive() && r.error.is_none() && matches!(r.phase, Phase::Draining(_));
        ended.then_some(match r.plan.t_end {
            Some(_) => VideoEnd::AtTimeAsked,
            None => VideoEnd::AtScenesEnd,
        })
    }

    /// `singulab record`, which drives the window by itself (no Record button).
    pub fn is_command_line(&self) -> bool {
        self.command_line.is_some() || self.active.as_ref().is_some_and(|r| !r.interactive())
    }

    /// The file being written and the seconds of video so far, for the Record button.
    pub fn status(&self) -> Option<(PathBuf, f64)> {
        let r = self.active.as_ref()?;
        Some((
            r.plan.out.clone(),
            r.video_frames as f64 / f64::from(r.plan.fps),
        ))
    }
}

/// Where a video made by `singulab record` ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VideoEnd {
    /// At the scene's or the lesson's `t_end`.
    AtScenesEnd,
    /// At the `--t-end` asked for.
    AtTimeAsked,
}

/// Whether the wall clock steps the session (not while a recording captures).
fn steps_by_wall_clock(recorder: Option<Res<Recorder>>) -> bool {
    recorder.is_none_or(|r| !r.is_capturing())
}

pub struct RecordPlugin;

impl Plugin for RecordPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Recorder>()
            .init_resource::<TakenFileNames>()
            .configure_sets(FixedUpdate, WallClockStepping.run_if(steps_by_wall_clock))
            .add_systems(
                Update,
                (toggle_recording, drive)
                    .chain()
                    .in_set(SingulabSystems::Output),
            );
    }
}

/// The Record button and Ctrl+R: start a recording named uniquely in the working directory,
/// or stop the one in progress.
fn toggle_recording(
    mut reader: MessageReader<AppCommand>,
    mut recorder: ResMut<Recorder>,
    mut live: ResMut<Live>,
    mut taken: ResMut<TakenFileNames>,
) {
    for command in reader.read() {
        if !matches!(command, AppCommand::ToggleRecording) {
            continue;
        }
        match recorder.active.as_mut() {
            Some(recording) => {
                if recording.phase == Phase::Capturing {
                    recording.phase = Phase::Draining(0);
                }
            }
            None => match start_in_app(&live, &mut taken) {
                Ok(recording) => recorder.active = Some(recording),
                Err(error) => live.notice = Some(Notice::lasting(error, true)),
            },
        }
    }
}

/// An MP4 where ffmpeg runs, else a folder of PNG frames (the notice at the end says why).
fn start_in_app(live: &Live, taken: &mut TakenFileNames) -> Result<Recording, String> {
    if cfg!(target_arch = "wasm32") {
        return Err(
            "Recording is done by the desktop app (Ctrl+R there, or `singulab record` for a \
             lesson's video): a browser page cannot write the frames."
                .into(),
        );
    }
    let stem = format!("singulab_{}_recording", super::files::stem(&live.path));
    let kind = if ffmpeg_on_path() {
        OutputKind::Mp4
    } else {
        OutputKind::PngFolder
    };
    let extension = (kind == OutputKind::Mp4).then_some("mp4");
    let folder = super::video_folder::ensure_video_folder()?;
    let out = taken.0.unique(&folder, &stem, extension);
    let plan = RecordPlan {
        out,
        kind,
        fps: APP_FPS,
        speed: live.session.speed(),
        t_end: None,
    };
    prepare_output(&plan)?;
    let clock = FrameClock::new(live.session.time(), plan.speed, f64::from(plan.fps));
    Ok(Recording::new(plan, clock, Phase::Capturing, None))
}

impl Recording {
    fn new(plan: RecordPlan, clock: FrameClock, phase: Phase, t_last: Option<f64>) -> Self {
        let expected = t_last
            .map(|t_last| frame_count(clock.time_of(0), t_last, plan.speed, f64::from(plan.fps)));
        Self {
            encoder: Encoder::start(&plan, expected),
            plan,
            clock,
            phase,
            video_frames: 0,
            requested: 0,
            captured: 0,
            was_running: false,
            paused: None,
            still: None,
            picture: 0,
            t_last,
            crop: None,
            error: None,
            t_first: None,
        }
    }

    fn interactive(&self) -> bool {
        self.t_last.is_none()
    }
}

/// The messages a frame's stepping may send, and the speed the status line shows.
#[derive(bevy::ecs::system::SystemParam)]
struct Outcomes<'w> {
    reached: MessageWriter<'w, SingularityReached>,
    failed: MessageWriter<'w, SolverFailed>,
    exit: MessageWriter<'w, AppExit>,
    stats: ResMut<'w, FrameStats>,
}

/// One frame of the recording: start it (`singulab record`), capture, or finish.
fn drive(
    mut recorder: ResMut<Recorder>,
    mut live: ResMut<Live>,
    view: Option<Res<ViewState>>,
    layout: Option<Res<WindowLayout>>,
    capture: Res<CaptureMode>,
    mut commands: Commands,
    mut out: Outcomes,
) {
    if recorder.active.is_none()
        && let Some(plan) = recorder.command_line.take()
    {
        recorder.active = Some(start_command_line(plan, &mut live));
    }
    let Some(recording) = recorder.active.as_mut() else {
        return;
    };
    if recording.interactive() {
        recording.crop = layout.as_ref().and_then(|layout| layout.canvas_area);
        recording.picture = view.as_ref().map_or(0, |view| view.picture_key());
    }
    match recording.phase {
        Phase::Settling(0) => {
            recording
                .clock
                .restart(0, live.session.time(), recording.plan.speed);
            match live.lesson.as_mut() {
                Some(run) => run.running = true,
                None => live.session.play(),
            }
            recording.phase = Phase::Capturing;
            capture_frame(recording, &mut live, &mut commands, &mut out);
        }
        Phase::Settling(n) => recording.phase = Phase::Settling(n - 1),
        Phase::Capturing => capture_frame(recording, &mut live, &mut commands, &mut out),
        Phase::Draining(waited) => {
            let arrived = recording.captured >= recording.requested;
            if arrived || waited > MAX_WAIT_FRAMES {
                let Some(recording) = recorder.active.take() else {
                    return;
                };
                finish(recording, &mut live, &capture, &mut out.exit);
            } else {
                recording.phase = Phase::Draining(waited + 1);
            }
        }
    }
}

/// `singulab record`: the session from its start, passing singular events, at the plan's
/// speed; frames up to the plan's `t_end`.
fn start_command_line(plan: RecordPlan, live: &mut Live) -> Recording {
    // A lesson plays from the first frame (its own pauses and speeds, `Phase::Settling(0)`),
    // a scene passes its singular events.
    let session = &mut live.session;
    session.auto_pause = session.auto_pause && live.lesson.is_some();
    if live.lesson.is_none() {
        session.set_speed(plan.speed);
    }
    let t0 = session.time();
    let t_end = plan.t_end.unwrap_or(session.scene().t_end);
    let clock = FrameClock::new(t0, plan.speed, f64::from(plan.fps));
    let count = frame_count(t0, t_end, plan.speed, f64::from(plan.fps));
    let t_last = clock.time_of(count.saturating_sub(1));
    Recording::new(plan, clock, Phase::Settling(SETTLE_FRAMES), Some(t_last))
}

/// Advances the session to the frame's instant (or lets a paused stretch follow the wall
/// clock) and asks for the frame's screenshot; after the last frame, drains.
fn capture_frame(
    recording: &mut Recording,
    live: &mut Live,
    commands: &mut Commands,
    out: &mut Outcomes,
) {
    if live.lesson.as_ref().is_some_and(|run| run.running) {
        return capture_lesson_frame(recording, live, commands, out);
    }
    let running = !live.session.is_paused();
    let (copies, shown) = if running {
        (1, Some(advance_running(recording, live, out)))
    } else if recording.interactive() {
        let copies = paused_copies(recording);
        (idle_cut(recording, live, copies), None)
    } else {
        (1, None)
    };
    recording.was_running = running;
    recording.t_first.get_or_insert(live.session.time());
    if copies > 0 {
        request(recording, commands, copies as u32);
    }
    let speed = recording.clock.speed();
    let last_reached = recording
        .t_last
        .zip(shown)
        .is_some_and(|(t_last, t)| t >= t_last - 1e-9 * speed);
    let failed = matches!(live.session.pause_reason(), Some(PauseReason::Failed(_)));
    if last_reached || (failed && !recording.interactive()) {
        recording.phase = Phase::Draining(0);
    }
}

/// A frame of a lesson that plays ([`lesson_frame`]): its player advances the session
/// (pausing, changing speed, acting at its times), each frame a fixed time of video; while it
/// runs, to the frame's instant on the clock, at the lesson's speed times `--speed`. A
/// recording of a lesson ends with the lesson or at `t_end`.
fn capture_lesson_frame(
    recording: &mut Recording,
    live: &mut Live,
    commands: &mut Commands,
    out: &mut Outcomes,
) {
    let frame = (recording.video_frames, recording.was_running);
    let plan_speed = recording.plan.speed;
    // `singulab record --speed` scales the lesson's own speeds; the app records what it shows.
    let scale = if recording.interactive() {
        1.0
    } else {
        plan_speed
    };
    let Live {
        session, lesson, ..
    } = live;
    let Some(run) = lesson.as_mut() else {
        return;
    };
    let clock = &mut recording.clock;
    let stepped = lesson_frame(
        &mut run.player,
        session,
        clock,
        frame,
        scale,
        MAX_STEPS_PER_FRAME,
    );
    let finished = run.player.is_finished();
    let shown = stepped.as_ref().ok().and_then(|f| f.shown);
    match stepped {
        Ok(stepped) => report(
            &live.session,
            stepped.advance.event,
            stepped.advance.failed,
            &mut out.reached,
            &mut out.failed,
        ),
        Err(error) => {
            recording.error.get_or_insert(error.to_string());
            recording.phase = Phase::Draining(0);
        }
    }
    if shown.is_some() {
        show_speed(recording, &mut out.stats);
    }
    recording.was_running = shown.is_some();
    recording.t_first.get_or_insert(live.session.time());
    request(recording, commands, 1);
    let past_end = recording
        .t_last
        .is_some_and(|t_last| live.session.time() >= t_last - 1e-9 * plan_speed);
    if (finished && live.session.is_paused()) || past_end {
        recording.phase = Phase::Draining(0);
    }
}

/// A running frame: a new segment of the clock where the session resumed (or, in the app,
/// its speed changed), then the session advanced to the frame's instant, which it returns.
fn advance_running(recording: &mut Recording, live: &mut Live, out: &mut Outcomes) -> f64 {
    let interactive = recording.interactive();
    let speed_changed = interactive && live.session.speed() != recording.clock.speed();
    if !recording.was_running || speed_changed {
        let speed = if interactive {
            live.session.speed()
        } else {
            recording.plan.speed
        };
        let (frame, t) = (recording.video_frames, live.session.time());
        recording.clock.restart(frame, t, speed);
    }
    let t = recording.clock.time_of(recording.video_frames);
    let stepped = live.session.advance_to(t, MAX_STEPS_PER_FRAME);
    let session = &live.session;
    report(
        session,
        stepped.event,
        stepped.failed,
        &mut out.reached,
        &mut out.failed,
    );
    show_speed(recording, &mut out.stats);
    recording.paused = None;
    recording.still = None;
    t
}

/// The speed the status line shows while recording: `singulab record`'s video shows the
/// speed it plays at as the speed achieved, whatever the wall clock did; a recording of the
/// window (Ctrl+R) shows both, the video's and the one the lecturer watches.
fn show_speed(recording: &Recording, stats: &mut FrameStats) {
    if recording.interactive() {
        stats.recording_speed = Some(recording.clock.speed());
    } else {
        stats.achieved_speed = recording.clock.speed();
    }
}

/// In the app while paused: the video frames the wall clock calls for since the last
/// capture (0: none this frame).
fn paused_copies(recording: &mut Recording) -> u64 {
    let fps = f64::from(recording.plan.fps);
    let (since, given) = *recording.paused.get_or_insert((Instant::now(), 0));
    let due = (since.elapsed().as_secs_f64() * fps).floor() as u64 + 1;
    let copies = due.saturating_sub(given);
    recording.paused = Some((since, given + copies));
    copies
}

/// Video seconds an idle pause of an interactive recording lasts at most: the time a user
/// spends choosing what to do next, with nothing moving, is not the students' time.
const IDLE_SECONDS: f64 = 1.0;

/// `copies` video frames of a paused stretch, fewer once neither the pose nor the view's
/// choices (the motion chosen, the motions drawn) have changed for [`IDLE_SECONDS`] of video:
/// a drag while paused is recorded in full, and so is each choice made before acting.
fn idle_cut(recording: &mut Recording, live: &Live, copies: u64) -> u64 {
    let x = live.session.simulation().positions();
    let picture = recording.picture;
    let given = match &recording.still {
        Some((pose, shown, given)) if pose == x && *shown == picture => *given,
        _ => 0,
    };
    let cap = (IDLE_SECONDS * f64::from(recording.plan.fps)).ceil() as u64;
    let copies = copies.min(cap.saturating_sub(given));
    recording.still = Some((x.clone(), picture, given + copies));
    copies
}

/// Asks for this frame's screenshot; it reaches the encoder when captured.
fn request(recording: &mut Recording, commands: &mut Commands, copies: u32) {
    let index = recording.requested;
    let crop = recording.crop;
    recording.requested += 1;
    recording.video_frames += u64::from(copies);
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut recorder: ResMut<Recorder>| {
            let Some(recording) = recorder.active.as_mut() else {
                return;
            };
            recording.captured += 1;
            let handed = frame_of(&captured.image, index, copies, crop).and_then(|frame| {
                recording
                    .encoder
                    .send(frame)
                    .map_err(|()| "the encoder stopped".to_string())
            });
            if let Err(error) = handed {
                recording.error.get_or_insert(error);
            }
        },
    );
}

/// A captured image as opaque RGBA rows (the alpha of a screenshot is not coverage: a GIF
/// would turn it into holes), cut to `crop` (x, y, width, height) where it lies inside.
fn frame_of(
    image: &Image,
    index: u64,
    copies: u32,
    crop: Option<[u32; 4]>,
) -> Result<CapturedFrame, String> {
    let dynamic = image
        .clone()
        .try_into_dynamic()
        .map_err(|e| format!("a captured frame could not be read: {e}"))?;
    let mut rgba = dynamic.to_rgba8();
    if let Some([x, y, w, h]) = crop
        && w > 0
        && h > 0
        && x + w <= rgba.width()
        && y + h <= rgba.height()
    {
        rgba = image::imageops::crop_imm(&rgba, x, y, w, h).to_image();
    }
    for pixel in rgba.pixels_mut() {
        pixel.0[3] = 255;
    }
    Ok(CapturedFrame {
        index,
        copies,
        width: rgba.width(),
        height: rgba.height(),
        rgba: rgba.into_raw(),
    })
}

/// The last frames are in: close the file; `singulab record` prints what it wrote and
/// exits, the app says it in a notice (after the last frame, so not in the video).
fn finish(
    recording: Recording,
    live: &mut Live,
    capture: &CaptureMode,
    exit: &mut MessageWriter<AppExit>,
) {
    let interactive = recording.interactive();
    let missing = recording.requested - recording.captured;
    let first_error = recording.error.clone();
    let mut plan = recording.plan.clone();
    if live.lesson.is_some() {
        // Its speed is the lesson's (at the end), times `--speed`: the clock's.
        plan.speed = recording.clock.speed();
    }
    let t_first = recording.t_first.unwrap_or(0.0);
    let solver_failure = match live.session.pause_reason() {
        Some(PauseReason::Failed(message)) => Some(message.clone()),
        _ => None,
    };
    let result = recording.encoder.finish().and_then(|summary| {
        match (
            first_error,
            missing,
            solver_failure.filter(|_| !interactive),
        ) {
            (Some(error), _, _) => Err(error),
            (None, 1.., _) => Err(format!("{missing} frames never arrived from the renderer")),
            (None, 0, Some(failure)) => Err(format!(
                "the solver failed at t = {:.6} s: {failure}; the frames before it are in {}",
                live.session.time(),
                plan.out.display()
            )),
            (None, 0, None) => Ok(summary),
        }
    });
    let text = match &result {
        Ok(summary) => describe(summary, &plan, t_first),
        Err(error) => format!("recording to {} failed: {error}", plan.out.display()),
    };
    match (interactive, result) {
        (true, Ok(_)) => live.notice = Some(Notice::brief(in_app_note(text, &plan))),
        (true, Err(_)) => live.notice = Some(Notice::lasting(text, true)),
        (false, Ok(_)) => {
            eprintln!("singulab: {text}");
            exit.write(AppExit::Success);
        }
        (false, Err(_)) => capture.fail_with(exit, text),
    }
}

fn describe(summary: &EncodeSummary, plan: &RecordPlan, t_first: f64) -> String {
    let seconds = summary.video_frames as f64 / f64::from(plan.fps);
    // The GIF's length differs by its hold (trial 14: 38.08 s said, 40.04 s played).
    let hold = match plan.kind {
        OutputKind::Gif => "; the GIF shows its last frame 2 s at least before it loops".into(),
        OutputKind::Mp4 => format!("; the MP4 holds its last frame {MP4_LAST_HOLD} s more",),
        OutputKind::PngFolder => String::new(),
    };
    format!(
        "recorded {} frames ({seconds:.3} s at {} fps, {}x{}, from t = {t_first:.4} s at {}x) to {}{hold}",
        summary.video_frames,
        plan.fps,
        summary.width,
        summary.height,
        crate::number_text::number_text(plan.speed),
        summary.out.display()
    )
}

/// Without ffmpeg the app wrote PNG frames: say how to make a video of them.
fn in_app_note(text: String, plan: &RecordPlan) -> String {
    match plan.kind {
        OutputKind::PngFolder => format!(
            "{text}. ffmpeg was not found, so these are PNG frames: `ffmpeg -framerate {} -i {}/frame_%05d.png -pix_fmt yuv420p video.mp4` makes a video of them.",
            plan.fps,
            plan.out.display()
        ),
        _ => text,
    }
}

/// The transport bar's Record button: the seconds of video so far while recording (none in
/// `singulab record`'s own frames).
pub(super) fn record_button(
    ui: &mut bevy_egui::egui::Ui,
    recorder: &Recorder,
    commands: &mut Vec<AppCommand>,
) {
    if recorder.is_command_line() {
        return;
    }
    ui.separator();
    let (label, hover) = match recorder.status() {
        Some((out, seconds)) => (
            format!("⏹ Stop recording ({seconds:.1} s)"),
            format!(
                "Recording to {} at a fixed simulated time per frame (Ctrl+R)",
                out.display()
            ),
        ),
        None => (
            "⏺ Record".to_string(),
            "Record the window to a video in the working directory, at a fixed simulated time \
             per frame (Ctrl+R)"
                .to_string(),
        ),
    };
    if ui.button(label).on_hover_text(hover).clicked() {
        commands.push(AppCommand::ToggleRecording);
    }
}
