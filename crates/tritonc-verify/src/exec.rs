//! Running a case: the prepared launch, the [`Executor`] interface every device
//! implements, and the interpreter as an executor (the oracle, and the stand-in device
//! of GPU-free tests).

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::{Buffer, BufferId, InterpOptions, Memory, RuntimeErrorKind};
use tritonc_ir::Function;
use tritonc_spec::{Launch, LaunchSpec, TensorArg};

use crate::compare::OutputTensor;

/// A case ready to launch: the materialized tensors (initial memory), the arguments,
/// the specialization and the kernel's tile IR for it.
pub struct PreparedCase {
    /// The launch, with memory as it is before the kernel runs.
    pub launch: Launch,
    /// The kernel lowered for `launch.specialization`.
    pub function: Function,
    /// Warps per program.
    pub num_warps: u32,
    /// The kernel's `tl.constexpr` parameters (the others the specialization fixed to 1
    /// were ints equal to one).
    pub constexpr_params: Vec<String>,
}

impl PreparedCase {
    /// Materializes `spec` (whose file is `spec_path`, for relative paths) and lowers the
    /// kernel for the resulting specialization. The kernel file is added to `sources`.
    pub fn prepare(
        spec: &LaunchSpec,
        spec_path: &Path,
        sources: &mut SourceMap,
    ) -> Result<PreparedCase, Vec<Diagnostic>> {
        Self::prepare_with(spec, spec_path, sources, true, &tritonc_spec::SingleFile)
    }

    /// [`PreparedCase::prepare`] with the kernel's imports resolved by `scopes`.
    pub fn prepare_in(
        spec: &LaunchSpec,
        spec_path: &Path,
        sources: &mut SourceMap,
        scopes: &dyn tritonc_spec::KernelScopes,
    ) -> Result<PreparedCase, Vec<Diagnostic>> {
        Self::prepare_with(spec, spec_path, sources, true, scopes)
    }

    /// [`PreparedCase::prepare`] without the tensors' data ([`tritonc_spec::prepare_shapes`]):
    /// the specialization and the lowered kernel, for compiling, with empty buffers (its
    /// outputs are not to be read).
    pub fn prepare_shapes(
        spec: &LaunchSpec,
        spec_path: &Path,
        sources: &mut SourceMap,
    ) -> Result<PreparedCase, Vec<Diagnostic>> {
        Self::prepare_with(spec, spec_path, sources, false, &tritonc_spec::SingleFile)
    }

    /// [`PreparedCase::prepare_shapes`] with the kernel's imports resolved by `scopes`.
    pub fn prepare_shapes_in(
        spec: &LaunchSpec,
        spec_path: &Path,
        sources: &mut SourceMap,
        scopes: &dyn tritonc_spec::KernelScopes,
    ) -> Result<PreparedCase, Vec<Diagnostic>> {
        Self::prepare_with(spec, spec_path, sources, false, scopes)
    }

    fn prepare_with(
        spec: &LaunchSpec,
        spec_path: &Path,
        sources: &mut SourceMap,
        data: bool,
        scopes: &dyn tritonc_spec::KernelScopes,
    ) -> Result<PreparedCase, Vec<Diagnostic>> {
        let (launch, def, module) = if data {
            tritonc_spec::prepare_in(spec, spec_path, sources, scopes)?
        } else {
            tritonc_spec::prepare_shapes_in(spec, spec_path, sources, scopes)?
        };
        let constexpr_params = def
            .params
            .iter()
            .filter(|p| {
                p.annotation
                    .as_ref()
                    .is_some_and(tritonc_sema::spec::is_constexpr_annotation)
            })
            .map(|p| p.name.name.clone())
            .collect();
        let lowered = tritonc_spec::lower(spec, &launch, &module)?;
        let function = match lowered.function(&launch.kernel_name) {
            Some(f) => f.clone(),
            None => lowered.functions.into_iter().next().ok_or_else(|| {
                vec![Diagnostic::error(
                    tritonc_spec::codes::MALFORMED_SPEC,
                    format!("sema produced no function for `{}`", launch.kernel_name),
                )]
            })?,
        };
        Ok(PreparedCase {
            launch,
            function,
            num_warps: spec.num_warps,
            constexpr_params,
        })
    }

    /// The output tensors' values in `memory` (the case's memory after a run).
    pub fn outputs_in(&self, memory: &Memory) -> Vec<OutputTensor> {
        self.launch
            .tensors
            .iter()
            .filter(|t| t.output)
            .map(|t| output_tensor(t, t.values(memory)))
            .collect()
    }

    /// The output tensors decoded from raw buffer bytes (`bytes_of(buffer index)`), as a
    /// device hands them back.
    pub fn outputs_from_bytes(&self, bytes_of: impl Fn(usize) -> Vec<u8>) -> Vec<OutputTensor> {
        self.launch
            .tensors
            .iter()
            .filter(|t| t.output)
            .map(|t| {
                let buffer = Buffer {
                    name: t.name.clone(),
                    dtype: t.dtype,
                    bytes: bytes_of(t.buffer.0 as usize),
                };
                output_tensor(t, t.gather_view(buffer.to_f64_vec(), f64::NAN))
            })
            .collect()
    }
}

fn output_tensor(t: &TensorArg, values: Vec<f64>) -> OutputTensor {
    OutputTensor {
        name: t.name.clone(),
        dtype: t.dtype,
        shape: t.shape.clone(),
        values,
    }
}

/// Why an executor produced no result.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// What kind of failure.
    pub kind: ExecErrorKind,
    /// The message.
    pub message: String,
    /// A diagnostic with source spans (interpreter errors), when there is one.
    pub diagnostic: Option<Diagnostic>,
}

