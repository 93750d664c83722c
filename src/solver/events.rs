//! Singular-configuration events: the indicator `rho`, the detector that says when to search
//! for its minimum, the rule that tells singular configurations apart, and the event itself.
//!
//! # The indicator
//!
//! With `r_g` the generic rank (the rank at the start, or next to it if the start is
//! singular), `rho = |R[r_g-1, r_g-1]| / |R[0, 0]|` of the pivoted QR
//! ([`crate::linalg::pivoted_qr`]) goes to zero linearly as the mechanism passes a singular
//! configuration, so `rho^2` is smooth and nearly parabolic there.
//!
//! # Detection
//!
//! The [`EventDetector`] keeps the last three accepted `(t, rho)`; when the middle one is a local
//! minimum it fits a parabola to `rho^2` through the three points. The fit only decides whether to
//! search: a fitted or sampled minimum below 0.25 starts a search of the interpolated trajectory
//! around it (`src/solver/simulation/locate.rs`), which refines the minimum down to the event
//! state's floor. The fit alone is rough with coarse steps, where `rho` bends between samples,
//! and only as good as a parabola at the default step: the search places A02's events about
//! ten times closer to its crossings (the runs: `docs/measurements.md`, *Alternatives
//! measured*).
//!
//! A located minimum below `detection_tolerance` (default 1e-3) is a new singular
//! configuration only if `rho` reached the tolerance since the last one ([`Excursions`]). The
//! four-bar launched to come to rest at its flat pose (`four_bar_stopping`) lingers there
//! with `rho` rippling at 1e-9, and that rule counts each visit once;
//! the 2x3's two flat poses 2.6e-3 s apart stay two, as `rho` rises to 2.0e-3 between them.
//! After resuming from an event the detector's first window starts at the event state
//! ([`EventDetector::resume`]), so a configuration within the next two steps is searched for.
//!
//! Tests (`cargo test --test solver NAME`): `follows_the_reduction` (every crossing of A02 and
//! the modified double and triple four-bars' closed-form reductions over 10 s is one event,
//! at the time the test asserts and prints), `a02_coarse_steps` (every one still found with
//! steps up to 2e-2 s, RK4 and Dopri5, at the default rank tolerance), `close_events`
//! (the 2x3's close pairs, the resting four-bar).
//!
//! # The event
//!
//! A [`SingularEvent`] holds the located time, the rank of `A` there at the detection
//! tolerance, the deficiency (generic rank minus that rank), `rho_min` at the event state, the
//! admissible motions there (the continued columns that carry on the motion before the event,
//! then the new ones, and the traditional QR's columns of the same space) and the event
//! state, which [`Simulation::set_event_state`](super::Simulation::set_event_state) returns
//! to. With `rank_tolerance = detection_tolerance` the dynamics then see the enlarged tangent
//! space, so a push (a torque pulse, Quro 2023, sect. 5.2.2) moves a mechanism that stops
//! there onto another branch (`a_torque_at_the_singularity_leaves_the_parallelogram_branch`).
//! Which of the admissible motions are ways out is found by [`branches`](super::branches()).

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::basis::{ColumnLabel, ColumnOrigin, TangentBasis};

/// A located minimum of `rho`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocatedMinimum {
    pub t: f64,
    pub rho: f64,
}

impl LocatedMinimum {
    /// `Some(self)` if its `rho` is below `tolerance`.
    pub fn into_option_below(self, tolerance: f64) -> Option<Self> {
        (self.rho < tolerance).then_some(self)
    }
}

/// Sliding window of the last three `(t, rho)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventDetector {
    window: [(f64, f64); 3],
    len: usize,
    /// The first point is a state resumed from at a singular configuration (or just off
    /// one): `rho` is near zero there and rises, so it cannot be the left neighbour of a
    /// local minimum.
    resumed: bool,
}

impl EventDetector {
    /// Forgets the window (after a jump of the state).
    pub fn clear(&mut self) {
        self.len = 0;
        self.resumed = false;
    }

