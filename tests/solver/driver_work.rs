//! Energy with drivers and knife edges. With `M xdd + A^T lambda = f` the constraint forces
//! `-A^T lambda` have power `-lambda . (A xd)`; `A xd` is `d'(t)` on a driver's row and zero on
//! every other row, knife edges included (ideal constraints do no work). So the energy changes
//! by the drivers' work and nothing else:
//! - the mobile robot (Wojtyra and Frączek 2013, sect. 4) steered by the law of
//!   `scenes/mobile_robot.ron`: `E(t) -
//!   E(0)` against the trapezoid integral of `Mechanism::driver_power`, itself checked against
//!   the power of all constraint forces `-(A^T lambda) . xd`, and against `d E / dt = xd^T M xdd`
//!   with `M` from the paper's table 2;
//! - without moving drivers the energy is conserved: a Chaplygin sleigh (a plate on one knife
//!   edge behind its centre of mass) on a level and on an inclined plane, and the robot steered
//!   at a constant `d` (the slider held by a driver whose law does not move), turning in circles.

use std::sync::Arc;

use nalgebra::{DMatrix, DVector, Vector2};
use singulab::model::{DriverLaw, JointKind, Mechanism};
use singulab::solver::{Reactions, Settings, Simulation, assemble_positions, complete_velocities};

use crate::mobile_robot::{initial_state, robot, robot_run};
use crate::planar_joints::{joint, plate, rotated};

/// The power of every constraint force, `-(A^T lambda) . xd`, at the simulation's state.
fn constraint_power(sim: &Simulation, lambda: &DVector<f64>) -> f64 {
    let mechanism = sim.mechanism();
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(sim.positions(), &mut a);
    -(a.transpose() * lambda).dot(sim.velocities())
}

/// `dE/dt = xd^T M xdd` without applied forces, `M` from the paper's table 2.
fn energy_rate(sim: &Simulation) -> f64 {
    let masses = [10.0, 1.0, 1.0, 1.0, 1.0, 1.0, 5.0];
    let inertias = [0.25, 0.005, 0.005, 0.005, 0.005, 0.005, 0.05];
    let xdd = sim.accelerations_with_tangent(None).expect("accelerations");
    let xd = sim.velocities();
    (0..7)
        .map(|b| {
            let o = 3 * b;
            masses[b] * (xd[o] * xdd[o] + xd[o + 1] * xdd[o + 1])
                + inertias[b] * xd[o + 2] * xdd[o + 2]
        })
        .sum()
}

#[test]
fn robot_energy_changes_by_the_drivers_work() {
    let dt = 1e-3;
    let mut sim = robot_run(dt);
    let mechanism = sim.mechanism().clone();
    let mut reactions = Reactions::new(&mechanism);
    let energy0 = sim.energy();
    let power_at = |sim: &mut Simulation, reactions: &mut Reactions| {
        sim.solve_reactions(reactions).expect("reactions");
        let power = mechanism.driver_power(sim.time(), reactions.lambda());
        let all = constraint_power(sim, reactions.lambda());
        let rate = energy_rate(sim);
        let scale = power.abs().max(1e-6);
        assert!(
            (all - power).abs() < 1e-9 * scale && (rate - power).abs() < 1e-7 * scale,
            "t = {}: driver power {power:e}, all constraint forces {all:e}, dE/dt {rate:e}",
            sim.time()
        );
        power
    };
    let mut power = power_at(&mut sim, &mut reactions);
    let (mut work, mut largest_work, mut worst) = (0.0, 0.0f64, 0.0f64);
    while sim.time() < 11.0 - 1e-9 {
        sim.step().expect("a step of the robot");
        let next = power_at(&mut sim, &mut reactions);
        work += 0.5 * dt * (power + next);
        power = next;
        largest_work = largest_work.max(work.abs());
        worst = worst.max((sim.energy() - energy0 - work).abs());
    }
    println!(
        "robot, 11 s at dt {dt}: energy {energy0:.6} J at the start, {:.6} J at the end; the \
         driver's work reaches {largest_work:.3e} J, and E - E0 differs from it by at most \
         {worst:.1e} J",
        sim.energy()
    );
    assert!(
        largest_work > 1e-5,
        "the driver does work ({largest_work:e} J)"
    );
    assert!(
        worst < 1e-4 * largest_work,
        "E - E0 off the driver's work by {worst:e} J"
    );
}

