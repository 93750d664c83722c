//! What a run did ([`RunSummary`]): counted as it steps, for the summary line on stderr and
//! the notes and warnings after it.

use crate::scene::Scene;
use crate::solver::{Integrator, Simulation, StepReport};

/// What a run did, for the caller's summary line and the notes and warnings after it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub steps: u64,
    /// Rows handed to the trajectory's writer (all written: a failed write fails the run).
    pub rows: u64,
    pub events: usize,
    pub t_end: f64,
    /// Steps whose rank exceeded the generic rank (the mechanism left its branch for a
    /// locked one: a singular crossing went wrong).
    pub steps_above_generic_rank: u64,
    /// Dopri5 steps accepted without meeting the tolerance (across singular configurations).
    pub forced_steps: u64,
    /// QR factorisations of `A^T` over the run (stages, Newton iterates, events).
    pub factorizations: u64,
    /// The rank at the start and the generic rank, when the start is a singular configuration.
    pub starts_singular: Option<(usize, usize)>,
    /// How assembly moved the stated pose, if it did (`Scene::assembly_note`), and whether it
    /// moved it far more than rounding (the stated pose did not fit the joints).
    pub assembly_note: Option<String>,
    pub assembly_far_off: bool,
    /// Largest drift of the energy where the scene conserves it: kinetic plus gravitational
    /// plus the potential of constant loads, over the steps outside load pulses, from the
    /// energy at the start or at the end of the last pulse passed (the private
    /// `cli::energy_check`).
    pub energy_drift: f64,
    /// Whether that largest drift came after a load pulse had acted.
    pub drift_after_pulse: bool,
    /// Whether the scene has load pulses (steps during them are not checked).
    pub has_pulses: bool,
    /// Largest kinetic energy over the steps (the scale of the energy warning).
    pub kinetic_max: f64,
    /// The work the drivers did over the run, for scenes with drivers (the energy check then
    /// compares the energy less this work with its start).
    pub driver_work: Option<f64>,
    /// A lesson's `t_end`, when its rows end before it (held by a `Pause`, or back at an
    /// earlier event).
    pub lesson_ended_before: Option<f64>,
    /// A replay stopped by `--t-end`: the first action not done (from 1) and the lesson's
    /// count of actions.
    pub lesson_stopped_before: Option<(usize, usize)>,
    /// The integrator the run used (the advice after a jam depends on it).
    pub integrator: Integrator,
}

impl RunSummary {
    /// The summary of a run that has written its first row (t = 0) and taken no step.
    pub(super) fn at_start(scene: &Scene, sim: &Simulation, t_end: f64) -> Self {
        Self {
            steps: 0,
            rows: 1,
            events: 0,
            t_end,
            steps_above_generic_rank: 0,
            forced_steps: 0,
            factorizations: 0,
            starts_singular: sim.starts_singular(),
            assembly_note: scene.assembly_note(),
            assembly_far_off: scene.assembled_far_off(),
            energy_drift: 0.0,
            drift_after_pulse: false,
            has_pulses: scene.mechanism.loads().iter().any(|l| l.window.is_some()),
            kinetic_max: scene
                .mechanism
                .kinetic_energy(sim.positions(), sim.velocities()),
            driver_work: None,
            lesson_ended_before: None,
            lesson_stopped_before: None,
            integrator: sim.settings().integrator,
        }
    }

    /// Accounts for a step that reached `sim`'s current state.
    pub(super) fn record_step(&mut self, scene: &Scene, sim: &Simulation, report: &StepReport) {
        self.steps += 1;
        self.steps_above_generic_rank += u64::from(report.rank > sim.generic_rank());
        self.forced_steps += u64::from(report.forced);
        self.kinetic_max = self.kinetic_max.max(
            scene
                .mechanism
                .kinetic_energy(sim.positions(), sim.velocities()),
        );
    }
}
