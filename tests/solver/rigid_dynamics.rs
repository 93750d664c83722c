//! Dynamics of spatial rigid bodies in Euler parameters: the mass block and the quadratic
//! velocity force against the Newton-Euler equations, the kinetic energy, the `MassMatrix`
//! products, and whole runs of the solver against invariants and independent references.
//!
//! References, independent of the code under test:
//! - angular velocities from quaternion algebra (`rigid_kinematics`): `omega' = 2 imag(e* ed)`;
//! - Euler's equations `J' omegad' + omega' x J' omega' = n'` (body axes), mapped to the Euler
//!   parameters by virtual work (see `mass_block_and_quadratic_force_are_newton_euler`);
//! - a free body: its centre of mass moves on the parabola `r0 + v0 t + g t^2 / 2`, and its
//!   energy, its angular momentum about the centre of mass in global axes `A J' omega'` and
//!   `|e|` are conserved.

use std::sync::Arc;

use approx::assert_abs_diff_eq;
use nalgebra::{DMatrix, DVector, Matrix3, Matrix4, Quaternion, Vector3, Vector4};
use singulab::model::{Body, BodyKind, MassMatrix, Mechanism, rigid};
use singulab::solver::{Settings, Simulation};

use crate::rigid_kinematics::{
    body_rate, g_transpose_times, quaternion, reference_rotation, rigid_body, tangent_rates,
    unit_quaternion,
};
use crate::test_rng::Rng;

const G: f64 = 9.81;
const GRAVITY: [f64; 3] = [0.0, 0.0, -G];

/// A full symmetric positive definite inertia: principal values that satisfy the triangle
/// inequality, in random principal axes.
fn random_inertia(rng: &mut Rng) -> Matrix3<f64> {
    let principal = Vector3::new(
        rng.uniform(1.0, 2.0),
        rng.uniform(1.0, 2.0),
        rng.uniform(1.0, 2.0),
    );
    let axes = reference_rotation(&unit_quaternion(rng));
    axes * Matrix3::from_diagonal(&principal) * axes.transpose()
}

/// `G(e)` from its definition `G v = imag(e* v)`, column by column.
fn reference_g(e: &Vector4<f64>) -> nalgebra::Matrix3x4<f64> {
    nalgebra::Matrix3x4::from_fn(|i, k| {
        let unit = Vector4::ith(k, 1.0);
        (quaternion(e).conjugate() * quaternion(&unit)).imag()[i]
    })
}

// Lagrange's equations of `T = omega'^T J' omega' / 2` with `omega' = 2 G(e) ed = -2 G(ed) e`
// (G is linear in its argument) give the inertial force
//     d/dt(dT/ded) - dT/de = 4 G^T J' G edd + 8 G(ed)^T J' G ed = M_e edd - Q_quad.
// Newton-Euler: the body torque is n' = J' omegad' + omega' x J' omega', whose virtual work
// n'.dtheta' with dtheta' = 2 G de is the generalised force 2 G^T n'. The two agree up to the
// normalisation row's direction e (its multiplier takes that part): along e, G e = 0 kills
// the left term and 2 G^T n', and e^T 8 G(ed)^T J' G ed = 8 (G(ed) e).J'(G ed)
// = -8 (G ed).J'(G ed) = -2 omega'.J' omega'. So, at unit e (where [e, G^T] is orthogonal),
//     M_e edd - Q_quad = 2 G^T n' - 2 (omega'.J' omega') e.
// omegad' is the rate of 2 imag(e* ed): 2 imag(e* edd + ed* ed).
#[test]
fn mass_block_and_quadratic_force_are_newton_euler() {
    let mut rng = Rng::new(201);
    let mut worst = 0.0f64;
    for _ in 0..200 {
        let inertia = random_inertia(&mut rng);
        let e = unit_quaternion(&mut rng);
        let ed = tangent_rates(&mut rng, &e) * 2.0;
        // Consistent with the normalisation: e.edd = -|ed|^2.
        let edd = tangent_rates(&mut rng, &e) * 3.0 - e * ed.norm_squared();
        let omega = body_rate(&e, &ed);
        let omega_rate = (quaternion(&e).conjugate() * quaternion(&edd)
            + quaternion(&ed).conjugate() * quaternion(&ed))
        .imag()
            * 2.0;
        let torque = inertia * omega_rate + omega.cross(&(inertia * omega));
        let expected =
            g_transpose_times(&e, &torque) * 2.0 - e * (2.0 * omega.dot(&(inertia * omega)));

        let inertial = rigid::mass_block(&e, &inertia) * edd
            - rigid::quadratic_velocity_force(&e, &ed, &inertia);
        let error = (inertial - expected).amax();
        assert!(
            error < 1e-12,
            "M_e edd - Q_quad off Newton-Euler by {error:e}"
        );
        worst = worst.max(error);
        // The block itself: 4 G^T J' G with G from its definition.
        let g = reference_g(&e);
        assert_abs_diff_eq!(
            rigid::mass_block(&e, &inertia),
            g.transpose() * inertia * g * 4.0,
            epsilon = 1e-13
        );
    }
    println!("mass block and quadratic velocity force against Newton-Euler: {worst:.1e}");
}

