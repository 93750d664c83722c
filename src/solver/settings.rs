//! Runtime settings of a simulation: step size, integrator, predictor and tolerances.
//! All of them may be changed between steps.

use crate::linalg::pivoted_qr::ROUND_OFF_FLOOR;
#[cfg(doc)]
use crate::model::Mechanism;
use crate::number_text::number_text;
use serde::{Deserialize, Serialize};

/// Time integrator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Integrator {
    /// Classical fixed-step fourth-order Runge-Kutta.
    #[default]
    Rk4,
    /// Embedded adaptive Dormand-Prince 5(4), for reference-quality runs.
    Dopri5,
}

/// Which tangent basis is shown (both are tracked every step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BasisMode {
    /// Whatever columns the QR factorization returns at each step.
    Traditional,
    /// Projection continuation (predictor plus polar corrector).
    #[default]
    Continued,
}

/// Predictor of the continued tangent basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Predictor {
    /// `Q_k exp(h Omega)` with `Omega` from the analytic `dA/dt` (Masarati et al. 2023, eq. 22 and
    /// appendices B-C).
    #[default]
    Omega,
    /// `T_pred = T_k`: the corrector alone.
    Zeroth,
}

/// Solver settings (a scene file's `solver` section is `scene::format::SolverSpec`).
/// Tolerances on `R` are relative to `|R_00|`.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Step size (RK4) or the largest step (Dopri5), in s.
    pub dt: f64,
    pub integrator: Integrator,
    pub predictor: Predictor,
    /// Relative tolerance on the `R` diagonal that decides the rank seen by the dynamics.
    pub rank_tolerance: f64,
    /// Relative tolerance on the `R` diagonal below which a located minimum is a singular event.
    pub detection_tolerance: f64,
    /// Relative threshold on the `R` diagonal below which a constraint normal is left out of
    /// Newton's position correction and of the curvature term `beta''` (so that near a singular
    /// configuration nothing divides by a vanishing `R` entry, and Newton never moves the
    /// mechanism along a nearly free direction onto another branch).
    pub normal_truncation: f64,
    /// Absolute tolerance on the independent constraint residuals after Newton.
    pub newton_tolerance: f64,
    pub newton_max_iterations: usize,
    /// The `exp(h Omega)` predictor falls back to zeroth order when `h |Omega|_F` exceeds this.
    pub omega_step_limit: f64,
    /// Dopri5 relative and absolute error tolerances.
    pub dopri_rtol: f64,
    pub dopri_atol: f64,
    /// Dopri5's smallest step as a fraction of `dt`. Near a singular configuration no step
    /// meets the error estimate; steps of this size are then accepted and reported as forced.
    pub dopri_min_step: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            dt: 1e-3,
            integrator: Integrator::Rk4,
            predictor: Predictor::Omega,
            rank_tolerance: 1e-10,
            detection_tolerance: 1e-3,
            normal_truncation: 1e-4,
            newton_tolerance: 1e-12,
            newton_max_iterations: 20,
            omega_step_limit: 0.5,
            dopri_rtol: 1e-9,
            dopri_atol: 1e-11,
            dopri_min_step: 1e-2,
        }
    }
}

