//! Every example kernel, lowered with the signature of its Triton 3.6 reference fixture
//! (`tests/fixtures/triton/*.json`): a snapshot of the tile IR, and the differential test
//! against the facts Triton's TTIR records (argument types, loads, stores, reductions,
//! scans, dots, libdevice calls), in textual order.
//!
//! What differs by design is normalized before comparing (see the fixture README):
//! - tritonc prints unsigned integers as `u8`…`u64`; MLIR's signless `i8`…`i64` in TTIR;
//! - Triton runs CSE and DCE: identical loads (same address, mask and other, no store in
//!   between) are one load, and a load whose value is unused is gone;
//! - constexpr parameters are absent from both argument lists.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use tritonc_diagnostics::{FileId, Span};
use tritonc_ir::{Function, OpId, OpKind, Type, Value};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

/// Kernels tritonc cannot lower yet, each with the exact missing feature. Keep it empty.
const NOT_YET_LOWERED: &[(&str, &str)] = &[];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixtures() -> Vec<(String, Json)> {
    let dir = repo().join("tests/fixtures/triton");
    let mut out: Vec<(String, Json)> = std::fs::read_dir(&dir)
        .expect("the fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("__"))
        })
        .map(|p| {
            let stem = p
                .file_stem()
                .expect("fixture files have names")
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&p).expect("fixture is readable");
            (stem, serde_json::from_str(&text).expect("fixture is JSON"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Lowers the fixture's kernel with its signature and options.
fn lower(fx: &Json) -> Result<tritonc_ir::Module, String> {
    let file = fx["file"].as_str().expect("fixture has `file`");
    let kernel = fx["kernel"].as_str().expect("fixture has `kernel`");
    let sig = fx["signature"].as_str().expect("fixture has `signature`");
    let src = std::fs::read_to_string(repo().join(file)).expect("example is readable");
    let parsed = tritonc_syntax::parse_module(FileId(0), &src);
    if parsed.has_errors() {
        return Err(format!("parse errors: {:?}", parsed.diagnostics));
    }
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope
        .functions
        .get(kernel)
        .ok_or_else(|| format!("no kernel `{kernel}`"))?
        .clone();
    let sig_file = FileId(1);
    let items = parse_signature(sig, sig_file).map_err(|d| format!("{d:?}"))?;
    let options = LaunchOptions {
        num_warps: fx["num_warps"].as_u64().unwrap_or(4) as u32,
        num_stages: fx["num_stages"].as_u64().unwrap_or(3) as u32,
        ..LaunchOptions::default()
    };
    let spec = bind_signature(
        &def,
        &items,
        &[],
        options,
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .map_err(|d| format!("{d:?}"))?;
    tritonc_sema::lower_kernel(&parsed.module, kernel, &spec).map_err(|ds| {
        ds.iter()
            .map(|d| {
                format!(
                    "{}: {} at {:?}",
                    d.code.0,
                    d.message,
                    d.primary_span()
                        .map(|s| &src[s.start as usize..s.end as usize])
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// A type as TTIR prints it: unsigned integers are signless there.
fn ttir_type(t: &Type) -> String {
    let s = t.to_string();
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // A dtype starts the text, follows punctuation, or follows the `x` after a dim.
        let boundary = i == 0
            || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
            || (b[i - 1] == b'x' && i >= 2 && b[i - 2].is_ascii_digit());
        if boundary && b[i] == b'u' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            out.push('i');
        } else {
            out.push(b[i] as char);
        }
        i += 1;
    }
    out
}

fn ty(f: &Function, v: Value) -> String {
    ttir_type(f.value_type(v))
}

/// A structural key of a value for CSE: pure ops by kind, attributes and operands.
fn value_key(f: &Function, v: Value, memo: &mut HashMap<Value, String>) -> String {
    if let Some(k) = memo.get(&v) {
        return k.clone();
    }
    let k = match f.defining_op(v) {
        Some(op)
            if !matches!(
                f.kind(op),
                OpKind::Load { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. }
            ) && f.op(op).regions().is_empty() =>
        {
            let ops: Vec<String> = f
                .op(op)
                .operands()
                .iter()
                .map(|&o| value_key(f, o, memo))
                .collect();
            let idx = f.op(op).results().iter().position(|&r| r == v).unwrap_or(0);
            format!(
                "{:?}[{}]({}):{}",
                f.kind(op),
                idx,
                ops.join(","),
                f.value_type(v)
            )
        }
        _ => format!("%{}", v.index()),
    };
    memo.insert(v, k.clone());
    k
}

fn loop_depth(f: &Function, op: OpId) -> usize {
    let mut d = 0;
    let mut cur = f.parent_op(op);
    while let Some(p) = cur {
        if matches!(f.kind(p), OpKind::For { .. } | OpKind::While) {
            d += 1;
        }
        cur = f.parent_op(p);
    }
    d
}

fn combine_ops(f: &Function, op: OpId) -> Vec<String> {
    f.walk_nested(op)
        .into_iter()
        .filter(|&o| !f.kind(o).is_terminator())
        .map(|o| f.kind(o).name().to_string())
        .collect()
}

/// The facts of tritonc's IR, in the fixture's JSON shape.
fn facts(f: &Function) -> Json {
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let mut reduces = Vec::new();
    let mut scans = Vec::new();
    let mut dots = Vec::new();
    let mut externs = Vec::new();
    let mut memo = HashMap::new();
    // Loads available for CSE since the last op that writes memory.
    let mut seen_loads: Vec<String> = Vec::new();
    for op in f.walk() {
        let data = f.op(op);
        let operands = data.operands();
        let depth = loop_depth(f, op);
        match f.kind(op) {
            OpKind::Load { is_volatile, .. } => {
                let result = data.results()[0];
                if !f.has_uses(result) && !is_volatile {
                    continue;
                }
                let key = format!(
                    "{:?}|{}",
                    f.kind(op),
                    operands
                        .iter()
                        .map(|&o| value_key(f, o, &mut memo))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                if seen_loads.contains(&key) {
                    continue;
                }
                seen_loads.push(key);
                loads.push(serde_json::json!({
                    "ptr_type": ty(f, operands[0]),
                    "result_type": ty(f, result),
                    "has_mask": operands.len() > 1,
                    "has_other": operands.len() > 2,
                    "loop_depth": depth,
                }));
            }
            OpKind::Store { .. } => {
                seen_loads.clear();
                stores.push(serde_json::json!({
                    "ptr_type": ty(f, operands[0]),
                    "value_type": ty(f, operands[1]),
                    "has_mask": operands.len() > 2,
                    "loop_depth": depth,
                }));
            }
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => seen_loads.clear(),
            OpKind::Reduce { axis } | OpKind::Scan { axis, .. } => {
                let mut j = serde_json::json!({
                    "axis": axis,
                    "operand_types": operands.iter().map(|&o| ty(f, o)).collect::<Vec<_>>(),
                    "result_types": data.results().iter().map(|&r| ty(f, r)).collect::<Vec<_>>(),
                    "combine_ops": combine_ops(f, op),
                    "loop_depth": depth,
                });
                if let OpKind::Scan { reverse, .. } = f.kind(op) {
                    j["reverse"] = Json::Bool(*reverse);
                    scans.push(j);
                } else {
                    reduces.push(j);
                }
            }
            OpKind::Dot {
                input_precision,
                max_num_imprecise_acc,
            } => dots.push(serde_json::json!({
                "a_type": ty(f, operands[0]),
                "b_type": ty(f, operands[1]),
                "c_type": ty(f, operands[2]),
                "result_type": ty(f, data.results()[0]),
                "input_precision": input_precision.word(),
                "max_num_imprecise_acc": max_num_imprecise_acc,
                "loop_depth": depth,
            })),
            OpKind::ExternElementwise { symbol, .. } => externs.push(serde_json::json!({
                "symbol": symbol,
                "operand_types": operands.iter().map(|&o| ty(f, o)).collect::<Vec<_>>(),
                "result_type": ty(f, data.results()[0]),
            })),
            _ => {}
        }
    }
    let args: Vec<Json> = f
        .args()
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let mut j = serde_json::json!({ "type": ty(f, a) });
            if let Some(d) = f.arg_attrs.get(i).and_then(|x| x.divisibility) {
                j["divisibility"] = serde_json::json!(d);
            }
            j
        })
        .collect();
    serde_json::json!({
        "args": args,
        "loads": loads,
        "stores": stores,
        "reduces": reduces,
        "scans": scans,
        "dots": dots,
        "extern_calls": externs,
    })
}

/// The fixture's facts restricted to the keys tritonc's facts carry.
fn expected(fx: &Json) -> Json {
    let pick = |list: &Json, keys: &[&str]| -> Json {
        Json::Array(
            list.as_array()
                .expect("fixture lists are arrays")
                .iter()
                .map(|item| {
                    let mut o = serde_json::Map::new();
                    for k in keys {
                        if let Some(v) = item.get(*k) {
                            o.insert((*k).to_string(), v.clone());
                        }
                    }
                    Json::Object(o)
                })
                .collect(),
        )
    };
    serde_json::json!({
        "args": pick(&fx["args"], &["type", "divisibility"]),
        "loads": pick(&fx["loads"], &["ptr_type", "result_type", "has_mask", "has_other", "loop_depth"]),
        "stores": pick(&fx["stores"], &["ptr_type", "value_type", "has_mask", "loop_depth"]),
        "reduces": pick(&fx["reduces"], &["axis", "operand_types", "result_types", "combine_ops", "loop_depth"]),
        "scans": pick(&fx["scans"], &["axis", "operand_types", "result_types", "combine_ops", "loop_depth", "reverse"]),
        "dots": pick(&fx["dots"], &["a_type", "b_type", "c_type", "result_type", "input_precision", "max_num_imprecise_acc", "loop_depth"]),
        "extern_calls": pick(&fx["extern_calls"], &["symbol", "operand_types", "result_type"]),
    })
}

/// Lists every difference between two fact trees, by path.
fn diff(path: &str, want: &Json, got: &Json, out: &mut Vec<String>) {
    match (want, got) {
        (Json::Object(a), Json::Object(b)) => {
            for (k, v) in a {
                diff(
                    &format!("{path}.{k}"),
                    v,
                    b.get(k).unwrap_or(&Json::Null),
                    out,
                );
            }
        }
        (Json::Array(a), Json::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: Triton has {} entries, tritonc {}:\n  triton:  {want}\n  tritonc: {got}", a.len(), b.len()));
                return;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if want != got => out.push(format!("{path}: Triton {want}, tritonc {got}")),
        _ => {}
    }
}

#[test]
fn examples_match_triton_ttir_facts() {
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, fx) in fixtures() {
        let allowed = NOT_YET_LOWERED.iter().find(|(n, _)| *n == name);
        match lower(&fx) {
            Err(e) => {
                if allowed.is_none() {
                    failures.push(format!("{name}: tritonc cannot lower it:\n{e}"));
                }
            }
            Ok(m) => {
                if let Some((_, why)) = allowed {
                    failures.push(format!(
                        "{name} lowers now; remove it from NOT_YET_LOWERED ({why})"
                    ));
                }
                let f = &m.functions[0];
                if let Err(errs) = tritonc_ir::verify_function(f) {
                    failures.push(format!("{name}: the IR does not verify: {errs:?}"));
                    continue;
                }
                let mut out = Vec::new();
                diff(&name, &expected(&fx), &facts(f), &mut out);
                if out.is_empty() {
                    passed += 1;
                } else {
                    failures.push(out.join("\n"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{passed} fixture(s) match; {} do not:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(passed > 0, "no fixtures were compared");
}

#[test]
fn example_ir_snapshots() {
    for (name, fx) in fixtures() {
        if NOT_YET_LOWERED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let Ok(m) = lower(&fx) else { continue };
        let text = tritonc_ir::print_module(&m, tritonc_ir::PrintOptions::default());
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn differential_comparison_detects_changed_facts() {
    let (_, fx) = fixtures()
        .into_iter()
        .find(|(n, _)| n == "vector_add__add_kernel__fp16")
        .expect("the fp16 vector-add fixture exists");
    let m = lower(&fx).expect("vector add lowers");
    let got = facts(&m.functions[0]);
    let mut want = expected(&fx);
    let mut out = Vec::new();
    diff("x", &want, &got, &mut out);
    assert!(out.is_empty(), "{out:?}");
    // A different element type and a missing load must both be reported.
    want["loads"][0]["result_type"] = Json::String("tensor<2048xf32>".into());
    diff("x", &want, &got, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    want["loads"].as_array_mut().expect("loads is a list").pop();
    out.clear();
    diff("x", &want, &got, &mut out);
    assert!(
        out[0].contains("Triton has 1 entries, tritonc 2"),
        "{out:?}"
    );
}

#[test]
fn unsigned_types_print_signless_as_in_ttir() {
    let t = Type::tensor_of(&[4], tritonc_ir::DType::U32);
    assert_eq!(ttir_type(&t), "tensor<4xi32>");
    assert_eq!(ttir_type(&Type::ptr(tritonc_ir::DType::U8)), "!tt.ptr<i8>");
    assert_eq!(ttir_type(&Type::Scalar(tritonc_ir::DType::F32)), "f32");
}
