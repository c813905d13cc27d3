//! `tl.extra.cuda.gdc_wait()` / `gdc_launch_dependents()` as Triton 3.6 compiles them
//! (`tests/fixtures/triton/gdc.json`, recorded by `scripts/triton_gdc.py`): on sm_90 the
//! PTX holds `griddepcontrol.wait` before the kernel's memory accesses and
//! `griddepcontrol.launch_dependents` after its store, in program order; on sm_80 Triton's
//! PTX fails in ptxas (`griddepcontrol` needs sm_90), and tritonc refuses the kernel.

use crate::from_source::compile_source;
use crate::reference_kernels::workspace_root;

/// The PTX instructions the fixture records, in program order.
fn ptx_order(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim_start)
        .map(|l| match l.strip_prefix('@') {
            // A predicated instruction: `@%p1 st.global…`.
            Some(rest) => rest
                .split_once(char::is_whitespace)
                .map_or("", |(_, i)| i.trim_start()),
            None => l,
        })
        .filter_map(|l| {
            let word = l.split(|c: char| c.is_whitespace() || c == ';').next()?;
            if word.starts_with("griddepcontrol.") {
                Some(word.to_string())
            } else if word.starts_with("ld.global") {
                Some("ld.global".to_string())
            } else if word.starts_with("st.global") {
                Some("st.global".to_string())
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn grid_dependency_control_matches_triton() {
    let path = workspace_root().join("tests/fixtures/triton/gdc.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    let source = fixture["source"].as_str().unwrap();
    let sig = fixture["signature"].as_str().unwrap();
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 2);
    for case in cases {
        let sm = case["sm"].as_u64().unwrap() as u32;
        let got = compile_source("gdc.py", source, "kernel", sig, 4, sm);
        if case["accepted"].as_bool().unwrap() {
            let k = got.unwrap_or_else(|e| panic!("sm_{sm}: {e}"));
            let want: Vec<String> = case["ptx_order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            // tritonc's vector width may differ from Triton's: compare the order with
            // repeated accesses merged.
            let mut got = ptx_order(&k.ptx);
            got.dedup();
            assert_eq!(got, want, "sm_{sm}\n{}", k.ptx);
        } else {
            let e = got
                .err()
                .unwrap_or_else(|| panic!("sm_{sm}: tritonc compiled it"));
            assert!(
                e.contains("griddepcontrol") && e.contains("needs sm_90"),
                "sm_{sm}: {e}"
            );
            // Triton's own refusal is ptxas's.
            let errors = case["ptxas_errors"].as_array().unwrap();
            assert!(errors
                .iter()
                .any(|m| m.as_str().unwrap().contains("requires .target sm_90")));
        }
    }
}
