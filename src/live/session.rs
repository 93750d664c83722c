//! The interactive simulation: a scene's `Simulation` advanced in real time at a requested
//! speed within a wall-clock budget, paused at singular events (state placed exactly at the
//! event) and on solver errors, with the state before the last step kept for interpolated
//! display, the plotted history, the motion trace, and pushes along admissible motions.
//! This file holds the session's state and its pacing (play, pause, advancing by the wall
//! clock or to a time, one step); each other job is a submodule: `events` (reaching a
//! singular event, the events list), `actions` (push, leave, go to an event), `sampling`
//! (the plotted history and the state a frame draws), `traces` (the motion traces),
//! `scrub` (the timeline: seek, marks, undo, on [`crate::live::timeline`]) and `grab` (the
//! drag gestures, on [`crate::live::drag`]).
//!
//! Bevy-free: the app wraps it in a resource; tests drive it directly.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use web_time::Instant;

use nalgebra::DVector;

use crate::live::drag::Drag;
use crate::live::history::{Extremes, History};
pub use crate::live::pause::PauseReason;
pub(crate) use crate::live::pause::{PausedRun, Push};
use crate::live::timeline::{CHECKPOINT_SPACING, Moment, TIMELINE_BUDGET, Timeline};
use crate::scene::Scene;
use crate::solver::{BranchSearch, Settings, Simulation, SingularEvent, SolverError, StepReport};

mod actions;
mod events;
mod grab;
mod sampling;
mod scrub;
mod traces;

pub use events::EVENT_CAPACITY;
pub use sampling::HISTORY_CAPACITY;

pub use traces::{PointTrace, TRACE_CAPACITY, TracePoint};

/// Speeds offered by the controls: 1/64x to 64x in factors of two.
pub const SPEEDS: [f64; 13] = [
    1.0 / 64.0,
    1.0 / 32.0,
    1.0 / 16.0,
    1.0 / 8.0,
    1.0 / 4.0,
    1.0 / 2.0,
    1.0,
    2.0,
    4.0,
    8.0,
    16.0,
    32.0,
    64.0,
];

/// What one call to [`LiveSession::advance`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Advance {
    pub steps: usize,
    /// The budget ran out before the requested time was reached.
    pub behind: bool,
    /// An event was reached during this call.
    pub event: bool,
    /// A solver error paused the session during this call.
    pub failed: bool,
}

/// Numbers the jumps of every session ([`LiveSession::jump_epoch`]).
static JUMPS: AtomicU64 = AtomicU64::new(0);

fn next_jump() -> u64 {
    JUMPS.fetch_add(1, Ordering::Relaxed) + 1
}

/// The running (or paused) interactive simulation of one scene.
#[derive(Clone, Debug)]
pub struct LiveSession {
    scene: Scene,
    sim: Simulation,
    /// Time and positions before the last step, for interpolated display.
    previous_t: f64,
    previous_x: DVector<f64>,
    /// Simulated time the display aims at, before and after the last advance.
    target_before: f64,
    target: f64,
    speed: f64,
    pause: Option<PauseReason>,
    /// Pause at singular events (the app's default; `view --until-event` relies on it).
    pub auto_pause: bool,
    stop_time: Option<f64>,
    events: Vec<SingularEvent>,
    /// The event whose state the simulation is at (cleared when it moves on).
    current_event: Option<usize>,
    /// The branches through the current event's configuration other than the continuation.
    branches: BranchSearch,
    history: History,
    /// Extremes of the plotted values over the steps since the last sample.
    extremes: Extremes,
    trace: VecDeque<[f64; 3]>,
    /// The simulated time of each point of `trace`.
    trace_times: VecDeque<f64>,
    trace_point: Option<TracePoint>,
    /// Points of rigid bodies traced besides `trace_point` (the scene's `traced_points` at
    /// the start).
    point_traces: Vec<PointTrace>,
    last_report: Option<StepReport>,
    behind: bool,
    /// Simulated time the last frame's [`LiveSession::advance`] achieved while behind (0
    /// otherwise): the sampling interval follows it, not the requested speed.
    behind_progress: f64,
    push: Option<Push>,
    paused_run: Option<PausedRun>,
    /// The run each event interrupted, for the latest [`KEPT_RUNS`] events paused at.
    event_runs: Vec<Option<PausedRun>>,
    steps_total: u64,
    /// Checkpoints, marks and undoable actions of the run (`timeline`).
    timeline: Timeline,
    /// The drag in progress.
    drag: Option<Drag>,
    /// Singular events the run reached by stepping (passed or paused at) up to the state
    /// shown, and the latest of them (at most `EVENT_CAPACITY`) with their ordinals (from 1):
    /// a seek or undo back to an earlier state brings the count back, and the log entries
    /// beyond it go when the run reaches new ones.
    events_reached: u64,
    reached_log: VecDeque<(u64, SingularEvent)>,
    /// See [`LiveSession::jump_epoch`].
    jump_epoch: u64,
}

