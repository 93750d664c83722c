//! Checkpoints: the complete state of a [`Simulation`] kept to go back to, for the live
//! session's timeline (seek, undo) and anything else that rewinds.
//!
//! A checkpoint is a clone of the whole simulation: positions, velocities, time with its
//! compensation, both bases with their labels and `q`, the factorisation at the state, the
//! watched rank, the event detector's window and the kept states its search goes back over,
//! the excursion tracker, Dopri5's step size, the run-time loads and settings, and the
//! workspace. The workspace is copied too, so that restoring cannot depend on which of its
//! buffers the step reads before writing: `Simulation` is deterministic, so a restored
//! checkpoint stepped N times equals the run it was taken from stepped N times, bit for bit
//! (`tests/session/timeline.rs` checks positions, velocities and both bases).
//!
//! Taking one allocates (a clone); a step never does. [`Checkpoint::bytes`] estimates the
//! heap it holds from the sizes the constructors allocate, so that a buffer of checkpoints
//! can keep to a memory budget; `tests/alloc` measures a clone with a counting allocator and
//! checks the estimate against it.

use std::sync::Arc;

use super::{KEPT_STATES, Simulation};
use crate::solver::error::SolverError;
use crate::solver::events::MAX_EVENTS_PER_STEP;

/// The complete state of a simulation at one instant.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    sim: Simulation,
    bytes: usize,
}

impl Checkpoint {
    /// The simulated time of the state kept.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// The simulation as it was (read only: restore it to go on from there).
    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    /// Estimated memory held (the value and its heap), bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Simulation {
    /// Keeps the complete current state.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            sim: self.clone(),
            bytes: self.estimated_bytes(),
        }
    }

    /// Goes back to `checkpoint`'s state exactly (it must come from this mechanism: the same
    /// scene loaded once).
    pub fn restore(&mut self, checkpoint: &Checkpoint) -> Result<(), SolverError> {
        if !Arc::ptr_eq(&self.mechanism, &checkpoint.sim.mechanism) {
            return Err(SolverError::CheckpointOfAnotherMechanism);
        }
        self.clone_from(&checkpoint.sim);
        Ok(())
    }

    /// Estimated memory of a clone (what [`Checkpoint::bytes`] reports): the value itself and
    /// the heap its constructors allocate (`n` coordinates, `m` constraints), counted by kind
    /// of buffer. `n x n` storage: the factorisations' `Q` (three), each tangent basis (two
    /// running, one scratch, two per kept state, two per preallocated event plus the event's
    /// two motion matrices), the evaluator's and the velocity projection's mass blocks, the
    /// predictor's five and the basis updater's seven. `n x m`: `R` and the reflectors of
    /// three factorisations, the Jacobians of the step, the projectors and the predictor.
    /// Vectors: the state, its turns and continuous positions and its scratch, stage buffers (14), and three per tangent basis.
    /// A workspace added later shows in `tests/alloc`, which checks this against a clone.
    pub fn estimated_bytes(&self) -> usize {
        let n = self.mechanism.n();
        let m = self.mechanism.m();
        let bases = 3 + 2 * KEPT_STATES + 2 * MAX_EVENTS_PER_STEP + 1;
        let square = 3 + bases + 2 * MAX_EVENTS_PER_STEP + 2 + 5 + 7;
        let rectangular = 3 * 2 + 1 + 2 + 2;
        let vectors = 3 * bases + 2 * KEPT_STATES + 2 * MAX_EVENTS_PER_STEP + 42;
        let short = 24;
        let words = square * n * n + rectangular * n * m + vectors * n + short * m;
        std::mem::size_of::<Self>() + 8 * words + self.extra_loads.capacity() * 64
    }
}
