//! The parser of the text form the printer writes (see [`crate::printer`] for the grammar).
//!
//! It accepts printed IR with or without locations, never panics, and reports the first
//! problem as a [`ParseError`] with its byte offset. It does not verify: run
//! [`crate::verify_module`] on the result.

mod cursor;
mod encoding;

use std::collections::HashMap;

use tritonc_diagnostics::{Code, Diagnostic, FileId, Span};

use crate::attrs::{kind_from_parts, Attr};
use crate::function::{ArgAttrs, BlockId, Function, Module, OpId, Value};
use crate::ops::{ConstValue, OpKind};
use crate::types::{DType, Type};
use cursor::{Cursor, PResult, MAX_DEPTH};

/// The code of IR text that does not parse.
pub const INVALID_IR_TEXT: Code = Code("E0901");

/// Why IR text did not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem in the text.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The error as a diagnostic pointing into `file` (the file the text came from).
    pub fn to_diagnostic(&self, file: FileId) -> Diagnostic {
        let at = u32::try_from(self.offset).unwrap_or(u32::MAX);
        Diagnostic::error(
            INVALID_IR_TEXT,
            format!("invalid IR text: {}", self.message),
        )
        .with_primary(Span::point(file, at), "")
    }
}

/// Parses a module (`module { tt.func ... }`).
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut c = Cursor::new(text);
    let mut module = Module::new();
    c.alias_definitions()?;
    c.expect("module")?;
    if c.eat_word("attributes") {
        module_attributes(&mut c)?;
    }
    c.expect("{")?;
    while !c.eat("}") {
        module.functions.push(FunctionParser::parse(&mut c)?);
    }
    c.skip_ws();
    if c.peek().is_some() {
        return c.error("unexpected text after the module");
    }
    Ok(module)
}

/// `{"ttg.num-warps" = 4 : i32, "ttg.target" = "cuda:90", …}` after `module attributes`: what the GPU IR was made
/// for, as Triton prints it. Checked for syntax and not kept (the passes' options carry
/// these values).
fn module_attributes(c: &mut Cursor<'_>) -> PResult<()> {
    c.expect("{")?;
    if c.eat("}") {
        return Ok(());
    }
    loop {
        c.string()?;
        c.expect("=")?;
        if c.looking_at("\"") {
            // `"ttg.target" = "cuda:90"`.
            c.string()?;
        } else {
            c.integer()?;
            c.expect(":")?;
            c.dtype()?;
        }
        if c.eat("}") {
            return Ok(());
        }
        c.expect(",")?;
    }
}

struct FunctionParser<'c, 'a> {
    c: &'c mut Cursor<'a>,
    f: Function,
    names: HashMap<String, Value>,
    depth: usize,
}

impl<'c, 'a> FunctionParser<'c, 'a> {
    fn parse(c: &'c mut Cursor<'a>) -> PResult<Function> {
        c.expect("tt.func")?;
        let public = if c.eat_word("public") {
            true
        } else if c.eat_word("private") {
            false
        } else {
            return c.error("expected `public` or `private`");
        };
        let name = c.sigil_name(b'@')?;
        c.expect("(")?;
        let mut arg_names = Vec::new();
        let mut arg_types = Vec::new();
        let mut arg_attrs = Vec::new();
        if !c.eat(")") {
            loop {
                let at = c.pos;
                arg_names.push((c.sigil_name(b'%')?, at));
                c.expect(":")?;
                arg_types.push(c.ty()?);
                let mut attrs = ArgAttrs::default();
                if c.eat("{") {
                    c.expect("tt.divisibility")?;
                    c.expect("=")?;
                    attrs.divisibility = Some(c.u32()?);
                    if c.eat(":") {
                        c.dtype()?;
                    }
                    c.expect("}")?;
                }
                arg_attrs.push(attrs);
                if c.eat(")") {
                    break;
                }
                c.expect(",")?;
            }
        }
        let mut result_types = Vec::new();
        if c.eat("->") {
            c.expect("(")?;
            if !c.eat(")") {
                loop {
                    result_types.push(c.ty()?);
                    if c.eat(")") {
                        break;
                    }
                    c.expect(",")?;
                }
            }
        }
        let mut f = Function::new(name, arg_types, result_types);
        f.public = public;
        f.arg_attrs = arg_attrs;
        let mut p = FunctionParser {
            c,
            f,
            names: HashMap::new(),
            depth: 0,
        };
        let args = p.f.args().to_vec();
        for ((n, at), v) in arg_names.into_iter().zip(args) {
            p.define(n, v, at)?;
        }
        p.c.expect("{")?;
        let entry = p.f.entry_block();
        let body = p.f.body();
        p.block_ops(entry)?;
        // Further blocks of the body, if any, come with labels.
        while p.c.looking_at("^") {
            let b = p.f.new_block(body);
            p.block_label(b)?;
            p.block_ops(b)?;
        }
        p.c.expect("}")?;
        if let Some(loc) = p.c.location()? {
            p.f.loc = loc;
        }
        Ok(p.f)
    }

