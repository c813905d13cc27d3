//! The builder: creates ops at an insertion point, inferring result types.
//!
//! The builder does not check its inputs (that is the verifier's job); it computes the
//! natural result type from the operands and never panics on odd shapes.

use crate::function::{BlockId, Function, OpId, Value};
use crate::location::Location;
use crate::ops::*;
use crate::types::{DType, Dim, Elem, PtrType, Type};

/// Where new ops go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InsertPoint {
    /// At the end of the block.
    End(BlockId),
    /// Before this op.
    Before(OpId),
}

/// Creates ops in one function at an insertion point, with a current location.
pub struct Builder<'f> {
    func: &'f mut Function,
    point: InsertPoint,
    loc: Location,
}

/// An `scf.for` just created: its body block, induction variable, iter args and results.
#[derive(Debug, Clone)]
pub struct ForLoop {
    /// The op.
    pub op: OpId,
    /// The body block (append ops, then `scf.yield`).
    pub body: BlockId,
    /// The induction variable (body argument 0).
    pub induction_var: Value,
    /// The loop-carried values inside the body.
    pub iter_args: Vec<Value>,
    /// The loop results.
    pub results: Vec<Value>,
}

/// An `scf.if` just created.
#[derive(Debug, Clone)]
pub struct IfOp {
    /// The op.
    pub op: OpId,
    /// The then block.
    pub then_block: BlockId,
    /// The else block.
    pub else_block: BlockId,
    /// The results.
    pub results: Vec<Value>,
}

/// An `scf.while` just created.
#[derive(Debug, Clone)]
pub struct WhileLoop {
    /// The op.
    pub op: OpId,
    /// The before block (computes the condition; ends in `scf.condition`).
    pub before: BlockId,
    /// The before block's arguments (the current loop-carried values).
    pub before_args: Vec<Value>,
    /// The after block (the loop body; ends in `scf.yield`).
    pub after: BlockId,
    /// The after block's arguments (the values `scf.condition` forwards).
    pub after_args: Vec<Value>,
    /// The results (the values forwarded by the final `scf.condition`).
    pub results: Vec<Value>,
}

/// A `tt.reduce` or `tt.scan` just created, with its combiner block.
#[derive(Debug, Clone)]
pub struct Combiner {
    /// The op.
    pub op: OpId,
    /// The combiner block.
    pub body: BlockId,
    /// The accumulated values (first half of the block arguments).
    pub lhs: Vec<Value>,
    /// The new values (second half of the block arguments).
    pub rhs: Vec<Value>,
    /// The results.
    pub results: Vec<Value>,
}

/// Options of `tt.load` beyond its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Cache modifier.
    pub cache: CacheModifier,
    /// Eviction policy.
    pub evict: EvictionPolicy,
    /// Volatile.
    pub is_volatile: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            cache: CacheModifier::None,
            evict: EvictionPolicy::Normal,
            is_volatile: false,
        }
    }
}

impl<'f> Builder<'f> {
    /// A builder appending to the end of `block`.
    pub fn at_end(func: &'f mut Function, block: BlockId) -> Self {
        Builder {
            func,
            point: InsertPoint::End(block),
            loc: Location::unknown(),
        }
    }

    /// A builder inserting before `op`.
    pub fn before(func: &'f mut Function, op: OpId) -> Self {
        Builder {
            func,
            point: InsertPoint::Before(op),
            loc: Location::unknown(),
        }
    }

    /// Moves the insertion point to the end of `block`.
    pub fn set_insertion_end(&mut self, block: BlockId) {
        self.point = InsertPoint::End(block);
    }

    /// Moves the insertion point to just before `op`.
    pub fn set_insertion_before(&mut self, op: OpId) {
        self.point = InsertPoint::Before(op);
    }

    /// The block new ops go into.
    pub fn insertion_block(&self) -> Option<BlockId> {
        match self.point {
            InsertPoint::End(b) => Some(b),
            InsertPoint::Before(op) => self.func.op(op).parent(),
        }
    }

