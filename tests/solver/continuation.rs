//! The continued tangent basis.
//!
//! For every shipped scene: the continued basis never flips a column's sign, its per-step jump
//! `|T_{k+1} - T_k|_F` is O(h) (bounded by `C h` and halved when h is halved), and it spans the
//! same space as the traditional basis at every step. The bounds come from the geometry, derived
//! here rather than read from the code:
//! - a continued basis turns no more than it must, so its jump per step is the angle the tangent
//!   space turns in that step. For a pendulum of length `l` that is `|v| h / l`, with the largest
//!   speed from energy conservation (`sqrt(2 g l)` released from horizontal; at most
//!   `sqrt(v0^2 + 2 g l)` for the spatial pendulum). For a parallelogram linkage with `N_c` unit
//!   cranks and `N_k` translating couplers, the configuration `x(theta)` has
//!   `|x'|^2 = 1.25 N_c + N_k` and `|x''|^2 = 0.25 N_c + N_k`, both constant, so the unit tangent
//!   turns at `|x''| / |x'| |theta'|`, with the largest `theta'` at the bottom of the 1-dof
//!   reduction `I theta'' = -c g cos(theta)`: `theta'^2 = theta'_0^2 + 4 c g / I`;
//! - the fastest of these is the spatial pendulum, 18.5 1/s, so `C = 60` 1/s is a bound with a
//!   margin of three for every scene, including the two-degree-of-freedom stacked ones.
//!
//! At every singular event of the linkages the event's continued columns must continue the basis
//! of the step before, the new columns must be orthonormal and orthogonal to them, and the counts
//! must be those of Masarati et al. 2023, sect. 3, and Quro 2023, table 5.1. For the double
//! four-bar's first event the continued motion is checked against the description of Masarati et
//! al. 2023, sect. 3.2 (no horizontal displacement, equal crank displacements and rotations,
//! couplers twice the crank displacement without rotation), and every motion's constraint velocity
//! `A v` is recomputed here from the joint kinematics
//! (`v_point = v_centre + omega perp(R(theta) p)`).
//!
//! The two predictors (`exp(h Omega)` and zeroth order) both approximate the same
//! minimal-rotation transport of the basis, so they must agree to O(h) on the two-degree-of-
//! freedom scenes (spatial pendulum, modified 2x2). On A02 (one degree of freedom) the continued
//! basis is the unit tangent with its sign carried along, unique, so they agree to round-off.

use approx::abs_diff_eq;
use nalgebra::{DMatrix, DMatrixView, DVector, Vector2};
use singulab::model::{JointKind, Mechanism};
use singulab::solver::{BasisMode, Predictor, Settings, SingularEvent};

use crate::common::scene;

const G: f64 = 9.81;

/// Bound on the per-step jump of the continued basis divided by h, 1/s (see the module docs).
const JUMP_RATE_BOUND: f64 = 60.0;

fn projector(t: &DMatrixView<f64>) -> DMatrix<f64> {
    t * t.transpose()
}

/// Largest turning rate of the tangent space derived from the physics, and whether the run is
/// long enough to reach it (so that it is also a lower bound of the measured maximum).
fn turning_rate(name: &str) -> Option<(f64, bool)> {
    let linkage = |cranks: f64, couplers: f64, inertia: f64, potential: f64, rate0: f64| {
        let geometry = ((0.25 * cranks + couplers) / (1.25 * cranks + couplers)).sqrt();
        let rate = (rate0 * rate0 + 4.0 * potential * G / inertia).sqrt();
        (geometry * rate, true)
    };
    match name {
        // 1 m link, released at rest from horizontal: bottom speed sqrt(2 g l).
        "planar_pendulum" | "redundant_pendulum" => Some(((2.0 * G).sqrt(), true)),
        // l = 0.08 m, v0 = 0.7895 m/s: an upper bound (the bob never reaches the bottom).
        "spatial_pendulum" => Some(((0.7895f64.powi(2) + 2.0 * G * 0.08).sqrt() / 0.08, false)),
        // Two cranks, one 1 kg coupler: I = 2/3 + 1, V = 2 g sin(theta), theta'(0) = 4.
        "four_bar" => Some(linkage(2.0, 1.0, 2.0 / 3.0 + 1.0, 2.0, 4.0)),
        // Parallelogram branch reduction: I = 3, V = 3.5 g sin(theta); theta'(0) = -1.
        "double_four_bar" => Some(linkage(3.0, 2.0, 3.0, 3.5, 1.0)),
        "modified_double_four_bar" => Some(linkage(3.0, 1.0, 3.0, 3.5, 1.0)),
        // I = 4/3 + 3, V = 5 g sin(theta).
        "modified_triple_four_bar" => Some(linkage(4.0, 1.0, 4.0 / 3.0 + 3.0, 5.0, 1.0)),
        _ => None,
    }
}

