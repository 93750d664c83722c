//! Records what a user does in a session as a lesson that plays back to the same state, and
//! holds where the user held.
//!
//! Call the recorder just before the session does the action (it reads the state the action
//! acts on), and [`Recorder::tick`] every frame with its wall-clock seconds. The trigger
//! written: `at_event: k` when the session sits at an event it reached by stepping since the
//! previous action (k events later: exact, the player stops there too); none when the session
//! took no step since the previous action; else `at: t`, the simulated time (the player stops
//! exactly there; its last step lands on `t` instead of stepping by `dt`, which differs from
//! the recorded run by rounding only). Pushes and leaves are found in the lists the player
//! counts ([`super::choices`]) by their direction.
//!
//! Where the user stopped, the lesson stops: an action taken at an event the session paused
//! at is written as `(at_event: k, do: Pause)` and the action after it, and an action taken
//! while the mechanism is held (that `Pause`, or the user's own) or sits at an event waits
//! `after:` the wall-clock seconds the user waited (to 0.01 s; none under that), as the
//! player waits on a paused mechanism. A lesson saved ([`Recorder::lesson`]) ends at the
//! instant of saving: the state the user last saw, held by a final `Pause` at the event or
//! time the session had reached since the last action (or right after the last action, when
//! that was a jump back). Its `t_end` is the latest time the session stepped to, before any
//! jump back, as the player never passes it. Its title names the scene and the
//! date (UTC), and [`default_lesson_path`] places it next to the scene's lessons.

use std::path::{Component, Path, PathBuf};
use web_time::SystemTime;

use nalgebra::DVector;

use super::choices::{leave_direction, listed_motions};
use super::format::{Action, LessonFile, LessonView, Step, Way};
use crate::live::{LiveSession, PauseReason};
use crate::solver::BasisMode;

/// Two directions whose entries differ by at most this are the same (the app hands back the
/// column it was shown, so they agree to the bit; this absorbs a copy through f32 UI code).
const SAME_DIRECTION: f64 = 1e-9;

/// A lesson being recorded from a session.
#[derive(Clone, Debug)]
pub struct Recorder {
    scene_file: PathBuf,
    basis: BasisMode,
    speed: f64,
    auto_pause: bool,
    view: LessonView,
    steps: Vec<Step>,
    title: String,
    /// The session's steps and events at the previous action.
    mark_steps: u64,
    mark_events: u64,
    /// A recorded `Pause` holds the mechanism (until a `Play`, a push or a leave), as the
    /// player's does.
    held: bool,
    /// Wall-clock seconds the mechanism has been paused since the previous action.
    waited: f64,
    /// The latest simulated time the session stepped to (the lesson's `t_end`: a replay
    /// waiting for an event steps as far as the recorded run did to find it).
    latest: f64,
}

/// Waits shorter than this (s) are not written: the action follows at once.
const SHORTEST_WAIT: f64 = 0.01;

impl Recorder {
    /// Starts recording `session` (at its current state: start it from the scene's initial
    /// state) with the motions counted in `basis`.
    pub fn new(session: &LiveSession, basis: BasisMode) -> Self {
        let scene = session.scene();
        let name = if scene.title.is_empty() {
            file_stem(Path::new(&scene.file))
        } else {
            scene.title.clone()
        };
        Self {
            scene_file: PathBuf::from(&scene.file),
            basis,
            speed: session.speed(),
            auto_pause: session.auto_pause,
            view: LessonView::default(),
            steps: Vec::new(),
            title: format!("{name}, recorded {}", utc_date(SystemTime::now())),
            mark_steps: session.steps_total(),
            mark_events: session.events_reached(),
            held: false,
            waited: 0.0,
            latest: session.time(),
        }
    }

    /// The lesson's title (by default the scene's title and the date it was recorded).
    pub fn set_title(&mut self, title: String) {
        self.title = title;
    }

    /// A frame of `wall_dt` seconds went by: while the mechanism is paused it counts as the
    /// user's wait before the next action.
    pub fn tick(&mut self, session: &LiveSession, wall_dt: f64) {
        self.latest = self.latest.max(session.stepped_to());
        if session.is_paused() {
            self.waited += wall_dt.max(0.0);
        } else {
            self.waited = 0.0;
        }
    }

