//! Joint reactions and their solvability on the shipped linkages (Wojtyra and Frączek 2013,
//! sect. 3) against references derived here, never against values the code printed.
//!
//! Conventions: `M xdd + A^T lambda = f`; `Mechanism::joint_reaction` gives the force that a
//! joint exerts on its first body (the crank for every joint of these scenes) in global axes.
//! Every linkage here is a parallelogram family: 1 m cranks pivoted on the ground at
//! x = 0, 1, 2 (, 3), couplers hinged on the cranks' tips, a second stage's cranks hinged on
//! the first coupler. With every crank at angle `phi` the couplers translate and stay
//! horizontal ([`parallel_state`] builds that pose from the geometry alone).
//!
//! Self-stress of the redundant linkages (derivation for the tests below). A self-stress is
//! a set of joint forces that leaves every body in equilibrium with no load on it
//! (`A^T u = 0`). A crank then carries only its two pin forces, so it is a two-force member:
//! they are `t_i e` at its tip and `-t_i e` at its pivot, `e = (cos phi, sin phi)` along it.
//! A coupler with its pins at distances `s_i` from its start receives `-t_i e` at each:
//! force balance `sum t_i = 0`, moment balance `sum s_i t_i (e_coupler x e) =
//! sum s_i t_i sin(phi) = 0`, so `sum s_i t_i = 0` away from the flat poses. Three cranks
//! (`s = 0, 1, 2`, the modified double four-bar) leave one solution, `t = (1, -2, 1)`: p = 1.
//! Four (`s = 0..3`, the triple) leave two: p = 2. A stacked stage adds its own (2x2: p = 2,
//! 2x3: p = 4). Every crank's `t_i` is non-zero in some mode, so every joint's reaction can
//! change: none is unique. With the cranks vertical `e = (0, 1)`: the modes change vertical
//! components only, so the horizontal ones are unique; at 60 degrees `e` has both
//! components, and none is.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_3, PI};

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::{DMatrix, DVector, Vector2};
use singulab::model::{BodyKind, JointKind, Mechanism};
use singulab::scene::Scene;
use singulab::solver::{
    JointSolvability, Reactions, SOLVABILITY_TOLERANCE, Simulation, solvability,
};

use crate::common::scene;

/// The redundant linkages and their degree of redundancy (module docs).
const REDUNDANT: [(&str, usize); 4] = [
    ("modified_double_four_bar", 1),
    ("modified_triple_four_bar", 2),
    ("modified_2x2", 2),
    ("modified_2x3", 4),
];

/// Standard gravity as the scenes state it (m/s^2).
const G: f64 = 9.81;

/// One state with what the reaction code makes of it.
struct Analysed {
    label: String,
    x: DVector<f64>,
    /// The accelerations the dynamics finds at the state (what the reactions balance).
    xdd: DVector<f64>,
    a: DMatrix<f64>,
    reactions: Reactions,
    verdicts: Vec<JointSolvability>,
}

impl Analysed {
    fn of(sim: &mut Simulation, label: String) -> Self {
        let mechanism = sim.mechanism().clone();
        let mut reactions = Reactions::new(&mechanism);
        sim.solve_reactions(&mut reactions).expect("reactions");
        let x = sim.positions().clone();
        let xdd = sim.accelerations_with_tangent(None).expect("accelerations");
        let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
        mechanism.jacobian(&x, &mut a);
        let verdicts = solvability(&mechanism, &x, &a, &reactions);
        Self {
            label,
            x,
            xdd,
            a,
            reactions,
            verdicts,
        }
    }

    /// Joint `joint`'s force on its first body from multipliers `lambda`.
    fn force(&self, mechanism: &Mechanism, joint: usize, lambda: &DVector<f64>) -> Vector2<f64> {
        let mut out = [0.0; 6];
        let count = mechanism.joint_reaction(joint, &self.x, &self.a, lambda, &mut out);
        assert_eq!(count, 2, "{}: joint {joint} is a planar pin", self.label);
        Vector2::new(out[0], out[1])
    }
}

