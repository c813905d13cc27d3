//! The op set: one [`OpKind`] variant per op, with its typed attributes.
//!
//! Operands and results live on the op itself ([`crate::OpData`]); the kind holds only the
//! attributes. Optional operands are told apart by count: `tt.load ptr[, mask[, other]]`,
//! `tt.store ptr, value[, mask]`, `tt.atomic_rmw ptr, val[, mask]`.

/// Defines a fieldless enum whose variants print as fixed words, with a parser for them.
macro_rules! word_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $word:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var),+ }

        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// The word this variant prints as.
            pub fn word(self) -> &'static str {
                match self { $($name::$var => $word),+ }
            }

            /// The variant printed as `word`.
            pub fn from_word(word: &str) -> Option<Self> {
                match word { $($word => Some($name::$var),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

word_enum! {
    /// Elementwise binary arithmetic; both operands and the result share one type.
    BinaryOp {
        /// Integer add (wrapping).
        AddI = "arith.addi",
        /// Integer subtract (wrapping).
        SubI = "arith.subi",
        /// Integer multiply (wrapping).
        MulI = "arith.muli",
        /// Signed division, truncating toward zero.
        DivSI = "arith.divsi",
        /// Unsigned division.
        DivUI = "arith.divui",
        /// Signed remainder (sign of the dividend).
        RemSI = "arith.remsi",
        /// Unsigned remainder.
        RemUI = "arith.remui",
        /// Float add.
        AddF = "arith.addf",
        /// Float subtract.
        SubF = "arith.subf",
        /// Float multiply.
        MulF = "arith.mulf",
        /// Float divide.
        DivF = "arith.divf",
        /// Float remainder (fmod).
        RemF = "arith.remf",
        /// Bitwise and.
        AndI = "arith.andi",
        /// Bitwise or.
        OrI = "arith.ori",
        /// Bitwise xor.
        XOrI = "arith.xori",
        /// Shift left.
        ShLI = "arith.shli",
        /// Arithmetic shift right.
        ShRSI = "arith.shrsi",
        /// Logical shift right.
        ShRUI = "arith.shrui",
        /// Signed maximum.
        MaxSI = "arith.maxsi",
        /// Unsigned maximum.
        MaxUI = "arith.maxui",
        /// Signed minimum.
        MinSI = "arith.minsi",
        /// Unsigned minimum.
        MinUI = "arith.minui",
        /// Float maximum ignoring NaN (IEEE maxNum).
        MaxNumF = "arith.maxnumf",
        /// Float minimum ignoring NaN (IEEE minNum).
        MinNumF = "arith.minnumf",
        /// Float maximum propagating NaN.
        MaximumF = "arith.maximumf",
        /// Float minimum propagating NaN.
        MinimumF = "arith.minimumf",
    }
}

impl BinaryOp {
    /// Whether the operands must be floats (otherwise integers).
    pub fn is_float_op(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            AddF | SubF | MulF | DivF | RemF | MaxNumF | MinNumF | MaximumF | MinimumF
        )
    }

    /// Whether `a op b == b op a`.
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            AddI | MulI
                | AddF
                | MulF
                | AndI
                | OrI
                | XOrI
                | MaxSI
                | MaxUI
                | MinSI
                | MinUI
                | MaxNumF
                | MinNumF
                | MaximumF
                | MinimumF
        )
    }
}

word_enum! {
    /// Elementwise unary math.
    MathOp {
        /// e^x.
        Exp = "math.exp",
        /// 2^x.
        Exp2 = "math.exp2",
        /// Natural logarithm.
        Log = "math.log",
        /// Base-2 logarithm.
        Log2 = "math.log2",
        /// Sine.
        Sin = "math.sin",
        /// Cosine.
        Cos = "math.cos",
        /// Square root (approximate where the target allows).
        Sqrt = "math.sqrt",
        /// Reciprocal square root.
        Rsqrt = "math.rsqrt",
        /// Error function.
        Erf = "math.erf",
        /// Round toward -inf.
        Floor = "math.floor",
        /// Round toward +inf.
        Ceil = "math.ceil",
        /// Float absolute value.
        AbsF = "math.absf",
        /// Integer absolute value.
        AbsI = "math.absi",
    }
}

