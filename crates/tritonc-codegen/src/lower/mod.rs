//! Tile IR → per-thread MLIR → PTX.
//!
//! [`compile_to_ptx`] lowers the tile IR to the GPU IR ([`tritonc_ttgir::gpu_passes`]:
//! an encoding on every block, explicit layout conversions), then lowers every op to the
//! code one thread runs: a block value becomes the list of its
//! registers in the thread (one SSA value each, in the layout's register order),
//! elementwise ops apply per register, loads and stores become vector accesses
//! (predicated inline PTX when masked), reductions follow the
//! [`tritonc_ttgir::ReductionSchedule`] (in-thread fold, `shfl.sync.bfly`, shared memory
//! across warps), and `ttg.convert_layout`s go through shared memory (or rebuild index
//! math in the new layout). Every MLIR op
//! carries the Python `file:line:col` of the tile op it came from.

mod affine;
mod amd_memory;
mod atomic;
mod buffers;
mod control;
mod debug;
mod dot;
mod elementwise;
mod fp8;
mod function;
mod grid_dep;
mod inline_asm;
mod memory;
mod mfma;
mod mma;
pub use mma::tf32x3_order;
mod reduce;
mod scan;
mod shape;
mod shared;
mod staged_address;
mod wgmma;

use std::fmt;

use melior::ir::Location;
use tritonc_diagnostics::{SourceMap, Span};
use tritonc_ir::{DType, Function, Type};
use tritonc_ttgir::{lower_to_gpu_ir, GpuOptions, LayoutAssignment};

use crate::{
    amdgpu::AmdgpuOptions, context::codegen_context, error::CodegenError,
    libdevice::locate_libdevice, module::KernelModule, module::KernelParam,
    pipeline::{lower_module, lower_module_amdgpu}, target::Target,
};

/// The name of the shared-memory array every kernel's scratch lives in.
pub const SHARED_SCRATCH: &str = "tritonc_smem";

/// The most static shared memory a kernel may declare (48 KiB); above it the scratch
/// array is dynamic.
pub const STATIC_SHARED_LIMIT: u32 = 48 * 1024;

/// Settings of one compilation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileOptions {
    /// Warps per CTA (Triton's `num_warps`, a power of two ≤ 32).
    pub num_warps: u32,
    /// Let LLVM fuse `a * b + c` into `fma` (Triton's `enable_fp_fusion`, on by default):
    /// any multiply feeding an add, as Triton's `FPOpFusion::Fast`; off, none (`Strict`).
    pub fp_fusion: bool,
    /// Triton's `num_stages`: K loops feeding tensor-core dots keep this many shared
    /// buffers per operand, filled by `cp.async` `num_stages − 1` iterations ahead
    /// (`lower/pipeline.rs`); below 2, no pipelining.
    pub num_stages: u32,
    /// AMD only: Triton's `waves_per_eu`, the occupancy LLVM's AMDGPU back end aims at
    /// (`amdgpu-waves-per-eu`); 0 leaves it to LLVM.
    pub waves_per_eu: u32,
    /// The most 32-bit registers one thread's code may define, counted on the GPU IR
    /// before anything is built ([`tritonc_ttgir::footprint`]): past it the kernel is
    /// refused ([`CompileStage::Budget`]) instead of spending minutes (unboundedly, in
    /// process) in LLVM over straight-line code of that size. 0: no bound.
    pub register_budget: u64,
}

/// [`CompileOptions::register_budget`]'s default: 2^16 registers of per-thread code.
/// The project's examples at their own warp counts and its tensor-core tests define at
/// most 6,678 (a bf16 128x256 matmul), the matmul example forced onto one warp 54,648
/// (seconds to build); `add_kernel` defines 10,240 with a block of 2^16 elements
/// over 4 warps, 20,480 with 2^17 (LLVM 12.5 s on the 2-core build machine), 40,960
/// with 2^18 (LLVM 51 s): fourfold per doubling; with Triton's largest block, 2^20, it
/// defines 163,840 and would keep LLVM busy for about a quarter of an hour.
pub const DEFAULT_REGISTER_BUDGET: u64 = 1 << 16;

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            num_warps: 4,
            fp_fusion: true,
            num_stages: 3,
            waves_per_eu: 0,
            register_budget: DEFAULT_REGISTER_BUDGET,
        }
    }
}

