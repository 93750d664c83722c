//! Posing the mechanism by hand: [`Simulation::set_pose_at_rest`] puts it at given positions
//! (projected onto the constraints) with zero velocity, and [`Simulation::drag_toward`] moves
//! it along its constraints so that a point of a body comes as close to a target as the
//! constraints allow.
//!
//! # How a drag moves
//!
//! It minimises the distance from the grabbed point `p(x)` to the target over the constraint
//! manifold by small Gauss-Newton steps: at the current pose `T` (n x k, the tangent columns
//! of the factorisation every step keeps, at the rank tolerance of the dynamics) spans the
//! admissible motions; the move `dx = T u` with `u` the minimum-norm least-squares solution
//! of `(J_p T) u = target - p` (Golub and Van Loan 2013, sect. 5.5, the pseudo-inverse by the
//! SVD) is cut to `DRAG_STEP` in its largest coordinate, then Newton brings the positions
//! back onto the constraints ([`projection`](crate::solver) with the running settings, so
//! every pose reached satisfies them to `newton_tolerance`). A step that does not bring the
//! point closer is halved; the drag stops when the point reaches the target, when no step
//! helps (the nearest reachable pose), or after the iterations allowed.
//!
//! The small steps keep Newton on the branch the pose is on, and let the drag reach a
//! singular configuration exactly: dragging the four-bar's coupler centre to where it is in
//! the flat pose reaches it within 1e-13 m in three calls, with `rho` 9e-12 and the rank 7 of
//! 8. There the rank drops, `T` gains the new motion, and the pull chooses the branch: of
//! the admissible motions, the minimum-norm move favours those that move the grabbed point
//! most per unit of coordinates, and Newton lands on the branch the move is closest to.
//! Lifting crank 2's tip takes the fold (crank 1 stays on the ground line), lifting crank 1's
//! tip the parallelogram, and the coupler's centre, which moves along both, the
//! parallelogram (`tests/session/drag.rs`). A target exactly opposite the point's only
//! direction of motion (a maximum of the distance) does not move it: the pointer's next
//! position does. Velocities stay zero; both bases are continued over each move (a move is a
//! step of zero duration for them), the singularity detector restarts at the pose, and
//! `rho`, the rank and the motions are those of the pose; a pose with `rho` below the
//! detection tolerance is described as a singular event ([`Simulation::pose_event`]), with
//! the motions and branches a located one has.

use nalgebra::{DMatrix, DVector, Vector3};

use super::Simulation;
use crate::solver::basis::StepEnd;
use crate::solver::drag::GrabPoint;
use crate::solver::error::SolverError;
use crate::solver::events::SingularEvent;

/// The largest change of any coordinate (m or rad) in one move of a drag.
const DRAG_STEP: f64 = 0.02;
/// Moves are halved down to this size before the drag gives up for this call.
const SMALLEST_STEP: f64 = 1e-10;
/// The target counts as reached this close (m).
const REACHED: f64 = 1e-12;
/// Singular values of `J_p T` below this fraction of the largest are left out of the
/// least-squares move (motions that do not move the point).
const POINT_RANK_TOLERANCE: f64 = 1e-9;

/// What a call to [`Simulation::drag_toward`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DragReport {
    /// Distance from the grabbed point to the target at the pose reached (m).
    pub distance: f64,
    /// Moves accepted.
    pub moves: usize,
}

impl Simulation {
    /// Puts the mechanism at positions `x` (projected onto the constraints) at rest, at the
    /// current time; both bases are continued to the new tangent space and the detector
    /// restarts there.
    pub fn set_pose_at_rest(&mut self, x: &DVector<f64>) -> Result<(), SolverError> {
        let n = self.mechanism.n();
        if x.len() != n {
            return Err(SolverError::StateLength {
                expected: n,
                positions: x.len(),
                velocities: n,
            });
        }
        self.adopt_positions(x);
        self.place_at_rest()
    }

    /// [`set_pose_at_rest`](Self::set_pose_at_rest) at the positions already in `x` (angles
    /// with their turns counted apart, `turns`).
    fn place_at_rest(&mut self) -> Result<(), SolverError> {
        self.xd.fill(0.0);
        self.project_current()?;
        self.xd.fill(0.0);
        self.continue_bases_in_place();
        self.refresh_shown();
        Ok(())
    }

