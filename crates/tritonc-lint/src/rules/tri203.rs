//! TRI203 int32-offset-overflow.

use std::collections::BTreeSet;

use tritonc_diagnostics::{CodeDoc, Diagnostic};
use tritonc_ir::{BinaryOp, DType, Function, OpId, OpKind, Value, ValueDef};
use tritonc_syntax::ast::ExprKind;

use crate::analysis::shape::below_bound;
use crate::context::{AnalysedKernel, Finding, KernelContext};
use crate::registry::Rule;
use crate::syntax_walk::{for_each_expr, names_in};

/// Flags pointer offsets built from an int32 product of a program id and a stride.
pub struct Int32OffsetOverflow;

/// The rule's documentation.
pub const DOC: CodeDoc = CodeDoc {
    code: tritonc_diagnostics::Code("TRI203"),
    name: "int32-offset-overflow",
    summary: "a pointer offset multiplies a program id by a stride in int32",
    explanation: "\
## What it does
Reports pointer offsets built from a product of `tl.program_id` (int32) and a stride or
block size that is int32, with no cast to int64 on the way, in kernels whose offsets can
pass 2^31 - 1.

Which kernels those are is said by the kernel or by the configuration:

- By default (no `max-tensor-elements` configured), a tensor is checked when the kernel's
  own code says it can pass int32: some offset into it is computed in int64 (a program id
  or offset widened with `.to(tl.int64)`, or a size or stride parameter annotated
  `tl.int64` or given as `i64` in the configured signature). An int32 product next to
  those is an offset the widening missed. Tensors the kernel addresses in int32 only
  (most kernels' tensors, and the per-row statistics, scales and counters next to a
  widened tensor) are not reported, unless the product's stride or size is one the
  kernel multiplies in int64 elsewhere (`out_ptr + row.to(tl.int64) * stride` next to
  `x_ptr + row * stride`: the same stride, as large here). Nor is a scalar index (a
  head, a group) times its stride added inside a slice the kernel already addresses in
  int64 (`x_ptr + i_b.to(tl.int64) * stride_b + i_h * stride_h`): it stays inside that
  slice. An int64 offset in the other branch of an `if` says nothing about this one
  (`if not IDX_I64: x + i * s` / `else: x + i * s.to(tl.int64)`): the author chose
  int32 for the branch the product is in.
- The setting `max-tensor-elements` (in `[tool.tritonc.lint.int32-offset-overflow]`) is
  the largest tensor, in elements, the project launches kernels on. Set above 2^31 - 1
  (e.g. 4294967296: the logits of 32k tokens over a 128k vocabulary), every kernel is
  checked; at or below 2^31 - 1 an int32 offset cannot wrap and the rule is quiet.

It is quiet where the stride is an int64 parameter, is listed in `do_not_specialize` (the
author chose its handling), or is bounded by `tl.static_assert`, or from above by
`tl.assume` or `tl.device_assert` (`tl.assume(stride < 65536)`; a lower bound such as
`tl.assume(stride > 0)` bounds no product).

An innermost stride is presumed to be 1 when nothing says otherwise: a product like
`offs_n[None, :] * stride_xn`, a parameter named as a stride times offsets that vary
along the block's last dim only, is not reported unless the kernel has a configured
signature, nor multiplies the same stride by offsets along another dim elsewhere (then
it is a row stride: `offs_m[None, :] * stride_tok` in a transposed load next to
`offs_m[:, None] * stride_tok`). Offsets from a range whose size stays symbolic
(`tl.arange(0, BD)` in a kernel lint lowers without a value for `BD`) count as a range.
Triton specializes an integer argument equal to 1 into the constant 1, so on
a contiguous tensor that product is never computed; a signature that gives the stride as
`i32:1` says so, and one that gives it as a plain `i32` (a transposed view) brings the
finding back.

Products of compile-time sizes are small: an index taken modulo a constexpr (`i_nh %
HV`) times constexprs, or an index every access masks below a constexpr times a constexpr
(`o_k[:, None] * V` under `mask = o_k < K`: below `K * V`), is not reported. Constexprs
are block sizes and head dims.

It is quiet, too, where the access's mask bounds the whole offset by an int32 size
(`offs = pid * chunk + tl.arange(0, BLOCK)` loaded with `mask=offs < n`): every lane that
touches memory is below `n`, and so is the product of every program the launch covers, as
for a constexpr block size. A size of 2^31 or more reaches a Triton kernel as int64, where
the int32 product has already wrapped: declare such a size `n: tl.int64` (or `i64` in the
configured signature) and the comparison, now in int64, no longer silences the rule.

## Why is this bad?
`row * stride` wraps past 2^31 - 1 and the access lands at a negative or unrelated address:
silent corruption on exactly the large inputs nobody tests.

## Example
```python
row = tl.program_id(0)
x = tl.load(x_ptr + row * stride + cols, mask=mask)
```

## Use instead
```python
row = tl.program_id(0).to(tl.int64)
x = tl.load(x_ptr + row * stride + cols, mask=mask)
```
",
};

