//! The launches tuning runs: the launch spec with each config's meta-parameters, warps
//! and stages put in (a spec may leave them out, or give one config's values: the config
//! replaces them), prepared with its tensors; the autotune key's values and the named
//! arguments a pruning function sees, read from a prepared launch.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::{ArgValue, BufferId};
use tritonc_sema::constexpr::calls::py_str;
use tritonc_sema::value::HostObject;
use tritonc_sema::{ArgSpec, Constexpr};
use tritonc_spec::parse::{Expr, ExprValue};
use tritonc_spec::LaunchSpec;
use tritonc_verify::PreparedCase;

use super::autotuned::{Autotuned, TuneConfig};
use super::prune::dict;

/// `spec` with `config`'s meta-parameters, warps and stages.
pub fn spec_for_config(spec: &LaunchSpec, config: &TuneConfig) -> LaunchSpec {
    let mut s = spec.clone();
    for (name, value) in &config.values {
        let expr = Expr {
            value: match value {
                Constexpr::Int(i) if i64::try_from(*i).is_ok() => ExprValue::Int(*i as i64),
                Constexpr::Bool(b) => ExprValue::Bool(*b),
                Constexpr::Float(f) => ExprValue::Float(*f),
                other => ExprValue::Text(py_str(other, true)),
            },
            span: config.span,
        };
        match s.args.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = expr,
            None => s.args.push((name.clone(), expr)),
        }
    }
    s.num_warps = config.num_warps;
    s.num_stages = config.num_stages;
    s
}

/// Prepares `config`'s launch of `spec`, the buffers of the `reset_to_zero` arguments
/// cleared first, as the autotuner clears them before a run. With `data_of`, the
/// launch of another config of the same spec, its initial memory is taken instead of
/// being generated again (the configs change meta-parameters, never the tensors).
pub fn prepare(
    spec: &LaunchSpec,
    spec_path: &Path,
    tuned: &Autotuned,
    config: &TuneConfig,
    sources: &mut SourceMap,
    scopes: &dyn tritonc_spec::KernelScopes,
    data_of: Option<&PreparedCase>,
) -> Result<PreparedCase, Vec<Diagnostic>> {
    let s = spec_for_config(spec, config);
    let mut case = match data_of {
        Some(other) => {
            let mut c = PreparedCase::prepare_shapes_in(&s, spec_path, sources, scopes)?;
            c.launch.memory = other.launch.memory.clone();
            c
        }
        None => PreparedCase::prepare_in(&s, spec_path, sources, scopes)?,
    };
    for id in buffers_of(&case, &tuned.reset_to_zero) {
        case.launch.memory.buffer_mut(id).bytes.fill(0);
    }
    Ok(case)
}

/// The buffers holding the tensors passed as the parameters `names`.
pub fn buffers_of(case: &PreparedCase, names: &[String]) -> Vec<BufferId> {
    let mut out = Vec::new();
    for (name, value) in runtime_values(case) {
        if let (true, Some(ArgValue::Ptr(addr))) = (names.contains(&name), value) {
            if let Some(t) = case.launch.tensors.iter().find(|t| t.data_ptr() == addr) {
                if !out.contains(&t.buffer) {
                    out.push(t.buffer);
                }
            }
        }
    }
    out
}

/// Each parameter with its runtime value (`None` for constexprs).
fn runtime_values(case: &PreparedCase) -> Vec<(String, Option<ArgValue>)> {
    let mut runtime = case.launch.runtime_args.iter();
    case.launch
        .specialization
        .params
        .iter()
        .map(|(name, spec)| {
            let v = match spec {
                ArgSpec::Constexpr(_) => None,
                _ => runtime.next().cloned(),
            };
            (name.clone(), v)
        })
        .collect()
}

/// Each parameter's value as Python host code sees it: a tensor (`dtype`, `shape`,
/// `stride`), an int or float, a constexpr's value.
pub fn named_values(case: &PreparedCase) -> IndexMap<String, Constexpr> {
    let mut out = IndexMap::new();
    for ((name, spec), (_, value)) in case
        .launch
        .specialization
        .params
        .iter()
        .zip(runtime_values(case))
    {
        let v = match (spec, value) {
            (ArgSpec::Constexpr(c), _) => c.clone(),
            (_, Some(ArgValue::Ptr(addr))) => {
                match case.launch.tensors.iter().find(|t| t.data_ptr() == addr) {
                    Some(t) => {
                        let ints = |v: &[usize]| {
                            Constexpr::Tuple(v.iter().map(|&d| Constexpr::Int(d as i128)).collect())
                        };
                        let mut f = IndexMap::new();
                        f.insert("dtype".to_string(), Constexpr::dtype(t.dtype));
                        f.insert("shape".to_string(), ints(&t.shape));
                        f.insert("stride".to_string(), ints(&t.strides));
                        Constexpr::Object(Arc::new(HostObject {
                            type_name: "tensor".into(),
                            fields: f,
                        }))
                    }
                    None => Constexpr::None,
                }
            }
            (_, Some(ArgValue::Int(i))) => Constexpr::Int(i),
            (_, Some(ArgValue::Float(f))) => Constexpr::Float(f),
            _ => Constexpr::None,
        };
        out.insert(name.clone(), v);
    }
    out
}

