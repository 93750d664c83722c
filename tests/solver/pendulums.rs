//! The three pendulums (Zhou et al. 2023, sect. 3.3).
//!
//! References, all derived here:
//! - spatial pendulum (M = 1 kg, l = 0.08 m, r0 = (l, 0, 0), v0 = (0, 0.7895, 0), gravity -z):
//!   the energy `1/2 M |v|^2 + M g z` and the angular momentum about the vertical axis
//!   `M (x vy - y vx)` are conserved (the constraint force is radial, gravity is vertical). At
//!   `t = 0`, `A^T = (2l, 0, 0)`, so the tangent space is spanned by the y and z axes; Zhou et
//!   al. 2023, eq. 53 with `alpha_0 = 0` gives exactly `Q2 = [e_y, e_z]`, hence
//!   `qd = Q2^T v0 = (v0, 0)`;
//! - planar pendulum released at rest from horizontal (theta0 = pi/2): period
//!   `T = 4 sqrt(l/g) K(k)`, `k = sin(theta0/2)`, with the complete elliptic integral of the
//!   first kind computed here by the arithmetic-geometric mean, `K = pi / (2 AGM(1, sqrt(1-k^2)))`.
//!   The period is measured from the bottom passages (`x = 0`, a simple zero where `|vx|` is
//!   largest; `vx` itself has triple zeros at the turning points, where its sign change locates
//!   poorly), located by cubic Hermite interpolation of `x` with `vx` between steps;
//! - the redundant pendulum writes the same constraint twice, which must change neither the rank
//!   (1, with n = m = 2) nor the physics: its trajectory equals the planar pendulum's.

use std::f64::consts::PI;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::DVector;
use singulab::solver::BasisMode;

use crate::common::scene;

const G: f64 = 9.81;

#[test]
fn spatial_pendulum_conserves_energy_and_vertical_angular_momentum() {
    let (mass, l, v0) = (1.0, 0.08, 0.7895);
    let sc = scene("spatial_pendulum");
    assert_eq!(sc.settings.dt, 1e-4);
    assert_eq!(sc.t_end, 2.0);
    let mut sim = sc.simulation().expect("simulation");
    assert_eq!(
        (sc.mechanism.n(), sc.mechanism.m(), sim.generic_rank()),
        (3, 1, 1)
    );

    let energy =
        |x: &DVector<f64>, v: &DVector<f64>| 0.5 * mass * v.norm_squared() + mass * G * x[2];
    let momentum = |x: &DVector<f64>, v: &DVector<f64>| mass * (x[0] * v[1] - x[1] * v[0]);
    let (x0, xd0) = (sim.positions().clone(), sim.velocities().clone());
    assert_abs_diff_eq!(x0, DVector::from_vec(vec![l, 0.0, 0.0]), epsilon = 1e-15);
    assert_abs_diff_eq!(xd0, DVector::from_vec(vec![0.0, v0, 0.0]), epsilon = 1e-15);
    let e0 = 0.5 * mass * v0 * v0;
    let lz0 = mass * l * v0;
    assert_abs_diff_eq!(energy(&x0, &xd0), e0, epsilon = 1e-15);
    assert_abs_diff_eq!(sim.energy(), e0, epsilon = 1e-15);
    assert_abs_diff_eq!(momentum(&x0, &xd0), lz0, epsilon = 1e-15);

    // Zhou et al. 2023, eq. 53 with alpha_0 = 0: the tangent columns are e_y and e_z, qd = (v0, 0).
    for mode in [BasisMode::Continued, BasisMode::Traditional] {
        let basis = sim.basis(mode);
        let t = basis.columns();
        assert_eq!(t.ncols(), 2, "{mode:?}: tangent dimension");
        let expected = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        for (j, e) in expected.iter().enumerate() {
            assert!(
                abs_diff_eq!(t.column(j).as_slice(), &e[..], epsilon = 1e-14),
                "{mode:?}: column {j} at t = 0 is {:?}, expected {e:?}",
                t.column(j).as_slice()
            );
        }
        let qd = basis.qd();
        assert!(
            abs_diff_eq!(qd, &[v0, 0.0][..], epsilon = 1e-14),
            "{mode:?}: qd(0) = {qd:?}, expected ({v0}, 0)"
        );
    }

    let (mut de, mut dl, mut dr) = (0.0f64, 0.0f64, 0.0f64);
    let mut steps = 0;
    while sim.time() < sc.t_end {
        let report = sim.step_until(sc.t_end).expect("step");
        let (x, v) = (sim.positions(), sim.velocities());
        de = de.max((energy(x, v) - e0).abs());
        dl = dl.max((momentum(x, v) - lz0).abs() / lz0);
        dr = dr.max((x.norm() - l).abs());
        assert_abs_diff_eq!(report.energy, energy(x, v), epsilon = 1e-12);
        steps += 1;
    }
    eprintln!(
        "spatial pendulum, {steps} steps of 1e-4 s: energy drift {de:.3e} J, relative L_z drift \
         {dl:.3e}, |r| - l up to {dr:.3e} m"
    );
    assert_eq!(steps, 20_000);
    assert!(de < 1e-8, "energy drift {de:.3e} J");
    assert!(dl < 1e-8, "relative angular momentum drift {dl:.3e}");
    assert!(dr < 1e-12, "the bob left the sphere by {dr:.3e} m");
}

/// Arithmetic-geometric mean.
fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    0.5 * (a + b)
}

