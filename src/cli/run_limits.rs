//! How long a run may be: at most [`MAX_STEPS`] nominal steps, and for Dopri5 a budget of
//! steps ([`step_budget`]) that stops a run whose tolerances cannot be met.

/// Most steps a run may take (at `dt = 1e-300` it would never end).
pub(super) const MAX_STEPS: f64 = 1e9;

/// What to change when a run would take more than [`MAX_STEPS`].
pub(super) const RUN_ADVICE: &str = "use a larger --dt or a shorter --t-end";

/// The step budget of a Dopri5 run ([`step_budget`]): this many times `t_end / dt`, plus
/// [`STEP_BUDGET_EXTRA`].
const STEP_BUDGET_FACTOR: f64 = 100.0;
const STEP_BUDGET_EXTRA: f64 = 1e5;

/// Most steps a Dopri5 run to `t_end` at `dt` may take before it stops with an error:
/// `100 t_end / dt + 1e5`. Dopri5 shortens its steps to meet its tolerances down to
/// `dopri_min_step * dt` (at least 1e-6 of dt, `Settings::validate`), so a run whose
/// tolerances cannot be met could take up to a million times `t_end / dt` steps, writing a row
/// per step (`MAX_STEPS` bounds only `t_end / dt`); the budget stops it at a hundred. RK4
/// takes `t_end / dt` steps, plus one per pulse edge (steps end on them), and has no budget.
///
/// Measured with `singulab run scenes/X.ron --integrator dopri5 --t-end 10` on every shipped
/// scene, steps over `t_end / dt`: at their own dt 1.000 (the pendulums) to 1.026
/// (`four_bar`); at dt 1e-2, 1.02 to 3.5; at dt 1e-1, 6.8 to 35 (`spatial_pendulum`, 3497
/// steps, where the tolerances and not dt set the step). No step is shorter than
/// `dopri_min_step * dt` except those that land on a pulse edge or on `t_end`, so at the
/// default `dopri_min_step` of 1e-2 the factor of 100 is never reached.
pub fn step_budget(t_end: f64, dt: f64) -> u64 {
    // At most 1e11 + 1e5 (`MAX_STEPS` bounds `t_end / dt`): exact in a u64.
    (STEP_BUDGET_FACTOR * (t_end / dt).ceil() + STEP_BUDGET_EXTRA) as u64
}

#[cfg(test)]
mod tests {
    use super::step_budget;

    #[test]
    fn the_dopri5_budget_is_a_hundred_nominal_steps_and_a_margin() {
        // t_end / dt = 10 (rounded up from 9.99...): 100 * 10 + 1e5.
        assert_eq!(step_budget(0.01, 1e-3), 101_000);
        assert_eq!(step_budget(10.0, 1e-3), 1_100_000);
    }
}
