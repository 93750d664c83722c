//! What a session shows besides its state: the plotted history, sampled at a rate that
//! follows the wall clock (smooth curves in slow motion, bounded work when behind), with the
//! extremes of the steps between samples, and the state between the last two steps that a
//! frame draws.

use nalgebra::DVector;

use super::LiveSession;
use crate::live::history::ChannelKind;
use crate::solver::{BasisMode, Simulation, StepReport};

/// Samples kept for the plots (per channel).
pub const HISTORY_CAPACITY: usize = 60_000;

/// Plot samples per second of wall time at most (the sampling interval in simulated time
/// scales with the speed, so slow motion still gives smooth curves).
const SAMPLES_PER_WALL_SECOND: f64 = 240.0;

/// Plot and trace samples per frame while the solver cannot keep up with the speed (the
/// same 240 per second at 60 frames per second).
const SAMPLES_PER_FRAME: f64 = 4.0;

/// Calls `f(slot, kind, index, column, value)` for every plotted value of the current state,
/// in the same order every time (`slot` counts the calls). `column` is the identity of the
/// continued basis' column behind a continued `q` or `qd` (when the basis shrinks, the
/// column left at an index can be another one, whose `q` started at its own event: the plot
/// breaks the line there); `None` for the others, whose index always means the same.
fn visit_plotted(
    sim: &Simulation,
    last_report: Option<&StepReport>,
    mut f: impl FnMut(usize, ChannelKind, usize, Option<u32>, f64),
) {
    let mut slot = 0;
    let mut emit = |kind, index, column, value| {
        f(slot, kind, index, column, value);
        slot += 1;
    };
    for (mode, qd_kind, q_kind) in [
        (
            BasisMode::Continued,
            ChannelKind::QdContinued,
            ChannelKind::QContinued,
        ),
        (
            BasisMode::Traditional,
            ChannelKind::QdTraditional,
            ChannelKind::QTraditional,
        ),
    ] {
        let basis = sim.basis(mode);
        let column = |k: usize| match mode {
            BasisMode::Continued => basis.labels().get(k).map(|label| label.id),
            BasisMode::Traditional => None,
        };
        for (k, v) in basis.qd().iter().enumerate() {
            emit(qd_kind, k, column(k), *v);
        }
        for (k, v) in basis.q().iter().enumerate() {
            emit(q_kind, k, column(k), *v);
        }
    }
    let qr = sim.factorization();
    let diag = sim.mechanism().n().min(sim.mechanism().m());
    let r00 = qr.r_diag_abs(0).max(f64::MIN_POSITIVE);
    for i in 0..diag {
        emit(ChannelKind::RDiagonal, i, None, qr.r_diag_abs(i) / r00);
    }
    emit(ChannelKind::Energy, 0, None, sim.energy());
    let residual = last_report.map_or(f64::NAN, |r| r.residual);
    emit(ChannelKind::Residual, 0, None, residual);
}

impl LiveSession {
    /// Positions to draw: between the state before the last step and the current one, at the
    /// display time `overstep` of the way through the last advance (0..1, from the app's fixed
    /// timestep). Paused sessions show the current state.
    pub fn display_positions(&self, overstep: f64, out: &mut DVector<f64>) {
        let current = self.sim.positions();
        if out.len() != current.len() {
            *out = current.clone();
        }
        let t_now = self.sim.time();
        let span = t_now - self.previous_t;
        if self.is_paused() || span <= 0.0 {
            out.copy_from(current);
            return;
        }
        let t_display =
            self.target_before + overstep.clamp(0.0, 1.0) * (self.target - self.target_before);
        let alpha = ((t_display - self.previous_t) / span).clamp(0.0, 1.0);
        for ((o, p), c) in out.iter_mut().zip(&self.previous_x).zip(current) {
            *o = p + alpha * (c - p);
        }
    }

    /// Display time matching [`LiveSession::display_positions`].
    pub fn display_time(&self, overstep: f64) -> f64 {
        if self.is_paused() {
            return self.sim.time();
        }
        let t = self.target_before + overstep.clamp(0.0, 1.0) * (self.target - self.target_before);
        t.clamp(self.previous_t, self.sim.time())
    }

    pub(super) fn record_if_due(&mut self) {
        let extremes = &mut self.extremes;
        visit_plotted(
            &self.sim,
            self.last_report.as_ref(),
            |slot, kind, index, column, value| {
                extremes.observe(slot, kind, index, column, value);
            },
        );
        // At the requested speed, SAMPLES_PER_WALL_SECOND. When the solver falls behind (64x
        // requested, 4x achieved) that would be one sample every quarter second of simulated
        // time, and the trace a star of chords: then a few samples per frame of what the
        // last frame achieved.
        let mut interval = self.speed / SAMPLES_PER_WALL_SECOND;
        if self.behind_progress > 0.0 {
            interval = interval.min(self.behind_progress / SAMPLES_PER_FRAME);
        }
        let due = self
            .history
            .last_time()
            .is_none_or(|last| self.sim.time() - last >= interval - 1e-12);
        if due {
            self.record();
        }
    }

    /// Appends the current state to the history (with the extremes since the last sample)
    /// and the trace.
    pub(super) fn record(&mut self) {
        self.record_history();
        self.extend_trace(true);
    }

    /// Appends the current state to the plotted history alone.
    pub(super) fn record_history(&mut self) {
        let h = &mut self.history;
        let extremes = &self.extremes;
        h.begin(self.sim.time());
        visit_plotted(
            &self.sim,
            self.last_report.as_ref(),
            |slot, kind, index, column, value| {
                let (low, high) = extremes.range(slot, kind, index, column);
                h.set_with_range(kind, index, column, value, low, high);
            },
        );
        h.finish();
        self.extremes.clear();
    }
}
