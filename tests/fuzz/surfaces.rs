//! Mutations aimed at the spatial bodies, knife edges, drivers, spatial loads and lessons:
//! a field's whole value replaced by one that is degenerate in its own terms (a zero or
//! parallel axis, an inertia that breaks the triangle inequality, a zero quaternion, a
//! driver's step past the linkage's reach) rather than one number at a time, and lesson
//! actions of every kind with waits, events that never come, and huge and tiny numbers.

use crate::mutations::{EXTREME_NUMBERS, below, line_of, pick, show, splice};
use crate::test_rng::Rng;

/// Degenerate or extreme values of the spatial and planar-vector fields, by field name.
const FIELD_VALUES: &[(&str, &[&str])] = &[
    (
        "axis",
        &[
            "(0.0, 0.0, 0.0)",
            "(0.0, 0.0)",
            "(1e-300, 0.0, 0.0)",
            "(1e308, 1e308, 0.0)",
            "(NaN, 0.0, 1.0)",
            "(0.0, 0.0, 1.0)",
            "(0.0, 1.0, 0.0)",
            "(1.0, 0.0)",
            "(5e-324, 5e-324)",
        ],
    ),
    (
        "normal",
        &[
            "(0.0, 0.0)",
            "(1e-300, 0.0)",
            "(1e308, 1e308)",
            "(1.0, 0.0)",
            "(0.0, 0.0, 1.0)",
        ],
    ),
    (
        "arm_b",
        &[
            "(1.0, 0.0, 0.0)",
            "(0.0, 0.0, 0.0)",
            "(0.0, 1.0, 0.0)",
            "(1e-300, 0.0, 0.0)",
        ],
    ),
    (
        "arm_a",
        &[
            "(1.0, 0.0, 0.0)",
            "(0.0, 0.0, 0.0)",
            "(0.0, 0.0, 1.0)",
            "(inf, 0.0, 0.0)",
        ],
    ),
    (
        "inertia",
        &[
            "Principal(0.0, 0.0, 0.0)",
            "Principal(-1.0, 1.0, 1.0)",
            "Principal(1.0, 1.0, 3.0)",
            "Principal(1e-300, 1e-300, 1e-300)",
            "Principal(1e308, 1e308, 1e308)",
            "Principal(1.0, 1.0, 2.0)",
            "Matrix((1.0, 2.0, 0.0), (2.0, 1.0, 0.0), (0.0, 0.0, 1.0))",
            "Matrix((1.0, 0.5, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))",
            "Matrix((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))",
            "0.0",
            "1e-300",
        ],
    ),
    (
        "orientation",
        &[
            "Euler(0.0, 0.0, 0.0, 0.0)",
            "Euler(1e-300, 0.0, 0.0, 0.0)",
            "Euler(1e308, 1e308, 0.0, 0.0)",
            "Euler(-1.0, 0.0, 0.0, 0.0)",
            "Euler(0.0, 0.0, 0.0, 1.0)",
            "AxisAngle(axis: (0.0, 0.0, 0.0), angle: 1.0)",
            "AxisAngle(axis: (1.0, 0.0, 0.0), angle: 1e308)",
            "AxisAngle(axis: (0.0, 1.0, 0.0), angle: 3.141592653589793)",
            "Axes(x: (1.0, 0.0, 0.0), y: (1.0, 0.0, 0.0))",
            "Axes(x: (0.0, 0.0, 0.0), y: (0.0, 1.0, 0.0))",
            "Axes(x: (1.0, 0.0, 0.0), y: (1.0, 1e-12, 0.0))",
            "Axes(x: (0.0, 0.0, 1.0), y: (1.0, 0.0, 0.0))",
        ],
    ),
    (
        "driver",
        &[
            "Driver(constant: 0.0)",
            "Driver(constant: -1.0, steps: [Step(amplitude: -0.15, start: 0.0, end: 0.01)])",
            "Driver(constant: -1.0, steps: [Step(amplitude: 10.0, start: 0.0, end: 0.01)])",
            "Driver(constant: -1.0, steps: [Step(amplitude: 1e308, start: 0.0, end: 1e-300)])",
            "Driver(constant: -1.0, steps: [Step(amplitude: 0.01, start: 0.01, end: 0.0)])",
            "Driver(constant: -1.0, steps: [Step(amplitude: 0.01, start: 0.005, end: 0.005)])",
            "Driver(constant: -1.0, steps: [Step(amplitude: 0.01, start: -1.0, end: 1e308)])",
            "Driver(constant: 1e308, steps: [])",
            "Driver(constant: NaN)",
            "Driver(constant: -1.0, steps: [Step(amplitude: 0.5, start: 0.0, end: 0.005), Step(amplitude: -0.5, start: 0.005, end: 0.01)])",
        ],
    ),
    (
        "torque",
        &[
            "[0.0, 0.0, 1e6]",
            "[1e308, 0.0, 0.0]",
            "[0.0, 0.0]",
            "[1.0, 2.0, 3.0, 4.0]",
            "[NaN, 0.0, 0.0]",
            "[]",
        ],
    ),
    (
        "force",
        &[
            "[0.0, 0.0, -1e6]",
            "[1e308, 0.0, 0.0]",
            "[0.0]",
            "[0.0, 0.0, 0.0, 0.0]",
            "[inf, 0.0, 0.0]",
        ],
    ),
    (
        "at_b",
        &[
            "At(0.0, 0.0, 0.0)",
            "At(1e308, 0.0, 0.0)",
            "Center",
            "Point(\"nowhere\")",
            "At(NaN, 0.0, 0.0)",
        ],
    ),
    (
        "at_a",
        &[
            "Center",
            "At(0.0, 0.0, 0.0)",
            "At(1e6, 0.0, 0.0)",
            "Point(\"nowhere\")",
        ],
    ),
];