/// Largest `rank_tolerance` a person may choose. Above it the dynamics drop constraint normals
/// that are weak but not redundant: A02 over 10 s at dt 1e-3 drifts 1.4e-8 J at every rank
/// tolerance from 1e-10 to 1e-4, 1.1e-3 J at 1e-3 and 1.2e-2 J at 1e-2 (with the detection
/// tolerance raised to match). Only a push raises it, to the detection tolerance, for as long as
/// it lasts ([`Settings::during_push`]).
pub const RANK_TOLERANCE_MAX: f64 = 1e-4;
/// Largest `detection_tolerance`: the detector searches only minima of `rho` below 0.25
/// (`solver::events`), and a tolerance near that reports one of A02's ten singular
/// configurations at 0.5 (ten at 0.25 and below).
pub const DETECTION_TOLERANCE_MAX: f64 = 0.1;
/// Largest `normal_truncation`: the scan in `solver::projection` keeps every step size within
/// 1e-3 J on A02 up to 1e-3; at 1e-2 the drift at dt 1e-3 is 8.3e-4 J, at 0.1 4.3e-2 J.
pub const NORMAL_TRUNCATION_MAX: f64 = 1e-3;
/// Dopri5's relative tolerance: at least the QR's round-off floor, at most 1e-2 (a looser
/// estimate accepts any step).
pub const DOPRI_RTOL_MAX: f64 = 1e-2;
/// Smallest `dopri_min_step` (a fraction of `dt`): below it a step that cannot meet the
/// tolerance creeps for up to a million steps per `dt` (`singulab run` also stops runs that
/// take many times `t_end / dt` steps).
pub const DOPRI_MIN_STEP_MIN: f64 = 1e-6;
/// Most Newton iterations per projection: Newton converges quadratically from a step's
/// prediction (2-3 iterations on the shipped scenes); an iteration count this large only
/// delays the failure of one that cannot converge.
pub const NEWTON_MAX_ITERATIONS_MAX: usize = 100;
/// Largest `omega_step_limit` (rad per step): `exp(h Omega)` is summed as a Taylor series of at
/// most 40 terms, whose last term at `h |Omega| = 2` is 2^40 / 40! = 1.3e-36.
pub const OMEGA_STEP_LIMIT_MAX: f64 = 2.0;
/// `newton_tolerance` (and `dopri_atol`) at least this many times the round-off of the
/// constraint residuals at the scene's scale ([`Mechanism::residual_scale`] times
/// `f64::EPSILON`): Newton stops at a few units of round-off (4.4e-16 on the four-bar, whose
/// scale is 2 m), so a tolerance below that is never met.
pub const NEWTON_TOLERANCE_ROUND_OFF: f64 = 32.0;
/// `newton_tolerance` at most this fraction of the scene's scale: a projection that leaves
/// residuals of a thousandth of the mechanism's size is no projection.
pub const NEWTON_TOLERANCE_MAX: f64 = 1e-3;

/// A field of [`Settings`], known by the name scene files write it under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Dt,
    Integrator,
    Predictor,
    RankTolerance,
    DetectionTolerance,
    NormalTruncation,
    NewtonTolerance,
    NewtonMaxIterations,
    OmegaStepLimit,
    DopriRtol,
    DopriAtol,
    DopriMinStep,
}

impl Setting {
    /// The field's name in a scene file's `solver` section.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dt => "dt",
            Self::Integrator => "integrator",
            Self::Predictor => "predictor",
            Self::RankTolerance => "rank_tolerance",
            Self::DetectionTolerance => "detection_tolerance",
            Self::NormalTruncation => "normal_truncation",
            Self::NewtonTolerance => "newton_tolerance",
            Self::NewtonMaxIterations => "newton_max_iterations",
            Self::OmegaStepLimit => "omega_step_limit",
            Self::DopriRtol => "dopri_rtol",
            Self::DopriAtol => "dopri_atol",
            Self::DopriMinStep => "dopri_min_step",
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A settings value out of range. Each names the field at fault ([`SettingsError::field`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// A step size, tolerance or limit that must be positive is not (or is not finite).
    #[error("{field} must be a positive finite number, got {}", number_text(*.value))]
    NotPositive { field: Setting, value: f64 },
    /// A tolerance is above its largest sensible value.
    #[error(
        "{field} must be at most {} ({why}), got {}",
        number_text(*.max),
        number_text(*.value)
    )]
    AboveMaximum {
        field: Setting,
        value: f64,
        max: f64,
        why: &'static str,
    },
    /// A tolerance is below the round-off it is compared with.
    #[error(
        "{field} must be at least {} ({why}), got {}",
        number_text(*.min),
        number_text(*.value)
    )]
    BelowRoundOff {
        field: Setting,
        value: f64,
        min: f64,
        why: &'static str,
    },
    /// `rank_tolerance` exceeds `detection_tolerance`.
    #[error(
        "rank_tolerance ({rank_tolerance:e}) must not exceed detection_tolerance ({detection_tolerance:e})"
    )]
    RankToleranceAboveDetection {
        rank_tolerance: f64,
        detection_tolerance: f64,
    },
    /// `newton_max_iterations` is 0 or above [`NEWTON_MAX_ITERATIONS_MAX`].
    #[error(
        "newton_max_iterations must be from 1 to {NEWTON_MAX_ITERATIONS_MAX} (Newton converges in a few iterations or not at all), got {value}"
    )]
    NewtonIterations { value: usize },
}

