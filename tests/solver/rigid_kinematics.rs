//! The spatial rigid body's kinematics (`model::rigid`) and the spatial constraints
//! (`model::spatial`, the normalisation rows) against references independent of the code under
//! test, at seeded random states.
//!
//! References:
//! - rotations: quaternion algebra (Hamilton's product, nalgebra's `Quaternion`). A body-fixed
//!   vector turns as `e s e*`, which is `|e|^2 R(e / |e|) s` off the unit sphere (the rotation
//!   `A(e)` is a homogeneous quadratic); nalgebra's `UnitQuaternion` gives `R`;
//! - angular velocities: the skew part of `(dA/dt) A^T` (global axes) by central differences
//!   of nalgebra's rotation along `e(t) = (e + t ed) / |e + t ed|`, whose rate at `t = 0` is
//!   `ed` when `e.ed = 0`; body axes by `A^T`;
//! - Jacobians: central differences along one coordinate with the four-point stencil
//!   `(f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h`, exact for polynomials of degree 4; the residuals
//!   are such polynomials (`A(e) s` is quadratic in `e`, and a primitive multiplies at most two
//!   turned vectors), so the step only sets the round-off;
//! - `dA/dt`: the same stencil on `jacobian` along `x(s) = x + s xd` (cubic in `s`);
//! - `gamma`: along the same line `xdd = 0`, so `c'' = (dA/dt) xd = -gamma`, with the five-point
//!   stencil `(-f(-2h) + 16 f(-h) - 30 f(0) + 16 f(h) - f(2h)) / 12h^2` (exact to degree 5), and
//!   `-(dA/dt) xd` with `dA/dt` from the differences above;
//! - residuals: each primitive written out here from its definition (Nikravesh 1988, sect. 7.3).

use approx::assert_abs_diff_eq;
use nalgebra::{DMatrix, DVector, Matrix3, Quaternion, UnitQuaternion, Vector3, Vector4};
use singulab::model::rigid;
use singulab::model::{
    Attachment, Body, BodyKind, Joint, JointKind, Mechanism, Primitive, SpatialJoint, SpatialKind,
};

use crate::test_rng::Rng;

const G: f64 = 9.81;
const GRAVITY: [f64; 3] = [0.0, 0.0, -G];

/// Euler parameters as a quaternion `(e0; e1, e2, e3)`.
pub fn quaternion(e: &Vector4<f64>) -> Quaternion<f64> {
    Quaternion::new(e[0], e[1], e[2], e[3])
}

/// `e s e*` (Hamilton's product): `A(e) s` for any `e`.
pub fn turned(e: &Vector4<f64>, s: &Vector3<f64>) -> Vector3<f64> {
    let q = quaternion(e);
    (q * Quaternion::from_imag(*s) * q.conjugate()).imag()
}

/// The rotation of the unit quaternion along `e` (nalgebra), times `|e|^2`.
pub fn reference_rotation(e: &Vector4<f64>) -> Matrix3<f64> {
    let unit = UnitQuaternion::from_quaternion(quaternion(e));
    unit.to_rotation_matrix().into_inner() * e.norm_squared()
}

/// Body angular velocity of a unit quaternion moving at `ed`: `e* ed = (0, omega' / 2)`
/// (from `ed = e (0, omega') / 2`, the rate of `e` turned by `omega'` in body axes).
pub fn body_rate(e: &Vector4<f64>, ed: &Vector4<f64>) -> Vector3<f64> {
    (quaternion(e).conjugate() * quaternion(ed)).imag() * 2.0
}

/// `G(e)^T v` as a quaternion product: `G v = imag(e* v)` for every 4-vector `v`, and
/// left multiplication by `e*` is the transpose of that by `e`, so `G^T w = e (0, w)`.
pub fn g_transpose_times(e: &Vector4<f64>, w: &Vector3<f64>) -> Vector4<f64> {
    let p = quaternion(e) * Quaternion::from_imag(*w);
    Vector4::new(p.w, p.i, p.j, p.k)
}

/// A unit quaternion from the generator.
pub fn unit_quaternion(rng: &mut Rng) -> Vector4<f64> {
    loop {
        let e = Vector4::from_fn(|_, _| rng.next());
        if e.norm() > 0.2 {
            return e.normalize();
        }
    }
}

