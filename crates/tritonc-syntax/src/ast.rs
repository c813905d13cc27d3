//! tritonc's kernel AST: a plain, owned tree of Python statements and expressions in
//! which every node carries a byte [`Span`].
//!
//! The tree is deliberately close to Python's own `ast` module (so sema reads it like
//! upstream Triton's code generator reads Python's), but it is ours: no parser types leak
//! through it, and constructs Triton rejects are still represented as nodes so that they
//! are diagnosed at their span instead of disappearing.
//!
//! Conventions:
//! - `elif` is an [`StmtKind::If`] nested as the only statement of the outer `orelse`
//!   (exactly as Python's `ast` does); [`Stmt::is_elif`] tells them apart.
//! - Negative literals are [`UnaryOp::Neg`] applied to a non-negative constant.
//! - Subscript indices are ordinary expressions: `x[:, None]` has a [`ExprKind::Tuple`]
//!   index holding an [`ExprKind::Slice`] and a `None` constant.
//! - A chained comparison `a < b < c` stays one [`ExprKind::Compare`] with two operators.

use std::sync::Arc;

use tritonc_diagnostics::Span;

/// A parsed Python file.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// Top-level statements, in source order.
    pub body: Vec<Stmt>,
    /// The whole file.
    pub span: Span,
}

/// An identifier with the span of its text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The identifier text.
    pub name: String,
    /// Where the identifier is written.
    pub span: Span,
}

impl Ident {
    /// The identifier text.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

/// One statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// The statement's full extent (for a decorated `def`, from the first `@`).
    pub span: Span,
}

/// The statement kinds. Every Python statement has a variant, so nothing is dropped.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect (a call, a docstring).
    Expr(Expr),
    /// `a = b = value`, each target possibly a tuple or list pattern.
    Assign {
        /// The targets, left to right.
        targets: Vec<Expr>,
        /// The assigned value.
        value: Expr,
    },
    /// `target: annotation [= value]`.
    AnnAssign {
        /// The target (a name, attribute or subscript).
        target: Expr,
        /// The annotation, e.g. `tl.constexpr`.
        annotation: Expr,
        /// The value, if any.
        value: Option<Expr>,
    },
    /// `target op= value`.
    AugAssign {
        /// The target.
        target: Expr,
        /// The binary operator (`+` for `+=`).
        op: BinOp,
        /// The right-hand side.
        value: Expr,
    },
    /// `if test: body else: orelse` (an `elif` is a nested `If` in `orelse`).
    If {
        /// The condition.
        test: Expr,
        /// The taken branch.
        body: Vec<Stmt>,
        /// The other branch (empty when absent).
        orelse: Vec<Stmt>,
    },
    /// `for target in iter: body else: orelse`.
    For {
        /// The loop variable pattern.
        target: Expr,
        /// The iterated expression (`range(...)`, `tl.range(...)`, ...).
        iter: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else:` block (Triton rejects a non-empty one).
        orelse: Vec<Stmt>,
        /// Whether this is `async for`.
        is_async: bool,
    },
    /// `while test: body else: orelse`.
    While {
        /// The condition.
        test: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else:` block (Triton rejects a non-empty one).
        orelse: Vec<Stmt>,
    },
    /// `with a as b, c: body`.
    With {
        /// The context managers.
        items: Vec<WithItem>,
        /// The body.
        body: Vec<Stmt>,
        /// Whether this is `async with`.
        is_async: bool,
    },
    /// `return [value]`.
    Return(Option<Expr>),
    /// `assert test[, msg]`.
    Assert {
        /// The asserted condition.
        test: Expr,
        /// The message, if any.
        msg: Option<Expr>,
    },
    /// `pass`.
    Pass,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// A function definition (shared so discovery can hand it out without copying).
    FunctionDef(Arc<FunctionDef>),
    /// A class definition.
    ClassDef(Box<ClassDef>),
    /// `try`/`except`/`else`/`finally` (also `try`/`except*`).
    Try(Box<Try>),
    /// `raise [exc [from cause]]`.
    Raise {
        /// The exception, if any.
        exc: Option<Expr>,
        /// The `from` cause, if any.
        cause: Option<Expr>,
    },
    /// `del a, b`.
    Delete(Vec<Expr>),
    /// `global a, b`.
    Global(Vec<Ident>),
    /// `nonlocal a, b`.
    Nonlocal(Vec<Ident>),
    /// `import a.b as c, d`.
    Import(Vec<ImportAlias>),
    /// `from [.]module import a as b, c` (or `import *`).
    ImportFrom {
        /// The module path as written (without leading dots), if any.
        module: Option<Ident>,
        /// The number of leading dots (relative import level).
        level: u32,
        /// The imported names; `*` appears as a name `*`.
        names: Vec<ImportAlias>,
    },
    /// A statement tritonc keeps only as a span: `match`, `type X = ...`.
    Opaque(OpaqueStmt),
}

/// Statements kept only as a span because nothing in tritonc looks inside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpaqueStmt {
    /// `match subject: case ...`.
    Match,
    /// `type X = ...` (PEP 695).
    TypeAlias,
}