/// Quro 2023, table 5.1: the rank at a singular configuration (the stacked scenes: one stage flat,
/// or both at once).
fn singular_ranks(name: &str) -> &'static [usize] {
    match name {
        "four_bar" => &[7],
        "double_four_bar" => &[12],
        "modified_double_four_bar" => &[10],
        "modified_triple_four_bar" => &[13],
        "modified_2x2" => &[21, 20],
        "modified_2x3" => &[27, 26],
        _ => &[],
    }
}

/// Quro 2023, table 5.1: the generic rank of each scene.
fn generic_rank(name: &str) -> usize {
    match name {
        "planar_pendulum" | "redundant_pendulum" | "spatial_pendulum" => 1,
        "four_bar" => 8,
        "double_four_bar" | "modified_triple_four_bar" => 14,
        "modified_double_four_bar" => 11,
        "modified_2x2" => 22,
        "modified_2x3" => 28,
        other => panic!("unknown scene {other}"),
    }
}

/// Velocity of a point fixed on a body (local coordinates along and across a bar, from its
/// centre) for the body velocity `v`: `v_centre + omega perp(R(theta) p)`.
fn point_velocity(
    mechanism: &Mechanism,
    body: usize,
    p: &Vector2<f64>,
    x: &DVector<f64>,
    v: &[f64],
) -> Vector2<f64> {
    let b = &mechanism.bodies()[body];
    let o = b.offset;
    let mut out = Vector2::new(v[o], v[o + 1]);
    if b.has_angle() {
        let (s, c) = x[o + 2].sin_cos();
        let rp = Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y);
        out += v[o + 2] * Vector2::new(-rp.y, rp.x);
    }
    out
}

/// `|A(x) v|_inf` recomputed from the joints' kinematics (pins and revolute joints).
fn constraint_velocity(mechanism: &Mechanism, x: &DVector<f64>, v: &[f64]) -> f64 {
    let mut worst: f64 = 0.0;
    for joint in mechanism.joints() {
        let d = match &joint.kind {
            JointKind::Revolute {
                a,
                point_a,
                b,
                point_b,
            } => {
                point_velocity(mechanism, *a, point_a, x, v)
                    - point_velocity(mechanism, *b, point_b, x, v)
            }
            JointKind::Pin { body, point, .. } => point_velocity(mechanism, *body, point, x, v),
            _ => panic!("the linkages have only pins and revolute joints"),
        };
        worst = worst.max(d.amax());
    }
    worst
}

