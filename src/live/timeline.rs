//! The run's timeline: checkpoints of the complete session state in a bounded buffer, the
//! marks shown on the scrubber (singular events and the user's pushes, leaves and drags), the
//! user's actions to undo, and the spring targets of running drags, so that any instant of the
//! run can be shown again exactly.
//!
//! # Exact replay
//!
//! The run is a sequence of steps counted from the start, and between two steps the session
//! may change the state by other means (showing an event's state when it pauses there and
//! going back to the step that located it when it plays on, a push starting or ending, a
//! leave, a drag, new settings or stop time, going to an event). Every such change is
//! followed by a
//! *pinned* checkpoint, and every `spacing` steps a plain one is taken. Between two
//! checkpoints the run is therefore plain solver steps (with the running drag's spring, whose
//! targets the timeline logs by step), and `Simulation` is deterministic: replaying them from
//! the earlier checkpoint gives the states the run had bit for bit. The state shown at time
//! `t` is the last state of the run, in run order, whose time is at most `t`: the replay starts
//! from the last checkpoint at or before `t` and stops before the first step that would pass
//! `t` or reach the next checkpoint (whose own state follows the session's change). So
//! between an event's time and the end of the step that located it, the event's state shows
//! (as it did when the run paused there), and a checkpoint taken while paused at an event
//! keeps the interrupted run, so that playing on from it after a seek, an undo or a "go to"
//! goes on as the run did.
//!
//! # Memory
//!
//! Each checkpoint is a clone of the simulation (`tests/alloc` measures their sizes); the
//! buffer keeps
//! their estimated total within `budget` bytes. When it is full, every other plain checkpoint
//! in the older half of the buffer goes (replays there get longer, up to `MAX_GAP` steps);
//! when no plain one can go, the oldest checkpoint goes and the timeline starts later. Pinned
//! checkpoints are never thinned: the replay could not cross the change they follow. A pause
//! at an event pins two (the event's state, which also keeps the interrupted run, and the run
//! going on). `tests/session/timeline.rs` checks that A02 pausing at every event over 12 s
//! stays within a small budget with the first event's state still exact.

use crate::live::pause::{PauseReason, PausedRun, Push};
use crate::solver::{Checkpoint, GrabPoint};
use nalgebra::DVector;
use std::sync::Arc;

/// What a mark on the timeline stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A singular event located by the run.
    Event,
    /// A push along an admissible motion.
    Push,
    /// Leaving a singular configuration along a branch.
    Leave,
    /// A drag (posing at rest, or the spring while running).
    Drag,
}

/// A mark on the scrubber: what happened, and when (simulated time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub t: f64,
    pub kind: MarkKind,
}

/// The spring of a running drag: the grabbed point, the target it is pulled to and the
/// spring's constants (see `live::drag`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spring {
    pub point: GrabPoint,
    pub target: [f64; 3],
    pub stiffness: f64,
    pub damping: f64,
}

/// The session's state at a checkpoint: the simulation and what the session keeps beside it.
#[derive(Clone, Debug)]
pub(crate) struct Moment {
    pub checkpoint: Checkpoint,
    pub push: Option<Push>,
    /// The time of the event the session was paused at.
    pub event_t: Option<f64>,
    pub pause: Option<PauseReason>,
    pub stop_time: Option<f64>,
    /// Paused at an event: the run it interrupted, which playing goes on from.
    pub paused_run: Option<PausedRun>,
    /// Singular events the run had reached by stepping up to this state.
    pub events_reached: u64,
}

impl Moment {
    /// Estimated memory held: the checkpoint, and the interrupted run's simulation (shared
    /// with the session's list, counted here as if it were not).
    fn bytes(&self) -> usize {
        self.checkpoint.bytes() + self.paused_run.as_ref().map_or(0, PausedRun::bytes)
    }
}

#[derive(Clone, Debug)]
struct Entry {
    id: u64,
    /// Steps of the run before this state.
    step: u64,
    pinned: bool,
    /// Shared: a copy of the session (a preview) does not copy the checkpoints.
    moment: Arc<Moment>,
}

/// A user action that can be undone: the checkpoint just before it and the marks before it.
#[derive(Clone, Debug)]
struct Action {
    before: u64,
    marks_before: usize,
}

/// Where a replay starts and how far it may go.
pub(crate) struct ReplayPlan<'a> {
    pub moment: &'a Moment,
    pub step: u64,
    /// The replay takes steps while the step count stays below this.
    pub end_step: u64,
    /// The checkpoint is the state the run was paused at an event with.
    pub exact_event: bool,
}

/// Steps between plain checkpoints: a seek replays at most this many until the buffer is
/// thinned, a few milliseconds on the shipped scenes.
pub const CHECKPOINT_SPACING: u64 = 50;
/// The memory the checkpoints may hold, bytes: about 470 of A02's, 23 s at dt 1e-3 before
/// the older half is thinned.
pub const TIMELINE_BUDGET: usize = 64 << 20;