/// Rates tangent to the unit sphere at unit `e` (`e.ed = 0`).
pub fn tangent_rates(rng: &mut Rng, e: &Vector4<f64>) -> Vector4<f64> {
    let v = Vector4::from_fn(|_, _| rng.next());
    v - e * e.dot(&v)
}

fn vector3(rng: &mut Rng) -> Vector3<f64> {
    Vector3::from_fn(|_, _| rng.next())
}

/// Global angular velocity of the unit quaternion moving at `ed` (`e.ed = 0`): the skew part
/// of `(dA/dt) A^T`, `dA/dt` by central differences of nalgebra's rotation.
fn finite_difference_rate(e: &Vector4<f64>, ed: &Vector4<f64>) -> Vector3<f64> {
    let rotation = |t: f64| reference_rotation(&(e + ed * t).normalize());
    let w = derivative(1e-4, rotation) * rotation(0.0).transpose();
    let skew = (w - w.transpose()) * 0.5;
    Vector3::new(skew[(2, 1)], skew[(0, 2)], skew[(1, 0)])
}

#[test]
fn rotation_is_the_quaternion_rotation_and_orthonormal() {
    let mut rng = Rng::new(101);
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..200 {
        let e = unit_quaternion(&mut rng);
        let a = rigid::rotation_matrix(&e);
        let orthonormality = (a.transpose() * a - Matrix3::identity()).amax();
        let determinant = (a.determinant() - 1.0).abs();
        let against_nalgebra = (a - reference_rotation(&e)).amax();
        assert!(orthonormality < 1e-14, "A^T A - I = {orthonormality:e}");
        assert!(determinant < 1e-14, "det A - 1 = {determinant:e}");
        assert!(against_nalgebra < 1e-14, "A - R = {against_nalgebra:e}");
        // Off the unit sphere `rotate` is still `e s e*`.
        let off = e * rng.uniform(0.5, 1.5);
        let s = vector3(&mut rng);
        assert_abs_diff_eq!(rigid::rotate(&off, &s), turned(&off, &s), epsilon = 1e-14);
        worst = (
            worst.0.max(orthonormality),
            worst.1.max(determinant),
            worst.2.max(against_nalgebra),
        );
    }
    println!(
        "rotation: |A^T A - I| {:.1e}, |det A - 1| {:.1e}, |A - R_nalgebra| {:.1e}",
        worst.0, worst.1, worst.2
    );
}

#[test]
fn rotate_jacobian_is_the_derivative_of_rotate() {
    let mut rng = Rng::new(102);
    let h = 1e-2;
    let mut worst = 0.0f64;
    for trial in 0..200 {
        let mut e = unit_quaternion(&mut rng);
        if trial % 2 == 1 {
            e *= rng.uniform(0.5, 1.5);
        }
        let s = vector3(&mut rng) * 2.0;
        let d = rigid::rotate_jacobian(&e, &s);
        for k in 0..4 {
            let at = |t: f64| {
                let mut moved = e;
                moved[k] += t;
                turned(&moved, &s)
            };
            let column = (at(-2.0 * h) - at(-h) * 8.0 + at(h) * 8.0 - at(2.0 * h)) / (12.0 * h);
            let error = (d.column(k) - column).amax();
            assert!(error < 1e-13, "d(A s)/de_{k} off by {error:e} at e = {e:?}");
            worst = worst.max(error);
        }
    }
    println!("rotate_jacobian against differences of e s e*: {worst:.1e}");
}

