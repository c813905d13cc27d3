//! A byte-level lexer that yields exactly the tokens rustpython's lexer yields, for the
//! text it accepts; the parser then runs on them (`Suite::parse_tokens`).
//!
//! rustpython's lexer reads the text one `char` at a time through a three-character
//! window that it rotates on every character, and looks every identifier character up in
//! the Unicode tables: about 40% of parsing. This one reads bytes and handles the common
//! text only: it gives up (`None`) on anything else — a carriage return, a byte-order mark,
//! a non-ASCII character outside strings and comments, a `match`/`case`/`type` that may
//! be a soft keyword, and every lexical error — and the caller then lexes with
//! rustpython, so every error is still rustpython's own, at its own place.
//!
//! The rules copied here are rustpython-parser 0.4's (`src/lexer.rs`, `src/soft_keywords.rs`,
//! without the `full-lexer` feature: no comment and non-logical newline tokens): the
//! same tokens, the same ranges, the same string contents (the raw text between the quotes)
//! and the same number values (underscores dropped, the same `f64` and big-integer
//! parsing). `tests` compares both lexers token by token on every Python file of the
//! repository, on damaged copies of them (truncated, bytes inserted and deleted) and on
//! edge cases.

use rustpython_parser::ast::bigint::BigInt;
use rustpython_parser::lexer::Spanned;
use rustpython_parser::text_size::{TextRange, TextSize};
use rustpython_parser::{StringKind, Tok};

/// The tokens of `text` as rustpython's lexer yields them (each `Ok`) (`Mode::Module`, soft keywords
/// resolved), or `None` when this lexer does not handle the text (see the module docs).
pub(super) fn lex(text: &str) -> Option<Vec<Spanned>> {
    let bytes = text.as_bytes();
    if u32::try_from(bytes.len()).is_err()
        || bytes.starts_with(b"\xEF\xBB\xBF")
        || bytes.contains(&b'\r')
    {
        return None;
    }
    let mut lx = Lexer {
        text,
        bytes,
        pos: 0,
        nesting: 0,
        at_begin_of_line: true,
        indents: vec![Indent::default()],
        out: Vec::with_capacity(bytes.len() / 4),
    };
    lx.run()?;
    soft_keywords(&mut lx.out)?;
    Some(lx.out)
}

/// An indentation level: tabs and spaces, compared as rustpython does.
#[derive(Clone, Copy, Default, PartialEq)]
struct Indent {
    tabs: u32,
    spaces: u32,
}

impl Indent {
    /// rustpython's `compare_strict`; `None` where it reports a tab error.
    fn compare(&self, other: &Indent) -> Option<std::cmp::Ordering> {
        use std::cmp::Ordering::*;
        match self.tabs.cmp(&other.tabs) {
            Less => (self.spaces <= other.spaces).then_some(Less),
            Greater => (self.spaces >= other.spaces).then_some(Greater),
            Equal => Some(self.spaces.cmp(&other.spaces)),
        }
    }
}

struct Lexer<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    nesting: usize,
    at_begin_of_line: bool,
    indents: Vec<Indent>,
    out: Vec<Spanned>,
}

fn range(start: usize, end: usize) -> TextRange {
    TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32))
}

/// What one step of the lexer did: go on, or the end of the file was reached.
enum Step {
    More,
    End,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn emit(&mut self, tok: Tok, start: usize) {
        self.out.push((tok, range(start, self.pos)));
    }

    fn run(&mut self) -> Option<()> {
        loop {
            if self.at_begin_of_line {
                self.indentation()?;
            }
            if let Step::End = self.normal()? {
                return Some(());
            }
        }
    }

