//! Branches through singular configurations (second order) and leaving along one, against
//! the small-angle geometry of the linkages.
//!
//! Cranks of length 1 pivot at x = 0, 1, 2; at a flat pose their tips lie on the next pivot
//! (bars along +x) or on the previous one (bars along -x). With crank angles `th_i` and a
//! coupler angle `phi` measured from that pose, a coupler joining tips 1 and 2 keeps tip 2
//! at distance 1 from its pivot to second order only if `th_1 phi = 0` (+x): either the
//! first crank stays still and the coupler turns with the second crank (the fold), or
//! `phi = 0` (the parallelogram). A coupler of length 2 also carrying tip 3 adds
//! `phi^2 + 2 th_1 phi = 0`, so `phi = 0`: the modified scenes have no second branch.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::DVector;
use singulab::solver::{Simulation, SingularEvent, branches};

use crate::common::scene;

fn first_event(name: &str) -> (Simulation, SingularEvent) {
    let mut sim = scene(name).simulation().unwrap();
    loop {
        sim.step().unwrap();
        if let Some(event) = sim.step_events().first() {
            let event = event.clone();
            return (sim, event);
        }
    }
}

/// The bars' angular rates in a direction, scaled so the largest is +1.
fn rate_pattern(direction: &DVector<f64>) -> Vec<f64> {
    let rates: Vec<f64> = (2..direction.len())
        .step_by(3)
        .map(|i| direction[i])
        .collect();
    let largest = rates
        .iter()
        .fold(0.0f64, |a, &b| if b.abs() > a.abs() { b } else { a });
    rates.iter().map(|r| r / largest).collect()
}

fn assert_pattern(found: &[f64], expected: &[f64]) {
    assert!(
        abs_diff_eq!(found, expected, epsilon = 1e-3),
        "rates {found:?}, expected {expected:?}"
    );
}

#[test]
fn four_bar_has_one_fold_branch_at_its_flat_pose() {
    let (sim, event) = first_event("four_bar");
    // Bodies crank1, coupler, crank2. At t = 0.327 s the cranks point along -x, so crank2's
    // tip lies on crank1's pivot: the fold keeps crank2 still and turns the coupler with
    // crank1 (the mirror image of the +x case in the module docs).
    assert!(event.x[2].cos() < -0.999, "crank1 at {}", event.x[2]);
    let found = branches(sim.mechanism(), &event).branches;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_pattern(&rate_pattern(&found[0].direction), &[1.0, 1.0, 0.0]);
    assert_abs_diff_eq!(found[0].direction.norm(), 1.0, epsilon = 1e-12);
}

#[test]
fn double_four_bar_has_a_fold_per_loop_at_its_first_flat_pose() {
    let (sim, event) = first_event("double_four_bar");
    // Bodies crank1, coupler1, crank2, coupler2, crank3, all along +x here. Loop 1 folds
    // with crank1 still and coupler1 turning with crank2 (crank3 follows crank2, coupler2
    // translates); loop 2 folds with crank2 still (hence crank1 and coupler1) and coupler2
    // turning with crank3.
    assert!(event.x[2].cos() > 0.999, "crank1 at {}", event.x[2]);
    let found = branches(sim.mechanism(), &event).branches;
    assert_eq!(found.len(), 2, "{found:?}");
    let mut patterns: Vec<Vec<f64>> = found.iter().map(|b| rate_pattern(&b.direction)).collect();
    patterns.sort_by(|a, b| a[1].total_cmp(&b[1]));
    assert_pattern(&patterns[0], &[0.0, 0.0, 0.0, 1.0, 1.0]);
    assert_pattern(&patterns[1], &[0.0, 1.0, 1.0, 0.0, 1.0]);
}

#[test]
fn modified_linkages_have_no_second_branch() {
    // A coupler carrying three crank tips cannot turn to second order (module docs): the
    // new admissible motion is first order only.
    for name in ["modified_double_four_bar", "modified_triple_four_bar"] {
        let (sim, event) = first_event(name);
        assert!(!event.new_motions().is_empty(), "{name}: no new motion");
        let found = branches(sim.mechanism(), &event).branches;
        assert!(found.is_empty(), "{name}: {found:?}");
    }
}