#[test]
fn angular_velocities_are_the_rotation_rate() {
    let mut rng = Rng::new(103);
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..200 {
        let e = unit_quaternion(&mut rng);
        let ed = tangent_rates(&mut rng, &e);
        let omega = finite_difference_rate(&e, &ed);
        let body = reference_rotation(&e).transpose() * omega;
        let global_error = (rigid::global_angular_velocity(&e, &ed) - omega).amax();
        let body_error = (rigid::body_angular_velocity(&e, &ed) - body).amax();
        // The matrices themselves, as the mass block uses them.
        assert_abs_diff_eq!(rigid::e_matrix(&e) * ed * 2.0, omega, epsilon = 1e-11);
        assert_abs_diff_eq!(rigid::g_matrix(&e) * ed * 2.0, body, epsilon = 1e-11);
        assert!(
            global_error < 1e-11,
            "omega = 2 E ed off by {global_error:e}"
        );
        assert!(body_error < 1e-11, "omega' = 2 G ed off by {body_error:e}");
        // And back: the rates of a global angular velocity, tangent to the unit sphere.
        let w = vector3(&mut rng) * 2.0;
        let rates = rigid::rates_of_global_angular_velocity(&e, &w);
        assert!(rates.dot(&e).abs() < 1e-15, "e.ed = {:e}", rates.dot(&e));
        let inverse_error = (finite_difference_rate(&e, &rates) - w).amax();
        assert!(
            inverse_error < 1e-11,
            "rates of omega off by {inverse_error:e}"
        );
        worst = (
            worst.0.max(global_error),
            worst.1.max(body_error),
            worst.2.max(inverse_error),
        );
    }
    println!(
        "angular velocity against (dA/dt) A^T: global {:.1e}, body {:.1e}, inverse {:.1e}",
        worst.0, worst.1, worst.2
    );
}

// ---------------------------------------------------------------------------------------------
// The constraints of a mechanism of two rigid bodies and a spatial point mass.

pub fn rigid_body(name: &str, mass: f64, inertia: Matrix3<f64>) -> Body {
    Body {
        name: name.into(),
        kind: BodyKind::Rigid { inertia },
        mass,
        offset: 0,
    }
}

pub fn spatial(name: &str, kind: SpatialKind) -> Joint {
    Joint {
        name: name.into(),
        kind: JointKind::Spatial(SpatialJoint::new(kind)),
        row: 0,
    }
}

/// A joint holding one primitive only (its `kind` is only for drawing).
fn primitive(name: &str, p: Primitive) -> Joint {
    let kind = match p {
        Primitive::Coincidence { a, b } | Primitive::Dot1 { a, b } => {
            SpatialKind::Spherical { a, b }
        }
        Primitive::Dot2 { axis, from, .. } => SpatialKind::Spherical { a: axis, b: from },
        Primitive::Distance { a, b, length } => SpatialKind::Distance { a, b, length },
    };
    Joint {
        name: name.into(),
        kind: JointKind::Spatial(SpatialJoint {
            kind,
            primitives: vec![p],
        }),
        row: 0,
    }
}

/// Bodies 0 and 1 rigid, 2 a spatial point mass; `None` the ground.
const B0: Option<usize> = Some(0);
const B1: Option<usize> = Some(1);
const POINT: Option<usize> = Some(2);
const GROUND: Option<usize> = None;

fn attach(rng: &mut Rng, body: Option<usize>) -> Attachment {
    let local = if body == POINT {
        Vector3::zeros()
    } else {
        vector3(rng)
    };
    Attachment { body, local }
}

/// Every primitive alone: its name and the bodies of its attachments (`a`, `b`; for dot-2
/// `axis`, `from`, `to`).
const PRIMITIVES: [(&str, [Option<usize>; 3]); 11] = [
    ("coincidence b0-b1", [B0, B1, GROUND]),
    ("coincidence b1-ground", [B1, GROUND, GROUND]),
    ("coincidence b0-point", [B0, POINT, GROUND]),
    ("dot-1 b0-b1", [B0, B1, GROUND]),
    ("dot-1 ground-b1", [GROUND, B1, GROUND]),
    ("dot-2 b0 from b1 to b0", [B0, B1, B0]),
    ("dot-2 ground from b0 to b1", [GROUND, B0, B1]),
    ("dot-2 b1 from ground to point", [B1, GROUND, POINT]),
    ("distance b0-b1", [B0, B1, GROUND]),
    ("distance b1-ground", [B1, GROUND, GROUND]),
    ("distance point-b0", [POINT, B0, GROUND]),
];

fn random_primitive(rng: &mut Rng, name: &str, bodies: [Option<usize>; 3]) -> Primitive {
    let [a, b, c] = bodies.map(|body| attach(rng, body));
    match name.split(' ').next() {
        Some("coincidence") => Primitive::Coincidence { a, b },
        Some("dot-1") => Primitive::Dot1 { a, b },
        Some("dot-2") => Primitive::Dot2 {
            axis: a,
            from: b,
            to: c,
        },
        _ => Primitive::Distance {
            a,
            b,
            length: rng.uniform(0.5, 1.5),
        },
    }
}

