//! `tl.inline_asm_elementwise` as Triton 3.6 compiles it for sm_90
//! (`tests/fixtures/triton/inline_asm.json`, recorded by `scripts/triton_inline_asm.py`):
//! for every kernel Triton compiles, tritonc's PTX holds the same inline-assembly blocks
//! (the assembly with its operands substituted, registers by class) the same number of
//! times — one per `pack` elements of each thread, narrow operands packed into 32-bit
//! registers, two results unpacked in order, a pure block with no user removed, an impure
//! one kept; the kernels Triton rejects tritonc rejects in its front end.

use std::collections::BTreeMap;

use crate::from_source::compile_source;
use crate::reference_kernels::workspace_root;

/// `%r12` -> `%r`, `%rd3` -> `%rd` (the register classes LLVM's NVPTX back end names).
fn normalize_registers(text: &str) -> String {
    const CLASSES: [&str; 8] = ["rd", "rs", "r", "fd", "f", "p", "hh", "h"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        if let Some(class) = CLASSES.iter().find(|c| {
            rest.strip_prefix(**c)
                .is_some_and(|t| t.starts_with(|ch: char| ch.is_ascii_digit()))
        }) {
            out.push_str(class);
            rest = rest[class.len()..].trim_start_matches(|ch: char| ch.is_ascii_digit());
        }
    }
    out.push_str(rest);
    out
}

/// The inline-assembly blocks of `ptx` written by the kernel (not the compiler's own
/// global loads and stores, which address `[ $N + 0 ]`), normalized as the fixture's,
/// with how often each occurs.
fn user_blocks<S: AsRef<str>>(blocks: impl Iterator<Item = S>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for b in blocks {
        let b = b.as_ref();
        if b.contains("+ 0 ]") {
            continue;
        }
        *out.entry(b.to_string()).or_default() += 1;
    }
    out
}

fn ptx_blocks(ptx: &str) -> Vec<String> {
    ptx.split("// begin inline asm")
        .skip(1)
        .filter_map(|s| s.split("// end inline asm").next())
        .map(|b| {
            let lines: Vec<&str> = b.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            normalize_registers(&lines.join("\n"))
        })
        .collect()
}

#[test]
fn inline_assembly_matches_triton() {
    let path = workspace_root().join("tests/fixtures/triton/inline_asm.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10);
    let mut compared = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let source = case["source"].as_str().unwrap();
        let sig = case["signature"].as_str().unwrap();
        let warps = case["options"]["num_warps"].as_u64().unwrap() as u32;
        let got = compile_source("inline_asm.py", source, "kernel", sig, warps, 90);
        if !case["accepted"].as_bool().unwrap() {
            let e = got.err().unwrap_or_else(|| panic!("{name}: tritonc compiled it"));
            let want = match name {
                "empty_dtype_tuple" => "`dtype` names no result",
                "runtime_pack" => "`pack` must be a compile-time constant",
                other => panic!("no expectation for the rejected case {other}: {e}"),
            };
            assert!(e.starts_with("sema: ") && e.contains(want), "{name}: {e}");
            continue;
        }
        let k = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = user_blocks(
            case["asm"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap()),
        );
        let have = user_blocks(ptx_blocks(&k.ptx).iter());
        assert_eq!(have, want, "{name}\n{}", k.ptx);
        compared += 1;
    }
    assert!(compared >= 8, "{compared} kernels compared");
}
