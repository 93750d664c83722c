//! Typed solver failures. Each says what went wrong, when, and where in the mechanism.

use super::settings::{NEWTON_TOLERANCE_ROUND_OFF, SettingsError};
use crate::number_text::time_text;

/// Why a step (or the set-up of a simulation) failed. The simulation state is left as it was
/// before the failing step, so a caller can pause and show the message.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolverError {
    /// A coordinate, velocity or acceleration became NaN or infinite (the first body with
    /// one named).
    #[error(
        "at t = {} s the {what}{} became NaN or infinite: the step outran the motion, a smaller dt usually helps",
        time_text(*.t),
        of_body(.body.as_deref())
    )]
    NotFinite {
        t: f64,
        what: &'static str,
        body: Option<String>,
    },
    /// Newton's position projection did not bring the independent residuals below tolerance.
    #[error(
        "at t = {} s the position projection did not converge: residual {residual:.3e} (tolerance {tolerance:.0e}) after {iterations} iterations, largest at joint \"{joint}\"; {}",
        time_text(*.t),
        newton_advice(*.residual, *.round_off)
    )]
    NewtonDiverged {
        t: f64,
        iterations: usize,
        residual: f64,
        tolerance: f64,
        joint: String,
        /// Round-off of the residuals at the last iterate (`f64::EPSILON` times
        /// `Mechanism::residual_scale`).
        round_off: f64,
    },
    /// Newton did not converge because a driver's law went past the linkage's reach
    /// (`simulation::reach`): no step size helps.
    #[error(
        "at t = {} s the driver \"{driver}\" asks for a pose the linkage cannot reach: the linkage is at the limit of its reach there, so the position projection did not converge and no step size helps; change the driver's law",
        time_text(*.t)
    )]
    DriverBeyondReach { t: f64, driver: String },
    /// The projected mass matrix `T^T M T` is not positive definite (a massless direction;
    /// the body moving most along it named).
    #[error(
        "at t = {} s the projected mass matrix is not positive definite (pivot {pivot} = {value:.3e}): a direction of motion{} carries no mass",
        time_text(*.t),
        of_body(.body.as_deref())
    )]
    SingularMassBlock {
        t: f64,
        pivot: usize,
        value: f64,
        body: Option<String>,
    },
    /// The adaptive integrator could not meet its tolerance with a representable step.
    #[error(
        "at t = {} s the adaptive step fell to {h:.3e} s without meeting the tolerance",
        time_text(*.t)
    )]
    StepTooSmall { t: f64, h: f64 },
    /// The initial positions could not be assembled onto the constraint manifold.
    #[error(
        "the initial positions cannot be assembled: residual {residual:.3e} after {iterations} Newton iterations, largest at joint \"{joint}\""
    )]
    AssemblyFailed {
        iterations: usize,
        residual: f64,
        joint: String,
    },
    /// The stated initial velocities cannot be completed so that `A xd = 0`.
    #[error(
        "the stated initial velocities violate the constraints (|A xd| = {residual:.3e}, largest at joint \"{joint}\"); state fewer components"
    )]
    InconsistentVelocities { residual: f64, joint: String },
    /// A settings value is out of range.
    #[error("invalid solver settings: {0}")]
    InvalidSettings(SettingsError),
    /// The positions or velocities given do not have one entry per coordinate.
    #[error(
        "invalid state: expected {expected} coordinates and velocities, got {positions} and {velocities}"
    )]
    StateLength {
        expected: usize,
        positions: usize,
        velocities: usize,
    },
    /// A run-time load names a body the mechanism does not have.
    #[error("invalid state: load on body index {body} but the mechanism has {bodies} bodies")]
    LoadBodyOutOfRange { body: usize, bodies: usize },
    /// The direction to leave a singular configuration along is zero, not finite, or of
    /// another length than the coordinates.
    #[error("invalid state: leaving needs a non-zero direction of this mechanism")]
    LeaveDirectionInvalid,
    /// The speed to leave a singular configuration with is zero, negative or not finite.
    #[error("invalid state: the speed to leave with must be positive")]
    LeaveSpeedNotPositive,
    /// Leaving a singular configuration at rest needs a speed.
    #[error("invalid state: the mechanism is at rest here: give it a speed to leave with")]
    LeaveFromRest,
    /// A singular event's state does not fit this mechanism.
    #[error("invalid state: the event belongs to a different mechanism")]
    EventOfAnotherMechanism,
    /// A step was asked for with its limit not after the current time.
    #[error("invalid state: nothing to step: t = {t} is not before the limit {limit}")]
    NothingToStep { t: f64, limit: f64 },
    /// A tangent basis given to the dynamics has the wrong shape.
    #[error("invalid state: the basis given does not span the tangent space")]
    TangentBasisShape,
    /// Leaving along a branch was asked for away from a singular event.
    #[error("invalid state: leaving along a branch needs the mechanism paused at a singular event")]
    NotPausedAtEvent,
    /// A push was asked for with a motion of another length, a non-finite size or a duration
    /// that is not positive.
    #[error(
        "invalid state: a push needs a motion of this mechanism, a finite size and a positive duration"
    )]
    InvalidPush,
    /// A drag was asked for on a body that does not exist, or towards a target that is not
    /// finite.
    #[error("invalid state: a drag needs a body of this mechanism and a finite target")]
    InvalidDrag,
    /// A checkpoint was restored into a simulation of another mechanism.
    #[error("invalid state: the checkpoint belongs to a different mechanism")]
    CheckpointOfAnotherMechanism,
}

