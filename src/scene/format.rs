//! The RON scene format as serde types (what an author writes). Validation and the conversion
//! to a `Mechanism` live in `build`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::solver::{Integrator, Predictor, Settings};

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
    pub solver: SolverSpec,
    #[serde(default)]
    pub run: RunSpec,
    #[serde(default)]
    pub view: ViewSpec,
}

/// The `solver` section: every field optional, the solver's defaults for those left out
/// (`Settings::default`); `SolverSpec::settings` gives the solver's settings. The names are
/// `solver::Setting`'s, by which errors locate a field.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "Settings", default, deny_unknown_fields)]
pub struct SolverSpec {
    pub dt: f64,
    pub integrator: Integrator,
    pub predictor: Predictor,
    pub rank_tolerance: f64,
    pub detection_tolerance: f64,
    pub normal_truncation: f64,
    pub newton_tolerance: f64,
    pub newton_max_iterations: usize,
    pub omega_step_limit: f64,
    pub dopri_rtol: f64,
    pub dopri_atol: f64,
    pub dopri_min_step: f64,
}

impl Default for SolverSpec {
    fn default() -> Self {
        let s = Settings::default();
        Self {
            dt: s.dt,
            integrator: s.integrator,
            predictor: s.predictor,
            rank_tolerance: s.rank_tolerance,
            detection_tolerance: s.detection_tolerance,
            normal_truncation: s.normal_truncation,
            newton_tolerance: s.newton_tolerance,
            newton_max_iterations: s.newton_max_iterations,
            omega_step_limit: s.omega_step_limit,
            dopri_rtol: s.dopri_rtol,
            dopri_atol: s.dopri_atol,
            dopri_min_step: s.dopri_min_step,
        }
    }
}

impl SolverSpec {
    /// The solver's settings the section asks for.
    pub fn settings(&self) -> Settings {
        Settings {
            dt: self.dt,
            integrator: self.integrator,
            predictor: self.predictor,
            rank_tolerance: self.rank_tolerance,
            detection_tolerance: self.detection_tolerance,
            normal_truncation: self.normal_truncation,
            newton_tolerance: self.newton_tolerance,
            newton_max_iterations: self.newton_max_iterations,
            omega_step_limit: self.omega_step_limit,
            dopri_rtol: self.dopri_rtol,
            dopri_atol: self.dopri_atol,
            dopri_min_step: self.dopri_min_step,
        }
    }
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
    /// Spatial rigid body: central inertia in body axes, centre of mass, orientation of the
    /// body axes (identity when absent), named points in body axes from the centre of mass,
    /// and the solid it is drawn as (derived from its joints when absent).
    Rigid {
        name: String,
        mass: f64,
        inertia: InertiaSpec,
        center: (f64, f64, f64),
        #[serde(default)]
        orientation: Option<OrientationSpec>,
        #[serde(default)]
        points: BTreeMap<String, (f64, f64, f64)>,
        #[serde(default)]
        shape: Option<ShapeSpec>,
    },
    /// Planar rigid body of any shape: central moment of inertia (kg m^2), centre of mass,
    /// `angle` of its body axes (rad, from +x counter-clockwise) and named points in body axes
    /// from the centre of mass.
    Plate {
        name: String,
        mass: f64,
        inertia: f64,
        center: (f64, f64),
        angle: f64,
        #[serde(default)]
        points: BTreeMap<String, (f64, f64)>,
    },
}

impl BodySpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Bar { name, .. }
            | Self::Point { name, .. }
            | Self::Rigid { name, .. }
            | Self::Plate { name, .. } => name,
        }
    }
}

/// Central inertia of a rigid body in its body axes, kg m^2.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub enum InertiaSpec {
    /// Principal moments about the body's x, y and z axes.
    Principal(f64, f64, f64),
    /// The full symmetric matrix, row by row.
    Matrix((f64, f64, f64), (f64, f64, f64), (f64, f64, f64)),
}

/// Orientation of a rigid body: its body axes in global coordinates.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum OrientationSpec {
    /// Euler parameters `(e0, e1, e2, e3)` body-to-global (normalised on load).
    Euler(f64, f64, f64, f64),
    /// A rotation by `angle` (rad) about `axis` (global, any length but zero).
    AxisAngle { axis: (f64, f64, f64), angle: f64 },
    /// The body's x and y axes in global coordinates (perpendicular, any lengths but zero).
    Axes {
        x: (f64, f64, f64),
        y: (f64, f64, f64),
    },
}

/// A point of a spatial body: in body axes from its centre of mass; on the ground side of a
/// joint, global coordinates (`At` only).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub enum SpatialPointSpec {
    Center,
    /// A point declared in the body's `points`.
    Point(String),
    /// Coordinates in body axes from the centre of mass (global on the ground).
    At(f64, f64, f64),
}

/// The solid a rigid body is drawn as (points in body axes).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum ShapeSpec {
    /// A rod with rounded ends.
    Rod {
        from: SpatialPointSpec,
        to: SpatialPointSpec,
        radius: f64,
    },
    /// A box about the centre of mass, edges (full lengths) along the body axes.
    Block { size: (f64, f64, f64) },
    /// A cone from its apex to the centre of its base disk.
    Cone {
        apex: SpatialPointSpec,
        base: SpatialPointSpec,
        radius: f64,
    },
    /// A ball about the centre of mass.
    Ball { radius: f64 },
}