/// Checks one singular event against the continued basis of the step before it; returns the
/// smallest cosine between a continued column and its predecessor and the largest `|A v|` of
/// the continued and of the new motions.
fn check_event(
    name: &str,
    mechanism: &Mechanism,
    generic_rank: usize,
    before: &DMatrix<f64>,
    event: &SingularEvent,
) -> (f64, f64, f64) {
    let n = mechanism.n();
    let t = event.t;
    let ranks = singular_ranks(name);
    assert!(
        ranks.contains(&event.rank),
        "{name}: event at t = {t:.6} has rank {}, expected one of {ranks:?}",
        event.rank
    );
    assert_eq!(
        event.deficiency,
        generic_rank - event.rank,
        "{name}: deficiency at t = {t:.6}"
    );
    assert_eq!(
        event.motion_count(),
        n - event.rank,
        "{name}: motion count at t = {t:.6}"
    );
    assert_eq!(
        event.new_motions().ncols(),
        event.deficiency,
        "{name}: new motions at t = {t:.6}"
    );
    let cont = event.continued();
    assert_eq!(
        cont.ncols(),
        before.ncols(),
        "{name}: the event at t = {t:.6} continues {} of {} columns",
        cont.ncols(),
        before.ncols()
    );
    assert_eq!(event.continued_labels().len(), cont.ncols());
    let mut min_cosine = 1.0f64;
    for j in 0..cont.ncols() {
        let cosine = cont.column(j).dot(&before.column(j))
            / (cont.column(j).norm() * before.column(j).norm());
        assert!(
            cosine > 0.99,
            "{name}: event at t = {t:.6}, continued column {j} has cosine {cosine:.6} with the \
             column before the event"
        );
        min_cosine = min_cosine.min(cosine);
    }
    let all = DMatrix::from_columns(
        &cont
            .column_iter()
            .chain(event.new_motions().column_iter())
            .map(|c| c.into_owned())
            .collect::<Vec<_>>(),
    );
    let gram = all.transpose() * &all;
    let off = (&gram - DMatrix::identity(gram.nrows(), gram.ncols())).amax();
    assert!(
        off < 1e-10,
        "{name}: event at t = {t:.6}: continued plus new motions are not orthonormal \
         (|M^T M - I| = {off:.3e})"
    );
    // The traditional QR's columns at the event are another orthonormal basis of the same
    // admissible space.
    let traditional = event.traditional();
    assert_eq!(
        traditional.ncols(),
        all.ncols(),
        "{name}: traditional motions at t = {t:.6}"
    );
    let gram = traditional.transpose() * traditional;
    let off = (&gram - DMatrix::identity(gram.nrows(), gram.ncols())).amax();
    assert!(
        off < 1e-10,
        "{name}: traditional motions at t = {t:.6} not orthonormal"
    );
    let gap = (projector(&traditional.columns(0, traditional.ncols()))
        - projector(&all.columns(0, all.ncols())))
    .amax();
    assert!(
        gap < 1e-10,
        "{name}: at t = {t:.6} the traditional motions span another space (gap {gap:.3e})"
    );
    let (mut av_cont, mut av_new) = (0.0f64, 0.0f64);
    for (j, column) in all.column_iter().enumerate() {
        let av = constraint_velocity(mechanism, &event.x, column.as_slice());
        // The motions are admissible at the detection tolerance (1e-3 relative to |R_00|).
        assert!(
            av <= 1e-2,
            "{name}: event at t = {t:.6}: motion {j} has |A v| = {av:.3e}"
        );
        if j < cont.ncols() {
            av_cont = av_cont.max(av);
        } else {
            av_new = av_new.max(av);
        }
    }
    (min_cosine, av_cont, av_new)
}

/// Runs `name` for `t_end` at step `dt`, checking the continued basis every step; returns the
/// largest jump, the largest jump / h, the traditional sign flips and the number of events.
fn run_basis_checks(
    name: &str,
    dt: f64,
    t_end: f64,
    check_events: bool,
) -> (f64, f64, usize, usize) {
    let sc = scene(name);
    let mechanism = sc.mechanism.clone();
    let n = mechanism.n();
    let mut sim = sc
        .simulation_with(Settings {
            dt,
            ..sc.settings.clone()
        })
        .expect("simulation");
    let generic_rank = sim.generic_rank();
    assert_eq!(
        generic_rank,
        self::generic_rank(name),
        "{name}: generic rank"
    );
    let (mut max_jump, mut max_rate) = (0.0f64, 0.0f64);
    let mut events = 0;
    let mut max_span_gap = 0.0f64;
    let (mut min_cosine, mut av_cont, mut av_new) = (1.0f64, 0.0f64, 0.0f64);
    while sim.time() < t_end {
        let before = sim.basis(BasisMode::Continued).columns().into_owned();
        let report = sim.step_until(t_end).unwrap_or_else(|e| {
            panic!("{name} dt {dt:e}: step from t = {} failed: {e}", sim.time())
        });
        let t = report.t;
        let stats = report.continued;
        assert_eq!(
            stats.sign_flips, 0,
            "{name} dt {dt:e}: continued basis flipped at t = {t:.6}"
        );
        assert!(
            !stats.reset,
            "{name} dt {dt:e}: continued basis restarted at t = {t:.6}"
        );
        assert!(
            report.rank <= generic_rank,
            "{name} dt {dt:e}: rank {} above the generic rank {generic_rank} at t = {t:.6}",
            report.rank
        );
        max_jump = max_jump.max(stats.jump);
        max_rate = max_rate.max(stats.jump / report.h);

        let continued = sim.basis(BasisMode::Continued).columns();
        let traditional = sim.basis(BasisMode::Traditional).columns();
        assert_eq!(
            continued.ncols(),
            n - report.rank,
            "{name}: continued dimension at t = {t:.6}"
        );
        assert_eq!(
            traditional.ncols(),
            continued.ncols(),
            "{name}: basis dimensions differ at t = {t:.6}"
        );
        let gap = (projector(&traditional) - projector(&continued)).norm();
        max_span_gap = max_span_gap.max(gap);
        assert!(
            gap < 1e-10,
            "{name} dt {dt:e}: traditional and continued bases span different spaces at t = {t:.6} \
             (|T_t T_t^T - T_c T_c^T| = {gap:.3e})"
        );
        for event in sim.step_events() {
            events += 1;
            if check_events {
                let (c, a, b) = check_event(name, &mechanism, generic_rank, &before, event);
                min_cosine = min_cosine.min(c);
                av_cont = av_cont.max(a);
                av_new = av_new.max(b);
            }
        }
    }
    assert_eq!(
        sim.basis(BasisMode::Continued).total_sign_flips(),
        0,
        "{name} dt {dt:e}: continued basis total sign flips"
    );
    let traditional_flips = sim.basis(BasisMode::Traditional).total_sign_flips();
    eprintln!(
        "{name} dt {dt:e}: max jump {max_jump:.3e}, max jump/h {max_rate:.4} 1/s, span gap \
         {max_span_gap:.1e}, traditional flips {traditional_flips}, continued flips 0, events \
         {events}"
    );
    if check_events && events > 0 {
        eprintln!(
            "{name} dt {dt:e}: at the events, smallest cosine with the basis before {min_cosine:.9}, \
             largest |A v| continued {av_cont:.3e}, new {av_new:.3e}"
        );
    }
    (max_jump, max_rate, traditional_flips, events)
}

