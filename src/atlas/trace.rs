//! Tracing one section: pseudo-arclength continuation of each curve, the singular points
//! located on it, and the branches that leave them, until every branch is traced.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};

use nalgebra::{DMatrix, DVector};

use super::refine::refine;
use super::section::{Corrector, Section};
use super::{AtlasError, Curve, CurveEnd, SingularPoint};
use crate::linalg::PivotedQr;
use crate::solver::{common_zero_lines, second_order_forms};

/// Step lengths (in `x`, metres and radians mixed as the coordinates are).
const FIRST_STEP: f64 = 0.02;
const MAX_STEP: f64 = 0.1;
const MIN_STEP: f64 = 1e-7;
/// The tangent may turn at most this much (rad) in one step.
const MAX_TURN: f64 = 0.2;
/// A step whose corrector took at most this many iterations grows, more shrinks it.
const EASY_CORRECTION: usize = 2;
const HARD_CORRECTION: usize = 5;
/// Golden-section iterations locating a singular point (the bracket shrinks 0.618 times each).
const LOCATE_ITERATIONS: usize = 64;
/// Two singular points closer than this (largest coordinate difference, angles modulo 2 pi)
/// are one.
const SAME_POINT: f64 = 1e-4;
/// Two unit directions whose dot product exceeds this leave a singular point the same way.
const SAME_DIRECTION: f64 = 0.999;
/// A curve leaves the scene's limits where a coordinate exceeds this (the scene format's
/// bound on lengths and coordinates).
const LIMIT: f64 = 1e6;

/// What the tracer of a section shares: the section's equations, the settings, and what was
/// found so far in all sections.
pub(super) struct Tracer<'a, 'b> {
    pub section: Section<'a>,
    pub corrector: Corrector,
    pub detection: f64,
    pub rank_tolerance: f64,
    pub generic_rank: usize,
    /// Which coordinates are planar angles (compared modulo 2 pi).
    pub angles: &'b [bool],
    /// Where each rigid body's Euler parameters start (`e` and `-e` are one orientation).
    pub quaternions: Vec<usize>,
    pub section_index: usize,
    pub budget: usize,
    pub points: usize,
    pub cancel: &'b AtomicBool,
    pub curves: Vec<Curve>,
    pub singular: Vec<SingularPoint>,
    /// For each singular point, the unit directions already traced out of it.
    used: Vec<Vec<DVector<f64>>>,
    queue: VecDeque<(usize, DVector<f64>)>,
    // Workspace of one step, and of the search for a singular point.
    origin: DVector<f64>,
    base: DVector<f64>,
    chord: DVector<f64>,
    probe: DVector<f64>,
    x: DVector<f64>,
    t: DVector<f64>,
    trial: DVector<f64>,
    tangent: DVector<f64>,
}