    /// Restarts the window at a state resumed from next to a singular configuration (an
    /// event's state, or a state just off it on a branch). A configuration passed within
    /// the next two steps is then reported as a window `[t, t + 2 h]` whose fit is unknown
    /// (`rho` infinite), and found by searching it; with the window simply cleared it was
    /// missed whenever it lay nearer the first step than the second.
    pub fn resume(&mut self, t: f64, rho: f64) {
        self.window[0] = (t, rho);
        self.len = 1;
        self.resumed = true;
    }

    /// Adds an accepted step; returns the fitted minimum if the window's middle point is a
    /// local minimum of `rho` (whatever its value: the caller compares it with the detection
    /// tolerance). After `resume`, the first window reports its middle point with an
    /// infinite `rho` when `rho` falls towards it from the right.
    pub fn push(&mut self, t: f64, rho: f64) -> Option<LocatedMinimum> {
        if self.len == 3 {
            self.window.rotate_left(1);
            self.len = 2;
            self.resumed = false;
        }
        self.window[self.len] = (t, rho);
        self.len += 1;
        if self.len < 3 {
            return None;
        }
        let [(t0, r0), (t1, r1), (t2, r2)] = self.window;
        if self.resumed {
            return (r1 < r2).then_some(LocatedMinimum {
                t: t1,
                rho: f64::INFINITY,
            });
        }
        if !(r1 <= r0 && r1 < r2) {
            return None;
        }
        Some(parabola_minimum([
            (t0, r0 * r0),
            (t1, r1 * r1),
            (t2, r2 * r2),
        ]))
    }

    /// The current window of `(t, rho)`, oldest first.
    pub fn window(&self) -> &[(f64, f64)] {
        &self.window[..self.len]
    }
}

/// Vertex of the parabola through three `(t, y)` points with `y = rho^2`, clamped to
/// `[t0, t2]`; returns the time and `sqrt(max(y, 0))`.
pub fn parabola_minimum(points: [(f64, f64); 3]) -> LocatedMinimum {
    let [(t0, y0), (t1, y1), (t2, y2)] = points;
    let d01 = (y1 - y0) / (t1 - t0);
    let d12 = (y2 - y1) / (t2 - t1);
    let a = (d12 - d01) / (t2 - t0);
    if a.is_nan() || a <= 0.0 || !a.is_finite() {
        return LocatedMinimum {
            t: t1,
            rho: y1.max(0.0).sqrt(),
        };
    }
    // y = y1 + d01 (t - t1) + a (t - t0)(t - t1) in Newton form.
    let b = d01 - a * (t0 + t1);
    let t_star = (-b / (2.0 * a)).clamp(t0, t2);
    let y_star = y1 + d01 * (t_star - t1) + a * (t_star - t0) * (t_star - t1);
    LocatedMinimum {
        t: t_star,
        rho: y_star.max(0.0).sqrt(),
    }
}

/// Singular configurations one step can report; a further one its search finds is left to
/// the next step's search, which finds it again (one step late) if it lies in its range.
pub(crate) const MAX_EVENTS_PER_STEP: usize = 4;

/// Tells singular configurations apart along the trajectory. A minimum of `rho` below the
/// detection tolerance is a new configuration only if `rho` reached the tolerance between
/// the previous one and it: one excursion below the tolerance is one configuration, however
/// many minima its floor has (a four-bar coming to rest next to its flat pose and turning
/// back lingers there with `rho` rippling at 1e-9), and a minimum found again by an
/// overlapping search is the configuration already reported. The 2x3's two flat poses
/// 2.6e-3 s apart are two: `rho` rises to 2.0e-3 between them.
///
/// Fed in time order within a step: `observe` the sampled `rho`, `offer` the located minima.
#[derive(Clone, Debug, PartialEq)]
pub struct Excursions {
    /// Time of the last configuration (reported, or found in this step).
    last: Option<f64>,
    /// The earliest time after `last` where `rho` was seen at or above the tolerance.
    risen_at: Option<f64>,
    found: [LocatedMinimum; MAX_EVENTS_PER_STEP],
    count: usize,
}

