//! Shared scratch: the one shared-memory array every conversion, reduction, scan and
//! dot stages data in, and moving blocks through it (write every register at its slot,
//! barrier, read the registers of another layout).

use melior::ir::{r#type::IntegerType, Type, Value};
use tritonc_ttgir::LinearLayout;

use super::function::FunctionLowering;
use super::{LowerError, SHARED_SCRATCH};
use crate::body::SHARED_ADDRESS_SPACE;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Row-major linear index of this thread's part of `linear`'s coordinates.
    pub(super) fn thread_linear_index(
        &mut self,
        linear: &LinearLayout,
        skip_dim: Option<usize>,
    ) -> Result<Option<Value<'c, 'a>>, LowerError> {
        let offsets = self.thread_offsets(linear)?;
        let strides = row_major_strides(&linear.shape, skip_dim);
        let mut acc: Option<Value<'c, 'a>> = None;
        for (d, off) in offsets.into_iter().enumerate() {
            let (Some(off), Some(stride)) = (off, strides[d]) else {
                continue;
            };
            let scaled = if stride == 1 {
                off
            } else {
                let s = self.i32c(stride as i32)?;
                self.mlir(self.b.binary("arith.muli", off, s))?
            };
            acc = Some(match acc {
                None => scaled,
                Some(a) => self.mlir(self.b.binary("arith.addi", a, scaled))?,
            });
        }
        Ok(acc)
    }

    /// A pointer to element `index` (`const_part + dynamic`) of the shared scratch seen as
    /// an array of `elem`, after `byte_offset` bytes.
    pub(super) fn shared_slot(
        &self,
        elem: Type<'c>,
        byte_offset: u32,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        self.shared_slot_at(elem, self.scratch_base + byte_offset, const_part, dynamic)
    }

    /// A pointer into the pipeline buffers at the start of shared memory
    /// (`pipeline.rs`): element `const_part + dynamic` after `byte_offset` bytes.
    pub(super) fn pipe_slot(
        &self,
        elem: Type<'c>,
        byte_offset: u32,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        self.shared_slot_at(elem, byte_offset, const_part, dynamic)
    }

    fn shared_slot_at(
        &self,
        elem: Type<'c>,
        byte_offset: u32,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let base = self.mlir(b.address_of(SHARED_SCRATCH, SHARED_ADDRESS_SPACE))?;
        let base = if byte_offset == 0 {
            base
        } else {
            let i8t: Type = IntegerType::new(b.context(), 8).into();
            let off = self.i32c(byte_offset as i32)?;
            self.mlir(b.element_ptr(base, off, i8t))?
        };
        let c = self.i32c(const_part as i32)?;
        let index = match dynamic {
            None => c,
            Some(d) if const_part == 0 => d,
            Some(d) => self.mlir(b.binary("arith.addi", d, c))?,
        };
        self.mlir(b.element_ptr(base, index, elem))
    }

    /// Takes `bytes` of shared scratch for the current op. Barriers against other ops'
    /// accesses are in the GPU IR already (`tritonc-place-barriers`, from the same
    /// [`tritonc_ttgir::scratch::scratch_ops`]): an op it does not list is refused, and a
    /// second claim by one op waits for the readers of its first.
    pub(super) fn claim_shared(&mut self, bytes: u64) -> Result<(), LowerError> {
        let bytes = u32::try_from(bytes).map_err(|_| self.error("shared scratch over 4 GiB"))?;
        let op = self
            .current_op
            .filter(|op| self.scratch_ops.contains(op))
            .ok_or_else(|| {
                self.error("internal: an op uses shared scratch the barrier placement did not expect")
            })?;
        self.shared_bytes = self
            .shared_bytes
            .max(self.scratch_base + bytes.next_multiple_of(16));
        if self.deferred_barrier == Some(op) {
            // The GPU IR's barrier before this op, where the op first writes scratch.
            self.deferred_barrier = None;
            self.mlir(self.b.barrier())?;
        } else if self.scratch_owner == Some(op) {
            self.mlir(self.b.barrier())?;
        }
        self.scratch_owner = Some(op);
        Ok(())
    }

    /// Moves `regs` (held in `source`) to the registers of `target` through shared memory.
    ///
    /// The scratch is row-major; with `pad_rows` (a 2-D block leaving a tensor-core
    /// accumulator layout) each row is followed by 16 unused bytes. The accumulator layout
    /// puts the eight rows of an `mma` tile on the lanes of one store: in rows of a
    /// power-of-two byte length they all start in the same bank (an 8-way conflict per
    /// store of a matmul's epilogue); padded, each starts 16 bytes further round the
    /// banks, and the row-contiguous vector loads of the target layout stay aligned.
    ///
    /// Where the block would need more scratch than the kernel's shared buffers take
    /// (a matmul epilogue after its K loop, whose buffers are dead by then), it moves in
    /// rounds, as Triton's conversions do: over the top bits of a dim that both layouts
    /// hold in registers (each thread writes and reads the same part of the block in a
    /// round), the fewest rounds whose scratch fits in the buffers' bytes, with a
    /// barrier between rounds. So the conversion does not raise the kernel's shared
    /// memory above its buffers'.
    pub(super) fn through_shared(
        &mut self,
        regs: &[Value<'c, 'a>],
        elem: Type<'c>,
        source: &LinearLayout,
        target: &LinearLayout,
        pad_rows: bool,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let is_i1 = elem == Type::from(IntegerType::new(ctx, 1));
        let storage: Type = if is_i1 {
            IntegerType::new(ctx, 8).into()
        } else {
            elem
        };
        let bytes = storage_bytes(storage);
        let pad = if pad_rows && source.shape.len() == 2 && bytes <= 16 {
            16 / bytes
        } else {
            0
        };
        let limit = (self.scratch_base == 0 && self.pipe_bytes > 0).then_some(u64::from(self.pipe_bytes));
        let split = round_bits(source, target, pad, bytes, limit);
        let shape: Vec<u64> = source
            .shape
            .iter()
            .enumerate()
            .map(|(d, &n)| n >> split.iter().filter(|(sd, _)| *sd == d).count())
            .collect();
        let mut strides = row_major_strides(&shape, None);
        let numel: u64 = if pad > 0 {
            let pitch = shape[1] + pad;
            strides[0] = Some(pitch);
            shape[0] * pitch
        } else {
            shape.iter().product()
        };
        self.claim_shared(numel * bytes)?;
        let linear_of = |c: &[u64]| -> u64 {
            c.iter()
                .zip(&strides)
                .zip(&shape)
                .map(|((&x, s), &n)| (x % n) * s.unwrap_or(0))
                .sum()
        };
        // The round an element (by its register coordinates) moves in.
        let round_of = |c: &[u64]| -> usize {
            split
                .iter()
                .enumerate()
                .filter(|(_, (d, bit))| c[*d] & bit != 0)
                .map(|(i, _)| 1 << i)
                .sum()
        };
        let thread_strides: Vec<u64> = strides.iter().map(|s| s.unwrap_or(0)).collect();
        let source_thread = self.thread_strided_index(source, &thread_strides)?;
        let source_coords = source.register_coords();
        let target_coords = target.register_coords();
        let mut out = vec![None; target_coords.len()];
        let mut target_thread = None;
        for round in 0..1usize << split.len() {
            if round > 0 {
                // The previous round's reads are done before its slots are written again.
                self.mlir(b.barrier())?;
            }
            for (r, c) in source_coords.iter().enumerate() {
                if round_of(c) != round {
                    continue;
                }
                let slot = self.shared_slot(storage, 0, linear_of(c), source_thread)?;
                let v = if is_i1 {
                    self.mlir(b.value("arith.extui", &[regs[r]], storage, &[]))?
                } else {
                    regs[r]
                };
                self.mlir(b.store(v, slot))?;
            }
            self.mlir(b.barrier())?;
            if round == 0 {
                target_thread = self.thread_strided_index(target, &thread_strides)?;
            }
            for (r, c) in target_coords.iter().enumerate() {
                if round_of(c) != round {
                    continue;
                }
                let slot = self.shared_slot(storage, 0, linear_of(c), target_thread)?;
                let v = self.mlir(b.load(slot, storage))?;
                out[r] = Some(if is_i1 {
                    self.mlir(b.value("arith.trunci", &[v], elem, &[]))?
                } else {
                    v
                });
            }
        }
        out.into_iter()
            .map(|v| v.ok_or_else(|| self.error("internal: a conversion round left a register unread")))
            .collect()
    }
}

