//! Kinematics of a spatial rigid body in Euler parameters (Nikravesh 1988, ch. 6; Haug 1989,
//! ch. 9; Zhou et al. 2023, sect. 3.2).
//!
//! A body owns seven coordinates: its centre of mass `r` and its Euler parameters
//! `e = (e0, e1, e2, e3)`, body-to-global. The rotation is the homogeneous quadratic
//! `A(e) = (e0^2 - |ē|^2) I + 2 ē ē^T + 2 e0 [ē]x`, a rotation when `|e| = 1` (the body's
//! normalisation row keeps it there) and well defined off it, so that Newton's iterations and
//! the Jacobians below are exact derivatives of one smooth function.
//!
//! Because `A(e) s` is quadratic in `e`, its Jacobian `D(e, s) = d(A(e) s)/de` is linear in
//! `e`, and the velocity-quadratic part of a body-fixed vector's acceleration is
//! `D(ed, s) ed = 2 A(ed) s` (Euler's theorem on homogeneous functions). Angular velocities:
//! `omega' = 2 G(e) ed` in body axes and `omega = 2 E(e) ed` in global axes.

use nalgebra::{Matrix3, Matrix3x4, Matrix4, Vector3, Vector4};

/// `A(e) s`: the body-fixed vector `s` in global axes.
#[inline]
pub fn rotate(e: &Vector4<f64>, s: &Vector3<f64>) -> Vector3<f64> {
    let v = Vector3::new(e[1], e[2], e[3]);
    s * (e[0] * e[0] - v.dot(&v)) + v * (2.0 * v.dot(s)) + v.cross(s) * (2.0 * e[0])
}

/// The rotation matrix `A(e)` (columns: the body axes in global coordinates).
pub fn rotation_matrix(e: &Vector4<f64>) -> Matrix3<f64> {
    Matrix3::from_columns(&[
        rotate(e, &Vector3::x()),
        rotate(e, &Vector3::y()),
        rotate(e, &Vector3::z()),
    ])
}

/// `D(e, s) = d(A(e) s)/de` (3 x 4).
pub fn rotate_jacobian(e: &Vector4<f64>, s: &Vector3<f64>) -> Matrix3x4<f64> {
    let v = Vector3::new(e[1], e[2], e[3]);
    let first = (s * e[0] + v.cross(s)) * 2.0;
    let rest = (Matrix3::identity() * v.dot(s) + v * s.transpose()
        - s * v.transpose()
        - s.cross_matrix() * e[0])
        * 2.0;
    let mut d = Matrix3x4::zeros();
    d.set_column(0, &first);
    d.fixed_columns_mut::<3>(1).copy_from(&rest);
    d
}

/// `G(e)`: `omega' = 2 G(e) ed` (body axes).
pub fn g_matrix(e: &Vector4<f64>) -> Matrix3x4<f64> {
    Matrix3x4::new(
        -e[1], e[0], e[3], -e[2], //
        -e[2], -e[3], e[0], e[1], //
        -e[3], e[2], -e[1], e[0],
    )
}

/// `E(e)`: `omega = 2 E(e) ed` (global axes).
pub fn e_matrix(e: &Vector4<f64>) -> Matrix3x4<f64> {
    Matrix3x4::new(
        -e[1], e[0], -e[3], e[2], //
        -e[2], e[3], e[0], -e[1], //
        -e[3], -e[2], e[1], e[0],
    )
}

/// Angular velocity in body axes, `omega' = 2 G(e) ed`.
pub fn body_angular_velocity(e: &Vector4<f64>, ed: &Vector4<f64>) -> Vector3<f64> {
    g_matrix(e) * ed * 2.0
}

/// Angular velocity in global axes, `omega = 2 E(e) ed`.
pub fn global_angular_velocity(e: &Vector4<f64>, ed: &Vector4<f64>) -> Vector3<f64> {
    e_matrix(e) * ed * 2.0
}

/// Euler-parameter rates of a global angular velocity at unit `e`: `ed = E(e)^T omega / 2`
/// (perpendicular to `e`, so the normalisation row holds).
pub fn rates_of_global_angular_velocity(e: &Vector4<f64>, omega: &Vector3<f64>) -> Vector4<f64> {
    e_matrix(e).transpose() * omega * 0.5
}

/// Mass block of the Euler parameters, `4 G^T J' G` (singular along `e`).
pub fn mass_block(e: &Vector4<f64>, inertia: &Matrix3<f64>) -> Matrix4<f64> {
    let g = g_matrix(e);
    g.transpose() * inertia * g * 4.0
}

/// Quadratic velocity force on the Euler parameters, `-8 G(ed)^T J' G(e) ed`: the Lagrange
/// equations of `T = 2 ed^T G^T J' G ed` with `G(e) ed = -G(ed) e`.
pub fn quadratic_velocity_force(
    e: &Vector4<f64>,
    ed: &Vector4<f64>,
    inertia: &Matrix3<f64>,
) -> Vector4<f64> {
    g_matrix(ed).transpose() * (inertia * (g_matrix(e) * ed)) * -8.0
}

/// Rotational kinetic energy `omega'^T J' omega' / 2`.
pub fn rotational_energy(e: &Vector4<f64>, ed: &Vector4<f64>, inertia: &Matrix3<f64>) -> f64 {
    let w = body_angular_velocity(e, ed);
    0.5 * w.dot(&(inertia * w))
}