/// Joint index by name.
fn joint(mechanism: &Mechanism, name: &str) -> usize {
    mechanism
        .joints()
        .iter()
        .position(|j| j.name == name)
        .unwrap_or_else(|| panic!("no joint {name}"))
}

fn is_crank(mechanism: &Mechanism, body: usize) -> bool {
    mechanism.bodies()[body].name.starts_with("crank")
}

/// Rotation of a body-frame vector by `theta`.
fn rotate(theta: f64, p: &Vector2<f64>) -> Vector2<f64> {
    let (s, c) = theta.sin_cos();
    Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y)
}

/// The parallelogram state of a four-bar-family scene with every crank at `phi` turning at
/// `omega` and every coupler horizontal. From the stated pose (cranks vertical, start ends at
/// heights 0, 1, 2 = the number of cranks below them): a start end at height `k` moves to
/// `(x0 + k cos phi, k sin phi)`, with velocity `k omega (-sin phi, cos phi)`. Checked
/// against the constraints (`c = 0`, `A xd = 0`) before use.
fn parallel_state(scene: &Scene, phi: f64, omega: f64) -> (DVector<f64>, DVector<f64>) {
    let mechanism = &scene.mechanism;
    let (mut x, mut xd) = (scene.x0.clone(), DVector::zeros(mechanism.n()));
    let (along, across) = (
        Vector2::new(phi.cos(), phi.sin()),
        Vector2::new(-phi.sin(), phi.cos()),
    );
    for (index, body) in mechanism.bodies().iter().enumerate() {
        let BodyKind::Bar { length } = body.kind else {
            panic!("{} is not a bar", body.name)
        };
        let o = body.offset;
        let half = 0.5 * length;
        let stated = Vector2::new(x[o], x[o + 1]) - rotate(x[o + 2], &Vector2::new(half, 0.0));
        let level = stated.y.round();
        let start = Vector2::new(stated.x, 0.0) + level * along;
        let start_velocity = level * omega * across;
        let (centre, velocity, theta, rate) = if is_crank(mechanism, index) {
            (
                start + half * along,
                start_velocity + half * omega * across,
                phi,
                omega,
            )
        } else {
            (start + Vector2::new(half, 0.0), start_velocity, 0.0, 0.0)
        };
        x.rows_mut(o, 3)
            .copy_from_slice(&[centre.x, centre.y, theta]);
        xd.rows_mut(o, 3)
            .copy_from_slice(&[velocity.x, velocity.y, rate]);
    }
    let mut c = DVector::zeros(mechanism.m());
    mechanism.residual(0.0, &x, &mut c);
    assert!(c.amax() < 1e-12, "pose at phi {phi}: residual {}", c.amax());
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(&x, &mut a);
    assert!((&a * &xd).amax() < 1e-12, "velocities at phi {phi}");
    (x, xd)
}

/// A simulation of `scene` started in the parallelogram state at `phi`, `omega`.
fn simulation_at(scene: &Scene, phi: f64, omega: f64) -> Simulation {
    let (x, xd) = parallel_state(scene, phi, omega);
    Simulation::new(scene.mechanism.clone(), x, xd, scene.settings.clone()).expect("simulation")
}

/// Whether every crank is at least 0.2 rad-ish (`|sin| > 0.2`) away from the flat poses, the
/// singular configurations where the left null space grows.
fn away_from_flat(mechanism: &Mechanism, x: &DVector<f64>) -> bool {
    (0..mechanism.bodies().len())
        .filter(|&b| is_crank(mechanism, b))
        .all(|b| x[mechanism.bodies()[b].offset + 2].sin().abs() > 0.2)
}

