//! The tuning loop for one launch (one value of the autotune key): every config not
//! pruned runs once from the launch's initial memory and is checked against the
//! reference, then the correct ones are timed; the fastest correct config wins. With
//! several benches (one per GPU) the configs are shared out among them, one worker
//! thread each.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use tritonc_bundle::tuned::{
    ConfigOutcome, TuneEntry, TuneTable, TunedConfig, TunedVariant, TUNE_FORMAT_VERSION,
};
use tritonc_bundle::Bundle;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::BufferId;
use tritonc_runtime::{median, TimingMethod};
use tritonc_spec::{KernelScopes, LaunchSpec};
use tritonc_verify::{ExecError, OutputTensor, PreparedCase};

use super::autotuned::{self, Autotuned, TuneConfig};
use super::bench::TuneBench;
use super::{cases, check, prune};
use crate::options::{Options, Request};
use crate::select::load_kernels;

/// One config ready to run: its launch and, on a GPU, its compiled variant.
pub struct Candidate {
    /// The config.
    pub config: TuneConfig,
    /// Its launch (`Err`: why it could not be prepared, e.g. a grid its values break).
    pub case: Result<PreparedCase, String>,
    /// Its variant (set by the caller: compiled, or read from `--bundle DIR`).
    pub bundle: Option<Bundle>,
    /// Pruned by `prune_configs_by`.
    pub pruned: bool,
}

impl Candidate {
    /// The digest recorded for this config's code: its bundle's
    /// ([`tritonc_bundle::tuned::code_digest`]), else (on the interpreter) of the kernel
    /// file (`source`, its digest) and the config.
    pub fn digest(&self, source: &str) -> String {
        match &self.bundle {
            Some(b) => tritonc_bundle::tuned::code_digest(b),
            None => tritonc_bundle::tuned::text_digest(&format!("{source}\n{}", self.config.label())),
        }
    }

    /// What a table entry records of this config's code (`None`: pruned, not prepared).
    pub fn variant(&self, source: &str) -> Option<TunedVariant> {
        (!self.pruned && self.case.is_ok()).then(|| TunedVariant {
            bundle: self.bundle.as_ref().map(Bundle::dir_name),
            digest: self.digest(source),
        })
    }
}

/// A launch spec's autotuned kernel with every config prepared.
pub struct Session {
    /// The decorator.
    pub tuned: Autotuned,
    /// One per config, in order.
    pub candidates: Vec<Candidate>,
    /// The autotune key's values for this launch.
    pub key: BTreeMap<String, serde_json::Value>,
    /// Warnings (what pruning does not honour).
    pub warnings: Vec<Diagnostic>,
    /// The buffers restored before every timed launch (`reset_to_zero`, `restore_value`).
    pub restore: Vec<BufferId>,
    /// The digest of the kernel file's text (what interpreter entries are checked by).
    pub source: String,
}

impl Session {
    /// Each config's code digest, for looking a table up.
    pub fn digests(&self) -> Vec<String> {
        self.candidates.iter().map(|c| c.digest(&self.source)).collect()
    }

    /// What an entry records of each config's code.
    pub fn variants(&self) -> Vec<Option<TunedVariant>> {
        self.candidates.iter().map(|c| c.variant(&self.source)).collect()
    }
}