impl SettingsError {
    /// The name of the settings field at fault (the first of two that conflict).
    pub fn field(&self) -> Setting {
        match self {
            Self::NotPositive { field, .. }
            | Self::AboveMaximum { field, .. }
            | Self::BelowRoundOff { field, .. } => *field,
            Self::RankToleranceAboveDetection { .. } => Setting::RankTolerance,
            Self::NewtonIterations { .. } => Setting::NewtonMaxIterations,
        }
    }
}

impl Settings {
    /// The settings of a push at a singular configuration: the detection tolerance as rank
    /// tolerance, so that the dynamics see the enlarged tangent space.
    pub fn during_push(&self) -> Self {
        Self {
            rank_tolerance: self.detection_tolerance,
            ..self.clone()
        }
    }

    /// Checks that every number is finite and in range for a mechanism whose constraint
    /// residuals are computed from numbers of size `scale` (m; see
    /// [`Mechanism::residual_scale`]); the error names the offending field.
    pub fn validate(&self, scale: f64) -> Result<(), SettingsError> {
        self.validate_positive()?;
        self.validate_relative()?;
        // Events are where the rank at the detection tolerance drops below the generic rank,
        // so the running rank tolerance sits below it (equal only during a push, whose
        // settings `Simulation::set_push_settings` checks as the usual ones).
        if self.rank_tolerance > self.detection_tolerance {
            return Err(SettingsError::RankToleranceAboveDetection {
                rank_tolerance: self.rank_tolerance,
                detection_tolerance: self.detection_tolerance,
            });
        }
        if !(1..=NEWTON_MAX_ITERATIONS_MAX).contains(&self.newton_max_iterations) {
            return Err(SettingsError::NewtonIterations {
                value: self.newton_max_iterations,
            });
        }
        self.validate_absolute(scale)
    }

    fn validate_positive(&self) -> Result<(), SettingsError> {
        let positive = [
            (Setting::Dt, self.dt),
            (Setting::RankTolerance, self.rank_tolerance),
            (Setting::DetectionTolerance, self.detection_tolerance),
            (Setting::NormalTruncation, self.normal_truncation),
            (Setting::NewtonTolerance, self.newton_tolerance),
            (Setting::OmegaStepLimit, self.omega_step_limit),
            (Setting::DopriRtol, self.dopri_rtol),
            (Setting::DopriAtol, self.dopri_atol),
            (Setting::DopriMinStep, self.dopri_min_step),
        ];
        match positive
            .into_iter()
            .find(|(_, value)| !(value.is_finite() && *value > 0.0))
        {
            Some((field, value)) => Err(SettingsError::NotPositive { field, value }),
            None => Ok(()),
        }
    }

    /// The tolerances relative to `|R_00|` (or to the solution, or to `dt`), each within
    /// its range.
    fn validate_relative(&self) -> Result<(), SettingsError> {
        let round_off = "the QR's round-off floor";
        let ranges = [
            (
                Setting::RankTolerance,
                self.rank_tolerance,
                ROUND_OFF_FLOOR,
                round_off,
                RANK_TOLERANCE_MAX,
                "above it the dynamics drop constraints that are weak but not redundant",
            ),
            (
                Setting::DetectionTolerance,
                self.detection_tolerance,
                ROUND_OFF_FLOOR,
                round_off,
                DETECTION_TOLERANCE_MAX,
                "the detector searches only minima of |R_ii| / |R_00| well below 1",
            ),
            (
                Setting::NormalTruncation,
                self.normal_truncation,
                ROUND_OFF_FLOOR,
                round_off,
                NORMAL_TRUNCATION_MAX,
                "above it Newton leaves out normals that are not vanishing",
            ),
            (
                Setting::DopriRtol,
                self.dopri_rtol,
                ROUND_OFF_FLOOR,
                "below it round-off fails every error estimate",
                DOPRI_RTOL_MAX,
                "a looser estimate accepts any step",
            ),
            (
                Setting::DopriMinStep,
                self.dopri_min_step,
                DOPRI_MIN_STEP_MIN,
                "a fraction of dt; smaller steps creep",
                1.0,
                "a fraction of dt",
            ),
            (
                Setting::OmegaStepLimit,
                self.omega_step_limit,
                0.0,
                "",
                OMEGA_STEP_LIMIT_MAX,
                "the series of exp(h Omega) is accurate to there",
            ),
        ];
        for (field, value, min, why_min, max, why_max) in ranges {
            if value < min {
                return Err(SettingsError::BelowRoundOff {
                    field,
                    value,
                    min,
                    why: why_min,
                });
            }
            if value > max {
                return Err(SettingsError::AboveMaximum {
                    field,
                    value,
                    max,
                    why: why_max,
                });
            }
        }
        Ok(())
    }

