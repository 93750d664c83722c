//! Scene errors: every one names the file, the line and column, and the entry at fault, and is
//! shown as one line (see [`one_line`]), in the terminal and in the app alike.

use std::fmt;

/// A scene that cannot be loaded; shown as `file:line:column: entity: message`, as one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    pub file: String,
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    /// The body, joint, load or section at fault, e.g. `joint "B1"`.
    pub entity: Option<String>,
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entity = self
            .entity
            .as_deref()
            .map_or_else(String::new, |entity| format!("{entity}: "));
        let text = format!(
            "{}:{}:{}: {entity}{}",
            self.file, self.line, self.column, self.message
        );
        f.write_str(&one_line(&text))
    }
}

impl std::error::Error for SceneError {}

/// Longest quoted text, in characters as shown, that a message shows in full: a name is
/// shortened to its first 40 and last 39 characters around an ellipsis (`…`), in the middle so
/// that names differing only at their end (`bar_0001`, `bar_0002`) stay apart.
pub const MAX_QUOTED_CHARS: usize = 80;

/// `text` as one line of a message. Control characters are escaped as Rust writes them
/// (`\n`, `\r`, `\t`, otherwise `\u{1b}`), and so are the line and paragraph separators and the
/// bidirectional overrides, which would break the line or reorder it on a terminal. Text
/// between double quotes or backticks (a name, ron's quote of the source) longer than
/// [`MAX_QUOTED_CHARS`] is shortened in the middle, so a 10 kB name does not make a 10 kB
/// line; an unclosed quote runs to the end. Everything else is shown as written, and applying
/// this twice changes nothing more.
pub fn one_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = &rest[open..=open];
        push_escaped(&mut line, &rest[..=open]);
        let inside = &rest[open + 1..];
        let Some(close) = inside.find(quote) else {
            push_shortened(&mut line, inside);
            return line;
        };
        push_shortened(&mut line, &inside[..close]);
        line.push_str(quote);
        rest = &inside[close + 1..];
    }
    push_escaped(&mut line, rest);
    line
}

/// How `c` is shown in a message: `None` as itself, else its escape.
fn escape(c: char) -> Option<String> {
    match c {
        '\n' => Some("\\n".to_string()),
        '\r' => Some("\\r".to_string()),
        '\t' => Some("\\t".to_string()),
        '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(format!("\\u{{{:x}}}", u32::from(c)))
        }
        c if c.is_control() => Some(format!("\\u{{{:x}}}", u32::from(c))),
        _ => None,
    }
}

fn push_escaped(line: &mut String, text: &str) {
    for c in text.chars() {
        match escape(c) {
            Some(escaped) => line.push_str(&escaped),
            None => line.push(c),
        }
    }
}

/// Characters `c` takes once shown.
fn shown_width(c: char) -> usize {
    escape(c).map_or(1, |escaped| escaped.chars().count())
}

/// Quoted text, escaped, and shortened in the middle if longer than [`MAX_QUOTED_CHARS`] as
/// shown (an escape is kept whole or left out whole).
fn push_shortened(line: &mut String, text: &str) {
    let width: usize = text.chars().map(shown_width).sum();
    if width <= MAX_QUOTED_CHARS {
        push_escaped(line, text);
        return;
    }
    let (head_budget, tail_budget) = (MAX_QUOTED_CHARS / 2, MAX_QUOTED_CHARS / 2 - 1);
    let mut head_end = 0;
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += shown_width(c);
        if used > head_budget {
            break;
        }
        head_end = i + c.len_utf8();
    }
    let mut tail_start = text.len();
    used = 0;
    for (i, c) in text.char_indices().rev() {
        used += shown_width(c);
        if used > tail_budget {
            break;
        }
        tail_start = i;
    }
    push_escaped(line, &text[..head_end]);
    line.push('…');
    push_escaped(line, &text[tail_start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            one_line("unknown body \"a\nb\" (tab\there, esc \u{1b}[31m, nel \u{85})"),
            "unknown body \"a\\nb\" (tab\\there, esc \\u{1b}[31m, nel \\u{85})"
        );
        assert_eq!(
            one_line("cr\r, ls \u{2028}, rlo \u{202e}"),
            "cr\\r, ls \\u{2028}, rlo \\u{202e}"
        );
        // Backslashes, quotes and non-ASCII names are shown as written.
        assert_eq!(one_line("body \"Kurbel ä\\n\""), "body \"Kurbel ä\\n\"");
    }

    #[test]
    fn long_quoted_text_is_shortened_in_the_middle_once() {
        let name = format!("{}{}", "a".repeat(5000), "bcd");
        let line = one_line(&format!("unknown body \"{name}\" (bodies: \"x\")"));
        let shortened = format!("{}…{}bcd", "a".repeat(40), "a".repeat(36));
        assert_eq!(
            line,
            format!("unknown body \"{shortened}\" (bodies: \"x\")")
        );
        assert_eq!(one_line(&line), line);
        // Exactly the limit is kept whole; an unclosed quote runs to the end of the text.
        let limit = "b".repeat(MAX_QUOTED_CHARS);
        assert_eq!(one_line(&format!("`{limit}`")), format!("`{limit}`"));
        let unclosed = one_line(&format!("at \"{}", "c\n".repeat(100)));
        assert_eq!(unclosed.chars().count(), "at \"".len() + MAX_QUOTED_CHARS);
        assert!(!unclosed.contains('\n'), "{unclosed}");
        assert_eq!(one_line(&unclosed), unclosed);
    }

    #[test]
    fn an_error_is_displayed_as_one_line() {
        let error = SceneError {
            file: "x.ron".to_string(),
            line: 3,
            column: 7,
            entity: Some("joint \"A\"".to_string()),
            message: "unknown body \"a\nb\"".to_string(),
        };
        assert_eq!(
            error.to_string(),
            "x.ron:3:7: joint \"A\": unknown body \"a\\nb\""
        );
    }
}
