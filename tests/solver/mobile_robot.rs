//! The mobile robot of Wojtyra and Frączek 2013 (sect. 4 and the appendix), built here from the
//! paper's tables with `Mechanism::new`: its ranks, the paper's verdict on which reactions are
//! unique, and the reactions against the paper's own way of computing them.
//!
//! References, independent of the code under test:
//! - the data: table 1 (knife edges), table 2 (masses), table 3 (joints and dimensions),
//!   eq. 34 (`q0`), eq. 39 (`qd0`); the row order is the paper's (eqs. 29, 33 and 37: joints A
//!   to G, H, the driving constraint, then W1 to W5). The driver's law is ours (`robot_law`,
//!   as `scenes/mobile_robot.ron`): the paper gives it only in words (sect. 4.1);
//! - ranks (eq. 35: 17, 4 and 20; eq. 36: p = 2) counted twice, by the project's `PivotedQr`
//!   and by nalgebra's singular values, both relative to the largest;
//! - the verdict (sect. 4.2): unique in A, D, E, F, G, H, the driver and W5, not in B, C and
//!   W1-W4; and at `q0` the size of what the self-stress modes do to each joint, the matrices
//!   `B_X` of eq. 38 (their Frobenius norm does not depend on the basis of the modes);
//! - reactions (sect. 4.4): the paper's three variants delete rows 6 & 21, 18 & 21 or 19 & 21
//!   (1-based) and solve `[M A_r^T; A_r 0] [xdd; lambda_r] = [f; gamma_r]` with nalgebra's LU,
//!   `M` from table 2; the minimum-norm multipliers as nalgebra's pseudo-inverse of `A^T`
//!   applied to `f - M xdd`; the accelerations as differences of the run's velocities; and
//!   Newton-Euler for every body (each joint's force and moment act on its first body, their
//!   opposites on its second).

use std::sync::Arc;

use approx::assert_abs_diff_eq;
use nalgebra::{DMatrix, DVector, Vector2};
use singulab::linalg::PivotedQr;
use singulab::model::{DriverLaw, JointKind, Mechanism, SmoothStep};
use singulab::solver::{JointSolvability, Reactions, Settings, Simulation, solvability};

use crate::planar_joints::{joint, plate};

/// The paper's unit of length (m).
const A: f64 = 0.05;
/// Relative tolerance on the `R` diagonal and on the singular values for the ranks.
const RANK_TOLERANCE: f64 = 1e-10;
/// The paper's row count (eq. 33): 17 position-level rows, then 5 knife edges.
const POSITION_ROWS: usize = 17;
const ROWS: usize = 22;
/// Joints in the paper's order, and the driving constraint's name here.
const JOINTS: [&str; 14] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "drive", "W1", "W2", "W3", "W4", "W5",
];
/// Sect. 4.2: the joints whose reactions are unique.
const UNIQUE: [&str; 8] = ["A", "D", "E", "F", "G", "H", "drive", "W5"];
/// Table 2: masses (kg) and central moments of inertia (kg m^2) of bodies 1 to 7.
const MASSES: [(f64, f64); 7] = [
    (10.0, 0.25),
    (1.0, 0.005),
    (1.0, 0.005),
    (1.0, 0.005),
    (1.0, 0.005),
    (1.0, 0.005),
    (5.0, 0.05),
];

/// Our steering law (the paper's in words: right, straight, left, straight): `d(t) = -1 - 0.01 [S(t;1,2) - S(t;4,5) - S(t;6,7) + S(t;9,10)]` m.
pub fn robot_law() -> DriverLaw {
    let step = |amplitude, start| SmoothStep {
        amplitude,
        start,
        end: start + 1.0,
    };
    DriverLaw {
        constant: -1.0,
        steps: vec![
            step(-0.01, 1.0),
            step(0.01, 4.0),
            step(0.01, 6.0),
            step(-0.01, 9.0),
        ],
    }
}