    /// The absolute tolerances against the round-off of residuals computed from numbers of
    /// size `scale`.
    fn validate_absolute(&self, scale: f64) -> Result<(), SettingsError> {
        let floor = three_digits(NEWTON_TOLERANCE_ROUND_OFF * f64::EPSILON * scale, f64::ceil);
        let why =
            "the round-off of this scene's constraints, from its largest coordinate or length";
        for (field, value) in [
            (Setting::NewtonTolerance, self.newton_tolerance),
            (Setting::DopriAtol, self.dopri_atol),
        ] {
            if value < floor {
                return Err(SettingsError::BelowRoundOff {
                    field,
                    value,
                    min: floor,
                    why,
                });
            }
        }
        let ceiling = three_digits(NEWTON_TOLERANCE_MAX * scale, f64::floor);
        if scale > 0.0 && self.newton_tolerance > ceiling {
            return Err(SettingsError::AboveMaximum {
                field: Setting::NewtonTolerance,
                value: self.newton_tolerance,
                max: ceiling,
                why: "a thousandth of the size of this scene's constraint residuals",
            });
        }
        Ok(())
    }
}

/// `value` to three significant digits, rounded by `round` (up for a floor, down for a
/// ceiling), so that the bound a message shows is one that passes.
fn three_digits(value: f64, round: fn(f64) -> f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return value;
    }
    let exponent = value.log10().floor() as i32 - 2;
    let digits = round(value / 10f64.powi(exponent));
    // Read back from text, so that the bound is the decimal number the message shows.
    format!("{digits}e{exponent}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-bar's residual scale: its largest coordinate is 2 m.
    const SCALE: f64 = 2.0;

    /// Default settings with `change` applied are rejected with message `text`, naming `field`.
    fn assert_rejected(change: fn(&mut Settings), text: &str, field: &str) {
        let mut settings = Settings::default();
        change(&mut settings);
        let e = settings
            .validate(SCALE)
            .expect_err("the settings are out of range");
        assert_eq!((e.to_string().as_str(), e.field().name()), (text, field));
    }

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Settings::default().validate(SCALE), Ok(()));
    }

    #[test]
    fn each_check_names_its_field_first() {
        assert_rejected(
            |s| s.dt = -1e-3,
            "dt must be a positive finite number, got -0.001",
            "dt",
        );
        assert_rejected(
            |s| s.dopri_atol = f64::NAN,
            "dopri_atol must be a positive finite number, got NaN",
            "dopri_atol",
        );
        assert_rejected(
            |s| s.rank_tolerance = ROUND_OFF_FLOOR / 2.0,
            &format!(
                "rank_tolerance must be at least 1e-13 (the QR's round-off floor), got {}",
                number_text(ROUND_OFF_FLOOR / 2.0)
            ),
            "rank_tolerance",
        );
        assert_rejected(
            |s| s.detection_tolerance = 5e-11,
            "rank_tolerance (1e-10) must not exceed detection_tolerance (5e-11)",
            "rank_tolerance",
        );
        assert_rejected(
            |s| s.newton_max_iterations = 0,
            "newton_max_iterations must be from 1 to 100 (Newton converges in a few iterations or not at all), got 0",
            "newton_max_iterations",
        );
    }

    /// The relative tolerances near 1 that ran wrong without a word: the rank tolerance at 0.5
    /// let A02's energy grow from 35.8 to 134 J in 2 s; 1e-2 with detection at 0.5 reported
    /// one of its ten singular configurations.
    #[test]
    fn relative_tolerances_stay_well_below_one() {
        assert_rejected(
            |s| {
                s.rank_tolerance = 1e-2;
                s.detection_tolerance = 0.05;
            },
            "rank_tolerance must be at most 0.0001 (above it the dynamics drop constraints that are weak but not redundant), got 0.01",
            "rank_tolerance",
        );
        assert_rejected(
            |s| s.detection_tolerance = 0.5,
            "detection_tolerance must be at most 0.1 (the detector searches only minima of |R_ii| / |R_00| well below 1), got 0.5",
            "detection_tolerance",
        );
        assert_rejected(
            |s| s.normal_truncation = 2.0,
            "normal_truncation must be at most 0.001 (above it Newton leaves out normals that are not vanishing), got 2",
            "normal_truncation",
        );
        assert_rejected(
            |s| s.dopri_rtol = 0.999999,
            "dopri_rtol must be at most 0.01 (a looser estimate accepts any step), got 0.999999",
            "dopri_rtol",
        );
        assert_rejected(
            |s| s.dopri_min_step = 5.0,
            "dopri_min_step must be at most 1 (a fraction of dt), got 5",
            "dopri_min_step",
        );
    }

    /// Tolerances that no step can meet: Dopri5's smallest step at 1e-300 of dt crept at
    /// 1e-300 s per step, and Newton after 2^64 - 1 iterations never returned.
    #[test]
    fn unreachable_tolerances_and_endless_iterations_are_refused() {
        assert_rejected(
            |s| s.dopri_min_step = 1e-300,
            "dopri_min_step must be at least 1e-6 (a fraction of dt; smaller steps creep), got 1e-300",
            "dopri_min_step",
        );
        assert_rejected(
            |s| s.newton_max_iterations = usize::MAX,
            &format!(
                "newton_max_iterations must be from 1 to 100 (Newton converges in a few iterations or not at all), got {}",
                usize::MAX
            ),
            "newton_max_iterations",
        );
        assert_rejected(
            |s| s.dopri_rtol = 1e-300,
            "dopri_rtol must be at least 1e-13 (below it round-off fails every error estimate), got 1e-300",
            "dopri_rtol",
        );
    }

    /// Newton stops at a few units of round-off of the residuals (4.4e-16 on the four-bar):
    /// `newton_tolerance` 1e-16 failed in the first step. The floor scales with the scene.
    #[test]
    fn the_newton_tolerance_floor_follows_the_scene_scale() {
        let floor = three_digits(NEWTON_TOLERANCE_ROUND_OFF * f64::EPSILON * SCALE, f64::ceil);
        let at = |newton_tolerance: f64, scale: f64| {
            Settings {
                newton_tolerance,
                dopri_atol: newton_tolerance,
                ..Settings::default()
            }
            .validate(scale)
        };
        assert!(matches!(
            at(1e-16, SCALE),
            Err(SettingsError::BelowRoundOff {
                field: Setting::NewtonTolerance,
                ..
            })
        ));
        assert_eq!(at(floor, SCALE), Ok(()));
        // The default 1e-12 m is too fine for a mechanism 1000 km from the origin.
        assert!(at(1e-12, 1e6).is_err());
        assert_eq!(at(1e-8, 1e6), Ok(()));
        // ... and a tolerance of a metre too coarse for a 2 m one.
        assert!(matches!(
            at(1.0, SCALE),
            Err(SettingsError::AboveMaximum {
                field: Setting::NewtonTolerance,
                ..
            })
        ));
    }

    /// A push raises the rank tolerance to the detection tolerance, above what a person may
    /// choose; `during_push` is how the simulation gets there.
    #[test]
    fn push_settings_raise_the_rank_tolerance_to_the_detection_tolerance() {
        let usual = Settings::default();
        let push = usual.during_push();
        assert_eq!(push.rank_tolerance, usual.detection_tolerance);
        assert!(push.validate(SCALE).is_err());
    }
}
