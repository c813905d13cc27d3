//! Element offsets into a staged tensor-core operand (a shared buffer of the K loop's
//! pipeline, or the scratch a dot stages registers in), for the `cp.async` copies and
//! stores that fill it and the `ldmatrix`/word loads that read it.
//!
//! An access is split into a per-thread part (the lane and warp coordinates of a
//! layout, known at run time) and a constant part (the register's or the unrolled
//! step's coordinates). In a padded layout the offset is linear: the thread part is
//! computed once and each access adds its constant. In a swizzled layout
//! (`#ttg.swizzled_shared`) the chunk of `vec` elements a coordinate falls in is XORed
//! with its row's phase `(row / per_phase) % max_phase`, which is not linear. But only
//! the low part of the constant interacts with the swizzle: a constant row that is a
//! multiple of `per_phase · max_phase` keeps the phase, and a constant column that is a
//! multiple of `vec · max_phase` moves whole swizzle periods; so the thread part is
//! computed once per distinct *low* constant (`row mod per_phase·max_phase`, `column mod
//! vec·max_phase`) — a handful per operand, loop-invariant, which LLVM hoists out of the
//! K loop — and the high constant is added as an immediate.

use std::collections::HashMap;

use melior::ir::Value;
use tritonc_ir::layout::LinearLayout;

use super::function::FunctionLowering;
use super::mma::Staged;
use super::LowerError;

/// The per-thread part of the accesses of one layout to one staged operand.
pub(crate) struct StagedAccess<'c, 'a> {
    /// Padded: the thread's linear element offset (`None`: 0).
    linear: Option<Value<'c, 'a>>,
    /// Swizzled: the thread's row and column (`None`: 0).
    rows: Option<Value<'c, 'a>>,
    cols: Option<Value<'c, 'a>>,
    /// Swizzled: the thread's offset per low constant (row, column).
    by_low: HashMap<(u64, u64), Value<'c, 'a>>,
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// The per-thread part of `lanes`' accesses to `staged` (`lanes` gives each thread's
    /// coordinates in the operand's logical dims; its registers are ignored).
    pub(super) fn staged_access(
        &mut self,
        staged: &Staged,
        lanes: &LinearLayout,
    ) -> Result<StagedAccess<'c, 'a>, LowerError> {
        if staged.swizzle.is_none() {
            return Ok(StagedAccess {
                linear: self.thread_strided_index(lanes, &staged.strides)?,
                rows: None,
                cols: None,
                by_low: HashMap::new(),
            });
        }
        let fast = staged.fast;
        let mut unit = [0u64; 2];
        unit[1 - fast] = 1;
        let rows = self.thread_strided_index(lanes, &unit)?;
        let mut unit = [0u64; 2];
        unit[fast] = 1;
        let cols = self.thread_strided_index(lanes, &unit)?;
        Ok(StagedAccess {
            linear: None,
            rows,
            cols,
            by_low: HashMap::new(),
        })
    }

    /// The element offset of the access at constant logical coordinates `konst` plus
    /// the thread's: a constant part and a per-thread part (`None`: 0).
    pub(super) fn staged_offset(
        &mut self,
        staged: &Staged,
        access: &mut StagedAccess<'c, 'a>,
        konst: [u64; 2],
    ) -> Result<(u64, Option<Value<'c, 'a>>), LowerError> {
        let Some(sw) = staged.swizzle else {
            return Ok((konst[0] * staged.strides[0] + konst[1] * staged.strides[1], access.linear));
        };
        let (fast, slow) = (staged.fast, 1 - staged.fast);
        let pitch = staged.strides[slow];
        let row_period = sw.per_phase * sw.max_phase;
        let col_period = sw.vec * sw.max_phase;
        let low = (konst[slow] % row_period, konst[fast] % col_period);
        let high = (konst[slow] - low.0) * pitch + (konst[fast] - low.1);
        if let Some(&v) = access.by_low.get(&low) {
            return Ok((high, Some(v)));
        }
        let b = self.b;
        let plus = |this: &Self, v: Option<Value<'c, 'a>>, k: u64| -> Result<Value<'c, 'a>, LowerError> {
            let k = this.i32c(k as i32)?;
            match v {
                None => Ok(k),
                Some(v) => this.mlir(b.binary("arith.addi", v, k)),
            }
        };
        let row = plus(self, access.rows, low.0)?;
        let col = plus(self, access.cols, low.1)?;
        let shift = |this: &Self, v: Value<'c, 'a>, by: u64| -> Result<Value<'c, 'a>, LowerError> {
            if by == 0 {
                return Ok(v);
            }
            let s = this.i32c(by as i32)?;
            this.mlir(b.binary("arith.shrui", v, s))
        };
        let log2 = |x: u64| u64::from(x.trailing_zeros());
        // phase = (row / per_phase) % max_phase; chunk = (col / vec) ^ phase.
        let phase = shift(self, row, log2(sw.per_phase))?;
        let mask = self.i32c(sw.max_phase as i32 - 1)?;
        let phase = self.mlir(b.binary("arith.andi", phase, mask))?;
        let chunk = shift(self, col, log2(sw.vec))?;
        let chunk = self.mlir(b.binary("arith.xori", chunk, phase))?;
        let vec_shift = self.i32c(log2(sw.vec) as i32)?;
        let chunk_start = self.mlir(b.binary("arith.shli", chunk, vec_shift))?;
        let in_chunk_mask = self.i32c(sw.vec as i32 - 1)?;
        let in_chunk = self.mlir(b.binary("arith.andi", col, in_chunk_mask))?;
        let pitch_c = self.i32c(pitch as i32)?;
        let row_start = self.mlir(b.binary("arith.muli", row, pitch_c))?;
        let v = self.mlir(b.binary("arith.addi", row_start, chunk_start))?;
        let v = self.mlir(b.binary("arith.addi", v, in_chunk))?;
        access.by_low.insert(low, v);
        Ok((high, Some(v)))
    }
}