fn continued_basis_is_smooth(name: &str) {
    let t_end = if name == "spatial_pendulum" { 1.0 } else { 3.0 };
    let linkage = !singular_ranks(name).is_empty();
    let (jump_1, rate_1, _, events) = run_basis_checks(name, 1e-3, t_end, linkage);
    if linkage {
        assert!(events > 0, "{name}: no singular event in {t_end} s");
    }
    assert!(
        rate_1 <= JUMP_RATE_BOUND,
        "{name}: max jump/h = {rate_1:.3} 1/s > {JUMP_RATE_BOUND} 1/s"
    );
    if let Some((rate, reached)) = turning_rate(name) {
        eprintln!("{name}: derived largest turning rate {rate:.4} 1/s (reached: {reached})");
        assert!(
            rate_1 <= rate * 1.001,
            "{name}: max jump/h = {rate_1:.5} 1/s above the derived turning rate {rate:.5} 1/s"
        );
        if reached {
            assert!(
                rate_1 >= rate * 0.99,
                "{name}: max jump/h = {rate_1:.5} 1/s well below the derived turning rate \
                 {rate:.5} 1/s"
            );
        }
    }
    let (jump_half, _, _, _) = run_basis_checks(name, 5e-4, t_end, linkage);
    let ratio = jump_half / jump_1;
    eprintln!("{name}: max jump at dt 5e-4 / at dt 1e-3 = {ratio:.4}");
    assert!(
        (0.4..=0.6).contains(&ratio),
        "{name}: halving h scales the max jump by {ratio:.4}, not about 1/2"
    );
}

#[test]
fn continued_basis_planar_pendulum() {
    continued_basis_is_smooth("planar_pendulum");
}

#[test]
fn continued_basis_redundant_pendulum() {
    continued_basis_is_smooth("redundant_pendulum");
}

#[test]
fn continued_basis_spatial_pendulum() {
    continued_basis_is_smooth("spatial_pendulum");
}

#[test]
fn continued_basis_four_bar() {
    continued_basis_is_smooth("four_bar");
}

#[test]
fn continued_basis_double_four_bar() {
    continued_basis_is_smooth("double_four_bar");
}

#[test]
fn continued_basis_modified_double_four_bar() {
    continued_basis_is_smooth("modified_double_four_bar");
}

#[test]
fn continued_basis_modified_triple_four_bar() {
    continued_basis_is_smooth("modified_triple_four_bar");
}

#[test]
fn continued_basis_modified_2x2() {
    continued_basis_is_smooth("modified_2x2");
}

#[test]
fn continued_basis_modified_2x3() {
    continued_basis_is_smooth("modified_2x3");
}

