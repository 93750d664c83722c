//! Starting a large redundant mechanism costs a few projections, not one per degree of
//! freedom: the generic-rank probes of the start are a fixed few once there are many
//! null-space directions (`Simulation::new`).

use singulab::scene::parse_scene;

/// A chain of `bars` unit bars hanging from the origin, laid out along +x, every joint
/// written twice (the second copy prefixed `d_`).
fn doubled_chain(bars: usize) -> String {
    let mut bodies = String::new();
    let mut joints = String::new();
    for i in 0..bars {
        bodies.push_str(&format!(
            "Bar(name: \"b{i}\", length: 1.0, mass: 1.0, start: ({i}.0, 0.0), angle: 0.0),\n"
        ));
        for prefix in ["", "d_"] {
            if i == 0 {
                joints.push_str(&format!(
                    "Pin(name: \"{prefix}p0\", body: \"b0\", at: Start, ground: (0.0, 0.0)),\n"
                ));
            } else {
                joints.push_str(&format!(
                    "Revolute(name: \"{prefix}j{i}\", a: \"b{}\", at_a: End, b: \"b{i}\", at_b: Start),\n",
                    i - 1
                ));
            }
        }
    }
    format!(
        "Scene(title: \"chain\", gravity: [0.0, -9.81], bodies: [{bodies}], joints: [{joints}])"
    )
}

/// 100 bars (300 coordinates, 400 rows): every joint's two rows are independent once, so the
/// rank is 200 everywhere (an open chain has no singular configuration) and there are 100
/// null-space directions at the start.
#[test]
fn a_large_redundant_chain_starts_in_a_few_factorisations() {
    let scene = parse_scene("chain.ron", &doubled_chain(100)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((scene.mechanism.n(), scene.mechanism.m()), (300, 400));
    let sim = scene.simulation().unwrap();
    assert_eq!(sim.generic_rank(), 200);
    assert_eq!(sim.starts_singular(), None);
    let factorizations = sim.counters().factorizations;
    assert!(
        factorizations <= 12,
        "{factorizations} QR factorisations to start"
    );
}
