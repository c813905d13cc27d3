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

const HEAD: &str = "import triton\nimport triton.language as tl\n\n";

fn kernel_src(body: &str) -> String {
    format!("{HEAD}@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n{body}")
}

fn code_of(body: &str) -> (String, String) {
    let src = kernel_src(body);
    let d = lower_err(&src, "k", "*fp16:16, i32, 128");
    let s = d.primary_span().expect("primary label");
    (
        d.code.0.to_string(),
        src[s.start as usize..s.end as usize].to_string(),
    )
}

#[test]
fn semantic_errors_have_codes_at_the_offending_span() {
    let cases = [
        ("    y = tl.arang(0, BLOCK)\n", "E0301", "arang"),
        ("    y = tl.histogram(x_ptr, 4)\n", "E0302", "tl.histogram"),
        ("    y = tl.arange(0, 100)\n", "E0305", "tl.arange(0, 100)"),
        (
            "    y = tl.load(x_ptr + tl.arange(0, BLOCK), other=0.0)\n",
            "E0314",
            "other=0.0",
        ),
        (
            "    y = tl.exp(tl.load(x_ptr))\n",
            "E0322",
            "tl.load(x_ptr)",
        ),
        (
            "    y = tl.arange(0, 64) + tl.arange(0, 128)\n",
            "E0304",
            "tl.arange(0, 64) + tl.arange(0, 128)",
        ),
        ("    y = tl.arange(0, n)\n", "E0309", "n"),
        (
            "    acc = 0\n    for i in range(0, n):\n        acc = acc + tl.load(x_ptr + i)\n",
            "E0306",
            "acc",
        ),
        (
            "    tl.static_assert(BLOCK > 256, 'too small')\n",
            "E0312",
            "BLOCK > 256",
        ),
        ("    y = undefined + 1\n", "E0310", "undefined"),
        (
            "    y = tl.sum(tl.arange(0, BLOCK), axis=1)\n",
            "E0316",
            "axis=1",
        ),
    ];
    let mut failures = Vec::new();
    for (body, code, text) in cases {
        let (c, t) = code_of(body);
        if (c.as_str(), t.as_str()) != (code, text) {
            failures.push(format!(
                "{body:?}: got {c} at {t:?}, want {code} at {text:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn helpers_inline_with_constexpr_propagation_and_loops_carry_values() {
    let body = [
        "@triton.jit",
        "def scale(x, F: tl.constexpr):",
        "    if F == 2:",
        "        return x * 2",
        "    return x",
        "",
        "@triton.jit",
        "def k(x_ptr, n, BLOCK: tl.constexpr):",
        "    offs = tl.arange(0, BLOCK)",
        "    acc = tl.zeros((BLOCK,), tl.float32)",
        "    for i in range(0, n, BLOCK):",
        "        acc += tl.load(x_ptr + i + offs, mask=i + offs < n, other=0.0).to(tl.float32)",
        "    tl.store(x_ptr + offs, scale(acc, 2))",
    ];
    let src = format!("{HEAD}{}\n", body.join("\n"));
    let ir = lower(&src, "k", "*fp16:16, i32, 128").unwrap();
    insta::assert_snapshot!(ir);
}

#[test]
fn a_dtype_called_as_a_constructor_is_rejected_as_triton_does() {
    // Triton 3.6: `TypeError("'dtype' object is not callable")` at `tl.float32`.
    let src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(X):\n    m = tl.float32(-float('inf'))\n    tl.store(X, tl.maximum(tl.load(X), m))\n";
    let d = lower_err(src, "k", "*fp32");
    assert_eq!(
        d.message,
        "`tl.float32` is a dtype, not a constructor: Triton 3.6 rejects `tl.float32(...)` ('dtype' object is not callable)"
    );
    let s = d.primary_span().unwrap();
    assert_eq!(&src[s.start as usize..s.end as usize], "tl.float32");
}

#[test]
fn swizzle2d_is_the_arithmetic_triton_emits() {
    let src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(out_ptr, n_i, n_j, GROUP: tl.constexpr):\n    pid_i = tl.program_id(0)\n    pid_j = tl.program_id(1)\n    a, b = tl.swizzle2d(pid_i, pid_j, n_i, n_j, GROUP)\n    tl.store(out_ptr + a, b)\n";
    let ir = lower(src, "k", "*i32, i32, i32, 4").unwrap();
    let ops: Vec<&str> = ir
        .lines()
        .filter_map(|l| l.split(" = ").nth(1)?.split_whitespace().next())
        .filter(|op| *op != "arith.constant")
        .collect();
    // Triton 3.6's TTIR for this kernel (`triton.compile`, constants left out).
    let triton = [
        "tt.get_program_id",
        "tt.get_program_id",
        "arith.muli",
        "arith.addi",
        "arith.muli",
        "arith.divsi",
        "arith.muli",
        "arith.subi",
        "arith.minsi",
        "arith.remsi",
        "arith.remsi",
        "arith.addi",
        "arith.divsi",
        "tt.addptr",
    ];
    assert_eq!(ops, triton, "{ir}");
}