impl LiveSession {
    /// Starts a paused session at the scene's initial state with the scene's settings.
    pub fn new(scene: Scene) -> Result<Self, SolverError> {
        let settings = scene.settings.clone();
        Self::with_settings(scene, settings)
    }

    /// Starts a paused session with other solver settings than the scene's.
    pub fn with_settings(scene: Scene, settings: Settings) -> Result<Self, SolverError> {
        let sim = scene.simulation_with(settings)?;
        let trace_point = scene
            .view
            .trace
            .as_deref()
            .and_then(|name| scene.mechanism.body_index(name))
            .map(TracePoint::centre);
        let start = Moment {
            checkpoint: sim.checkpoint(),
            push: None,
            event_t: None,
            pause: Some(PauseReason::User),
            stop_time: None,
            paused_run: None,
            events_reached: 0,
        };
        let mut session = Self {
            timeline: Timeline::new(start, CHECKPOINT_SPACING, TIMELINE_BUDGET),
            drag: None,
            previous_t: sim.time(),
            previous_x: sim.positions().clone(),
            target_before: sim.time(),
            target: sim.time(),
            speed: 1.0,
            pause: Some(PauseReason::User),
            auto_pause: true,
            stop_time: None,
            events: Vec::new(),
            current_event: None,
            branches: BranchSearch::default(),
            history: History::new(HISTORY_CAPACITY),
            extremes: Extremes::default(),
            trace: VecDeque::with_capacity(TRACE_CAPACITY),
            trace_times: VecDeque::with_capacity(TRACE_CAPACITY),
            trace_point,
            point_traces: scene
                .traced_points
                .iter()
                .filter(|(body, _)| *body < scene.mechanism.bodies().len())
                .map(|&(body, local)| PointTrace::new(body, local))
                .collect(),
            last_report: None,
            behind: false,
            behind_progress: 0.0,
            push: None,
            paused_run: None,
            event_runs: Vec::new(),
            steps_total: 0,
            events_reached: 0,
            reached_log: VecDeque::new(),
            jump_epoch: next_jump(),
            scene,
            sim,
        };
        session.record();
        Ok(session)
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed.clamp(SPEEDS[0], SPEEDS[SPEEDS.len() - 1]);
    }

    /// Whether the last advance ran out of budget before reaching the requested time.
    pub fn is_behind(&self) -> bool {
        self.behind
    }

    pub fn is_paused(&self) -> bool {
        self.pause.is_some()
    }

