//! The planar joints of Wojtyra and Frączek 2013 (prismatic joint, driver, knife edge) and the
//! driver's law `d(t)`, against references that do not use the code under test's derivatives:
//! - residuals: eq. 42 (prismatic), eq. 43 (driver) written out here with `r + R(theta) s`;
//! - `A` on position-level rows: central differences of `residual` (step 1e-6);
//! - knife-edge rows (eq. 30): the velocity of the body point across `R n`, from this file's
//!   own point positions: entry `k` is `(dK/dx_k) . (R n)` by central differences, and
//!   `Psi xd` is `(K(x + h xd) - K(x - h xd)) / 2h . (R n)`;
//! - `A xd - b` (`b = velocity_rhs`): the rate of the hand-written residual along
//!   `(x + s xd, t + s)`;
//! - `dA/dt`: central differences of `jacobian` along `xd` (the jacobian being checked above);
//! - `gamma` on position-level rows: minus the second derivative of the hand-written residual
//!   along `(x + s xd, t + s)` (so `xdd = 0` and `A xdd = gamma` reads `c'' = -gamma`),
//!   five-point stencil; on knife-edge rows, eq. 31, `-(Omega R n) . r' theta'`, and
//!   `-(dPsi/dt) xd` from the differenced Jacobian;
//! - `d(t)`: its definition `d0 + sum a_k S((t - t0_k) / (t1_k - t0_k))`,
//!   `S(s) = 10 s^3 - 15 s^4 + 6 s^5` clamped to `[0, 1]`; `d'` and `d''` by central differences
//!   of `d` and `d'`, including stencils that straddle the ends of the steps.
//!
//! The mechanisms are random: a plate, a bar and a plate joined by two prismatic joints and two
//! drivers, with a knife edge on each body, at random states and times.

use std::f64::consts::PI;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::{DMatrix, DVector, Vector2};
use singulab::model::{Body, BodyKind, DriverLaw, Joint, JointKind, Mechanism, SmoothStep};

use crate::test_rng::Rng;

/// A plate (planar rigid body of any shape).
pub fn plate(name: &str, mass: f64, inertia: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Plate { inertia },
        mass,
        offset: 0,
    }
}

fn bar(name: &str, length: f64, mass: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Bar { length },
        mass,
        offset: 0,
    }
}

pub fn joint(name: &str, kind: JointKind) -> Joint {
    Joint {
        name: name.into(),
        kind,
        row: 0,
    }
}

/// `R(theta) v`.
pub fn rotated(theta: f64, v: Vector2<f64>) -> Vector2<f64> {
    let (s, c) = theta.sin_cos();
    Vector2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// World position of local point `s` of the planar body whose coordinates start at `o`.
pub fn body_point(x: &DVector<f64>, o: usize, s: Vector2<f64>) -> Vector2<f64> {
    Vector2::new(x[o], x[o + 1]) + rotated(x[o + 2], s)
}

/// The quintic smooth step from its definition: 0 before `start`, 1 after `end`.
fn smooth_step(t: f64, step: &SmoothStep) -> f64 {
    let s = ((t - step.start) / (step.end - step.start)).clamp(0.0, 1.0);
    s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)
}

/// `d(t)` from its definition.
pub fn law_value(law: &DriverLaw, t: f64) -> f64 {
    law.constant
        + law
            .steps
            .iter()
            .map(|step| step.amplitude * smooth_step(t, step))
            .sum::<f64>()
}

/// Largest `|d'''|` and `|d''''|`: `S'''(s) = (60 - 360 s + 360 s^2) / w^3` is largest at the
/// ends, `60 / w^3`, and `S''''(s) = (720 s - 360) / w^4` too, `360 / w^4`.
fn derivative_bounds(law: &DriverLaw) -> [f64; 2] {
    let bound = |power: i32, constant: f64| {
        law.steps
            .iter()
            .map(|s| constant * s.amplitude.abs() / (s.end - s.start).powi(power))
            .sum()
    };
    [bound(3, 60.0), bound(4, 360.0)]
}