/// The kinds of [`ExecError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecErrorKind {
    /// No GPU, no driver, out of device memory: nothing can run (exit 3).
    Unavailable,
    /// The launch was refused before it reached the device: no variant accepts the
    /// arguments, or the bundle does not fit the device (exit 2 for `run`).
    Refused,
    /// The interpreter found a data race.
    Race,
    /// The kernel failed: an out-of-bounds access, a driver error, a fault.
    Failed,
}

impl ExecError {
    /// An error of `kind`.
    pub fn new(kind: ExecErrorKind, message: impl Into<String>) -> ExecError {
        ExecError {
            kind,
            message: message.into(),
            diagnostic: None,
        }
    }
}

/// What a device reports about a series of runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Device memory in use after the first run and after the last, in bytes.
    pub memory_used: Option<(u64, u64)>,
    /// Something worth reporting (e.g. why the cubin was not loaded).
    pub note: Option<String>,
}

/// Bytes `start .. start + len` of buffer `buffer` of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    /// The buffer (the interpreter's id, which the device maps to its own allocation).
    pub buffer: BufferId,
    /// The first byte.
    pub start: usize,
    /// The length in bytes.
    pub len: usize,
}

/// Something that runs a prepared case: the GPU, or the interpreter.
pub trait Executor {
    /// What it is, for reports (`NVIDIA H200 (sm_90)`, `interpreter`).
    fn describe(&mut self) -> String;

    /// Runs `case` `runs` times, each from the case's initial memory, and hands the
    /// outputs of run `i` to `each(i, outputs)`.
    fn run(
        &mut self,
        case: &PreparedCase,
        runs: usize,
        each: &mut dyn FnMut(usize, Vec<OutputTensor>),
    ) -> Result<RunStats, ExecError>;

    /// Whether it is the interpreter, the implementation verification compares against:
    /// its outputs compared with the interpreter's are the same computation twice, so
    /// such comparisons are reported as having no independent reference, never as passes.
    fn is_interpreter(&self) -> bool {
        false
    }

    /// The target of the code it runs `case` with (a GPU: its bundle's), whose
    /// reduction and scan orders the interpreter replays when compared with it; `None`
    /// for the interpreter itself or when unknown (the interpreter's default order).
    fn code_target(&mut self, _case: &PreparedCase) -> Option<tritonc_target::Target> {
        None
    }

    /// Whether it runs whole launches past 2^31 elements ([`Executor::run_gathering`]):
    /// a GPU does; the interpreter runs only sampled programs of those.
    fn runs_large_launches(&self) -> bool {
        false
    }

    /// Runs `case` once over its whole grid and returns the bytes of each of `ranges`
    /// afterwards (the elements that sampled programs wrote, for stage 3's large check).
    fn run_gathering(
        &mut self,
        case: &PreparedCase,
        ranges: &[ByteRange],
    ) -> Result<Vec<Vec<u8>>, ExecError> {
        let _ = (case, ranges);
        Err(ExecError::new(
            ExecErrorKind::Refused,
            "this device does not run whole launches past 2^31 elements",
        ))
    }
}

/// The CPU interpreter as an executor.
#[derive(Debug, Clone)]
pub struct InterpreterExecutor {
    /// The interpreter's options (`num_warps` is taken from each case).
    pub options: InterpOptions,
}

impl InterpreterExecutor {
    /// The interpreter with masked lanes poisoned or not, and race detection on or off.
    pub fn new(poison_masked: bool, detect_races: bool) -> Self {
        InterpreterExecutor {
            options: InterpOptions {
                poison_masked,
                detect_races,
                ..InterpOptions::default()
            },
        }
    }

    /// [`InterpreterExecutor::new`] combining reductions and scans in the order the code
    /// for `target` does (`None`: the default order, sm_90's).
    pub fn for_target(
        poison_masked: bool,
        detect_races: bool,
        target: Option<tritonc_target::Target>,
    ) -> Self {
        let mut e = Self::new(poison_masked, detect_races);
        if let Some(t) = target {
            e.options.reduction_orders = tritonc_interp::ReductionOrderSource::BackendFor(t);
        }
        e
    }

    /// One run: the outputs, or the interpreter's error.
    pub fn run_once(&self, case: &PreparedCase) -> Result<Vec<OutputTensor>, ExecError> {
        let mut memory = case.launch.memory.clone();
        let mut options = self.options.clone();
        options.num_warps = case.num_warps;
        tritonc_interp::launch(
            &case.function,
            &case.launch.runtime_args,
            case.launch.grid,
            &mut memory,
            &options,
        )
        .map_err(|e| {
            let diagnostic = e.to_diagnostic();
            ExecError {
                kind: match e.kind {
                    RuntimeErrorKind::Race { .. } => ExecErrorKind::Race,
                    _ => ExecErrorKind::Failed,
                },
                message: format!("{}: {}", e.code().0, diagnostic.message),
                diagnostic: Some(diagnostic),
            }
        })?;
        Ok(case.outputs_in(&memory))
    }
}

impl Executor for InterpreterExecutor {
    fn is_interpreter(&self) -> bool {
        true
    }

    fn describe(&mut self) -> String {
        if self.options.poison_masked {
            "interpreter (masked lanes poisoned)".into()
        } else {
            "interpreter".into()
        }
    }

    fn run(
        &mut self,
        case: &PreparedCase,
        runs: usize,
        each: &mut dyn FnMut(usize, Vec<OutputTensor>),
    ) -> Result<RunStats, ExecError> {
        for i in 0..runs {
            each(i, self.run_once(case)?);
        }
        Ok(RunStats::default())
    }
}