/// Table 3's dimensions: `(b_x, b_y, c_x, c_y)` with `phi = arctan(1/4)`, `b = a (sin, cos)`,
/// `c_x = 4a - b_x`, `c_y = sqrt((5a)^2 - c_x^2)`.
fn dimensions() -> (f64, f64, f64, f64) {
    let phi = (0.25f64).atan();
    let (bx, by) = (A * phi.sin(), A * phi.cos());
    let cx = 4.0 * A - bx;
    let cy = ((5.0 * A).powi(2) - cx * cx).sqrt();
    (bx, by, cx, cy)
}

fn v(x: f64, y: f64) -> Vector2<f64> {
    Vector2::new(x, y)
}

/// The robot with driving law `law`: bodies 1-7 are indices 0-6; each joint's `a` is the
/// paper's body `i`, `b` its body `j` (table 3).
pub fn robot(law: DriverLaw) -> Mechanism {
    let names = [
        "platform", "carrier1", "carrier2", "link4", "link5", "slider", "trolley",
    ];
    let bodies = names
        .iter()
        .zip(MASSES)
        .map(|(name, (mass, inertia))| plate(name, mass, inertia))
        .collect();
    let (bx, by, cx, cy) = dimensions();
    let revolute = |name, a, point_a, b, point_b| {
        joint(
            name,
            JointKind::Revolute {
                a,
                point_a,
                b,
                point_b,
            },
        )
    };
    let knife = |name, body, point| {
        joint(
            name,
            JointKind::KnifeEdge {
                body,
                point,
                normal: v(0.0, 1.0),
            },
        )
    };
    let (slider_point, platform_point) = (v(0.0, 10.0 * A), v(0.0, -10.0 * A));
    let joints = vec![
        revolute("A", 6, v(7.0 * A, 0.0), 0, v(-8.0 * A, 0.0)),
        revolute("B", 1, v(0.0, 0.0), 0, v(4.0 * A, 0.0)),
        revolute("C", 2, v(0.0, 0.0), 0, v(-4.0 * A, 0.0)),
        revolute("D", 3, v(cx / 2.0, -cy / 2.0), 1, v(-bx, -by)),
        revolute("E", 4, v(-cx / 2.0, -cy / 2.0), 2, v(bx, -by)),
        revolute("F", 5, v(0.0, cy - by), 3, v(-cx / 2.0, cy / 2.0)),
        revolute("G", 5, v(0.0, cy - by), 4, v(cx / 2.0, cy / 2.0)),
        // Eq. 42 with v_ij = (1, 0): the row across the axis is (Q - P) . (R_j perp(axis)),
        // so the axis is (0, -1).
        joint(
            "H",
            JointKind::Prismatic {
                a: 5,
                point_a: slider_point,
                b: 0,
                point_b: platform_point,
                axis: v(0.0, -1.0),
                angle: 0.0,
            },
        ),
        // Eq. 43 with u_ij = (0, 1) in the platform's axes.
        joint(
            "drive",
            JointKind::Driver {
                a: 5,
                point_a: slider_point,
                b: 0,
                point_b: platform_point,
                axis: v(0.0, 1.0),
                law,
            },
        ),
        knife("W1", 1, v(0.0, 0.0)),
        knife("W2", 2, v(0.0, 0.0)),
        knife("W3", 0, v(0.0, -4.0 * A)),
        knife("W4", 0, v(0.0, 4.0 * A)),
        knife("W5", 6, v(0.0, 0.0)),
    ];
    let mechanism = Mechanism::new(bodies, joints, vec![], [0.0; 3]);
    let names: Vec<&str> = mechanism.joints().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, JOINTS);
    assert_eq!((mechanism.n(), mechanism.m()), (21, ROWS));
    mechanism
}

