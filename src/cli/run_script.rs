//! `singulab run --script LESSON.ron`: plays a lesson headless ([`crate::lesson::Player`],
//! wall-clock waits skipped) and writes the same CSVs as a plain run: a trajectory row per
//! step (per `--every` steps, and the last), the rows of every singular event the steps reach.
//! A lesson's jump (going back to an event) makes the rows go on from the earlier time.
//!
//! The energy is checked as in a plain run, with the reference taken anew after the lesson's
//! pushes and its leaves at a chosen speed (both change the energy on purpose); a leave with
//! the event's kinetic energy keeps the reference.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

use super::args::RunArgs;
use super::energy_check::EnergyCheck;
use super::error::{CliError, FileSite};
use super::progress::Progress;
use super::reaction_log::{LogError, ReactionLog};
use super::run_limits::{MAX_STEPS, RUN_ADVICE, step_budget};
use super::run_summary::RunSummary;
use super::run_writer::RunWriter;
use crate::lesson::{Action, Lesson, Player, Step, load_lesson, load_lesson_on};
use crate::live::LiveSession;
use crate::scene::load_scene;
use crate::solver::Setting;

/// The lesson of `--script`, on the SCENE argument's scene if one is given, with the run's
/// overrides of the solver settings and of `t_end`.
pub(super) fn load(script: &Path, args: &RunArgs) -> Result<Lesson, CliError> {
    let mut lesson = match &args.scene {
        Some(scene) => load_lesson_on(script, load_scene(scene)?)?,
        None => load_lesson(script)?,
    };
    let own_steps = lesson.t_end / lesson.scene.settings.dt;
    args.override_settings(&mut lesson.scene.settings);
    if let Some(t_end) = args.t_end {
        lesson.stop_at(t_end);
    }
    refuse_too_many_steps(&lesson, args, own_steps)?;
    Ok(lesson)
}

/// Refuses a lesson whose `t_end / dt` is more than [`MAX_STEPS`], as a plain run does: a
/// usage error when the arguments asked for it, else located at the lesson's `t_end` (or the
/// scene's `dt`). `own_steps` is the lesson's count with its own `t_end` and the scene's `dt`.
fn refuse_too_many_steps(lesson: &Lesson, args: &RunArgs, own_steps: f64) -> Result<(), CliError> {
    let dt = lesson.scene.settings.dt;
    let steps = lesson.t_end / dt;
    if steps <= MAX_STEPS {
        return Ok(());
    }
    let from_arguments = args.t_end.is_some() || own_steps <= MAX_STEPS;
    let site = if from_arguments {
        FileSite::file(&lesson.file)
    } else if lesson.spec.t_end.is_some() {
        let located = lesson.field_error("t_end", String::new());
        let located = located.located();
        FileSite {
            file: located.file.clone(),
            line_column: Some((located.line, located.column)),
            entity: None,
        }
    } else {
        FileSite::of_setting(&lesson.scene, &[Setting::Dt])
    };
    Err(CliError::TooManySteps {
        site: Box::new(site),
        time: "t_end",
        advice: if from_arguments {
            RUN_ADVICE
        } else {
            "use a shorter t_end"
        },
        from_arguments,
        t_end: lesson.t_end,
        dt,
        steps,
        limit: MAX_STEPS,
    })
}

/// Whether the steps acted change the energy on purpose.
fn changes_energy(acted: &[Step]) -> bool {
    acted.iter().any(|step| {
        matches!(
            step.action,
            Action::Push { .. } | Action::Leave { speed: Some(_), .. }
        )
    })
}

/// The drivers' work in a lesson's run: a reactions log without output on a copy of the
/// session's state (the log solves the multipliers, which needs the simulation mutable), the
/// work of the log's stretch and of the stretches before it (a jump back or a push starts a
/// new one, the energy check's reference taken anew).
struct DriverWork {
    log: ReactionLog<'static>,
    before: f64,
}

impl DriverWork {
    fn start(session: &LiveSession) -> Result<Self, CliError> {
        Ok(Self {
            log: driver_log(session)?,
            before: 0.0,
        })
    }

