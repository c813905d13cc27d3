//! Generic lowering of small kernels: the IR types and the assumptions.

use tritonc_syntax::{discover, parse_module};

use super::*;

fn generic(src: &str, kernel: &str) -> GenericResult {
    let parsed = parse_module(tritonc_diagnostics::FileId(0), src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let index = discover(&parsed.module);
    let scope = ModuleScope::from_index(&index);
    let k = index.kernel(kernel).expect("the kernel is discovered");
    lower_kernel_generic(&scope, k, &PartialSpecialization::default())
        .unwrap_or_else(|ds| panic!("generic lowering failed: {ds:?}"))
}

fn ir(r: &GenericResult) -> String {
    r.module.to_string()
}

const ADD: &str = "\
import triton
import triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
";

#[test]
fn unknown_pointer_dtypes_and_block_sizes_stay_symbolic() {
    let r = generic(ADD, "add");
    let text = ir(&r);
    // Pointers are used as load/store bases: pointers to dtype variables; `n` a scalar
    // of its own variable.
    assert!(text.contains("!tt.ptr<!dtype<0>>"), "{text}");
    assert!(text.contains("%arg3: !dtype<3>"), "{text}");
    assert!(text.contains("tensor<BLOCKxi32>"), "{text}");
    assert!(text.contains("tensor<BLOCKx!tt.ptr<!dtype<0>>>"), "{text}");
    // x + y: two different variables give the left one's.
    assert!(text.contains("tensor<BLOCKx!dtype<0>>"), "{text}");
    let origins: Vec<&ParamOrigin> = r.params.iter().map(|(_, _, o)| o).collect();
    assert_eq!(
        origins,
        vec![
            &ParamOrigin::UnknownPointer,
            &ParamOrigin::UnknownPointer,
            &ParamOrigin::UnknownPointer,
            &ParamOrigin::UnknownScalar,
            &ParamOrigin::UnknownConstexpr,
        ]
    );
}

#[test]
fn autotune_values_common_to_every_config_are_known() {
    let src = "\
import triton
import triton.language as tl

@triton.autotune(configs=[
    triton.Config({'BLOCK': 64, 'GROUP': 8}, num_warps=4),
    triton.Config({'BLOCK': 128, 'GROUP': 8}, num_warps=8),
], key=['n'])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr, GROUP: tl.constexpr):
    offs = tl.arange(0, BLOCK) * GROUP
    tl.store(x_ptr + offs, offs, mask=offs < n)
";
    let r = generic(src, "k");
    let (_, _, block) = &r.params[2];
    assert_eq!(
        block,
        &ParamOrigin::AutotuneCandidates(vec![Constexpr::Int(64), Constexpr::Int(128)])
    );
    let (_, group, origin) = &r.params[3];
    assert_eq!(origin, &ParamOrigin::AutotuneCommon);
    assert_eq!(group, &ArgSpec::Constexpr(Constexpr::Int(8)));
    let text = ir(&r);
    assert!(text.contains("tensor<BLOCKxi32>"), "{text}");
    assert!(text.contains("arith.constant 8"), "GROUP is folded: {text}");
}

#[test]
fn an_if_on_an_unknown_flag_analyses_both_arms() {
    let src = "\
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, b_ptr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)
    if HAS_BIAS:
        b = tl.load(b_ptr + offs)
        x = x + b.to(tl.float32)
        scale = 2.0
    else:
        scale = 0.5
    if HAS_BIAS:
        x = x * b
    tl.store(x_ptr + offs, x * scale)
";
    let r = generic(src, "k");
    let text = ir(&r);
    assert!(text.contains("scf.if"), "{text}");
    // `.to(tl.float32)` decides the dtype whatever the pointee is.
    assert!(text.contains("tensor<BLOCKxf32>"), "{text}");
    // Both arms' loads are in the IR.
    assert_eq!(text.matches("tt.load").count(), 2, "{text}");
}

#[test]
fn errors_on_unknowns_are_soft_and_errors_on_knowns_are_not() {
    // `tl.exp` of an unknown dtype: fine if it is f32, an error if it is f16.
    let src = "\
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = some_vendor_op(x)
    tl.store(x_ptr + offs, tl.exp(x) + y)
";
    let r = generic(src, "k");
    assert!(
        !r.assumptions.is_empty(),
        "the unknown call is an assumption"
    );
    let bad = "\
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, 48)
    tl.store(x_ptr + offs, 1.0)
";
    let parsed = parse_module(tritonc_diagnostics::FileId(0), bad);
    let index = discover(&parsed.module);
    let scope = ModuleScope::from_index(&index);
    let errs = lower_kernel_generic(
        &scope,
        index.kernel("k").unwrap(),
        &PartialSpecialization::default(),
    )
    .expect_err("a non-power-of-two arange is an error whatever the unknowns are");
    assert!(errs[0].message.contains("power of two"), "{:?}", errs[0]);
}

#[test]
fn static_assert_facts_and_symbolic_arithmetic() {
    let src = "\
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16)
    half = tl.arange(0, BLOCK // 2)
    tl.store(x_ptr + half, half)
";
    let r = generic(src, "k");
    let text = ir(&r);
    assert!(text.contains("tensor<\"BLOCK // 2\"xi32>"), "{text}");
}

#[test]
fn configs_tritonc_cannot_read_set_only_meta_parameters() {
    // The configs come from a comprehension over a module list: unexpanded. They may set
    // `BLOCK` (a constexpr), never the runtime `mask_ptr` or `n`.
    let src = "\
import triton
import triton.language as tl
WARPS = [4, 8]
@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=w) for w in WARPS], key=['n'])
@triton.jit
def k(mask_ptr, n, BLOCK: tl.constexpr):
    mask_ptr += tl.program_id(0)
    skip = tl.load(mask_ptr).to(tl.int1)
    if skip == 1:
        tl.store(mask_ptr, n)
";
    let r = generic(src, "k");
    let origin = |name: &str| r.params.iter().find(|p| p.0 == name).unwrap().2.clone();
    assert_eq!(origin("mask_ptr"), ParamOrigin::UnknownPointer);
    assert_eq!(origin("n"), ParamOrigin::UnknownScalar);
    assert_eq!(origin("BLOCK"), ParamOrigin::Computed);
}