    /// Sets the location given to new ops.
    pub fn set_loc(&mut self, loc: Location) {
        self.loc = loc;
    }

    /// The location given to new ops.
    pub fn loc(&self) -> &Location {
        &self.loc
    }

    /// The function being built.
    pub fn func(&self) -> &Function {
        self.func
    }

    /// Mutable access to the function being built.
    pub fn func_mut(&mut self) -> &mut Function {
        self.func
    }

    /// The type of `v` (cloned).
    pub fn type_of(&self, v: Value) -> Type {
        self.func.value_type(v).clone()
    }

    /// Creates an op of `kind` at the insertion point; regions get one empty block each.
    pub fn insert(&mut self, kind: OpKind, operands: &[Value], result_types: Vec<Type>) -> OpId {
        let regions = kind.num_regions();
        let op = self
            .func
            .create_op(kind, operands, result_types, regions, self.loc.clone());
        match self.point {
            InsertPoint::End(b) => self.func.append_op(b, op),
            InsertPoint::Before(at) => {
                // A detached anchor cannot place the op; it stays detached for the caller.
                if let (Some(b), Some(i)) =
                    (self.func.op(at).parent(), self.func.position_in_block(at))
                {
                    self.func.insert_op(b, i, op);
                }
            }
        }
        op
    }

    fn one(&mut self, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.insert(kind, operands, vec![ty]);
        self.func.op(op).results()[0]
    }

    // ----- program ids and constants -----

    /// `tt.get_program_id {axis}`.
    pub fn get_program_id(&mut self, axis: u32) -> Value {
        self.one(OpKind::GetProgramId { axis }, &[], Type::I32)
    }

    /// `tt.get_num_programs {axis}`.
    pub fn get_num_programs(&mut self, axis: u32) -> Value {
        self.one(OpKind::GetNumPrograms { axis }, &[], Type::I32)
    }

    /// `arith.constant` of an integer (or `i1`) type, scalar or splat block.
    pub fn const_int(&mut self, value: i128, ty: Type) -> Value {
        self.one(OpKind::Constant(ConstValue::Int(value)), &[], ty)
    }

    /// `arith.constant` of a float type, scalar or splat block.
    pub fn const_float(&mut self, value: f64, ty: Type) -> Value {
        self.one(OpKind::Constant(ConstValue::Float(value)), &[], ty)
    }

    /// An `i1` scalar constant.
    pub fn const_bool(&mut self, value: bool) -> Value {
        self.const_int(value as i128, Type::I1)
    }

    /// An `i32` scalar constant.
    pub fn const_i32(&mut self, value: i32) -> Value {
        self.const_int(value as i128, Type::I32)
    }

    // ----- shape ops -----

    /// `tt.make_range {start, end}`: `tensor<(end-start)xi32>`.
    pub fn make_range(&mut self, start: i32, end: i32) -> Value {
        let n = (end as i64 - start as i64).max(0) as u64;
        self.one(
            OpKind::MakeRange { start, end },
            &[],
            Type::tensor_of(&[n], DType::I32),
        )
    }

    /// `tt.splat` of a scalar to a block of `shape`.
    pub fn splat(&mut self, v: Value, shape: &[u64]) -> Value {
        let ty = Type::tensor(shape, self.func.value_type(v).elem());
        self.splat_to(v, ty)
    }

    /// `tt.splat` to an explicit result type.
    pub fn splat_to(&mut self, v: Value, ty: Type) -> Value {
        self.one(OpKind::Splat, &[v], ty)
    }

    /// `tt.broadcast` to `shape`.
    pub fn broadcast(&mut self, v: Value, shape: &[u64]) -> Value {
        let ty = Type::tensor(shape, self.func.value_type(v).elem());
        self.broadcast_to(v, ty)
    }

    /// `tt.broadcast` to an explicit result type.
    pub fn broadcast_to(&mut self, v: Value, ty: Type) -> Value {
        self.one(OpKind::Broadcast, &[v], ty)
    }

