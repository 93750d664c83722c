//! Re-assembling a sketch after a move or a new length, on the sketch's own geometry: the
//! unknowns are the moving points' positions, the equations say that every bar keeps its
//! length (`|end - start|^2 = L^2`), that the points along a bar stay on it where they were,
//! that a sliding point stays on its guide (`(p - O) . n = 0`) or on the axis of the bar it
//! slides in (`(p - s) x (e - s) = 0`), and that the point being moved (or the start of the bar being lengthened) is where the
//! user put it. Gauss-Newton with minimum-norm steps (the pseudo-inverse), so what the edit
//! does not force stays where it was, as a drag in run mode does.
//!
//! Where no pose satisfies every equation (a crank pulled beyond its coupler's reach) the
//! iteration ends at the weighted least-squares pose, the held point weighted heavily so the
//! misfit lands on the bars; the bar whose length is most off is named with the joint at its
//! end, and the sketch keeps its last consistent pose.

use nalgebra::{DMatrix, DVector, Vector2};

use super::{Sketch, SketchError};

/// Residual (m) below which a pose counts as assembled.
const ASSEMBLED: f64 = 1e-10;
/// Weight of the held point's equations against the bars' (a misfit lands on the bars).
const HOLD_WEIGHT: f64 = 1e3;
const MAX_ITERATIONS: usize = 60;

/// `sketch` with point `point` moved to `to` and the rest re-assembled.
pub(super) fn moved(
    sketch: &Sketch,
    point: usize,
    to: Vector2<f64>,
) -> Result<Sketch, SketchError> {
    let mut next = sketch.clone();
    let what = format!(
        "\"{}\" cannot go to ({:.3}, {:.3})",
        sketch.points[point].name, to.x, to.y
    );
    if sketch.points[point].ground {
        next.points[point].at = to;
        return reassembled(next, None, what);
    }
    reassembled(next, Some((point, to)), what)
}

/// `sketch` with bar `bar` `length` long, its start held, and the rest re-assembled.
pub(super) fn lengthened(sketch: &Sketch, bar: usize, length: f64) -> Result<Sketch, SketchError> {
    let mut next = sketch.clone();
    let b = &mut next.bars[bar];
    let scale = length / b.length;
    b.length = length;
    for (_, along) in &mut b.along {
        *along *= scale;
    }
    let start = b.start;
    let what = format!("bar \"{}\" cannot be {length} m long", b.name);
    let at = next.points[start].at;
    reassembled(next, Some((start, at)), what)
}

/// `sketch` re-assembled from its pose as it is (after a new equation: a slot).
pub(super) fn settled(sketch: Sketch, what: String) -> Result<Sketch, SketchError> {
    reassembled(sketch, None, what)
}

/// Solves the sketch's equations from its current pose, `hold` keeping a point at a place.
fn reassembled(
    mut sketch: Sketch,
    hold: Option<(usize, Vector2<f64>)>,
    what: String,
) -> Result<Sketch, SketchError> {
    let unknowns = Unknowns::of(&sketch);
    let mut x = unknowns.gather(&sketch);
    if !solve(&sketch, &unknowns, &mut x, hold) {
        return Err(misfit(&sketch, &unknowns, &x, what));
    }
    unknowns.scatter(&mut sketch, &x);
    Ok(sketch)
}

/// Gauss-Newton with minimum-norm steps from `x` (left at the last iterate); whether the
/// equations hold there.
fn solve(
    sketch: &Sketch,
    unknowns: &Unknowns,
    x: &mut DVector<f64>,
    hold: Option<(usize, Vector2<f64>)>,
) -> bool {
    let equations = |x: &DVector<f64>| residuals(sketch, unknowns, x, hold);
    let mut r = equations(x);
    for _ in 0..MAX_ITERATIONS {
        if r.amax() <= ASSEMBLED {
            return true;
        }
        let j = jacobian(sketch, unknowns, x, hold);
        let Ok(step) = j.svd(true, true).solve(&-&r, 1e-12) else {
            return false;
        };
        // Halve the step until the residual goes down (a long move in one command).
        let before = r.norm();
        let mut factor = 1.0;
        loop {
            let trial = &*x + factor * &step;
            let tried = equations(&trial);
            if tried.norm() < before {
                *x = trial;
                r = tried;
                break;
            }
            factor *= 0.5;
            if factor < 1e-4 {
                return r.amax() <= ASSEMBLED;
            }
        }
    }
    r.amax() <= ASSEMBLED
}

