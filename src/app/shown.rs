//! What the window shows and where it came from: the [`Live`] resource (the session, its
//! file, the lesson open in it, the lesson being recorded, the notice in the banner) and the
//! opening of a scene or lesson file into one.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use web_time::Instant;

use bevy::prelude::*;

use crate::lesson::{LessonView, Player, Recorder, is_lesson_file, load_lesson};
use crate::live::{LiveSession, PauseReason, framing};
use crate::scene::load_scene;
use crate::solver::BasisMode;

/// The session being shown, with where its scene came from.
#[derive(Resource)]
pub struct Live {
    pub session: LiveSession,
    pub path: PathBuf,
    /// Modification time of the scene file when it was loaded (for automatic reload).
    pub modified: Option<SystemTime>,
    /// A message that is not a solver failure (a scene that failed to load, a saved file).
    pub notice: Option<Notice>,
    /// What the user last did to the motion (a push, a leave, an undo), for a class and a
    /// video, which see no panel: shown in the banner presenting and recording.
    pub action: Option<Notice>,
    /// Bumped on every scene (re)load, so views can re-fit.
    pub generation: u64,
    /// The lesson open in the window, if any: it drives the session while it runs.
    pub lesson: Option<LessonRun>,
    /// What the user did since the scene was opened or reset, as a lesson.
    pub recorder: Recorder,
    /// What the user did that the recorded lesson cannot replay, if anything.
    pub unrecorded: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Notice {
    pub text: String,
    pub error: bool,
    /// A brief notice (a file saved, advice on a push) leaves the banner at this time;
    /// others stay until the next one or the next scene.
    pub shown_until: Option<Instant>,
    /// The simulated time of the action a notice names (an event passed after it is said
    /// in its place).
    pub at: Option<f64>,
}

/// How long a brief notice stays in the banner.
const BRIEF_NOTICE: Duration = Duration::from_secs(15);
/// How long the banner names what the user just did (presenting, recording): long enough to
/// read, short enough to be gone before the next act.
const ACTION_SHOWN: Duration = Duration::from_secs(4);

impl Notice {
    pub fn lasting(text: String, error: bool) -> Self {
        Self {
            text,
            error,
            shown_until: None,
            at: None,
        }
    }

    /// An informative notice that leaves the banner after a while.
    pub fn brief(text: String) -> Self {
        Self {
            text,
            error: false,
            shown_until: Some(Instant::now() + BRIEF_NOTICE),
            at: None,
        }
    }

    /// What the user just did, shown for a few seconds (`ACTION_SHOWN`).
    pub fn action(text: String) -> Self {
        Self {
            text,
            error: false,
            shown_until: Some(Instant::now() + ACTION_SHOWN),
            at: None,
        }
    }

    /// The notice of an action taken at simulated time `t`.
    pub fn at(self, t: f64) -> Self {
        Self {
            at: Some(t),
            ..self
        }
    }

    pub fn is_shown(&self) -> bool {
        self.shown_until.is_none_or(|until| Instant::now() < until)
    }
}

impl Live {
    pub fn new(session: LiveSession, path: PathBuf) -> Self {
        Self {
            modified: modified_time(&path),
            notice: assembly_notice(&session),
            action: None,
            recorder: recorder_for(&session),
            unrecorded: None,
            session,
            path,
            generation: 0,
            lesson: None,
        }
    }

    /// Shows `session` (of a scene not read from a file: the sketcher's) as if loaded from
    /// `path`: no lesson, a fresh recorder, a new generation.
    pub fn replace_session(&mut self, session: LiveSession, path: PathBuf) {
        self.recorder = recorder_for(&session);
        self.unrecorded = None;
        self.lesson = None;
        self.session = session;
        self.modified = modified_time(&path);
        self.path = path;
        self.generation += 1;
    }