/// States of a run of `scene` from its own start, every 0.25 s up to `t_end`, away from the
/// flat poses and at the generic rank.
fn run_states(scene: &Scene, t_end: f64) -> Vec<Analysed> {
    let mut sim = scene.simulation().expect("simulation");
    let mut states = Vec::new();
    let mut k = 1;
    while f64::from(k) * 0.25 <= t_end + 1e-9 {
        let t = f64::from(k) * 0.25;
        while sim.time() < t - 1e-12 {
            sim.step_until(t).expect("step");
        }
        if away_from_flat(&scene.mechanism, sim.positions()) && sim.rank() == sim.generic_rank() {
            states.push(Analysed::of(&mut sim, format!("run t = {t}")));
        }
        k += 1;
    }
    assert!(states.len() >= 4, "too few states away from flat poses");
    states
}

/// The states the redundant-linkage tests look at: the stated start (cranks vertical), the
/// parallelogram at 60 degrees and at 120 degrees (turning), and a run.
fn redundant_states(scene: &Scene) -> Vec<Analysed> {
    let mut states = vec![Analysed::of(
        &mut scene.simulation().expect("simulation"),
        "start (vertical)".into(),
    )];
    for (phi, omega, label) in [
        (FRAC_PI_3, 0.0, "60 deg at rest"),
        (2.0 * FRAC_PI_3, -1.0, "120 deg"),
    ] {
        states.push(Analysed::of(
            &mut simulation_at(scene, phi, omega),
            label.into(),
        ));
    }
    states.extend(run_states(scene, 3.0));
    states
}

/// The redundant linkages at the states of [`redundant_states`]: the degree of redundancy of
/// the module docs, self-stress modes that load no body, and no joint's reaction unique. The
/// reported multipliers are the minimum-norm ones (measured: at most 3.9e-16 of `|lambda|`
/// along a mode) and their forces balance every bar (measured: imbalance at most 3.1e-10 N
/// with forces up to 181 N), though other forces would too.
#[test]
fn redundant_linkages_have_no_unique_joint_reaction() {
    for (name, p) in REDUNDANT {
        let scene = scene(name);
        let mechanism = &scene.mechanism;
        for state in redundant_states(&scene) {
            let label = format!("{name}, {}", state.label);
            assert_eq!(state.reactions.redundancy(), p, "{label}");
            for k in 0..p {
                // A self-stress mode loads no body: A^T u = 0 (unit length).
                let mode = state.reactions.mode(k).into_owned();
                assert_abs_diff_eq!(mode.norm(), 1.0, epsilon = 1e-12);
                assert!(
                    (state.a.transpose() * &mode).amax() < 1e-12,
                    "{label}: mode {k}"
                );
            }
            // The reported multipliers: minimum norm (no part along a mode), and forces that
            // balance every bar, though not the only ones that do.
            let lambda = state.reactions.lambda();
            for k in 0..p {
                let along = state.reactions.mode(k).dot(lambda);
                assert!(
                    along.abs() < 1e-12 * lambda.norm(),
                    "{label}: mode {k}: {along}"
                );
            }
            let forces = DVector::from_iterator(
                2 * mechanism.joints().len(),
                (0..mechanism.joints().len()).flat_map(|j| {
                    let f = state.force(mechanism, j, lambda);
                    [f.x, f.y]
                }),
            );
            let balance = FreeBodies::new(mechanism, &state.x, &state.xdd).residual(&forces);
            let bound = 1e-11 * forces.amax().max(1.0);
            assert!(balance < bound, "{label}: free-body imbalance {balance}");
            assert_eq!(state.verdicts.len(), mechanism.joints().len(), "{label}");
            for verdict in &state.verdicts {
                let joint = &mechanism.joints()[verdict.joint].name;
                assert!(!verdict.unique(), "{label}: joint {joint} unique");
            }
        }
    }
}