/// `sketch` with point `point` pulled toward `toward`, the mechanism assembled all along:
/// the point goes as near as the bars let it, as a drag in run mode does (a ground point
/// moves its pivot there, or not at all). Each step moves the point toward the target in
/// least squares with the bars' equations weighted to hold (to first order), then puts
/// the pose back on them; a step that does not bring the point nearer ends the drag.
pub(super) fn dragged(
    sketch: &Sketch,
    point: usize,
    toward: Vector2<f64>,
) -> Result<Sketch, SketchError> {
    if sketch.points[point].ground {
        return moved(sketch, point, toward);
    }
    let mut next = sketch.clone();
    let unknowns = Unknowns::of(&next);
    let mut x = unknowns.gather(&next);
    let slot = unknowns.slot[point].expect("a moving point is unknown");
    let gap = |x: &DVector<f64>| toward - Vector2::new(x[slot], x[slot + 1]);
    // The longest step (m): a tenth of the typical bar, so a step cannot jump a branch.
    let longest = 0.1
        * next
            .bars
            .iter()
            .map(|b| b.length)
            .fold(0.0, f64::max)
            .max(1e-3);
    for _ in 0..MAX_ITERATIONS {
        let e = gap(&x);
        if e.norm() <= ASSEMBLED {
            break;
        }
        let Some(step) = drag_step(&next, &unknowns, &x, slot, e, longest) else {
            break;
        };
        let mut trial = &x + step;
        if !solve(&next, &unknowns, &mut trial, None) || gap(&trial).norm() > e.norm() {
            break;
        }
        x = trial;
    }
    unknowns.scatter(&mut next, &x);
    Ok(next)
}

/// The least-squares move of the point at `slot` by `e`, the bars' equations holding to
/// first order (weighted far above the point's), cut to `longest`.
fn drag_step(
    sketch: &Sketch,
    unknowns: &Unknowns,
    x: &DVector<f64>,
    slot: usize,
    e: Vector2<f64>,
    longest: f64,
) -> Option<DVector<f64>> {
    /// Weight of the bars' equations over the point's pull.
    const KEEP: f64 = 1e6;
    let c = residuals(sketch, unknowns, x, None);
    let jc = jacobian(sketch, unknowns, x, None);
    let rows = c.len();
    let mut j = DMatrix::zeros(rows + 2, unknowns.count);
    j.rows_mut(0, rows).copy_from(&(KEEP * jc));
    j[(rows, slot)] = 1.0;
    j[(rows + 1, slot + 1)] = 1.0;
    let mut rhs = DVector::zeros(rows + 2);
    rhs.rows_mut(0, rows).copy_from(&(-KEEP * c));
    rhs[rows] = e.x;
    rhs[rows + 1] = e.y;
    let step = j.svd(true, true).solve(&rhs, 1e-12).ok()?;
    let norm = step.amax();
    (norm > 0.0).then(|| step * (longest / norm).min(1.0))
}

/// Which points move (every point off the ground, the held one too) and where their two
/// coordinates sit in the unknowns.
struct Unknowns {
    slot: Vec<Option<usize>>,
    count: usize,
}

impl Unknowns {
    fn of(sketch: &Sketch) -> Self {
        let mut count = 0;
        let slot = sketch
            .points
            .iter()
            .map(|p| {
                (!p.ground).then(|| {
                    count += 2;
                    count - 2
                })
            })
            .collect();
        Self { slot, count }
    }

    fn gather(&self, sketch: &Sketch) -> DVector<f64> {
        let mut x = DVector::zeros(self.count);
        for (p, slot) in self.slot.iter().enumerate() {
            if let Some(i) = *slot {
                x[i] = sketch.points[p].at.x;
                x[i + 1] = sketch.points[p].at.y;
            }
        }
        x
    }

    fn scatter(&self, sketch: &mut Sketch, x: &DVector<f64>) {
        for (p, slot) in self.slot.iter().enumerate() {
            if let Some(i) = *slot {
                sketch.points[p].at = Vector2::new(x[i], x[i + 1]);
            }
        }
    }

    fn at(&self, sketch: &Sketch, x: &DVector<f64>, p: usize) -> Vector2<f64> {
        match self.slot[p] {
            Some(i) => Vector2::new(x[i], x[i + 1]),
            None => sketch.points[p].at,
        }
    }
}

/// The equations' rows, in order: per bar its length, then its points along it (two rows
/// each); then the held point (two rows, weighted).
fn residuals(
    sketch: &Sketch,
    unknowns: &Unknowns,
    x: &DVector<f64>,
    hold: Option<(usize, Vector2<f64>)>,
) -> DVector<f64> {
    let mut rows = Vec::new();
    for bar in &sketch.bars {
        let s = unknowns.at(sketch, x, bar.start);
        let e = unknowns.at(sketch, x, bar.end);
        rows.push(0.5 * ((e - s).norm_squared() / bar.length - bar.length));
        for &(p, along) in &bar.along {
            let off = unknowns.at(sketch, x, p) - (s + (e - s) * (along / bar.length));
            rows.extend([off.x, off.y]);
        }
    }
    for (p, guide) in guides(sketch) {
        let n = across(guide.axis());
        rows.push((unknowns.at(sketch, x, p) - guide.origin).dot(&n));
    }
    for (p, bar) in slots(sketch) {
        let b = &sketch.bars[bar];
        let s = unknowns.at(sketch, x, b.start);
        let e = unknowns.at(sketch, x, b.end);
        rows.push(cross(unknowns.at(sketch, x, p) - s, e - s) / b.length);
    }
    if let Some((p, target)) = hold {
        let off = HOLD_WEIGHT * (unknowns.at(sketch, x, p) - target);
        rows.extend([off.x, off.y]);
    }
    DVector::from_vec(rows)
}

