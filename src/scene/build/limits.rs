//! What the numerics can meet, checked at load so that a scene outside it gets a located error
//! instead of a failure (or a silently wrong run) later. docs/scene-format.md, "Limits", lists them for
//! authors.
//!
//! - **Size.** The solver is dense: a step factorises `A^T` (n x m) several times and keeps
//!   a few dozen n x n matrices, so memory grows as n^2 and a step's time as n^3
//!   (docs/measurements.md has long chains' figures). Beyond [`MAX_COORDINATES`] it is the
//!   wrong tool, and a scene is refused before anything of its size is allocated.
//! - **Magnitudes.** Lengths, coordinates and points at most 1e6 m (the components of Euler
//!   parameters and directions, which have no unit, 1e6), masses 1e12 kg, moments
//!   of inertia 1e12 kg m^2, gravity 1e6 m/s^2, loads 1e12 N or N m, speeds 1e6 m/s or rad/s,
//!   times 1e9 s, a driver step's peak rate 1e6 m/s and acceleration 1e6 m/s^2: every energy,
//!   force and acceleration of a scene within these is far from overflowing, so a non-finite
//!   number can only come from the motion itself.
//! - **Ratios.** A length below 1e-9 of the scene's size is below what its coordinates
//!   resolve; a joint point more than 1e3 bar lengths from the bar's centre is a typo (or an
//!   overflow, `Fraction(1e308)`); a mass-matrix entry below 1e-12 of the largest leaves a
//!   direction of motion with almost no mass, which the Cholesky factor of `T^T M T` cannot
//!   tell from none.
//! - **Drivers.** A driver's law is evaluated at every stage of every step, each of its smooth
//!   steps in turn: at most [`MAX_DRIVER_STEPS`] of them, which cost far less than one
//!   factorisation and are more than a scripted manoeuvre needs.
//! - **Tolerances** are bounded by `Settings::validate`, the absolute ones against the
//!   round-off of this scene's constraints (`Mechanism::residual_scale`).

use nalgebra::DVector;

use super::super::format::{BodySpec, DriverSpec, JointSpec, SceneFile};
use super::{Reporter, Site};
use crate::model::{BodyKind, DriverLaw, Mechanism, SmoothStep};
use crate::number_text::number_text;
use crate::scene::SceneError;
use crate::solver::{Setting, SettingsError};

/// Most coordinates a scene may have (200 bars).
pub const MAX_COORDINATES: usize = 600;
/// Most scalar constraint equations (a redundant mechanism may have more than coordinates).
pub const MAX_CONSTRAINT_ROWS: usize = 2 * MAX_COORDINATES;
/// The smallest length relative to the scene's size.
pub const LENGTH_SPAN: f64 = 1e-9;
/// How far from a bar's centre a joint point may be, in bar lengths.
pub const POINT_REACH: f64 = 1e3;
/// The smallest mass-matrix diagonal entry relative to the largest.
pub const MASS_SPAN: f64 = 1e-12;
/// Most smooth steps in a driver's law.
pub const MAX_DRIVER_STEPS: usize = 1000;

/// The largest magnitude of a kind of quantity, with its unit.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    pub max: f64,
    pub unit: &'static str,
}

const fn bound(max: f64, unit: &'static str) -> Bound {
    Bound { max, unit }
}

pub const LENGTH: Bound = bound(1e6, "m");
/// A component of what is written up to scale and normalised on load (Euler parameters,
/// directions): no unit.
pub const SCALE_FREE: Bound = bound(1e6, "");
/// A fraction of a bar's length along it (the point must also be within [`POINT_REACH`]).
pub const FRACTION: Bound = bound(POINT_REACH, "bar lengths");
pub const ANGLE: Bound = bound(1e6, "rad");
pub const MASS: Bound = bound(1e12, "kg");
/// A rigid body's moment of inertia (the mass span bounds it from below, relative to the rest).
pub const INERTIA: Bound = bound(1e12, "kg m^2");
pub const GRAVITY: Bound = bound(1e6, "m/s^2");
pub const FORCE: Bound = bound(1e12, "N");
pub const TORQUE: Bound = bound(1e12, "N m");
pub const SPEED: Bound = bound(1e6, "m/s");
/// A driver's prescribed acceleration, as large as the largest gravity.
pub const ACCELERATION: Bound = bound(1e6, "m/s^2");
pub const ANGULAR_SPEED: Bound = bound(1e6, "rad/s");
pub const TIME: Bound = bound(1e9, "s");

