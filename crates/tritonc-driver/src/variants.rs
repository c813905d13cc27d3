//! Variants: a kernel's specializations (its bound signature, or its annotations,
//! expanded over autotune configs and heuristics), each lowered to the tile IR.

use tritonc_diagnostics::Diagnostic;
use tritonc_sema::meta::{self, BoundKernel};
use tritonc_sema::Specialization;

use crate::backend::BackendError;
use crate::options::Options;
use crate::select::LoadedKernel;

/// Why a stage produced no output.
#[derive(Debug)]
pub enum StageError {
    /// Errors in the kernel or its signature (exit 2).
    Diagnostics(Vec<Diagnostic>),
    /// The stage is not available in this build (exit 4); the message says what is missing.
    NotImplemented(String),
    /// The back end could not produce the stage.
    Backend(BackendError),
}

/// One specialization to compile, with its autotune label when there are several.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its index among the kernel's variants and the config it comes from
    /// (`BLOCK_M=128, num_warps=8, num_stages=3`); `None` for a kernel of one variant.
    pub label: Option<(usize, String)>,
    /// The specialization.
    pub spec: Specialization,
}

/// The kernel's specializations: `bound` (or, without one, the kernel's annotations with
/// `options`) expanded over autotune configs and heuristics.
pub fn variants(
    kernel: &LoadedKernel,
    bound: Option<&BoundKernel>,
    options: &Options,
) -> Result<Vec<Variant>, StageError> {
    let found = &kernel.summary.kernel;
    let from_annotations;
    let bound = match bound {
        Some(b) => b,
        None => {
            from_annotations = meta::specialize_from_annotations(
                found,
                &kernel.scope,
                options.launch_options(found),
            )
            .map_err(StageError::Diagnostics)?;
            &from_annotations
        }
    };
    let expanded =
        meta::expand_variants(found, &kernel.scope, bound).map_err(StageError::Diagnostics)?;
    let several = expanded.len() > 1;
    Ok(expanded
        .into_iter()
        .enumerate()
        .map(|(i, v)| Variant {
            label: several.then(|| (i, v.label.unwrap_or_default())),
            spec: v.spec,
        })
        .collect())
}

/// The kernel's `tl.constexpr` parameter names (the bundle's ABI leaves them out).
pub fn constexpr_params(kernel: &LoadedKernel) -> Vec<String> {
    kernel
        .summary
        .kernel
        .def
        .params
        .iter()
        .filter(|p| {
            p.annotation
                .as_ref()
                .is_some_and(tritonc_sema::spec::is_constexpr_annotation)
        })
        .map(|p| p.name.name.clone())
        .collect()
}

/// Lowers one variant to its tile IR module; sema's warnings go to `warnings`.
pub fn lower_module(
    kernel: &LoadedKernel,
    spec: &Specialization,
    warnings: &mut Vec<Diagnostic>,
) -> Result<tritonc_ir::Module, StageError> {
    let lowered = tritonc_sema::lower_kernel_in(&kernel.scope, &kernel.summary.name, spec)
        .map_err(StageError::Diagnostics)?;
    warnings.extend(lowered.warnings);
    Ok(lowered.module)
}

/// Lowers one variant to the kernel's tile IR function.
pub fn lower(
    kernel: &LoadedKernel,
    spec: &Specialization,
    warnings: &mut Vec<Diagnostic>,
) -> Result<tritonc_ir::Function, StageError> {
    let module = lower_module(kernel, spec, warnings)?;
    match module.function(&kernel.summary.name) {
        Some(f) => Ok(f.clone()),
        None => module.functions.into_iter().next().ok_or_else(|| {
            StageError::NotImplemented("sema produced no function for the kernel".into())
        }),
    }
}
