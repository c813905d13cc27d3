//! `tt.dot` on the tensor cores: `mma.sync` (sm_80 and later) for a dot whose result is in
//! the `#ttg.nvidia_mma` layout (chosen by `tritonc_ttgir::accelerate`).
//!
//! A and B are staged in shared memory in one of two orientations each, whichever their
//! registers are contiguous along (so the stores are vectors):
//! - **K-contiguous** (`A` as `[M][K + pad]`, `B` as `[N][K + pad]`), read with
//!   `ldmatrix` (every element width: a 16-byte row of an 8×8 `b16` matrix is eight fp16,
//!   four tf32 or sixteen int8 values along K, which is the fragment the PTX ISA gives each
//!   `mma.sync` shape);
//! - **M- or N-contiguous** (`A` as `[K][M + pad]`, `B` as `[K][N + pad]`), 16-bit types
//!   only, read with `ldmatrix.trans`.
//!
//! Rows are padded by 16 bytes, so the eight rows one `ldmatrix` matrix reads fall in
//! eight different 16-byte bank groups. Then, per K step of the instruction (16 fp16/bf16,
//! 8 tf32, 32 int8), each warp loads the A fragments of its 16-row tiles and the B
//! fragments of its 8-column tiles and issues one `mma.sync.m16n8kK` per tile pair,
//! accumulating into the registers of the `#mma` layout (register `4·(j + TN·i) + c` is
//! element `c` of tile `(i, j)`). Every output is accumulated over K in steps of the
//! instruction's K, in increasing K: the order the interpreter is compared at with
//! `docs/numerics.md`'s dot tolerance.

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute},
    r#type::IntegerType,
    Attribute, Type, Value, ValueLike,
};
use tritonc_ir::{DType, InputPrecision, MmaLayout, OpId, OpKind, SharedLayout};
use tritonc_ttgir::LinearLayout;

use super::function::{FunctionLowering, Lowered};
use super::staged_address::StagedAccess;
use super::LowerError;

/// One `mma.sync` shape and type combination.
struct Instr {
    /// PTX of the instruction (without operands).
    name: &'static str,
    /// Elements of A and B along K per instruction.
    k_step: u64,
    /// Constraint letter of the accumulator registers (`f` or `r`).
    acc_letter: &'static str,
}

fn instr_for(a: DType, acc: DType) -> Option<Instr> {
    Some(match (a, acc) {
        (DType::F16, DType::F32) => Instr {
            name: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            k_step: 16,
            acc_letter: "f",
        },
        (DType::BF16, DType::F32) => Instr {
            name: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            k_step: 16,
            acc_letter: "f",
        },
        (DType::F32, DType::F32) => Instr {
            name: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            k_step: 8,
            acc_letter: "f",
        },
        (DType::I8, DType::I32) => Instr {
            name: "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
            k_step: 32,
            acc_letter: "r",
        },
        _ => return None,
    })
}

/// Which part of an fp32 operand a `tf32x3` sweep multiplies: its TF32 rounding, or
/// the remainder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tf32Part {
    Big,
    Small,
}

impl Tf32Part {
    fn name(self) -> &'static str {
        match self {
            Tf32Part::Big => "big",
            Tf32Part::Small => "small",
        }
    }

    /// This part of a fragment split into `(big, small)`.
    fn of<T>(self, parts: &(Vec<T>, Vec<T>)) -> &[T] {
        match self {
            Tf32Part::Big => &parts.0,
            Tf32Part::Small => &parts.1,
        }
    }
}

/// A `tf32x3` dot's sweeps over K, in order, each multiplying these parts of A and B.
const TF32X3_SWEEPS: [(Tf32Part, Tf32Part); 3] = [
    (Tf32Part::Small, Tf32Part::Big),
    (Tf32Part::Big, Tf32Part::Small),
    (Tf32Part::Big, Tf32Part::Big),
];

/// The sweep before which NaNs of the accumulator are set to zero.
const TF32X3_NAN_TO_ZERO_BEFORE: usize = 2;

/// Column tiles whose B fragments a `tf32x3` dot reads and splits at a time (each
/// group runs its three sweeps before the next group's fragments are read).
const TF32X3_GROUP: u64 = 2;

