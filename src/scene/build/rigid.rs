//! Spatial rigid bodies of a scene: their inertia, orientation and named points as written,
//! checked and converted to the model's `(r, e)` coordinates, and their looks in the 3D view.

use std::collections::BTreeMap;

use nalgebra::{Matrix3, Vector3, Vector4};

use super::limits::{ANGLE, INERTIA, LENGTH, SCALE_FREE, check_bounded, check_positive};
use crate::model::{Body, BodyKind, JointKind, Mechanism, SpatialKind, rigid};
use crate::scene::format::{InertiaSpec, OrientationSpec, ShapeSpec, SpatialPointSpec};
use crate::scene::look::{BodyLook, Shape};

/// Two axes written as perpendicular may miss it by this much in the cosine of their angle
/// (six written digits); the second is then made exactly perpendicular to the first.
pub const PERPENDICULAR_SLACK: f64 = 1e-6;
/// A quadruple of Euler parameters shorter than this is no rotation.
const SMALLEST_EULER_NORM: f64 = 1e-6;

/// What the joints and the looks need of a rigid body as written.
#[derive(Clone, Debug)]
pub struct RigidInfo {
    /// Body axes in global coordinates (columns), at the orientation as written.
    pub rotation: Matrix3<f64>,
    pub points: BTreeMap<String, Vector3<f64>>,
    pub shape: Option<ShapeSpec>,
}

/// A checked rigid body: the model's body, its coordinates and what joints need.
pub struct CheckedRigid {
    pub body: Body,
    pub pose: [f64; 7],
    pub info: RigidInfo,
}

/// An error in one field of a body.
pub type FieldError = (&'static str, String);

/// The pieces of a `Rigid(...)` body as written.
pub struct RigidSpec<'a> {
    pub name: &'a str,
    pub mass: f64,
    pub inertia: &'a InertiaSpec,
    pub center: (f64, f64, f64),
    pub orientation: Option<&'a OrientationSpec>,
    pub points: &'a BTreeMap<String, (f64, f64, f64)>,
    pub shape: Option<&'a ShapeSpec>,
}

/// Checks a rigid body and converts it; errors name the field at fault.
pub fn check_rigid(spec: &RigidSpec) -> Result<CheckedRigid, FieldError> {
    check_positive(spec.mass, "mass", super::limits::MASS).map_err(|m| ("mass", m))?;
    let inertia = inertia_matrix(spec.inertia).map_err(|m| ("inertia", m))?;
    let center = vector(spec.center);
    check_bounded(center.as_slice(), "center", LENGTH).map_err(|m| ("center", m))?;
    let e = euler_parameters(spec.orientation).map_err(|m| ("orientation", m))?;
    let mut points = BTreeMap::new();
    for (name, &point) in spec.points {
        let point = vector(point);
        check_bounded(point.as_slice(), &format!("point \"{name}\""), LENGTH)
            .map_err(|m| ("points", m))?;
        points.insert(name.clone(), point);
    }
    Ok(CheckedRigid {
        body: Body {
            name: spec.name.to_string(),
            kind: BodyKind::Rigid { inertia },
            mass: spec.mass,
            offset: 0,
        },
        pose: [center.x, center.y, center.z, e[0], e[1], e[2], e[3]],
        info: RigidInfo {
            rotation: rigid::rotation_matrix(&e),
            points,
            shape: spec.shape.cloned(),
        },
    })
}

pub fn vector((x, y, z): (f64, f64, f64)) -> Vector3<f64> {
    Vector3::new(x, y, z)
}

/// The central inertia matrix: positive principal moments that satisfy the triangle
/// inequality (`J1 + J2 >= J3` and its permutations, which every mass distribution obeys); a
/// full matrix must be symmetric and is checked on its eigenvalues.
pub fn inertia_matrix(spec: &InertiaSpec) -> Result<Matrix3<f64>, String> {
    let matrix = match *spec {
        InertiaSpec::Principal(a, b, c) => Matrix3::from_diagonal(&Vector3::new(a, b, c)),
        InertiaSpec::Matrix(r0, r1, r2) => Matrix3::from_rows(&[
            vector(r0).transpose(),
            vector(r1).transpose(),
            vector(r2).transpose(),
        ]),
    };
    check_bounded(matrix.as_slice(), "inertia", INERTIA)?;
    let scale = matrix.amax();
    let asymmetry = (matrix - matrix.transpose()).amax();
    if asymmetry > 1e-12 * scale {
        return Err(format!(
            "the inertia matrix must be symmetric (entries differ by {asymmetry:.3e} across the diagonal)"
        ));
    }
    let principal = match spec {
        InertiaSpec::Principal(..) => matrix.diagonal(),
        InertiaSpec::Matrix(..) => matrix.symmetric_eigenvalues(),
    };
    for value in principal.iter() {
        check_positive(*value, "every principal moment of inertia", INERTIA)?;
    }
    let sum = principal.sum();
    if let Some(largest) = principal.iter().find(|&&j| j > sum - j + 1e-12 * sum) {
        return Err(format!(
            "principal moments ({:e}, {:e}, {:e}) kg m^2 violate the triangle inequality: \
             {largest:e} exceeds the sum of the other two, which no mass distribution does",
            principal[0], principal[1], principal[2]
        ));
    }
    Ok((matrix + matrix.transpose()) * 0.5)
}

