//! `tt.dot` on Hopper's warpgroup tensor cores: `wgmma.mma_async` (`sm_90a`) for a dot
//! whose result is in a `wgmma` accumulator layout (`#ttg.nvidia_mma` version 3, chosen by
//! `tritonc_ttgir::accelerate`), and `ttng.warp_group_dot_wait`.
//!
//! Each warpgroup (four consecutive warps) computes its 64×N tiles of the result, one
//! `wgmma.mma_async.sync.aligned.m64n{N}k{K}` per tile and K step of the instruction,
//! reading B (and A, unless A is in registers) from shared memory through a matrix
//! descriptor: the operand's buffer in an `#ttg.nvmma_shared` layout (a pipeline buffer,
//! a buffer filled once, or the scratch the dot stages registers in), its start address
//! in 16-byte units in bits 0–13, the leading byte offset (the stride between column
//! blocks of an MN-major operand) in bits 16–29, the stride byte offset (between groups
//! of eight rows: eight rows of the swizzle's width) in bits 32–45, and the swizzle mode
//! in bits 62–63 (1: 128 bytes, 2: 64, 3: 32). The start of each instruction's slice is
//! the layout's offset of its first element; 16-bit operands stored MN-major are
//! transposed by the instruction (`imm-trans`).
//!
//! A constant-zero accumulator is not materialized: the first K step of each tile runs
//! with `scale-d` false (the instruction ignores its accumulator input).
//!
//! The instructions of one dot are fenced once (`wgmma.fence`) and committed as one group
//! (`wgmma.commit_group`); the result is in flight until a `ttng.warp_group_dot_wait`
//! (`wgmma.wait_group N`), which takes and returns the accumulator registers so that no
//! read of them can move above it. A register-A dot packs its A fragments from the
//! registers of a `wgmma` accumulator layout (a chained dot's `P`), four 32-bit words per
//! K step of 16: rows `g` and `g + 8` of the warp's 16, K `2t, 2t + 1` and `8 + 2t, 9 +
//! 2t`. Operands staged from registers by generic stores are made visible to the
//! asynchronous proxy with `fence.proxy.async.shared::cta` before the barrier that
//! precedes the instruction (Triton's fence-insertion rule).

use std::collections::HashMap;

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute},
    r#type::IntegerType,
    Type, Value, ValueLike,
};
use tritonc_ir::{DType, MmaLayout, OpId, OpKind, SharedLayout};
use tritonc_ttgir::LinearLayout;

use super::function::{FunctionLowering, Lowered};
use super::mma::Staged;
use super::LowerError;

/// One `wgmma` type combination.
struct Instr {
    /// `.f32.f16.f16` and friends.
    types: &'static str,
    /// Elements of K per instruction.
    k_step: u64,
    /// Whether the instruction takes `imm-trans-a/b` (16-bit types only).
    transposable: bool,
    /// Whether it takes `imm-scale-a/b` (floating-point types).
    scaled: bool,
}

fn instr_for(a: DType, acc: DType) -> Option<Instr> {
    let f = |types, k_step, transposable| Instr {
        types,
        k_step,
        transposable,
        scaled: true,
    };
    Some(match (a, acc) {
        (DType::F16, DType::F32) => f(".f32.f16.f16", 16, true),
        (DType::BF16, DType::F32) => f(".f32.bf16.bf16", 16, true),
        (DType::F32, DType::F32) => f(".f32.tf32.tf32", 8, false),
        (DType::F8E4M3FN, DType::F32) => f(".f32.e4m3.e4m3", 32, false),
        (DType::F8E5M2, DType::F32) => f(".f32.e5m2.e5m2", 32, false),
        (DType::I8, DType::I32) => Instr {
            types: ".s32.s8.s8",
            k_step: 32,
            transposable: false,
            scaled: false,
        },
        _ => return None,
    })
}

/// An operand read through a matrix descriptor.
struct Described<'c, 'a> {
    /// The descriptor of the warpgroup's first element.
    base: Value<'c, 'a>,
    layout: SharedLayout,
    dims: [u64; 2],
    elem_bytes: u64,
}

impl Described<'_, '_> {
    /// Bytes from the operand's start to element `coords`.
    fn byte_offset(&self, coords: [u64; 2]) -> u64 {
        self.layout.offset(&coords, &self.dims) * self.elem_bytes
    }

