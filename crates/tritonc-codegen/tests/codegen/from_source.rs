//! End to end from Python source: `examples/*.py` through sema, layouts and MLIR to PTX
//! that ptxas accepts, with the signatures of the Triton 3.6 reference fixtures.

use tritonc_codegen::{compile_to_ptx, CompileOptions, CompiledKernel, Target, Ptxas};
use tritonc_diagnostics::{FileId, SourceMap, Span};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

use crate::reference_kernels::workspace_root;

/// Compiles `kernel` of `examples/<file>` with signature `sig` for `sm`.
fn compile_example(file: &str, kernel: &str, sig: &str, num_warps: u32, sm: u32) -> CompiledKernel {
    try_compile_example(file, kernel, sig, num_warps, sm)
        .unwrap_or_else(|e| panic!("{file}:{kernel} compiles: {e}"))
}

/// Like [`compile_example`], with the error as text (sema's or codegen's).
fn try_compile_example(
    file: &str,
    kernel: &str,
    sig: &str,
    num_warps: u32,
    sm: u32,
) -> Result<CompiledKernel, String> {
    let path = workspace_root().join("examples").join(file);
    let src = std::fs::read_to_string(&path).expect("the example is readable");
    compile_source(
        &format!("examples/{file}"),
        &src,
        kernel,
        sig,
        num_warps,
        sm,
    )
}

/// Compiles `kernel` of the Python source `src` (named `name`) with signature `sig`.
pub fn compile_source(
    name: &str,
    src: &str,
    kernel: &str,
    sig: &str,
    num_warps: u32,
    sm: u32,
) -> Result<CompiledKernel, String> {
    let launch = LaunchOptions {
        num_warps,
        ..LaunchOptions::default()
    };
    compile_source_with(name, src, kernel, sig, launch, sm)
}

