//! Checks the sizes and ranks of the shipped scenes: `n`, `m`, the generic rank reported by
//! `Simulation::generic_rank()` and `dof = n - rank`, then the rank of `A` at the flat (singular)
//! configurations and at a generic pose, computed with `PivotedQr` (relative tolerance 1e-10).
//!
//! References: the numbers are those of Quro 2023, table 5.1, of
//! Masarati et al. 2023 and Zhou et al. 2023, sect. 3, and of Wojtyra and Frączek 2013,
//! eqs. 28-36 (the mobile robot). The flat and
//! generic poses are built in this file from the geometry stated in the same section (ground
//! pivots at x = 0, 1, 2 (, 3), 1 m cranks vertical at start, horizontal couplers that
//! translate, stacked cranks hinged on the first coupler), not from the solver; each pose is
//! checked to satisfy the constraints before its rank is taken.

use std::f64::consts::FRAC_PI_2;

use approx::abs_diff_eq;
use nalgebra::{DMatrix, DVector, Vector2};
use singulab::linalg::PivotedQr;
use singulab::model::BodyKind;
use singulab::scene::Scene;

use crate::common::{SCENES, scene};

/// Relative rank tolerance on the `R` diagonal (as asked of the solver's dynamics).
const RANK_TOLERANCE: f64 = 1e-10;

/// One row of the table of sizes and ranks.
struct Row {
    scene: &'static str,
    bodies: usize,
    n: usize,
    m: usize,
    generic_rank: usize,
    dof: usize,
    /// Rank with one stage flat, and with both stages flat (equal for single-stage scenes);
    /// `None` for the pendulums and the spatial scenes ("-" in the table).
    singular: Option<(usize, usize)>,
}

/// Sizes and ranks from Quro 2023, table 5.1 (pendulums: Zhou et al. 2023, sect. 3; the robot:
/// Wojtyra and Frączek 2013, sect. 4.2), copied by hand.
const TABLE: [Row; 12] = [
    Row {
        scene: "planar_pendulum",
        bodies: 1,
        n: 2,
        m: 1,
        generic_rank: 1,
        dof: 1,
        singular: None,
    },
    Row {
        scene: "redundant_pendulum",
        bodies: 1,
        n: 2,
        m: 2,
        generic_rank: 1,
        dof: 1,
        singular: None,
    },
    Row {
        scene: "spatial_pendulum",
        bodies: 1,
        n: 3,
        m: 1,
        generic_rank: 1,
        dof: 2,
        singular: None,
    },
    Row {
        scene: "four_bar",
        bodies: 3,
        n: 9,
        m: 8,
        generic_rank: 8,
        dof: 1,
        singular: Some((7, 7)),
    },
    Row {
        scene: "double_four_bar",
        bodies: 5,
        n: 15,
        m: 14,
        generic_rank: 14,
        dof: 1,
        singular: Some((12, 12)),
    },
    Row {
        scene: "modified_double_four_bar",
        bodies: 4,
        n: 12,
        m: 12,
        generic_rank: 11,
        dof: 1,
        singular: Some((10, 10)),
    },
    Row {
        scene: "modified_triple_four_bar",
        bodies: 5,
        n: 15,
        m: 16,
        generic_rank: 14,
        dof: 1,
        singular: Some((13, 13)),
    },
    Row {
        scene: "modified_2x2",
        bodies: 8,
        n: 24,
        m: 24,
        generic_rank: 22,
        dof: 2,
        singular: Some((21, 20)),
    },
    Row {
        scene: "modified_2x3",
        bodies: 10,
        n: 30,
        m: 32,
        generic_rank: 28,
        dof: 2,
        singular: Some((27, 26)),
    },
    // Zhou et al. 2023, sect. 3.2: 21 coordinates, 20 constraints (17 joint rows and one
    // normalisation per body), one degree of freedom.
    Row {
        scene: "slider_crank",
        bodies: 3,
        n: 21,
        m: 20,
        generic_rank: 20,
        dof: 1,
        singular: None,
    },
    // Zhou et al. 2023, sect. 3.4: 7 coordinates, the tip-on-sphere and normalisation rows.
    Row {
        scene: "spin_top",
        bodies: 1,
        n: 7,
        m: 2,
        generic_rank: 2,
        dof: 5,
        singular: None,
    },
    // Wojtyra and Frączek 2013, eqs. 28-36: 7 planar bodies, n = 21 (eq. 28); 17 holonomic rows
    // (7 revolute joints of 2, the prismatic joint's 2 and its driver's 1, eq. 29) and h = 5
    // knife edges, m = 22 (eq. 33); rank(C) = 20, p = 2 (eqs. 35-36). The tangent space has
    // 21 - 20 = 1 direction: the driver fixes the steering, the knife edges leave the
    // platform's speed along its heading.
    Row {
        scene: "mobile_robot",
        bodies: 7,
        n: 21,
        m: 22,
        generic_rank: 20,
        dof: 1,
        singular: None,
    },
];