impl MathOp {
    /// Whether the operand must be an integer (only `absi`).
    pub fn is_int_op(self) -> bool {
        self == MathOp::AbsI
    }
}

word_enum! {
    /// Conversions between dtypes of the same shape.
    CastOp {
        /// Sign-extend to a wider int.
        ExtSI = "arith.extsi",
        /// Zero-extend to a wider int.
        ExtUI = "arith.extui",
        /// Truncate to a narrower int.
        TruncI = "arith.trunci",
        /// Signed int to float.
        SIToFP = "arith.sitofp",
        /// Unsigned int to float.
        UIToFP = "arith.uitofp",
        /// Float to signed int (truncating).
        FPToSI = "arith.fptosi",
        /// Float to unsigned int (truncating).
        FPToUI = "arith.fptoui",
        /// Widen a float.
        ExtF = "arith.extf",
        /// Narrow a float (rounding mode attribute, rtne by default).
        TruncF = "arith.truncf",
        /// Reinterpret bits of the same width.
        Bitcast = "arith.bitcast",
    }
}

word_enum! {
    /// Integer comparison predicates.
    CmpIPredicate {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed less than.
        Slt = "slt",
        /// Signed less or equal.
        Sle = "sle",
        /// Signed greater than.
        Sgt = "sgt",
        /// Signed greater or equal.
        Sge = "sge",
        /// Unsigned less than.
        Ult = "ult",
        /// Unsigned less or equal.
        Ule = "ule",
        /// Unsigned greater than.
        Ugt = "ugt",
        /// Unsigned greater or equal.
        Uge = "uge",
    }
}

word_enum! {
    /// Float comparison predicates (`o`: false if either is NaN; `u`: true if either is NaN).
    CmpFPredicate {
        /// Ordered equal.
        Oeq = "oeq",
        /// Ordered greater than.
        Ogt = "ogt",
        /// Ordered greater or equal.
        Oge = "oge",
        /// Ordered less than.
        Olt = "olt",
        /// Ordered less or equal.
        Ole = "ole",
        /// Ordered not equal.
        One = "one",
        /// Neither is NaN.
        Ord = "ord",
        /// Unordered or equal.
        Ueq = "ueq",
        /// Unordered or greater than.
        Ugt = "ugt",
        /// Unordered or greater or equal.
        Uge = "uge",
        /// Unordered or less than.
        Ult = "ult",
        /// Unordered or less or equal.
        Ule = "ule",
        /// Unordered or not equal (Triton's `!=`).
        Une = "une",
        /// Either is NaN.
        Uno = "uno",
    }
}

word_enum! {
    /// Float rounding mode for narrowing conversions.
    RoundingMode {
        /// Round to nearest, ties to even.
        Rtne = "rtne",
        /// Round toward zero.
        Rtz = "rtz",
    }
}

word_enum! {
    /// Cache modifier of a load or store (`none` is the default).
    CacheModifier {
        /// No modifier.
        None = "none",
        /// Cache at all levels (load).
        Ca = "ca",
        /// Cache at L2, bypass L1.
        Cg = "cg",
        /// Don't cache; fetch again (load).
        Cv = "cv",
        /// Write back (store).
        Wb = "wb",
        /// Streaming (store).
        Cs = "cs",
        /// Write through (store).
        Wt = "wt",
    }
}

word_enum! {
    /// L1/L2 eviction policy.
    EvictionPolicy {
        /// Default policy.
        Normal = "normal",
        /// Evict first.
        EvictFirst = "evict_first",
        /// Evict last.
        EvictLast = "evict_last",
    }
}

word_enum! {
    /// The read-modify-write operation of `tt.atomic_rmw`.
    RmwOp {
        /// Integer add.
        Add = "add",
        /// Float add.
        FAdd = "fadd",
        /// Signed max.
        Max = "max",
        /// Unsigned max.
        UMax = "umax",
        /// Signed min.
        Min = "min",
        /// Unsigned min.
        UMin = "umin",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise xor.
        Xor = "xor",
        /// Exchange.
        Xchg = "xchg",
    }
}

word_enum! {
    /// Memory ordering of an atomic.
    MemSemantic {
        /// No ordering.
        Relaxed = "relaxed",
        /// Acquire.
        Acquire = "acquire",
        /// Release.
        Release = "release",
        /// Acquire and release (Triton's default).
        AcqRel = "acq_rel",
    }
}

