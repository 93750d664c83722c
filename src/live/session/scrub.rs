//! The session on its timeline ([`crate::live::timeline`]): seeking to an instant (paused,
//! showing the state the run had then, replayed exactly from the nearest checkpoint),
//! resuming from there (a new history: the later part is discarded), going to an event as a
//! jump on the timeline, and undoing the last push, leave or drag.

use super::{LiveSession, PauseReason};
use crate::live::timeline::{Mark, Moment, ReplayPlan, Timeline};
use crate::solver::{BranchSearch, Simulation, SingularEvent, SolverError, StepReport, branches};

/// A state replayed from a checkpoint.
struct Replayed {
    sim: Simulation,
    step: u64,
    /// Steps replayed from the checkpoint.
    steps: u64,
    /// Singular events the run had reached at the state replayed to, and how many of them
    /// the last step replayed located at `t` itself (going to an event there counts it once).
    events_reached: u64,
    events_at_end: u64,
    report: Option<StepReport>,
}

impl LiveSession {
    /// The timeline: checkpoints, marks, memory.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Singular events and user actions (pushes, leaves, drags) with their times, in run
    /// order.
    pub fn marks(&self) -> &[Mark] {
        self.timeline.marks()
    }

    /// The times the scrubber covers: from the earliest instant the timeline can show
    /// again to the run's latest state.
    pub fn timeline_span(&self) -> (f64, f64) {
        let end = self
            .timeline
            .head()
            .map_or(self.sim.time(), |(m, _)| m.checkpoint.time());
        (self.timeline.start_time(), end)
    }

    /// Whether the session shows an earlier instant of the run (after [`Self::seek`]);
    /// playing, stepping or acting from there starts a new history.
    pub fn is_scrubbing(&self) -> bool {
        self.timeline.is_scrubbing()
    }

    /// Keeps the checkpoints within `bytes` (the default is `TIMELINE_BUDGET`).
    pub fn set_timeline_budget(&mut self, bytes: usize) {
        self.timeline.set_budget(bytes);
    }

    /// Shows the instant `t` of the run, paused: the last state the run had at or before `t`
    /// (the run's latest state for `t` at or after it), bit for bit. The later part is kept
    /// until the run goes on from here.
    pub fn seek(&mut self, t: f64) -> Result<(), SolverError> {
        self.jumped();
        if t.is_nan() {
            return Ok(());
        }
        self.end_drag();
        if !self.timeline.is_scrubbing() {
            let head = self.moment();
            self.timeline.keep_head(head);
        }
        let head_time = self.timeline_span().1;
        if t >= head_time {
            let Some((head, _)) = self.timeline.head().cloned() else {
                return Ok(());
            };
            self.restore_moment(&head, None, true)?;
            self.timeline.back_to_head();
            return Ok(());
        }
        let Some(plan) = self.timeline.plan(t) else {
            return Ok(());
        };
        let moment = plan.moment.clone();
        let replayed = self.replay(&plan, t);
        let at_checkpoint = replayed.steps == 0;
        self.timeline.set_scrub_step(replayed.step);
        self.last_report = replayed.report.or(self.last_report.take());
        let events_reached = replayed.events_reached;
        self.restore_moment(&moment, Some(replayed.sim), at_checkpoint)?;
        self.events_reached = events_reached;
        Ok(())
    }

    /// Goes to `event` as a jump on the timeline when the timeline holds the state the run
    /// was paused at there; whether it did. The traces are cut at the event and the plots end
    /// there, as the run goes on from it.
    pub(super) fn seek_event(&mut self, event: &SingularEvent) -> Result<bool, SolverError> {
        let Some(plan) = self.timeline.event_checkpoint(event.t, &event.x) else {
            return Ok(false);
        };
        let (moment, step) = (plan.moment.clone(), plan.step);
        if !self.timeline.is_scrubbing() {
            let head = self.moment();
            self.timeline.keep_head(head);
        }
        self.timeline.set_scrub_step(step);
        self.restore_moment(&moment, None, true)?;
        self.end_plots_and_traces_here();
        Ok(true)
    }

    /// The plotted history and the traces end at the state shown, which is sampled (in place
    /// of the samples and points at its instant: a pose undone has the same time).
    fn end_plots_and_traces_here(&mut self) {
        let t = self.sim.time().next_down();
        self.history.truncate_after(t);
        self.cut_traces_after(t);
        self.extremes.clear();
        self.record();
    }

    /// Whether there is a push, leave or drag to undo.
    pub fn can_undo(&self) -> bool {
        self.timeline.can_undo()
    }

    /// What an undo would take back: the push, leave or drag and the time it was done.
    pub fn next_undo(&self) -> Option<Mark> {
        self.timeline.last_action().copied()
    }

    /// Undoes the last push, leave or drag (Ctrl+Z): back to the state just before it, bit
    /// for bit, paused, with everything after it discarded. False if there is none.
    pub fn undo(&mut self) -> Result<bool, SolverError> {
        self.jumped();
        self.end_drag();
        let Some((moment, _)) = self.timeline.undo() else {
            return Ok(false);
        };
        self.drag = None;
        // The events of the run undone are gone with it.
        self.forget_events_after(moment.checkpoint.time());
        self.restore_moment(&moment, None, true)?;
        self.let_go_of_ended_spring();
        self.end_plots_and_traces_here();
        Ok(true)
    }