/// Masarati et al. 2023, sect. 3.2: at the first singular configuration of the double four-bar the
/// rank drops to 12 and three motions are admissible; the one that continues the motion before is
/// the parallelogram motion.
#[test]
fn double_four_bar_first_event_matches_the_paper() {
    let sc = scene("double_four_bar");
    let mechanism = sc.mechanism.clone();
    let mut sim = sc.simulation().expect("simulation");
    let event = loop {
        let report = sim.step().expect("step");
        if let Some(event) = sim.step_events().first() {
            break event.clone();
        }
        assert!(report.t < 2.0, "no singular event before t = 2 s");
    };
    assert_eq!(event.rank, 12, "rank at the first event");
    assert_eq!(event.deficiency, 2, "deficiency at the first event");
    assert_eq!(
        event.motion_count(),
        3,
        "admissible motions at the first event"
    );
    assert_eq!(event.continued().ncols(), 1);
    assert_eq!(event.new_motions().ncols(), 2);

    let index = |name: &str| 3 * mechanism.body_index(name).expect(name);
    let cranks = ["crank1", "crank2", "crank3"].map(index);
    let couplers = ["coupler1", "coupler2"].map(index);
    let v = event.continued().column(0).into_owned();
    let scale = v.amax();
    let theta = event.x[cranks[0] + 2];
    eprintln!(
        "double_four_bar first event at t = {:.6} s, crank angle {theta:.3e} rad, continued motion {:?}",
        event.t,
        v.as_slice()
    );
    let tol = 1e-4 * scale;
    for &o in cranks.iter().chain(&couplers) {
        assert!(
            abs_diff_eq!(v[o], 0.0, epsilon = tol),
            "horizontal displacement {:.3e} (largest {scale:.3e})",
            v[o]
        );
    }
    let (dy, dth) = (v[cranks[0] + 1], v[cranks[0] + 2]);
    assert!(
        dth.abs() > 0.1 * scale,
        "the cranks do not rotate: {dth:.3e}"
    );
    for &o in &cranks {
        assert!(
            abs_diff_eq!(v[o + 1], dy, epsilon = tol),
            "crank vertical displacements differ: {:?}",
            v.as_slice()
        );
        assert!(
            abs_diff_eq!(v[o + 2], dth, epsilon = tol),
            "crank rotations differ: {:?}",
            v.as_slice()
        );
    }
    // The crank's centre sits at 0.5 (cos, sin) from its pivot: dy = 0.5 cos(theta) dtheta.
    assert!(
        abs_diff_eq!(dy, 0.5 * theta.cos() * dth, epsilon = tol),
        "crank displacement {dy:.6} inconsistent with its rotation {dth:.6}"
    );
    for &o in &couplers {
        assert!(
            abs_diff_eq!(v[o + 1], 2.0 * dy, epsilon = tol),
            "coupler displacement is not twice the crank's: {:?}",
            v.as_slice()
        );
        assert!(
            abs_diff_eq!(v[o + 2], 0.0, epsilon = tol),
            "coupler rotates: {:?}",
            v.as_slice()
        );
    }
    // The new motions are admissible only to the detection tolerance; the continued one is the
    // parallelogram motion, admissible to round-off amplified by 1 / rho.
    for (j, column) in event.new_motions().column_iter().enumerate() {
        let av = constraint_velocity(&mechanism, &event.x, column.as_slice());
        eprintln!("new motion {j}: |A v| = {av:.3e}, {:?}", column.as_slice());
        assert!(av <= 1e-2, "new motion {j}: |A v| = {av:.3e}");
    }
    let av = constraint_velocity(&mechanism, &event.x, v.as_slice());
    eprintln!("continued motion: |A v| = {av:.3e}");
    assert!(av <= 1e-8, "continued motion: |A v| = {av:.3e}");
    let all = DMatrix::from_columns(&[
        v.into_owned(),
        event.new_motions().column(0).into_owned(),
        event.new_motions().column(1).into_owned(),
    ]);
    let off = (all.transpose() * &all - DMatrix::<f64>::identity(3, 3)).amax();
    assert!(off < 1e-10, "motions not orthonormal: {off:.3e}");
}

/// The continued basis of `name` at every multiple of `sample` up to `t_end`, with the count of
/// steps on which the requested predictor was used.
fn sampled_basis(
    name: &str,
    predictor: Predictor,
    dt: f64,
    t_end: f64,
    sample: f64,
) -> (Vec<DMatrix<f64>>, usize, usize) {
    let sc = scene(name);
    let mut sim = sc
        .simulation_with(Settings {
            dt,
            predictor,
            ..sc.settings.clone()
        })
        .expect("simulation");
    let mut out = Vec::new();
    let (mut used, mut steps) = (0, 0);
    let mut next = sample;
    while sim.time() < t_end {
        let report = sim.step_until(next.min(t_end)).expect("step");
        steps += 1;
        if report.predictor == predictor {
            used += 1;
        }
        if (report.t - next).abs() < 1e-12 {
            out.push(sim.basis(BasisMode::Continued).columns().into_owned());
            next += sample;
        }
    }
    (out, used, steps)
}

