//! Kernel selection: which kernels of a file a compile takes, with the module scope that
//! resolves their names (helpers and constexpr globals of other project files included),
//! and the signature each one is specialized with.

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, FileId, Severity, SourceMap, Span};
use tritonc_sema::meta::{self, BoundKernel};
use tritonc_sema::ModuleScope;

use crate::codes;
use crate::config;
use crate::frontend::{analyze_file, KernelSummary};
use crate::input::{not_a_file, read_source};
use crate::options::Request;
use crate::project::Projects;

/// A kernel picked from its file, with the module scope sema resolves its names in.
#[derive(Debug, Clone)]
pub struct LoadedKernel {
    /// The kernel as discovery found it.
    pub summary: KernelSummary,
    /// The module's `@jit` functions, constexpr globals and imports, with the project's
    /// other modules behind them.
    pub scope: ModuleScope,
}

/// Reads `path`, checks it and picks its kernels: `wanted` (`--kernel NAME`), the file's
/// only kernel, its only entry point (a `@jit` function no other one calls), or every
/// kernel (or entry point) when the project configuration gives each a signature and
/// `request` names none. Helpers imported from the project's other modules are read now
/// and added to `sources` after the file.
pub fn load_kernels(
    path: &Path,
    wanted: Option<&str>,
    request: &Request,
    sources: &mut SourceMap,
) -> Result<Vec<LoadedKernel>, Vec<Diagnostic>> {
    if path.is_dir() {
        return Err(vec![not_a_file(path)]);
    }
    let file = read_source(path, sources).map_err(|d| vec![d])?;
    if sources.get(file).text().trim().is_empty() {
        return Err(vec![Diagnostic::error(
            codes::EMPTY_FILE,
            format!("`{}` is empty", path.display()),
        )
        .with_help(
            "point `tritonc compile` at the file that defines the kernel",
        )]);
    }
    let projects = Projects::new(FileId(sources.len() as u32));
    let analysis = analyze_file(file, sources, Some((&projects, path)));
    if analysis
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        return Err(analysis.diagnostics);
    }
    let all_configured = |kernels: &[KernelSummary]| {
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        request.signature.is_none() && config::configures_all(path, &names)
    };
    let summaries = select_kernels(path, wanted, analysis.kernels, all_configured)?;
    let scope = projects.scope(path, &analysis.module, &analysis.index, true);
    projects.register(sources);
    Ok(summaries
        .into_iter()
        .map(|summary| LoadedKernel {
            summary,
            scope: scope.clone(),
        })
        .collect())
}

/// `wanted`, the file's only kernel, or all of a file's kernels when `all_configured`
/// says the configuration specializes each one (helpers other kernels call are left out
/// when that leaves one, or leaves only configured ones).
pub fn select_kernels(
    path: &Path,
    wanted: Option<&str>,
    mut kernels: Vec<KernelSummary>,
    all_configured: impl Fn(&[KernelSummary]) -> bool,
) -> Result<Vec<KernelSummary>, Vec<Diagnostic>> {
    let shown = path.display();
    if kernels.is_empty() {
        return Err(vec![Diagnostic::error(
            codes::NO_KERNELS,
            format!("`{shown}` defines no `@triton.jit` kernel"),
        )
        .with_help("decorate the kernel with `@triton.jit`")]);
    }
    let names = kernels
        .iter()
        .map(|k| format!("`{}`", k.name))
        .collect::<Vec<_>>()
        .join(", ");
    let with_labels = |mut d: Diagnostic, kernels: &[KernelSummary]| {
        for k in kernels {
            d = d.with_secondary(k.name_span, "a kernel");
        }
        d
    };
    match wanted {
        Some(name) => match kernels.iter().position(|k| k.name == name) {
            Some(i) => Ok(vec![kernels.swap_remove(i)]),
            None => Err(vec![with_labels(
                Diagnostic::error(
                    codes::UNKNOWN_KERNEL,
                    format!("`{shown}` has no kernel named `{name}`"),
                ),
                &kernels,
            )
            .with_help(format!("the file defines: {names}"))]),
        },
        None if kernels.len() == 1 || all_configured(&kernels) => Ok(kernels),
        // `@jit` helpers another `@jit` function of the file uses are inlined there; the
        // entry points are the rest.
        None if {
            let entries = entry_points(&kernels);
            entries.len() < kernels.len() && (entries.len() == 1 || all_configured(&entries))
        } =>
        {
            Ok(entry_points(&kernels))
        }
        None => Err(vec![with_labels(
            Diagnostic::error(
                codes::AMBIGUOUS_KERNEL,
                format!(
                    "`{shown}` defines {} kernels; which one to compile?",
                    kernels.len()
                ),
            ),
            &kernels,
        )
        .with_help(format!(
            "pass `--kernel NAME`, or give every kernel a signature in the project \
             configuration (`[tool.tritonc.kernels.NAME]`) to compile them all; the file \
             defines: {names}"
        ))]),
    }
}

/// The kernels no other `@jit` function of the file names (helpers are named by the
/// functions they are inlined into).
pub fn entry_points(kernels: &[KernelSummary]) -> Vec<KernelSummary> {
    let used: std::collections::BTreeSet<String> = kernels
        .iter()
        .flat_map(|k| {
            let mut names = tritonc_sema::meta::names_read(&k.kernel.def);
            names.remove(&k.name);
            names
        })
        .collect();
    kernels
        .iter()
        .filter(|k| !used.contains(&k.name))
        .cloned()
        .collect()
}

/// Parses the signature and binds it to the kernel's parameters: the request's, else the
/// kernel's `signature` in the project configuration closest to `path`, else none
/// (annotations and autotune configs decide). The text is registered in `sources` (as
/// `<--signature>`, or as the configuration's path and key) so its errors point into it.
/// A configuration's `num_warps` applies unless the request set warps explicitly.
pub fn bind_signature(
    path: &Path,
    kernel: &KernelSummary,
    request: &Request,
    sources: &mut SourceMap,
) -> Result<Option<BoundKernel>, Vec<Diagnostic>> {
    let mut configured_warps = None;
    let (name, text) = match request.signature.as_deref() {
        Some(text) => ("<--signature>".to_string(), text.to_string()),
        None => match config::configured_kernel(path, &kernel.name)? {
            Some(found) => {
                configured_warps = found.num_warps;
                (found.name, found.signature)
            }
            None => return Ok(None),
        },
    };
    let file = sources.add(name, text.clone());
    let items = tritonc_sema::spec::parse_signature(&text, file)?;
    let span = Span::new(file, 0, text.len() as u32);
    let mut options = request.options.launch_options(&kernel.kernel);
    if let (Some(n), false) = (configured_warps, request.num_warps_given) {
        options.num_warps = n;
    }
    meta::bind_kernel_signature(&kernel.kernel, &items, options, span).map(Some)
}