/// Unit Euler parameters of the written orientation (identity when absent). Written ones of
/// any length are normalised quietly: a nonzero multiple of a quadruple is the same rotation
/// (the rotation matrix of `e` is that of `e / |e|`), so normalising does not move the pose.
fn euler_parameters(spec: Option<&OrientationSpec>) -> Result<Vector4<f64>, String> {
    match spec {
        None => Ok(Vector4::new(1.0, 0.0, 0.0, 0.0)),
        Some(&OrientationSpec::Euler(e0, e1, e2, e3)) => {
            let e = Vector4::new(e0, e1, e2, e3);
            check_bounded(e.as_slice(), "Euler parameters", SCALE_FREE)?;
            if e.norm() < SMALLEST_EULER_NORM {
                return Err(format!(
                    "Euler parameters of length {:e} are no rotation; (1, 0, 0, 0) is none",
                    e.norm()
                ));
            }
            Ok(e.normalize())
        }
        Some(&OrientationSpec::AxisAngle { axis, angle }) => {
            check_bounded(&[angle], "angle", ANGLE)?;
            let axis = direction(axis, "axis")?;
            let (s, c) = (0.5 * angle).sin_cos();
            Ok(Vector4::new(c, s * axis.x, s * axis.y, s * axis.z))
        }
        Some(&OrientationSpec::Axes { x, y }) => {
            let (x, y) = (direction(x, "x")?, direction(y, "y")?);
            let cosine = x.dot(&y);
            if cosine.abs() > PERPENDICULAR_SLACK {
                return Err(format!(
                    "axes x and y must be perpendicular; they are {:.6} deg apart",
                    cosine.clamp(-1.0, 1.0).acos().to_degrees()
                ));
            }
            let y = (y - x * cosine).normalize();
            let rotation = Matrix3::from_columns(&[x, y, x.cross(&y)]);
            Ok(euler_parameters_of(&rotation))
        }
    }
}

/// The unit vector along a written direction; zero or non-finite is an error.
pub fn direction(v: (f64, f64, f64), what: &str) -> Result<Vector3<f64>, String> {
    let v = vector(v);
    check_bounded(v.as_slice(), what, SCALE_FREE)?;
    let norm = v.norm();
    if norm == 0.0 || !norm.is_finite() || norm < 1e-12 * v.amax() {
        return Err(format!("{what} has zero length: a direction is needed"));
    }
    Ok(v / norm)
}

/// Euler parameters of a rotation matrix (Shepperd's method: the largest of the four squares
/// first, so that no division is by a small number), with `e0 >= 0`.
pub fn euler_parameters_of(r: &Matrix3<f64>) -> Vector4<f64> {
    let trace = r.trace();
    let squares = [
        1.0 + trace,
        1.0 + 2.0 * r[(0, 0)] - trace,
        1.0 + 2.0 * r[(1, 1)] - trace,
        1.0 + 2.0 * r[(2, 2)] - trace,
    ];
    let (k, &largest) = squares
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap_or((0, &squares[0]));
    let four = 2.0 * largest.max(0.0).sqrt();
    let (s1, s2, s3) = (
        r[(2, 1)] - r[(1, 2)],
        r[(0, 2)] - r[(2, 0)],
        r[(1, 0)] - r[(0, 1)],
    );
    let (p01, p02, p12) = (
        r[(0, 1)] + r[(1, 0)],
        r[(0, 2)] + r[(2, 0)],
        r[(1, 2)] + r[(2, 1)],
    );
    let half = 0.25 * four;
    let e = match k {
        0 => Vector4::new(half, s1 / four, s2 / four, s3 / four),
        1 => Vector4::new(s1 / four, half, p01 / four, p02 / four),
        2 => Vector4::new(s2 / four, p01 / four, half, p12 / four),
        _ => Vector4::new(s3 / four, p02 / four, p12 / four, half),
    };
    let e = e.normalize();
    if e[0] < 0.0 { -e } else { e }
}

/// A point of rigid body `info` in body axes.
pub fn body_point(info: &RigidInfo, spec: &SpatialPointSpec) -> Result<Vector3<f64>, String> {
    match spec {
        SpatialPointSpec::Center => Ok(Vector3::zeros()),
        SpatialPointSpec::At(x, y, z) => {
            let p = Vector3::new(*x, *y, *z);
            check_bounded(p.as_slice(), "a point", LENGTH)?;
            Ok(p)
        }
        SpatialPointSpec::Point(name) => info.points.get(name).copied().ok_or_else(|| {
            let known: Vec<String> = info.points.keys().map(|k| format!("\"{k}\"")).collect();
            let known = if known.is_empty() {
                "none declared in its `points`".to_string()
            } else {
                known.join(", ")
            };
            format!("unknown point \"{name}\" (points: {known}; `Center` is implied)")
        }),
    }
}