fn predictor_gap(name: &str, dt: f64, t_end: f64) -> f64 {
    let (omega, used, steps) = sampled_basis(name, Predictor::Omega, dt, t_end, 0.01);
    let (zeroth, used_zeroth, steps_zeroth) =
        sampled_basis(name, Predictor::Zeroth, dt, t_end, 0.01);
    assert_eq!(
        used_zeroth, steps_zeroth,
        "{name}: the zeroth predictor was not always used"
    );
    assert!(
        used as f64 >= 0.95 * steps as f64,
        "{name} dt {dt:e}: Omega predictor used on {used} of {steps} steps"
    );
    assert_eq!(omega.len(), zeroth.len());
    assert!(omega.len() as f64 >= t_end / 0.01 - 1.0);
    let gap = omega
        .iter()
        .zip(&zeroth)
        .map(|(a, b)| (a - b).amax())
        .fold(0.0, f64::max);
    eprintln!(
        "{name} dt {dt:e}: Omega used on {used} of {steps} steps, max |T_omega - T_zeroth| = {gap:.3e}"
    );
    gap
}

/// A02 has one degree of freedom: its continued basis is the unit tangent with the sign carried
/// along, which any consistent predictor reproduces, so the two agree to round-off.
#[test]
fn predictors_agree_on_the_double_four_bar() {
    for dt in [1e-3, 5e-4] {
        let gap = predictor_gap("double_four_bar", dt, 1.0);
        assert!(
            gap < 1e-12,
            "double_four_bar dt {dt:e}: predictors differ by {gap:.3e}"
        );
    }
}

/// With two degrees of freedom the predictors transport the basis differently inside the
/// tangent space; both approximate the same minimal-rotation transport, so they agree to O(h).
fn predictors_agree_to_first_order(name: &str) {
    let coarse = predictor_gap(name, 1e-3, 1.0);
    let fine = predictor_gap(name, 5e-4, 1.0);
    let ratio = fine / coarse;
    eprintln!("{name}: predictor gap at dt 5e-4 / at dt 1e-3 = {ratio:.4}");
    assert!(
        coarse < 1e-2,
        "{name}: predictors differ by {coarse:.3e} at dt 1e-3"
    );
    assert!(coarse > 0.0, "{name}: the predictors gave identical bases");
    assert!(
        ratio < 0.7,
        "{name}: halving h scales the predictor gap by {ratio:.4}"
    );
}

#[test]
fn predictors_agree_to_first_order_on_the_spatial_pendulum() {
    predictors_agree_to_first_order("spatial_pendulum");
}

#[test]
fn predictors_agree_to_first_order_on_the_modified_2x2() {
    predictors_agree_to_first_order("modified_2x2");
}

/// Going to an event's state (the app pauses there, and "go to" returns there later) keeps
/// what both bases accumulated: `q` is the integral of `qd` up to the event, so it differs
/// from the running value at the step that reported the event by at most the largest `|qd|`
/// times the time between them; `|qd| = |T^T xd| <= |xd|` as `T` has orthonormal columns.
/// Neither basis restarts at `q = 0`.
#[test]
fn event_states_keep_the_accumulated_coordinates() {
    let scene = scene("double_four_bar");
    let mut sim = scene.simulation().unwrap();
    let mut events = 0;
    let mut fastest = 0.0f64;
    while events < 3 {
        sim.step().unwrap();
        fastest = fastest.max(sim.velocities().norm());
        let Some(event) = sim.step_events().first().cloned() else {
            continue;
        };
        let mut at_event = sim.clone();
        at_event.set_event_state(&event).unwrap();
        let elapsed = sim.time() - event.t;
        for mode in [BasisMode::Traditional, BasisMode::Continued] {
            let running = sim.basis(mode).q()[0];
            let restored = at_event.basis(mode).q()[0];
            assert!(
                running.abs() > 0.1,
                "{mode:?} q1 = {running} at t = {}: nothing accumulated",
                sim.time()
            );
            assert!(
                abs_diff_eq!(restored, running, epsilon = fastest * elapsed + 1e-12),
                "{mode:?} at the event t = {}: q1 {restored} against {running} at t = {}",
                event.t,
                sim.time()
            );
        }
        events += 1;
    }
}
