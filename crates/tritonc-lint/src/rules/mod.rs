//! One file per rule. Each file holds the rule's documentation (`DOC`) and its check.

pub mod tri101;
pub mod tri102;
pub mod tri103;
pub mod tri201;
pub mod tri202;
pub mod tri203;
pub mod tri204;
pub mod tri301;
pub mod tri302;
pub mod tri303;
pub mod tri304;
pub mod tri401;

use tritonc_diagnostics::{Span, TextEdit};
use tritonc_ir::{OpId, OpKind};
use tritonc_syntax::ast::{Call, ExprKind};

use crate::context::{AnalysedKernel, KernelContext};
use crate::syntax_walk::call_at;

/// The name a memory op is written as.
pub(crate) fn access_name(kind: &OpKind) -> &'static str {
    match kind {
        OpKind::Load { .. } => "tl.load",
        OpKind::Store { .. } => "tl.store",
        OpKind::AtomicRmw { .. } => "atomic",
        OpKind::AtomicCas { .. } => "tl.atomic_cas",
        _ => "access",
    }
}

/// The call expression in the kernel's own body written at `op`'s location (not for ops
/// inlined from helpers, whose text a fix must not edit through a call site).
pub(crate) fn kernel_call<'a>(
    cx: &'a KernelContext<'_>,
    ir: &AnalysedKernel,
    op: OpId,
) -> Option<&'a Call> {
    let loc = &ir.func.op(op).loc;
    if !loc.call_sites.is_empty() || loc.span.file != cx.file {
        return None;
    }
    call_at(&cx.kernel.def.body, loc.span).and_then(|e| e.as_call())
}

/// An edit inserting `, text` before the closing parenthesis of `call_span`.
pub(crate) fn append_argument(
    cx: &KernelContext<'_>,
    call_span: Span,
    text: &str,
) -> Option<TextEdit> {
    let src = cx.slice(call_span);
    if !src.ends_with(')') {
        return None;
    }
    let inner = src[..src.len() - 1].trim_end();
    let at = call_span.start + inner.len() as u32;
    let sep = if inner.ends_with(',') { " " } else { ", " };
    Some(TextEdit {
        span: Span::new(call_span.file, at, at),
        replacement: format!("{sep}{text}"),
    })
}

/// The keyword argument `name` of `call`, with its value's span.
pub(crate) fn keyword_value_span(call: &Call, name: &str) -> Option<Span> {
    call.keyword(name).map(|k| k.value.span)
}

/// Whether `call` passes a keyword `name`.
pub(crate) fn has_keyword(call: &Call, name: &str) -> bool {
    call.keyword(name).is_some()
}

/// The callee's last name (`load` for `tl.load`, `sum` for `x.sum`).
pub(crate) fn callee_last(call: &Call) -> Option<&str> {
    match &call.func.kind {
        ExprKind::Attribute { attr, .. } => Some(attr.name.as_str()),
        ExprKind::Name(n) => Some(n.as_str()),
        _ => None,
    }
}

/// `-inf`, `+inf`, or the number, as a Python literal.
pub(crate) fn py_float(x: f64) -> String {
    crate::analysis::num::py_float(x)
}