/// Eq. 34 and eq. 39 (`v = 0.1 m/s` along x for every body).
pub fn initial_state() -> (DVector<f64>, DVector<f64>) {
    let (_, by, cx, cy) = dimensions();
    let (dx, dy) = (cx / 2.0, cy / 2.0 - by);
    let q0 = [
        [20.0 * A, 0.0],
        [24.0 * A, 0.0],
        [16.0 * A, 0.0],
        [20.0 * A + dx, dy],
        [20.0 * A - dx, dy],
        [20.0 * A, 0.0],
        [5.0 * A, 0.0],
    ];
    let x = DVector::from_iterator(21, q0.iter().flat_map(|&[x, y]| [x, y, 0.0]));
    let xd = DVector::from_iterator(21, (0..7).flat_map(|_| [0.1, 0.0, 0.0]));
    (x, xd)
}

/// A run of the robot from eqs. 34 and 39 with [`robot_law`], RK4 at `dt`.
pub fn robot_run(dt: f64) -> Simulation {
    let (x0, xd0) = initial_state();
    let settings = Settings {
        dt,
        ..Settings::default()
    };
    Simulation::new(Arc::new(robot(robot_law())), x0, xd0, settings).expect("the robot starts")
}

/// Steps `sim` up to time `t`, the last step shortened to land on it.
pub fn advance_to(sim: &mut Simulation, t: f64) {
    while sim.time() < t - 1e-12 {
        sim.step_until(t).expect("a step of the robot");
    }
}

fn jacobian(mechanism: &Mechanism, x: &DVector<f64>) -> DMatrix<f64> {
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(x, &mut a);
    a
}

/// The rank of `rows` by `PivotedQr` and by singular values (both relative to the largest), with
/// the smallest kept and the largest dropped singular values relative to the largest.
fn ranks(rows: &DMatrix<f64>) -> (usize, usize, f64, f64) {
    let (m, n) = rows.shape();
    let mut qr = PivotedQr::new(n, m);
    qr.factorize_transposed(rows);
    let sigma = rows.clone().svd(false, false).singular_values;
    let largest = sigma.max();
    let kept = sigma.iter().filter(|&&s| s > RANK_TOLERANCE * largest);
    let svd_rank = kept.clone().count();
    let smallest_kept = kept.fold(f64::INFINITY, |a, &s| a.min(s)) / largest;
    let dropped = sigma.iter().filter(|&&s| s <= RANK_TOLERANCE * largest);
    let largest_dropped = dropped.fold(0.0f64, |a, &s| a.max(s)) / largest;
    (
        qr.rank(RANK_TOLERANCE),
        svd_rank,
        smallest_kept,
        largest_dropped,
    )
}

/// Asserts eq. 35 and eq. 36 at `x`; returns the smallest kept and the largest dropped singular
/// value of `A` relative to its largest.
fn assert_ranks(mechanism: &Mechanism, x: &DVector<f64>, t: f64) -> (f64, f64) {
    let a = jacobian(mechanism, x);
    let position = a.rows(0, POSITION_ROWS).into_owned();
    let velocity = a.rows(POSITION_ROWS, ROWS - POSITION_ROWS).into_owned();
    for (what, rows, expected) in [("position", position, 17), ("velocity", velocity, 4)] {
        let (qr, svd, _, _) = ranks(&rows);
        assert_eq!(
            (qr, svd),
            (expected, expected),
            "t = {t}: rank of the {what} rows"
        );
    }
    let (qr, svd, kept, dropped) = ranks(&a);
    assert_eq!((qr, svd), (20, 20), "t = {t}: rank of A");
    assert_eq!(ROWS - qr, 2, "t = {t}: redundancy p (eq. 36)");
    (kept, dropped)
}

