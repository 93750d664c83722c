//! The configuration-space atlas against the closed forms of the loop closures.
//!
//! Four-bar of unit cranks, coupler and ground (`four_bar.ron`): with crank angles `a` (left,
//! pivot at the origin) and `b` (right, pivot at (1, 0)), the coupler closes when
//! `(cos a - cos b - 1)^2 + (sin a - sin b)^2 = 1`, that is
//! `1 - cos(a - b) - cos a + cos b = 0`, whose solutions are three curves on the torus:
//! `a = b` (the parallelogram), `a = 0` (the left crank lies on the ground, its tip on the
//! right pivot, and the right crank and the coupler fold together) and `b = pi`. They cross
//! pairwise at `(0, 0)`, `(pi, pi)` and `(0, pi)`: three singular points, each on two curves,
//! so six curves between them.
//!
//! A02 is two such loops sharing the middle crank: `(a1, a2)` and `(a2, a3)` each on their
//! three curves, so six curves in `(a1, a2, a3)`: `a1 = a2 = a3`, `(s, s, pi)`, `(0, s, s)`,
//! `(0, 0, s)`, `(0, s, pi)` and `(s, pi, pi)`, crossing three at a time at `(0, 0, 0)`,
//! `(pi, pi, pi)`, `(0, 0, pi)` and `(0, pi, pi)`: four singular points, twelve curves.
//! Along `(0, 0, s)` the first loop stays flat and along `(s, pi, pi)` the second: the
//! mechanism is singular there, one rank below the generic 14.

use std::f64::consts::PI;

use nalgebra::DVector;
use singulab::atlas::Atlas;
use singulab::scene::Scene;

use crate::common::{self, scene};

fn atlas_of(scene: &Scene) -> Atlas {
    common::atlas_of(scene, Vec::new())
}

/// `a - b` wrapped into (-pi, pi].
fn angle_gap(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(2.0 * PI);
    if d > PI { d - 2.0 * PI } else { d }
}

/// The crank angles of a point, by body name.
fn angles(scene: &Scene, x: &[f64], names: &[&str]) -> Vec<f64> {
    names
        .iter()
        .map(|name| {
            let body = scene.mechanism.body_index(name).expect(name);
            x[scene.mechanism.bodies()[body].offset + 2]
        })
        .collect()
}

fn residual(scene: &Scene, x: &[f64]) -> f64 {
    let mut c = DVector::zeros(scene.mechanism.m());
    scene
        .mechanism
        .residual(0.0, &DVector::from_column_slice(x), &mut c);
    c.amax()
}

/// A closure curve: how far (rad) crank angles are from it.
type ClosureCurve<'a> = &'a dyn Fn(&[f64]) -> f64;

/// How far (rad) a point's crank angles are from the nearest of `curves` (each a predicate
/// distance on the angles).
fn off_curves(a: &[f64], curves: &[ClosureCurve]) -> f64 {
    curves.iter().map(|f| f(a)).fold(f64::INFINITY, f64::min)
}

#[test]
fn the_four_bars_atlas_is_its_three_closure_curves_crossing_at_three_points() {
    let scene = scene("four_bar");
    let atlas = atlas_of(&scene);
    assert_eq!(atlas.singular.len(), 3, "singular points");
    assert_eq!(atlas.curves.len(), 6, "curves");
    let names = ["crank1", "crank2"];
    let curves: [ClosureCurve; 3] = [
        &|a| angle_gap(a[0], a[1]).abs(),
        &|a| angle_gap(a[0], 0.0).abs(),
        &|a| angle_gap(a[1], PI).abs(),
    ];
    let mut worst = 0.0f64;
    for curve in &atlas.curves {
        for k in 0..curve.len() {
            let x = curve.point(k);
            assert!(residual(&scene, x) <= 1e-12, "off the constraints");
            worst = worst.max(off_curves(&angles(&scene, x, &names), &curves));
        }
    }
    // Every traced point is on a closure curve to the Newton tolerance's reach.
    assert!(worst < 1e-6, "{worst:e} rad off the closed form");
    let mut expected = vec![[0.0, 0.0], [PI, PI], [0.0, PI]];
    for point in &atlas.singular {
        let a = angles(&scene, point.x.as_slice(), &names);
        let found = expected
            .iter()
            .position(|e| angle_gap(a[0], e[0]).abs() < 1e-9 && angle_gap(a[1], e[1]).abs() < 1e-9)
            .unwrap_or_else(|| panic!("singular point at {a:?} is none of the crossings"));
        expected.remove(found);
        assert_eq!(point.rank, 7, "rank at a crossing (generic 8)");
        assert_eq!(point.lines, 2, "two curves cross");
    }
}

