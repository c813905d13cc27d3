//! fp32 `exp2`/`exp` use the approximation instruction Triton 3.6 uses, `.ftz` included
//! (`tests/fixtures/triton/approx_instructions.json`, recorded from its PTX by
//! `scripts/triton_approx_instructions.py`): `math.exp2` flushes subnormals, `math.exp`
//! keeps them.

use crate::from_source::compile_source;
use crate::reference_kernels::workspace_root;

fn ex2_instructions(ptx: &str) -> Vec<String> {
    let mut found: Vec<String> = ptx
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| w.starts_with("ex2.approx"))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn exp2_and_exp_use_tritons_ex2_instruction() {
    let path = workspace_root().join("tests/fixtures/triton/approx_instructions.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 6);
    for case in cases {
        let (name, sm) = (case["name"].as_str().unwrap(), case["sm"].as_u64().unwrap() as u32);
        let k = compile_source(
            "approx.py",
            case["source"].as_str().unwrap(),
            "kernel",
            case["signature"].as_str().unwrap(),
            4,
            sm,
        )
        .unwrap_or_else(|e| panic!("{name} sm_{sm}: {e}"));
        let want: Vec<String> = case["ex2"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ex2_instructions(&k.ptx), want, "{name} sm_{sm}");
    }
}