    fn record_step(&mut self, session: &LiveSession) -> Result<(), CliError> {
        let mut sim = session.simulation().clone();
        self.log
            .record_step(&mut sim, false)
            .map_err(|e| log_error(session, e))
    }

    /// Starts a new stretch at the session's state.
    fn restart(&mut self, session: &LiveSession) -> Result<(), CliError> {
        self.before += self.log.work();
        self.log = driver_log(session)?;
        Ok(())
    }

    /// The work since the stretch began.
    fn stretch(&self) -> f64 {
        self.log.work()
    }

    fn total(&self) -> f64 {
        self.before + self.log.work()
    }
}

fn driver_log(session: &LiveSession) -> Result<ReactionLog<'static>, CliError> {
    let mut sim = session.simulation().clone();
    ReactionLog::new(session.scene(), &mut sim, None).map_err(|e| log_error(session, e))
}

fn log_error(session: &LiveSession, error: LogError) -> CliError {
    match error {
        LogError::Solver(source) => CliError::solver(session.scene(), source),
        LogError::Output(error) => error,
    }
}

/// The writers and counters of a lesson's run, fed after every step.
struct ScriptRun<'a> {
    writer: RunWriter<'a>,
    summary: RunSummary,
    energy: EnergyCheck,
    /// For scenes with drivers.
    driver: Option<DriverWork>,
    bar: Progress,
    every: u64,
    reached: u64,
    t_previous: f64,
    was_pushing: bool,
    row_written: bool,
    /// The stretch of the run the rows belong to: 1 from the start, one more at each leave,
    /// push or go-to that takes the run back behind its latest time.
    segment: u32,
    /// The latest time the segment reached.
    segment_end: f64,
}

impl ScriptRun<'_> {
    fn after_step(&mut self, session: &LiveSession, acted: &[Step]) -> Result<(), CliError> {
        let sim = session.simulation();
        let mechanism = &session.scene().mechanism;
        let Some(report) = session.last_report() else {
            return Ok(());
        };
        self.summary.record_step(session.scene(), sim, report);
        let (t, x, xd) = (sim.time(), sim.positions(), sim.velocities());
        let pushed = self.was_pushing || session.is_pushing() || changes_energy(acted);
        let jumped = t < self.t_previous;
        if pushed || jumped {
            if let Some(driver) = self.driver.as_mut() {
                driver.restart(session)?;
            }
            if pushed {
                self.energy.restart(mechanism, t, report.energy, x, xd);
            } else {
                self.energy.rebase(mechanism, t, report.energy, x, xd);
            }
        } else {
            let work = match self.driver.as_mut() {
                Some(driver) => {
                    driver.record_step(session)?;
                    driver.stretch()
                }
                None => 0.0,
            };
            self.energy
                .record_step(mechanism, self.t_previous, t, report.energy - work, x, xd);
        }
        self.was_pushing = session.is_pushing();
        self.t_previous = t;
        let on_segment = self.follow_segment(t, acted);
        self.write_events(session)?;
        // A state behind the segment with nothing acted (an event the step passed, shown at
        // its instant) is no row: `t` increases within a segment.
        let due = self.summary.steps.is_multiple_of(self.every);
        self.row_written = !on_segment || due;
        if on_segment && due {
            self.write_row(session)?;
        }
        self.bar.update(t, self.summary.t_end);
        Ok(())
    }

    /// Whether the state at `t` goes on the current segment: a leave or a go-to (`acted`
    /// since the last step) starts a new one, as does a push that took the run back behind
    /// the segment's latest time (from an event the steps had passed); else a state past
    /// that time goes on, and one behind it (an event the step passed, shown at its instant)
    /// is none.
    fn follow_segment(&mut self, t: f64, acted: &[Step]) -> bool {
        let branch =
            |step: &Step| matches!(step.action, Action::Leave { .. } | Action::GoToEvent(_));
        let push = |step: &Step| matches!(step.action, Action::Push { .. });
        let behind = t <= self.segment_end;
        if acted.iter().any(branch) || (behind && acted.iter().any(push)) {
            self.segment += 1;
        } else if behind {
            return false;
        }
        self.segment_end = t;
        true
    }

    /// The rows of the events reached since the last call.
    fn write_events(&mut self, session: &LiveSession) -> Result<(), CliError> {
        for event in session.events_reached_since(self.reached) {
            self.summary.events += 1;
            self.writer
                .event(session.scene(), event, Some(self.segment))?;
        }
        self.reached = session.events_reached();
        Ok(())
    }

    fn write_row(&mut self, session: &LiveSession) -> Result<(), CliError> {
        let Some(report) = session.last_report() else {
            return Ok(());
        };
        let segment = Some(self.segment);
        self.writer
            .step_row(session.simulation(), report, segment)?;
        self.summary.rows += 1;
        Ok(())
    }
}