impl Rule for Int32OffsetOverflow {
    fn doc(&self) -> &'static CodeDoc {
        &DOC
    }

    fn check(&self, cx: &KernelContext<'_>, out: &mut Vec<Finding>) {
        let Some(ir) = cx.ir else { return };
        let f = &ir.func;
        let wide = match cx.settings.max_tensor_elements {
            Some(m) if m <= i32::MAX as u64 => return,
            Some(_) => None,
            None => match wide_offsets(cx, f) {
                w if w.offsets.is_empty() => return,
                w => Some(w),
            },
        };
        let quiet = bounded_names(cx);
        let mut reported = BTreeSet::new();
        for op in f.walk() {
            if !matches!(f.kind(op), OpKind::AddPtr) {
                continue;
            }
            let Some(&offset) = f.op(op).operands().get(1) else {
                continue;
            };
            let Some(mul) = ir.overflow.get(offset).product else {
                continue;
            };
            if mask_bounds_offset(f, op, offset)
                || innermost_stride(cx, ir, mul)
                || compile_time_bounded(f, f.op(mul).results()[0], 12)
                || masked_below_compile_time(f, op, mul)
            {
                continue;
            }
            // By default only the tensors the kernel itself addresses in int64 are checked
            // (per-row statistics, scales and bin counters next to a widened tensor are far
            // smaller), and inside a slice it addresses in int64, a scalar index (a head, a
            // group) times its stride stays inside that slice.
            let widened = match &wide {
                None => None,
                Some(w) => {
                    let ptr = f.op(op).operands()[0];
                    // What the kernel widens on the paths that also run this access: an
                    // int64 offset in the other branch of an `if` (`if not IDX_I64: x +
                    // i * s` / `else: x + i * s.to(tl.int64)`) is the author choosing
                    // int32 for this one.
                    let beside: Vec<&WideOffset> = w
                        .offsets
                        .iter()
                        .filter(|o| !exclusive_branches(f, o.op, op))
                        .collect();
                    let base = crate::analysis::pointer_base_arg(f, ptr);
                    let tensor = base.and_then(|b| beside.iter().find(|o| o.base == Some(b)));
                    // A stride the kernel multiplies in int64 elsewhere is as large here
                    // (`out_ptr + row.to(tl.int64) * stride`, `x_ptr + row * stride`).
                    let factor = f.op(mul).operands().iter().find_map(|&v| {
                        let v = strip_casts(f, v);
                        if ir.overflow.get(v).from_pid {
                            return None;
                        }
                        beside.iter().find(|o| o.factors.contains(&v))
                    });
                    let span = match (tensor, factor) {
                        (Some(o), _) => o.span,
                        (None, Some(o)) => o.span,
                        (None, None) => continue,
                    };
                    let scalar_index = f
                        .op(mul)
                        .operands()
                        .iter()
                        .any(|&v| ir.overflow.get(v).from_pid && !f.value_type(v).is_tensor());
                    if scalar_index && inside_wide_slice(ir, f, ptr) {
                        continue;
                    }
                    Some(span)
                }
            };
            // One int32 index scaled by several strides (`offs_m[:, None] * stride_qm`,
            // `offs_m[:, None] * stride_om`, and the same product written again) is one
            // defect with one fix, widening the index: reported once, where it is first
            // multiplied. The key is the program-id side of the product.
            let operands: Vec<Value> = f
                .op(mul)
                .operands()
                .iter()
                .map(|&v| crate::analysis::strip_shape(f, v))
                .collect();
            let mut key: Vec<Value> = operands
                .iter()
                .copied()
                .filter(|&v| ir.overflow.get(v).from_pid)
                .collect();
            if key.len() != 1 {
                key = operands;
                key.sort();
            }
            if !reported.insert(key) {
                continue;
            }
            let Some(span) = ir.op_span(mul) else {
                continue;
            };
            let text = cx.slice(span);
            if !text.is_empty() {
                if let Some(e) = parse_names(text) {
                    if e.iter().any(|n| quiet.contains(n)) {
                        continue;
                    }
                }
            }
            let mut d = Diagnostic::warning(
                DOC.code,
                "pointer offset multiplies a program id by a stride in int32",
            )
            .with_primary(span, "int32 product");
            if let Some(s) = ir.op_span(op) {
                if s != span {
                    d = d.with_secondary(s, "used as a pointer offset here");
                }
            }
            let note = match (cx.settings.max_tensor_elements, widened) {
                (Some(m), _) => format!(
                    "with tensors of up to {m} elements (`max-tensor-elements`) the product can pass 2^31 - 1 and wrap"
                ),
                (None, Some(w)) => {
                    if w != span && w.file == span.file {
                        d = d.with_secondary(w, "this offset is computed in int64");
                    }
                    "the kernel computes other offsets into this tensor in int64, so it can pass 2^31 elements: this product can wrap".to_string()
                }
                (None, None) => unreachable!("checked above"),
            };
            d = d.with_note(note).with_help(
                "cast to int64 before multiplying: `tl.program_id(0).to(tl.int64) * stride`",
            );
            out.push(Finding::new(d));
        }
    }
}