/// Each joint kind between `a` and `b`, with random attachments.
fn random_joints(
    rng: &mut Rng,
    a: Option<usize>,
    b: Option<usize>,
) -> [(&'static str, SpatialKind); 5] {
    let mut at = |body| attach(rng, body);
    [
        ("spherical", SpatialKind::Spherical { a: at(a), b: at(b) }),
        (
            "revolute",
            SpatialKind::Revolute {
                a: at(a),
                b: at(b),
                axis_a: at(a),
                axis_b: at(b),
            },
        ),
        (
            "universal",
            SpatialKind::Universal {
                a: at(a),
                b: at(b),
                arm_a: at(a),
                arm_b: at(b),
            },
        ),
        (
            "translational",
            SpatialKind::Prismatic {
                a: at(a),
                b: at(b),
                axis_a: at(a),
                axis_b: at(b),
                lock_a: at(a),
                lock_b: at(b),
            },
        ),
        (
            "distance",
            SpatialKind::Distance {
                a: at(a),
                b: at(b),
                length: 0.9,
            },
        ),
    ]
}

/// Every primitive alone (between the bodies, to the ground, with the point mass) and every
/// joint kind between two rigid bodies and between a rigid body and the ground (either way
/// round), with random attachments.
fn test_mechanism(rng: &mut Rng) -> Mechanism {
    let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 2.5));
    let bodies = vec![
        rigid_body("b0", 1.5, inertia),
        rigid_body("b1", 0.7, inertia * 0.3),
        Body {
            name: "p".into(),
            kind: BodyKind::Point3,
            mass: 0.4,
            offset: 0,
        },
    ];
    let mut joints: Vec<Joint> = PRIMITIVES
        .iter()
        .map(|(name, on)| primitive(name, random_primitive(rng, name, *on)))
        .collect();
    for (between, a, b) in [
        ("b0-b1", B0, B1),
        ("b1-ground", B1, GROUND),
        ("ground-b0", GROUND, B0),
    ] {
        for (kind, joint) in random_joints(rng, a, b) {
            joints.push(spatial(&format!("{kind} {between}"), joint));
        }
    }
    Mechanism::new(bodies, joints, vec![], GRAVITY)
}

/// A random state: positions and rates in [-1, 1), Euler parameters of norm `e_norm`
/// (random in [0.5, 1.5) when `None`).
fn random_state(
    rng: &mut Rng,
    mechanism: &Mechanism,
    e_norm: Option<f64>,
) -> (DVector<f64>, DVector<f64>) {
    let n = mechanism.n();
    let mut x = DVector::from_fn(n, |_, _| rng.next());
    let xd = DVector::from_fn(n, |_, _| rng.next());
    for body in mechanism.bodies().iter().filter(|b| b.is_rigid()) {
        let norm = e_norm.unwrap_or_else(|| rng.uniform(0.5, 1.5));
        let e = unit_quaternion(rng) * norm;
        x.fixed_rows_mut::<4>(body.offset + 3).copy_from(&e);
    }
    (x, xd)
}

/// A body-fixed point (`is_point`) or vector of the state `x`, from quaternion algebra.
fn reference_position(
    mechanism: &Mechanism,
    at: &Attachment,
    is_point: bool,
    x: &DVector<f64>,
) -> Vector3<f64> {
    let Some(index) = at.body else {
        return at.local;
    };
    let body = &mechanism.bodies()[index];
    let o = body.offset;
    let r = Vector3::new(x[o], x[o + 1], x[o + 2]);
    let s = if body.is_rigid() {
        turned(&x.fixed_rows::<4>(o + 3).into_owned(), &at.local)
    } else {
        at.local
    };
    if is_point { r + s } else { s }
}

/// The residual of one primitive from its definition.
fn reference_residual(mechanism: &Mechanism, p: &Primitive, x: &DVector<f64>) -> Vec<f64> {
    let point = |a: &Attachment| reference_position(mechanism, a, true, x);
    let vector = |a: &Attachment| reference_position(mechanism, a, false, x);
    match p {
        Primitive::Coincidence { a, b } => (point(a) - point(b)).as_slice().to_vec(),
        Primitive::Dot1 { a, b } => vec![vector(a).dot(&vector(b))],
        Primitive::Dot2 { axis, from, to } => vec![vector(axis).dot(&(point(to) - point(from)))],
        Primitive::Distance { a, b, length } => {
            vec![(point(a) - point(b)).norm_squared() - length * length]
        }
    }
}