/// Byte range of the value after `field:` at `at` (which points at the field's name): to the
/// `,` or closing bracket at its own depth.
fn value_range(text: &[u8], at: usize, field: &str) -> Option<std::ops::Range<usize>> {
    let mut start = at + field.len();
    while text.get(start).is_some_and(u8::is_ascii_whitespace) {
        start += 1;
    }
    if text.get(start) != Some(&b':') {
        return None;
    }
    start += 1;
    while text.get(start).is_some_and(u8::is_ascii_whitespace) {
        start += 1;
    }
    let (mut depth, mut in_string, mut end) = (0i32, false, start);
    while let Some(&byte) = text.get(end) {
        match byte {
            b'"' => in_string = !in_string,
            b'\\' if in_string => end += 1,
            _ if in_string => {}
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => break,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => break,
            _ => {}
        }
        end += 1;
    }
    (end > start).then_some(start..end)
}

/// Where `field:` begins in `text` (a whole word, not inside a longer name).
fn field_sites(text: &[u8], field: &str) -> Vec<usize> {
    let needle = field.as_bytes();
    (0..text.len().saturating_sub(needle.len()))
        .filter(|&at| {
            text[at..].starts_with(needle)
                && (at == 0 || !(text[at - 1].is_ascii_alphanumeric() || text[at - 1] == b'_'))
                && value_range(text, at, field).is_some()
        })
        .collect()
}

/// A spatial, knife-edge, driver or load field's whole value replaced by a degenerate one, or
/// by the value of another field of the same name (two parallel axes, equal arms).
pub fn surface_field(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let present: Vec<(&str, &[&str], Vec<usize>)> = FIELD_VALUES
        .iter()
        .map(|&(field, values)| (field, values, field_sites(text, field)))
        .filter(|(_, _, sites)| !sites.is_empty())
        .collect();
    if present.is_empty() {
        return None;
    }
    let (field, values, sites) = pick(rng, &present);
    let at = *pick(rng, sites);
    let range = value_range(text, at, field)?;
    let copy_from = sites.iter().find(|&&other| other != at);
    let value: Vec<u8> = match copy_from {
        Some(&other) if below(rng, 4) == 0 => text[value_range(text, other, field)?].to_vec(),
        _ => pick(rng, values).as_bytes().to_vec(),
    };
    let line = line_of(text, at);
    let old = show(&text[range.clone()]);
    splice(text, range, &value);
    Some(format!("line {line}: {field}: {old} -> {}", show(&value)))
}