/// How a dot reads its operands' fragments: where each is staged and the per-thread
/// part of the addresses (computed once per dot).
struct FragmentReader<'c, 'a> {
    a_stage: Staged,
    a_access: StagedAccess<'c, 'a>,
    a_buffer: Option<Value<'c, 'a>>,
    a_ty: Type<'c>,
    /// A chained dot's A operand, in the first dot's accumulator registers.
    a_regs: Option<Vec<Value<'c, 'a>>>,
    b_stage: Staged,
    b_access: StagedAccess<'c, 'a>,
    b_buffer: Option<Value<'c, 'a>>,
    b_ty: Type<'c>,
    /// Warps along M and N.
    wm: u64,
    wn: u64,
    /// The dot's K.
    k: u64,
    /// 8-column tiles per warp.
    tiles_n: u64,
    /// Elements along K per instruction.
    k_step: u64,
}

/// The steps of a `tf32x3` tensor-core dot as codegen emits them (`dot(a_part,
/// b_part)`, `nan_to_zero`, `add_c`), in the notation
/// `scripts/triton_mma_instructions.py` records Triton's with.
pub fn tf32x3_order() -> Vec<String> {
    let mut order = Vec::new();
    for (i, (a, b)) in TF32X3_SWEEPS.iter().enumerate() {
        if i == TF32X3_NAN_TO_ZERO_BEFORE {
            order.push("nan_to_zero".to_string());
        }
        order.push(format!("dot({}, {})", a.name(), b.name()));
    }
    order.push("add_c".to_string());
    order
}

/// Where one operand lives in shared memory.
#[derive(Clone, Debug)]
pub(crate) struct Staged {
    /// Bytes from the start of the scratch array (of shared memory, when `pipelined`).
    pub byte_offset: u32,
    /// Element strides of the operand's logical dims (A: `[m, k]`, B: `[k, n]`).
    pub strides: [u64; 2],
    /// Whether it is read with `ldmatrix.trans` (stored K-major for a 16-bit type).
    pub trans: bool,
    /// Bytes it takes.
    pub bytes: u64,
    /// Whether it is in a shared buffer of the GPU IR (`buffers.rs`) rather than the
    /// scratch.
    pub pipelined: bool,
    /// A 32-bit B operand stored N-contiguous (`[K][N + 8]`), its fragments read with
    /// one `ld.shared.b32` per element (`ldmatrix.trans` moves only 16-bit elements).
    pub scalar: bool,
    /// An 8-bit B operand stored N-contiguous (as its rows arrive from global memory, so
    /// `cp.async` can fill it): each fragment register gathers its four K-consecutive
    /// bytes one `ld.shared.u8` at a time (`ldmatrix` cannot transpose 8-bit elements).
    pub gather8: bool,
    /// The logical dim the stored rows run along.
    pub fast: usize,
    /// The XOR swizzle of a `#ttg.swizzled_shared` layout (`None`: padded, linear).
    pub swizzle: Option<Swizzle>,
    /// `#ttg.nvmma_shared`'s column blocks: elements of a block's row (the pitch) and
    /// elements from one block to the next.
    pub block: Option<(u64, u64)>,
}