/// Two rigid bodies and a spatial point mass, with random inertias.
fn two_bodies_and_a_point(rng: &mut Rng) -> Mechanism {
    let bodies = vec![
        rigid_body("b0", 1.5, random_inertia(rng)),
        Body {
            name: "p".into(),
            kind: BodyKind::Point3,
            mass: 0.4,
            offset: 0,
        },
        rigid_body("b1", 0.7, random_inertia(rng) * 0.1),
    ];
    Mechanism::new(bodies, vec![], vec![], GRAVITY)
}

/// Positions and velocities with unit Euler parameters and tangent rates.
fn random_motion(rng: &mut Rng, mechanism: &Mechanism) -> (DVector<f64>, DVector<f64>) {
    let n = mechanism.n();
    let mut x = DVector::from_fn(n, |_, _| rng.next());
    let mut xd = DVector::from_fn(n, |_, _| rng.next());
    for body in mechanism.bodies().iter().filter(|b| b.is_rigid()) {
        let e = unit_quaternion(rng);
        x.fixed_rows_mut::<4>(body.offset + 3).copy_from(&e);
        xd.fixed_rows_mut::<4>(body.offset + 3)
            .copy_from(&tangent_rates(rng, &e));
    }
    (x, xd)
}

fn inertia_of(body: &Body) -> Option<Matrix3<f64>> {
    match body.kind {
        BodyKind::Rigid { inertia } => Some(inertia),
        _ => None,
    }
}

/// The dense mass matrix from its definition: `m` on translations, `4 G^T J' G` per body's
/// Euler parameters (`G` from `reference_g`).
fn dense_mass(mechanism: &Mechanism, x: &DVector<f64>, blocks_only: bool) -> DMatrix<f64> {
    let n = mechanism.n();
    let mut dense = DMatrix::zeros(n, n);
    for body in mechanism.bodies() {
        if !blocks_only {
            for k in 0..3 {
                dense[(body.offset + k, body.offset + k)] = body.mass;
            }
        }
        if let Some(inertia) = inertia_of(body) {
            let o = body.offset + 3;
            let g = reference_g(&x.fixed_rows::<4>(o).into_owned());
            let block: Matrix4<f64> = g.transpose() * inertia * g * 4.0;
            dense.view_mut((o, o), (4, 4)).copy_from(&block);
        }
    }
    dense
}

