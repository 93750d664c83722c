//! The configuration-space atlas: every branch of a mechanism's configuration set
//! `{x : c(x) = 0}` that is connected to its assembled pose, traced through its singular
//! points.
//!
//! # What is traced
//!
//! The set of the mechanism's *configuration rows* ([`Mechanism::configuration_rows`]): the
//! holonomic rows that do not depend on time. A knife edge's rows constrain velocities only
//! and have no position form, and a driver's row fixes a coordinate as a function of time;
//! neither is part of the configuration set, and [`Atlas::left_out`] counts them. Its
//! dimension at the assembled pose is `n - rank`, the rank (not the row count: redundant
//! rows add none) at the scene's rank tolerance. A one-dimensional set is traced as it is; a
//! set of `d >= 2` dimensions in *sections*: `d - 1` coordinates held at given values
//! (extra rows `x_i = v`), each section a one-dimensional set. By default ([`default_holds`])
//! the held coordinates are the angles that move most in the tangent space at the assembled
//! pose, each held at its assembled value: one section through the pose the scene starts in.
//!
//! # How: pseudo-arclength continuation (Keller 1977; Allgower and Georg 1990, ch. 2 and 6)
//!
//! Along a curve, from a point `x` with unit tangent `t`:
//! - **predictor**: `x + h t`;
//! - **corrector**: minimum-norm Newton (the Moore-Penrose corrector of Allgower and Georg
//!   1990, sect. 3.3) with the pivoted QR the dynamics use, `A^T P = Q R`:
//!   `x <- x - Q1 R1^{-T} c_piv`, first with the normals above the scene's normal
//!   truncation, then with every normal not redundant;
//! - **tangent**: the last column of `Q` (the null space of `A`), oriented along the previous
//!   tangent. At or next to a singular point, and on a curve that stays singular, the null
//!   space at the detection tolerance has more columns; the tangent is the previous one
//!   projected on it, which keeps the curve going the way it came;
//! - **step control**: `h` grows by half when the corrector converged in at most two
//!   iterations and the tangent turned less than 0.1 rad, halves after five iterations or
//!   more, and a step whose tangent turns more than 0.2 rad or whose corrector fails is
//!   retried at half the length.
//!
//! # Singular points
//!
//! The dynamics' indicator is watched at every point, `rho = |R[r-1, r-1]| / |R[0, 0]|` with
//! `r` the curve's rank (the generic rank; on a curve that stays singular, A02's branch
//! where one loop stays flat, the rank at the detection tolerance it has one step out of the
//! singular point it leaves). A minimum of `rho` between three points is located by
//! golden-section search in arclength (on the chord between the outer two, each trial point
//! corrected onto the set); a minimum below the scene's detection tolerance is a singular
//! point, refined to round-off by Gauss-Newton on the constraints and the vanishing block of
//! `A`'s singular values (`atlas::refine`: the search alone resolves it only to the Newton
//! tolerance's square root, about 1e-6 rad). There, the branches through it are the common zeros of the second-order forms
//! `u^T gamma(x; N alpha, N alpha)` on the null space `N` (`u` the left null vectors of `A`),
//! as at a singular event ([`crate::solver::branches`]); each is traced both ways. The
//! direction a curve arrived in is marked traced, so every branch is traced once.
//!
//! A curve ends where it meets a singular point (found before or new), where a curve from the
//! assembled pose returns to it (angles compared modulo 2 pi, Euler parameters up to their
//! sign: a closed curve), where a
//! coordinate leaves the scene's limits (1e6), or when the budget of points runs out.
//!
//! # Cost
//!
//! Every traced point is one or two Newton iterations and one factorisation with `Q` in
//! workspaces sized once per section (`atlas::section`), and so is every trial point of the
//! search for a minimum of `rho`; the points are stored in vectors reserved for the whole
//! budget. Only a singular point found allocates (its refinement and its branch search run
//! once per point). `tests/alloc` checks that a budget twice as long allocates no more;
//! `singulab atlas` prints the points and the CPU time.

mod refine;
mod section;
mod trace;

use std::sync::atomic::AtomicBool;

use nalgebra::{DMatrix, DVector};

use crate::model::Mechanism;
use section::{Corrector, Section};
use trace::Tracer;

/// What the atlas is asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct AtlasSettings {
    /// The most points traced in all (the curves end there).
    pub max_points: usize,
    /// The scene's detection tolerance: a minimum of `rho` below it is a singular point.
    pub detection_tolerance: f64,
    /// The scene's rank tolerance: the rank of the set at the assembled pose.
    pub rank_tolerance: f64,
    /// The scene's normal truncation, for the corrector's first attempt.
    pub normal_truncation: f64,
    /// `|c|_inf` at which a point is on the set.
    pub newton_tolerance: f64,
    /// The held coordinates and their values (sections: every combination); empty for a
    /// one-dimensional set.
    pub holds: Vec<Hold>,
}