/// ` of body "NAME"`, or nothing.
fn of_body(body: Option<&str>) -> String {
    body.map_or_else(String::new, |b| format!(" of body \"{b}\""))
}

impl SolverError {
    /// Whether this is Newton failing at round-off: a residual within the round-off factor of
    /// the positions' round-off is `newton_tolerance`'s fault (positions far from the origin,
    /// or angles wound up over a long run), anything larger the step's.
    pub fn newton_tolerance_at_fault(&self) -> bool {
        matches!(self, Self::NewtonDiverged { residual, round_off, .. }
            if at_round_off(*residual, *round_off))
    }
}

fn at_round_off(residual: f64, round_off: f64) -> bool {
    residual <= NEWTON_TOLERANCE_ROUND_OFF * round_off
}

/// What to change when Newton did not converge ([`SolverError::newton_tolerance_at_fault`]).
fn newton_advice(residual: f64, round_off: f64) -> String {
    if at_round_off(residual, round_off) {
        format!(
            "that is round-off at these positions (about {round_off:.1e}): raise newton_tolerance"
        )
    } else {
        "a smaller dt usually helps".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_time_and_the_cause() {
        let cases = [
            (
                SolverError::NotFinite {
                    t: 0.25,
                    what: "state",
                    body: Some("crank".into()),
                },
                "at t = 0.25 s the state of body \"crank\" became NaN or infinite: the step outran the motion, a smaller dt usually helps",
            ),
            (
                SolverError::StepTooSmall { t: 1.5, h: 2.5e-9 },
                "at t = 1.5 s the adaptive step fell to 2.500e-9 s without meeting the tolerance",
            ),
            (
                SolverError::InvalidSettings(SettingsError::NewtonIterations { value: 0 }),
                "invalid solver settings: newton_max_iterations must be from 1 to 100 (Newton converges in a few iterations or not at all), got 0",
            ),
            (
                SolverError::StateLength {
                    expected: 6,
                    positions: 6,
                    velocities: 5,
                },
                "invalid state: expected 6 coordinates and velocities, got 6 and 5",
            ),
            (
                SolverError::LoadBodyOutOfRange { body: 4, bodies: 3 },
                "invalid state: load on body index 4 but the mechanism has 3 bodies",
            ),
            (
                SolverError::NothingToStep { t: 2.0, limit: 1.5 },
                "invalid state: nothing to step: t = 2 is not before the limit 1.5",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