#[test]
fn kinetic_energy_is_translation_plus_body_rotation() {
    let mut rng = Rng::new(202);
    let mechanism = two_bodies_and_a_point(&mut rng);
    let mut mass = mechanism.mass_matrix().clone();
    let mut worst = 0.0f64;
    for _ in 0..50 {
        let (x, xd) = random_motion(&mut rng, &mechanism);
        let mut expected = 0.0;
        for body in mechanism.bodies() {
            let o = body.offset;
            expected += 0.5 * body.mass * xd.rows(o, 3).norm_squared();
            if let Some(inertia) = inertia_of(body) {
                let w = body_rate(
                    &x.fixed_rows::<4>(o + 3).into_owned(),
                    &xd.fixed_rows::<4>(o + 3).into_owned(),
                );
                expected += 0.5 * w.dot(&(inertia * w));
            }
        }
        mass.update(&x);
        let mut product = DVector::zeros(mechanism.n());
        mass.subtract_product(&xd, &mut product);
        let energies = [
            mechanism.kinetic_energy(&x, &xd),
            mass.kinetic_energy(&xd),
            -0.5 * xd.dot(&product),
        ];
        for (what, value) in [
            "Mechanism::kinetic_energy",
            "MassMatrix::kinetic_energy",
            "xd.M xd / 2",
        ]
        .iter()
        .zip(energies)
        {
            let error = (value - expected).abs() / expected;
            assert!(
                error < 1e-14,
                "{what}: {value} against {expected} (relative {error:e})"
            );
            worst = worst.max(error);
        }
    }
    println!("kinetic energy against m |rd|^2 / 2 + omega'.J' omega' / 2: relative {worst:.1e}");
}

#[test]
fn mass_matrix_products_are_the_dense_products() {
    let mut rng = Rng::new(203);
    let mechanism = two_bodies_and_a_point(&mut rng);
    let n = mechanism.n();
    let mut mass: MassMatrix = mechanism.mass_matrix().clone();
    for _ in 0..20 {
        let (x, v) = random_motion(&mut rng, &mechanism);
        mass.update(&x);
        let (full, blocks) = (
            dense_mass(&mechanism, &x, false),
            dense_mass(&mechanism, &x, true),
        );
        let start = DVector::from_fn(n, |_, _| rng.next());

        let mut out = start.clone();
        mass.subtract_product(&v, &mut out);
        assert_abs_diff_eq!(out, &start - &full * &v, epsilon = 1e-13);
        let mut out = start.clone();
        mass.subtract_block_product(&v, &mut out);
        assert_abs_diff_eq!(out, &start - &blocks * &v, epsilon = 1e-13);

        // T^T B T into the leading dof x dof block of a larger matrix; the rest untouched.
        let dof = 5;
        let tangent = DMatrix::from_fn(n, dof, |_, _| rng.next());
        let before = DMatrix::from_fn(dof + 2, dof + 2, |_, _| rng.next());
        let mut after = before.clone();
        mass.add_block_projection(&tangent.as_view(), &mut after);
        let mut expected = before.clone();
        let projected = tangent.transpose() * &blocks * &tangent;
        let mut leading = expected.view_mut((0, 0), (dof, dof));
        leading += projected;
        assert_abs_diff_eq!(after, expected, epsilon = 1e-13);
    }
}

/// A free body's state: its angular momentum about the centre of mass in global axes,
/// `A J' omega'`, with `A` and `omega'` from quaternion algebra.
fn angular_momentum(inertia: &Matrix3<f64>, x: &DVector<f64>, xd: &DVector<f64>) -> Vector3<f64> {
    let (e, ed) = (
        x.fixed_rows::<4>(3).into_owned(),
        xd.fixed_rows::<4>(3).into_owned(),
    );
    reference_rotation(&e) * (inertia * body_rate(&e, &ed))
}

