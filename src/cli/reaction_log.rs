//! The reactions of `singulab run` (`--reactions`) and the drivers' power and work.
//!
//! The multipliers come from the state's own factorisation (`Simulation::solve_reactions`,
//! no allocation per step). Scenes with drivers need them at every step, for the power the
//! drivers put in (`Mechanism::driver_power`); its work is integrated by the trapezoidal rule
//! over the steps, and the energy check compares the energy less that work with its start.

use std::io::Write;

use nalgebra::DMatrix;

use super::csv_files::{CsvOutput, CsvRow, reaction_columns, reactions_row};
use super::error::{CliError, Stream};
use crate::scene::Scene;
use crate::solver::{Reactions, Simulation, SolverError};

/// The reactions output and the drivers' work so far.
pub(super) struct ReactionLog<'a> {
    output: Option<CsvOutput<'a>>,
    reactions: Reactions,
    jacobian: DMatrix<f64>,
    row: CsvRow,
    driven: bool,
    /// The drivers' power at the last state solved, and that state's time.
    power: f64,
    t: f64,
    work: f64,
}

impl<'a> ReactionLog<'a> {
    /// The log of a run starting at `sim`'s state: writes the header and the first row.
    pub(super) fn new(
        scene: &Scene,
        sim: &mut Simulation,
        output: Option<&'a mut dyn Write>,
    ) -> Result<Self, LogError> {
        let mechanism = sim.mechanism().clone();
        let mut log = Self {
            output: output.map(|w| CsvOutput::new(w, Stream::Reactions)),
            reactions: Reactions::new(&mechanism),
            jacobian: DMatrix::zeros(mechanism.m(), mechanism.n()),
            row: CsvRow::default(),
            driven: mechanism.is_rheonomic(),
            power: 0.0,
            t: sim.time(),
            work: 0.0,
        };
        if let Some(output) = log.output.as_mut() {
            output.write_header(&reaction_columns(scene))?;
        }
        if log.output.is_some() || log.driven {
            log.solve(sim)?;
            log.write_row(sim)?;
        }
        Ok(log)
    }

    /// Accounts for a step that reached `sim`'s state, writing a row when `due`.
    pub(super) fn record_step(&mut self, sim: &mut Simulation, due: bool) -> Result<(), LogError> {
        let due = due && self.output.is_some();
        if !(due || self.driven) {
            return Ok(());
        }
        let (t_before, power_before) = (self.t, self.power);
        self.solve(sim)?;
        self.work += 0.5 * (power_before + self.power) * (self.t - t_before);
        if due {
            self.write_row(sim)?;
        }
        Ok(())
    }

    /// The work the drivers did since the start (0 without drivers).
    pub(super) fn work(&self) -> f64 {
        self.work
    }

    pub(super) fn flush(&mut self) -> Result<(), CliError> {
        match self.output.as_mut() {
            Some(output) => output.flush(),
            None => Ok(()),
        }
    }

    fn solve(&mut self, sim: &mut Simulation) -> Result<(), SolverError> {
        sim.solve_reactions(&mut self.reactions)?;
        self.t = sim.time();
        if self.driven {
            self.power = sim
                .mechanism()
                .driver_power(self.t, self.reactions.lambda());
        }
        Ok(())
    }

    fn write_row(&mut self, sim: &Simulation) -> Result<(), CliError> {
        let Some(output) = self.output.as_mut() else {
            return Ok(());
        };
        sim.mechanism()
            .jacobian(sim.positions(), &mut self.jacobian);
        let driver = self.driven.then_some((self.power, self.work));
        reactions_row(
            &mut self.row,
            sim,
            &self.jacobian,
            self.reactions.lambda(),
            driver,
        );
        output.write_row(&self.row)
    }
}

/// A failure of the log: the solver's (at the state it solved) or the output's.
pub(super) enum LogError {
    Solver(SolverError),
    Output(CliError),
}

impl From<SolverError> for LogError {
    fn from(e: SolverError) -> Self {
        Self::Solver(e)
    }
}

impl From<CliError> for LogError {
    fn from(e: CliError) -> Self {
        Self::Output(e)
    }
}
