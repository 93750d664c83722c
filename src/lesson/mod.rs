//! Lesson scripts: a RON file that plays a scene as a lecturer would, step by step (pause,
//! push along a motion, leave on a branch, go back to an event, change the speed, show a
//! caption), each step at a simulated time, at the k-th singular event after the previous
//! one, some seconds after it, or right after it. The format is in [`format`](mod@format) and docs/lessons.md.
//!
//! - [`load`] reads a lesson and its scene and checks every value; each mistake, there or
//!   while playing (a branch the event does not have), is a [`LessonError`] naming the lesson
//!   file, line and column and the action at fault.
//! - [`player`] drives a [`crate::live::LiveSession`]: every action happens at an exact
//!   simulated time (the session is given that time as its stop time) or at an event where
//!   the session paused, so the states do not depend on how many steps each frame may take.
//! - [`recorder`] turns what a user does in a session into a lesson that plays back to the
//!   same state, holding where the user held, and writes it as RON.
//! - [`video`] plays a lesson frame by frame for a recording, at the lesson's speeds times
//!   `singulab record --speed`.
//! - [`choices`] lists the motions and branches the actions count, as the app shows them.
//!
//! Bevy-free: the app and `singulab run --script` drive the same player.

pub mod choices;
pub mod format;
pub mod load;
pub mod player;
pub mod recorder;
pub mod video;

use std::fmt;

pub use format::{Action, LessonFile, LessonView, Step, Way};
pub use load::{
    Lesson, Trigger, is_lesson_file, is_lesson_source, load_lesson, load_lesson_on, parse_lesson,
    parse_lesson_on,
};
pub use player::{Player, ShownCaption};
pub use recorder::{Recorder, default_lesson_path};

use crate::scene::SceneError;

/// A lesson that cannot be loaded or played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LessonError {
    /// A mistake in the lesson file, or an action that cannot be done when its turn comes:
    /// located in the lesson file.
    Lesson(SceneError),
    /// The scene the lesson names does not load: where the lesson names it, and the scene's
    /// own located error.
    Scene {
        at: Box<LessonError>,
        error: Box<SceneError>,
    },
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lesson(error) => error.fmt(f),
            Self::Scene { at, error } => {
                let at = at.to_string();
                write!(f, "{}the scene does not load: {error}", at)
            }
        }
    }
}

impl std::error::Error for LessonError {}

impl LessonError {
    /// The located error in the lesson file (for a scene that does not load, where the lesson
    /// names it).
    pub fn located(&self) -> &SceneError {
        match self {
            Self::Lesson(error) => error,
            Self::Scene { at, .. } => at.located(),
        }
    }
}