#[test]
fn robot_tables_give_a_consistent_start() {
    let mechanism = robot(robot_law());
    let (x, xd) = initial_state();
    let mut c = DVector::zeros(ROWS);
    mechanism.residual(0.0, &x, &mut c);
    assert!(
        c.amax() < 1e-15,
        "q0 misses the constraints by {:e}",
        c.amax()
    );
    // All bodies translate at v along x: every row, knife edges included, holds with b = 0.
    let mut b = DVector::zeros(ROWS);
    mechanism.velocity_rhs(0.0, &mut b);
    let a = jacobian(&mechanism, &x);
    assert!((&a * &xd - b).amax() < 1e-15);
    // Spot checks of the slider's rows against eqs. 42-43 at q0: P = (20a, 10a), Q = (20a, -10a).
    let expected = |row: usize, entries: &[(usize, f64)]| {
        let mut reference = DVector::zeros(21);
        for &(column, value) in entries {
            reference[column] = value;
        }
        assert_abs_diff_eq!(a.row(row).transpose(), reference, epsilon = 1e-15);
    };
    // Row 15 (H across the axis, eq. 45): -(R_j v)^T on r_6, -(R_j v)^T Omega R_6 s_P on
    // phi_6 = -(1, 0) . (-10a, 0) = 10a; (R_j v)^T on r_1, -(R_j v)^T Omega (r_1 - r_6 - R_6 s_P)
    // = -(1, 0) . (10a, 0) = -10a on phi_1.
    expected(14, &[(15, -1.0), (17, 10.0 * A), (0, 1.0), (2, -10.0 * A)]);
    expected(15, &[(17, 1.0), (2, -1.0)]);
    // Row 17 (the driver, eq. 46) with u = (0, 1): Omega R s_P = (-10a, 0), so 0 on phi_6;
    // Omega (r_1 - r_6 - R_6 s_P) = (10a, 0), so 0 on phi_1.
    expected(16, &[(16, -1.0), (1, 1.0)]);
    // W3 (eq. 30 with s = (0, -4a), n = (0, 1)): n^T Omega s = 0.
    expected(19, &[(1, 1.0)]);
}

/// The paper's eq. 38 at `q0`: the Frobenius norm of `B_X` per joint, from its rounded entries.
fn eq_38_norms() -> [f64; 14] {
    let revolute = (2.0 * 0.408f64.powi(2) + 0.082f64.powi(2)).sqrt();
    let edge = (0.408f64.powi(2) + 0.707f64.powi(2)).sqrt();
    [
        0.0, revolute, revolute, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.408, 0.408, edge, edge, 0.0,
    ]
}

#[test]
fn robot_ranks_and_modes_at_q0_are_eqs_35_to_38() {
    let mechanism = robot(robot_law());
    let (x, _) = initial_state();
    let (kept, dropped) = assert_ranks(&mechanism, &x, 0.0);
    println!(
        "q0: smallest kept singular value {kept:.2e}, largest dropped {dropped:.1e} (of the largest)"
    );
    let a = jacobian(&mechanism, &x);
    let mut qr = PivotedQr::new(21, ROWS);
    qr.factorize_transposed(&a);
    let mut reactions = Reactions::new(&mechanism);
    reactions.find_modes(&qr, qr.rank(RANK_TOLERANCE));
    assert_eq!(reactions.redundancy(), 2);
    let modes = DMatrix::from_columns(&[
        reactions.mode(0).into_owned(),
        reactions.mode(1).into_owned(),
    ]);
    assert!((a.transpose() * &modes).amax() < 1e-14, "A^T U is not zero");
    assert_abs_diff_eq!(
        modes.transpose() * &modes,
        DMatrix::identity(2, 2),
        epsilon = 1e-14
    );
    // B_X = C_X^T Q_X^col (eq. 27) with the modes as Q^col: the rows of joint X only.
    for (joint, expected) in mechanism.joints().iter().zip(eq_38_norms()) {
        let (row, count) = (joint.row, joint.rows());
        let b_x = a.rows(row, count).transpose() * modes.rows(row, count);
        let norm = b_x.norm();
        println!("|B_{}| = {norm:.4} (eq. 38: {expected:.4})", joint.name);
        assert!(
            (norm - expected).abs() < 1.5e-3,
            "joint {}: |B_X| {norm}, eq. 38 {expected}",
            joint.name
        );
    }
    // Eq. 38 loads only the y coordinates through B and C: their x components are unique at q0.
    let verdict = solvability(&mechanism, &x, &a, &reactions);
    for name in ["B", "C"] {
        let joint = &verdict[JOINTS.iter().position(|j| *j == name).unwrap()];
        let unique: Vec<bool> = joint.components.iter().map(|c| c.unique).collect();
        assert_eq!(unique, [true, false], "{name}: fx unique, fy not");
    }
}