/// The four-point first derivative of `f` at 0 (exact for polynomials of degree 4).
fn derivative<T>(h: f64, f: impl Fn(f64) -> T) -> T
where
    T: std::ops::Sub<Output = T> + std::ops::Add<Output = T> + std::ops::Mul<f64, Output = T>,
{
    (f(-2.0 * h) - f(-h) * 8.0 + f(h) * 8.0 - f(2.0 * h)) * (1.0 / (12.0 * h))
}

/// The five-point second derivative of `f` at 0 (exact for polynomials of degree 5).
fn second_derivative<T>(h: f64, f: impl Fn(f64) -> T) -> T
where
    T: std::ops::Sub<Output = T> + std::ops::Add<Output = T> + std::ops::Mul<f64, Output = T>,
{
    (f(-h) * 16.0 + f(h) * 16.0 - f(-2.0 * h) - f(2.0 * h) - f(0.0) * 30.0) * (1.0 / (12.0 * h * h))
}

/// The row of the largest entry of `d` and its joint's name.
fn worst_row(mechanism: &Mechanism, d: &DMatrix<f64>) -> (f64, String) {
    let (mut value, mut row) = (0.0f64, 0);
    for i in 0..d.nrows() {
        let r = d.row(i).amax();
        if r > value {
            (value, row) = (r, i);
        }
    }
    (
        value,
        format!("row {row} ({})", mechanism.joint_of_row(row).name),
    )
}

fn residual_of(mechanism: &Mechanism, x: &DVector<f64>) -> DVector<f64> {
    let mut c = DVector::zeros(mechanism.m());
    mechanism.residual(0.0, x, &mut c);
    c
}

fn jacobian_of(mechanism: &Mechanism, x: &DVector<f64>) -> DMatrix<f64> {
    let mut a = DMatrix::zeros(mechanism.m(), mechanism.n());
    mechanism.jacobian(x, &mut a);
    a
}

#[test]
fn spatial_residuals_are_the_primitives_definitions() {
    let mut rng = Rng::new(104);
    let mechanism = test_mechanism(&mut rng);
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let (x, _) = random_state(&mut rng, &mechanism, None);
        let c = residual_of(&mechanism, &x);
        for joint in mechanism.joints() {
            let expected: Vec<f64> = match &joint.kind {
                JointKind::Spatial(s) => s
                    .primitives
                    .iter()
                    .flat_map(|p| reference_residual(&mechanism, p, &x))
                    .collect(),
                JointKind::Normalization { body } => {
                    let o = mechanism.bodies()[*body].offset + 3;
                    vec![x.rows(o, 4).norm_squared() - 1.0]
                }
                other => panic!("unexpected joint {other:?}"),
            };
            for (k, value) in expected.iter().enumerate() {
                let error = (c[joint.row + k] - value).abs();
                assert!(
                    error < 1e-13,
                    "{}: residual {k} off by {error:e}",
                    joint.name
                );
                worst = worst.max(error);
            }
        }
    }
    println!("spatial residuals against their definitions: {worst:.1e}");
}

