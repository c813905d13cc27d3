//! Executes one program: walks the function's blocks and evaluates each op on whole blocks.

use std::rc::Rc;

use half::{bf16, f16};
use tritonc_ir::{BlockId, DType, Elem, Function, OpId, OpKind, RmwOp, Type, Value};

use crate::data::{shape_of, storage_of, Data, Storage, Val};
use crate::elementwise as ew;
use crate::error::{RtResult, RuntimeError, RuntimeErrorKind};
use crate::memory::{AccessLog, ProgramMemory};
use crate::numerics::{libdevice_fn, ExternFn};
use crate::shape;
use crate::InterpOptions;

/// The state of one running program.
pub struct Program<'a> {
    pub(crate) func: &'a Function,
    env: Vec<Option<Rc<Val>>>,
    pub(crate) pid: [u32; 3],
    grid: [u32; 3],
    pub(crate) mem: ProgramMemory<'a>,
    pub(crate) log: AccessLog,
    opts: &'a InterpOptions,
    pub(crate) orders: &'a crate::order::CombineOrders,
    /// Lines printed by `tt.print`.
    pub(crate) prints: Vec<String>,
}

/// Attaches the op's location and the program id to an error.
fn at_op(mut e: RuntimeError, func: &Function, op: OpId, pid: [u32; 3]) -> RuntimeError {
    if e.loc.is_none() {
        e.loc = Some(func.op(op).loc.clone());
        e.op_name = Some(func.kind(op).name());
    }
    e.program.get_or_insert(pid);
    e
}

impl<'a> Program<'a> {
    /// A program `pid` of a launch over `grid`.
    pub fn new(
        func: &'a Function,
        pid: [u32; 3],
        grid: [u32; 3],
        mem: ProgramMemory<'a>,
        opts: &'a InterpOptions,
        orders: &'a crate::order::CombineOrders,
    ) -> Self {
        Program {
            func,
            env: vec![None; func.num_values()],
            pid,
            grid,
            mem,
            log: AccessLog::default(),
            opts,
            orders,
            prints: Vec::new(),
        }
    }

    /// Runs the kernel body with the given argument values.
    pub fn run(&mut self, args: &[Rc<Val>]) -> RtResult<()> {
        let entry = self.func.entry_block();
        self.exec_block(entry, args).map(|_| ())
    }

    fn get(&self, v: Value) -> Rc<Val> {
        self.env[v.index()]
            .clone()
            .expect("the verifier guarantees every operand is defined before use")
    }

    fn set(&mut self, v: Value, val: Val) {
        self.env[v.index()] = Some(Rc::new(val));
    }

    /// Runs a block with `args` bound to its arguments; returns its terminator's operands.
    pub(crate) fn exec_block(
        &mut self,
        block: BlockId,
        args: &[Rc<Val>],
    ) -> RtResult<Vec<Rc<Val>>> {
        let func = self.func;
        let data = func.block(block);
        for (&a, v) in data.args().iter().zip(args) {
            self.env[a.index()] = Some(v.clone());
        }
        for &op in data.ops() {
            if func.kind(op).is_terminator() {
                return Ok(func
                    .op(op)
                    .operands()
                    .iter()
                    .map(|&v| self.get(v))
                    .collect());
            }
            self.exec_op(op).map_err(|e| at_op(e, func, op, self.pid))?;
        }
        Ok(Vec::new())
    }

