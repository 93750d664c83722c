//! The simulation plugin: the [`Live`] session as a resource, stepped from `FixedUpdate` by as
//! many solver steps as the requested speed needs within a per-frame wall-clock budget (not
//! while a recording captures: then the recorder steps it, a fixed simulated time a frame), the
//! user's [`AppCommand`]s applied to it, and solver events turned into Bevy messages.

use std::path::PathBuf;
use std::time::Duration;

use web_time::Instant;

use bevy::prelude::*;

use super::commands::AppCommand;
use super::cpu_clock::CpuClock;
use super::lesson::{advance_lesson, before_command, record_speed, save_lesson};
use super::shown::recorder_for;
pub use super::shown::{Live, Notice, modified_time, open_scene};
use super::{SingulabSystems, configure_sets};
use crate::live::{LiveSession, MarkKind, PauseReason, SPEEDS};
use crate::solver::SolverError;

/// Wall-clock time the solver may use per rendered frame, whatever the number of
/// `FixedUpdate` runs in it: half the recent frame time, at least `minimum` and at most
/// `MAX_BUDGET`. Slow frames (software rendering) leave the solver as large a share
/// of the wall clock as fast ones, so the requested speed holds whenever the solver alone
/// keeps up with half of it; a solver that cannot at most doubles the frame time.
#[derive(Resource, Clone, Debug)]
pub struct FrameBudget {
    pub minimum: Duration,
    pub budget: Duration,
    frame_start: Instant,
}

impl FrameBudget {
    pub fn new(budget: Duration) -> Self {
        Self {
            minimum: budget,
            budget,
            frame_start: Instant::now(),
        }
    }

    fn adapt(&mut self, frame_ms: f64) {
        let half = Duration::from_secs_f64((0.5 * frame_ms / 1e3).max(0.0));
        self.budget = half.clamp(self.minimum, MAX_BUDGET.max(self.minimum));
    }

    pub fn deadline(&self) -> Instant {
        self.frame_start + self.budget
    }
}

/// The solver's budget in the slowest frames: the window still answers four times a second.
const MAX_BUDGET: Duration = Duration::from_millis(250);

/// The longest frame whose whole wall-clock time the simulation catches up: longer than
/// software rendering's slowest frames, whose time Bevy's default (250 ms) would partly drop
/// (the run falling behind the requested speed with the solver idle).
const MAX_FRAME_CATCH_UP: Duration = Duration::from_secs(2);

impl Default for FrameBudget {
    fn default() -> Self {
        // Half a 60 Hz frame: the rest is for egui, plots and rendering.
        Self::new(Duration::from_millis(8))
    }
}

/// CPU time per frame spent stepping the solver and building the UI (plots included).
/// Wall-clock span over which the achieved speed is measured.
const ACHIEVED_WINDOW: Duration = Duration::from_secs(1);

#[derive(Resource, Clone, Debug, Default)]
pub struct FrameStats {
    pub sim_this_frame: Duration,
    pub ui_this_frame: Duration,
    /// Exponential averages (milliseconds) shown in the status line.
    pub sim_ms: f64,
    pub ui_ms: f64,
    pub frame_ms: f64,
    /// Totals over all frames, for `view --measure-frames`.
    pub frames: u64,
    pub sim_total: Duration,
    pub ui_total: Duration,
    pub sim_max: Duration,
    pub ui_max: Duration,
    last_frame: Option<Instant>,
    /// When `run` started, to report the time to the first frame once.
    pub launched: Option<Instant>,
    /// Simulated seconds per wall-clock second over the last second of running frames; NaN
    /// until a quarter of a second has run since the last pause.
    pub achieved_speed: f64,
    /// While the window is recorded (Ctrl+R) and runs: the speed of the video, set by the
    /// recorder on each frame it records.
    pub recording_speed: Option<f64>,
    /// Simulated time at the start of the last frame.
    sim_time_at_frame: Option<f64>,
    /// (wall clock, simulated time) at the frames of the last second of running.
    progress: std::collections::VecDeque<(Instant, f64)>,
}

impl FrameStats {
    /// Stats that will report the time from `launched` to the first frame.
    pub fn since(launched: Instant) -> Self {
        Self {
            launched: Some(launched),
            ..Self::default()
        }
    }

