//! `tl` builtins and tensor methods, dispatched by canonical path.
//!
//! Every public name of Triton 3.6's `triton.language` is in [`names::TL_NAMES`]. A name
//! with an entry in [`IMPLEMENTED`] is lowered by its function; every other one answers
//! [`codes::UNSUPPORTED_TL_OP`]. Names Triton does not have answer
//! [`codes::UNKNOWN_TL_OP`] (at attribute access, with a did-you-mean).
//!
//! To add a builtin: write `fn(cx: &mut LowerCx, call: &BuiltinCall) -> Result<SemaValue,
//! Diagnostic>` in the module of its family (`core.rs`, or a new one), read arguments with
//! [`BuiltinCall::arg`] / [`BuiltinCall::const_arg`] and friends, build ops with
//! `cx.builder(call.span)`, and add a row to [`IMPLEMENTED`]. Binary typing goes through
//! [`arith::binary`], conversions through [`arith::cast`], shapes through
//! [`arith::broadcast_pair`].

pub mod arith;
mod atomic;
mod block_ptr;
mod core;
pub(crate) mod debug;
mod dot;
mod inline_asm;
mod libdevice;
mod math;
pub mod names;
pub mod private;
mod random;
mod reduce;
mod scan;
mod shape;
mod sort;
mod swizzle;
pub(crate) mod tensor_desc;

/// The builtin families beyond the core, one table per module, consulted before
/// [`IMPLEMENTED`]: a family may take over a core name it implements in full.
const FAMILIES: &[&[(&str, BuiltinFn)]] = &[
    reduce::BUILTINS,
    scan::BUILTINS,
    dot::BUILTINS,
    shape::BUILTINS,
    sort::BUILTINS,
    math::BUILTINS,
    atomic::BUILTINS,
    block_ptr::BUILTINS,
    tensor_desc::BUILTINS,
    random::BUILTINS,
    debug::BUILTINS,
    inline_asm::BUILTINS,
];

/// A family that handles this call whatever its name resolves to in the tables: block
/// pointer loads/stores, libdevice functions, Python's `print`.
fn family_route(call: &BuiltinCall) -> Option<BuiltinFn> {
    block_ptr::route(call)
        .or_else(|| math::route(call))
        .or_else(|| debug::route(call))
}

use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, Span};

use crate::codes;
use crate::lower::LowerCx;
use crate::value::{Constexpr, SemaValue, TensorValue};

/// A call of a builtin: canonical path, receiver for tensor methods, arguments with spans.
#[derive(Debug, Clone)]
pub struct BuiltinCall {
    /// `triton.language.arange`, `builtins.min`, …
    pub path: Arc<str>,
    /// The tensor a method was called on (`x` in `x.to(...)`), passed as the first argument.
    pub receiver: Option<TensorValue>,
    /// Positional arguments.
    pub args: Vec<(SemaValue, Span)>,
    /// Keyword arguments.
    pub kwargs: Vec<(String, SemaValue, Span)>,
    /// The whole call.
    pub span: Span,
    /// The callee expression.
    pub func_span: Span,
}

/// The signature of a builtin implementation.
pub type BuiltinFn = fn(&mut LowerCx<'_>, &BuiltinCall) -> Result<SemaValue, Diagnostic>;

impl BuiltinCall {
    /// The short name (`arange`).
    pub fn name(&self) -> &str {
        self.path.rsplit('.').next().unwrap_or(&self.path)
    }

    /// Checks the arguments against parameter names (the receiver fills the first) and
    /// returns them in parameter order: `None` where not given.
    pub fn bind(&self, params: &[&str]) -> Result<Vec<Option<(SemaValue, Span)>>, Diagnostic> {
        let mut out: Vec<Option<(SemaValue, Span)>> = vec![None; params.len()];
        let mut positional: Vec<(SemaValue, Span)> = Vec::new();
        if let Some(r) = &self.receiver {
            positional.push((SemaValue::Tensor(r.clone()), self.func_span));
        }
        positional.extend(self.args.iter().cloned());
        if positional.len() > params.len() {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!(
                    "`tl.{}` takes at most {} argument(s) but {} were given",
                    self.name(),
                    params.len(),
                    positional.len()
                ),
            )
            .with_primary(positional[params.len()].1, "unexpected argument")
            .with_note(format!("parameters: {}", params.join(", "))));
        }
        for (i, a) in positional.into_iter().enumerate() {
            out[i] = Some(a);
        }
        for (k, v, s) in &self.kwargs {
            let Some(i) = params.iter().position(|p| p == k) else {
                let mut d = Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`tl.{}` has no parameter `{k}`", self.name()),
                )
                .with_primary(*s, "unknown keyword");
                if let Some(m) = names::did_you_mean(k, params.iter().copied()) {
                    d = d.with_help(format!("did you mean `{m}`?"));
                }
                return Err(d);
            };
            if out[i].is_some() {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`tl.{}` got `{k}` twice", self.name()),
                )
                .with_primary(*s, ""));
            }
            out[i] = Some((v.clone(), *s));
        }
        Ok(out)
    }

    /// A required argument.
    pub fn required(
        &self,
        bound: &[Option<(SemaValue, Span)>],
        i: usize,
        name: &str,
    ) -> Result<(SemaValue, Span), Diagnostic> {
        bound[i].clone().ok_or_else(|| {
            Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`tl.{}` is missing the argument `{name}`", self.name()),
            )
            .with_primary(self.span, "")
        })
    }
}

