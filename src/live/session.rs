//! The interactive simulation: a scene's `Simulation` advanced in real time at a requested
//! speed within a wall-clock budget, paused at singular events (state placed exactly at the
//! event) and on solver errors, with the state before the last step kept for interpolated
//! display, the plotted history, the motion trace, and pushes along admissible motions.
//! Its timeline (seek, marks, undo, going to an event: `session/scrub.rs`, on
//! [`crate::live::timeline`]) and the drag gestures (`session/grab.rs`, on
//! [`crate::live::drag`]) are in the submodules.
//!
//! Bevy-free: the app wraps it in a resource; tests drive it directly.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use nalgebra::{DVector, Vector3};

use crate::live::drag::Drag;
use crate::live::history::{ChannelKind, Extremes, History};
use crate::live::motions::push_direction;
pub use crate::live::pause::PauseReason;
pub(crate) use crate::live::pause::{PausedRun, Push};
use crate::live::timeline::{CHECKPOINT_SPACING, MarkKind, Moment, TIMELINE_BUDGET, Timeline};
use crate::model::Mechanism;
use crate::scene::Scene;
use crate::solver::{
    BasisMode, Branch, BranchSearch, Settings, Simulation, SingularEvent, SolverError, StepReport,
    branches,
};

mod grab;
mod scrub;

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

/// Samples kept for the plots (per channel).
pub const HISTORY_CAPACITY: usize = 60_000;
/// The point that leaves the motion trace: a body and, for a bar, the fraction of its length
/// from its start end (0) through its centre (0.5) to its end (1). A point mass is its own
/// point and ignores `along`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    pub body: usize,
    pub along: f64,
}

impl TracePoint {
    /// The centre of mass of `body`.
    pub fn centre(body: usize) -> Self {
        Self { body, along: 0.5 }
    }

    /// Where the point is in the world for positions `x`.
    pub fn position(&self, mechanism: &Mechanism, x: &DVector<f64>) -> [f64; 3] {
        mechanism.point_along(self.body, self.along, x).into()
    }
}

/// A point fixed in a spatial rigid body whose path the 3D view traces: the body, the point in
/// body axes from its centre of mass, and the path so far.
#[derive(Clone, Debug, PartialEq)]
pub struct PointTrace {
    pub body: usize,
    pub local: Vector3<f64>,
    pub path: VecDeque<[f64; 3]>,
    /// The simulated time of each point of `path`.
    pub times: VecDeque<f64>,
}

impl PointTrace {
    fn new(body: usize, local: Vector3<f64>) -> Self {
        Self {
            body,
            local,
            path: VecDeque::with_capacity(TRACE_CAPACITY),
            times: VecDeque::with_capacity(TRACE_CAPACITY),
        }
    }
}

/// Appends `p` (at time `t`) to `path` if it has moved `spacing` from the path's last point
/// (or `always`), dropping the oldest point when the path is full.
fn extend_path(
    path: &mut VecDeque<[f64; 3]>,
    times: &mut VecDeque<f64>,
    (t, p): (f64, [f64; 3]),
    spacing: f64,
    always: bool,
) {
    let moved = path.back().is_none_or(|last| {
        let d2: f64 = last.iter().zip(&p).map(|(a, b)| (a - b) * (a - b)).sum();
        d2 >= spacing * spacing
    });
    if always || moved {
        if path.len() == TRACE_CAPACITY {
            path.pop_front();
            times.pop_front();
        }
        path.push_back(p);
        times.push_back(t);
    }
}

/// Drops the points of `path` later than `t`: the run goes on from there.
fn cut_path_after(path: &mut VecDeque<[f64; 3]>, times: &mut VecDeque<f64>, t: f64) {
    while times.back().is_some_and(|&last| last > t) {
        times.pop_back();
        path.pop_back();
    }
}