/// `#ttg.swizzled_shared`'s parameters: chunks of `vec` elements, XORed with the row's
/// phase `(row / per_phase) % max_phase` (all powers of two).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Swizzle {
    pub vec: u64,
    pub per_phase: u64,
    pub max_phase: u64,
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_dot_mma(&mut self, op: OpId, mma: &MmaLayout) -> Result<(), LowerError> {
        let OpKind::Dot {
            input_precision, ..
        } = *self.func.kind(op)
        else {
            unreachable!("invariant: lower_dot_mma is called on tt.dot")
        };
        let data = self.func.op(op);
        let [a_v, b_v, _] = data.operands()[..] else {
            return Err(self.error("`tt.dot` takes three operands"));
        };
        let r = data.results()[0];
        let shape_of = |this: &Self, v| {
            this.func
                .value_type(v)
                .known_shape()
                .filter(|s: &Vec<u64>| s.len() == 2)
                .ok_or_else(|| this.error("a tensor-core dot is 2-D"))
        };
        let (a_shape, b_shape) = (shape_of(self, a_v)?, shape_of(self, b_v)?);
        let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
        let dtype = |v| self.func.value_type(v).dtype();
        let (Some(a_dt), Some(b_dt), Some(acc_dt)) = (dtype(a_v), dtype(b_v), dtype(r)) else {
            return Err(self.error("dot operands must be numbers"));
        };
        // fp8 operands are widened to fp16 (exactly) and multiplied by the fp16
        // instruction, as Triton 3.6's sm_90 `mma.sync` code does.
        let upcast = a_dt.is_fp8();
        let mma_dt = if upcast { DType::F16 } else { a_dt };
        let instr = instr_for(mma_dt, acc_dt)
            .filter(|_| a_dt == b_dt)
            .filter(|_| {
                tritonc_ttgir::accelerate::mma_k_step(a_dt, b_dt, acc_dt, input_precision)
                    .is_some()
            })
            .ok_or_else(|| {
                self.error(format!(
                    "a `{a_dt}` × `{b_dt}` → `{acc_dt}` dot has no `mma.sync` form"
                ))
            })?;
        if k % instr.k_step != 0 {
            return Err(self.error(format!(
                "K = {k} is not a multiple of the `mma.sync` K step {}",
                instr.k_step
            )));
        }
        let elem_bytes = u64::from(mma_dt.bitwidth().unwrap_or(8)) / 8;
        // Elements of one 16-byte ldmatrix row.
        let row_elems = 16 / elem_bytes;
        let (a_ty, b_ty) = if upcast {
            let h = Type::float16(self.b.context());
            (h, h)
        } else {
            (self.elem_type(a_v)?, self.elem_type(b_v)?)
        };

        let acc_linear = self.result_linear(r)?;
        let (wm, wn) = (
            u64::from(mma.warps_per_cta[0]),
            u64::from(mma.warps_per_cta[1]),
        );
        // Warp tiles: 16-row tiles i at rows 16·wm·i, 8-column tiles j at columns 8·wn·j.
        let tiles_m = (m / (16 * wm)).max(1);
        let tiles_n = (n / (8 * wn)).max(1);
        if acc_linear.num_registers() as u64 != 4 * tiles_m * tiles_n {
            return Err(self.error(format!(
                "a {m}×{n} block is too small for the mma layout's {}×{} warps",
                wm, wn
            )));
        }

        // Stage A and B in shared memory.
        let mut layouts = Vec::new();
        for i in 0..2 {
            let layout = self
                .layouts
                .operand_layout(self.func, op, i)
                .ok_or_else(|| self.error("dot operand without a layout"))?
                .clone();
            layouts.push(self.linear_of(data.operands()[i], &layout)?);
        }
        // An A operand in this accumulator layout (a chained dot's, 16-bit) is read from
        // registers: its 16×8 tiles are the A fragment's halves.
        let a_in_registers = elem_bytes == 2
            && wn == 1
            && matches!(
                self.layouts.operand_layout(self.func, op, 0),
                Some(tritonc_ttgir::Layout::Mma(a_mma)) if a_mma == mma
            )
            && layouts[0].num_registers() as u64 == 4 * tiles_m * (k / 8);
        // Operands read from a shared buffer (`ttg.local_load` of a buffer the K loop's
        // asynchronous copies fill), with the buffer this iteration reads.
        let piped: Vec<Option<(Staged, Option<Value<'c, 'a>>, u64)>> = (0..2)
            .map(|i| {
                let load = self.func.defining_op(data.operands()[i])?;
                if !matches!(self.func.kind(load), OpKind::LocalLoad) {
                    return None;
                }
                let view = self.views.get(&self.func.op(load).operands()[0])?;
                // A single buffer (a hoisted operand) has no index.
                Some((view.staged(i, elem_bytes), view.index, view.stride_elems))
            })
            .collect();
        // A is [m, k]: its outer dim is 0; B is [k, n]: its outer dim is 1.
        let mut a_stage = stage(&layouts[0], 0, [m, k], elem_bytes, 0);
        let a_scratch = !a_in_registers && piped[0].is_none();
        let b_start = if a_scratch {
            a_stage.bytes.next_multiple_of(128)
        } else {
            0
        };
        let mut b_stage = stage(&layouts[1], 1, [k, n], elem_bytes, b_start);
        let b_scratch = piped[1].is_none();
        if a_scratch || b_scratch {
            let end = if b_scratch { b_start + b_stage.bytes } else { b_start };
            self.claim_shared(end)?;
        }
        let mut a_regs = self.operand(op, 0)?.regs;
        if upcast {
            for v in a_regs.iter_mut() {
                *v = self.fp_to_fp(*v, a_dt, DType::F16, None)?;
            }
        }
        if a_scratch {
            self.stage_write(&a_regs, a_ty, &layouts[0], &a_stage)?;
        }
        if b_scratch {
            let mut b_regs = self.operand(op, 1)?.regs;
            if upcast {
                for v in b_regs.iter_mut() {
                    *v = self.fp_to_fp(*v, b_dt, DType::F16, None)?;
                }
            }
            self.stage_write(&b_regs, b_ty, &layouts[1], &b_stage)?;
        }
        if a_scratch || b_scratch {
            self.mlir(self.b.barrier())?;
        }
        // Buffer offsets (in elements) of pipelined operands.
        let mut buffer_offset = [None, None];
        for (i, p) in piped.iter().enumerate() {
            if let Some((st, read, elems)) = p {
                if i == 0 {
                    a_stage = st.clone();
                } else {
                    b_stage = st.clone();
                }
                if let Some(read) = read {
                    let e = self.i32c(*elems as i32)?;
                    buffer_offset[i] = Some(self.mlir(self.b.binary("arith.muli", *read, e))?);
                }
            }
        }

        // Each lane's ldmatrix row, as a layout over the operand's logical coordinates.
        let warp_m: Vec<Vec<u64>> = acc_linear
            .warps
            .iter()
            .map(|w| vec![w[0], 0])
            .collect();
        let warp_n: Vec<Vec<u64>> = acc_linear
            .warps
            .iter()
            .map(|w| vec![0, w[1]])
            .collect();
        let a_lanes: Vec<Vec<u64>> = if a_stage.trans {
            vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![8, 0], vec![0, 8]]
        } else {
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, row_elems]]
        };
        // Lanes 16–31 address the second of two N tiles (`x4`), when the warp has two.
        let second_n = if tiles_n > 1 { 8 * wn } else { 0 };
        let b_lanes: Vec<Vec<u64>> = if b_stage.gather8 {
            // Bytes k = 4 (lane % 4) … + 3 of column n = lane / 4 of each 8-column tile.
            vec![vec![4, 0], vec![8, 0], vec![0, 1], vec![0, 2], vec![0, 4]]
        } else if b_stage.scalar {
            // Element (k = lane % 4, n = lane / 4) of each 8-column tile.
            vec![vec![1, 0], vec![2, 0], vec![0, 1], vec![0, 2], vec![0, 4]]
        } else if b_stage.trans {
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, second_n]]
        } else {
            vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![row_elems, 0], vec![0, second_n]]
        };
        let a_rows = LinearLayout {
            shape: vec![m, k],
            registers: Vec::new(),
            lanes: a_lanes,
            warps: warp_m,
        };
        let b_rows = LinearLayout {
            shape: vec![k, n],
            registers: Vec::new(),
            lanes: b_lanes,
            warps: warp_n,
        };
        let a_access = self.staged_access(&a_stage, &a_rows)?;
        let b_access = self.staged_access(&b_stage, &b_rows)?;
        let mut rd = FragmentReader {
            a_stage,
            a_access,
            a_buffer: buffer_offset[0],
            a_ty,
            a_regs: a_in_registers.then_some(a_regs),
            b_stage,
            b_access,
            b_buffer: buffer_offset[1],
            b_ty,
            wm,
            wn,
            k,
            tiles_n,
            k_step: instr.k_step,
        };

        let c_regs = self.operand(op, 2)?.regs;
        let steps = k / instr.k_step;
        // `tf32x3` (Triton's `F32DotTC` split): only fp32 operands are split; others
        // ignore the precision (as Triton does).
        if input_precision == InputPrecision::Tf32x3 && a_dt == DType::F32 {
            let acc = self.mma_tf32x3(&instr, &mut rd, tiles_m, steps, &c_regs)?;
            self.values.insert(r, Lowered::block(acc));
            return Ok(());
        }
        let mut acc = c_regs;
        for s in 0..steps {
            let a_frags = (0..tiles_m)
                .map(|i| self.a_fragment(&mut rd, i, s))
                .collect::<Result<Vec<_>, _>>()?;
            let mut b_frags: Vec<Vec<Value<'c, 'a>>> = Vec::new();
            while (b_frags.len() as u64) < tiles_n {
                let j = b_frags.len() as u64;
                b_frags.extend(self.b_fragments(&mut rd, s, j)?);
            }
            for i in 0..tiles_m as usize {
                for j in 0..tiles_n as usize {
                    let at = 4 * (j + tiles_n as usize * i);
                    let out = self.mma_sync(&instr, &a_frags[i], &b_frags[j], &acc[at..at + 4])?;
                    acc.splice(at..at + 4, out);
                }
            }
        }
        self.values.insert(r, Lowered::block(acc));
        Ok(())
    }

    /// The element offset of a staged access at constant coordinates `konst`: its
    /// constant part and its per-thread part plus the buffer this iteration reads.
    fn staged_at(
        &mut self,
        stage: &Staged,
        access: &mut StagedAccess<'c, 'a>,
        buffer: Option<Value<'c, 'a>>,
        konst: [u64; 2],
    ) -> Result<(u64, Option<Value<'c, 'a>>), LowerError> {
        let (c, dynamic) = self.staged_offset(stage, access, konst)?;
        let dynamic = match (dynamic, buffer) {
            (Some(x), Some(off)) => Some(self.mlir(self.b.binary("arith.addi", x, off))?),
            (x, off) => x.or(off),
        };
        Ok((c, dynamic))
    }

    /// The A fragment (four 32-bit registers) of 16-row tile `i` at instruction K step `s`.
    fn a_fragment(
        &mut self,
        rd: &mut FragmentReader<'c, 'a>,
        i: u64,
        s: u64,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        if let Some(a_regs) = &rd.a_regs {
            // Tiles (i, 2s) and (i, 2s + 1) of A's 8-column tiles: c0c1, c2c3 of each.
            let tiles_k = (rd.k / 8) as usize;
            let mut frag = Vec::new();
            for half in 0..2 {
                let at = 4 * ((2 * s as usize + half) + tiles_k * i as usize);
                frag.push(self.pack_word(&a_regs[at..at + 2])?);
                frag.push(self.pack_word(&a_regs[at + 2..at + 4])?);
            }
            return Ok(frag);
        }
        let k0 = s * rd.k_step;
        let (c, base) =
            self.staged_at(&rd.a_stage, &mut rd.a_access, rd.a_buffer, [16 * rd.wm * i, k0])?;
        self.ldmatrix(rd.a_ty, &rd.a_stage, c, base, 4)
    }

    /// The B fragments (two 32-bit registers each) at instruction K step `s` of 8-column
    /// tile `j` and, where one `ldmatrix.x4` reads two tiles, of tile `j + 1`.
    fn b_fragments(
        &mut self,
        rd: &mut FragmentReader<'c, 'a>,
        s: u64,
        j: u64,
    ) -> Result<Vec<Vec<Value<'c, 'a>>>, LowerError> {
        let k0 = s * rd.k_step;
        let n0 = 8 * rd.wn * j;
        let stage = rd.b_stage.clone();
        if stage.gather8 {
            // Register r holds k = k0 + 16 r + 4 (lane % 4) + 0 … 3.
            let mut frag = Vec::new();
            for r in 0..2u64 {
                let mut bytes = Vec::new();
                for i in 0..4u64 {
                    let (c, base) =
                        self.staged_at(&stage, &mut rd.b_access, rd.b_buffer, [k0 + 16 * r + i, n0])?;
                    bytes.push(self.shared_int(8, &stage, c, base)?);
                }
                frag.push(self.pack_word(&bytes)?);
            }
            return Ok(vec![frag]);
        }
        let (c, base) = self.staged_at(&stage, &mut rd.b_access, rd.b_buffer, [k0, n0])?;
        if stage.scalar {
            let lo = self.shared_int(32, &stage, c, base)?;
            let (c, base) = self.staged_at(&stage, &mut rd.b_access, rd.b_buffer, [k0 + 4, n0])?;
            let hi = self.shared_int(32, &stage, c, base)?;
            Ok(vec![vec![lo, hi]])
        } else if j + 1 < rd.tiles_n {
            let regs = self.ldmatrix(rd.b_ty, &stage, c, base, 4)?;
            Ok(vec![regs[..2].to_vec(), regs[2..].to_vec()])
        } else {
            Ok(vec![self.ldmatrix(rd.b_ty, &stage, c, base, 2)?])
        }
    }

    /// A `tf32x3` dot, as Triton 3.6's `F32DotTC` computes it: with big = tf32(x) and
    /// small = x − big, each output is small(A)·big(B) accumulated from zero over K, then
    /// big(A)·small(B), NaNs of that set to zero, then big(A)·big(B), then + C — the
    /// instruction sequence per output of Triton's three `tt.dot`s over whole tiles.
    ///
    /// The order differs from Triton's only across independent outputs: Triton runs each
    /// sweep over the whole tile, keeping a second accumulator tile (as many registers as
    /// C) live beside C. Here the fragments of the K tile are read from shared memory
    /// and split once — A's for the warp's rows kept, B's per group of column tiles —
    /// and each group of output tiles runs all three sweeps in a few registers of its
    /// own before C is added, so only C stays live across the K tile.
    fn mma_tf32x3(
        &mut self,
        instr: &Instr,
        rd: &mut FragmentReader<'c, 'a>,
        tiles_m: u64,
        steps: u64,
        c_regs: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let tiles_n = rd.tiles_n;
        // A's parts [step][tile i] = (big, small).
        let mut a_parts = Vec::new();
        for s in 0..steps {
            let mut row = Vec::new();
            for i in 0..tiles_m {
                let frag = self.a_fragment(rd, i, s)?;
                row.push(self.split_tf32(&frag)?);
            }
            a_parts.push(row);
        }
        let zero = self.mlir(self.b.const_f32(0.0))?;
        let mut out = c_regs.to_vec();
        let mut j = 0u64;
        while j < tiles_n {
            // B's parts [step][tile in the group] = (big, small), for the group of column
            // tiles from j.
            let mut b_parts: Vec<Vec<(Vec<Value<'c, 'a>>, Vec<Value<'c, 'a>>)>> = Vec::new();
            for s in 0..steps {
                let mut row = Vec::new();
                while (row.len() as u64) < TF32X3_GROUP.min(tiles_n - j) {
                    for frag in self.b_fragments(rd, s, j + row.len() as u64)? {
                        row.push(self.split_tf32(&frag)?);
                    }
                }
                b_parts.push(row);
            }
            let group = b_parts[0].len();
            // Accumulators [tile i][tile in the group].
            let mut acc = vec![vec![vec![zero; 4]; group]; tiles_m as usize];
            for (sweep, &(a_part, b_part)) in TF32X3_SWEEPS.iter().enumerate() {
                if sweep == TF32X3_NAN_TO_ZERO_BEFORE {
                    for tile in acc.iter_mut().flatten() {
                        for v in tile.iter_mut() {
                            *v = self.nan_to_zero(*v)?;
                        }
                    }
                }
                for s in 0..steps as usize {
                    for i in 0..tiles_m as usize {
                        for g in 0..group {
                            let a = a_part.of(&a_parts[s][i]);
                            let b = b_part.of(&b_parts[s][g]);
                            acc[i][g] = self.mma_sync(instr, a, b, &acc[i][g])?;
                        }
                    }
                }
            }
            for (i, row) in acc.iter().enumerate() {
                for (g, tile) in row.iter().enumerate() {
                    let at = 4 * (j as usize + g + tiles_n as usize * i);
                    for (c, d) in tile.iter().enumerate() {
                        out[at + c] = self.mlir(self.b.binary("arith.addf", *d, out[at + c]))?;
                    }
                }
            }
            j += group as u64;
        }
        Ok(out)
    }

    /// The tf32 parts of each fp32 word of a fragment: big = `cvt.rna.tf32.f32(x)` and
    /// small = x − big.
    #[allow(clippy::type_complexity)]
    fn split_tf32(
        &self,
        frag: &[Value<'c, 'a>],
    ) -> Result<(Vec<Value<'c, 'a>>, Vec<Value<'c, 'a>>), LowerError> {
        let b = self.b;
        let (i32t, f32t) = (b.i32_type(), b.f32_type());
        let (mut bigs, mut smalls) = (Vec::new(), Vec::new());
        for &word in frag {
            let big = self.pure_asm("cvt.rna.tf32.f32 $0, $1;", "=r,r", &[word], i32t)?;
            let x = self.mlir(b.value("llvm.bitcast", &[word], f32t, &[]))?;
            let hi = self.mlir(b.value("llvm.bitcast", &[big], f32t, &[]))?;
            let lo = self.mlir(b.binary("arith.subf", x, hi))?;
            bigs.push(big);
            smalls.push(self.mlir(b.value("llvm.bitcast", &[lo], i32t, &[]))?);
        }
        Ok((bigs, smalls))
    }

    /// `isnan(v) ? 0 : v` for an fp32 accumulator register.
    fn nan_to_zero(&self, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let i64t: Type = IntegerType::new(ctx, 64).into();
        // `uno`: unordered (either operand NaN).
        let pred = IntegerAttribute::new(i64t, 14).into();
        let i1: Type = IntegerType::new(ctx, 1).into();
        let nan = self.mlir(b.value("arith.cmpf", &[v, v], i1, &[("predicate", pred)]))?;
        let zero = self.mlir(b.const_f32(0.0))?;
        self.mlir(b.select(nan, zero, v))
    }

    /// A pointer to element `const_part + dynamic` of a staging area (a pipeline buffer
    /// or the scratch).
    fn staged_slot(
        &self,
        elem: Type<'c>,
        staged: &Staged,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        if staged.pipelined {
            self.pipe_slot(elem, staged.byte_offset, const_part, dynamic)
        } else {
            self.shared_slot(elem, staged.byte_offset, const_part, dynamic)
        }
    }

    /// One `bits`-wide integer element of a staging area (a tf32 B fragment word, an
    /// 8-bit B fragment byte).
    fn shared_int(
        &self,
        bits: u32,
        staged: &Staged,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let ty: Type = IntegerType::new(self.b.context(), bits).into();
        let ptr = self.staged_slot(ty, staged, const_part, dynamic)?;
        self.mlir(self.b.load(ptr, ty))
    }

    /// Values of one type filling 32 bits (two 16-bit, four 8-bit) as one 32-bit
    /// register, `parts[0]` lowest.
    pub(super) fn pack_word(&self, parts: &[Value<'c, 'a>]) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let elem = parts[0].r#type();
        let vt = Type::parse(ctx, &format!("vector<{}x{elem}>", parts.len()))
            .ok_or_else(|| self.error(format!("cannot form a {}-element vector", parts.len())))?;
        let mut v = self.mlir(b.value("llvm.mlir.undef", &[], vt, &[]))?;
        for (i, &e) in parts.iter().enumerate() {
            let pos = self.i32c(i as i32)?;
            v = self.mlir(b.value("llvm.insertelement", &[v, e, pos], vt, &[]))?;
        }
        let i32t: Type = IntegerType::new(ctx, 32).into();
        self.mlir(b.value("llvm.bitcast", &[v], i32t, &[]))
    }

    /// Writes an operand's registers to its staging area, as vectors along the stored
    /// rows where its registers are contiguous there.
    pub(super) fn stage_write(
        &mut self,
        regs: &[Value<'c, 'a>],
        elem: Type<'c>,
        linear: &LinearLayout,
        staged: &Staged,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let ctx = b.context();
        let fast = staged.fast;
        let elem_bytes = super::shared::storage_bytes(elem);
        let vec = (linear.contiguous_registers(fast) as u64).min(16 / elem_bytes);
        // A vector stays within one swizzled chunk.
        let vec = staged.swizzle.map_or(vec, |sw| vec.min(sw.vec)) as usize;
        let mut access = self.staged_access(staged, linear)?;
        let coords = linear.register_coords();
        let i64t: Type = IntegerType::new(ctx, 64).into();
        let align: Attribute = IntegerAttribute::new(i64t, (vec as u64 * elem_bytes) as i64).into();
        let vt = Type::parse(ctx, &format!("vector<{vec}x{elem}>"))
            .ok_or_else(|| self.error("cannot form the staging vector type"))?;
        for r in (0..regs.len()).step_by(vec) {
            let c = &coords[r];
            let (index, thread) = self.staged_offset(staged, &mut access, [c[0], c[1]])?;
            let slot = self.staged_slot(elem, staged, index, thread)?;
            let value = if vec == 1 {
                regs[r]
            } else {
                let mut v = self.mlir(b.value("llvm.mlir.undef", &[], vt, &[]))?;
                for (i, &e) in regs[r..r + vec].iter().enumerate() {
                    let pos = self.i32c(i as i32)?;
                    v = self.mlir(b.value("llvm.insertelement", &[v, e, pos], vt, &[]))?;
                }
                v
            };
            self.mlir(b.effect("llvm.store", &[value, slot], &[("alignment", align)]))?;
        }
        Ok(())
    }

    /// `ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16` at element `const_part +
    /// dynamic` of a staging area: `num` 32-bit registers.
    fn ldmatrix(
        &self,
        elem: Type<'c>,
        staged: &Staged,
        const_part: u64,
        dynamic: Option<Value<'c, 'a>>,
        num: usize,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let ptr = self.staged_slot(elem, staged, const_part, dynamic)?;
        let parse = |text: &str| {
            Attribute::parse(ctx, text).ok_or_else(|| self.error(format!("bad attribute `{text}`")))
        };
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let layout = if staged.trans { "col" } else { "row" };
        let fields = vec!["i32"; num].join(", ");
        let struct_ty = Type::parse(ctx, &format!("!llvm.struct<({fields})>"))
            .ok_or_else(|| self.error("cannot form the ldmatrix result type"))?;
        let attrs = [
            ("num", IntegerAttribute::new(i32t, num as i64).into()),
            ("layout", parse(&format!("#nvvm.mma_layout<{layout}>"))?),
            ("shape", parse("#nvvm.ld_st_matrix_shape<m = 8, n = 8>")?),
            ("eltType", parse("#nvvm.ld_st_matrix_elt_type<b16>")?),
        ];
        let result = self.mlir(b.value("nvvm.ldmatrix", &[ptr], struct_ty, &attrs))?;
        (0..num)
            .map(|i| {
                let pos = DenseI64ArrayAttribute::new(ctx, &[i as i64]).into();
                self.mlir(b.value("llvm.extractvalue", &[result], i32t, &[("position", pos)]))
            })
            .collect()
    }

    /// One `mma.sync`: `D = A·B + C` on a 16×8 tile, A as four and B as two 32-bit
    /// registers, C and D four accumulator registers.
    fn mma_sync(
        &self,
        instr: &Instr,
        a: &[Value<'c, 'a>],
        b_regs: &[Value<'c, 'a>],
        c: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let asm = format!(
            "{} {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, {{$8, $9}}, {{$10, $11, $12, $13}};",
            instr.name
        );
        let l = instr.acc_letter;
        let constraints = format!("={l},={l},={l},={l},r,r,r,r,r,r,0,1,2,3");
        let acc_ty = c[0].r#type();
        let struct_ty = Type::parse(ctx, &format!("!llvm.struct<({acc_ty}, {acc_ty}, {acc_ty}, {acc_ty})>"))
            .ok_or_else(|| self.error("cannot form the mma result type"))?;
        let mut operands = a.to_vec();
        operands.extend_from_slice(b_regs);
        operands.extend_from_slice(c);
        let result = self.pure_asm(&asm, &constraints, &operands, struct_ty)?;
        (0..4)
            .map(|i| {
                let pos = DenseI64ArrayAttribute::new(ctx, &[i as i64]).into();
                self.mlir(b.value("llvm.extractvalue", &[result], acc_ty, &[("position", pos)]))
            })
            .collect()
    }
}