fn row(name: &str) -> &'static Row {
    TABLE
        .iter()
        .find(|r| r.scene == name)
        .unwrap_or_else(|| panic!("{name} is not in the table"))
}

#[test]
fn the_table_covers_every_shipped_scene() {
    let names: Vec<&str> = TABLE.iter().map(|r| r.scene).collect();
    assert_eq!(names, SCENES);
}

#[test]
fn sizes_generic_rank_and_dof_match_published_table() {
    for name in SCENES {
        let s = scene(name);
        let want = row(name);
        let mech = &s.mechanism;
        assert_eq!(mech.bodies().len(), want.bodies, "{name}: bodies");
        assert_eq!(mech.n(), want.n, "{name}: n");
        assert_eq!(mech.m(), want.m, "{name}: m");
        let sim = s
            .simulation()
            .unwrap_or_else(|e| panic!("{name}: simulation: {e}"));
        let rank = sim.generic_rank();
        assert_eq!(rank, want.generic_rank, "{name}: generic rank");
        assert_eq!(mech.n() - rank, want.dof, "{name}: dof = n - rank");
        // The simulation starts at the generic rank.
        assert_eq!(sim.rank(), want.generic_rank, "{name}: rank at t = 0");
    }
}

/// Role of a bar in the four-bar family, read from its initial pose.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// Crank of stage `k` (1 or 2) with its start end (pivot) at `pivot` initially.
    Crank { stage: usize, pivot: Vector2<f64> },
    /// Coupler of stage `k` with its centre initially at `centre`.
    Coupler { stage: usize, centre: Vector2<f64> },
}

/// Classifies the bars of a linkage scene: cranks have initial angle pi/2 and their pivot on
/// y = 0 (stage 1) or y = 1 (stage 2); couplers have angle 0 at y = 1 (stage 1) or y = 2.
fn roles(s: &Scene) -> Vec<Role> {
    s.mechanism
        .bodies()
        .iter()
        .map(|body| {
            let BodyKind::Bar { length } = body.kind else {
                panic!("{}: {} is not a bar", s.file, body.name);
            };
            let o = body.offset;
            let (x, y, theta) = (s.x0[o], s.x0[o + 1], s.x0[o + 2]);
            if (theta - FRAC_PI_2).abs() < 1e-9 {
                assert!(abs_diff_eq!(length, 1.0, epsilon = 1e-12), "cranks are 1 m");
                let pivot = Vector2::new(x, y - 0.5 * length);
                let stage = stage_of(pivot.y, 0.0, &body.name);
                Role::Crank { stage, pivot }
            } else if theta.abs() < 1e-9 {
                let stage = stage_of(y, 1.0, &body.name);
                Role::Coupler {
                    stage,
                    centre: Vector2::new(x, y),
                }
            } else {
                panic!(
                    "{}: {} is neither vertical nor horizontal",
                    s.file, body.name
                )
            }
        })
        .collect()
}

fn stage_of(y: f64, first: f64, name: &str) -> usize {
    if (y - first).abs() < 1e-9 {
        1
    } else if (y - first - 1.0).abs() < 1e-9 {
        2
    } else {
        panic!("{name}: height {y} is not a stage of the family")
    }
}