impl Default for Excursions {
    fn default() -> Self {
        Self {
            last: None,
            risen_at: None,
            found: [LocatedMinimum {
                t: f64::NAN,
                rho: f64::NAN,
            }; MAX_EVENTS_PER_STEP],
            count: 0,
        }
    }
}

impl Excursions {
    /// Forgets every configuration (a new start).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The trajectory resumes from the configuration at `t` (an event's state).
    pub fn resume_at(&mut self, t: f64) {
        self.clear();
        self.last = Some(t);
    }

    /// Starts a step: nothing found in it yet.
    pub fn begin_step(&mut self) {
        self.count = 0;
    }

    /// `rho` sampled at `t`.
    pub fn observe(&mut self, t: f64, rho: f64, tolerance: f64) {
        if rho >= tolerance && self.last.is_none_or(|last| t > last) {
            self.risen_at = Some(self.risen_at.map_or(t, |r| r.min(t)));
        }
    }

    /// A located minimum of `rho`: a new configuration, a lower point of the one found last in
    /// this step (which it replaces), or ignored.
    pub fn offer(&mut self, minimum: LocatedMinimum, tolerance: f64) {
        // Not below (NaN neither).
        if minimum.rho.partial_cmp(&tolerance) != Some(std::cmp::Ordering::Less) {
            return;
        }
        let new = self
            .last
            .is_none_or(|last| minimum.t > last && self.risen_at.is_some_and(|r| r < minimum.t));
        if new {
            if self.count == MAX_EVENTS_PER_STEP {
                return;
            }
            self.found[self.count] = minimum;
            self.count += 1;
        } else {
            let Some(previous) = self.found[..self.count].last_mut() else {
                return;
            };
            if Some(previous.t) != self.last
                || minimum.t <= previous.t
                || minimum.rho >= previous.rho
            {
                return;
            }
            *previous = minimum;
        }
        self.last = Some(minimum.t);
        self.risen_at = self.risen_at.filter(|&r| r > minimum.t);
    }

    /// Time of the last configuration, reported or found in this step.
    pub fn last(&self) -> Option<f64> {
        self.last
    }

    /// The configurations found in this step, in time order.
    pub fn found(&self) -> &[LocatedMinimum] {
        &self.found[..self.count]
    }
}

/// A singular configuration passed during a step. The simulation keeps one, preallocated,
/// and fills it in place when it locates an event (no allocation on that step either); the
/// caller clones it to keep it.
#[derive(Clone, Debug, PartialEq)]
pub struct SingularEvent {
    /// Located time of the minimum of `rho`.
    pub t: f64,
    /// `rho` at the event state (interpolated and projected): the located minimum.
    pub rho_min: f64,
    /// Rank of `A` at the event state with the detection tolerance.
    pub rank: usize,
    /// Generic rank minus `rank`.
    pub deficiency: usize,
    /// Positions and velocities at the event (interpolated, then projected).
    pub x: DVector<f64>,
    pub xd: DVector<f64>,
    /// The admissible motions at the detection tolerance (n x n storage): the `k_continued`
    /// columns that continue the motion before the event, then the `k_new` new ones.
    admissible: DMatrix<f64>,
    k_continued: usize,
    k_new: usize,
    continued_labels: Vec<ColumnLabel>,
    /// The same space as the traditional QR gives it (n x n storage, `k_continued + k_new`
    /// columns used).
    traditional: DMatrix<f64>,
    /// The continued and traditional bases at the event state and the rank tolerance, with
    /// `q` carried to the event time, restored by `Simulation::set_event_state`.
    pub(crate) basis: TangentBasis,
    pub(crate) traditional_basis: TangentBasis,
}

