//! Choosing the tuned config for a launch (`tritonc run` of an autotuned kernel whose
//! launch spec leaves the tuned meta-parameters out): the tuning table next to the
//! bundles, read by the dispatch rule of [`tritonc_bundle::tuned`] — the winner of the
//! actual key values, else of the nearest tuned ones, else the first config.

use std::path::Path;

use tritonc_bundle::tuned::{find_table, Choice};
use tritonc_bundle::Bundle;
use tritonc_spec::LaunchSpec;
use tritonc_verify::PreparedCase;

use super::cases::spec_for_config;
use super::tuner::Session;

/// The variant of `bundles` compiled for `case`'s specialization (on any target).
pub fn bundle_for(case: &PreparedCase, bundles: &[Bundle]) -> Option<Bundle> {
    bundles
        .iter()
        .find(|b| {
            let Some(target) = tritonc_target::Target::parse(&b.meta.target) else {
                return false;
            };
            let mut s = case.launch.specialization.clone();
            s.options.target = target;
            s.key() == b.meta.key
        })
        .cloned()
}

/// Whether `spec` leaves out a meta-parameter the configs set (then the table decides).
pub fn needs_dispatch(spec: &LaunchSpec, session_configs: &[super::autotuned::TuneConfig]) -> bool {
    session_configs
        .iter()
        .flat_map(|c| c.values.iter().map(|(k, _)| k))
        .any(|k| !spec.args.iter().any(|(a, _)| a == k))
}

/// The launch spec for the config the table in `dir` picks for `session`'s key values on
/// `device`, with a line saying how it was picked.
///
/// `digests` is the code at hand: every variant in the bundle directory (an entry tuned
/// for other key values ran other specializations), or on the interpreter the session's.
pub fn dispatch(
    spec: &LaunchSpec,
    session: &Session,
    dir: Option<&Path>,
    device: &str,
    digests: &[String],
) -> (LaunchSpec, usize, String) {
    let table = dir.and_then(|d| find_table(d, &session.tuned.kernel, device, digests));
    let (index, how) = match &table {
        Some(t) => {
            let (i, choice) = t.choose(&session.key);
            let how = match choice {
                Choice::Exact(_) => format!("tuned for {} on {device}", show_key(&session.key)),
                Choice::Nearest(e) => format!(
                    "tuned for {} on {device}, the nearest to {}",
                    show_key(&t.entries[e].key),
                    show_key(&session.key)
                ),
                Choice::Default => format!(
                    "the first config: the table on {device} has no entry for {} or a key like it",
                    show_key(&session.key)
                ),
            };
            (i, how)
        }
        None => (
            0,
            format!("the first config: no tuning table for these variants on {device}"),
        ),
    };
    let index = index.min(session.candidates.len().saturating_sub(1));
    (spec_for_config(spec, &session.candidates[index].config), index, how)
}

/// `M=4096, N=4096`.
pub fn show_key(key: &std::collections::BTreeMap<String, serde_json::Value>) -> String {
    key.iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// For `tritonc run`: when `spec`'s kernel is autotuned and the spec leaves a tuned
/// meta-parameter out, the spec completed with the config the table in `dir` picks on
/// `device` (its variants among `bundles`; on the interpreter, `None`), and a line saying
/// which and why. `None` when the spec is complete or the kernel is not autotuned.
#[allow(clippy::too_many_arguments)]
pub fn tuned_launch(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut tritonc_diagnostics::SourceMap,
    scopes: &dyn tritonc_spec::KernelScopes,
    options: &crate::options::Options,
    dir: Option<&Path>,
    bundles: Option<&[Bundle]>,
    device: &str,
) -> Result<Option<(LaunchSpec, String)>, Vec<tritonc_diagnostics::Diagnostic>> {
    let base = spec_path.parent().unwrap_or(Path::new("."));
    let request = crate::options::Request::new(options.clone());
    // A file the driver cannot select a kernel from is left to the launch, which reports
    // its own errors; only an autotuned kernel is dispatched.
    let Ok(loaded) = crate::select::load_kernels(
        &base.join(&spec.kernel_file),
        spec.kernel_name.as_deref(),
        &request,
        &mut tritonc_diagnostics::SourceMap::new(),
    ) else {
        return Ok(None);
    };
    let Some(kernel) = loaded.first() else {
        return Ok(None);
    };
    if kernel.summary.kernel.autotune.is_none() {
        return Ok(None);
    }
    let tuned = super::autotuned::read(&kernel.summary.kernel, &kernel.scope)?;
    if !needs_dispatch(spec, &tuned.configs) {
        return Ok(None);
    }
    let session = super::tuner::prepare_session(spec, spec_path, sources, scopes, options)?;
    let digests = match bundles {
        Some(bundles) => bundles.iter().map(tritonc_bundle::tuned::code_digest).collect(),
        None => session.digests(),
    };
    let (spec, index, how) = dispatch(spec, &session, dir, device, &digests);
    let line = format!(
        "{}: config [{index}] {} ({how})",
        session.tuned.kernel,
        session.candidates[index].config.label()
    );
    Ok(Some((spec, line)))
}