#[test]
fn a02s_atlas_is_six_curves_crossing_three_at_a_time_at_four_points() {
    let scene = scene("double_four_bar");
    let atlas = atlas_of(&scene);
    assert_eq!(atlas.singular.len(), 4, "singular points");
    assert_eq!(atlas.curves.len(), 12, "curves");
    let names = ["crank1", "crank2", "crank3"];
    let g = |a: f64, b: f64| angle_gap(a, b).abs();
    let regular: [ClosureCurve; 4] = [
        &|a| g(a[0], a[1]).max(g(a[1], a[2])),
        &|a| g(a[0], a[1]).max(g(a[2], PI)),
        &|a| g(a[0], 0.0).max(g(a[1], a[2])),
        &|a| g(a[0], 0.0).max(g(a[2], PI)),
    ];
    let singular: [ClosureCurve; 2] = [&|a| g(a[0], 0.0).max(g(a[1], 0.0)), &|a| {
        g(a[1], PI).max(g(a[2], PI))
    }];
    let (mut singular_curves, mut worst) = (0, 0.0f64);
    for curve in &atlas.curves {
        let inner = 1..curve.len() - 1;
        let stays_singular = inner.clone().all(|k| curve.rank[k] == 13);
        if stays_singular {
            singular_curves += 1;
        } else {
            // Away from its ends a regular curve has the generic rank.
            let middle = curve.len() / 2;
            assert_eq!(curve.rank[middle], 14);
        }
        let on: &[ClosureCurve] = if stays_singular { &singular } else { &regular };
        for k in 0..curve.len() {
            let x = curve.point(k);
            assert!(residual(&scene, x) <= 1e-12, "off the constraints");
            worst = worst.max(off_curves(&angles(&scene, x, &names), on));
        }
    }
    assert_eq!(
        singular_curves, 4,
        "(0, 0, s) and (s, pi, pi), each in two halves"
    );
    assert!(worst < 1e-6, "{worst:e} rad off the closed form");
    let mut expected = vec![[0.0, 0.0, 0.0], [PI, PI, PI], [0.0, 0.0, PI], [0.0, PI, PI]];
    for (k, point) in atlas.singular.iter().enumerate() {
        let a = angles(&scene, point.x.as_slice(), &names);
        let found = expected
            .iter()
            .position(|e| (0..3).all(|i| g(a[i], e[i]) < 1e-9))
            .unwrap_or_else(|| panic!("singular point at {a:?} is none of the flat poses"));
        expected.remove(found);
        assert_eq!(point.rank, 12, "two loops flat at once");
        assert_eq!(point.lines, 3, "three curves cross");
        assert_eq!(
            atlas.curves_at(k).len(),
            6,
            "each crossing curve in two halves"
        );
    }
}

