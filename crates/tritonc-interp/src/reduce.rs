//! `tt.reduce` and `tt.scan`: combiner regions evaluated along an explicit order.
//!
//! The operand is first laid out axis-major (`[len][rows]`, rows = every other index), so
//! one combine step works on a whole row of independent reductions at once. A combiner
//! that is a single binary op takes a typed fast path; any other combiner region is
//! interpreted once per step over row vectors.

use std::rc::Rc;

use half::{bf16, f16};
use tritonc_ir::{BinaryOp, BlockId, Function, OpId, OpKind};

use crate::data::{Data, Val};
use crate::elementwise::{self as ew, max_num, maximum, min_num, minimum, Int};
use crate::error::{RtResult, RuntimeError};
use crate::exec::Program;
use crate::order::fold_in_place;
use crate::scan_order::ScanOrder;
use crate::shape::{axis_major, from_axis_major, row};

/// The binary op of a combiner region that is exactly `return a op b`.
pub fn simple_combiner(func: &Function, block: BlockId) -> Option<BinaryOp> {
    let b = func.block(block);
    let [lhs, rhs] = b.args() else { return None };
    let [op, ret] = b.ops() else { return None };
    let OpKind::Binary(bop) = func.kind(*op) else {
        return None;
    };
    let operands = func.op(*op).operands();
    let result = func.op(*op).results()[0];
    let commutes = bop.is_commutative() && operands == [*rhs, *lhs];
    let in_order = operands == [*lhs, *rhs];
    (matches!(func.kind(*ret), OpKind::ReduceReturn | OpKind::ScanReturn)
        && func.op(*ret).operands() == [result]
        && (in_order || commutes))
        .then_some(*bop)
}

fn float_fn<T: ew::Flt>(op: BinaryOp) -> Option<fn(T, T) -> T> {
    Some(match op {
        BinaryOp::AddF => |a, b| T::arith(BinaryOp::AddF, a, b),
        BinaryOp::MulF => |a, b| T::arith(BinaryOp::MulF, a, b),
        BinaryOp::MaxNumF => max_num,
        BinaryOp::MinNumF => min_num,
        BinaryOp::MaximumF => maximum,
        BinaryOp::MinimumF => minimum,
        _ => return None,
    })
}

fn int_fn<T: Int>(op: BinaryOp) -> Option<fn(T, T) -> T> {
    Some(match op {
        BinaryOp::AddI => T::wadd,
        BinaryOp::MulI => T::wmul,
        BinaryOp::MaxSI => |a, b| if a.to_i64() >= b.to_i64() { a } else { b },
        BinaryOp::MinSI => |a, b| if a.to_i64() <= b.to_i64() { a } else { b },
        BinaryOp::MaxUI => |a, b| if a.to_u64() >= b.to_u64() { a } else { b },
        BinaryOp::MinUI => |a, b| if a.to_u64() <= b.to_u64() { a } else { b },
        BinaryOp::AndI => |a, b| T::from_i64(a.to_i64() & b.to_i64()),
        BinaryOp::OrI => |a, b| T::from_i64(a.to_i64() | b.to_i64()),
        BinaryOp::XOrI => |a, b| T::from_i64(a.to_i64() ^ b.to_i64()),
        _ => return None,
    })
}

/// Applies `step(acc, rows_of)` with a typed combine function for `op`, or `None` when
/// the storage/op pair has no fast path. 16-bit floats round after every combine.
macro_rules! typed_combine {
    ($data:expr, $op:expr, |$v:ident, $f:ident| $body:expr) => {{
        match $data {
            Data::F32($v) => float_fn::<f32>($op).map(|$f| {
                $body;
            }),
            Data::F64($v) => float_fn::<f64>($op).map(|$f| {
                $body;
            }),
            Data::I32($v) => int_fn::<i32>($op).map(|$f| {
                $body;
            }),
            Data::I64($v) => int_fn::<i64>($op).map(|$f| {
                $body;
            }),
            Data::I8($v) => int_fn::<i8>($op).map(|$f| {
                $body;
            }),
            Data::I16($v) => int_fn::<i16>($op).map(|$f| {
                $body;
            }),
            Data::F16($v) => float_fn::<f32>($op).map(|g| {
                let $f = move |a: f16, b: f16| f16::from_f32(g(a.to_f32(), b.to_f32()));
                $body;
            }),
            Data::BF16($v) => float_fn::<f32>($op).map(|g| {
                let $f = move |a: bf16, b: bf16| bf16::from_f32(g(a.to_f32(), b.to_f32()));
                $body;
            }),
            _ => None,
        }
    }};
}