/// One kernel parameter as the launcher passes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbiParam {
    /// The tile-IR argument index it comes from.
    pub arg_index: usize,
    /// The Triton signature type (`*fp32`, `i32`, `fp32`, …).
    pub ty: String,
    /// PTX: `.u64 .ptr .global`, `.u32`, `.u64`, `.f32`.
    pub ptx: &'static str,
    /// Alignment promised for pointers (`tt.divisibility`).
    pub align: Option<u32>,
}

/// A kernel compiled to PTX, with what a launcher needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledKernel {
    /// The PTX text (empty for AMD).
    pub ptx: String,
    /// AMD only: the AMDGCN assembly (`--emit amdgcn`).
    pub amdgcn: Option<String>,
    /// AMD only: the code object (HSACO) linked by ld.lld.
    pub code_object: Option<Vec<u8>>,
    /// The `.entry` name.
    pub name: String,
    /// Warps per CTA: launch with `32 * num_warps` threads.
    pub num_warps: u32,
    /// Shared memory in bytes.
    pub shared_bytes: u32,
    /// Whether the shared memory is dynamic (an `.extern .shared` array, used above the
    /// 48 KiB static limit): launch with `shared_bytes` of dynamic shared memory (and,
    /// above 48 KiB, opt in with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`).
    /// Otherwise it is static and nothing is passed at launch. On AMD any LDS is dynamic,
    /// as in Triton's AMD kernels.
    pub dynamic_shared: bool,
    /// The parameters, in order.
    pub abi: Vec<AbiParam>,
    /// Pointer parameters after `abi` ([`Target::scratch_pointer_params`]: on AMD,
    /// Triton's global and profile scratch pointers, which the launcher passes as null).
    pub hidden_pointers: u32,
    /// The order of every reduction and scan in the code ([`crate::combine_orders`]), for
    /// the bundle's metadata.
    pub combine_orders: serde_json::Value,
}

/// The stage a compilation failed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileStage {
    /// Layout assignment (tile IR → ttgir).
    Layouts,
    /// Building the per-thread MLIR.
    Lowering,
    /// MLIR verification and the NVVM pipeline to PTX (or the ROCDL pipeline to AMDGCN).
    Mlir,
    /// The size check before anything is built: the per-thread code would pass
    /// [`CompileOptions::register_budget`].
    Budget,
}

impl fmt::Display for CompileStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CompileStage::Layouts => "layout assignment",
            CompileStage::Lowering => "lowering to MLIR",
            CompileStage::Mlir => "MLIR to machine code",
            CompileStage::Budget => "the size check",
        })
    }
}

/// Why a kernel did not compile: the stage, the message and the source span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// Where in the pipeline.
    pub stage: CompileStage,
    /// What went wrong; MLIR's messages start with `file:line:col`.
    pub message: String,
    /// The tile op's span, when known.
    pub span: Option<Span>,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.stage, self.message)
    }
}

impl std::error::Error for CompileError {}

/// The PTX parameter of a tile-IR argument type.
fn abi_param(
    index: usize,
    ty: &Type,
    divisibility: Option<u32>,
) -> Option<(KernelParam, AbiParam)> {
    let (param, ptx, sig) = match ty {
        Type::Ptr(p) => {
            let align = divisibility.filter(|&d| d >= 16).map(|_| 16);
            let sig = format!("*{}", p.pointee.signature_name()?);
            return Some((
                KernelParam::GlobalPtr { align },
                AbiParam {
                    arg_index: index,
                    ty: sig,
                    ptx: ".u64 .ptr .global",
                    align,
                },
            ));
        }
        Type::Scalar(DType::I32) | Type::Scalar(DType::U32) => (KernelParam::I32, ".u32", ty),
        Type::Scalar(DType::I64) | Type::Scalar(DType::U64) => (KernelParam::I64, ".u64", ty),
        Type::Scalar(DType::F32) => (KernelParam::F32, ".f32", ty),
        _ => return None,
    };
    Some((
        param,
        AbiParam {
            arg_index: index,
            ty: sig.dtype()?.signature_name()?.to_string(),
            ptx,
            align: None,
        },
    ))
}

/// The MLIR location of a span: `file:line:col` (1-based), through the inlining call
/// sites when there are any.
pub(crate) fn mlir_location<'c>(
    context: &'c melior::Context,
    sources: &SourceMap,
    loc: &tritonc_ir::Location,
) -> Location<'c> {
    let at = |span: Span| -> Location<'c> {
        match sources.try_get(span.file) {
            Some(file) => {
                let lc = file.line_col(span.start);
                let path = file.path().display().to_string();
                Location::new(
                    context,
                    &path,
                    lc.line as usize + 1,
                    lc.col_utf8 as usize + 1,
                )
            }
            None => Location::unknown(context),
        }
    };
    let Some(span) = loc.known_span() else {
        return Location::unknown(context);
    };
    let mut result = at(span);
    for &call in &loc.call_sites {
        result = Location::call_site(result, at(call));
    }
    result
}