/// The tensors the kernel addresses in int64, each with where: the kernel arguments whose
/// pointers get an offset computed in int64 on the way to a `tt.addptr` — an integer widened
/// to int64 (`tl.program_id(0).to(tl.int64)`, `offs.to(tl.int64)`) or an int64 scalar
/// parameter (an annotation or the configured signature; lint's placeholders are int32).
/// The span is the widening (or the offset's use).
fn wide_offsets(cx: &KernelContext<'_>, f: &Function) -> Wide {
    let mut out = Wide::default();
    let Some(ir) = cx.ir else { return out };
    for op in f.walk() {
        if !matches!(f.kind(op), OpKind::AddPtr) {
            continue;
        }
        let Some(&offset) = f.op(op).operands().get(1) else {
            continue;
        };
        let Some(span) = int64_offset(ir, f, op, offset) else {
            continue;
        };
        out.offsets.push(WideOffset {
            op,
            base: crate::analysis::pointer_base_arg(f, f.op(op).operands()[0]),
            span,
            factors: args_under(f, offset),
        });
    }
    out
}

/// What the kernel's int64 offsets say: each `tt.addptr` with an offset computed in int64,
/// the tensor it addresses, where, and the run-time arguments (sizes, strides) the offset
/// is computed from.
#[derive(Debug, Default)]
struct Wide {
    offsets: Vec<WideOffset>,
}

#[derive(Debug)]
struct WideOffset {
    op: OpId,
    base: Option<Value>,
    span: tritonc_diagnostics::Span,
    factors: BTreeSet<Value>,
}

/// Whether `a` and `b` lie in different branches of one `if`: no run of the kernel
/// executes both.
fn exclusive_branches(f: &Function, a: OpId, b: OpId) -> bool {
    let (ea, eb) = (enclosing_branches(f, a), enclosing_branches(f, b));
    ea.iter()
        .any(|(x, i)| eb.iter().any(|(y, j)| x == y && i != j))
}

/// The `if` ops enclosing `op`, each with the index of the branch (region) `op` is in.
fn enclosing_branches(f: &Function, op: OpId) -> Vec<(OpId, usize)> {
    let mut out = Vec::new();
    let mut cur = op;
    while let Some(block) = f.op(cur).parent() {
        let region = f.block(block).parent();
        let Some(parent) = f.region(region).parent() else {
            break;
        };
        if matches!(f.kind(parent), OpKind::If) {
            if let Some(i) = f.op(parent).regions().iter().position(|&r| r == region) {
                out.push((parent, i));
            }
        }
        cur = parent;
    }
    out
}

