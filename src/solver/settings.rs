//! Runtime settings of a simulation: step size, integrator, predictor and tolerances.
//! All of them may be changed between steps.

use crate::linalg::pivoted_qr::ROUND_OFF_FLOOR;
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

/// Solver settings. Tolerances on `R` are relative to `|R_00|`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
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

/// A settings value out of range. Each names the field at fault ([`SettingsError::field`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// A step size, tolerance or limit that must be positive is not (or is not finite).
    #[error("{field} must be a positive finite number, got {}", number_text(*.value))]
    NotPositive { field: &'static str, value: f64 },
    /// A tolerance relative to `|R_00|` (or Dopri5's relative tolerance) is 1 or more.
    #[error("{field} is relative and must be below 1, got {}", number_text(*.value))]
    RelativeNotBelowOne { field: &'static str, value: f64 },
    /// `dopri_min_step`, a fraction of `dt`, exceeds 1.
    #[error(
        "dopri_min_step is a fraction of dt and must be at most 1, got {}",
        number_text(*.value)
    )]
    DopriMinStepAboveOne { value: f64 },
    /// `rank_tolerance` is below the QR's round-off floor.
    #[error(
        "rank_tolerance must be at least {floor:e} (the QR's round-off floor), got {}",
        number_text(*.value),
        floor = ROUND_OFF_FLOOR
    )]
    RankToleranceBelowRoundOff { value: f64 },
    /// `rank_tolerance` exceeds `detection_tolerance`.
    #[error(
        "rank_tolerance ({rank_tolerance:e}) must not exceed detection_tolerance ({detection_tolerance:e})"
    )]
    RankToleranceAboveDetection {
        rank_tolerance: f64,
        detection_tolerance: f64,
    },
    /// `newton_max_iterations` is 0.
    #[error("newton_max_iterations must be at least 1")]
    NoNewtonIterations,
}

impl SettingsError {
    /// The name of the settings field at fault (the first of two that conflict).
    pub fn field(&self) -> &'static str {
        match self {
            Self::NotPositive { field, .. } | Self::RelativeNotBelowOne { field, .. } => field,
            Self::DopriMinStepAboveOne { .. } => "dopri_min_step",
            Self::RankToleranceBelowRoundOff { .. } | Self::RankToleranceAboveDetection { .. } => {
                "rank_tolerance"
            }
            Self::NoNewtonIterations => "newton_max_iterations",
        }
    }
}

impl Settings {
    /// Checks that every number is finite and in range; the error names the offending field.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let positive = [
            ("dt", self.dt),
            ("rank_tolerance", self.rank_tolerance),
            ("detection_tolerance", self.detection_tolerance),
            ("normal_truncation", self.normal_truncation),
            ("newton_tolerance", self.newton_tolerance),
            ("omega_step_limit", self.omega_step_limit),
            ("dopri_rtol", self.dopri_rtol),
            ("dopri_atol", self.dopri_atol),
            ("dopri_min_step", self.dopri_min_step),
        ];
        for (field, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(SettingsError::NotPositive { field, value });
            }
        }
        // Relative quantities: at 1 or above, every diagonal entry of `R` would count as zero
        // (rank 0, the mechanism falls apart), every error estimate would pass, and the
        // smallest Dopri5 step would exceed the largest.
        let below_one = [
            ("rank_tolerance", self.rank_tolerance),
            ("detection_tolerance", self.detection_tolerance),
            ("normal_truncation", self.normal_truncation),
            ("dopri_rtol", self.dopri_rtol),
        ];
        for (field, value) in below_one {
            if value >= 1.0 {
                return Err(SettingsError::RelativeNotBelowOne { field, value });
            }
        }
        if self.dopri_min_step > 1.0 {
            return Err(SettingsError::DopriMinStepAboveOne {
                value: self.dopri_min_step,
            });
        }
        if self.rank_tolerance < ROUND_OFF_FLOOR {
            return Err(SettingsError::RankToleranceBelowRoundOff {
                value: self.rank_tolerance,
            });
        }
        // Events are where the rank at the detection tolerance drops below
        // the generic rank, so the running rank tolerance must sit below it (equal only while
        // pushing at a singularity, when the dynamics use the detection tolerance).
        if self.rank_tolerance > self.detection_tolerance {
            return Err(SettingsError::RankToleranceAboveDetection {
                rank_tolerance: self.rank_tolerance,
                detection_tolerance: self.detection_tolerance,
            });
        }
        if self.newton_max_iterations == 0 {
            return Err(SettingsError::NoNewtonIterations);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Default settings with `change` applied are rejected with message `text`, naming `field`.
    fn assert_rejected(change: fn(&mut Settings), text: &str, field: &str) {
        let mut settings = Settings::default();
        change(&mut settings);
        let e = settings
            .validate()
            .expect_err("the settings are out of range");
        assert_eq!((e.to_string().as_str(), e.field()), (text, field));
    }

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Settings::default().validate(), Ok(()));
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
            |s| s.normal_truncation = 2.0,
            "normal_truncation is relative and must be below 1, got 2",
            "normal_truncation",
        );
        assert_rejected(
            |s| s.dopri_min_step = 5.0,
            "dopri_min_step is a fraction of dt and must be at most 1, got 5",
            "dopri_min_step",
        );
        assert_rejected(
            |s| s.rank_tolerance = ROUND_OFF_FLOOR / 2.0,
            &format!(
                "rank_tolerance must be at least {ROUND_OFF_FLOOR:e} (the QR's round-off floor), got {}",
                number_text(ROUND_OFF_FLOOR / 2.0)
            ),
            "rank_tolerance",
        );
        assert_rejected(
            |s| s.rank_tolerance = 1e-2,
            "rank_tolerance (1e-2) must not exceed detection_tolerance (1e-3)",
            "rank_tolerance",
        );
        assert_rejected(
            |s| s.newton_max_iterations = 0,
            "newton_max_iterations must be at least 1",
            "newton_max_iterations",
        );
    }
}
