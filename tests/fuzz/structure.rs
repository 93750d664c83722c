//! Mutations of the scene's structure: entries of the sections (bodies, joints, loads,
//! velocities), elements of any list or tuple, struct fields, and sections an author adds
//! (solver settings, loads, many bodies), with the values a careless or hostile one writes.

use std::ops::Range;

use crate::lexer::{Kind, Token, elements, matching_close, tokens};
use crate::mutations::{EXTREME_NUMBERS, below, line_of, pick, show, splice};
use crate::test_rng::Rng;

/// The token range of the list after `name: ` (its `[` and `]`), if the text has one.
fn section(tokens: &[Token], text: &[u8], name: &str) -> Option<(usize, usize)> {
    let at = tokens.windows(3).position(|w| {
        w[0].kind == Kind::Ident
            && w[0].text(text) == name.as_bytes()
            && w[1].is(text, b':')
            && w[2].is(text, b'[')
    })?;
    Some((at + 2, matching_close(tokens, text, at + 2)?))
}

/// Byte range of the elements `range`, and that range extended over a following comma.
fn element_bytes(tokens: &[Token], text: &[u8], range: &Range<usize>) -> (Range<usize>, usize) {
    let start = tokens[range.start].start;
    let end = tokens[range.end - 1].end;
    let with_comma = match tokens.get(range.end) {
        Some(t) if t.is(text, b',') => t.end,
        _ => end,
    };
    (start..end, with_comma)
}

/// Removes or doubles an element of the group opened at token `open`.
fn edit_element(text: &mut Vec<u8>, rng: &mut Rng, open: usize, remove: bool) -> Option<String> {
    let all = tokens(text);
    let close = matching_close(&all, text, open)?;
    let items = elements(&all, text, open, close);
    if items.is_empty() {
        return None;
    }
    let (bytes, with_comma) = element_bytes(&all, text, pick(rng, &items));
    Some(remove_or_double(text, bytes, with_comma, remove))
}

const SECTIONS: &[&str] = &["bodies", "joints", "loads", "velocities"];

/// A body, joint, load or velocity entry removed or doubled.
fn edit_entry(text: &mut Vec<u8>, rng: &mut Rng, remove: bool) -> Option<String> {
    let all = tokens(text);
    let present: Vec<(&str, usize)> = SECTIONS
        .iter()
        .filter_map(|name| Some((*name, section(&all, text, name)?.0)))
        .collect();
    if present.is_empty() {
        return None;
    }
    let (name, open) = *pick(rng, &present);
    edit_element(text, rng, open, remove).map(|detail| format!("{name}: {detail}"))
}

pub fn entry_remove(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_entry(text, rng, true)
}

pub fn entry_duplicate(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_entry(text, rng, false)
}

/// An element of any list or tuple (a gravity component, a coordinate, a whole section's
/// entry) removed or doubled.
fn edit_any_element(text: &mut Vec<u8>, rng: &mut Rng, remove: bool) -> Option<String> {
    let openers: Vec<usize> = tokens(text)
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is(text, b'(') || t.is(text, b'['))
        .map(|(i, _)| i)
        .collect();
    if openers.is_empty() {
        return None;
    }
    let open = *pick(rng, &openers);
    edit_element(text, rng, open, remove)
}

pub fn element_remove(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_any_element(text, rng, true)
}

pub fn element_duplicate(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_any_element(text, rng, false)
}

/// Token index just past the value of the field named at token `name` (its `,` or the
/// group's closer).
fn field_end(tokens: &[Token], text: &[u8], name: usize) -> usize {
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate().skip(name + 2) {
        if token.is(text, b'(') || token.is(text, b'[') {
            depth += 1;
        } else if token.is(text, b')') || token.is(text, b']') {
            if depth == 0 {
                return index;
            }
            depth -= 1;
        } else if depth == 0 && token.is(text, b',') {
            return index;
        }
    }
    tokens.len()
}

