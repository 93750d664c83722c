//! The singular events of a session: reaching one (pausing there, or passing it), the list
//! the panel shows (the run shown only: events of a future left behind are forgotten), and
//! the run each event interrupted, kept so that going back to it and playing goes on as the
//! run did.

use std::sync::Arc;

use super::{Advance, LiveSession};
use crate::live::pause::{PauseReason, PausedRun};
use crate::live::timeline::MarkKind;
use crate::solver::{SingularEvent, branches};

/// Singular events kept for the events panel (each holds a state and a basis); the oldest
/// are forgotten first, so a long run with auto-pause off stays bounded.
pub const EVENT_CAPACITY: usize = 500;

/// How many of the latest events the session paused at keep their [`PausedRun`], so that
/// going back to one and playing goes on as the run did (about 0.1 MB each at n = 30).
const KEPT_RUNS: usize = 64;

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

impl LiveSession {
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

    /// Takes a step's events in order until one pauses the session; the rest wait in the
    /// paused run.
    pub(super) fn on_events(&mut self, events: Vec<SingularEvent>, out: &mut Advance) {
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

    pub(super) fn on_event(&mut self, event: SingularEvent, out: &mut Advance) {
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
    pub(super) fn keep_run(&mut self, run: PausedRun) {
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
    pub(super) fn forget_events_after(&mut self, t: f64) {
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
    pub(super) fn remember(&mut self, event: SingularEvent) -> usize {
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
}