/// `v` with shape ops and integer casts looked through (a stride argument as it is used).
fn strip_casts(f: &Function, v: Value) -> Value {
    let mut v = crate::analysis::strip_shape(f, v);
    while let Some(op) = crate::analysis::def_op(f, v) {
        if !matches!(f.kind(op), OpKind::Cast { .. }) {
            break;
        }
        v = crate::analysis::strip_shape(f, f.op(op).operands()[0]);
    }
    v
}

/// The kernel arguments `v` is computed from (through every op, casts included).
fn args_under(f: &Function, v: Value) -> BTreeSet<Value> {
    let mut out = BTreeSet::new();
    let mut stack = vec![v];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > 256 {
            continue;
        }
        if f.args().contains(&v) {
            out.insert(v);
            continue;
        }
        if let Some(def) = crate::analysis::def_op(f, v) {
            stack.extend(f.op(def).operands().iter().copied());
        }
    }
    out
}

/// Where the offset `offset` of the `tt.addptr` `op` is computed in int64 from an int64
/// parameter or a widened integer, if it is.
fn int64_offset(
    ir: &AnalysedKernel,
    f: &Function,
    op: OpId,
    offset: Value,
) -> Option<tritonc_diagnostics::Span> {
    if f.value_type(offset).dtype() != Some(DType::I64) {
        return None;
    }
    let mut stack = vec![offset];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > 256 {
            continue;
        }
        if f.value_type(v).dtype() != Some(DType::I64) {
            continue;
        }
        if f.args().contains(&v) {
            return ir.op_span(op);
        }
        let Some(def) = crate::analysis::def_op(f, v) else {
            continue;
        };
        if matches!(f.kind(def), OpKind::Cast { .. })
            && f.op(def).operands().first().is_some_and(|&x| {
                f.value_type(x)
                    .dtype()
                    .is_some_and(|d| d.is_int() && d != DType::I64)
            })
        {
            return ir.op_span(def).or_else(|| ir.op_span(op));
        }
        stack.extend(f.op(def).operands().iter().copied());
    }
    None
}

/// Whether the int64 offset `v` is or sums an int64 product (an index times a stride): the
/// start of a slice, not a plain int64 offset parameter.
fn int64_product(f: &Function, v: Value) -> bool {
    let v = crate::analysis::strip_shape(f, v);
    let Some(def) = crate::analysis::def_op(f, v) else {
        return false;
    };
    match f.kind(def) {
        OpKind::Binary(BinaryOp::MulI) => f.value_type(v).dtype() == Some(DType::I64),
        OpKind::Binary(BinaryOp::AddI) => f.op(def).operands().iter().any(|&o| int64_product(f, o)),
        _ => false,
    }
}

/// Whether the pointer `ptr` already carries an int64 product (`x_ptr + i_b.to(tl.int64) *
/// stride_b`, then `+ i_h * stride_h`): the kernel addresses the outer slice in int64 and
/// what is added after it indexes inside that slice.
fn inside_wide_slice(ir: &AnalysedKernel, f: &Function, ptr: Value) -> bool {
    wide_slice_depth(ir, f, ptr, 32)
}

fn wide_slice_depth(ir: &AnalysedKernel, f: &Function, v: Value, depth: u32) -> bool {
    if depth == 0 || f.args().contains(&v) {
        return false;
    }
    let Some(def) = crate::analysis::def_op(f, v) else {
        return false;
    };
    match f.kind(def) {
        OpKind::AddPtr => {
            let ops = f.op(def).operands();
            ops.get(1)
                .is_some_and(|&o| int64_offset(ir, f, def, o).is_some() && int64_product(f, o))
                || wide_slice_depth(ir, f, ops[0], depth - 1)
        }
        OpKind::Splat
        | OpKind::Broadcast
        | OpKind::ExpandDims { .. }
        | OpKind::Reshape { .. }
        | OpKind::Hint(_) => wide_slice_depth(ir, f, f.op(def).operands()[0], depth - 1),
        // A pointer chosen by `if` (`p_h0 = h0 + idx.to(tl.int64) * stride` or `h0 + bos *
        // HV * K * V`): a slice when every branch makes one.
        OpKind::If => {
            let ValueDef::OpResult { index, .. } = f.value_def(v) else {
                return false;
            };
            (0..2).all(|region| {
                f.region_entry(def, region).is_some_and(|b| {
                    crate::analysis::terminator_operands(f, b)
                        .get(index as usize)
                        .is_some_and(|&y| wide_slice_depth(ir, f, y, depth - 1))
                })
            })
        }
        _ => false,
    }
}