    fn roll_over(&mut self, now: Instant, sim_time: f64, paused: bool) {
        self.recording_speed = None;
        if let Some(last) = self.last_frame {
            let frame = now - last;
            // Simulated over wall-clock time across the last second of running frames: a
            // frame-to-frame average read 0.000x for a quarter of a second after resuming
            // (frames without a step) and 0.013x after a jump.
            if paused {
                self.progress.clear();
                self.achieved_speed = f64::NAN;
            } else {
                self.progress.push_back((now, sim_time));
                while self.progress.len() > 2
                    && now.duration_since(self.progress[0].0) > ACHIEVED_WINDOW
                {
                    self.progress.pop_front();
                }
                let (first, last) = (self.progress[0], self.progress[self.progress.len() - 1]);
                let wall = last.0.duration_since(first.0).as_secs_f64();
                self.achieved_speed = if wall >= 0.25 * ACHIEVED_WINDOW.as_secs_f64() {
                    (last.1 - first.1).max(0.0) / wall
                } else {
                    f64::NAN
                };
            }
            let ema = |avg: f64, sample: f64| {
                if avg == 0.0 {
                    sample
                } else {
                    0.95 * avg + 0.05 * sample
                }
            };
            self.frame_ms = ema(self.frame_ms, frame.as_secs_f64() * 1e3);
            self.sim_ms = ema(self.sim_ms, self.sim_this_frame.as_secs_f64() * 1e3);
            self.ui_ms = ema(self.ui_ms, self.ui_this_frame.as_secs_f64() * 1e3);
            self.frames += 1;
            self.sim_total += self.sim_this_frame;
            self.ui_total += self.ui_this_frame;
            self.sim_max = self.sim_max.max(self.sim_this_frame);
            self.ui_max = self.ui_max.max(self.ui_this_frame);
        }
        self.last_frame = Some(now);
        self.sim_time_at_frame = Some(sim_time);
        self.sim_this_frame = Duration::ZERO;
        self.ui_this_frame = Duration::ZERO;
    }
}

/// The session stopped at a singular configuration.
#[derive(Message, Clone, Debug)]
pub struct SingularityReached {
    pub t: f64,
    pub deficiency: usize,
    pub motions: usize,
}

/// A scene was (re)loaded.
#[derive(Message, Clone, Debug)]
pub struct SceneLoaded {
    pub path: PathBuf,
}

/// The solver failed; the session is paused with this message.
#[derive(Message, Clone, Debug)]
pub struct SolverFailed {
    pub message: String,
}

/// Steps the session in `FixedUpdate` and applies commands in `Update`. Needs a [`Live`]
/// resource; works with `MinimalPlugins` (no window) for tests.
pub struct SimulationPlugin;

/// The fixed-step system that steps the session by the wall clock: a recording that captures
/// frames at a fixed simulated time each turns it off (`RecordPlugin`).
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WallClockStepping;

impl Plugin for SimulationPlugin {
    fn build(&self, app: &mut App) {
        configure_sets(app);
        app.add_message::<AppCommand>()
            .add_message::<SingularityReached>()
            .add_message::<SceneLoaded>()
            .add_message::<SolverFailed>()
            .init_resource::<FrameBudget>()
            .init_resource::<FrameStats>()
            .insert_resource(Time::<Fixed>::from_hz(60.0))
            .insert_resource(Time::<Virtual>::from_max_delta(MAX_FRAME_CATCH_UP))
            .add_systems(First, start_frame)
            .add_systems(FixedUpdate, advance_session.in_set(WallClockStepping))
            .add_systems(Update, apply_commands.in_set(SingulabSystems::Commands))
            .add_systems(Update, retitle_window.after(SingulabSystems::Commands));
    }
}

/// The window's title names the scene open, not the first one.
fn retitle_window(
    mut loaded: MessageReader<SceneLoaded>,
    live: Res<Live>,
    mut windows: Query<&mut Window, With<bevy::window::PrimaryWindow>>,
) {
    if loaded.read().last().is_some() {
        for mut window in &mut windows {
            window.title = window_title(&live.session);
        }
    }
}

/// The window's title for `session`.
pub fn window_title(session: &LiveSession) -> String {
    format!("Singulab: {}", session.scene().title)
}

fn start_frame(
    mut budget: ResMut<FrameBudget>,
    mut stats: ResMut<FrameStats>,
    mut live: ResMut<Live>,
    time: Res<Time<Real>>,
) {
    let now = Instant::now();
    budget.frame_start = now;
    stats.roll_over(now, live.session.time(), live.session.is_paused());
    budget.adapt(stats.frame_ms);
    // Every frame, recording a video or not: the user's waits while paused go in the lesson.
    let Live {
        session, recorder, ..
    } = &mut *live;
    recorder.tick(session, time.delta_secs_f64());
}