/// A compile-time argument, or a not-constexpr error at its span.
pub fn expect_const(v: &(SemaValue, Span), what: &str) -> Result<Constexpr, Diagnostic> {
    match &v.0 {
        SemaValue::Const(c) => Ok(c.clone()),
        other => Err(Diagnostic::error(
            codes::NOT_CONSTEXPR,
            format!("{what} must be a compile-time constant"),
        )
        .with_primary(v.1, format!("this is {}", other.describe()))),
    }
}

/// A compile-time int argument.
pub fn expect_int(v: &(SemaValue, Span), what: &str) -> Result<i128, Diagnostic> {
    let c = expect_const(v, what)?;
    c.as_int().ok_or_else(|| {
        Diagnostic::error(
            codes::INVALID_OPERAND,
            format!("{what} must be an int, not {}", c.type_name()),
        )
        .with_primary(v.1, "")
    })
}

/// A runtime argument (Python numbers are materialized as scalars).
pub fn expect_tensor(
    cx: &mut LowerCx<'_>,
    v: &(SemaValue, Span),
) -> Result<TensorValue, Diagnostic> {
    arith::to_tensor(cx, v.0.clone(), v.1)
}

/// Builtins tritonc lowers, by short name (tensor methods use the same names).
pub const IMPLEMENTED: &[(&str, BuiltinFn)] = &[
    ("program_id", core::program_id),
    ("num_programs", core::num_programs),
    ("arange", core::arange),
    ("full", core::full),
    ("zeros", core::zeros),
    ("zeros_like", core::zeros_like),
    ("load", core::load),
    ("store", core::store),
    ("where", core::where_),
    ("to", core::to),
    ("cast", core::to),
    ("sum", core::sum),
    ("max", core::max),
    ("min", core::min),
    ("exp", core::math_unary),
    ("exp2", core::math_unary),
    ("log", core::math_unary),
    ("log2", core::math_unary),
    ("sqrt", core::math_unary),
    ("rsqrt", core::math_unary),
    ("sin", core::math_unary),
    ("cos", core::math_unary),
    ("erf", core::math_unary),
    ("floor", core::math_unary),
    ("ceil", core::math_unary),
    ("abs", core::math_unary),
    ("maximum", core::maximum),
    ("minimum", core::minimum),
    ("expand_dims", core::expand_dims),
    ("broadcast_to", core::broadcast_to),
    ("assume", core::assume),
    ("multiple_of", core::multiple_of),
    ("max_contiguous", core::max_contiguous),
    ("max_constancy", core::max_constancy),
    ("static_assert", core::static_assert),
    ("static_print", core::static_print),
    ("device_assert", core::device_assert),
    ("cdiv", core::cdiv),
    ("constexpr", core::constexpr_),
    ("pointer_type", core::pointer_type),
    ("swizzle2d", swizzle::swizzle2d),
];

