//! The frame a grounded planar scene is shown in while the user drives it: the box of every
//! pose shown since the scene opened and of every pose its run reaches, one scene length
//! ahead (20 s at most), from the state the user last acted in ([`framing::run_box`],
//! traced on a thread). It is traced at opening, after each push, leave or drag (the
//! timeline's marks) and after each jump (a seek, an event gone to, an undo), not when Space
//! goes on (the trace went on through the events as Space does; the 2x3's takes two seconds
//! of a core), and it only grows: the pivots stay at their pixels while the mechanism runs,
//! stops at an event and goes on, as in a lesson ([`crate::app::shown::LessonFrame`]); a
//! change of scale follows what the user did. Not in a browser (no threads there): the view
//! follows the pose.

use std::thread::JoinHandle;

use crate::app::simulation::Live;
use crate::live::MarkKind;
use crate::live::framing::{self, PlaneBox};

/// The frame and its tracing, kept with the canvas' camera.
#[derive(Debug, Default)]
pub struct RunFrame {
    /// What the frame was last traced for ([`traced_for`]).
    traced_for: Option<TracedFor>,
    tracing: Option<JoinHandle<Option<PlaneBox>>>,
    frame: Option<PlaneBox>,
    /// F or an edit in the sketcher asked for the pose: the frame waits for the next run.
    suspended: bool,
    was_running: bool,
}

/// The scene generation, the state jump and the number of the user's actions on the
/// timeline a trace started from (the reactions' scale is traced on the same occasions).
pub(super) type TracedFor = (u64, u64, usize);

pub(super) fn traced_for(live: &Live) -> TracedFor {
    let session = &live.session;
    let actions = session
        .marks()
        .iter()
        .filter(|mark| mark.kind != MarkKind::Event)
        .count();
    (live.generation, session.jump_epoch(), actions)
}

impl Clone for RunFrame {
    /// A copy holds the frame, not its tracing (which the copy starts again).
    fn clone(&self) -> Self {
        Self {
            traced_for: None,
            tracing: None,
            frame: self.frame,
            suspended: self.suspended,
            was_running: self.was_running,
        }
    }
}

impl RunFrame {
    /// Brings the frame up to `live`'s state (called on every frame of the canvas): starts a
    /// trace where the user acted or jumped since the last, takes a finished one, and adds
    /// the pose shown. Returns the frame to fit the view to, `None` where the view is fitted
    /// otherwise (a lesson, a vehicle, no frame traced yet, the frame suspended).
    pub fn update(&mut self, live: &Live) -> Option<PlaneBox> {
        let session = &live.session;
        let key = traced_for(live);
        if self
            .traced_for
            .is_some_and(|(generation, ..)| generation != live.generation)
        {
            *self = Self::default();
        }
        let running = !session.is_paused();
        if running && !self.was_running {
            self.suspended = false;
        }
        self.was_running = running;
        if !traceable(live) {
            return None;
        }
        self.take_trace();
        if self.tracing.is_none() && self.traced_for != Some(key) {
            self.start_trace(live, key);
        }
        if let Some(pose) =
            framing::pose_box(&session.scene().mechanism, session.simulation().positions())
        {
            self.frame = self.frame.map(|frame| union(frame, pose));
        }
        self.frame.filter(|_| !self.suspended)
    }

    /// Whether a trace is under way.
    #[cfg(test)]
    pub fn is_tracing(&self) -> bool {
        self.tracing.is_some()
    }

    /// Whether the frame is traced for `live`'s state (or `live` has none to trace): a
    /// screenshot waits for it, so that it shows what the window settles on.
    pub fn is_settled(&self, live: &Live) -> bool {
        !traceable(live) || (self.tracing.is_none() && self.traced_for == Some(traced_for(live)))
    }

    /// F or the sketcher's edit: the view is the pose's until the run goes on.
    pub fn suspend(&mut self) {
        self.suspended = true;
    }

    fn start_trace(&mut self, live: &Live, key: TracedFor) {
        let session = live.session.clone();
        let horizon = session.time() + session.scene().t_end.min(LONGEST_AHEAD);
        self.tracing = Some(std::thread::spawn(move || {
            framing::run_box(&session, None, horizon)
        }));
        self.traced_for = Some(key);
    }

    /// Adds a finished trace's box to the frame (a thread that panicked traced nothing).
    fn take_trace(&mut self) {
        if self.tracing.as_ref().is_some_and(JoinHandle::is_finished)
            && let Some(traced) = self.tracing.take().and_then(|t| t.join().ok()).flatten()
        {
            self.frame = Some(self.frame.map_or(traced, |frame| union(frame, traced)));
        }
    }
}

/// The most simulated seconds a trace runs ahead: a scene written for a long run (minutes)
/// would keep a core busy for as long, after the user has moved on.
const LONGEST_AHEAD: f64 = 20.0;

/// Whether the scene's run is framed so: a planar mechanism pinned to the ground, no lesson
/// open (its own frame holds), on the desktop.
fn traceable(live: &Live) -> bool {
    let mechanism = &live.session.scene().mechanism;
    !cfg!(target_arch = "wasm32")
        && live.lesson.is_none()
        && !mechanism.is_spatial()
        && !mechanism.has_rigid_bodies()
        && super::fit::grounded(live)
}

/// The box holding both boxes.
pub(super) fn union([lo, hi]: PlaneBox, [lo2, hi2]: PlaneBox) -> PlaneBox {
    [
        [lo[0].min(lo2[0]), lo[1].min(lo2[1])],
        [hi[0].max(hi2[0]), hi[1].max(hi2[1])],
    ]
}