/// The named arguments dict `early_config_prune` receives.
pub fn named_args(case: &PreparedCase) -> Constexpr {
    dict(named_values(case))
}

/// The autotune key's values for a launch: ints and floats as numbers, anything else
/// (a tensor's dtype, a string) as its Python text.
pub fn key_values(
    case: &PreparedCase,
    key: &[String],
) -> Result<BTreeMap<String, serde_json::Value>, String> {
    let values = named_values(case);
    let mut out = BTreeMap::new();
    for k in key {
        let v = values
            .get(k)
            .ok_or_else(|| format!("the autotune key `{k}` is not a parameter of the kernel"))?;
        let json = match v {
            Constexpr::Int(i) => i64::try_from(*i)
                .map(serde_json::Value::from)
                .unwrap_or_else(|_| serde_json::Value::from(i.to_string())),
            Constexpr::Bool(b) => serde_json::Value::from(i64::from(*b)),
            Constexpr::Float(f) => serde_json::Value::from(*f),
            Constexpr::Object(o) if o.type_name == "tensor" => {
                let dt = o.fields.get("dtype").map(|d| py_str(d, false)).unwrap_or_default();
                serde_json::Value::from(dt)
            }
            other => serde_json::Value::from(py_str(other, false)),
        };
        out.insert(k.clone(), json);
    }
    Ok(out)
}

/// Key values given on the command line (`--key M=4096`): ints where they parse, else
/// text.
pub fn parse_key_arg(text: &str) -> Result<(String, serde_json::Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected NAME=VALUE"))?;
    let v = match value.trim().parse::<i64>() {
        Ok(i) => serde_json::Value::from(i),
        Err(_) => serde_json::Value::from(value.trim()),
    };
    Ok((name.trim().to_string(), v))
}

/// `spec` changed so that the key arguments take the given values (`--key M=4096`): an
/// argument the spec gives as a number is set; one it reads as `T.shape[D]` sets that
/// dim of tensor `T` when the spec writes it as a number (the tensors written in terms of
/// `T`'s shape follow); anything else cannot be set from the command line.
pub fn with_key_values(
    spec: &LaunchSpec,
    values: &[(String, serde_json::Value)],
) -> Result<LaunchSpec, String> {
    let mut s = spec.clone();
    for (name, v) in values {
        let Some(n) = v.as_i64() else {
            return Err(format!("`--key {name}=…`: only integer key values can be set"));
        };
        let Some(pos) = s.args.iter().position(|(a, _)| a == name) else {
            return Err(format!("the launch spec passes no argument `{name}`"));
        };
        let (tensor, dim) = match &s.args[pos].1.value {
            ExprValue::Int(_) => {
                s.args[pos].1.value = ExprValue::Int(n);
                continue;
            }
            ExprValue::Text(t) => match shape_ref(t) {
                Some(r) => r,
                None => {
                    return Err(format!(
                        "`{name}` is `{t}` in the launch spec: only a number or `TENSOR.shape[DIM]` can be set with `--key`"
                    ))
                }
            },
            _ => return Err(format!("`{name}` is not a size in the launch spec")),
        };
        let size = usize::try_from(n).map_err(|_| format!("`{name}={n}` is not a size"))?;
        let t = s
            .tensors
            .iter_mut()
            .find(|t| t.name == tensor)
            .ok_or_else(|| format!("`{name}` reads `{tensor}`, which the spec does not declare"))?;
        match t.shape.get_mut(dim) {
            Some(e) if matches!(e.value, ExprValue::Int(_)) => e.value = ExprValue::Int(size as i64),
            Some(_) => {
                return Err(format!(
                    "`{name}` is `{tensor}.shape[{dim}]`, which the spec writes as an expression: set the sizes it is written in"
                ))
            }
            None => return Err(format!("`{tensor}` has no dim {dim}")),
        }
    }
    Ok(s)
}

/// `T.shape[D]` → `(T, D)`.
fn shape_ref(text: &str) -> Option<(String, usize)> {
    let (t, rest) = text.trim().split_once(".shape[")?;
    let d = rest.strip_suffix(']')?.trim().parse().ok()?;
    let ok = !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
    ok.then(|| (t.to_string(), d))
}