/// How far apart the verdict's two classes are, relative to the largest change a unit mode
/// makes on any component: per joint (its largest component) and per component.
#[derive(Clone, Copy, Debug)]
struct Gap {
    unique_joints: f64,
    other_joints: f64,
    unique_components: f64,
    other_components: f64,
}

impl Gap {
    fn new() -> Self {
        Self {
            unique_joints: 0.0,
            other_joints: f64::INFINITY,
            unique_components: 0.0,
            other_components: f64::INFINITY,
        }
    }

    fn widest(self, other: Gap) -> Gap {
        Gap {
            unique_joints: self.unique_joints.max(other.unique_joints),
            other_joints: self.other_joints.min(other.other_joints),
            unique_components: self.unique_components.max(other.unique_components),
            other_components: self.other_components.min(other.other_components),
        }
    }
}

/// The verdict at one state: asserts the paper's (sect. 4.2) joint by joint, and returns the
/// gap between the largest change on what is unique and the least on what is not.
fn assert_verdict(mechanism: &Mechanism, x: &DVector<f64>, reactions: &Reactions, t: f64) -> Gap {
    let a = jacobian(mechanism, x);
    let verdict = solvability(mechanism, x, &a, reactions);
    assert_eq!(verdict.len(), JOINTS.len());
    fn changes(j: &JointSolvability) -> impl Iterator<Item = f64> + '_ {
        j.components.iter().map(|c| c.largest_change)
    }
    let scale = verdict.iter().flat_map(changes).fold(0.0, f64::max);
    let mut gap = Gap::new();
    for (joint, name) in verdict.iter().zip(JOINTS) {
        let expected = UNIQUE.contains(&name);
        assert_eq!(joint.unique(), expected, "t = {t}: joint {name} unique");
        let largest = changes(joint).fold(0.0, f64::max) / scale;
        if expected {
            gap.unique_joints = gap.unique_joints.max(largest);
        } else {
            gap.other_joints = gap.other_joints.min(largest);
        }
        for component in &joint.components {
            let change = component.largest_change / scale;
            if component.unique {
                gap.unique_components = gap.unique_components.max(change);
            } else {
                gap.other_components = gap.other_components.min(change);
            }
        }
    }
    gap
}

#[test]
fn robot_ranks_and_verdict_hold_along_the_run() {
    let mut sim = robot_run(1e-3);
    assert_eq!(sim.generic_rank(), 20);
    let mut reactions = Reactions::new(sim.mechanism());
    let mechanism = sim.mechanism().clone();
    let (mut kept, mut dropped) = (f64::INFINITY, 0.0f64);
    let mut gap = Gap::new();
    let mut checks = 0;
    loop {
        let t = sim.time();
        let (k, d) = assert_ranks(&mechanism, sim.positions(), t);
        (kept, dropped) = (kept.min(k), dropped.max(d));
        assert_eq!(sim.rank(), 20, "t = {t}: the solver's rank");
        sim.solve_reactions(&mut reactions).expect("reactions");
        assert_eq!(reactions.redundancy(), 2);
        gap = gap.widest(assert_verdict(&mechanism, sim.positions(), &reactions, t));
        checks += 1;
        if t > 5.0 - 1e-9 {
            break;
        }
        advance_to(&mut sim, t + 0.125);
    }
    let heading = sim.positions()[2];
    println!(
        "{checks} states to t = 5 s (platform heading {heading:.4} rad): smallest kept singular \
         value {kept:.2e}, largest dropped {dropped:.1e}; of the largest change a unit mode \
         makes, unique joints change by at most {:.1e}, non-unique ones by at least {:.2e}; \
         unique components by at most {:.1e}, non-unique ones by at least {:.2e}",
        gap.unique_joints, gap.other_joints, gap.unique_components, gap.other_components
    );
    assert!(heading.abs() > 1e-2, "the robot turned (heading {heading})");
}