/// The tensions `t_i` that multipliers `u` put in the cranks of a single-stage modified
/// four-bar (pins `O_i` to the ground, `A_i` to the coupler), checking on the way that every
/// crank is a two-force member under them: its tip force `t_i e` along it and its pivot force
/// the opposite.
fn crank_tensions(mechanism: &Mechanism, state: &Analysed, u: &DVector<f64>) -> Vec<f64> {
    let mut tensions = Vec::new();
    for i in 1.. {
        let Some(crank) = mechanism.body_index(&format!("crank{i}")) else {
            break;
        };
        let phi = state.x[mechanism.bodies()[crank].offset + 2];
        let e = Vector2::new(phi.cos(), phi.sin());
        let tip = state.force(mechanism, joint(mechanism, &format!("A{i}")), u);
        let pivot = state.force(mechanism, joint(mechanism, &format!("O{i}")), u);
        let label = format!("{}: crank{i}", state.label);
        assert!(
            (tip + pivot).amax() < 1e-12,
            "{label}: tip {tip:?}, pivot {pivot:?}"
        );
        assert!(
            tip.perp(&e).abs() < 1e-12,
            "{label}: tip force {tip:?} across the crank"
        );
        tensions.push(tip.dot(&e));
    }
    tensions
}

/// The modified double four-bar's one self-stress mode is `t = (1, -2, 1)` on its cranks and
/// the triple's two satisfy the coupler's balance `sum t_i = 0`, `sum s_i t_i = 0`
/// (`s_i = 0, 1, 2, 3`) and are independent (module docs).
#[test]
fn self_stress_modes_are_the_crank_patterns() {
    for name in ["modified_double_four_bar", "modified_triple_four_bar"] {
        let scene = scene(name);
        let mechanism = &scene.mechanism;
        for state in redundant_states(&scene) {
            let p = state.reactions.redundancy();
            let modes: Vec<Vec<f64>> = (0..p)
                .map(|k| crank_tensions(mechanism, &state, &state.reactions.mode(k).into_owned()))
                .collect();
            let label = format!("{name}, {}", state.label);
            for t in &modes {
                let sum: f64 = t.iter().sum();
                let moment: f64 = t.iter().enumerate().map(|(s, t)| s as f64 * t).sum();
                // The run's states meet the constraints to Newton's tolerance, not to rounding.
                assert!(sum.abs() < 1e-10 && moment.abs() < 1e-10, "{label}: {t:?}");
            }
            // Every crank carries some mode, so no pin's reaction is unique.
            for i in 0..modes[0].len() {
                let largest = modes.iter().map(|t| t[i].abs()).fold(0.0, f64::max);
                assert!(largest > 0.1, "{label}: crank{} in {modes:?}", i + 1);
            }
            if p == 1 {
                let pattern: Vec<f64> = modes[0].iter().map(|t| t / modes[0][0]).collect();
                assert!(
                    abs_diff_eq!(
                        pattern.as_slice(),
                        [1.0, -2.0, 1.0].as_slice(),
                        epsilon = 1e-12
                    ),
                    "{label}: {pattern:?}"
                );
            } else {
                // Gram determinant of the two tension vectors: zero only if they are parallel.
                let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
                let gram = dot(&modes[0], &modes[0]) * dot(&modes[1], &modes[1])
                    - dot(&modes[0], &modes[1]).powi(2);
                assert!(gram > 1e-3, "{label}: {modes:?}");
            }
        }
    }
}

/// With the cranks vertical every mode loads the joints vertically only: each joint's `fx` is
/// unique and its `fy` is not; with the cranks at 60 degrees neither is (module docs).
#[test]
fn vertical_cranks_leave_only_horizontal_components_unique() {
    for (name, _) in REDUNDANT {
        let scene = scene(name);
        let mechanism = &scene.mechanism;
        let vertical = Analysed::of(&mut scene.simulation().unwrap(), "vertical".into());
        let slanted = Analysed::of(&mut simulation_at(&scene, FRAC_PI_3, 0.0), "60 deg".into());
        for (state, fx_unique) in [(vertical, true), (slanted, false)] {
            for verdict in &state.verdicts {
                let joint = &mechanism.joints()[verdict.joint].name;
                let [fx, fy] = verdict.components.as_slice() else {
                    panic!("{name}: {joint} has {:?}", verdict.components)
                };
                assert_eq!((fx.name, fy.name), ("fx", "fy"));
                assert_eq!(
                    fx.unique, fx_unique,
                    "{name}, {}: {joint} {fx:?}",
                    state.label
                );
                assert!(!fy.unique, "{name}, {}: {joint} {fy:?}", state.label);
            }
        }
    }
}

