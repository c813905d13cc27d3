//! `run_spec_file` compares outputs with the spec's `.npy` references and reports it.

mod common;

use std::path::{Path, PathBuf};

use common::{example, run_path, values};
use tritonc_diagnostics::SourceMap;
use tritonc_interp::InterpOptions;
use tritonc_spec::{npy, run_spec_file};

/// examples/vector_add.toml in a fresh directory, its output pointing at `out_ref.npy`.
fn spec_with_reference(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-ref-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(example("vector_add.py"), dir.join("vector_add.py")).expect("copy kernel");
    let spec = std::fs::read_to_string(example("vector_add.toml"))
        .expect("spec")
        .replace(
            "output = true\n",
            "output = true\nreference = \"out_ref.npy\"\n",
        );
    std::fs::write(dir.join("spec.toml"), spec).expect("write spec");
    dir.join("spec.toml")
}

fn write_reference(spec: &Path, shape: Vec<usize>, values: &[f32]) {
    let a = npy::NpyArray {
        dtype: tritonc_ir::DType::F32,
        shape,
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    std::fs::write(spec.with_file_name("out_ref.npy"), npy::write(&a)).expect("write npy");
}

/// x + y in f32 from the spec's own inputs (the reference is independent of the kernel).
fn sum_reference(spec: &Path) -> Vec<f32> {
    write_reference(spec, vec![98432], &vec![0.0; 98432]);
    let o = run_path(spec);
    let (x, y) = (values(&o, "x"), values(&o, "y"));
    x.iter()
        .zip(&y)
        .map(|(a, b)| *a as f32 + *b as f32)
        .collect()
}

#[test]
fn a_matching_reference_passes_and_a_perturbed_one_is_reported() {
    let spec = spec_with_reference("match");
    let mut want = sum_reference(&spec);
    write_reference(&spec, vec![98432], &want);
    let o = run_path(&spec);
    assert_eq!(o.references.len(), 1);
    assert!(o.references[0].passed(), "{}", o.references[0]);
    assert_eq!(o.references[0].comparison.numel, 98432);

    want[1234] += 0.5;
    write_reference(&spec, vec![98432], &want);
    let o = run_path(&spec);
    let check = &o.references[0];
    assert!(!check.passed());
    assert_eq!(check.comparison.mismatches, 1);
    assert_eq!(check.comparison.first.map(|f| f.0), Some(1234));
    let text = check.to_string();
    assert!(
        text.contains("1 of 98432") && text.contains("index 1234"),
        "{text}"
    );
}

#[test]
fn a_reference_of_another_shape_is_an_error_at_the_tensor() {
    let spec = spec_with_reference("shape");
    write_reference(&spec, vec![2, 49216], &vec![0.0; 98432]);
    let mut sources = SourceMap::new();
    let Err(ds) = run_spec_file(&spec, &mut sources, &InterpOptions::default()) else {
        panic!("a mismatched reference must fail");
    };
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].code, tritonc_spec::codes::BAD_TENSOR);
    assert!(ds[0].message.contains("[2, 49216]"), "{}", ds[0].message);
    // The label points at `[tensors.out]`.
    let label = ds[0].labels.first().expect("a label");
    let text = std::fs::read_to_string(&spec).expect("spec");
    let at = &text[label.span.start as usize..label.span.end as usize];
    assert!(at.contains("tensors.out"), "{at}");
}

#[test]
fn a_tensor_too_large_to_address_is_an_error_at_the_tensor_not_a_panic() {
    // Each dim is allowed on its own; their product (4·10^22 elements) overflows 64 bits,
    // and 2^61 fp32 elements are more bytes than an allocation can hold.
    for shape in ["[200000000000, 200000000000]", "[2147483648, 1073741824]"] {
        let dir = std::env::temp_dir().join(format!(
            "tritonc-huge-{}-{}",
            shape.len(),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::copy(example("vector_add.py"), dir.join("vector_add.py")).expect("copy");
        let spec = std::fs::read_to_string(example("vector_add.toml"))
            .expect("spec")
            .replacen("shape = [98432]", &format!("shape = {shape}"), 1);
        let path = dir.join("spec.toml");
        std::fs::write(&path, spec).expect("write spec");
        let mut sources = SourceMap::new();
        let Err(ds) = run_spec_file(&path, &mut sources, &InterpOptions::default()) else {
            panic!("{shape}: a tensor past the address space must fail");
        };
        assert_eq!(ds[0].code, tritonc_spec::codes::BAD_TENSOR, "{shape}");
        assert!(ds[0].message.contains("too large"), "{}", ds[0].message);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