/// Checkpoints further apart than this many steps are not thinned further.
const MAX_GAP: u64 = 4096;

/// The timeline of one session.
#[derive(Clone, Debug)]
pub struct Timeline {
    entries: Vec<Entry>,
    marks: Vec<Mark>,
    actions: Vec<Action>,
    /// `(step, spring)`: from that step on, the running drag's spring (or none).
    springs: Vec<(u64, Option<Spring>)>,
    /// Steps of the run so far (of the state the session is at, when scrubbing).
    step: u64,
    next_id: u64,
    spacing: u64,
    budget: usize,
    bytes: usize,
    /// While scrubbing: the run's latest state, and its step count.
    head: Option<(Moment, u64)>,
}

impl Timeline {
    /// Starts at `start` (pinned), taking a checkpoint every `spacing` steps within `budget`
    /// bytes.
    pub(crate) fn new(start: Moment, spacing: u64, budget: usize) -> Self {
        let mut timeline = Self {
            entries: Vec::new(),
            marks: Vec::new(),
            actions: Vec::new(),
            springs: Vec::new(),
            step: 0,
            next_id: 0,
            spacing: spacing.max(1),
            budget,
            bytes: 0,
            head: None,
        };
        timeline.pin(start);
        timeline
    }

    /// The marks in run order.
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The estimated memory held by the checkpoints, bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Keeps the checkpoints within `budget` bytes from now on (thinning them at once).
    pub fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
        self.fit_budget();
    }

    /// Number of checkpoints kept.
    pub fn checkpoints(&self) -> usize {
        self.entries.len()
    }

    /// The earliest time that can be shown again.
    pub fn start_time(&self) -> f64 {
        self.entries
            .first()
            .map_or(0.0, |e| e.moment.checkpoint.time())
    }

    /// Steps of the run to the state the session is at.
    pub(crate) fn step(&self) -> u64 {
        self.step
    }

    pub(crate) fn is_scrubbing(&self) -> bool {
        self.head.is_some()
    }

    pub(crate) fn head(&self) -> Option<&(Moment, u64)> {
        self.head.as_ref()
    }

    /// Keeps the run's latest state before the first seek away from it.
    pub(crate) fn keep_head(&mut self, moment: Moment) {
        if self.head.is_none() {
            self.head = Some((moment, self.step));
        }
    }

    /// Back at the run's latest state: its step count again.
    pub(crate) fn back_to_head(&mut self) {
        if let Some((_, step)) = self.head.take() {
            self.step = step;
        }
    }

    pub(crate) fn set_scrub_step(&mut self, step: u64) {
        self.step = step;
    }

    /// Counts a step of the run; whether a plain checkpoint is due after it.
    pub(crate) fn count_step(&mut self) -> bool {
        self.step += 1;
        let last = self.entries.last().map_or(0, |e| e.step);
        self.step - last >= self.spacing
    }

    /// A plain checkpoint of the run's state after a step.
    pub(crate) fn keep(&mut self, moment: Moment) {
        self.push(moment, false);
    }

    /// After the session changed the state by other means than a step.
    pub(crate) fn pin(&mut self, moment: Moment) {
        self.push(moment, true);
    }

    /// Before a user action: pins the state it started from (to undo it) and marks it.
    /// The action an undo would take back: its mark (kind and time).
    pub(crate) fn last_action(&self) -> Option<&Mark> {
        self.marks.get(self.actions.last()?.marks_before)
    }

    pub(crate) fn begin_action(&mut self, kind: MarkKind, before: Moment) {
        let t = before.checkpoint.time();
        self.pin(before);
        self.actions.push(Action {
            before: self.next_id - 1,
            marks_before: self.marks.len(),
        });
        self.marks.push(Mark { t, kind });
    }

    /// Takes back the action [`Self::begin_action`] began last, which could not be done: no
    /// undo entry and no mark are left for it (its pinned checkpoint is the state it left
    /// unchanged, and stays).
    pub(crate) fn cancel_action(&mut self) {
        if let Some(action) = self.actions.pop() {
            self.marks.truncate(action.marks_before);
        }
    }

    pub(crate) fn mark(&mut self, kind: MarkKind, t: f64) {
        self.marks.push(Mark { t, kind });
    }

    /// From the next step on, the running drag's spring is `spring`.
    pub(crate) fn set_spring(&mut self, spring: Option<Spring>) {
        if let Some(last) = self.springs.last_mut()
            && last.0 == self.step
        {
            last.1 = spring;
            return;
        }
        self.springs.push((self.step, spring));
    }

    /// The spring in force for the step taken after `step` steps.
    pub(crate) fn spring_at(&self, step: u64) -> Option<Spring> {
        let after = self.springs.partition_point(|(s, _)| *s <= step);
        after.checked_sub(1).and_then(|i| self.springs[i].1)
    }

    /// The checkpoint to replay from to show time `t` (the last one at or before it, in run
    /// order) and the step count the replay must stay below.
    pub(crate) fn plan(&self, t: f64) -> Option<ReplayPlan<'_>> {
        let run_end = self.head.as_ref().map_or(self.step, |(_, s)| *s);
        let index = self
            .entries
            .iter()
            .rposition(|e| e.moment.checkpoint.time() <= t)
            .unwrap_or(0);
        let entry = self.entries.get(index)?;
        let end_step = self.entries.get(index + 1).map_or(run_end + 1, |e| e.step);
        Some(ReplayPlan {
            moment: &entry.moment,
            step: entry.step,
            end_step,
            exact_event: false,
        })
    }

    /// The run goes on from the state at `step` (time `t`) shown by a seek, an undo or a
    /// jump: the checkpoints after it, the marks after `t`, the springs after it and the
    /// actions whose state before is gone are discarded.
    pub(crate) fn discard_after(&mut self, step: u64, t: f64, keep_entry: Option<u64>) {
        self.head = None;
        // The kept checkpoints are states the run had up to the one shown (none later in run
        // order, none later in time: a jump back before the timeline's start keeps none).
        let keep = |e: &Entry| match keep_entry {
            Some(id) => e.id <= id,
            None => e.step <= step && e.moment.checkpoint.time() <= t,
        };
        while self.entries.last().is_some_and(|e| !keep(e)) {
            let gone = self.entries.pop().expect("checked");
            self.bytes -= gone.moment.bytes();
        }
        let first = self.entries.first().map_or(0, |e| e.id);
        let last = self.entries.last().map_or(0, |e| e.id);
        self.actions
            .retain(|a| a.before >= first && a.before <= last);
        while self.marks.last().is_some_and(|m| m.t > t) {
            self.marks.pop();
        }
        self.springs.retain(|(s, _)| *s < step);
        self.step = step;
    }

    /// Takes the last action off the undo list: the state just before it (to restore) with
    /// its step count. `None` if there is none left.
    pub(crate) fn undo(&mut self) -> Option<(Moment, u64)> {
        let action = self.actions.pop()?;
        let entry = self.entries.iter().find(|e| e.id == action.before)?.clone();
        self.discard_after(entry.step, entry.moment.checkpoint.time(), Some(entry.id));
        self.marks.truncate(action.marks_before);
        Some((Arc::unwrap_or_clone(entry.moment), entry.step))
    }

    /// The checkpoint of the run paused at the event located at `t` in the pose `x`, if the
    /// timeline holds it.
    pub(crate) fn event_checkpoint(&self, t: f64, x: &DVector<f64>) -> Option<ReplayPlan<'_>> {
        let run_end = self.head.as_ref().map_or(self.step, |(_, s)| *s);
        // The event's pose too: a pose set by hand at the instant of an event the run met
        // (the configuration-space plot posing another singular point) has the same time.
        let index = self.entries.iter().rposition(|e| {
            e.moment.event_t == Some(t)
                && e.moment.checkpoint.time() == t
                && (e.moment.checkpoint.simulation().positions() - x).amax()
                    <= 1e-12 * (1.0 + x.amax())
        })?;
        let entry = &self.entries[index];
        let end_step = self.entries.get(index + 1).map_or(run_end + 1, |e| e.step);
        Some(ReplayPlan {
            moment: &entry.moment,
            step: entry.step,
            end_step,
            exact_event: true,
        })
    }

    pub(crate) fn can_undo(&self) -> bool {
        !self.actions.is_empty()
    }

    fn push(&mut self, moment: Moment, pinned: bool) {
        self.bytes += moment.bytes();
        self.entries.push(Entry {
            id: self.next_id,
            step: self.step,
            pinned,
            moment: Arc::new(moment),
        });
        self.next_id += 1;
        self.fit_budget();
    }

    fn fit_budget(&mut self) {
        while self.bytes > self.budget && self.entries.len() > 1 {
            if !self.thin() {
                self.drop_oldest();
            }
        }
    }

    /// Drops every other plain checkpoint in the older half where the gap it leaves stays
    /// within `MAX_GAP` steps; whether any went.
    fn thin(&mut self) -> bool {
        let half = self.entries.len() / 2;
        let mut dropped = false;
        let mut index = 1;
        while index < half.min(self.entries.len() - 1) {
            let (previous, next) = (&self.entries[index - 1], &self.entries[index + 1]);
            let entry = &self.entries[index];
            if !entry.pinned && next.step - previous.step <= MAX_GAP {
                self.bytes -= entry.moment.bytes();
                self.entries.remove(index);
                dropped = true;
            }
            index += 1;
        }
        dropped
    }

    fn drop_oldest(&mut self) {
        let gone = self.entries.remove(0);
        self.bytes -= gone.moment.bytes();
        let first = self.entries.first().map_or(u64::MAX, |e| e.id);
        self.actions.retain(|a| a.before >= first);
        let start = self.entries.first().map_or(0, |e| e.step);
        // The spring in force at the new start stays; the ones before it go.
        let keep_from = self
            .springs
            .partition_point(|(s, _)| *s <= start)
            .saturating_sub(1);
        self.springs.drain(..keep_from);
    }
}