/// A joint of the pin-jointed linkages: its first body, its second (`None`: the ground) and
/// its point in global axes.
fn joint_site(
    mechanism: &Mechanism,
    joint: usize,
    x: &DVector<f64>,
) -> (usize, Option<usize>, Vector2<f64>) {
    match &mechanism.joints()[joint].kind {
        JointKind::Pin { body, ground, .. } => (*body, None, *ground),
        JointKind::Revolute { a, point_a, b, .. } => {
            let o = mechanism.bodies()[*a].offset;
            let point = Vector2::new(x[o], x[o + 1]) + rotate(x[o + 2], point_a);
            (*a, Some(*b), point)
        }
        other => panic!("not a pin-jointed linkage: {other:?}"),
    }
}

/// Each bar's Newton-Euler balance with accelerations `xdd`, linear in the joints' forces on
/// their first bodies (`F_J`, two unknowns per joint). For bar `b` with centre `c`, mass `m`,
/// central inertia `I`, and `s = +1` where `b` is joint J's first body, `-1` where it is its
/// second (action and reaction):
///   sum_J s F_J = m (a_c - g),    sum_J s (P_J - c) x F_J = I alpha.
/// Three equations per bar: `system F = load`.
struct FreeBodies {
    system: DMatrix<f64>,
    load: DVector<f64>,
}

impl FreeBodies {
    fn new(mechanism: &Mechanism, x: &DVector<f64>, xdd: &DVector<f64>) -> Self {
        let (bodies, joints) = (mechanism.bodies(), mechanism.joints().len());
        let mut system = DMatrix::zeros(3 * bodies.len(), 2 * joints);
        for j in 0..joints {
            let (first, second, point) = joint_site(mechanism, j, x);
            for (body, s) in [(Some(first), 1.0), (second, -1.0)] {
                let Some(body) = body else { continue };
                let o = bodies[body].offset;
                let arm = point - Vector2::new(x[o], x[o + 1]);
                let row = 3 * body;
                system[(row, 2 * j)] = s;
                system[(row + 1, 2 * j + 1)] = s;
                system[(row + 2, 2 * j)] = -s * arm.y;
                system[(row + 2, 2 * j + 1)] = s * arm.x;
            }
        }
        let [gx, gy, _] = mechanism.gravity();
        let mut load = DVector::zeros(3 * bodies.len());
        for (k, body) in bodies.iter().enumerate() {
            let o = body.offset;
            load[3 * k] = body.mass * (xdd[o] - gx);
            load[3 * k + 1] = body.mass * (xdd[o + 1] - gy);
            load[3 * k + 2] = body.inertia() * xdd[o + 2];
        }
        Self { system, load }
    }

    /// The forces by least squares (9 x 8 for the four-bar, 15 x 14 for A02), the system's
    /// smallest singular value (non-zero: the balance determines every force) and the largest
    /// residual (zero: the accelerations are those of some set of joint forces).
    fn solve(&self) -> (Vec<Vector2<f64>>, f64, f64) {
        let svd = self.system.clone().svd(true, true);
        let solution = svd.solve(&self.load, 1e-12).expect("least squares");
        let forces = (0..solution.len() / 2)
            .map(|j| Vector2::new(solution[2 * j], solution[2 * j + 1]))
            .collect();
        (forces, svd.singular_values.min(), self.residual(&solution))
    }

    /// The largest imbalance left by the forces `f` (joint after joint, `fx, fy`).
    fn residual(&self, f: &DVector<f64>) -> f64 {
        (&self.system * f - &self.load).amax()
    }
}

