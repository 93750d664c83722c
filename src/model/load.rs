//! Applied loads: constant or time-windowed forces (at the centre of mass) and torques.

/// What a load applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadKind {
    /// Force at the centre of mass, world components (the third is ignored in the plane).
    Force([f64; 3]),
    /// Torque about the centre of mass of a bar, counter-clockwise positive.
    Torque(f64),
    /// Torque about the centre of mass of a spatial rigid body, in global axes.
    SpatialTorque([f64; 3]),
}

/// A load on one body, always on or active for `start <= t < start + duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    pub body: usize,
    pub kind: LoadKind,
    /// `Some((start, end))` for a pulse, `None` for a constant load.
    pub window: Option<(f64, f64)>,
}

impl Load {
    /// Whether the load acts at time `t` (half-open window).
    pub fn active(&self, t: f64) -> bool {
        match self.window {
            None => true,
            Some((start, end)) => t >= start && t < end,
        }
    }
}