/// A coordinate held at each of `values` in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct Hold {
    pub coordinate: usize,
    pub values: Vec<f64>,
}

/// Why a curve starts or ends where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveEnd {
    /// The assembled pose (a curve traced one way from it only).
    Start,
    /// A singular point (its index in [`Atlas::singular`]).
    Singular(usize),
    /// The curve returned to the assembled pose.
    Closed,
    /// A coordinate left the scene's limits.
    Limits,
    /// The budget of points ran out.
    Budget,
    /// The corrector failed at the smallest step.
    Failed,
}

/// One traced curve: its points in order, with the arclength `s` (in `x`) and the rank at
/// the detection tolerance at each.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Which section ([`Atlas::sections`]).
    pub section: usize,
    pub start: CurveEnd,
    pub end: CurveEnd,
    pub s: Vec<f64>,
    pub rank: Vec<usize>,
    /// The points' coordinates, `n` per point.
    pub x: Vec<f64>,
}

impl Curve {
    pub fn len(&self) -> usize {
        self.s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.s.is_empty()
    }

    /// The coordinates of point `k` (`n` values).
    pub fn point(&self, k: usize) -> &[f64] {
        let n = self.x.len() / self.s.len().max(1);
        &self.x[k * n..(k + 1) * n]
    }
}

/// A singular point of the set.
#[derive(Clone, Debug, PartialEq)]
pub struct SingularPoint {
    pub section: usize,
    pub x: DVector<f64>,
    /// The rank at the detection tolerance there.
    pub rank: usize,
    /// The located minimum of `rho`.
    pub rho: f64,
    /// The branch tangents through it (lines, each traced both ways).
    pub lines: usize,
}

/// The traced set.
#[derive(Clone, Debug, PartialEq)]
pub struct Atlas {
    pub curves: Vec<Curve>,
    pub singular: Vec<SingularPoint>,
    /// The held coordinates and values of each section (none for a one-dimensional set).
    pub sections: Vec<Vec<(usize, f64)>>,
    /// The dimension of the set at the assembled pose.
    pub dimension: usize,
    /// Rows of the mechanism not part of the configuration set (velocity-level, drivers).
    pub left_out: usize,
    /// Points traced in all.
    pub points: usize,
}

impl Atlas {
    /// The curves that meet singular point `point`.
    pub fn curves_at(&self, point: usize) -> Vec<usize> {
        let at = CurveEnd::Singular(point);
        (0..self.curves.len())
            .filter(|&k| self.curves[k].start == at || self.curves[k].end == at)
            .collect()
    }
}

/// Why no atlas.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AtlasError {
    #[error(
        "the configuration set has {0} dimensions at the assembled pose: hold all but one of them (--hold BODY.COORD=v1,v2,..., one per held coordinate) to trace sections of it"
    )]
    Dof(usize),
    #[error("the configuration set has no motion at the assembled pose (its rank is full)")]
    Rigid,
    #[error(
        "the start of a section is not on the configuration set (Newton did not converge from the assembled pose with the held values)"
    )]
    NotOnTheSet,
    #[error("cancelled")]
    Cancelled,
}

/// Traces the configuration set of `mechanism` connected to the assembled pose `x0`
/// (sections when `settings.holds` hold coordinates), stopping early when `cancel` is set.
pub fn trace_atlas(
    mechanism: &Mechanism,
    x0: &DVector<f64>,
    settings: &AtlasSettings,
    cancel: &AtomicBool,
) -> Result<Atlas, AtlasError> {
    let rows = mechanism.configuration_rows();
    let dimension = mechanism.n() - rank_of_rows(mechanism, &rows, x0, settings.rank_tolerance);
    if dimension == 0 {
        return Err(AtlasError::Rigid);
    }
    let held: usize = settings.holds.len();
    if dimension != held + 1 {
        return Err(AtlasError::Dof(dimension));
    }
    let angles = angle_coordinates(mechanism);
    let corrector = Corrector {
        tolerance: settings.newton_tolerance,
        truncation: settings.normal_truncation,
        redundant: settings.rank_tolerance,
        max_move: 1.0,
    };
    let sections = combinations(&settings.holds);
    let mut atlas = Atlas {
        curves: Vec::new(),
        singular: Vec::new(),
        sections: sections.clone(),
        dimension,
        left_out: mechanism.m() - rows.len(),
        points: 0,
    };
    for (index, holds) in sections.iter().enumerate() {
        let mut start = x0.clone();
        for &(coordinate, value) in holds {
            start[coordinate] = value;
        }
        let section = Section::new(mechanism, &rows, holds.clone());
        let budget = settings.max_points.saturating_sub(atlas.points);
        let mut tracer = Tracer::new(
            section,
            corrector,
            settings.detection_tolerance,
            settings.rank_tolerance,
            &angles,
            index,
            budget,
            cancel,
        );
        tracer.quaternions = mechanism
            .bodies()
            .iter()
            .filter(|b| b.is_rigid())
            .map(|b| b.offset + 3)
            .collect();
        tracer.trace(&start)?;
        let offset = atlas.singular.len();
        atlas.points += tracer.points;
        atlas
            .curves
            .extend(tracer.curves.into_iter().map(|mut curve| {
                curve.start = shifted(curve.start, offset);
                curve.end = shifted(curve.end, offset);
                curve
            }));
        atlas.singular.extend(tracer.singular);
    }
    Ok(atlas)
}

