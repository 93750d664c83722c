//! Re-assembling a sketch after a move or a new length, on the sketch's own geometry: the
//! unknowns are the moving points' positions, the equations say that every bar keeps its
//! length (`|end - start|^2 = L^2`), that the points along a bar stay on it where they were,
//! and that the point being moved (or the start of the bar being lengthened) is where the
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

/// Solves the sketch's equations from its current pose, `hold` keeping a point at a place.
fn reassembled(
    mut sketch: Sketch,
    hold: Option<(usize, Vector2<f64>)>,
    what: String,
) -> Result<Sketch, SketchError> {
    let unknowns = Unknowns::of(&sketch);
    let mut x = unknowns.gather(&sketch);
    let equations = |x: &DVector<f64>| residuals(&sketch, &unknowns, x, hold);
    let mut r = equations(&x);
    for _ in 0..MAX_ITERATIONS {
        if r.amax() <= ASSEMBLED {
            break;
        }
        let j = jacobian(&sketch, &unknowns, &x, hold);
        let Ok(step) = j.svd(true, true).solve(&-&r, 1e-12) else {
            break;
        };
        // Halve the step until the residual goes down (a long drag in one command).
        let mut factor = 1.0;
        let before = r.norm();
        while factor > 1e-4 {
            let trial = &x + factor * &step;
            let tried = equations(&trial);
            if tried.norm() < before {
                x = trial;
                r = tried;
                break;
            }
            factor *= 0.5;
        }
        if factor <= 1e-4 {
            break;
        }
    }
    if r.amax() > ASSEMBLED {
        return Err(misfit(&sketch, &unknowns, &x, what));
    }
    unknowns.scatter(&mut sketch, &x);
    Ok(sketch)
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
    if let Some((p, _)) = hold {
        put(row, p, Vector2::new(HOLD_WEIGHT, 0.0));
        put(row + 1, p, Vector2::new(0.0, HOLD_WEIGHT));
    }
    j
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