word_enum! {
    /// Visibility scope of an atomic.
    MemScope {
        /// The whole GPU (default).
        Gpu = "gpu",
        /// One CTA.
        Cta = "cta",
        /// The system (host included).
        Sys = "sys",
    }
}

word_enum! {
    /// Precision of fp32 inputs to `tt.dot`.
    InputPrecision {
        /// TensorFloat-32 (default).
        Tf32 = "tf32",
        /// Three TF32 products, near-fp32 accuracy.
        Tf32x3 = "tf32x3",
        /// Full IEEE fp32.
        Ieee = "ieee",
    }
}

/// A constant's value; the op's result type says how to read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstValue {
    /// An integer in the range of its dtype (`i1`: 0 or 1; `u64` up to 2^64-1).
    Int(i128),
    /// A float, exact in its dtype (`f16` constants are rounded before they get here).
    Float(f64),
}

impl ConstValue {
    /// Identity for hashing/CSE: floats compare by bits so `-0.0` and NaNs are distinct.
    pub fn bits_key(self) -> (u8, i128) {
        match self {
            ConstValue::Int(v) => (0, v),
            ConstValue::Float(f) => (1, f.to_bits() as i128),
        }
    }
}

/// Per-dimension value facts from `tl.multiple_of`, `tl.max_contiguous`, `tl.max_constancy`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Hints {
    /// Each dim's value is a multiple of this.
    pub divisibility: Option<Vec<u64>>,
    /// Runs of this many consecutive values along each dim.
    pub contiguity: Option<Vec<u64>>,
    /// Runs of this many equal values along each dim.
    pub constancy: Option<Vec<u64>>,
}

