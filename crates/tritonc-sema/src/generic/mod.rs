//! Generic analysis: a kernel lowered without a launch signature.
//!
//! What the source fixes is used (annotations, defaults, autotune configs, heuristics
//! whose value is a constant, a [`PartialSpecialization`] from the caller); what it does
//! not fix stays unknown in the same IR and semantics as specialized lowering:
//!
//! - a pointer parameter is `!tt.ptr<!dtype<N>>` and an unannotated scalar `!dtype<N>`
//!   (one [`DType::Var`] per parameter); promotion keeps a variable unless the other
//!   side decides the result (`x.to(tl.float32)` is `f32`; see [`crate::symbolic`]);
//! - a constexpr parameter no source fixes is a [`Constexpr::Symbolic`] value: `BLOCK`
//!   gives `tl.arange(0, BLOCK)` the type `tensor<BLOCKxi32>`; autotune configs that
//!   disagree leave it symbolic with their values as candidates;
//! - an `if` on an unknown constexpr analyses both arms (an `scf.if` on an unknown `i1`);
//!   a variable whose type differs between the arms becomes unknown after it;
//! - an error in a statement that reads an unknown (a dtype variable, a symbolic dim, a
//!   symbolic constexpr, an opaque module) is soft: it is recorded in
//!   [`GenericResult::assumptions`], the names the statement assigns become unknown, and
//!   lowering goes on. Errors over known values stay errors.
//!
//! Unknown compile-time values that reach the IR are materialized as
//! `tt.extern_elementwise {libname = "tritonc.generic", symbol = "<expression>"}` ops
//! without operands whose result type says what is known (`i32` for `BLOCK`,
//! `tensor<BLOCKxi32>` for `tl.arange(0, BLOCK)`).
//!
//! The mode is a property of the lowering run, set for the duration of
//! [`lower_kernel_generic`] on the current thread; specialized lowering never sees it.

mod params;
pub(crate) mod recover;
pub(crate) mod walk;

use std::cell::RefCell;

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{DType, Dim, Module, Type};
use tritonc_syntax::Kernel;

use crate::lower::{lower_kernel_in, LowerCx, ModuleScope};
use crate::spec::ArgSpec;
use crate::symbolic::{dim_of, is_symbolic};
use crate::value::{Constexpr, SemaValue, Symbolic, SymbolicKind, TensorValue};

pub use params::{generic_specialization, ParamOrigin};

/// The library name of placeholder ops for unknown values.
pub const GENERIC_LIBNAME: &str = "tritonc.generic";

/// What the caller already knows about some parameters.
#[derive(Debug, Clone, Default)]
pub struct PartialSpecialization {
    /// Parameters fixed by the caller, by name (the rest are inferred or unknown).
    pub params: Vec<(String, ArgSpec)>,
    /// The launch options (warps, stages, debug mode, the Triton version) to lower with.
    pub options: crate::spec::LaunchOptions,
}

/// Something generic analysis assumed or could not decide, at a span.
#[derive(Debug, Clone)]
pub struct Assumption {
    /// What was assumed or left open; for a soft error, the error that would be reported
    /// if the unknowns turn out as they look.
    pub diagnostic: Diagnostic,
}

/// A kernel lowered generically.
#[derive(Debug)]
pub struct GenericResult {
    /// The one-function IR module (types may hold dtype variables and symbolic dims).
    pub module: Module,
    /// How each parameter was typed and where the facts came from.
    pub params: Vec<(String, ArgSpec, ParamOrigin)>,
    /// Soft errors and assumptions, in the order they were made.
    pub assumptions: Vec<Assumption>,
    /// Warnings of lowering (deprecations and the like).
    pub warnings: Vec<Diagnostic>,
}

/// The state of a generic lowering run.
#[derive(Debug, Default)]
struct GenericState {
    /// The next fresh dtype variable.
    next_var: u32,
    /// Assumptions so far.
    assumptions: Vec<Assumption>,
}

thread_local! {
    static STATE: RefCell<Option<GenericState>> = const { RefCell::new(None) };
}

/// Whether the current lowering run is generic.
pub(crate) fn active() -> bool {
    STATE.with(|s| s.borrow().is_some())
}

/// A dtype variable not used so far in this run.
pub(crate) fn fresh_var() -> DType {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        let st = s.get_or_insert_with(GenericState::default);
        st.next_var += 1;
        DType::Var(st.next_var - 1)
    })
}

