use tritonc_diagnostics::{FileId, Span};

use crate::spec::{bind_signature, parse_signature, LaunchOptions};

const SIG_FILE: FileId = FileId(9);

fn lower(
    src: &str,
    kernel: &str,
    sig: &str,
) -> Result<String, Vec<tritonc_diagnostics::Diagnostic>> {
    let parsed = tritonc_syntax::parse_module(FileId(0), src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let scope = super::ModuleScope::from_module(&parsed.module);
    let def = scope.functions.get(kernel).expect("kernel exists").clone();
    let items = parse_signature(sig, SIG_FILE)?;
    let spec = bind_signature(
        &def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(SIG_FILE, 0, sig.len() as u32),
    )?;
    let m = super::lower_kernel(&parsed.module, kernel, &spec)?;
    Ok(tritonc_ir::print_module(
        &m,
        tritonc_ir::PrintOptions::default(),
    ))
}

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("example exists")
}

fn lower_err(src: &str, kernel: &str, sig: &str) -> tritonc_diagnostics::Diagnostic {
    match lower(src, kernel, sig) {
        Ok(ir) => panic!("expected an error, got:\n{ir}"),
        Err(mut d) => d.remove(0),
    }
}

#[test]
fn vector_add_fp32() {
    let ir = lower(
        &example("vector_add.py"),
        "add_kernel",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
    )
    .unwrap();
    insta::assert_snapshot!(ir);
}

#[test]
fn vector_add_fp16() {
    let ir = lower(
        &example("vector_add.py"),
        "add_kernel",
        "*fp16:16, *fp16:16, *fp16:16, i32, 1024",
    )
    .unwrap();
    assert!(
        ir.contains("arith.addf") && ir.contains("tensor<1024xf16>"),
        "{ir}"
    );
    insta::assert_snapshot!(ir);
}

#[test]
fn softmax_fp16() {
    let ir = lower(
        &example("softmax.py"),
        "softmax_kernel",
        "*fp16:16, *fp16:16, i32:16, i32:16, i32, 1024",
    )
    .unwrap();
    insta::assert_snapshot!(ir);
}