/// `name [as asname]` in an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportAlias {
    /// The dotted name as written (`triton.language`), or `*`.
    pub name: Ident,
    /// The `as` name, if any.
    pub asname: Option<Ident>,
    /// The whole alias.
    pub span: Span,
}

/// One context manager of a `with`.
#[derive(Debug, Clone, PartialEq)]
pub struct WithItem {
    /// The context manager expression.
    pub context: Expr,
    /// The `as` target, if any.
    pub target: Option<Expr>,
    /// The whole item.
    pub span: Span,
}

/// A `try` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Try {
    /// The guarded block.
    pub body: Vec<Stmt>,
    /// The `except` clauses.
    pub handlers: Vec<ExceptHandler>,
    /// The `else:` block.
    pub orelse: Vec<Stmt>,
    /// The `finally:` block.
    pub finalbody: Vec<Stmt>,
    /// Whether the handlers are `except*`.
    pub is_star: bool,
}

/// One `except [type [as name]]:` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct ExceptHandler {
    /// The exception type expression, if any.
    pub type_: Option<Expr>,
    /// The bound name, if any.
    pub name: Option<Ident>,
    /// The handler body.
    pub body: Vec<Stmt>,
    /// The whole clause.
    pub span: Span,
}

/// A class definition (kept so it can be diagnosed inside kernels; never lowered).
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDef {
    /// The class name.
    pub name: Ident,
    /// Base class expressions.
    pub bases: Vec<Expr>,
    /// Keywords in the class header (`metaclass=...`).
    pub keywords: Vec<Keyword>,
    /// Decorators, outermost first.
    pub decorators: Vec<Expr>,
    /// The class body.
    pub body: Vec<Stmt>,
}

/// A function definition.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// The function name.
    pub name: Ident,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// Decorators as written, outermost (topmost) first.
    pub decorators: Vec<Expr>,
    /// The return annotation, if any.
    pub returns: Option<Expr>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Whether this is `async def`.
    pub is_async: bool,
    /// From the first decorator's `@` (or `def`) to the end of the body.
    pub span: Span,
    /// The header `def name(...) -> ret:` without decorators and body, for labels.
    pub header_span: Span,
}

impl FunctionDef {
    /// The parameter with this name, if any.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name.name == name)
    }
}

/// How a parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// Before a `/`.
    PositionalOnly,
    /// An ordinary parameter.
    Positional,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

/// One function parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The parameter name.
    pub name: Ident,
    /// How it is passed.
    pub kind: ParamKind,
    /// Its annotation (`tl.constexpr`, `"i32"`, ...), if any.
    pub annotation: Option<Expr>,
    /// Its default value, if any.
    pub default: Option<Expr>,
    /// From the name (or `*`/`**`) to the end of the default.
    pub span: Span,
}

/// One expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it is written (parentheses around it are not included).
    pub span: Span,
}

/// The expression kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A name.
    Name(String),
    /// A literal.
    Constant(Constant),
    /// An f-string.
    FString(Vec<FStringPart>),
    /// `value.attr`.
    Attribute {
        /// The object.
        value: Box<Expr>,
        /// The attribute name.
        attr: Ident,
    },
    /// `value[index]`; a multi-dimensional index is a [`ExprKind::Tuple`].
    Subscript {
        /// The indexed object.
        value: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `lower:upper:step` inside a subscript.
    Slice {
        /// Start bound.
        lower: Option<Box<Expr>>,
        /// End bound.
        upper: Option<Box<Expr>>,
        /// Step.
        step: Option<Box<Expr>>,
    },
    /// A call.
    Call(Box<Call>),
    /// `lhs op rhs`.
    BinOp {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `op operand`.
    UnaryOp {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a and b and c` / `a or b`.
    BoolOp {
        /// The operator.
        op: BoolOp,
        /// Two or more operands.
        values: Vec<Expr>,
    },
    /// `left op0 c0 op1 c1 ...`; more than one operator is a chained comparison.
    Compare {
        /// The first operand.
        left: Box<Expr>,
        /// The operators, one per comparator.
        ops: Vec<CmpOp>,
        /// The right operands.
        comparators: Vec<Expr>,
    },
    /// `body if test else orelse`.
    IfExp {
        /// The condition.
        test: Box<Expr>,
        /// Value when true.
        body: Box<Expr>,
        /// Value when false.
        orelse: Box<Expr>,
    },
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{a, b}`.
    Set(Vec<Expr>),
    /// `{k: v, **m}`.
    Dict(Vec<DictEntry>),
    /// A list/set/dict comprehension or generator expression.
    Comprehension(Box<Comprehension>),
    /// `target := value`.
    NamedExpr {
        /// The bound name.
        target: Ident,
        /// The value.
        value: Box<Expr>,
    },
    /// `lambda params: body`.
    Lambda {
        /// The parameters.
        params: Vec<Param>,
        /// The body expression.
        body: Box<Expr>,
    },
    /// `*value` (in a call, a list or an assignment target).
    Starred(Box<Expr>),
    /// `await value`.
    Await(Box<Expr>),
    /// `yield [value]`.
    Yield(Option<Box<Expr>>),
    /// `yield from value`.
    YieldFrom(Box<Expr>),
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An integer literal that fits in `i128` (always non-negative as written).
    Int(i128),
    /// An integer literal too large for `i128`, as decimal digits.
    BigInt(Box<str>),
    /// A float literal.
    Float(f64),
    /// An imaginary literal `1j` (real part is 0 unless folded).
    Complex {
        /// Real part.
        real: f64,
        /// Imaginary part.
        imag: f64,
    },
    /// A string literal (adjacent literals already concatenated).
    Str(String),
    /// A bytes literal.
    Bytes(Vec<u8>),
    /// `...`.
    Ellipsis,
}

/// A piece of an f-string.
#[derive(Debug, Clone, PartialEq)]
pub enum FStringPart {
    /// Literal text.
    Literal(String),
    /// A `{value!conv:spec}` replacement field.
    Formatted {
        /// The formatted expression.
        value: Box<Expr>,
        /// `s`, `r` or `a` when a conversion is given.
        conversion: Option<char>,
        /// The format spec, itself an f-string expression.
        format_spec: Option<Box<Expr>>,
    },
}

/// A call `func(args, name=value, *xs, **kw)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The callee.
    pub func: Expr,
    /// Positional arguments; `*xs` appears as [`ExprKind::Starred`].
    pub args: Vec<Expr>,
    /// Keyword arguments, in order.
    pub keywords: Vec<Keyword>,
}

impl Call {
    /// The keyword argument with this name, if any.
    pub fn keyword(&self, name: &str) -> Option<&Keyword> {
        self.keywords
            .iter()
            .find(|k| k.name.as_ref().is_some_and(|n| n.name == name))
    }
}

/// `name=value`, or `**value` when `name` is `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyword {
    /// The keyword, or `None` for `**value`.
    pub name: Option<Ident>,
    /// The value.
    pub value: Expr,
    /// The whole keyword argument.
    pub span: Span,
}