/// Crank acceleration of a parallelogram from Lagrange's equation. With crank angle `phi`
/// (1 m, 1 kg bars): the cranks turn about their pivots (`m L^2 / 3 = 1/3` each) and the
/// couplers translate at speed `phid`, so `T = J phid^2 / 2`; the centres are at heights
/// `sin(phi) / 2` (cranks) and `sin(phi)` (couplers), so `V = h g sin(phi)`, and
/// `J phidd = -h g cos(phi)`. Four-bar: `J = 2/3 + 1`, `h = 1 + 1`; A02: `J = 3/3 + 2`,
/// `h = 3/2 + 2`.
fn parallelogram_acceleration(name: &str, phi: f64) -> f64 {
    let (inertia, height) = match name {
        "four_bar" => (5.0 / 3.0, 2.0),
        "double_four_bar" => (3.0, 3.5),
        _ => unreachable!("{name}"),
    };
    -height * G * phi.cos() / inertia
}

/// The crank angle of a parallelogram state (every crank at one angle, couplers level), or
/// `None` when the state is on another branch.
fn parallelogram_angle(mechanism: &Mechanism, x: &DVector<f64>) -> Option<f64> {
    let angle = |b: usize| x[mechanism.bodies()[b].offset + 2];
    let phi = angle(0);
    let level = |b: usize| {
        let target = if is_crank(mechanism, b) { phi } else { 0.0 };
        (angle(b) - target).sin().abs() < 1e-9 && (angle(b) - target).cos() > 0.0
    };
    (0..mechanism.bodies().len()).all(level).then_some(phi)
}

/// A02 and the four-bar have no redundant constraint (p = 0), so every reaction component
/// is unique, and the reactions are the forces each bar's free-body balance needs
/// ([`FreeBodies`]) with the accelerations of the state. Those accelerations are checked
/// against Lagrange's equation of the parallelogram where the state is on that branch.
/// States: the start, three parallelograms set by hand (at rest, and turning either way) and
/// a 3 s run. Measured: the reactions within 7.8e-11 N of the free-body forces (up to 72 N),
/// the balance's residual at most 3.9e-11 and its smallest singular value 0.17; the crank
/// accelerations within 5.2e-12 rad/s^2 of Lagrange's.
#[test]
fn a02_and_four_bar_reactions_balance_every_bar() {
    for name in ["four_bar", "double_four_bar"] {
        let scene = scene(name);
        let mechanism = &scene.mechanism;
        let mut states = vec![Analysed::of(
            &mut scene.simulation().unwrap(),
            "start".into(),
        )];
        for (phi, omega) in [(FRAC_PI_3, 0.0), (2.0, 3.0), (-2.5, -1.5)] {
            let label = format!("phi {phi:.3}, omega {omega}");
            states.push(Analysed::of(&mut simulation_at(&scene, phi, omega), label));
        }
        states.extend(run_states(&scene, 3.0));
        let mut parallelograms = 0;
        for state in &states {
            let label = format!("{name}, {}", state.label);
            assert_eq!(state.reactions.redundancy(), 0, "{label}");
            assert!(
                state.verdicts.iter().all(JointSolvability::unique),
                "{label}"
            );
            let (expected, smallest, residual) =
                FreeBodies::new(mechanism, &state.x, &state.xdd).solve();
            assert!(
                smallest > 0.1 && residual < 1e-9,
                "{label}: {smallest}, {residual}"
            );
            for (j, expected) in expected.iter().enumerate() {
                let found = state.force(mechanism, j, state.reactions.lambda());
                assert!(
                    abs_diff_eq!(found, *expected, epsilon = 1e-9),
                    "{label}: joint {}: {found:?}, free bodies {expected:?}",
                    mechanism.joints()[j].name
                );
            }
            if let Some(phi) = parallelogram_angle(mechanism, &state.x) {
                parallelograms += 1;
                let expected = parallelogram_acceleration(name, phi);
                for (b, body) in mechanism.bodies().iter().enumerate() {
                    let alpha = if is_crank(mechanism, b) {
                        expected
                    } else {
                        0.0
                    };
                    let found = state.xdd[body.offset + 2];
                    assert!(
                        abs_diff_eq!(found, alpha, epsilon = 1e-9),
                        "{label}: {} alpha {found}, Lagrange {alpha}",
                        body.name
                    );
                }
            }
        }
        assert!(
            parallelograms >= 4,
            "{name}: {parallelograms} parallelogram states"
        );
    }
}