/// Where operand `operand` (0: A as `[m, k]`, 1: B as `[k, n]`) of logical shape `dims`
/// is staged in the scratch when it arrives in registers `linear`: in the shared layout
/// `tritonc_ttgir::accelerate::operand_shared_layout` decides (the one the pipeline's
/// buffers use).
pub(super) fn stage(
    linear: &LinearLayout,
    operand: usize,
    dims: [u64; 2],
    elem_bytes: u64,
    byte_offset: u64,
) -> Staged {
    let layout =
        tritonc_ttgir::accelerate::operand_shared_layout(linear, operand, dims, elem_bytes);
    Staged::from_layout(&layout, operand, dims, elem_bytes, byte_offset as u32, false)
}

impl Staged {
    /// Operand `operand` of shape `dims` stored in `layout` (padded or swizzled rows),
    /// `byte_offset` bytes into the scratch (or, when `pipelined`, into shared memory).
    pub(crate) fn from_layout(
        layout: &SharedLayout,
        operand: usize,
        dims: [u64; 2],
        elem_bytes: u64,
        byte_offset: u32,
        pipelined: bool,
    ) -> Staged {
        let outer = if operand == 0 { 0 } else { 1 };
        // The stored rows run along `fast`.
        let fast = layout.order[0] as usize;
        let slow = 1 - fast;
        let block = layout.block_elems().map(|w| (w, w * dims[slow]));
        let pitch = match block {
            Some((w, _)) => w,
            None => dims[fast] + layout.padding.map_or(0, |p| u64::from(p.pad)),
        };
        let mut strides = [0u64; 2];
        strides[fast] = 1;
        strides[slow] = pitch;
        let swizzle = (layout.max_phase > 1).then(|| Swizzle {
            vec: u64::from(layout.vec),
            per_phase: u64::from(layout.per_phase),
            max_phase: u64::from(layout.max_phase),
        });
        Staged {
            fast,
            swizzle,
            block,
            byte_offset,
            strides,
            // 16-bit rows along M or N: read with `ldmatrix.trans`.
            trans: elem_bytes == 2 && fast == outer,
            bytes: match block {
                Some(_) => dims[0] * dims[1] * elem_bytes,
                None => dims[slow] * pitch * elem_bytes,
            },
            pipelined,
            // A 32-bit B stored N-contiguous: its fragments read a word at a time.
            scalar: elem_bytes == 4 && outer == 1 && fast == outer,
            // An 8-bit B stored N-contiguous: its fragments gathered a byte at a time.
            gather8: elem_bytes == 1 && outer == 1 && fast == outer,
        }
    }
}