/// The atlas' singular points are where the dynamics stop: A02's first event (all bars flat,
/// t = 0.7144 s) is the crossing at (0, 0, 0), to the event's own accuracy (its state is
/// where Newton left it, up to 2.7e-7 off along the vanishing normal: `solver::indicator`).
#[test]
fn a02s_first_event_is_an_atlas_singular_point() {
    let scene = scene("double_four_bar");
    let atlas = atlas_of(&scene);
    let mut sim = scene.simulation().unwrap();
    let event = loop {
        sim.step().unwrap();
        if let Some(event) = sim.step_events().first() {
            break event.clone();
        }
    };
    let names = ["crank1", "crank2", "crank3"];
    let at_event = angles(&scene, event.x.as_slice(), &names);
    let nearest = atlas
        .singular
        .iter()
        .map(|p| {
            let a = angles(&scene, p.x.as_slice(), &names);
            (0..3)
                .map(|i| angle_gap(a[i], at_event[i]).abs())
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    assert!(
        nearest < 1e-6,
        "event {nearest:e} rad from the nearest singular point"
    );
}

#[test]
fn a_pendulums_atlas_is_one_closed_circle() {
    for name in ["planar_pendulum", "redundant_pendulum"] {
        let scene = scene(name);
        let atlas = atlas_of(&scene);
        assert_eq!(atlas.singular.len(), 0, "{name}");
        assert_eq!(atlas.curves.len(), 1, "{name}");
        let curve = &atlas.curves[0];
        assert_eq!(curve.end, singulab::atlas::CurveEnd::Closed, "{name}");
        let radius = |x: &[f64]| x[0].hypot(x[1]);
        let length = radius(scene.x0.as_slice());
        for k in 0..curve.len() {
            assert!((radius(curve.point(k)) - length).abs() < 1e-12, "{name}");
        }
        // Once round: the arclength of a circle of that radius, to the chords' shortfall.
        let s = curve.s[curve.len() - 1] - curve.s[0];
        assert!(
            s > 0.95 * 2.0 * PI * length && s < 2.0 * PI * length,
            "{name}: {s}"
        );
    }
}

/// The spatial slider-crank (`slider_crank.ron`): the crank turns about the x axis through
/// A = (0, 0.1, 0.12), its centre the midpoint of AB (|AB| = 0.08 m), so B = 2 c - A; the
/// slider's centre C = (s, 0, 0) and the rod |BC| = 0.3 m give the input-output relation
/// `s^2 + B_y^2 + B_z^2 = 0.09`, `s > 0` on the branch the scene starts on (s = 0.2 m at
/// theta = 0). Its atlas is that closed curve, once round the crank, and no singular point.
#[test]
fn the_slider_cranks_atlas_is_its_input_output_relation_once_round() {
    let scene = scene("slider_crank");
    let atlas = atlas_of(&scene);
    assert_eq!(atlas.singular.len(), 0);
    assert_eq!(atlas.curves.len(), 1);
    let curve = &atlas.curves[0];
    assert_eq!(curve.end, singulab::atlas::CurveEnd::Closed);
    let offset = |name: &str| {
        let body = scene.mechanism.body_index(name).expect(name);
        scene.mechanism.bodies()[body].offset
    };
    let (crank, slider) = (offset("crank"), offset("slider"));
    let a = [0.0, 0.1, 0.12];
    let mut turned = 0.0;
    let mut previous: Option<f64> = None;
    for k in 0..curve.len() {
        let x = curve.point(k);
        let c = [x[crank], x[crank + 1], x[crank + 2]];
        let b: Vec<f64> = (0..3).map(|i| 2.0 * c[i] - a[i]).collect();
        let s = x[slider];
        assert!((b[0]).abs() < 1e-9, "B leaves the crank's plane: {b:?}");
        let radius = (b[1] - a[1]).hypot(b[2] - a[2]);
        assert!((radius - 0.08).abs() < 1e-9, "|AB| = {radius}");
        assert!(s > 0.0 && (s * s + b[1] * b[1] + b[2] * b[2] - 0.09).abs() < 1e-9);
        assert!(x[slider + 1].abs() < 1e-9 && x[slider + 2].abs() < 1e-9);
        // The crank's angle about x, unwrapped along the curve.
        let angle = (-(b[1] - a[1])).atan2(b[2] - a[2]);
        if let Some(p) = previous {
            turned += angle_gap(angle, p);
        }
        previous = Some(angle);
    }
    assert!(
        (turned.abs() - 2.0 * PI).abs() < 0.2,
        "the crank turned {turned} rad"
    );
}

/// The modified double four-bar (`modified_double_four_bar.ron`, redundant: 12 rows of rank
/// 11): a coupler of length 2 holds three unit cranks' tips, pivots 1 m apart, at its start,
/// middle and end. The middle tip is the mean of the outer two, so the mean of the unit
/// vectors `e_a` and `e_c` is the unit vector `e_b`: all three equal, one circle `a = b = c`.
/// Its rank drops where the cranks lie flat (0 and pi), with no other branch through them:
/// two singular points, the circle in two arcs, one line through each.
#[test]
fn the_modified_double_four_bars_atlas_is_one_circle_singular_where_flat() {
    let scene = scene("modified_double_four_bar");
    let atlas = atlas_of(&scene);
    assert_eq!(atlas.singular.len(), 2, "singular points");
    assert_eq!(atlas.curves.len(), 2, "arcs");
    let names = ["crank1", "crank2", "crank3"];
    let mut worst = 0.0f64;
    for curve in &atlas.curves {
        for k in 0..curve.len() {
            let x = curve.point(k);
            assert!(residual(&scene, x) <= 1e-12, "off the constraints");
            let a = angles(&scene, x, &names);
            worst = worst
                .max(angle_gap(a[0], a[1]).abs())
                .max(angle_gap(a[1], a[2]).abs());
        }
    }
    assert!(worst < 1e-6, "{worst:e} rad off a = b = c");
    let mut expected = vec![0.0, PI];
    for (k, point) in atlas.singular.iter().enumerate() {
        let a = angles(&scene, point.x.as_slice(), &names);
        let found = expected
            .iter()
            .position(|&e| (0..3).all(|i| angle_gap(a[i], e).abs() < 1e-9))
            .unwrap_or_else(|| panic!("singular point at {a:?} is not a flat pose"));
        expected.remove(found);
        assert_eq!(point.lines, 1, "no branch besides the circle");
        assert_eq!(atlas.curves_at(k).len(), 2, "the two arcs");
    }
}