    /// rustpython's `eat_indentation` and `handle_indentations`.
    fn indentation(&mut self) -> Option<()> {
        let (mut spaces, mut tabs) = (0u32, 0u32);
        loop {
            match self.peek(0) {
                Some(b' ') => {
                    self.pos += 1;
                    spaces += 1;
                }
                Some(b'\t') => {
                    if spaces != 0 {
                        return None;
                    }
                    self.pos += 1;
                    tabs += 1;
                }
                Some(b'#') => {
                    self.comment();
                    (spaces, tabs) = (0, 0);
                }
                Some(b'\x0C') | Some(b'\n') => {
                    self.pos += 1;
                    (spaces, tabs) = (0, 0);
                }
                None => {
                    (spaces, tabs) = (0, 0);
                    break;
                }
                Some(_) => {
                    self.at_begin_of_line = false;
                    break;
                }
            }
        }
        if self.nesting != 0 {
            return Some(());
        }
        let level = Indent { tabs, spaces };
        let current = *self.indents.last()?;
        match level.compare(&current)? {
            std::cmp::Ordering::Equal => {}
            std::cmp::Ordering::Greater => {
                self.indents.push(level);
                let start = self.pos - (spaces + tabs) as usize;
                self.emit(Tok::Indent, start);
            }
            std::cmp::Ordering::Less => loop {
                let current = *self.indents.last()?;
                match level.compare(&current)? {
                    std::cmp::Ordering::Less => {
                        if self.indents.len() > 1 {
                            self.indents.pop();
                        }
                        self.emit(Tok::Dedent, self.pos);
                    }
                    std::cmp::Ordering::Equal => break,
                    std::cmp::Ordering::Greater => return None,
                }
            },
        }
        Some(())
    }

