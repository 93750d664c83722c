//! The slider on a ground guide (`Slider` in a scene, one row `(P - O) . n`) against
//! references that do not use its code:
//! - its residual written out here with `r + R(theta) s`; `A` by central differences of that
//!   residual; `gamma` as minus the second derivative of it along `x + s xd` (five-point
//!   stencil), at random states;
//! - a planar slider-crank run: the rod's end stays on the guide, its position follows the
//!   crank angle as the triangle O-A-B gives it, `x_B = r cos(theta) + sqrt(l^2 - r^2
//!   sin^2(theta))`, and the energy is conserved (no load but gravity, a frictionless guide);
//! - the pin in a slot (`Slot`, the prismatic joint's offset row alone, whose derivatives
//!   `planar_joints` checks): a crank and slotted lever whose lever points at the crank's tip
//!   at every step, the energy conserved.

use nalgebra::{DMatrix, DVector, Vector2};
use singulab::model::{Body, BodyKind, Joint, JointKind, Mechanism};
use singulab::scene::parse_scene;

use crate::common::PLANAR_SLIDER_CRANK;
use crate::planar_joints::{body_point, joint};
use crate::test_rng::Rng;

fn bar(name: &str, length: f64) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Bar { length },
        mass: 1.0,
        offset: 0,
    }
}

/// A bar whose point `s` slides on the line through `origin` along `axis`.
fn one_slider(s: Vector2<f64>, origin: Vector2<f64>, axis: Vector2<f64>) -> Mechanism {
    let kind = JointKind::Slider {
        body: 0,
        point: s,
        origin,
        axis,
    };
    let joints: Vec<Joint> = vec![joint("guide", kind)];
    Mechanism::new(vec![bar("rod", 0.7)], joints, Vec::new(), [0.0, -9.81, 0.0])
}

/// `(r + R s - O) . n`, `n` the axis turned a quarter turn.
fn written(x: &DVector<f64>, s: Vector2<f64>, origin: Vector2<f64>, axis: Vector2<f64>) -> f64 {
    let n = Vector2::new(-axis.y, axis.x);
    (body_point(x, 0, s) - origin).dot(&n)
}