    /// `tt.expand_dims {axis}`.
    pub fn expand_dims(&mut self, v: Value, axis: u32) -> Value {
        let t = self.type_of(v);
        let mut dims = t.dims().to_vec();
        let at = (axis as usize).min(dims.len());
        dims.insert(at, Dim::Known(1));
        self.one(
            OpKind::ExpandDims { axis },
            &[v],
            Type::with_dims(dims, t.elem()),
        )
    }

    /// `tt.reshape {allow_reorder}` to `shape`.
    pub fn reshape(&mut self, v: Value, shape: &[u64], allow_reorder: bool) -> Value {
        let ty = Type::tensor(shape, self.func.value_type(v).elem());
        self.one(OpKind::Reshape { allow_reorder }, &[v], ty)
    }

    /// `tt.trans {order}`: result dim `i` is operand dim `order[i]`.
    pub fn trans(&mut self, v: Value, order: &[u32]) -> Value {
        let t = self.type_of(v);
        let dims: Vec<Dim> = order
            .iter()
            .map(|&i| t.dims().get(i as usize).cloned().unwrap_or(Dim::Unknown))
            .collect();
        self.one(
            OpKind::Trans {
                order: order.to_vec(),
            },
            &[v],
            Type::with_dims(dims, t.elem()),
        )
    }

    /// `tt.join`: a new minor dim of 2.
    pub fn join(&mut self, a: Value, b: Value) -> Value {
        let t = self.type_of(a);
        let mut dims = t.dims().to_vec();
        dims.push(Dim::Known(2));
        self.one(OpKind::Join, &[a, b], Type::with_dims(dims, t.elem()))
    }

    /// `tt.split`: drops the minor dim (of 2), giving two results.
    pub fn split(&mut self, v: Value) -> (Value, Value) {
        let t = self.type_of(v);
        let mut dims = t.dims().to_vec();
        dims.pop();
        let half = Type::with_dims(dims, t.elem());
        let op = self.insert(OpKind::Split, &[v], vec![half.clone(), half]);
        let r = self.func.op(op).results();
        (r[0], r[1])
    }

    /// `tt.cat` of two blocks; the result's leading dim is the sum of theirs.
    pub fn cat(&mut self, a: Value, b: Value) -> Value {
        let (ta, tb) = (self.type_of(a), self.type_of(b));
        let mut dims = ta.dims().to_vec();
        if let (Some(Dim::Known(x)), Some(Dim::Known(y))) =
            (dims.first().cloned(), tb.dims().first())
        {
            dims[0] = Dim::Known(x.saturating_add(*y));
        }
        self.one(OpKind::Cat, &[a, b], Type::with_dims(dims, ta.elem()))
    }

    // ----- arithmetic -----