fn advance_session(
    time: Res<Time>,
    budget: Res<FrameBudget>,
    mut live: ResMut<Live>,
    mut stats: ResMut<FrameStats>,
    mut reached: MessageWriter<SingularityReached>,
    mut failed: MessageWriter<SolverFailed>,
) {
    let start = CpuClock::start();
    let out = match advance_lesson(&mut live, time.delta_secs_f64(), budget.deadline()) {
        Some(out) => out,
        None if live.session.is_paused() => return,
        None => live
            .session
            .advance(time.delta_secs_f64(), budget.deadline()),
    };
    stats.sim_this_frame += start.elapsed();
    // A brief notice is about what came before the pause at a new singular configuration.
    if out.event
        && live.session.current_event().is_some()
        && live
            .notice
            .as_ref()
            .is_some_and(|n| n.shown_until.is_some())
    {
        live.notice = None;
    }
    report(
        &live.session,
        out.event,
        out.failed,
        &mut reached,
        &mut failed,
    );
}

/// Announces what a stepping did: the event reached, the failure.
pub(super) fn report(
    session: &LiveSession,
    event: bool,
    fail: bool,
    reached: &mut MessageWriter<SingularityReached>,
    failed: &mut MessageWriter<SolverFailed>,
) {
    if event && let Some(e) = session.current_event() {
        reached.write(SingularityReached {
            t: e.t,
            deficiency: e.deficiency,
            motions: e.motion_count(),
        });
    }
    if fail && let Some(PauseReason::Failed(message)) = session.pause_reason() {
        failed.write(SolverFailed {
            message: message.clone(),
        });
    }
}

fn speed_index(speed: f64) -> usize {
    SPEEDS
        .iter()
        .enumerate()
        .min_by(|a, b| {
            (a.1.log2() - speed.log2())
                .abs()
                .total_cmp(&(b.1.log2() - speed.log2()).abs())
        })
        .map_or(6, |(i, _)| i)
}

pub(super) fn apply_commands(
    mut commands: MessageReader<AppCommand>,
    sketcher: Option<Res<super::sketcher::state::Sketcher>>,
    mut live: ResMut<Live>,
    mut loaded: MessageWriter<SceneLoaded>,
    mut reached: MessageWriter<SingularityReached>,
    mut failed: MessageWriter<SolverFailed>,
) {
    let editing = sketcher.is_some_and(|s| s.active);
    for command in commands.read() {
        // In edit mode the session shows the sketch at rest: the sketcher plays it.
        if editing && moves_the_session(command) {
            continue;
        }
        if before_command(&mut live, command) {
            continue;
        }
        let result = apply_command(&mut live, command, &mut loaded, &mut reached, &mut failed);
        if let Err(error) = result {
            live.notice = Some(Notice::lasting(error.to_string(), true));
        }
    }
}

/// The commands that run or pose the session (ignored in edit mode).
fn moves_the_session(command: &AppCommand) -> bool {
    matches!(
        command,
        AppCommand::TogglePlay
            | AppCommand::SingleStep
            | AppCommand::Reset
            | AppCommand::Seek(_)
            | AppCommand::Undo
            | AppCommand::BeginDrag(_)
            | AppCommand::DragTo(_)
            | AppCommand::EndDrag
            | AppCommand::PoseAt(_)
            | AppCommand::Push { .. }
            | AppCommand::Leave { .. }
            | AppCommand::GotoEvent(_)
    )
}