/// Reads the autotune decorator of `spec`'s kernel and prepares the launch of every
/// config (tensors materialized, the kernel lowered), pruned by `prune_configs_by`.
pub fn prepare_session(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
    scopes: &dyn KernelScopes,
    options: &Options,
) -> Result<Session, Vec<Diagnostic>> {
    let base = spec_path.parent().unwrap_or(Path::new("."));
    let kernel_path = base.join(&spec.kernel_file);
    let request = Request::new(options.clone());
    let loaded = load_kernels(&kernel_path, spec.kernel_name.as_deref(), &request, sources)?;
    let kernel = loaded.into_iter().next().ok_or_else(Vec::new)?;
    let tuned = autotuned::read(&kernel.summary.kernel, &kernel.scope)?;
    let mut candidates: Vec<Candidate> = Vec::new();
    for config in &tuned.configs {
        let data_of = candidates.iter().find_map(|c| c.case.as_ref().ok());
        let case = cases::prepare(spec, spec_path, &tuned, config, sources, scopes, data_of)
            .map_err(|d| {
                d.first()
                    .map(|d| d.message.clone())
                    .unwrap_or_else(|| "the launch could not be prepared".into())
            });
        candidates.push(Candidate {
            config: config.clone(),
            case,
            bundle: None,
            pruned: false,
        });
    }
    let Some(first) = candidates.iter().find_map(|c| c.case.as_ref().ok()) else {
        // No config prepares: the first one's error, with its spans.
        let s = cases::spec_for_config(spec, &tuned.configs[0]);
        return Err(PreparedCase::prepare_in(&s, spec_path, sources, scopes)
            .err()
            .unwrap_or_default());
    };
    let key = cases::key_values(first, &tuned.key).map_err(|m| {
        vec![Diagnostic::error(crate::codes::NOT_AUTOTUNED, m)]
    })?;
    let restore: Vec<String> = tuned
        .reset_to_zero
        .iter()
        .chain(&tuned.restore_value)
        .cloned()
        .collect();
    let restore = cases::buffers_of(first, &restore);
    let named = cases::named_args(first);
    let file = kernel.summary.name_span.file;
    let source = tritonc_bundle::tuned::text_digest(sources.get(file).text());
    let pruned = prune::prune(&tuned, &named, sources, file, &kernel.scope).map_err(|d| vec![d])?;
    for (i, c) in candidates.iter_mut().enumerate() {
        c.pruned = !pruned.kept.contains(&i);
    }
    Ok(Session {
        tuned,
        candidates,
        key,
        warnings: pruned.warnings,
        restore,
        source,
    })
}

/// What the outputs are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// The first config that runs (Triton's order).
    FirstConfig,
    /// The interpreter running the first config's kernel.
    Interpreter,
}

/// The result of tuning one launch.
#[derive(Debug, Clone)]
pub struct Tuned {
    /// The entry for the table.
    pub entry: TuneEntry,
    /// Wall time of the runs and timing, in seconds.
    pub seconds: f64,
    /// Where that time went, summed over the configs (worker threads overlap on
    /// several GPUs, so the parts may add up to more than `seconds`).
    pub phases: Phases,
}

/// Seconds spent in each part of tuning, summed over the configs.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Phases {
    /// Running the reference (the first config, or the interpreter) for its answer.
    pub reference_s: f64,
    /// Running each other config once for its answer (upload, launch, download).
    pub run_s: f64,
    /// Comparing each config's answer with the reference's.
    pub check_s: f64,
    /// Timing each config (upload, warm-up and timed rounds).
    pub time_s: f64,
}

impl Phases {
    fn add(&mut self, o: &Phases) {
        self.reference_s += o.reference_s;
        self.run_s += o.run_s;
        self.check_s += o.check_s;
        self.time_s += o.time_s;
    }
}