impl SingularEvent {
    /// Storage for the events of an n-coordinate mechanism.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            t: f64::NAN,
            rho_min: f64::NAN,
            rank: 0,
            deficiency: 0,
            x: DVector::zeros(n),
            xd: DVector::zeros(n),
            admissible: DMatrix::zeros(n, n),
            k_continued: 0,
            k_new: 0,
            continued_labels: Vec::with_capacity(n),
            traditional: DMatrix::zeros(n, n),
            basis: TangentBasis::new(n),
            traditional_basis: TangentBasis::new(n),
        }
    }

    /// Stores the admissible motions: `basis`'s columns (those it had before the event
    /// first, then those that appeared at the event time `t`) and the traditional QR's
    /// columns `t_hat` of the same space. A column that appeared at an earlier event and is
    /// followed now (after leaving along a branch) continues the motion before this one.
    pub(crate) fn set_motions(&mut self, basis: &TangentBasis, t_hat: &DMatrixView<f64>, t: f64) {
        let labels = basis.labels();
        let k = basis.dim();
        let appeared_now =
            |l: &&ColumnLabel| matches!(l.origin, ColumnOrigin::New { t: at } if at == t);
        let k_cont = k - labels.iter().filter(appeared_now).count();
        let n = self.admissible.ncols();
        self.admissible
            .columns_mut(0, k)
            .copy_from(&basis.columns());
        self.admissible.columns_mut(k, n - k).fill(0.0);
        self.k_continued = k_cont;
        self.k_new = k - k_cont;
        self.continued_labels.clear();
        self.continued_labels.extend_from_slice(&labels[..k_cont]);
        self.traditional.columns_mut(0, k).copy_from(t_hat);
        self.traditional.columns_mut(k, n - k).fill(0.0);
    }

    /// Admissible motions at the detection tolerance that continue the motion before the
    /// event (n x k).
    pub fn continued(&self) -> DMatrixView<'_, f64> {
        self.admissible.columns(0, self.k_continued)
    }

    /// Labels of the continued columns (which basis column each one continues).
    pub fn continued_labels(&self) -> &[ColumnLabel] {
        &self.continued_labels
    }

    /// Admissible motions new at the event (n x deficiency), canonical basis.
    pub fn new_motions(&self) -> DMatrixView<'_, f64> {
        self.admissible.columns(self.k_continued, self.k_new)
    }

    /// The same admissible motions as the traditional QR gives them: the last n - rank
    /// columns of `Q` at the detection tolerance, in the factorisation's order and signs
    /// (an arbitrary basis of the space `continued` and `new_motions` span together).
    pub fn traditional(&self) -> DMatrixView<'_, f64> {
        self.traditional.columns(0, self.motion_count())
    }

    /// Number of admissible motions (continued plus new).
    pub fn motion_count(&self) -> usize {
        self.k_continued + self.k_new
    }
}

#[cfg(test)]
mod tests {
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    use super::*;

    const TOLERANCE: f64 = 1e-3;

    fn minimum(t: f64, rho: f64) -> LocatedMinimum {
        LocatedMinimum { t, rho }
    }

    #[test]
    fn minima_apart_by_a_rise_to_the_tolerance_are_two_configurations() {
        let mut excursions = Excursions::default();
        excursions.begin_step();
        excursions.offer(minimum(1.0, 1e-5), TOLERANCE);
        excursions.observe(1.1, 2e-3, TOLERANCE);
        excursions.offer(minimum(1.2, 2e-5), TOLERANCE);
        assert_eq!(
            excursions.found(),
            &[minimum(1.0, 1e-5), minimum(1.2, 2e-5)]
        );
    }