    /// Continues both bases to the tangent space at the current state, as over a step of
    /// zero duration, and restarts event detection there.
    fn continue_bases_in_place(&mut self) {
        let n = self.mechanism.n();
        let end = StepEnd {
            t_hat: self.qr_state.q().columns(self.rank, n - self.rank),
            xd: &self.xd,
            h: 0.0,
            t: self.t,
        };
        self.updater.update_traditional(&mut self.traditional, &end);
        self.event_basis.copy_from(&self.continued);
        let predicted = self.event_basis.columns();
        self.updater.update_continued(
            &mut self.continued,
            &predicted,
            self.mechanism.motion_weights(),
            &end,
        );
        self.restart_detection(self.t);
    }

    /// The current pose described as a singular event, if `rho` is below the detection
    /// tolerance there: its admissible motions at that tolerance and both bases, as a located
    /// event is (so the session can list it, draw its motions and branches, and push or
    /// leave from it). Described in the simulation's event storage: the last step's events
    /// are forgotten.
    pub fn pose_event(&mut self) -> Option<SingularEvent> {
        if self.rho() >= self.settings.detection_tolerance {
            return None;
        }
        self.x_next.copy_from(&self.x);
        self.xd_next.copy_from(&self.xd);
        self.qr_next.copy_from(&self.qr_state);
        self.event_count = 0;
        self.describe_event(self.t, None, 0);
        Some(self.events[0].clone())
    }

    /// Moves the mechanism at rest along its constraints so that `point` comes closer to
    /// `target` (world; z ignored in the plane), by at most `max_moves` moves (see the module
    /// docs). Allocates (a drag is not the running loop).
    pub fn drag_toward(
        &mut self,
        point: &GrabPoint,
        target: [f64; 3],
        max_moves: usize,
    ) -> Result<DragReport, SolverError> {
        if !point.fits(&self.mechanism) || !target.iter().all(|v| v.is_finite()) {
            return Err(SolverError::InvalidDrag);
        }
        let target = Vector3::from(target);
        let mut distance = self.gap(point, &target).norm();
        let mut step = DRAG_STEP;
        let mut moves = 0;
        while moves < max_moves && distance > REACHED && step >= SMALLEST_STEP {
            let Some(dx) = self.drag_move(point, &target, step) else {
                break;
            };
            let before = self.x.clone();
            self.x += &dx;
            let accepted = match self.place_at_rest() {
                Ok(()) => self.gap(point, &target).norm() < distance,
                Err(_) => false,
            };
            if accepted {
                distance = self.gap(point, &target).norm();
                moves += 1;
            } else {
                self.x.copy_from(&before);
                self.place_at_rest()?;
                step *= 0.5;
            }
        }
        Ok(DragReport { distance, moves })
    }

    /// From the grabbed point to the target (z dropped in the plane).
    fn gap(&self, point: &GrabPoint, target: &Vector3<f64>) -> Vector3<f64> {
        let mut gap = target - point.position(&self.mechanism, &self.x);
        if !self.mechanism.is_spatial() {
            gap.z = 0.0;
        }
        gap
    }

    /// The least-squares move of the point towards the target in the tangent space, cut to
    /// `step` in its largest coordinate; `None` if no admissible motion moves the point.
    fn drag_move(
        &self,
        point: &GrabPoint,
        target: &Vector3<f64>,
        step: f64,
    ) -> Option<DVector<f64>> {
        let n = self.mechanism.n();
        let k = n - self.rank;
        if k == 0 {
            return None;
        }
        let tangent = self.qr_state.q().columns(self.rank, k).into_owned();
        let mut moved = DMatrix::zeros(3, k);
        for j in 0..k {
            let column = tangent.column(j).into_owned();
            moved.set_column(j, &point.velocity(&self.mechanism, &self.x, &column));
        }
        let svd = moved.svd(true, true);
        let largest = svd.singular_values.max();
        if largest.is_nan() || largest <= 0.0 {
            return None;
        }
        let gap = self.gap(point, target);
        let u = svd.solve(&gap, POINT_RANK_TOLERANCE * largest).ok()?;
        let mut dx = tangent * u;
        let biggest = dx.amax();
        if !biggest.is_finite() || biggest == 0.0 {
            return None;
        }
        if biggest > step {
            dx *= step / biggest;
        }
        Some(dx)
    }
}