#[test]
fn spatial_jacobian_rate_and_gamma_against_differences() {
    let mut rng = Rng::new(105);
    let mechanism = test_mechanism(&mut rng);
    let (m, n) = (mechanism.m(), mechanism.n());
    let mut worst = [0.0f64; 4];
    for trial in 0..40 {
        // Unit Euler parameters on even trials (the manifold), off it on odd ones.
        let norm = (trial % 2 == 0).then_some(1.0);
        let (x, xd) = random_state(&mut rng, &mechanism, norm);
        let h = 1e-2;

        let a = jacobian_of(&mechanism, &x);
        let mut by_differences = DMatrix::zeros(m, n);
        for j in 0..n {
            let column = derivative(h, |t| {
                let mut moved = x.clone();
                moved[j] += t;
                residual_of(&mechanism, &moved)
            });
            by_differences.set_column(j, &column);
        }
        let (error, row) = worst_row(&mechanism, &(&a - &by_differences));
        assert!(error < 1e-11, "trial {trial}: A off by {error:e} in {row}");
        worst[0] = worst[0].max(error);

        let mut adot = DMatrix::zeros(m, n);
        mechanism.jacobian_dot(&x, &xd, &mut adot);
        let adot_differences = derivative(h, |s| jacobian_of(&mechanism, &(&x + &xd * s)));
        let (error, row) = worst_row(&mechanism, &(&adot - &adot_differences));
        assert!(
            error < 1e-11,
            "trial {trial}: dA/dt off by {error:e} in {row}"
        );
        worst[1] = worst[1].max(error);

        let mut gamma = DVector::zeros(m);
        mechanism.gamma(0.0, &x, &xd, &mut gamma);
        let expected = -(&adot_differences * &xd);
        let (error, row) = worst_row(
            &mechanism,
            &DMatrix::from_column_slice(m, 1, (&gamma - &expected).as_slice()),
        );
        assert!(
            error < 1e-11,
            "trial {trial}: gamma + (dA/dt) xd off by {error:e} in {row}"
        );
        worst[2] = worst[2].max(error);

        // Along x(t) = x + t xd the acceleration is zero, so c'' = -gamma.
        let c2 = second_derivative(0.05, |t| residual_of(&mechanism, &(&x + &xd * t)));
        let (error, row) = worst_row(
            &mechanism,
            &DMatrix::from_column_slice(m, 1, (&gamma + &c2).as_slice()),
        );
        assert!(
            error < 1e-10,
            "trial {trial}: gamma + c'' off by {error:e} in {row}"
        );
        worst[3] = worst[3].max(error);
    }
    println!(
        "spatial constraints ({m} rows, {n} coordinates): A {:.1e}, dA/dt {:.1e}, \
         gamma vs -(dA/dt) xd {:.1e}, gamma vs -c'' {:.1e}",
        worst[0], worst[1], worst[2], worst[3]
    );
}

/// `ed = (0, omega) e / 2`: the rates of `e` turning at `omega` (global axes).
pub fn rates_of(e: &Vector4<f64>, omega: &Vector3<f64>) -> Vector4<f64> {
    let q = Quaternion::from_imag(*omega) * quaternion(e) * 0.5;
    Vector4::new(q.w, q.i, q.j, q.k)
}

// ---------------------------------------------------------------------------------------------
// Each joint kind between a rigid body and the ground, assembled at a random pose: the
// residual vanishes, the rows are independent (rank = rows + the normalisation row), and the
// motions the joint is meant to allow (Nikravesh 1988, sect. 7.3) are in the null space of A,
// so that they are all of it: spherical 3 (any turn about the joint point), revolute 1 (a turn
// about the axis), universal 2 (turns about either arm), translational 1 (a slide along the
// axis), distance 5 (any turn about the point, and slides across the line to the anchor).

/// A rigid body at a random pose and the ground, with the joint's global geometry.
struct Assembled {
    r: Vector3<f64>,
    e: Vector4<f64>,
    /// The joint point, the axis (or the body's arm) and a perpendicular (the ground's arm),
    /// in global axes.
    point: Vector3<f64>,
    axis: Vector3<f64>,
    across: Vector3<f64>,
}

impl Assembled {
    fn new(rng: &mut Rng) -> Self {
        let axis = vector3(rng).normalize();
        let across = axis.cross(&vector3(rng)).normalize();
        Self {
            r: vector3(rng),
            e: unit_quaternion(rng),
            point: vector3(rng),
            axis,
            across,
        }
    }

    /// A global point or direction in body axes.
    fn local_point(&self, p: Vector3<f64>) -> Attachment {
        let local = reference_rotation(&self.e).transpose() * (p - self.r);
        Attachment { body: B0, local }
    }

    fn local_vector(&self, v: Vector3<f64>) -> Attachment {
        let local = reference_rotation(&self.e).transpose() * v;
        Attachment { body: B0, local }
    }

    fn state(&self) -> DVector<f64> {
        DVector::from_iterator(7, self.r.iter().chain(self.e.iter()).copied())
    }

    /// The velocity of the body turning at `omega` about the joint point moving at `v`.
    fn motion(&self, v: Vector3<f64>, omega: Vector3<f64>) -> DVector<f64> {
        let rd = v + omega.cross(&(self.r - self.point));
        let ed = rates_of(&self.e, &omega);
        DVector::from_iterator(7, rd.iter().chain(ed.iter()).copied())
    }
}