/// Compiles one kernel of the tile IR to PTX for `target` (in a fresh MLIR context;
/// see [`compile_to_ptx_in`] to reuse one across kernels).
pub fn compile_to_ptx(
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
) -> Result<CompiledKernel, CompileError> {
    compile_to_ptx_in(&codegen_context(), func, sources, target, options)
}

/// [`compile_to_ptx`] in an existing context from [`crate::codegen_context`] (creating
/// one costs about 1 ms; a context is not shared between threads).
pub fn compile_to_ptx_in(
    context: &melior::Context,
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
) -> Result<CompiledKernel, CompileError> {
    compile_in(context, func, sources, target, options, false).map(|(kernel, _)| kernel)
}

/// The LLVM IR of one kernel after LLVM's optimizations, the input of its NVPTX back end
/// (`--emit llir`; Triton's "llir" stage), in an existing context.
pub fn compile_to_llvm_ir_in(
    context: &melior::Context,
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
) -> Result<String, CompileError> {
    let (_, llvm_ir) = compile_in(context, func, sources, target, options, true)?;
    llvm_ir.ok_or_else(|| CompileError {
        stage: CompileStage::Mlir,
        message: "LLVM returned no IR".to_string(),
        span: None,
    })
}

fn compile_in(
    context: &melior::Context,
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
    want_llvm_ir: bool,
) -> Result<(CompiledKernel, Option<String>), CompileError> {
    let mut built = build_module(context, func, sources, target, options)?;
    if target.is_amd() {
        return compile_amdgpu(built, func, target, options, want_llvm_ir);
    }
    if let Some((sm, span, why)) = &built.requires_sm {
        if target.capability() < *sm {
            return Err(CompileError {
                stage: CompileStage::Lowering,
                message: format!("{why} needs sm_{sm} or newer; the target is {}", crate::target::describe(target)),
                span: *span,
            });
        }
    }
    let mut libraries = Vec::new();
    if !built.externs.is_empty() {
        let path = locate_libdevice().ok_or_else(|| CompileError {
            stage: CompileStage::Mlir,
            message: format!(
                "`{}` needs libdevice ({}), which was not found: set TRITONC_LIBDEVICE or \
                 CUDA_HOME, or run scripts/install-deps.sh",
                built.externs.join("`, `"),
                crate::libdevice::LIBDEVICE_FILE
            ),
            span: func.loc.known_span(),
        })?;
        libraries.push(path);
    }
    let lowered = lower_module(
        &mut built.kernels,
        target,
        options.fp_fusion,
        &libraries,
        want_llvm_ir,
    )
    .map_err(|e| CompileError {
        stage: CompileStage::Mlir,
        message: e.to_string(),
        span: None,
    })?;
    let kernel = CompiledKernel {
        ptx: lowered.ptx,
        amdgcn: None,
        code_object: None,
        name: func.name.clone(),
        num_warps: options.num_warps,
        shared_bytes: built.shared_bytes,
        dynamic_shared: built.dynamic_shared,
        abi: built.abi,
        hidden_pointers: 0,
        combine_orders: built.combine_orders,
    };
    Ok((kernel, lowered.llvm_ir))
}