/// The four-bar at rest with its cranks vertical (up or hanging down) and the coupler level
/// is in equilibrium (`cos(phi) = 0` in [`parallelogram_acceleration`]): every acceleration
/// is zero and the pin forces are statics. Crank: two horizontal end forces and no other
/// horizontal load, with moments about its centre `±F_x L / 2` that must cancel: both
/// horizontal forces are zero, on every bar. Coupler (1 kg, pins at its ends, centre
/// midway): moments give equal vertical pin forces, so each crank tip holds up half the
/// coupler's weight, `g / 2`, and receives `(0, -g/2)` from it (A and B, on the cranks).
/// Ground pin: carries the crank's own weight and that half, `(0, 3 g / 2)` on the crank
/// (O1 and O2). Measured: within 2.7e-15 N.
#[test]
fn four_bar_pin_reactions_at_rest_are_statics() {
    let scene = scene("four_bar");
    let mechanism = &scene.mechanism;
    for phi in [FRAC_PI_2, -FRAC_PI_2] {
        let state = Analysed::of(&mut simulation_at(&scene, phi, 0.0), format!("phi {phi}"));
        assert!(
            state.xdd.amax() < 1e-12,
            "phi {phi}: accelerations {}",
            state.xdd
        );
        for (name, expected) in [
            ("O1", Vector2::new(0.0, 1.5 * G)),
            ("O2", Vector2::new(0.0, 1.5 * G)),
            ("A", Vector2::new(0.0, -0.5 * G)),
            ("B", Vector2::new(0.0, -0.5 * G)),
        ] {
            let found = state.force(mechanism, joint(mechanism, name), state.reactions.lambda());
            assert!(
                abs_diff_eq!(found, expected, epsilon = 1e-12),
                "phi {phi}: {name} {found:?}, statics {expected:?}"
            );
        }
    }
}

/// The solvability verdict compares what the modes change in a component with the largest
/// change in any component (`SOLVABILITY_TOLERANCE` relative). Over every state of the
/// redundant-linkage tests, the relative changes of the unique components (the horizontal
/// ones with the cranks vertical) and those of the others are far apart, with the tolerance
/// (1e-8) at least four orders of magnitude from both. Measured: 42 unique components, the
/// largest relative change 2.3e-16 (rounding); the smallest among the others 1.5e-2 (the
/// horizontal components of the 2x3 at t = 2.75 s, its cranks near vertical: those changes
/// go as `cos(phi)`, see the next test).
#[test]
fn solvability_verdicts_have_a_clear_gap() {
    let (mut unique_largest, mut other_smallest) = (0.0_f64, f64::INFINITY);
    let mut unique_count = 0;
    for (name, _) in REDUNDANT {
        for state in redundant_states(&scene(name)) {
            let components = || state.verdicts.iter().flat_map(|v| v.components.iter());
            let scale = components().map(|c| c.largest_change).fold(0.0, f64::max);
            for c in components() {
                let relative = c.largest_change / scale;
                if c.unique {
                    unique_count += 1;
                    unique_largest = unique_largest.max(relative);
                } else {
                    other_smallest = other_smallest.min(relative);
                }
            }
        }
    }
    assert_eq!(
        unique_count, 42,
        "the horizontal components at the four vertical starts"
    );
    assert!(
        unique_largest < 1e-4 * SOLVABILITY_TOLERANCE,
        "{unique_largest:e}"
    );
    assert!(
        other_smallest > 1e4 * SOLVABILITY_TOLERANCE,
        "{other_smallest:e}"
    );
}