/// A point on a planar body. Bars have `Start`, `End`, `Fraction`, `Along`; plates have named
/// points (`Point`); both have `Center` and `Offset`; a point mass has only its centre.
#[derive(Clone, Debug, Deserialize, PartialEq)]
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
    /// A point declared in a plate's `points`.
    Point(String),
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
    /// Distance constraint `|p - anchor|^2 - length^2 = 0`: `p` the point mass, or the point
    /// `at` of a rigid body (its centre when absent).
    Distance {
        name: String,
        body: String,
        #[serde(default)]
        at: Option<SpatialPointSpec>,
        anchor: Vec<f64>,
        length: f64,
    },
    /// Spatial ball joint: point `at_a` of `a` coincides with point `at_b` of `b` (either
    /// body may be `"ground"`, whose points are global).
    Spherical {
        name: String,
        a: String,
        at_a: SpatialPointSpec,
        b: String,
        at_b: SpatialPointSpec,
    },
    /// Spatial revolute joint: a ball joint that turns only about `axis` (global, at the pose
    /// as written).
    Hinge {
        name: String,
        a: String,
        at_a: SpatialPointSpec,
        b: String,
        at_b: SpatialPointSpec,
        axis: (f64, f64, f64),
    },
    /// Cardan joint: a ball joint whose cross arms `arm_a` (fixed in `a`) and `arm_b` (fixed in
    /// `b`) stay perpendicular; arms global at the pose as written.
    Universal {
        name: String,
        a: String,
        at_a: SpatialPointSpec,
        b: String,
        at_b: SpatialPointSpec,
        arm_a: (f64, f64, f64),
        arm_b: (f64, f64, f64),
    },
    /// Prismatic joint: `at_a` slides relative to `at_b` along `axis` (global, at the pose as
    /// written), without rotation.
    Translational {
        name: String,
        a: String,
        at_a: SpatialPointSpec,
        b: String,
        at_b: SpatialPointSpec,
        axis: (f64, f64, f64),
    },
    /// Planar prismatic joint between two bodies with an angle: `at_a` stays on the line
    /// through `at_b` along `axis` (in `b`'s body axes, any length but zero), and their
    /// relative angle stays as written. A `driver` adds the joint `NAME.driver`, which
    /// prescribes the distance from `at_a` to `at_b` along the axis (Wojtyra and Frączek 2013,
    /// eq. 43).
    Prismatic {
        name: String,
        a: String,
        at_a: PointSpec,
        b: String,
        at_b: PointSpec,
        axis: (f64, f64),
        #[serde(default)]
        driver: Option<DriverSpec>,
    },
    /// Planar pin in a slot: `at_a` stays on the line through `at_b` along `axis` (in `b`'s
    /// body axes, any length but zero), free to turn (a prismatic joint without the angle).
    Slot {
        name: String,
        a: String,
        at_a: PointSpec,
        b: String,
        at_b: PointSpec,
        axis: (f64, f64),
    },
    /// Planar slider on a ground guide: point `at` of `body` stays on the fixed line through
    /// `through` along `axis` (world, any length but zero), free to turn there (a massless
    /// block in a straight slot, hinged to the body).
    Slider {
        name: String,
        body: String,
        at: PointSpec,
        through: (f64, f64),
        axis: (f64, f64),
    },
    /// Planar knife edge: the velocity of point `at` of `body` along `normal` (in body axes,
    /// any length but zero) is zero (Wojtyra and Frączek 2013, eq. 30).
    KnifeEdge {
        name: String,
        body: String,
        at: PointSpec,
        normal: (f64, f64),
    },
}

/// A prescribed motion `d(t) = constant + sum amplitude S(t; start, end)`, `S` the quintic
/// smooth step from 0 at `start` to 1 at `end`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename = "Driver", deny_unknown_fields)]
pub struct DriverSpec {
    pub constant: f64,
    #[serde(default)]
    pub steps: Vec<StepSpec>,
}

/// One smooth step of a driver's law: `amplitude` (m) from `start` to `end` (s).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename = "Step", deny_unknown_fields)]
pub struct StepSpec {
    pub amplitude: f64,
    pub start: f64,
    pub end: f64,
}

impl JointSpec {
    pub fn name(&self) -> &str {
        match self {
            Self::Revolute { name, .. }
            | Self::Pin { name, .. }
            | Self::Distance { name, .. }
            | Self::Spherical { name, .. }
            | Self::Hinge { name, .. }
            | Self::Universal { name, .. }
            | Self::Translational { name, .. }
            | Self::Prismatic { name, .. }
            | Self::Slider { name, .. }
            | Self::Slot { name, .. }
            | Self::KnifeEdge { name, .. } => name,
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
    /// Torque on a rigid body, global axes (three components).
    SpatialTorque {
        name: String,
        body: String,
        torque: Vec<f64>,
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
            Self::Torque { name, .. }
            | Self::SpatialTorque { name, .. }
            | Self::Force { name, .. } => name,
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
    /// A rigid body's angular velocity in global axes.
    #[serde(default)]
    pub wx: Option<f64>,
    #[serde(default)]
    pub wy: Option<f64>,
    #[serde(default)]
    pub wz: Option<f64>,
    /// A rigid body's angular velocity in its body axes (all three components), turned to
    /// global axes at the orientation as written.
    #[serde(default)]
    pub omega_body: Option<(f64, f64, f64)>,
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
    /// Points of rigid bodies the 3D view traces: `"body"` (its centre of mass) or
    /// `"body:point"` (a point declared on it).
    pub trace_points: Vec<String>,
}
