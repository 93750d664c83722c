//! The RON scene format as serde types (what an author writes). Validation and the conversion
//! to a `Mechanism` live in `build`.

use serde::Deserialize;

use crate::solver::Settings;

/// A whole scene file.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
pub struct SceneFile {
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// Gravity vector: `[gx, gy]` for planar scenes, `[gx, gy, gz]` for spatial ones.
    pub gravity: Vec<f64>,
    pub bodies: Vec<BodySpec>,
    #[serde(default)]
    pub joints: Vec<JointSpec>,
    #[serde(default)]
    pub loads: Vec<LoadSpec>,
    /// Initial velocity components the author means; the rest are completed.
    #[serde(default)]
    pub velocities: Vec<VelocitySpec>,
    #[serde(default)]
    pub solver: Settings,
    #[serde(default)]
    pub run: RunSpec,
    #[serde(default)]
    pub view: ViewSpec,
}

/// A body and its initial pose.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum BodySpec {
    /// Uniform slender bar; pose by `start` (its start end) or `center`, and `angle` (rad, from
    /// +x counter-clockwise, axis from start to end).
    Bar {
        name: String,
        length: f64,
        mass: f64,
        #[serde(default)]
        start: Option<(f64, f64)>,
        #[serde(default)]
        center: Option<(f64, f64)>,
        angle: f64,
    },
    /// Point mass; `position` has 2 components (planar) or 3 (spatial).
    Point {
        name: String,
        mass: f64,
        position: Vec<f64>,
    },
}

impl BodySpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Bar { name, .. } | Self::Point { name, .. } => name,
        }
    }
}

/// A point on a body.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub enum PointSpec {
    Start,
    End,
    Center,
    /// Fraction of the length along the axis from the start end (0 = start, 1 = end).
    Fraction(f64),
    /// Distance in metres along the axis from the start end.
    Along(f64),
    /// Offset from the centre of mass in the body frame (along the axis, perpendicular).
    Offset(f64, f64),
}

/// A joint between bodies or to the ground.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum JointSpec {
    /// Revolute joint: point `at_a` of body `a` coincides with point `at_b` of body `b`.
    Revolute {
        name: String,
        a: String,
        at_a: PointSpec,
        b: String,
        at_b: PointSpec,
    },
    /// Revolute joint to the ground at `ground`.
    Pin {
        name: String,
        body: String,
        at: PointSpec,
        ground: (f64, f64),
    },
    /// Point-mass distance constraint `|r - anchor|^2 - length^2 = 0`.
    Distance {
        name: String,
        body: String,
        anchor: Vec<f64>,
        length: f64,
    },
}

impl JointSpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Revolute { name, .. } | Self::Pin { name, .. } | Self::Distance { name, .. } => {
                name
            }
        }
    }
}

/// A load; constant unless `start` and `duration` make it a pulse.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum LoadSpec {
    Torque {
        name: String,
        body: String,
        torque: f64,
        #[serde(default)]
        start: Option<f64>,
        #[serde(default)]
        duration: Option<f64>,
    },
    Force {
        name: String,
        body: String,
        force: Vec<f64>,
        #[serde(default)]
        start: Option<f64>,
        #[serde(default)]
        duration: Option<f64>,
    },
}

impl LoadSpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Torque { name, .. } | Self::Force { name, .. } => name,
        }
    }
}

/// Stated initial velocity components of one body.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VelocitySpec {
    pub body: String,
    #[serde(default)]
    pub vx: Option<f64>,
    #[serde(default)]
    pub vy: Option<f64>,
    #[serde(default)]
    pub vz: Option<f64>,
    #[serde(default)]
    pub omega: Option<f64>,
}

/// Defaults for a run of the scene.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RunSpec {
    pub t_end: f64,
}

impl Default for RunSpec {
    fn default() -> Self {
        Self { t_end: 10.0 }
    }
}

/// Hints for the visualizer.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ViewSpec {
    /// World point at the centre of the view.
    pub center: Option<(f64, f64)>,
    /// Visible width in metres.
    pub width: Option<f64>,
    /// Body whose centre of mass leaves a trace.
    pub trace: Option<String>,
}