/// Complete elliptic integral of the first kind, modulus k.
fn elliptic_k(k: f64) -> f64 {
    PI / (2.0 * agm(1.0, (1.0 - k * k).sqrt()))
}

/// Root of the cubic Hermite interpolant of `x` on `[t0, t1]` (values and slopes at both ends).
fn hermite_root(t0: f64, x0: f64, v0: f64, t1: f64, x1: f64, v1: f64) -> f64 {
    let h = t1 - t0;
    let p = |t: f64| {
        let u = (t - t0) / h;
        let (u2, u3) = (u * u, u * u * u);
        (2.0 * u3 - 3.0 * u2 + 1.0) * x0
            + (u3 - 2.0 * u2 + u) * h * v0
            + (-2.0 * u3 + 3.0 * u2) * x1
            + (u3 - u2) * h * v1
    };
    let (mut a, mut b) = (t0, t1);
    let sa = p(a).signum();
    for _ in 0..100 {
        let m = 0.5 * (a + b);
        if p(m).signum() == sa {
            a = m;
        } else {
            b = m;
        }
    }
    0.5 * (a + b)
}

#[test]
fn planar_pendulum_period_matches_the_elliptic_integral() {
    let l = 1.0;
    let theta0 = PI / 2.0;
    let k = (theta0 / 2.0).sin();
    // Sanity of the AGM: K(0) = pi/2 and K(1/sqrt 2) = Gamma(1/4)^2 / (4 sqrt(pi)).
    assert_abs_diff_eq!(elliptic_k(0.0), PI / 2.0, epsilon = 1e-15);
    assert_abs_diff_eq!(elliptic_k(k), 1.854_074_677_301_372, epsilon = 1e-14);
    let period = 4.0 * (l / G).sqrt() * elliptic_k(k);

    let sc = scene("planar_pendulum");
    assert_eq!(sc.settings.dt, 1e-3);
    let mut sim = sc.simulation().expect("simulation");
    let (mut t_prev, mut x_prev, mut v_prev) = (0.0, sim.positions()[0], sim.velocities()[0]);
    assert_eq!((x_prev, v_prev), (1.0, 0.0), "released at rest from (1, 0)");
    let mut bottoms = Vec::new();
    while sim.time() < sc.t_end {
        let report = sim.step_until(sc.t_end).expect("step");
        let (x, v) = (sim.positions()[0], sim.velocities()[0]);
        if x == 0.0 || x.signum() != x_prev.signum() {
            bottoms.push(hermite_root(t_prev, x_prev, v_prev, report.t, x, v));
        }
        (t_prev, x_prev, v_prev) = (report.t, x, v);
    }
    eprintln!("planar pendulum: reference period {period:.12} s, bottom passages {bottoms:?}");
    assert!(
        bottoms.len() >= 7,
        "only {} bottom passages in 10 s",
        bottoms.len()
    );
    // The first bottom passage is a quarter period after the release; then one every half period.
    let mut worst = ((bottoms[0] - period / 4.0) / (period / 4.0)).abs();
    for pair in bottoms.windows(3) {
        worst = worst.max(((pair[2] - pair[0]) - period).abs() / period);
    }
    for pair in bottoms.windows(2) {
        worst = worst.max(((pair[1] - pair[0]) - period / 2.0).abs() / (period / 2.0));
    }
    let measured = (bottoms[bottoms.len() - 1] - bottoms[0]) / ((bottoms.len() - 1) as f64 / 2.0);
    eprintln!(
        "planar pendulum: measured period {measured:.12} s, relative error {:.3e}, worst \
         quarter/half/full-period relative error {worst:.3e}",
        (measured - period).abs() / period
    );
    assert!(
        worst < 1e-6,
        "period relative error {worst:.3e} (reference T = {period:.12} s)"
    );
}

#[test]
fn redundant_pendulum_moves_exactly_like_the_planar_pendulum() {
    let planar = scene("planar_pendulum");
    let redundant = scene("redundant_pendulum");
    assert_eq!((redundant.mechanism.n(), redundant.mechanism.m()), (2, 2));
    assert_eq!(planar.settings, redundant.settings);
    assert_eq!(planar.x0, redundant.x0);
    assert_eq!(planar.xd0, redundant.xd0);
    let mut a = planar.simulation().expect("planar");
    let mut b = redundant.simulation().expect("redundant");
    assert_eq!(
        b.generic_rank(),
        1,
        "generic rank of the redundant pendulum"
    );
    assert_eq!(b.rank(), 1);
    assert_eq!(b.basis(BasisMode::Continued).dim(), 1);
    let mut worst = 0.0f64;
    while a.time() < planar.t_end {
        let ra = a.step_until(planar.t_end).expect("planar step");
        let rb = b.step_until(planar.t_end).expect("redundant step");
        assert_eq!(ra.t, rb.t);
        assert_eq!(
            (rb.rank, rb.dof),
            (1, 1),
            "redundant pendulum at t = {}",
            rb.t
        );
        assert_eq!(b.rank(), 1);
        let gap = (a.positions() - b.positions())
            .amax()
            .max((a.velocities() - b.velocities()).amax());
        worst = worst.max(gap);
        assert!(
            gap < 1e-12,
            "the trajectories differ by {gap:.3e} at t = {}",
            rb.t
        );
    }
    eprintln!(
        "redundant vs planar pendulum over {} s: largest difference {worst:.3e}",
        planar.t_end
    );
}
