//! The GPU IR's encoding rules, checked after every GPU pass (as the tile-IR verifier
//! checks types): a pass that breaks them is a bug in tritonc, caught where it happens.
//!
//! - every block value of the kernel's code has an encoding that applies to its shape;
//! - an elementwise op's block operands are in its result's layout (a load's and a
//!   store's in the pointer's: the access layout);
//! - a broadcast's operand is in its result's layout, an `expand_dims` operand in the
//!   slice of it, a reduction's result in the slice of its input's layout, a dot's
//!   accumulator in the dot's layout;
//! - a value flowing into a loop-carried or `scf.if` slot is in that slot's layout.
//!
//! Every other layout change must be a `ttg.convert_layout`.

use tritonc_ir::layout::Layout;
use tritonc_ir::{Function, OpId, OpKind, Value};

use crate::assign::{is_elementwise, known_shape, same_on};
use crate::control::{carried_target, code_ops, has_code_regions};
use crate::TtgirError;

fn fail(func: &Function, op: OpId, message: String) -> TtgirError {
    TtgirError {
        message: format!("invalid GPU IR at `{}`: {message}", func.kind(op).name()),
        span: func.op(op).loc.known_span(),
    }
}

/// Checks the encoding rules of a GPU-IR function.
pub fn verify_encodings(func: &Function) -> Result<(), TtgirError> {
    for op in code_ops(func) {
        let data = func.op(op);
        let mut values: Vec<Value> = data
            .operands()
            .iter()
            .chain(data.results())
            .copied()
            .collect();
        if has_code_regions(func.kind(op)) {
            for &r in data.regions() {
                for &b in func.region(r).blocks() {
                    values.extend(func.block(b).args());
                }
            }
        }
        for v in values {
            let ty = func.value_type(v);
            if !ty.is_tensor() {
                continue;
            }
            let (Some(l), Some(shape)) = (ty.encoding(), known_shape(ty)) else {
                return Err(fail(func, op, format!("block `{ty}` has no encoding")));
            };
            l.to_linear(&shape)
                .map_err(|e| fail(func, op, format!("`{ty}`: {e}")))?;
        }
        check_op(func, op)?;
    }
    Ok(())
}

fn layout_of(func: &Function, v: Value) -> Option<&Layout> {
    func.value_type(v).encoding()
}

fn check_op(func: &Function, op: OpId) -> Result<(), TtgirError> {
    let data = func.op(op);
    let kind = func.kind(op);
    let expect = |i: usize, want: Option<Layout>, why: &str| -> Result<(), TtgirError> {
        let v = data.operands()[i];
        let (Some(want), Some(have), Some(shape)) =
            (want, layout_of(func, v), known_shape(func.value_type(v)))
        else {
            return Ok(());
        };
        if same_on(have, &want, &shape) {
            Ok(())
        } else {
            Err(fail(
                func,
                op,
                format!("operand {i} is in {have} but {why} needs {want}"),
            ))
        }
    };
    let result_layout = data
        .results()
        .first()
        .and_then(|&r| layout_of(func, r))
        .cloned();
    for i in 0..data.operands().len() {
        if let Some(target) = carried_target(func, op, i) {
            expect(i, layout_of(func, target).cloned(), "the carried slot")?;
            continue;
        }
        match kind {
            OpKind::Load { .. } | OpKind::Store { .. } => {
                let access = layout_of(func, data.operands()[0]).cloned();
                expect(i, access, "the access")?;
            }
            OpKind::Broadcast => expect(i, result_layout.clone(), "the broadcast")?,
            OpKind::ExpandDims { axis } => expect(
                i,
                result_layout.as_ref().map(|l| l.slice(*axis)),
                "expand_dims",
            )?,
            OpKind::Dot { .. } if i == 2 => expect(i, result_layout.clone(), "the dot")?,
            OpKind::Reduce { .. } => {
                let first = layout_of(func, data.operands()[0]).cloned();
                expect(i, first, "the reduction")?;
            }
            k if is_elementwise(k) => expect(i, result_layout.clone(), "an elementwise op")?,
            _ => {}
        }
    }
    if let OpKind::Reduce { axis } = kind {
        let input = layout_of(func, data.operands()[0]);
        for &r in data.results() {
            let (Some(have), Some(input), Some(shape)) =
                (layout_of(func, r), input, known_shape(func.value_type(r)))
            else {
                continue;
            };
            if !same_on(have, &input.slice(*axis), &shape) {
                return Err(fail(
                    func,
                    op,
                    format!("a reduction result in {have} is not the slice of its input's {input}"),
                ));
            }
        }
    }
    Ok(())
}