    fn result_type(&self, op: OpId) -> &'a Type {
        self.func.value_type(self.func.op(op).results()[0])
    }

    fn result_shape(&self, op: OpId) -> RtResult<Vec<usize>> {
        shape_of(self.result_type(op))
            .ok_or_else(|| RuntimeError::unsupported("generic (unspecialized) shapes"))
    }

    fn result_dtype(&self, op: OpId) -> RtResult<DType> {
        self.result_type(op)
            .dtype()
            .filter(|d| !d.is_var())
            .ok_or_else(|| RuntimeError::unsupported("a result without a concrete dtype"))
    }

    fn exec_op(&mut self, op: OpId) -> RtResult<()> {
        let func = self.func;
        let data = func.op(op);
        let ops: Vec<Rc<Val>> = data.operands().iter().map(|&v| self.get(v)).collect();
        let results = data.results();
        let kind = func.kind(op);
        // Most ops produce one value with the operand's shape.
        let same_shape = |d: Data| Val::new(ops[0].shape.clone(), d);
        let out: Val = match kind {
            OpKind::GetProgramId { axis } => {
                Val::scalar(Data::I32(vec![self.pid[*axis as usize] as i32]))
            }
            OpKind::GetNumPrograms { axis } => {
                Val::scalar(Data::I32(vec![self.grid[*axis as usize] as i32]))
            }
            OpKind::Constant(c) => {
                let ty = self.result_type(op);
                let shape = self.result_shape(op)?;
                let n = shape.iter().product();
                Val::new(shape, Data::splat_const(ty.elem(), *c, n))
            }
            OpKind::MakeRange { start, end } => Val::new(
                vec![(end - start) as usize],
                Data::I32((*start..*end).collect()),
            ),
            OpKind::Splat => {
                let shape = self.result_shape(op)?;
                let n = shape.iter().product();
                Val::new(shape, ops[0].data.repeat_elem(0, n))
            }
            OpKind::Broadcast => shape::broadcast(&ops[0], &self.result_shape(op)?)?,
            OpKind::ExpandDims { .. } | OpKind::Reshape { .. } => {
                Val::new(self.result_shape(op)?, ops[0].data.clone())
            }
            OpKind::Hint(_) => (*ops[0]).clone(),
            OpKind::Trans { order } => shape::transpose(&ops[0], order),
            OpKind::Join => shape::join(&ops[0], &ops[1])?,
            OpKind::Split => {
                let (a, b) = shape::split(&ops[0]);
                self.set(results[0], a);
                self.set(results[1], b);
                return Ok(());
            }
            OpKind::Cat => {
                let d = ops[0]
                    .data
                    .concat(&ops[1].data)
                    .ok_or_else(|| RuntimeError::unsupported("`tt.cat` of different types"))?;
                Val::new(self.result_shape(op)?, d)
            }
            OpKind::Binary(b) => same_shape(ew::binary(*b, &ops[0].data, &ops[1].data)?),
            OpKind::CmpI(p) => same_shape(ew::cmpi(*p, &ops[0].data, &ops[1].data)?),
            OpKind::CmpF(p) => same_shape(ew::cmpf(*p, &ops[0].data, &ops[1].data)?),
            OpKind::Select => Val::new(
                self.result_shape(op)?,
                ew::select(&ops[0].data, &ops[1].data, &ops[2].data)?,
            ),
            OpKind::Cast { op: c, rounding } => {
                let to = self.result_dtype(op)?;
                same_shape(ew::cast(*c, *rounding, &ops[0].data, to)?)
            }
            OpKind::FpToFp { rounding } => {
                let to = self.result_dtype(op)?;
                same_shape(ew::fp_to_fp(&ops[0].data, to, *rounding)?)
            }
            OpKind::IntToPtr => {
                let v: Vec<u64> = (0..ops[0].numel())
                    .map(|i| ops[0].data.get_i64(i) as u64)
                    .collect();
                same_shape(Data::Ptr(v))
            }
            OpKind::PtrToInt => {
                let Data::Ptr(p) = &ops[0].data else {
                    return Err(RuntimeError::unsupported(
                        "`tt.ptr_to_int` of a non-pointer",
                    ));
                };
                same_shape(Data::I64(p.iter().map(|&a| a as i64).collect()))
            }
            OpKind::AddPtr => self.addptr(op, &ops[0], &ops[1])?,
            OpKind::Math(m) => same_shape(ew::math(*m, &ops[0].data)?),
            OpKind::Fma => same_shape(ew::fma(&ops[0].data, &ops[1].data, &ops[2].data)?),
            OpKind::PreciseSqrt => same_shape(ew::math(tritonc_ir::MathOp::Sqrt, &ops[0].data)?),
            OpKind::PreciseDivF => same_shape(ew::binary(
                tritonc_ir::BinaryOp::DivF,
                &ops[0].data,
                &ops[1].data,
            )?),
            OpKind::MulHiUI => same_shape(ew::mulhiui(&ops[0].data, &ops[1].data)?),
            OpKind::ClampF { propagate_nan } => same_shape(ew::clampf(
                &ops[0].data,
                &ops[1].data,
                &ops[2].data,
                *propagate_nan,
            )?),
            OpKind::ExternElementwise { symbol, .. } => {
                let to = self.result_dtype(op)?;
                Val::new(self.result_shape(op)?, extern_call(symbol, &ops, to)?)
            }
            // Target assembly has no CPU meaning (tritonc-sema's `builtins/inline_asm.rs`).
            OpKind::ElementwiseInlineAsm { .. } => {
                return Err(RuntimeError::unsupported(
                    "`tl.inline_asm_elementwise`: its target assembly (PTX) cannot run on the CPU; \
                     run the kernel on a GPU (`tritonc run` without `--interpret`)",
                ))
            }
            OpKind::Load { .. } => self.load(op, &ops)?,
            OpKind::Store { .. } => {
                self.store(op, &ops)?;
                return Ok(());
            }
            OpKind::AtomicRmw { op: rmw, .. } => self.atomic_rmw(op, *rmw, &ops)?,
            OpKind::AtomicCas { .. } => self.atomic_cas(op, &ops)?,
            OpKind::Reduce { axis } => {
                let outs = self.reduce(op, *axis as usize, &ops)?;
                for (&r, v) in results.iter().zip(outs) {
                    self.set(r, v);
                }
                return Ok(());
            }
            OpKind::Scan { axis, reverse } => {
                let outs = self.scan(op, *axis as usize, *reverse, &ops)?;
                for (&r, v) in results.iter().zip(outs) {
                    self.set(r, v);
                }
                return Ok(());
            }
            OpKind::Dot {
                input_precision, ..
            } => {
                let to = self.result_dtype(op)?;
                crate::dot::dot(&ops[0], &ops[1], &ops[2], *input_precision, to)?
            }
            OpKind::Print { prefix, hex } => {
                let mut line = format!(
                    "pid ({}, {}, {}) {prefix}",
                    self.pid[0], self.pid[1], self.pid[2]
                );
                for v in &ops {
                    let items: Vec<String> = (0..v.numel())
                        .map(|i| {
                            if *hex {
                                format!("{:#x}", v.data.get_i64(i))
                            } else {
                                let f = v.data.get_f64(i);
                                format!("{f}")
                            }
                        })
                        .collect();
                    line.push_str(&format!(" [{}]", items.join(", ")));
                }
                self.prints.push(line);
                return Ok(());
            }
            OpKind::Assert { message } => {
                let Data::Bool(c) = &ops[0].data else {
                    return Err(RuntimeError::unsupported(
                        "a `tt.assert` whose condition is not `i1`",
                    ));
                };
                // Every lane checks its element, as on the GPU; the first false one is
                // reported (a scalar condition has no lane).
                if let Some(lane) = c.iter().position(|&b| !b) {
                    let shape = &ops[0].shape;
                    let err = RuntimeError::new(RuntimeErrorKind::AssertFailed {
                        message: message.clone(),
                        element: unravel(lane, shape),
                    });
                    return Err(if shape.is_empty() {
                        err
                    } else {
                        err.at_lane(lane)
                    });
                }
                return Ok(());
            }
            // Programs of one launch run to completion in order, and launches one after
            // another: there is no earlier grid to wait for and no dependent to release.
            OpKind::Barrier | OpKind::GdcWait | OpKind::GdcLaunchDependents => return Ok(()),
            OpKind::For { .. } => {
                let outs = self.exec_for(op, &ops)?;
                for (&r, v) in results.iter().zip(outs) {
                    self.env[r.index()] = Some(v);
                }
                return Ok(());
            }
            OpKind::If => {
                let Data::Bool(c) = &ops[0].data else {
                    return Err(RuntimeError::unsupported("a non-i1 `scf.if` condition"));
                };
                let region = if c[0] { 0 } else { 1 };
                let outs = match func.region_entry(op, region) {
                    Some(b) => self.exec_block(b, &[])?,
                    None => Vec::new(),
                };
                for (&r, v) in results.iter().zip(outs) {
                    self.env[r.index()] = Some(v);
                }
                return Ok(());
            }
            OpKind::While => {
                let outs = self.exec_while(op, ops)?;
                for (&r, v) in results.iter().zip(outs) {
                    self.env[r.index()] = Some(v);
                }
                return Ok(());
            }
            // A layout change moves no value: the interpreter holds whole blocks.
            OpKind::ConvertLayout => (*ops[0]).clone(),
            k @ (OpKind::LocalAlloc { .. }
            | OpKind::LocalDealloc
            | OpKind::LocalLoad
            | OpKind::LocalStore
            | OpKind::MemDescIndex
            | OpKind::AsyncCopyGlobalToLocal { .. }
            | OpKind::AsyncCommitGroup
            | OpKind::AsyncWait { .. }
            | OpKind::WarpGroupDotWait { .. }) => {
                return Err(RuntimeError::unsupported(format!(
                    "`{}` (a GPU-IR op; the interpreter runs the tile IR)",
                    k.name()
                )))
            }
            OpKind::ReduceReturn
            | OpKind::ScanReturn
            | OpKind::Yield
            | OpKind::Condition
            | OpKind::Return => unreachable!("terminators end exec_block"),
        };
        self.set(results[0], out);
        Ok(())
    }

    fn exec_for(&mut self, op: OpId, ops: &[Rc<Val>]) -> RtResult<Vec<Rc<Val>>> {
        let body = self
            .func
            .region_entry(op, 0)
            .expect("scf.for has a body region");
        let (lb, ub, step) = (
            ops[0].data.get_i64(0),
            ops[1].data.get_i64(0),
            ops[2].data.get_i64(0),
        );
        if step <= 0 {
            return Err(RuntimeError::unsupported(format!(
                "an `scf.for` with step {step} (it must be positive)"
            )));
        }
        let iv_ty = ops[0].data.clone();
        let mut iters: Vec<Rc<Val>> = ops[3..].to_vec();
        let mut i = lb;
        let mut count = 0u64;
        while i < ub {
            count += 1;
            if count > self.opts.max_loop_iterations {
                return Err(RuntimeError::new(RuntimeErrorKind::NoProgress {
                    steps: self.opts.max_loop_iterations,
                }));
            }
            let iv = Rc::new(Val::scalar(int_like(&iv_ty, i)));
            let mut args = Vec::with_capacity(iters.len() + 1);
            args.push(iv);
            args.extend(iters.iter().cloned());
            iters = self.exec_block(body, &args)?;
            i = match i.checked_add(step) {
                Some(n) => n,
                None => break,
            };
        }
        Ok(iters)
    }

    fn exec_while(&mut self, op: OpId, ops: Vec<Rc<Val>>) -> RtResult<Vec<Rc<Val>>> {
        let before = self
            .func
            .region_entry(op, 0)
            .expect("scf.while has a before region");
        let after = self
            .func
            .region_entry(op, 1)
            .expect("scf.while has an after region");
        let mut args = ops;
        let mut count = 0u64;
        loop {
            count += 1;
            if count > self.opts.max_loop_iterations {
                return Err(RuntimeError::new(RuntimeErrorKind::NoProgress {
                    steps: self.opts.max_loop_iterations,
                }));
            }
            let cond = self.exec_block(before, &args)?;
            let Data::Bool(c) = &cond[0].data else {
                return Err(RuntimeError::unsupported("a non-i1 `scf.condition`"));
            };
            let pass: Vec<Rc<Val>> = cond[1..].to_vec();
            if !c[0] {
                return Ok(pass);
            }
            args = self.exec_block(after, &pass)?;
        }
    }

    fn addptr(&mut self, op: OpId, p: &Val, off: &Val) -> RtResult<Val> {
        let Elem::Ptr(pt) = self.result_type(op).elem() else {
            return Err(RuntimeError::unsupported(
                "`tt.addptr` without a pointer result",
            ));
        };
        let size = pt.pointee.size_bytes().unwrap_or(1) as i64;
        let Data::Ptr(base) = &p.data else {
            return Err(RuntimeError::unsupported("`tt.addptr` of a non-pointer"));
        };
        // Offsets sign-extend (LLVM GEP semantics); unsigned offsets arrive zero-extended.
        let n = base.len().max(off.numel());
        let get_off = |i: usize| off.data.get_i64(if off.numel() == 1 { 0 } else { i });
        let v: Vec<u64> = (0..n)
            .map(|i| {
                let b = base[if base.len() == 1 { 0 } else { i }];
                b.wrapping_add(get_off(i).wrapping_mul(size) as u64)
            })
            .collect();
        Ok(Val::new(p.shape.clone(), Data::Ptr(v)))
    }

    fn load(&mut self, op: OpId, ops: &[Rc<Val>]) -> RtResult<Val> {
        let Data::Ptr(ptrs) = &ops[0].data else {
            return Err(RuntimeError::unsupported("`tt.load` of a non-pointer"));
        };
        let mask = match ops.get(1).map(|m| &m.data) {
            Some(Data::Bool(m)) => Some(m.as_slice()),
            _ => None,
        };
        let dtype = self.result_dtype(op)?;
        let other = ops.get(2).map(|o| &o.data);
        let poison = self.opts.poison_masked && other.is_none();
        let shape = ops[0].shape.clone();
        let pid = self.pid;
        let (mem, log) = (&self.mem, &mut self.log);
        macro_rules! ld {
            ($var:ident, $t:ty, $poison:expr) => {{
                let other_v: Option<&Vec<$t>> = match other {
                    Some(Data::$var(o)) => Some(o),
                    _ => None,
                };
                let v = mem
                    .load::<$t>(
                        ptrs,
                        mask,
                        |i| match other_v {
                            Some(o) => o[if o.len() == 1 { 0 } else { i }],
                            None if poison => $poison,
                            None => <$t>::default(),
                        },
                        log,
                        op,
                    )
                    .map_err(|(lane, k)| lane_error(k, lane, pid))?;
                Data::$var(v)
            }};
        }
        let data = match storage_of(dtype) {
            Storage::Bool => ld!(Bool, bool, true),
            Storage::I8 => ld!(I8, i8, 0x5a),
            Storage::I16 => ld!(I16, i16, 0x5a5a),
            Storage::I32 => ld!(I32, i32, 0x5a5a_5a5a),
            Storage::I64 => ld!(I64, i64, 0x5a5a_5a5a_5a5a_5a5a),
            Storage::F16 => ld!(F16, f16, f16::NAN),
            Storage::BF16 => ld!(BF16, bf16, bf16::NAN),
            Storage::F32 => ld!(F32, f32, f32::NAN),
            Storage::F64 => ld!(F64, f64, f64::NAN),
            Storage::F8(k) => {
                let other_v: Option<&Vec<u8>> = match other {
                    Some(Data::F8(_, o)) => Some(o),
                    _ => None,
                };
                let v = mem
                    .load::<u8>(
                        ptrs,
                        mask,
                        |i| match other_v {
                            Some(o) => o[if o.len() == 1 { 0 } else { i }],
                            None if poison => k.nan_bits(),
                            None => 0,
                        },
                        log,
                        op,
                    )
                    .map_err(|(lane, e)| lane_error(e, lane, pid))?;
                Data::F8(k, v)
            }
        };
        Ok(Val::new(shape, data))
    }

    fn store(&mut self, op: OpId, ops: &[Rc<Val>]) -> RtResult<()> {
        let Data::Ptr(ptrs) = &ops[0].data else {
            return Err(RuntimeError::unsupported("`tt.store` to a non-pointer"));
        };
        let mask = match ops.get(2).map(|m| &m.data) {
            Some(Data::Bool(m)) => Some(m.as_slice()),
            _ => None,
        };
        let pid = self.pid;
        let (mem, log) = (&mut self.mem, &mut self.log);
        let r = match &ops[1].data {
            Data::Bool(v) => mem.store(ptrs, v, mask, log, op),
            Data::I8(v) => mem.store(ptrs, v, mask, log, op),
            Data::I16(v) => mem.store(ptrs, v, mask, log, op),
            Data::I32(v) => mem.store(ptrs, v, mask, log, op),
            Data::I64(v) => mem.store(ptrs, v, mask, log, op),
            Data::F16(v) => mem.store(ptrs, v, mask, log, op),
            Data::BF16(v) => mem.store(ptrs, v, mask, log, op),
            Data::F32(v) => mem.store(ptrs, v, mask, log, op),
            Data::F64(v) => mem.store(ptrs, v, mask, log, op),
            Data::F8(_, v) => mem.store(ptrs, v, mask, log, op),
            Data::Ptr(v) => mem.store(ptrs, v, mask, log, op),
        };
        r.map_err(|(lane, k)| lane_error(k, lane, pid))
    }

    fn atomic_rmw(&mut self, op: OpId, rmw: RmwOp, ops: &[Rc<Val>]) -> RtResult<Val> {
        let Data::Ptr(ptrs) = &ops[0].data else {
            return Err(RuntimeError::unsupported(
                "`tt.atomic_rmw` on a non-pointer",
            ));
        };
        let mask = match ops.get(2).map(|m| &m.data) {
            Some(Data::Bool(m)) => Some(m.clone()),
            _ => None,
        };
        let vals = &ops[1].data;
        let pid = self.pid;
        let n = ptrs.len();
        let lane_val = |i: usize| if vals.len() == 1 { 0 } else { i };
        macro_rules! rmw_int {
            ($var:ident, $t:ty, $ut:ty) => {{
                let Data::$var(v) = vals else { unreachable!() };
                let mut out = vec![<$t>::default(); n];
                for i in 0..n {
                    if mask.as_ref().is_some_and(|m| !m[i]) {
                        continue;
                    }
                    let x = v[lane_val(i)];
                    out[i] = self
                        .mem
                        .read_modify_write::<$t>(ptrs[i], |old| match rmw {
                            RmwOp::Add => old.wrapping_add(x),
                            RmwOp::Max => old.max(x),
                            RmwOp::Min => old.min(x),
                            RmwOp::UMax => (old as $ut).max(x as $ut) as $t,
                            RmwOp::UMin => (old as $ut).min(x as $ut) as $t,
                            RmwOp::And => old & x,
                            RmwOp::Or => old | x,
                            RmwOp::Xor => old ^ x,
                            RmwOp::Xchg => x,
                            RmwOp::FAdd => old,
                        })
                        .map_err(|k| lane_error(k, i, pid))?;
                }
                Data::$var(out)
            }};
        }
        macro_rules! rmw_float {
            ($var:ident, $t:ty, $add:expr) => {{
                let Data::$var(v) = vals else { unreachable!() };
                let mut out = vec![<$t>::default(); n];
                for i in 0..n {
                    if mask.as_ref().is_some_and(|m| !m[i]) {
                        continue;
                    }
                    let x = v[lane_val(i)];
                    out[i] = self
                        .mem
                        .read_modify_write::<$t>(ptrs[i], |old| match rmw {
                            RmwOp::FAdd | RmwOp::Add => $add(old, x),
                            RmwOp::Xchg => x,
                            _ => old,
                        })
                        .map_err(|k| lane_error(k, i, pid))?;
                }
                Data::$var(out)
            }};
        }
        if matches!(rmw, RmwOp::FAdd)
            && !matches!(
                vals,
                Data::F16(_) | Data::BF16(_) | Data::F32(_) | Data::F64(_)
            )
        {
            return Err(RuntimeError::unsupported("`fadd` on a non-float"));
        }
        let data = match vals {
            Data::I32(_) => rmw_int!(I32, i32, u32),
            Data::I64(_) => rmw_int!(I64, i64, u64),
            Data::F32(_) => rmw_float!(F32, f32, |a: f32, b: f32| a + b),
            Data::F64(_) => rmw_float!(F64, f64, |a: f64, b: f64| a + b),
            Data::F16(_) => rmw_float!(F16, f16, |a: f16, b: f16| f16::from_f32(
                a.to_f32() + b.to_f32()
            )),
            Data::BF16(_) => rmw_float!(BF16, bf16, |a: bf16, b: bf16| bf16::from_f32(
                a.to_f32() + b.to_f32()
            )),
            _ => return Err(RuntimeError::unsupported("`tt.atomic_rmw` on this type")),
        };
        let _ = op;
        Ok(Val::new(ops[0].shape.clone(), data))
    }

    fn atomic_cas(&mut self, _op: OpId, ops: &[Rc<Val>]) -> RtResult<Val> {
        let Data::Ptr(ptrs) = &ops[0].data else {
            return Err(RuntimeError::unsupported(
                "`tt.atomic_cas` on a non-pointer",
            ));
        };
        let pid = self.pid;
        macro_rules! cas {
            ($var:ident, $t:ty, $bits:expr) => {{
                let (Data::$var(c), Data::$var(v)) = (&ops[1].data, &ops[2].data) else {
                    return Err(RuntimeError::unsupported(
                        "`tt.atomic_cas` with mismatched types",
                    ));
                };
                let mut out = Vec::with_capacity(ptrs.len());
                for i in 0..ptrs.len() {
                    let j = |x: &Vec<$t>| x[if x.len() == 1 { 0 } else { i }];
                    let (cmp, new) = (j(c), j(v));
                    let old = self
                        .mem
                        .read_modify_write::<$t>(ptrs[i], |old| {
                            if $bits(old) == $bits(cmp) {
                                new
                            } else {
                                old
                            }
                        })
                        .map_err(|k| lane_error(k, i, pid))?;
                    out.push(old);
                }
                Data::$var(out)
            }};
        }
        let data = match &ops[1].data {
            Data::I16(_) => cas!(I16, i16, |x: i16| x),
            Data::I32(_) => cas!(I32, i32, |x: i32| x),
            Data::I64(_) => cas!(I64, i64, |x: i64| x),
            Data::F16(_) => cas!(F16, f16, |x: f16| x.to_bits()),
            Data::F32(_) => cas!(F32, f32, |x: f32| x.to_bits()),
            Data::F64(_) => cas!(F64, f64, |x: f64| x.to_bits()),
            _ => return Err(RuntimeError::unsupported("`tt.atomic_cas` on this type")),
        };
        Ok(Val::new(ops[0].shape.clone(), data))
    }
}