/// Between samples of the history, the trace takes a point whenever the traced point has
/// moved this fraction of the view's width (5 mm of A02's 5 m, under a pixel on screen).
const TRACE_SPACING: f64 = 1e-3;

/// The shortest push, in steps: a step never lands on a load's edge within 1e-9 of a step of
/// its time, so a shorter push would act on no step at all.
const SHORTEST_PUSH: f64 = 1e-6;

/// Points kept for the motion trace.
pub const TRACE_CAPACITY: usize = 12_000;
/// Singular events kept for the events panel (each holds a state and a basis); the oldest
/// are forgotten first, so a long run with auto-pause off stays bounded.
pub const EVENT_CAPACITY: usize = 500;
/// Plot samples per second of wall time at most (the sampling interval in simulated time
/// scales with the speed, so slow motion still gives smooth curves).
const SAMPLES_PER_WALL_SECOND: f64 = 240.0;
/// Plot and trace samples per frame while the solver cannot keep up with the speed (the
/// same 240 per second at 60 frames per second).
const SAMPLES_PER_FRAME: f64 = 4.0;

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

/// How many of the latest events the session paused at keep their [`PausedRun`], so that
/// going back to one and playing goes on as the run did (about 0.1 MB each at n = 30).
const KEPT_RUNS: usize = 64;

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

    pub fn trace(&self) -> &VecDeque<[f64; 3]> {
        &self.trace
    }

    /// Each trace as far as the state shown: the chosen point's, then the rigid bodies'
    /// traced points'. While the timeline is scrubbed back, the path the run took after the
    /// instant shown is left out, as the plots leave it out.
    pub fn shown_traces(&self) -> impl Iterator<Item = impl Iterator<Item = &[f64; 3]>> {
        let now = self.sim.time();
        std::iter::once((&self.trace, &self.trace_times))
            .chain(self.point_traces.iter().map(|t| (&t.path, &t.times)))
            .map(move |(path, times)| {
                path.iter()
                    .zip(times)
                    .take_while(move |(_, t)| **t <= now)
                    .map(|(p, _)| p)
            })
    }

    pub fn trace_point(&self) -> Option<TracePoint> {
        self.trace_point
    }

    /// Chooses the point that leaves the trace (clears the trace). A body index out of range
    /// turns the trace off; `along` is clamped to the bar.
    pub fn set_trace_point(&mut self, point: Option<TracePoint>) {
        let bodies = self.scene.mechanism.bodies().len();
        self.trace_point = point.filter(|p| p.body < bodies).map(|p| TracePoint {
            body: p.body,
            along: if p.along.is_finite() {
                p.along.clamp(0.0, 1.0)
            } else {
                0.5
            },
        });
        self.trace.clear();
        self.trace_times.clear();
    }

    /// The traced points of rigid bodies with their paths.
    pub fn point_traces(&self) -> &[PointTrace] {
        &self.point_traces
    }

    /// The traced points of rigid bodies: body and point in body axes.
    pub fn traced_points(&self) -> Vec<(usize, Vector3<f64>)> {
        self.point_traces
            .iter()
            .map(|t| (t.body, t.local))
            .collect()
    }

    /// Chooses the points of rigid bodies to trace (clears their paths; starts them at the
    /// current pose). Bodies out of range are left out.
    pub fn set_traced_points(&mut self, points: &[(usize, Vector3<f64>)]) {
        let bodies = self.scene.mechanism.bodies().len();
        self.point_traces = points
            .iter()
            .filter(|(body, _)| *body < bodies)
            .map(|&(body, local)| PointTrace::new(body, local))
            .collect();
        self.extend_point_traces(true);
    }

    pub fn last_report(&self) -> Option<&StepReport> {
        self.last_report.as_ref()
    }

    pub fn events(&self) -> &[SingularEvent] {
        &self.events
    }

    /// The event the state currently sits at, if any.
    pub fn current_event(&self) -> Option<&SingularEvent> {
        self.current_event.map(|i| &self.events[i])
    }

    /// Its index in [`LiveSession::events`].
    pub fn current_event_index(&self) -> Option<usize> {
        self.current_event
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

    /// How many singular events the run reached by stepping up to the state shown, each
    /// counted once (passed, or paused at and left): a seek, an undo or going to an event
    /// brings it back to the count the run had there (at an event, that event included).
    /// Lesson scripts wait for the k-th event with it.
    pub fn events_reached(&self) -> u64 {
        self.events_reached
    }

    /// The events reached since [`LiveSession::events_reached`] was `count`, in order (a
    /// step's, or the later events of a step that paused at one, taken when it plays on); the
    /// latest `EVENT_CAPACITY` at most.
    pub fn events_reached_since(&self, count: u64) -> impl Iterator<Item = &SingularEvent> {
        let now = self.events_reached;
        self.reached_log
            .iter()
            .filter(move |(ordinal, _)| *ordinal > count && *ordinal <= now)
            .map(|(_, event)| event)
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

    /// Takes a step's events in order until one pauses the session; the rest wait in the
    /// paused run.
    fn on_events(&mut self, events: Vec<SingularEvent>, out: &mut Advance) {
        let mut events = events.into_iter();
        while let Some(event) = events.next() {
            self.on_event(event, out);
            if let Some(run) = self.paused_run.as_mut() {
                run.later_events = events.collect();
                let run = run.clone();
                self.keep_run(run);
                return;
            }
        }
    }

    fn on_event(&mut self, event: SingularEvent, out: &mut Advance) {
        out.event = true;
        self.timeline.mark(MarkKind::Event, event.t);
        self.events_reached += 1;
        // Events of a run gone back from are not this run's.
        while self
            .reached_log
            .back()
            .is_some_and(|(ordinal, _)| *ordinal >= self.events_reached)
        {
            self.reached_log.pop_back();
        }
        if self.reached_log.len() == EVENT_CAPACITY {
            self.reached_log.pop_front();
        }
        self.reached_log
            .push_back((self.events_reached, event.clone()));
        if !self.auto_pause || self.push.is_some() {
            // Passing through (or pushing away from) a singularity: keep going, remember it.
            self.remember(event);
            return;
        }
        // Show the state exactly at the located minimum, as `run --events` reports it.
        let run = Arc::new(self.sim.clone());
        if let Err(error) = self.sim.set_event_state(&event) {
            self.fail(&error);
            return;
        }
        self.branches = branches(&self.scene.mechanism, &event);
        self.current_event = Some(self.remember(event));
        self.previous_t = self.sim.time();
        self.previous_x.copy_from(self.sim.positions());
        self.history.truncate_after(self.sim.time());
        self.cut_traces_after(self.sim.time());
        self.extremes.clear();
        self.record();
        self.pause = Some(PauseReason::Event);
        let run = PausedRun {
            sim: run,
            later_events: Vec::new(),
        };
        self.paused_run = Some(run.clone());
        self.keep_run(run);
    }

    /// Keeps the run the current event interrupted, forgetting the oldest beyond
    /// [`KEPT_RUNS`].
    fn keep_run(&mut self, run: PausedRun) {
        let Some(index) = self.current_event else {
            return;
        };
        self.event_runs[index] = Some(run);
        let kept: Vec<usize> = (0..self.event_runs.len())
            .filter(|&i| self.event_runs[i].is_some())
            .collect();
        if kept.len() > KEPT_RUNS {
            let oldest = kept
                .into_iter()
                .min_by(|&a, &b| self.events[a].t.total_cmp(&self.events[b].t));
            if let Some(oldest) = oldest {
                self.event_runs[oldest] = None;
            }
        }
    }

    /// Drops the events after `t` (and the runs they interrupted); the event the session is
    /// at stays current if it is kept.
    fn forget_events_after(&mut self, t: f64) {
        if self.events.iter().all(|e| e.t <= t) {
            return;
        }
        let kept: Vec<bool> = self.events.iter().map(|e| e.t <= t).collect();
        self.current_event = self
            .current_event
            .filter(|&i| kept[i])
            .map(|i| kept[..i].iter().filter(|&&k| k).count());
        let mut kept_runs = kept.iter();
        self.event_runs
            .retain(|_| kept_runs.next().copied().unwrap_or(false));
        self.events.retain(|e| e.t <= t);
    }

    /// Adds `event` to the list, or updates the entry it repeats (the run went back to an
    /// earlier event and passed this configuration again); returns its index.
    fn remember(&mut self, event: SingularEvent) -> usize {
        if let Some(index) = self
            .events
            .iter()
            .position(|e| same_configuration(e, &event))
        {
            self.events[index] = event;
            self.event_runs[index] = None;
            return index;
        }
        if self.events.len() == EVENT_CAPACITY {
            self.events.remove(0);
            self.event_runs.remove(0);
            self.current_event = self.current_event.and_then(|i| i.checked_sub(1));
        }
        self.events.push(event);
        self.event_runs.push(None);
        self.events.len() - 1
    }

    /// The branches through the configuration of the event the session is paused at, other
    /// than the continuation (empty elsewhere).
    pub fn branches(&self) -> &[Branch] {
        &self.branches.branches
    }

    /// Whether the branches through the current event form continuous families (not
    /// listed by [`LiveSession::branches`]).
    pub fn branch_families(&self) -> bool {
        self.branches.families
    }

    /// Sends the mechanism from the event it is paused at along `direction` (a branch or an
    /// admissible motion) with the event's kinetic energy, or at `speed` if given, and plays
    /// on (see [`Simulation::leave_along`]).
    pub fn leave_along(
        &mut self,
        direction: &DVector<f64>,
        speed: Option<f64>,
    ) -> Result<(), SolverError> {
        let Some(event) = self.current_event().cloned() else {
            return Err(SolverError::NotPausedAtEvent);
        };
        self.end_drag();
        self.commit_scrub();
        let before = self.moment();
        self.timeline.begin_action(MarkKind::Leave, before.clone());
        if let Err(error) = self.leave_from(&event, direction, speed) {
            // Nothing was left: no undo entry, no mark, the state as it was.
            self.timeline.cancel_action();
            self.restore_moment(&before, None, true)?;
            return Err(error);
        }
        self.previous_t = event.t;
        self.previous_x.copy_from(&event.x);
        self.current_event = None;
        self.branches = BranchSearch::default();
        self.history.truncate_after(event.t);
        self.cut_traces_after(event.t);
        self.extremes.clear();
        self.record();
        self.play();
        self.timeline.pin(self.moment());
        Ok(())
    }

    /// The leave itself, from the state before it: the push in progress ends.
    fn leave_from(
        &mut self,
        event: &SingularEvent,
        direction: &DVector<f64>,
        speed: Option<f64>,
    ) -> Result<(), SolverError> {
        self.paused_run = None;
        if let Some(push) = self.push.take() {
            self.sim.set_settings(push.usual)?;
            self.sim.clear_extra_loads();
        }
        self.sim.leave_along(event, direction, speed)
    }

    /// Returns to a recorded event's state (paused there), earlier or later than the current
    /// time. The list keeps the later events while the session stays there (it can go to
    /// them again), and drops them once the run goes on from here (`commit_scrub`):
    /// the list is always the run shown. The plotted history after an earlier event is
    /// dropped, and before a later one it breaks.
    pub fn goto_event(&mut self, index: usize) -> Result<(), SolverError> {
        let Some(event) = self.events.get(index).cloned() else {
            return Ok(());
        };
        self.end_drag();
        if self.seek_event(&event)? {
            return Ok(());
        }
        // Not a state the timeline kept (passed without pausing, or before its start): the
        // run goes on from the event's state, a new history from there.
        if let Some(before) = self.discard_after_time(event.t) {
            // The events the run reached before this one, and this one.
            self.events_reached = before + 1;
        }
        if let Some(push) = self.push.take() {
            self.sim.set_settings(push.usual)?;
            self.sim.clear_extra_loads();
        }
        self.sim.set_event_state(&event)?;
        // Playing on goes on as the run did, if that run is kept and its settings are still
        // the session's.
        self.paused_run = self.event_runs[index]
            .clone()
            .filter(|run| run.sim.settings() == self.sim.settings());
        self.branches = branches(&self.scene.mechanism, &event);
        self.current_event = Some(index);
        self.previous_t = self.sim.time();
        self.previous_x.copy_from(self.sim.positions());
        if self
            .history
            .last_time()
            .is_some_and(|last| last < self.sim.time())
        {
            // Forward: the time in between was not simulated on this run.
            self.history.break_at(self.sim.time());
        }
        self.history.truncate_after(self.sim.time());
        self.extremes.clear();
        // A jump on the timeline: the traces end at the event, as the run will go on from
        // there (a later event keeps them whole).
        self.cut_traces_after(self.sim.time());
        self.record();
        self.pause = Some(PauseReason::Event);
        self.timeline.pin(self.moment());
        Ok(())
    }

    /// Pushes the mechanism along an admissible motion `column`, taken as
    /// [`push_direction`] makes it (oriented along the motion's velocity, unit length in the
    /// mass metric): a generalized force `M u a` acts for `duration` seconds on the unit
    /// motion `u`, with `a = delta / duration`, so the velocity along it changes by about
    /// `delta` (sqrt(J): from rest along a free motion, kinetic energy `delta^2 / 2` J). A
    /// push shorter than `SHORTEST_PUSH` steps acts over that span with the same impulse: the
    /// steps land on no shorter one, and a shorter push's effect is its impulse.
    /// At an event the dynamics take the detection tolerance as rank tolerance while the push
    /// lasts, so they see the enlarged tangent space, then the usual
    /// tolerance comes back. Starts the simulation.
    pub fn push_along(
        &mut self,
        column: &DVector<f64>,
        delta: f64,
        duration: f64,
    ) -> Result<(), SolverError> {
        let mech = self.scene.mechanism.clone();
        if column.len() != mech.n()
            || !duration.is_finite()
            || duration <= 0.0
            || !delta.is_finite()
        {
            return Err(SolverError::InvalidPush);
        }
        if push_direction(&mech, self.sim.positions(), self.sim.velocities(), column).is_none() {
            return Err(SolverError::InvalidPush);
        }
        if matches!(self.pause, Some(PauseReason::Failed(_))) {
            return Ok(());
        }
        self.end_drag();
        self.commit_scrub();
        self.timeline.begin_action(MarkKind::Push, self.moment());
        self.paused_run = None;
        let usual = self.settings().clone();
        let t0 = self.sim.time();
        if self.push.is_none() {
            self.sim.set_push_settings(&usual)?;
            if let Some(event) = self.current_event().cloned() {
                self.sim.set_event_state(&event)?;
            }
        }
        let x = self.sim.positions();
        let Some(column) = push_direction(&mech, x, self.sim.velocities(), column) else {
            return Err(SolverError::InvalidPush);
        };
        let duration = duration.max(SHORTEST_PUSH * self.settings().dt);
        let a = delta / duration;
        let window = Some((t0, t0 + duration));
        for load in mech.push_loads(self.sim.positions(), &column, a, window) {
            self.sim.add_load(load)?;
        }
        self.push = Some(Push {
            end: t0 + duration,
            usual,
        });
        self.play();
        self.timeline.pin(self.moment());
        Ok(())
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

    /// Ends the push when its time is up; whether it did.
    fn end_push_if_due(&mut self) -> bool {
        let due = self
            .push
            .as_ref()
            .is_some_and(|push| self.sim.time() >= push.end - 1e-12);
        if due && let Some(push) = self.push.take() {
            self.sim.clear_extra_loads();
            if let Err(error) = self.sim.set_settings(push.usual) {
                self.fail(&error);
            }
            return true;
        }
        false
    }

    /// Positions to draw: between the state before the last step and the current one, at the
    /// display time `overstep` of the way through the last advance (0..1, from the app's fixed
    /// timestep). Paused sessions show the current state.
    pub fn display_positions(&self, overstep: f64, out: &mut DVector<f64>) {
        let current = self.sim.positions();
        if out.len() != current.len() {
            *out = current.clone();
        }
        let t_now = self.sim.time();
        let span = t_now - self.previous_t;
        if self.is_paused() || span <= 0.0 {
            out.copy_from(current);
            return;
        }
        let t_display =
            self.target_before + overstep.clamp(0.0, 1.0) * (self.target - self.target_before);
        let alpha = ((t_display - self.previous_t) / span).clamp(0.0, 1.0);
        for ((o, p), c) in out.iter_mut().zip(&self.previous_x).zip(current) {
            *o = p + alpha * (c - p);
        }
    }

    /// Display time matching [`LiveSession::display_positions`].
    pub fn display_time(&self, overstep: f64) -> f64 {
        if self.is_paused() {
            return self.sim.time();
        }
        let t = self.target_before + overstep.clamp(0.0, 1.0) * (self.target - self.target_before);
        t.clamp(self.previous_t, self.sim.time())
    }

    fn record_if_due(&mut self) {
        let extremes = &mut self.extremes;
        visit_plotted(
            &self.sim,
            self.last_report.as_ref(),
            |slot, kind, index, column, value| {
                extremes.observe(slot, kind, index, column, value);
            },
        );
        // At the requested speed, SAMPLES_PER_WALL_SECOND. When the solver falls behind (64x
        // requested, 4x achieved) that would be one sample every quarter second of simulated
        // time, and the trace a star of chords: then a few samples per frame of what the
        // last frame achieved.
        let mut interval = self.speed / SAMPLES_PER_WALL_SECOND;
        if self.behind_progress > 0.0 {
            interval = interval.min(self.behind_progress / SAMPLES_PER_FRAME);
        }
        let due = self
            .history
            .last_time()
            .is_none_or(|last| self.sim.time() - last >= interval - 1e-12);
        if due {
            self.record();
        }
    }

    /// Appends the current state to the history (with the extremes since the last sample)
    /// and the trace.
    fn record(&mut self) {
        self.record_history();
        self.extend_trace(true);
    }

    /// Appends the current state to the plotted history alone.
    fn record_history(&mut self) {
        let h = &mut self.history;
        let extremes = &self.extremes;
        h.begin(self.sim.time());
        visit_plotted(
            &self.sim,
            self.last_report.as_ref(),
            |slot, kind, index, column, value| {
                let (low, high) = extremes.range(slot, kind, index, column);
                h.set_with_range(kind, index, column, value, low, high);
            },
        );
        h.finish();
        self.extremes.clear();
    }

    /// Appends the traced point's position to the trace: always with `always`, otherwise
    /// when it has moved `TRACE_SPACING` of the view's width since the last point (so that a
    /// fast motion, or one the solver runs behind, still leaves a smooth curve).
    fn extend_trace(&mut self, always: bool) {
        self.extend_point_traces(always);
        let Some(point) = self.trace_point else {
            return;
        };
        let p = point.position(&self.scene.mechanism, self.sim.positions());
        let spacing = self.trace_spacing();
        let t = self.sim.time();
        extend_path(
            &mut self.trace,
            &mut self.trace_times,
            (t, p),
            spacing,
            always,
        );
    }

    /// The rigid bodies' traced points, as [`LiveSession::extend_trace`] the main one.
    fn extend_point_traces(&mut self, always: bool) {
        let spacing = self.trace_spacing();
        let (mech, x, t) = (&self.scene.mechanism, self.sim.positions(), self.sim.time());
        for trace in &mut self.point_traces {
            let p = mech.point_of_body(trace.body, &trace.local, x);
            let point = (t, [p.x, p.y, p.z]);
            extend_path(&mut trace.path, &mut trace.times, point, spacing, always);
        }
    }

    /// Cuts every trace at `t`, where the run goes on from.
    fn cut_traces_after(&mut self, t: f64) {
        cut_path_after(&mut self.trace, &mut self.trace_times, t);
        for trace in &mut self.point_traces {
            cut_path_after(&mut trace.path, &mut trace.times, t);
        }
    }

    fn trace_spacing(&self) -> f64 {
        TRACE_SPACING * self.scene.view.width.unwrap_or(1.0)
    }
}

/// Calls `f(slot, kind, index, column, value)` for every plotted value of the current state,
/// in the same order every time (`slot` counts the calls). `column` is the identity of the
/// continued basis' column behind a continued `q` or `qd` (when the basis shrinks, the
/// column left at an index can be another one, whose `q` started at its own event: the plot
/// breaks the line there); `None` for the others, whose index always means the same.
fn visit_plotted(
    sim: &Simulation,
    last_report: Option<&StepReport>,
    mut f: impl FnMut(usize, ChannelKind, usize, Option<u32>, f64),
) {
    let mut slot = 0;
    let mut emit = |kind, index, column, value| {
        f(slot, kind, index, column, value);
        slot += 1;
    };
    for (mode, qd_kind, q_kind) in [
        (
            BasisMode::Continued,
            ChannelKind::QdContinued,
            ChannelKind::QContinued,
        ),
        (
            BasisMode::Traditional,
            ChannelKind::QdTraditional,
            ChannelKind::QTraditional,
        ),
    ] {
        let basis = sim.basis(mode);
        let column = |k: usize| match mode {
            BasisMode::Continued => basis.labels().get(k).map(|label| label.id),
            BasisMode::Traditional => None,
        };
        for (k, v) in basis.qd().iter().enumerate() {
            emit(qd_kind, k, column(k), *v);
        }
        for (k, v) in basis.q().iter().enumerate() {
            emit(q_kind, k, column(k), *v);
        }
    }
    let qr = sim.factorization();
    let diag = sim.mechanism().n().min(sim.mechanism().m());
    let r00 = qr.r_diag_abs(0).max(f64::MIN_POSITIVE);
    for i in 0..diag {
        emit(ChannelKind::RDiagonal, i, None, qr.r_diag_abs(i) / r00);
    }
    emit(ChannelKind::Energy, 0, None, sim.energy());
    let residual = last_report.map_or(f64::NAN, |r| r.residual);
    emit(ChannelKind::Residual, 0, None, residual);
}

/// Two events this close in time (s) ...
const SAME_EVENT_TIME: f64 = 0.05;
/// ... and in every coordinate (m, rad) are the same singular configuration passed again: a
/// replay from an earlier event steps on another grid and locates the later ones again up to
/// 4e-3 s apart (the four-bar resting at its flat pose, where the minimum of `rho` is flat)
/// and 4e-4 apart in position (the 2x2 at dt 5e-3), while distinct configurations that close
/// in time are far apart in position (the 2x3's pair 2.6e-3 s apart: 1.8e-2).
const SAME_EVENT_POSITION: f64 = 1e-3;

/// Whether two events are the same configuration passed at the same time.
fn same_configuration(a: &SingularEvent, b: &SingularEvent) -> bool {
    (a.t - b.t).abs() <= SAME_EVENT_TIME
        && a.x.len() == b.x.len()
        && a.x
            .iter()
            .zip(&b.x)
            .all(|(p, q)| (p - q).abs() <= SAME_EVENT_POSITION)
}