fn shifted(end: CurveEnd, offset: usize) -> CurveEnd {
    match end {
        CurveEnd::Singular(k) => CurveEnd::Singular(k + offset),
        other => other,
    }
}

/// Every combination of the held values, the first hold's varying slowest.
fn combinations(holds: &[Hold]) -> Vec<Vec<(usize, f64)>> {
    holds.iter().fold(vec![Vec::new()], |sections, hold| {
        sections
            .iter()
            .flat_map(|section| {
                hold.values.iter().map(move |&value| {
                    let mut next = section.clone();
                    next.push((hold.coordinate, value));
                    next
                })
            })
            .collect()
    })
}

/// Which coordinates are planar angles (compared modulo 2 pi).
pub fn angle_coordinates(mechanism: &Mechanism) -> Vec<bool> {
    let mut angles = vec![false; mechanism.n()];
    for body in mechanism.bodies().iter().filter(|b| b.has_angle()) {
        angles[body.offset + 2] = true;
    }
    angles
}

/// The rank of `rows` of the Jacobian at `x`.
fn rank_of_rows(mechanism: &Mechanism, rows: &[usize], x: &DVector<f64>, tolerance: f64) -> usize {
    jacobian_rows(mechanism, rows, x).rank(tolerance)
}

fn jacobian_rows(
    mechanism: &Mechanism,
    rows: &[usize],
    x: &DVector<f64>,
) -> crate::linalg::PivotedQr {
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(x, &mut a);
    let selected = DMatrix::from_fn(rows.len(), mechanism.n(), |i, j| a[(rows[i], j)]);
    let mut qr = crate::linalg::PivotedQr::new(mechanism.n(), rows.len());
    qr.factorize_without_q(&selected);
    qr
}

/// The default sections of a set of `dimension >= 2`: `dimension - 1` coordinates held at
/// their values in `x0`, chosen greedily from the null-space basis `N` at `x0`: the
/// coordinate whose row of `N` is longest (a planar angle first, when one moves), then that
/// direction is taken out of `N` and the next is chosen, so that holding them leaves one
/// dimension. Empty for a one-dimensional set.
pub fn default_holds(mechanism: &Mechanism, x0: &DVector<f64>, rank_tolerance: f64) -> Vec<Hold> {
    let rows = mechanism.configuration_rows();
    let mut qr = jacobian_rows(mechanism, &rows, x0);
    qr.form_q();
    let rank = qr.rank(rank_tolerance);
    let dimension = mechanism.n() - rank;
    if dimension < 2 {
        return Vec::new();
    }
    let mut null: DMatrix<f64> = qr.q_columns(rank).into_owned();
    let angles = angle_coordinates(mechanism);
    let mut holds = Vec::new();
    for _ in 0..dimension - 1 {
        let moves = |i: usize| null.row(i).norm();
        let Some(coordinate) = (0..mechanism.n())
            .filter(|&i| moves(i) > MOVES)
            .max_by(|&i, &j| {
                (angles[i], moves(i))
                    .partial_cmp(&(angles[j], moves(j)))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(j.cmp(&i))
            })
        else {
            break;
        };
        let direction = null.row(coordinate).transpose() / moves(coordinate);
        null -= &null * &direction * direction.transpose();
        holds.push(Hold {
            coordinate,
            values: vec![x0[coordinate]],
        });
    }
    holds
}

/// A coordinate whose row of the null-space basis is shorter than this does not move.
const MOVES: f64 = 1e-6;