/// What an op does, with its attributes.
#[derive(Debug, Clone, PartialEq)]
pub enum OpKind {
    /// `tt.get_program_id {axis}`: the program index along an axis (i32 scalar).
    GetProgramId {
        /// 0, 1 or 2.
        axis: u32,
    },
    /// `tt.get_num_programs {axis}`: the grid size along an axis (i32 scalar).
    GetNumPrograms {
        /// 0, 1 or 2.
        axis: u32,
    },
    /// `arith.constant`: a scalar, or a splat block when the result is a tensor.
    Constant(ConstValue),
    /// `tt.make_range {start, end}`: `[start, end)` as a 1-D i32 block.
    MakeRange {
        /// First value.
        start: i32,
        /// One past the last value.
        end: i32,
    },
    /// `tt.splat`: a scalar repeated into a block.
    Splat,
    /// `tt.broadcast`: size-1 dims stretched to the result's.
    Broadcast,
    /// `tt.expand_dims {axis}`: inserts a size-1 dim.
    ExpandDims {
        /// Where the new dim goes.
        axis: u32,
    },
    /// `tt.reshape {allow_reorder}`: same elements, new shape.
    Reshape {
        /// Whether the element order may change (`can_reorder=True`).
        allow_reorder: bool,
    },
    /// `tt.trans {order}`: permutes dims; result dim `i` is operand dim `order[i]`.
    Trans {
        /// The permutation.
        order: Vec<u32>,
    },
    /// `tt.join`: two same-typed blocks into one with a new minor dim of 2.
    Join,
    /// `tt.split`: a block whose minor dim is 2 into two results.
    Split,
    /// `tt.cat`: concatenation of two 1-D-compatible blocks (order may change).
    Cat,
    /// Elementwise binary arithmetic.
    Binary(BinaryOp),
    /// `arith.cmpi {predicate}`.
    CmpI(CmpIPredicate),
    /// `arith.cmpf {predicate}`.
    CmpF(CmpFPredicate),
    /// `arith.select cond, a, b`.
    Select,
    /// `arith.*` conversions.
    Cast {
        /// Which conversion.
        op: CastOp,
        /// Rounding mode (only for `truncf`; `None` means the default rtne).
        rounding: Option<RoundingMode>,
    },
    /// `tt.fp_to_fp {rounding}`: conversions to/from fp8.
    FpToFp {
        /// Rounding mode, required when narrowing.
        rounding: Option<RoundingMode>,
    },
    /// `tt.int_to_ptr`: i64 to pointer.
    IntToPtr,
    /// `tt.ptr_to_int`: pointer to i64.
    PtrToInt,
    /// `tt.addptr ptr, offset`: pointer plus offset in elements.
    AddPtr,
    /// Elementwise unary math.
    Math(MathOp),
    /// `math.fma a, b, c`.
    Fma,
    /// `tt.precise_sqrt`: correctly rounded sqrt.
    PreciseSqrt,
    /// `tt.precise_divf`: correctly rounded division.
    PreciseDivF,
    /// `tt.mulhiui`: high half of an unsigned product.
    MulHiUI,
    /// `tt.clampf x, lo, hi {propagate_nan}`.
    ClampF {
        /// Whether NaN inputs propagate (`PropagateNan.ALL`).
        propagate_nan: bool,
    },
    /// `tt.extern_elementwise {libname, libpath, symbol, pure}`: a libdevice-style call.
    ExternElementwise {
        /// Library name (`libdevice`).
        libname: String,
        /// Library path, if known.
        libpath: String,
        /// The function symbol (`__nv_expf`).
        symbol: String,
        /// Whether the call has no side effects.
        pure: bool,
    },
    /// `tt.elementwise_inline_asm {asm_string, constraints, pure, packed_element}`
    /// (`tl.inline_asm_elementwise`): target assembly run on `packed_element` elements
    /// of every operand at a time; operands and results share one shape; one result per
    /// dtype asked for (at least one).
    ElementwiseInlineAsm {
        /// The assembly text, `$N` naming operands in constraint order.
        asm: String,
        /// LLVM inline-asm constraints: the outputs (`=r`…) first, then the inputs.
        constraints: String,
        /// Whether the assembly has no side effects (it may then be removed or merged).
        pure: bool,
        /// Elements of each operand one instance of the assembly processes.
        pack: u32,
    },
    /// `tt.load ptr[, mask[, other]]`.
    Load {
        /// Cache modifier.
        cache: CacheModifier,
        /// Eviction policy.
        evict: EvictionPolicy,
        /// Whether the load must not be removed or merged.
        is_volatile: bool,
    },
    /// `tt.store ptr, value[, mask]`.
    Store {
        /// Cache modifier.
        cache: CacheModifier,
        /// Eviction policy.
        evict: EvictionPolicy,
    },
    /// `tt.atomic_rmw ptr, val[, mask]`: returns the old value.
    AtomicRmw {
        /// The operation.
        op: RmwOp,
        /// Memory ordering.
        sem: MemSemantic,
        /// Scope.
        scope: MemScope,
    },
    /// `tt.atomic_cas ptr, cmp, val`: returns the old value.
    AtomicCas {
        /// Memory ordering.
        sem: MemSemantic,
        /// Scope.
        scope: MemScope,
    },
    /// `tt.reduce {axis}` with a combiner region; N operands, N results.
    Reduce {
        /// The reduced dim.
        axis: u32,
    },
    /// `tt.reduce.return`: terminates a reduce combiner.
    ReduceReturn,
    /// `tt.scan {axis, reverse}` with a combiner region; N operands, N results.
    Scan {
        /// The scanned dim.
        axis: u32,
        /// Whether the scan runs from the end.
        reverse: bool,
    },
    /// `tt.scan.return`: terminates a scan combiner.
    ScanReturn,
    /// `tt.dot a, b, acc`.
    Dot {
        /// Precision of fp32 inputs.
        input_precision: InputPrecision,
        /// Imprecise accumulation limit for fp8 (0: none).
        max_num_imprecise_acc: u32,
    },
    /// `tt.hint`: the operand unchanged, with per-dim value facts for axis analysis.
    Hint(Hints),
    /// `tt.print {prefix, hex}`: device print of the operands.
    Print {
        /// Text printed first.
        prefix: String,
        /// Whether integers print in hex.
        hex: bool,
    },
    /// `tt.assert cond {message}`: device assert.
    Assert {
        /// Failure message.
        message: String,
    },
    /// `gpu.barrier`: CTA-wide barrier.
    Barrier,
    /// `tt.gdc_wait` (`tl.extra.cuda.gdc_wait()`): waits until the grids this one depends on
    /// under programmatic dependent launch have completed and their memory is visible
    /// (PTX `griddepcontrol.wait`, sm_90 and newer); without such a launch it returns at once.
    GdcWait,
    /// `tt.gdc_launch_dependents` (`tl.extra.cuda.gdc_launch_dependents()`): lets a grid
    /// launched as this one's dependent start once every program has called it or exited
    /// (PTX `griddepcontrol.launch_dependents`, sm_90 and newer); a scheduling hint only.
    GdcLaunchDependents,
    /// `ttg.convert_layout %x`: the same block in another encoding (GPU IR).
    ConvertLayout,
    /// `ttg.local_alloc [%init]`: a shared buffer, filled from a block when given one
    /// (then immutable) (GPU IR).
    LocalAlloc {
        /// Its byte offset in the kernel's shared memory, once `tritonc-allocate-shared`
        /// has placed it.
        offset: Option<u32>,
    },
    /// `ttg.local_dealloc %buf`: the end of a buffer's lifetime; its bytes may be reused
    /// after it (GPU IR).
    LocalDealloc,
    /// `ttg.local_load %buf [, %token]`: a shared buffer read into a block (GPU IR).
    LocalLoad,
    /// `ttg.local_store %x, %buf`: a block written into a mutable shared buffer (GPU IR).
    LocalStore,
    /// `ttg.memdesc_index %buf, %i`: buffer `i` of a multi-buffered allocation (GPU IR).
    MemDescIndex,
    /// `ttg.async_copy_global_to_local %ptrs, %buf [, %mask [, %other]]`: an asynchronous
    /// copy from global memory into a shared buffer; masked-off elements get `other`
    /// (zero when absent). Returns a token (GPU IR).
    AsyncCopyGlobalToLocal {
        /// Cache modifier of the global read.
        cache: CacheModifier,
        /// Eviction policy of the global read.
        evict: EvictionPolicy,
    },
    /// `ttg.async_commit_group %tokens…`: closes the group of async copies issued since
    /// the last commit; returns the group's token (GPU IR).
    AsyncCommitGroup,
    /// `ttg.async_wait %tokens… {num}`: waits until at most `num` committed groups are
    /// still in flight; returns a token (GPU IR).
    AsyncWait {
        /// Groups that may stay outstanding.
        num: u32,
    },
    /// `ttng.warp_group_dot_wait %accs… {pendings}`: waits until at most `pendings` groups
    /// of the warpgroup's asynchronous `wgmma`s are still in flight, and returns the
    /// accumulators (its operands, unchanged) as they then are: a `tt.dot` in a `wgmma`
    /// layout (`#ttg.nvidia_mma` version 3) is issued asynchronously, and its result may
    /// be read only through such a wait, or fed to the next `tt.dot` of the same
    /// accumulator (GPU IR).
    WarpGroupDotWait {
        /// Groups that may stay outstanding.
        pendings: u32,
    },
    /// `scf.for lb, ub, step, inits...`; body args: induction var, then the iter args.
    For {
        /// The loop's own `num_stages` (`tl.range(..., num_stages=N)`), overriding the
        /// launch's for this loop's software pipelining.
        num_stages: Option<u32>,
    },
    /// `scf.if cond`; then and else regions ending in `scf.yield`.
    If,
    /// `scf.while inits...`; a before region ending in `scf.condition`, an after region ending in `scf.yield`.
    While,
    /// `scf.yield`: terminates `scf.for`/`scf.if` regions and the after region of `scf.while`.
    Yield,
    /// `scf.condition cond, args...`: terminates the before region of `scf.while`.
    Condition,
    /// `tt.return`: terminates a function body.
    Return,
}