/// The `(dim, bit)` coordinate bits a conversion from `source` to `target` moves in
/// rounds over (one round per combination), so that one round's scratch of `bytes`-wide
/// elements (rows padded by `pad` elements) fits in `limit` bytes: the top bits of a
/// dim, taken from dim 0 on, that both layouts hold in registers and no lane or warp of
/// either spans. None without a limit or when the whole block fits.
fn round_bits(
    source: &LinearLayout,
    target: &LinearLayout,
    pad: u64,
    bytes: u64,
    limit: Option<u64>,
) -> Vec<(usize, u64)> {
    let Some(limit) = limit else {
        return Vec::new();
    };
    let rank = source.shape.len();
    let scratch = |shape: &[u64]| -> u64 {
        let numel: u64 = if pad > 0 {
            shape[0] * (shape[1] + pad)
        } else {
            shape.iter().product()
        };
        numel * bytes
    };
    let unit = |d: usize, bit: u64| -> Vec<u64> {
        let mut v = vec![0; rank];
        v[d] = bit;
        v
    };
    let threads_span = |d: usize, bit: u64| {
        [source, target]
            .iter()
            .any(|l| l.lanes.iter().chain(&l.warps).any(|basis| basis[d] & bit != 0))
    };
    let mut shape = source.shape.clone();
    let mut split = Vec::new();
    for d in 0..rank {
        while scratch(&shape) > limit && shape[d] > 1 && shape[d].is_power_of_two() {
            let bit = shape[d] / 2;
            let held = |l: &LinearLayout| l.registers.contains(&unit(d, bit));
            if !held(source) || !held(target) || threads_span(d, bit) {
                break;
            }
            split.push((d, bit));
            shape[d] = bit;
        }
    }
    split
}