    /// Whether the rows run along M or N (`imm-trans` for 16-bit types).
    fn mn_major(&self, operand: usize) -> bool {
        let k_dim = if operand == 0 { 1 } else { 0 };
        self.layout.order[0] as usize != k_dim
    }
}

/// Where a dot's operand comes from.
enum Source<'c, 'a> {
    Shared(Described<'c, 'a>),
    /// A's registers (register-A `wgmma`) and their layout.
    Registers(Vec<Value<'c, 'a>>, LinearLayout),
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_dot_wgmma(&mut self, op: OpId, mma: &MmaLayout) -> Result<(), LowerError> {
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
        let instr = instr_for(a_dt, acc_dt)
            .filter(|_| a_dt == b_dt)
            .ok_or_else(|| self.error(format!("a `{a_dt}` × `{b_dt}` → `{acc_dt}` dot has no `wgmma` form")))?;
        if k % instr.k_step != 0 {
            return Err(self.error(format!(
                "K = {k} is not a multiple of the `wgmma` K step {}",
                instr.k_step
            )));
        }
        let elem_bytes = u64::from(a_dt.size_bytes().unwrap_or(1));
        let acc_linear = self.result_linear(r)?;
        let (wm, wn) = (u64::from(mma.warps_per_cta[0]), u64::from(mma.warps_per_cta[1]));
        let instr_n = u64::from(mma.instr_n());
        let (reps_m, reps_n) = (m / (16 * wm), n / (instr_n * wn));
        if reps_m == 0
            || reps_n == 0
            || u64::from(acc_linear.num_registers()) != reps_m * reps_n * instr_n / 2
        {
            return Err(self.error(format!(
                "a {m}×{n} block does not fill the wgmma layout's {wm}×{wn} warps of m64n{instr_n} tiles"
            )));
        }
        let reg_of: HashMap<(u64, u64), usize> = acc_linear
            .register_coords()
            .into_iter()
            .enumerate()
            .map(|(i, c)| ((c[0], c[1]), i))
            .collect();

        // The warpgroup's offset: along M (every warp along M) or along N (four warps
        // along M), `tid / 128` warpgroups of 64 rows or `instr_n` columns.
        let tid = self.mlir(self.b.thread_id_x())?;
        let seven = self.i32c(7)?;
        let wg = self.mlir(self.b.binary("arith.shrui", tid, seven))?;
        let wg_coords = |operand: usize| -> [u64; 2] {
            match operand {
                0 if wn == 1 => [64, 0],
                1 if wn > 1 => [0, instr_n],
                _ => [0, 0],
            }
        };

        // Operands in registers (other than a register-A) are staged through the scratch,
        // each from a multiple of 1024 bytes of address (where the swizzle repeats).
        let align = |at: u64| -> u64 {
            let abs = u64::from(self.scratch_base) + at;
            abs.next_multiple_of(1024) - u64::from(self.scratch_base)
        };
        let a_at = self.wgmma_stages(op, 0, mma).then(|| align(0));
        let b_at = self.wgmma_stages(op, 1, mma).then(|| align(a_at.map_or(0, |a| a + m * k * elem_bytes)));
        let staged_end = match (a_at, b_at) {
            (_, Some(b)) => Some(b + k * n * elem_bytes),
            (Some(a), None) => Some(a + m * k * elem_bytes),
            (None, None) => None,
        };
        if let Some(end) = staged_end {
            self.claim_shared(end)?;
        }
        let a_src = self.wgmma_operand(op, 0, mma, [m, k], elem_bytes, wg, wg_coords(0), a_at)?;
        let b_src = self.wgmma_operand(op, 1, mma, [k, n], elem_bytes, wg, wg_coords(1), b_at)?;
        if staged_end.is_some() {
            // The generic stores become visible to the `wgmma`s' asynchronous proxy, then
            // to every warp.
            self.inline_asm("fence.proxy.async.shared::cta;", "", &[], None)?;
            self.mlir(self.b.barrier())?;
        }
        let Source::Shared(b_desc) = b_src else {
            return Err(self.error("internal: a wgmma B operand in registers"));
        };

        let mut acc = self.operand(op, 2)?.regs;
        // A zero accumulator (attention's `Q·Kᵀ`) is not materialized: the first K step
        // of each tile ignores its input (`scale-d` false), as Triton's code does.
        let zero_init = tritonc_ir::passes::is_zero(self.func, data.operands()[2]);
        let undef = self.mlir(self.b.value("llvm.mlir.undef", &[], acc[0].r#type(), &[]))?;
        if zero_init {
            acc = vec![undef; acc.len()];
        }
        // fp8 → fp32 `wgmma` keeps about 14 bits of its running sum. With
        // `max_num_imprecise_acc` at most K, Triton accumulates each run of that many K
        // elements from zero and adds the run to the fp32 result (`d + run`, in fp32).
        let imprecise = match data.kind {
            OpKind::Dot {
                max_num_imprecise_acc,
                ..
            } => u64::from(max_num_imprecise_acc),
            _ => u64::MAX,
        };
        let split_every = (a_dt.is_fp8() && acc_dt == DType::F32 && imprecise <= k).then_some(imprecise);
        self.inline_asm("wgmma.fence.sync.aligned;", "", &[], None)?;
        for i in 0..reps_m {
            for j in 0..reps_n {
                let (m0, n0) = (i * 16 * wm, j * instr_n * wn);
                let idx = (0..instr_n / 2)
                    .map(|f| {
                        let at = (m0 + 8 * ((f >> 1) & 1), n0 + 8 * (f >> 2) + (f & 1));
                        reg_of.get(&at).copied().ok_or_else(|| {
                            self.error("internal: a wgmma fragment element has no register")
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let mut d: Vec<Value<'c, 'a>> = idx.iter().map(|&x| acc[x]).collect();
                // With split accumulation: the run in progress, its K elements, and whether
                // `d` holds a value yet.
                let mut run: Option<Vec<Value<'c, 'a>>> = None;
                let mut run_k = 0;
                let mut d_set = !zero_init;
                let steps = k / instr.k_step;
                for s in 0..steps {
                    let k0 = s * instr.k_step;
                    let (scale_d, input) = match split_every {
                        None => (i32::from(!(zero_init && s == 0)), d.clone()),
                        Some(_) => match run.take() {
                            Some(r) => (1, r),
                            None => (0, vec![undef; d.len()]),
                        },
                    };
                    let b_at = self.desc_at(&b_desc, [k0, n0])?;
                    let out = match &a_src {
                        Source::Shared(a_desc) => {
                            let a_at = self.desc_at(a_desc, [m0, k0])?;
                            let trans = [a_desc.mn_major(0), b_desc.mn_major(1)];
                            self.wgmma_ss(&instr, instr_n, a_at, b_at, trans, scale_d, &input)?
                        }
                        Source::Registers(regs, linear) => {
                            let a = self.a_words(regs, linear, m0, k0)?;
                            self.wgmma_rs(&instr, instr_n, &a, b_at, b_desc.mn_major(1), scale_d, &input)?
                        }
                    };
                    let Some(every) = split_every else {
                        d = out;
                        continue;
                    };
                    run_k += instr.k_step;
                    if run_k >= every || s + 1 == steps {
                        // (The add reads the run before `wgmma.wait_group`: ptxas
                        // serializes those instructions, as it does for Triton's code.)
                        d = if d_set {
                            d.iter()
                                .zip(&out)
                                .map(|(&x, &y)| self.mlir(self.b.binary("arith.addf", x, y)))
                                .collect::<Result<_, _>>()?
                        } else {
                            out
                        };
                        d_set = true;
                        run_k = 0;
                    } else {
                        run = Some(out);
                    }
                }
                for (f, &x) in idx.iter().enumerate() {
                    acc[x] = d[f];
                }
            }
        }
        self.inline_asm("wgmma.commit_group.sync.aligned;", "", &[], None)?;
        self.values.insert(r, Lowered::block(acc));
        Ok(())
    }

    /// `ttng.warp_group_dot_wait {pendings}`: `wgmma.wait_group`, through which the
    /// accumulators pass.
    pub(super) fn lower_warp_group_dot_wait(&mut self, op: OpId) -> Result<(), LowerError> {
        let OpKind::WarpGroupDotWait { pendings } = *self.func.kind(op) else {
            unreachable!("invariant: called on ttng.warp_group_dot_wait")
        };
        let data = self.func.op(op);
        let mut all = Vec::new();
        let mut counts = Vec::new();
        for i in 0..data.operands().len() {
            let regs = self.operand(op, i)?.regs;
            counts.push(regs.len());
            all.extend(regs);
        }
        let out = self.passing_asm(&format!("wgmma.wait_group.sync.aligned {pendings};"), &all, &[], "")?;
        let mut at = 0;
        for (i, c) in counts.into_iter().enumerate() {
            let r = data.results()[i];
            self.values.insert(r, Lowered::block(out[at..at + c].to_vec()));
            at += c;
        }
        Ok(())
    }

    /// Inline PTX with side effects whose outputs are `tied` (each output register is the
    /// matching input), followed by `extra` inputs (constraints `extra_constraints`,
    /// numbered after the outputs); returns the outputs.
    fn passing_asm(
        &self,
        asm: &str,
        tied: &[Value<'c, 'a>],
        extra: &[Value<'c, 'a>],
        extra_constraints: &str,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        if tied.is_empty() {
            self.inline_asm(asm, extra_constraints, extra, None)?;
            return Ok(Vec::new());
        }
        let letter = |v: &Value<'c, 'a>| {
            if v.r#type().to_string().starts_with('f') {
                "f"
            } else {
                "r"
            }
        };
        let mut constraints: Vec<String> = tied.iter().map(|v| format!("={}", letter(v))).collect();
        if !extra_constraints.is_empty() {
            constraints.extend(extra_constraints.split(',').map(str::to_owned));
        }
        constraints.extend((0..tied.len()).map(|i| i.to_string()));
        let fields: Vec<String> = tied.iter().map(|v| v.r#type().to_string()).collect();
        let struct_ty = Type::parse(ctx, &format!("!llvm.struct<({})>", fields.join(", ")))
            .ok_or_else(|| self.error("cannot form the wgmma result type"))?;
        let mut operands = extra.to_vec();
        operands.extend_from_slice(tied);
        let result = self
            .inline_asm(asm, &constraints.join(","), &operands, Some(struct_ty))?
            .expect("invariant: an asm with a result type returns a value");
        tied.iter()
            .enumerate()
            .map(|(i, v)| {
                let pos = DenseI64ArrayAttribute::new(ctx, &[i as i64]).into();
                self.mlir(b.value("llvm.extractvalue", &[result], v.r#type(), &[("position", pos)]))
            })
            .collect()
    }

    /// An `i64` constant.
    fn i64c(&self, v: i64) -> Result<Value<'c, 'a>, LowerError> {
        let i64t: Type = IntegerType::new(self.b.context(), 64).into();
        let attr = IntegerAttribute::new(i64t, v).into();
        self.mlir(self.b.value("arith.constant", &[], i64t, &[("value", attr)]))
    }

    /// The descriptor of the slice of `desc` that starts at `coords`.
    fn desc_at(&self, desc: &Described<'c, 'a>, coords: [u64; 2]) -> Result<Value<'c, 'a>, LowerError> {
        let off = desc.byte_offset(coords);
        if off == 0 {
            return Ok(desc.base);
        }
        let c = self.i64c((off >> 4) as i64)?;
        self.mlir(self.b.binary("arith.addi", desc.base, c))
    }

    /// One shared-operand `wgmma` on accumulator `d`.
    fn wgmma_ss(
        &self,
        instr: &Instr,
        instr_n: u64,
        a: Value<'c, 'a>,
        b: Value<'c, 'a>,
        trans: [bool; 2],
        scale_d: i32,
        d: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let r = d.len();
        let regs = (0..r).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
        let mut tail = String::new();
        if instr.scaled {
            tail.push_str(", 1, 1");
        }
        if instr.transposable {
            tail.push_str(&format!(", {}, {}", u8::from(trans[0]), u8::from(trans[1])));
        }
        let asm = format!(
            "{{\n.reg .pred p;\nsetp.ne.b32 p, ${s}, 0;\nwgmma.mma_async.sync.aligned.m64n{instr_n}k{k}{t} {{{regs}}}, ${da}, ${db}, p{tail};\n}}",
            s = r + 2,
            k = instr.k_step,
            t = instr.types,
            da = r,
            db = r + 1,
        );
        let one = self.i32c(scale_d)?;
        self.passing_asm(&asm, d, &[a, b, one], "l,l,r")
    }

    /// One register-A `wgmma` (A as four 32-bit words) on accumulator `d`.
    fn wgmma_rs(
        &self,
        instr: &Instr,
        instr_n: u64,
        a: &[Value<'c, 'a>],
        b: Value<'c, 'a>,
        trans_b: bool,
        scale_d: i32,
        d: &[Value<'c, 'a>],
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let r = d.len();
        let regs = (0..r).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
        let mut tail = String::new();
        if instr.scaled {
            tail.push_str(", 1, 1");
        }
        if instr.transposable {
            tail.push_str(&format!(", {}", u8::from(trans_b)));
        }
        let asm = format!(
            "{{\n.reg .pred p;\nsetp.ne.b32 p, ${s}, 0;\nwgmma.mma_async.sync.aligned.m64n{instr_n}k{k}{t} {{{regs}}}, {{${a0}, ${a1}, ${a2}, ${a3}}}, ${db}, p{tail};\n}}",
            s = r + 5,
            k = instr.k_step,
            t = instr.types,
            a0 = r,
            a1 = r + 1,
            a2 = r + 2,
            a3 = r + 3,
            db = r + 4,
        );
        let one = self.i32c(scale_d)?;
        let mut extra = a.to_vec();
        extra.extend([b, one]);
        self.passing_asm(&asm, d, &extra, "r,r,r,r,l,r")
    }

    /// The four A words of a register-A `wgmma` at rows `m0…` and K `k0…` (16-bit A).
    fn a_words(
        &self,
        regs: &[Value<'c, 'a>],
        linear: &LinearLayout,
        m0: u64,
        k0: u64,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let reg_of: HashMap<(u64, u64), usize> = linear
            .register_coords()
            .into_iter()
            .enumerate()
            .map(|(i, c)| ((c[0], c[1]), i))
            .collect();
        let mut words = Vec::new();
        for (dk, dm) in [(0, 0), (0, 8), (8, 0), (8, 8)] {
            let pair = (0..2)
                .map(|c| {
                    reg_of
                        .get(&(m0 + dm, k0 + dk + c))
                        .map(|&i| regs[i])
                        .ok_or_else(|| self.error("internal: a register-A fragment element has no register"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            words.push(self.pack_word(&pair)?);
        }
        Ok(words)
    }

    /// Where operand `operand` of the `wgmma` dot `op` is read from, with the
    /// descriptor of this warpgroup's part (`wg` warpgroups of `wg_coords` each).
    #[allow(clippy::too_many_arguments)]
    fn wgmma_operand(
        &mut self,
        op: OpId,
        operand: usize,
        mma: &MmaLayout,
        dims: [u64; 2],
        elem_bytes: u64,
        wg: Value<'c, 'a>,
        wg_coords: [u64; 2],
        scratch_at: Option<u64>,
    ) -> Result<Source<'c, 'a>, LowerError> {
        let f = self.func;
        let v = f.op(op).operands()[operand];
        let b = self.b;
        let i8t: Type = IntegerType::new(b.context(), 8).into();
        // A buffer of the GPU IR (`ttg.local_load` of a pipeline or hoisted buffer).
        if let Some(load) = f.defining_op(v).filter(|&l| matches!(f.kind(l), OpKind::LocalLoad)) {
            let view = self.view(f.op(load).operands()[0])?;
            if view.layout.nvmma.is_none() {
                return Err(self.error("internal: a wgmma operand buffer is not in an nvmma layout"));
            }
            let dynamic = match view.index {
                Some(index) => {
                    let bytes = self.i32c((view.stride_elems * elem_bytes) as i32)?;
                    Some(self.mlir(b.binary("arith.muli", index, bytes))?)
                }
                None => None,
            };
            let ptr = self.pipe_slot(i8t, view.byte_offset, 0, dynamic)?;
            let base = self.descriptor(ptr, &view.layout, dims, elem_bytes, wg, wg_coords, operand)?;
            return Ok(Source::Shared(Described {
                base,
                layout: view.layout,
                dims,
                elem_bytes,
            }));
        }
        let a_layout = self
            .layouts
            .operand_layout(f, op, operand)
            .ok_or_else(|| self.error("dot operand without a layout"))?
            .clone();
        let linear = self.linear_of(v, &a_layout)?;
        let dt = f.value_type(v).dtype().unwrap_or(DType::F16);
        if operand == 0 && tritonc_ttgir::scratch::wgmma_a_in_registers(Some(&a_layout), mma, dt) {
            let regs = self.operand(op, 0)?.regs;
            return Ok(Source::Registers(regs, linear));
        }
        // Registers staged through the scratch in the layout a buffer would have, at the
        // offset the caller claimed.
        let layout = tritonc_ttgir::accelerate::operand_layout_for(mma, &linear, operand, dims, elem_bytes);
        let start = scratch_at.ok_or_else(|| self.error("internal: a staged wgmma operand without scratch"))?;
        let staged = Staged::from_layout(&layout, operand, dims, elem_bytes, start as u32, false);
        let regs = self.operand(op, operand)?.regs;
        let elem = self.elem_type(v)?;
        self.stage_write(&regs, elem, &linear, &staged)?;
        let ptr = self.shared_slot(i8t, start as u32, 0, None)?;
        let base = self.descriptor(ptr, &layout, dims, elem_bytes, wg, wg_coords, operand)?;
        Ok(Source::Shared(Described {
            base,
            layout,
            dims,
            elem_bytes,
        }))
    }

    /// Whether operand `operand` of the `wgmma` dot `op` is staged through the scratch.
    fn wgmma_stages(&self, op: OpId, operand: usize, mma: &MmaLayout) -> bool {
        let f = self.func;
        let v = f.op(op).operands()[operand];
        if f.defining_op(v).is_some_and(|l| matches!(f.kind(l), OpKind::LocalLoad)) {
            return false;
        }
        let dt = f.value_type(v).dtype().unwrap_or(DType::F16);
        !(operand == 0
            && tritonc_ttgir::scratch::wgmma_a_in_registers(self.layouts.operand_layout(f, op, 0), mma, dt))
    }

    /// The matrix descriptor of an operand of `dims` stored in `layout` at `ptr`, plus
    /// `wg` times the offset of element `wg_coords`.
    fn descriptor(
        &self,
        ptr: Value<'c, 'a>,
        layout: &SharedLayout,
        dims: [u64; 2],
        elem_bytes: u64,
        wg: Value<'c, 'a>,
        wg_coords: [u64; 2],
        operand: usize,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let i64t: Type = IntegerType::new(ctx, 64).into();
        let nv = layout
            .nvmma
            .ok_or_else(|| self.error("internal: a wgmma operand is not in an nvmma layout"))?;
        let swizzle = u64::from(nv.swizzle_bytes);
        let mode: u64 = match swizzle {
            128 => 1,
            64 => 2,
            _ => 3,
        };
        let fast = layout.order[0] as usize;
        let w = layout.block_elems().unwrap_or(1);
        // The leading byte offset: between column blocks of an operand stored MN-major
        // (zero when it is one block wide, as Triton writes it; unused K-major, where an
        // instruction's K slice never leaves its block).
        let k_dim = if operand == 0 { 1 } else { 0 };
        let lbo = if fast != k_dim && dims[fast] > w { dims[1 - fast] * swizzle / 16 } else { 0 };
        let sbo = 8 * swizzle / 16;
        let bits = (lbo << 16) | (sbo << 32) | (mode << 62);
        let mut addr = self.mlir(b.value("llvm.ptrtoint", &[ptr], i64t, &[]))?;
        let wg_off = layout.offset(&wg_coords, &dims) * elem_bytes;
        if wg_off != 0 {
            let wg64 = self.mlir(b.value("arith.extui", &[wg], i64t, &[]))?;
            let c = self.i64c(wg_off as i64)?;
            let off = self.mlir(b.binary("arith.muli", wg64, c))?;
            addr = self.mlir(b.binary("arith.addi", addr, off))?;
        }
        let mask = self.i64c(0x3FFFF)?;
        let addr = self.mlir(b.binary("arith.andi", addr, mask))?;
        let four = self.i64c(4)?;
        let addr = self.mlir(b.binary("arith.shrui", addr, four))?;
        let bits = self.i64c(bits as i64)?;
        self.mlir(b.binary("arith.ori", addr, bits))
    }
}