/// Applies one command to the session; a solver error is the user's to see.
fn apply_command(
    live: &mut Live,
    command: &AppCommand,
    loaded: &mut MessageWriter<SceneLoaded>,
    reached: &mut MessageWriter<SingularityReached>,
    failed: &mut MessageWriter<SolverFailed>,
) -> Result<(), SolverError> {
    let session = &mut live.session;
    match command {
        AppCommand::TogglePlay => session.toggle(),
        AppCommand::SingleStep => {
            let out = session.single_step();
            report(session, out.event, out.failed, reached, failed);
        }
        AppCommand::Reset => {
            if let Some(path) = live.lesson.as_ref().map(|run| run.path.clone()) {
                // The lesson starts again, waiting for Space.
                live.load(&path);
                return Ok(());
            }
            session.reset()?;
            super::shown::pause_at_scene_end(session);
            live.recorder = recorder_for(&live.session);
            live.unrecorded = None;
        }
        AppCommand::SetSpeedIndex(i) => session.set_speed(SPEEDS[(*i).min(SPEEDS.len() - 1)]),
        AppCommand::ChangeSpeed(delta) => {
            let i = (speed_index(session.speed()) as i32 + delta).clamp(0, SPEEDS.len() as i32 - 1);
            session.set_speed(SPEEDS[i as usize]);
            record_speed(live);
        }
        AppCommand::SetSettings(settings) => return session.set_settings((**settings).clone()),
        AppCommand::SetAutoPause(on) => session.auto_pause = *on,
        AppCommand::OpenScene(path) => {
            if live.load(path) {
                loaded.write(SceneLoaded { path: path.clone() });
            }
        }
        AppCommand::ReloadScene => {
            let path = live.path.clone();
            if live.load(&path) {
                loaded.write(SceneLoaded { path });
            }
        }
        AppCommand::GotoEvent(index) => {
            // What was done last belongs to the run left behind; a viewer is told of the
            // jump back.
            let from = session.time();
            session.goto_event(*index)?;
            live.action = Some(
                Notice::action(crate::live::motions::jump_said(
                    from,
                    session.time(),
                    "the singular event at t =",
                ))
                .at(session.time()),
            );
        }
        AppCommand::Push {
            label,
            column,
            delta,
            duration,
            note,
        } => {
            let t = session.time();
            session.push_along(column, *delta, *duration)?;
            // The advice too, for a class that sees no notice: a push at speed along a new
            // motion usually leaves the mechanism on its branch.
            let advice = match note {
                Some(note) => {
                    live.notice = Some(Notice::brief(note.clone()));
                    " Admissible to first order only: a push small next to the motion leaves it on its branch."
                }
                None => "",
            };
            let said = crate::live::motions::push_said(label, *delta, *duration, t);
            live.action = Some(Notice::action(format!("{said}{advice}")).at(t));
        }
        AppCommand::Leave {
            label,
            direction,
            speed,
        } => {
            let t = session.time();
            session.leave_along(direction, *speed)?;
            let how = match speed {
                Some(speed) => format!(" at speed {speed:.2} (from rest)"),
                None => String::new(),
            };
            live.action =
                Some(Notice::action(crate::live::motions::leave_said(label, &how, t)).at(t));
        }
        AppCommand::SetTrace(point) => session.set_trace_point(*point),
        AppCommand::SetTracedPoints(points) => session.set_traced_points(points),
        AppCommand::ClearTrace => {
            let point = session.trace_point();
            session.set_trace_point(point);
            session.set_traced_points(&session.traced_points());
        }
        AppCommand::SaveLesson(path) => live.notice = Some(save_lesson(live, path)),
        AppCommand::Seek(t) => {
            let from = session.time();
            session.seek(*t)?;
            live.action = Some(
                Notice::action(crate::live::motions::jump_said(from, session.time(), "t ="))
                    .at(session.time()),
            );
        }
        AppCommand::Undo => {
            let undone = session.next_undo();
            let text = match undone {
                Some(mark) if session.undo()? => {
                    let what = match mark.kind {
                        MarkKind::Push => "the push",
                        MarkKind::Leave => "the leave",
                        MarkKind::Drag => "the drag",
                        MarkKind::Event => "the last action",
                    };
                    format!(
                        "Undid {what} at t = {:.4} s: back to the state before it.",
                        mark.t
                    )
                }
                _ => "Nothing to undo.".into(),
            };
            live.action = Some(Notice::action(text.clone()));
            live.notice = Some(Notice::brief(text));
        }
        AppCommand::BeginDrag(point) => return session.begin_drag(*point),
        AppCommand::DragTo(target) => {
            session.drag_to(*target)?;
        }
        AppCommand::EndDrag => session.end_drag(),
        AppCommand::PoseAt(x) => return session.pose_at(x),
        // Handled by the files, record and presentation plugins.
        AppCommand::SaveLessonDialog
        | AppCommand::OpenDialog
        | AppCommand::ExportCsvDialog
        | AppCommand::ExportCsvHere
        | AppCommand::SaveScreenshot
        | AppCommand::ToggleRecording
        | AppCommand::TogglePresentation
        | AppCommand::Sketch(_) => {}
        // The lesson's business (`before_command`).
        AppCommand::HoldLesson => {}
    }
    Ok(())
}
