//! Debug mode (`LaunchOptions::debug`): device asserts and `assert` statements become
//! `tt.assert` only in debug mode, as in Triton 3.6 (`semantic.device_assert` returns
//! early unless `options.debug`); the expected IR follows Triton's TTIR for the same source.

use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

const HEAD: &str = "import triton\nimport triton.language as tl\n\n@triton.jit\n";
const SIG_FILE: FileId = FileId(1);

/// Lowers kernel `k` of `src` under `sig`, in debug mode or not: the IR text and the
/// warnings, or the errors.
fn lower(src: &str, sig: &str, debug: bool) -> Result<(String, Vec<Diagnostic>), Vec<Diagnostic>> {
    let parsed = tritonc_syntax::parse_module(FileId(0), src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope.functions.get("k").expect("kernel k exists").clone();
    let items = parse_signature(sig, SIG_FILE)?;
    let options = LaunchOptions {
        debug,
        ..LaunchOptions::default()
    };
    let spec = bind_signature(
        &def,
        &items,
        &[],
        options,
        Span::new(SIG_FILE, 0, sig.len() as u32),
    )?;
    let l = tritonc_sema::lower_kernel_in(&scope, "k", &spec)?;
    tritonc_ir::verify_module(&l.module).unwrap_or_else(|e| panic!("IR does not verify: {e:?}"));
    Ok((
        tritonc_ir::print_module(&l.module, tritonc_ir::PrintOptions::default()),
        l.warnings,
    ))
}

fn ir(body: &str, debug: bool) -> (String, Vec<Diagnostic>) {
    let src = format!("{HEAD}def k(x_ptr, n, BLOCK: tl.constexpr):\n{body}");
    lower(&src, "*fp32, i32, 16", debug).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn assert_lines(ir: &str) -> Vec<&str> {
    ir.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("tt.assert"))
        .collect()
}

const BOUNDS: &str = concat!(
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n",
    "    tl.device_assert(offs < n, \"index out of bounds\")\n",
    "    assert n > 0, \"n must be positive\"\n",
    "    tl.store(x_ptr + offs, 1.0, mask=offs < n)\n",
);

#[test]
fn asserts_emit_nothing_outside_debug_mode() {
    let (ir, warnings) = ir(BOUNDS, false);
    assert!(assert_lines(&ir).is_empty(), "{ir}");
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn debug_mode_emits_tensor_and_scalar_asserts_with_their_messages() {
    let (ir, _) = ir(BOUNDS, true);
    let lines = assert_lines(&ir);
    assert_eq!(lines.len(), 2, "{ir}");
    // Triton: `tt.assert %1, "index out of bounds" : tensor<16xi1>`, then on the scalar
    // `tt.assert %2, "n must be positive" : i1`.
    assert!(
        lines[0].contains("message = \"index out of bounds\""),
        "{ir}"
    );
    assert!(lines[0].ends_with(": tensor<16xi1>"), "{ir}");
    assert!(
        lines[1].contains("message = \"n must be positive\""),
        "{ir}"
    );
    assert!(lines[1].ends_with(": i1"), "{ir}");
}

#[test]
fn an_assert_without_a_message_has_an_empty_one() {
    let (ir, _) = ir("    assert n > 1\n    tl.device_assert(n < 9)\n", true);
    let lines = assert_lines(&ir);
    assert_eq!(lines.len(), 2, "{ir}");
    assert!(lines.iter().all(|l| l.contains("message = \"\"")), "{ir}");
}

#[test]
fn a_mask_asserts_cond_or_not_mask() {
    // Triton: %3 = xori mask, true; %4 = ori cond, %3; tt.assert %4.
    let body = "    offs = tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs)\n    \
                tl.device_assert(x > 0, \"positive\", mask=offs < n)\n";
    let (ir, _) = ir(body, true);
    assert!(ir.contains("arith.xori"), "{ir}");
    assert!(ir.contains("arith.ori"), "{ir}");
    assert_eq!(assert_lines(&ir).len(), 1, "{ir}");
    let (plain, _) = self::ir(body, false);
    assert!(!plain.contains("arith.xori"), "{plain}");
}

#[test]
fn a_constexpr_false_assert_warns_and_fails_at_run_time_in_debug_mode() {
    // Triton 3.6 compiles `assert BLOCK == 8` with BLOCK = 16: nothing outside debug mode,
    // `tt.assert %false, "block must be 8"` in it. It is not a compile-time error.
    let body = "    assert BLOCK == 8, \"block must be 8\"\n    tl.store(x_ptr, 1.0)\n";
    let (ir, warnings) = self::ir(body, false);
    assert!(assert_lines(&ir).is_empty(), "{ir}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].code.0, "E0342");
    let (ir, warnings) = self::ir(body, true);
    let lines = assert_lines(&ir);
    assert_eq!(lines.len(), 1, "{ir}");
    assert!(lines[0].contains("block must be 8"), "{ir}");
    assert!(warnings.iter().any(|w| w.code.0 == "E0342"), "{warnings:?}");
}

#[test]
fn a_constexpr_true_assert_is_silent() {
    let (_, warnings) = ir("    assert BLOCK == 16\n", false);
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn non_boolean_conditions_are_refused_in_debug_mode_only() {
    // Triton's verifier rejects `tt.assert` on `tensor<16xi32>`; outside debug mode the
    // call emits nothing and nothing is checked.
    let body = "    offs = tl.arange(0, BLOCK)\n    tl.device_assert(offs, \"nonzero\")\n";
    let (ir, _) = ir(body, false);
    assert!(assert_lines(&ir).is_empty());
    let src = format!("{HEAD}def k(x_ptr, n, BLOCK: tl.constexpr):\n{body}");
    let errors = lower(&src, "*fp32, i32, 16", true).expect_err("a non-boolean condition");
    assert_eq!(errors[0].code.0, "E0322");
    assert!(errors[0].message.contains("`tensor<16xi32>`") || errors[0].message.contains("i32"));
}

#[test]
fn debug_mode_warns_that_overflow_checks_are_not_added() {
    // Triton's debug build asserts `int32 overflow detected for operation mul` on
    // `tl.program_id(0) * BLOCK`; tritonc says it does not.
    let (_, warnings) = ir(BOUNDS, true);
    let w: Vec<_> = warnings.iter().filter(|w| w.code.0 == "E0343").collect();
    assert_eq!(w.len(), 1, "{warnings:?}");
    let (_, warnings) = ir(BOUNDS, false);
    assert!(warnings.iter().all(|w| w.code.0 != "E0343"));
    // Float arithmetic only: nothing Triton would check.
    let (_, warnings) = ir(
        "    x = tl.load(x_ptr)\n    tl.store(x_ptr, x * 2.0)\n",
        true,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn debug_mode_is_part_of_the_specialization_key() {
    let src = format!("{HEAD}def k(x_ptr, n, BLOCK: tl.constexpr):\n    pass\n");
    let parsed = tritonc_syntax::parse_module(FileId(0), &src);
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope.functions.get("k").unwrap().clone();
    let sig = "*fp32, i32, 16";
    let items = parse_signature(sig, SIG_FILE).unwrap();
    let key = |debug| {
        let options = LaunchOptions {
            debug,
            ..LaunchOptions::default()
        };
        bind_signature(&def, &items, &[], options, Span::new(SIG_FILE, 0, 14))
            .unwrap()
            .key()
    };
    let (plain, debug) = (key(false), key(true));
    assert_ne!(plain.hash_hex(), debug.hash_hex());
    assert!(debug.to_string().ends_with(" debug"), "{debug}");
    // Keys without debug mode keep the text they had before the flag existed.
    assert!(plain.to_string().ends_with("target=cuda:90:32"), "{plain}");
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("debug"), "{json}");
    let back: tritonc_sema::SpecializationKey = serde_json::from_str(&json).unwrap();
    assert_eq!(back, plain);
    let json = serde_json::to_string(&debug).unwrap();
    let back: tritonc_sema::SpecializationKey = serde_json::from_str(&json).unwrap();
    assert!(back.debug);
}