/// One row as this file defines it, in coordinates (body `k` owns `3k..3k+3`).
#[derive(Clone, Debug)]
enum RowDefinition {
    /// `(Q - P) . (R_b direction)`, minus `d(t)` when `law` is given.
    Offset {
        a: usize,
        p: Vector2<f64>,
        b: usize,
        q: Vector2<f64>,
        direction: Vector2<f64>,
        law: Option<DriverLaw>,
    },
    /// `theta_a - theta_b - angle`, modulo whole turns (angles are kept in (-pi, pi]).
    Angle { a: usize, b: usize, angle: f64 },
    /// Velocity-level: `v_K . (R n)` at point `s` of `body`.
    Knife {
        body: usize,
        s: Vector2<f64>,
        n: Vector2<f64>,
    },
}

impl RowDefinition {
    fn residual(&self, t: f64, x: &DVector<f64>) -> f64 {
        match self {
            Self::Offset {
                a,
                p,
                b,
                q,
                direction,
                law,
            } => {
                let delta = body_point(x, 3 * b, *q) - body_point(x, 3 * a, *p);
                let value = delta.dot(&rotated(x[3 * b + 2], *direction));
                value - law.as_ref().map_or(0.0, |law| law_value(law, t))
            }
            Self::Angle { a, b, angle } => {
                (x[3 * a + 2] - x[3 * b + 2] - angle + PI).rem_euclid(2.0 * PI) - PI
            }
            Self::Knife { .. } => 0.0,
        }
    }
}

/// A random unit vector.
fn unit(rng: &mut Rng) -> Vector2<f64> {
    rotated(rng.uniform(-PI, PI), Vector2::new(1.0, 0.0))
}

fn local(rng: &mut Rng) -> Vector2<f64> {
    Vector2::new(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5))
}

/// A law with two overlapping steps, one falling.
fn test_law() -> DriverLaw {
    DriverLaw {
        constant: 0.3,
        steps: vec![
            SmoothStep {
                amplitude: 0.7,
                start: 0.2,
                end: 0.9,
            },
            SmoothStep {
                amplitude: -0.4,
                start: 0.5,
                end: 1.3,
            },
        ],
    }
}

/// A random plate-bar-plate mechanism with every new joint kind, and its rows as defined here.
fn random_mechanism(rng: &mut Rng) -> (Mechanism, Vec<RowDefinition>) {
    let bodies = vec![
        plate("p0", rng.uniform(0.5, 2.0), rng.uniform(0.01, 0.2)),
        bar("b1", rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0)),
        plate("p2", rng.uniform(0.5, 2.0), rng.uniform(0.01, 0.2)),
    ];
    let mut joints = Vec::new();
    let mut rows = Vec::new();
    for (name, a, b) in [("H01", 0, 1), ("H20", 2, 0)] {
        let (point_a, point_b, axis) = (local(rng), local(rng), unit(rng));
        let angle = rng.uniform(-1.0, 1.0);
        joints.push(joint(
            name,
            JointKind::Prismatic {
                a,
                point_a,
                b,
                point_b,
                axis,
                angle,
            },
        ));
        // Eq. 42 with v_ij = perp(axis): the offset across the axis, then the angle.
        let direction = Vector2::new(-axis.y, axis.x);
        rows.push(RowDefinition::Offset {
            a,
            p: point_a,
            b,
            q: point_b,
            direction,
            law: None,
        });
        rows.push(RowDefinition::Angle { a, b, angle });
    }
    for (name, a, b) in [("D12", 1, 2), ("D21", 2, 1)] {
        let (point_a, point_b, axis, law) = (local(rng), local(rng), unit(rng), test_law());
        joints.push(joint(
            name,
            JointKind::Driver {
                a,
                point_a,
                b,
                point_b,
                axis,
                law: law.clone(),
            },
        ));
        rows.push(RowDefinition::Offset {
            a,
            p: point_a,
            b,
            q: point_b,
            direction: axis,
            law: Some(law),
        });
    }
    for body in 0..3 {
        let (point, normal) = (local(rng), unit(rng));
        joints.push(joint(
            &format!("K{body}"),
            JointKind::KnifeEdge {
                body,
                point,
                normal,
            },
        ));
        rows.push(RowDefinition::Knife {
            body,
            s: point,
            n: normal,
        });
    }
    let mechanism = Mechanism::new(bodies, joints, vec![], [0.0, -9.81, 0.0]);
    assert_eq!((mechanism.n(), mechanism.m()), (9, rows.len()));
    (mechanism, rows)
}

