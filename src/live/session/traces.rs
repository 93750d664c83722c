//! The motion traces of a session: the chosen point's path, and the paths of the rigid
//! bodies' traced points, each point with its simulated time, so that going back on the
//! timeline cuts them where the run goes on.

use std::collections::VecDeque;

use nalgebra::{DVector, Vector3};

use super::LiveSession;
use crate::model::Mechanism;

/// The point that leaves the motion trace: a body and, for a bar, the fraction of its length
/// from its start end (0) through its centre (0.5) to its end (1). A point mass is its own
/// point and ignores `along`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    pub body: usize,
    pub along: f64,
}

impl TracePoint {
    /// The centre of mass of `body`.
    pub fn centre(body: usize) -> Self {
        Self { body, along: 0.5 }
    }

    /// Where the point is in the world for positions `x`.
    pub fn position(&self, mechanism: &Mechanism, x: &DVector<f64>) -> [f64; 3] {
        mechanism.point_along(self.body, self.along, x).into()
    }
}

/// A point fixed in a spatial rigid body whose path the 3D view traces: the body, the point in
/// body axes from its centre of mass, and the path so far.
#[derive(Clone, Debug, PartialEq)]
pub struct PointTrace {
    pub body: usize,
    pub local: Vector3<f64>,
    pub path: VecDeque<[f64; 3]>,
    /// The simulated time of each point of `path`.
    pub times: VecDeque<f64>,
}

impl PointTrace {
    pub(super) fn new(body: usize, local: Vector3<f64>) -> Self {
        Self {
            body,
            local,
            path: VecDeque::with_capacity(TRACE_CAPACITY),
            times: VecDeque::with_capacity(TRACE_CAPACITY),
        }
    }
}

/// Appends `p` (at time `t`) to `path` if it has moved `spacing` from the path's last point
/// (or `always`), dropping the oldest point when the path is full.
fn extend_path(
    path: &mut VecDeque<[f64; 3]>,
    times: &mut VecDeque<f64>,
    (t, p): (f64, [f64; 3]),
    spacing: f64,
    always: bool,
) {
    let moved = path.back().is_none_or(|last| {
        let d2: f64 = last.iter().zip(&p).map(|(a, b)| (a - b) * (a - b)).sum();
        d2 >= spacing * spacing
    });
    if always || moved {
        if path.len() == TRACE_CAPACITY {
            path.pop_front();
            times.pop_front();
        }
        path.push_back(p);
        times.push_back(t);
    }
}

/// Drops the points of `path` later than `t`: the run goes on from there.
fn cut_path_after(path: &mut VecDeque<[f64; 3]>, times: &mut VecDeque<f64>, t: f64) {
    while times.back().is_some_and(|&last| last > t) {
        times.pop_back();
        path.pop_back();
    }
}

/// Between samples of the history, the trace takes a point whenever the traced point has
/// moved this fraction of the view's width (5 mm of A02's 5 m, under a pixel on screen).
const TRACE_SPACING: f64 = 1e-3;

/// Points kept for the motion trace.
pub const TRACE_CAPACITY: usize = 12_000;

impl LiveSession {
    pub fn trace(&self) -> &VecDeque<[f64; 3]> {
        &self.trace
    }

    /// Each trace as far as the state shown: the chosen point's, then the rigid bodies'
    /// traced points'. While the timeline is scrubbed back, the path the run took after the
    /// instant shown is left out, as the plots leave it out.
    pub fn shown_traces(&self) -> impl Iterator<Item = impl Iterator<Item = &[f64; 3]>> {
        let now = self.sim.time();
        std::iter::once((&self.trace, &self.trace_times))
            .chain(self.point_traces.iter().map(|t| (&t.path, &t.times)))
            .map(move |(path, times)| {
                path.iter()
                    .zip(times)
                    .take_while(move |(_, t)| **t <= now)
                    .map(|(p, _)| p)
            })
    }

    pub fn trace_point(&self) -> Option<TracePoint> {
        self.trace_point
    }

    /// Chooses the point that leaves the trace (clears the trace). A body index out of range
    /// turns the trace off; `along` is clamped to the bar.
    pub fn set_trace_point(&mut self, point: Option<TracePoint>) {
        let bodies = self.scene.mechanism.bodies().len();
        self.trace_point = point.filter(|p| p.body < bodies).map(|p| TracePoint {
            body: p.body,
            along: if p.along.is_finite() {
                p.along.clamp(0.0, 1.0)
            } else {
                0.5
            },
        });
        self.trace.clear();
        self.trace_times.clear();
    }

    /// The traced points of rigid bodies with their paths.
    pub fn point_traces(&self) -> &[PointTrace] {
        &self.point_traces
    }

    /// The traced points of rigid bodies: body and point in body axes.
    pub fn traced_points(&self) -> Vec<(usize, Vector3<f64>)> {
        self.point_traces
            .iter()
            .map(|t| (t.body, t.local))
            .collect()
    }

    /// Chooses the points of rigid bodies to trace (clears their paths; starts them at the
    /// current pose). Bodies out of range are left out.
    pub fn set_traced_points(&mut self, points: &[(usize, Vector3<f64>)]) {
        let bodies = self.scene.mechanism.bodies().len();
        self.point_traces = points
            .iter()
            .filter(|(body, _)| *body < bodies)
            .map(|&(body, local)| PointTrace::new(body, local))
            .collect();
        self.extend_point_traces(true);
    }

    /// Appends the traced point's position to the trace: always with `always`, otherwise
    /// when it has moved `TRACE_SPACING` of the view's width since the last point (so that a
    /// fast motion, or one the solver runs behind, still leaves a smooth curve).
    pub(super) fn extend_trace(&mut self, always: bool) {
        self.extend_point_traces(always);
        let Some(point) = self.trace_point else {
            return;
        };
        let p = point.position(&self.scene.mechanism, self.sim.positions());
        let spacing = self.trace_spacing();
        let t = self.sim.time();
        extend_path(
            &mut self.trace,
            &mut self.trace_times,
            (t, p),
            spacing,
            always,
        );
    }

    /// The rigid bodies' traced points, as [`LiveSession::extend_trace`] the main one.
    pub(super) fn extend_point_traces(&mut self, always: bool) {
        let spacing = self.trace_spacing();
        let (mech, x, t) = (&self.scene.mechanism, self.sim.positions(), self.sim.time());
        for trace in &mut self.point_traces {
            let p = mech.point_of_body(trace.body, &trace.local, x);
            let point = (t, [p.x, p.y, p.z]);
            extend_path(&mut trace.path, &mut trace.times, point, spacing, always);
        }
    }

    /// Cuts every trace at `t`, where the run goes on from.
    pub(super) fn cut_traces_after(&mut self, t: f64) {
        cut_path_after(&mut self.trace, &mut self.trace_times, t);
        for trace in &mut self.point_traces {
            cut_path_after(&mut trace.path, &mut trace.times, t);
        }
    }

    pub(super) fn trace_spacing(&self) -> f64 {
        TRACE_SPACING * self.scene.view.width.unwrap_or(1.0)
    }
}
