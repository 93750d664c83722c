//! The RON lesson format as serde types, read by [`super::load`] and written by
//! [`super::recorder`]. A lesson names its scene (relative to the lesson file), how to show it,
//! and a list of steps, each an action and what it waits for.
//!
//! A `Caption` stays up for its seconds and at least its reading time (2 s, or 0.3 s a word:
//! [`super::player::reading_time`]); a caption whose turn comes sooner waits, the mechanism
//! held there, and the lesson ends once its last caption was read. `singulab record --speed S`
//! plays a lesson's `speed` and `SetSpeed`s S times faster ([`super::video`]).
//!
//! What a lesson may point at: its `scene` only, a scene file ending in `.ron` whose text
//! starts with `Scene(` (after comments), relative to the lesson's folder or absolute, read
//! with the same limits as any scene (UTF-8, at most 1 MiB). Lessons are shared between
//! lecturers and students, so anything else (another lesson, a file of another kind) is
//! refused before it is parsed, with a message that quotes the lesson's `scene` value and
//! nothing of the file it names. `singulab run --script` never writes over the lesson or its
//! scene. Times in a lesson's steps and its `t_end` are simulated seconds; a lesson of more
//! than 1e9 steps (`t_end / dt`) is refused at its `t_end`, and an `at_event` step whose event
//! has not come by `t_end` is an error at that step (unless a later step goes back to an
//! event: [`super::player`]).

use serde::{Deserialize, Serialize};

use crate::solver::BasisMode;

/// A whole lesson file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Lesson", deny_unknown_fields)]
pub struct LessonFile {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// The scene file, relative to the lesson file's folder (or absolute).
    pub scene: String,
    /// The basis whose motions `Push(motion: k)` counts, and the one shown.
    #[serde(default)]
    pub basis: BasisMode,
    #[serde(default)]
    pub view: LessonView,
    /// Speed at the start (1/64 to 64).
    #[serde(default = "one")]
    pub speed: f64,
    /// Pause at singular events (the app's default). The player resumes from such a pause
    /// unless the next step acts there; `at_event` needs it.
    #[serde(default = "yes")]
    pub auto_pause: bool,
    /// Simulated time the lesson ends at once its actions are done [default: the scene's
    /// `run.t_end`]; an event waited for must come by then (unless a later step goes back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    #[serde(default)]
    pub actions: Vec<Step>,
}

fn one() -> f64 {
    1.0
}

fn yes() -> bool {
    true
}

/// How the app shows the lesson.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonView {
    /// The traditional and the continued basis side by side.
    #[serde(default)]
    pub side_by_side: bool,
    /// The joint reactions drawn.
    #[serde(default)]
    pub reactions: bool,
    /// The body whose centre leaves the trace [default: the scene's].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
}

/// One step of a lesson: an action and at most one of the triggers (none: right after the
/// previous step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// At this simulated time (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<f64>,
    /// At the k-th singular event reached after the previous step (1: the next one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_event: Option<u64>,
    /// This many seconds after the previous step: simulated seconds if the mechanism runs
    /// then, wall-clock seconds if it is paused (time to read a caption; a headless replay
    /// does not wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<f64>,
    #[serde(rename = "do")]
    pub action: Action,
}

/// What a step does. Motions, branches and events are counted from 1, as the app lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Action {
    /// Pause; it holds until a `Play` (or a push or leave, which play).
    Pause,
    Play,
    /// Push along admissible motion `motion` as the app lists it in the lesson's basis (at an
    /// event: the continued motions, the new ones, then the branches; elsewhere `T1`, `T2`,
    /// ...), changing the velocity along it by about `delta` over `duration` seconds: a speed
    /// in the mass metric, sqrt(J), positive along the motion's velocity (at rest: downhill),
    /// as `LiveSession::push_along` takes it.
    Push {
        motion: usize,
        delta: f64,
        #[serde(default = "push_duration")]
        duration: f64,
    },
    /// Leave the event the mechanism is paused at along branch `branch`, with the kinetic
    /// energy it has there, or at `speed` (needed where it is at rest).
    Leave {
        branch: usize,
        #[serde(default)]
        way: Way,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        speed: Option<f64>,
    },
    /// Go to the k-th event of the events list (the order they were first reached).
    GoToEvent(usize),
    /// Play at this speed (1/64 to 64).
    SetSpeed(f64),
    /// Show a text for this many wall-clock seconds, and at least its reading time (see
    /// [`super::player::reading_time`]; a later caption waits for it to be read).
    Caption(String, f64),
}

/// The push's duration when a lesson does not give one: the app's default.
pub const PUSH_DURATION: f64 = 0.05;

fn push_duration() -> f64 {
    PUSH_DURATION
}

/// Which way to leave along a branch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Way {
    /// On the way the mechanism came (the app's "leave on").
    #[default]
    Forward,
    /// Reversed ("leave back").
    Back,
}

impl Action {
    /// The action's name as written in the file.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Pause => "Pause",
            Self::Play => "Play",
            Self::Push { .. } => "Push",
            Self::Leave { .. } => "Leave",
            Self::GoToEvent(_) => "GoToEvent",
            Self::SetSpeed(_) => "SetSpeed",
            Self::Caption(..) => "Caption",
        }
    }
}
