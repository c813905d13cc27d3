//! The edge: rustpython-parser's tree converted into the kernel AST of [`crate::ast`].
//!
//! This module (with its byte lexer, `convert/lexer.rs`, which feeds rustpython's parser
//! the tokens rustpython's lexer would) is the only one that names rustpython types;
//! replacing the parser means rewriting it alone.

use std::sync::Arc;

use rustpython_parser::ast as py;
use rustpython_parser::text_size::TextRange;
use rustpython_parser::Parse;
use tritonc_diagnostics::{Diagnostic, FileId, Span};

use crate::ast::*;
use crate::codes;

mod lexer;

/// A parsed file: its module AST and the diagnostics produced while building it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedModule {
    /// The module; empty when the file has a syntax error.
    pub module: Module,
    /// Syntax errors and conversion problems, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl ParsedModule {
    /// Whether parsing produced an error (the module is then empty).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == tritonc_diagnostics::Severity::Error)
    }
}

/// Nesting levels (statements and expressions together) the kernel AST may have; deeper
/// input is a syntax error, so every recursive pass over the AST has a bounded depth.
/// The left operand of a binary operator that continues a chain (`a + b + c`, which
/// nests to the left once per operator) is not a level: chains count against
/// [`MAX_CHAIN`] instead, so a tree is at most `MAX_NESTING + MAX_CHAIN` deep.
pub const MAX_NESTING: u32 = 500;

/// Operators one chain of binary operations (`t0 + t1 + … + tn`) may have, counted along
/// the path from the root; longer chains are a syntax error (the tree stays bounded).
pub const MAX_CHAIN: u32 = 2000;

/// Longest logical statement parsed, in bytes: the parser's tree for it can be as deep
/// as it is long, and that depth must fit in [`PARSE_STACK`].
const MAX_STATEMENT_BYTES: usize = 1 << 20;

/// Stack for the parsing thread: the foreign parser's tree is converted and dropped
/// recursively, one frame per nesting level.
const PARSE_STACK: usize = 256 << 20;

/// The stack a thread needs to call [`parse_module_on_this_thread`] (a thread pool for
/// parsing many files is built with stacks this large).
pub const PARSE_STACK_BYTES: usize = PARSE_STACK;

thread_local! {
    /// Whether this thread's stack is [`PARSE_STACK_BYTES`] large ([`mark_parse_stack_thread`]).
    static ON_PARSE_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Declares that the calling thread's stack is at least [`PARSE_STACK_BYTES`] large, so
/// that [`parse_module`] parses on it instead of spawning a thread per file: the start
/// handler of a thread pool built with stacks that large calls it. (On a smaller stack a
/// deeply nested file would overflow it and abort the process.)
pub fn mark_parse_stack_thread() {
    ON_PARSE_STACK.with(|c| c.set(true));
}

/// [`parse_module`] without its dedicated thread, for callers that parse many files on
/// threads whose stacks are [`PARSE_STACK_BYTES`] large (one spawn per file shows up in
/// profiles of whole-tree runs). On a smaller stack, deeply nested input may overflow it.
pub fn parse_module_on_this_thread(file: FileId, text: &str) -> ParsedModule {
    if let Some(at) = oversized_statement(text) {
        let at = Span::point(file, at);
        return rejected(
            file,
            text,
            at,
            "statement is too long to parse (over 1 MiB)",
        );
    }
    std::panic::catch_unwind(|| parse_module_inline(file, text)).unwrap_or_else(|_| {
        let at = Span::point(file, 0);
        rejected(file, text, at, "the Python parser failed on this file")
    })
}

/// Parses `text` (the contents of `file`) into a [`ParsedModule`].
///
/// Never panics on any input: a syntax error, nesting deeper than [`MAX_NESTING`] or a
/// parser failure yields an empty module and one `E0001` diagnostic.
pub fn parse_module(file: FileId, text: &str) -> ParsedModule {
    if let Some(at) = oversized_statement(text) {
        let at = Span::point(file, at);
        return rejected(
            file,
            text,
            at,
            "statement is too long to parse (over 1 MiB)",
        );
    }
    if ON_PARSE_STACK.with(std::cell::Cell::get) {
        return parse_module_on_this_thread(file, text);
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("tritonc-parse".into())
            .stack_size(PARSE_STACK)
            .spawn_scoped(scope, || parse_module_inline(file, text));
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                let at = Span::point(file, 0);
                rejected(file, text, at, "the Python parser failed on this file")
            }),
            // No thread available: parse here, which is fine for all but pathological input.
            Err(_) => parse_module_inline(file, text),
        }
    })
}

