//! `tritonc run`/`verify` over bundles for AMD GPUs, through the binary. There is no AMD
//! GPU where these run: a build with the `hip` feature must say so with exit 3, a build
//! without it must name the feature with exit 4. Which build this is, the runtime says
//! (the test and the binary share its features).

mod common;

use std::path::{Path, PathBuf};

use common::{tritonc_in, Outcome};
use tritonc_bundle::{
    Bundle, BundleMeta, ConstValue, HiddenParam, HiddenParamKind, ParamAbi, ParamRole,
    PtxParamKind, AMD_FORMAT_VERSION,
};
use tritonc_ir::DType;
use tritonc_runtime::Backend;
use tritonc_sema::spec::KeyArg;
use tritonc_sema::{SpecializationKey, Target};

/// A gfx942 code object of `add_kernel` as upstream Triton 3.6 builds it (see
/// crates/tritonc-bundle/tests/bundle.rs).
const GFX942_ADD_KERNEL: &[u8] =
    include_bytes!("../../tritonc-bundle/tests/fixtures/add_kernel.gfx942.hsaco");

/// A bundle directory holding `add_kernel` of examples/vector_add.py for gfx942.
fn amd_bundle_dir(name: &str) -> PathBuf {
    let ptr = |index| ParamRole::Passed {
        index,
        kind: PtxParamKind::Pointer {
            pointee: DType::F32,
            align: 16,
        },
    };
    let params = [
        ("x_ptr", ptr(0), "*fp32:16"),
        ("y_ptr", ptr(1), "*fp32:16"),
        ("out_ptr", ptr(2), "*fp32:16"),
        (
            "n_elements",
            ParamRole::Passed {
                index: 3,
                kind: PtxParamKind::Scalar {
                    dtype: DType::I32,
                    divisibility: None,
                },
            },
            "i32",
        ),
        (
            "BLOCK_SIZE",
            ParamRole::Constexpr(ConstValue::Int(1024)),
            "1024",
        ),
    ];
    let key = SpecializationKey {
        kernel: "add_kernel".into(),
        args: params
            .iter()
            .map(|(n, _, s)| KeyArg {
                name: n.to_string(),
                spec: s.to_string(),
            })
            .collect(),
        num_warps: 4,
        num_stages: 3,
        target: Target::cuda(90),
        debug: false,
        triton_version: Default::default(),
    };
    let bundle = Bundle {
        meta: BundleMeta {
            format_version: AMD_FORMAT_VERSION,
            entry: "add_kernel".into(),
            target: "gfx942".into(),
            key_hash: key.hash_hex(),
            key,
            num_warps: 4,
            dynamic_shared_bytes: 0,
            static_shared_bytes: 0,
            params: params
                .into_iter()
                .map(|(n, role, _)| ParamAbi {
                    name: n.into(),
                    role,
                })
                .collect(),
            // Triton's AMD kernels end with the global and profile scratch pointers.
            hidden_params: [4, 5]
                .map(|index| HiddenParam {
                    index,
                    kind: HiddenParamKind::GlobalScratch {
                        bytes_per_program: 0,
                        align: 1,
                    },
                })
                .to_vec(),
            reduction_layouts: None,
            ptxas: None,
            min_driver_version: None,
        },
        ptx: String::new(),
        cubin: Some(GFX942_ADD_KERNEL.to_vec()),
    };
    let dir = std::env::temp_dir().join(format!("tritonc-amd-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    bundle
        .write_dir(&dir.join(bundle.dir_name()))
        .expect("bundle written");
    dir
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check_no_amd_gpu(o: &Outcome) {
    if Backend::Hip.is_built() {
        assert_eq!(o.code, 3, "{}", o.stderr);
        assert!(o.stderr.contains("E0592"), "{}", o.stderr);
        assert!(
            o.stderr.contains("no AMD GPU / HIP runtime found"),
            "{}",
            o.stderr
        );
    } else {
        assert_eq!(o.code, 4, "{}", o.stderr);
        assert!(o.stderr.contains("E0590"), "{}", o.stderr);
        assert!(
            o.stderr.contains("target AMD GPUs (gfx942)"),
            "{}",
            o.stderr
        );
        assert!(o.stderr.contains("`hip` cargo feature"), "{}", o.stderr);
    }
    assert!(!o.stderr.contains("NVIDIA"), "{}", o.stderr);
}

#[test]
fn run_over_amd_bundles_picks_the_amd_launcher() {
    let dir = amd_bundle_dir("run");
    let o = tritonc_in(
        &root(),
        &[
            "run",
            "examples/vector_add.toml",
            "--bundle",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    check_no_amd_gpu(&o);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_over_amd_bundles_picks_the_amd_launcher() {
    let dir = amd_bundle_dir("verify");
    let o = tritonc_in(
        &root(),
        &[
            "verify",
            "examples/vector_add.toml",
            "--bundle",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    check_no_amd_gpu(&o);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// tritonc's own AMD back end: `tritonc compile --target gfx90a|gfx942`.
// ---------------------------------------------------------------------------------------

/// One fixture of scripts/triton_amd_reference.py: a kernel, its specialization, and what
/// upstream Triton 3.6 built for it.
struct TritonAmd {
    what: String,
    file: String,
    kernel: String,
    signature: String,
    num_warps: u64,
    arch: String,
    /// `.args` of Triton's code object: (offset, size, value kind, address space).
    args: Vec<(u64, u64, String, String)>,
    kernarg_bytes: u64,
}

fn triton_amd_fixtures() -> Vec<TritonAmd> {
    let out = fixtures_in("tests/fixtures/triton_amd");
    assert!(out.len() >= 12, "fixtures missing: {}", out.len());
    out
}

/// The fixtures (`*.json`) of one directory, with their parsed JSON.
fn fixtures_in(dir: &str) -> Vec<TritonAmd> {
    fixture_values(dir).into_iter().map(|(fx, _)| fx).collect()
}

fn fixture_values(dir: &str) -> Vec<(TritonAmd, serde_json::Value)> {
    let dir = root().join(dir);
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("JSON");
        let s = |k: &str| v[k].as_str().expect("string").to_string();
        let meta = &v["metadata"];
        let fx = TritonAmd {
            what: path.file_stem().unwrap().to_string_lossy().into_owned(),
            file: s("file"),
            kernel: s("kernel"),
            signature: s("signature"),
            num_warps: v["num_warps"].as_u64().expect("num_warps"),
            arch: s("arch"),
            args: meta["args"]
                .as_array()
                .expect("args")
                .iter()
                .map(|a| {
                    (
                        a["offset"].as_u64().expect("offset"),
                        a["size"].as_u64().expect("size"),
                        a["value_kind"].as_str().expect("kind").to_string(),
                        a["address_space"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect(),
            kernarg_bytes: meta["kernarg_segment_size"].as_u64().expect("kernarg size"),
        };
        out.push((fx, v));
    }
    out
}

/// Compiles the fixture's kernel with tritonc into `dir`; returns the bundle directory.
fn compile_amd(fx: &TritonAmd, dir: &Path) -> PathBuf {
    let warps = fx.num_warps.to_string();
    let o = tritonc_in(
        &root(),
        &[
            "compile",
            &fx.file,
            "--kernel",
            &fx.kernel,
            "--target",
            &fx.arch,
            "--signature",
            &fx.signature,
            "--num-warps",
            &warps,
            "-o",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    assert_eq!(o.code, 0, "{}: {}", fx.what, o.stderr);
    let bundles: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("output dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(bundles.len(), 1, "{}: {bundles:?}", fx.what);
    bundles.into_iter().next().unwrap()
}

/// `.args` of the first kernel of a code object, from `llvm-readelf --notes`.
fn code_object_args(hsaco: &Path) -> (Vec<(u64, u64, String, String)>, u64) {
    let out = std::process::Command::new("llvm-readelf-22")
        .arg("--notes")
        .arg(hsaco)
        .output()
        .expect("llvm-readelf-22 runs (Debian's llvm-22)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut args: Vec<(u64, u64, String, String)> = Vec::new();
    let mut kernarg = 0;
    let mut in_args = false;
    for raw in text.lines() {
        let line = raw.trim();
        let indent = raw.len() - raw.trim_start().len();
        if line.starts_with(".args:") {
            in_args = true;
            continue;
        }
        let (dash, body) = match line.strip_prefix("- ") {
            Some(b) => (true, b),
            None => (false, line),
        };
        let Some((key, value)) = body.strip_prefix('.').and_then(|b| b.split_once(':')) else {
            continue;
        };
        let value = value.trim();
        if in_args && indent >= 6 {
            if dash {
                args.push((0, 0, String::new(), String::new()));
            }
            let a = args.last_mut().expect("an argument");
            match key {
                "offset" => a.0 = value.parse().expect("offset"),
                "size" => a.1 = value.parse().expect("size"),
                "value_kind" => a.2 = value.to_string(),
                "address_space" => a.3 = value.to_string(),
                _ => {}
            }
            continue;
        }
        in_args = false;
        if key == "kernarg_segment_size" {
            kernarg = value.parse().expect("kernarg size");
        }
    }
    (args, kernarg)
}

/// Every memory-bound example and Triton tutorial kernel compiles for gfx90a and gfx942,
/// and its code object's kernel-argument metadata (offsets, sizes, kinds, address spaces,
/// hidden arguments included) and kernarg size are those of the code object upstream
/// Triton 3.6 builds for the same kernel and specialization.
#[test]
fn amd_code_objects_have_tritons_kernel_argument_metadata() {
    for fx in triton_amd_fixtures() {
        let dir = std::env::temp_dir().join(format!(
            "tritonc-amd-meta-{}-{}",
            std::process::id(),
            fx.what
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let bundle = compile_amd(&fx, &dir);
        let meta: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(bundle.join("bundle.json")).expect("bundle.json"),
        )
        .expect("JSON");
        assert_eq!(meta["format_version"], AMD_FORMAT_VERSION, "{}", fx.what);
        assert_eq!(meta["target"], fx.arch.as_str(), "{}", fx.what);
        let (args, kernarg) = code_object_args(&bundle.join("kernel.hsaco"));
        assert_eq!(args, fx.args, "{}: kernel arguments", fx.what);
        assert_eq!(kernarg, fx.kernarg_bytes, "{}: kernarg size", fx.what);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The code objects disassemble with `llvm-objdump --mcpu=ARCH`: every instruction is one
/// the processor has, a reduction crosses lanes, and the kernel ends.
#[test]
fn amd_code_objects_disassemble_for_their_processor() {
    for fx in triton_amd_fixtures() {
        let dir = std::env::temp_dir().join(format!(
            "tritonc-amd-dis-{}-{}",
            std::process::id(),
            fx.what
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let bundle = compile_amd(&fx, &dir);
        let out = std::process::Command::new("llvm-objdump-22")
            .args(["-d", &format!("--mcpu={}", fx.arch)])
            .arg(bundle.join("kernel.hsaco"))
            .output()
            .expect("llvm-objdump-22 runs (Debian's llvm-22)");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: {}",
            fx.what,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains(&format!("<{}>:", fx.kernel)),
            "{}: no kernel symbol",
            fx.what
        );
        assert!(text.contains("s_endpgm"), "{}", fx.what);
        assert!(
            !text.contains("<unknown>"),
            "{}: undecodable words\n{text}",
            fx.what
        );
        assert!(text.contains("global_load"), "{}: no global load", fx.what);
        if fx.kernel != "add_kernel" {
            // Row reductions over 64 lanes: the partner lane's value comes through
            // ds_swizzle/ds_bpermute (or DPP).
            assert!(
                text.contains("ds_swizzle")
                    || text.contains("ds_bpermute")
                    || text.contains("row_"),
                "{}: no cross-lane op",
                fx.what
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `--emit amdgcn` prints the assembly of a code-object-v5 kernel for the processor;
/// PTX is not a stage of an AMD target, nor AMDGCN of an NVIDIA one.
#[test]
fn emit_amdgcn_and_the_stages_of_each_vendor() {
    let args = |target: &str, emit: &str| {
        tritonc_in(
            &root(),
            &[
                "compile",
                "examples/softmax.py",
                "--target",
                target,
                "--signature",
                "*fp16:16, *fp16:16, i32, i32, i32, 1024",
                "--emit",
                emit,
            ],
        )
    };
    let o = args("gfx942", "amdgcn");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\""),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains(".amdhsa_code_object_version 5"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("v_exp_f32"), "{}", o.stdout);
    let o = args("gfx90a", "llir");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("amdgpu_kernel void @softmax_kernel"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("\"amdgpu-flat-work-group-size\"=\"1,256\""),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("amdhsa_code_object_version\", i32 500"),
        "{}",
        o.stdout
    );
    let o = args("gfx942", "ttgir");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("\"ttg.threads-per-warp\" = 64 : i32"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("\"ttg.target\" = \"hip:gfx942\""),
        "{}",
        o.stdout
    );
    for (target, emit) in [("gfx942", "ptx"), ("gfx90a", "cubin"), ("sm_90", "amdgcn")] {
        let o = args(target, emit);
        assert_eq!(o.code, 2, "{target} {emit}: {}", o.stderr);
        assert!(o.stderr.contains("is not a stage of"), "{}", o.stderr);
    }
}

/// A kernel the AMD back end cannot lower yet is refused at its span with the reason:
/// fp8 conversions are NVIDIA inline assembly here.
#[test]
fn nvidia_only_ops_are_refused_for_amd_at_their_span() {
    let dir = std::env::temp_dir().join(format!("tritonc-amd-refuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("k.py"),
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n\
         def k(x_ptr, y_ptr):\n    offs = tl.arange(0, 64)\n    x = tl.load(x_ptr + offs)\n    \
         tl.store(y_ptr + offs, x.to(tl.float8e5))\n",
    )
    .expect("kernel");
    let o = tritonc_in(
        &dir,
        &[
            "compile",
            "k.py",
            "--target",
            "gfx942",
            "--signature",
            "*fp32:16, *fp8e5:16",
            "-o",
            "out",
        ],
    );
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(
        o.stderr.contains("the AMD back end cannot compile `k`"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("no AMD lowering yet"), "{}", o.stderr);
    assert!(o.stderr.contains("k.py:9"), "{}", o.stderr);
    // Device assertions in debug mode likewise, at the assert.
    let o = tritonc_in(
        &root(),
        &[
            "compile",
            "--spec",
            "examples/debug_assert.toml",
            "--target",
            "gfx942",
            "-o",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("`tl.device_assert` in debug mode has no AMD lowering yet"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("debug_assert.py:"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bundle tritonc compiled for gfx942 goes to the HIP launcher, which loads it as far as
/// a machine without an AMD GPU allows (exit 3; exit 4 in a build without `hip`).
#[test]
fn run_over_a_tritonc_amd_bundle_picks_the_amd_launcher() {
    let dir = std::env::temp_dir().join(format!("tritonc-amd-own-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = tritonc_in(
        &root(),
        &[
            "compile",
            "--spec",
            "examples/vector_add.toml",
            "--target",
            "gfx942",
            "-o",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = tritonc_in(
        &root(),
        &[
            "run",
            "examples/vector_add.toml",
            "--bundle",
            dir.to_str().expect("utf-8 temp dir"),
        ],
    );
    check_no_amd_gpu(&o);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A block of more threads than the target allows is refused when it compiles (E0509,
/// exit 2), exactly where upstream Triton 3.6's code object would not hold the block its
/// launcher starts (tests/fixtures/triton_amd_block_limit.json, from
/// scripts/triton_amd_block_limit.py: `num_warps * 64` threads against the code
/// object's `.max_flat_workgroup_size`); every other warp count compiles.
#[test]
fn more_warps_than_an_amd_block_holds_are_refused_as_tritons_code_object_would_not_launch() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/triton_amd_block_limit.json"))
        .expect("fixture");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let rows = v["rows"].as_array().expect("rows");
    assert!(rows.len() >= 12, "{rows:?}");
    let mut refused = 0;
    for row in rows {
        let arch = row["arch"].as_str().expect("arch");
        let warps = row["num_warps"].as_u64().expect("num_warps").to_string();
        let launch = row["launch_threads"].as_u64().expect("threads");
        let holds = row["max_flat_workgroup_size"].as_u64().expect("Triton compiled it");
        let dir = std::env::temp_dir().join(format!(
            "tritonc-amd-warps-{}-{arch}-{warps}",
            std::process::id()
        ));
        let o = tritonc_in(
            &root(),
            &[
                "compile",
                v["file"].as_str().expect("file"),
                "--kernel",
                v["kernel"].as_str().expect("kernel"),
                "--target",
                arch,
                "--signature",
                v["signature"].as_str().expect("signature"),
                "--num-warps",
                &warps,
                "--no-cache",
                "-o",
                dir.to_str().expect("utf-8 temp dir"),
            ],
        );
        let _ = std::fs::remove_dir_all(&dir);
        if launch <= holds {
            assert_eq!(o.code, 0, "{arch} num_warps={warps}: {}", o.stderr);
        } else {
            refused += 1;
            assert_eq!(o.code, 2, "{arch} num_warps={warps}: {}", o.stderr);
            assert!(
                o.stderr.contains("E0509")
                    && o.stderr.contains(&format!("{launch} threads on {arch}"))
                    && o.stderr.contains("at most 16 warps"),
                "{}",
                o.stderr
            );
        }
    }
    assert_eq!(refused, 2, "num_warps=32 on both processors");
}

/// The same limit on a variant whose warps come from an autotune config (not the command
/// line): checked by the back end before it builds anything, at the kernel.
#[test]
fn an_autotune_config_with_more_warps_than_an_amd_block_holds_is_refused() {
    let dir = std::env::temp_dir().join(format!("tritonc-amd-tuned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let kernel = dir.join("tuned.py");
    std::fs::write(
        &kernel,
        "import triton\nimport triton.language as tl\n\n\n\
         @triton.autotune(configs=[triton.Config({'BLOCK': 1024}, num_warps=8),\n\
         \x20                         triton.Config({'BLOCK': 2048}, num_warps=32)], key=['n'])\n\
         @triton.jit\n\
         def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n\
         \x20   offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n\
         \x20   tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n",
    )
    .expect("kernel written");
    let out = dir.join("out");
    let args = |target: &'static str| {
        [
            "compile".to_string(),
            kernel.display().to_string(),
            "--target".into(),
            target.into(),
            "--signature".into(),
            "*fp32:16, *fp32:16, i32".into(),
            "--no-cache".into(),
            "-o".into(),
            out.display().to_string(),
        ]
    };
    let run = |target| {
        let a = args(target);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        tritonc_in(&dir, &refs)
    };
    let o = run("gfx942");
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("E0509") && o.stderr.contains("`num_warps = 32` for `copy`"),
        "{}",
        o.stderr
    );
    // 32 warps of 32 lanes: within an NVIDIA block.
    let o = run("sm_90");
    assert_eq!(o.code, 0, "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// `tl.dot` on AMD's matrix cores, against scripts/triton_amd_dot_reference.py's fixtures.
// ---------------------------------------------------------------------------------------

fn dot_fixtures() -> Vec<(TritonAmd, serde_json::Value)> {
    let out = fixture_values("tests/fixtures/triton_amd_dot");
    assert!(out.len() >= 30, "fixtures missing: {}", out.len());
    out
}

fn u32s(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_u64().expect("a number") as u32)
        .collect()
}

fn bases(v: &serde_json::Value) -> Vec<Vec<u64>> {
    v.as_array()
        .expect("bases")
        .iter()
        .map(|b| {
            b.as_array()
                .expect("a basis")
                .iter()
                .map(|x| x.as_u64().expect("a number"))
                .collect()
        })
        .collect()
}

/// Triton's `#ttg.amd_mfma` of a fixture.
fn tritons_mfma(v: &serde_json::Value) -> tritonc_ir::MfmaLayout {
    let m = &v["mfma"];
    tritonc_ir::MfmaLayout {
        version: m["version"].as_u64().expect("version") as u32,
        warps_per_cta: u32s(&m["warps_per_cta"]),
        instr_shape: u32s(&m["instr_shape"]),
        is_transposed: m["is_transposed"].as_bool().expect("isTransposed"),
    }
}

/// Whether tritonc takes a different instruction than Triton here, on purpose: an fp32
/// dot asking for `tf32` (Triton's `*_xf32` on gfx942) runs on the exact fp32
/// instruction (crates/tritonc-ttgir/src/accelerate_amd.rs says why).
fn xf32(v: &serde_json::Value) -> bool {
    v["signature"].as_str().is_some_and(|s| s.contains("'tf32'"))
}

/// The MFMA accumulator layout and both operand layouts have, on every fixture's shapes,
/// the register, lane and warp bases Triton 3.6's `to_linear_layout` gives them: the
/// per-thread addresses codegen reads operand fragments at and the registers the
/// instructions fill are these bases.
#[test]
fn mfma_linear_layouts_are_tritons() {
    for (fx, v) in dot_fixtures() {
        let mfma = tritons_mfma(&v);
        let m = &v["mfma"];
        let shape = |k: &str| -> Vec<u64> {
            u32s(&m[k]).into_iter().map(u64::from).collect()
        };
        let kw = m["k_width"].as_u64().expect("kWidth");
        assert_eq!(mfma.k_width(), kw, "{}", fx.what);
        for (name, got) in [
            ("acc", mfma.to_linear(&shape("c_shape"))),
            ("a", mfma.operand_linear(0, kw, &shape("a_shape"))),
            ("b", mfma.operand_linear(1, kw, &shape("b_shape"))),
        ] {
            let got = got.unwrap_or_else(|e| panic!("{}: {name}: {e}", fx.what));
            let want = &v["linear"][name];
            assert_eq!(got.registers, bases(&want["registers"]), "{}: {name} registers", fx.what);
            assert_eq!(got.lanes, bases(&want["lanes"]), "{}: {name} lanes", fx.what);
            assert_eq!(got.warps, bases(&want["warps"]), "{}: {name} warps", fx.what);
        }
    }
}

/// tritonc chooses Triton's `#ttg.amd_mfma` (version, warps, instruction, transposition)
/// for every fixture's dot and prints it as Triton does in `--emit ttgir`.
#[test]
fn mfma_layouts_are_chosen_as_triton_chooses_them() {
    for (fx, v) in dot_fixtures() {
        let warps = fx.num_warps.to_string();
        let o = tritonc_in(
            &root(),
            &[
                "compile", &fx.file, "--kernel", &fx.kernel, "--target", &fx.arch,
                "--signature", &fx.signature, "--num-warps", &warps, "--emit", "ttgir",
            ],
        );
        assert_eq!(o.code, 0, "{}: {}", fx.what, o.stderr);
        let mut want = tritons_mfma(&v);
        if xf32(&v) {
            want.instr_shape = vec![32, 32, 2];
        }
        assert!(
            o.stdout.contains(&format!("#mma = {want}")),
            "{}: expected {want} in\n{}",
            fx.what,
            o.stdout
        );
        assert!(o.stdout.contains("-> tensor<"), "{}", fx.what);
    }
}

/// Every fixture's code object disassembles (`llvm-objdump --mcpu=ARCH`) with as many
/// `v_mfma_*` of each kind as Triton 3.6's, and has Triton's kernel-argument metadata.
#[test]
fn mfma_dots_issue_tritons_matrix_instructions() {
    for (fx, v) in dot_fixtures() {
        let dir = std::env::temp_dir().join(format!(
            "tritonc-amd-mfma-{}-{}",
            std::process::id(),
            fx.what
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let bundle = compile_amd(&fx, &dir);
        let out = std::process::Command::new("llvm-objdump-22")
            .args(["-d", &format!("--mcpu={}", fx.arch)])
            .arg(bundle.join("kernel.hsaco"))
            .output()
            .expect("llvm-objdump-22 runs (Debian's llvm-22)");
        assert!(out.status.success(), "{}", fx.what);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("<unknown>"), "{}: undecodable words", fx.what);
        let mut got = std::collections::BTreeMap::new();
        for line in text.lines() {
            if let Some(m) = line.split_whitespace().next().filter(|m| m.starts_with("v_mfma")) {
                *got.entry(m.to_string()).or_insert(0u64) += 1;
            }
        }
        let mut want: std::collections::BTreeMap<String, u64> = v["amdgcn"]
            .as_object()
            .expect("counts")
            .iter()
            .filter(|(k, _)| k.starts_with("v_mfma"))
            .map(|(k, n)| (k.clone(), n.as_u64().expect("count")))
            .collect();
        assert!(!want.is_empty(), "{}: Triton's code has no MFMA", fx.what);
        if xf32(&v) {
            // Twice the exact fp32 instructions (K = 2) for the xf32 ones (K = 4).
            want = want
                .into_values()
                .map(|n| ("v_mfma_f32_32x32x2_f32".to_string(), 2 * n))
                .collect();
        }
        assert_eq!(got, want, "{}: v_mfma counts", fx.what);
        let (args, kernarg) = code_object_args(&bundle.join("kernel.hsaco"));
        assert_eq!(args, fx.args, "{}: kernel arguments", fx.what);
        assert_eq!(kernarg, fx.kernarg_bytes, "{}: kernarg size", fx.what);
        // The LDS requested at launch holds the larger operand as it is staged: rows of
        // K + kWidth elements (K where that would not fit), M of them for A and N for B.
        let meta: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(bundle.join("bundle.json")).expect("bundle.json"),
        )
        .expect("JSON");
        let m = &v["mfma"];
        let (a, b) = (u32s(&m["a_shape"]), u32s(&m["b_shape"]));
        // (The exact fp32 instruction tritonc takes for `tf32` has kWidth 1.)
        let kw = if xf32(&v) { 1 } else { m["k_width"].as_u64().expect("kWidth") };
        let elem = if fx.signature.starts_with("*fp32") {
            4
        } else if fx.signature.starts_with("*i8") {
            1
        } else {
            2
        };
        let rows = u64::from(a[0].max(b[1]));
        let mut staged = rows * (u64::from(a[1]) + kw) * elem;
        if staged > 65536 {
            // Unpadded where padding would not fit.
            staged = rows * u64::from(a[1]) * elem;
        }
        let lds = meta["dynamic_shared_bytes"].as_u64().expect("LDS bytes");
        assert!(lds >= staged, "{}: {lds} bytes of LDS for {staged} staged", fx.what);
        assert!(lds <= 65536, "{}: {lds} bytes of LDS", fx.what);
        // The LDS requested at launch holds the larger operand as it is staged: rows of
        // K + kWidth elements (K where that would not fit), M of them for A and N for B.
        let meta: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(bundle.join("bundle.json")).expect("bundle.json"),
        )
        .expect("JSON");
        let m = &v["mfma"];
        let (a, b) = (u32s(&m["a_shape"]), u32s(&m["b_shape"]));
        // (The exact fp32 instruction tritonc takes for `tf32` has kWidth 1.)
        let kw = if xf32(&v) { 1 } else { m["k_width"].as_u64().expect("kWidth") };
        let elem = if fx.signature.starts_with("*fp32") {
            4
        } else if fx.signature.starts_with("*i8") {
            1
        } else {
            2
        };
        let rows = u64::from(a[0].max(b[1]));
        let mut staged = rows * (u64::from(a[1]) + kw) * elem;
        if staged > 65536 {
            // Unpadded where padding would not fit.
            staged = rows * u64::from(a[1]) * elem;
        }
        let lds = meta["dynamic_shared_bytes"].as_u64().expect("LDS bytes");
        assert!(lds >= staged, "{}: {lds} bytes of LDS for {staged} staged", fx.what);
        assert!(lds <= 65536, "{}: {lds} bytes of LDS", fx.what);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Dots the matrix cores do not take here stay on the FMA path and compile: blocks below
/// a 16×16 instruction (Triton's 64×4 and 4×4 ones), and a chain of two dots (attention's
/// shape); no `#ttg.amd_mfma`, no `v_mfma`.
#[test]
fn dots_off_the_matrix_cores_keep_the_fma_path() {
    let dir = std::env::temp_dir().join(format!("tritonc-amd-fma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("k.py"),
        "import triton\nimport triton.language as tl\n\n\n\
         @triton.jit\n\
         def tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,\n\
         \x20        HALF: tl.constexpr):\n\
         \x20   m = tl.arange(0, M)\n\
         \x20   n = tl.arange(0, N)\n\
         \x20   k = tl.arange(0, K)\n\
         \x20   a = tl.load(a_ptr + m[:, None] * K + k[None, :])\n\
         \x20   b = tl.load(b_ptr + k[:, None] * N + n[None, :])\n\
         \x20   if HALF:\n\
         \x20       c = tl.dot(a, b, out_dtype=tl.float16)\n\
         \x20   else:\n\
         \x20       c = tl.dot(a, b)\n\
         \x20   tl.store(c_ptr + m[:, None] * N + n[None, :], c)\n\n\n\
         @triton.jit\n\
         def chain(q_ptr, k_ptr, v_ptr, o_ptr, D: tl.constexpr):\n\
         \x20   r = tl.arange(0, D)\n\
         \x20   q = tl.load(q_ptr + r[:, None] * D + r[None, :])\n\
         \x20   k = tl.load(k_ptr + r[:, None] * D + r[None, :])\n\
         \x20   v = tl.load(v_ptr + r[:, None] * D + r[None, :])\n\
         \x20   p = tl.dot(q, k).to(tl.float16)\n\
         \x20   tl.store(o_ptr + r[:, None] * D + r[None, :], tl.dot(p, v))\n",
    )
    .expect("kernel");
    for (kernel, signature) in [
        ("tile", "*fp16:16, *fp16:16, *fp16:16, 64, 8, 16, True"),
        ("tile", "*fp16:16, *fp16:16, *fp32:16, 8, 8, 16, False"),
        ("chain", "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 32"),
    ] {
        for arch in ["gfx942", "gfx90a"] {
            let o = tritonc_in(
                &dir,
                &[
                    "compile", "k.py", "--kernel", kernel, "--target", arch, "--signature",
                    signature, "--emit", "ttgir,amdgcn", "--no-cache",
                ],
            );
            assert_eq!(o.code, 0, "{kernel} {signature} {arch}: {}", o.stderr);
            assert!(o.stdout.contains("tt.dot"), "{kernel} {signature}");
            assert!(!o.stdout.contains("amd_mfma"), "{kernel} {signature} {arch}");
            assert!(!o.stdout.contains("v_mfma"), "{kernel} {signature} {arch}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