/// Plays `lesson` to its end, writing CSV to `out` and `events`.
pub(super) fn run_lesson<'a>(
    lesson: Lesson,
    args: &'a RunArgs,
    out: &'a mut dyn Write,
    events: Option<&'a mut dyn Write>,
    progress: bool,
) -> Result<RunSummary, CliError> {
    let t_end = lesson.t_end;
    let (mut player, mut session) = Player::start(lesson)?;
    let mut run = ScriptRun::start(&session, args, out, events, progress, t_end)?;
    // Jumps back make a lesson longer than t_end / dt steps: the Dopri5 budget's margin.
    let budget = step_budget(t_end, session.scene().settings.dt);
    let mut failure = None;
    let played = player.play_headless(&mut session, budget, |session, acted| {
        match run.after_step(session, acted) {
            Ok(()) => ControlFlow::Continue(()),
            Err(error) => {
                failure = Some(error);
                ControlFlow::Break(())
            }
        }
    });
    run.bar.finish();
    if let Some(error) = failure {
        return Err(error);
    }
    played?;
    let actions = player.lesson().steps().len();
    let mut summary = run.finish(&session, t_end)?;
    summary.lesson_stopped_before = player.stopped_before().map(|next| (next + 1, actions));
    Ok(summary)
}

impl<'a> ScriptRun<'a> {
    /// Writes the CSV headers and the row of the lesson's start.
    fn start(
        session: &LiveSession,
        args: &RunArgs,
        out: &'a mut dyn Write,
        events: Option<&'a mut dyn Write>,
        progress: bool,
        t_end: f64,
    ) -> Result<Self, CliError> {
        let scene = session.scene();
        let sim = session.simulation();
        let writer = RunWriter::start(scene, sim, args.basis, out, events, Some(1))?;
        Ok(ScriptRun {
            writer,
            summary: RunSummary::at_start(scene, sim, t_end),
            energy: EnergyCheck::new(
                &scene.mechanism,
                sim.time(),
                sim.positions(),
                sim.velocities(),
            ),
            driver: if scene.mechanism.is_rheonomic() {
                Some(DriverWork::start(session)?)
            } else {
                None
            },
            bar: Progress::new(progress),
            every: args.every as u64,
            reached: 0,
            t_previous: sim.time(),
            was_pushing: false,
            row_written: true,
            segment: 1,
            segment_end: sim.time(),
        })
    }

    /// Writes what the last steps left and returns the summary of the rows written.
    fn finish(mut self, session: &LiveSession, t_end: f64) -> Result<RunSummary, CliError> {
        // Events taken when the lesson's last play resumed from an event, with no step after.
        self.write_events(session)?;
        if !self.row_written {
            self.write_row(session)?;
        }
        self.writer.flush()?;
        let mut summary = self.summary;
        summary.factorizations = session.simulation().counters().factorizations;
        // Where the rows end: a lesson held by a Pause, or gone back to an event, ends before
        // its t_end.
        summary.t_end = session.time();
        summary.lesson_ended_before = (session.time() < t_end - 1e-9).then_some(t_end);
        summary.driver_work = self.driver.as_ref().map(DriverWork::total);
        summary.energy_drift = self.energy.drift();
        summary.drift_after_pulse = self.energy.drift_after_pulse();
        Ok(summary)
    }
}