    fn comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == b'\n' {
                break;
            }
            self.pos += 1;
        }
    }

    /// rustpython's `consume_normal`.
    fn normal(&mut self) -> Option<Step> {
        let Some(c) = self.peek(0) else {
            if self.nesting > 0 {
                return None;
            }
            if !self.at_begin_of_line {
                self.at_begin_of_line = true;
                self.emit(Tok::Newline, self.pos);
            }
            while self.indents.len() > 1 {
                self.indents.pop();
                self.emit(Tok::Dedent, self.pos);
            }
            return Some(Step::End);
        };
        if c.is_ascii_alphabetic() || c == b'_' {
            self.identifier()?;
        } else {
            self.character(c)?;
        }
        Some(Step::More)
    }

    fn identifier(&mut self) -> Option<()> {
        let quote = |b: Option<u8>| matches!(b, Some(b'"' | b'\''));
        let (c0, c1) = (self.peek(0)?, self.peek(1));
        if quote(c1) {
            if let Some(kind) = prefix1(c0) {
                return self.string(kind);
            }
        } else if quote(self.peek(2)) {
            if let Some(kind) = c1.and_then(|c1| prefix2(c0, c1)) {
                return self.string(kind);
            }
        }
        let start = self.pos;
        while let Some(c) = self.peek(0) {
            if c.is_ascii_alphanumeric() || c == b'_' {
                self.pos += 1;
            } else if c >= 0x80 {
                return None; // maybe a Unicode identifier character
            } else {
                break;
            }
        }
        let name = &self.text[start..self.pos];
        let tok = keyword(name).unwrap_or_else(|| Tok::Name {
            name: name.to_string(),
        });
        self.emit(tok, start);
        Some(())
    }

    /// rustpython's `lex_string`: the value is the raw text between the quotes.
    fn string(&mut self, kind: StringKind) -> Option<()> {
        let start = self.pos;
        self.pos += u32::from(kind.prefix_len()) as usize;
        let q = self.peek(0)?;
        self.pos += 1;
        let triple = self.peek(0) == Some(q) && self.peek(1) == Some(q);
        if triple {
            self.pos += 2;
        }
        let content = self.pos;
        let end;
        loop {
            let c = self.peek(0)?;
            if c == b'\\' {
                let next = self.peek(1)?;
                // Skip the escaped character whole (it may be a multi-byte one).
                self.pos += 1 + utf8_len(next);
                continue;
            }
            if c == b'\n' && !triple {
                return None;
            }
            if c == q {
                if !triple {
                    end = self.pos;
                    self.pos += 1;
                    break;
                }
                if self.peek(1) == Some(q) && self.peek(2) == Some(q) {
                    end = self.pos;
                    self.pos += 3;
                    break;
                }
            }
            self.pos += 1;
        }
        let value = self.text.get(content..end)?.to_string();
        self.emit(
            Tok::String {
                value,
                kind,
                triple_quoted: triple,
            },
            start,
        );
        Some(())
    }

    /// rustpython's `lex_number` (decimal, float, complex, and radix integers).
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        if self.peek(0) == Some(b'0') {
            let radix = match self.peek(1) {
                Some(b'x' | b'X') => 16,
                Some(b'o' | b'O') => 8,
                Some(b'b' | b'B') => 2,
                _ => 0,
            };
            if radix != 0 {
                self.pos += 2;
                let digits = self.digits(radix);
                let value = BigInt::parse_bytes(digits.as_bytes(), radix)?;
                self.emit(Tok::Int { value }, start);
                return Some(());
            }
        }
        let start_is_zero = self.peek(0) == Some(b'0');
        let mut text = self.digits(10);
        let at_exponent = match (self.peek(0), self.peek(1)) {
            (Some(b'e' | b'E'), Some(b'+' | b'-')) => matches!(self.peek(2), Some(b'0'..=b'9')),
            (Some(b'e' | b'E'), Some(b'0'..=b'9')) => true,
            _ => false,
        };
        if self.peek(0) == Some(b'.') || at_exponent {
            if self.peek(0) == Some(b'.') {
                if self.peek(1) == Some(b'_') {
                    return None;
                }
                self.pos += 1;
                text.push('.');
                text.push_str(&self.digits(10));
            }
            if let Some(b'e' | b'E') = self.peek(0) {
                if self.peek(1) == Some(b'_') {
                    return None;
                }
                self.pos += 1;
                text.push('e');
                if let Some(sign @ (b'-' | b'+')) = self.peek(0) {
                    if self.peek(1) == Some(b'_') {
                        return None;
                    }
                    self.pos += 1;
                    text.push(sign as char);
                }
                text.push_str(&self.digits(10));
            }
            let value: f64 = text.parse().ok()?;
            if let Some(b'j' | b'J') = self.peek(0) {
                self.pos += 1;
                self.emit(
                    Tok::Complex {
                        real: 0.0,
                        imag: value,
                    },
                    start,
                );
            } else {
                self.emit(Tok::Float { value }, start);
            }
            return Some(());
        }
        if let Some(b'j' | b'J') = self.peek(0) {
            self.pos += 1;
            let imag: f64 = text.parse().ok()?;
            self.emit(Tok::Complex { real: 0.0, imag }, start);
            return Some(());
        }
        let value = match text.parse::<u64>() {
            Ok(v) => BigInt::from(v),
            Err(_) => BigInt::parse_bytes(text.as_bytes(), 10)?,
        };
        if start_is_zero && text.bytes().any(|b| b != b'0') {
            return None;
        }
        self.emit(Tok::Int { value }, start);
        Some(())
    }

    /// rustpython's `radix_run`: digits of `radix`, with single underscores between them
    /// dropped.
    fn digits(&mut self, radix: u32) -> String {
        let is_digit = |c: Option<u8>| c.is_some_and(|c| (c as char).is_digit(radix));
        let mut out = String::new();
        loop {
            if is_digit(self.peek(0)) {
                out.push(self.bytes[self.pos] as char);
                self.pos += 1;
            } else if self.peek(0) == Some(b'_') && is_digit(self.peek(1)) {
                self.pos += 1;
            } else {
                return out;
            }
        }
    }

    /// One token of punctuation, a number, a string, a comment, whitespace, a newline or a
    /// line continuation: rustpython's `consume_character`.
    fn character(&mut self, c: u8) -> Option<()> {
        let start = self.pos;
        // An operator of one character, or two when the next is `second`.
        let op = |one: Tok, second: u8, two: Tok, lx: &mut Self| {
            lx.pos += 1;
            if lx.peek(0) == Some(second) {
                lx.pos += 1;
                lx.emit(two, start);
            } else {
                lx.emit(one, start);
            }
        };
        match c {
            b'0'..=b'9' => return self.number(),
            b'#' => self.comment(),
            b'"' | b'\'' => return self.string(StringKind::String),
            b'=' => op(Tok::Equal, b'=', Tok::EqEqual, self),
            b'+' => op(Tok::Plus, b'=', Tok::PlusEqual, self),
            b'%' => op(Tok::Percent, b'=', Tok::PercentEqual, self),
            b'|' => op(Tok::Vbar, b'=', Tok::VbarEqual, self),
            b'^' => op(Tok::CircumFlex, b'=', Tok::CircumflexEqual, self),
            b'&' => op(Tok::Amper, b'=', Tok::AmperEqual, self),
            b'@' => op(Tok::At, b'=', Tok::AtEqual, self),
            b':' => op(Tok::Colon, b'=', Tok::ColonEqual, self),
            b'*' | b'/' => {
                let (one, one_eq, two, two_eq) = if c == b'*' {
                    (
                        Tok::Star,
                        Tok::StarEqual,
                        Tok::DoubleStar,
                        Tok::DoubleStarEqual,
                    )
                } else {
                    (
                        Tok::Slash,
                        Tok::SlashEqual,
                        Tok::DoubleSlash,
                        Tok::DoubleSlashEqual,
                    )
                };
                self.pos += 1;
                match self.peek(0) {
                    Some(b'=') => {
                        self.pos += 1;
                        self.emit(one_eq, start);
                    }
                    Some(n) if n == c => {
                        self.pos += 1;
                        if self.peek(0) == Some(b'=') {
                            self.pos += 1;
                            self.emit(two_eq, start);
                        } else {
                            self.emit(two, start);
                        }
                    }
                    _ => self.emit(one, start),
                }
            }
            b'<' | b'>' => {
                let (one, one_eq, two, two_eq) = if c == b'<' {
                    (
                        Tok::Less,
                        Tok::LessEqual,
                        Tok::LeftShift,
                        Tok::LeftShiftEqual,
                    )
                } else {
                    (
                        Tok::Greater,
                        Tok::GreaterEqual,
                        Tok::RightShift,
                        Tok::RightShiftEqual,
                    )
                };
                self.pos += 1;
                match self.peek(0) {
                    Some(n) if n == c => {
                        self.pos += 1;
                        if self.peek(0) == Some(b'=') {
                            self.pos += 1;
                            self.emit(two_eq, start);
                        } else {
                            self.emit(two, start);
                        }
                    }
                    Some(b'=') => {
                        self.pos += 1;
                        self.emit(one_eq, start);
                    }
                    _ => self.emit(one, start),
                }
            }
            b'-' => {
                self.pos += 1;
                match self.peek(0) {
                    Some(b'=') => {
                        self.pos += 1;
                        self.emit(Tok::MinusEqual, start);
                    }
                    Some(b'>') => {
                        self.pos += 1;
                        self.emit(Tok::Rarrow, start);
                    }
                    _ => self.emit(Tok::Minus, start),
                }
            }
            b'!' => {
                if self.peek(1) != Some(b'=') {
                    return None;
                }
                self.pos += 2;
                self.emit(Tok::NotEqual, start);
            }
            b'~' | b',' | b';' => {
                self.pos += 1;
                let tok = match c {
                    b'~' => Tok::Tilde,
                    b',' => Tok::Comma,
                    _ => Tok::Semi,
                };
                self.emit(tok, start);
            }
            b'(' | b'[' | b'{' => {
                self.pos += 1;
                let tok = match c {
                    b'(' => Tok::Lpar,
                    b'[' => Tok::Lsqb,
                    _ => Tok::Lbrace,
                };
                self.emit(tok, start);
                self.nesting += 1;
            }
            b')' | b']' | b'}' => {
                if self.nesting == 0 {
                    return None;
                }
                self.pos += 1;
                let tok = match c {
                    b')' => Tok::Rpar,
                    b']' => Tok::Rsqb,
                    _ => Tok::Rbrace,
                };
                self.emit(tok, start);
                self.nesting -= 1;
            }
            b'.' => {
                if let Some(b'0'..=b'9') = self.peek(1) {
                    return self.number();
                }
                self.pos += 1;
                if self.peek(0) == Some(b'.') && self.peek(1) == Some(b'.') {
                    self.pos += 2;
                    self.emit(Tok::Ellipsis, start);
                } else {
                    self.emit(Tok::Dot, start);
                }
            }
            b'\n' => {
                self.pos += 1;
                if self.nesting == 0 {
                    self.at_begin_of_line = true;
                    self.emit(Tok::Newline, start);
                }
            }
            b' ' | b'\t' | b'\x0C' => {
                while let Some(b' ' | b'\t' | b'\x0C') = self.peek(0) {
                    self.pos += 1;
                }
            }
            b'\\' => {
                if self.peek(1) != Some(b'\n') || self.peek(2).is_none() {
                    return None;
                }
                self.pos += 2;
            }
            _ => return None,
        }
        Some(())
    }
}