/// [`compile_source`] with every launch option (`num_warps`, `debug`, …) given.
pub fn compile_source_with(
    name: &str,
    src: &str,
    kernel: &str,
    sig: &str,
    launch: LaunchOptions,
    sm: u32,
) -> Result<CompiledKernel, String> {
    let file = name;
    let num_warps = launch.num_warps;
    let num_stages = launch.num_stages;
    let mut sources = SourceMap::new();
    let file_id = sources.add(name.to_string(), src.to_string());
    assert_eq!(file_id, FileId(0));
    let parsed = tritonc_syntax::parse_module(file_id, src);
    assert!(!parsed.has_errors(), "{file} parses");
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope
        .functions
        .get(kernel)
        .expect("the kernel exists")
        .clone();
    let sig_file = FileId(1);
    let items = parse_signature(sig, sig_file).expect("the signature parses");
    let spec = bind_signature(
        &def,
        &items,
        &[],
        launch,
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .expect("the signature binds");
    let module = tritonc_sema::lower_kernel(&parsed.module, kernel, &spec)
        .map_err(|ds| format!("sema: {}", ds[0].message))?;
    let func = module
        .function(kernel)
        .expect("the module holds the kernel");
    let options = CompileOptions {
        num_warps,
        num_stages,
        ..CompileOptions::default()
    };
    if let Some(dir) = std::env::var_os("TRITONC_DUMP_TTGIR") {
        let gpu_options = tritonc_ttgir::GpuOptions::nvidia(num_warps);
        if let Ok(gpu) = tritonc_ttgir::lower_to_gpu_ir(func, &gpu_options) {
            let text = tritonc_ttgir::print_gpu_module(&gpu, &gpu_options);
            let path = std::path::Path::new(&dir).join(format!("{kernel}.{num_warps}.ttgir"));
            std::fs::write(path, text).expect("the dump directory is writable");
        }
    }
    compile_to_ptx(func, &sources, &Target::nvidia(sm), &options).map_err(|e| e.to_string())
}

fn cases() -> Vec<(&'static str, &'static str, &'static str, u32)> {
    vec![
        (
            "vector_add.py",
            "add_kernel",
            "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
            4,
        ),
        (
            "vector_add.py",
            "add_kernel",
            "*fp16:16, *fp16:16, *fp16:16, i32, 2048",
            4,
        ),
        (
            "softmax.py",
            "softmax_kernel",
            "*fp16:16, *fp16:16, i32:16, i32:16, i32, 1024",
            4,
        ),
        (
            "softmax.py",
            "softmax_kernel",
            "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 8192",
            16,
        ),
    ]
}

#[test]
fn examples_compile_to_vectorized_ptx() {
    let k = compile_example("vector_add.py", "add_kernel", cases()[0].2, 4, 90);
    assert_eq!(k.ptx.matches("ld.global.v4.b32").count(), 4, "{}", k.ptx);
    let k = compile_example("softmax.py", "softmax_kernel", cases()[3].2, 16, 90);
    assert_eq!(k.ptx.matches("ld.global.v4.b32").count(), 4, "{}", k.ptx);
    assert!(k.ptx.contains("shfl.sync.bfly.b32"));
    assert!(!k.ptx.contains("__nv_"));
    // Line tables point at the Python source: `x = tl.load(…)` is line 30 of softmax.py.
    assert!(
        k.ptx.contains(".file\t1 \"examples/softmax.py\""),
        "{}",
        k.ptx
    );
    assert!(k.ptx.contains(".loc\t1 30 "), "{}", k.ptx);
}

#[test]
fn examples_assemble_with_ptxas() {
    let Some(ptxas) = Ptxas::locate(&workspace_root()) else {
        eprintln!("skipped: no ptxas at .tools/cuda/bin/ptxas and TRITONC_PTXAS unset");
        return;
    };
    for (file, kernel, sig, warps) in cases() {
        for sm in [80, 90] {
            let k = compile_example(file, kernel, sig, warps, sm);
            let report = ptxas
                .check(&k.ptx, &format!("sm_{sm}"))
                .unwrap_or_else(|e| panic!("{file} `{sig}` sm_{sm}: {e}"));
            eprintln!(
                "{file} `{sig}` sm_{sm}: {} registers",
                report.registers.unwrap_or(0)
            );
        }
    }
}

/// One reference fixture of `tests/fixtures/triton` (recorded from upstream Triton): an
/// example kernel with the signature and `num_warps` Triton compiled it with.
struct TritonFixture {
    stem: String,
    /// The file under `examples/`.
    file: String,
    kernel: String,
    signature: String,
    num_warps: u32,
}

/// Every kernel fixture (`FILE__KERNEL.json`), sorted by name.
fn triton_fixtures() -> Vec<TritonFixture> {
    let dir = workspace_root().join("tests/fixtures/triton");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fixture directory exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json") && p.to_string_lossy().contains("__")
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|path| {
            let fx: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).expect("readable"))
                    .expect("JSON");
            Some(TritonFixture {
                stem: path.file_stem()?.to_string_lossy().into_owned(),
                file: fx["file"]
                    .as_str()?
                    .trim_start_matches("examples/")
                    .to_string(),
                kernel: fx["kernel"].as_str()?.to_string(),
                signature: fx["signature"].as_str()?.to_string(),
                num_warps: fx["num_warps"].as_u64().unwrap_or(4) as u32,
            })
        })
        .collect()
}

