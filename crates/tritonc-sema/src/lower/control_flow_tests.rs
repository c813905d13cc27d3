//! Control flow and language-level constructs, each checked against what Triton 3.6
//! accepts (tests/fixtures/triton/subset.json) and how its `code_generator.py` lowers it.

use tritonc_diagnostics::{Diagnostic, FileId, Span};

use crate::spec::{bind_signature, parse_signature, LaunchOptions};

const HEAD: &str = "import triton\nimport triton.language as tl\n\n";
const SIG_FILE: FileId = FileId(9);

/// Lowers kernel `k` of `src` under `sig`; returns the IR text and the warnings.
fn lower(src: &str, sig: &str) -> Result<(String, Vec<Diagnostic>), Vec<Diagnostic>> {
    let parsed = tritonc_syntax::parse_module(FileId(0), src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let scope = super::ModuleScope::from_module(&parsed.module);
    let def = scope.functions.get("k").expect("kernel k exists").clone();
    let items = parse_signature(sig, SIG_FILE)?;
    let spec = bind_signature(
        &def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(SIG_FILE, 0, sig.len() as u32),
    )?;
    let l = super::lower_kernel_in(&scope, "k", &spec)?;
    tritonc_ir::verify_module(&l.module).unwrap_or_else(|e| panic!("IR does not verify: {e:?}"));
    Ok((
        tritonc_ir::print_module(&l.module, tritonc_ir::PrintOptions::default()),
        l.warnings,
    ))
}

/// `x_ptr: *fp32, n: i32` kernel with `body`, after optional module-level `prelude`.
fn kernel(prelude: &str, body: &str) -> String {
    format!("{HEAD}{prelude}@triton.jit\ndef k(x_ptr, n):\n{body}")
}

fn ir(prelude: &str, body: &str) -> String {
    match lower(&kernel(prelude, body), "*fp32, i32") {
        Ok((ir, _)) => ir,
        Err(d) => panic!("{d:#?}"),
    }
}

/// The error's code and the source text under its primary label.
fn error(prelude: &str, body: &str) -> (String, String, String) {
    let src = kernel(prelude, body);
    let d = match lower(&src, "*fp32, i32") {
        Ok((ir, _)) => panic!("expected an error, got:\n{ir}"),
        Err(mut d) => d.remove(0),
    };
    let s = d.primary_span().expect("primary label");
    (
        d.code.0.to_string(),
        src[s.start as usize..s.end as usize].to_string(),
        d.message,
    )
}

#[test]
fn while_loops_carry_values_through_scf_while() {
    // subset.json `while`: accepted; `i = 0` becomes an i32 carried value.
    let ir = ir(
        "",
        "    i = 0\n    while i < n:\n        i += 1\n    tl.store(x_ptr, i.to(tl.float32))\n",
    );
    assert!(ir.contains("scf.while"), "{ir}");
    assert!(ir.contains("scf.condition"), "{ir}");
    insta::assert_snapshot!(ir);
}

#[test]
fn while_carried_type_change_is_an_error() {
    let (code, text, _) = error(
        "",
        "    i = 0\n    while i < n:\n        i = i + 1.5\n    tl.store(x_ptr, i)\n",
    );
    assert_eq!((code.as_str(), text.as_str()), ("E0306", "i"));
}

#[test]
fn while_else_and_constexpr_condition_are_rejected() {
    let (code, text, _) = error("", "    while True:\n        pass\n");
    assert_eq!((code.as_str(), text.as_str()), ("E0320", "True"));
}

#[test]
fn early_return_moves_the_rest_into_the_else_branch() {
    // subset.json `return_in_dynamic_if`: accepted.
    let ir = ir(
        "",
        "    if n > 0:\n        return\n    tl.store(x_ptr, 1.0)\n",
    );
    insta::assert_snapshot!(ir);
    // The store sits inside the `scf.if`, in its else region.
    let store = ir.find("tt.store").expect("store");
    let if_pos = ir.find("scf.if").expect("scf.if");
    let else_pos = ir.find("} else {").expect("else region");
    assert!(if_pos < else_pos && else_pos < store, "{ir}");
}

#[test]
fn early_return_in_helpers_yields_the_returned_values() {
    let prelude = "@triton.jit\ndef pick(v):\n    if v > 3:\n        return v, v * 2\n    return v + 1, v\n\n";
    let ir = ir(
        prelude,
        "    a, b = pick(n)\n    tl.store(x_ptr, (a + b).to(tl.float32))\n",
    );
    assert!(ir.contains("scf.if"), "{ir}");
    insta::assert_snapshot!(ir);
}

#[test]
fn early_return_with_mismatched_types_is_an_error() {
    // subset.json `jit_helper_inconsistent_returns`: rejected.
    let prelude =
        "@triton.jit\ndef helper(v):\n    if v > 0:\n        return 1.0\n    return 1\n\n";
    let (code, _, msg) = error(prelude, "    tl.store(x_ptr, helper(n).to(tl.float32))\n");
    assert_eq!(code, "E0318");
    assert!(msg.contains("`f32` and `i32`"), "{msg}");
}

#[test]
fn return_in_a_loop_is_an_error() {
    // subset.json `return_in_loop`: rejected.
    let (code, text, _) = error(
        "",
        "    for i in range(n):\n        if i > 2:\n            return\n    tl.store(x_ptr, 1.0)\n",
    );
    assert_eq!((code.as_str(), text.as_str()), ("E0318", "return"));
}

#[test]
fn negative_constexpr_step_mirrors_the_range() {
    // subset.json `for_range_negative_constexpr_step`: accepted.
    let ir = ir(
        "",
        "    acc = 0\n    for i in range(n, 0, -1):\n        acc += i\n    tl.store(x_ptr, acc.to(tl.float32))\n",
    );
    // The loop runs 0..n step 1 and the body sees n - iv + 0.
    assert!(ir.contains("arith.subi"), "{ir}");
    insta::assert_snapshot!(ir);
}

#[test]
fn range_bounds_of_different_widths_promote_the_induction_variable() {
    let src = format!(
        "{HEAD}@triton.jit\ndef k(x_ptr, n, m):\n    acc = tl.zeros((16,), tl.int64)\n    for i in range(n, m):\n        acc += i\n    tl.store(x_ptr + tl.arange(0, 16), acc.to(tl.float32))\n"
    );
    let (ir, _) = lower(&src, "*fp32, i32, i64").expect("lowers");
    assert!(ir.contains("arith.extsi %arg1 : i32 -> i64"), "{ir}");
    assert!(ir.contains("scf.for %"), "{ir}");
    assert!(ir.contains(": i64"), "{ir}");
}

#[test]
fn and_or_on_scalars_and_blocks() {
    // subset.json `and_or_scalar`: accepted, no warning.
    let (ir, w) = lower(
        &kernel(
            "",
            "    c = (n > 0) and (n < 10)\n    tl.store(x_ptr, c.to(tl.float32))\n",
        ),
        "*fp32, i32",
    )
    .expect("lowers");
    assert!(w.is_empty(), "{w:?}");
    assert!(ir.contains("arith.andi"), "{ir}");
    // subset.json `and_or_block`: accepted with Triton's deprecation warning.
    let (ir, w) = lower(
        &kernel(
            "",
            "    r = tl.arange(0, 16)\n    c = (r > 0) or (r < 10)\n    tl.store(x_ptr + r, c.to(tl.float32))\n",
        ),
        "*fp32, i32",
    )
    .expect("lowers");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].code.0, "E0341");
    assert!(ir.contains("arith.ori"), "{ir}");
    // Constexpr operands short-circuit like Python.
    let ir = self::ir("", "    c = False and n\n    tl.store(x_ptr, c + 1.0)\n");
    assert!(!ir.contains("arith.andi"), "{ir}");
}

