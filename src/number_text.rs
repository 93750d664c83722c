//! How numbers read in messages (scene errors, settings errors, the command line).

/// A number for a message: shortest round-trip form, plainly in the usual range and in
/// exponent form far outside it (`1e-20`, not twenty zeros).
pub(crate) fn number_text(value: f64) -> String {
    if value == 0.0 || (1e-4..1e9).contains(&value.abs()) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}