/// Whether every access through the pointer `addptr` makes is masked by `offset < n` with
/// the comparison in int32 (`offs = pid * chunk + arange(BLOCK)`, `mask = offs < n`): a lane
/// that touches memory has an offset below an int32 size, so the product of any program
/// the launch covers is below 2^31 too. A comparison in int64 (a size too large for int32)
/// bounds nothing: the product has wrapped before it is widened.
fn mask_bounds_offset(f: &Function, addptr: OpId, offset: Value) -> bool {
    let Some(&ptr) = f.op(addptr).results().first() else {
        return false;
    };
    let uses = f.uses(ptr);
    !uses.is_empty()
        && uses.iter().all(|u| {
            let mask_index = match f.kind(u.op) {
                OpKind::Load { .. } => 1,
                OpKind::Store { .. } | OpKind::AtomicRmw { .. } => 2,
                _ => return false,
            };
            u.operand == 0
                && f.op(u.op)
                    .operands()
                    .get(mask_index)
                    .is_some_and(|&m| int32_compare(f, m) && below_bound(f, m, offset, true, 8))
        })
}

/// Whether every integer comparison in the mask `m` (through `&`) compares int32 values;
/// other conjuncts (`x > 0` on the data) bound no offset and do not matter.
fn int32_compare(f: &Function, m: Value) -> bool {
    let m = crate::analysis::strip_shape(f, m);
    let Some(op) = crate::analysis::def_op(f, m) else {
        return true;
    };
    match f.kind(op) {
        OpKind::CmpI(_) => f
            .op(op)
            .operands()
            .iter()
            .all(|&v| f.value_type(v).dtype() == Some(DType::I32)),
        OpKind::Binary(BinaryOp::AndI) => f.op(op).operands().iter().all(|&c| int32_compare(f, c)),
        _ => true,
    }
}

/// Whether `v` is bounded by compile-time sizes: constants and constexprs, ranges, an
/// index taken modulo a compile-time size (`i_nh % HV`), and sums and products of those
/// (`i_hv * K * V`: a head index times one head's state). Constexprs are block sizes and
/// head dims; their products stay far below 2^31.
fn compile_time_bounded(f: &Function, v: Value, depth: u32) -> bool {
    let v = crate::analysis::strip_shape(f, v);
    if depth == 0 {
        return false;
    }
    if crate::analysis::constant_of(f, v).is_some() || crate::generic::symbolic_name(f, v).is_some()
    {
        return true;
    }
    let Some(op) = crate::analysis::def_op(f, v) else {
        return false;
    };
    let ops = f.op(op).operands();
    match f.kind(op) {
        OpKind::MakeRange { .. } => true,
        OpKind::Binary(BinaryOp::RemSI | BinaryOp::RemUI) => {
            ops.len() == 2 && compile_time_bounded(f, ops[1], depth - 1)
        }
        OpKind::Binary(BinaryOp::MulI | BinaryOp::AddI) | OpKind::Cast { .. } => {
            ops.iter().all(|&o| compile_time_bounded(f, o, depth - 1))
        }
        _ => false,
    }
}

/// Whether the product `mul` stays below a product of compile-time sizes on every lane
/// that touches memory: its other factors are compile-time sizes, and every access through
/// the pointer `addptr` makes is masked by the index compared with a compile-time size
/// (`o_k * V` under `mask = o_k < K`: a head-dim index times the head dim, below `K * V`).
fn masked_below_compile_time(f: &Function, addptr: OpId, mul: OpId) -> bool {
    let ops = f.op(mul).operands();
    if ops.len() != 2 {
        return false;
    }
    let Some(&ptr) = f.op(addptr).results().first() else {
        return false;
    };
    let Some(masks) = access_masks(f, ptr, 8) else {
        return false;
    };

    (0..2).any(|i| {
        compile_time_bounded(f, ops[1 - i], 12)
            && masks.iter().all(|&m| below_compile_time(f, m, ops[i], 8))
    })
}

