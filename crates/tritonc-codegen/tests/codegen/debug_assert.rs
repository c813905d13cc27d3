//! `tt.assert` (device asserts in debug mode) lowers to Triton's call: for each thread
//! with a false element, `__assertfail(message, file, line, "unknown", 1)`, then a
//! barrier after a block condition. The expected strings are the ones Triton 3.6's PTX
//! passes for the same source (`triton.compile(..., options={"debug": True})`).

use tritonc_codegen::{CompiledKernel, Ptxas};
use tritonc_sema::LaunchOptions;

use crate::from_source::compile_source_with;
use crate::reference_kernels::{check_golden, workspace_root};

const GATHER_SIG: &str = "*fp32:16, *i32:16, *fp32:16, i32, i32, 128";

/// Compiles `kernel` of `src` (registered as `name`) in debug mode or not.
fn compile(name: &str, src: &str, kernel: &str, sig: &str, debug: bool, sm: u32) -> CompiledKernel {
    let launch = LaunchOptions {
        debug,
        ..LaunchOptions::default()
    };
    compile_source_with(name, src, kernel, sig, launch, sm)
        .unwrap_or_else(|e| panic!("{kernel} compiles: {e}"))
}

fn gather(debug: bool, sm: u32) -> (String, CompiledKernel) {
    let src = std::fs::read_to_string(workspace_root().join("examples/debug_assert.py"))
        .expect("the example is readable");
    let k = compile(
        "examples/debug_assert.py",
        &src,
        "gather_kernel",
        GATHER_SIG,
        debug,
        sm,
    );
    (src, k)
}

/// A string as PTX writes an `.b8` array initializer: its bytes, comma-separated.
fn bytes(text: &str) -> String {
    text.bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The 1-based line of the first line of `src` containing `needle`.
fn line_of(src: &str, needle: &str) -> usize {
    src.lines()
        .position(|l| l.contains(needle))
        .expect("the needle is in the source")
        + 1
}

#[test]
fn device_asserts_call_assertfail_with_tritons_arguments() {
    let (src, k) = gather(true, 90);
    let ptx = &k.ptx;
    assert!(ptx.contains(".extern .func __assertfail"), "{ptx}");
    assert_eq!(ptx.matches("call.uni __assertfail").count(), 1, "{ptx}");
    // message, file, line, function, char size: as in Triton's PTX for the same kernel.
    assert!(ptx.contains(&bytes("gather index out of bounds")), "{ptx}");
    assert!(ptx.contains(&bytes("examples/debug_assert.py")), "{ptx}");
    assert!(ptx.contains(&bytes("unknown")), "{ptx}");
    let line = line_of(&src, "tl.device_assert((idx");
    assert!(
        ptx.contains(&format!("st.param.b32 \t[param2], {line};"))
            || ptx.contains(&format!("st.param.b32 [param2], {line};"))
            || ptx.contains(&format!("st.param.b32 \t[param2], {line}")),
        "line {line}:\n{ptx}"
    );
    assert!(ptx.contains("[param4], 1;"), "{ptx}");
    // The block condition is followed by a barrier (the kernel has no other).
    assert!(ptx.contains("bar.sync"), "{ptx}");
}

#[test]
fn without_debug_mode_no_assert_is_emitted() {
    let (_, k) = gather(false, 90);
    assert!(!k.ptx.contains("__assertfail"), "{}", k.ptx);
    assert!(!k.ptx.contains("bar.sync"), "{}", k.ptx);
}

#[test]
fn debug_assert_golden_matches() {
    let (_, k) = gather(true, 90);
    check_golden("debug_assert", &k.ptx);
}

const HELPERS: &str = r#"import triton
import triton.language as tl


@triton.jit
def check_below(x, n):
    tl.device_assert(x < n, "in the helper")


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    assert pid < n, "pid too large"
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + rows * BLOCK + cols)
    check_below(x, n)
    tl.store(x_ptr + rows * BLOCK + cols, x + 1)
"#;

#[test]
fn scalar_tile_and_inlined_asserts_report_their_own_lines() {
    let k = compile("helpers.py", HELPERS, "k", "*i32:16, i32, 16", true, 90);
    let ptx = &k.ptx;
    assert_eq!(ptx.matches("call.uni __assertfail").count(), 2, "{ptx}");
    assert!(ptx.contains(&bytes("pid too large")), "{ptx}");
    assert!(ptx.contains(&bytes("in the helper")), "{ptx}");
    // The helper's assert reports the helper's line, as Triton walks to the callee.
    for needle in ["assert pid < n", "tl.device_assert(x < n"] {
        let line = line_of(HELPERS, needle);
        assert!(
            ptx.contains(&format!("[param2], {line};")),
            "line {line} for `{needle}`:\n{ptx}"
        );
    }
}

#[test]
fn asserts_assemble_for_sm80_and_sm90() {
    let Some(ptxas) = Ptxas::locate(&workspace_root()) else {
        eprintln!("skipped: no ptxas at .tools/cuda/bin/ptxas and TRITONC_PTXAS unset");
        return;
    };
    for sm in [80, 90] {
        let (_, k) = gather(true, sm);
        ptxas
            .check(&k.ptx, &format!("sm_{sm}"))
            .unwrap_or_else(|e| panic!("gather_kernel sm_{sm}: {e}"));
        let k = compile("helpers.py", HELPERS, "k", "*i32:16, i32, 16", true, sm);
        ptxas
            .check(&k.ptx, &format!("sm_{sm}"))
            .unwrap_or_else(|e| panic!("helpers sm_{sm}: {e}"));
    }
}

const CONTROL_FLOW: &str = r#"import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    for i in range(0, n):
        x = tl.load(x_ptr + i * BLOCK + offs)
        tl.device_assert(x >= 0, "negative input")
        acc += x
    if n > 4:
        tl.device_assert(tl.sum(acc, axis=0) < 1000, "sum too large")
    tl.store(x_ptr + offs, acc)
"#;

#[test]
fn asserts_inside_loops_and_branches_lower_and_assemble() {
    // 1024 elements over 128 threads: 8 registers folded into one check per thread.
    let k = compile(
        "control.py",
        CONTROL_FLOW,
        "k",
        "*i32:16, i32, 1024",
        true,
        90,
    );
    assert_eq!(
        k.ptx.matches("call.uni __assertfail").count(),
        2,
        "{}",
        k.ptx
    );
    assert!(k.ptx.contains(&bytes("negative input")), "{}", k.ptx);
    assert!(k.ptx.contains(&bytes("sum too large")), "{}", k.ptx);
    if let Some(ptxas) = Ptxas::locate(&workspace_root()) {
        for sm in [80, 90] {
            let k = compile(
                "control.py",
                CONTROL_FLOW,
                "k",
                "*i32:16, i32, 1024",
                true,
                sm,
            );
            ptxas
                .check(&k.ptx, &format!("sm_{sm}"))
                .unwrap_or_else(|e| panic!("control flow sm_{sm}: {e}"));
        }
    }
}
