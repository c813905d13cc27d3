//! The MLIR pass pipelines from a `gpu.module` of kernels to PTX text (NVIDIA) or to
//! AMDGCN and a relocatable object (AMD).

use std::{cell::RefCell, rc::Rc};

use melior::{
    ir::{
        operation::{OperationLike, OperationRef},
        BlockLike, Location, Module,
    },
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};

use crate::{
    amdgpu::{AmdgpuOptions, AmdgpuOutput},
    error::CodegenError,
    module::KernelModule,
    target::Target,
};

/// The textual MLIR pass pipeline lowering every `gpu.module` to the LLVM and NVVM
/// dialects, ready for LLVM ([`crate::serialize`]).
///
/// - `convert-scf-to-cf` first: `convert-gpu-to-nvvm` lowers `arith`, `cf`, `gpu`,
///   `llvm`, `nvvm` to the LLVM dialect in one go but has no patterns for `scf`.
/// - `convert-gpu-to-nvvm{index-bitwidth=32}`: thread and block ids are 32-bit in PTX;
///   64-bit `index` would widen every address computation.
/// - `ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly}` turns the
///   ops' `file:line:col` locations into `.file`/`.loc` directives in the PTX, which map
///   SASS and profiles back to the Python source (as Triton's PTX does). Not
///   `LineTablesOnly`: with it NVPTX marks the target `.target sm_90, debug` and emits
///   DWARF sections, i.e. a debug build.
/// - `reconcile-unrealized-casts` removes the casts left between converted types.
///
/// What MLIR's `gpu-module-to-binary` would do next (LLVM IR, libdevice, O3, NVPTX) is
/// done by [`crate::serialize::nvptx_compile`], which also gives the optimized LLVM IR.
pub fn nvvm_pipeline() -> &'static str {
    "builtin.module(\
     gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{index-bitwidth=32}),\
     ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly},\
     reconcile-unrealized-casts)"
}

/// The textual MLIR pass pipeline lowering every `gpu.module` to the LLVM and ROCDL
/// dialects for the AMD processor `chip` (`gfx942`), ready for LLVM
/// ([`crate::amdgpu`]): as [`nvvm_pipeline`], with `convert-gpu-to-rocdl` (thread ids,
/// barriers, `gpu.shuffle` as `ds_bpermute`, the HIP runtime's conventions).
pub fn rocdl_pipeline(chip: &str) -> String {
    format!(
        "builtin.module(\
         gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{{chipset={chip} index-bitwidth=32 runtime=HIP}}),\
         ensure-debug-info-scope-on-llvm-func{{emission-kind=DebugDirectivesOnly}},\
         reconcile-unrealized-casts)"
    )
}

/// Collects MLIR diagnostics while attached to a context, as `location: message` lines.
struct DiagnosticSink<'c> {
    context: &'c Context,
    id: melior::diagnostic::DiagnosticHandlerId,
    messages: Rc<RefCell<Vec<String>>>,
}

impl<'c> DiagnosticSink<'c> {
    fn attach(context: &'c Context) -> Self {
        let messages = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&messages);
        let id = context.attach_diagnostic_handler(move |diagnostic| {
            let mut line = format!("{}: {}", source_position(diagnostic.location()), diagnostic);
            for index in 0..diagnostic.note_count() {
                if let Ok(note) = diagnostic.note(index) {
                    let position = source_position(note.location());
                    line.push_str(&format!("\n  note: {position}: {note}"));
                }
            }
            sink.borrow_mut().push(line);
            // Handled: MLIR prints nothing to stderr itself.
            true
        });
        Self {
            context,
            id,
            messages,
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.messages.borrow_mut())
    }
}

impl Drop for DiagnosticSink<'_> {
    fn drop(&mut self) {
        self.context.detach_diagnostic_handler(self.id);
    }
}

/// `file:line:col` for a source location (the Python position an op came from; for an
/// op of an inlined helper, the helper's line followed by `(inlined at file:line:col)`
/// for each call); MLIR's own syntax for any other kind of location.
fn source_position(location: Location<'_>) -> String {
    if location.is_call_site() {
        return format!(
            "{} (inlined at {})",
            source_position(location.call_site_callee()),
            source_position(location.call_site_caller())
        );
    }
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        format!(
            "{}:{}:{}",
            file.as_string_ref()
                .as_str()
                .unwrap_or("<non-UTF-8 file name>"),
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column(),
        )
    } else {
        location.to_string()
    }
}

/// The output of LLVM for one module: PTX, and the optimized LLVM IR when asked for.
#[derive(Debug, Clone, Default)]
pub struct LoweredModule {
    /// The PTX text.
    pub ptx: String,
    /// LLVM IR after LLVM's optimizations, as printed by LLVM (`--emit llir`).
    pub llvm_ir: Option<String>,
}

/// Verifies the module, lowers it to PTX for `target` (with fp fusion, Triton's
/// default) and returns the PTX text.
///
/// The module is rewritten in place (it ends in the LLVM and NVVM dialects). On failure
/// the error carries MLIR's diagnostics with the locations of the offending ops.
pub fn lower_to_ptx(
    kernels: &mut KernelModule<'_>,
    target: &Target,
) -> Result<String, CodegenError> {
    lower_module(kernels, target, true, &[], false).map(|lowered| lowered.ptx)
}

