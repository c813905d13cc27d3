//! Device-side tensor descriptors on the interpreter against Triton 3.6's own interpreter:
//! every launch spec in tests/fixtures/triton/tensor_descriptor/ (written with its inputs
//! and Triton's outputs by scripts/triton_tensor_descriptor.py) must reproduce Triton's
//! outputs exactly — zero and NaN padding outside the tensor, stores masked at its edges,
//! descriptors passed to helpers and used in loops, int16 and fp16 elements.

mod common;

use std::path::Path;

use common::run_path;

#[test]
fn tensor_descriptor_kernels_match_tritons_interpreter() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/triton/tensor_descriptor");
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.with_extension("json")).expect("the fixture exists"),
    )
    .expect("JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 5);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let o = run_path(&dir.join(format!("{name}.toml")));
        assert_eq!(o.references.len(), 1, "{name}");
        let check = &o.references[0];
        assert!(check.passed(), "{name}: {check}");
        assert!(check.comparison.numel > 0, "{name}");
    }
}
