//! Mutations of single tokens: numbers, strings, identifiers and stray bytes. Each takes the
//! scene text and the case's generator, changes the text and returns what it did (for the
//! report), or `None` when the text has nothing it applies to.

use crate::lexer::{Kind, Token, tokens};
use crate::test_rng::Rng;

/// Uniform in `0..n` (`n > 0`).
pub fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.uniform(0.0, n as f64) as usize).min(n - 1)
}

pub fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[below(rng, items.len())]
}

/// Replaces `range` of `text` by `with`.
pub fn splice(text: &mut Vec<u8>, range: std::ops::Range<usize>, with: &[u8]) {
    text.splice(range, with.iter().copied());
}

/// 1-based line of byte `offset`.
pub fn line_of(text: &[u8], offset: usize) -> usize {
    1 + text[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// `bytes` for a report: lossy UTF-8, escaped as Rust does (a backslash of the text doubled,
/// a raw control character as `\n` or `\u{1b}`) but for quotes, cut to 40 characters.
pub fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '"' | '\'' => c.to_string(),
            _ => c.escape_debug().to_string(),
        })
        .collect();
    if escaped.chars().count() > 40 {
        let head: String = escaped.chars().take(37).collect();
        format!("{head}...({} bytes)", bytes.len())
    } else {
        escaped
    }
}

/// A random token of `kind` (any kind for `None`).
fn random_token(text: &[u8], rng: &mut Rng, kind: Option<Kind>) -> Option<Token> {
    let all: Vec<Token> = tokens(text)
        .into_iter()
        .filter(|t| kind.is_none_or(|k| t.kind == k))
        .collect();
    (!all.is_empty()).then(|| *pick(rng, &all))
}

/// Replaces a random token of `kind` by one of `values`.
fn replace_token(text: &mut Vec<u8>, rng: &mut Rng, kind: Kind, values: &[&str]) -> Option<String> {
    let token = random_token(text, rng, Some(kind))?;
    let value = *pick(rng, values);
    let detail = format!(
        "line {}: {} -> {}",
        line_of(text, token.start),
        show(token.text(text)),
        show(value.as_bytes())
    );
    splice(text, token.start..token.end, value.as_bytes());
    Some(detail)
}

/// Values a careless or hostile author writes for a number, in spellings RON 0.12 reads
/// (`NaN`, `inf`, `-inf`, `+inf`, suffixed `inff64`; `1e999` rounds to infinity, `1e-400` to 0).
pub const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-300",
    "5e-324",
    "NaN",
    "inf",
    "-inf",
    "1e16",
    "-0.0",
    "0.0",
    "+inf",
    "-NaN",
    "inff64",
    "NaNf64",
    "1e999",
    "-1e999",
    "1e-400",
    "2.2e-308",
    "-5e-324",
    "1.7976931348623157e308",
    "18446744073709551616",
    "-9223372036854775809",
];

pub fn number_extreme(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    replace_token(text, rng, Kind::Number, EXTREME_NUMBERS)
}

/// A number scaled as a unit slip would (millimetres for metres, grams for kilograms) or by
/// a larger factor, or its sign flipped: values that load and reach the solver. The step
/// `dt` is left alone: a thousand times more honest steps is a slow run, not a fault.
pub fn number_scale(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let all = tokens(text);
    let numbers: Vec<Token> = all
        .iter()
        .enumerate()
        .filter(|(i, t)| t.kind == Kind::Number && !(*i >= 2 && all[i - 2].text(text) == b"dt"))
        .map(|(_, t)| *t)
        .collect();
    if numbers.is_empty() {
        return None;
    }
    let token = *pick(rng, &numbers);
    let value: f64 = String::from_utf8_lossy(token.text(text)).parse().ok()?;
    let factor = *pick(rng, &[1e-9, 1e-6, 1e-3, -1.0, 10.0, 1e3, 1e6, 1e9]);
    let scaled = format!("{:e}", value * factor);
    let detail = format!(
        "line {}: {} -> {scaled}",
        line_of(text, token.start),
        show(token.text(text))
    );
    splice(text, token.start..token.end, scaled.as_bytes());
    Some(detail)
}

/// Spellings of numbers from other languages, typos and RON's integer forms.
const ODD_SPELLINGS: &[&str] = &[
    "nan",
    "Inf",
    "-Infinity",
    "infinity",
    "1.#INF",
    "1e",
    "1e+",
    ".5",
    "5.",
    "1.e5",
    "0x10",
    "0b101",
    "0o17",
    "1_000.5",
    "1,5",
    "1..0",
    "+-1",
    "--1",
    "1e3.5",
    "1f64",
    "1.0f32",
    "3.5e38f32",
    "1e40f32",
    "-",
    "+",
    "e5",
    "0.0.0",
    "1 000",
    "\u{661}",
    "1e-",
    "00012",
    "-0x1",
];

