//! Records what a user does in a session as a lesson that plays back to the same state.
//!
//! Call the recorder just before the session does the action (it reads the state the action
//! acts on). The trigger written: `at_event: k` when the session sits at an event it reached
//! by stepping since the previous action (k events later: exact, the player stops there too);
//! none when the session took no step since the previous action; else `at: t`, the simulated time
//! (the player stops exactly there; its last step lands on `t` instead of stepping by `dt`,
//! which differs from the recorded run by rounding only). Pushes and leaves are found in the
//! lists the player counts ([`super::choices`]) by their direction.

use std::path::{Component, Path, PathBuf};

use nalgebra::DVector;

use super::choices::{leave_direction, push_motions};
use super::format::{Action, LessonFile, LessonView, Step, Way};
use crate::live::LiveSession;
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
    /// The session's steps and events at the previous action.
    mark_steps: u64,
    mark_events: u64,
}

impl Recorder {
    /// Starts recording `session` (at its current state: start it from the scene's initial
    /// state) with the motions counted in `basis`.
    pub fn new(session: &LiveSession, basis: BasisMode) -> Self {
        Self {
            scene_file: PathBuf::from(&session.scene().file),
            basis,
            speed: session.speed(),
            auto_pause: session.auto_pause,
            view: LessonView::default(),
            steps: Vec::new(),
            mark_steps: session.steps_total(),
            mark_events: session.events_reached(),
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
        self.steps.push(step);
        self.mark_steps = session.steps_total();
        self.mark_events = session.events_reached();
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
        let motions = push_motions(session, self.basis);
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
    /// to its folder); it ends at the session's current time.
    pub fn lesson(&self, session: &LiveSession, lesson_path: &Path) -> LessonFile {
        let folder = lesson_path.parent().unwrap_or(Path::new(""));
        let scene = relative_path(folder, &self.scene_file);
        LessonFile {
            title: String::new(),
            scene: scene.to_string_lossy().replace('\\', "/"),
            basis: self.basis,
            view: self.view.clone(),
            speed: self.speed,
            auto_pause: self.auto_pause,
            t_end: (session.time() > 0.0).then(|| session.time()),
            actions: self.steps.clone(),
        }
    }

    /// [`Recorder::lesson`] written as RON, then saved to `lesson_path`.
    pub fn save(&self, session: &LiveSession, lesson_path: &Path) -> std::io::Result<()> {
        let text = to_ron(&self.lesson(session, lesson_path)).map_err(std::io::Error::other)?;
        std::fs::write(lesson_path, text)
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
    use super::relative_path;
    use std::path::Path;

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
