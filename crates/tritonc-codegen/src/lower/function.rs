//! The lowering of one kernel: a walk over its tile ops, each turned into per-thread
//! MLIR at the op's source location.

use std::collections::HashMap;

use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    r#type::IntegerType,
    Type, Value,
};
use tritonc_diagnostics::SourceMap;
use tritonc_ir::{ConstValue, DType, Elem, Function, OpId, OpKind};
use tritonc_ttgir::{Layout, LayoutAssignment, LinearLayout};

use super::{mlir_location, CompileOptions, LowerError};
use crate::body::BodyBuilder;

/// A lowered tile-IR value: the registers one thread holds (one for a scalar).
#[derive(Clone)]
pub(crate) struct Lowered<'c, 'a> {
    /// The registers, in the layout's register order.
    pub regs: Vec<Value<'c, 'a>>,
    /// Whether the value is a per-program scalar (every thread holds the same).
    pub scalar: bool,
}

impl<'c, 'a> Lowered<'c, 'a> {
    pub fn scalar(v: Value<'c, 'a>) -> Self {
        Lowered {
            regs: vec![v],
            scalar: true,
        }
    }

    pub fn block(regs: Vec<Value<'c, 'a>>) -> Self {
        Lowered {
            regs,
            scalar: false,
        }
    }

    /// Register `i`, or the scalar itself.
    pub fn reg(&self, i: usize) -> Value<'c, 'a> {
        if self.scalar {
            self.regs[0]
        } else {
            self.regs[i]
        }
    }
}

/// The lane and warp bases of a linear layout: all a thread's offsets depend on.
pub(crate) type ThreadBases = (Vec<Vec<u64>>, Vec<Vec<u64>>);

/// Builders of the nested blocks of structured control flow, alive for the whole
/// lowering so that [`FunctionLowering::b`] can point at any of them.
#[derive(Default)]
pub(crate) struct BuilderArena<'c, 'a> {
    // Boxed: handed-out references must survive the vector growing.
    #[allow(clippy::vec_box)]
    builders: std::cell::RefCell<Vec<Box<BodyBuilder<'c, 'a>>>>,
}

impl<'c, 'a> BuilderArena<'c, 'a> {
    /// Keeps `b` for the arena's lifetime.
    pub fn alloc(&self, b: BodyBuilder<'c, 'a>) -> &BodyBuilder<'c, 'a> {
        let boxed = Box::new(b);
        let ptr: *const BodyBuilder<'c, 'a> = &*boxed;
        self.builders.borrow_mut().push(boxed);
        // SAFETY: the box is never dropped or moved out before the arena is dropped
        // (the vector only grows), so its heap address stays valid for `&self`.
        unsafe { &*ptr }
    }
}

pub(crate) struct FunctionLowering<'l, 'c, 'a> {
    pub b: &'l BodyBuilder<'c, 'a>,
    pub arena: &'l BuilderArena<'c, 'a>,
    pub func: &'l Function,
    pub layouts: &'l LayoutAssignment,
    pub sources: &'l SourceMap,
    pub options: &'l CompileOptions,
    args: Vec<Value<'c, 'a>>,
    pub values: HashMap<tritonc_ir::Value, Lowered<'c, 'a>>,
    pub converted: HashMap<(tritonc_ir::Value, Layout), Lowered<'c, 'a>>,
    /// Integer blocks whose register `i` is register 0 plus a compile-time constant
    /// `deltas[i]` (in the value's own layout): aranges and what adds uniform values to
    /// them. See `affine.rs`.
    pub affine: HashMap<tritonc_ir::Value, Vec<i64>>,
    /// This thread's coordinate offsets per (lane bases, warp bases) of a layout.
    pub offsets: HashMap<ThreadBases, Vec<Option<Value<'c, 'a>>>>,
    thread: Option<(Value<'c, 'a>, Value<'c, 'a>)>,
    /// Bytes of shared scratch the kernel needs (the largest single use).
    pub shared_bytes: u32,
    /// The ops that may stage values through shared scratch
    /// ([`tritonc_ttgir::scratch::scratch_ops`]); the barriers between them are the GPU
    /// IR's (`tritonc-place-barriers`).
    pub scratch_ops: std::collections::HashSet<OpId>,
    /// The op that last claimed scratch: a second claim by the same op (a later phase of
    /// it) waits for the first phase's readers.
    pub scratch_owner: Option<OpId>,
    /// A GPU-IR barrier just before this scratch op, emitted where the op first writes
    /// its scratch (after its in-register phases) instead of before the whole op.
    pub deferred_barrier: Option<OpId>,
    pub current_op: Option<OpId>,
    /// The oldest compute capability the emitted code runs on (fp8 conversions need
    /// sm_89), with the op that needs it.
    pub requires_sm: Option<(u32, Option<tritonc_diagnostics::Span>, String)>,
    /// External functions called (libdevice), with their argument and result types.
    pub externs: std::collections::BTreeMap<String, (Vec<Type<'c>>, Type<'c>)>,
    /// The target compiled for.
    pub target: crate::target::Target,
    /// The lowered shared buffers of the GPU IR and their views (`buffers.rs`).
    pub views: HashMap<tritonc_ir::Value, super::buffers::SharedView<'c, 'a>>,
    /// Shared buffers allocated and not yet deallocated.
    pub live_buffers: usize,
    /// Bytes the shared buffers span at the start of shared memory.
    pub pipe_bytes: u32,
    /// Where the scratch starts: after the shared buffers while any is live, at 0
    /// elsewhere.
    pub scratch_base: u32,
}