    /// Loads a scene or lesson file; on failure keeps the current session and explains why.
    pub fn load(&mut self, path: &Path) -> bool {
        let loaded = if is_lesson_file(path) {
            open_lesson(path).map(|(session, run)| (session, Some(run)))
        } else {
            open_scene(path).map(|mut session| {
                session.set_speed(self.session.speed());
                session.auto_pause = self.session.auto_pause;
                (session, None)
            })
        };
        match loaded {
            Ok((session, lesson)) => {
                self.recorder = recorder_for(&session);
                self.unrecorded = None;
                self.lesson = lesson;
                self.session = session;
                self.path = path.to_path_buf();
                self.modified = modified_time(path);
                self.notice = assembly_notice(&self.session);
                self.generation += 1;
                true
            }
            Err(text) => {
                // Remember the time anyway so a broken file is not reloaded every frame.
                if path == self.path {
                    self.modified = modified_time(path);
                }
                self.notice = Some(Notice::lasting(text, true));
                false
            }
        }
    }
}

/// A scene file's session, or the located reason it cannot start. It pauses at the scene's
/// `t_end`.
pub fn open_scene(path: &Path) -> Result<LiveSession, String> {
    let scene = load_scene(path).map_err(|e| e.to_string())?;
    let mut session = LiveSession::new(scene).map_err(|e| format!("{}: {e}", path.display()))?;
    pause_at_scene_end(&mut session);
    Ok(session)
}

/// The window's run of a scene pauses at the scene's `t_end`, as `run` and `record` end
/// there: a class sees the run is over (Space runs on past it). Nothing is set once the run
/// is past it.
pub fn pause_at_scene_end(session: &mut LiveSession) {
    let t_end = session.scene().t_end;
    let ahead = session.time() < t_end - 1e-9;
    session.set_stop_time(ahead.then_some(t_end));
}

/// Whether the session is paused at its scene's `t_end`.
pub fn paused_at_scene_end(session: &LiveSession) -> bool {
    session.pause_reason() == Some(&PauseReason::TimeReached)
        && (session.time() - session.scene().t_end).abs() < 1e-9
}

/// Says (not as an error) that the scene's initial positions were moved onto the constraints.
/// What the loader and the solver noticed about the scene's start: the assembly of its
/// positions, a start at a singular configuration.
fn assembly_notice(session: &LiveSession) -> Option<Notice> {
    let singular = session.simulation().starts_singular().map(|(rank, generic)| {
        format!(
            "The scene starts at a singular configuration: rank {rank} there, {generic} next to it \
             (its degrees of freedom are those of rank {generic}; no event is shown at t = 0; \
             velocities completed there need not follow a branch: state every rate of the one \
             you mean)."
        )
    });
    // A start at a singular configuration changes what the user sees (its degrees of
    // freedom), and so does a pose that did not fit the joints: those stay. Moving the
    // positions onto the constraints by a rounding of the scene's numbers is a brief note.
    if session.scene().assembled_far_off() {
        let notes: Vec<String> = session
            .scene()
            .assembly_note()
            .into_iter()
            .chain(singular)
            .collect();
        return Some(Notice::lasting(notes.join(" "), false));
    }
    match (singular, session.scene().assembly_note()) {
        (Some(singular), note) => Some(Notice::lasting(
            note.into_iter()
                .chain([singular])
                .collect::<Vec<_>>()
                .join(" "),
            false,
        )),
        (None, Some(note)) => Some(Notice::brief(note)),
        (None, None) => None,
    }
}

pub fn modified_time(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// A lesson open in the window.
pub struct LessonRun {
    pub player: Player,
    /// Space toggles it; a lesson opens waiting for it.
    pub running: bool,
    pub path: PathBuf,
    /// The box of every pose the lesson reaches, which the canvas is framed on while the
    /// lesson drives it (as its video is).
    pub frame: LessonFrame,
}

impl LessonRun {
    /// "step 2 of 4", or "done" once every action was taken.
    pub fn progress(&self) -> String {
        let steps = self.player.lesson().steps().len();
        if self.player.is_finished() || self.player.next_step() >= steps {
            "done".into()
        } else {
            format!("step {} of {steps}", self.player.next_step() + 1)
        }
    }
}

/// Opens a lesson file: the session at its scene and the lesson waiting to be played.
pub fn open_lesson(path: &Path) -> Result<(LiveSession, LessonRun), String> {
    let lesson = load_lesson(path).map_err(|e| e.to_string())?;
    let (player, session) = Player::start(lesson).map_err(|e| e.to_string())?;
    let run = LessonRun {
        player,
        running: false,
        path: path.to_path_buf(),
        frame: LessonFrame::Waiting,
    };
    Ok((session, run))
}

/// The box of every pose a lesson reaches ([`framing::run_box`] of its headless replay):
/// traced on a thread of its own on the desktop once the window shows the lesson (A02's
/// lesson takes about half a second; a video frames its own run instead), not at all in a
/// browser (no threads there: the view follows the pose as for a scene).
#[derive(Debug)]
pub enum LessonFrame {
    /// Not traced yet: the first [`LessonFrame::poll`] starts it.
    Waiting,
    Tracing(Option<std::thread::JoinHandle<Option<framing::PlaneBox>>>),
    Traced(Option<framing::PlaneBox>),
}

impl LessonFrame {
    /// Starts tracing the lesson `player` plays from `session` (its start: the lesson has
    /// not played yet) on the first call; takes the box once the thread has traced it.
    pub fn poll(&mut self, session: &LiveSession, player: &Player) {
        match self {
            Self::Waiting if cfg!(target_arch = "wasm32") => *self = Self::Traced(None),
            Self::Waiting => {
                let (session, player) = (session.clone(), player.clone());
                *self = Self::Tracing(Some(std::thread::spawn(move || {
                    framing::run_box(&session, Some(&player), f64::INFINITY)
                })));
            }
            Self::Tracing(thread) if thread.as_ref().is_none_or(|t| t.is_finished()) => {
                // A thread that panicked traced nothing: the view follows the pose.
                let frame = thread.take().and_then(|t| t.join().ok()).flatten();
                *self = Self::Traced(frame);
            }
            Self::Tracing(_) | Self::Traced(_) => {}
        }
    }

    /// The box, once traced.
    pub fn plane_box(&self) -> Option<framing::PlaneBox> {
        match self {
            Self::Traced(frame) => *frame,
            Self::Waiting | Self::Tracing(_) => None,
        }
    }
}

/// A fresh recorder of what the user does from the session's current state.
pub fn recorder_for(session: &LiveSession) -> Recorder {
    let mut recorder = Recorder::new(session, BasisMode::Continued);
    recorder.set_view(LessonView::default());
    recorder
}