    #[test]
    fn minima_of_one_excursion_are_one_configuration_at_the_lowest() {
        let mut excursions = Excursions::default();
        excursions.begin_step();
        excursions.offer(minimum(1.0, 1e-8), TOLERANCE);
        excursions.observe(1.05, 5e-4, TOLERANCE);
        excursions.offer(minimum(1.1, 1e-9), TOLERANCE);
        excursions.offer(minimum(1.2, 1e-7), TOLERANCE);
        assert_eq!(excursions.found(), &[minimum(1.1, 1e-9)]);
        // A later step finds it again (an overlapping search): nothing new.
        excursions.begin_step();
        excursions.offer(minimum(1.1 + 1e-12, 1e-9), TOLERANCE);
        excursions.offer(minimum(1.15, 1e-10), TOLERANCE);
        assert!(excursions.found().is_empty());
    }

    #[test]
    fn a_rise_seen_after_a_minimum_does_not_separate_it_from_the_last() {
        // The current state is seen above the tolerance before a search of the steps before
        // it finds the last configuration again.
        let mut excursions = Excursions::default();
        excursions.begin_step();
        excursions.offer(minimum(1.0, 1e-6), TOLERANCE);
        excursions.begin_step();
        excursions.observe(1.3, 5e-3, TOLERANCE);
        excursions.offer(minimum(1.0 + 1e-9, 1e-6), TOLERANCE);
        assert!(excursions.found().is_empty());
        // The same rise does separate a minimum after it.
        excursions.offer(minimum(1.4, 1e-6), TOLERANCE);
        assert_eq!(excursions.found(), &[minimum(1.4, 1e-6)]);
    }

    #[test]
    fn after_resuming_at_a_configuration_it_is_not_found_again() {
        let mut excursions = Excursions::default();
        excursions.resume_at(2.0);
        excursions.begin_step();
        excursions.offer(minimum(2.0 + 1e-4, 1e-7), TOLERANCE);
        excursions.observe(2.001, 1.5e-3, TOLERANCE);
        excursions.offer(minimum(2.0026, 2e-5), TOLERANCE);
        assert_eq!(excursions.found(), &[minimum(2.0026, 2e-5)]);
    }

    #[test]
    fn minima_above_the_tolerance_are_not_configurations() {
        let mut excursions = Excursions::default();
        excursions.begin_step();
        excursions.offer(minimum(1.0, 1e-3), TOLERANCE);
        excursions.offer(minimum(1.0, f64::NAN), TOLERANCE);
        assert!(excursions.found().is_empty());
    }

    #[test]
    fn parabola_vertex_of_exact_parabola() {
        // y = 2 (t - 0.3)^2 + 0.01, vertex (0.3, 0.01).
        let y = |t: f64| 2.0 * (t - 0.3) * (t - 0.3) + 0.01;
        let m = parabola_minimum([(0.1, y(0.1)), (0.25, y(0.25)), (0.5, y(0.5))]);
        assert_abs_diff_eq!(m.t, 0.3, epsilon = 1e-12);
        assert_abs_diff_eq!(m.rho, 0.1, epsilon = 1e-12);
    }

    #[test]
    fn v_shaped_rho_is_located_between_grid_points() {
        // rho = |t - 0.123| sampled on a 0.01 grid: rho^2 is an exact parabola.
        let mut detector = EventDetector::default();
        let mut found = None;
        for i in 0..30 {
            let t = i as f64 * 0.01;
            if let Some(m) = detector.push(t, (t - 0.123).abs()) {
                found = Some(m);
            }
        }
        let m = found.expect("event located");
        assert_abs_diff_eq!(m.t, 0.123, epsilon = 1e-12);
        assert!(m.rho < 1e-6);
    }

    #[test]
    fn shallow_minimum_is_reported_with_its_value() {
        // rho = 0.1 + (t - 0.123)^2: one local minimum, fitted at 0.1 (above any detection
        // tolerance; the simulation decides), and nothing on the monotone parts.
        let mut detector = EventDetector::default();
        let mut found = Vec::new();
        for i in 0..30 {
            let t = i as f64 * 0.01;
            found.extend(detector.push(t, 0.1 + (t - 0.123).powi(2)));
        }
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(abs_diff_eq!(found[0].rho, 0.1, epsilon = 1e-4), "{found:?}");
    }
}