pub fn number_spelling(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    replace_token(text, rng, Kind::Number, ODD_SPELLINGS)
}

pub fn number_long(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let digits = *pick(rng, &[40, 400, 10_000, 100_000]);
    let zeros = "0".repeat(digits);
    let values = [
        format!("1{zeros}.0"),
        format!("0.{zeros}1"),
        format!("1.{zeros}1e-310"),
        format!("1e{}", "9".repeat(digits.min(400))),
        "1".repeat(digits),
    ];
    let value = pick(rng, &values).clone();
    replace_token(text, rng, Kind::Number, &[value.as_str()])
}

pub fn token_delete(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let token = random_token(text, rng, None)?;
    let detail = format!(
        "line {}: deleted {}",
        line_of(text, token.start),
        show(token.text(text))
    );
    splice(text, token.start..token.end, b"");
    Some(detail)
}

pub fn token_duplicate(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let token = random_token(text, rng, None)?;
    let copy = token.text(text).to_vec();
    let detail = format!(
        "line {}: doubled {}",
        line_of(text, token.start),
        show(&copy)
    );
    let joined = [copy.as_slice(), b" ", copy.as_slice()].concat();
    splice(text, token.start..token.end, &joined);
    Some(detail)
}

/// Replaces a string literal by another one of the file (a name swapped with another name).
pub fn name_swap(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let strings: Vec<Token> = tokens(text)
        .into_iter()
        .filter(|t| t.kind == Kind::Str)
        .collect();
    if strings.len() < 2 {
        return None;
    }
    let target = *pick(rng, &strings);
    let source = pick(rng, &strings).text(text).to_vec();
    let detail = format!(
        "line {}: {} -> {}",
        line_of(text, target.start),
        show(target.text(text)),
        show(&source)
    );
    splice(text, target.start..target.end, &source);
    Some(detail)
}

pub fn name_empty(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    replace_token(text, rng, Kind::Str, &["\"\""])
}

pub fn name_huge(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let unit = *pick(rng, &["x", "é", "name with spaces ", "\u{1F600}"]);
    let huge = format!("\"{}\"", unit.repeat(10_240 / unit.len()));
    replace_token(text, rng, Kind::Str, &[huge.as_str()])
}

/// Inserts `what` inside a random string literal (after its opening quote and at most at its
/// closing one).
fn insert_in_string(text: &mut Vec<u8>, rng: &mut Rng, what: &[u8]) -> Option<String> {
    let token = random_token(text, rng, Some(Kind::Str))?;
    let inner = token.end.saturating_sub(token.start + 1).max(1);
    let at = token.start + 1 + below(rng, inner);
    let detail = format!(
        "line {}: {} gets {}",
        line_of(text, token.start),
        show(token.text(text)),
        show(what)
    );
    splice(text, at..at, what);
    Some(detail)
}

/// RON escapes in a name: line breaks, terminal control sequences, bidirectional overrides,
/// and escapes RON rejects.
pub fn name_escape(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let escape = *pick(
        rng,
        &[
            r"\n",
            r"\r",
            r"\t",
            r"\0",
            r"\x1b[31m",
            r"\u{1b}[2J",
            r"\u{2028}",
            r"\u{202e}",
            r"\u{85}",
            r"\u{d800}",
            r"\q",
            r"\u{}",
            r"\x80",
            r#"\""#,
            r"\\",
            r"\u{7}",
        ],
    );
    insert_in_string(text, rng, escape.as_bytes())
}

/// Raw control characters and invisible code points typed into a name.
pub fn name_control(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let raw = *pick(
        rng,
        &[
            "\n", "\r", "\x1b[2J", "\0", "\x07", "\x7f", "\t", "\u{2028}", "\u{202e}", "\u{feff}",
            "\u{85}", "\r\n",
        ],
    );
    insert_in_string(text, rng, raw.as_bytes())
}

/// Identifiers of the format (and near misses) put where another identifier was.
const IDENTS: &[&str] = &[
    "Bar",
    "Point",
    "Pin",
    "Revolute",
    "Distance",
    "Start",
    "End",
    "Center",
    "Fraction",
    "Along",
    "Offset",
    "Torque",
    "Force",
    "Scene",
    "Some",
    "None",
    "true",
    "Dopri5",
    "Rk4",
    "Zeroth",
    "Omega",
    "bar",
    "Slider",
    "name",
    "body",
    "solver",
    "inf",
    "NaN",
    "r",
    "b",
    "Plate",
    "Prismatic",
    "KnifeEdge",
    "Driver",
    "Step",
    "driver",
    "steps",
    "axis",
    "normal",
    "inertia",
];

pub fn ident_swap(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    replace_token(text, rng, Kind::Ident, IDENTS)
}

