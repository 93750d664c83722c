//! Plays a lesson on a [`LiveSession`], deterministically.
//!
//! Between steps the session runs with a stop time: the next step's `at` time, the end of an
//! `after` wait, the end of a push in progress, or the lesson's `t_end`, so the session stops
//! exactly there and the step acts on that state; a step waiting for an event acts where the
//! session's auto-pause placed the state, exactly at the event. The lesson's time never
//! passes its `t_end` (a recorded lesson's `t_end` is the latest time it stepped to, before
//! any jump back): a step whose turn has not come by then is an error located at that step (the
//! steps after it would never act: the lesson is not the one written), with no state past
//! `t_end` reported, unless the replay was told to stop there ([`Lesson::stop_at`]), when
//! the lesson just ends. So every lesson plays at most `t_end / dt` steps between two jumps
//! back. The frames only decide how far
//! the session gets before the next frame, never where it stops, so the same lesson played
//! with any wall-clock budget per frame reaches bit-identical states. The session's own pauses
//! at events and stop times are the player's business: it resumes from them unless the next
//! step acts there.
//!
//! The mechanism counts as paused for an `after` wait (wall-clock seconds) when a `Pause` holds
//! it or it sits at an event (after `at_event` or `GoToEvent`); otherwise `after` counts
//! simulated seconds. A headless replay ([`Player::play_headless`]) skips the wall-clock waits.
//!
//! A caption stays up for its seconds, and at least for its reading time ([`reading_time`]:
//! [`MIN_CAPTION`] seconds, or [`SECONDS_PER_WORD`] a word for a long one), and no longer
//! than the run it describes: going to an event takes it down. A caption, push, leave or
//! go-to whose turn comes while the caption shown has not been up that long waits, the
//! mechanism held where the step's trigger stopped it, and the lesson ends only once its last caption has been
//! up that long: a lecturer's lesson never moves on faster than its captions can be read.
//! These are wall-clock waits too (a headless replay skips them; a recording shows them as
//! still frames).

use std::ops::ControlFlow;
use web_time::Instant;

use super::LessonError;
use super::choices::{at_rest, leave_direction, listed_motions};
use super::format::{Action, Step};
use super::load::{Lesson, Trigger};
use crate::live::{Advance, LiveSession, PauseReason, TracePoint};
use crate::number_text::{number_text, time_text};
use crate::solver::SolverError;

/// Two simulated times this close are one instant (the session's own slack at a stop time).
const SAME_TIME: f64 = 1e-12;

/// The shortest time a caption stays up, wall-clock seconds.
pub const MIN_CAPTION: f64 = 2.0;
/// Reading time a word, wall-clock seconds (200 words a minute, a slow reader's pace on a
/// projector).
pub const SECONDS_PER_WORD: f64 = 0.3;

/// How long `text` stays up at least: `MIN_CAPTION`, or `SECONDS_PER_WORD` a word if longer.
pub fn reading_time(text: &str) -> f64 {
    let words = text.split_whitespace().count() as f64;
    (words * SECONDS_PER_WORD).max(MIN_CAPTION)
}

/// A caption being shown: its text, the wall-clock seconds it has left, and the simulated time
/// it came at.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownCaption {
    pub text: String,
    pub remaining: f64,
    pub t: f64,
    /// Wall-clock seconds left before it has been up its reading time.
    pub reading: f64,
}

/// The state after the previous step, which the next one's trigger counts from.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mark {
    time: f64,
    events: u64,
    /// Held by a `Pause` or sitting at an event: `after` counts wall-clock seconds.
    paused: bool,
}

/// Where the session runs to next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stop {
    /// Until this time (or until it pauses at an event before).
    At(f64),
    /// The lesson is over.
    Over,
}

/// Seconds (of wall time at the lesson's speed) a push or leave stays named in the banner:
/// as long as a short sentence takes to read.
pub const ACT_NAMED: f64 = 3.0;