/// The AMD half of [`compile_in`]: ROCDL, LLVM's AMDGPU back end, ld.lld.
fn compile_amdgpu(
    mut built: BuiltModule<'_>,
    func: &Function,
    target: &Target,
    options: &CompileOptions,
    want_llvm_ir: bool,
) -> Result<(CompiledKernel, Option<String>), CompileError> {
    use tritonc_toolchain::amd;
    let environment = |message: String| CompileError {
        stage: CompileStage::Mlir,
        message,
        span: func.loc.known_span(),
    };
    let mut libraries = Vec::new();
    if !built.externs.is_empty() {
        let dir = amd::find_device_libs().ok_or_else(|| {
            environment(format!(
                "`{}` needs the ROCm device libraries (ocml, ockl), which were not found in {}: \
                 install Debian's rocm-device-libs (scripts/install-deps.sh) or set \
                 TRITONC_ROCM_DEVICE_LIBS",
                built.externs.join("`, `"),
                amd::DEVICE_LIBS_SEARCH
            ))
        })?;
        libraries.extend(amd::DEVICE_LIBRARIES.iter().map(|f| dir.join(f)));
    }
    let amd_options = AmdgpuOptions {
        threads: options.num_warps * target.warp_size(),
        waves_per_eu: options.waves_per_eu,
        fp_fusion: options.fp_fusion,
    };
    let lowered = lower_module_amdgpu(
        &mut built.kernels,
        target,
        amd_options,
        &libraries,
        want_llvm_ir,
    )
    .map_err(|e| CompileError {
        stage: CompileStage::Mlir,
        message: e.to_string(),
        span: None,
    })?;
    let lld = amd::find_lld().ok_or_else(|| {
        environment(format!(
            "linking an AMD code object needs ld.lld, which was not found in {}: install \
             Debian's lld-22 (scripts/install-deps.sh) or set TRITONC_LLD",
            amd::LLD_SEARCH
        ))
    })?;
    let code_object =
        crate::amdgpu::link::link_code_object(&lld, &lowered.object).map_err(environment)?;
    let kernel = CompiledKernel {
        ptx: String::new(),
        amdgcn: Some(lowered.assembly),
        code_object: Some(code_object),
        name: func.name.clone(),
        num_warps: options.num_warps,
        shared_bytes: built.shared_bytes,
        dynamic_shared: built.dynamic_shared,
        abi: built.abi,
        hidden_pointers: target.scratch_pointer_params(),
        combine_orders: built.combine_orders,
    };
    Ok((kernel, lowered.llvm_ir))
}

/// The per-thread MLIR of one kernel (`--emit mlir`): the `gpu.module` before MLIR's
/// own pipeline runs, printed without locations.
pub fn compile_to_mlir(
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
) -> Result<String, CompileError> {
    let context = codegen_context();
    let built = build_module(&context, func, sources, target, options)?;
    Ok(built.kernels.module().as_operation().to_string())
}

/// A kernel built as MLIR, before the NVVM pipeline.
struct BuiltModule<'c> {
    kernels: KernelModule<'c>,
    shared_bytes: u32,
    dynamic_shared: bool,
    abi: Vec<AbiParam>,
    /// libdevice functions the kernel calls (declared in the module).
    externs: Vec<String>,
    /// The oldest compute capability the code needs, with the op's span and why.
    requires_sm: Option<(u32, Option<Span>, String)>,
    /// [`crate::combine_orders`] of the GPU IR.
    combine_orders: serde_json::Value,
}

