//! The text stages of a compile (`--emit ttir`, `ttgir`, `mlir`, `llir`, `amdgcn`): each
//! variant of a kernel lowered to the stage and printed. The code stages (PTX, cubin,
//! bundles) go through [`crate::compile`] and the cache.

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_sema::meta::BoundKernel;

use crate::backend::Backend;
use crate::codes;
use crate::options::Options;
use crate::select::LoadedKernel;
use crate::target::Stage;
use crate::variants::{lower, lower_module, variants, StageError};

/// One emitted specialization of a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutput {
    /// For one of several autotune variants: its index and the config it comes from
    /// (`BLOCK_M=128, num_warps=8, num_stages=3`).
    pub variant: Option<(usize, String)>,
    /// The stage's text.
    pub text: String,
}

/// The text of `stage` for every variant of `kernel` (specialized by `bound`, else its
/// annotations); sema's warnings go to `warnings`. `mlir`, `llir` and `amdgcn` need the
/// back end (the `mlir` feature) and are never cached. Code stages (`ptx`, `cubin`,
/// `c`) are not text stages: they give [`StageError::NotImplemented`].
pub fn stage_text(
    kernel: &LoadedKernel,
    bound: Option<&BoundKernel>,
    options: &Options,
    stage: Stage,
    sources: &SourceMap,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<StageOutput>, StageError> {
    let mut outputs = Vec::new();
    let backend = matches!(stage, Stage::Mlir | Stage::Llir | Stage::Amdgcn)
        .then(|| Backend::new(options.backend(false), None));
    for v in variants(kernel, bound, options)? {
        let text = match stage {
            Stage::Ttir => {
                let module = lower_module(kernel, &v.spec, warnings)?;
                tritonc_ir::print_module(&module, tritonc_ir::PrintOptions::default())
            }
            Stage::Ttgir => {
                let func = lower(kernel, &v.spec, warnings)?;
                let gpu_options =
                    tritonc_ttgir::GpuOptions::for_target(v.spec.options.num_warps, options.target)
                        .with_stages(v.spec.options.num_stages);
                let gpu = tritonc_ttgir::lower_to_gpu_ir(&func, &gpu_options).map_err(|e| {
                    let mut d = Diagnostic::error(
                        codes::BACKEND_UNSUPPORTED,
                        format!("layout assignment failed: {}", e.message),
                    );
                    if let Some(span) = e.span {
                        d = d.with_primary(span, "here");
                    }
                    StageError::Diagnostics(vec![d])
                })?;
                tritonc_ttgir::print_gpu_module(&gpu, &gpu_options)
            }
            Stage::Mlir | Stage::Llir | Stage::Amdgcn => {
                let func = lower(kernel, &v.spec, warnings)?;
                backend
                    .as_ref()
                    .expect("made for these stages")
                    .ir_text(&func, sources, &v.spec, stage)
                    .map_err(StageError::Backend)?
            }
            Stage::Ptx | Stage::Cubin | Stage::C => {
                return Err(StageError::NotImplemented(format!(
                    "`{}` is a code stage: compile it through the back end",
                    stage.name()
                )))
            }
        };
        outputs.push(StageOutput {
            variant: v.label,
            text,
        });
    }
    Ok(outputs)
}