/// Table 2's mass matrix, `diag(m_1, m_1, J_1, ..., m_7, m_7, J_7)` (sect. 4.3).
fn table_2_mass_matrix() -> DMatrix<f64> {
    let diagonal = MASSES.iter().flat_map(|&(m, j)| [m, m, j]);
    DMatrix::from_diagonal(&DVector::from_iterator(21, diagonal))
}

/// The paper's reduced equations of motion (sect. 4.4) with rows `deleted` (0-based) left out,
/// solved by nalgebra's LU: the accelerations, and the multipliers with zeros in the deleted
/// rows.
fn reduced_solution(
    mechanism: &Mechanism,
    (t, x, xd): (f64, &DVector<f64>, &DVector<f64>),
    deleted: [usize; 2],
) -> (DVector<f64>, DVector<f64>) {
    let n = mechanism.n();
    let a = jacobian(mechanism, x);
    let (mut gamma, mut f) = (DVector::zeros(ROWS), DVector::zeros(n));
    mechanism.gamma(t, x, xd, &mut gamma);
    mechanism.forces(t, x, xd, &[], &mut f);
    let kept: Vec<usize> = (0..ROWS).filter(|row| !deleted.contains(row)).collect();
    let a_r = a.select_rows(&kept);
    // Admissible: the rows kept are independent.
    assert_eq!(ranks(&a_r).1, kept.len(), "deleting rows {deleted:?}");
    let size = n + kept.len();
    let mut leading = DMatrix::zeros(size, size);
    leading
        .view_mut((0, 0), (n, n))
        .copy_from(&table_2_mass_matrix());
    leading
        .view_mut((0, n), (n, kept.len()))
        .copy_from(&a_r.transpose());
    leading.view_mut((n, 0), (kept.len(), n)).copy_from(&a_r);
    let mut rhs = DVector::zeros(size);
    rhs.rows_mut(0, n).copy_from(&f);
    rhs.rows_mut(n, kept.len())
        .copy_from(&gamma.select_rows(&kept));
    let solution = leading
        .lu()
        .solve(&rhs)
        .expect("the reduced leading matrix is regular");
    let mut lambda = DVector::zeros(ROWS);
    for (k, &row) in kept.iter().enumerate() {
        lambda[row] = solution[n + k];
    }
    (solution.rows(0, n).into_owned(), lambda)
}

/// Every joint's reaction (`Mechanism::joint_reaction`) from multipliers `lambda`.
fn joint_reactions(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    lambda: &DVector<f64>,
) -> Vec<Vec<f64>> {
    let a = jacobian(mechanism, x);
    let mut values = [0.0; 6];
    (0..JOINTS.len())
        .map(|joint| {
            let count = mechanism.joint_reaction(joint, x, &a, lambda, &mut values);
            values[..count].to_vec()
        })
        .collect()
}

fn largest_difference(left: &[f64], right: &[f64]) -> f64 {
    left.iter()
        .zip(right)
        .map(|(l, r)| (l - r).abs())
        .fold(0.0, f64::max)
}

/// The accelerations of `sim`'s motion by a second-order forward difference of its velocities
/// over two more steps of `h` (error `h^2 |xd'''| / 3`).
fn motion_accelerations(sim: &Simulation, h: f64) -> DVector<f64> {
    let mut ahead = sim.clone();
    let t = sim.time();
    let xd0 = sim.velocities().clone();
    advance_to(&mut ahead, t + h);
    let xd1 = ahead.velocities().clone();
    advance_to(&mut ahead, t + 2.0 * h);
    (xd1 * 4.0 - xd0 * 3.0 - ahead.velocities()) / (2.0 * h)
}