/// Pose with the stage-1 cranks at angle `phi1` and the stage-2 cranks at `phi2` (absolute
/// angles). A crank end moves from `pivot + (0, 1)` to `pivot + (cos phi, sin phi)`, so stage
/// k's coupler translates by `d_k = (cos phi_k, sin phi_k - 1)`; stage-2 pivots ride on the
/// first coupler and move by `d_1`, the second coupler by `d_1 + d_2`.
fn pose(s: &Scene, roles: &[Role], phi1: f64, phi2: f64) -> DVector<f64> {
    let d1 = Vector2::new(phi1.cos(), phi1.sin() - 1.0);
    let d2 = Vector2::new(phi2.cos(), phi2.sin() - 1.0);
    let mut x = s.x0.clone();
    for (body, role) in s.mechanism.bodies().iter().zip(roles) {
        let o = body.offset;
        let (centre, theta) = match *role {
            Role::Crank { stage: 1, pivot } => {
                (pivot + 0.5 * Vector2::new(phi1.cos(), phi1.sin()), phi1)
            }
            Role::Crank { pivot, .. } => (
                pivot + d1 + 0.5 * Vector2::new(phi2.cos(), phi2.sin()),
                phi2,
            ),
            Role::Coupler { stage: 1, centre } => (centre + d1, 0.0),
            Role::Coupler { centre, .. } => (centre + d1 + d2, 0.0),
        };
        x[o] = centre.x;
        x[o + 1] = centre.y;
        x[o + 2] = theta;
    }
    x
}

/// Rank of `A(x)` by column-pivoted QR of `A^T`, after checking that `x` is assembled.
fn rank_at(s: &Scene, x: &DVector<f64>, what: &str) -> usize {
    let mech = &s.mechanism;
    let mut c = DVector::from_element(mech.m(), f64::NAN);
    mech.residual(0.0, x, &mut c);
    assert!(
        c.amax() < 1e-12,
        "{}: the {what} pose violates the constraints by {:.3e}",
        s.file,
        c.amax()
    );
    let mut a = DMatrix::zeros(mech.m(), mech.n());
    mech.jacobian(x, &mut a);
    let mut qr = PivotedQr::new(mech.n(), mech.m());
    qr.factorize_transposed(&a);
    qr.rank(RANK_TOLERANCE)
}

fn linkages() -> impl Iterator<Item = (&'static str, (usize, usize))> {
    TABLE
        .iter()
        .filter_map(|r| r.singular.map(|ranks| (r.scene, ranks)))
}

