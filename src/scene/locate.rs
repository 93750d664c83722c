//! Finds where things are in a scene's source text, so that errors found after parsing (an
//! unknown body, a negative mass) can name a line and column like parse errors do.
//!
//! Entries are recognised by their `name: "..."` field; an entry's extent is the innermost
//! pair of parentheses around that field. Strings and `//` or `/* */` comments are skipped.

/// 1-based line and column of a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Byte offset of a 1-based line and column (clamped to the source).
pub fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, text) in source.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let within: usize = text
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            return offset + within;
        }
        offset += text.len();
    }
    source.len()
}

/// Code bytes of the source: `true` where a byte is outside strings and comments.
fn code_mask(source: &str) -> Vec<bool> {
    let bytes = source.as_bytes();
    let mut mask = vec![true; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let end = (i + 1).min(bytes.len());
                mask[start..end].iter_mut().for_each(|m| *m = false);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    mask[i] = false;
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                let end = (i + 2).min(bytes.len());
                mask[start..end].iter_mut().for_each(|m| *m = false);
                i = end;
            }
            _ => i += 1,
        }
    }
    mask
}

/// An entry of the scene: its name, the offset of its `name` field and its extent.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    name: String,
    name_offset: usize,
    open: usize,
    close: usize,
}

/// Offsets of identifier `field` followed by `:` in code.
fn field_offsets<'a>(
    source: &'a str,
    mask: &'a [bool],
    field: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    let bytes = source.as_bytes();
    source.match_indices(field).filter_map(move |(i, _)| {
        let end = i + field.len();
        let before_ok = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let after = source[end..].trim_start();
        let after_ok = after.starts_with(':') && !after.starts_with("::");
        (mask[i] && before_ok && after_ok).then_some(i)
    })
}

/// Every entry with a `name: "..."` field, in source order.
fn entries(source: &str, mask: &[bool]) -> Vec<Entry> {
    let mut found = Vec::new();
    for offset in field_offsets(source, mask, "name") {
        let rest = &source[offset + 4..];
        let colon = rest.find(':').map_or(0, |c| c + 1);
        let Some(name) = string_literal(rest[colon..].trim_start()) else {
            continue;
        };
        let Some((open, close)) = enclosing_parentheses(source, mask, offset) else {
            continue;
        };
        found.push(Entry {
            name,
            name_offset: offset,
            open,
            close,
        });
    }
    found
}

/// The text of the RON string literal that `text` starts with (escapes such as `\"`
/// decoded, so that a name holding a double quote matches the loaded one), if it does.
fn string_literal(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() && bytes[i] != b'"' {
        if bytes[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    ron::from_str(text.get(..=i)?).ok()
}

/// Offsets of the innermost pair of parentheses in code around `offset` (the closing one at
/// the end of the source if it is missing).
fn enclosing_parentheses(source: &str, mask: &[bool], offset: usize) -> Option<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut depth = 0i32;
    let mut open = None;
    for i in (0..offset).rev() {
        if !mask[i] {
            continue;
        }
        match bytes[i] {
            b')' => depth += 1,
            b'(' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'(' => depth -= 1,
            _ => {}
        }
    }
    let open = open?;
    let mut depth = 0i32;
    let mut close = source.len();
    for i in open..bytes.len() {
        if !mask[i] {
            continue;
        }
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    close = i;
                    break;
                }
            }
            _ => {}
        }
    }
    Some((open, close))
}

/// Nesting depth (parentheses and brackets) before each byte of code.
fn depths(source: &str, mask: &[bool]) -> Vec<i32> {
    let mut depth = 0;
    source
        .bytes()
        .zip(mask)
        .map(|(b, &code)| {
            let before = depth;
            if code {
                match b {
                    b'(' | b'[' => depth += 1,
                    b')' | b']' => depth -= 1,
                    _ => {}
                }
            }
            before
        })
        .collect()
}

/// Offset of the top-level field `field` of the scene (`gravity`, `velocities`...), if any.
pub fn locate_top_field(source: &str, field: &str) -> Option<usize> {
    let mask = code_mask(source);
    let depth = depths(source, &mask);
    field_offsets(source, &mask, field).find(|&i| depth[i] == 1)
}

/// Offset of `field` inside the top-level struct `section` (`solver: (dt: ...)`), else of
/// the section itself, if any.
pub fn locate_section_field(source: &str, section: &str, field: &str) -> Option<usize> {
    find_section_field(source, section, field).or_else(|| {
        let mask = code_mask(source);
        let depth = depths(source, &mask);
        field_offsets(source, &mask, section).find(|&i| depth[i] == 1)
    })
}