/// `value` is positive and at most `bound`.
pub fn check_positive(value: f64, what: &str, bound: Bound) -> Result<(), String> {
    if !(value.is_finite() && value > 0.0) {
        return Err(format!(
            "{what} must be a positive finite number, got {}",
            number_text(value)
        ));
    }
    check_bounded(&[value], what, bound)
}

/// Every value is finite and at most `bound` in magnitude.
pub fn check_bounded(values: &[f64], what: &str, bound: Bound) -> Result<(), String> {
    if let Some(&v) = values.iter().find(|v| !v.is_finite()) {
        return Err(format!("{what} must be finite, got {}", number_text(v)));
    }
    match values.iter().find(|v| v.abs() > bound.max) {
        Some(&v) => Err(format!(
            "{what} must be at most {}{}{} in magnitude, got {}",
            number_text(bound.max),
            if bound.unit.is_empty() { "" } else { " " },
            bound.unit,
            number_text(v)
        )),
        None => Ok(()),
    }
}

/// The smallest view width, m: a narrower one would scale the drawing beyond what the
/// screen's coordinates hold.
pub const VIEW_WIDTH_MIN: f64 = 1e-6;

/// A view `width` the window can draw.
pub fn check_view_width(width: f64) -> Result<(), String> {
    if width >= VIEW_WIDTH_MIN {
        Ok(())
    } else {
        Err(format!(
            "width must be at least {} m, got {}",
            number_text(VIEW_WIDTH_MIN),
            number_text(width)
        ))
    }
}

/// A joint point `point_norm` from the centre of a bar of `length` is within its reach.
pub fn check_reach(point_norm: f64, length: f64) -> Result<(), String> {
    if point_norm <= POINT_REACH * length {
        Ok(())
    } else {
        Err(format!(
            "this point is {} m from the bar's centre, more than {} bar lengths ({} m)",
            number_text(point_norm),
            number_text(POINT_REACH),
            number_text(length)
        ))
    }
}

/// The scene's coordinates and constraint rows, counted from the file before anything of
/// their size is allocated: at most [`MAX_COORDINATES`] and [`MAX_CONSTRAINT_ROWS`].
pub fn check_size(report: &Reporter, spec: &SceneFile) -> Result<(), SceneError> {
    let n: usize = spec
        .bodies
        .iter()
        .map(|body| match body {
            BodySpec::Bar { .. } | BodySpec::Plate { .. } => 3,
            BodySpec::Point { position, .. } => position.len(),
            BodySpec::Rigid { .. } => 7,
        })
        .sum();
    // A rigid body adds its normalisation row.
    let normalisations = spec
        .bodies
        .iter()
        .filter(|body| matches!(body, BodySpec::Rigid { .. }))
        .count();
    let m: usize = spec
        .joints
        .iter()
        .map(|joint| match joint {
            JointSpec::Revolute { .. } | JointSpec::Pin { .. } => 2,
            JointSpec::Distance { .. }
            | JointSpec::KnifeEdge { .. }
            | JointSpec::Slider { .. }
            | JointSpec::Slot { .. } => 1,
            JointSpec::Prismatic { driver, .. } => 2 + usize::from(driver.is_some()),
            JointSpec::Spherical { .. } => 3,
            JointSpec::Universal { .. } => 4,
            JointSpec::Hinge { .. } | JointSpec::Translational { .. } => 5,
        })
        .sum::<usize>()
        + normalisations;
    let why = "the solver is dense: memory grows as n^2 (178 MB at 600 coordinates) and a \
               step's time as n^3 (0.5 s at 600)";
    if n > MAX_COORDINATES {
        return Err(report.error(
            Site::Field("bodies"),
            None,
            format!(
                "the scene has {n} coordinates ({} bodies), more than {MAX_COORDINATES}: {why}",
                spec.bodies.len()
            ),
        ));
    }
    if m > MAX_CONSTRAINT_ROWS {
        return Err(report.error(
            Site::Field("joints"),
            None,
            format!(
                "the joints make {m} constraint equations, more than {MAX_CONSTRAINT_ROWS}: {why}"
            ),
        ));
    }
    Ok(())
}

