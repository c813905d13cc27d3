//! Tile IR → PTX through layouts: vector add and row softmax as sema emits them.

use tritonc_codegen::{
    compile_to_ptx, CompileOptions, CompileStage, CompiledKernel, Target, Ptxas,
};
use tritonc_diagnostics::{SourceMap, Span};
use tritonc_ir::{Builder, DType, Function, Location, MathOp, Type};

use crate::fixtures;
use crate::reference_kernels::{check_golden, entry_params, workspace_root};

/// A source map whose file 0 stands in for the kernel's Python file.
fn sources() -> SourceMap {
    let mut map = SourceMap::new();
    let text: String = (0..40)
        .map(|i| format!("line {i:02} of the kernel source\n"))
        .collect();
    map.add("kernel.py", text);
    map
}

fn compile(func: &Function, sm: u32, num_warps: u32) -> CompiledKernel {
    let options = CompileOptions {
        num_warps,
        ..CompileOptions::default()
    };
    compile_to_ptx(func, &sources(), &Target::nvidia(sm), &options)
        .unwrap_or_else(|e| panic!("{} compiles: {e}", func.name))
}

/// The kernels saved as goldens: (file stem, IR, num_warps).
fn golden_kernels() -> Vec<(&'static str, Function, u32)> {
    vec![
        (
            "tile_vector_add_fp32",
            fixtures::vector_add(DType::F32, 1024, true),
            4,
        ),
        (
            "tile_vector_add_fp16",
            fixtures::vector_add(DType::F16, 2048, true),
            4,
        ),
        (
            "tile_softmax_fp16",
            fixtures::softmax(DType::F16, 1024, false),
            4,
        ),
        (
            "tile_softmax_fp32",
            fixtures::softmax(DType::F32, 8192, true),
            16,
        ),
        ("tile_reduce_2d", fixtures::reduce_2d(), 4),
        ("tile_downcast", fixtures::downcast(), 4),
    ]
}

fn count(ptx: &str, needle: &str) -> usize {
    ptx.matches(needle).count()
}

#[test]
fn vector_add_fp32_moves_128_bits_per_predicated_access() {
    let k = compile(&fixtures::vector_add(DType::F32, 1024, true), 90, 4);
    let ptx = &k.ptx;
    // 1024 elements / 128 threads = 8 per thread: two v4 accesses per operand.
    assert_eq!(count(ptx, "ld.global.v4.b32"), 4, "{ptx}");
    assert_eq!(count(ptx, "st.global.v4.b32"), 2, "{ptx}");
    assert!(
        ptx.contains("@%p"),
        "masked accesses are predicated:\n{ptx}"
    );
    assert!(!ptx.contains("__nv_"));
    assert!(ptx.contains(".maxntid 128, 1, 1"), "{ptx}");
    let params = entry_params(ptx, "add_kernel");
    assert_eq!(params.len(), 4);
    assert!(
        params[0].starts_with(".param .u64 .ptr .global .align 16"),
        "{params:?}"
    );
    assert!(params[3].starts_with(".param .u32"), "{params:?}");
    assert_eq!(k.shared_bytes, 0);
    assert_eq!(
        k.abi.iter().map(|p| p.ty.as_str()).collect::<Vec<_>>(),
        ["*fp32", "*fp32", "*fp32", "i32"]
    );
}

#[test]
fn vector_add_without_aligned_bound_splits_accesses_per_element() {
    let k = compile(&fixtures::vector_add(DType::F32, 1024, false), 90, 4);
    assert_eq!(count(&k.ptx, "ld.global.v4"), 0);
    assert_eq!(count(&k.ptx, "ld.global.b32"), 16, "{}", k.ptx);
}

#[test]
fn vector_add_fp16_packs_eight_halves_per_access() {
    let k = compile(&fixtures::vector_add(DType::F16, 2048, true), 90, 4);
    // 2048 / 128 = 16 halves per thread: two 128-bit accesses per operand.
    assert_eq!(count(&k.ptx, "ld.global.v4.b32"), 4, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "st.global.v4.b32"), 2);
    assert!(
        k.ptx.contains("add.f16x2") || k.ptx.contains("add.rn.f16x2") || k.ptx.contains("add.f16"),
        "{}",
        k.ptx
    );
}