#[test]
fn and_on_non_boolean_runtime_values_is_an_error() {
    // Triton bitcasts operands to i1, which fails for i32.
    let (code, text, _) = error(
        "",
        "    c = n and (n > 1)\n    tl.store(x_ptr, c.to(tl.float32))\n",
    );
    assert_eq!((code.as_str(), text.as_str()), ("E0313", "n"));
}

#[test]
fn ternary_on_a_runtime_condition_is_an_scf_if() {
    // subset.json `ternary_dynamic`: accepted.
    let ir = ir(
        "",
        "    y = 1.0 if n > 0 else 2.0\n    tl.store(x_ptr, y)\n",
    );
    assert!(ir.contains("scf.if"), "{ir}");
    insta::assert_snapshot!(ir);
    // subset.json `ternary_block_condition`: rejected.
    let (code, text, _) = error(
        "",
        "    r = tl.arange(0, 16)\n    y = 1.0 if r > 0 else 2.0\n    tl.store(x_ptr, y)\n",
    );
    assert_eq!((code.as_str(), text.as_str()), ("E0320", "r > 0"));
    let (code, _, _) = error("", "    y = 1.0 if n > 0 else 2\n    tl.store(x_ptr, y)\n");
    assert_eq!(code, "E0307");
}

#[test]
fn helpers_take_keywords_and_defaults() {
    let prelude = "@triton.jit\ndef axpy(x, a=2, b: tl.constexpr = 3):\n    return x * a + b\n\n";
    let ir = ir(
        prelude,
        "    tl.store(x_ptr, axpy(n, b=5).to(tl.float32))\n",
    );
    assert!(ir.contains("arith.constant 2 : i32"), "{ir}");
    assert!(ir.contains("arith.constant 5 : i32"), "{ir}");
    let (code, text, msg) = error(
        prelude,
        "    tl.store(x_ptr, axpy(n, x=n).to(tl.float32))\n",
    );
    assert_eq!((code.as_str(), text.as_str()), ("E0308", "x=n"));
    assert!(msg.contains("multiple values"), "{msg}");
}