/// A `name: value` field removed or doubled.
fn edit_field(text: &mut Vec<u8>, rng: &mut Rng, remove: bool) -> Option<String> {
    let all = tokens(text);
    let names: Vec<usize> = all
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].kind == Kind::Ident && w[1].is(text, b':'))
        .map(|(i, _)| i)
        .collect();
    if names.is_empty() {
        return None;
    }
    let name = *pick(rng, &names);
    let end = field_end(&all, text, name);
    let (bytes, with_comma) = element_bytes(&all, text, &(name..end));
    Some(remove_or_double(text, bytes, with_comma, remove))
}

pub fn field_remove(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_field(text, rng, true)
}

pub fn field_duplicate(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    edit_field(text, rng, false)
}

/// A field the format does not have, put first in a struct.
pub fn field_unknown(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let all = tokens(text);
    let openers: Vec<&Token> = all
        .windows(2)
        .filter(|w| w[1].is(text, b'(') && (w[0].kind == Kind::Ident || w[0].is(text, b':')))
        .map(|w| &w[1])
        .collect();
    if openers.is_empty() {
        return None;
    }
    let at = pick(rng, &openers).end;
    let field = *pick(
        rng,
        &[
            "colour: \"red\", ",
            "Mass: 1.0, ",
            "inertia: 2.0, ",
            "name: \"again\", ",
            "r#type: 1, ",
            "solver: (dt: 1e-3), ",
        ],
    );
    let detail = format!(
        "line {}: added {}",
        line_of(text, at),
        show(field.as_bytes())
    );
    splice(text, at..at, field.as_bytes());
    Some(detail)
}

const FLOAT_SETTINGS: &[&str] = &[
    "dt",
    "rank_tolerance",
    "detection_tolerance",
    "normal_truncation",
    "newton_tolerance",
    "omega_step_limit",
    "dopri_rtol",
    "dopri_atol",
    "dopri_min_step",
];

/// Plausible-looking settings values that are not: at or past the relative limits, below
/// round-off. (No `dt` between 1e-9 and 1e-5: a run of a million honest steps is slow, not
/// a fault.)
const NEAR_LIMITS: &[&str] = &[
    "1e-17", "1e-16", "1e-15", "0.5", "0.999999", "1", "1.0", "2", "1e-2", "1e3",
];

/// A `field: value` of the solver settings, far from the defaults.
fn setting(rng: &mut Rng) -> String {
    match below(rng, 10) {
        0 => format!(
            "newton_max_iterations: {}",
            pick(
                rng,
                &[
                    "0",
                    "1",
                    "2",
                    "1000000",
                    "4294967296",
                    "18446744073709551615",
                    "18446744073709551616",
                    "-1",
                    "1.5",
                    "1e3",
                    "NaN",
                ]
            )
        ),
        1 => format!(
            "integrator: {}",
            pick(rng, &["Dopri5", "Dopri5", "Rk4", "Euler", "dopri5"])
        ),
        2 => format!("predictor: {}", pick(rng, &["Zeroth", "Omega", "Taylor"])),
        _ => {
            let field = *pick(rng, FLOAT_SETTINGS);
            let value = if below(rng, 2) == 0 {
                *pick(rng, EXTREME_NUMBERS)
            } else {
                *pick(rng, NEAR_LIMITS)
            };
            format!("{field}: {value}")
        }
    }
}

/// The solver section replaced by one to four settings (added before the scene's closing
/// parenthesis when there is none).
pub fn settings(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let all = tokens(text);
    let count = 1 + below(rng, 4);
    let fields: Vec<String> = (0..count).map(|_| setting(rng)).collect();
    let section = format!("solver: ({})", fields.join(", "));
    let existing = all.windows(3).position(|w| {
        w[0].kind == Kind::Ident
            && w[0].text(text) == b"solver"
            && w[1].is(text, b':')
            && w[2].is(text, b'(')
    });
    let detail = section.clone();
    match existing.and_then(|at| Some((at, matching_close(&all, text, at + 2)?))) {
        Some((at, close)) => splice(text, all[at].start..all[close].end, section.as_bytes()),
        None => insert_before_last_paren(text, &all, &format!("{section},\n"))?,
    }
    Some(detail)
}