impl<'a, 'b> Tracer<'a, 'b> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        section: Section<'a>,
        corrector: Corrector,
        detection: f64,
        rank_tolerance: f64,
        angles: &'b [bool],
        section_index: usize,
        budget: usize,
        cancel: &'b AtomicBool,
    ) -> Self {
        let n = section.n();
        Self {
            section,
            corrector,
            detection,
            rank_tolerance,
            generic_rank: 0,
            angles,
            quaternions: Vec::new(),
            section_index,
            budget,
            points: 0,
            cancel,
            curves: Vec::new(),
            singular: Vec::new(),
            used: Vec::new(),
            queue: VecDeque::new(),
            origin: DVector::zeros(n),
            base: DVector::zeros(n),
            chord: DVector::zeros(n),
            probe: DVector::zeros(n),
            x: DVector::zeros(n),
            t: DVector::zeros(n),
            trial: DVector::zeros(n),
            tangent: DVector::zeros(n),
        }
    }

    /// Traces the section from `start` (corrected onto it first): the curve through it both
    /// ways, then every branch out of every singular point met.
    pub fn trace(&mut self, start: &DVector<f64>) -> Result<(), AtlasError> {
        let mut x0 = start.clone();
        if self.section.correct(&mut x0, &self.corrector).is_none() {
            return Err(AtlasError::NotOnTheSet);
        }
        self.section.factorize(&x0);
        self.generic_rank = self.section.qr.rank(self.rank_tolerance);
        let n = self.section.n();
        let dof = n - self.generic_rank;
        if dof != 1 {
            return Err(AtlasError::Dof(dof));
        }
        let t0 = self.section.qr.q_columns(n - 1).column(0).into_owned();
        let forward = self.trace_curve(&x0, &t0, CurveEnd::Start)?;
        if forward.end != CurveEnd::Closed {
            let backward = self.trace_curve(&x0, &(-&t0), CurveEnd::Start)?;
            self.curves.push(joined(backward, forward, n));
        } else {
            self.curves.push(forward);
        }
        while let Some((point, direction)) = self.queue.pop_front() {
            if self.is_used(point, &direction) {
                continue;
            }
            self.used[point].push(direction.clone());
            let from = self.singular[point].x.clone();
            let curve = self.trace_curve(&from, &direction, CurveEnd::Singular(point))?;
            self.curves.push(curve);
        }
        Ok(())
    }

    fn is_used(&self, point: usize, direction: &DVector<f64>) -> bool {
        self.used[point]
            .iter()
            .any(|d| d.dot(direction) > SAME_DIRECTION)
    }

    /// Traces one curve from `start` along `direction` until it closes (a curve from the
    /// assembled pose returning to it), meets a singular point, leaves the limits, or the
    /// budget runs out.
    fn trace_curve(
        &mut self,
        start: &DVector<f64>,
        direction: &DVector<f64>,
        from: CurveEnd,
    ) -> Result<Curve, AtlasError> {
        let n = self.section.n();
        let mut curve = Curve {
            section: self.section_index,
            start: from,
            end: CurveEnd::Budget,
            s: Vec::with_capacity(self.budget.saturating_sub(self.points) + 1),
            rank: Vec::new(),
            x: Vec::new(),
        };
        curve.rank.reserve(curve.s.capacity());
        curve.x.reserve(curve.s.capacity() * n);
        self.x.copy_from(start);
        self.origin.copy_from(start);
        self.t.copy_from(direction);
        self.t.normalize_mut();
        self.section.factorize(&self.x);
        let first_rank = self.section.qr.rank(self.detection).min(self.generic_rank);
        push(&mut curve, 0.0, first_rank, &self.x);
        // From a singular point the curve's own rank is read one step out.
        let mut watched = match from {
            CurveEnd::Singular(_) => None,
            _ => Some(first_rank),
        };
        let mut h = FIRST_STEP;
        let mut s = 0.0;
        // rho at the last two points, for a minimum between them.
        let mut history: Vec<(f64, f64)> = Vec::with_capacity(4);
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(AtlasError::Cancelled);
            }
            if self.points >= self.budget {
                curve.end = CurveEnd::Budget;
                return Ok(curve);
            }
            let Some((iterations, turn)) = self.step(h) else {
                h *= 0.5;
                if h < MIN_STEP {
                    curve.end = CurveEnd::Failed;
                    return Ok(curve);
                }
                continue;
            };
            let moved = self
                .trial
                .iter()
                .zip(self.x.iter())
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            s += moved;
            self.x.copy_from(&self.trial);
            self.t.copy_from(&self.tangent);
            self.points += 1;
            let rank_here = self.section.qr.rank(self.detection).min(self.generic_rank);
            let curve_rank = *watched.get_or_insert(rank_here);
            push(&mut curve, s, rank_here, &self.x);
            let rho = self.section.relative_entry(curve_rank.max(1) - 1);
            history.push((s, rho));
            if history.len() > 3 {
                history.remove(0);
            }
            if let [(s0, r0), (_, r1), (_, r2)] = history[..]
                && r1 < r0
                && r1 <= r2
                && let Some((point, x)) = self.locate(&curve, s0, curve_rank)?
            {
                self.end_at(&mut curve, point, &x);
                return Ok(curve);
            }
            if matches!(from, CurveEnd::Start) && s > 4.0 * MAX_STEP && self.closes(h) {
                // The assembled pose, in the curve's coordinates (whole turns on).
                let s = s + self.trial.norm();
                self.x += &self.trial;
                push(&mut curve, s, first_rank, &self.x);
                curve.end = CurveEnd::Closed;
                return Ok(curve);
            }
            if self.x.amax() > LIMIT {
                curve.end = CurveEnd::Limits;
                return Ok(curve);
            }
            h = if iterations <= EASY_CORRECTION && turn < 0.5 * MAX_TURN {
                (1.5 * h).min(MAX_STEP)
            } else if iterations >= HARD_CORRECTION {
                0.5 * h
            } else {
                h
            };
        }
    }

    /// Whether the assembled pose lies ahead within a step of `h`; if so `trial` is the way
    /// to it (angles wrapped to the nearest turn).
    fn closes(&mut self, h: f64) -> bool {
        for i in 0..self.x.len() {
            let d = self.origin[i] - self.x[i];
            self.trial[i] = if self.angles[i] {
                let wrapped = d.rem_euclid(std::f64::consts::TAU);
                if wrapped > std::f64::consts::PI {
                    wrapped - std::f64::consts::TAU
                } else {
                    wrapped
                }
            } else {
                d
            };
        }
        // A rigid body turned once round has the opposite Euler parameters: the same pose.
        for &q in &self.quaternions {
            let (plus, minus) = (0..4).fold((0.0, 0.0), |(p, m), k| {
                let (o, x) = (self.origin[q + k], self.x[q + k]);
                (p + (o - x) * (o - x), m + (o + x) * (o + x))
            });
            if minus < plus {
                for k in 0..4 {
                    self.trial[q + k] = -self.origin[q + k] - self.x[q + k];
                }
            }
        }
        self.trial.norm() <= h && self.trial.dot(&self.t) > 0.0
    }

    /// Ends `curve` at singular point `point`, located at `x` (in the curve's coordinates: a
    /// point found before may differ by whole turns): the points traced past it are dropped,
    /// and `x` is the curve's last.
    fn end_at(&self, curve: &mut Curve, point: usize, x: &DVector<f64>) {
        let n = self.section.n();
        let beyond = |curve: &Curve| {
            let last = curve.point(curve.len() - 1);
            last.iter()
                .zip(x.iter())
                .zip(self.t.iter())
                .map(|((p, q), t)| (p - q) * t)
                .sum::<f64>()
                > 0.0
        };
        while curve.len() > 1 && beyond(curve) {
            curve.s.pop();
            curve.rank.pop();
            curve.x.truncate(curve.x.len() - n);
        }
        let last = DVector::from_column_slice(curve.point(curve.len() - 1));
        let s = curve.s[curve.len() - 1] + (x - last).norm();
        curve.end = CurveEnd::Singular(point);
        push(curve, s, self.singular[point].rank, x);
    }

    /// One predictor-corrector step of length `h` from `x` along `t` into `trial`, with its
    /// tangent in `tangent`: the corrector's iterations and the angle the tangent turned, or
    /// `None` when the corrector fails or the tangent turns too far.
    fn step(&mut self, h: f64) -> Option<(usize, f64)> {
        self.trial.copy_from(&self.x);
        self.trial.axpy(h, &self.t, 1.0);
        let iterations = self.section.correct(&mut self.trial, &self.corrector)?;
        self.section.factorize(&self.trial);
        let rank = self.section.qr.rank(self.detection).min(self.generic_rank);
        tangent_near(&self.section.qr, rank, &self.t, &mut self.tangent);
        let turn = self.tangent.dot(&self.t).clamp(-1.0, 1.0).acos();
        (turn <= MAX_TURN).then_some((iterations, turn))
    }

    /// Locates the minimum of `rho` (entry `rank - 1`) on `curve` between the point at
    /// arclength `from` and its last point by golden-section search; a minimum below the detection tolerance is
    /// a singular point (new or one found before), whose index is returned with the located
    /// point.
    fn locate(
        &mut self,
        curve: &Curve,
        from: f64,
        rank: usize,
    ) -> Result<Option<(usize, DVector<f64>)>, AtlasError> {
        let n = self.section.n();
        let base_index = curve.s.iter().position(|&s| s == from).unwrap_or(0);
        let last = curve.len() - 1;
        for i in 0..n {
            self.base[i] = curve.x[base_index * n + i];
            self.chord[i] = curve.x[last * n + i] - self.base[i];
        }
        let length = self.chord.norm();
        if length == 0.0 {
            return Ok(None);
        }
        self.chord /= length;
        // `rho` at arclength `sigma` along the chord, the point corrected onto the set into
        // `probe` (the workspace: the search allocates nothing).
        let at = |sigma: f64, this: &mut Self| -> Option<f64> {
            this.probe.copy_from(&this.base);
            this.probe.axpy(sigma, &this.chord, 1.0);
            this.section.correct(&mut this.probe, &this.corrector)?;
            this.section.factorize(&this.probe);
            Some(this.section.relative_entry(rank.max(1) - 1))
        };
        let golden = 0.5 * (5f64.sqrt() - 1.0);
        let (mut lo, mut hi) = (0.0, length);
        let mut a = hi - golden * (hi - lo);
        let mut b = lo + golden * (hi - lo);
        let (Some(mut fa), Some(mut fb)) = (at(a, self), at(b, self)) else {
            return Ok(None);
        };
        for _ in 0..LOCATE_ITERATIONS {
            if fa <= fb {
                hi = b;
                b = a;
                fb = fa;
                a = hi - golden * (hi - lo);
                let Some(next) = at(a, self) else { break };
                fa = next;
            } else {
                lo = a;
                a = b;
                fa = fb;
                b = lo + golden * (hi - lo);
                let Some(next) = at(b, self) else { break };
                fb = next;
            }
        }
        let best = if fa <= fb { a } else { b };
        match at(best, self) {
            Some(rho) if rho < self.detection => {}
            _ => return Ok(None),
        }
        let x = self.probe.clone();
        self.section.factorize(&x);
        let low = self.section.qr.rank(self.detection);
        let x = refine(&mut self.section, &x, low, self.generic_rank).unwrap_or(x);
        self.section.factorize(&x);
        let rho = self.section.relative_entry(rank.max(1) - 1);
        Ok(Some((self.singular_point(x.clone(), rho), x)))
    }

    /// The index of the singular point at `x` (`rho` there), added with its branches queued
    /// if it is new.
    fn singular_point(&mut self, x: DVector<f64>, rho: f64) -> usize {
        let arriving = -&self.t;
        if let Some(known) = self.singular.iter().position(|p| {
            p.section == self.section_index
                && distance(&p.x, &x, self.angles, &self.quaternions) < SAME_POINT
        }) {
            self.used[known].push(arriving);
            return known;
        }
        self.section.factorize(&x);
        let rank = self.section.qr.rank(self.detection);
        let lines = self.branch_lines(&x, rank);
        let index = self.singular.len();
        self.singular.push(SingularPoint {
            section: self.section_index,
            x,
            rank,
            rho,
            lines: lines.len(),
        });
        self.used.push(vec![arriving]);
        for line in lines {
            self.queue.push_back((index, line.clone()));
            self.queue.push_back((index, -line));
        }
        index
    }

    /// The branch tangents through the singular point `x` of rank `rank` (unit vectors in
    /// `x`): the common zeros of the second-order forms on its null space, as the dynamics
    /// find them at a singular event ([`crate::solver::branches`]).
    fn branch_lines(&mut self, x: &DVector<f64>, rank: usize) -> Vec<DVector<f64>> {
        let n = self.section.n();
        let null: DMatrix<f64> = self.section.qr.q_columns(rank).into_owned();
        let a = self.section.a.clone();
        let mut out = DVector::zeros(a.nrows());
        let section = &mut self.section;
        let forms = second_order_forms(&a, rank, &null, |t, gamma| {
            section.curvature(x, t, &mut out);
            gamma.copy_from(&out);
        });
        let lines = common_zero_lines(&forms);
        if lines.is_empty() && n > rank {
            // Every form zero (the null space is all tangent): its columns.
            return null.column_iter().map(|c| c.into_owned()).collect();
        }
        lines.into_iter().map(|alpha| &null * alpha).collect()
    }
}