/// Runs [`nvvm_pipeline`] over the module, then LLVM ([`crate::serialize`]) over its
/// `gpu.module`: the PTX, plus the optimized LLVM IR when `want_llvm_ir`. `fp_fusion`
/// lets LLVM fuse any multiply and add into an `fma` (Triton's `enable_fp_fusion`). The
/// bitcode `libraries` (libdevice) are linked in first: LLVM keeps only the functions
/// used, and its NVVMReflect pass resolves libdevice's `__nvvm_reflect` queries (no
/// flush to zero).
pub fn lower_module(
    kernels: &mut KernelModule<'_>,
    target: &Target,
    fp_fusion: bool,
    libraries: &[std::path::PathBuf],
    want_llvm_ir: bool,
) -> Result<LoweredModule, CodegenError> {
    let context = kernels.context();
    let sink = DiagnosticSink::attach(context);
    if !kernels.module().as_operation().verify() {
        return Err(CodegenError::InvalidModule {
            diagnostics: sink.take(),
        });
    }

    let pipeline = nvvm_pipeline();
    run_passes(kernels, pipeline, &sink)?;

    let name = kernels.name().to_owned();
    let gpu_module = gpu_module_named(kernels.module(), &name).ok_or_else(|| {
        CodegenError::MissingGpuModule {
            module: name.clone(),
        }
    })?;
    let timer = std::env::var_os("TRITONC_MLIR_TIMING").map(|_| std::time::Instant::now());
    let result =
        crate::serialize::nvptx_compile(gpu_module, target, fp_fusion, libraries, want_llvm_ir);
    if let Some(start) = timer {
        eprintln!(
            "LLVM (translation, O3, NVPTX) for `{name}`: {:.2} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
    }
    result.map_err(|message| {
        let mut diagnostics = sink.take();
        diagnostics.push(message);
        CodegenError::Lowering { diagnostics }
    })
}

/// Runs [`rocdl_pipeline`] over the module, then LLVM ([`crate::amdgpu`]) over its
/// `gpu.module` for the AMD `target`: AMDGCN assembly and a relocatable object (and the
/// optimized LLVM IR when `want_llvm_ir`). The device-library bitcode `libraries` (ocml,
/// ockl) are linked when the kernel calls a function it does not define.
pub fn lower_module_amdgpu(
    kernels: &mut KernelModule<'_>,
    target: &Target,
    options: AmdgpuOptions,
    libraries: &[std::path::PathBuf],
    want_llvm_ir: bool,
) -> Result<AmdgpuOutput, CodegenError> {
    let context = kernels.context();
    let sink = DiagnosticSink::attach(context);
    if !kernels.module().as_operation().verify() {
        return Err(CodegenError::InvalidModule {
            diagnostics: sink.take(),
        });
    }
    let pipeline = rocdl_pipeline(&target.chip());
    run_passes(kernels, &pipeline, &sink)?;
    let name = kernels.name().to_owned();
    let gpu_module = gpu_module_named(kernels.module(), &name).ok_or_else(|| {
        CodegenError::MissingGpuModule {
            module: name.clone(),
        }
    })?;
    crate::amdgpu::amdgpu_compile(gpu_module, target, options, libraries, want_llvm_ir).map_err(
        |message| {
            let mut diagnostics = sink.take();
            diagnostics.push(message);
            CodegenError::Lowering { diagnostics }
        },
    )
}

/// Parses `pipeline` and runs it over the module; MLIR's diagnostics go to `sink`.
fn run_passes(
    kernels: &mut KernelModule<'_>,
    pipeline: &str,
    sink: &DiagnosticSink<'_>,
) -> Result<(), CodegenError> {
    let context = kernels.context();
    let manager = PassManager::new(context);
    // The module was verified above; MLIR's verifier after every pass checks MLIR's own
    // passes, which a release build trusts (as LLVM's release pipelines do). Debug builds,
    // which the tests use, and TRITONC_MLIR_VERIFY=1 keep it.
    manager.enable_verifier(
        cfg!(debug_assertions) || std::env::var_os("TRITONC_MLIR_VERIFY").is_some(),
    );
    if std::env::var_os("TRITONC_MLIR_TIMING").is_some() {
        // MLIR's own pass timing report, printed to stderr when the manager is dropped
        // (as `mlir-opt --mlir-timing`); docs/backend-nvidia.md.
        // SAFETY: `manager` is a live pass manager owned here.
        unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
    }
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|error| {
        CodegenError::PipelineParse {
            pipeline: pipeline.to_string(),
            reason: error.to_string(),
        }
    })?;
    if manager.run(kernels.module_mut()).is_err() {
        return Err(CodegenError::Lowering {
            diagnostics: sink.take(),
        });
    }
    Ok(())
}

/// The `gpu.module @name` op of the module.
fn gpu_module_named<'c, 'a>(module: &'a Module<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if is_named(&current, "gpu.module", name) {
            return Some(current);
        }
        op = current.next_in_block();
    }
    None
}

fn is_named(op: &OperationRef<'_, '_>, kind: &str, name: &str) -> bool {
    op.name().as_string_ref().as_str() == Ok(kind)
        && op
            .attribute("sym_name")
            .ok()
            .and_then(|attr| melior::ir::attribute::StringAttribute::try_from(attr).ok())
            .is_some_and(|attr| attr.value() == name)
}