    /// The view options written with the lesson.
    pub fn set_view(&mut self, view: LessonView) {
        self.view = view;
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Records `action` as done now; for `Pause`, `Play`, `SetSpeed`, `Caption` (and
    /// `GoToEvent`, counted from 1: see [`Recorder::goto_event`]).
    pub fn record(&mut self, session: &LiveSession, action: Action) {
        self.latest = self.latest.max(session.stepped_to());
        let mut step = self.reached(session, action);
        if step.at_event.is_some() && step.action != Action::Pause {
            // The session paused at the event and the user took it from there: the replay
            // holds there too, for as long.
            self.steps.push(Step {
                action: Action::Pause,
                ..step.clone()
            });
            self.held = true;
            step.at_event = None;
        }
        let paused = self.held || session.pause_reason() == Some(&PauseReason::Event);
        if step.at.is_none() && step.at_event.is_none() && paused && self.waited >= SHORTEST_WAIT {
            step.after = Some((self.waited * 100.0).round() / 100.0);
        }
        self.held = match step.action {
            Action::Pause => true,
            Action::Play | Action::Push { .. } | Action::Leave { .. } => false,
            _ => self.held,
        };
        self.steps.push(step);
        self.mark_steps = session.steps_total();
        self.mark_events = session.events_reached();
        self.waited = 0.0;
    }

    /// `action` with the trigger of the state the session reached since the previous action:
    /// the k-th event it sits at, the time it stepped to, or none.
    fn reached(&self, session: &LiveSession, action: Action) -> Step {
        let events = session.events_reached().saturating_sub(self.mark_events);
        let mut step = Step {
            at: None,
            at_event: None,
            after: None,
            action,
        };
        if events > 0 && session.current_event().is_some() {
            step.at_event = Some(events);
        } else if session.steps_total() != self.mark_steps {
            step.at = Some(session.time());
        }
        step
    }

    /// Records going to event `index` of [`LiveSession::events`] (0-based, as the session
    /// takes it).
    pub fn goto_event(&mut self, session: &LiveSession, index: usize) {
        self.record(session, Action::GoToEvent(index + 1));
    }

    /// Records a push along `column` (as the session's `push_along` takes it); an error if
    /// the column is none of the motions the lesson's basis lists here.
    pub fn push(
        &mut self,
        session: &LiveSession,
        column: &DVector<f64>,
        delta: f64,
        duration: f64,
    ) -> Result<(), String> {
        let motions = listed_motions(session, self.basis);
        for (k, motion) in motions.iter().enumerate() {
            for sign in [1.0, -1.0] {
                if same_direction(&motion.column, column, sign) {
                    let action = Action::Push {
                        motion: k + 1,
                        delta: sign * delta,
                        duration,
                    };
                    self.record(session, action);
                    return Ok(());
                }
            }
        }
        Err(format!(
            "the push's direction is none of the {} motions the {:?} basis lists here",
            motions.len(),
            self.basis
        ))
    }

    /// Records leaving the current event along `direction` (as the session's `leave_along`
    /// takes it); an error if it is none of the event's branches.
    pub fn leave(
        &mut self,
        session: &LiveSession,
        direction: &DVector<f64>,
        speed: Option<f64>,
    ) -> Result<(), String> {
        for branch in 1..=session.branches().len() {
            for way in [Way::Forward, Way::Back] {
                let matches = leave_direction(session, branch, way)
                    .is_some_and(|d| same_direction(&d, direction, 1.0));
                if matches {
                    self.record(session, Action::Leave { branch, way, speed });
                    return Ok(());
                }
            }
        }
        Err(format!(
            "the direction is none of the {} branches of the event here",
            session.branches().len()
        ))
    }

    /// The lesson recorded so far, to be saved as `lesson_path` (the scene is named relative
    /// to its folder); it ends at the session's current time and state, held there by a
    /// final `Pause` where the session moved on since the last action.
    pub fn lesson(&self, session: &LiveSession, lesson_path: &Path) -> LessonFile {
        let folder = lesson_path.parent().unwrap_or(Path::new(""));
        let scene = relative_path(folder, &self.scene_file);
        let mut actions = self.steps.clone();
        let end = self.reached(session, Action::Pause);
        let latest = self.latest.max(session.stepped_to());
        let moved_on = end.at.is_some() || end.at_event.is_some();
        if moved_on || (!self.held && session.time() < latest) {
            // Else the replay would run on from a jump back to the lesson's `t_end`.
            actions.push(end);
        }
        LessonFile {
            title: self.title.clone(),
            scene: scene.to_string_lossy().replace('\\', "/"),
            basis: self.basis,
            view: self.view.clone(),
            speed: self.speed,
            auto_pause: self.auto_pause,
            t_end: (latest > 0.0).then_some(latest),
            actions,
        }
    }

    /// [`Recorder::lesson`] written as RON, then saved to `lesson_path`.
    pub fn save(&self, session: &LiveSession, lesson_path: &Path) -> std::io::Result<()> {
        let text = to_ron(&self.lesson(session, lesson_path)).map_err(std::io::Error::other)?;
        crate::source::write(lesson_path, text.as_bytes())
    }
}

/// A lesson as RON text: `Lesson(...)`, one field a line, options written bare (the loader
/// reads them with `implicit_some`, as scene files are read).
pub fn to_ron(lesson: &LessonFile) -> Result<String, ron::Error> {
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let config = ron::ser::PrettyConfig::new()
        .extensions(ron::extensions::Extensions::IMPLICIT_SOME)
        .compact_structs(false);
    let body = options.to_string_pretty(lesson, config)?;
    Ok(format!("Lesson{body}\n"))
}

/// Where File > Save lesson puts a lesson of the scene at `scene_file` unless told
/// otherwise: in the `lessons` folder beside the scene when there is one (the shipped scenes'
/// `scenes/lessons/`), else beside the scene; named `<scene>_lesson.ron`, or `_2`, `_3`, ...
/// where a file has that name (a lesson saved before is never overwritten).
pub fn default_lesson_path(scene_file: &Path) -> PathBuf {
    let folder = scene_file.parent().unwrap_or(Path::new(""));
    let lessons = folder.join("lessons");
    let folder = if lessons.is_dir() {
        lessons
    } else {
        folder.to_path_buf()
    };
    let stem = file_stem(scene_file);
    (1..)
        .map(|n| match n {
            1 => folder.join(format!("{stem}_lesson.ron")),
            n => folder.join(format!("{stem}_lesson_{n}.ron")),
        })
        .find(|path| std::fs::symlink_metadata(path).is_err())
        .unwrap_or_else(|| folder.join(format!("{stem}_lesson.ron")))
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned())
}

/// `time` as a UTC date and minute, `2026-11-27 03:10 UTC` (the civil calendar from days
/// since 1970-01-01: Hinnant's `civil_from_days`, proleptic Gregorian).
pub fn utc_date(time: SystemTime) -> String {
    let seconds = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    // Days from 0000-03-01, in 400-year eras of 146097 days.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    let (hour, minute) = (of_day / 3600, of_day % 3600 / 60);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

fn same_direction(a: &DVector<f64>, b: &DVector<f64>, sign: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - sign * y).abs() <= SAME_DIRECTION)
}