/// Every example kernel of the Triton 3.6 fixtures compiles, for sm_80 and sm_90, to PTX
/// that ptxas accepts (when ptxas is installed), without a panic.
#[test]
fn every_example_compiles_for_sm80_and_sm90() {
    let fixtures = triton_fixtures();
    assert!(fixtures.len() >= 19, "the fixtures are there");
    let ptxas = Ptxas::locate(&workspace_root());
    let mut failures = Vec::new();
    for fx in &fixtures {
        let (stem, file, kernel, sig, warps) = (
            &fx.stem,
            fx.file.as_str(),
            fx.kernel.as_str(),
            fx.signature.as_str(),
            fx.num_warps,
        );
        for sm in [80, 90] {
            let outcome =
                std::panic::catch_unwind(|| try_compile_example(file, kernel, sig, warps, sm));
            match outcome {
                Err(_) => failures.push(format!("{stem} sm_{sm}: compiling panicked")),
                Ok(Err(e)) => failures.push(format!("{stem} sm_{sm}: {e}")),
                Ok(Ok(k)) => match &ptxas {
                    _ if std::env::var_os("TRITONC_DUMP_PTX").is_some() => {
                        let dir = std::path::PathBuf::from(
                            std::env::var_os("TRITONC_DUMP_PTX").expect("checked above"),
                        );
                        std::fs::write(dir.join(format!("{stem}.sm_{sm}.ptx")), &k.ptx)
                            .expect("the dump directory is writable");
                    }
                    Some(p) => match p.check(&k.ptx, &format!("sm_{sm}")) {
                        Ok(report) => eprintln!(
                            "{stem} sm_{sm}: {} registers, {} B shared{}",
                            report.registers.unwrap_or(0),
                            k.shared_bytes,
                            if k.dynamic_shared { " (dynamic)" } else { "" }
                        ),
                        Err(e) => failures.push(format!("{stem} sm_{sm}: {e}")),
                    },
                    None => eprintln!("{stem} sm_{sm}: PTX (no ptxas)"),
                },
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Example kernels saved as sm_90 goldens for the GPU check (`tests/gpu/check_golden.py`):
/// (golden stem, file, kernel, signature, num_warps). They cover loops with carried
/// blocks and scalars, scans across registers, lanes and warps, and FMA dots.
fn example_goldens() -> Vec<(&'static str, &'static str, &'static str, &'static str, u32)> {
    vec![
        (
            "example_cross_entropy",
            "cross_entropy.py",
            "cross_entropy_fwd_kernel",
            "*fp32:16, *i64:16, *fp32:16, *fp32:16, i32:16, i32, i32, 1024",
            4,
        ),
        (
            "example_layer_norm_bwd_dwdb",
            "layer_norm.py",
            "layer_norm_bwd_dwdb_kernel",
            "*fp32:16, *fp32:16, *fp16:16, *fp16:16, i32, i32:16, 32, 64",
            4,
        ),
        (
            "example_cumsum_i32",
            "cumsum.py",
            "cumsum_kernel",
            "*i32:16, *i64:16, i32:16, i32:16, i32, i32, 8, 512",
            4,
        ),
        (
            "example_cumsum_fp16",
            "cumsum.py",
            "cumsum_kernel",
            "*fp16:16, *fp32:16, i32, i32, i32, i32, 2, 2048",
            4,
        ),
        (
            "example_matmul_leaky_relu",
            "matmul.py",
            "matmul_kernel",
            "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 64, 64, 32, 8, 'leaky_relu'",
            4,
        ),
        (
            "example_flash_attention",
            "flash_attention.py",
            "attention_fwd_kernel",
            "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32, i32:16, 64, 128, 64, False",
            8,
        ),
    ]
}

#[test]
fn example_goldens_match() {
    for (stem, file, kernel, sig, warps) in example_goldens() {
        let k = compile_example(file, kernel, sig, warps, 90);
        crate::reference_kernels::check_golden(stem, &k.ptx);
    }
}

#[test]
fn loops_scans_and_dots_lower_to_the_expected_instructions() {
    // A loop over the vocabulary: one MLIR loop, reductions inside it.
    let k = compile_example(
        "cross_entropy.py",
        "cross_entropy_fwd_kernel",
        example_goldens()[0].3,
        4,
        90,
    );
    assert!(k.ptx.contains("shfl.sync.bfly.b32"), "{}", k.ptx);
    assert!(k.ptx.contains("bra"), "a loop branches back:\n{}", k.ptx);
    // cumsum of i64 over 512 columns in 4 warps, as Triton: lanes scan by shuffle-up
    // rounds (64-bit values in two halves), no butterfly; each warp's last lane writes
    // its total under a predicate, warps fold them after a barrier.
    let k = compile_example("cumsum.py", "cumsum_kernel", example_goldens()[2].3, 4, 90);
    assert!(k.ptx.contains("shfl.sync.up.b32"), "{}", k.ptx);
    assert!(!k.ptx.contains("shfl.sync.bfly"), "{}", k.ptx);
    assert!(
        k.ptx.lines().any(|l| l.trim_start().starts_with("@%p") && l.contains("st.shared.b64")),
        "{}",
        k.ptx
    );
    assert!(k.ptx.contains("bar.sync"), "{}", k.ptx);
    // A tensor-core dot on sm_90 (wgmma from swizzled shared memory), on sm_80
    // (mma.sync, fragments by ldmatrix); on sm_75, the FMA path: fp16 operands widened
    // exactly, one fma per product.
    let k = compile_example("matmul.py", "matmul_kernel", example_goldens()[4].3, 4, 90);
    assert!(k.ptx.contains("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), "{}", k.ptx);
    let k = compile_example("matmul.py", "matmul_kernel", example_goldens()[4].3, 4, 80);
    assert!(k.ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), "{}", k.ptx);
    assert!(k.ptx.contains("ldmatrix.sync.aligned"), "{}", k.ptx);
    assert!(!k.dynamic_shared);
    let k = compile_example("matmul.py", "matmul_kernel", example_goldens()[4].3, 4, 75);
    assert!(k.ptx.contains("fma.rn.f32"), "{}", k.ptx);
    assert!(k.ptx.contains("cvt.f32.f16"), "{}", k.ptx);
    // The 128x256 tile of the gelu variant needs more than 48 KiB of scratch: dynamic,
    // and erf comes from libdevice (a definition, not an extern).
    let sig = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 256, 64, 8, 'gelu'";
    if tritonc_codegen::locate_libdevice().is_some() {
        let k = compile_example("matmul.py", "matmul_kernel", sig, 8, 90);
        assert!(k.dynamic_shared && k.shared_bytes > 48 * 1024);
        assert!(
            k.ptx
                .contains(".extern .shared .align 16 .b8 tritonc_smem[]"),
            "{}",
            k.ptx
        );
        assert!(!k.ptx.contains(".extern .func"), "libdevice is linked");
        // The pointer blocks carried by the k loop keep their axis facts (init joined
        // with `ptrs + BLOCK_K * stride`): 16-byte copies of A and B (the loop is
        // pipelined: `cp.async` straight into shared memory).
        assert!(k.ptx.contains("cp.async.cg.shared.global"), "{}", k.ptx);
        assert!(k.ptx.contains(", 16, %r"), "{}", k.ptx);
    }
}

/// Test kernels of `tests/kernels/memory_ops.py`: (golden stem, kernel, signature, warps).
fn test_kernels() -> Vec<(&'static str, &'static str, &'static str, u32)> {
    vec![
        (
            "ops_histogram",
            "histogram_kernel",
            "*i32:16, *i32:16, *i32:16, i32, 1024",
            4,
        ),
        (
            "ops_flags",
            "flags_kernel",
            "*i1:16, *i8:16, *i1:16, *i8:16, i32, 256",
            4,
        ),
        (
            "ops_shapes",
            "shapes_kernel",
            "*fp32:16, *fp32:16, *fp32:16, 16, 32",
            4,
        ),
        (
            "ops_scans",
            "scans_kernel",
            "*fp32:16, *fp32:16, *fp32:16, 1024",
            4,
        ),
        (
            "ops_control",
            "control_kernel",
            "*fp32:16, *fp32:16, i32, i32, 512",
            4,
        ),
        (
            "ops_dot_f32",
            "dot_f32_kernel",
            "*fp32:16, *fp32:16, *fp32:16, *fp32:16, 32, 32, 16",
            4,
        ),
        (
            "ops_rtz",
            "rtz_kernel",
            "*fp32:16, *fp16:16, *bf16:16, 512",
            4,
        ),
    ]
}

fn compile_test_kernel(kernel: &str, sig: &str, warps: u32, sm: u32) -> CompiledKernel {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/memory_ops.py");
    let src = std::fs::read_to_string(path).expect("the test kernels are readable");
    compile_source("memory_ops.py", &src, kernel, sig, warps, sm)
        .unwrap_or_else(|e| panic!("{kernel} compiles: {e}"))
}

#[test]
fn atomics_bools_bytes_shapes_and_scans_assemble() {
    let ptxas = Ptxas::locate(&workspace_root());
    let update = std::env::var_os("TRITONC_UPDATE_GOLDEN").is_some();
    for (stem, kernel, sig, warps) in test_kernels() {
        for sm in [80, 90] {
            let k = compile_test_kernel(kernel, sig, warps, sm);
            if let Some(p) = &ptxas {
                p.check(&k.ptx, &format!("sm_{sm}"))
                    .unwrap_or_else(|e| panic!("{kernel} sm_{sm}: {e}"));
            }
            if sm != 90 {
                continue;
            }
            let path = crate::reference_kernels::golden_path(&format!("{stem}.ptx"));
            if update {
                std::fs::write(&path, &k.ptx).expect("golden written");
            } else {
                let golden = std::fs::read_to_string(&path).unwrap_or_else(|_| {
                    panic!(
                        "{} missing; run with TRITONC_UPDATE_GOLDEN=1",
                        path.display()
                    )
                });
                assert_eq!(
                    golden, k.ptx,
                    "{stem} PTX changed; rerun with TRITONC_UPDATE_GOLDEN=1"
                );
            }
        }
    }
    let k = compile_test_kernel("histogram_kernel", test_kernels()[0].2, 4, 90);
    assert!(
        k.ptx.contains("atom.global.acq_rel.gpu.add.u32"),
        "{}",
        k.ptx
    );
    // A TF32 dot: on sm_90 the tensor cores take the fp32 bits (as Triton's PTX); on the
    // FMA path (sm_75) the inputs are rounded with cvt.rna first.
    let k = compile_test_kernel("dot_f32_kernel", test_kernels()[5].2, 4, 90);
    assert!(k.ptx.contains("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), "{}", k.ptx);
    assert!(!k.ptx.contains("cvt.rna.tf32.f32"), "{}", k.ptx);
    let k = compile_test_kernel("dot_f32_kernel", test_kernels()[5].2, 4, 75);
    assert!(k.ptx.contains("cvt.rna.tf32.f32"), "{}", k.ptx);
    let k = compile_test_kernel("flags_kernel", test_kernels()[1].2, 4, 90);
    assert!(
        k.ptx.contains("ld.global") && k.ptx.contains(".b8"),
        "{}",
        k.ptx
    );
}

/// Every example kernel compiles for other warp counts too (layouts with replicated
/// lanes and warps, warps split differently), and ptxas accepts the PTX.
#[test]
fn every_example_compiles_for_other_warp_counts() {
    let ptxas = Ptxas::locate(&workspace_root());
    let mut failures = Vec::new();
    for fx in &triton_fixtures() {
        let (stem, file, kernel, sig, own) = (
            &fx.stem,
            fx.file.as_str(),
            fx.kernel.as_str(),
            fx.signature.as_str(),
            fx.num_warps,
        );
        for warps in [1, 8] {
            if warps == own {
                continue;
            }
            match std::panic::catch_unwind(|| try_compile_example(file, kernel, sig, warps, 90)) {
                Err(_) => failures.push(format!("{stem} num_warps={warps}: panicked")),
                Ok(Err(e)) => failures.push(format!("{stem} num_warps={warps}: {e}")),
                Ok(Ok(k)) => {
                    if let Some(p) = &ptxas {
                        if let Err(e) = p.check(&k.ptx, "sm_90") {
                            failures.push(format!("{stem} num_warps={warps}: {e}"));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn device_print_becomes_vprintf() {
    let k = compile_test_kernel("print_kernel", "*fp32:16, i32, 64", 1, 90);
    assert!(k.ptx.contains("vprintf"), "{}", k.ptx);
    // 64 elements over 32 lanes: 2 prints per thread, plus the scalar.
    // Format strings are byte arrays in PTX.
    let bytes = |text: &str| {
        text.bytes()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    assert!(
        k.ptx.contains(&bytes("pid (%u, %u, %u) idx (%u) x: %f\n")),
        "{}",
        k.ptx
    );
    assert!(k.ptx.contains(&bytes(" n is 100%%: %d\n")), "{}", k.ptx);
    if let Some(p) = Ptxas::locate(&workspace_root()) {
        for sm in [80, 90] {
            let k = compile_test_kernel("print_kernel", "*fp32:16, i32, 64", 1, sm);
            p.check(&k.ptx, &format!("sm_{sm}"))
                .unwrap_or_else(|e| panic!("print_kernel sm_{sm}: {e}"));
        }
    }
}

#[test]
fn fp8_conversions_need_sm89() {
    let sig = "*fp8e4nv:16, *fp8e5:16, *fp32:16, *fp32:16, *fp8e4nv:16, *fp8e5:16, 256";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/memory_ops.py");
    let src = std::fs::read_to_string(path).expect("the test kernels are readable");
    let err = compile_source("memory_ops.py", &src, "fp8_kernel", sig, 4, 80)
        .expect_err("sm_80 has no fp8 conversions");
    assert!(err.contains("needs sm_89"), "{err}");
    for sm in [89, 90] {
        let k = compile_source("memory_ops.py", &src, "fp8_kernel", sig, 4, sm)
            .unwrap_or_else(|e| panic!("fp8 for sm_{sm}: {e}"));
        assert!(k.ptx.contains("cvt.rn.satfinite.e4m3x2.f32"), "{}", k.ptx);
        assert!(k.ptx.contains("cvt.rn.f16x2.e5m2x2"), "{}", k.ptx);
        if let Some(p) = Ptxas::locate(&workspace_root()) {
            p.check(&k.ptx, &format!("sm_{sm}"))
                .unwrap_or_else(|e| panic!("fp8_kernel sm_{sm}: {e}"));
        }
        if sm == 90 {
            let path = crate::reference_kernels::golden_path("ops_fp8.ptx");
            if std::env::var_os("TRITONC_UPDATE_GOLDEN").is_some() {
                std::fs::write(&path, &k.ptx).expect("golden written");
            } else {
                let golden = std::fs::read_to_string(&path).expect("ops_fp8.ptx exists");
                assert_eq!(
                    golden, k.ptx,
                    "ops_fp8 PTX changed; rerun with TRITONC_UPDATE_GOLDEN=1"
                );
            }
        }
    }
}

/// Layout and arithmetic choices that decide two memory-bound kernels' speed, checked
/// against the instruction mix of Triton 3.6's PTX for the same specialization
/// (docs/backend-report.md).
#[test]
fn rotary_and_dropout_match_tritons_instruction_mix() {
    // rotary: the 64-element cos/sin rows are loaded straight into the tile's slice
    // layout (8 fp32 per thread: 2 × 2 unpredicated 128-bit loads), as Triton does, not
    // one element per thread and then through shared memory.
    let rope = compile_example(
        "rotary.py",
        "rope_kernel",
        "*fp16:16, *fp32:16, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 16",
        4,
        90,
    );
    let count = |ptx: &str, needle: &str| ptx.matches(needle).count();
    assert_eq!(count(&rope.ptx, "bar.sync"), 0, "{}", rope.ptx);
    assert_eq!(count(&rope.ptx, "ld.shared"), 0);
    assert_eq!(count(&rope.ptx, "\tld.global.v4.b32"), 4, "unpredicated");
    // dropout: Philox multiplies its counter (an arange) by round constants; one
    // multiply per thread plus constant adds for the other registers, as in Triton's PTX
    // (106 `mul.lo.s32`; one multiply per register would be 113).
    let dropout = compile_example(
        "dropout.py",
        "dropout_kernel",
        "*fp32:16, *fp32:16, i32:16, fp32, i32, 1024",
        4,
        90,
    );
    assert_eq!(count(&dropout.ptx, "mul.lo.s32"), 106);
}

/// LayerNorm backward (dx) accumulates `dw`/`db` over rows in a loop and stores them after
/// it: the loop carries the layout of the loaded rows and the stores adapt to it, so no
/// loaded row moves through shared memory inside the loop (the only shared memory is the
/// two row sums' cross-warp scratch), as in Triton's kernel.
#[test]
fn loop_accumulators_are_stored_in_the_layout_the_loop_carries() {
    let k = compile_example(
        "layer_norm.py",
        "layer_norm_bwd_dx_kernel",
        "*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, 64, 8192",
        8,
        90,
    );
    // Two cross-warp sums of 8 warps' f32 partials, not 8192-element conversions.
    assert!(k.shared_bytes <= 256, "shared bytes: {}", k.shared_bytes);
    // Every store is 128-bit: 8192 elements over 256 threads are 32 per thread, so the
    // fp16 `dx` row is 4 stores and each f32 partial-sum row 8.
    assert_eq!(
        k.ptx.matches("st.global.v4.b32").count(),
        4 + 8 + 8,
        "{}",
        k.ptx
    );
    assert_eq!(k.ptx.matches("st.global").count(), 20);
}

/// `tl.abs` on bf16 clears the sign bit (Triton emits `math.absf` on bf16 too).
#[test]
fn abs_of_bf16_clears_the_sign_bit() {
    let src = "import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.abs(tl.load(x_ptr + r)))
";
    let k = compile_source("abs.py", src, "kernel", "*bf16:16, *bf16:16, 64", 4, 80)
        .expect("bf16 abs compiles");
    let words = k.ptx.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("and.b16") && words.contains("32767;"), "{}", k.ptx);
}