    /// The session's state to keep with a checkpoint.
    pub(super) fn moment(&self) -> Moment {
        Moment {
            checkpoint: self.sim.checkpoint(),
            push: self.push.clone(),
            event_t: self.current_event().map(|e| e.t),
            pause: self.pause.clone(),
            stop_time: self.stop_time,
            paused_run: self.paused_run.clone(),
            events_reached: self.events_reached,
        }
    }

    /// The run goes on from the state shown (a play, step, push, leave, drag or change of
    /// settings): the events of a future left behind (after a seek, a go-to or an undo) are
    /// dropped from the list, and the instant shown by a seek becomes the run's latest
    /// state, a new history from here.
    pub(super) fn commit_scrub(&mut self) {
        let t = self.sim.time();
        self.forget_events_after(t);
        if !self.timeline.is_scrubbing() {
            return;
        }
        let step = self.timeline.step();
        self.timeline.discard_after(step, t, None);
        self.let_go_of_ended_spring();
        self.history.truncate_after(t);
        self.cut_traces_after(t);
        self.extremes.clear();
        self.record();
    }

    /// A state restored from the middle of a running drag, which has ended since: its
    /// spring force goes, from this step on.
    fn let_go_of_ended_spring(&mut self) {
        if self.drag.is_none() && self.timeline.spring_at(self.timeline.step()).is_some() {
            self.sim.clear_extra_loads();
            self.timeline.set_spring(None);
            self.timeline.pin(self.moment());
        }
    }

    /// Discards the run after time `t` (the state the run had there is where the timeline
    /// now ends); the caller then changes the state and pins it. Returns the singular events
    /// the run had reached before `t` (`None`: the timeline starts later).
    pub(super) fn discard_after_time(&mut self, t: f64) -> Option<u64> {
        let plan = self.timeline.plan(t)?;
        let replayed = self.replay(&plan, t);
        let reached = replayed.events_reached - replayed.events_at_end;
        self.timeline
            .discard_after(replayed.step, replayed.sim.time(), None);
        Some(reached)
    }

    /// Replays the run from `plan`'s checkpoint to the last state at or before `t` (see
    /// `timeline`). A step that fails ends the replay where it is.
    fn replay(&self, plan: &ReplayPlan<'_>, t: f64) -> Replayed {
        let mut sim = plan.moment.checkpoint.simulation().clone();
        let mut scratch = sim.clone();
        let limit = plan.moment.stop_time.unwrap_or(f64::INFINITY);
        let (mut step, mut steps, mut report) = (plan.step, 0, None);
        let (mut events_reached, mut events_at_end) = (plan.moment.events_reached, 0);
        while step + 1 < plan.end_step && !plan.exact_event {
            scratch.clone_from(&sim);
            if let Some(spring) = self.timeline.spring_at(step)
                && spring.apply(&mut scratch).is_err()
            {
                break;
            }
            let Ok(stepped) = scratch.step_until(limit) else {
                break;
            };
            if scratch.time() > t {
                break;
            }
            std::mem::swap(&mut sim, &mut scratch);
            step += 1;
            steps += 1;
            report = Some(stepped);
            // The run counted each step's events as it took it.
            let located = sim.step_events();
            events_reached += located.len() as u64;
            events_at_end = located.iter().filter(|e| e.t >= t).count() as u64;
        }
        Replayed {
            sim,
            step,
            steps,
            events_reached,
            events_at_end,
            report,
        }
    }

    /// Puts the session in `moment`'s state (with `sim` instead of its checkpoint's, when
    /// replayed), paused; at the checkpoint itself (`exact`) paused at its event if it was.
    pub(super) fn restore_moment(
        &mut self,
        moment: &Moment,
        sim: Option<Simulation>,
        exact: bool,
    ) -> Result<(), SolverError> {
        match sim {
            Some(sim) => self.sim = sim,
            None => self.sim.restore(&moment.checkpoint)?,
        }
        self.push = moment.push.clone();
        self.stop_time = moment.stop_time;
        self.events_reached = moment.events_reached;
        // At an event's checkpoint, playing goes on as the run did.
        self.paused_run = moment.paused_run.clone().filter(|_| exact);
        self.current_event = if exact {
            moment
                .event_t
                .and_then(|t| self.events.iter().position(|e| e.t == t))
        } else {
            None
        };
        self.branches = match self.current_event() {
            Some(event) => branches(&self.scene.mechanism, event),
            None => BranchSearch::default(),
        };
        self.pause = Some(match (&self.current_event, &moment.pause) {
            (Some(_), _) => PauseReason::Event,
            (None, Some(PauseReason::Failed(message))) if exact => {
                PauseReason::Failed(message.clone())
            }
            _ => PauseReason::User,
        });
        self.behind = false;
        self.previous_t = self.sim.time();
        self.previous_x.copy_from(self.sim.positions());
        self.target = self.sim.time();
        self.target_before = self.target;
        Ok(())
    }
}
