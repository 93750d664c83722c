//! A forgiving RON tokenizer over bytes: enough to find numbers, strings, identifiers and
//! brackets in a scene that earlier mutations may already have broken (unterminated strings
//! and comments end at the end of the text; any other byte is punctuation).

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Number,
    Str,
    Ident,
    Punct,
}

/// A token: its kind and byte range in the text.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, source: &'a [u8]) -> &'a [u8] {
        &source[self.start..self.end]
    }

    /// Whether this is the one-byte punctuation `byte`.
    pub fn is(&self, source: &[u8], byte: u8) -> bool {
        self.kind == Kind::Punct && source[self.start] == byte
    }
}

/// The tokens of `source`, comments and white space left out.
pub fn tokens(source: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < source.len() {
        let byte = source[at];
        let next = source.get(at + 1).copied();
        let (kind, end) = match byte {
            b if b.is_ascii_whitespace() => {
                at += 1;
                continue;
            }
            b'/' if next == Some(b'/') => {
                at = line_end(source, at);
                continue;
            }
            b'/' if next == Some(b'*') => {
                at = block_comment_end(source, at);
                continue;
            }
            b'"' => (Kind::Str, string_end(source, at)),
            b'0'..=b'9' => (Kind::Number, number_end(source, at)),
            b'+' | b'-' | b'.' if next.is_some_and(|b| b.is_ascii_digit() || b == b'.') => {
                (Kind::Number, number_end(source, at + 1))
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' => (Kind::Ident, ident_end(source, at)),
            _ => (Kind::Punct, at + 1),
        };
        tokens.push(Token {
            kind,
            start: at,
            end,
        });
        at = end;
    }
    tokens
}

fn line_end(source: &[u8], from: usize) -> usize {
    source[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |p| from + p)
}

/// The end of a `/* ... */` comment starting at `from` (RON nests them).
fn block_comment_end(source: &[u8], from: usize) -> usize {
    let mut depth = 0usize;
    let mut at = from;
    while at + 1 < source.len() {
        match (source[at], source[at + 1]) {
            (b'/', b'*') => {
                depth += 1;
                at += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                at += 2;
                if depth == 0 {
                    return at;
                }
            }
            _ => at += 1,
        }
    }
    source.len()
}

/// The end of the string literal opening at `from` (after its closing quote).
fn string_end(source: &[u8], from: usize) -> usize {
    let mut at = from + 1;
    while at < source.len() {
        match source[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    source.len()
}

/// The end of a number's digits, point, exponent and suffix from `from`.
fn number_end(source: &[u8], from: usize) -> usize {
    let mut at = from;
    while at < source.len() {
        let byte = source[at];
        let exponent_sign = matches!(byte, b'+' | b'-') && matches!(source[at - 1], b'e' | b'E');
        if !(byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'_' || exponent_sign) {
            break;
        }
        at += 1;
    }
    at
}

fn ident_end(source: &[u8], from: usize) -> usize {
    source[from..]
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .map_or(source.len(), |p| from + p)
}

/// The index of the token closing the bracket or parenthesis opened at token `open`.
pub fn matching_close(tokens: &[Token], source: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate().skip(open) {
        if token.is(source, b'(') || token.is(source, b'[') {
            depth += 1;
        } else if token.is(source, b')') || token.is(source, b']') {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(index);
            }
        }
    }
    None
}

/// The comma-separated elements between the tokens `open` and `close` (exclusive), as token
/// index ranges; a trailing comma makes no empty element.
pub fn elements(
    tokens: &[Token],
    source: &[u8],
    open: usize,
    close: usize,
) -> Vec<std::ops::Range<usize>> {
    let mut elements = Vec::new();
    let mut depth = 0usize;
    let mut first = open + 1;
    for (index, token) in tokens.iter().enumerate().take(close).skip(open + 1) {
        if token.is(source, b'(') || token.is(source, b'[') {
            depth += 1;
        } else if token.is(source, b')') || token.is(source, b']') {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && token.is(source, b',') {
            if first < index {
                elements.push(first..index);
            }
            first = index + 1;
        }
    }
    if first < close {
        elements.push(first..close);
    }
    elements
}
