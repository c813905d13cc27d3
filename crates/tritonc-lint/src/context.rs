//! What a rule sees of one kernel: its source, discovery facts, the lint specialization,
//! and (when lowering succeeded) the tile IR with every analysis solved.

use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_ir::{Function, OpId};
use tritonc_syntax::Kernel;

use crate::analysis::lanes::{Lanes, LanesAnalysis};
use crate::analysis::overflow::{Int32Product, OverflowAnalysis};
use crate::analysis::provenance::{DTypeOrigin, ProvenanceAnalysis};
use crate::analysis::shape::{ShapeAnalysis, ShapeFact};
use crate::analysis::sign::{Sign, SignAnalysis};
use crate::analysis::{solve, Facts};
use crate::settings::Settings;
use crate::specialize::LintSpecialization;

/// A kernel lowered to tile IR, with the analyses solved over it.
pub struct AnalysedKernel {
    /// The kernel function (helpers are inlined into it).
    pub func: Function,
    /// Block structure and offsets.
    pub shape: Facts<ShapeFact>,
    /// Masked-lane values.
    pub lanes: Facts<Lanes>,
    /// Signs of data lanes.
    pub sign: Facts<Sign>,
    /// Dtype provenance.
    pub dtype: Facts<DTypeOrigin>,
    /// int32 program-id products.
    pub overflow: Facts<Int32Product>,
}

impl AnalysedKernel {
    /// Solves every analysis over `func`, lowered under `spec`.
    pub fn new(func: Function, spec: &LintSpecialization) -> Self {
        Self::with_inputs(func, spec, &Default::default())
    }

    /// [`AnalysedKernel::new`], given the pointer parameters (by name) whose buffers hold
    /// only non-negative values (see [`crate::launches`]).
    pub fn with_inputs(
        func: Function,
        spec: &LintSpecialization,
        non_negative: &std::collections::BTreeSet<String>,
    ) -> Self {
        let assumed_args: Vec<bool> = spec
            .spec
            .params
            .iter()
            .filter(|(_, s)| s.is_runtime())
            .map(|(n, _)| {
                spec.assumed.pointer_dtypes.contains(n) || spec.assumed.scalar_types.contains(n)
            })
            .collect();
        let non_negative_args = spec
            .spec
            .params
            .iter()
            .filter(|(_, s)| s.is_runtime())
            .zip(func.args())
            .filter(|((n, _), _)| non_negative.contains(n.as_str()))
            .map(|(_, &v)| v)
            .collect();
        let shape = solve(&func, &ShapeAnalysis);
        let sign = solve(&func, &SignAnalysis { non_negative_args });
        let lanes = solve(&func, &LanesAnalysis { sign: &sign });
        let dtype = ProvenanceAnalysis { assumed_args }.run(&func);
        let overflow = solve(&func, &OverflowAnalysis);
        AnalysedKernel {
            func,
            shape,
            lanes,
            sign,
            dtype,
            overflow,
        }
    }

    /// The source span of `op` as written in the kernel: for an op inlined from a helper,
    /// the call in the kernel that leads to it (so labels and suppressions sit in the
    /// kernel the user is reading); `None` when the op has no location.
    pub fn kernel_span(&self, op: OpId) -> Option<Span> {
        let loc = &self.func.op(op).loc;
        loc.known_span()?;
        Some(*loc.call_sites.last().unwrap_or(&loc.span))
    }

    /// The span where `op` is written, in whichever function holds it.
    pub fn op_span(&self, op: OpId) -> Option<Span> {
        self.func.op(op).loc.known_span()
    }
}

/// Everything a rule may look at for one kernel.
pub struct KernelContext<'a> {
    /// The file the kernel is in.
    pub file: FileId,
    /// The file's text.
    pub text: &'a str,
    /// The kernel as discovery found it.
    pub kernel: &'a Kernel,
    /// The specialization it was lowered under.
    pub spec: &'a LintSpecialization,
    /// The lowered, analysed kernel, when lowering succeeded.
    pub ir: Option<&'a AnalysedKernel>,
    /// Rule settings.
    pub settings: &'a Settings,
    /// The module's compile-time globals (imports, constexpr globals).
    pub module_globals: &'a indexmap::IndexMap<String, tritonc_sema::Constexpr>,
    /// The module scope the kernel was lowered in (for rules that lower it again).
    pub scope: &'a tritonc_sema::ModuleScope,
    /// The launches of the file's kernels in its host code.
    pub launches: &'a [crate::launches::Launch],
}

impl KernelContext<'_> {
    /// Per grid axis, whether every launch of this kernel in the file covers complete
    /// blocks only along it (see [`crate::launches::grid_axes`]); `false` for an axis when
    /// the kernel has no launch here or some launch's grid is unknown or may round up.
    pub fn complete_grid_axis(&self, axis: usize) -> bool {
        let mut mine = self
            .launches
            .iter()
            .filter(|l| l.kernel == self.kernel.name)
            .peekable();
        mine.peek().is_some()
            && mine.all(|l| {
                l.grid
                    .as_ref()
                    .is_some_and(|g| g.get(axis).copied().unwrap_or(false))
            })
    }
}

impl KernelContext<'_> {
    /// The source text under `span` (empty when it lies outside this file).
    pub fn slice(&self, span: Span) -> &str {
        if span.file != self.file {
            return "";
        }
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// A diagnostic from a rule, with how safe its fix is.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The diagnostic.
    pub diagnostic: Diagnostic,
    /// How safe the diagnostic's fix is (ignored when it has none).
    pub applicability: Applicability,
}

/// Whether a fix keeps the program's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Applied by `--fix`: does not change what the kernel computes on valid inputs.
    Safe,
    /// Applied only with `--unsafe-fixes`: changes memory behaviour or results.
    Unsafe,
}

impl Finding {
    /// A finding whose fix (if any) is unsafe.
    pub fn new(diagnostic: Diagnostic) -> Self {
        Finding {
            diagnostic,
            applicability: Applicability::Unsafe,
        }
    }

    /// A finding whose fix is safe.
    pub fn safe(diagnostic: Diagnostic) -> Self {
        Finding {
            diagnostic,
            applicability: Applicability::Safe,
        }
    }
}