/// Numbers of a lesson's actions: plausible, huge, tiny, zero, negative, not finite.
const ACTION_NUMBERS: &[&str] = &[
    "0.0", "0.01", "0.5", "1.0", "2.0", "64.0", "1e9", "1e308", "1e-300", "5e-324", "1e-19",
    "-1.0", "-0.0", "NaN", "inf", "1e999",
];
/// Counts (motions, branches, events): the first few, ones past the end, and limits.
const ACTION_COUNTS: &[&str] = &["0", "1", "2", "3", "7", "1000", "18446744073709551615"];

fn number(rng: &mut Rng) -> &'static str {
    let numbers = if below(rng, 4) == 0 {
        EXTREME_NUMBERS
    } else {
        ACTION_NUMBERS
    };
    numbers[below(rng, numbers.len())]
}

/// An action of a random kind with random numbers.
fn action(rng: &mut Rng) -> String {
    let count = *pick(rng, ACTION_COUNTS);
    match below(rng, 8) {
        0 => "Pause".into(),
        1 => "Play".into(),
        2 => format!(
            "Push(motion: {count}, delta: {}, duration: {})",
            number(rng),
            number(rng)
        ),
        3 => format!("Push(motion: {count}, delta: {})", number(rng)),
        4 => format!(
            "Leave(branch: {count}, way: {}, speed: {})",
            pick(rng, &["Forward", "Back"]),
            number(rng)
        ),
        5 => format!("GoToEvent({count})"),
        6 => format!("SetSpeed({})", number(rng)),
        _ => format!("Caption(\"fuzz\", {})", number(rng)),
    }
}

/// When an action runs: now, at a time, after a wait, or at an event (which may never come).
fn trigger(rng: &mut Rng) -> String {
    match below(rng, 4) {
        0 => String::new(),
        1 => format!("at: {}, ", number(rng)),
        2 => format!("after: {}, ", number(rng)),
        _ => format!("at_event: {}, ", pick(rng, ACTION_COUNTS)),
    }
}

/// One to three actions of any kind inserted at a random place of the lesson's `actions`.
pub fn lesson_actions(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let list = field_sites(text, "actions").into_iter().next()?;
    let range = value_range(text, list, "actions")?;
    // Entries start after the list's `[` or after a `),` that ends an action.
    let body = &text[range.clone()];
    let mut slots: Vec<usize> = vec![range.start + 1];
    slots.extend(
        body.windows(2)
            .enumerate()
            .filter(|(_, w)| w == b"),")
            .map(|(i, _)| range.start + i + 2),
    );
    let at = *pick(rng, &slots);
    let added: Vec<String> = (0..1 + below(rng, 3))
        .map(|_| format!(" ({}do: {}),", trigger(rng), action(rng)))
        .collect();
    let added = added.concat();
    let line = line_of(text, at);
    splice(text, at..at, added.as_bytes());
    Some(format!("line {line}:{added}"))
}

/// The lesson's own fields (`speed`, `t_end`) set to huge, tiny or non-finite values.
pub fn lesson_field(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let field = *pick(rng, &["speed", "t_end"]);
    let at = field_sites(text, field).into_iter().next()?;
    let range = value_range(text, at, field)?;
    let value = number(rng);
    let line = line_of(text, at);
    splice(text, range, value.as_bytes());
    Some(format!("line {line}: {field}: {value}"))
}

#[test]
fn a_field_value_ends_at_its_own_comma() {
    let text = b"Hinge(axis: (1.0, 0.0, 0.0), at_b: At(0.0, 0.1, 0.12)), x: 1";
    let at = field_sites(text, "axis")[0];
    assert_eq!(
        &text[value_range(text, at, "axis").unwrap()],
        b"(1.0, 0.0, 0.0)"
    );
    let at = field_sites(text, "at_b")[0];
    assert_eq!(
        &text[value_range(text, at, "at_b").unwrap()],
        b"At(0.0, 0.1, 0.12)"
    );
}
