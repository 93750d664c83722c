//! Which entry of `R` the singularity indicator `rho` watches.
//!
//! `rho = |R[r_w-1, r_w-1]| / |R[0, 0]|` with `r_w` the *watched rank*: the rank at the
//! detection tolerance of the motion being followed. It is the generic rank `r_g`
//! ([`crate::solver::events`]) until the mechanism moves on a branch that stays singular: A02
//! left at its first flat pose along the branch where the first loop stays flat and the second
//! folds (Masarati, Quro and Zanoni 2023 list both folds). Along it the first loop's entry
//! stays near zero (about 2.7e-7: the event state's distance from the exact singular set,
//! which Newton cannot reduce along a vanishing normal), so `rho` at `r_g` says nothing, and
//! the second loop's later flat poses, where the next entry drops, went unreported. Watching
//! the next entry, each is an event, at the times of the folded pair's own pendulum equation
//! to 1e-6 s (`cargo test --test solver on_a_branch_that_stays_singular`).
//!
//! The rule, applied after every accepted step:
//! - the watched entry below the detection tolerance while the mechanism has moved more than
//!   [`PERSISTENT_DISTANCE`] (largest coordinate change, m or rad) since it was last above
//!   it, or since the event the motion resumed from: the branch is singular, and `r_w` drops
//!   to the rank at the detection tolerance there. A crossing of a singular configuration is
//!   far shorter: the watched entry grows like the distance from it, and is back above the
//!   tolerance within 1.3e-2 of it in every shipped linkage (the 2x3's widest crossing,
//!   1.28e-2; `cargo test --test solver crossings_are_far_shorter` prints each scene's);
//! - the rank at the detection tolerance above `r_w`: the motion left the singular set, and
//!   `r_w` rises to it (at most `r_g`).
//!
//! Either change restarts the event detector's window, whose earlier values were of another
//! entry. Resuming from an event state (pause, leave, go to) starts again from `r_g`.

use nalgebra::DVector;

use crate::linalg::PivotedQr;

/// How far (largest coordinate change, m or rad) the mechanism moves with the watched entry
/// below the detection tolerance before the branch counts as singular.
pub const PERSISTENT_DISTANCE: f64 = 0.1;

/// The watched rank and where the watched entry was last above the tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchedRank {
    rank: usize,
    generic: usize,
    anchor: DVector<f64>,
}

impl WatchedRank {
    pub fn new(n: usize) -> Self {
        Self {
            rank: 0,
            generic: 0,
            anchor: DVector::zeros(n),
        }
    }

    /// The rank `rho` watches.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Starts again from the generic rank at positions `x` (a new start or an event state).
    pub fn reset(&mut self, generic: usize, x: &DVector<f64>) {
        self.generic = generic;
        self.rank = generic;
        self.anchor.copy_from(x);
    }

    /// Shifts the anchor's coordinate `row` by `-shift` (the state's angle moved by whole
    /// turns: `simulation::turns`).
    pub fn shift_anchor(&mut self, row: usize, shift: f64) {
        self.anchor[row] -= shift;
    }

    /// Applies the rule of the module docs to the state at `x` factorised in `qr`; returns
    /// whether the watched rank changed.
    pub fn update(&mut self, qr: &PivotedQr, x: &DVector<f64>, tolerance: f64) -> bool {
        let at_tolerance = qr.rank(tolerance).min(self.generic);
        let previous = self.rank;
        if at_tolerance > self.rank {
            self.rank = at_tolerance;
        } else if rho(qr, self.rank) >= tolerance {
            self.anchor.copy_from(x);
        } else if at_tolerance < self.rank && moved_beyond(&self.anchor, x, PERSISTENT_DISTANCE) {
            self.rank = at_tolerance;
        }
        if self.rank != previous {
            self.anchor.copy_from(x);
        }
        self.rank != previous
    }
}

fn moved_beyond(from: &DVector<f64>, to: &DVector<f64>, distance: f64) -> bool {
    from.iter().zip(to).any(|(a, b)| (a - b).abs() > distance)
}

/// `|R[rank-1, rank-1]| / |R[0, 0]|` (1 for rank 0, where nothing can drop).
pub fn rho(qr: &PivotedQr, rank: usize) -> f64 {
    if rank == 0 {
        return 1.0;
    }
    let r00 = qr.r_diag_abs(0);
    if r00 == 0.0 {
        0.0
    } else {
        qr.r_diag_abs(rank - 1) / r00
    }
}