/// A value (number or string) wrapped in many parentheses or brackets, balanced or not.
pub fn deep_nesting(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let kind = *pick(rng, &[Kind::Number, Kind::Str]);
    let token = random_token(text, rng, Some(kind))?;
    let shallow = 1 + below(rng, 300);
    let depth = *pick(rng, &[10_000, 10_000, 100_000, shallow]);
    let (open, close) = *pick(rng, &[("(", ")"), ("[", "]"), ("(", "]"), ("Some(", ")")]);
    let balanced = below(rng, 4) != 0;
    let value = token.text(text).to_vec();
    let closing = if balanced {
        close.repeat(depth)
    } else {
        String::new()
    };
    let wrapped = [
        open.repeat(depth).as_bytes(),
        value.as_slice(),
        closing.as_bytes(),
    ]
    .concat();
    let detail = format!(
        "line {}: {} in {depth} x {open}{}",
        line_of(text, token.start),
        show(&value),
        if balanced { close } else { " (unclosed)" }
    );
    splice(text, token.start..token.end, &wrapped);
    Some(detail)
}

/// A byte-order mark (UTF-8, twice, inside the text) or the whole file saved as UTF-16.
pub fn byte_order_mark(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    match below(rng, 4) {
        0 => splice(text, 0..0, BOM),
        1 => {
            splice(text, 0..0, &BOM.repeat(2));
            return Some("two UTF-8 BOMs at the start".into());
        }
        2 => {
            let token = random_token(text, rng, None)?;
            splice(text, token.start..token.start, BOM);
            return Some(format!("UTF-8 BOM at line {}", line_of(text, token.start)));
        }
        _ => {
            let utf16: Vec<u8> = String::from_utf8_lossy(text)
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect();
            *text = [b"\xFF\xFE".as_slice(), &utf16].concat();
            return Some("saved as UTF-16LE with BOM".into());
        }
    }
    Some("UTF-8 BOM at the start".into())
}

pub fn truncate(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let at = if below(rng, 20) == 0 {
        0
    } else {
        below(rng, text.len() + 1)
    };
    let detail = format!(
        "cut at byte {at} of {} (line {})",
        text.len(),
        line_of(text, at)
    );
    text.truncate(at);
    Some(detail)
}

pub fn invalid_utf8(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let bytes = *pick(
        rng,
        &[
            &b"\xFF"[..],
            b"\xC3",
            b"\x80",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
        ],
    );
    let at = below(rng, text.len() + 1);
    let detail = format!("line {}: inserted bytes {bytes:02X?}", line_of(text, at));
    splice(text, at..at, bytes);
    Some(detail)
}

/// Stray characters an editor or a bad merge leaves between tokens.
pub fn insert_junk(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let junk = *pick(
        rng,
        &[
            "\"",
            "/*",
            "*/",
            "(",
            ")",
            "[",
            "]",
            ",",
            ":",
            "r#\"",
            "'",
            "#",
            "@",
            "\0",
            ",,",
            "<<<<<<< HEAD",
            "//",
            "#![enable(implicit_some)]",
            "b\"",
            "'a'",
            "()",
        ],
    );
    let token = random_token(text, rng, None)?;
    let at = if below(rng, 2) == 0 {
        token.start
    } else {
        token.end
    };
    let detail = format!(
        "line {}: inserted {}",
        line_of(text, at),
        show(junk.as_bytes())
    );
    splice(text, at..at, junk.as_bytes());
    Some(detail)
}

/// The whole file as another editor or a careless script leaves it: Windows or old Mac line
/// endings, tabs for indentation, two copies, an extension attribute in front.
pub fn whole_file(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let original = String::from_utf8_lossy(text).into_owned();
    let (changed, detail) = match below(rng, 5) {
        0 => (original.replace('\n', "\r\n"), "CRLF line endings"),
        1 => (original.replace('\n', "\r"), "CR line endings"),
        2 => (original.replace("    ", "\t"), "tabs for indentation"),
        3 => (format!("{original}\n{original}"), "the scene twice"),
        _ => (
            format!("#![enable(implicit_some, unwrap_newtypes)]\n{original}"),
            "an extension attribute in front",
        ),
    };
    *text = changed.into_bytes();
    Some(detail.into())
}

/// A megabyte of comment or a hundred thousand blank lines between tokens: harmless, but any
/// later error must still be located in the right line.
pub fn huge_filler(text: &mut Vec<u8>, rng: &mut Rng) -> Option<String> {
    let filler = match below(rng, 3) {
        0 => format!("/* {} */", "comment ".repeat(131_072)),
        1 => "\n".repeat(100_000),
        _ => format!("{}\n", "// comment\n".repeat(50_000)),
    };
    let token = random_token(text, rng, None)?;
    let detail = format!(
        "line {}: {} bytes of filler",
        line_of(text, token.start),
        filler.len()
    );
    splice(text, token.start..token.start, filler.as_bytes());
    Some(detail)
}
