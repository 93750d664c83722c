//! Checks the analytic derivatives of the mechanism model (`Mechanism::{residual, jacobian,
//! jacobian_dot, gamma, forces, energy}`) for every constraint kind: revolute joints between
//! two bars (local points at `Start`, `End`, a fraction of the length and an arbitrary offset),
//! a revolute joint between a bar and a planar point mass, pins, and distance constraints in
//! 2D and 3D, on small mechanisms built directly with `Mechanism::new`.
//!
//! References, all independent of the code under test:
//! - residuals: the world positions `r + R(theta) s` written out by hand in this file;
//! - `A`: central finite differences of `residual` (step 1e-6);
//! - `dA/dt`: central differences of `jacobian` along `xd`, `(A(x + e xd) - A(x - e xd)) / 2e`;
//! - `gamma`: along the straight line `x(s) = x + s xd` (so `xdd = 0`),
//!   `d^2 c / ds^2 = (dA/dt) xd = -gamma`, the second derivative taken with a five-point stencil
//!   of `residual` alone;
//! - forces and energy: `m g` on translational coordinates, the half-open pulse window
//!   `[start, start + duration)`, and `1/2 m v^2 + 1/2 (m l^2 / 12) omega^2 + m g y`, computed
//!   by hand.

use std::f64::consts::PI;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::{DMatrix, DVector, Vector2};
use singulab::model::{Body, BodyKind, Joint, JointKind, Load, LoadKind, Mechanism};
use singulab::scene::parse_scene;

use crate::test_rng::Rng;

const G: f64 = 9.81;
const PLANAR_GRAVITY: [f64; 3] = [0.0, -G, 0.0];

fn bar(name: &str, length: f64, mass: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Bar { length },
        mass,
        offset: 0,
    }
}

fn point2(name: &str, mass: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Point2,
        mass,
        offset: 0,
    }
}

fn point3(name: &str, mass: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Point3,
        mass,
        offset: 0,
    }
}

fn joint(name: &str, kind: JointKind) -> Joint {
    Joint {
        name: name.into(),
        kind,
        row: 0,
    }
}

/// Local points of a bar of length `l`, written from their definitions: `Start` and `End` are
/// the ends of the axis, a fraction `f` of the length from the start end is `(f - 1/2) l`
/// along the axis, an offset is any point of the body frame.
fn start(l: f64) -> Vector2<f64> {
    Vector2::new(-0.5 * l, 0.0)
}

fn end(l: f64) -> Vector2<f64> {
    Vector2::new(0.5 * l, 0.0)
}

fn fraction(l: f64, f: f64) -> Vector2<f64> {
    Vector2::new((f - 0.5) * l, 0.0)
}

fn revolute(a: usize, pa: Vector2<f64>, b: usize, pb: Vector2<f64>) -> JointKind {
    JointKind::Revolute {
        a,
        point_a: pa,
        b,
        point_b: pb,
    }
}

/// A small mechanism exercising one constraint kind, with the residual written out by hand.
struct Case {
    name: &'static str,
    mechanism: Mechanism,
    /// Hand-written `c(x)`.
    residual: fn(&DVector<f64>) -> Vec<f64>,
}

