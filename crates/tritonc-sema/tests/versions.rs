//! Triton-version rules, each decided by that version's wheel: every case of
//! `tests/fixtures/triton/versions.json` (recorded by `scripts/triton_versions.py` from the
//! 3.6, 3.7.1, 3.8.0 and 3.9.0 wheels) goes through tritonc's front end once per version.
//! tritonc must accept what that version accepts (or refuse it with a precise E0302 where
//! the version changed a meaning tritonc does not model yet), reject what it rejects, and
//! agree with its TTIR on the ops that carry the meaning (conversions, negation).

use std::collections::BTreeMap;

use tritonc_diagnostics::{Diagnostic, SourceMap, Span};
use tritonc_ir::Module;
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::{LaunchOptions, TritonVersion};

fn run(source: &str, sig: &str, version: TritonVersion) -> Result<Module, Diagnostic> {
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", source.to_string());
    let sig_file = sources.add("<signature>", sig.to_string());
    let parsed = tritonc_syntax::parse_module(file, source);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let index = tritonc_syntax::discover(&parsed.module);
    let kernel = index.kernel("kernel").expect("a kernel");
    let items = parse_signature(sig, sig_file).expect("the signature parses");
    let options = LaunchOptions {
        triton_version: version,
        ..LaunchOptions::default()
    };
    let spec = bind_signature(
        &kernel.def,
        &items,
        &[],
        options,
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .map_err(|ds| ds[0].clone())?;
    let m =
        tritonc_sema::lower_kernel(&parsed.module, "kernel", &spec).map_err(|ds| ds[0].clone())?;
    tritonc_ir::verify_module(&m).expect("the IR verifies");
    Ok(m)
}

fn op_counts(m: &Module) -> BTreeMap<&'static str, u64> {
    let mut out = BTreeMap::new();
    for f in &m.functions {
        for op in f.walk() {
            *out.entry(f.kind(op).name()).or_default() += 1;
        }
    }
    out
}

/// Cases a version accepts that tritonc refuses with E0302 because the version changed
/// their meaning in a way tritonc does not model yet.
fn not_modelled(name: &str, version: &str) -> bool {
    match version {
        "3.9" => matches!(
            name,
            "maximum_fp16_python_float"
                | "cmp_fp16_python_float"
                | "cumsum_bf16"
                | "fdiv_fp32"
                | "fdiv_ieee_rounding"
        ),
        "3.8" => name == "fdiv_ieee_rounding",
        _ => false,
    }
}

/// The code tritonc gives each case a version rejects, and a phrase of that version's
/// error message.
fn expected_rejection(name: &str, version: &str) -> (&'static str, &'static str) {
    match (name, version) {
        ("make_block_ptr", "3.9") => ("E0301", "Block pointers have been removed"),
        // Triton 3.6 decays the helper's `64` to a tensor, which `tl.arange` refuses.
        ("helper_returns_number_as_size", "3.6") => ("E0309", "arange's arguments must be"),
        _ => panic!("no expectation for {name} rejected by {version}"),
    }
}

#[test]
fn each_version_rule_agrees_with_that_versions_wheel() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/triton/versions.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in fixture["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap();
        let source = case["source"].as_str().unwrap();
        let sig = case["signature"].as_str().unwrap();
        for (v, verdict) in case["versions"].as_object().unwrap() {
            let version: TritonVersion = v.parse().unwrap();
            let accepted = verdict["accepted"].as_bool().unwrap();
            checked += 1;
            match (run(source, sig, version), accepted) {
                (Err(d), true) if not_modelled(name, v) => {
                    if d.code.0 != "E0302" {
                        failures.push(format!("{name} @{v}: {} {}", d.code.0, d.message));
                    }
                }
                (Err(d), true) => failures.push(format!(
                    "{name} @{v}: tritonc rejects, Triton accepts: {} {}",
                    d.code.0, d.message
                )),
                (Ok(_), false) => failures.push(format!(
                    "{name} @{v}: tritonc accepts, Triton rejects: {}",
                    verdict["error"]
                )),
                (Err(d), false) => {
                    let (code, phrase) = expected_rejection(name, v);
                    let triton = verdict["error"]["message"].as_str().unwrap_or("");
                    if d.code.0 != code || !triton.contains(phrase) {
                        failures.push(format!(
                            "{name} @{v}: {} {} (Triton: {triton})",
                            d.code.0, d.message
                        ));
                    }
                }
                (Ok(m), true) => {
                    if not_modelled(name, v) {
                        failures.push(format!("{name} @{v}: accepted without its 3.9 meaning"));
                    }
                    let got = op_counts(&m);
                    let facts = &verdict["facts"];
                    let want = |op: &str| facts[op].as_u64().unwrap_or(0);
                    let have = |op: &str| got.get(op).copied().unwrap_or(0);
                    // Float negation: `0 - x` (subf) through 3.7, the sign bit flipped
                    // (negf; here a bitcast and an xori) from 3.8 on.
                    if name.starts_with("neg_") && name != "neg_int" {
                        let ok = if want("arith.negf") == 1 {
                            have("arith.subf") == 0 && have("arith.xori") == 1
                        } else {
                            have("arith.subf") == want("arith.subf") && have("arith.xori") == 0
                        };
                        if !ok {
                            failures.push(format!("{name} @{v}: {got:?}, Triton {facts}"));
                        }
                    }
                    for op in ["arith.extf", "arith.truncf"] {
                        if have(op) != want(op) {
                            failures.push(format!(
                                "{name} @{v}: {op} x{}, Triton x{}\n{m}",
                                have(op),
                                want(op)
                            ));
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 48);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_version_is_part_of_the_key_only_when_not_3_6() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr):\n    tl.store(x_ptr, 1.0)\n";
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", src.to_string());
    let parsed = tritonc_syntax::parse_module(file, src);
    let index = tritonc_syntax::discover(&parsed.module);
    let sig_file = sources.add("<signature>", "*fp32".to_string());
    let items = parse_signature("*fp32", sig_file).unwrap();
    let key = |v: TritonVersion| {
        let options = LaunchOptions {
            triton_version: v,
            ..LaunchOptions::default()
        };
        bind_signature(
            &index.kernel("kernel").unwrap().def,
            &items,
            &[],
            options,
            Span::new(sig_file, 0, 5),
        )
        .unwrap()
        .key()
    };
    let k36 = key(TritonVersion::V3_6);
    let k38 = key(TritonVersion::V3_8);
    assert_eq!(
        k36.to_string(),
        "kernel(x_ptr=*fp32) warps=4 stages=3 target=cuda:90:32"
    );
    assert_eq!(
        k38.to_string(),
        "kernel(x_ptr=*fp32) warps=4 stages=3 target=cuda:90:32 triton=3.8"
    );
    assert_ne!(k36.hash64(), k38.hash64());
    let json = serde_json::to_string(&k38).unwrap();
    assert!(json.contains("\"triton_version\":\"3.8\""), "{json}");
    assert!(!serde_json::to_string(&k36)
        .unwrap()
        .contains("triton_version"));
    let back: tritonc_sema::SpecializationKey = serde_json::from_str(&json).unwrap();
    assert_eq!(back, k38);
}