/// A random state: positions and angles, velocities, and a time away from the law's step ends
/// by more than `margin`.
fn random_state(rng: &mut Rng, margin: f64) -> (f64, DVector<f64>, DVector<f64>) {
    let x = DVector::from_fn(9, |i, _| {
        if i % 3 == 2 {
            rng.uniform(-PI, PI)
        } else {
            rng.uniform(-1.0, 1.0)
        }
    });
    let xd = rng.vector(9);
    let ends = [0.2, 0.9, 0.5, 1.3];
    let mut t = rng.uniform(0.0, 1.6);
    while ends.iter().any(|e| (t - e).abs() < margin) {
        t = rng.uniform(0.0, 1.6);
    }
    (t, x, xd)
}

fn residuals(rows: &[RowDefinition], t: f64, x: &DVector<f64>) -> DVector<f64> {
    DVector::from_iterator(rows.len(), rows.iter().map(|row| row.residual(t, x)))
}

#[test]
fn new_joint_residuals_match_eqs_42_and_43() {
    let mut rng = Rng::new(1601);
    for _ in 0..20 {
        let (mechanism, rows) = random_mechanism(&mut rng);
        let (t, x, _) = random_state(&mut rng, 0.0);
        let mut c = DVector::zeros(mechanism.m());
        mechanism.residual(t, &x, &mut c);
        assert_abs_diff_eq!(c, residuals(&rows, t, &x), epsilon = 1e-14);
    }
}

/// The knife edge's row from its definition: entry `k` is `(dK/dx_k) . (R n)`.
fn knife_row_reference(
    x: &DVector<f64>,
    body: usize,
    s: Vector2<f64>,
    n: Vector2<f64>,
) -> DVector<f64> {
    let h = 1e-6;
    let across = rotated(x[3 * body + 2], n);
    DVector::from_fn(9, |k, _| {
        let (mut plus, mut minus) = (x.clone(), x.clone());
        plus[k] += h;
        minus[k] -= h;
        let rate = (body_point(&plus, 3 * body, s) - body_point(&minus, 3 * body, s)) / (2.0 * h);
        rate.dot(&across)
    })
}

#[test]
fn new_joint_jacobians_match_finite_differences_and_eq_30() {
    let mut rng = Rng::new(1602);
    let h = 1e-6;
    let mut worst = [0.0f64; 3];
    for _ in 0..20 {
        let (mechanism, rows) = random_mechanism(&mut rng);
        let (t, x, xd) = random_state(&mut rng, 0.0);
        let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
        mechanism.jacobian(&x, &mut a);
        for (i, row) in rows.iter().enumerate() {
            let reference = match row {
                RowDefinition::Knife { body, s, n } => knife_row_reference(&x, *body, *s, *n),
                _ => DVector::from_fn(9, |k, _| {
                    let (mut plus, mut minus) = (x.clone(), x.clone());
                    plus[k] += h;
                    minus[k] -= h;
                    (row.residual(t, &plus) - row.residual(t, &minus)) / (2.0 * h)
                }),
            };
            let error = (a.row(i).transpose() - reference).amax();
            worst[0] = worst[0].max(error);
            assert!(error < 1e-8, "row {i} ({row:?}): A off by {error:e}");
            // The knife edge's row times xd is the velocity of its point across R n.
            if let RowDefinition::Knife { body, s, n } = row {
                let along = |sign: f64| body_point(&(&x + &xd * (sign * h)), 3 * body, *s);
                let velocity = (along(1.0) - along(-1.0)) / (2.0 * h);
                let across = velocity.dot(&rotated(x[3 * body + 2], *n));
                let error = (a.row(i).dot(&xd.transpose()) - across).abs();
                worst[1] = worst[1].max(error);
                assert!(error < 1e-8, "row {i}: Psi xd off by {error:e}");
            }
        }
        // A xd - b is the rate of c along (x + s xd, t + s): d'(t) on driver rows.
        let mut b = DVector::zeros(mechanism.m());
        mechanism.velocity_rhs(t, &mut b);
        let rate = (residuals(&rows, t + h, &(&x + &xd * h))
            - residuals(&rows, t - h, &(&x - &xd * h)))
            / (2.0 * h);
        let velocity = &a * &xd - b;
        for (i, row) in rows.iter().enumerate() {
            if !matches!(row, RowDefinition::Knife { .. }) {
                let error = (velocity[i] - rate[i]).abs();
                worst[2] = worst[2].max(error);
                assert!(error < 1e-8, "row {i}: A xd - b off the rate by {error:e}");
            }
        }
    }
    println!(
        "largest errors: A {:.1e}, Psi xd {:.1e}, A xd - b {:.1e}",
        worst[0], worst[1], worst[2]
    );
}