#[test]
fn softmax_reduces_with_shuffles_and_shared_memory() {
    let k = compile(&fixtures::softmax(DType::F16, 1024, false), 90, 4);
    let ptx = &k.ptx;
    // Two reductions: 5 butterfly steps each within a warp.
    assert_eq!(count(ptx, "shfl.sync.bfly.b32"), 10, "{ptx}");
    assert!(ptx.contains("bar.sync"), "{ptx}");
    assert!(
        ptx.contains("st.shared") && ptx.contains("ld.shared"),
        "{ptx}"
    );
    assert!(ptx.contains("ex2.approx.f32"), "{ptx}");
    // fp32 `/` is Triton's approximate full-range division, not the IEEE sequence.
    assert!(ptx.contains("div.full.f32"), "{ptx}");
    assert!(!ptx.contains("div.rn.f32"), "{ptx}");
    assert!(!ptx.contains("__nv_"));
    // n_cols without `:16`: one predicated 16-bit load per element (8 per thread).
    assert_eq!(count(ptx, "ld.global.b16"), 8, "{ptx}");
    // 4 warps, one f32 partial each, for each of two reductions (one scratch, reused).
    assert_eq!(k.shared_bytes, 16);
    let k = compile(&fixtures::softmax(DType::F16, 1024, true), 90, 4);
    assert_eq!(count(&k.ptx, "ld.global.v4.b32"), 1, "{}", k.ptx);
}

#[test]
fn softmax_fp32_with_16_warps() {
    let k = compile(&fixtures::softmax(DType::F32, 8192, true), 90, 16);
    // 8192 / 512 threads = 16 floats per thread: four v4 accesses each way.
    assert_eq!(count(&k.ptx, "ld.global.v4.b32"), 4, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "st.global.v4.b32"), 4);
    assert!(k.ptx.contains(".maxntid 512, 1, 1"));
    assert_eq!(k.shared_bytes, 64);
}

#[test]
fn two_dimensional_reductions_and_conversions_lower() {
    let k = compile(&fixtures::reduce_2d(), 90, 4);
    // Layout [1,4] x [2,16] x [4,1]: each thread holds 2 rows x 4 columns. Row sums: 2
    // rows x 4 lane steps, no warps; column maxima: 4 columns x 1 lane step, then the
    // 4 warps' partials through shared memory: 4 x 64 partials over 128 threads, two
    // rounds of a 2-step butterfly over groups of 4 lanes (Triton's way: 4 columns per
    // thread are too many partials to read them all).
    assert_eq!(count(&k.ptx, "shfl.sync.bfly.b32"), 2 * 4 + 4 + 2 * 2, "{}", k.ptx);
    // Barriers: the partials written, the results written back, and the four of the
    // two result conversions and scratch reuse.
    assert_eq!(count(&k.ptx, "bar.sync"), 6, "{}", k.ptx);
    assert!(k.ptx.contains("bar.sync"));
    assert_eq!(
        count(&k.ptx, "ld.global.v4.f32") + count(&k.ptx, "ld.global.v4.b32"),
        2,
        "{}",
        k.ptx
    );
    assert!(k.shared_bytes > 0);
    // 16 row sums over 128 threads: only the owners (no replica lane or warp bits) store.
    assert_eq!(
        k.ptx
            .lines()
            .filter(|l| l.trim_start().starts_with("@%p") && l.contains("st.global.b32"))
            .count(),
        2,
        "{}",
        k.ptx
    );
    let k = compile(&fixtures::downcast(), 90, 4);
    // fp32 in 4 per access, fp16 out 8 per access: both in the 8-per-thread layout, the
    // load as two 128-bit accesses per 8 elements; nothing crosses shared memory.
    assert_eq!(count(&k.ptx, "ld.global.v4.b32"), 2, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "st.global.v4.b32"), 1, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "bar.sync"), 0, "{}", k.ptx);
    assert_eq!(k.shared_bytes, 0);
}