/// The first and second body of each joint, in `JOINTS` order (table 3's `i` and `j`; table 1's
/// body for a knife edge, which has no second body).
const JOINT_BODIES: [(usize, Option<usize>); 14] = [
    (6, Some(0)),
    (1, Some(0)),
    (2, Some(0)),
    (3, Some(1)),
    (4, Some(2)),
    (5, Some(3)),
    (5, Some(4)),
    (5, Some(0)),
    (5, Some(0)),
    (1, None),
    (2, None),
    (0, None),
    (0, None),
    (6, None),
];

/// Newton-Euler for every body with the joints' reactions (force `F` on the first body and
/// moment `M` about the joint's point `P`; the second body takes `-F` at `P` and `-M`): the
/// largest of `|m a - sum F|` and `|J alpha - sum (M + (P - r) x F)|`, with table 2's masses.
fn newton_euler_imbalance(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    xdd: &DVector<f64>,
    reactions: &[Vec<f64>],
) -> f64 {
    let mut force = [Vector2::zeros(); 7];
    let mut moment = [0.0; 7];
    for (j, &(first, second)) in JOINT_BODIES.iter().enumerate() {
        let r = &reactions[j];
        let f = Vector2::new(r[0], r[1]);
        let about_point = r.get(2).copied().unwrap_or(0.0);
        let p = mechanism.reaction_point(j, x).expect("a planar joint").xy();
        for (body, sign) in [(Some(first), 1.0), (second, -1.0)] {
            let Some(b) = body else { continue };
            let arm = p - Vector2::new(x[3 * b], x[3 * b + 1]);
            force[b] += f * sign;
            moment[b] += sign * (about_point + arm.x * f.y - arm.y * f.x);
        }
    }
    (0..7)
        .map(|b| {
            let (mass, inertia) = MASSES[b];
            let linear = Vector2::new(xdd[3 * b], xdd[3 * b + 1]) * mass - force[b];
            linear
                .amax()
                .max((inertia * xdd[3 * b + 2] - moment[b]).abs())
        })
        .fold(0.0, f64::max)
}

/// The paper's variants (sect. 4.4): rows 6 & 21, 18 & 21, 19 & 21, 0-based here.
const VARIANTS: [[usize; 2]; 3] = [[5, 20], [17, 20], [18, 20]];

/// At one state: the accelerations of the three variants against the solver's and the motion's,
/// the minimum-norm multipliers against nalgebra's pseudo-inverse, and the unique reactions of
/// every variant against the solver's. Returns the reactions of the solver and of each variant,
/// and the largest relative differences found (multipliers, accelerations, unique reactions).
fn compare_at_state(
    sim: &mut Simulation,
    reactions: &mut Reactions,
) -> (Vec<Vec<Vec<f64>>>, [f64; 3]) {
    let mechanism = sim.mechanism().clone();
    let (t, x, xd) = (
        sim.time(),
        sim.positions().clone(),
        sim.velocities().clone(),
    );
    sim.solve_reactions(reactions).expect("reactions");
    let xdd = sim.accelerations_with_tangent(None).expect("accelerations");
    let motion = motion_accelerations(sim, 1e-3);
    let xdd_scale = xdd.amax();
    assert!(
        (&motion - &xdd).amax() < 1e-5 * xdd_scale,
        "t = {t}: xdd off the motion"
    );

    let a = jacobian(&mechanism, &x);
    let mut f = DVector::zeros(21);
    mechanism.forces(t, &x, &xd, &[], &mut f);
    let w = f - table_2_mass_matrix() * &xdd;
    let pseudo_inverse = a.transpose().pseudo_inverse(1e-9).expect("SVD");
    let minimum_norm = pseudo_inverse * w;
    let lambda_error = (reactions.lambda() - &minimum_norm).amax() / minimum_norm.amax();
    assert!(
        lambda_error < 1e-9,
        "t = {t}: lambda off the pseudo-inverse by {lambda_error:e}"
    );

    let solver = joint_reactions(&mechanism, &x, reactions.lambda());
    let scale = solver.iter().flatten().fold(0.0f64, |s, v| s.max(v.abs()));
    let mut all = vec![solver.clone()];
    let mut worst = [lambda_error, 0.0f64, 0.0f64];
    for deleted in VARIANTS {
        let (xdd_r, lambda_r) = reduced_solution(&mechanism, (t, &x, &xd), deleted);
        let error = (&xdd_r - &xdd).amax() / xdd_scale;
        assert!(
            error < 1e-9,
            "t = {t}, variant {deleted:?}: xdd off by {error:e}"
        );
        worst[1] = worst[1].max(error);
        let variant = joint_reactions(&mechanism, &x, &lambda_r);
        for (j, name) in JOINTS
            .iter()
            .enumerate()
            .filter(|(_, n)| UNIQUE.contains(n))
        {
            let error = largest_difference(&variant[j], &solver[j]) / scale;
            assert!(
                error < 1e-9,
                "t = {t}, {deleted:?}: {name} differs by {error:e} of the largest"
            );
            worst[2] = worst[2].max(error);
        }
        all.push(variant);
    }
    (all, worst)
}