    pub fn pause_reason(&self) -> Option<&PauseReason> {
        self.pause.as_ref()
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Changes whenever the state shown jumps (a seek, going to an event, an undo; a reset
    /// starts a new session) and differs between sessions: a view drawn from the history (the
    /// plots' time axis) is set up again when it changes.
    pub fn jump_epoch(&self) -> u64 {
        self.jump_epoch
    }

    /// Marks a jump of the state shown.
    fn jumped(&mut self) {
        self.jump_epoch = next_jump();
    }

    pub fn last_report(&self) -> Option<&StepReport> {
        self.last_report.as_ref()
    }

    pub fn steps_total(&self) -> u64 {
        self.steps_total
    }

    /// The time the run has stepped to: at an event it paused at, the end of the step that
    /// found it (a step or two past the event), else the state's time.
    pub fn stepped_to(&self) -> f64 {
        let run = self.paused_run.as_ref().map(|run| run.sim.time());
        run.map_or(self.sim.time(), |t| t.max(self.sim.time()))
    }

    /// Whether a push is in progress (the dynamics use the detection tolerance as rank
    /// tolerance until it ends).
    pub fn is_pushing(&self) -> bool {
        self.push.is_some()
    }

    /// Stops at this simulated time (`view --time`), or never.
    pub fn set_stop_time(&mut self, t: Option<f64>) {
        if t != self.stop_time {
            self.commit_scrub();
            self.stop_time = t;
            // The replay lands its steps on the limit the run had.
            self.timeline.pin(self.moment());
        }
    }

    pub fn play(&mut self) {
        if matches!(self.pause, Some(PauseReason::Failed(_))) {
            return;
        }
        self.end_drag_if_posing();
        self.commit_scrub();
        if self.pause == Some(PauseReason::TimeReached) {
            self.stop_time = None;
            self.timeline.pin(self.moment());
        }
        self.pause = None;
        self.go_on_from_event();
        self.target = self.sim.time();
        self.target_before = self.target;
    }

    /// Back from the event state shown while paused to the run it interrupted, pausing again
    /// at the same step's next event if there is one.
    fn go_on_from_event(&mut self) {
        let Some(run) = self.paused_run.take() else {
            return;
        };
        self.sim = Simulation::clone(&run.sim);
        self.current_event = None;
        self.branches = BranchSearch::default();
        // Both changes of state are the session's: the replay cannot cross them.
        self.timeline.pin(self.moment());
        self.on_events(run.later_events, &mut Advance::default());
        if self.current_event.is_some() {
            self.timeline.pin(self.moment());
        }
        self.extend_trace(false);
        self.record_if_due();
    }

    pub fn pause(&mut self) {
        if self.pause.is_none() {
            self.pause = Some(PauseReason::User);
        }
        self.behind = false;
    }

    pub fn toggle(&mut self) {
        if self.is_paused() {
            self.play();
        } else {
            self.pause();
        }
    }

    /// Back to the scene's initial state, keeping the current settings, speed and trace point.
    pub fn reset(&mut self) -> Result<(), SolverError> {
        let settings = self
            .push
            .take()
            .map_or_else(|| self.sim.settings().clone(), |p| p.usual);
        let mut fresh = Self::with_settings(self.scene.clone(), settings)?;
        fresh.speed = self.speed;
        fresh.auto_pause = self.auto_pause;
        fresh.trace_point = self.trace_point;
        fresh.set_traced_points(&self.traced_points());
        *self = fresh;
        Ok(())
    }

    /// Solver settings in effect (during a push, the ones restored when it ends).
    pub fn settings(&self) -> &Settings {
        self.push.as_ref().map_or(self.sim.settings(), |p| &p.usual)
    }

    /// Changes solver settings between steps, from the current state.
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), SolverError> {
        self.end_drag_if_posing();
        self.commit_scrub();
        let changed = self.apply_settings(settings);
        self.timeline.pin(self.moment());
        changed
    }

    fn apply_settings(&mut self, settings: Settings) -> Result<(), SolverError> {
        self.paused_run = None;
        match &mut self.push {
            Some(push) => {
                self.sim.set_push_settings(&settings)?;
                push.usual = settings;
                Ok(())
            }
            None => self.sim.set_settings(settings),
        }
    }

    /// Advances by `wall_dt` seconds of wall time at the current speed, stopping when
    /// `deadline` passes (then the lag is dropped and [`Advance::behind`] is set).
    pub fn advance(&mut self, wall_dt: f64, deadline: Instant) -> Advance {
        self.advance_within(wall_dt, |_| Instant::now() >= deadline)
    }

    /// [`advance`](Self::advance) with a budget of `max_steps` solver steps instead of a
    /// wall-clock deadline: the same pacing on any machine, for tests.
    pub fn advance_steps(&mut self, wall_dt: f64, max_steps: usize) -> Advance {
        self.advance_within(wall_dt, |out| out.steps >= max_steps)
    }

    /// The pacing behind both: `spent` is asked before every step whether the budget is used.
    fn advance_within(&mut self, wall_dt: f64, spent: impl Fn(&Advance) -> bool) -> Advance {
        let mut out = Advance::default();
        if self.is_paused() {
            return out;
        }
        let t_start = self.sim.time();
        // Never aim behind the state: after a long pause or a budget overrun the display
        // continues from where the solver is.
        self.target_before = self.target.max(self.previous_t);
        self.target = self.target_before + wall_dt * self.speed;
        if let Some(stop) = self.stop_time {
            self.target = self.target.min(stop);
        }
        while self.sim.time() < self.target - 1e-12 {
            if spent(&out) {
                out.behind = true;
                self.target = self.sim.time();
                break;
            }
            self.step_once(&mut out);
            if self.is_paused() {
                break;
            }
        }
        if let Some(stop) = self.stop_time
            && !self.is_paused()
            && self.sim.time() >= stop - 1e-12
        {
            self.pause = Some(PauseReason::TimeReached);
        }
        self.behind = out.behind;
        self.behind_progress = match (out.behind, out.steps) {
            (false, _) => 0.0,
            // A further fixed update of a frame that already spent its budget: what the frame
            // achieved stays the measure (it reset the sampling to one every quarter second of
            // simulated time at 64x: 92 samples over 24 s of A02).
            (true, 0) => self.behind_progress,
            (true, _) => self.sim.time() - t_start,
        };
        out
    }

    /// Advances to the simulated time `t` (never past the stop time) with no wall-clock
    /// budget, at most `max_steps` solver steps, and aims the display exactly at `t`: a
    /// recording's frames, each at a fixed simulated time however slow the frame was. Stops
    /// early where the session pauses (an event with auto-pause, a failure).
    pub fn advance_to(&mut self, t: f64, max_steps: usize) -> Advance {
        let mut out = Advance::default();
        if self.is_paused() {
            return out;
        }
        let t = self.stop_time.map_or(t, |stop| t.min(stop));
        while self.sim.time() < t - 1e-12 && out.steps < max_steps && !self.is_paused() {
            self.step_once(&mut out);
        }
        if !self.is_paused() {
            if let Some(stop) = self.stop_time
                && self.sim.time() >= stop - 1e-12
            {
                self.pause = Some(PauseReason::TimeReached);
            }
            // The frame shows `t` whatever the interpolation fraction: the display
            // interpolates between `target_before` and `target`.
            let shown = t.min(self.sim.time());
            self.target_before = shown;
            self.target = shown;
        }
        self.behind = false;
        self.behind_progress = 0.0;
        out
    }

    /// Runs until the session pauses by itself (event, stop time, failure) or `max_steps`
    /// steps were taken, with no wall-clock budget: the screenshot mode and tests.
    pub fn run_until_paused(&mut self, max_steps: usize) -> Advance {
        let mut out = Advance::default();
        self.play();
        while !self.is_paused() && out.steps < max_steps {
            self.step_once(&mut out);
            if let Some(stop) = self.stop_time
                && !self.is_paused()
                && self.sim.time() >= stop - 1e-12
            {
                self.pause = Some(PauseReason::TimeReached);
            }
        }
        self.target = self.sim.time();
        self.target_before = self.target;
        out
    }

    /// One solver step while paused (the "step" control). Events and errors are handled as
    /// in running; the session stays paused.
    pub fn single_step(&mut self) -> Advance {
        let mut out = Advance::default();
        if matches!(self.pause, Some(PauseReason::Failed(_))) {
            return out;
        }
        self.end_drag_if_posing();
        self.commit_scrub();
        if self.paused_run.is_some() {
            self.go_on_from_event();
        } else {
            self.step_once(&mut out);
        }
        if self.pause.is_none() {
            self.pause = Some(PauseReason::User);
        }
        self.target = self.sim.time();
        self.target_before = self.target;
        out
    }

    fn step_once(&mut self, out: &mut Advance) {
        self.previous_t = self.sim.time();
        self.previous_x.copy_from(self.sim.positions());
        let limit = self.stop_time.unwrap_or(f64::INFINITY);
        if let Err(error) = self.pull_spring() {
            out.failed = true;
            self.fail(&error);
            return;
        }
        match self.sim.step_until(limit) {
            Ok(report) => {
                out.steps += 1;
                self.steps_total += 1;
                self.current_event = None;
                self.branches = BranchSearch::default();
                // The session keeps its events: the copies are the step's only allocations.
                let located = self.sim.step_events().to_vec();
                self.last_report = Some(report);
                let push_ended = self.end_push_if_due();
                self.on_events(located, out);
                let due = self.timeline.count_step();
                if push_ended || self.current_event.is_some() {
                    // Changed by the session after the step: the replay cannot cross it.
                    self.timeline.pin(self.moment());
                } else if due {
                    self.timeline.keep(self.moment());
                }
                self.extend_trace(false);
                self.record_if_due();
            }
            Err(error) => {
                out.failed = true;
                self.fail(&error);
            }
        }
    }

    /// Pauses with `error`'s message, located in the scene file where something in it is at
    /// fault (a joint, a body, a setting).
    fn fail(&mut self, error: &SolverError) {
        let message = self
            .scene
            .locate_failure(error)
            .map_or_else(|| error.to_string(), |located| located.to_string());
        self.pause = Some(PauseReason::Failed(message));
    }
}
