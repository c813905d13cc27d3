//! Generic analysis as lint's fallback: a kernel the lint specialization cannot lower is
//! lowered by sema's generic mode ([`tritonc_sema::generic::lower_kernel_generic`]), which
//! keeps what the source does not fix symbolic instead of guessing it.
//!
//! Why a fallback and not the first choice: the dataflow analyses reason about concrete
//! block shapes and `tt.make_range` bounds, and generic IR has `tensor<BLOCKx…>` dims and
//! `arange(0, BLOCK)` placeholder ops, which they read as unknown. On kernels the
//! placeholders lower, they find more with the placeholders; on the others (a placeholder
//! block size that a `tl.static_assert` refuses, a placeholder dtype `tl.dot` rejects),
//! generic IR is the only IR there is.
//!
//! Runtime parameters keep the lint specialization's placeholder types (an `f32` pointee,
//! an `i32` or `f32` scalar, recorded in [`Assumptions`] as before): the analyses judge
//! concrete dtypes (is this product int32? is this lane finite?) and a dtype variable would
//! leave them guessing. What generic mode adds is the constexprs: a block size no source
//! fixes stays a symbolic `BLOCK` instead of a guessed 64, and an `if` on an unknown flag
//! analyses both arms. The masked-lane value rule (TRI103) does not run on this IR: the
//! value of a padded lane after `-inf / T` depends on the sign of a constexpr `T` that is
//! now symbolic. Only when even that does not lower is the kernel lowered fully
//! generically, for the one purpose of a precise error: a hard error of generic mode
//! holds whatever the unknowns turn out to be.

use tritonc_diagnostics::Diagnostic;
use tritonc_ir::{Function, OpKind, Value};
use tritonc_sema::generic::{lower_kernel_generic, ParamOrigin, PartialSpecialization};
use tritonc_sema::{ArgSpec, ModuleScope, Specialization};
use tritonc_syntax::Kernel;

use crate::specialize::{Assumptions, LintSpecialization};

/// A kernel lowered generically: its function, the specialization it stands for, and how
/// many facts generic analysis assumed or could not decide.
pub(crate) struct GenericVariant {
    /// The kernel function (dtype variables and symbolic dims possible).
    pub func: Function,
    /// Parameters as generic mode typed them; unknown ones recorded as assumed.
    pub spec: LintSpecialization,
    /// Soft errors and undecided merges (their count, for the note on findings).
    pub assumptions: usize,
}

/// Whether `v` is generic mode's placeholder for a compile-time value it does not know
/// (a symbolic `BLOCK`): a constant of unknown value, not a runtime argument.
pub fn is_symbolic_constexpr(f: &Function, v: Value) -> bool {
    f.defining_op(v).is_some_and(|op| {
        matches!(&f.op(op).kind, OpKind::ExternElementwise { libname, .. }
            if libname == tritonc_sema::generic::GENERIC_LIBNAME)
    })
}

/// Whether `v` is generic mode's stand-in for a value it could not compute: a placeholder
/// whose expression names none of `constexprs` (the kernel's compile-time parameters).
/// A compile-time unknown is written over those (`BLOCK`, `arange(0, BLOCK)`, `H * BT`);
/// the names a statement that failed over an unknown assigns (`store_offset`, `keys <
/// top`) are run-time values generic mode lost.
pub fn is_lost_value(f: &Function, v: Value, constexprs: &[&str]) -> bool {
    let Some(op) = f.defining_op(v) else {
        return false;
    };
    let OpKind::ExternElementwise {
        libname, symbol, ..
    } = &f.op(op).kind
    else {
        return false;
    };
    libname == tritonc_sema::generic::GENERIC_LIBNAME
        && !symbol
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| constexprs.contains(&word))
}

/// The name of generic mode's placeholder `v` (`BT`, `H * BT`), if `v` is one, possibly
/// cast to another width or splatted (`i_t * BT` with an `i64` `i_t`).
pub fn symbolic_name(f: &Function, v: Value) -> Option<&str> {
    let op = f.defining_op(v)?;
    match &f.op(op).kind {
        OpKind::ExternElementwise {
            libname, symbol, ..
        } if libname == tritonc_sema::generic::GENERIC_LIBNAME => Some(symbol.as_str()),
        OpKind::Cast { .. } | OpKind::Splat => symbolic_name(f, f.op(op).operands()[0]),
        _ => None,
    }
}

/// Lowers `kernel` generically with the runtime parameters of `placeholders` (the lint
/// specialization) and its constexprs left to generic mode. `Err` holds the error of a
/// fully generic lowering when that fails too (a hard error), else the first error.
pub(crate) fn generic_variant(
    scope: &ModuleScope,
    kernel: &Kernel,
    placeholders: &LintSpecialization,
) -> Result<GenericVariant, Diagnostic> {
    let runtime = PartialSpecialization {
        options: placeholders.spec.options.clone(),
        params: placeholders
            .spec
            .params
            .iter()
            .filter(|(_, s)| s.is_runtime())
            .cloned()
            .collect(),
    };
    let r = match lower_kernel_generic(scope, kernel, &runtime) {
        Ok(r) => r,
        Err(mut ds) => {
            let typed = ds.remove(0);
            return Err(
                match lower_kernel_generic(
                    scope,
                    kernel,
                    &PartialSpecialization {
                        options: placeholders.spec.options.clone(),
                        ..PartialSpecialization::default()
                    },
                ) {
                    Err(mut hard) if !hard.is_empty() => hard.remove(0),
                    _ => typed,
                },
            );
        }
    };
    let mut assumed = Assumptions::default();
    for name in runtime.params.iter().map(|(n, _)| n) {
        if placeholders.assumed.pointer_dtypes.contains(name) {
            assumed.pointer_dtypes.insert(name.clone());
        }
        if placeholders.assumed.scalar_types.contains(name) {
            assumed.scalar_types.insert(name.clone());
        }
    }
    for (name, spec, origin) in &r.params {
        match (origin, spec) {
            (ParamOrigin::UnknownPointer, _) => {
                assumed.pointer_dtypes.insert(name.clone());
            }
            (ParamOrigin::UnknownScalar, _) => {
                assumed.scalar_types.insert(name.clone());
            }
            (
                ParamOrigin::UnknownConstexpr
                | ParamOrigin::Computed
                | ParamOrigin::AutotuneCandidates(_),
                ArgSpec::Constexpr(v),
            ) => {
                assumed.constexprs.insert(name.clone(), v.clone());
            }
            _ => {}
        }
    }
    let name = &kernel.def.name.name;
    let func = r
        .module
        .functions
        .into_iter()
        .find(|f| f.name == *name)
        .ok_or_else(|| {
            Diagnostic::error(
                tritonc_diagnostics::Code(""),
                "generic lowering produced no kernel function",
            )
        })?;
    Ok(GenericVariant {
        func,
        spec: LintSpecialization {
            spec: Specialization {
                kernel: name.clone(),
                params: r.params.into_iter().map(|(n, s, _)| (n, s)).collect(),
                options: placeholders.spec.options.clone(),
            },
            assumed,
        },
        assumptions: r.assumptions.len(),
    })
}