#[test]
fn robot_reactions_match_the_papers_reduced_equations() {
    let mut sim = robot_run(1e-3);
    let mut reactions = Reactions::new(sim.mechanism());
    let mut worst = [0.0f64; 3];
    let mut balance = 0.0f64;
    // Per non-unique joint, the least over states of the largest difference between the paper's
    // variants and of that between them and the minimum-norm solution, relative to the largest
    // reaction.
    let mut spread = [(f64::INFINITY, f64::INFINITY); JOINTS.len()];
    for t in [1.25, 1.5, 1.75, 2.5, 3.5, 4.5] {
        advance_to(&mut sim, t);
        let (all, errors) = compare_at_state(&mut sim, &mut reactions);
        for (w, e) in worst.iter_mut().zip(errors) {
            *w = w.max(e);
        }
        let scale = all[0].iter().flatten().fold(0.0f64, |s, v| s.max(v.abs()));
        // Every solution, minimum-norm or not, balances every body.
        let xdd = sim.accelerations_with_tangent(None).expect("accelerations");
        for reactions in &all {
            let imbalance =
                newton_euler_imbalance(sim.mechanism(), sim.positions(), &xdd, reactions);
            assert!(
                imbalance < 1e-12 * scale.max(1.0),
                "t = {t}: a body is off balance by {imbalance:e}"
            );
            balance = balance.max(imbalance / scale);
        }
        for (j, name) in JOINTS
            .iter()
            .enumerate()
            .filter(|(_, n)| !UNIQUE.contains(n))
        {
            let pair = |k: usize, l: usize| largest_difference(&all[k][j], &all[l][j]) / scale;
            let between = pair(1, 2).max(pair(1, 3)).max(pair(2, 3));
            let from_solver = pair(0, 1).max(pair(0, 2)).max(pair(0, 3));
            spread[j] = (spread[j].0.min(between), spread[j].1.min(from_solver));
            // W4 is deleted in all three variants (zero in each); the others differ.
            if *name != "W4" {
                assert!(
                    between > 1e-2,
                    "t = {t}: {name} is the same in every variant"
                );
            }
            assert!(
                from_solver > 1e-2,
                "t = {t}: {name} is the minimum-norm one in every variant"
            );
        }
        println!("t = {t}: largest reaction {scale:.3e} N");
    }
    println!(
        "lambda off the pseudo-inverse {:.1e}, reduced xdd off the solver's {:.1e}, unique \
         reactions off the solver's {:.1e}, Newton-Euler imbalance {balance:.1e} (relative)",
        worst[0], worst[1], worst[2]
    );
    for (j, name) in JOINTS
        .iter()
        .enumerate()
        .filter(|(_, n)| !UNIQUE.contains(n))
    {
        println!(
            "{name}: variants differ by at least {:.2e}, from the minimum-norm one by {:.2e}",
            spread[j].0, spread[j].1
        );
    }
}