#[test]
fn free_body_conserves_energy_angular_momentum_and_norm() {
    let mut rng = Rng::new(204);
    let inertia = random_inertia(&mut rng);
    let mass = 2.0;
    let mechanism = Arc::new(Mechanism::new(
        vec![rigid_body("free", mass, inertia)],
        vec![],
        vec![],
        GRAVITY,
    ));
    let e0 = unit_quaternion(&mut rng);
    let omega0 = Vector3::new(1.0, -2.0, 0.7);
    // ed = (0, omega) e / 2: the rate of e turned by omega in global axes.
    let rates = Quaternion::from_imag(omega0) * quaternion(&e0) * 0.5;
    let (r0, v0) = (Vector3::new(0.1, -0.2, 0.3), Vector3::new(0.5, 0.2, 1.0));
    let x0 = DVector::from_column_slice(&[r0.x, r0.y, r0.z, e0[0], e0[1], e0[2], e0[3]]);
    let xd0 = DVector::from_column_slice(&[v0.x, v0.y, v0.z, rates.w, rates.i, rates.j, rates.k]);
    let settings = Settings {
        dt: 1e-3,
        ..Settings::default()
    };
    let mut sim = Simulation::new(mechanism.clone(), x0.clone(), xd0.clone(), settings)
        .expect("a free body starts");
    assert_eq!(
        (mechanism.n(), mechanism.m(), sim.generic_rank()),
        (7, 1, 1)
    );

    // The body falls 490 m in 10 s, so the total energy carries the round-off of m g z
    // (1e4 J); the rotational energy, conserved by itself in torque-free motion, does not.
    let rotational = |x: &DVector<f64>, xd: &DVector<f64>| {
        let w = body_rate(
            &x.fixed_rows::<4>(3).into_owned(),
            &xd.fixed_rows::<4>(3).into_owned(),
        );
        0.5 * w.dot(&(inertia * w))
    };
    let energy = |x: &DVector<f64>, xd: &DVector<f64>| {
        0.5 * mass * xd.rows(0, 3).norm_squared() + rotational(x, xd) + mass * G * x[2]
    };
    let (energy0, rotational0) = (energy(&x0, &xd0), rotational(&x0, &xd0));
    let momentum0 = angular_momentum(&inertia, &x0, &xd0);
    let mut drift = [0.0f64; 5];
    let t_end = 10.0;
    while sim.time() < t_end - 1e-9 {
        sim.step().expect("step");
        let (x, xd, t) = (sim.positions(), sim.velocities(), sim.time());
        let parabola = r0 + v0 * t + Vector3::from(GRAVITY) * (0.5 * t * t);
        let now = [
            (rotational(x, xd) - rotational0).abs() / rotational0,
            (angular_momentum(&inertia, x, xd) - momentum0).norm() / momentum0.norm(),
            (x.rows(3, 4).norm() - 1.0).abs(),
            (x.rows(0, 3) - parabola).amax(),
            (energy(x, xd) - energy0).abs(),
        ];
        for (worst, value) in drift.iter_mut().zip(now) {
            *worst = worst.max(value);
        }
        let solver_energy = sim.energy();
        assert!(
            (solver_energy - energy(x, xd)).abs() < 1e-11,
            "the solver's energy {solver_energy} differs from the reference {}",
            energy(x, xd)
        );
    }
    let [rotation, momentum, norm, centre, total] = drift;
    println!(
        "free body, 10 s at dt 1e-3: rotational energy {rotation:.1e} (relative), angular \
         momentum {momentum:.1e} (relative), ||e| - 1| {norm:.1e}, centre off the parabola \
         {centre:.1e} m, total energy {total:.1e} J"
    );
    assert!(rotation < 1e-9, "rotational energy drift {rotation:e}");
    assert!(momentum < 1e-12, "angular momentum drift {momentum:e}");
    assert!(norm < 1e-13, "|e| - 1 = {norm:e}");
    assert!(
        centre < 1e-9,
        "centre of mass off the parabola by {centre:e} m"
    );
    assert!(
        total < 2e-8,
        "energy drift {total:e} J (round-off of m g z, 1e4 J)"
    );
}