/// Offset of `field` inside the top-level struct `section`, if it is written there.
pub fn find_section_field(source: &str, section: &str, field: &str) -> Option<usize> {
    let mask = code_mask(source);
    let depth = depths(source, &mask);
    let start = field_offsets(source, &mask, section).find(|&i| depth[i] == 1)?;
    let bytes = source.as_bytes();
    let open = (start..bytes.len()).find(|&i| mask[i] && bytes[i] == b'(')?;
    let close = (open..bytes.len())
        .find(|&i| mask[i] && bytes[i] == b')' && depth[i] == depth[open] + 1)
        .unwrap_or(source.len());
    field_offsets(source, &mask, field)
        .find(|&i| i > open && i < close && depth[i] == depth[open] + 1)
}

/// Extent of the list held by the top-level field `section`.
fn section_span(source: &str, mask: &[bool], section: &str) -> Option<(usize, usize)> {
    let depth = depths(source, mask);
    let start = field_offsets(source, mask, section).find(|&i| depth[i] == 1)?;
    let bytes = source.as_bytes();
    let open = (start..bytes.len()).find(|&i| mask[i] && bytes[i] == b'[')?;
    let close = (open..bytes.len())
        .find(|&i| mask[i] && bytes[i] == b']' && depth[i] == depth[open] + 1)
        .unwrap_or(source.len());
    Some((open, close))
}

/// Offset of `field` inside the `occurrence`-th (0-based) entry named `name` of the list
/// `section` (`bodies`, `joints`, `loads`); the entry's `name` field if `field` is `None` or
/// absent; the section (or the start of the file) if there is no such entry.
pub fn locate_entry(
    source: &str,
    section: &str,
    name: &str,
    occurrence: usize,
    field: Option<&str>,
) -> usize {
    let mask = code_mask(source);
    let Some((open, close)) = section_span(source, &mask, section) else {
        return 0;
    };
    let Some(entry) = entries(source, &mask)
        .into_iter()
        .filter(|e| e.open > open && e.close < close && e.name == name)
        .nth(occurrence)
    else {
        return open;
    };
    field
        .and_then(|field| {
            field_offsets(source, &mask, field).find(|&i| i > entry.open && i < entry.close)
        })
        .unwrap_or(entry.name_offset)
}

/// The first entry named `name` in the list `section`, if any.
fn find_entry(source: &str, mask: &[bool], section: &str, name: &str) -> Option<Entry> {
    let (open, close) = section_span(source, mask, section)?;
    entries(source, mask)
        .into_iter()
        .find(|e| e.open > open && e.close < close && e.name == name)
}

/// Whether the list `section` has an entry named `name`.
pub fn has_entry(source: &str, section: &str, name: &str) -> bool {
    find_entry(source, &code_mask(source), section, name).is_some()
}

/// Offset of the `nth` (0-based) occurrence of `field` inside the first entry named `name`
/// of the list `section` (the `start` of a driver's third step), else of its first
/// occurrence, else as [`locate_entry`] without a field.
pub fn locate_nth_field(source: &str, section: &str, name: &str, field: &str, nth: usize) -> usize {
    let mask = code_mask(source);
    let Some(entry) = find_entry(source, &mask, section, name) else {
        return locate_entry(source, section, name, 0, None);
    };
    let inside: Vec<usize> = field_offsets(source, &mask, field)
        .filter(|&i| i > entry.open && i < entry.close)
        .collect();
    inside
        .get(nth)
        .or(inside.first())
        .copied()
        .unwrap_or(entry.name_offset)
}