/// World position of local point `p` of the bar whose coordinates start at `o`.
fn bar_point(x: &DVector<f64>, o: usize, p: Vector2<f64>) -> Vector2<f64> {
    let (s, c) = x[o + 2].sin_cos();
    Vector2::new(x[o] + c * p.x - s * p.y, x[o + 1] + s * p.x + c * p.y)
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "revolute bar-bar, End to Start",
            mechanism: Mechanism::new(
                vec![bar("a", 1.3, 1.0), bar("b", 0.7, 2.0)],
                vec![joint("J", revolute(0, end(1.3), 1, start(0.7)))],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, end(1.3)) - bar_point(x, 3, start(0.7));
                vec![d.x, d.y]
            },
        },
        Case {
            name: "revolute bar-bar, Start to End",
            mechanism: Mechanism::new(
                vec![bar("a", 0.9, 1.0), bar("b", 2.1, 2.0)],
                vec![joint("J", revolute(0, start(0.9), 1, end(2.1)))],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, start(0.9)) - bar_point(x, 3, end(2.1));
                vec![d.x, d.y]
            },
        },
        Case {
            name: "revolute bar-bar, Fraction to Offset",
            mechanism: Mechanism::new(
                vec![bar("a", 1.5, 1.0), bar("b", 1.1, 0.5)],
                vec![joint(
                    "J",
                    revolute(0, fraction(1.5, 0.3), 1, Vector2::new(0.2, -0.35)),
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, Vector2::new(-0.2 * 1.5, 0.0))
                    - bar_point(x, 3, Vector2::new(0.2, -0.35));
                vec![d.x, d.y]
            },
        },
        Case {
            name: "revolute bar-bar, Offset to Fraction",
            mechanism: Mechanism::new(
                vec![bar("a", 1.0, 1.0), bar("b", 2.0, 3.0)],
                vec![joint(
                    "J",
                    revolute(0, Vector2::new(-0.4, 0.25), 1, fraction(2.0, 0.9)),
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, Vector2::new(-0.4, 0.25))
                    - bar_point(x, 3, Vector2::new(0.8, 0.0));
                vec![d.x, d.y]
            },
        },
        Case {
            name: "revolute bar to planar point mass",
            mechanism: Mechanism::new(
                vec![bar("a", 1.2, 1.0), point2("p", 0.3)],
                vec![joint("J", revolute(0, end(1.2), 1, Vector2::zeros()))],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, end(1.2)) - Vector2::new(x[3], x[4]);
                vec![d.x, d.y]
            },
        },
        Case {
            name: "revolute planar point mass to bar",
            mechanism: Mechanism::new(
                vec![point2("p", 0.3), bar("a", 0.8, 1.0)],
                vec![joint(
                    "J",
                    revolute(0, Vector2::zeros(), 1, Vector2::new(0.1, 0.3)),
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = Vector2::new(x[0], x[1]) - bar_point(x, 2, Vector2::new(0.1, 0.3));
                vec![d.x, d.y]
            },
        },
        Case {
            name: "pin of a bar at its start",
            mechanism: Mechanism::new(
                vec![bar("a", 1.0, 1.0)],
                vec![joint(
                    "P",
                    JointKind::Pin {
                        body: 0,
                        point: start(1.0),
                        ground: Vector2::new(0.5, -0.25),
                    },
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, start(1.0)) - Vector2::new(0.5, -0.25);
                vec![d.x, d.y]
            },
        },
        Case {
            name: "pin of a bar at an offset",
            mechanism: Mechanism::new(
                vec![bar("a", 1.7, 1.0)],
                vec![joint(
                    "P",
                    JointKind::Pin {
                        body: 0,
                        point: Vector2::new(0.3, 0.45),
                        ground: Vector2::new(-1.0, 2.0),
                    },
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                let d = bar_point(x, 0, Vector2::new(0.3, 0.45)) - Vector2::new(-1.0, 2.0);
                vec![d.x, d.y]
            },
        },
        Case {
            name: "pin of a planar point mass",
            mechanism: Mechanism::new(
                vec![point2("p", 1.0)],
                vec![joint(
                    "P",
                    JointKind::Pin {
                        body: 0,
                        point: Vector2::zeros(),
                        ground: Vector2::new(0.25, 0.75),
                    },
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| vec![x[0] - 0.25, x[1] - 0.75],
        },
        Case {
            name: "distance in 2D",
            mechanism: Mechanism::new(
                vec![point2("p", 1.0)],
                vec![joint(
                    "D",
                    JointKind::Distance {
                        body: 0,
                        // The third component must be ignored by a planar point.
                        anchor: [0.3, -0.6, 5.0],
                        length: 1.3,
                    },
                )],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| vec![(x[0] - 0.3).powi(2) + (x[1] + 0.6).powi(2) - 1.3 * 1.3],
        },
        Case {
            name: "distance in 3D",
            mechanism: Mechanism::new(
                vec![point3("p", 1.0)],
                vec![joint(
                    "D",
                    JointKind::Distance {
                        body: 0,
                        anchor: [0.2, 0.1, -0.4],
                        length: 0.08,
                    },
                )],
                vec![],
                [0.0, 0.0, -G],
            ),
            residual: |x| {
                vec![
                    (x[0] - 0.2).powi(2) + (x[1] - 0.1).powi(2) + (x[2] + 0.4).powi(2)
                        - 0.08 * 0.08,
                ]
            },
        },
        Case {
            // Several bodies and joints, so that offsets and rows are not all zero.
            name: "combined: point, three bars, pins, revolutes and a distance",
            mechanism: Mechanism::new(
                vec![
                    point2("p", 0.5),
                    bar("a", 1.0, 1.0),
                    bar("b", 2.0, 2.0),
                    bar("c", 1.0, 1.0),
                ],
                vec![
                    joint(
                        "O",
                        JointKind::Pin {
                            body: 1,
                            point: start(1.0),
                            ground: Vector2::new(0.0, 0.0),
                        },
                    ),
                    joint("A", revolute(1, end(1.0), 2, start(2.0))),
                    joint("B", revolute(3, end(1.0), 2, fraction(2.0, 0.5))),
                    joint(
                        "C",
                        revolute(2, Vector2::new(0.6, 0.2), 0, Vector2::zeros()),
                    ),
                    joint(
                        "D",
                        JointKind::Distance {
                            body: 0,
                            anchor: [1.0, 1.0, 0.0],
                            length: 0.5,
                        },
                    ),
                ],
                vec![],
                PLANAR_GRAVITY,
            ),
            residual: |x| {
                // Offsets: p 0..2, a 2..5, b 5..8, c 8..11.
                let o = bar_point(x, 2, start(1.0));
                let a = bar_point(x, 2, end(1.0)) - bar_point(x, 5, start(2.0));
                let b = bar_point(x, 8, end(1.0)) - bar_point(x, 5, Vector2::zeros());
                let c = bar_point(x, 5, Vector2::new(0.6, 0.2)) - Vector2::new(x[0], x[1]);
                let d = (x[0] - 1.0).powi(2) + (x[1] - 1.0).powi(2) - 0.25;
                vec![o.x, o.y, a.x, a.y, b.x, b.y, c.x, c.y, d]
            },
        },
    ]
}

/// Pseudo-random states `(x, xd)`: positions in [-2, 2], angles in [-pi, pi], velocities in
/// [-3, 3] (angular ones too).
fn states(mechanism: &Mechanism, count: usize, seed: u64) -> Vec<(DVector<f64>, DVector<f64>)> {
    let mut rng = Rng::new(seed);
    let n = mechanism.n();
    (0..count)
        .map(|_| {
            let mut x = DVector::zeros(n);
            let mut xd = DVector::zeros(n);
            for body in mechanism.bodies() {
                for k in 0..body.dim() {
                    let i = body.offset + k;
                    let angle = body.has_angle() && k == 2;
                    x[i] = if angle {
                        rng.uniform(-PI, PI)
                    } else {
                        rng.uniform(-2.0, 2.0)
                    };
                    xd[i] = rng.uniform(-3.0, 3.0);
                }
            }
            (x, xd)
        })
        .collect()
}

fn residual_of(mechanism: &Mechanism, x: &DVector<f64>) -> DVector<f64> {
    let mut c = DVector::from_element(mechanism.m(), f64::NAN);
    mechanism.residual(0.0, x, &mut c);
    c
}

fn jacobian_of(mechanism: &Mechanism, x: &DVector<f64>) -> DMatrix<f64> {
    // Filled with NaN so that entries the code forgets to write show up.
    let mut a = DMatrix::from_element(mechanism.m(), mechanism.n(), f64::NAN);
    mechanism.jacobian(x, &mut a);
    a
}

/// `|got - want|_max <= tol * max(1, |want|_max)`, with a message naming the case.
fn assert_close(what: &str, case: &str, got: &DMatrix<f64>, want: &DMatrix<f64>, tol: f64) {
    assert_eq!(
        got.shape(),
        want.shape(),
        "{case}: {what} has the wrong shape"
    );
    let scale = want.amax().max(1.0);
    let error = (got - want).amax();
    assert!(
        error <= tol * scale && got.iter().all(|v| v.is_finite()),
        "{case}: {what} differs from its reference by {error:.3e} (scale {scale:.3e})\n\
         got {got}\nwant {want}"
    );
}

#[test]
fn sizes_and_offsets_follow_the_bodies_and_joints() {
    for case in cases() {
        let mech = &case.mechanism;
        let n: usize = mech.bodies().iter().map(|b| b.dim()).sum();
        let m: usize = mech.joints().iter().map(|j| j.rows()).sum();
        assert_eq!(mech.n(), n, "{}", case.name);
        assert_eq!(mech.m(), m, "{}", case.name);
        let x = DVector::from_fn(n, |i, _| 0.1 * i as f64);
        assert_eq!(
            (case.residual)(&x).len(),
            m,
            "{}: hand residual size",
            case.name
        );
    }
    // The combined case's offsets and rows, counted by hand.
    let combined = cases().pop().expect("cases");
    let offsets: Vec<usize> = combined
        .mechanism
        .bodies()
        .iter()
        .map(|b| b.offset)
        .collect();
    let rows: Vec<usize> = combined.mechanism.joints().iter().map(|j| j.row).collect();
    assert_eq!(offsets, [0, 2, 5, 8]);
    assert_eq!(rows, [0, 2, 4, 6, 8]);
}

#[test]
fn residual_matches_the_hand_written_constraints() {
    for case in cases() {
        for (x, _) in states(&case.mechanism, 5, 0x5eed_0001) {
            let got = residual_of(&case.mechanism, &x);
            let want = DVector::from_vec((case.residual)(&x));
            assert_close(
                "c(x)",
                case.name,
                &DMatrix::from_column_slice(got.len(), 1, got.as_slice()),
                &DMatrix::from_column_slice(want.len(), 1, want.as_slice()),
                1e-14,
            );
        }
    }
}

#[test]
fn jacobian_matches_central_differences_of_the_residual() {
    let step = 1e-6;
    for case in cases() {
        let mech = &case.mechanism;
        for (x, _) in states(mech, 6, 0x5eed_0002) {
            let a = jacobian_of(mech, &x);
            let mut fd = DMatrix::zeros(mech.m(), mech.n());
            for j in 0..mech.n() {
                let mut xp = x.clone();
                let mut xm = x.clone();
                xp[j] += step;
                xm[j] -= step;
                let column = (residual_of(mech, &xp) - residual_of(mech, &xm)) / (2.0 * step);
                fd.set_column(j, &column);
            }
            assert_close("A = dc/dx", case.name, &a, &fd, 1e-7);
        }
    }
}

#[test]
fn jacobian_dot_matches_central_differences_of_the_jacobian_along_xd() {
    let e = 1e-6;
    for case in cases() {
        let mech = &case.mechanism;
        for (x, xd) in states(mech, 6, 0x5eed_0003) {
            let mut adot = DMatrix::from_element(mech.m(), mech.n(), f64::NAN);
            mech.jacobian_dot(&x, &xd, &mut adot);
            let fd = (jacobian_of(mech, &(&x + &xd * e)) - jacobian_of(mech, &(&x - &xd * e)))
                / (2.0 * e);
            assert_close("dA/dt", case.name, &adot, &fd, 1e-7);
        }
    }
}

#[test]
fn gamma_is_minus_the_second_derivative_of_c_along_a_straight_line() {
    // c(s) = c(x + s xd) has xdd = 0, so d^2c/ds^2 = (dA/dt) xd = -gamma. Five-point stencil
    // (truncation O(h^4), round-off ~ 1e-16 |c| / h^2).
    let h = 1e-3;
    for case in cases() {
        let mech = &case.mechanism;
        for (x, xd) in states(mech, 6, 0x5eed_0004) {
            let c = |s: f64| residual_of(mech, &(&x + &xd * s));
            let second = (-c(2.0 * h) + c(h) * 16.0 - c(0.0) * 30.0 + c(-h) * 16.0 - c(-2.0 * h))
                / (12.0 * h * h);
            let mut gamma = DVector::from_element(mech.m(), f64::NAN);
            mech.gamma(0.0, &x, &xd, &mut gamma);
            let minus_gamma = -gamma;
            assert_close(
                "-gamma",
                case.name,
                &DMatrix::from_column_slice(mech.m(), 1, minus_gamma.as_slice()),
                &DMatrix::from_column_slice(mech.m(), 1, second.as_slice()),
                1e-6,
            );
        }
    }
}

#[test]
fn forces_are_gravity_times_mass_plus_active_loads() {
    let gravity = [0.5, -G, 123.0]; // the third component must not act in the plane
    let loads = vec![
        // Constant force on the point: its z component is ignored in the plane.
        Load {
            body: 1,
            kind: LoadKind::Force([1.5, -2.0, 7.0]),
            window: None,
        },
        // Torque pulse on the bar, start 0.25 s, duration 0.5 s: active on [0.25, 0.75).
        Load {
            body: 0,
            kind: LoadKind::Torque(2.5),
            window: Some((0.25, 0.75)),
        },
    ];
    let mech = Mechanism::new(
        vec![bar("a", 1.2, 2.0), point2("p", 0.3)],
        vec![],
        loads,
        gravity,
    );
    let mut f = DVector::from_element(5, f64::NAN);
    for (t, torque) in [
        (0.0, 0.0),
        (0.2499, 0.0),
        (0.25, 2.5),
        (0.5, 2.5),
        (0.7499, 2.5),
        (0.75, 0.0),
        (3.0, 0.0),
    ] {
        mech.forces(
            t,
            &DVector::zeros(mech.n()),
            &DVector::zeros(mech.n()),
            &[],
            &mut f,
        );
        let want = [2.0 * 0.5, 2.0 * -G, torque, 0.3 * 0.5 + 1.5, 0.3 * -G - 2.0];
        for (i, w) in want.iter().enumerate() {
            assert!(
                abs_diff_eq!(f[i], *w, epsilon = 1e-12),
                "t = {t}: f[{i}] = {} but by hand {w}",
                f[i]
            );
        }
    }
    // Extra (run-time) loads add on top, also windowed.
    let extra = [Load {
        body: 0,
        kind: LoadKind::Torque(-20.0),
        window: Some((1.0, 1.125)),
    }];
    mech.forces(
        1.0625,
        &DVector::zeros(mech.n()),
        &DVector::zeros(mech.n()),
        &extra,
        &mut f,
    );
    assert!(
        abs_diff_eq!(f[2], -20.0, epsilon = 1e-12),
        "extra torque inside its window"
    );
    mech.forces(
        1.125,
        &DVector::zeros(mech.n()),
        &DVector::zeros(mech.n()),
        &extra,
        &mut f,
    );
    assert!(
        abs_diff_eq!(f[2], 0.0, epsilon = 1e-12),
        "extra torque after its window"
    );

    // Spatial: gravity on all three components of a 3D point.
    let mech = Mechanism::new(vec![point3("p", 1.5)], vec![], vec![], [0.1, 0.2, -G]);
    let mut f = DVector::from_element(3, f64::NAN);
    mech.forces(
        0.0,
        &DVector::zeros(mech.n()),
        &DVector::zeros(mech.n()),
        &[],
        &mut f,
    );
    for (i, w) in [0.15, 0.3, -1.5 * G].iter().enumerate() {
        assert!(
            abs_diff_eq!(f[i], *w, epsilon = 1e-12),
            "spatial f[{i}] = {}",
            f[i]
        );
    }
}

#[test]
fn a_scene_torque_pulse_acts_only_in_start_to_start_plus_duration() {
    let source = r#"Scene(
    title: "pulse",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "bar", length: 1.0, mass: 2.0, start: (0.0, 0.0), angle: 0.0),
    ],
    joints: [
        Pin(name: "O", body: "bar", at: Start, ground: (0.0, 0.0)),
    ],
    loads: [
        Torque(name: "kick", body: "bar", torque: -20.0, start: 0.5, duration: 0.25),
    ],
)"#;
    let scene = parse_scene("pulse.ron", source).unwrap_or_else(|e| panic!("{e}"));
    let mech = &scene.mechanism;
    let mut f = DVector::from_element(mech.n(), f64::NAN);
    for (t, torque) in [
        (0.0, 0.0),
        (0.4999, 0.0),
        (0.5, -20.0),
        (0.6, -20.0),
        (0.7499, -20.0),
        (0.75, 0.0),
        (1.0, 0.0),
    ] {
        mech.forces(
            t,
            &DVector::zeros(mech.n()),
            &DVector::zeros(mech.n()),
            &[],
            &mut f,
        );
        assert!(
            abs_diff_eq!(f[2], torque, epsilon = 1e-12),
            "t = {t}: torque {} but the pulse gives {torque}",
            f[2]
        );
        // Gravity alone on the centre.
        assert_abs_diff_eq!(f[0], 0.0, epsilon = 1e-12);
        assert_abs_diff_eq!(f[1], -2.0 * G, epsilon = 1e-12);
    }
}

#[test]
fn energy_of_a_single_bar_by_hand() {
    let (l, m) = (1.4, 2.3);
    let mech = Mechanism::new(vec![bar("a", l, m)], vec![], vec![], PLANAR_GRAVITY);
    let mut rng = Rng::new(0x5eed_0005);
    for _ in 0..5 {
        let x = DVector::from_vec(vec![
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-PI, PI),
        ]);
        let xd = DVector::from_vec(vec![
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
            rng.uniform(-3.0, 3.0),
        ]);
        let (vx, vy, omega) = (xd[0], xd[1], xd[2]);
        let want =
            0.5 * m * (vx * vx + vy * vy) + 0.5 * (m * l * l / 12.0) * omega * omega + m * G * x[1];
        let got = mech.energy(&x, &xd);
        assert!(
            abs_diff_eq!(got, want, epsilon = 1e-12 * want.abs().max(1.0)),
            "energy {got} but by hand {want}"
        );
    }
    // One fixed value worked out on paper: x = (0, 0.5, 0), v = (1, 0), omega = 2, l = 1.4,
    // m = 2.3: 1.15 + 0.5 * 0.37567 * 4 + 2.3 * 9.81 * 0.5.
    let x = DVector::from_vec(vec![0.0, 0.5, 0.0]);
    let xd = DVector::from_vec(vec![1.0, 0.0, 2.0]);
    let want = 1.15 + 0.5 * (2.3 * 1.96 / 12.0) * 4.0 + 11.2815;
    assert_abs_diff_eq!(mech.energy(&x, &xd), want, epsilon = 1e-12);
}

#[test]
fn energy_of_a_spatial_point_by_hand() {
    let mech = Mechanism::new(vec![point3("p", 1.0)], vec![], vec![], [0.0, 0.0, -G]);
    let x = DVector::from_vec(vec![0.08, 0.0, -0.02]);
    let xd = DVector::from_vec(vec![0.0, 0.7895, 0.1]);
    let want = 0.5 * (0.7895f64.powi(2) + 0.01) + G * -0.02;
    assert_abs_diff_eq!(mech.energy(&x, &xd), want, epsilon = 1e-12);
}
