//! The energy check of `singulab run`: wherever the scene conserves energy, how far its energy
//! drifted.
//!
//! The equations of motion take the loads as generalized forces on the absolute coordinates
//! (`Mechanism::forces`: a force's components on the body's centre of mass, a bar's torque on
//! its angle), and the constraint forces do no work. So a constant force or planar torque is
//! conservative, with the potential `-F . r - tau theta` (`r` the centre of mass, `theta` the
//! bar's angle, both as integrated, the angle not wrapped), and the checked energy is the
//! kinetic energy plus the gravitational potential (the CSV's `energy` column) plus that
//! potential. A constant torque `tau` on a spatial rigid body does the work
//! `tau . integral(omega dt)` (`omega` the angular velocity in global axes), which is no
//! function of the pose (the integral of `omega` is not, unless the body turns about a fixed
//! axis): its power `tau . omega` is integrated by the trapezoidal rule over the steps and its
//! work is taken off the checked energy, as the drivers' work is.
//! A pulse (a load with a time window) does work while it acts: steps that overlap a window are
//! not checked, and each window passed sets the reference anew to the energy at the end of its
//! last step (the first reference is the energy at the start). Steps end on every window's
//! edges (`Simulation::step_until`), so a step is either inside a window or outside all of them.
//! Drivers do work too, all the time: for scenes with drivers the caller passes the energy less
//! the drivers' work so far (`cli::reaction_log`), which the same check holds constant.

use crate::model::{LoadKind, Mechanism};

/// The running check: the reference energy and the largest drift from it so far.
#[derive(Clone, Debug)]
pub(super) struct EnergyCheck {
    /// The windows `(start, end)` of the scene's pulses.
    windows: Vec<(f64, f64)>,
    reference: f64,
    drift: f64,
    pulse_passed: bool,
    drift_after_pulse: bool,
    /// The work of the constant spatial torques since the reference, and their power at the
    /// last state recorded, at time `t`.
    torque_work: f64,
    torque_power: f64,
    t: f64,
}

impl EnergyCheck {
    /// A check that starts from the state `(x, xd)` at time `t`.
    pub(super) fn new(
        mechanism: &Mechanism,
        t: f64,
        x: &nalgebra::DVector<f64>,
        xd: &nalgebra::DVector<f64>,
    ) -> Self {
        Self {
            windows: mechanism.loads().iter().filter_map(|l| l.window).collect(),
            reference: checked_energy(mechanism, mechanism.energy(x, xd), x),
            drift: 0.0,
            pulse_passed: false,
            drift_after_pulse: false,
            torque_work: 0.0,
            torque_power: spatial_torque_power(mechanism, x, xd),
            t,
        }
    }

    /// Accounts for a step from `t_start` that ended at `t_end` with the energy `energy`
    /// (kinetic plus gravitational, as the solver reports it) at the state `(x, xd)`.
    pub(super) fn record_step(
        &mut self,
        mechanism: &Mechanism,
        t_start: f64,
        t_end: f64,
        energy: f64,
        x: &nalgebra::DVector<f64>,
        xd: &nalgebra::DVector<f64>,
    ) {
        let power = spatial_torque_power(mechanism, x, xd);
        self.torque_work += 0.5 * (self.torque_power + power) * (t_end - self.t);
        self.torque_power = power;
        self.t = t_end;
        let energy = checked_energy(mechanism, energy, x) - self.torque_work;
        let in_pulse = self
            .windows
            .iter()
            .any(|&(start, end)| t_start < end && t_end > start);
        if in_pulse {
            self.reference = energy;
            self.pulse_passed = true;
        } else {
            let drift = (energy - self.reference).abs();
            if drift > self.drift {
                self.drift = drift;
                self.drift_after_pulse = self.pulse_passed;
            }
        }
    }

    /// Takes the energy at the state `(x, xd)` at time `t` as the reference from now on, as
    /// after a pulse: a lesson's push or its leave at a chosen speed changed the energy.
    pub(super) fn restart(
        &mut self,
        mechanism: &Mechanism,
        t: f64,
        energy: f64,
        x: &nalgebra::DVector<f64>,
        xd: &nalgebra::DVector<f64>,
    ) {
        self.rebase(mechanism, t, energy, x, xd);
        self.pulse_passed = true;
    }

    /// Takes the energy at the state `(x, xd)` at time `t` as the reference from now on, the
    /// work counted from there: a lesson went back to an earlier state.
    pub(super) fn rebase(
        &mut self,
        mechanism: &Mechanism,
        t: f64,
        energy: f64,
        x: &nalgebra::DVector<f64>,
        xd: &nalgebra::DVector<f64>,
    ) {
        self.reference = checked_energy(mechanism, energy, x);
        self.torque_work = 0.0;
        self.torque_power = spatial_torque_power(mechanism, x, xd);
        self.t = t;
    }

    /// The largest `|E - E_ref|` over the steps outside pulses, in J.
    pub(super) fn drift(&self) -> f64 {
        self.drift
    }

    /// Whether that largest drift came after a pulse had acted.
    pub(super) fn drift_after_pulse(&self) -> bool {
        self.drift_after_pulse
    }
}

/// `energy` (kinetic plus gravitational) plus the potential of the constant loads at `x`.
fn checked_energy(mechanism: &Mechanism, energy: f64, x: &nalgebra::DVector<f64>) -> f64 {
    let mut potential = 0.0;
    for load in mechanism.loads().iter().filter(|l| l.window.is_none()) {
        let body = &mechanism.bodies()[load.body];
        match load.kind {
            LoadKind::Force(force) => {
                for (k, component) in force.iter().enumerate().take(body.translational_dim()) {
                    potential -= component * x[body.offset + k];
                }
            }
            LoadKind::Torque(torque) => {
                if body.has_angle() {
                    potential -= torque * x[body.offset + 2];
                }
            }
            // Not conservative: its work is integrated (`spatial_torque_power`).
            LoadKind::SpatialTorque(_) => {}
        }
    }
    energy + potential
}

/// The power `tau . omega` of the constant torques on spatial rigid bodies at `(x, xd)`.
fn spatial_torque_power(
    mechanism: &Mechanism,
    x: &nalgebra::DVector<f64>,
    xd: &nalgebra::DVector<f64>,
) -> f64 {
    let mut velocity = [0.0; 7];
    let mut power = 0.0;
    for load in mechanism.loads().iter().filter(|l| l.window.is_none()) {
        if let LoadKind::SpatialTorque(torque) = load.kind {
            // A rigid body's velocity columns: vx, vy, vz, then omega in global axes.
            mechanism.body_velocity(load.body, x, xd, &mut velocity);
            power += (0..3).map(|k| torque[k] * velocity[3 + k]).sum::<f64>();
        }
    }
    power
}
