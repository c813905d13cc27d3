//! `tt.print` (`tl.device_print`): one `gpu.printf` (CUDA's `vprintf`) per element a
//! thread owns, in Triton's shape: `pid (x, y, z) idx (i, j) prefix: value`.
//!
//! Threads holding replicas stay quiet (as for stores); a scalar is printed by thread 0
//! of each program. Floats print as `%f` of the value widened to f64, integers as `%d`
//! / `%u` / `%lld` / `%llu` (`0x%x` with `hex=True`), pointers as `0x%llx`.
//!
//! `tt.assert` (`tl.device_assert` in debug mode): each thread folds the conditions of
//! the elements it holds into one `i1` and, if any is false, calls CUDA's
//! `__assertfail(message, file, line, function, 1)`, as Triton does. The call comes from
//! MLIR's own `cf.assert` lowering in `convert-gpu-to-nvvm`, which reads the file and
//! line from the op's location and the function from a name location around it: Triton
//! passes `"unknown"` there, and so do we. The driver prints
//! `file:line: unknown: block: [x,y,z], thread: [x,y,z] Assertion `message` failed.`,
//! and the launch fails with `CUDA_ERROR_ASSERT` (710).

use melior::ir::{attribute::StringAttribute, r#type::IntegerType, Location, Type, Value};
use tritonc_ir::{DType, Elem, OpId, OpKind};

use super::function::FunctionLowering;
use super::{mlir_location, LowerError};

/// The function name Triton passes to `__assertfail` (its lowering never knows it).
const ASSERT_FUNCTION: &str = "unknown";

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_print(&mut self, op: OpId) -> Result<(), LowerError> {
        if self.b.is_amd() {
            // NVIDIA's `vprintf`; AMD's is ockl's hostcall printf, not lowered yet.
            return Err(self.error("`tl.device_print` has no AMD lowering yet"));
        }
        let OpKind::Print { prefix, hex } = self.func.kind(op).clone() else {
            unreachable!("invariant: lower_print is called on tt.print")
        };
        // `%` in the prefix is text, not a conversion.
        let prefix = prefix.replace('%', "%%");
        let operands = self.func.op(op).operands().to_vec();
        let b = self.b;
        let pids: Vec<Value<'c, 'a>> = (0..3)
            .map(|axis| self.mlir(b.gpu_index("gpu.block_id", axis)))
            .collect::<Result<_, _>>()?;
        if operands.is_empty() {
            let format = format!("pid (%u, %u, %u){prefix}\n");
            let first = self.is_thread_zero()?;
            return self.printf_if(Some(first), &format, &pids);
        }
        for (i, &v) in operands.iter().enumerate() {
            let note = if operands.len() > 1 {
                format!("(operand {i}) ")
            } else {
                String::new()
            };
            let (spec, convert) = self.print_spec(v, hex)?;
            let lowered = self.operand(op, i)?;
            if !self.func.value_type(v).is_tensor() {
                let value = convert(self, lowered.reg(0))?;
                let format = format!("pid (%u, %u, %u) idx (){prefix}{note}{spec}\n");
                let mut args = pids.clone();
                args.push(value);
                let first = self.is_thread_zero()?;
                self.printf_if(Some(first), &format, &args)?;
                continue;
            }
            let layout = self
                .layouts
                .operand_layout(self.func, op, i)
                .ok_or_else(|| self.error("printed block without a layout"))?
                .clone();
            let linear = self.linear_of(v, &layout)?;
            let offsets = self.thread_offsets(&linear)?;
            let owner = self.owner_predicate(op, i, v)?;
            let idx_format = vec!["%u"; linear.shape.len()].join(", ");
            let format = format!("pid (%u, %u, %u) idx ({idx_format}){prefix}{note}{spec}\n");
            for (r, coords) in linear.register_coords().iter().enumerate() {
                let mut args = pids.clone();
                for (d, &c) in coords.iter().enumerate() {
                    args.push(self.coord(c, offsets[d])?);
                }
                args.push(convert(self, lowered.reg(r))?);
                self.printf_if(owner, &format, &args)?;
            }
        }
        Ok(())
    }

    pub(super) fn lower_assert(&mut self, op: OpId) -> Result<(), LowerError> {
        if self.b.is_amd() {
            // NVIDIA's `__assertfail`; AMD's is ockl's `__assert_fail`, not lowered yet.
            return Err(self.error(
                "`tl.device_assert` in debug mode has no AMD lowering yet (compile without \
                 debug mode, where asserts compile to nothing)",
            ));
        }
        let OpKind::Assert { message } = self.func.kind(op).clone() else {
            unreachable!("invariant: lower_assert is called on tt.assert")
        };
        let cond = self.func.op(op).operands()[0];
        let is_block = self.func.value_type(cond).is_tensor();
        let lowered = self.operand(op, 0)?;
        let b = self.b;
        // Replicated elements hold the same value, so folding them too changes nothing.
        let mut ok = lowered.reg(0);
        if !lowered.scalar {
            for &r in &lowered.regs[1..] {
                ok = self.mlir(b.binary("arith.andi", ok, r))?;
            }
        }
        let ctx = b.context();
        b.set_location(self.assert_location(op));
        let msg = StringAttribute::new(ctx, &message).into();
        let emitted = b.effect("cf.assert", &[ok], &[("msg", msg)]);
        self.at_op(op);
        self.mlir(emitted)?;
        if is_block {
            // As Triton: the threads wait for each other, so none runs ahead into an op
            // (in another layout) that the assert guards.
            self.mlir(b.barrier())?;
        }
        Ok(())
    }

    /// The location `__assertfail` reads: the assert's own `file:line` (in the helper it
    /// was written in) under the name Triton passes as the function, then the call sites.
    fn assert_location(&self, op: OpId) -> Location<'c> {
        let ctx = self.b.context();
        let loc = &self.func.op(op).loc;
        let Some(span) = loc.known_span() else {
            return Location::name(ctx, ASSERT_FUNCTION, Location::unknown(ctx));
        };
        let at = |s| mlir_location(ctx, self.sources, &tritonc_ir::Location::new(s));
        let mut result = Location::name(ctx, ASSERT_FUNCTION, at(span));
        for &call in &loc.call_sites {
            result = Location::call_site(result, at(call));
        }
        result
    }

    /// `tid == 0`.
    fn is_thread_zero(&mut self) -> Result<Value<'c, 'a>, LowerError> {
        let (warp, lane) = self.warp_lane()?;
        let b = self.b;
        let any = self.mlir(b.binary("arith.ori", warp, lane))?;
        let zero = self.mlir(b.const_i32(0))?;
        self.mlir(b.cmpi(crate::body::IntPredicate::Eq, any, zero))
    }

    fn printf_if(
        &self,
        pred: Option<Value<'c, 'a>>,
        format: &str,
        args: &[Value<'c, 'a>],
    ) -> Result<(), LowerError> {
        let b = self.b;
        let ctx = b.context();
        let attr = StringAttribute::new(ctx, format).into();
        match pred {
            None => self.mlir(b.effect("gpu.printf", args, &[("format", attr)])),
            Some(p) => {
                let r = b.if_else(
                    p,
                    &[],
                    |then| {
                        then.effect("gpu.printf", args, &[("format", attr)])?;
                        Ok(Vec::new())
                    },
                    |_| Ok(Vec::new()),
                );
                self.mlir(r).map(|_| ())
            }
        }
    }

    /// The printf conversion of `v`'s elements and how to widen one for `vprintf`.
    #[allow(clippy::type_complexity)]
    fn print_spec(
        &self,
        v: tritonc_ir::Value,
        hex: bool,
    ) -> Result<
        (
            &'static str,
            fn(&Self, Value<'c, 'a>) -> Result<Value<'c, 'a>, LowerError>,
        ),
        LowerError,
    > {
        fn widen_f64<'l, 'c, 'a>(
            this: &FunctionLowering<'l, 'c, 'a>,
            x: Value<'c, 'a>,
        ) -> Result<Value<'c, 'a>, LowerError> {
            let f64t = Type::float64(this.b.context());
            this.mlir(this.b.value("arith.extf", &[x], f64t, &[]))
        }
        fn keep<'l, 'c, 'a>(
            _: &FunctionLowering<'l, 'c, 'a>,
            x: Value<'c, 'a>,
        ) -> Result<Value<'c, 'a>, LowerError> {
            Ok(x)
        }
        fn sext32<'l, 'c, 'a>(
            this: &FunctionLowering<'l, 'c, 'a>,
            x: Value<'c, 'a>,
        ) -> Result<Value<'c, 'a>, LowerError> {
            let i32t: Type = IntegerType::new(this.b.context(), 32).into();
            this.mlir(this.b.value("arith.extsi", &[x], i32t, &[]))
        }
        fn zext32<'l, 'c, 'a>(
            this: &FunctionLowering<'l, 'c, 'a>,
            x: Value<'c, 'a>,
        ) -> Result<Value<'c, 'a>, LowerError> {
            let i32t: Type = IntegerType::new(this.b.context(), 32).into();
            this.mlir(this.b.value("arith.extui", &[x], i32t, &[]))
        }
        fn ptr_bits<'l, 'c, 'a>(
            this: &FunctionLowering<'l, 'c, 'a>,
            x: Value<'c, 'a>,
        ) -> Result<Value<'c, 'a>, LowerError> {
            let i64t: Type = IntegerType::new(this.b.context(), 64).into();
            this.mlir(this.b.value("llvm.ptrtoint", &[x], i64t, &[]))
        }
        let spec: (
            &'static str,
            fn(&Self, Value<'c, 'a>) -> Result<Value<'c, 'a>, LowerError>,
        ) = match self.func.value_type(v).elem() {
            Elem::Ptr(_) => ("0x%llx", ptr_bits),
            Elem::DType(d) => match d {
                DType::F16 | DType::BF16 | DType::F32 => ("%f", widen_f64),
                DType::F64 => ("%f", keep),
                DType::I64 | DType::U64 if hex => ("0x%llx", keep),
                DType::I64 => ("%lld", keep),
                DType::U64 => ("%llu", keep),
                DType::I32 | DType::U32 if hex => ("0x%x", keep),
                DType::I32 => ("%d", keep),
                DType::U32 => ("%u", keep),
                DType::I1 | DType::U8 | DType::U16 => (if hex { "0x%x" } else { "%u" }, zext32),
                DType::I8 | DType::I16 => (if hex { "0x%x" } else { "%d" }, sext32),
                other => {
                    return Err(self.error(format!(
                        "printing `{other}` is not supported by the NVIDIA back end yet"
                    )))
                }
            },
        };
        Ok(spec)
    }
}
