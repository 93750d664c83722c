//! The session's drag gestures ([`crate::live::drag`]): pick a point, drag it (posing the
//! paused mechanism, or pulling the running one with a spring), release. A drag is a user
//! action on the timeline: marked when it starts, undone as a whole.

use super::{LiveSession, PauseReason};
use crate::live::drag::{DRAG_MOVES_PER_CALL, Drag, DragMode};
use crate::live::timeline::MarkKind;
use crate::solver::{BranchSearch, DragReport, GrabPoint, SolverError, branches, pick};

impl LiveSession {
    /// The point of the mechanism nearest to `world` (see [`pick`]) and its distance.
    pub fn pick(&self, world: [f64; 3]) -> Option<(GrabPoint, f64)> {
        pick(&self.scene.mechanism, self.sim.positions(), world)
    }

    /// Grabs `point`: paused, later [`Self::drag_to`] calls pose the mechanism; running,
    /// they move the target of a spring that pulls the point. Any push ends, and the run goes
    /// on from the instant shown.
    pub fn begin_drag(&mut self, point: GrabPoint) -> Result<(), SolverError> {
        if !point.fits(&self.scene.mechanism) {
            return Err(SolverError::InvalidDrag);
        }
        if matches!(self.pause, Some(PauseReason::Failed(_))) {
            return Ok(());
        }
        self.begin_hand_action()?;
        let mode = if self.is_paused() {
            DragMode::Pose
        } else {
            DragMode::Spring
        };
        let drag = Drag::new(&self.sim, point, mode);
        if mode == DragMode::Spring {
            self.timeline.set_spring(Some(drag.spring()));
        }
        self.drag = Some(drag);
        // The push it ended changed the loads and settings the next steps take.
        self.timeline.pin(self.moment());
        Ok(())
    }

    /// Starts an action by hand on the mechanism (a drag, a pose from the atlas), marked on
    /// the timeline as a drag: a drag in progress and a push end, and the run goes on from the
    /// instant shown, not from an interrupted step.
    fn begin_hand_action(&mut self) -> Result<(), SolverError> {
        self.end_drag();
        self.commit_scrub();
        self.timeline.begin_action(MarkKind::Drag, self.moment());
        self.paused_run = None;
        if let Some(push) = self.push.take() {
            self.sim.clear_extra_loads();
            self.sim.set_settings(push.usual)?;
        }
        Ok(())
    }

    /// Moves the grabbed point towards `target` (world): paused, the mechanism is posed at
    /// rest as close as its constraints allow (the report says how close); running, the
    /// spring's target moves (`None`). Without a drag, nothing.
    pub fn drag_to(&mut self, target: [f64; 3]) -> Result<Option<DragReport>, SolverError> {
        let Some(drag) = self.drag.as_mut() else {
            return Ok(None);
        };
        if !target.iter().all(|v| v.is_finite()) {
            return Err(SolverError::InvalidDrag);
        }
        drag.target = target;
        let drag = *drag;
        match drag.mode {
            DragMode::Spring => {
                self.timeline.set_spring(Some(drag.spring()));
                Ok(None)
            }
            DragMode::Pose => {
                let report = self
                    .sim
                    .drag_toward(&drag.point, target, DRAG_MOVES_PER_CALL)?;
                self.note_pose_event();
                self.previous_t = self.sim.time();
                self.previous_x.copy_from(self.sim.positions());
                self.sample_pose();
                Ok(Some(report))
            }
        }
    }

    /// Releases the drag: the pose reached stays (at rest), or the spring lets go.
    pub fn end_drag(&mut self) {
        let Some(drag) = self.drag.take() else {
            return;
        };
        if drag.mode == DragMode::Spring {
            self.sim.clear_extra_loads();
            self.timeline.set_spring(None);
        }
        if let Some(event) = self.current_event() {
            let t = event.t;
            self.timeline.mark(MarkKind::Event, t);
        }
        self.timeline.pin(self.moment());
    }

    /// Poses the mechanism at `x` (projected onto its constraints), at rest and paused: a
    /// point of the configuration-space atlas chosen in its plot. Marked on the timeline and
    /// undone as a drag is.
    pub fn pose_at(&mut self, x: &nalgebra::DVector<f64>) -> Result<(), SolverError> {
        if matches!(self.pause, Some(PauseReason::Failed(_))) || x.len() != self.scene.mechanism.n()
        {
            return Ok(());
        }
        self.begin_hand_action()?;
        if !self.is_paused() {
            self.pause = Some(PauseReason::User);
        }
        self.sim.set_pose_at_rest(x)?;
        self.note_pose_event();
        self.previous_t = self.sim.time();
        self.previous_x.copy_from(self.sim.positions());
        self.sample_pose();
        self.timeline.pin(self.moment());
        Ok(())
    }

    /// A pose at a singular configuration is an event (listed, with its motions and
    /// branches, paused at); any other pose is not.
    fn note_pose_event(&mut self) {
        match self.sim.pose_event() {
            Some(event) => {
                self.branches = branches(&self.scene.mechanism, &event);
                self.current_event = Some(self.remember(event));
                self.pause = Some(PauseReason::Event);
            }
            None => {
                self.current_event = None;
                self.branches = BranchSearch::default();
                if self.pause == Some(PauseReason::Event) {
                    self.pause = Some(PauseReason::User);
                }
            }
        }
    }

    /// A pose changes the state without time passing: the plots' sample at this instant
    /// becomes the posed state (one sample, however long the drag), and the traces follow
    /// the posed point (at this instant too, so an undo of the drag takes them back).
    fn sample_pose(&mut self) {
        self.history.truncate_after(self.sim.time().next_down());
        self.extremes.clear();
        self.record_history();
        self.extend_trace(false);
    }

    /// The drag in progress.
    pub fn drag(&self) -> Option<&Drag> {
        self.drag.as_ref()
    }

    /// The line to draw for a drag: from the grabbed point (where it is now) to the target.
    pub fn drag_line(&self) -> Option<([f64; 3], [f64; 3])> {
        let drag = self.drag.as_ref()?;
        let p = drag
            .point
            .position(&self.scene.mechanism, self.sim.positions());
        Some(([p.x, p.y, p.z], drag.target))
    }

    /// The rank of the constraint Jacobian at the current positions at the detection
    /// tolerance: below the generic rank at (or next to) a singular configuration, as an
    /// event reports it.
    pub fn rank_at_detection(&self) -> usize {
        let tolerance = self.sim.settings().detection_tolerance;
        self.sim.factorization().rank(tolerance)
    }

    /// Ends a paused drag before the run goes on (a spring drag goes on with it).
    pub(super) fn end_drag_if_posing(&mut self) {
        if self.drag.is_some_and(|d| d.mode == DragMode::Pose) {
            self.end_drag();
        }
    }

    /// Before a step: the running drag's spring force at the state the step starts from.
    pub(super) fn pull_spring(&mut self) -> Result<(), SolverError> {
        match self.drag {
            Some(drag) if drag.mode == DragMode::Spring => drag.spring().apply(&mut self.sim),
            _ => Ok(()),
        }
    }
}