/// The look of rigid body `index`: its written shape, else a rod between the two farthest
/// points its joints hold it at, else a ball of its inertia (a uniform ball's radius).
pub fn look(mechanism: &Mechanism, index: usize, info: &RigidInfo) -> Result<BodyLook, FieldError> {
    let shape = match &info.shape {
        Some(spec) => written_shape(info, spec).map_err(|m| ("shape", m))?,
        None => derived_shape(mechanism, index),
    };
    Ok(BodyLook {
        body: index,
        shape,
        points: info
            .points
            .iter()
            .map(|(name, p)| (name.clone(), *p))
            .collect(),
    })
}

fn written_shape(info: &RigidInfo, spec: &ShapeSpec) -> Result<Shape, String> {
    let size = |value: f64, what: &str| check_positive(value, what, LENGTH).map(|()| value);
    Ok(match spec {
        ShapeSpec::Rod { from, to, radius } => Shape::Rod {
            from: body_point(info, from)?,
            to: body_point(info, to)?,
            radius: size(*radius, "radius")?,
        },
        ShapeSpec::Block { size: (a, b, c) } => Shape::Block {
            half_size: Vector3::new(size(*a, "size")?, size(*b, "size")?, size(*c, "size")?) * 0.5,
        },
        ShapeSpec::Cone { apex, base, radius } => Shape::Cone {
            apex: body_point(info, apex)?,
            base: body_point(info, base)?,
            radius: size(*radius, "radius")?,
        },
        ShapeSpec::Ball { radius } => Shape::Ball {
            radius: size(*radius, "radius")?,
        },
    })
}

/// The points (body axes) where joints hold rigid body `index`.
fn joint_points(mechanism: &Mechanism, index: usize) -> Vec<Vector3<f64>> {
    let mut points = Vec::new();
    for joint in mechanism.joints() {
        let JointKind::Spatial(spatial) = &joint.kind else {
            continue;
        };
        let (a, b) = match spatial.kind {
            SpatialKind::Spherical { a, b }
            | SpatialKind::Revolute { a, b, .. }
            | SpatialKind::Universal { a, b, .. }
            | SpatialKind::Prismatic { a, b, .. }
            | SpatialKind::Distance { a, b, .. } => (a, b),
        };
        points.extend(
            [a, b]
                .iter()
                .filter(|at| at.body == Some(index))
                .map(|at| at.local),
        );
    }
    points
}

fn derived_shape(mechanism: &Mechanism, index: usize) -> Shape {
    let body = &mechanism.bodies()[index];
    let points = joint_points(mechanism, index);
    let mut farthest = (0.0, Vector3::zeros(), Vector3::zeros());
    for (i, p) in points.iter().enumerate() {
        for q in &points[i + 1..] {
            if (p - q).norm() > farthest.0 {
                farthest = ((p - q).norm(), *p, *q);
            }
        }
    }
    if farthest.0 > 0.0 {
        return Shape::Rod {
            from: farthest.1,
            to: farthest.2,
            radius: farthest.0 / 15.0,
        };
    }
    let mean_inertia = match &body.kind {
        BodyKind::Rigid { inertia } => inertia.trace() / 3.0,
        _ => 0.0,
    };
    Shape::Ball {
        radius: (2.5 * mean_inertia / body.mass).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn euler_parameters_of_a_rotation_matrix_give_it_back() {
        let cases = [
            Vector4::new(1.0, 0.0, 0.0, 0.0),
            Vector4::new(0.0, 1.0, 0.0, 0.0),
            Vector4::new(0.0, 0.0, 0.6, 0.8),
            Vector4::new(0.1, -0.7, 0.5, 0.5),
            Vector4::new(0.5, 0.5, -0.5, 0.5),
        ];
        for e in cases {
            let e = e.normalize();
            let back = euler_parameters_of(&rigid::rotation_matrix(&e));
            let sign = if e[0] < 0.0 { -1.0 } else { 1.0 };
            assert_abs_diff_eq!(back, e * sign, epsilon = 1e-15);
        }
    }

    #[test]
    fn axes_give_the_rotation_with_those_columns() {
        let spec = OrientationSpec::Axes {
            x: (0.0, 2.0, -1.0),
            y: (0.2, -0.1, -0.2),
        };
        let e = euler_parameters(Some(&spec)).expect("a rotation");
        let r = rigid::rotation_matrix(&e);
        assert_abs_diff_eq!(
            r.column(0).into_owned(),
            Vector3::new(0.0, 2.0, -1.0).normalize(),
            epsilon = 1e-15
        );
        assert_abs_diff_eq!(
            r.column(1).into_owned(),
            Vector3::new(0.2, -0.1, -0.2).normalize(),
            epsilon = 1e-15
        );
    }
}