/// The scene's size: its largest length, coordinate, joint point, ground point or anchor, and
/// the body or joint it belongs to.
fn scene_size(mechanism: &Mechanism, x0: &[f64]) -> f64 {
    let mut size: f64 = 0.0;
    for body in mechanism.bodies() {
        for k in 0..body.translational_dim() {
            size = size.max(x0[body.offset + k].abs());
        }
        if let Some(length) = body.bar_length() {
            size = size.max(length);
        }
    }
    for joint in mechanism.joints() {
        size = size.max(joint.attachment_size());
    }
    size
}

/// Every bar's and distance joint's length is at least [`LENGTH_SPAN`] of the scene's size.
pub fn check_length_span(
    report: &Reporter,
    mechanism: &Mechanism,
    x0: &[f64],
) -> Result<(), SceneError> {
    let size = scene_size(mechanism, x0);
    let smallest = LENGTH_SPAN * size;
    let message = |length: f64| {
        format!(
            "length {} m is below {} of the scene's size ({} m, its largest length or \
             coordinate): its coordinates cannot resolve it",
            number_text(length),
            number_text(LENGTH_SPAN),
            number_text(size)
        )
    };
    for body in mechanism.bodies() {
        if let Some(length) = body.bar_length()
            && length < smallest
        {
            return Err(report.body(&body.name, "length", message(length)));
        }
    }
    for joint in mechanism.joints() {
        if let Some(length) = joint.distance_length()
            && length < smallest
        {
            return Err(report.joint(&joint.name, Some("length"), message(length)));
        }
    }
    Ok(())
}

/// The mass matrix's diagonal (masses in kg, bar inertias in kg m^2) spans at most
/// 1 / [`MASS_SPAN`]; the error names the body with the smallest entry.
pub fn check_mass_span(report: &Reporter, mechanism: &Mechanism) -> Result<(), SceneError> {
    let diagonal = mechanism.motion_weights();
    if diagonal.is_empty() {
        return Ok(());
    }
    let (largest, smallest) = (diagonal.max(), diagonal.min());
    if smallest >= MASS_SPAN * largest {
        return Ok(());
    }
    let index = diagonal.imin();
    let Some(body) = mechanism.body_of_coordinate(index) else {
        return Ok(());
    };
    // A light body is at fault by its mass, a heavy short bar by its length, a plate by its
    // moment of inertia.
    let (field, what, value) = if body.mass < MASS_SPAN * largest {
        ("mass", "mass", body.mass)
    } else if let BodyKind::Plate { inertia } = body.kind {
        ("inertia", "moment of inertia", inertia)
    } else {
        ("length", "moment of inertia (m l^2 / 12)", smallest)
    };
    Err(report.body(
        &body.name,
        field,
        format!(
            "its {what} {} is below {} of the largest mass-matrix entry ({}): a direction of \
             motion with almost no mass makes the projected mass matrix singular",
            number_text(value),
            number_text(MASS_SPAN),
            number_text(largest)
        ),
    ))
}

/// An error in a driver's law: the field at fault, which occurrence of it in the joint's entry
/// (the `start` of the third step is the third `start`), and the message.
pub struct LawError {
    pub field: &'static str,
    pub nth: usize,
    pub message: String,
}

/// A quintic smooth step of height `a` and width `w` rises at most at `15 a / (8 w)`
/// (halfway) and accelerates at most at `10 a / (sqrt(3) w^2)` (at `s = (3 - sqrt 3) / 6`).
const STEP_PEAK_RATE: f64 = 1.875;
const STEP_PEAK_ACCELERATION: f64 = 5.773_502_691_896_258;

