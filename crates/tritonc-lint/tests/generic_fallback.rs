//! Kernels whose placeholder block sizes do not lower are analysed generically.

#[allow(dead_code)] // the shared helpers serve several test files
mod common;

use tritonc_lint::Settings;

/// `BLOCK`'s placeholder (64) fails the `tl.static_assert`; generic mode keeps `BLOCK`
/// symbolic, so the kernel lowers and the unmasked store is reported.
const STATIC_ASSERTED: &str = "\
import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 128)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, 128)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x)
";

#[test]
fn a_kernel_the_placeholders_cannot_lower_is_analysed_generically() {
    let (findings, _) = common::lint_text("k.py", STATIC_ASSERTED, &Settings::default());
    let codes: Vec<&str> = findings.iter().map(|f| f.diagnostic.code.0).collect();
    assert!(!codes.contains(&"TRI001"), "{codes:?}");
    let store = findings
        .iter()
        .find(|f| f.diagnostic.code.0 == "TRI101")
        .unwrap_or_else(|| panic!("the unmasked store is reported: {codes:?}"));
    let span = store.diagnostic.primary_span().unwrap();
    assert!(STATIC_ASSERTED[span.start as usize..].starts_with("tl.store"));
    assert!(store
        .diagnostic
        .notes
        .iter()
        .any(|n| n.starts_with("`copy_rows` was analysed with `BLOCK` symbolic")));
}

#[test]
fn a_hard_error_of_generic_mode_is_the_reason_given() {
    // `tl.float32(...)` fails whatever the unknowns are.
    let src = STATIC_ASSERTED.replace("x = tl.load(", "z = tl.float32(0.0)\n    x = tl.load(");
    let (findings, _) = common::lint_text("k.py", &src, &Settings::default());
    let tri001 = findings
        .iter()
        .find(|f| f.diagnostic.code.0 == "TRI001")
        .expect("the kernel is not analysed");
    assert!(
        tri001
            .diagnostic
            .notes
            .iter()
            .any(|n| n.contains("is a dtype, not a constructor")),
        "{:?}",
        tri001.diagnostic.notes
    );
}
