//! The MLIR pass pipeline from a `gpu.module` of kernels to PTX text.

use std::{cell::RefCell, rc::Rc};

use melior::{
    ir::{
        attribute::{ArrayAttribute, AttributeLike},
        operation::{OperationLike, OperationRef},
        BlockLike, Location, Module,
    },
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};

use crate::{error::CodegenError, module::KernelModule, target::NvptxTarget};

/// The textual pass pipeline lowering every `gpu.module` to PTX for `target`.
///
/// - `nvvm-attach-target` puts `#nvvm.target<chip, features>` on the `gpu.module`;
///   `features=+ptxNN` fixes the PTX ISA version (LLVM's default is the chip's minimum).
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
/// - `gpu-module-to-binary{format=isa}` runs LLVM's NVPTX back end and stores the PTX
///   text in a `gpu.binary` op (no ptxas: `format=isa` stops at assembly).
pub fn nvptx_pipeline(target: &NvptxTarget) -> String {
    nvptx_pipeline_linking(target, &[])
}

/// [`nvptx_pipeline`] linking the bitcode `libraries` (libdevice) into every module
/// (`nvvm-attach-target`'s `l` option; LLVM keeps only the functions used, and its
/// NVVMReflect pass resolves libdevice's `__nvvm_reflect` queries: no flush to zero).
pub fn nvptx_pipeline_linking(target: &NvptxTarget, libraries: &[std::path::PathBuf]) -> String {
    let link = if libraries.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = libraries.iter().map(|p| p.display().to_string()).collect();
        format!(" l={}", list.join(","))
    };
    format!(
        "builtin.module(\
         nvvm-attach-target{{chip={chip} features={features} O=3{link}}},\
         gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{{index-bitwidth=32}}),\
         ensure-debug-info-scope-on-llvm-func{{emission-kind=DebugDirectivesOnly}},\
         reconcile-unrealized-casts,\
         gpu-module-to-binary{{format=isa}})",
        chip = target.chip(),
        features = target.features(),
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

/// Verifies the module, lowers it to PTX for `target` and returns the PTX text.
///
/// The module is rewritten in place (it ends as a `gpu.binary`). On failure the error
/// carries MLIR's diagnostics with the locations of the offending ops.
pub fn lower_to_ptx(
    kernels: &mut KernelModule<'_>,
    target: &NvptxTarget,
) -> Result<String, CodegenError> {
    lower_to_ptx_linking(kernels, target, &[])
}

/// [`lower_to_ptx`] linking the bitcode `libraries` (see [`nvptx_pipeline_linking`]).
pub fn lower_to_ptx_linking(
    kernels: &mut KernelModule<'_>,
    target: &NvptxTarget,
    libraries: &[std::path::PathBuf],
) -> Result<String, CodegenError> {
    let context = kernels.context();
    let sink = DiagnosticSink::attach(context);
    if !kernels.module().as_operation().verify() {
        return Err(CodegenError::InvalidModule {
            diagnostics: sink.take(),
        });
    }

    let pipeline = nvptx_pipeline_linking(target, libraries);
    let manager = PassManager::new(context);
    if std::env::var_os("TRITONC_MLIR_TIMING").is_some() {
        // MLIR's own pass timing report, printed to stderr when the manager is dropped
        // (as `mlir-opt --mlir-timing`); docs/backend-nvidia.md.
        // SAFETY: `manager` is a live pass manager owned here.
        unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
    }
    parse_pass_pipeline(manager.as_operation_pass_manager(), &pipeline).map_err(|error| {
        CodegenError::PipelineParse {
            pipeline: pipeline.clone(),
            reason: error.to_string(),
        }
    })?;
    if manager.run(kernels.module_mut()).is_err() {
        return Err(CodegenError::Lowering {
            diagnostics: sink.take(),
        });
    }

    let name = kernels.name().to_owned();
    ptx_of_binary(kernels.module(), &name).ok_or(CodegenError::MissingPtx { module: name })
}

/// The PTX text of the first object of `gpu.binary @name`.
fn ptx_of_binary(module: &Module<'_>, name: &str) -> Option<String> {
    let mut op = module.body().first_operation();
    while let Some(current) = op {
        if is_binary_named(&current, name) {
            let objects = ArrayAttribute::try_from(current.attribute("objects").ok()?).ok()?;
            let object = objects.element(0).ok()?;
            return gpu_object_text(object);
        }
        op = current.next_in_block();
    }
    None
}

fn is_binary_named(op: &OperationRef<'_, '_>, name: &str) -> bool {
    op.name().as_string_ref().as_str() == Ok("gpu.binary")
        && op
            .attribute("sym_name")
            .ok()
            .and_then(|attr| melior::ir::attribute::StringAttribute::try_from(attr).ok())
            .is_some_and(|attr| attr.value() == name)
}

/// The payload of a `#gpu.object` attribute (for `format=isa`, the PTX text).
fn gpu_object_text(object: melior::ir::Attribute<'_>) -> Option<String> {
    // SAFETY: `object` is a live attribute of the module's context; the C API checks its
    // kind before the accessor, which returns a view into the attribute's storage that is
    // copied out before the attribute can go away.
    unsafe {
        if !mlir_sys::mlirAttributeIsAGPUObjectAttr(object.to_raw()) {
            return None;
        }
        let text = mlir_sys::mlirGPUObjectAttrGetObject(object.to_raw());
        let bytes = std::slice::from_raw_parts(text.data.cast::<u8>(), text.length);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}