/// Offset of the `index`-th entry (0-based) of the top-level list field `list`, e.g. the third
/// element of `velocities`, or of the field `field` inside it.
pub fn locate_list_item(source: &str, list: &str, index: usize, field: Option<&str>) -> usize {
    let mask = code_mask(source);
    let bytes = source.as_bytes();
    let Some(start) = field_offsets(source, &mask, list).next() else {
        return 0;
    };
    let Some(open_bracket) = (start..bytes.len()).find(|&i| mask[i] && bytes[i] == b'[') else {
        return start;
    };
    let mut depth = 0i32;
    let mut count = 0;
    let mut item_start = None;
    let mut i = open_bracket + 1;
    while i < bytes.len() {
        if mask[i] {
            match bytes[i] {
                b'(' | b'[' => {
                    if depth == 0 && count == index && item_start.is_none() {
                        item_start = Some(i);
                    }
                    depth += 1;
                }
                b')' | b']' if depth == 0 => break,
                b')' | b']' => {
                    depth -= 1;
                    if depth == 0 && item_start.is_some() {
                        let (open, close) = (item_start.unwrap_or(i), i);
                        return field
                            .and_then(|f| {
                                field_offsets(source, &mask, f).find(|&j| j > open && j < close)
                            })
                            .unwrap_or(open);
                    }
                }
                b',' if depth == 0 => count += 1,
                _ => {}
            }
        }
        i += 1;
    }
    open_bracket
}

/// The innermost named entry whose extent contains `offset`, as the messages name it:
/// `body "crank1"`, `joint "A"`, `load "kick"` (after the list holding it), or just
/// `"name"` outside those lists.
pub fn enclosing_entry(source: &str, offset: usize) -> Option<String> {
    let mask = code_mask(source);
    let entry = entries(source, &mask)
        .into_iter()
        .filter(|e| e.open <= offset && offset <= e.close)
        .min_by_key(|e| e.close - e.open)?;
    let kind = [
        ("bodies", "body "),
        ("joints", "joint "),
        ("loads", "load "),
    ]
    .into_iter()
    .find(|(section, _)| {
        section_span(source, &mask, section)
            .is_some_and(|(open, close)| open < entry.open && entry.close < close)
    })
    .map_or("", |(_, kind)| kind);
    Some(format!("{kind}\"{}\"", entry.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"Scene(
    bodies: [
        Bar(name: "crank1", length: 1.0, mass: -1.0, start: (0.0, 0.0), angle: 0.0),
        // name: "decoy", mass: 3
        Bar(
            mass: 2.0,
            name: "coupler",
            length: 2.0,
        ),
    ],
    velocities: [(body: "crank1", omega: 1.0), (body: "coupler", omega: 2.0)],
)"#;

    #[test]
    fn finds_a_field_of_a_named_entry() {
        let offset = locate_entry(SOURCE, "bodies", "crank1", 0, Some("mass"));
        assert_eq!(line_column(SOURCE, offset), (3, 42));
        // A field written before the name in its entry.
        let offset = locate_entry(SOURCE, "bodies", "coupler", 0, Some("mass"));
        assert_eq!(line_column(SOURCE, offset), (6, 13));
    }

    #[test]
    fn comments_and_strings_are_not_entries() {
        // Not found: the error points at the section's list, never into the comment.
        let offset = locate_entry(SOURCE, "bodies", "decoy", 0, None);
        assert_eq!(line_column(SOURCE, offset), (2, 13));
    }

    #[test]
    fn enclosing_entry_of_an_offset() {
        let offset = offset_of(SOURCE, 8, 15);
        assert_eq!(
            enclosing_entry(SOURCE, offset).as_deref(),
            Some(r#"body "coupler""#)
        );
    }

    #[test]
    fn names_with_escapes_are_read_as_loaded() {
        let source = r#"(bodies: [Bar(name: "say \"hi\", \\o/", mass: 1.0)])"#;
        let offset = locate_entry(source, "bodies", r#"say "hi", \o/"#, 0, Some("mass"));
        assert_eq!(&source[offset..offset + 5], "mass:");
    }

    #[test]
    fn nth_field_inside_an_entry() {
        let source = r#"(joints: [P(name: "H", d: (steps: [(start: 1.0), (start: 2.0)]))])"#;
        let offset = locate_nth_field(source, "joints", "H", "start", 1);
        assert_eq!(&source[offset..offset + 10], "start: 2.0");
        // Past the last occurrence: the first; a missing field: the name.
        let offset = locate_nth_field(source, "joints", "H", "start", 5);
        assert_eq!(&source[offset..offset + 10], "start: 1.0");
        let offset = locate_nth_field(source, "joints", "H", "end", 0);
        assert_eq!(&source[offset..offset + 5], "name:");
        assert!(has_entry(source, "joints", "H"));
        assert!(!has_entry(source, "joints", "H.driver"));
    }

    #[test]
    fn list_items_by_index() {
        let offset = locate_list_item(SOURCE, "velocities", 1, Some("omega"));
        assert_eq!(line_column(SOURCE, offset), (11, 66));
    }
}