/// A lesson being played: the next step and what its trigger counts from.
#[derive(Clone, Debug)]
pub struct Player {
    lesson: Lesson,
    next: usize,
    /// A `Pause` holds the mechanism until something plays it.
    held: bool,
    mark: Mark,
    /// Wall-clock seconds waited since the previous step.
    waited: f64,
    push_end: Option<f64>,
    /// The last push or leave: when (simulated) and what, for a viewer's banner.
    acted: Option<(f64, String)>,
    caption: Option<ShownCaption>,
    captions: Vec<(f64, String)>,
    /// The next step (a caption) or the end waits until the caption shown has been read.
    reading: bool,
    finished: bool,
    /// The replay stopped at its `t_end` with this step (0-based) not yet done.
    stopped_before: Option<usize>,
}

impl Player {
    /// A session at the lesson's scene, speed and view, and the player that will drive it
    /// (nothing has run yet).
    pub fn start(lesson: Lesson) -> Result<(Self, LiveSession), LessonError> {
        let mut session = LiveSession::new(lesson.scene.clone()).map_err(|error| {
            let message = lesson.scene.locate_failure(&error).map_or_else(
                || format!("the scene cannot start: {error}"),
                |located| format!("the scene cannot start: {located}"),
            );
            lesson.field_error("scene", message)
        })?;
        session.set_speed(lesson.spec.speed);
        session.auto_pause = lesson.spec.auto_pause;
        if let Some(name) = &lesson.spec.view.trace {
            let body = lesson.scene.mechanism.body_index(name);
            session.set_trace_point(body.map(TracePoint::centre));
        }
        let player = Self {
            mark: Mark {
                time: session.time(),
                events: 0,
                paused: false,
            },
            lesson,
            next: 0,
            held: false,
            waited: 0.0,
            push_end: None,
            acted: None,
            caption: None,
            captions: Vec::new(),
            reading: false,
            finished: false,
            stopped_before: None,
        };
        Ok((player, session))
    }

    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// The index (0-based) of the next step to act.
    pub fn next_step(&self) -> usize {
        self.next
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The first step (0-based) not done when a replay told to stop at its `t_end`
    /// ([`Lesson::stop_at`]) reached it before the lesson's last step.
    pub fn stopped_before(&self) -> Option<usize> {
        self.stopped_before
    }

    /// The lesson's last push or leave, while the mechanism is within [`ACT_NAMED`] seconds
    /// of wall time at `speed` of it (simulated time `now`): a class or a video sees no
    /// panel, and the banner names what the lesson just did.
    pub fn act_named(&self, now: f64, speed: f64) -> Option<&str> {
        self.acted
            .as_ref()
            .filter(|(t, _)| now >= *t && now - t <= ACT_NAMED * speed)
            .map(|(_, text)| text.as_str())
    }

    /// The simulated time of the lesson's last push or leave.
    pub fn acted_at(&self) -> Option<f64> {
        self.acted.as_ref().map(|(t, _)| *t)
    }

    /// At the event the session is at, the motion (index in the lesson's basis' list, from 0)
    /// the lesson's next push or leave takes, if it comes with no other trigger than a wait:
    /// a viewer sees it drawn before it is taken.
    pub fn motion_ahead(&self, session: &LiveSession) -> Option<usize> {
        session.current_event()?;
        if self.finished {
            return None;
        }
        let steps = self.lesson.spec.actions.get(self.next..)?;
        for step in steps {
            if step.at.is_some() || step.at_event.is_some() {
                return None;
            }
            match &step.action {
                Action::Caption(..) | Action::SetSpeed(_) => {}
                Action::Push { motion, .. } => return motion.checked_sub(1),
                Action::Leave { branch, .. } => {
                    let label = format!("branch {branch}");
                    return listed_motions(session, self.lesson.spec.basis)
                        .iter()
                        .position(|m| m.label == label);
                }
                Action::Pause | Action::Play | Action::GoToEvent(_) => return None,
            }
        }
        None
    }

    /// The caption to show now, if any.
    pub fn caption(&self) -> Option<&ShownCaption> {
        self.caption.as_ref()
    }

    /// Whether the lesson waits for the caption shown to be read (its next caption, or its
    /// end, has come).
    pub fn is_waiting_for_reader(&self) -> bool {
        self.reading
    }

    /// The text of every caption the lesson has, shown or to come.
    pub fn caption_texts(&self) -> impl Iterator<Item = &str> {
        self.lesson
            .spec
            .actions
            .iter()
            .filter_map(|step| match &step.action {
                Action::Caption(text, _) => Some(text.as_str()),
                _ => None,
            })
    }

    /// Every caption shown so far, with the simulated time it came at.
    pub fn captions(&self) -> &[(f64, String)] {
        &self.captions
    }

    /// One frame of `wall_dt` seconds, the session stepping until `deadline` at most.
    pub fn advance(
        &mut self,
        session: &mut LiveSession,
        wall_dt: f64,
        deadline: Instant,
    ) -> Result<Advance, LessonError> {
        self.frame(session, wall_dt, |s, dt| s.advance(dt, deadline))
    }

    /// One frame of `wall_dt` seconds with a budget of `max_steps` solver steps.
    pub fn advance_steps(
        &mut self,
        session: &mut LiveSession,
        wall_dt: f64,
        max_steps: usize,
    ) -> Result<Advance, LessonError> {
        self.frame(session, wall_dt, |s, dt| s.advance_steps(dt, max_steps))
    }

    /// One frame of `wall_dt` seconds, the session advanced by `run` (a recording advances
    /// it to the frame's fixed simulated instant).
    pub fn frame(
        &mut self,
        session: &mut LiveSession,
        wall_dt: f64,
        mut run: impl FnMut(&mut LiveSession, f64) -> Advance,
    ) -> Result<Advance, LessonError> {
        self.tick_caption(wall_dt);
        if session.is_paused() {
            self.waited += wall_dt;
        }
        let mut out = Advance::default();
        let mut ran = false;
        while !self.finished {
            if !self.ready_to_run(session, false)? || ran {
                break;
            }
            let step = run(session, wall_dt);
            out.steps += step.steps;
            out.behind |= step.behind;
            out.event |= step.event;
            out.failed |= step.failed;
            ran = true;
            if !session.is_paused() {
                break;
            }
        }
        Ok(out)
    }

    /// Plays the whole lesson without waiting for the wall clock, calling `each_step` after
    /// every solver step with the lesson's steps acted since the previous call (it may stop
    /// the play: then `Ok(false)`); at most `max_steps` solver steps.
    pub fn play_headless(
        &mut self,
        session: &mut LiveSession,
        max_steps: u64,
        mut each_step: impl FnMut(&LiveSession, &[Step]) -> ControlFlow<()>,
    ) -> Result<bool, LessonError> {
        let mut steps = 0u64;
        let mut reported = self.next;
        while !self.finished {
            if !self.ready_to_run(session, true)? {
                continue;
            }
            while !session.is_paused() {
                if steps >= max_steps {
                    return Err(self.budget_spent(session, max_steps));
                }
                steps += session.run_until_paused(1).steps as u64;
                if let Some(k) = self.waits_past_end(session) {
                    return Err(self.event_never_came(k));
                }
                let acted = &self.lesson.steps()[reported..self.next];
                reported = self.next;
                if each_step(session, acted).is_break() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Acts the steps that are due, then readies the session to run to its next stop: `true`
    /// if it should run now, `false` if it waits (a wall-clock wait, or the lesson is over).
    fn ready_to_run(
        &mut self,
        session: &mut LiveSession,
        headless: bool,
    ) -> Result<bool, LessonError> {
        self.check_failure(session)?;
        self.act_due(session, headless)?;
        if self.finished || self.reading {
            return Ok(false);
        }
        if session.is_paused() && self.waits_on_wall_clock() {
            if headless {
                self.waited = f64::INFINITY;
            }
            return Ok(false);
        }
        let Stop::At(stop) = self.next_stop(session)? else {
            // The last caption is read before the lesson ends.
            self.reading = !headless && self.caption_unread();
            self.finished = !self.reading;
            return Ok(false);
        };
        if session.is_paused() {
            session.play();
        }
        session.set_stop_time(Some(stop));
        Ok(true)
    }

    fn check_failure(&self, session: &LiveSession) -> Result<(), LessonError> {
        let Some(PauseReason::Failed(message)) = session.pause_reason() else {
            return Ok(());
        };
        let message = format!("the solver failed at t = {} s: {message}", session.time());
        Err(match self.next.checked_sub(1) {
            Some(index) => self.lesson.step_error(index, None, message),
            None => self.lesson.field_error("scene", message),
        })
    }

    /// Whether the next step waits for wall-clock seconds (after a `Pause` or at an event).
    fn waits_on_wall_clock(&self) -> bool {
        self.mark.paused && matches!(self.next_trigger(), Some(Trigger::After(_)))
    }

    fn next_trigger(&self) -> Option<Trigger> {
        (self.next < self.lesson.steps().len()).then(|| self.lesson.trigger(self.next))
    }

    /// Where the session should stop next: at the next step's time, at the end of a push in
    /// progress, never past `t_end` (for an event waited for, one step past it: an event is
    /// located by the step that brackets it); `Over` when it is done.
    fn next_stop(&mut self, session: &LiveSession) -> Result<Stop, LessonError> {
        let t = session.time();
        let end = self.lesson.t_end;
        let trigger = self.next_trigger();
        if t >= end - SAME_TIME && (trigger.is_none() || self.lesson.stops_at_t_end) {
            self.stopped_before = trigger.map(|_| self.next);
            return Ok(Stop::Over);
        }
        let stop = match trigger {
            None if self.held => return Ok(Stop::Over),
            Some(Trigger::AtEvent(k)) if t >= end - SAME_TIME => {
                return Err(self.event_never_came(k));
            }
            Some(Trigger::AtEvent(_)) if !self.lesson.stops_at_t_end => end + session.settings().dt,
            Some(Trigger::At(at)) => at.min(end),
            Some(Trigger::After(s)) if !self.mark.paused => (self.mark.time + s).min(end),
            _ => end,
        };
        let stop = match self.push_end.filter(|&e| e > t + SAME_TIME) {
            Some(push_end) => stop.min(push_end),
            None => stop,
        };
        if stop <= t + SAME_TIME {
            // Not reached: a due step would have acted, and a passed `at` is an error there.
            return Err(self.turn_never_comes());
        }
        Ok(Stop::At(stop))
    }

    /// The event count `k` the next step waits for, when the session went past the lesson's
    /// `t_end`, by which it had to come.
    fn waits_past_end(&self, session: &LiveSession) -> Option<u64> {
        match self.next_trigger() {
            Some(Trigger::AtEvent(k)) if session.time() > self.lesson.t_end + SAME_TIME => Some(k),
            _ => None,
        }
    }

    /// What the next step waits for, as a message names it, and the field that says so.
    fn waiting_for(&self) -> Option<(&'static str, String)> {
        Some(match self.next_trigger()? {
            Trigger::AtEvent(k) => (
                "at_event",
                format!(
                    "singular event {k} from t = {} s",
                    time_text(self.mark.time)
                ),
            ),
            Trigger::At(at) => ("at", format!("t = {} s", number_text(at))),
            Trigger::After(after) => (
                "after",
                format!(
                    "{} s after t = {} s",
                    number_text(after),
                    time_text(self.mark.time)
                ),
            ),
            Trigger::Now => return None,
        })
    }

    /// The next step's turn cannot come before the lesson's `t_end`.
    fn turn_never_comes(&self) -> LessonError {
        let end = time_text(self.lesson.t_end);
        match self.waiting_for() {
            Some((field, waits)) => {
                let message =
                    format!("it waits for {waits}, past the lesson's end at t_end = {end} s");
                self.lesson.step_error(self.next, Some(field), message)
            }
            None => {
                let message =
                    format!("its turn does not come before the lesson's end at t_end = {end} s");
                self.lesson.step_error(self.next, None, message)
            }
        }
    }

    /// The replay's step budget ran out: located at what the next step waits for (an event,
    /// a time or a delay the budget cannot reach), else at the lesson's `t_end`.
    fn budget_spent(&self, session: &LiveSession, max_steps: u64) -> LessonError {
        let now = time_text(session.time());
        let Some((field, waits)) = self.waiting_for() else {
            let message = format!("the lesson took more than {max_steps} steps (at t = {now} s)");
            return self.lesson.field_error("t_end", message);
        };
        let message = format!(
            "it waits for {waits}, and the replay's {max_steps} steps ran out at t = {now} s"
        );
        self.lesson.step_error(self.next, Some(field), message)
    }

    /// The next step waits for its `k`-th event, and the lesson reached its `t_end` first.
    fn event_never_came(&self, k: u64) -> LessonError {
        let message = format!(
            "it waits for singular event {k} from t = {} s, and none came before the lesson's end at t_end = {} s",
            time_text(self.mark.time),
            time_text(self.lesson.t_end)
        );
        self.lesson.step_error(self.next, Some("at_event"), message)
    }

    /// Whether the next step's trigger has come (an `at` time already passed is a mistake).
    fn is_due(&self, session: &LiveSession, headless: bool) -> Result<bool, LessonError> {
        let t = session.time();
        Ok(match self.lesson.trigger(self.next) {
            Trigger::Now => true,
            Trigger::At(at) => {
                if t > at + SAME_TIME {
                    let message = format!(
                        "at {} s has passed: the lesson is at {} s here",
                        number_text(at),
                        time_text(t)
                    );
                    return Err(self.lesson.step_error(self.next, Some("at"), message));
                }
                t >= at - SAME_TIME
            }
            Trigger::AtEvent(k) => {
                session.is_paused()
                    && session.events_reached().saturating_sub(self.mark.events) >= k
                    && t <= self.lesson.t_end + SAME_TIME
            }
            Trigger::After(s) if self.mark.paused => headless || self.waited >= s,
            Trigger::After(s) => t >= self.mark.time + s - SAME_TIME,
        })
    }

    fn act_due(&mut self, session: &mut LiveSession, headless: bool) -> Result<(), LessonError> {
        self.reading = false;
        while self.next < self.lesson.steps().len() && self.is_due(session, headless)? {
            // A new caption, or an action that changes what the caption describes (a push,
            // a leave, a jump), waits until the caption shown has been read.
            let waits_for_reader = matches!(
                self.lesson.steps()[self.next].action,
                Action::Caption(..)
                    | Action::Push { .. }
                    | Action::Leave { .. }
                    | Action::GoToEvent(_)
            );
            if waits_for_reader && !headless && self.caption_unread() {
                self.reading = true;
                return Ok(());
            }
            self.act(session, self.next)?;
            self.next += 1;
            let at_event = matches!(session.pause_reason(), Some(PauseReason::Event));
            self.mark = Mark {
                time: session.time(),
                events: session.events_reached(),
                paused: self.held || at_event,
            };
            self.waited = 0.0;
        }
        Ok(())
    }

    /// Does step `index`'s action.
    fn act(&mut self, session: &mut LiveSession, index: usize) -> Result<(), LessonError> {
        let action = self.lesson.steps()[index].action.clone();
        match &action {
            Action::Pause => {
                self.held = true;
                if session.pause_reason() == Some(&PauseReason::TimeReached) {
                    // The player's stop, not a pause the viewer should see as such.
                    session.play();
                }
                session.pause();
            }
            Action::Play => {
                self.held = false;
                session.play();
            }
            &Action::Push {
                motion,
                delta,
                duration,
            } => self.push(session, index, motion, delta, duration)?,
            &Action::Leave { branch, way, speed } => {
                self.leave(session, index, branch, way, speed)?
            }
            &Action::GoToEvent(k) => {
                let count = session.events().len();
                if k > count {
                    let listed = counted(count, "event");
                    let message = format!("the list has {listed} so far, not {k}");
                    return Err(self.lesson.step_error(index, Some("do"), message));
                }
                let from = session.time();
                session
                    .goto_event(k - 1)
                    .map_err(|error| self.refused(index, &error))?;
                self.push_end = None;
                // The caption described the run left behind; the jump is what was done.
                self.caption = None;
                let to = session.time();
                let said = crate::live::motions::jump_said(from, to, "the singular event at t =");
                self.acted = Some((to, said));
            }
            &Action::SetSpeed(speed) => session.set_speed(speed),
            Action::Caption(text, seconds) => {
                let reading = reading_time(text);
                self.caption = Some(ShownCaption {
                    text: text.clone(),
                    remaining: seconds.max(reading),
                    t: session.time(),
                    reading,
                });
                self.captions.push((session.time(), text.clone()));
            }
        }
        Ok(())
    }

    fn push(
        &mut self,
        session: &mut LiveSession,
        index: usize,
        motion: usize,
        delta: f64,
        duration: f64,
    ) -> Result<(), LessonError> {
        let (column, label) = self.motion(session, index, motion)?;
        let t = session.time();
        session
            .push_along(&column, delta, duration)
            .map_err(|error| self.refused(index, &error))?;
        self.acted = Some((
            t,
            crate::live::motions::push_said(&label, delta, duration, t),
        ));
        self.push_end = Some(session.time() + duration);
        self.held = false;
        Ok(())
    }

    fn leave(
        &mut self,
        session: &mut LiveSession,
        index: usize,
        branch: usize,
        way: super::Way,
        speed: Option<f64>,
    ) -> Result<(), LessonError> {
        let direction = self.branch(session, index, branch, way)?;
        if speed.is_none() && at_rest(session) {
            let message = "the mechanism is at rest at this event: give the leave a `speed`";
            return Err(self.lesson.step_error(index, None, message.into()));
        }
        let t = session.time();
        session
            .leave_along(&direction, speed)
            .map_err(|error| self.refused(index, &error))?;
        let back = if way == super::Way::Back {
            " (back)"
        } else {
            ""
        };
        self.acted = Some((
            t,
            crate::live::motions::leave_said(&format!("branch {branch}"), back, t),
        ));
        self.push_end = None;
        self.held = false;
        Ok(())
    }

    /// The session refused step `index`'s action.
    fn refused(&self, index: usize, error: &SolverError) -> LessonError {
        let message = format!("the session refused it: {error}");
        self.lesson.step_error(index, None, message)
    }

    /// Motion `k` (from 1) of the list the app shows, in the lesson's basis.
    fn motion(
        &self,
        session: &LiveSession,
        index: usize,
        k: usize,
    ) -> Result<(nalgebra::DVector<f64>, String), LessonError> {
        let motions = listed_motions(session, self.lesson.spec.basis);
        match motions.get(k - 1) {
            Some(motion) => Ok((motion.column.clone(), motion.label.clone())),
            None => {
                let labels: Vec<&str> = motions.iter().map(|m| m.label.as_str()).collect();
                let message = format!(
                    "there is no motion {k} at t = {} s: the mechanism has {} here ({})",
                    session.time(),
                    motions.len(),
                    labels.join(", ")
                );
                Err(self.lesson.step_error(index, Some("motion"), message))
            }
        }
    }

    /// The direction of leaving along branch `k` (from 1) of the event the session is at.
    fn branch(
        &self,
        session: &LiveSession,
        index: usize,
        k: usize,
        way: super::Way,
    ) -> Result<nalgebra::DVector<f64>, LessonError> {
        if session.current_event().is_none() {
            let message = format!(
                "the mechanism is not at a singular event at t = {} s (wait for one with `at_event`, or go to one)",
                session.time()
            );
            return Err(self.lesson.step_error(index, None, message));
        }
        leave_direction(session, k, way).ok_or_else(|| {
            let message = format!(
                "this event has {} besides the continuation, not {k}",
                counted(session.branches().len(), "branch")
            );
            self.lesson.step_error(index, Some("branch"), message)
        })
    }

    fn tick_caption(&mut self, wall_dt: f64) {
        if let Some(caption) = &mut self.caption {
            caption.remaining -= wall_dt;
            caption.reading -= wall_dt;
            if caption.remaining <= 0.0 {
                self.caption = None;
            }
        }
    }

    /// Whether the caption shown has been up less than its reading time.
    fn caption_unread(&self) -> bool {
        self.caption.as_ref().is_some_and(|c| c.reading > 0.0)
    }
}

/// `n` and the noun, in the plural unless `n` is 1 (`1 branch`, `2 branches`).
fn counted(n: usize, noun: &str) -> String {
    match (n, noun.ends_with("ch")) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        (_, false) => format!("{n} {noun}s"),
    }
}