/// What the tolerance means for the modified double four-bar with its cranks at
/// `phi = pi/2 + delta`: its mode puts `c t_i e` on the pins (`t = (1, -2, 1)`), so the largest
/// change of any component is `2 c |sin(phi)|` (the middle crank's vertical ones) and the
/// horizontal change on crank `i`'s pins, relative to it, is `|t_i| |cot(phi)| / 2`. The
/// verdict calls those unique exactly when that is below the tolerance: within 1e-8 rad of
/// vertical for the middle crank's pins, 2e-8 rad for the outer ones.
#[test]
fn solvability_tolerance_in_terms_of_the_crank_angle() {
    let scene = scene("modified_double_four_bar");
    let mechanism = &scene.mechanism;
    for delta in [1e-2, 1e-5, 1e-7, 3e-9, 1e-10] {
        let phi = FRAC_PI_2 + delta;
        let state = Analysed::of(
            &mut simulation_at(&scene, phi, 0.0),
            format!("delta {delta}"),
        );
        let scale = state
            .verdicts
            .iter()
            .flat_map(|v| v.components.iter().map(|c| c.largest_change))
            .fold(0.0, f64::max);
        for verdict in &state.verdicts {
            let name = &mechanism.joints()[verdict.joint].name;
            let t: f64 = if name.ends_with('2') { 2.0 } else { 1.0 };
            let expected = t * (phi.cos() / phi.sin()).abs() / 2.0;
            let fx = verdict.components[0];
            // Rounding in the modes is absolute, about 1e-16.
            assert!(
                abs_diff_eq!(
                    fx.largest_change / scale,
                    expected,
                    epsilon = 1e-6 * expected + 1e-15
                ),
                "delta {delta}: {name} fx {}, expected {expected:e}",
                fx.largest_change / scale
            );
            assert_eq!(
                fx.unique,
                expected <= SOLVABILITY_TOLERANCE,
                "delta {delta}: {name}"
            );
            assert!(!verdict.components[1].unique, "delta {delta}: {name} fy");
        }
    }
}

/// At the flat poses (every bar on the x axis, cranks along +x or -x: the singular
/// configurations) the left null space grows. With every pin on one line, a bar with pins at
/// its two ends and no load can only carry equal and opposite forces along that line: a
/// vertical pair would turn it. So every self-stress is horizontal, and the vertical
/// components are unique. Horizontally, each bar's pin forces need only cancel: four-bar,
/// `F_A = s`, `F_O1 = F_B = -s`, `F_O2 = s` (p = 1, from 0); A02, one such chain per coupler,
/// meeting at the middle crank's pivot, `F_O2 = -(F_B1 + F_A2)` (p = 2, from 0); modified
/// double four-bar, tip forces `a_i` on the cranks with `sum a_i = 0` (p = 2, from 1). Every
/// pin is in one of these chains, so no horizontal component is unique.
#[test]
fn flat_poses_add_horizontal_self_stress() {
    for (name, p) in [
        ("four_bar", 1),
        ("double_four_bar", 2),
        ("modified_double_four_bar", 2),
    ] {
        let scene = scene(name);
        let mechanism = &scene.mechanism;
        for phi in [0.0, PI] {
            let label = format!("{name} flat at {phi}");
            let state = Analysed::of(&mut simulation_at(&scene, phi, 0.0), label.clone());
            assert_eq!(state.reactions.redundancy(), p, "{label}");
            for verdict in &state.verdicts {
                let joint = &mechanism.joints()[verdict.joint].name;
                let [fx, fy] = verdict.components.as_slice() else {
                    panic!("{label}: {joint} has {:?}", verdict.components)
                };
                assert!(!fx.unique && fy.unique, "{label}: {joint} {fx:?} {fy:?}");
            }
        }
    }
}