#[test]
fn new_joint_jacobian_rates_and_gamma_match_finite_differences() {
    let mut rng = Rng::new(1603);
    let mut worst = [0.0f64; 3];
    for _ in 0..20 {
        let (mechanism, rows) = random_mechanism(&mut rng);
        // The five-point stencil (2 h = 2e-3) stays on one side of each step end.
        let (t, x, xd) = random_state(&mut rng, 0.01);
        let (m, n) = (mechanism.m(), mechanism.n());
        let mut adot = DMatrix::zeros(m, n);
        mechanism.jacobian_dot(&x, &xd, &mut adot);
        let jacobian_at = |s: f64| {
            let mut a = DMatrix::zeros(m, n);
            mechanism.jacobian(&(&x + &xd * s), &mut a);
            a
        };
        let h = 1e-6;
        let adot_reference = (jacobian_at(h) - jacobian_at(-h)) / (2.0 * h);
        let error = (&adot - &adot_reference).amax();
        worst[0] = worst[0].max(error);
        assert!(error < 1e-8, "dA/dt off by {error:e}");

        let mut gamma = DVector::zeros(m);
        mechanism.gamma(t, &x, &xd, &mut gamma);
        // c'' along (x + s xd, t + s), five points, step 1e-3.
        let h = 1e-3;
        let c = |k: f64| residuals(&rows, t + k * h, &(&x + &xd * (k * h)));
        let second = (c(-2.0) * -1.0 + c(-1.0) * 16.0 - c(0.0) * 30.0 + c(1.0) * 16.0 - c(2.0))
            / (12.0 * h * h);
        let rate_term = -(&adot_reference * &xd);
        for (i, row) in rows.iter().enumerate() {
            let (reference, slot) = match row {
                RowDefinition::Knife { body, n, .. } => {
                    let o = 3 * body;
                    let across = rotated(x[o + 2], *n);
                    let eq_31 = -Vector2::new(-across.y, across.x)
                        .dot(&Vector2::new(xd[o], xd[o + 1]))
                        * xd[o + 2];
                    assert!(
                        abs_diff_eq!(eq_31, rate_term[i], epsilon = 1e-8),
                        "row {i}: eq. 31 gives {eq_31}, -(dPsi/dt) xd {}",
                        rate_term[i]
                    );
                    (eq_31, 2)
                }
                _ => (-second[i], 1),
            };
            let error = (gamma[i] - reference).abs();
            worst[slot] = worst[slot].max(error);
            assert!(
                error < 1e-7,
                "row {i} ({row:?}): gamma {} against {reference} (t = {t})",
                gamma[i]
            );
        }
    }
    println!(
        "largest errors: dA/dt {:.1e}, gamma on position rows {:.1e}, on knife edges {:.1e}",
        worst[0], worst[1], worst[2]
    );
}