/// Records an assumption (ignored outside generic mode).
pub(crate) fn assume(diagnostic: Diagnostic) {
    STATE.with(|s| {
        if let Some(st) = s.borrow_mut().as_mut() {
            st.assumptions.push(Assumption { diagnostic });
        }
    })
}

/// Ends the run on drop, so a panic inside lowering leaves the thread in specialized mode.
struct RunGuard;

impl Drop for RunGuard {
    fn drop(&mut self) {
        STATE.with(|s| s.borrow_mut().take());
    }
}

/// Lowers `kernel` (a kernel of `scope`) generically. `Err` holds hard errors: those that
/// hold whatever the unknowns are.
pub fn lower_kernel_generic(
    scope: &ModuleScope,
    kernel: &Kernel,
    partial: &PartialSpecialization,
) -> Result<GenericResult, Vec<Diagnostic>> {
    let _guard = RunGuard;
    STATE.with(|s| *s.borrow_mut() = Some(GenericState::default()));
    let (spec, params) = generic_specialization(scope, kernel, partial);
    let lowered = lower_kernel_in(scope, &kernel.name, &spec)?;
    let assumptions = STATE.with(|s| {
        s.borrow_mut()
            .take()
            .map(|st| st.assumptions)
            .unwrap_or_default()
    });
    Ok(GenericResult {
        module: lowered.module,
        params,
        assumptions,
        warnings: lowered.warnings,
    })
}

/// A placeholder op for an unknown value of type `ty`, read as `name`.
pub(crate) fn placeholder(cx: &mut LowerCx<'_>, name: &str, ty: Type, span: Span) -> TensorValue {
    let id = cx
        .builder(span)
        .extern_elementwise(&[], ty.clone(), GENERIC_LIBNAME, "", name, true);
    TensorValue { id, ty }
}

/// An unknown compile-time value as a runtime scalar: ints are `i32` (Triton's type for
/// ints that fit), bools `i1`, floats `f32`, anything else a fresh dtype variable.
pub(crate) fn materialize(cx: &mut LowerCx<'_>, s: &Symbolic, span: Span) -> Option<TensorValue> {
    let d = match s.kind {
        SymbolicKind::Int => DType::I32,
        SymbolicKind::Bool => DType::I1,
        SymbolicKind::Float => DType::F32,
        SymbolicKind::Any => fresh_var(),
        SymbolicKind::DType => return None,
    };
    Some(placeholder(cx, &s.name, Type::Scalar(d), span))
}

/// `tl.arange(start, end)` with an unknown bound: `tensor<BLOCKxi32>` for `arange(0,
/// BLOCK)`, a dim named after `end - start` otherwise. `None` when both bounds are known
/// (specialized lowering applies).
pub(crate) fn arange(
    cx: &mut LowerCx<'_>,
    start: &(SemaValue, Span),
    end: &(SemaValue, Span),
    span: Span,
) -> Option<TensorValue> {
    let (SemaValue::Const(s), SemaValue::Const(e)) = (&start.0, &end.0) else {
        return None;
    };
    if !(is_symbolic(s) || is_symbolic(e)) {
        return None;
    }
    let dim = if s.as_int() == Some(0) {
        dim_of(e)?
    } else {
        Dim::Symbolic(format!("{e} - {s}"))
    };
    let ty = Type::Tensor {
        shape: vec![dim],
        elem: tritonc_ir::Elem::DType(DType::I32),
        encoding: None,
    };
    Some(placeholder(cx, &format!("arange({s}, {e})"), ty, span))
}

/// A block shape argument with an unknown dim, as dims; `None` when every dim is known.
pub(crate) fn symbolic_shape(a: &(SemaValue, Span)) -> Option<Vec<Dim>> {
    let SemaValue::Const(c) = &a.0 else {
        return None;
    };
    if !is_symbolic(c) {
        return None;
    }
    match c {
        Constexpr::Tuple(items) => items
            .iter()
            .map(|i| dim_of(i).or(Some(Dim::Unknown)))
            .collect(),
        other => Some(vec![dim_of(other).unwrap_or(Dim::Unknown)]),
    }
}

/// An unknown value named after what it stands for.
pub(crate) fn unknown(name: &str) -> Constexpr {
    Symbolic::constexpr(name, SymbolicKind::Any)
}

#[cfg(test)]
mod tests;