impl Program<'_> {
    /// Evaluates a `tt.reduce` of `ops` along `axis`.
    pub(crate) fn reduce(&mut self, op: OpId, axis: usize, ops: &[Rc<Val>]) -> RtResult<Vec<Val>> {
        let func = self.func;
        let in_shape = ops[0].shape.clone();
        let mut out_shape = in_shape.clone();
        out_shape.remove(axis);
        let seq;
        let order = match self.orders.reduce.get(&op) {
            Some(o) => o,
            None => {
                seq = crate::order::ReductionOrder::sequential(in_shape[axis]);
                &seq
            }
        };
        if order.len != in_shape[axis] {
            return Err(RuntimeError::unsupported(
                "a reduction order whose length differs from the axis",
            ));
        }
        let block = func
            .region_entry(op, 0)
            .expect("tt.reduce has a combiner region");
        if ops.len() == 1 {
            if let Some(bop) = simple_combiner(func, block) {
                let (mut data, outer, _, inner) = axis_major(&ops[0], axis);
                let rows = outer * inner;
                let done = typed_combine!(&mut data, bop, |v, f| fold_in_place(v, rows, order, f));
                if done.is_some() {
                    let first = row(&data, order.root as usize, rows);
                    return Ok(vec![Val::new(out_shape, first)]);
                }
            }
        }
        // General combiner: one region evaluation per step, over rows.
        let mut slots = self.slots(ops, axis);
        for &(d, s) in &order.steps {
            let mut args: Vec<Rc<Val>> = slots[d as usize].clone();
            args.extend(slots[s as usize].iter().cloned());
            let res = self.exec_block(block, &args)?;
            slots[d as usize] = res;
        }
        Ok(slots
            .swap_remove(order.root as usize)
            .into_iter()
            .map(|v| Val::new(out_shape.clone(), v.data.clone()))
            .collect())
    }

    /// Per position along `axis`, each operand's row vector.
    fn slots(&self, ops: &[Rc<Val>], axis: usize) -> Vec<Vec<Rc<Val>>> {
        let n = ops[0].shape[axis];
        let mut slots: Vec<Vec<Rc<Val>>> = vec![Vec::with_capacity(ops.len()); n];
        for o in ops {
            let (data, outer, _, inner) = axis_major(o, axis);
            let rows = outer * inner;
            for (k, slot) in slots.iter_mut().enumerate() {
                slot.push(Rc::new(Val::new(vec![rows], row(&data, k, rows))));
            }
        }
        slots
    }

    /// Evaluates an inclusive `tt.scan` of `ops` along `axis` in the launch's
    /// [`ScanOrder`] for the op (element order, from the end when `reverse`, if none).
    pub(crate) fn scan(
        &mut self,
        op: OpId,
        axis: usize,
        reverse: bool,
        ops: &[Rc<Val>],
    ) -> RtResult<Vec<Val>> {
        let func = self.func;
        let shape = ops[0].shape.clone();
        let n = shape[axis];
        let block = func
            .region_entry(op, 0)
            .expect("tt.scan has a combiner region");
        let seq;
        let order = match self.orders.scan.get(&op) {
            Some(o) if o.len == n && o.reverse == reverse => o,
            _ => {
                seq = ScanOrder::sequential(n, reverse);
                &seq
            }
        };
        if ops.len() == 1 {
            if let Some(bop) = simple_combiner(func, block) {
                let (mut data, outer, _, inner) = axis_major(&ops[0], axis);
                let rows = outer * inner;
                let done = typed_combine!(&mut data, bop, |v, f| {
                    // Each step appends one row of slots; results gather afterwards.
                    v.reserve(order.steps.len() * rows);
                    for &(a, b) in &order.steps {
                        let (a, b) = (a as usize * rows, b as usize * rows);
                        for r in 0..rows {
                            let x = f(v[a + r], v[b + r]);
                            v.push(x);
                        }
                    }
                    let mut out = Vec::with_capacity(n * rows);
                    for &slot in &order.results {
                        let s = slot as usize * rows;
                        out.extend_from_slice(&v[s..s + rows]);
                    }
                    *v = out;
                });
                if done.is_some() {
                    return Ok(vec![Val::new(
                        shape,
                        from_axis_major(&data, outer, n, inner),
                    )]);
                }
            }
        }
        let mut slots = self.slots(ops, axis);
        for &(a, b) in &order.steps {
            let mut args: Vec<Rc<Val>> = slots[a as usize].clone();
            args.extend(slots[b as usize].iter().cloned());
            let res = self.exec_block(block, &args)?;
            slots.push(res);
        }
        // Reassemble each operand from its per-position rows.
        let (outer, inner) = (
            shape[..axis].iter().product::<usize>(),
            shape[axis + 1..].iter().product::<usize>(),
        );
        let mut outs = Vec::with_capacity(ops.len());
        for (i, _) in ops.iter().enumerate() {
            let mut parts = order.results.iter().map(|&r| &slots[r as usize][i].data);
            let mut cat = parts
                .next()
                .cloned()
                .ok_or_else(|| RuntimeError::unsupported("a scan over an empty axis"))?;
            for part in parts {
                cat = cat.concat(part).ok_or_else(|| {
                    RuntimeError::unsupported("a scan combiner that changes types")
                })?;
            }
            outs.push(Val::new(
                shape.clone(),
                from_axis_major(&cat, outer, n, inner),
            ));
        }
        Ok(outs)
    }
}
