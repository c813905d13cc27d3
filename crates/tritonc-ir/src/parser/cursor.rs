//! A byte cursor over IR text with the lexical pieces: whitespace, words, numbers,
//! strings, types and locations.

use tritonc_diagnostics::{FileId, Span};

use super::ParseError;
use crate::location::Location;
use crate::types::{is_bare_symbol, DType, Dim, Elem, PtrType, Type};

/// Deepest nesting of regions the parser accepts (keeps garbage input off the stack).
pub(super) const MAX_DEPTH: usize = 128;

pub(super) type PResult<T> = Result<T, ParseError>;

pub(super) struct Cursor<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
    /// Encoding aliases defined at the top of the text (`#blocked = …`).
    pub(super) aliases: std::collections::HashMap<String, super::encoding::Alias>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$'
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Cursor {
            text,
            pos: 0,
            aliases: std::collections::HashMap::new(),
        }
    }

    pub(super) fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            offset: self.pos,
            message: message.into(),
        })
    }

    pub(super) fn error_at<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    pub(super) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// Skips spaces, tabs and newlines and `//` comments.
    pub(super) fn skip_ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.rest().starts_with("//") => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips spaces and tabs only; true if the line ends here.
    pub(super) fn at_line_end(&mut self) -> bool {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        matches!(self.peek(), None | Some(b'\n' | b'\r')) || self.rest().starts_with("//")
    }

    /// Whether the next non-blank text (on any line) starts with `s`; consumes nothing, so
    /// line ends stay visible to [`Cursor::at_line_end`].
    pub(super) fn looking_at(&mut self, s: &str) -> bool {
        let save = self.pos;
        self.skip_ws();
        let found = self.rest().starts_with(s);
        self.pos = save;
        found
    }

    /// Consumes whitespace and `s` if `s` is next; otherwise consumes nothing.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        let save = self.pos;
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            self.pos = save;
            false
        }
    }

    /// Consumes the whole word `w` (not a prefix of a longer word).
    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        let save = self.pos;
        if self.word().as_deref() == Some(w) {
            true
        } else {
            self.pos = save;
            false
        }
    }

    pub(super) fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            let found: String = self.rest().chars().take(12).collect();
            self.error(format!("expected `{s}`, found `{found}`"))
        }
    }

    /// A word of `[A-Za-z0-9_.$]`, starting with a letter or `_`.
    pub(super) fn word(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
            _ => return None,
        }
        while self.peek().is_some_and(is_word_byte) {
            self.pos += 1;
        }
        Some(self.text[start..self.pos].to_string())
    }

    pub(super) fn expect_word(&mut self, what: &str) -> PResult<String> {
        match self.word() {
            Some(w) => Ok(w),
            None => self.error(format!("expected {what}")),
        }
    }

    /// The name after a sigil (`%`, `@`, `^`): a run of word bytes, or a quoted string.
    pub(super) fn sigil_name(&mut self, sigil: u8) -> PResult<String> {
        self.skip_ws();
        if self.peek() != Some(sigil) {
            return self.error(format!("expected `{}`", sigil as char));
        }
        self.pos += 1;
        if self.peek() == Some(b'"') {
            return self.string();
        }
        let start = self.pos;
        while self.peek().is_some_and(is_word_byte) {
            self.pos += 1;
        }
        if start == self.pos {
            return self.error("expected a name");
        }
        Ok(self.text[start..self.pos].to_string())
    }

    /// A decimal (optionally negative) or `0x` hexadecimal integer.
    pub(super) fn integer(&mut self) -> PResult<i128> {
        self.skip_ws();
        let start = self.pos;
        let neg = self.peek() == Some(b'-');
        if neg {
            self.pos += 1;
        }
        let (radix, digits_start) =
            if self.rest().starts_with("0x") || self.rest().starts_with("0X") {
                self.pos += 2;
                (16, self.pos)
            } else {
                (10, self.pos)
            };
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_hexdigit() && (radix == 16 || b.is_ascii_digit()))
        {
            self.pos += 1;
        }
        let digits = &self.text[digits_start..self.pos];
        if digits.is_empty() {
            return self.error_at(start, "expected an integer");
        }
        match i128::from_str_radix(digits, radix) {
            Ok(v) if neg => Ok(-v),
            Ok(v) => Ok(v),
            Err(_) => self.error_at(start, "integer literal out of range"),
        }
    }

    pub(super) fn u32(&mut self) -> PResult<u32> {
        let at = self.pos;
        let v = self.integer()?;
        u32::try_from(v).or_else(|_| self.error_at(at, format!("{v} does not fit in u32")))
    }

    /// A double-quoted string with `\"`, `\\`, `\n`, `\t` and `\XX` escapes.
    pub(super) fn string(&mut self) -> PResult<String> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return self.error("expected a string");
        }
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.rest().chars().next() else {
                return self.error_at(start, "unterminated string");
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(e) = self.rest().chars().next() else {
                        return self.error_at(start, "unterminated string");
                    };
                    self.pos += e.len_utf8();
                    match e {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        h if h.is_ascii_hexdigit() => {
                            let hex = self.text.get(self.pos - 1..self.pos + 1).unwrap_or("");
                            match u8::from_str_radix(hex, 16) {
                                Ok(b) if hex.len() == 2 => {
                                    self.pos += 1;
                                    out.push(b as char);
                                }
                                _ => return self.error("bad `\\XX` escape"),
                            }
                        }
                        _ => return self.error("unknown escape"),
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// A float literal: decimal/exponent text, `inf`, `-inf`, `NaN`.
    pub(super) fn float_text(&mut self) -> Option<f64> {
        self.skip_ws();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'))
        {
            self.pos += 1;
        }
        match self.text[start..self.pos].parse::<f64>() {
            Ok(x) => Some(x),
            Err(_) => {
                self.pos = start;
                None
            }
        }
    }

    // ----- types -----

    pub(super) fn dtype(&mut self) -> PResult<DType> {
        self.skip_ws();
        if self.eat("!dtype<") {
            let n = self.u32()?;
            self.expect(">")?;
            return Ok(DType::Var(n));
        }
        let at = self.pos;
        // Dtype names never contain `x`, so a dim separator after them is not swallowed.
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() && b != b'x')
        {
            self.pos += 1;
        }
        let name = &self.text[at..self.pos];
        match DType::from_ir_name(name) {
            Some(d) => Ok(d),
            None => self.error_at(at, format!("unknown type `{name}`")),
        }
    }

    fn ptr_type(&mut self) -> PResult<PtrType> {
        self.expect("!tt.ptr<")?;
        let pointee = self.dtype()?;
        let addr_space = if self.eat(",") { self.u32()? } else { 1 };
        self.expect(">")?;
        Ok(PtrType {
            pointee,
            addr_space,
        })
    }

    fn elem(&mut self) -> PResult<Elem> {
        if self.looking_at("!tt.ptr") {
            Ok(Elem::Ptr(self.ptr_type()?))
        } else {
            Ok(Elem::DType(self.dtype()?))
        }
    }

    pub(super) fn ty(&mut self) -> PResult<Type> {
        self.skip_ws();
        if let Some(t) = self.gpu_handle_type()? {
            return Ok(t);
        }
        if !self.eat("tensor<") {
            return Ok(Type::scalar_of(self.elem()?));
        }
        let mut shape = Vec::new();
        loop {
            self.skip_ws();
            let save = self.pos;
            let dim = match self.peek() {
                Some(b'?') => {
                    self.pos += 1;
                    Some(Dim::Unknown)
                }
                Some(b'"') => Some(Dim::Symbolic(self.string()?)),
                Some(b) if b.is_ascii_digit() => {
                    let start = self.pos;
                    while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                        self.pos += 1;
                    }
                    match self.text[start..self.pos].parse::<u64>() {
                        Ok(n) => Some(Dim::Known(n)),
                        Err(_) => return self.error_at(start, "dimension out of range"),
                    }
                }
                Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                    let start = self.pos;
                    while self
                        .peek()
                        .is_some_and(|b| (b.is_ascii_alphanumeric() || b == b'_') && b != b'x')
                    {
                        self.pos += 1;
                    }
                    let name = &self.text[start..self.pos];
                    // A word followed by `x` is a symbolic dim; otherwise it was the element.
                    (self.peek() == Some(b'x') && is_bare_symbol(name))
                        .then(|| Dim::Symbolic(name.to_string()))
                }
                _ => None,
            };
            match dim {
                Some(d) if self.peek() == Some(b'x') => {
                    self.pos += 1;
                    shape.push(d);
                }
                Some(_) => return self.error("expected `x` after a dimension"),
                None => {
                    self.pos = save;
                    break;
                }
            }
        }
        if shape.is_empty() {
            return self.error("a tensor type needs at least one dimension");
        }
        let elem = self.elem()?;
        let encoding = if self.eat(",") {
            Some(Box::new(self.layout()?))
        } else {
            None
        };
        self.expect(">")?;
        Ok(Type::Tensor {
            shape,
            elem,
            encoding,
        })
    }

    // ----- locations -----

    fn span(&mut self) -> PResult<Span> {
        let file = self.u32()?;
        self.expect(":")?;
        let start = self.u32()?;
        self.expect("..")?;
        let end = self.u32()?;
        if start > end {
            return self.error("span start exceeds its end");
        }
        Ok(Span {
            file: FileId(file),
            start,
            end,
        })
    }

    /// `loc(unknown)` or `loc(F:S..E[ at F:S..E]*)`, if present on this line.
    pub(super) fn location(&mut self) -> PResult<Option<Location>> {
        if self.at_line_end() || !self.rest().starts_with("loc(") {
            return Ok(None);
        }
        self.pos += 4;
        if self.eat_word("unknown") {
            self.expect(")")?;
            return Ok(Some(Location::unknown()));
        }
        let mut loc = Location::new(self.span()?);
        while self.eat_word("at") {
            loc.call_sites.push(self.span()?);
        }
        self.expect(")")?;
        Ok(Some(loc))
    }
}
