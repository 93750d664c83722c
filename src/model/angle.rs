//! `sin` and `cos` of the planar bodies' angles, remembered per thread.
//!
//! Every joint at a bar rotates its local points by the bar's angle, and every evaluation at one
//! state (residual, Jacobian, `dA/dt`, `gamma`) does so again: on the 2x3 a step evaluated the
//! same ten angles' `sin_cos` about eight times each, a visible share of the step. A small
//! direct-mapped table keyed by the angle's bits returns the values computed for the same
//! angle before, so the results are bit-identical to calling `sin_cos` (a different angle that
//! lands in the same slot replaces it). Per thread and fixed in size: no locking, no allocation.

use std::cell::Cell;

/// Slots of the table; a power of two larger than the bodies of any shipped scene.
const SLOTS: usize = 64;

/// An angle's bits and its `(sin, cos)`. Every slot starts as the exact entry of `+0.0`.
type Slot = (u64, f64, f64);

thread_local! {
    static TABLE: [Cell<Slot>; SLOTS] = const { [const { Cell::new((0, 0.0, 1.0)) }; SLOTS] };
}

/// `theta.sin_cos()`, from the table when the same angle was evaluated last in its slot.
#[inline]
pub(crate) fn sin_cos(theta: f64) -> (f64, f64) {
    let bits = theta.to_bits();
    // Fibonacci hashing of the bits: neighbouring angles differ in their low mantissa bits.
    let slot = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize;
    TABLE.with(|table| {
        let (key, s, c) = table[slot].get();
        if key == bits {
            return (s, c);
        }
        let (s, c) = theta.sin_cos();
        table[slot].set((bits, s, c));
        (s, c)
    })
}

#[cfg(test)]
mod tests {
    use super::sin_cos;

    /// Bit-identical to `f64::sin_cos`, for angles met again, angles sharing a slot, zero of
    /// either sign, and non-finite angles.
    #[test]
    fn the_table_returns_what_sin_cos_returns() {
        let mut angles: Vec<f64> = (0..500).map(|i| (i as f64 * 0.731).sin() * 7.0).collect();
        angles.extend([
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e-300,
            3.0,
        ]);
        for round in 0..3 {
            for &theta in angles.iter().chain(angles.iter().rev()) {
                let (s, c) = sin_cos(theta);
                let (es, ec) = theta.sin_cos();
                assert_eq!(
                    (s.to_bits(), c.to_bits()),
                    (es.to_bits(), ec.to_bits()),
                    "theta {theta:e}, round {round}"
                );
            }
        }
    }
}
