//! `tritonc lint`'s engine: rules over the tile IR of every `@triton.jit` kernel.
//!
//! # Layout
//!
//! - [`specialize`]: the lint specialization — a launch signature built from annotations,
//!   defaults, autotune configs and heuristics, with placeholders recorded in
//!   [`specialize::Assumptions`].
//! - [`generic`]: the fallback for kernels the placeholders do not lower: sema's generic
//!   mode with the placeholder runtime types and symbolic constexprs (block sizes, flags),
//!   so a guessed `BLOCK = 64` that a `tl.static_assert` refuses no longer stops analysis.
//! - [`assume`]: what `tl.assume` promises; kernels are lowered without the calls.
//! - [`launches`]: what the host code's launches carry from one kernel of the file to
//!   another (a buffer one kernel fills with non-negative values and the next reads), and
//!   the grids they launch (whether an axis covers complete blocks only).
//! - [`analysis`]: forward dataflow analyses over the tile IR (masked-lane values, value
//!   signs, block structure of offsets and masks, dtype provenance, int32 products).
//! - [`rules`]: one file per rule (`TRI101` …), each with its documentation.
//! - [`registry`]: the rule list and the code registry `tritonc rule` reads.
//! - [`suppress`]: `# noqa: TRI101` / `# tritonc: ignore[TRI101]` comments.
//! - [`settings`]: `[tool.tritonc.lint]` configuration and its discovery.
//! - [`fix`]: applying fixes and rendering them as a diff.
//! - [`output`]: ruff-shaped JSON and concise output.
//!
//! [`lint_file`] is the entry point: it never fails; kernels it cannot lower get a
//! `TRI001` info diagnostic and the source-level rules only.

pub mod analysis;
pub mod assume;
pub mod context;
pub mod fix;
pub mod generic;
pub mod launches;
pub mod output;
pub mod registry;
pub mod rules;
pub mod settings;
pub mod source_dtype;
pub mod source_shape;
pub mod specialize;
pub mod suppress;
pub mod syntax_walk;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use tritonc_diagnostics::{Diagnostic, FileId, Severity};
use tritonc_sema::ModuleScope;
use tritonc_syntax::ast::{ExprKind, Module, StmtKind};
use tritonc_syntax::{Kernel, ModuleIndex};

pub use context::{Applicability, Finding};
pub use registry::{Rule, REGISTRY, RULES};
pub use settings::Settings;

use context::{AnalysedKernel, KernelContext};
use specialize::{lint_specializations, ConfiguredSignature, LintSpecialization};
use suppress::Suppressions;

/// The file id given to configured signature text (its diagnostics become notes).
const SIGNATURE_FILE: FileId = FileId(u32::MAX - 1);

/// What linting one file found.
#[derive(Debug, Default)]
pub struct FileReport {
    /// Findings after suppressions and configuration, plus unused-suppression reports.
    pub findings: Vec<Finding>,
    /// How many kernels were analysed through the IR.
    pub analysed: usize,
    /// How many kernels could only be checked at the source level.
    pub not_analysed: usize,
}

/// Lints every `@triton.jit` kernel of a parsed file.
pub fn lint_file(
    file: FileId,
    path: &Path,
    text: &str,
    module: &Module,
    index: &ModuleIndex,
    settings: &Settings,
) -> FileReport {
    lint_file_in(
        file,
        path,
        text,
        (module, &ModuleScope::from_module(module)),
        index,
        settings,
    )
}