/// Calls a builtin.
pub fn dispatch(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> Result<SemaValue, Diagnostic> {
    let path = &*call.path;
    if let Some(r) = private::dispatch(call) {
        return r;
    }
    if let Some(f) = family_route(call) {
        return f(cx, call);
    }
    if let Some(py) = path.strip_prefix("builtins.") {
        return core::python_builtin(cx, call, py);
    }
    if let Some(name) = path.strip_prefix("triton.language.") {
        let mut rows = FAMILIES.iter().flat_map(|t| t.iter()).chain(IMPLEMENTED);
        if let Some((_, f)) = rows.find(|(n, _)| *n == name) {
            return f(cx, call);
        }
        if names::TL_NAMES.contains(&name) || call.receiver.is_some() {
            let shown = if call.receiver.is_some() {
                format!("tensor.{name}")
            } else {
                format!("tl.{name}")
            };
            return Err(Diagnostic::error(
                codes::UNSUPPORTED_TL_OP,
                format!("`{shown}` is not yet supported by tritonc"),
            )
            .with_primary(call.func_span, "valid Triton, not lowered yet")
            .with_note("compile this kernel with upstream Triton until tritonc supports it"));
        }
    }
    if path == "triton.cdiv" || path == "triton.next_power_of_2" {
        return core::host_helper(cx, call);
    }
    Err(Diagnostic::error(
        codes::UNKNOWN_TL_OP,
        format!("`{path}` cannot be called inside a kernel"),
    )
    .with_primary(call.func_span, ""))
}

/// Tensor methods Triton 3.6 has (`dir(tl.tensor)`), besides operators.
pub const TENSOR_METHODS: &[&str] = &[
    "abs",
    "advance",
    "argmax",
    "argmin",
    "associative_scan",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_xchg",
    "atomic_xor",
    "broadcast_to",
    "cast",
    "cdiv",
    "ceil",
    "cos",
    "cumprod",
    "cumsum",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "flip",
    "floor",
    "gather",
    "histogram",
    "item",
    "log",
    "log2",
    "logical_and",
    "logical_or",
    "max",
    "min",
    "permute",
    "ravel",
    "reduce",
    "reduce_or",
    "reshape",
    "rsqrt",
    "sigmoid",
    "sin",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_rn",
    "store",
    "sum",
    "to",
    "trans",
    "view",
    "xor_sum",
];

/// `x.attr` on a runtime value: `dtype`, `shape`, `numel`, `type`, or a bound method.
pub fn tensor_attr(
    cx: &mut LowerCx<'_>,
    t: TensorValue,
    attr: &str,
    span: Span,
) -> Result<SemaValue, Diagnostic> {
    match attr {
        "dtype" => Ok(SemaValue::Const(Constexpr::DType(t.ty.elem()))),
        "shape" => Ok(SemaValue::Const(Constexpr::Tuple(
            t.ty.dims()
                .iter()
                .map(|d| match d {
                    tritonc_ir::Dim::Known(n) => Constexpr::Int(*n as i128),
                    // Generic analysis: the dim's name, or an unknown int.
                    tritonc_ir::Dim::Symbolic(s) => crate::value::Symbolic::constexpr(
                        s.as_str(),
                        crate::value::SymbolicKind::Int,
                    ),
                    tritonc_ir::Dim::Unknown => {
                        crate::value::Symbolic::constexpr("?", crate::value::SymbolicKind::Int)
                    }
                })
                .collect(),
        ))),
        "numel" => Ok(SemaValue::Const(Constexpr::Int(
            t.ty.numel().unwrap_or(0) as i128
        ))),
        "type" => Ok(SemaValue::Const(Constexpr::DType(t.ty.elem()))),
        m if TENSOR_METHODS.contains(&m) => Ok(SemaValue::TensorMethod(t, Arc::from(m))),
        "T" => shape::transpose_attr(cx, t, span),
        _ => {
            let mut d = Diagnostic::error(
                codes::UNKNOWN_ATTRIBUTE,
                format!("a tensor has no attribute `{attr}`"),
            )
            .with_primary(span, "");
            if let Some(s) = names::did_you_mean(
                attr,
                TENSOR_METHODS
                    .iter()
                    .copied()
                    .chain(["dtype", "shape", "numel"]),
            ) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            if matches!(
                attr,
                "load" | "store" | "gather" | "scatter" | "block_shape"
            ) && t.ty.is_ptr_like()
            {
                // `desc.load([m, k])`: the parameter is a host-side TensorDescriptor, which a
                // signature cannot name yet.
                d = d.with_note(format!(
                    "`.{attr}` is a tensor-descriptor method: host-side `TensorDescriptor` \
                     kernel arguments are not yet supported by tritonc (descriptors made in \
                     the kernel with `tl.make_tensor_descriptor` are)"
                ));
            }
            Err(d)
        }
    }
}