    /// An elementwise binary op; the result has the type of `a`.
    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.one(OpKind::Binary(op), &[a, b], ty)
    }

    /// `arith.cmpi {predicate}`; the result is `i1` of `a`'s shape.
    pub fn cmpi(&mut self, pred: CmpIPredicate, a: Value, b: Value) -> Value {
        let ty = self.type_of(a).with_dtype(DType::I1);
        self.one(OpKind::CmpI(pred), &[a, b], ty)
    }

    /// `arith.cmpf {predicate}`; the result is `i1` of `a`'s shape.
    pub fn cmpf(&mut self, pred: CmpFPredicate, a: Value, b: Value) -> Value {
        let ty = self.type_of(a).with_dtype(DType::I1);
        self.one(OpKind::CmpF(pred), &[a, b], ty)
    }

    /// `arith.select cond, a, b`.
    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.one(OpKind::Select, &[cond, a, b], ty)
    }

    /// An `arith` conversion of `v` to `dtype` (same shape).
    pub fn cast(&mut self, op: CastOp, v: Value, dtype: DType) -> Value {
        let ty = self.type_of(v).with_dtype(dtype);
        self.one(OpKind::Cast { op, rounding: None }, &[v], ty)
    }

    /// `arith.truncf` with an explicit rounding mode.
    pub fn truncf_rounded(&mut self, v: Value, dtype: DType, rounding: RoundingMode) -> Value {
        let ty = self.type_of(v).with_dtype(dtype);
        self.one(
            OpKind::Cast {
                op: CastOp::TruncF,
                rounding: Some(rounding),
            },
            &[v],
            ty,
        )
    }

    /// `tt.fp_to_fp {rounding}` (conversions involving fp8).
    pub fn fp_to_fp(&mut self, v: Value, dtype: DType, rounding: Option<RoundingMode>) -> Value {
        let ty = self.type_of(v).with_dtype(dtype);
        self.one(OpKind::FpToFp { rounding }, &[v], ty)
    }

    /// `tt.int_to_ptr` to pointers to `pointee`.
    pub fn int_to_ptr(&mut self, v: Value, pointee: DType) -> Value {
        let ty = self
            .type_of(v)
            .with_elem(Elem::Ptr(PtrType::global(pointee)));
        self.one(OpKind::IntToPtr, &[v], ty)
    }

    /// `tt.ptr_to_int` (to `i64`).
    pub fn ptr_to_int(&mut self, v: Value) -> Value {
        let ty = self.type_of(v).with_dtype(DType::I64);
        self.one(OpKind::PtrToInt, &[v], ty)
    }

    /// `tt.addptr ptr, offset`.
    pub fn addptr(&mut self, ptr: Value, offset: Value) -> Value {
        let ty = self.type_of(ptr);
        self.one(OpKind::AddPtr, &[ptr, offset], ty)
    }

    /// A unary `math` op.
    pub fn math(&mut self, op: MathOp, v: Value) -> Value {
        let ty = self.type_of(v);
        self.one(OpKind::Math(op), &[v], ty)
    }

    /// `math.fma a, b, c`.
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        let ty = self.type_of(a);
        self.one(OpKind::Fma, &[a, b, c], ty)
    }

    /// `tt.precise_sqrt`.
    pub fn precise_sqrt(&mut self, v: Value) -> Value {
        let ty = self.type_of(v);
        self.one(OpKind::PreciseSqrt, &[v], ty)
    }

    /// `tt.precise_divf`.
    pub fn precise_divf(&mut self, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.one(OpKind::PreciseDivF, &[a, b], ty)
    }

    /// `tt.mulhiui`.
    pub fn mulhiui(&mut self, a: Value, b: Value) -> Value {
        let ty = self.type_of(a);
        self.one(OpKind::MulHiUI, &[a, b], ty)
    }

    /// `tt.clampf x, lo, hi {propagate_nan}`.
    pub fn clampf(&mut self, x: Value, lo: Value, hi: Value, propagate_nan: bool) -> Value {
        let ty = self.type_of(x);
        self.one(OpKind::ClampF { propagate_nan }, &[x, lo, hi], ty)
    }

    /// `tt.extern_elementwise` calling `symbol` in `libname` with result type `ty`.
    pub fn extern_elementwise(
        &mut self,
        args: &[Value],
        ty: Type,
        libname: &str,
        libpath: &str,
        symbol: &str,
        pure: bool,
    ) -> Value {
        let kind = OpKind::ExternElementwise {
            libname: libname.into(),
            libpath: libpath.into(),
            symbol: symbol.into(),
            pure,
        };
        self.one(kind, args, ty)
    }

    /// `tt.elementwise_inline_asm`: one result of each type in `tys`.
    pub fn elementwise_inline_asm(
        &mut self,
        args: &[Value],
        tys: Vec<Type>,
        asm: &str,
        constraints: &str,
        pure: bool,
        pack: u32,
    ) -> Vec<Value> {
        let kind = OpKind::ElementwiseInlineAsm {
            asm: asm.into(),
            constraints: constraints.into(),
            pure,
            pack,
        };
        let op = self.insert(kind, args, tys);
        self.func.op(op).results().to_vec()
    }

    // ----- memory -----

    /// `tt.load ptr[, mask[, other]]`; `other` is ignored without `mask`.
    pub fn load(
        &mut self,
        ptr: Value,
        mask: Option<Value>,
        other: Option<Value>,
        opts: LoadOptions,
    ) -> Value {
        let pt = self.type_of(ptr);
        let elem = match pt.elem() {
            Elem::Ptr(p) => Elem::DType(p.pointee),
            e => e,
        };
        let mut operands = vec![ptr];
        if let Some(m) = mask {
            operands.push(m);
            operands.extend(other);
        }
        let kind = OpKind::Load {
            cache: opts.cache,
            evict: opts.evict,
            is_volatile: opts.is_volatile,
        };
        self.one(kind, &operands, pt.with_elem(elem))
    }

    /// `tt.store ptr, value[, mask]`.
    pub fn store(
        &mut self,
        ptr: Value,
        value: Value,
        mask: Option<Value>,
        cache: CacheModifier,
        evict: EvictionPolicy,
    ) -> OpId {
        let mut operands = vec![ptr, value];
        operands.extend(mask);
        self.insert(OpKind::Store { cache, evict }, &operands, vec![])
    }

    /// `tt.atomic_rmw ptr, val[, mask]`; returns the old values.
    pub fn atomic_rmw(
        &mut self,
        op: RmwOp,
        ptr: Value,
        val: Value,
        mask: Option<Value>,
        sem: MemSemantic,
        scope: MemScope,
    ) -> Value {
        let ty = self.type_of(val);
        let mut operands = vec![ptr, val];
        operands.extend(mask);
        self.one(OpKind::AtomicRmw { op, sem, scope }, &operands, ty)
    }

    /// `tt.atomic_cas ptr, cmp, val`; returns the old values.
    pub fn atomic_cas(
        &mut self,
        ptr: Value,
        cmp: Value,
        val: Value,
        sem: MemSemantic,
        scope: MemScope,
    ) -> Value {
        let ty = self.type_of(val);
        self.one(OpKind::AtomicCas { sem, scope }, &[ptr, cmp, val], ty)
    }

    // ----- reductions, dot, hints, debug -----

    fn combiner(&mut self, kind: OpKind, operands: &[Value], result_types: Vec<Type>) -> Combiner {
        let op = self.insert(kind, operands, result_types);
        let body = self
            .func
            .region_entry(op, 0)
            .expect("reduce/scan ops are created with one region");
        let elems: Vec<Type> = operands
            .iter()
            .map(|&v| Type::scalar_of(self.func.value_type(v).elem()))
            .collect();
        let lhs = elems
            .iter()
            .map(|t| self.func.add_block_arg(body, t.clone()))
            .collect();
        let rhs = elems
            .iter()
            .map(|t| self.func.add_block_arg(body, t.clone()))
            .collect();
        let results = self.func.op(op).results().to_vec();
        Combiner {
            op,
            body,
            lhs,
            rhs,
            results,
        }
    }

    /// `tt.reduce {axis}` over `operands` (all of one shape); fill the combiner block and
    /// end it with [`Builder::reduce_return`]. Results drop dim `axis` (scalars from 1-D).
    pub fn reduce(&mut self, operands: &[Value], axis: u32) -> Combiner {
        let result_types = operands
            .iter()
            .map(|&v| {
                let t = self.func.value_type(v);
                let mut dims = t.dims().to_vec();
                if (axis as usize) < dims.len() {
                    dims.remove(axis as usize);
                }
                Type::with_dims(dims, t.elem())
            })
            .collect();
        self.combiner(OpKind::Reduce { axis }, operands, result_types)
    }

    /// `tt.scan {axis, reverse}`; results have the operands' types.
    pub fn scan(&mut self, operands: &[Value], axis: u32, reverse: bool) -> Combiner {
        let result_types = operands.iter().map(|&v| self.type_of(v)).collect();
        self.combiner(OpKind::Scan { axis, reverse }, operands, result_types)
    }

    /// Builds a whole reduce: `combine` fills the combiner at its block and returns the
    /// combined values; the builder's insertion point is restored afterwards.
    pub fn reduce_with(
        &mut self,
        operands: &[Value],
        axis: u32,
        combine: impl FnOnce(&mut Builder<'_>, &[Value], &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let c = self.reduce(operands, axis);
        self.fill_block(c.body, |b| {
            let out = combine(b, &c.lhs, &c.rhs);
            b.reduce_return(&out);
        });
        c.results
    }

    /// Builds a whole scan, as [`Builder::reduce_with`] does.
    pub fn scan_with(
        &mut self,
        operands: &[Value],
        axis: u32,
        reverse: bool,
        combine: impl FnOnce(&mut Builder<'_>, &[Value], &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let c = self.scan(operands, axis, reverse);
        self.fill_block(c.body, |b| {
            let out = combine(b, &c.lhs, &c.rhs);
            b.scan_return(&out);
        });
        c.results
    }

    /// `tt.reduce.return`.
    pub fn reduce_return(&mut self, values: &[Value]) -> OpId {
        self.insert(OpKind::ReduceReturn, values, vec![])
    }

    /// `tt.scan.return`.
    pub fn scan_return(&mut self, values: &[Value]) -> OpId {
        self.insert(OpKind::ScanReturn, values, vec![])
    }

    /// `tt.dot a, b, acc`; the result has `acc`'s type.
    pub fn dot(
        &mut self,
        a: Value,
        b: Value,
        acc: Value,
        input_precision: InputPrecision,
        max_num_imprecise_acc: u32,
    ) -> Value {
        let ty = self.type_of(acc);
        self.one(
            OpKind::Dot {
                input_precision,
                max_num_imprecise_acc,
            },
            &[a, b, acc],
            ty,
        )
    }

    /// `tt.hint`: `v` with value facts attached.
    pub fn hint(&mut self, v: Value, hints: Hints) -> Value {
        let ty = self.type_of(v);
        self.one(OpKind::Hint(hints), &[v], ty)
    }

    /// `tt.print {prefix, hex}`.
    pub fn print(&mut self, prefix: &str, hex: bool, args: &[Value]) -> OpId {
        self.insert(
            OpKind::Print {
                prefix: prefix.into(),
                hex,
            },
            args,
            vec![],
        )
    }

    /// `tt.assert cond {message}`.
    pub fn assert(&mut self, cond: Value, message: &str) -> OpId {
        self.insert(
            OpKind::Assert {
                message: message.into(),
            },
            &[cond],
            vec![],
        )
    }

    /// `gpu.barrier`.
    pub fn barrier(&mut self) -> OpId {
        self.insert(OpKind::Barrier, &[], vec![])
    }

    /// `tt.gdc_wait`.
    pub fn gdc_wait(&mut self) -> OpId {
        self.insert(OpKind::GdcWait, &[], vec![])
    }

    /// `tt.gdc_launch_dependents`.
    pub fn gdc_launch_dependents(&mut self) -> OpId {
        self.insert(OpKind::GdcLaunchDependents, &[], vec![])
    }

    // ----- control flow -----

    /// Runs `fill` with the insertion point at the end of `block`, then restores it.
    pub fn fill_block<R>(&mut self, block: BlockId, fill: impl FnOnce(&mut Builder<'_>) -> R) -> R {
        let saved = self.point;
        self.point = InsertPoint::End(block);
        let r = fill(self);
        self.point = saved;
        r
    }

    /// `scf.for lb, ub, step, inits`: fill `body` and end it with [`Builder::yield_`].
    pub fn scf_for(&mut self, lb: Value, ub: Value, step: Value, inits: &[Value]) -> ForLoop {
        let mut operands = vec![lb, ub, step];
        operands.extend_from_slice(inits);
        let types: Vec<Type> = inits.iter().map(|&v| self.type_of(v)).collect();
        let op = self.insert(OpKind::For { num_stages: None }, &operands, types.clone());
        let body = self
            .func
            .region_entry(op, 0)
            .expect("scf.for is created with one region");
        let iv_ty = self.type_of(lb);
        let induction_var = self.func.add_block_arg(body, iv_ty);
        let iter_args = types
            .into_iter()
            .map(|t| self.func.add_block_arg(body, t))
            .collect();
        let results = self.func.op(op).results().to_vec();
        ForLoop {
            op,
            body,
            induction_var,
            iter_args,
            results,
        }
    }

    /// Builds a whole `scf.for`: `body` gets the induction variable and iter args and
    /// returns the values to yield. Returns the loop results.
    pub fn for_with(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        inits: &[Value],
        body: impl FnOnce(&mut Builder<'_>, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let l = self.scf_for(lb, ub, step, inits);
        self.fill_block(l.body, |b| {
            let out = body(b, l.induction_var, &l.iter_args);
            b.yield_(&out);
        });
        l.results
    }

    /// `scf.if cond` with results of `result_types`; both blocks start empty (an `scf.if`
    /// without results still needs `scf.yield` in each). Results can be added later with
    /// [`Function::add_result`].
    pub fn scf_if(&mut self, cond: Value, result_types: Vec<Type>) -> IfOp {
        let op = self.insert(OpKind::If, &[cond], result_types);
        let then_block = self
            .func
            .region_entry(op, 0)
            .expect("scf.if is created with two regions");
        let else_block = self
            .func
            .region_entry(op, 1)
            .expect("scf.if is created with two regions");
        let results = self.func.op(op).results().to_vec();
        IfOp {
            op,
            then_block,
            else_block,
            results,
        }
    }

    /// Builds a whole `scf.if`; each closure returns the values its branch yields.
    pub fn if_with(
        &mut self,
        cond: Value,
        result_types: Vec<Type>,
        then_branch: impl FnOnce(&mut Builder<'_>) -> Vec<Value>,
        else_branch: impl FnOnce(&mut Builder<'_>) -> Vec<Value>,
    ) -> Vec<Value> {
        let i = self.scf_if(cond, result_types);
        self.fill_block(i.then_block, |b| {
            let out = then_branch(b);
            b.yield_(&out);
        });
        self.fill_block(i.else_block, |b| {
            let out = else_branch(b);
            b.yield_(&out);
        });
        i.results
    }

    /// `scf.while inits`: the before block gets the carried values and must end in
    /// [`Builder::condition`] forwarding values of `result_types`, which the after block
    /// receives and must [`Builder::yield_`] back in the inits' types.
    pub fn scf_while(&mut self, inits: &[Value], result_types: Vec<Type>) -> WhileLoop {
        let op = self.insert(OpKind::While, inits, result_types.clone());
        let before = self
            .func
            .region_entry(op, 0)
            .expect("scf.while is created with two regions");
        let after = self
            .func
            .region_entry(op, 1)
            .expect("scf.while is created with two regions");
        let init_types: Vec<Type> = inits.iter().map(|&v| self.type_of(v)).collect();
        let before_args = init_types
            .into_iter()
            .map(|t| self.func.add_block_arg(before, t))
            .collect();
        let after_args = result_types
            .into_iter()
            .map(|t| self.func.add_block_arg(after, t))
            .collect();
        let results = self.func.op(op).results().to_vec();
        WhileLoop {
            op,
            before,
            before_args,
            after,
            after_args,
            results,
        }
    }

    /// `scf.yield values`.
    pub fn yield_(&mut self, values: &[Value]) -> OpId {
        self.insert(OpKind::Yield, values, vec![])
    }

    /// `scf.condition cond, args`.
    pub fn condition(&mut self, cond: Value, args: &[Value]) -> OpId {
        let mut operands = vec![cond];
        operands.extend_from_slice(args);
        self.insert(OpKind::Condition, &operands, vec![])
    }

    /// `tt.return values`.
    pub fn ret(&mut self, values: &[Value]) -> OpId {
        self.insert(OpKind::Return, values, vec![])
    }
}