/// An empty module with one `E0001` diagnostic.
fn rejected(file: FileId, text: &str, at: Span, message: &str) -> ParsedModule {
    let whole = Span::new(file, 0, u32::try_from(text.len()).unwrap_or(u32::MAX));
    let diag = Diagnostic::error(codes::SYNTAX_ERROR, message)
        .with_primary(at, "")
        .with_note("the whole file is skipped until this is fixed");
    ParsedModule {
        module: Module {
            body: Vec::new(),
            span: whole,
        },
        diagnostics: vec![diag],
    }
}

/// The start of the first logical statement longer than [`MAX_STATEMENT_BYTES`], if any.
///
/// A logical statement ends at a newline outside brackets, strings and comments (Python's
/// tokenizer rule); brackets, quotes and `#` inside string literals and comments do not
/// count, so a large file of short statements is never taken for one long statement.
fn oversized_statement(text: &str) -> Option<u32> {
    if text.len() <= MAX_STATEMENT_BYTES {
        return None;
    }
    let bytes = text.as_bytes();
    let (mut depth, mut start, mut i) = (0i64, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = (depth - 1).max(0),
            b'\\' => i += 1, // a line continuation joins the next line
            b'\n' if depth == 0 => start = i + 1,
            b'#' => {
                while i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'\'' | b'"') => {
                let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
                i += if triple { 3 } else { 1 };
                // The string's end (an unterminated one-line string ends at its line).
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 1,
                        b'\n' if !triple => break,
                        c if c == q
                            && (!triple
                                || (bytes.get(i + 1) == Some(&q)
                                    && bytes.get(i + 2) == Some(&q))) =>
                        {
                            if triple {
                                i += 2;
                            }
                            break;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                if i < bytes.len() && bytes[i] == b'\n' {
                    continue; // the newline ends the line as usual
                }
            }
            _ => {}
        }
        if i.saturating_sub(start) > MAX_STATEMENT_BYTES {
            return u32::try_from(start).ok();
        }
        i += 1;
    }
    None
}

/// [`parse_module`] on the current thread's stack.
fn parse_module_inline(file: FileId, text: &str) -> ParsedModule {
    let whole = Span::new(file, 0, u32::try_from(text.len()).unwrap_or(u32::MAX));
    if u32::try_from(text.len()).is_err() {
        let diag = Diagnostic::error(
            codes::SYNTAX_ERROR,
            "file is too large to parse (over 4 GiB)",
        )
        .with_primary(Span::point(file, 0), "");
        return ParsedModule {
            module: Module {
                body: Vec::new(),
                span: whole,
            },
            diagnostics: vec![diag],
        };
    }
    // The byte lexer's tokens where it handles the text, else rustpython's own lexer.
    let parsed = match lexer::lex(text) {
        Some(tokens) => py::Suite::parse_tokens(tokens.into_iter().map(Ok), "<tritonc>"),
        None => py::Suite::parse(text, "<tritonc>"),
    };
    match parsed {
        Ok(suite) => {
            let mut cx = Converter {
                file,
                text,
                depth: 0,
                chain: 0,
                too_deep: None,
                too_long: None,
            };
            let body = cx.stmts(suite);
            if let Some(at) = cx.too_deep {
                return rejected(file, text, at, "code is nested too deeply");
            }
            if let Some(at) = cx.too_long {
                let message = format!("operator chain is too long (over {MAX_CHAIN} operators)");
                return rejected(file, text, at, &message);
            }
            ParsedModule {
                module: Module { body, span: whole },
                diagnostics: Vec::new(),
            }
        }
        Err(err) => {
            let mut offset = (u32::from(err.offset) as usize).min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let offset = offset as u32;
            let diag = syntax_error(file, text, offset, &err.error);
            ParsedModule {
                module: Module {
                    body: Vec::new(),
                    span: whole,
                },
                diagnostics: vec![diag],
            }
        }
    }
}

