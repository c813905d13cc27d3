//! The `tritonc-allocate-shared` pass: a byte offset in the kernel's shared memory for
//! every `ttg.local_alloc` (Triton's `allocate-shared-memory`), written into the op
//! (`{offset = N : i32}`).
//!
//! A buffer is live from its `ttg.local_alloc` to the last op that uses it (through
//! `ttg.memdesc_index` views too) — normally its `ttg.local_dealloc` —, measured in the
//! block of the allocation (a use inside a loop keeps the buffer live for the whole
//! loop). Buffers are placed in the order they are allocated, each at the lowest offset
//! (a multiple of [`tritonc_ir::MemDescType::alignment`]: 128 bytes, 1024 for a `wgmma` operand) where it overlaps no buffer live at the
//! same time: two loops one after the other reuse the same bytes.
//!
//! The scratch that conversions, reductions and non-pipelined dots use is not an
//! allocation here: the back end places it after the buffers while any buffer is live,
//! and from offset 0 elsewhere.

use std::collections::HashMap;

use tritonc_ir::{Function, OpId, OpKind, Value};

use crate::pipeline::{GpuOptions, GpuPass};
use crate::TtgirError;

/// Places the shared buffers of a function.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllocateShared;

/// One buffer's live range (pre-order op indices, inclusive) and size.
struct Live {
    alloc: OpId,
    start: usize,
    end: usize,
    bytes: u64,
    align: u64,
}

impl GpuPass for AllocateShared {
    fn name(&self) -> &'static str {
        "tritonc-allocate-shared"
    }

    fn run(&self, func: &mut Function, _options: &GpuOptions) -> Result<(), TtgirError> {
        let walk = func.walk();
        let order: HashMap<OpId, usize> = walk.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        let mut lives = Vec::new();
        for &op in &walk {
            if !matches!(func.kind(op), OpKind::LocalAlloc { .. }) {
                continue;
            }
            let result = func.op(op).results()[0];
            let Some(memdesc) = func.value_type(result).memdesc() else {
                continue;
            };
            let bytes = memdesc.bytes().ok_or_else(|| TtgirError {
                message: format!("a shared buffer of `{}` has no size", memdesc.elem),
                span: func.op(op).loc.known_span(),
            })?;
            let end = last_use(func, op, result, &order);
            lives.push(Live {
                alloc: op,
                start: order[&op],
                end,
                bytes,
                align: memdesc.alignment(),
            });
        }
        let mut placed: Vec<(usize, usize, u64, u64)> = Vec::new();
        for live in &lives {
            let mut offset = 0u64;
            // The lowest aligned offset clear of every buffer live at the same time.
            loop {
                let clash = placed.iter().find(|&&(s, e, o, n)| {
                    s <= live.end && live.start <= e && offset < o + n && o < offset + live.bytes
                });
                match clash {
                    Some(&(_, _, o, n)) => offset = (o + n).next_multiple_of(live.align),
                    None => break,
                }
            }
            let offset32 = u32::try_from(offset).map_err(|_| TtgirError {
                message: "shared buffers over 4 GiB".into(),
                span: func.op(live.alloc).loc.known_span(),
            })?;
            *func.kind_mut(live.alloc) = OpKind::LocalAlloc {
                offset: Some(offset32),
            };
            placed.push((live.start, live.end, offset, live.bytes));
        }
        Ok(())
    }
}

/// The pre-order index of the last op of `alloc`'s block that uses `buffer` or one of
/// its views (or contains such a use), through that op's nested ops.
fn last_use(f: &Function, alloc: OpId, buffer: Value, order: &HashMap<OpId, usize>) -> usize {
    let block = f.op(alloc).parent();
    let mut end = order[&alloc];
    let mut work = vec![buffer];
    while let Some(v) = work.pop() {
        for u in f.uses(v) {
            if matches!(f.kind(u.op), OpKind::MemDescIndex) {
                work.extend(f.op(u.op).results().iter().copied());
            }
            // The op of the allocation's block that holds the use.
            let mut holder = u.op;
            while f.op(holder).parent() != block {
                match f.parent_op(holder) {
                    Some(p) => holder = p,
                    None => break,
                }
            }
            let extent = order[&holder] + f.walk_nested(holder).len();
            end = end.max(extent);
        }
    }
    end
}
