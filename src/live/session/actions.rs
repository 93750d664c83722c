//! What the user does at a session's state: push along an admissible motion, leave a
//! singular event along a branch, go back (or forward) to an event of the list. Each is a
//! mark on the timeline that Undo takes back.

use nalgebra::DVector;

use super::{LiveSession, PauseReason, Push};
use crate::live::motions::push_direction;
use crate::live::timeline::MarkKind;
use crate::solver::{Branch, BranchSearch, SingularEvent, SolverError, branches};

/// The shortest push, in steps: a step never lands on a load's edge within 1e-9 of a step of
/// its time, so a shorter push would act on no step at all.
const SHORTEST_PUSH: f64 = 1e-6;

impl LiveSession {
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
    /// on (see [`crate::solver::Simulation::leave_along`]).
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
    pub(super) fn leave_from(
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
        self.jumped();
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

    /// Ends the push when its time is up; whether it did.
    pub(super) fn end_push_if_due(&mut self) -> bool {
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
}