/// `target` as a path from `folder` (both made absolute from the working directory), with
/// `..` where it leaves the folder; `target` as given if they share no root.
fn relative_path(folder: &Path, target: &Path) -> PathBuf {
    // A lesson saved in the working directory has the empty path as its folder.
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let (Ok(from), Ok(to)) = (std::path::absolute(folder), std::path::absolute(target)) else {
        return target.to_path_buf();
    };
    let from: Vec<Component> = from
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    let to: Vec<Component> = to
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    if from.first() != to.first() {
        return target.to_path_buf();
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for component in &to[common..] {
        path.push(component.as_os_str());
    }
    path
}

#[cfg(test)]
mod tests {
    use super::{relative_path, utc_date};
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    #[test]
    fn dates_are_the_civil_calendar_in_utc() {
        let at = |s: u64| utc_date(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00 UTC");
        // 30 years of 365 days and 7 leap days (1972 ... 1996) to 2000-01-01; 31 + 28 days on
        // to 2000-02-29, a leap day (2000 is divisible by 400).
        assert_eq!(at((30 * 365 + 7 + 59) * 86_400), "2000-02-29 00:00 UTC");
        // 1.7e9 s: 19675 days (2023-11-14) and 80000 s (22:13:20).
        assert_eq!(at(1_700_000_000), "2023-11-14 22:13 UTC");
        // 2100 is not a leap year: 2100-02-28 is followed by 2100-03-01. Days to 2100-01-01:
        // 130 years of 365 days and 32 leap days (1972 ... 2096).
        let jan_1_2100 = 130 * 365 + 32;
        assert_eq!(at((jan_1_2100 + 59) * 86_400), "2100-03-01 00:00 UTC");
    }

    #[test]
    fn scene_paths_are_written_from_the_lesson_folder() {
        let path = relative_path(Path::new("/a/scenes/lessons"), Path::new("/a/scenes/x.ron"));
        assert_eq!(path, Path::new("../x.ron"));
        let path = relative_path(Path::new("/a"), Path::new("/a/scenes/x.ron"));
        assert_eq!(path, Path::new("scenes/x.ron"));
        // Saved as "x_lesson.ron" in the working directory: the scene from there.
        let scene = std::env::current_dir().unwrap().join("scenes/x.ron");
        assert_eq!(
            relative_path(Path::new(""), &scene),
            Path::new("scenes/x.ron")
        );
    }
}
