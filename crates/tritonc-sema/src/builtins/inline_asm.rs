//! `tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)`: target
//! assembly mapped over the elements of its arguments, as Triton 3.6 builds it
//! (`triton/language/core.py`): every argument becomes a tensor (numbers as constants of
//! their literal dtype), all are broadcast to one shape without any type promotion, and the
//! op `tt.elementwise_inline_asm` returns one value of that shape per dtype — a single
//! value when `dtype` is one dtype, a tuple when it is a tuple (even of one). With no
//! block argument the results are scalars. `asm`, `constraints`, `is_pure` and `pack`
//! are compile-time values (`tests/fixtures/triton/inline_asm.json` records Triton's
//! verdicts).
//!
//! The interpreter cannot run target assembly: it refuses the op at its span
//! (`tritonc-interp`), and codegen emits one `llvm.inline_asm` per `pack` elements
//! (`tritonc-codegen`'s `lower/inline_asm.rs`).

use tritonc_diagnostics::{Diagnostic, Span};
use tritonc_ir::{Elem, Type};

use super::{arith, expect_const, BuiltinCall, BuiltinFn};
use crate::codes;
use crate::lower::LowerCx;
use crate::value::{Constexpr, SemaValue};

/// The builtins of this module, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] =
    &[("inline_asm_elementwise", inline_asm_elementwise)];

fn bad(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::BAD_ARGUMENTS, msg).with_primary(span, "")
}

fn string_arg(a: &(SemaValue, Span), what: &str) -> Result<String, Diagnostic> {
    match expect_const(a, &format!("`{what}`"))? {
        Constexpr::Str(s) => Ok(s),
        other => Err(bad(
            a.1,
            format!("`{what}` must be a string, not {}", other.type_name()),
        )),
    }
}

fn inline_asm_elementwise(cx: &mut LowerCx<'_>, call: &BuiltinCall) -> Result<SemaValue, Diagnostic> {
    let b = call.bind(&["asm", "constraints", "args", "dtype", "is_pure", "pack"])?;
    let asm = string_arg(&call.required(&b, 0, "asm")?, "asm")?;
    let constraints = string_arg(&call.required(&b, 1, "constraints")?, "constraints")?;
    let args = call.required(&b, 2, "args")?;
    let dtype = call.required(&b, 3, "dtype")?;
    let is_pure = expect_const(&call.required(&b, 4, "is_pure")?, "`is_pure`")?.truthy();
    let pack_arg = call.required(&b, 5, "pack")?;
    let pack = match expect_const(&pack_arg, "`pack`")?.as_int() {
        Some(p) if (1..=1 << 16).contains(&p) => p as u32,
        _ => {
            return Err(bad(
                pack_arg.1,
                "`pack` must be a positive int (the elements one instance of the assembly processes)",
            ))
        }
    };
    // `dtype`: one dtype (one result) or a tuple of them (a tuple of results).
    let (elems, multiple): (Vec<Elem>, bool) = match expect_const(&dtype, "`dtype`")? {
        Constexpr::DType(e) => (vec![e], false),
        Constexpr::Tuple(items) => {
            let elems = items
                .iter()
                .map(|c| match c {
                    Constexpr::DType(e) => Ok(*e),
                    other => Err(bad(
                        dtype.1,
                        format!("`dtype` must hold dtypes, not {}", other.type_name()),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            (elems, true)
        }
        other => {
            return Err(bad(
                dtype.1,
                format!("`dtype` must be a dtype or a tuple of dtypes, not {}", other.type_name()),
            ))
        }
    };
    if elems.is_empty() {
        return Err(bad(
            dtype.1,
            "`dtype` names no result: the assembly must return at least one value",
        )
        .with_help("return a dummy value of any dtype and leave it unused"));
    }
    let items = args.0.tuple_items().ok_or_else(|| {
        bad(
            args.1,
            format!("`args` must be a list or tuple of values, not {}", args.0.describe()),
        )
    })?;
    let mut tensors = Vec::with_capacity(items.len());
    for item in items {
        tensors.push(arith::to_tensor(cx, item, args.1)?);
    }
    // Triton's `binary_op_type_checking_impl(..., arithmetic_check=False)` over all the
    // arguments: shapes broadcast, dtypes unchanged.
    let mut shape_of_all = tensors.first().cloned();
    if let Some(mut target) = shape_of_all.take() {
        for t in &tensors {
            target = arith::broadcast_pair(cx, t.clone(), target, args.1)?.1;
        }
        if target.is_block() {
            for t in tensors.iter_mut() {
                *t = arith::broadcast_pair(cx, t.clone(), target.clone(), args.1)?.0;
            }
        }
        shape_of_all = Some(target);
    }
    // Values narrower than 32 bits travel `min(32 / bits, pack)` to a register; `pack`
    // must fill whole registers (Triton 3.6 asserts on results and reads past the
    // thread's elements on operands otherwise).
    let narrow = elems
        .iter()
        .map(|e| (*e, dtype.1))
        .chain(tensors.iter().map(|t| (t.elem(), args.1)));
    for (e, span) in narrow {
        let bits = e.bitwidth().unwrap_or(32);
        let per = if bits < 32 { (32 / bits.max(1)).min(pack) } else { 1 };
        if pack % per != 0 {
            return Err(bad(
                span,
                format!(
                    "`pack={pack}` does not fill whole 32-bit registers of `{e}` values ({per} to a register)"
                ),
            )
            .with_secondary(pack_arg.1, "`pack`")
            .with_help(format!("use a `pack` that is a multiple of {per}")));
        }
    }
    let tys: Vec<Type> = elems
        .iter()
        .map(|&e| match &shape_of_all {
            Some(t) if t.is_block() => t.ty.with_elem(e),
            _ => Type::with_dims(Vec::new(), e),
        })
        .collect();
    let ids: Vec<_> = tensors.iter().map(|t| t.id).collect();
    let results = cx
        .builder(call.span)
        .elementwise_inline_asm(&ids, tys, &asm, &constraints, is_pure, pack);
    let values: Vec<SemaValue> = results
        .into_iter()
        .map(|r| SemaValue::Tensor(cx.tensor(r)))
        .collect();
    Ok(if multiple {
        SemaValue::Tuple(values)
    } else {
        values.into_iter().next().expect("one dtype, one result")
    })
}
