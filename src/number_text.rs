//! How numbers read in messages (scene errors, settings errors, the command line) and in the
//! CSV files (`singulab run`, the plots' export), and the CSV files' header cells.

use std::fmt::Write as _;

/// A number for a message: shortest round-trip form, plainly in the usual range and in
/// exponent form far outside it (`1e-20`, not twenty zeros).
pub(crate) fn number_text(value: f64) -> String {
    if value == 0.0 || (1e-4..1e9).contains(&value.abs()) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// A simulated time for a message, to the nanosecond in shortest form: `4.35`, not the
/// `4.3500000000000005` that summing steps of 0.3 s gives.
pub(crate) fn time_text(t: f64) -> String {
    let rounded = (t * 1e9).round() / 1e9;
    if rounded.is_finite() && t.abs() < 1e6 {
        number_text(rounded)
    } else {
        number_text(t)
    }
}

/// Appends a number as the CSV files write it: the shortest text that reads back to the same
/// `f64` (Rust's `Debug` form: `0.0`, `-3.1`, `1e-5`), so a file holds the values bit for bit.
pub(crate) fn push_csv_number(text: &mut String, value: f64) {
    let _ = write!(text, "{value:?}");
}

/// A CSV header cell that names something from a scene (a body's or a joint's name), safe to
/// open in a spreadsheet: a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
/// would be read as a formula (OWASP's CSV injection), so it gets a leading apostrophe, which
/// spreadsheets take as "text" and do not show. Only header cells are free text; the numbers
/// of the rows stay numbers (`-1.5`).
pub(crate) fn csv_header_cell(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_written() {
        assert_eq!(time_text(0.1 + 0.2), "0.3");
        assert_eq!(time_text(4.3500000000000005), "4.35");
        assert_eq!(time_text(0.7254995801099658), "0.72549958");
        assert_eq!(time_text(0.0), "0");
        assert_eq!(time_text(f64::NAN), "NaN");
    }

    #[test]
    fn csv_numbers_read_back_bit_for_bit() {
        let mut text = String::new();
        for value in [0.0, -3.1, 1e-5, 0.1 + 0.2, 1e300, -0.0] {
            text.clear();
            push_csv_number(&mut text, value);
            assert_eq!(
                text.parse::<f64>().unwrap().to_bits(),
                value.to_bits(),
                "{text}"
            );
        }
        text.clear();
        push_csv_number(&mut text, 2.0);
        assert_eq!(text, "2.0");
    }
}