#[test]
fn noinline_helpers_are_inlined() {
    let prelude = "@triton.jit(noinline=True)\ndef twice(x):\n    return x * 2\n\n";
    let ir = ir(prelude, "    tl.store(x_ptr, twice(n).to(tl.float32))\n");
    assert!(!ir.contains("tt.call"), "{ir}");
    assert!(ir.contains("arith.muli"), "{ir}");
}

#[test]
fn recursion_is_a_precise_error() {
    let prelude =
        "@triton.jit\ndef f(x):\n    return g(x)\n\n@triton.jit\ndef g(x):\n    return f(x)\n\n";
    let (code, text, msg) = error(prelude, "    tl.store(x_ptr, f(n).to(tl.float32))\n");
    assert_eq!((code.as_str(), text.as_str()), ("E0321", "f(x)"));
    assert_eq!(msg, "`f` calls itself: f -> g -> f");
}

#[test]
fn globals_follow_triton_3_6() {
    // subset.json `constexpr_global` and `dtype_global`: accepted.
    let ir = ir(
        "G = tl.constexpr(3)\nDT = tl.float32\n\n",
        "    tl.store(x_ptr, n.to(DT) + G)\n",
    );
    assert!(ir.contains("arith.constant 3"), "{ir}");
    // `annotated_constexpr_global` and `plain_int_global`: NameError in Triton 3.6.
    for prelude in ["G: tl.constexpr = 3\n\n", "G = 3\n\n"] {
        let (code, text, _) = error(prelude, "    tl.store(x_ptr, n.to(tl.float32) + G)\n");
        assert_eq!((code.as_str(), text.as_str()), ("E0340", "G"), "{prelude}");
    }
}

#[test]
fn tuples_have_a_length() {
    // subset.json `len_tuple`: accepted.
    let ir = ir(
        "",
        "    t = (n, n)\n    tl.store(x_ptr, len(t) + n.to(tl.float32))\n",
    );
    assert!(ir.contains("arith.constant 2"), "{ir}");
}