fn stages(roles: &[Role]) -> usize {
    roles
        .iter()
        .map(|r| match *r {
            Role::Crank { stage, .. } | Role::Coupler { stage, .. } => stage,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn the_built_initial_pose_is_the_scene_initial_pose() {
    // Sanity check of the pose builder: with every crank vertical it gives back x0.
    for (name, _) in linkages() {
        let s = scene(name);
        let roles = roles(&s);
        let x = pose(&s, &roles, FRAC_PI_2, FRAC_PI_2);
        let error = (&x - &s.x0).amax();
        assert!(error < 1e-12, "{name}: rebuilt x0 is off by {error:.3e}");
    }
}

#[test]
fn rank_at_the_flat_configuration_matches_published_table() {
    for (name, (one_flat, both_flat)) in linkages() {
        let s = scene(name);
        let roles = roles(&s);
        match stages(&roles) {
            1 => {
                let x = pose(&s, &roles, 0.0, 0.0);
                assert_eq!(rank_at(&s, &x, "flat"), both_flat, "{name}: flat rank");
                // The other flat pose of the parallelogram branch (cranks pointing -x).
                let x = pose(&s, &roles, std::f64::consts::PI, 0.0);
                assert_eq!(
                    rank_at(&s, &x, "flat (phi = pi)"),
                    both_flat,
                    "{name}: flat rank at phi = pi"
                );
            }
            2 => {
                let x = pose(&s, &roles, 0.0, FRAC_PI_2);
                assert_eq!(
                    rank_at(&s, &x, "first stage flat"),
                    one_flat,
                    "{name}: rank with the first stage flat, second vertical"
                );
                let x = pose(&s, &roles, FRAC_PI_2, 0.0);
                assert_eq!(
                    rank_at(&s, &x, "second stage flat"),
                    one_flat,
                    "{name}: rank with the first stage vertical, second flat"
                );
                let x = pose(&s, &roles, 0.0, 0.0);
                assert_eq!(
                    rank_at(&s, &x, "both stages flat"),
                    both_flat,
                    "{name}: rank with both stages flat"
                );
            }
            k => panic!("{name}: {k} stages"),
        }
    }
}

#[test]
fn rank_at_a_generic_pose_is_the_generic_rank() {
    for (name, _) in linkages() {
        let s = scene(name);
        let roles = roles(&s);
        let want = row(name).generic_rank;
        for (phi1, phi2) in [(1.0, 1.0), (1.0, 2.0), (-0.7, 1.0)] {
            let x = pose(&s, &roles, phi1, phi2);
            assert_eq!(
                rank_at(&s, &x, "generic"),
                want,
                "{name}: rank at phi = ({phi1}, {phi2})"
            );
        }
    }
}

/// A simulation started at the flat (singular) pose must still find the scene's generic rank
/// (from the configurations next to it) and say that it starts singular with the table's
/// singular rank: Quro 2023, table 5.1, both stages flat. Redundant linkages written flat once
/// got one rank too many (the modified double four-bar 12 for its 11: dof 0, no events).
#[test]
fn a_start_at_the_flat_pose_still_has_the_generic_rank() {
    for (name, (_, both_flat)) in linkages() {
        let s = scene(name);
        let roles = roles(&s);
        let x = pose(&s, &roles, 0.0, 0.0);
        rank_at(&s, &x, "flat");
        // At rest: any velocity would have to be one of the branches'.
        let xd = DVector::zeros(s.mechanism.n());
        let sim = singulab::solver::Simulation::new(s.mechanism.clone(), x, xd, s.settings.clone())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = row(name).generic_rank;
        assert_eq!(
            sim.generic_rank(),
            want,
            "{name}: generic rank from a flat start"
        );
        assert_eq!(
            sim.starts_singular(),
            Some((both_flat, want)),
            "{name}: singular start"
        );
    }
}

/// Rank of a matrix by column-pivoted QR of its transpose.
fn rank_of(a: &DMatrix<f64>) -> usize {
    let mut qr = PivotedQr::new(a.ncols(), a.nrows());
    qr.factorize_transposed(a);
    qr.rank(RANK_TOLERANCE)
}

/// The mobile robot's rows in the paper's order (Wojtyra and Frączek 2013, eq. 37: A..G, H,
/// the driver, W1..W5) and its ranks (eq. 35): the 17 position-level rows have rank 17, the 5
/// knife edges rank 4, all 22 rank 20, at q0 and (the paper: at any nonsingular configuration)
/// along the run.
#[test]
fn the_mobile_robot_rows_and_ranks_are_the_papers() {
    let s = scene("mobile_robot");
    let mech = &s.mechanism;
    let names: Vec<&str> = mech.joints().iter().map(|j| j.name.as_str()).collect();
    let want = [
        "A", "B", "C", "D", "E", "F", "G", "H", "H.driver", "W1", "W2", "W3", "W4", "W5",
    ];
    assert_eq!(names, want);
    let rows: Vec<usize> = mech.joints().iter().map(|j| j.row).collect();
    assert_eq!(rows, [0, 2, 4, 6, 8, 10, 12, 14, 16, 17, 18, 19, 20, 21]);
    let mut sim = s.simulation().unwrap();
    let mut a = DMatrix::zeros(mech.m(), mech.n());
    for t in [0.0, 1.5, 3.0, 6.5, 12.0] {
        while sim.time() < t - 1e-9 {
            sim.step().unwrap();
        }
        mech.jacobian(sim.positions(), &mut a);
        let position = a.rows(0, 17).into_owned();
        let knife_edges = a.rows(17, 5).into_owned();
        assert_eq!(rank_of(&position), 17, "rank(Phi_q) at t = {t}");
        assert_eq!(rank_of(&knife_edges), 4, "rank(Psi) at t = {t}");
        assert_eq!(rank_of(&a), 20, "rank(C) at t = {t}");
    }
}