/// One `E0001` diagnostic for a parse error at `offset`.
fn syntax_error(
    file: FileId,
    text: &str,
    offset: u32,
    error: &rustpython_parser::ParseErrorType,
) -> Diagnostic {
    use rustpython_parser::ParseErrorType as E;
    // Cover the offending character so the label is visible; at EOF, an empty span.
    let end = text[offset as usize..]
        .chars()
        .next()
        .filter(|c| *c != '\n')
        .map_or(offset, |c| offset + c.len_utf8() as u32);
    let (message, label) = match error {
        E::Eof => (
            "unexpected end of file".to_string(),
            "the file ends here".to_string(),
        ),
        E::ExtraToken(tok) => (
            format!("unexpected token `{tok}`"),
            "not expected here".to_string(),
        ),
        E::InvalidToken => (
            "invalid token".to_string(),
            "this token is not valid Python".to_string(),
        ),
        E::UnrecognizedToken(tok, _) => {
            let what = error.to_string();
            if error.is_indentation_error() {
                (what, "indentation does not match".to_string())
            } else {
                (
                    format!("invalid syntax: unexpected `{tok}`"),
                    "unexpected token".to_string(),
                )
            }
        }
        E::Lexical(lex) => (format!("invalid syntax: {lex}"), "here".to_string()),
    };
    Diagnostic::error(codes::SYNTAX_ERROR, message)
        .with_primary(Span::new(file, offset, end.max(offset)), label)
        .with_note("the whole file is skipped until the syntax error is fixed")
}

/// Converts one parsed suite; holds what every node needs (file id, source text).
struct Converter<'t> {
    file: FileId,
    text: &'t str,
    /// Current nesting level (see [`MAX_NESTING`]).
    depth: u32,
    /// Chain continuations on the current path (see [`MAX_CHAIN`]).
    chain: u32,
    /// Where nesting first exceeded [`MAX_NESTING`].
    too_deep: Option<Span>,
    /// Where a chain first exceeded [`MAX_CHAIN`].
    too_long: Option<Span>,
}