/// A lane-level memory error with its program.
fn lane_error(kind: RuntimeErrorKind, lane: usize, pid: [u32; 3]) -> RuntimeError {
    let mut e = RuntimeError::new(kind).at_lane(lane);
    e.program = Some(pid);
    e
}

/// A scalar integer of the same storage as `like`.
fn int_like(like: &Data, v: i64) -> Data {
    match like {
        Data::I8(_) => Data::I8(vec![v as i8]),
        Data::I16(_) => Data::I16(vec![v as i16]),
        Data::I64(_) => Data::I64(vec![v]),
        _ => Data::I32(vec![v as i32]),
    }
}

/// `tt.extern_elementwise` by libdevice symbol.
fn extern_call(symbol: &str, ops: &[Rc<Val>], to: DType) -> RtResult<Data> {
    let f = libdevice_fn(symbol)
        .ok_or_else(|| RuntimeError::unsupported(format!("the extern function `{symbol}`")))?;
    let to_bool_i32 = |pred: &dyn Fn(f64) -> bool| -> RtResult<Data> {
        let v = ew::to_f64_vec(&ops[0].data)
            .ok_or_else(|| RuntimeError::unsupported(format!("`{symbol}` on a non-float")))?;
        let r: Vec<i64> = v.iter().map(|&x| pred(x) as i64).collect();
        Ok(match storage_of(to) {
            Storage::Bool => Data::Bool(r.iter().map(|&x| x != 0).collect()),
            _ => Data::I32(r.iter().map(|&x| x as i32).collect()),
        })
    };
    match f {
        ExternFn::Unary(u) => ew::unary_float(u, &ops[0].data),
        ExternFn::Binary(b) => {
            let x = ew::to_f64_vec(&ops[0].data);
            let y = ew::to_f64_vec(&ops[1].data);
            let (Some(x), Some(y)) = (x, y) else {
                return Err(RuntimeError::unsupported(format!(
                    "`{symbol}` on non-floats"
                )));
            };
            let (x, y) = if x.len() == y.len() {
                (x, y)
            } else if x.len() == 1 {
                (vec![x[0]; y.len()], y)
            } else {
                let n = x.len();
                (x, vec![y[0]; n])
            };
            let r: Vec<f64> = x.iter().zip(&y).map(|(&a, &c)| b.eval(a, c)).collect();
            if to == DType::F32 {
                // Correctly rounded f32 ops (division) must not round through f64 twice.
                if let (Data::F32(a), Data::F32(c)) = (&ops[0].data, &ops[1].data) {
                    if b == crate::numerics::BinaryFn::DivRn && a.len() == c.len() {
                        return Ok(Data::F32(a.iter().zip(c).map(|(&p, &q)| p / q).collect()));
                    }
                }
            }
            ew::float_from_f64_vec(&r, to, tritonc_ir::RoundingMode::Rtne)
        }
        ExternFn::Fma => ew::fma(&ops[0].data, &ops[1].data, &ops[2].data),
        ExternFn::IsNan => to_bool_i32(&|x| x.is_nan()),
        ExternFn::IsInf => to_bool_i32(&|x| x.is_infinite()),
        ExternFn::IsFinite => to_bool_i32(&|x| x.is_finite()),
        ExternFn::Signbit => to_bool_i32(&|x| x.is_sign_negative()),
    }
}

/// The row-major multi-index of flat element `i` of a block of `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        let n = n.max(1);
        index[d] = i % n;
        i /= n;
    }
    index
}
