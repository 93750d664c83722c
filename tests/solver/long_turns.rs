//! Nothing in the physics changes with the number of turns: a run that starts with its
//! angles whole turns away (about 2.3e4 rad, where the four-bar's cranks are after 1.6 h of
//! turning) follows the run from the same pose with its angles as stated, and its angles stay
//! continuous (the simulation counts whole turns beside its state: `solver::simulation::turns`).

use std::f64::consts::TAU;

use nalgebra::DVector;
use singulab::scene::Scene;
use singulab::solver::Simulation;

use crate::common::scene;

/// The angle rows of `scene`'s bodies, with the whole turns each is moved by.
fn shifted_angles(scene: &Scene, turns: &[f64]) -> Vec<(usize, f64)> {
    scene
        .mechanism
        .bodies()
        .iter()
        .filter(|body| body.has_angle())
        .zip(turns.iter().cycle())
        .map(|(body, &k)| (body.offset + 2, k * TAU))
        .collect()
}

/// Runs `scene` from its pose and from the same pose with its angles moved by `turns`
/// (cycled over the bodies) for `steps` steps; returns the largest difference of positions
/// (the moved run's angles less their turns) and the largest change of an angle over a step
/// in the moved run.
fn compare_runs(scene: &Scene, turns: &[f64], steps: usize) -> (f64, f64) {
    let shifts = shifted_angles(scene, turns);
    let mut x0 = scene.x0.clone();
    for &(row, shift) in &shifts {
        x0[row] += shift;
    }
    let mut plain = scene.simulation().unwrap();
    let mut moved = Simulation::new(
        scene.mechanism.clone(),
        x0,
        scene.xd0.clone(),
        scene.settings.clone(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", scene.file));
    let (mut difference, mut largest_jump) = (0.0_f64, 0.0_f64);
    let mut previous: DVector<f64> = moved.positions().clone();
    for step in 0..steps {
        plain.step().unwrap();
        moved
            .step()
            .unwrap_or_else(|e| panic!("{} step {step}: {e}", scene.file));
        let mut back = moved.positions().clone();
        for &(row, shift) in &shifts {
            largest_jump = largest_jump.max((back[row] - previous[row]).abs());
            back[row] -= shift;
        }
        previous.copy_from(moved.positions());
        difference = difference.max((back - plain.positions()).amax());
    }
    (difference, largest_jump)
}

/// The four-bar's cranks turn about 1.3 times in 2 s (4 rad/s): both runs wrap their angles
/// and must agree to the round-off of the moved start (3.6e-12 rad at 2.3e4 rad), grown over
/// the run.
#[test]
fn the_four_bar_turned_for_hours_runs_as_in_its_first_seconds() {
    let four_bar = scene("four_bar");
    let (difference, jump) = compare_runs(&four_bar, &[3660.0, -3660.0, 3661.0], 2000);
    assert!(difference <= 1e-8, "positions differ by {difference:e}");
    // 4 rad/s over a step of 1e-3 s, with margin: no jump of a whole turn.
    assert!(jump <= 0.1, "an angle jumped by {jump} rad in a step");
}

/// The mobile robot's prismatic joint holds a relative angle between two turning bodies:
/// compared modulo whole turns, the bodies' turns may differ.
#[test]
fn the_mobile_robot_with_bodies_turned_apart_runs_as_stated() {
    let robot = scene("mobile_robot");
    let steps = (0.5 / robot.settings.dt) as usize;
    let (difference, jump) = compare_runs(&robot, &[3660.0, -17.0, 1.0], steps);
    assert!(difference <= 1e-8, "positions differ by {difference:e}");
    assert!(jump <= 0.1, "an angle jumped by {jump} rad in a step");
}