/// The length of the UTF-8 sequence whose first byte is `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn prefix1(c: u8) -> Option<StringKind> {
    Some(match c {
        b'r' | b'R' => StringKind::RawString,
        b'f' | b'F' => StringKind::FString,
        b'u' | b'U' => StringKind::Unicode,
        b'b' | b'B' => StringKind::Bytes,
        _ => return None,
    })
}

fn prefix2(c0: u8, c1: u8) -> Option<StringKind> {
    let (a, b) = (c0.to_ascii_lowercase(), c1.to_ascii_lowercase());
    Some(match (a, b) {
        (b'r', b'f') | (b'f', b'r') => StringKind::RawFString,
        (b'r', b'b') | (b'b', b'r') => StringKind::RawBytes,
        _ => return None,
    })
}

/// rustpython's keyword table (soft keywords included; [`soft_keywords`] resolves them).
fn keyword(name: &str) -> Option<Tok> {
    Some(match name {
        "False" => Tok::False,
        "None" => Tok::None,
        "True" => Tok::True,
        "and" => Tok::And,
        "as" => Tok::As,
        "assert" => Tok::Assert,
        "async" => Tok::Async,
        "await" => Tok::Await,
        "break" => Tok::Break,
        "case" => Tok::Case,
        "class" => Tok::Class,
        "continue" => Tok::Continue,
        "def" => Tok::Def,
        "del" => Tok::Del,
        "elif" => Tok::Elif,
        "else" => Tok::Else,
        "except" => Tok::Except,
        "finally" => Tok::Finally,
        "for" => Tok::For,
        "from" => Tok::From,
        "global" => Tok::Global,
        "if" => Tok::If,
        "import" => Tok::Import,
        "in" => Tok::In,
        "is" => Tok::Is,
        "lambda" => Tok::Lambda,
        "match" => Tok::Match,
        "nonlocal" => Tok::Nonlocal,
        "not" => Tok::Not,
        "or" => Tok::Or,
        "pass" => Tok::Pass,
        "raise" => Tok::Raise,
        "return" => Tok::Return,
        "try" => Tok::Try,
        "type" => Tok::Type,
        "while" => Tok::While,
        "with" => Tok::With,
        "yield" => Tok::Yield,
        _ => return None,
    })
}