/// The rows' derivatives with respect to the unknowns.
fn jacobian(
    sketch: &Sketch,
    unknowns: &Unknowns,
    x: &DVector<f64>,
    hold: Option<(usize, Vector2<f64>)>,
) -> DMatrix<f64> {
    let rows = residuals(sketch, unknowns, x, hold).len();
    let mut j = DMatrix::zeros(rows, unknowns.count);
    let mut put = |row: usize, p: usize, d: Vector2<f64>| {
        if let Some(i) = unknowns.slot[p] {
            j[(row, i)] += d.x;
            j[(row, i + 1)] += d.y;
        }
    };
    let mut row = 0;
    for bar in &sketch.bars {
        let s = unknowns.at(sketch, x, bar.start);
        let e = unknowns.at(sketch, x, bar.end);
        let d = (e - s) / bar.length;
        put(row, bar.end, d);
        put(row, bar.start, -d);
        row += 1;
        for &(p, along) in &bar.along {
            let f = along / bar.length;
            for axis in 0..2 {
                let unit = Vector2::ith(axis, 1.0);
                put(row + axis, p, unit);
                put(row + axis, bar.start, -(1.0 - f) * unit);
                put(row + axis, bar.end, -f * unit);
            }
            row += 2;
        }
    }
    for (p, guide) in guides(sketch) {
        put(row, p, across(guide.axis()));
        row += 1;
    }
    // d/dp, d/ds, d/de of ((p - s) x (e - s)) / L.
    for (p, bar) in slots(sketch) {
        let b = &sketch.bars[bar];
        let at = |q| unknowns.at(sketch, x, q);
        let (point, s, e) = (at(p), at(b.start), at(b.end));
        let (d, r) = (e - s, point - s);
        put(row, p, Vector2::new(d.y, -d.x) / b.length);
        put(row, b.end, Vector2::new(-r.y, r.x) / b.length);
        put(row, b.start, Vector2::new(r.y - d.y, d.x - r.x) / b.length);
        row += 1;
    }
    if let Some((p, _)) = hold {
        put(row, p, Vector2::new(HOLD_WEIGHT, 0.0));
        put(row + 1, p, Vector2::new(0.0, HOLD_WEIGHT));
    }
    j
}

/// The sliding points with their guides.
fn guides(sketch: &Sketch) -> impl Iterator<Item = (usize, super::Guide)> + '_ {
    (0..sketch.points.len()).filter_map(|p| Some((p, sketch.points[p].guide?)))
}

/// The points sliding in a bar's slot, with the bar.
fn slots(sketch: &Sketch) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..sketch.points.len()).filter_map(|p| {
        let bar = sketch.points[p].slot.as_deref()?;
        Some((p, sketch.bar_index(bar)?))
    })
}

/// The plane's cross product `a.x b.y - a.y b.x`.
fn cross(a: Vector2<f64>, b: Vector2<f64>) -> f64 {
    a.x * b.y - a.y * b.x
}

/// `v` turned a quarter turn: the normal of a guide along `v`.
fn across(v: Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-v.y, v.x)
}

/// The refusal: the bar whose length is most off at the least-squares pose, named with the
/// joint at its end (its start if the end is free).
fn misfit(sketch: &Sketch, unknowns: &Unknowns, x: &DVector<f64>, what: String) -> SketchError {
    let worst = sketch
        .bars
        .iter()
        .map(|bar| {
            let s = unknowns.at(sketch, x, bar.start);
            let e = unknowns.at(sketch, x, bar.end);
            ((e - s).norm() - bar.length, bar)
        })
        .max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
    match worst {
        Some((gap, bar)) => {
            let shared = |p: usize| sketch.bars_at(p).len() > 1 || sketch.points[p].ground;
            let joint = if shared(bar.end) { bar.end } else { bar.start };
            SketchError::CannotAssemble {
                what,
                joint: sketch.points[joint].name.clone(),
                gap: gap.abs(),
            }
        }
        None => SketchError::CannotAssemble {
            what,
            joint: String::new(),
            gap: 0.0,
        },
    }
}