fn build_module<'c>(
    context: &'c melior::Context,
    func: &Function,
    sources: &SourceMap,
    target: &Target,
    options: &CompileOptions,
) -> Result<BuiltModule<'c>, CompileError> {
    let gpu_options =
        GpuOptions::for_target(options.num_warps, *target).with_stages(options.num_stages);
    let layout_error = |e: tritonc_ttgir::TtgirError| CompileError {
        stage: CompileStage::Layouts,
        message: e.message,
        span: e.span,
    };
    let gpu = lower_to_gpu_ir(func, &gpu_options).map_err(layout_error)?;
    check_register_budget(&gpu, target, options)?;
    let func = &gpu;
    let layouts = LayoutAssignment::from_gpu_ir(func, gpu_options.num_warps, gpu_options.warp_size())
        .map_err(layout_error)?;
    let combine_orders = crate::combine_orders::combine_orders(func, &layouts, sources, target);
    let mut params = Vec::new();
    let mut abi = Vec::new();
    for (i, &arg) in func.args().iter().enumerate() {
        let ty = func.value_type(arg);
        let div = func.arg_attrs.get(i).and_then(|a| a.divisibility);
        let (p, a) = abi_param(i, ty, div).ok_or_else(|| CompileError {
            stage: CompileStage::Lowering,
            message: format!(
                "kernel argument {i} of type `{ty}` is not supported by the NVIDIA back end yet"
            ),
            span: func.loc.known_span(),
        })?;
        params.push(p);
        abi.push(a);
    }

    let fn_loc = mlir_location(context, sources, &func.loc);
    let kernels =
        KernelModule::for_target(context, &format!("{}_module", func.name), fn_loc, *target);
    let threads = options.num_warps * target.warp_size();
    // AMD: Triton's scratch pointers close the list (Target::scratch_pointer_params).
    params.extend(
        (0..target.scratch_pointer_params()).map(|_| KernelParam::GlobalPtr { align: None }),
    );
    // NVIDIA: `.maxntid`. AMD: the flat work-group size is set on the LLVM function
    // (cpp/amdgpu.cpp), as Triton sets it, without a required work-group size.
    let block_size = (!target.is_amd()).then_some(threads);
    let mut shared_bytes = 0u32;
    let mut externs = Vec::new();
    let mut requires_sm = None;
    let mut lowering_error = None;
    let built = kernels.add_kernel(&func.name, &params, block_size, fn_loc, |b, args| {
        let arena = function::BuilderArena::default();
        let mut lowering = function::FunctionLowering::new(
            b,
            &arena,
            func,
            &layouts,
            sources,
            options,
            args.to_vec(),
        );
        lowering.target = *target;
        match lowering.run() {
            Ok(()) => {
                shared_bytes = lowering.shared_bytes();
                externs = std::mem::take(&mut lowering.externs).into_iter().collect();
                requires_sm = lowering.requires_sm.take();
                Ok(())
            }
            Err(e) => {
                let message = e.message.clone();
                lowering_error = Some(e);
                Err(CodegenError::OperationBuild {
                    op: "tile op".into(),
                    reason: message,
                })
            }
        }
    });
    if let Some(e) = lowering_error {
        return Err(e.into());
    }
    built.map_err(|e| CompileError {
        stage: CompileStage::Lowering,
        message: e.to_string(),
        span: None,
    })?;
    let limit = target.shared_memory_per_block();
    if u64::from(shared_bytes) > limit {
        return Err(CompileError {
            stage: CompileStage::Lowering,
            message: format!(
                "`{}` needs {shared_bytes} bytes of shared memory per block; {} offers at most {limit} (use smaller blocks, fewer `num_stages`, or a newer target)",
                func.name,
                target.name()
            ),
            span: func.loc.known_span(),
        });
    }
    // AMD: dynamic LDS (an external array sized at launch) whatever its size, as Triton's
    // AMD kernels declare it, so that the code object's metadata is Triton's.
    let dynamic_shared = if target.is_amd() {
        shared_bytes > 0
    } else {
        shared_bytes > STATIC_SHARED_LIMIT
    };
    if shared_bytes > 0 {
        let i8_type = melior::ir::r#type::IntegerType::new(context, 8).into();
        let declared = if dynamic_shared {
            kernels.add_dynamic_shared_array(SHARED_SCRATCH, fn_loc)
        } else {
            kernels.add_shared_array(SHARED_SCRATCH, i8_type, shared_bytes, fn_loc)
        };
        declared.map_err(|e| CompileError {
            stage: CompileStage::Lowering,
            message: e.to_string(),
            span: None,
        })?;
    }
    for (name, (args, result)) in &externs {
        kernels
            .declare_function(name, args, *result, fn_loc)
            .map_err(|e| CompileError {
                stage: CompileStage::Lowering,
                message: e.to_string(),
                span: None,
            })?;
    }
    Ok(BuiltModule {
        kernels,
        shared_bytes,
        dynamic_shared,
        abi,
        externs: externs.into_iter().map(|(n, _)| n).collect(),
        requires_sm,
        combine_orders,
    })
}

/// [`CompileStage::Budget`] when the per-thread code of `gpu` (a GPU-IR function) would
/// define more registers than `options.register_budget`.
fn check_register_budget(
    gpu: &Function,
    target: &Target,
    options: &CompileOptions,
) -> Result<(), CompileError> {
    let budget = options.register_budget;
    let footprint = tritonc_ttgir::footprint::thread_footprint(gpu);
    if budget == 0 || footprint.total_registers <= budget {
        return Ok(());
    }
    let (largest, op) = match footprint.largest {
        Some((n, op)) => (n, Some(op)),
        None => (0, None),
    };
    let span = op
        .and_then(|op| gpu.op(op).loc.known_span())
        .or_else(|| gpu.loc.known_span());
    Err(CompileError {
        stage: CompileStage::Budget,
        message: format!(
            "the code one thread of `{}` runs would define {} registers, past the budget of \
             {budget}: its largest block value holds {largest} registers in each of the {} \
             threads of a block ({} warps on {}), far beyond the {} a thread has, so it would \
             spill nearly all of them and take LLVM and ptxas minutes to build",
            gpu.name,
            footprint.total_registers,
            options.num_warps * target.warp_size(),
            options.num_warps,
            target.name(),
            target.registers_per_thread(),
        ),
        span,
    })
}

/// An error of the lowering itself, at a tile op.
#[derive(Debug, Clone)]
pub(crate) struct LowerError {
    pub message: String,
    pub span: Option<Span>,
}

impl From<LowerError> for CompileError {
    fn from(e: LowerError) -> Self {
        CompileError {
            stage: CompileStage::Lowering,
            message: e.message,
            span: e.span,
        }
    }
}
