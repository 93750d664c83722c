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
//!   `|e|` are conserved;
//! - `scenes/slider_crank.ron`: a one-degree-of-freedom reduction in the crank angle derived
//!   and integrated here (RK4), the slider's travel from the geometry, the published extremes
//!   (Gonzalez, the IFToMM benchmark's reference solution, as quoted by Zhou et al. 2023,
//!   sect. 3.2);
//! - `scenes/spin_top.ron`: energy, the vertical angular momentum about the origin and the
//!   body spin are invariants of the top (derived where they are checked).

use std::sync::Arc;

use approx::assert_abs_diff_eq;
use nalgebra::{
    DMatrix, DVector, Matrix3, Matrix4, Quaternion, Rotation3, UnitQuaternion, Vector3, Vector4,
};
use singulab::model::{Body, BodyKind, Load, LoadKind, MassMatrix, Mechanism, rigid};
use singulab::solver::{Settings, Simulation};

use crate::common::scene;
use crate::rigid_kinematics::{
    body_rate, g_transpose_times, quaternion, rates_of, reference_rotation, rigid_body,
    tangent_rates, unit_quaternion,
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
        let energies = [mechanism.kinetic_energy(&x, &xd), -0.5 * xd.dot(&product)];
        for (what, value) in ["Mechanism::kinetic_energy", "xd.M xd / 2"]
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

/// `2 (0, tau) e` as a 4-vector: the generalised force of a torque `tau` (global axes) on the
/// Euler parameters, by virtual work: `omega = 2 imag(ed e*)`, and right multiplication by
/// `e*` is the transpose of that by `e`.
fn torque_force(e: &Vector4<f64>, tau: &Vector3<f64>) -> Vector4<f64> {
    let q = Quaternion::from_imag(*tau) * quaternion(e) * 2.0;
    Vector4::new(q.w, q.i, q.j, q.k)
}

// The generalised forces by their power: gravity and a force at the centre do work at rd, a
// torque at omega, and the quadratic velocity force none (G(ed) ed = 0). The push torque of a
// motion `c` is the torque whose generalised force is `M_e c_e a`; the angular velocity in the
// CSV (`body_velocity`) is omega in global axes; `ed = lambda e + E^T omega / 2` in the
// velocity coordinates.
#[test]
fn forces_torques_and_velocity_coordinates_of_a_rigid_body() {
    let mut rng = Rng::new(205);
    let (force, tau) = ([0.3, -1.2, 0.8], [0.5, 0.25, -2.0]);
    let loads = vec![
        Load {
            body: 0,
            kind: LoadKind::Force(force),
            window: None,
        },
        Load {
            body: 0,
            kind: LoadKind::SpatialTorque(tau),
            window: None,
        },
    ];
    let inertia = random_inertia(&mut rng);
    let mechanism = Mechanism::new(vec![rigid_body("b", 1.7, inertia)], vec![], loads, GRAVITY);
    let mut worst = 0.0f64;
    for _ in 0..50 {
        let (x, xd) = random_motion(&mut rng, &mechanism);
        let (e, ed) = (
            x.fixed_rows::<4>(3).into_owned(),
            xd.fixed_rows::<4>(3).into_owned(),
        );
        let omega = reference_rotation(&e) * body_rate(&e, &ed);
        let mut f = DVector::zeros(7);
        mechanism.forces(0.0, &x, &xd, &[], &mut f);
        let weight = Vector3::from(GRAVITY) * 1.7;
        let power = (Vector3::from(force) + weight).dot(&xd.fixed_rows::<3>(0))
            + Vector3::from(tau).dot(&omega);
        let error = (f.dot(&xd) - power).abs();
        assert!(error < 1e-13, "power of the forces off by {error:e}");
        worst = worst.max(error);

        let mut velocity = [0.0; 6];
        mechanism.body_velocity(0, &x, &xd, &mut velocity);
        assert_abs_diff_eq!(&velocity[3..], omega.as_slice(), epsilon = 1e-14);

        let (column, acceleration) = (DVector::from_fn(7, |_, _| rng.next()), 1.3);
        let push = Vector3::from(
            mechanism
                .push_torque(0, &x, &column, acceleration)
                .expect("rigid"),
        );
        let column_e = column.fixed_rows::<4>(3).into_owned();
        let wanted = reference_g(&e).transpose()
            * inertia
            * reference_g(&e)
            * column_e
            * (4.0 * acceleration);
        assert_abs_diff_eq!(torque_force(&e, &push), wanted, epsilon = 1e-13);

        // v = (rd, lambda, omega) to xd, and A W v = A xd.
        let v = DVector::from_fn(7, |_, _| rng.next());
        let mut rates = v.clone();
        mechanism.from_velocity_coordinates(&x, &mut rates);
        let rates_e = rates.fixed_rows::<4>(3).into_owned();
        assert_abs_diff_eq!(rates_e.dot(&e), v[3], epsilon = 1e-14);
        let turning = reference_rotation(&e) * body_rate(&e, &rates_e);
        assert_abs_diff_eq!(turning, v.fixed_rows::<3>(4).into_owned(), epsilon = 1e-14);
        let mut a = DMatrix::from_fn(3, 7, |_, _| rng.next());
        let direct = &a * &rates;
        mechanism.jacobian_in_velocity_coordinates(&x, &mut a);
        assert_abs_diff_eq!(&a * &v, direct, epsilon = 1e-14);
    }
    println!("generalised forces against their power: {worst:.1e}");
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
    let (inertia, mass) = (random_inertia(&mut rng), 2.0);
    let mechanism = Mechanism::new(
        vec![rigid_body("free", mass, inertia)],
        vec![],
        vec![],
        GRAVITY,
    );
    let (r0, v0) = (Vector3::new(0.1, -0.2, 0.3), Vector3::new(0.5, 0.2, 1.0));
    let (mut x0, mut xd0) = (DVector::zeros(7), DVector::zeros(7));
    let axes = reference_rotation(&unit_quaternion(&mut rng));
    let omega0 = Vector3::new(1.0, -2.0, 0.7);
    set_body((&mut x0, &mut xd0), 0, (r0, axes), (v0, omega0));
    let settings = Settings {
        dt: 1e-3,
        ..Settings::default()
    };
    let mut sim = Simulation::new(Arc::new(mechanism), x0.clone(), xd0.clone(), settings)
        .expect("a free body starts");
    assert_eq!(
        (sim.mechanism().n(), sim.mechanism().m(), sim.generic_rank()),
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

// ---------------------------------------------------------------------------------------------
// The IFToMM spatial slider-crank (Zhou et al. 2023, sect. 3.2) reduced to its crank angle.
//
// Geometry: the crank turns by theta about +x at A = (0, 0.1, 0.12), B = A + 0.08 (0, -sin,
// cos); C = (xc, 0, 0) with |BC| = 0.3, xc > 0; the rod's axis u = (C - B) / 0.3 and its cross
// arm a = x × u / |x × u| (perpendicular to the slider's arm, global x, and to the rod) fix
// the rod's orientation; the slider translates. With the rod's inertia symmetric about its
// axis (J_t = 4e-3 across, J_a = 4e-4 along), its kinetic energy per unit theta-rate squared is
// J_t |u × u'|^2 + J_a s^2, with s = omega.u the spin, read off the arm:
// s = a'.(u × a) = (x × u').(u × a) / |x × u|. The crank turns about its body x
// (J = 1e-4). So, with ' = d/dtheta, M(theta) = sum m |r'|^2 + 1e-4 + J_t |u × u'|^2 + J_a s^2,
// V(theta) = g (m_crank z_crank + m_rod z_rod), and Lagrange's equation of
// L = M theta_dot^2 / 2 - V is theta_ddot = (-V' - M' theta_dot^2 / 2) / M.

const CRANK: (f64, f64) = (0.12, 1e-4);
const ROD: (f64, f64, f64) = (0.5, 4e-3, 4e-4);
const SLIDER_MASS: f64 = 2.0;
const ROD_LENGTH: f64 = 0.3;
const CRANK_LENGTH: f64 = 0.08;
const PIVOT: Vector3<f64> = Vector3::new(0.0, 0.1, 0.12);

/// The positions and their theta-derivatives of the crank's free end `B`, the slider `C` and
/// the rod's axis and arm at crank angle `theta`.
struct SliderCrankPose {
    b: (Vector3<f64>, Vector3<f64>),
    c: (Vector3<f64>, Vector3<f64>),
    axis: (Vector3<f64>, Vector3<f64>),
    /// The rod's spin about its axis per unit theta.
    spin: f64,
}

fn slider_crank_pose(theta: f64) -> SliderCrankPose {
    let (s, c) = theta.sin_cos();
    let b = PIVOT + Vector3::new(0.0, -s, c) * CRANK_LENGTH;
    let db = Vector3::new(0.0, -c, -s) * CRANK_LENGTH;
    let xc = (ROD_LENGTH * ROD_LENGTH - b.y * b.y - b.z * b.z).sqrt();
    let dxc = -(b.y * db.y + b.z * db.z) / xc;
    let (point_c, dc) = (Vector3::new(xc, 0.0, 0.0), Vector3::new(dxc, 0.0, 0.0));
    let u = (point_c - b) / ROD_LENGTH;
    let du = (dc - db) / ROD_LENGTH;
    let across = Vector3::x().cross(&u);
    let arm = across / across.norm();
    let spin = Vector3::x().cross(&du).dot(&u.cross(&arm)) / across.norm();
    SliderCrankPose {
        b: (b, db),
        c: (point_c, dc),
        axis: (u, du),
        spin,
    }
}

/// `M(theta)`: twice the kinetic energy per unit crank rate squared.
fn generalized_mass(theta: f64) -> f64 {
    let pose = slider_crank_pose(theta);
    let crank_centre_rate = pose.b.1 * 0.5;
    let rod_centre_rate = (pose.b.1 + pose.c.1) * 0.5;
    let (u, du) = pose.axis;
    CRANK.0 * crank_centre_rate.norm_squared()
        + CRANK.1
        + ROD.0 * rod_centre_rate.norm_squared()
        + ROD.1 * u.cross(&du).norm_squared()
        + ROD.2 * pose.spin * pose.spin
        + SLIDER_MASS * pose.c.1.norm_squared()
}

/// `V(theta)` and `V'(theta)` (the slider stays at z = 0).
fn potential(theta: f64) -> (f64, f64) {
    let (s, c) = theta.sin_cos();
    let crank_z = PIVOT.z + 0.5 * CRANK_LENGTH * c;
    let rod_z = 0.5 * (PIVOT.z + CRANK_LENGTH * c);
    let v = G * (CRANK.0 * crank_z + ROD.0 * rod_z);
    let dv = -G * (CRANK.0 * 0.5 + ROD.0 * 0.5) * CRANK_LENGTH * s;
    (v, dv)
}

/// `(theta_dot, theta_ddot)` from Lagrange's equation; `M'` by the four-point stencil of the
/// closed-form `M` (step 1e-3: truncation and round-off near 1e-13 relative).
fn crank_rates(state: [f64; 2]) -> [f64; 2] {
    let [theta, rate] = state;
    let h = 1e-3;
    let dm = (generalized_mass(theta - 2.0 * h) - 8.0 * generalized_mass(theta - h)
        + 8.0 * generalized_mass(theta + h)
        - generalized_mass(theta + 2.0 * h))
        / (12.0 * h);
    let (_, dv) = potential(theta);
    [
        rate,
        (-dv - 0.5 * dm * rate * rate) / generalized_mass(theta),
    ]
}

/// The reduced model integrated by classical RK4 (fixed step `h`).
struct CrankReference {
    t: f64,
    state: [f64; 2],
    h: f64,
}

impl CrankReference {
    fn advance_to(&mut self, t: f64) {
        while self.t < t - 1e-12 {
            let h = self.h.min(t - self.t);
            let at = |s: [f64; 2], k: [f64; 2], f: f64| [s[0] + f * k[0], s[1] + f * k[1]];
            let k1 = crank_rates(self.state);
            let k2 = crank_rates(at(self.state, k1, 0.5 * h));
            let k3 = crank_rates(at(self.state, k2, 0.5 * h));
            let k4 = crank_rates(at(self.state, k3, h));
            for i in 0..2 {
                self.state[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            self.t += h;
        }
    }

    fn slider_x(&self) -> f64 {
        slider_crank_pose(self.state[0]).c.0.x
    }

    fn energy(&self) -> f64 {
        let [theta, rate] = self.state;
        0.5 * generalized_mass(theta) * rate * rate + potential(theta).0
    }
}

/// Euler parameters of a rotation matrix (nalgebra).
fn parameters_of(rotation: Matrix3<f64>) -> Vector4<f64> {
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rotation));
    Vector4::new(q.w, q.i, q.j, q.k)
}

/// Writes a rigid body's pose and velocity at `offset`.
fn set_body(
    state: (&mut DVector<f64>, &mut DVector<f64>),
    offset: usize,
    pose: (Vector3<f64>, Matrix3<f64>),
    velocity: (Vector3<f64>, Vector3<f64>),
) {
    let e = parameters_of(pose.1);
    state.0.fixed_rows_mut::<3>(offset).copy_from(&pose.0);
    state.0.fixed_rows_mut::<4>(offset + 3).copy_from(&e);
    state.1.fixed_rows_mut::<3>(offset).copy_from(&velocity.0);
    state
        .1
        .fixed_rows_mut::<4>(offset + 3)
        .copy_from(&rates_of(&e, &velocity.1));
}

/// What a slider-crank run measured.
#[derive(Debug, Default)]
struct SliderCrankRun {
    /// Largest |x_slider - reference| over the first 5 s.
    against_reference: f64,
    travel: (f64, f64),
    /// Local extremes of the slider's x (parabola through three steps): time, value.
    extremes: Vec<(f64, f64)>,
    /// Largest |E - E0| / |E0| and ||e| - 1| over the run.
    energy: f64,
    norm: f64,
    steps: usize,
}

fn run_slider_crank(
    sim: &mut Simulation,
    t_end: f64,
    reference: &mut CrankReference,
) -> SliderCrankRun {
    let mechanism = sim.mechanism().clone();
    let slider = mechanism.bodies()[mechanism.body_index("slider").expect("slider")].offset;
    let energy0 = sim.energy();
    let mut run = SliderCrankRun {
        travel: (f64::INFINITY, f64::NEG_INFINITY),
        ..SliderCrankRun::default()
    };
    let mut samples = vec![(0.0, sim.positions()[slider])];
    while sim.time() < t_end - 1e-9 {
        sim.step().expect("step");
        let (t, x) = (sim.time(), sim.positions());
        run.steps += 1;
        if t <= 5.0 + 1e-9 {
            reference.advance_to(t);
            run.against_reference = run
                .against_reference
                .max((x[slider] - reference.slider_x()).abs());
        }
        run.travel = (run.travel.0.min(x[slider]), run.travel.1.max(x[slider]));
        run.energy = run
            .energy
            .max((sim.energy() - energy0).abs() / energy0.abs());
        for body in mechanism.bodies() {
            run.norm = run
                .norm
                .max((x.rows(body.offset + 3, 4).norm() - 1.0).abs());
        }
        samples.push((t, x[slider]));
    }
    for w in samples.windows(3) {
        let [(t0, x0), (t1, x1), (_, x2)] = [w[0], w[1], w[2]];
        if (x1 - x0) * (x2 - x1) < 0.0 || (x1 - x0 != 0.0 && x2 == x1) {
            // Vertex of the parabola through three equally spaced samples.
            let h = t1 - t0;
            let curvature = x0 - 2.0 * x1 + x2;
            let shift = 0.5 * h * (x0 - x2) / curvature;
            run.extremes
                .push((t1 + shift, x1 - (x2 - x0) * (x2 - x0) / (8.0 * curvature)));
        }
    }
    run
}

/// The published extremes of the slider's x (Gonzalez, the benchmark's reference solution,
/// quoted by Zhou et al. 2023, sect. 3.2): time, value; maximum first.
const PUBLISHED_EXTREMES: [(f64, f64); 4] = [
    (0.27, 0.290059),
    (0.50, 0.184953),
    (0.85, 0.290120),
    (1.08, 0.184955),
];

/// The slider's travel from the geometry: xc^2 = 0.0592 + 0.016 sin - 0.0192 cos, whose
/// extremes are 0.0592 -/+ sqrt(0.016^2 + 0.0192^2).
fn geometric_travel() -> (f64, f64) {
    let amplitude = (0.016f64.powi(2) + 0.0192f64.powi(2)).sqrt();
    ((0.0592 - amplitude).sqrt(), (0.0592 + amplitude).sqrt())
}

fn check_slider_crank(what: &str, sim: &mut Simulation, dt: f64) {
    let mut reference = CrankReference {
        t: 0.0,
        state: [0.0, 6.0],
        h: (dt / 4.0).min(2.5e-5),
    };
    let reference_energy0 = reference.energy();
    let energy0 = sim.energy();
    let run = run_slider_crank(sim, 10.0, &mut reference);
    let (low, high) = geometric_travel();
    println!(
        "{what}, {} steps of {dt:e} s: slider x against the 1-dof reduction (5 s) {:.2e} m; \
         travel {:.7} .. {:.7} m (geometry {low:.7} .. {high:.7}); extremes {:?}; energy drift \
         {:.2e} (relative, 10 s); ||e| - 1| {:.1e}; E0 {energy0:.15} J (reduction \
         {reference_energy0:.15} J); reduction's own energy drift {:.1e}",
        run.steps,
        run.against_reference,
        run.travel.0,
        run.travel.1,
        &run.extremes[..4],
        run.energy,
        run.norm,
        (reference.energy() - reference_energy0).abs() / reference_energy0
    );
    assert!(
        (energy0 - reference_energy0).abs() < 1e-12 * energy0,
        "{what}: initial energy"
    );
    assert!(
        run.against_reference < 1e-6,
        "{what}: slider off the reduction by {:e} m",
        run.against_reference
    );
    assert!(
        run.travel.0 >= 0.1849519 - 1e-7 && run.travel.1 <= 0.2901600 + 1e-7,
        "{what}: travel {:?}",
        run.travel
    );
    for (found, published) in run.extremes.iter().zip(PUBLISHED_EXTREMES) {
        assert!(
            (found.0 - published.0).abs() <= 0.01 && (found.1 - published.1).abs() <= 2e-4,
            "{what}: extreme {found:?}, published {published:?}"
        );
    }
    assert!(run.energy < 1e-8, "{what}: energy drift {:e}", run.energy);
    assert!(run.norm < 1e-12, "{what}: |e| - 1 up to {:e}", run.norm);
}

// ---------------------------------------------------------------------------------------------
// The spin top (Zhou et al. 2023, sect. 3.4, after Haug): its tip on the unit sphere about the
// origin. Gravity acts at the centre and is vertical; the constraint force acts at the tip
// along the tip's position, so neither has a moment about the vertical through the origin:
// L_z = m (r × rd)_z + (A J' omega')_z is conserved. In body axes the tip force's moment about
// the centre, u0 × F with u0 = (0, 0, -1), has no third component, and J'_1 = J'_2, so Euler's
// third equation is J'_3 omegad'_3 = 0: the body spin is conserved.

const TOP_MASS: f64 = 30.0;
const TOP_INERTIA: [f64; 3] = [90.0, 90.0, 30.0];
const TIP: Vector3<f64> = Vector3::new(0.0, 0.0, -1.0);

/// The top's invariants at a state, from quaternion algebra: energy, L_z about the origin,
/// the body spin omega'_3, and the tip's distance from the origin minus one.
fn top_invariants(x: &DVector<f64>, xd: &DVector<f64>) -> [f64; 4] {
    let (e, ed) = (
        x.fixed_rows::<4>(3).into_owned(),
        xd.fixed_rows::<4>(3).into_owned(),
    );
    let (r, rd) = (
        x.fixed_rows::<3>(0).into_owned(),
        xd.fixed_rows::<3>(0).into_owned(),
    );
    let inertia = Matrix3::from_diagonal(&Vector3::from(TOP_INERTIA));
    let omega = body_rate(&e, &ed);
    let rotation = reference_rotation(&e);
    let energy = 0.5 * TOP_MASS * rd.norm_squared()
        + 0.5 * omega.dot(&(inertia * omega))
        + TOP_MASS * G * r.z;
    let momentum = TOP_MASS * r.cross(&rd).z + (rotation * (inertia * omega)).z;
    [energy, momentum, omega.z, (r + rotation * TIP).norm() - 1.0]
}

fn check_spin_top(what: &str, sim: &mut Simulation, dt: f64) {
    let start = top_invariants(sim.positions(), sim.velocities());
    let mut drift = [0.0f64; 4];
    let mut norm = 0.0f64;
    let mut steps = 0;
    while sim.time() < 10.0 - 1e-9 {
        sim.step().expect("step");
        steps += 1;
        let now = top_invariants(sim.positions(), sim.velocities());
        for k in 0..3 {
            drift[k] = drift[k].max((now[k] - start[k]).abs() / start[k].abs());
        }
        drift[3] = drift[3].max(now[3].abs());
        norm = norm.max((sim.positions().rows(3, 4).norm() - 1.0).abs());
    }
    println!(
        "{what}, {steps} steps of {dt:e} s: energy {:.2e}, L_z {:.2e}, omega'_3 {:.2e} (relative \
         drifts over 10 s; E0 {:.6} J, L_z0 {:.6}, omega'_3 {:.6}); tip off the sphere {:.1e} m; \
         ||e| - 1| {norm:.1e}",
        drift[0], drift[1], drift[2], start[0], start[1], start[2], drift[3]
    );
    assert!(
        start[3].abs() < 1e-14,
        "{what}: the tip starts off the sphere"
    );
    for (k, name) in ["energy", "L_z", "omega'_3"].iter().enumerate() {
        assert!(drift[k] < 1e-8, "{what}: {name} drifts by {:e}", drift[k]);
    }
    assert!(
        drift[3] < 1e-10,
        "{what}: the tip leaves the sphere by {:e} m",
        drift[3]
    );
    assert!(norm < 1e-12, "{what}: |e| - 1 up to {norm:e}");
}

// ---------------------------------------------------------------------------------------------
// The shipped scenes, at their own settings.

#[test]
fn slider_crank_scene_follows_its_one_degree_of_freedom_reduction() {
    let sc = scene("slider_crank");
    let mut sim = sc.simulation().expect("slider_crank.ron starts");
    let n = sc.mechanism.n();
    let sizes = (
        n,
        sc.mechanism.m(),
        sim.generic_rank(),
        n - sim.generic_rank(),
    );
    assert_eq!(sizes, (21, 20, 20, 1), "slider_crank.ron: n, m, rank, dof");
    check_slider_crank("slider_crank.ron", &mut sim, sc.settings.dt);
}

#[test]
fn spin_top_scene_conserves_its_invariants() {
    let sc = scene("spin_top");
    let mut sim = sc.simulation().expect("spin_top.ron starts");
    let n = sc.mechanism.n();
    let sizes = (
        n,
        sc.mechanism.m(),
        sim.generic_rank(),
        n - sim.generic_rank(),
    );
    assert_eq!(sizes, (7, 2, 2, 5), "spin_top.ron: n, m, rank, dof");
    // The stated initial state (Zhou et al. 2023, sect. 3.4): E0 = m g +
    // m |rd|^2 / 2 + omega'.J' omega' / 2, L_z0 = J'_3 omega'_3, omega'_3 = 0.3.
    let start = top_invariants(sim.positions(), sim.velocities());
    let expected = [
        TOP_MASS * G + 0.15 + 0.5 * (90.0 * 0.01 * 2.0 + 30.0 * 0.09),
        9.0,
        0.3,
    ];
    assert_abs_diff_eq!(&start[..3], &expected[..], epsilon = 1e-12);
    check_spin_top("spin_top.ron", &mut sim, sc.settings.dt);
}