#[test]
fn leaving_along_the_fold_keeps_the_energy_and_stays_folded() {
    let (mut sim, event) = first_event("four_bar");
    let fold = branches(sim.mechanism(), &event).branches.remove(0);
    let energy = event_energy(&sim, &event);
    for sign in [1.0, -1.0] {
        let mut leaving = sim.clone();
        leaving
            .leave_along(&event, &(&fold.direction * sign), None)
            .unwrap();
        // The energy after leaving is the event's.
        assert_abs_diff_eq!(leaving.energy(), energy, epsilon = 1e-9 * energy);
        let mut drift = 0.0f64;
        while leaving.time() < event.t + 0.5 {
            leaving.step().unwrap();
            drift = drift.max((leaving.energy() - energy).abs());
            // crank2 stays still along -x, its tip on crank1's pivot (the event state itself
            // is next to the singular configuration, not on it).
            let x = leaving.positions();
            assert!(
                abs_diff_eq!(x[8].sin(), 0.0, epsilon = 1e-6),
                "crank2 moved to {} at t = {}",
                x[8],
                leaving.time()
            );
        }
        assert!(drift < 1e-6, "energy drift {drift} J on the fold");
        let turned = leaving.positions()[2] - event.x[2];
        assert!(turned.abs() > 1.0, "crank1 turned only {turned} rad");
    }
    // Without leaving, the mechanism continues as a parallelogram.
    while sim.time() < event.t + 0.5 {
        sim.step().unwrap();
    }
    let x = sim.positions();
    assert!(
        abs_diff_eq!(x[2], x[8], epsilon = 1e-6),
        "not a parallelogram: {} {}",
        x[2],
        x[8]
    );
}

#[test]
fn leaving_a_rest_point_takes_the_energy_asked_for() {
    let (mut sim, mut event) = first_event("four_bar");
    event.xd.fill(0.0);
    let fold = branches(sim.mechanism(), &event).branches.remove(0);
    assert!(sim.leave_along(&event, &fold.direction, None).is_err());
    // At rest, leaving at speed v along the unit direction b asks for the energy
    // V(event) + v^2 (b^T M b) / 2, whatever the steps after do (gravity then works on a
    // conservative system).
    let mass = sim.mechanism().mass_matrix().diagonal().clone();
    let b = fold.direction.normalize();
    let unit_mass: f64 = b.component_mul(&b).dot(&mass);
    let potential = event_energy(&sim, &event);
    for speed in [0.2, 1.0] {
        let mut leaving = sim.clone();
        leaving
            .leave_along(&event, &fold.direction, Some(speed))
            .unwrap();
        let asked = potential + 0.5 * unit_mass * speed * speed;
        for _ in 0..20 {
            leaving.step().unwrap();
        }
        assert!(
            abs_diff_eq!(
                leaving.energy(),
                asked,
                epsilon = 1e-6 * asked.abs().max(1.0)
            ),
            "speed {speed}: energy {} after 20 steps, asked {asked}",
            leaving.energy()
        );
    }
}

fn event_energy(sim: &Simulation, event: &SingularEvent) -> f64 {
    let mut at_event = sim.clone();
    at_event.set_event_state(event).unwrap();
    at_event.energy()
}

#[test]
fn two_linkages_flat_at_once_have_families_of_branches_not_a_list() {
    // Two independent four-bars going flat together: each may fold or not, so the branch
    // tangents fill planes (products of each linkage's two lines), not isolated lines.
    let bar = |name: &str, x: f64, y: f64, angle: f64| {
        format!(
            "Bar(name: \"{name}\", length: 1.0, mass: 1.0, start: ({x:?}, {y:?}), angle: {angle:?}),"
        )
    };
    let half = std::f64::consts::FRAC_PI_2;
    let mut bodies = String::new();
    let mut joints = String::new();
    let mut velocities = String::new();
    for (k, x0) in [(1, 0.0), (2, 3.0)] {
        bodies += &bar(&format!("crank{k}a"), x0, 0.0, half);
        bodies += &bar(&format!("coupler{k}"), x0, 1.0, 0.0);
        bodies += &bar(&format!("crank{k}b"), x0 + 1.0, 0.0, half);
        joints += &format!(
            "Pin(name: \"O{k}a\", body: \"crank{k}a\", at: Start, ground: ({x0:?}, 0.0)),
             Pin(name: \"O{k}b\", body: \"crank{k}b\", at: Start, ground: ({:?}, 0.0)),
             Revolute(name: \"A{k}\", a: \"crank{k}a\", at_a: End, b: \"coupler{k}\", at_b: Start),
             Revolute(name: \"B{k}\", a: \"crank{k}b\", at_a: End, b: \"coupler{k}\", at_b: End),",
            x0 + 1.0
        );
        velocities +=
            &format!("(body: \"crank{k}a\", omega: 4.0), (body: \"coupler{k}\", omega: 0.0),");
    }
    let source = format!(
        "Scene(title: \"twin\", gravity: [0.0, -9.81], bodies: [{bodies}], joints: [{joints}], velocities: [{velocities}])"
    );
    let scene = singulab::scene::parse_scene("twin.ron", &source).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = scene.simulation().unwrap();
    let event = loop {
        sim.step().unwrap();
        if let Some(event) = sim.step_events().first() {
            break event.clone();
        }
    };
    assert_eq!(event.deficiency, 2, "both linkages flat at once");
    let search = branches(sim.mechanism(), &event);
    assert!(search.families, "{search:?}");
    assert!(
        search.branches.is_empty(),
        "{} branches listed",
        search.branches.len()
    );
}
