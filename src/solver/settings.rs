//! Runtime settings of a simulation: step size, integrator, predictor and tolerances.
//! All of them may be changed between steps.

use crate::linalg::pivoted_qr::ROUND_OFF_FLOOR;
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

impl Settings {
    /// Checks that every number is finite and in range; returns the offending field's name.
    pub fn validate(&self) -> Result<(), String> {
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
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!(
                    "{name} must be a positive finite number, got {}",
                    crate::number_text::number_text(value)
                ));
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
        for (name, value) in below_one {
            if value >= 1.0 {
                return Err(format!(
                    "{name} is relative and must be below 1, got {}",
                    crate::number_text::number_text(value)
                ));
            }
        }
        if self.dopri_min_step > 1.0 {
            return Err(format!(
                "dopri_min_step is a fraction of dt and must be at most 1, got {}",
                crate::number_text::number_text(self.dopri_min_step)
            ));
        }
        if self.rank_tolerance < ROUND_OFF_FLOOR {
            return Err(format!(
                "rank_tolerance must be at least {ROUND_OFF_FLOOR:e} (the QR's round-off floor), got {}",
                crate::number_text::number_text(self.rank_tolerance)
            ));
        }
        // Events are where the rank at the detection tolerance drops below
        // the generic rank, so the running rank tolerance must sit below it (equal only while
        // pushing at a singularity, when the dynamics use the detection tolerance).
        if self.rank_tolerance > self.detection_tolerance {
            return Err(format!(
                "rank_tolerance ({:e}) must not exceed detection_tolerance ({:e})",
                self.rank_tolerance, self.detection_tolerance
            ));
        }
        if self.newton_max_iterations == 0 {
            return Err("newton_max_iterations must be at least 1".into());
        }
        Ok(())
    }
}