/// `key: value` in a dict display, or `**value` when `key` is `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct DictEntry {
    /// The key, or `None` for `**value`.
    pub key: Option<Expr>,
    /// The value.
    pub value: Expr,
}

/// Which comprehension a [`Comprehension`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComprehensionKind {
    /// `[e for ...]`.
    List,
    /// `{e for ...}`.
    Set,
    /// `{k: v for ...}`.
    Dict,
    /// `(e for ...)`.
    Generator,
}

/// A comprehension or generator expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    /// The kind.
    pub kind: ComprehensionKind,
    /// The element (the key for a dict comprehension).
    pub element: Expr,
    /// The value of a dict comprehension.
    pub value: Option<Expr>,
    /// The `for` clauses, outermost first.
    pub generators: Vec<ComprehensionFor>,
}

/// `for target in iter if cond ...` inside a comprehension.
#[derive(Debug, Clone, PartialEq)]
pub struct ComprehensionFor {
    /// The loop variable pattern.
    pub target: Expr,
    /// The iterated expression.
    pub iter: Expr,
    /// The `if` filters.
    pub ifs: Vec<Expr>,
    /// Whether this is `async for`.
    pub is_async: bool,
    /// The whole clause.
    pub span: Span,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `@`
    MatMul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::MatMul => "@",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `~`
    Invert,
    /// `not`
    Not,
    /// unary `+`
    Pos,
    /// unary `-`
    Neg,
}

impl UnaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not",
            UnaryOp::Pos => "+",
            UnaryOp::Neg => "-",
        }
    }
}

/// `and` / `or`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `is`
    Is,
    /// `is not`
    IsNot,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Expr {
    /// The name if this is a bare [`ExprKind::Name`].
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The call if this is an [`ExprKind::Call`].
    pub fn as_call(&self) -> Option<&Call> {
        match &self.kind {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The literal if this is an [`ExprKind::Constant`].
    pub fn as_constant(&self) -> Option<&Constant> {
        match &self.kind {
            ExprKind::Constant(c) => Some(c),
            _ => None,
        }
    }

    /// The string if this is a plain string literal.
    pub fn as_str_literal(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Constant(Constant::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The value of an integer literal, with a leading unary minus folded in.
    pub fn as_int_literal(&self) -> Option<i128> {
        match &self.kind {
            ExprKind::Constant(Constant::Int(v)) => Some(*v),
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } => match &operand.kind {
                ExprKind::Constant(Constant::Int(v)) => v.checked_neg(),
                _ => None,
            },
            _ => None,
        }
    }

    /// The dotted path of a chain of names and attributes (`tl.math.exp`), if it is one.
    pub fn dotted_path(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                let mut base = value.dotted_path()?;
                base.push('.');
                base.push_str(&attr.name);
                Some(base)
            }
            _ => None,
        }
    }
}

impl Stmt {
    /// Whether this `if` was written as `elif` (it starts with the `elif` keyword's
    /// span, which `text` — the file's text — shows).
    pub fn is_elif(&self, text: &str) -> bool {
        matches!(self.kind, StmtKind::If { .. })
            && text
                .get(self.span.start as usize..)
                .is_some_and(|t| t.starts_with("elif"))
    }
}
