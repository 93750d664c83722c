//! Why a live session is not running, the run it keeps when it pauses at an event, and a
//! push in progress: the parts of a session's state that its timeline's checkpoints keep too.

use std::sync::Arc;

use crate::solver::{Settings, Simulation, SingularEvent};

/// Why the simulation is not running.
#[derive(Clone, Debug, PartialEq)]
pub enum PauseReason {
    /// The user paused (or the session has not been started).
    User,
    /// Stopped at a singular event; the state is the event's.
    Event,
    /// Reached the requested stop time.
    TimeReached,
    /// The solver failed; the message says why. The state is the last good one.
    Failed(String),
}

/// The run as it stood when it paused at an event: the end of the step that located it and
/// the step's later events. Playing on goes on from there, so pausing never changes the run:
/// a step started from the located state itself, singular to round-off, takes accelerations
/// from a constraint row that is nearly zero, which on a branch that stays singular throws
/// the mechanism off it.
#[derive(Clone, Debug)]
pub(crate) struct PausedRun {
    pub(crate) sim: Arc<Simulation>,
    pub(crate) later_events: Vec<SingularEvent>,
}

impl PausedRun {
    /// Estimated memory of its simulation, bytes (its later events, rarely any, left out).
    pub(crate) fn bytes(&self) -> usize {
        self.sim.estimated_bytes()
    }
}

/// A push along an admissible motion in progress: the settings to restore when it ends.
#[derive(Clone, Debug)]
pub(crate) struct Push {
    pub(crate) end: f64,
    pub(crate) usual: Settings,
}
