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
//!
//! Fewer still where a low constant shares no bit with the coordinates a thread can
//! have (each thread coordinate is an OR of its lane and warp bits): then row and column
//! are the bitwise unions of the thread's and the constant's parts, the chunk is the
//! thread's XOR pattern XORed with the constant's, and of that constant pattern only the
//! bits the thread's pattern can also have need a base of their own; the others, and
//! the constant's row and in-chunk offsets, are added as an immediate. (The byte
//! gathers of an 8-bit B operand in Triton's swizzle then need 8 bases instead of 32,
//! as in Triton's code.)

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
    /// Swizzled: the bits the thread's row and column can have.
    row_bits: u64,
    col_bits: u64,
    /// Swizzled, constants sharing no bit with the thread's coordinates: per constant
    /// XOR pattern the thread's can also have, the offsets computed so far, each with
    /// the immediate part of the constant it was computed for.
    by_pattern: HashMap<u64, Vec<(u64, Value<'c, 'a>)>>,
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
                row_bits: 0,
                col_bits: 0,
                by_pattern: HashMap::new(),
            });
        }
        let fast = staged.fast;
        let mut unit = [0u64; 2];
        unit[1 - fast] = 1;
        let rows = self.thread_strided_index(lanes, &unit)?;
        let mut unit = [0u64; 2];
        unit[fast] = 1;
        let cols = self.thread_strided_index(lanes, &unit)?;
        // Each basis moves one bit of one coordinate (`thread_offsets` ORs them).
        let bits = |dim: usize| -> u64 {
            lanes.lanes.iter().chain(&lanes.warps).fold(0, |acc, b| acc | b[dim])
        };
        Ok(StagedAccess {
            linear: None,
            rows,
            cols,
            by_low: HashMap::new(),
            row_bits: bits(1 - fast),
            col_bits: bits(fast),
            by_pattern: HashMap::new(),
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
        let mut high = (konst[slow] - low.0) * pitch + (konst[fast] - low.1);
        // `#ttg.nvmma_shared`: a column block is `col_period` elements wide, so the high
        // column moves whole blocks.
        if let Some((w, stride)) = staged.block {
            high += (konst[fast] - low.1) / w * (stride - w);
        }
        let log2 = |x: u64| u64::from(x.trailing_zeros());
        // The constant's part of the chunk's XOR pattern, when it combines bitwise with
        // the thread's, split into the bits the thread's pattern can have and the rest.
        let disjoint = low.0 & access.row_bits == 0 && low.1 & access.col_bits == 0;
        let pattern = |row: u64, col: u64| (col >> log2(sw.vec)) ^ ((row >> log2(sw.per_phase)) % sw.max_phase);
        let thread_pattern_bits = (access.col_bits >> log2(sw.vec))
            | ((access.row_bits >> log2(sw.per_phase)) & (sw.max_phase - 1));
        let x_c = pattern(low.0, low.1);
        let key = x_c & thread_pattern_bits;
        let imm = low.0 * pitch + ((x_c & !thread_pattern_bits) << log2(sw.vec)) + (low.1 & (sw.vec - 1));
        if disjoint {
            if let Some(&(imm0, v)) = access
                .by_pattern
                .get(&key)
                .and_then(|found| found.iter().find(|(imm0, _)| *imm0 <= imm))
            {
                return Ok((high + imm - imm0, Some(v)));
            }
        } else if let Some(&v) = access.by_low.get(&low) {
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
        let mut v = self.mlir(b.binary("arith.addi", v, in_chunk))?;
        if let Some((w, stride)) = staged.block {
            // The thread's column may reach other blocks: `(col / w) · (stride − w)` more
            // (`col · 1` is already in `chunk_start + in_chunk`).
            if access.col_bits + low.1 >= w {
                let blk = shift(self, col, log2(w))?;
                let extra = self.i32c((stride - w) as i32)?;
                let extra = self.mlir(b.binary("arith.muli", blk, extra))?;
                v = self.mlir(b.binary("arith.addi", v, extra))?;
            }
        }
        if disjoint {
            access.by_pattern.entry(key).or_default().push((imm, v));
        } else {
            access.by_low.insert(low, v);
        }
        Ok((high, Some(v)))
    }
}