/// Tunes `session` on `benches` (one worker thread each; the first also computes the
/// reference) by `method`. Errors only when no config runs correctly.
pub fn tune(
    session: &Session,
    benches: Vec<Box<dyn TuneBench + Send>>,
    method: &TimingMethod,
    reference: Reference,
    interpreter: &mut dyn TuneBench,
) -> Result<Tuned, String> {
    let start = std::time::Instant::now();
    let n = session.candidates.len();
    let mut outcomes: Vec<Option<ConfigOutcome>> = vec![None; n];
    for (i, c) in session.candidates.iter().enumerate() {
        if c.pruned {
            outcomes[i] = Some(ConfigOutcome::Pruned);
        } else if let Err(e) = &c.case {
            outcomes[i] = Some(ConfigOutcome::Failed { detail: e.clone() });
        }
    }
    let mut benches = benches;
    if benches.is_empty() {
        return Err("no device to tune on".into());
    }
    // The reference: the first config that runs (on the first bench, or the interpreter).
    let mut want: Option<(usize, Vec<OutputTensor>)> = None;
    let mut phases = Phases::default();
    let reference_start = std::time::Instant::now();
    for i in 0..n {
        if outcomes[i].is_some() {
            continue;
        }
        let c = &session.candidates[i];
        let case = c.case.as_ref().expect("prepared: no outcome yet");
        let ran = match reference {
            Reference::FirstConfig => benches[0].run(case, c.bundle.as_ref()),
            Reference::Interpreter => interpreter.run(case, None),
        };
        match ran {
            Ok(out) => {
                want = Some((i, out));
                break;
            }
            Err(e) => outcomes[i] = Some(failed(&e)),
        }
    }
    phases.reference_s = reference_start.elapsed().as_secs_f64();
    let Some((ref_index, want)) = want else {
        return Err(no_winner(session, &outcomes));
    };
    let ref_fn = &session.candidates[ref_index]
        .case
        .as_ref()
        .expect("the reference ran")
        .function;
    let todo: Vec<usize> = (0..n).filter(|&i| outcomes[i].is_none()).collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for bench in benches.iter_mut() {
            let (todo, next, results, want) = (&todo, &next, &results, &want);
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(&i) = todo.get(k) else { break };
                let c = &session.candidates[i];
                let case = c.case.as_ref().expect("prepared");
                let (outcome, spent) = run_one(&mut **bench, case, c.bundle.as_ref(), want, ref_fn, method, &session.restore);
                results.lock().unwrap_or_else(|e| e.into_inner()).push((i, outcome, spent));
            });
        }
    });
    for (i, o, spent) in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        outcomes[i] = Some(o);
        phases.add(&spent);
    }
    let outcomes: Vec<ConfigOutcome> = outcomes
        .into_iter()
        .map(|o| o.unwrap_or(ConfigOutcome::Failed { detail: "not run".into() }))
        .collect();
    let winner = choose_winner(&outcomes).ok_or_else(|| {
        no_winner(session, &outcomes.iter().cloned().map(Some).collect::<Vec<_>>())
    })?;
    Ok(Tuned {
        entry: TuneEntry {
            key: session.key.clone(),
            winner,
            outcomes,
            reference: match reference {
                Reference::FirstConfig => format!("config {ref_index}"),
                Reference::Interpreter => format!("interpreter (config {ref_index})"),
            },
            variants: session.variants(),
        },
        seconds: start.elapsed().as_secs_f64(),
        phases,
    })
}

/// One config: run and check, then time; with the seconds each part took.
fn run_one(
    bench: &mut dyn TuneBench,
    case: &PreparedCase,
    bundle: Option<&Bundle>,
    want: &[OutputTensor],
    ref_fn: &tritonc_ir::Function,
    method: &TimingMethod,
    restore: &[BufferId],
) -> (ConfigOutcome, Phases) {
    let mut spent = Phases::default();
    let t = std::time::Instant::now();
    let ran = bench.run(case, bundle);
    spent.run_s = t.elapsed().as_secs_f64();
    let got = match ran {
        Ok(g) => g,
        Err(e) => return (failed(&e), spent),
    };
    let t = std::time::Instant::now();
    let wrong = check::differs(&got, want, &case.function, ref_fn);
    spent.check_s = t.elapsed().as_secs_f64();
    if let Some(detail) = wrong {
        return (ConfigOutcome::Wrong { detail }, spent);
    }
    let t = std::time::Instant::now();
    let timed = bench.time(case, bundle, method, restore);
    spent.time_s = t.elapsed().as_secs_f64();
    let outcome = match timed {
        Ok(rounds_ms) => ConfigOutcome::Timed {
            median_ms: median(&rounds_ms),
            rounds_ms,
        },
        Err(e) => failed(&e),
    };
    (outcome, spent)
}

