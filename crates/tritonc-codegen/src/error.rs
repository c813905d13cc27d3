//! Errors of MLIR construction, lowering and PTX assembly.

use std::path::PathBuf;

/// What went wrong between building the MLIR module and getting PTX that ptxas accepts.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// The MLIR verifier rejected the module as built; `diagnostics` holds MLIR's messages.
    #[error("the generated MLIR module does not verify:\n{}", .diagnostics.join("\n"))]
    InvalidModule {
        /// MLIR diagnostics, each `location: message`.
        diagnostics: Vec<String>,
    },
    /// A builder call could not form an operation (MLIR rejected its operands or attributes).
    #[error("cannot build `{op}`: {reason}")]
    OperationBuild {
        /// The operation name, e.g. `nvvm.shfl.sync`.
        op: String,
        /// MLIR's reason.
        reason: String,
    },
    /// The pass pipeline text did not parse (a pass or an option is unknown to this MLIR).
    #[error("invalid pass pipeline `{pipeline}`: {reason}")]
    PipelineParse {
        /// The textual pipeline.
        pipeline: String,
        /// MLIR's reason.
        reason: String,
    },
    /// A pass failed; `diagnostics` carries the locations MLIR reported.
    #[error("lowering to machine code (PTX or AMDGCN) failed:\n{}", .diagnostics.join("\n"))]
    Lowering {
        /// MLIR diagnostics, each `location: message`.
        diagnostics: Vec<String>,
    },
    /// The module holds no `gpu.module` of the expected name after MLIR's pipeline.
    #[error("the lowered module holds no `gpu.module @{module}`")]
    MissingGpuModule {
        /// The `gpu.module` symbol name.
        module: String,
    },
    /// ptxas could not be started.
    #[error("cannot run ptxas at {path}: {source}")]
    PtxasSpawn {
        /// The ptxas path tried.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// ptxas could not give a result otherwise: a bound was hit, it crashed, it wrote
    /// no cubin, or the program is shutting down.
    #[error("{0}")]
    Ptxas(tritonc_toolchain::PtxasError),
    /// `TRITONC_PTXAS_TIMEOUT` or `TRITONC_PTXAS_MEMORY` is malformed.
    #[error("{0}")]
    PtxasBounds(String),
    /// ptxas rejected the PTX.
    #[error("ptxas -arch={arch} rejected the PTX:\n{stderr}")]
    PtxasRejected {
        /// The `sm_XX` architecture.
        arch: String,
        /// ptxas' messages.
        stderr: String,
    },
}
