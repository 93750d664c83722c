//! Whole turns of the planar angles, counted beside the state.
//!
//! A bar turning for hours reaches angles where the spacing of `f64` exceeds what Newton must
//! resolve: at 2.3e4 rad (the four-bar's cranks after about 1.6 h at its own settings) it is
//! 3.6e-12 rad, above that scene's `newton_tolerance` 1e-12. So the simulation keeps every bar's
//! and plate's angle in (-pi, pi]: when a step ends outside, the angle is shifted by whole
//! turns and the turns are counted beside it. The shift is exact in floating point: the angle
//! and `k * TAU` are within a factor two of each other (Sterbenz's lemma), and the continuous
//! angle is `wrapped + turns * TAU`, rounded once. The physics is 2 pi periodic in every angle
//! (rotations go through `sin` and `cos`, a prismatic joint's relative angle is compared
//! modulo 2 pi in [`Mechanism::residual`]), so only the round-off changes.
//!
//! Everything the simulation keeps inside (the last states its event search goes back over,
//! the watched rank's anchor) is shifted with the state. What leaves it carries the
//! continuous angle ([`Simulation::positions`], the events' states), so traces, CSV columns
//! and a constant torque's potential `-tau theta` see no jump; what comes in (a pose, an
//! event state) takes its turns from its own angles.

use std::f64::consts::{PI, TAU};

use nalgebra::DVector;

use super::Simulation;
use crate::model::Mechanism;

/// The whole turns `k` that bring `angle` into (-pi, pi] as `angle - k TAU` (0 inside).
fn turns_of(angle: f64) -> f64 {
    if angle > PI || angle <= -PI {
        // Halfway (an odd multiple of pi) rounds away from zero, to -pi for a positive angle.
        let k = (angle / TAU).round();
        let wrapped = angle - k * TAU;
        if wrapped <= -PI {
            k - 1.0
        } else if wrapped > PI {
            k + 1.0
        } else {
            k
        }
    } else {
        0.0
    }
}

/// The coordinates of `mechanism` that are planar angles.
fn angle_rows(mechanism: &Mechanism) -> impl Iterator<Item = usize> + '_ {
    mechanism
        .bodies()
        .iter()
        .filter(|body| body.has_angle())
        .map(|body| body.offset + 2)
}

/// `x + turns TAU` on the angle rows: internal positions to continuous ones.
pub(super) fn add_turns(mechanism: &Mechanism, turns: &DVector<f64>, x: &mut DVector<f64>) {
    for row in angle_rows(mechanism) {
        x[row] += turns[row] * TAU;
    }
}

/// `x - turns TAU` on the angle rows: continuous positions to internal ones.
pub(super) fn remove_turns(mechanism: &Mechanism, turns: &DVector<f64>, x: &mut DVector<f64>) {
    for row in angle_rows(mechanism) {
        x[row] -= turns[row] * TAU;
    }
}

impl Simulation {
    /// Takes continuous positions `x` as the state: each angle's turns from its own value,
    /// the positions kept with their angles in (-pi, pi].
    pub(super) fn adopt_positions(&mut self, x: &DVector<f64>) {
        self.x.copy_from(x);
        self.turns.fill(0.0);
        for row in angle_rows(&self.mechanism) {
            let k = turns_of(x[row]);
            self.turns[row] = k;
            self.x[row] = x[row] - k * TAU;
        }
    }

    /// Brings the angles of the state that left (-pi, pi] back by whole turns, shifting
    /// the kept states and the watched rank's anchor with them.
    pub(super) fn wrap_angles(&mut self) {
        for row in angle_rows(&self.mechanism) {
            let k = turns_of(self.x[row]);
            if k == 0.0 {
                continue;
            }
            let shift = k * TAU;
            self.x[row] -= shift;
            self.turns[row] += k;
            for snapshot in &mut self.history {
                snapshot.x[row] -= shift;
            }
            self.watched.shift_anchor(row, shift);
        }
    }

    /// Refreshes the continuous positions [`Simulation::positions`] returns.
    pub(super) fn refresh_shown(&mut self) {
        self.shown.copy_from(&self.x);
        add_turns(&self.mechanism, &self.turns, &mut self.shown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turns bring an angle into (-pi, pi] and the shift is exact: adding the turns back
    /// gives the angle bit for bit.
    #[test]
    fn whole_turns_are_exact() {
        for angle in [
            PI,
            -PI,
            PI + 1e-9,
            -PI - 1e-9,
            3.0 * PI,
            -3.0 * PI,
            5.0 * PI,
            2.3e4,
            -2.3e4 + 0.1,
            1e6 + 0.3,
        ] {
            let k = turns_of(angle);
            let wrapped = angle - k * TAU;
            assert!(wrapped > -PI && wrapped <= PI, "{angle}: {wrapped}");
            assert_eq!(wrapped + k * TAU, angle, "{angle}");
        }
        assert_eq!(turns_of(1.0), 0.0);
    }
}
