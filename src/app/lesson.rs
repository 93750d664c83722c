//! Lessons in the window: a lesson file opens where a scene does (File > Open, a drop, the
//! command line) and plays when the user presses Space; its captions show over the canvas.
//! Any other command that moves the mechanism (step, push, leave, go to) takes over from the
//! lesson, which stops, with the stop it had asked of the session. A motion's key while it
//! plays holds it (the user looks at that motion; Space goes on, Enter takes over). What the user does is recorded all along ([`Recorder`], told every
//! frame's wall-clock seconds by the simulation plugin, so that the user's waits while paused
//! are kept) and File > Save lesson writes it as a lesson that replays it.
//!
//! The lesson's player steps the session at exact simulated times and events
//! ([`crate::lesson::player`]), so the window reaches the states `singulab run --script`
//! writes, however slow its frames.

use std::path::{Path, PathBuf};
use web_time::Instant;

use super::commands::AppCommand;
pub use super::shown::{LessonFrame, LessonRun};
use super::shown::{Live, Notice};
use crate::lesson::{Action, default_lesson_path};
use crate::live::{Advance, SPEEDS};

/// One frame of the open lesson, if it runs; `None` when no lesson drives the session.
pub fn advance_lesson(live: &mut Live, wall_dt: f64, deadline: Instant) -> Option<Advance> {
    let Live {
        session, lesson, ..
    } = live;
    let run = lesson.as_mut()?;
    run.frame.poll(session, &run.player);
    if !run.running {
        return Some(Advance::default());
    }
    match run.player.advance(session, wall_dt, deadline) {
        Ok(out) => Some(out),
        Err(error) => {
            live.notice = Some(Notice::lasting(error.to_string(), true));
            live.lesson = None;
            Some(Advance::default())
        }
    }
}

/// Before `command` acts on the session: records it, and lets it take over from a lesson or
/// start and pause one. Returns whether the command is used up (Space on a lesson).
pub fn before_command(live: &mut Live, command: &AppCommand) -> bool {
    if let (Some(run), AppCommand::TogglePlay) = (live.lesson.as_mut(), command)
        && !run.player.is_finished()
    {
        run.running = !run.running;
        return true;
    }
    if matches!(command, AppCommand::HoldLesson) {
        hold(live);
        return true;
    }
    if moves_the_mechanism(command)
        && let Some(run) = live.lesson.take()
    {
        // The lesson's next stop is not the user's.
        live.session.set_stop_time(None);
        if !run.player.is_finished() {
            live.notice = Some(Notice::brief(format!(
                "The lesson {} stopped at its {}: you took over.",
                run.path.display(),
                run.progress()
            )));
            // A class sees no notice: the banner says it, until the action's own line.
            live.action = Some(Notice::action("The lesson stopped: you took over.".into()));
        }
    }
    record(live, command);
    false
}

/// Whether a lesson plays now (and has steps left): a motion's key then holds it.
pub fn lesson_playing(live: &Live) -> bool {
    live.lesson
        .as_ref()
        .is_some_and(|run| run.running && !run.player.is_finished())
}

fn hold(live: &mut Live) {
    let Some(run) = live.lesson.as_mut().filter(|run| run.running) else {
        return;
    };
    run.running = false;
    live.notice = Some(Notice::brief(
        "The lesson holds while you look at the motions: Space goes on with it, Enter takes \
         the chosen motion (the lesson then stops)."
            .to_owned(),
    ));
    live.action = Some(Notice::action(
        "The lesson holds: Space goes on with it.".to_owned(),
    ));
}

fn moves_the_mechanism(command: &AppCommand) -> bool {
    matches!(
        command,
        AppCommand::SingleStep
            | AppCommand::GotoEvent(_)
            | AppCommand::Push { .. }
            | AppCommand::Leave { .. }
            | AppCommand::Seek(_)
            | AppCommand::Undo
            | AppCommand::BeginDrag(_)
            | AppCommand::PoseAt(_)
    )
}

/// Where File > Save lesson here writes: next to the scene's lessons
/// ([`default_lesson_path`]).
pub fn lesson_path_here(live: &Live) -> PathBuf {
    default_lesson_path(&live.path)
}

/// Adds `command` to the recorded lesson; what cannot be recorded is said once.
fn record(live: &mut Live, command: &AppCommand) {
    let session = &live.session;
    let recorder = &mut live.recorder;
    let result = match command {
        AppCommand::TogglePlay => {
            let action = if session.is_paused() {
                Action::Play
            } else {
                Action::Pause
            };
            recorder.record(session, action);
            Ok(())
        }
        AppCommand::SetSpeedIndex(i) => {
            recorder.record(
                session,
                Action::SetSpeed(SPEEDS[(*i).min(SPEEDS.len() - 1)]),
            );
            Ok(())
        }
        AppCommand::GotoEvent(index) => {
            recorder.goto_event(session, *index);
            Ok(())
        }
        AppCommand::Push {
            column,
            delta,
            duration,
            ..
        } => recorder.push(session, column, *delta, *duration),
        AppCommand::Leave {
            direction, speed, ..
        } => recorder.leave(session, direction, *speed),
        AppCommand::Seek(_)
        | AppCommand::Undo
        | AppCommand::BeginDrag(_)
        | AppCommand::PoseAt(_)
        | AppCommand::SingleStep => {
            live.unrecorded = Some(unrecordable(command));
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(why) = result {
        live.notice = Some(Notice::brief(format!("Not recorded in the lesson: {why}.")));
    }
}

/// What a lesson cannot replay (yet): scrubbing, undoing, single steps and dragging.
fn unrecordable(command: &AppCommand) -> String {
    match command {
        AppCommand::Seek(_) => "went back on the timeline",
        AppCommand::Undo => "undid an action",
        AppCommand::SingleStep => "stepped the solver by hand",
        AppCommand::PoseAt(_) => "posed the mechanism from the configuration space",
        _ => "dragged the mechanism",
    }
    .to_owned()
}

/// Records the speed a speed step chose (after it acted).
pub fn record_speed(live: &mut Live) {
    let speed = live.session.speed();
    live.recorder.record(&live.session, Action::SetSpeed(speed));
}

/// Saves what the user did since the scene was opened or reset as a lesson at `path`.
pub fn save_lesson(live: &Live, path: &Path) -> Notice {
    if let Some(what) = &live.unrecorded {
        return Notice::brief(format!(
            "Not saved: you {what} since the scene was opened or reset, which a lesson \
                 cannot replay yet. Press R and do the lesson again with play, pause, speed, \
                 push, leave and go to."
        ));
    }
    match live.recorder.save(&live.session, path) {
        Ok(()) => Notice::brief(format!(
            "Lesson saved to {} ({} actions); open it to replay them.",
            path.display(),
            live.recorder.steps().len()
        )),
        Err(error) => Notice::lasting(format!("Could not write {}: {error}", path.display()), true),
    }
}