/// A driver's law as written: finite numbers within the bounds, at most [`MAX_DRIVER_STEPS`]
/// steps, each ending after it starts, with a peak rate and acceleration within [`SPEED`] and
/// [`ACCELERATION`] (a narrower step is a jump the integrator cannot follow).
pub fn check_driver_law(spec: &DriverSpec) -> Result<DriverLaw, LawError> {
    let error = |field, nth, message| LawError {
        field,
        nth,
        message,
    };
    check_bounded(&[spec.constant], "the constant", LENGTH).map_err(|m| error("constant", 0, m))?;
    if spec.steps.len() > MAX_DRIVER_STEPS {
        return Err(error(
            "steps",
            0,
            format!(
                "the law has {} steps, more than {MAX_DRIVER_STEPS}: every stage of every time \
                 step evaluates them all",
                spec.steps.len()
            ),
        ));
    }
    let mut steps = Vec::with_capacity(spec.steps.len());
    for (k, step) in spec.steps.iter().enumerate() {
        let which = |what: &str| format!("step {}: {what}", k + 1);
        check_bounded(&[step.amplitude], &which("amplitude"), LENGTH)
            .map_err(|m| error("amplitude", k, m))?;
        check_bounded(&[step.start], &which("start"), TIME).map_err(|m| error("start", k, m))?;
        check_bounded(&[step.end], &which("end"), TIME).map_err(|m| error("end", k, m))?;
        if step.end <= step.start {
            return Err(error(
                "end",
                k,
                format!(
                    "step {}: it must end after it starts (start {} s, end {} s)",
                    k + 1,
                    number_text(step.start),
                    number_text(step.end)
                ),
            ));
        }
        let width = step.end - step.start;
        let rate = STEP_PEAK_RATE * step.amplitude.abs() / width;
        let acceleration = STEP_PEAK_ACCELERATION * step.amplitude.abs() / width / width;
        if rate > SPEED.max || acceleration > ACCELERATION.max {
            return Err(error(
                "end",
                k,
                format!(
                    "step {}: a rise of {} m in {} s peaks at {} m/s and {} m/s^2, more than \
                     {} m/s or {} m/s^2: make it longer or lower",
                    k + 1,
                    number_text(step.amplitude),
                    number_text(width),
                    number_text(rate),
                    number_text(acceleration),
                    number_text(SPEED.max),
                    number_text(ACCELERATION.max)
                ),
            ));
        }
        steps.push(SmoothStep {
            amplitude: step.amplitude,
            start: step.start,
            end: step.end,
        });
    }
    Ok(DriverLaw {
        constant: spec.constant,
        steps,
    })
}

/// The solver settings, valid at the round-off of this scene's constraints at the assembled
/// positions `x0`. A scale-dependent tolerance that the file does not write (its default does
/// not fit this scene) is reported at the joint whose numbers set the scale.
pub fn check_solver_settings(
    report: &Reporter,
    spec: &SceneFile,
    mechanism: &Mechanism,
    x0: &DVector<f64>,
) -> Result<(), SceneError> {
    let Err(e) = spec
        .solver
        .settings()
        .validate(mechanism.residual_scale(x0))
    else {
        return Ok(());
    };
    let field = e.field().name();
    let written = super::super::locate::find_section_field(report.source, "solver", field);
    let scale_bound = matches!(
        e,
        SettingsError::BelowRoundOff {
            field: Setting::NewtonTolerance | Setting::DopriAtol,
            ..
        } | SettingsError::AboveMaximum {
            field: Setting::NewtonTolerance,
            ..
        }
    );
    if written.is_none()
        && scale_bound
        && let Some(joint) = mechanism.largest_residual_joint(x0)
    {
        let name = &mechanism.joints()[joint].name;
        return Err(report.joint(
            name,
            None,
            format!(
                "the default {} does not fit this scene, whose largest constraint residuals \
                 are this joint's: {e}; write one in `solver`",
                e.field()
            ),
        ));
    }
    Err(report.error(Site::SectionField("solver", field), None, e.to_string()))
}