#[test]
fn fp_fusion_switch_controls_fma() {
    use tritonc_ir::{BinaryOp, CacheModifier, EvictionPolicy, LoadOptions};
    // out = x * y + x
    let ptr = Type::ptr(DType::F32);
    let mut f = Function::new("fma_kernel", vec![ptr.clone(), ptr.clone(), ptr], vec![]);
    for i in 0..3 {
        f.arg_attrs[i].divisibility = Some(16);
    }
    let [x, y, out] = f.args().to_vec()[..] else {
        unreachable!("three arguments")
    };
    let entry = f.entry_block();
    let mut b = Builder::at_end(&mut f, entry);
    let r = b.make_range(0, 128);
    let load = |b: &mut Builder, p| {
        let p = b.splat(p, &[128]);
        let p = b.addptr(p, r);
        b.load(p, None, None, LoadOptions::default())
    };
    let xv = load(&mut b, x);
    let yv = load(&mut b, y);
    let m = b.binary(BinaryOp::MulF, xv, yv);
    let s = b.binary(BinaryOp::AddF, m, xv);
    let o = b.splat(out, &[128]);
    let o = b.addptr(o, r);
    b.store(o, s, None, CacheModifier::None, EvictionPolicy::Normal);
    b.ret(&[]);
    let fused = compile(&f, 90, 4);
    assert!(fused.ptx.contains("fma.rn.f32"), "{}", fused.ptx);
    let options = CompileOptions {
        num_warps: 4,
        fp_fusion: false,
        ..CompileOptions::default()
    };
    let plain = compile_to_ptx(&f, &sources(), &Target::nvidia(90), &options).unwrap();
    assert!(!plain.ptx.contains("fma.rn.f32"), "{}", plain.ptx);
}

#[test]
fn unsupported_op_is_reported_at_its_source_span() {
    let mut f = Function::new("sin_kernel", vec![Type::ptr(DType::F32)], vec![]);
    let entry = f.entry_block();
    let mut b = Builder::at_end(&mut f, entry);
    // sin of fp16 (a type error in Triton) has no lowering.
    let x = b.const_float(1.0, Type::Scalar(DType::F16));
    let span = Span::new(tritonc_diagnostics::FileId(0), 64, 70);
    b.set_loc(Location::new(span));
    b.math(MathOp::Sin, x);
    b.ret(&[]);
    let err = compile_to_ptx(
        &f,
        &sources(),
        &Target::nvidia(90),
        &CompileOptions::default(),
    )
    .expect_err("fp16 sin is not lowered");
    assert_eq!(err.stage, CompileStage::Lowering);
    assert_eq!(err.span, Some(span));
    assert!(err.message.contains("math.sin"), "{err}");
}

#[test]
fn tile_kernels_assemble_with_ptxas_for_sm80_and_sm90() {
    let Some(ptxas) = Ptxas::locate(&workspace_root()) else {
        eprintln!("skipped: no ptxas at .tools/cuda/bin/ptxas and TRITONC_PTXAS unset");
        return;
    };
    for (name, func, warps) in golden_kernels() {
        for sm in [80, 90] {
            let k = compile(&func, sm, warps);
            let arch = format!("sm_{sm}");
            let report = ptxas
                .check(&k.ptx, &arch)
                .unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
            assert!(
                !report.log.contains("spill stores") || report.log.contains("0 bytes spill stores"),
                "{}",
                report.log
            );
            eprintln!(
                "{name} {arch}: {} registers, {} bytes smem",
                report.registers.unwrap_or(0),
                report.shared_bytes.unwrap_or(0)
            );
        }
    }
}

#[test]
fn tile_goldens_match() {
    for (name, func, warps) in golden_kernels() {
        let k = compile(&func, 90, warps);
        check_golden(name, &k.ptx);
    }
}

#[test]
fn loop_mlir_carries_each_register() {
    // 256 fp32 over 128 threads: 2 registers per thread, so the MLIR loop carries two
    // f32 values; the loads inside are predicated 64-bit vector loads.
    let options = CompileOptions::default();
    let mlir = tritonc_codegen::compile_to_mlir(&fixtures::loop_sum(), &sources(), &tritonc_codegen::Target::nvidia(90), &options)
        .expect("the loop kernel builds");
    assert!(mlir.contains("scf.for"), "{mlir}");
    insta::assert_snapshot!(mlir);
    let k = compile(&fixtures::loop_sum(), 90, 4);
    assert!(k.ptx.contains("ld.global.v2.b32"), "{}", k.ptx);
}

#[test]
fn small_kernels_with_scans_and_dots_assemble() {
    let Some(ptxas) = Ptxas::locate(&workspace_root()) else {
        eprintln!("skipped: no ptxas");
        return;
    };
    for (f, warps) in [
        (fixtures::cumsum_1d(1024), 4),
        (fixtures::cumsum_1d(32), 1),
        (fixtures::cumsum_1d(4096), 8),
        (fixtures::small_dot(), 4),
        (fixtures::loop_sum(), 4),
    ] {
        for sm in [80, 90] {
            let k = compile(&f, sm, warps);
            ptxas
                .check(&k.ptx, &format!("sm_{sm}"))
                .unwrap_or_else(|e| panic!("{} sm_{sm}: {e}", f.name));
        }
    }
}