fn failed(e: &ExecError) -> ConfigOutcome {
    ConfigOutcome::Failed {
        detail: e.message.clone(),
    }
}

/// The winner: the timed config with the smallest median (the first on a tie); a config
/// whose answer differed is never among them.
pub fn choose_winner(outcomes: &[ConfigOutcome]) -> Option<usize> {
    let mut best: Option<(f64, usize)> = None;
    for (i, o) in outcomes.iter().enumerate() {
        if let ConfigOutcome::Timed { median_ms, .. } = o {
            if median_ms.is_finite() && best.is_none_or(|(b, _)| *median_ms < b) {
                best = Some((*median_ms, i));
            }
        }
    }
    best.map(|(_, i)| i)
}

fn no_winner(session: &Session, outcomes: &[Option<ConfigOutcome>]) -> String {
    let mut m = format!("no config of `{}` ran correctly:", session.tuned.kernel);
    for (c, o) in session.candidates.iter().zip(outcomes) {
        let why = match o {
            Some(ConfigOutcome::Pruned) => "pruned".to_string(),
            Some(ConfigOutcome::Wrong { detail } | ConfigOutcome::Failed { detail }) => detail.clone(),
            _ => "not run".to_string(),
        };
        m.push_str(&format!("\n  [{}] {}: {why}", c.config.index, c.config.label()));
    }
    m
}

/// The table skeleton for `session` on `device` (no entries yet).
pub fn table_for(session: &Session, device: &str, target: &str, method: &TimingMethod) -> TuneTable {
    TuneTable {
        format_version: TUNE_FORMAT_VERSION,
        kernel: session.tuned.kernel.clone(),
        device: device.to_string(),
        target: target.to_string(),
        key: session.tuned.key.clone(),
        configs: session
            .candidates
            .iter()
            .map(|c| TunedConfig {
                label: c.config.label(),
                values: c
                    .config
                    .values
                    .iter()
                    .map(|(k, v)| (k.clone(), constexpr_json(v)))
                    .collect(),
                num_warps: c.config.num_warps,
                num_stages: c.config.num_stages,
            })
            .collect(),
        entries: Vec::new(),
        method: method.to_string(),
    }
}

/// A meta-parameter value in the table: a number or bool as JSON, anything else as
/// Python text.
pub fn constexpr_json(v: &tritonc_sema::Constexpr) -> serde_json::Value {
    use tritonc_sema::Constexpr;
    match v {
        Constexpr::Int(i) => i64::try_from(*i)
            .map(serde_json::Value::from)
            .unwrap_or_else(|_| i.to_string().into()),
        Constexpr::Bool(b) => (*b).into(),
        Constexpr::Float(f) => (*f).into(),
        other => tritonc_sema::constexpr::calls::py_str(other, true).into(),
    }
}

/// The config a table entry's JSON value stands for, back as a constexpr (for a launch
/// spec).
pub fn json_constexpr(v: &serde_json::Value) -> Option<tritonc_sema::Constexpr> {
    use tritonc_sema::Constexpr;
    match v {
        serde_json::Value::Bool(b) => Some(Constexpr::Bool(*b)),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map(|i| Constexpr::Int(i.into()))
            .or_else(|| n.as_f64().map(Constexpr::Float)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(ms: f64) -> ConfigOutcome {
        ConfigOutcome::Timed {
            median_ms: ms,
            rounds_ms: vec![ms],
        }
    }

    #[test]
    fn the_fastest_correct_config_wins_and_a_wrong_one_never_does() {
        let wrong = ConfigOutcome::Wrong {
            detail: "differs".into(),
        };
        // The wrong config would be fastest; it is not a candidate.
        let outcomes = [timed(2.0), wrong, timed(1.5), ConfigOutcome::Pruned, timed(1.5)];
        assert_eq!(choose_winner(&outcomes), Some(2), "the first of two equal medians");
        assert_eq!(
            choose_winner(&[ConfigOutcome::Pruned, ConfigOutcome::Failed { detail: String::new() }]),
            None
        );
    }
}