/// Row-major strides of `shape`; `skip_dim` is left out (its stride is `None`).
pub(super) fn row_major_strides(shape: &[u64], skip_dim: Option<usize>) -> Vec<Option<u64>> {
    let mut strides = vec![None; shape.len()];
    let mut s = 1u64;
    for d in (0..shape.len()).rev() {
        if Some(d) == skip_dim {
            continue;
        }
        strides[d] = Some(s);
        s *= shape[d];
    }
    strides
}

/// Bytes of a scalar MLIR type in memory (pointers are 8).
pub(super) fn storage_bytes(ty: Type<'_>) -> u64 {
    let text = ty.to_string();
    match text.as_str() {
        "i8" => 1,
        "i16" | "f16" | "bf16" => 2,
        "i32" | "f32" => 4,
        _ => 8,
    }
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// `sum_d offset_d * strides[d]` of this thread's lane and warp part of `linear`.
    pub(super) fn thread_strided_index(
        &mut self,
        linear: &LinearLayout,
        strides: &[u64],
    ) -> Result<Option<Value<'c, 'a>>, LowerError> {
        let offsets = self.thread_offsets(linear)?;
        let mut acc: Option<Value<'c, 'a>> = None;
        for (d, off) in offsets.into_iter().enumerate() {
            let Some(off) = off else { continue };
            let scaled = if strides[d] == 1 {
                off
            } else {
                let s = self.i32c(strides[d] as i32)?;
                self.mlir(self.b.binary("arith.muli", off, s))?
            };
            acc = Some(match acc {
                None => scaled,
                Some(a) => self.mlir(self.b.binary("arith.addi", a, scaled))?,
            });
        }
        Ok(acc)
    }

    /// Writes the registers of a block held in `linear` to shared scratch: the element
    /// at coordinates `c` goes to slot `offset + sum_d c_d * strides[d]` of an array of
    /// `elem` starting `byte_offset` bytes in (`i1` is stored as `i8`). Threads holding
    /// replicas write the same value to the same slot.
    pub(super) fn shared_write(
        &mut self,
        regs: &[Value<'c, 'a>],
        elem: Type<'c>,
        linear: &LinearLayout,
        strides: &[u64],
        offset: u64,
        byte_offset: u32,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let (storage, is_i1) = storage_of(b.context(), elem);
        let thread = self.thread_strided_index(linear, strides)?;
        for (r, c) in linear.register_coords().iter().enumerate() {
            let k: u64 = offset + c.iter().zip(strides).map(|(x, s)| x * s).sum::<u64>();
            let slot = self.shared_slot(storage, byte_offset, k, thread)?;
            let v = if is_i1 {
                self.mlir(b.value("arith.extui", &[regs[r]], storage, &[]))?
            } else {
                regs[r]
            };
            self.mlir(b.store(v, slot))?;
        }
        Ok(())
    }

    /// Reads the registers of a block in `linear` from shared scratch, slots as in
    /// [`Self::shared_write`].
    pub(super) fn shared_read(
        &mut self,
        elem: Type<'c>,
        linear: &LinearLayout,
        strides: &[u64],
        offset: u64,
        byte_offset: u32,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let (storage, is_i1) = storage_of(b.context(), elem);
        let thread = self.thread_strided_index(linear, strides)?;
        let mut out = Vec::new();
        for c in linear.register_coords() {
            let k: u64 = offset + c.iter().zip(strides).map(|(x, s)| x * s).sum::<u64>();
            let slot = self.shared_slot(storage, byte_offset, k, thread)?;
            let v = self.mlir(b.load(slot, storage))?;
            out.push(if is_i1 {
                self.mlir(b.value("arith.trunci", &[v], elem, &[]))?
            } else {
                v
            });
        }
        Ok(out)
    }
}

/// The type a value of `elem` is kept as in shared memory (`i1` as `i8`), and whether
/// it is `i1`.
pub(super) fn storage_of<'c>(ctx: &'c melior::Context, elem: Type<'c>) -> (Type<'c>, bool) {
    let i1: Type = IntegerType::new(ctx, 1).into();
    if elem == i1 {
        (IntegerType::new(ctx, 8).into(), true)
    } else {
        (elem, false)
    }
}

/// Row-major strides of `shape` (all dims).
pub(super) fn dense_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    let mut s = 1u64;
    for d in (0..shape.len()).rev() {
        strides[d] = s;
        s *= shape[d];
    }
    strides
}