/// The tangent at the point `qr` factorised nearest `previous`, into `tangent`: the
/// projection of `previous` on the null space at rank `rank` (one column at a regular point;
/// at or next to a singular point, or on a curve that stays singular, the projection keeps
/// the direction the curve arrived in), normalised.
fn tangent_near(qr: &PivotedQr, rank: usize, previous: &DVector<f64>, tangent: &mut DVector<f64>) {
    let null = qr.q_columns(rank);
    tangent.fill(0.0);
    for column in null.column_iter() {
        tangent.axpy(column.dot(previous), &column, 1.0);
    }
    let norm = tangent.norm();
    if norm > 0.0 {
        *tangent /= norm;
    }
}

/// Appends a point to `curve`.
fn push(curve: &mut Curve, s: f64, rank: usize, x: &DVector<f64>) {
    curve.s.push(s);
    curve.rank.push(rank);
    curve.x.extend_from_slice(x.as_slice());
}

/// The largest coordinate difference, the coordinates flagged in `angles` modulo 2 pi, each
/// rigid body's Euler parameters (from the offsets `quaternions`) up to their sign.
fn distance(a: &DVector<f64>, b: &DVector<f64>, angles: &[bool], quaternions: &[usize]) -> f64 {
    let coordinate = a
        .iter()
        .zip(b.iter())
        .enumerate()
        .filter(|(i, _)| !quaternions.iter().any(|&q| (q..q + 4).contains(i)))
        .map(|(i, (p, q))| {
            let d = p - q;
            if angles.get(i).copied().unwrap_or(false) {
                let wrapped = d.rem_euclid(std::f64::consts::TAU);
                wrapped.min(std::f64::consts::TAU - wrapped)
            } else {
                d.abs()
            }
        })
        .fold(0.0, f64::max);
    quaternions.iter().fold(coordinate, |largest, &q| {
        let apart = |sign: f64| {
            (0..4)
                .map(|k| (a[q + k] - sign * b[q + k]).abs())
                .fold(0.0, f64::max)
        };
        largest.max(apart(1.0).min(apart(-1.0)))
    })
}

/// The curve through the assembled pose: `backward` reversed (negative arclength), then
/// `forward` from its second point.
fn joined(backward: Curve, forward: Curve, n: usize) -> Curve {
    let count = backward.s.len();
    let mut curve = Curve {
        section: forward.section,
        start: backward.end,
        end: forward.end,
        s: Vec::with_capacity(count + forward.s.len()),
        rank: Vec::with_capacity(count + forward.s.len()),
        x: Vec::with_capacity(backward.x.len() + forward.x.len()),
    };
    for k in (0..count).rev() {
        curve.s.push(-backward.s[k]);
        curve.rank.push(backward.rank[k]);
        curve.x.extend_from_slice(&backward.x[k * n..(k + 1) * n]);
    }
    curve.s.extend_from_slice(&forward.s[1..]);
    curve.rank.extend_from_slice(&forward.rank[1..]);
    curve.x.extend_from_slice(&forward.x[n..]);
    curve
}