/// Runs `sim` to `t_end` and returns the largest `|E - E0|`, asserting no driver power.
fn energy_drift(sim: &mut Simulation, t_end: f64) -> f64 {
    let mechanism = sim.mechanism().clone();
    let mut reactions = Reactions::new(&mechanism);
    let energy0 = sim.energy();
    let mut drift = 0.0f64;
    while sim.time() < t_end - 1e-9 {
        sim.step().expect("a step");
        drift = drift.max((sim.energy() - energy0).abs());
        sim.solve_reactions(&mut reactions).expect("reactions");
        assert_eq!(mechanism.driver_power(sim.time(), reactions.lambda()), 0.0);
    }
    drift
}

/// A plate of 1 kg and 0.1 kg m^2 on a knife edge 0.3 m behind its centre of mass, along its
/// x axis, moving at 1 m/s forward and 2 rad/s: the edge's point then moves across the edge at
/// `v_y - 0.3 omega` in body axes, so `v_y = 0.6 m/s`.
fn sleigh(gravity: [f64; 3]) -> Simulation {
    let mechanism = Mechanism::new(
        vec![plate("sleigh", 1.0, 0.1)],
        vec![joint(
            "edge",
            JointKind::KnifeEdge {
                body: 0,
                point: Vector2::new(-0.3, 0.0),
                normal: Vector2::new(0.0, 1.0),
            },
        )],
        vec![],
        gravity,
    );
    let theta = 0.3;
    let velocity = rotated(theta, Vector2::new(1.0, 0.6));
    let x0 = DVector::from_vec(vec![0.0, 0.0, theta]);
    let xd0 = DVector::from_vec(vec![velocity.x, velocity.y, 2.0]);
    Simulation::new(Arc::new(mechanism), x0, xd0, Settings::default()).expect("the sleigh starts")
}

#[test]
fn knife_edges_alone_conserve_energy() {
    for (what, gravity, bound) in [
        ("level", [0.0; 3], 1e-8),
        ("inclined", [0.0, -2.0, 0.0], 1e-8),
    ] {
        let drift = energy_drift(&mut sleigh(gravity), 10.0);
        println!("Chaplygin sleigh on a {what} plane, 10 s at dt 1e-3: energy drift {drift:.1e} J");
        assert!(drift < bound, "{what}: energy drift {drift:e} J");
    }
    // The robot steered at d = -1.01 m throughout: assembled there, the platform at 0.1 m/s.
    let law = DriverLaw {
        constant: -1.01,
        steps: vec![],
    };
    let mechanism = robot(law);
    let (mut x, xd_written) = initial_state();
    assemble_positions(&mechanism, 0.0, &mut x).expect("the steered robot assembles");
    let mut xd = xd_written.clone();
    let stated: Vec<bool> = (0..21).map(|i| i == 0).collect();
    complete_velocities(&mechanism, 0.0, &x, &stated, &mut xd, None).expect("velocities");
    let mut sim = Simulation::new(Arc::new(mechanism), x, xd, Settings::default())
        .expect("the steered robot starts");
    let energy0 = sim.energy();
    let drift = energy_drift(&mut sim, 10.0);
    let heading = sim.positions()[2];
    println!(
        "robot steered at d = -1.01 m, 10 s: energy {energy0:.4e} J, drift {drift:.1e} J, \
         heading {heading:.3} rad"
    );
    assert!(
        heading.abs() > 0.1,
        "the steered robot turns (heading {heading})"
    );
    assert!(drift < 1e-8 * energy0.max(1.0), "energy drift {drift:e} J");
}