/// The masks of every access through `ptr` (following further offsets and shape ops), or
/// `None` if some access is unmasked or the pointer escapes otherwise.
fn access_masks(f: &Function, ptr: Value, depth: u32) -> Option<Vec<Value>> {
    if depth == 0 {
        return None;
    }
    let uses = f.uses(ptr);
    if uses.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for u in uses {
        let data = f.op(u.op);
        match f.kind(u.op) {
            OpKind::Load { .. } if u.operand == 0 => out.push(*data.operands().get(1)?),
            OpKind::Store { .. } | OpKind::AtomicRmw { .. } if u.operand == 0 => {
                out.push(*data.operands().get(2)?)
            }
            OpKind::AddPtr
            | OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Hint(_)
                if u.operand == 0 =>
            {
                out.extend(access_masks(f, data.results()[0], depth - 1)?)
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Whether `cond` holding implies `offs` is below a compile-time size (`offs < K`, alone
/// or in a conjunction).
fn below_compile_time(f: &Function, cond: Value, offs: Value, depth: u32) -> bool {
    use tritonc_ir::CmpIPredicate::*;
    let cond = crate::analysis::strip_shape(f, cond);
    let Some(op) = crate::analysis::def_op(f, cond) else {
        return false;
    };
    let ops = f.op(op).operands();
    match f.kind(op) {
        OpKind::Binary(BinaryOp::AndI) if depth > 0 => ops
            .iter()
            .any(|&c| below_compile_time(f, c, offs, depth - 1)),
        OpKind::CmpI(p) if ops.len() == 2 => match p {
            Slt | Sle | Ult | Ule => {
                crate::analysis::same_value(f, ops[0], offs) && compile_time_bounded(f, ops[1], 12)
            }
            Sgt | Sge | Ugt | Uge => {
                crate::analysis::same_value(f, ops[1], offs) && compile_time_bounded(f, ops[0], 12)
            }
            _ => false,
        },
        _ => false,
    }
}

/// The names in an expression's text (identifiers), a cheap tokenizer for the quiet list.
fn parse_names(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        if ch.is_alphanumeric() || ch == '_' {
            cur.push(ch);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Some(out)
}

/// Parameters whose values the kernel bounds or whose specialization the author controls.
fn bounded_names(cx: &KernelContext<'_>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = cx
        .kernel
        .jit
        .do_not_specialize
        .iter()
        .map(|p| p.name.clone())
        .collect();
    for_each_expr(&cx.kernel.def.body, &mut |e| {
        if let ExprKind::Call(call) = &e.kind {
            let name = super::callee_last(call).unwrap_or("");
            let Some(cond) = call.args.first() else {
                return;
            };
            match name {
                // Compile-time values: any name in the assertion is fixed.
                "static_assert" => out.extend(names_in(cond).into_iter().map(str::to_string)),
                // Run-time promises bound only what they bound from above: `x < N` does,
                // `pid >= 0` and `stride > 0` do not.
                "assume" | "device_assert" => out.extend(
                    crate::assume::upper_bounded_names(cond)
                        .into_iter()
                        .map(str::to_string),
                ),
                _ => {}
            }
        }
    });
    out
}

/// Whether the product `mul` is an innermost stride times column offsets
/// (`offs_n[None, :] * stride_xn`): the run-time factor is a parameter named as a stride
/// about whose value nothing is configured, and the offsets it scales come from a range
/// and vary along the block's last dim only. That stride is 1 on contiguous tensors, and
/// Triton specializes an integer argument equal to 1 into the constant 1, so the product
/// the kernel runs is the offsets themselves. A configured signature says which value the
/// stride has: `i32:1` makes it the constant (no product), a plain `i32` keeps the finding.
fn innermost_stride(cx: &KernelContext<'_>, ir: &AnalysedKernel, mul: OpId) -> bool {
    let f = &ir.func;
    if cx.settings.kernel_signatures.contains_key(&cx.kernel.name) {
        return false;
    }
    let operands = f.op(mul).operands();
    let (Some(index), Some(stride)) = (
        operands.iter().find(|&&v| ir.overflow.get(v).from_pid),
        operands.iter().find(|&&v| !ir.overflow.get(v).from_pid),
    ) else {
        return false;
    };
    let Some(name) = runtime_param_name(cx, f, crate::analysis::strip_shape(f, *stride)) else {
        return false;
    };
    if !name.to_ascii_lowercase().contains("stride") {
        return false;
    }
    let stride = crate::analysis::strip_shape(f, *stride);
    along_last_only(ir, *index) && !strides_another_dim(ir, stride)
}

/// Whether the offsets `index` vary along the block's last dim only (`offs_n[None, :]`).
fn along_last_only(ir: &AnalysedKernel, index: Value) -> bool {
    let f = &ir.func;
    if symbolic_range_along_last(f, index) {
        return true;
    }
    let dims = &ir.shape.get(index).dims;
    let Some(last) = dims.len().checked_sub(1) else {
        return false;
    };
    dims.iter().enumerate().all(|(i, d)| {
        if i == last {
            d.varies && !d.roots.is_empty()
        } else {
            !d.varies
        }
    })
}

/// Whether the kernel also multiplies `stride` by offsets that vary along another dim
/// than a block's last (`offs_m[:, None] * stride_tok` beside `offs_m[None, :] *
/// stride_tok`, a transposed load): then it is a row stride, not the innermost one.
fn strides_another_dim(ir: &AnalysedKernel, stride: Value) -> bool {
    let f = &ir.func;
    f.walk().into_iter().any(|op| {
        let ops = f.op(op).operands();
        matches!(f.kind(op), OpKind::Binary(BinaryOp::MulI))
            && ops.len() == 2
            && (0..2).any(|i| {
                crate::analysis::strip_shape(f, ops[i]) == stride
                    && f.value_type(ops[1 - i]).rank() >= 2
                    && !along_last_only(ir, ops[1 - i])
                    && (ir.shape.get(ops[1 - i]).dims.iter().any(|d| d.varies)
                        || symbolic_range_off_last(f, ops[1 - i]))
            })
    })
}

/// Whether `index` is offsets made from a symbolic range along a dim other than the last
/// (`o_t[:, None]` with `tl.arange(0, BT)` symbolic).
fn symbolic_range_off_last(f: &Function, index: Value) -> bool {
    let mut v = index;
    if let Some(op) = crate::analysis::def_op(f, v) {
        if matches!(f.kind(op), OpKind::Broadcast) {
            v = f.op(op).operands()[0];
        }
    }
    match crate::analysis::def_op(f, v) {
        Some(op)
            if f.value_type(v).rank() == 2
                && matches!(f.kind(op), OpKind::ExpandDims { axis: 1 }) =>
        {
            symbolic_range_along_last(f, f.op(op).operands()[0])
        }
        _ => false,
    }
}

/// Whether `index` is offsets along a block's last dim made from a range generic lowering
/// keeps symbolic (`tl.arange(0, BD)` with `BD` unknown): a 1-D value computed from it, or
/// one with a leading dim inserted (`o_d[None, :]`).
fn symbolic_range_along_last(f: &Function, index: Value) -> bool {
    let mut v = index;
    if let Some(op) = crate::analysis::def_op(f, v) {
        if matches!(f.kind(op), OpKind::Broadcast) {
            v = f.op(op).operands()[0];
        }
    }
    match f.value_type(v).rank() {
        1 => {}
        2 => match crate::analysis::def_op(f, v) {
            Some(op) if matches!(f.kind(op), OpKind::ExpandDims { axis: 0 }) => {
                v = f.op(op).operands()[0]
            }
            _ => return false,
        },
        _ => return false,
    }
    let mut stack = vec![v];
    let mut seen = BTreeSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) || seen.len() > 64 {
            continue;
        }
        let Some(op) = crate::analysis::def_op(f, v) else {
            continue;
        };
        match f.kind(op) {
            OpKind::ExternElementwise { symbol, .. }
                if crate::generic::is_symbolic_constexpr(f, v)
                    && symbol.starts_with("arange(")
                    && f.value_type(v).rank() == 1 =>
            {
                return true
            }
            OpKind::Binary(BinaryOp::AddI | BinaryOp::SubI | BinaryOp::MulI)
            | OpKind::Cast { .. } => stack.extend(f.op(op).operands()),
            _ => {}
        }
    }
    false
}

/// The name of the run-time parameter `v` is, if it is one.
fn runtime_param_name<'a>(cx: &'a KernelContext<'_>, f: &Function, v: Value) -> Option<&'a str> {
    let i = f.args().iter().position(|&a| a == v)?;
    cx.spec
        .spec
        .params
        .iter()
        .filter(|(_, s)| s.is_runtime())
        .nth(i)
        .map(|(n, _)| n.as_str())
}