fn ground(local: Vector3<f64>) -> Attachment {
    Attachment {
        body: GROUND,
        local,
    }
}

/// The joint kinds at the assembled pose `g`, with the motions each allows.
fn assembled_joints(g: &Assembled, rng: &mut Rng) -> Vec<(SpatialKind, Vec<DVector<f64>>)> {
    let zero = Vector3::zeros();
    let third = g.axis.cross(&g.across);
    let turns = |axes: &[Vector3<f64>]| -> Vec<DVector<f64>> {
        axes.iter().map(|w| g.motion(zero, *w)).collect()
    };
    let anchor = g.point + vector3(rng);
    let to_anchor = anchor - g.point;
    let (slide1, slide2) = {
        let u = to_anchor.cross(&g.axis).normalize();
        (u, to_anchor.cross(&u).normalize())
    };
    let mut distance = turns(&[g.axis, g.across, third]);
    distance.extend([g.motion(slide1, zero), g.motion(slide2, zero)]);
    vec![
        (
            SpatialKind::Spherical {
                a: g.local_point(g.point),
                b: ground(g.point),
            },
            turns(&[g.axis, g.across, third]),
        ),
        (
            SpatialKind::Revolute {
                a: g.local_point(g.point),
                b: ground(g.point),
                axis_a: g.local_vector(g.axis * 0.7),
                axis_b: ground(g.axis * 1.3),
            },
            turns(&[g.axis]),
        ),
        (
            SpatialKind::Universal {
                a: g.local_point(g.point),
                b: ground(g.point),
                arm_a: g.local_vector(g.axis),
                arm_b: ground(g.across),
            },
            turns(&[g.axis, g.across]),
        ),
        (
            SpatialKind::Prismatic {
                a: g.local_point(g.point),
                b: ground(g.point),
                axis_a: g.local_vector(g.axis),
                axis_b: ground(g.axis * 2.0),
                lock_a: g.local_vector(g.across),
                lock_b: ground(third),
            },
            vec![g.motion(g.axis, zero)],
        ),
        (
            SpatialKind::Distance {
                a: g.local_point(g.point),
                b: ground(anchor),
                length: to_anchor.norm(),
            },
            distance,
        ),
    ]
}

fn rank(a: &DMatrix<f64>) -> usize {
    let singular = a.clone().svd(false, false).singular_values;
    let largest = singular.max();
    singular.iter().filter(|s| **s > 1e-10 * largest).count()
}

#[test]
fn assembled_joints_allow_exactly_their_motions() {
    let mut rng = Rng::new(106);
    let inertia = Matrix3::identity();
    let mut worst = (0.0f64, 0.0f64);
    for _ in 0..20 {
        let g = Assembled::new(&mut rng);
        for (kind, motions) in assembled_joints(&g, &mut rng) {
            let joint = spatial("J", kind);
            let rows = match &joint.kind {
                JointKind::Spatial(s) => s.rows(),
                _ => unreachable!(),
            };
            let mechanism = Mechanism::new(
                vec![rigid_body("b", 1.0, inertia)],
                vec![joint],
                vec![],
                GRAVITY,
            );
            let x = g.state();
            let residual = residual_of(&mechanism, &x).amax();
            assert!(
                residual < 1e-14,
                "{kind:?}: residual {residual:e} when assembled"
            );
            let a = jacobian_of(&mechanism, &x);
            assert_eq!(rank(&a), rows + 1, "{kind:?}: dependent rows");
            assert_eq!(
                motions.len(),
                6 - rows,
                "{kind:?}: the test lists every motion"
            );
            let motion_matrix = DMatrix::from_columns(&motions);
            assert_eq!(
                rank(&motion_matrix),
                motions.len(),
                "{kind:?}: the motions are independent"
            );
            let leak = (&a * &motion_matrix).amax();
            assert!(
                leak < 1e-14,
                "{kind:?}: an allowed motion violates A xd = 0 by {leak:e}"
            );
            worst = (worst.0.max(residual), worst.1.max(leak));
        }
    }
    println!(
        "assembled joints: residual {:.1e}, A xd on allowed motions {:.1e}",
        worst.0, worst.1
    );
}