    fn define(&mut self, name: String, v: Value, at: usize) -> PResult<()> {
        if self.names.insert(name.clone(), v).is_some() {
            return self.c.error_at(at, format!("`%{name}` is defined twice"));
        }
        Ok(())
    }

    /// A value use: `%name` or `%name#index`.
    fn value_ref(&mut self) -> PResult<Value> {
        self.c.skip_ws();
        let at = self.c.pos;
        let mut name = self.c.sigil_name(b'%')?;
        if self.c.peek() == Some(b'#') {
            self.c.pos += 1;
            let i = self.c.u32()?;
            name = format!("{name}#{i}");
        }
        match self.names.get(&name) {
            Some(&v) => Ok(v),
            None => self
                .c
                .error_at(at, format!("use of undefined value `%{name}`")),
        }
    }

    /// `^bbN(%a: T, ...):` — binds the arguments of `block`.
    fn block_label(&mut self, block: BlockId) -> PResult<()> {
        self.c.sigil_name(b'^')?;
        if self.c.eat("(") && !self.c.eat(")") {
            loop {
                self.c.skip_ws();
                let at = self.c.pos;
                let name = self.c.sigil_name(b'%')?;
                self.c.expect(":")?;
                let ty = self.c.ty()?;
                let v = self.f.add_block_arg(block, ty);
                self.define(name, v, at)?;
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        self.c.expect(":")
    }

    /// Ops until the `}` or `^` that ends the block (not consumed).
    fn block_ops(&mut self, block: BlockId) -> PResult<()> {
        loop {
            self.c.skip_ws();
            match self.c.peek() {
                Some(b'}' | b'^') => return Ok(()),
                None => return self.c.error("unexpected end of text; expected `}`"),
                _ => self.op(block)?,
            }
        }
    }

    fn op(&mut self, block: BlockId) -> PResult<()> {
        // Results: `%n = ` or `%n:K = `.
        let mut result_names: Vec<(String, usize)> = Vec::new();
        if self.c.looking_at("%") {
            let at = self.c.pos;
            let base = self.c.sigil_name(b'%')?;
            if self.c.peek() == Some(b':') {
                self.c.pos += 1;
                let k = self.c.u32()?;
                if !(2..=1024).contains(&k) {
                    return self
                        .c
                        .error_at(at, "a multi-result op needs 2 to 1024 results");
                }
                result_names.extend((0..k).map(|i| (format!("{base}#{i}"), at)));
            } else {
                result_names.push((base, at));
            }
            self.c.expect("=")?;
        }
        self.c.skip_ws();
        let name_at = self.c.pos;
        let name = self.c.expect_word("an op name")?;
        let constant = if name == "arith.constant" {
            Some(self.const_literal()?)
        } else {
            None
        };
        let hex_constant = constant.as_ref().is_some_and(|c| c.1);
        let constant = constant.map(|c| c.0);
        let mut operands = Vec::new();
        if !self.c.at_line_end() && self.c.peek() == Some(b'%') {
            loop {
                operands.push(self.value_ref()?);
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        let mut attrs = Vec::new();
        if !self.c.at_line_end() && self.c.peek() == Some(b'{') && !self.region_follows() {
            attrs = self.attr_dict()?;
        }
        let kind = match constant {
            Some(lit) => {
                if !attrs.is_empty() {
                    return self
                        .c
                        .error_at(name_at, "`arith.constant` takes no attributes");
                }
                lit
            }
            None => match kind_from_parts(&name, attrs) {
                Ok(k) => k,
                Err(m) => return self.c.error_at(name_at, m),
            },
        };
        let (operand_types, result_types) =
            self.type_signature(operands.len(), result_names.len())?;
        for (i, (&v, t)) in operands.iter().zip(&operand_types).enumerate() {
            if self.f.value_type(v) != t {
                let msg = format!(
                    "operand {i} has type {}, but the signature says {t}",
                    self.f.value_type(v)
                );
                return self.c.error_at(name_at, msg);
            }
        }
        let kind = match (kind, result_types.first()) {
            (OpKind::Constant(c), Some(t)) => {
                OpKind::Constant(self.typed_constant(c, t, hex_constant, name_at)?)
            }
            (k, _) => k,
        };
        let want_regions = kind.num_regions();
        let op = self
            .f
            .create_op(kind, &operands, result_types, 0, Default::default());
        self.f.append_op(block, op);
        for i in 0..want_regions {
            if i > 0 {
                let sep = if matches!(self.f.kind(op), OpKind::If) {
                    "else"
                } else {
                    "do"
                };
                if !self.c.eat_word(sep) {
                    return self
                        .c
                        .error(format!("expected `{sep}` before the next region"));
                }
            }
            self.region(op)?;
        }
        if let Some(loc) = self.c.location()? {
            self.f.set_loc(op, loc);
        }
        if !self.c.at_line_end() && !matches!(self.c.peek(), Some(b'}')) {
            return self.c.error("unexpected text after the op");
        }
        let results = self.f.op(op).results().to_vec();
        for ((n, at), v) in result_names.into_iter().zip(results) {
            self.define(n, v, at)?;
        }
        Ok(())
    }

    /// Whether the `{` ahead opens a region (a line break or `}` follows) rather than attributes.
    fn region_follows(&mut self) -> bool {
        let save = self.c.pos;
        self.c.pos += 1;
        let region = self.c.at_line_end() || matches!(self.c.peek(), Some(b'}' | b'^'));
        self.c.pos = save;
        region
    }

    fn region(&mut self, op: OpId) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return self.c.error("regions nest too deeply");
        }
        self.depth += 1;
        self.c.expect("{")?;
        let r = self.f.add_region(op);
        let entry = self.f.new_block(r);
        if self.c.looking_at("^") {
            self.block_label(entry)?;
        }
        self.block_ops(entry)?;
        while self.c.looking_at("^") {
            let b = self.f.new_block(r);
            self.block_label(b)?;
            self.block_ops(b)?;
        }
        self.c.expect("}")?;
        self.depth -= 1;
        Ok(())
    }

    fn attr_dict(&mut self) -> PResult<Vec<(String, Attr)>> {
        self.c.expect("{")?;
        let mut out = Vec::new();
        if self.c.eat("}") {
            return Ok(out);
        }
        loop {
            let key = self.c.expect_word("an attribute name")?;
            self.c.expect("=")?;
            out.push((key, self.attr_value()?));
            if self.c.eat("}") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    fn attr_value(&mut self) -> PResult<Attr> {
        self.c.skip_ws();
        match self.c.peek() {
            Some(b'"') => Ok(Attr::Str(self.c.string()?)),
            Some(b) if b.is_ascii_digit() || b == b'-' => {
                let at = self.c.pos;
                let v = self.c.integer()?;
                let v = i64::try_from(v)
                    .or_else(|_| self.c.error_at(at, "integer attribute out of range"))?;
                let t = if self.c.eat(":") {
                    self.c.dtype()?
                } else {
                    DType::I64
                };
                Ok(Attr::Int(v, t))
            }
            _ => {
                let w = self.c.expect_word("an attribute value")?;
                match w.as_str() {
                    "true" => Ok(Attr::Bool(true)),
                    "false" => Ok(Attr::Bool(false)),
                    "array" => {
                        self.c.expect("<")?;
                        let t = self.c.dtype()?;
                        let mut vs = Vec::new();
                        if self.c.eat(":") {
                            loop {
                                let at = self.c.pos;
                                let v = self.c.integer()?;
                                vs.push(i64::try_from(v).or_else(|_| {
                                    self.c.error_at(at, "array element out of range")
                                })?);
                                if !self.c.eat(",") {
                                    break;
                                }
                            }
                        }
                        self.c.expect(">")?;
                        Ok(Attr::IntArray(t, vs))
                    }
                    _ => Ok(Attr::Word(w)),
                }
            }
        }
    }

    /// The literal of `arith.constant`, before its type is known: `dense<lit>` or `lit`;
    /// also whether it was written in hex.
    fn const_literal(&mut self) -> PResult<(OpKind, bool)> {
        let dense = self.c.eat("dense<");
        self.c.skip_ws();
        let at = self.c.pos;
        let hex = self.c.looking_at("0x") || self.c.looking_at("-0x");
        let value = if self.c.eat_word("true") {
            ConstValue::Int(1)
        } else if self.c.eat_word("false") {
            ConstValue::Int(0)
        } else {
            // Integers stay integers here; the result type may turn them into floats.
            let save = self.c.pos;
            match self.c.integer() {
                Ok(v) if !matches!(self.c.peek(), Some(b'.' | b'e' | b'E')) => ConstValue::Int(v),
                _ => {
                    self.c.pos = save;
                    match self.c.float_text() {
                        Some(x) => ConstValue::Float(x),
                        None => return self.c.error_at(at, "expected a constant literal"),
                    }
                }
            }
        };
        if dense {
            self.c.expect(">")?;
        }
        Ok((OpKind::Constant(value), hex))
    }

    /// Reads a constant literal in the light of its result type: hex integers of a float
    /// type are the f64 bits (how NaNs print), integers of a float type are exact floats.
    fn typed_constant(
        &self,
        c: ConstValue,
        ty: &Type,
        hex: bool,
        at: usize,
    ) -> PResult<ConstValue> {
        let is_float = ty.dtype().is_some_and(DType::is_float);
        Ok(match c {
            ConstValue::Int(v) if is_float && hex => match u64::try_from(v) {
                Ok(bits) => ConstValue::Float(f64::from_bits(bits)),
                Err(_) => return self.c.error_at(at, "float bit pattern out of range"),
            },
            ConstValue::Int(v) if is_float => ConstValue::Float(v as f64),
            c => c,
        })
    }

    /// `: T` or `: O1, O2 -> R` or `: O1, O2 -> (R1, R2)`, checked against the counts.
    fn type_signature(&mut self, n: usize, r: usize) -> PResult<(Vec<Type>, Vec<Type>)> {
        if n + r == 0 {
            return Ok((vec![], vec![]));
        }
        let at = self.c.pos;
        self.c.expect(":")?;
        let mut first = Vec::new();
        if !self.c.looking_at("->") {
            loop {
                first.push(self.c.ty()?);
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        if self.c.eat("->") {
            let mut res = Vec::new();
            if self.c.eat("(") {
                loop {
                    res.push(self.c.ty()?);
                    if self.c.eat(")") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            } else {
                res.push(self.c.ty()?);
            }
            if first.len() != n || res.len() != r {
                return self.c.error_at(
                    at,
                    format!(
                        "signature lists {} -> {} types for {n} operands and {r} results",
                        first.len(),
                        res.len()
                    ),
                );
            }
            return Ok((first, res));
        }
        if first.len() == 1 {
            let t = first.pop().unwrap_or(Type::I1);
            return Ok((vec![t.clone(); n], vec![t; r]));
        }
        if r == 0 && first.len() == n {
            return Ok((first, vec![]));
        }
        self.c.error_at(
            at,
            format!(
                "signature lists {} types for {n} operands and {r} results",
                first.len()
            ),
        )
    }
}