/// rustpython's `SoftKeywordTransformer`: `match`, `case` and `type` are names unless they
/// start a logical line that has the statement's shape.
fn soft_keywords(toks: &mut [Spanned]) -> Option<()> {
    let mut start_of_line = true;
    for i in 0..toks.len() {
        let keep = match toks[i].0 {
            Tok::Match | Tok::Case => start_of_line && match_like(&toks[i + 1..]),
            Tok::Type => start_of_line && type_alias(&toks[i + 1..]),
            _ => true,
        };
        if !keep {
            let name = match toks[i].0 {
                Tok::Match => "match",
                Tok::Case => "case",
                _ => "type",
            };
            toks[i].0 = Tok::Name {
                name: name.to_string(),
            };
        }
        start_of_line = matches!(toks[i].0, Tok::Newline | Tok::Indent | Tok::Dedent);
    }
    Some(())
}

/// Whether the tokens after `match`/`case` have a colon at depth 0 that is not the first
/// token and not a lambda's.
fn match_like(rest: &[Spanned]) -> bool {
    let (mut nesting, mut first, mut seen_colon, mut seen_lambda) = (0i64, true, false, false);
    for (tok, _) in rest {
        match tok {
            Tok::Newline => break,
            Tok::Lambda if nesting == 0 => seen_lambda = true,
            Tok::Colon if nesting == 0 => {
                if seen_lambda {
                    seen_lambda = false;
                } else if !first {
                    seen_colon = true;
                }
            }
            Tok::Lpar | Tok::Lsqb | Tok::Lbrace => nesting += 1,
            Tok::Rpar | Tok::Rsqb | Tok::Rbrace => nesting -= 1,
            _ => {}
        }
        first = false;
    }
    seen_colon
}

/// Whether the tokens after `type` are `NAME [...] =`.
fn type_alias(rest: &[Spanned]) -> bool {
    let Some((first, _)) = rest.first() else {
        return false;
    };
    if !matches!(first, Tok::Name { .. } | Tok::Type | Tok::Match | Tok::Case) {
        return false;
    }
    let mut nesting = 0i64;
    for (tok, _) in &rest[1..] {
        match tok {
            Tok::Newline => break,
            Tok::Equal if nesting == 0 => return true,
            Tok::Lsqb => nesting += 1,
            Tok::Rsqb => nesting -= 1,
            _ if nesting > 0 => {}
            _ => break,
        }
    }
    false
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