impl Converter<'_> {
    fn span(&self, range: TextRange) -> Span {
        Span::new(self.file, u32::from(range.start()), u32::from(range.end()))
    }

    /// The span of the first whole-word occurrence of `word` within `lo..hi`, or
    /// `lo..hi` itself when it cannot be found (rustpython keeps no identifier spans).
    fn find_word(&self, lo: u32, hi: u32, word: &str) -> Span {
        let hi = (hi as usize).min(self.text.len());
        let lo = (lo as usize).min(hi);
        let hay = self.text.get(lo..hi).unwrap_or("");
        let is_ident = |c: char| c.is_alphanumeric() || c == '_';
        let mut from = 0;
        while let Some(pos) = hay[from..].find(word) {
            let at = from + pos;
            let before_ok = !hay[..at].chars().next_back().is_some_and(is_ident);
            let after_ok = !hay[at + word.len()..].chars().next().is_some_and(is_ident);
            if before_ok && after_ok {
                let start = (lo + at) as u32;
                return Span::new(self.file, start, start + word.len() as u32);
            }
            from = at + word.len().max(1);
            while from < hay.len() && !hay.is_char_boundary(from) {
                from += 1;
            }
            if from >= hay.len() {
                break;
            }
        }
        Span::new(self.file, lo as u32, hi as u32)
    }

    fn ident_in(&self, id: &py::Identifier, lo: u32, hi: u32) -> Ident {
        Ident {
            name: id.to_string(),
            span: self.find_word(lo, hi, id.as_str()),
        }
    }

    fn stmts(&mut self, stmts: Vec<py::Stmt>) -> Vec<Stmt> {
        stmts.into_iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, stmt: py::Stmt) -> Stmt {
        use rustpython_parser::ast::Ranged;
        if self.depth >= MAX_NESTING {
            let span = self.span(stmt.range());
            self.too_deep.get_or_insert(span);
            return Stmt {
                kind: StmtKind::Pass,
                span,
            };
        }
        self.depth += 1;
        let out = self.stmt_inner(stmt);
        self.depth -= 1;
        out
    }

    fn stmt_inner(&mut self, stmt: py::Stmt) -> Stmt {
        use py::Stmt as S;
        let range = match &stmt {
            S::FunctionDef(s) => s.range,
            S::AsyncFunctionDef(s) => s.range,
            S::ClassDef(s) => s.range,
            S::Return(s) => s.range,
            S::Delete(s) => s.range,
            S::Assign(s) => s.range,
            S::TypeAlias(s) => s.range,
            S::AugAssign(s) => s.range,
            S::AnnAssign(s) => s.range,
            S::For(s) => s.range,
            S::AsyncFor(s) => s.range,
            S::While(s) => s.range,
            S::If(s) => s.range,
            S::With(s) => s.range,
            S::AsyncWith(s) => s.range,
            S::Match(s) => s.range,
            S::Raise(s) => s.range,
            S::Try(s) => s.range,
            S::TryStar(s) => s.range,
            S::Assert(s) => s.range,
            S::Import(s) => s.range,
            S::ImportFrom(s) => s.range,
            S::Global(s) => s.range,
            S::Nonlocal(s) => s.range,
            S::Expr(s) => s.range,
            S::Pass(s) => s.range,
            S::Break(s) => s.range,
            S::Continue(s) => s.range,
        };
        let mut span = self.span(range);
        let kind = match stmt {
            S::FunctionDef(f) => {
                let def = self.function(
                    f.name,
                    *f.args,
                    f.body,
                    f.decorator_list,
                    f.returns,
                    false,
                    span,
                );
                span = def.span;
                StmtKind::FunctionDef(Arc::new(def))
            }
            S::AsyncFunctionDef(f) => {
                let def = self.function(
                    f.name,
                    *f.args,
                    f.body,
                    f.decorator_list,
                    f.returns,
                    true,
                    span,
                );
                span = def.span;
                StmtKind::FunctionDef(Arc::new(def))
            }
            S::ClassDef(c) => {
                let decorators = self.exprs(c.decorator_list);
                if let Some(first) = decorators.first() {
                    span = span.cover(self.at_sign_before(first.span));
                }
                let header_end = c
                    .body
                    .first()
                    .map_or(span.end, |s| u32::from(stmt_start(s)));
                let name = self.ident_in(&c.name, u32::from(c.range.start()), header_end);
                StmtKind::ClassDef(Box::new(ClassDef {
                    name,
                    bases: self.exprs(c.bases),
                    keywords: c.keywords.into_iter().map(|k| self.keyword(k)).collect(),
                    decorators,
                    body: self.stmts(c.body),
                }))
            }
            S::Return(r) => StmtKind::Return(r.value.map(|v| self.expr(*v))),
            S::Delete(d) => StmtKind::Delete(self.exprs(d.targets)),
            S::Assign(a) => StmtKind::Assign {
                targets: self.exprs(a.targets),
                value: self.expr(*a.value),
            },
            S::TypeAlias(_) => StmtKind::Opaque(OpaqueStmt::TypeAlias),
            S::AugAssign(a) => StmtKind::AugAssign {
                target: self.expr(*a.target),
                op: bin_op(a.op),
                value: self.expr(*a.value),
            },
            S::AnnAssign(a) => StmtKind::AnnAssign {
                target: self.expr(*a.target),
                annotation: self.expr(*a.annotation),
                value: a.value.map(|v| self.expr(*v)),
            },
            S::For(f) => StmtKind::For {
                target: self.expr(*f.target),
                iter: self.expr(*f.iter),
                body: self.stmts(f.body),
                orelse: self.stmts(f.orelse),
                is_async: false,
            },
            S::AsyncFor(f) => StmtKind::For {
                target: self.expr(*f.target),
                iter: self.expr(*f.iter),
                body: self.stmts(f.body),
                orelse: self.stmts(f.orelse),
                is_async: true,
            },
            S::While(w) => StmtKind::While {
                test: self.expr(*w.test),
                body: self.stmts(w.body),
                orelse: self.stmts(w.orelse),
            },
            S::If(i) => StmtKind::If {
                test: self.expr(*i.test),
                body: self.stmts(i.body),
                orelse: self.stmts(i.orelse),
            },
            S::With(w) => StmtKind::With {
                items: w.items.into_iter().map(|i| self.with_item(i)).collect(),
                body: self.stmts(w.body),
                is_async: false,
            },
            S::AsyncWith(w) => StmtKind::With {
                items: w.items.into_iter().map(|i| self.with_item(i)).collect(),
                body: self.stmts(w.body),
                is_async: true,
            },
            S::Match(_) => StmtKind::Opaque(OpaqueStmt::Match),
            S::Raise(r) => StmtKind::Raise {
                exc: r.exc.map(|e| self.expr(*e)),
                cause: r.cause.map(|e| self.expr(*e)),
            },
            S::Try(t) => StmtKind::Try(Box::new(Try {
                body: self.stmts(t.body),
                handlers: t.handlers.into_iter().map(|h| self.handler(h)).collect(),
                orelse: self.stmts(t.orelse),
                finalbody: self.stmts(t.finalbody),
                is_star: false,
            })),
            S::TryStar(t) => StmtKind::Try(Box::new(Try {
                body: self.stmts(t.body),
                handlers: t.handlers.into_iter().map(|h| self.handler(h)).collect(),
                orelse: self.stmts(t.orelse),
                finalbody: self.stmts(t.finalbody),
                is_star: true,
            })),
            S::Assert(a) => StmtKind::Assert {
                test: self.expr(*a.test),
                msg: a.msg.map(|m| self.expr(*m)),
            },
            S::Import(i) => StmtKind::Import(i.names.into_iter().map(|a| self.alias(a)).collect()),
            S::ImportFrom(i) => {
                let names: Vec<ImportAlias> = i.names.into_iter().map(|a| self.alias(a)).collect();
                let header_end = names.first().map_or(span.end, |a| a.span.start);
                let module = i.module.map(|m| {
                    let start = self.find_word(span.start, header_end, m.as_str()).start;
                    // Dotted module names are not one word; take the text's length.
                    let span = Span::new(self.file, start, start + m.as_str().len() as u32);
                    Ident {
                        name: m.to_string(),
                        span,
                    }
                });
                StmtKind::ImportFrom {
                    module,
                    level: i.level.map_or(0, |l| l.to_u32()),
                    names,
                }
            }
            S::Global(g) => StmtKind::Global(
                g.names
                    .iter()
                    .map(|n| self.ident_in(n, span.start, span.end))
                    .collect(),
            ),
            S::Nonlocal(g) => StmtKind::Nonlocal(
                g.names
                    .iter()
                    .map(|n| self.ident_in(n, span.start, span.end))
                    .collect(),
            ),
            S::Expr(e) => StmtKind::Expr(self.expr(*e.value)),
            S::Pass(_) => StmtKind::Pass,
            S::Break(_) => StmtKind::Break,
            S::Continue(_) => StmtKind::Continue,
        };
        Stmt { kind, span }
    }

    /// The span of the `@` that introduces a decorator whose expression starts at `expr`.
    fn at_sign_before(&self, expr: Span) -> Span {
        let before = self.text.get(..expr.start as usize).unwrap_or("");
        match before.rfind('@') {
            Some(at) => Span::new(self.file, at as u32, expr.end),
            None => expr,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn function(
        &mut self,
        name: py::Identifier,
        args: py::Arguments,
        body: Vec<py::Stmt>,
        decorators: Vec<py::Expr>,
        returns: Option<Box<py::Expr>>,
        is_async: bool,
        def_span: Span,
    ) -> FunctionDef {
        let decorators = self.exprs(decorators);
        let span = match decorators.first() {
            Some(first) => def_span.cover(self.at_sign_before(first.span)),
            None => def_span,
        };
        // The name follows `def` (after `async`); search from the keyword.
        let def_kw = self.find_word(def_span.start, def_span.end, "def");
        let name = self.ident_in(&name, def_kw.end, def_span.end);
        let header_end = body.first().map_or(def_span.end, |s| {
            // The header ends at the `:` before the first body statement.
            let first = u32::from(stmt_start(s)) as usize;
            let head = self.text.get(def_span.start as usize..first).unwrap_or("");
            head.rfind(':')
                .map_or(first as u32, |c| def_span.start + c as u32 + 1)
        });
        let params = self.params(args);
        let returns = returns.map(|r| self.expr(*r));
        FunctionDef {
            name,
            params,
            decorators,
            returns,
            body: self.stmts(body),
            is_async,
            span,
            header_span: Span::new(self.file, def_span.start, header_end.max(def_span.start)),
        }
    }

    fn params(&mut self, args: py::Arguments) -> Vec<Param> {
        let mut out = Vec::new();
        for a in args.posonlyargs {
            out.push(self.param_with_default(a, ParamKind::PositionalOnly));
        }
        for a in args.args {
            out.push(self.param_with_default(a, ParamKind::Positional));
        }
        if let Some(v) = args.vararg {
            out.push(self.star_param(*v, ParamKind::VarPositional, "*"));
        }
        for a in args.kwonlyargs {
            out.push(self.param_with_default(a, ParamKind::KeywordOnly));
        }
        if let Some(v) = args.kwarg {
            out.push(self.star_param(*v, ParamKind::VarKeyword, "**"));
        }
        out
    }

    fn param_with_default(&mut self, a: py::ArgWithDefault, kind: ParamKind) -> Param {
        let arg_span = self.span(a.def.range);
        let name = Ident {
            name: a.def.arg.to_string(),
            span: Span::new(
                self.file,
                arg_span.start,
                arg_span.start + a.def.arg.len() as u32,
            ),
        };
        let annotation = a.def.annotation.map(|e| self.expr(*e));
        let default = a.default.map(|e| self.expr(*e));
        let mut span = arg_span.cover(self.span(a.range));
        if let Some(d) = &default {
            span = span.cover(d.span);
        }
        Param {
            name,
            kind,
            annotation,
            default,
            span,
        }
    }

    fn star_param(&mut self, a: py::Arg, kind: ParamKind, stars: &str) -> Param {
        let arg_span = self.span(a.range);
        let name = Ident {
            name: a.arg.to_string(),
            span: Span::new(
                self.file,
                arg_span.start,
                arg_span.start + a.arg.len() as u32,
            ),
        };
        // Include the `*`/`**` in the parameter's span when it sits right before the name.
        let before = self.text.get(..arg_span.start as usize).unwrap_or("");
        let trimmed = before.trim_end();
        let start = if trimmed.ends_with(stars) {
            (trimmed.len() - stars.len()) as u32
        } else {
            arg_span.start
        };
        let annotation = a.annotation.map(|e| self.expr(*e));
        Param {
            name,
            kind,
            annotation,
            default: None,
            span: Span::new(self.file, start, arg_span.end),
        }
    }

    fn with_item(&mut self, item: py::WithItem) -> WithItem {
        let context = self.expr(item.context_expr);
        let target = item.optional_vars.map(|v| self.expr(*v));
        let mut span = context.span.cover(self.span(item.range));
        if let Some(t) = &target {
            span = span.cover(t.span);
        }
        WithItem {
            context,
            target,
            span,
        }
    }

    fn handler(&mut self, h: py::ExceptHandler) -> ExceptHandler {
        let py::ExceptHandler::ExceptHandler(h) = h;
        let span = self.span(h.range);
        let type_ = h.type_.map(|t| self.expr(*t));
        let header_end = h
            .body
            .first()
            .map_or(span.end, |s| u32::from(stmt_start(s)));
        let name_from = type_.as_ref().map_or(span.start, |t| t.span.end);
        let name = h.name.map(|n| self.ident_in(&n, name_from, header_end));
        ExceptHandler {
            type_,
            name,
            body: self.stmts(h.body),
            span,
        }
    }

    fn alias(&mut self, a: py::Alias) -> ImportAlias {
        let span = self.span(a.range);
        let name_span = Span::new(self.file, span.start, span.start + a.name.len() as u32);
        let asname = a.asname.map(|n| self.ident_in(&n, name_span.end, span.end));
        ImportAlias {
            name: Ident {
                name: a.name.to_string(),
                span: name_span,
            },
            asname,
            span,
        }
    }

    fn keyword(&mut self, k: py::Keyword) -> Keyword {
        let span = self.span(k.range);
        let value = self.expr(k.value);
        let name = k.arg.map(|n| Ident {
            span: Span::new(self.file, span.start, span.start + n.len() as u32),
            name: n.to_string(),
        });
        Keyword {
            name,
            span: span.cover(value.span),
            value,
        }
    }

    fn exprs(&mut self, exprs: Vec<py::Expr>) -> Vec<Expr> {
        exprs.into_iter().map(|e| self.expr(e)).collect()
    }

    fn boxed(&mut self, e: py::Expr) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    /// The left operand of a binary operation that is itself one: the same level of
    /// nesting, one more link of the chain.
    fn chain_link(&mut self, e: py::Expr) -> Box<Expr> {
        if self.chain >= MAX_CHAIN {
            let span = self.span(expr_range(&e));
            self.too_long.get_or_insert(span);
            return Box::new(Expr {
                kind: ExprKind::Constant(Constant::None),
                span,
            });
        }
        self.chain += 1;
        self.depth -= 1;
        let out = self.boxed(e);
        self.depth += 1;
        self.chain -= 1;
        out
    }

    fn opt_boxed(&mut self, e: Option<Box<py::Expr>>) -> Option<Box<Expr>> {
        e.map(|e| self.boxed(*e))
    }

    fn expr(&mut self, expr: py::Expr) -> Expr {
        if self.depth >= MAX_NESTING {
            let span = self.span(expr_range(&expr));
            self.too_deep.get_or_insert(span);
            return Expr {
                kind: ExprKind::Constant(Constant::None),
                span,
            };
        }
        self.depth += 1;
        let out = self.expr_inner(expr);
        self.depth -= 1;
        out
    }

    fn expr_inner(&mut self, expr: py::Expr) -> Expr {
        use py::Expr as E;
        let span = self.span(expr_range(&expr));
        let kind = match expr {
            E::BoolOp(b) => ExprKind::BoolOp {
                op: match b.op {
                    py::BoolOp::And => BoolOp::And,
                    py::BoolOp::Or => BoolOp::Or,
                },
                values: self.exprs(b.values),
            },
            E::NamedExpr(n) => {
                let target = self.expr(*n.target);
                let name = target.as_name().unwrap_or_default().to_string();
                ExprKind::NamedExpr {
                    target: Ident {
                        name,
                        span: target.span,
                    },
                    value: self.boxed(*n.value),
                }
            }
            E::BinOp(b) => {
                let lhs = if matches!(*b.left, E::BinOp(_)) {
                    self.chain_link(*b.left)
                } else {
                    self.boxed(*b.left)
                };
                ExprKind::BinOp {
                    op: bin_op(b.op),
                    lhs,
                    rhs: self.boxed(*b.right),
                }
            }
            E::UnaryOp(u) => ExprKind::UnaryOp {
                op: match u.op {
                    py::UnaryOp::Invert => UnaryOp::Invert,
                    py::UnaryOp::Not => UnaryOp::Not,
                    py::UnaryOp::UAdd => UnaryOp::Pos,
                    py::UnaryOp::USub => UnaryOp::Neg,
                },
                operand: self.boxed(*u.operand),
            },
            E::Lambda(l) => ExprKind::Lambda {
                params: self.params(*l.args),
                body: self.boxed(*l.body),
            },
            E::IfExp(i) => ExprKind::IfExp {
                test: self.boxed(*i.test),
                body: self.boxed(*i.body),
                orelse: self.boxed(*i.orelse),
            },
            E::Dict(d) => ExprKind::Dict(
                d.keys
                    .into_iter()
                    .zip(d.values)
                    .map(|(k, v)| DictEntry {
                        key: k.map(|k| self.expr(k)),
                        value: self.expr(v),
                    })
                    .collect(),
            ),
            E::Set(s) => ExprKind::Set(self.exprs(s.elts)),
            E::ListComp(c) => {
                self.comprehension(ComprehensionKind::List, *c.elt, None, c.generators)
            }
            E::SetComp(c) => self.comprehension(ComprehensionKind::Set, *c.elt, None, c.generators),
            E::DictComp(c) => self.comprehension(
                ComprehensionKind::Dict,
                *c.key,
                Some(*c.value),
                c.generators,
            ),
            E::GeneratorExp(c) => {
                self.comprehension(ComprehensionKind::Generator, *c.elt, None, c.generators)
            }
            E::Await(a) => ExprKind::Await(self.boxed(*a.value)),
            E::Yield(y) => ExprKind::Yield(self.opt_boxed(y.value)),
            E::YieldFrom(y) => ExprKind::YieldFrom(self.boxed(*y.value)),
            E::Compare(c) => ExprKind::Compare {
                left: self.boxed(*c.left),
                ops: c.ops.into_iter().map(cmp_op).collect(),
                comparators: self.exprs(c.comparators),
            },
            E::Call(c) => ExprKind::Call(Box::new(Call {
                func: self.expr(*c.func),
                args: self.exprs(c.args),
                keywords: c.keywords.into_iter().map(|k| self.keyword(k)).collect(),
            })),
            E::FormattedValue(f) => ExprKind::FString(vec![self.formatted(f)]),
            E::JoinedStr(j) => {
                let mut parts = Vec::new();
                for v in j.values {
                    match v {
                        E::Constant(c) => match c.value {
                            py::Constant::Str(s) => parts.push(FStringPart::Literal(s)),
                            other => parts.push(FStringPart::Literal(format!("{other:?}"))),
                        },
                        E::FormattedValue(f) => parts.push(self.formatted(f)),
                        other => parts.push(FStringPart::Formatted {
                            value: self.boxed(other),
                            conversion: None,
                            format_spec: None,
                        }),
                    }
                }
                ExprKind::FString(parts)
            }
            E::Constant(c) => self.constant_expr(c.value, span),
            E::Attribute(a) => {
                let attr_len = a.attr.len() as u32;
                let attr = Ident {
                    name: a.attr.to_string(),
                    span: Span::new(self.file, span.end.saturating_sub(attr_len), span.end),
                };
                ExprKind::Attribute {
                    value: self.boxed(*a.value),
                    attr,
                }
            }
            E::Subscript(s) => ExprKind::Subscript {
                value: self.boxed(*s.value),
                index: self.boxed(*s.slice),
            },
            E::Starred(s) => ExprKind::Starred(self.boxed(*s.value)),
            E::Name(n) => ExprKind::Name(n.id.to_string()),
            E::List(l) => ExprKind::List(self.exprs(l.elts)),
            E::Tuple(t) => ExprKind::Tuple(self.exprs(t.elts)),
            E::Slice(s) => ExprKind::Slice {
                lower: self.opt_boxed(s.lower),
                upper: self.opt_boxed(s.upper),
                step: self.opt_boxed(s.step),
            },
        };
        Expr { kind, span }
    }

    fn constant_expr(&mut self, c: py::Constant, span: Span) -> ExprKind {
        match c {
            py::Constant::Tuple(items) => ExprKind::Tuple(
                items
                    .into_iter()
                    .map(|c| Expr {
                        kind: self.constant_expr(c, span),
                        span,
                    })
                    .collect(),
            ),
            other => ExprKind::Constant(constant(other)),
        }
    }

    fn formatted(&mut self, f: py::ExprFormattedValue) -> FStringPart {
        let conversion = f.conversion.to_byte().map(char::from);
        FStringPart::Formatted {
            value: self.boxed(*f.value),
            conversion,
            format_spec: self.opt_boxed(f.format_spec),
        }
    }

    fn comprehension(
        &mut self,
        kind: ComprehensionKind,
        element: py::Expr,
        value: Option<py::Expr>,
        generators: Vec<py::Comprehension>,
    ) -> ExprKind {
        let element = self.expr(element);
        let value = value.map(|v| self.expr(v));
        let generators = generators
            .into_iter()
            .map(|g| {
                let target = self.expr(g.target);
                let iter = self.expr(g.iter);
                let ifs = self.exprs(g.ifs);
                let mut span = self.span(g.range).cover(target.span).cover(iter.span);
                if let Some(last) = ifs.last() {
                    span = span.cover(last.span);
                }
                ComprehensionFor {
                    target,
                    iter,
                    ifs,
                    is_async: g.is_async,
                    span,
                }
            })
            .collect();
        ExprKind::Comprehension(Box::new(Comprehension {
            kind,
            element,
            value,
            generators,
        }))
    }
}

fn stmt_start(s: &py::Stmt) -> rustpython_parser::text_size::TextSize {
    use rustpython_parser::ast::Ranged;
    s.start()
}

fn expr_range(e: &py::Expr) -> TextRange {
    use rustpython_parser::ast::Ranged;
    e.range()
}

fn constant(c: py::Constant) -> Constant {
    match c {
        py::Constant::None => Constant::None,
        py::Constant::Bool(b) => Constant::Bool(b),
        py::Constant::Str(s) => Constant::Str(s),
        py::Constant::Bytes(b) => Constant::Bytes(b),
        py::Constant::Int(i) => match i128::try_from(&i) {
            Ok(v) => Constant::Int(v),
            Err(_) => Constant::BigInt(i.to_string().into_boxed_str()),
        },
        // Only rustpython's optimizer folds tuples into constants; the parser never does.
        py::Constant::Tuple(_) => unreachable!("constant tuples are handled by constant_expr"),
        py::Constant::Float(f) => Constant::Float(f),
        py::Constant::Complex { real, imag } => Constant::Complex { real, imag },
        py::Constant::Ellipsis => Constant::Ellipsis,
    }
}

fn bin_op(op: py::Operator) -> BinOp {
    use py::Operator as O;
    match op {
        O::Add => BinOp::Add,
        O::Sub => BinOp::Sub,
        O::Mult => BinOp::Mul,
        O::MatMult => BinOp::MatMul,
        O::Div => BinOp::Div,
        O::Mod => BinOp::Mod,
        O::Pow => BinOp::Pow,
        O::LShift => BinOp::LShift,
        O::RShift => BinOp::RShift,
        O::BitOr => BinOp::BitOr,
        O::BitXor => BinOp::BitXor,
        O::BitAnd => BinOp::BitAnd,
        O::FloorDiv => BinOp::FloorDiv,
    }
}

fn cmp_op(op: py::CmpOp) -> CmpOp {
    use py::CmpOp as C;
    match op {
        C::Eq => CmpOp::Eq,
        C::NotEq => CmpOp::NotEq,
        C::Lt => CmpOp::Lt,
        C::LtE => CmpOp::LtE,
        C::Gt => CmpOp::Gt,
        C::GtE => CmpOp::GtE,
        C::Is => CmpOp::Is,
        C::IsNot => CmpOp::IsNot,
        C::In => CmpOp::In,
        C::NotIn => CmpOp::NotIn,
    }
}
