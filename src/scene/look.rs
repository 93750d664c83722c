//! How a spatial rigid body looks in the 3D view: its solid and the named points declared on
//! it, in body axes from the centre of mass. Drawing only; the physics uses the mass and the
//! inertia.

use nalgebra::Vector3;

/// The solid a rigid body is drawn as.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A rod with rounded ends from `from` to `to`.
    Rod {
        from: Vector3<f64>,
        to: Vector3<f64>,
        radius: f64,
    },
    /// A box centred on the centre of mass, edges along the body axes.
    Block { half_size: Vector3<f64> },
    /// A cone from its apex to the centre of its base disk.
    Cone {
        apex: Vector3<f64>,
        base: Vector3<f64>,
        radius: f64,
    },
    /// A ball about the centre of mass.
    Ball { radius: f64 },
}

/// A rigid body's look: its solid and its named points (`Center` is implied).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyLook {
    /// Index of the body in the mechanism.
    pub body: usize,
    pub shape: Shape,
    pub points: Vec<(String, Vector3<f64>)>,
}