fn insert_before_last_paren(text: &mut Vec<u8>, all: &[Token], what: &str) -> Option<()> {
    let last = all.iter().rev().find(|t| t.is(text, b')'))?;
    let at = last.start;
    splice(text, at..at, what.as_bytes());
    Some(())
}

/// The names of the scene's bodies (`name: "..."` inside `bodies: [...]`).
fn body_names(text: &[u8]) -> Vec<Vec<u8>> {
    let all = tokens(text);
    let Some((open, close)) = section(&all, text, "bodies") else {
        return Vec::new();
    };
    all[open..close]
        .windows(3)
        .filter(|w| w[0].text(text) == b"name" && w[1].is(text, b':') && w[2].kind == Kind::Str)
        .map(|w| w[2].text(text).to_vec())
        .collect()
}

/// A loads section with a torque or force of extreme size, constant or a pulse.
pub fn add_load(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let names = body_names(text);
    let body = if names.is_empty() {
        "\"nobody\"".to_string()
    } else {
        let name: &Vec<u8> = pick(rng, &names);
        String::from_utf8_lossy(name).into_owned()
    };
    let mut load = match below(rng, 3) {
        0 => format!(
            "Torque(name: \"push\", body: {body}, torque: {}",
            load_value(rng)
        ),
        1 => format!(
            "Force(name: \"push\", body: {body}, force: [{}, {}]",
            load_value(rng),
            load_value(rng)
        ),
        _ => format!(
            "Force(name: \"push\", body: {body}, force: [{}, {}, {}]",
            load_value(rng),
            load_value(rng),
            load_value(rng)
        ),
    };
    if below(rng, 2) == 0 {
        load += &format!(
            ", start: {}, duration: {}",
            load_value(rng),
            load_value(rng)
        );
    }
    let section = format!("loads: [{load})],\n");
    insert_before_last_paren(text, &tokens(text), &section)?;
    Some(section.trim_end().to_string())
}

/// A load's size, start or duration: extreme, or large but plausible.
fn load_value(rng: &mut Rng) -> &'static str {
    let values: &[&'static str] = if below(rng, 2) == 0 {
        EXTREME_NUMBERS
    } else {
        &["1e6", "1.0", "1e-3", "0.5", "20", "1e12"]
    };
    values[below(rng, values.len())]
}

/// Hundreds to tens of thousands of free bodies appended to the bodies (a generated or a
/// hostile file).
pub fn many_bodies(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let all = tokens(text);
    let (_, close) = section(&all, text, "bodies")?;
    let count = *pick(rng, &[300, 3_000, 30_000]);
    let planar = text.windows(4).any(|w| w == b"Bar(");
    let bodies: String = (0..count)
        .map(|k| {
            if planar {
                format!("Bar(name: \"extra{k}\", length: 1.0, mass: 1.0, center: ({k}.0, 5.0), angle: 0.0),\n")
            } else {
                format!("Point(name: \"extra{k}\", mass: 1.0, position: [{k}.0, 5.0, 0.0]),\n")
            }
        })
        .collect();
    let at = all[close].start;
    let needs_comma = !all[close - 1].is(text, b',') && !all[close - 1].is(text, b'[');
    let joined = if needs_comma {
        format!(",{bodies}")
    } else {
        bodies
    };
    splice(text, at..at, joined.as_bytes());
    Some(format!("{count} free bodies added"))
}

/// Removes the element at `bytes` (with its comma, up to `with_comma`) or writes it twice;
/// describes what it did.
fn remove_or_double(
    text: &mut Vec<u8>,
    bytes: std::ops::Range<usize>,
    with_comma: usize,
    remove: bool,
) -> String {
    let shown = show(&text[bytes.clone()]);
    let line = line_of(text, bytes.start);
    if remove {
        splice(text, bytes.start..with_comma, b"");
        format!("line {line}: removed {shown}")
    } else {
        let copy = [&text[bytes.clone()], b", ".as_slice()].concat();
        splice(text, bytes.start..bytes.start, &copy);
        format!("line {line}: doubled {shown}")
    }
}