/// [`lint_file`] in a module scope the caller built: one whose imports reach the other
/// modules of the file's project (`tritonc_sema::Project::root_scope`).
pub fn lint_file_in(
    file: FileId,
    path: &Path,
    text: &str,
    (module, scope): (&Module, &ModuleScope),
    index: &ModuleIndex,
    settings: &Settings,
) -> FileReport {
    let mut report = FileReport::default();
    let launches = launches::find_launches(module, &index.kernels);
    let mut stored = launches::StoredSigns::new();
    // Kernels are lowered without their `tl.assume` calls (see [`assume`]).
    let stripped = assume::without_assumes(scope);
    let scope = stripped.as_ref().unwrap_or(scope);
    let mut suppressions = Suppressions::parse(file, text);
    let mut findings: Vec<Finding> = Vec::new();
    let mut seen_defs: Vec<*const tritonc_syntax::ast::FunctionDef> = Vec::new();
    for kernel in &index.kernels {
        let ptr = std::sync::Arc::as_ptr(&kernel.def);
        if seen_defs.contains(&ptr) || is_helper(kernel) {
            continue;
        }
        seen_defs.push(ptr);
        let inputs = launches::non_negative_inputs(&launches, &stored, &kernel.name);
        let (mut kernel_findings, signs) = lint_kernel(
            file,
            text,
            scope,
            (kernel, &inputs, &launches),
            settings,
            &mut report,
        );
        stored.insert(kernel.name.clone(), signs);
        // Findings inside helpers of other files belong to those files' own lint run.
        kernel_findings.retain(|f| f.diagnostic.primary_span().is_none_or(|s| s.file == file));
        let kernel_lines = jit_lines(kernel, &suppressions, text);
        kernel_findings.retain(|f| {
            let code = f.diagnostic.code.0;
            if !settings.enabled(code, path) {
                return false;
            }
            let mut lines: Vec<usize> = kernel_lines.clone();
            if let Some(span) = f.diagnostic.primary_span() {
                lines.push(suppressions.line_of(span.start));
            }
            !suppressions.suppresses(code, &lines)
        });
        findings.extend(kernel_findings);
    }
    if settings.enabled(registry::UNUSED_SUPPRESSION.0, path) {
        findings.extend(suppressions.unused().into_iter().map(Finding::safe));
    }
    report.findings = findings;
    report
}

/// Runs the IR rules on `kernel` lowered generically (see [`generic`]); returns whether it
/// lowered. A hard error of generic mode replaces `lowering_error`: it holds whatever the
/// unknowns are, so it says more than a placeholder's failure.
fn lint_generically(
    (file, text): (FileId, &str),
    scope: &ModuleScope,
    kernel: &Kernel,
    placeholders: &LintSpecialization,
    (settings, launches): (&Settings, &[launches::Launch]),
    (out, signs): (
        &mut Vec<Finding>,
        &mut std::collections::BTreeMap<String, bool>,
    ),
    lowering_error: &mut Option<Diagnostic>,
) -> bool {
    let lowered = catch_unwind(AssertUnwindSafe(|| {
        generic::generic_variant(scope, kernel, placeholders).map(|v| {
            let ir = AnalysedKernel::new(v.func, &v.spec);
            (ir, v.spec, v.assumptions)
        })
    }));
    let (ir, spec, assumptions) = match lowered {
        Ok(Ok(v)) => v,
        Ok(Err(d)) => {
            *lowering_error = Some(d);
            return false;
        }
        Err(_) => return false,
    };
    *signs = launches::stored_signs(&ir, &spec);
    let cx = KernelContext {
        file,
        text,
        kernel,
        spec: &spec,
        ir: Some(&ir),
        settings,
        module_globals: &scope.globals,
        scope,
        launches,
    };
    let mut found = Vec::new();
    // TRI103 judges the values of masked lanes (is `-inf / T` still `-inf`?), which
    // depend on the signs of constexprs that stay symbolic here: it would guess.
    for rule in RULES
        .iter()
        .filter(|r| r.needs_ir() && r.doc().code.0 != "TRI103")
    {
        rule.check(&cx, &mut found);
    }
    let symbolic: Vec<String> = spec
        .assumed
        .constexprs
        .keys()
        .map(|n| format!("`{n}`"))
        .collect();
    let note = format!(
        "`{}` was analysed with {} symbolic: the placeholder values lint guesses did not \
         lower ({assumptions} fact(s) assumed or undecided)",
        kernel.name,
        if symbolic.is_empty() {
            "its unknown constexprs".to_string()
        } else {
            symbolic.join(", ")
        }
    );
    out.extend(found.into_iter().map(|mut f| {
        f.diagnostic = f.diagnostic.with_note(note.clone());
        f
    }));
    true
}

/// What an access at `span` accesses, as written: the callee and its first argument
/// without whitespace (`tl.load(A`), or `None` outside `file`.
fn access_key(file: FileId, text: &str, span: tritonc_diagnostics::Span) -> Option<String> {
    if span.file != file {
        return None;
    }
    let call = text.get(span.start as usize..span.end as usize)?;
    let open = call.find('(')?;
    let mut depth = 0i32;
    let mut end = call.len();
    for (i, ch) in call[open + 1..].char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => {
                end = open + 1 + i;
                break;
            }
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                end = open + 1 + i;
                break;
            }
            _ => {}
        }
    }
    Some(call[..end].split_whitespace().collect())
}