#[test]
fn the_slider_row_its_jacobian_and_gamma_match_their_definitions() {
    let mut rng = Rng::new(7);
    for _ in 0..50 {
        let s = Vector2::new(rng.uniform(-0.5, 0.5), rng.uniform(-0.2, 0.2));
        let origin = Vector2::new(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let angle = rng.uniform(-3.0, 3.0);
        let axis = Vector2::new(angle.cos(), angle.sin());
        let mechanism = one_slider(s, origin, axis);
        let x = DVector::from_fn(3, |_, _| rng.uniform(-1.0, 1.0));
        let xd = DVector::from_fn(3, |_, _| rng.uniform(-2.0, 2.0));
        let mut c = DVector::zeros(1);
        mechanism.residual(0.0, &x, &mut c);
        assert!((c[0] - written(&x, s, origin, axis)).abs() < 1e-14);
        let mut a = DMatrix::zeros(1, 3);
        mechanism.jacobian(&x, &mut a);
        let h = 1e-6;
        for k in 0..3 {
            let (mut plus, mut minus) = (x.clone(), x.clone());
            plus[k] += h;
            minus[k] -= h;
            let numeric =
                (written(&plus, s, origin, axis) - written(&minus, s, origin, axis)) / (2.0 * h);
            assert!((a[(0, k)] - numeric).abs() < 1e-8, "entry {k}");
        }
        let mut gamma = DVector::zeros(1);
        mechanism.gamma(0.0, &x, &xd, &mut gamma);
        let along = |step: f64| written(&(&x + step * &xd), s, origin, axis);
        let h = 1e-3;
        let second = (-along(2.0 * h) + 16.0 * along(h) - 30.0 * along(0.0) + 16.0 * along(-h)
            - along(-2.0 * h))
            / (12.0 * h * h);
        assert!(
            (gamma[0] + second).abs() < 1e-6,
            "{} vs {}",
            gamma[0],
            -second
        );
    }
}

#[test]
fn a_slider_crank_keeps_its_rod_end_on_the_guide_where_the_crank_puts_it() {
    let scene = parse_scene("slider_crank_planar.ron", PLANAR_SLIDER_CRANK).expect("scene");
    let mechanism = scene.mechanism.clone();
    assert_eq!((mechanism.n(), mechanism.m()), (6, 5));
    let (r, l) = (0.1, 0.3);
    let mut sim = scene.simulation().expect("simulation");
    let energy =
        |sim: &singulab::solver::Simulation| mechanism.energy(sim.positions(), sim.velocities());
    let start = energy(&sim);
    let mut turned = 0.0_f64;
    // 1 s: about one turn of the crank.
    for _ in 0..10_000 {
        sim.step().expect("step");
        let x = sim.positions();
        let theta = x[2];
        let end = body_point(x, 3, Vector2::new(0.5 * l, 0.0));
        let expected = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
        assert!(end.y.abs() < 1e-10, "off the guide by {}", end.y);
        assert!((end.x - expected).abs() < 1e-9, "{} vs {expected}", end.x);
        turned = turned.max((theta - std::f64::consts::FRAC_PI_2).abs());
    }
    let drift = (energy(&sim) - start).abs() / start.abs();
    assert!(drift < 1e-6, "energy drifted by {drift:e} of {start}");
    assert!(turned > 1.0, "the crank turned {turned} rad");
}

/// A crank and slotted lever: crank r = 0.2 m on a pivot at the origin, its tip A a pin in
/// the slot of a 1 m lever pivoted at (0, -0.5); the crank starts along +x at 5 rad/s.
const SLOTTED_LEVER: &str = r#"Scene(
    title: "Crank and slotted lever",
    gravity: [0.0, -9.81],
    bodies: [
        Bar(name: "crank", length: 0.2, mass: 0.2, start: (0.0, 0.0), angle: 0.0),
        Bar(name: "lever", length: 1.0, mass: 1.0, start: (0.0, -0.5), angle: 1.1902899496825317),
    ],
    joints: [
        Pin(name: "O1", body: "crank", at: Start, ground: (0.0, 0.0)),
        Pin(name: "O2", body: "lever", at: Start, ground: (0.0, -0.5)),
        Slot(name: "A", a: "crank", at_a: End, b: "lever", at_b: Start, axis: (1.0, 0.0)),
    ],
    velocities: [(body: "crank", omega: 5.0)],
    solver: (dt: 1e-4),
)"#;

/// The lever points at the crank's tip at every step (the line from its pivot through A is
/// its axis: `phi = atan2(A_y + 0.5, A_x)` modulo a half turn), and the energy is conserved.
#[test]
fn a_pin_in_a_slot_keeps_the_lever_pointing_at_the_crank_tip() {
    let scene = parse_scene("slotted_lever.ron", SLOTTED_LEVER).expect("scene");
    let mechanism = scene.mechanism.clone();
    assert_eq!((mechanism.n(), mechanism.m()), (6, 5));
    let mut sim = scene.simulation().expect("simulation");
    let energy =
        |sim: &singulab::solver::Simulation| mechanism.energy(sim.positions(), sim.velocities());
    let start = energy(&sim);
    for _ in 0..5_000 {
        sim.step().expect("step");
        let x = sim.positions();
        let tip = body_point(x, 0, Vector2::new(0.1, 0.0));
        let toward = (tip.y + 0.5).atan2(tip.x);
        let off = (x[5] - toward).rem_euclid(std::f64::consts::PI);
        let off = off.min(std::f64::consts::PI - off);
        assert!(off < 1e-9, "the lever is {off} rad off the crank tip");
    }
    let drift = (energy(&sim) - start).abs() / start.abs();
    assert!(drift < 1e-6, "energy drifted by {drift:e} of {start}");
}
