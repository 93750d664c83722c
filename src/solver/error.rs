//! Typed solver failures. Each says what went wrong, when, and where in the mechanism.

use std::fmt;

use crate::number_text::time_text;

/// Why a step (or the set-up of a simulation) failed. The simulation state is left as it was
/// before the failing step, so a caller can pause and show the message.
#[derive(Clone, Debug, PartialEq)]
pub enum SolverError {
    /// A coordinate, velocity or acceleration became NaN or infinite.
    NotFinite { t: f64, what: &'static str },
    /// Newton's position projection did not bring the independent residuals below tolerance.
    NewtonDiverged {
        t: f64,
        iterations: usize,
        residual: f64,
        tolerance: f64,
        joint: String,
    },
    /// The projected mass matrix `T^T M T` is not positive definite (a massless direction).
    SingularMassBlock { t: f64, pivot: usize, value: f64 },
    /// The adaptive integrator could not meet its tolerance with a representable step.
    StepTooSmall { t: f64, h: f64 },
    /// The initial positions could not be assembled onto the constraint manifold.
    AssemblyFailed {
        iterations: usize,
        residual: f64,
        joint: String,
    },
    /// The stated initial velocities cannot be completed so that `A xd = 0`.
    InconsistentVelocities { residual: f64, joint: String },
    /// A settings value is out of range.
    InvalidSettings(String),
    /// A state given to `set_state` does not match the mechanism.
    InvalidState(String),
}

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFinite { t, what } => {
                write!(
                    f,
                    "at t = {} s the {what} became NaN or infinite",
                    time_text(*t)
                )
            }
            Self::NewtonDiverged {
                t,
                iterations,
                residual,
                tolerance,
                joint,
            } => write!(
                f,
                "at t = {} s the position projection did not converge: residual {residual:.3e} (tolerance {tolerance:.0e}) after {iterations} iterations, largest at joint \"{joint}\"; a smaller dt usually helps",
                time_text(*t)
            ),
            Self::SingularMassBlock { t, pivot, value } => write!(
                f,
                "at t = {} s the projected mass matrix is not positive definite (pivot {pivot} = {value:.3e}): a direction of motion carries no mass",
                time_text(*t)
            ),
            Self::StepTooSmall { t, h } => write!(
                f,
                "at t = {} s the adaptive step fell to {h:.3e} s without meeting the tolerance",
                time_text(*t)
            ),
            Self::AssemblyFailed {
                iterations,
                residual,
                joint,
            } => write!(
                f,
                "the initial positions cannot be assembled: residual {residual:.3e} after {iterations} Newton iterations, largest at joint \"{joint}\""
            ),
            Self::InconsistentVelocities { residual, joint } => write!(
                f,
                "the stated initial velocities violate the constraints (|A xd| = {residual:.3e}, largest at joint \"{joint}\"); state fewer components"
            ),
            Self::InvalidSettings(message) => write!(f, "invalid solver settings: {message}"),
            Self::InvalidState(message) => write!(f, "invalid state: {message}"),
        }
    }
}

impl std::error::Error for SolverError {}
