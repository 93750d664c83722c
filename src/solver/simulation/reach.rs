//! Whether a failed step's driver asked for a pose the linkage cannot reach.
//!
//! A driver prescribes one coordinate `d(x) = d(t)` of a linkage that would otherwise move
//! freely. Near the limit of the linkage's reach in that coordinate, the admissible motions of
//! the linkage without the driver change `d` less and less: the driver's row becomes a
//! combination of the other rows, and a law that goes on past the limit has no solution,
//! whatever the step. The leverage of driver row `a_d` on the undriven linkage,
//! `|T^T a_d| / |a_d|` with `T` an orthonormal basis of the null space of the other rows,
//! measures this: 1 when the driver moves the linkage freely, 0 at the limit.

use nalgebra::{DMatrix, DVector};

use super::Simulation;
use crate::linalg::PivotedQr;

/// A driver whose leverage at the last state before Newton failed has dropped below this
/// fraction of the lowest at the start asked for a pose past the linkage's reach. (The
/// mobile robot's driver: 0.032 at the start and along its shipped run, 2.8e-3 at the last
/// state before a law past its reach fails at dt 1e-3, 3.0e-4 at dt 1e-4.)
const REACH_DROP: f64 = 0.25;

impl Simulation {
    /// The name of the driver whose leverage on the linkage without it is lowest at the
    /// current state, if it dropped below `REACH_DROP` of the start's.
    pub(super) fn driver_out_of_reach(&self) -> Option<String> {
        self.lowest_driver_leverage()
            .filter(|(leverage, _)| *leverage < REACH_DROP * self.start_leverage)
            .map(|(_, name)| name)
    }

    /// The lowest leverage of a driver at the current state, and its joint's name; `None`
    /// without drivers. Allocates (at the start and after a failure only).
    pub(super) fn lowest_driver_leverage(&self) -> Option<(f64, String)> {
        let mechanism = &self.mechanism;
        let (n, m) = (mechanism.n(), mechanism.m());
        let mut a = DMatrix::zeros(m, n);
        mechanism.jacobian(&self.x, &mut a);
        let mut lowest: Option<(f64, String)> = None;
        for joint in mechanism.joints() {
            if !joint.is_driver() {
                continue;
            }
            let row: DVector<f64> = a.row(joint.row).transpose();
            let mut others = a.clone();
            others.row_mut(joint.row).fill(0.0);
            let mut qr = PivotedQr::new(n, m);
            qr.factorize_transposed(&others);
            qr.form_q();
            let rank = qr.rank(self.settings.rank_tolerance);
            let free = qr.q().columns(rank, n - rank);
            let leverage = (free.transpose() * &row).norm() / row.norm();
            if lowest.as_ref().is_none_or(|(l, _)| leverage < *l) {
                lowest = Some((leverage, joint.name.clone()));
            }
        }
        lowest
    }
}
