//! Bodies and their coordinates: planar bars `(x, y, theta)` and point masses in 2D or 3D.

/// What a body is; fixes how many coordinates it owns and its mass matrix block.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyKind {
    /// Uniform slender rod of the given length; coordinates `(x, y, theta)` of its centre of
    /// mass, `theta` the absolute angle of the axis from its start end to its end end.
    Bar { length: f64 },
    /// Point mass in the plane, coordinates `(x, y)`.
    Point2,
    /// Point mass in space, coordinates `(x, y, z)`.
    Point3,
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
            BodyKind::Bar { .. } | BodyKind::Point3 => 3,
            BodyKind::Point2 => 2,
        }
    }

    /// Central moment of inertia (`m l^2 / 12` for a slender rod, zero for points).
    pub fn inertia(&self) -> f64 {
        match self.kind {
            BodyKind::Bar { length } => self.mass * length * length / 12.0,
            _ => 0.0,
        }
    }

    /// Number of translational coordinates (2 in the plane, 3 in space).
    pub fn translational_dim(&self) -> usize {
        match self.kind {
            BodyKind::Bar { .. } | BodyKind::Point2 => 2,
            BodyKind::Point3 => 3,
        }
    }

    /// Whether the body rotates (has an angle coordinate).
    pub fn is_bar(&self) -> bool {
        matches!(self.kind, BodyKind::Bar { .. })
    }

    /// Names of the body's coordinates, as used in CSV headers.
    pub fn coordinate_names(&self) -> &'static [&'static str] {
        match self.kind {
            BodyKind::Bar { .. } => &["x", "y", "theta"],
            BodyKind::Point2 => &["x", "y"],
            BodyKind::Point3 => &["x", "y", "z"],
        }
    }

    /// Names of the body's velocity components, as used in CSV headers.
    pub fn velocity_names(&self) -> &'static [&'static str] {
        match self.kind {
            BodyKind::Bar { .. } => &["vx", "vy", "omega"],
            BodyKind::Point2 => &["vx", "vy"],
            BodyKind::Point3 => &["vx", "vy", "vz"],
        }
    }
}