impl OpKind {
    /// The op's name in IR text.
    pub fn name(&self) -> &'static str {
        use OpKind::*;
        match self {
            GetProgramId { .. } => "tt.get_program_id",
            GetNumPrograms { .. } => "tt.get_num_programs",
            Constant(_) => "arith.constant",
            MakeRange { .. } => "tt.make_range",
            Splat => "tt.splat",
            Broadcast => "tt.broadcast",
            ExpandDims { .. } => "tt.expand_dims",
            Reshape { .. } => "tt.reshape",
            Trans { .. } => "tt.trans",
            Join => "tt.join",
            Split => "tt.split",
            Cat => "tt.cat",
            Binary(b) => b.word(),
            CmpI(_) => "arith.cmpi",
            CmpF(_) => "arith.cmpf",
            Select => "arith.select",
            Cast { op, .. } => op.word(),
            FpToFp { .. } => "tt.fp_to_fp",
            IntToPtr => "tt.int_to_ptr",
            PtrToInt => "tt.ptr_to_int",
            AddPtr => "tt.addptr",
            Math(m) => m.word(),
            Fma => "math.fma",
            PreciseSqrt => "tt.precise_sqrt",
            PreciseDivF => "tt.precise_divf",
            MulHiUI => "tt.mulhiui",
            ClampF { .. } => "tt.clampf",
            ExternElementwise { .. } => "tt.extern_elementwise",
            ElementwiseInlineAsm { .. } => "tt.elementwise_inline_asm",
            Load { .. } => "tt.load",
            Store { .. } => "tt.store",
            AtomicRmw { .. } => "tt.atomic_rmw",
            AtomicCas { .. } => "tt.atomic_cas",
            Reduce { .. } => "tt.reduce",
            ReduceReturn => "tt.reduce.return",
            Scan { .. } => "tt.scan",
            ScanReturn => "tt.scan.return",
            Dot { .. } => "tt.dot",
            Hint(_) => "tt.hint",
            Print { .. } => "tt.print",
            Assert { .. } => "tt.assert",
            Barrier => "gpu.barrier",
            GdcWait => "tt.gdc_wait",
            GdcLaunchDependents => "tt.gdc_launch_dependents",
            ConvertLayout => "ttg.convert_layout",
            LocalAlloc { .. } => "ttg.local_alloc",
            LocalDealloc => "ttg.local_dealloc",
            LocalLoad => "ttg.local_load",
            LocalStore => "ttg.local_store",
            MemDescIndex => "ttg.memdesc_index",
            AsyncCopyGlobalToLocal { .. } => "ttg.async_copy_global_to_local",
            AsyncCommitGroup => "ttg.async_commit_group",
            AsyncWait { .. } => "ttg.async_wait",
            WarpGroupDotWait { .. } => "ttng.warp_group_dot_wait",
            For { .. } => "scf.for",
            If => "scf.if",
            While => "scf.while",
            Yield => "scf.yield",
            Condition => "scf.condition",
            Return => "tt.return",
        }
    }

    /// Whether the op belongs to the GPU IR only (`ttg.*`): the tile IR never holds it.
    pub fn is_gpu_only(&self) -> bool {
        use OpKind::*;
        matches!(
            self,
            ConvertLayout
                | LocalAlloc { .. }
                | LocalDealloc
                | LocalLoad
                | LocalStore
                | MemDescIndex
                | AsyncCopyGlobalToLocal { .. }
                | AsyncCommitGroup
                | AsyncWait { .. }
                | WarpGroupDotWait { .. }
        )
    }

    /// Whether the op must end its block.
    pub fn is_terminator(&self) -> bool {
        use OpKind::*;
        matches!(self, ReduceReturn | ScanReturn | Yield | Condition | Return)
    }

    /// How many regions the op carries.
    pub fn num_regions(&self) -> usize {
        use OpKind::*;
        match self {
            Reduce { .. } | Scan { .. } | For { .. } => 1,
            If | While => 2,
            _ => 0,
        }
    }

    /// Whether the op has effects beyond its results, ignoring nested regions.
    ///
    /// Unused non-volatile loads have none (Triton removes them too); `scf.while` counts as
    /// effectful because removing it could remove a non-terminating loop.
    pub fn has_side_effects(&self) -> bool {
        use OpKind::*;
        match self {
            Load { is_volatile, .. } => *is_volatile,
            ExternElementwise { pure, .. } | ElementwiseInlineAsm { pure, .. } => !pure,
            Store { .. }
            | AtomicRmw { .. }
            | AtomicCas { .. }
            | Print { .. }
            | Assert { .. }
            | Barrier
            | GdcWait
            | GdcLaunchDependents
            | LocalStore
            | LocalDealloc
            | AsyncCopyGlobalToLocal { .. }
            | AsyncCommitGroup
            | AsyncWait { .. }
            | WarpGroupDotWait { .. }
            | While => true,
            k => k.is_terminator(),
        }
    }
}
