//! Bodies and their coordinates: planar bars and plates `(x, y, theta)`, point masses in 2D or 3D and
//! spatial rigid bodies `(x, y, z, e0, e1, e2, e3)` (centre of mass and Euler parameters, see
//! `rigid`).

use nalgebra::Matrix3;

/// What a body is; fixes how many coordinates it owns and its mass matrix block.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyKind {
    /// Uniform slender rod of the given length; coordinates `(x, y, theta)` of its centre of
    /// mass, `theta` the absolute angle of the axis from its start end to its end end.
    Bar { length: f64 },
    /// Planar rigid body of any shape with the given central moment of inertia (kg m^2);
    /// coordinates `(x, y, theta)` of its centre of mass and the angle of its body axes.
    Plate { inertia: f64 },
    /// Point mass in the plane, coordinates `(x, y)`.
    Point2,
    /// Point mass in space, coordinates `(x, y, z)`.
    Point3,
    /// Spatial rigid body: its centre of mass `(x, y, z)` and Euler parameters
    /// `(e0, e1, e2, e3)` body-to-global; `inertia` is the central inertia in body axes.
    Rigid { inertia: Matrix3<f64> },
}

/// How the canvas draws a body: the model's accessor for drawing, so that a new kind of body
/// picks one of these and the drawing needs no change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyShape {
    /// A bar between its two ends.
    Bar { length: f64 },
    /// A planar plate: the outline of the points its joints hold.
    Plate,
    /// A point mass, in the plane or in space.
    PointMass { spatial: bool },
    /// A spatial rigid body, drawn as solids by the 3D view.
    Solid,
}

/// A body of the mechanism with its place in the coordinate vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub name: String,
    pub kind: BodyKind,
    pub mass: f64,
    /// Index of the body's first coordinate in `x`.
    pub offset: usize,
}

impl Body {
    /// Number of coordinates the body owns.
    pub fn dim(&self) -> usize {
        match self.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } | BodyKind::Point3 => 3,
            BodyKind::Point2 => 2,
            BodyKind::Rigid { .. } => 7,
        }
    }

    /// Central moment of inertia of a planar body (`m l^2 / 12` for a slender rod, zero for
    /// points and spatial bodies).
    pub fn inertia(&self) -> f64 {
        match self.kind {
            BodyKind::Bar { length } => self.mass * length * length / 12.0,
            BodyKind::Plate { inertia } => inertia,
            _ => 0.0,
        }
    }

    /// Number of translational coordinates (2 in the plane, 3 in space).
    pub fn translational_dim(&self) -> usize {
        match self.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } | BodyKind::Point2 => 2,
            BodyKind::Point3 | BodyKind::Rigid { .. } => 3,
        }
    }

    /// A bar's length.
    pub fn bar_length(&self) -> Option<f64> {
        match self.kind {
            BodyKind::Bar { length } => Some(length),
            _ => None,
        }
    }

    /// Whether the body is a bar (it has a start and an end).
    /// How the canvas draws the body.
    pub fn shape(&self) -> BodyShape {
        match self.kind {
            BodyKind::Bar { length } => BodyShape::Bar { length },
            BodyKind::Plate { .. } => BodyShape::Plate,
            BodyKind::Point2 => BodyShape::PointMass { spatial: false },
            BodyKind::Point3 => BodyShape::PointMass { spatial: true },
            BodyKind::Rigid { .. } => BodyShape::Solid,
        }
    }

    pub fn is_bar(&self) -> bool {
        matches!(self.kind, BodyKind::Bar { .. })
    }

    /// Whether the body is a spatial rigid body (Euler parameters).
    pub fn is_rigid(&self) -> bool {
        matches!(self.kind, BodyKind::Rigid { .. })
    }

    /// Whether the body lives in space (3D point mass or rigid body).
    pub fn is_spatial(&self) -> bool {
        matches!(self.kind, BodyKind::Point3 | BodyKind::Rigid { .. })
    }

    /// Whether the body rotates in the plane (a bar or a plate: it has an angle coordinate).
    pub fn has_angle(&self) -> bool {
        matches!(self.kind, BodyKind::Bar { .. } | BodyKind::Plate { .. })
    }

    /// Names of the body's coordinates, as used in CSV headers.
    pub fn coordinate_names(&self) -> &'static [&'static str] {
        match self.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => &["x", "y", "theta"],
            BodyKind::Point2 => &["x", "y"],
            BodyKind::Point3 => &["x", "y", "z"],
            BodyKind::Rigid { .. } => &["x", "y", "z", "e0", "e1", "e2", "e3"],
        }
    }

    /// Names of the body's velocity components, as used in CSV headers: coordinate rates,
    /// except for a rigid body the angular velocity in global axes instead of `ed`.
    pub fn velocity_names(&self) -> &'static [&'static str] {
        match self.kind {
            BodyKind::Bar { .. } | BodyKind::Plate { .. } => &["vx", "vy", "omega"],
            BodyKind::Point2 => &["vx", "vy"],
            BodyKind::Point3 => &["vx", "vy", "vz"],
            BodyKind::Rigid { .. } => &["vx", "vy", "vz", "wx", "wy", "wz"],
        }
    }
}