/// The MLIR type of a dtype (signless integers; `i1` stays `i1`).
pub(crate) fn dtype_type<'c>(ctx: &'c melior::Context, d: DType) -> Option<Type<'c>> {
    Some(match d {
        DType::I1 => IntegerType::new(ctx, 1).into(),
        DType::I8 | DType::U8 => IntegerType::new(ctx, 8).into(),
        DType::I16 | DType::U16 => IntegerType::new(ctx, 16).into(),
        DType::I32 | DType::U32 => IntegerType::new(ctx, 32).into(),
        DType::I64 | DType::U64 => IntegerType::new(ctx, 64).into(),
        DType::F16 => Type::float16(ctx),
        DType::BF16 => Type::bfloat16(ctx),
        DType::F32 => Type::float32(ctx),
        DType::F64 => Type::float64(ctx),
        // NVIDIA's fp8 formats travel as their bytes; `tt.fp_to_fp` converts them.
        DType::F8E4M3FN | DType::F8E5M2 => IntegerType::new(ctx, 8).into(),
        _ => return None,
    })
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub fn new(
        b: &'l BodyBuilder<'c, 'a>,
        arena: &'l BuilderArena<'c, 'a>,
        func: &'l Function,
        layouts: &'l LayoutAssignment,
        sources: &'l SourceMap,
        options: &'l CompileOptions,
        args: Vec<Value<'c, 'a>>,
    ) -> Self {
        FunctionLowering {
            b,
            arena,
            func,
            layouts,
            sources,
            options,
            args,
            values: HashMap::new(),
            converted: HashMap::new(),
            affine: HashMap::new(),
            offsets: HashMap::new(),
            thread: None,
            shared_bytes: 0,
            scratch_ops: tritonc_ttgir::scratch::scratch_ops(func, layouts),
            scratch_owner: None,
            deferred_barrier: None,
            current_op: None,
            externs: std::collections::BTreeMap::new(),
            requires_sm: None,
            target: crate::target::Target::nvidia(80),
            views: HashMap::new(),
            live_buffers: 0,
            pipe_bytes: 0,
            scratch_base: 0,
        }
    }

    /// Bytes of shared memory the kernel needs: the largest scratch use (counted from
    /// where the scratch started then) or the pipeline buffers.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes.max(self.pipe_bytes)
    }

    /// An error at the op being lowered.
    pub fn error(&self, message: impl Into<String>) -> LowerError {
        LowerError {
            message: message.into(),
            span: self
                .current_op
                .and_then(|op| self.func.op(op).loc.known_span()),
        }
    }

    pub fn mlir<T>(&self, r: Result<T, crate::CodegenError>) -> Result<T, LowerError> {
        r.map_err(|e| self.error(e.to_string()))
    }

    pub fn run(&mut self) -> Result<(), LowerError> {
        for (i, &arg) in self.func.args().iter().enumerate() {
            self.values.insert(arg, Lowered::scalar(self.args[i]));
        }
        // Computed up front: a first use inside a loop would not dominate later uses.
        self.warp_lane()?;
        self.pipe_bytes = self.buffer_bytes()?;
        self.lower_block(self.func.entry_block())?;
        Ok(())
    }

    /// The MLIR type of an IR value's element.
    pub fn elem_type(&self, v: tritonc_ir::Value) -> Result<Type<'c>, LowerError> {
        match self.func.value_type(v).elem() {
            Elem::Ptr(p) => Ok(self.b.ptr_type(p.addr_space)),
            Elem::DType(d) => dtype_type(self.b.context(), d).ok_or_else(|| {
                self.error(format!(
                    "dtype `{d}` is not supported by the NVIDIA back end yet"
                ))
            }),
        }
    }

    /// `(warp, lane)` of this thread, computed once.
    pub fn warp_lane(&mut self) -> Result<(Value<'c, 'a>, Value<'c, 'a>), LowerError> {
        if let Some(t) = self.thread {
            return Ok(t);
        }
        let b = self.b;
        let tid = self.mlir(b.thread_id_x())?;
        let warp_size = b.warp_size();
        let mask = self.mlir(b.const_i32(warp_size as i32 - 1))?;
        let lane = self.mlir(b.binary("arith.andi", tid, mask))?;
        let five = self.mlir(b.const_i32(warp_size.trailing_zeros() as i32))?;
        let warp = self.mlir(b.binary("arith.shrui", tid, five))?;
        self.thread = Some((warp, lane));
        Ok((warp, lane))
    }

    /// `sum over set bits i of bits: ((bits >> i) & 1) * bases[i][dim]`, as i32.
    fn bits_to_offset(
        &self,
        bits: Value<'c, 'a>,
        bases: &[Vec<u64>],
        dim: usize,
    ) -> Result<Option<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let mut acc: Option<Value<'c, 'a>> = None;
        for (i, base) in bases.iter().enumerate() {
            let x = base[dim];
            if x == 0 {
                continue;
            }
            let bit = self.mlir(b.const_i32(1 << i))?;
            let masked = self.mlir(b.binary("arith.andi", bits, bit))?;
            let target = x.trailing_zeros() as i32;
            let moved = match target.cmp(&(i as i32)) {
                std::cmp::Ordering::Equal => masked,
                std::cmp::Ordering::Greater => {
                    let s = self.mlir(b.const_i32(target - i as i32))?;
                    self.mlir(b.binary("arith.shli", masked, s))?
                }
                std::cmp::Ordering::Less => {
                    let s = self.mlir(b.const_i32(i as i32 - target))?;
                    self.mlir(b.binary("arith.shrui", masked, s))?
                }
            };
            acc = Some(match acc {
                None => moved,
                Some(a) => self.mlir(b.binary("arith.ori", a, moved))?,
            });
        }
        Ok(acc)
    }

    /// This thread's coordinate offset per dim in `linear` (lanes and warps), as i32;
    /// `None` where it is 0 for every thread.
    pub fn thread_offsets(
        &mut self,
        linear: &LinearLayout,
    ) -> Result<Vec<Option<Value<'c, 'a>>>, LowerError> {
        let key = (linear.lanes.clone(), linear.warps.clone());
        if let Some(done) = self.offsets.get(&key) {
            return Ok(done.clone());
        }
        let (warp, lane) = self.warp_lane()?;
        let mut out = Vec::new();
        for d in 0..linear.shape.len() {
            let l = self.bits_to_offset(lane, &linear.lanes, d)?;
            let w = self.bits_to_offset(warp, &linear.warps, d)?;
            out.push(match (l, w) {
                (Some(l), Some(w)) => Some(self.mlir(self.b.binary("arith.ori", l, w))?),
                (x, None) | (None, x) => x,
            });
        }
        self.offsets.insert(key, out.clone());
        Ok(out)
    }

    /// `register + thread offset` for one dim, as i32.
    pub fn coord(
        &self,
        reg_part: u64,
        offset: Option<Value<'c, 'a>>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let c = self.mlir(self.b.const_i32(reg_part as i32))?;
        match offset {
            None => Ok(c),
            Some(o) if reg_part == 0 => Ok(o),
            // Disjoint bits: or is add.
            Some(o) => self.mlir(self.b.binary("arith.ori", o, c)),
        }
    }

    /// The layout `v` is used in by operand `i` of the current op.
    pub fn linear_of(
        &self,
        v: tritonc_ir::Value,
        layout: &Layout,
    ) -> Result<LinearLayout, LowerError> {
        let shape = self
            .func
            .value_type(v)
            .known_shape()
            .ok_or_else(|| self.error("block shape unknown at compile time"))?;
        layout
            .to_linear(&shape)
            .map_err(|e| self.error(e.to_string()))
    }

    /// Operand `i` of `op` (in the GPU IR, already in the layout the op needs).
    pub fn operand(&mut self, op: OpId, i: usize) -> Result<Lowered<'c, 'a>, LowerError> {
        let v = self.func.op(op).operands()[i];
        self.values
            .get(&v)
            .cloned()
            .ok_or_else(|| self.error("operand used before it was lowered"))
    }

    /// `ttg.convert_layout`: the operand's registers in the result's encoding. A value
    /// already rebuilt in that layout (by an earlier conversion that rematerialized it)
    /// is reused.
    fn lower_convert_layout(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let (v, r) = (data.operands()[0], data.results()[0]);
        let encoding =
            |x: tritonc_ir::Value| {
                self.func.value_type(x).encoding().cloned().ok_or_else(|| {
                    self.error("`ttg.convert_layout` of a value without an encoding")
                })
            };
        let (from, to) = (encoding(v)?, encoding(r)?);
        let lowered = match self.converted.get(&(v, to.clone())) {
            Some(done) => done.clone(),
            None => {
                let lowered = self.convert(v, &from, &to)?;
                self.converted.insert((v, to), lowered.clone());
                lowered
            }
        };
        self.set(op, lowered);
        Ok(())
    }

    /// `v` rebuilt in layout `to`: cheap values are recomputed there
    /// ([`Self::rematerialize`]), anything else moves through shared memory.
    fn convert(
        &mut self,
        v: tritonc_ir::Value,
        from: &Layout,
        to: &Layout,
    ) -> Result<Lowered<'c, 'a>, LowerError> {
        if let Some(again) = self.rematerialize(v, to, 0)? {
            return Ok(again);
        }
        let target = self.linear_of(v, to)?;
        let source = self.linear_of(v, from)?;
        let regs = self.values[&v].regs.clone();
        let elem = self.elem_type(v)?;
        let from_mma = matches!(from, Layout::Mma(_));
        let out = self.through_shared(&regs, elem, &source, &target, from_mma)?;
        Ok(Lowered::block(out))
    }

    /// `v` computed afresh in layout `to` when it is built only from constants, splats,
    /// ranges and elementwise arithmetic on them (index and mask math, as Triton's
    /// `remove_layout_conversions` rematerializes it); `None` otherwise.
    fn rematerialize(
        &mut self,
        v: tritonc_ir::Value,
        to: &Layout,
        depth: u32,
    ) -> Result<Option<Lowered<'c, 'a>>, LowerError> {
        const MAX_DEPTH: u32 = 12;
        if !self.func.value_type(v).is_tensor() {
            return Ok(self.values.get(&v).cloned());
        }
        if let Some(done) = self.converted.get(&(v, to.clone())) {
            return Ok(Some(done.clone()));
        }
        let Some(def) = self.func.defining_op(v) else {
            return Ok(None);
        };
        // A conversion is only a change of layout: rebuild what it converts (at the same
        // depth, as if the conversion were not there).
        if matches!(self.func.kind(def), OpKind::ConvertLayout) {
            let source = self.func.op(def).operands()[0];
            return self.rematerialize(source, to, depth);
        }
        if depth > MAX_DEPTH {
            return Ok(None);
        }
        let target = self.linear_of(v, to)?;
        let n = target.num_registers() as usize;
        let kind = self.func.kind(def).clone();
        let lowered = match kind {
            OpKind::Constant(_) => match self.values.get(&v) {
                Some(l) => Lowered::block(vec![l.reg(0); n]),
                None => return Ok(None),
            },
            OpKind::Splat => {
                let s = self.func.op(def).operands()[0];
                match self.values.get(&s) {
                    Some(l) => Lowered::block(vec![l.reg(0); n]),
                    None => return Ok(None),
                }
            }
            OpKind::MakeRange { start, .. } => self.make_range(start, &target)?,
            OpKind::Broadcast | OpKind::ExpandDims { .. } => {
                let src = self.func.op(def).operands()[0];
                let expand_axis = match kind {
                    OpKind::ExpandDims { axis } => Some(axis as usize),
                    _ => None,
                };
                // The operand in the layout that broadcasts (or expands) into `to`.
                let src_layout = match expand_axis {
                    Some(axis) => to.slice(axis as u32),
                    None => to.clone(),
                };
                let Some(l) = self.rematerialize(src, &src_layout, depth + 1)? else {
                    return Ok(None);
                };
                let src_lin = self.linear_of(src, &src_layout)?;
                Lowered::block(self.pick_registers(&l, &src_lin, &target, expand_axis)?)
            }
            OpKind::Binary(_)
            | OpKind::CmpI(_)
            | OpKind::CmpF(_)
            | OpKind::Select
            | OpKind::Cast { .. }
            | OpKind::AddPtr => {
                let shape = self.func.value_type(v).known_shape();
                let operands = self.func.op(def).operands().to_vec();
                let mut lowered_operands = Vec::new();
                for o in operands {
                    let ty = self.func.value_type(o);
                    if ty.is_tensor() && ty.known_shape() != shape {
                        return Ok(None);
                    }
                    match self.rematerialize(o, to, depth + 1)? {
                        Some(l) => lowered_operands.push(l),
                        None => return Ok(None),
                    }
                }
                let result_ty = self.elem_type(v)?;
                let result_dtype = self.func.value_type(v).dtype();
                let operand_dtype = self
                    .func
                    .op(def)
                    .operands()
                    .first()
                    .and_then(|&o| self.func.value_type(o).dtype());
                let mut regs = Vec::with_capacity(n);
                for i in 0..n {
                    let args: Vec<Value<'c, 'a>> =
                        lowered_operands.iter().map(|l| l.reg(i)).collect();
                    regs.push(self.scalar_op(
                        &kind,
                        &args,
                        result_ty,
                        result_dtype,
                        operand_dtype,
                        def,
                    )?);
                }
                Lowered::block(regs)
            }
            _ => return Ok(None),
        };
        self.converted.insert((v, to.clone()), lowered.clone());
        Ok(Some(lowered))
    }

    pub fn make_range(
        &mut self,
        start: i32,
        linear: &LinearLayout,
    ) -> Result<Lowered<'c, 'a>, LowerError> {
        let offsets = self.thread_offsets(linear)?;
        let mut regs = Vec::new();
        for c in linear.register_coords() {
            let part = c[0] as i64 + i64::from(start);
            regs.push(self.coord(part as u64, offsets[0])?);
        }
        Ok(Lowered::block(regs))
    }

    /// The layout of result `v` of the current op, linear.
    pub fn result_linear(&self, v: tritonc_ir::Value) -> Result<LinearLayout, LowerError> {
        let layout = self
            .layouts
            .layout(v)
            .ok_or_else(|| self.error("block value without a layout"))?
            .clone();
        self.linear_of(v, &layout)
    }

    fn set(&mut self, op: OpId, lowered: Lowered<'c, 'a>) {
        let r = self.func.op(op).results()[0];
        self.values.insert(r, lowered);
    }

    /// An `arith.constant` of `value` in the element type of `v`.
    pub fn constant(
        &self,
        v: tritonc_ir::Value,
        value: ConstValue,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let ty = self.elem_type(v)?;
        let ctx = self.b.context();
        let attr = match value {
            ConstValue::Int(i) => IntegerAttribute::new(ty, i as i64).into(),
            ConstValue::Float(f) => FloatAttribute::new(ctx, ty, f).into(),
        };
        self.mlir(self.b.value("arith.constant", &[], ty, &[("value", attr)]))
    }

    /// An `i64` constant.
    pub fn const_i64(&self, v: i64) -> Result<Value<'c, 'a>, LowerError> {
        let ty: Type = IntegerType::new(self.b.context(), 64).into();
        let attr = IntegerAttribute::new(ty, v).into();
        self.mlir(self.b.value("arith.constant", &[], ty, &[("value", attr)]))
    }

    /// Points the builder at `op`'s source location (errors too).
    pub fn at_op(&mut self, op: OpId) {
        self.current_op = Some(op);
        let loc = mlir_location(self.b.context(), self.sources, &self.func.op(op).loc);
        self.b.set_location(loc);
    }

    pub fn lower_op(&mut self, op: OpId) -> Result<(), LowerError> {
        let lowered = self.lower_op_kind(op);
        if self.deferred_barrier == Some(op) {
            // The op did not use its scratch after all (a conversion recomputed).
            self.deferred_barrier = None;
            self.mlir(self.b.barrier())?;
        }
        lowered
    }

    fn lower_op_kind(&mut self, op: OpId) -> Result<(), LowerError> {
        self.at_op(op);
        let kind = self.func.kind(op).clone();
        let data = self.func.op(op);
        let result = data.results().first().copied();
        let b = self.b;
        match kind {
            OpKind::Return => Ok(()),
            OpKind::For { .. } => self.lower_for(op),
            OpKind::If => self.lower_if(op),
            OpKind::While => self.lower_while(op),
            OpKind::GetProgramId { axis } => {
                let v = self.mlir(b.gpu_index("gpu.block_id", axis))?;
                self.set(op, Lowered::scalar(v));
                Ok(())
            }
            OpKind::GetNumPrograms { axis } if b.is_amd() => {
                // ockl's `__ockl_get_num_groups(dim)` (i64), as Triton's AMD back end asks
                // for it: `gpu.grid_dim` lowered for ROCDL with 32-bit indices mixes i64
                // into i32 arithmetic.
                let i64t: Type<'c> = IntegerType::new(b.context(), 64).into();
                let i32t: Type<'c> = IntegerType::new(b.context(), 32).into();
                let dim = self.mlir(b.const_i32(axis as i32))?;
                let symbol = "__ockl_get_num_groups";
                self.externs.insert(symbol.to_string(), (vec![i32t], i64t));
                let wide = self.mlir(b.call(symbol, &[dim], i64t))?;
                let v = self.mlir(b.value("arith.trunci", &[wide], i32t, &[]))?;
                self.set(op, Lowered::scalar(v));
                Ok(())
            }
            OpKind::GetNumPrograms { axis } => {
                let v = self.mlir(b.gpu_index("gpu.grid_dim", axis))?;
                self.set(op, Lowered::scalar(v));
                Ok(())
            }
            OpKind::Constant(c) => {
                let r = result.expect("invariant: a constant has one result");
                let dtype = self.func.value_type(r).dtype();
                let v = match (dtype, c) {
                    // fp8 lives as its byte: the value is converted as `tt.fp_to_fp` would
                    // (nearest even, saturating), zero without an instruction.
                    (Some(d), ConstValue::Float(f)) if d.is_fp8() => {
                        if f == 0.0 {
                            let i8t: Type = IntegerType::new(self.b.context(), 8).into();
                            let bits = if f.is_sign_negative() { -128 } else { 0 };
                            let attr = IntegerAttribute::new(i8t, bits).into();
                            self.mlir(self.b.value("arith.constant", &[], i8t, &[("value", attr)]))?
                        } else {
                            let x = self.mlir(self.b.const_f32(f as f32))?;
                            self.fp_to_fp(x, DType::F32, d, None)?
                        }
                    }
                    _ => self.constant(r, c)?,
                };
                let lowered = if self.func.value_type(r).is_tensor() {
                    let n = self.result_linear(r)?.num_registers() as usize;
                    Lowered::block(vec![v; n])
                } else {
                    Lowered::scalar(v)
                };
                self.set(op, lowered);
                Ok(())
            }
            OpKind::MakeRange { start, .. } => {
                let r = result.expect("invariant: make_range has one result");
                let linear = self.result_linear(r)?;
                let lowered = self.make_range(start, &linear)?;
                self.record_range_deltas(r, &linear);
                self.set(op, lowered);
                Ok(())
            }
            OpKind::Splat => {
                let r = result.expect("invariant: splat has one result");
                let n = self.result_linear(r)?.num_registers() as usize;
                let s = self.operand(op, 0)?.reg(0);
                self.set(op, Lowered::block(vec![s; n]));
                Ok(())
            }
            OpKind::Broadcast | OpKind::ExpandDims { .. } => self.lower_reshape_like(op),
            OpKind::Hint(_) => {
                let v = self.operand(op, 0)?;
                self.set(op, v);
                Ok(())
            }
            OpKind::Load { .. } => self.lower_load(op),
            OpKind::Store { .. } => self.lower_store(op),
            OpKind::Reduce { .. } => self.lower_reduce(op),
            OpKind::Scan { .. } => self.lower_scan(op),
            OpKind::Dot { .. } => self.lower_dot(op),
            OpKind::Print { .. } => self.lower_print(op),
            OpKind::Assert { .. } => self.lower_assert(op),
            OpKind::FpToFp { .. } => self.lower_elementwise(op),
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => self.lower_atomic(op),
            OpKind::Trans { .. }
            | OpKind::Reshape { .. }
            | OpKind::Join
            | OpKind::Split
            | OpKind::Cat => self.lower_shape_op(op),
            OpKind::Barrier => {
                let block = self.func.op(op).parent();
                let next = block.and_then(|blk| {
                    let ops = self.func.block(blk).ops();
                    let at = ops.iter().position(|&o| o == op)?;
                    ops.get(at + 1).copied()
                });
                match next.filter(|n| self.scratch_ops.contains(n)) {
                    Some(n) => self.deferred_barrier = Some(n),
                    None => self.mlir(b.barrier())?,
                }
                Ok(())
            }
            OpKind::GdcWait | OpKind::GdcLaunchDependents => self.lower_grid_dep_control(op),
            OpKind::ElementwiseInlineAsm { .. } => self.lower_inline_asm(op),
            OpKind::ConvertLayout => self.lower_convert_layout(op),
            OpKind::LocalAlloc { .. }
            | OpKind::LocalDealloc
            | OpKind::LocalLoad
            | OpKind::LocalStore
            | OpKind::MemDescIndex
            | OpKind::AsyncCopyGlobalToLocal { .. }
            | OpKind::AsyncCommitGroup
            | OpKind::AsyncWait { .. } => self.lower_buffer_op(op),
            OpKind::WarpGroupDotWait { .. } => self.lower_warp_group_dot_wait(op),
            k if k.num_regions() == 0 && result.is_some() => self.lower_elementwise(op),
            k => Err(self.error(format!(
                "`{}` is not supported by the NVIDIA back end yet",
                k.name()
            ))),
        }
    }

    /// `tt.broadcast` and `tt.expand_dims`: each result register reads the operand
    /// register at the same element with the stretched (or new) dims at 0.
    fn lower_reshape_like(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let src_v = data.operands()[0];
        let r = data.results()[0];
        let src_layout = self
            .layouts
            .operand_layout(self.func, op, 0)
            .ok_or_else(|| self.error("operand without a layout"))?
            .clone();
        let src_lin = self.linear_of(src_v, &src_layout)?;
        let dst_lin = self.result_linear(r)?;
        let src = self.operand(op, 0)?;
        let expand_axis = match self.func.kind(op) {
            OpKind::ExpandDims { axis } => Some(*axis as usize),
            _ => None,
        };
        let regs = self.pick_registers(&src, &src_lin, &dst_lin, expand_axis)?;
        self.set(op, Lowered::block(regs));
        Ok(())
    }

    /// The registers of a `tt.broadcast` (or `tt.expand_dims`, inserting `expand_axis`)
    /// result in `dst` picked from the operand's registers in `src`: each reads the
    /// operand element with the stretched (or new) dims at 0.
    fn pick_registers(
        &self,
        src: &Lowered<'c, 'a>,
        src_lin: &LinearLayout,
        dst: &LinearLayout,
        expand_axis: Option<usize>,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let index: HashMap<Vec<u64>, usize> = src_lin
            .register_coords()
            .into_iter()
            .enumerate()
            .map(|(i, c)| (c, i))
            .collect();
        let mut regs = Vec::new();
        for c in dst.register_coords() {
            let key: Vec<u64> = match expand_axis {
                Some(axis) => c
                    .iter()
                    .enumerate()
                    .filter(|&(d, _)| d != axis)
                    .map(|(_, &x)| x)
                    .collect(),
                None => c
                    .iter()
                    .zip(&src_lin.shape)
                    .map(|(&x, &s)| if s == 1 { 0 } else { x })
                    .collect(),
            };
            let i = index.get(&key).ok_or_else(|| {
                self.error(
                    "internal: the operand's layout does not hold the element a register needs",
                )
            })?;
            regs.push(src.reg(*i));
        }
        Ok(regs)
    }
}