/// A `@jit` function that returns a value is a device helper: it is analysed inlined into
/// the kernels that call it.
fn is_helper(kernel: &Kernel) -> bool {
    fn returns_value(stmts: &[tritonc_syntax::ast::Stmt]) -> bool {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Return(Some(_)) => true,
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => returns_value(body) || returns_value(orelse),
            _ => false,
        })
    }
    returns_value(&kernel.def.body)
}

/// The lines whose suppressions apply to the whole kernel: the `@triton.jit` decorator's
/// (and the `def` line's).
fn jit_lines(kernel: &Kernel, s: &Suppressions, _text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for d in &kernel.def.decorators {
        let target = match &d.kind {
            ExprKind::Call(c) => &c.func,
            _ => d,
        };
        if target
            .dotted_path()
            .is_some_and(|p| p == "jit" || p.ends_with(".jit"))
        {
            lines.push(s.line_of(d.span.start));
        }
    }
    lines.push(s.line_of(kernel.def.header_span.start));
    lines
}

fn lint_kernel(
    file: FileId,
    text: &str,
    scope: &ModuleScope,
    (kernel, inputs, launches): (&Kernel, &BTreeSet<String>, &[launches::Launch]),
    settings: &Settings,
    report: &mut FileReport,
) -> (Vec<Finding>, std::collections::BTreeMap<String, bool>) {
    let mut signs = std::collections::BTreeMap::new();
    let configured = settings
        .kernel_signatures
        .get(&kernel.name)
        .map(|t| ConfiguredSignature {
            text: t.as_str(),
            file: SIGNATURE_FILE,
        });
    let has_signature = configured.is_some();
    let (mut specs, spec_errors) = lint_specializations(kernel, configured);
    // The Triton version the caller resolved (`tritonc_driver::config::triton_version`).
    for s in &mut specs {
        s.spec.options.triton_version = settings.triton_version.unwrap_or_default();
    }
    let mut out: Vec<Finding> = Vec::new();
    let mut lowering_error: Option<Diagnostic> = None;
    let mut analysed = false;
    let mut flags_off_accesses: BTreeSet<String> = BTreeSet::new();
    let mut flags_off_unbounded: BTreeSet<String> = BTreeSet::new();
    let mut flags_off_spans: BTreeSet<(u32, u32)> = BTreeSet::new();
    for (i, spec) in specs.iter().enumerate() {
        let lowered = catch_unwind(AssertUnwindSafe(|| {
            tritonc_sema::lower_kernel_in(scope, &kernel.def.name.name, &spec.spec)
        }));
        let ir = match lowered {
            Ok(Ok(l)) => l
                .module
                .functions
                .into_iter()
                .find(|f| f.name == kernel.def.name.name)
                .map(|f| AnalysedKernel::with_inputs(f, spec, inputs)),
            Ok(Err(mut ds)) => {
                if lowering_error.is_none() && !ds.is_empty() {
                    lowering_error = Some(ds.remove(0));
                }
                None
            }
            Err(_) => {
                lowering_error.get_or_insert_with(|| {
                    Diagnostic::error(
                        tritonc_diagnostics::Code(""),
                        "internal error while lowering the kernel",
                    )
                });
                None
            }
        };
        if let (false, Some(ir)) = (analysed, &ir) {
            signs = launches::stored_signs(ir, spec);
        }
        analysed |= ir.is_some();
        let cx = KernelContext {
            file,
            text,
            kernel,
            spec,
            ir: ir.as_ref(),
            settings,
            module_globals: &scope.globals,
            scope,
            launches,
        };
        let before = out.len();
        for rule in RULES {
            // Source-level rules run once; IR rules on every variant that lowered.
            // Rules that can read the source run on variants that did not lower too.
            let skip_ir = rule.needs_ir() && cx.ir.is_none() && !rule.checks_unlowered();
            if (!rule.needs_ir() && i > 0) || skip_ir {
                continue;
            }
            rule.check(&cx, &mut out);
        }
        // Flags are `False` in the first variant and `True` in the next. An access the
        // flags-off variant bounds and the flags-on variant does not is one a flag takes
        // the mask off (`if not DIVISIBLE_N: mask &= offs_n < N`, or `if EVEN_K:
        // tl.load(A, mask=rows) else: tl.load(A, mask=rows & ks)`): a divisibility promise,
        // like a heuristic's `EVEN_N`. Accesses are matched by what they access: the call
        // and its pointer argument as written.
        let key_of = |s: tritonc_diagnostics::Span| access_key(file, text, s);
        if i == 0 {
            if let Some(ir) = &ir {
                for op in ir.func.walk() {
                    if matches!(
                        ir.func.kind(op),
                        tritonc_ir::OpKind::Load { .. }
                            | tritonc_ir::OpKind::Store { .. }
                            | tritonc_ir::OpKind::AtomicRmw { .. }
                    ) {
                        if let Some(sp) = ir.op_span(op) {
                            flags_off_spans.insert((sp.start, sp.end));
                            if let Some(k) = key_of(sp) {
                                flags_off_accesses.insert(k);
                            }
                        }
                    }
                }
                flags_off_unbounded.extend(
                    out[before..]
                        .iter()
                        .filter(|f| f.diagnostic.code.0 == "TRI101")
                        .filter_map(|f| f.diagnostic.primary_span().and_then(key_of)),
                );
            }
        } else {
            // A different access to the same pointer must keep a mask here: the flag took one
            // factor off (`EVEN_K` drops the K bound, not the rows'), and one that drops
            // every bound says nothing about which was promised.
            let masked_accesses: BTreeSet<(u32, u32)> = ir
                .as_ref()
                .map(|ir| {
                    ir.func
                        .walk()
                        .into_iter()
                        .filter(|&op| {
                            let n = ir.func.op(op).operands().len();
                            match ir.func.kind(op) {
                                tritonc_ir::OpKind::Load { .. } => n > 1,
                                tritonc_ir::OpKind::Store { .. }
                                | tritonc_ir::OpKind::AtomicRmw { .. } => n > 2,
                                _ => false,
                            }
                        })
                        .filter_map(|op| ir.op_span(op).map(|s| (s.start, s.end)))
                        .collect()
                })
                .unwrap_or_default();
            let mut k = before;
            while k < out.len() {
                let f = &out[k];
                let drop = f.diagnostic.code.0 == "TRI101"
                    && f.diagnostic.primary_span().is_some_and(|sp| {
                        let here = (sp.start, sp.end);
                        let same_access =
                            flags_off_spans.contains(&here) || masked_accesses.contains(&here);
                        key_of(sp).is_some_and(|s| {
                            same_access
                                && flags_off_accesses.contains(&s)
                                && !flags_off_unbounded.contains(&s)
                        })
                    });
                if drop {
                    out.remove(k);
                } else {
                    k += 1;
                }
            }
        }
    }
    if let (false, false, Some(first)) = (analysed, has_signature, specs.first()) {
        analysed = lint_generically(
            (file, text),
            scope,
            kernel,
            first,
            (settings, launches),
            (&mut out, &mut signs),
            &mut lowering_error,
        );
    }
    // The same finding from two variants is one finding.
    let mut seen = BTreeSet::new();
    out.retain(|f| {
        seen.insert((
            f.diagnostic.code,
            f.diagnostic.primary_span().map(|s| (s.start, s.end)),
        ))
    });
    if analysed {
        report.analysed += 1;
    } else {
        report.not_analysed += 1;
        // A block size Triton refuses explains why lowering stopped.
        let explained = out
            .iter()
            .any(|f| matches!(f.diagnostic.code.0, "TRI302" | "TRI303"));
        if !explained {
            let mut d = Diagnostic::new(
                Severity::Info,
                registry::KERNEL_NOT_ANALYSED,
                format!(
                    "`{}` was checked at the source level only: it could not be lowered",
                    kernel.name
                ),
            )
            .with_primary(kernel.def.name.span, "");
            if let Some(e) = lowering_error {
                d = d.with_note(format!("lowering stopped: {}", e.message));
                if let Some(s) = e.primary_span().filter(|s| s.file == file) {
                    d = d.with_secondary(s, "here");
                }
            }
            d = d.with_help(format!(
                "give the kernel's launch signature in `[tool.tritonc.kernels.{}]` if lint guessed it wrong",
                kernel.name
            ));
            out.push(Finding::new(d));
        }
    }
    for e in spec_errors {
        out.push(Finding::new(
            Diagnostic::new(
                Severity::Warning,
                registry::KERNEL_NOT_ANALYSED,
                format!(
                    "the configured signature of `{}` does not bind: {}",
                    kernel.name, e.message
                ),
            )
            .with_primary(kernel.def.name.span, "")
            .with_note("lint used the signature it infers from the source instead"),
        ));
    }
    (out, signs)
}