/// The law's `d` against its definition, and `d'`, `d''` against central differences with step
/// `h`, whose error is `h^2 max|f'''| / 6` for a function `f` with a Lipschitz second
/// derivative: `h^2 max|d'''| / 6` for `d'` everywhere, `h^2 max|d''''| / 6` for `d''` where the
/// stencil stays inside or outside every step. A stencil that straddles a step's end, where
/// `d'''` jumps, still has `d''` Lipschitz with constant `max|d'''|`, so the difference of `d'`
/// is within `max|d'''| h / 2` of `d''` there. Plus round-off, `1e-15 / h`.
fn check_law(law: &DriverLaw, times: &[f64]) -> [f64; 4] {
    let h = 1e-6;
    let [third, fourth] = derivative_bounds(law);
    let round_off = 1e-15 / h;
    let ends: Vec<f64> = law.steps.iter().flat_map(|s| [s.start, s.end]).collect();
    // d, d', d'' away from the ends, d'' across an end.
    let mut worst = [0.0f64; 4];
    for &t in times {
        let [d, rate, curvature] = law.at(t);
        let (before, after) = (law.at(t - h), law.at(t + h));
        let straddles = ends.iter().any(|e| (t - e).abs() < h);
        let (slot, curvature_bound) = if straddles {
            (3, third * h / 2.0)
        } else {
            (2, fourth * h * h / 6.0)
        };
        let errors = [
            (d - law_value(law, t)).abs(),
            (rate - (law_value(law, t + h) - law_value(law, t - h)) / (2.0 * h)).abs(),
            (curvature - (after[1] - before[1]) / (2.0 * h)).abs(),
        ];
        let bounds = [
            1e-14,
            third * h * h / 6.0 + round_off,
            curvature_bound + round_off,
        ];
        for k in 0..3 {
            assert!(
                errors[k] <= bounds[k],
                "t = {t}: derivative {k} off by {:e} (bound {:e})",
                errors[k],
                bounds[k]
            );
        }
        for (k, error) in [(0, errors[0]), (1, errors[1]), (slot, errors[2])] {
            worst[k] = worst[k].max(error);
        }
    }
    worst
}

/// The times to check a law at: a grid, random times, and each step end, just inside and just
/// outside it.
fn law_times(law: &DriverLaw, span: f64, rng: &mut Rng) -> Vec<f64> {
    let mut times: Vec<f64> = (0..=400).map(|k| span * k as f64 / 400.0).collect();
    times.extend((0..200).map(|_| rng.uniform(0.0, span)));
    for step in &law.steps {
        for end in [step.start, step.end] {
            times.extend([-1e-3, -3e-7, -1e-9, 0.0, 1e-9, 3e-7, 1e-3].map(|e| end + e));
        }
    }
    times
}

#[test]
fn driver_law_matches_its_definition_and_finite_differences() {
    let mut rng = Rng::new(1604);
    let robot = crate::mobile_robot::robot_law();
    for (name, law, span) in [("test law", test_law(), 1.6), ("robot's law", robot, 12.0)] {
        let worst = check_law(&law, &law_times(&law, span, &mut rng));
        println!(
            "{name}: d {:.1e}, d' {:.1e}, d'' {:.1e} (across a step's end {:.1e}) off their \
             references",
            worst[0], worst[1], worst[2], worst[3]
        );
        // Continuous to second order at each end: d'' tends to 0 from both sides.
        for step in &law.steps {
            for end in [step.start, step.end] {
                let (before, at, after) = (law.at(end - 1e-9), law.at(end), law.at(end + 1e-9));
                for k in 0..3 {
                    assert!(
                        (after[k] - before[k]).abs() < 1e-6 && (at[k] - before[k]).abs() < 1e-6,
                        "{name}: derivative {k} jumps at t = {end}"
                    );
                }
            }
        }
    }
    // The robot's law (Wojtyra and Frączek 2013, sect. 4, as the scene writes it): d(0) = -20 a = -1 m, -1.01 m while turning right,
    // back to -1 m, -0.99 m while turning left, -1 m at the end.
    let robot = crate::mobile_robot::robot_law();
    for (t, d) in [
        (0.0, -1.0),
        (3.0, -1.01),
        (5.5, -1.0),
        (8.0, -0.99),
        (12.0, -1.0),
    ] {
        assert_abs_diff_eq!(robot.at(t)[0], d, epsilon = 1e-14);
    }
}
