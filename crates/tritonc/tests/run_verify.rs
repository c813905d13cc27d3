//! `tritonc run`, `tritonc verify` and the back-end stages of `tritonc compile`, end to
//! end through the binary. GPU launches are not exercised here (CI has no GPU): the
//! interpreter stands in, and without a driver `run` must say so with exit 3.

mod common;
#[path = "run_verify/tune.rs"]
mod tune;

use std::path::{Path, PathBuf};

use common::{tritonc_in, Outcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tritonc(args: &[&str]) -> Outcome {
    tritonc_in(&root(), args)
}

/// The stdout of `tritonc ARGS EXTRA`, which must succeed.
fn succeeding(args: &[&str], extra: &[&str]) -> String {
    let all: Vec<&str> = args.iter().chain(extra).copied().collect();
    let o = tritonc(&all);
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.stdout
}

const PLANTED: &str = "crates/tritonc-verify/tests/fixtures";

#[test]
fn run_interpret_prints_a_summary_per_output_and_saves_npy() {
    let dir = std::env::temp_dir().join(format!("tritonc-run-save-{}", std::process::id()));
    let o = tritonc(&[
        "run",
        "examples/vector_add.toml",
        "--interpret",
        "--save",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("add_kernel on interpreter: grid (97, 1, 1)"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("out fp32[98432]"), "{}", o.stdout);
    let saved = std::fs::read(dir.join("out.npy")).expect("out.npy written");
    let a = tritonc_spec::npy::read(&saved).expect("a valid .npy");
    assert_eq!(a.shape, vec![98432]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_on_a_machine_without_a_gpu_exits_3() {
    if tritonc_runtime::Device::driver_present() {
        return; // A GPU host: covered by the GPU run in docs/verify.md.
    }
    let o = tritonc(&[
        "run",
        "examples/vector_add.toml",
        "--bundle",
        "crates/tritonc/tests/fixtures",
    ]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("E0592"), "{}", o.stderr);
    assert!(o.stderr.contains("--interpret"), "{}", o.stderr);
}

#[test]
fn verify_interpret_catches_a_missing_other_in_stage_3_with_exit_1() {
    let spec = format!("{PLANTED}/sum_without_other.toml");
    let o = tritonc(&["verify", &spec, "--interpret", "--stages", "1,3"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    // On the interpreter, stage 1 has no independent reference: nothing is checked.
    assert!(
        o.stdout.contains("stage 1 correctness: nothing checked"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("stage 3 edge cases: FAIL"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("poisoned masked lanes"), "{}", o.stdout);
}

#[test]
fn verify_json_is_machine_readable() {
    let o = tritonc(&[
        "verify",
        "examples/vector_add.toml",
        "--interpret",
        "--stages",
        "1",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON on stdout");
    assert_eq!(v["passed"], true);
    assert_eq!(v["kernel"], "add_kernel");
    // The interpreter compared with itself is named as such, never a pass.
    assert_eq!(v["checks"][0]["against"], "interpreter (itself)");
}

#[test]
fn verify_rejects_bad_stage_numbers() {
    let o = tritonc(&["verify", "examples/vector_add.toml", "--stages", "0,7"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("`--stages`"), "{}", o.stderr);
}

#[cfg(feature = "mlir")]
#[test]
fn compile_emits_ptx_and_writes_bundles_for_a_spec() {
    let o = tritonc(&[
        "compile",
        "examples/vector_add.py",
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
        "--emit",
        "ptx",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(".entry add_kernel"), "{}", o.stdout);

    let dir = std::env::temp_dir().join(format!("tritonc-spec-bundles-{}", std::process::id()));
    let o = tritonc(&[
        "compile",
        "--spec",
        "examples/vector_add.toml",
        "-o",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let bundles = tritonc_verify::BundleDir::read(&dir).expect("bundles readable");
    // The spec's variant (`n_elements` a multiple of 16) and the odd sizes' (not).
    let keys: Vec<String> = bundles
        .bundles
        .iter()
        .map(|b| b.meta.key.to_string())
        .collect();
    assert!(
        keys.iter().any(|k| k.contains("n_elements=i32:16")),
        "{keys:?}"
    );
    assert!(
        keys.iter().any(|k| k.contains("n_elements=i32,")),
        "{keys:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// fp fusion is on by default, as Triton's `enable_fp_fusion`: the multiply before
/// `ex2` is a plain `mul.f32` (ptxas may contract it, as in Triton's PTX);
/// `--no-fp-fusion` makes it `mul.rn.f32`, which nothing fuses.
#[cfg(feature = "mlir")]
#[test]
fn no_fp_fusion_keeps_every_multiply_rounded() {
    let ptx = |extra: &[&str]| {
        succeeding(
            &[
                "compile",
                "examples/softmax.py",
                "--signature",
                "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, 1024",
                "--emit",
                "ptx",
                "--no-cache",
            ],
            extra,
        )
    };
    let fused = ptx(&[]);
    assert!(fused.contains("mul.f32"), "{fused}");
    assert!(!fused.contains("mul.rn.f32"), "{fused}");
    let strict = ptx(&["--no-fp-fusion"]);
    assert!(strict.contains("mul.rn.f32"), "{strict}");
    assert!(!strict.contains("mul.f32"), "{strict}");
}

/// Every kernel the root `tritonc.toml` configures is an example kernel, and its
/// configured signature specializes it: `compile FILE --kernel NAME` needs no
/// `--signature`.
#[test]
fn every_configured_example_kernel_compiles_without_a_signature() {
    let config = std::fs::read_to_string(root().join("tritonc.toml")).expect("tritonc.toml");
    let names: Vec<&str> = config
        .lines()
        .filter_map(|l| l.strip_prefix("[kernels.")?.strip_suffix(']'))
        .collect();
    assert!(names.len() >= 16, "{names:?}");
    for name in names {
        let file = std::fs::read_dir(root().join("examples"))
            .expect("examples/")
            .map(|e| e.expect("entry").path())
            .find(|p| {
                p.extension().is_some_and(|e| e == "py")
                    && std::fs::read_to_string(p)
                        .expect("readable")
                        .contains(&format!("def {name}("))
            })
            .unwrap_or_else(|| panic!("no example defines `{name}`"));
        let file = file.to_str().expect("utf-8 path");
        let o = tritonc(&["compile", file, "--kernel", name, "--emit", "ttir"]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert!(
            o.stdout.contains(&format!("tt.func public @{name}(")),
            "{name}: {}",
            o.stdout
        );
    }
}

/// Autotune variants in `--emit llir` are headed by LLVM comments (`;`), so the text
/// stays LLVM IR; each variant is its own module.
#[cfg(feature = "mlir")]
#[test]
fn llir_variants_are_headed_by_llvm_comments() {
    let o = tritonc(&[
        "compile",
        "crates/tritonc/tests/fixtures/ttir/autotuned.py",
        "--signature",
        "*fp32:16, *fp32:16, i32",
        "--emit",
        "llir",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let headers: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.contains(" variant "))
        .collect();
    assert_eq!(headers.len(), 2, "{}", o.stdout);
    assert!(
        headers
            .iter()
            .all(|h| h.starts_with("; scale_kernel variant ")),
        "{headers:?}"
    );
    assert!(
        !o.stdout.lines().any(|l| l.starts_with("//")),
        "{}",
        o.stdout
    );
    assert_eq!(
        o.stdout
            .matches("define ptx_kernel void @scale_kernel(")
            .count(),
        2
    );
}

/// A file of several kernels compiles all of them when the configuration gives each a
/// signature (`layer_norm.py`). `@jit` helpers that another `@jit` function of the file
/// calls are not entry points: `matmul.py` compiles its one kernel, its helpers inlined
/// (a file of two unrelated kernels still asks which one, E0508: `faults.rs`).
#[test]
fn a_file_of_configured_kernels_compiles_them_all() {
    let o = tritonc(&["compile", "examples/layer_norm.py", "--emit", "ttir"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for name in [
        "layer_norm_fwd_kernel",
        "layer_norm_bwd_dx_kernel",
        "layer_norm_bwd_dwdb_kernel",
    ] {
        assert!(
            o.stdout.contains(&format!("tt.func public @{name}(")),
            "{name}: {}",
            o.stdout
        );
    }
    let o = tritonc(&["compile", "examples/matmul.py", "--emit", "ttir"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.matches("tt.func public @").count(), 1, "{}", o.stdout);
    assert!(
        o.stdout.contains("tt.func public @matmul_kernel("),
        "{}",
        o.stdout
    );
}

/// `num_warps` in `[kernels.NAME]` sets the warps the configured signature compiles
/// with (8 for LayerNorm backward in `tritonc.toml`); `--num-warps` wins over it.
#[test]
fn the_configured_num_warps_applies_unless_num_warps_is_given() {
    let ttgir = |extra: &[&str]| {
        succeeding(
            &[
                "compile",
                "examples/layer_norm.py",
                "--kernel",
                "layer_norm_bwd_dx_kernel",
                "--emit",
                "ttgir",
            ],
            extra,
        )
    };
    let eight = ttgir(&[]);
    assert!(eight.contains("\"ttg.num-warps\" = 8 : i32"), "{eight}");
    let four = ttgir(&["--num-warps", "4"]);
    assert!(four.contains("\"ttg.num-warps\" = 4 : i32"), "{four}");
}

/// A bare file name is looked up from the current directory upwards too: run inside
/// `examples/`, `compile softmax.py` finds the root `tritonc.toml`.
#[test]
fn a_bare_file_name_finds_the_configuration_above_it() {
    let o = tritonc_in(
        &root().join("examples"),
        &["compile", "softmax.py", "--emit", "ttir"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("tt.func public @softmax_kernel("),
        "{}",
        o.stdout
    );
}

/// The README's command: a bundle for softmax, its signature from `tritonc.toml`.
#[cfg(feature = "mlir")]
#[test]
fn compile_softmax_as_the_readme_shows() {
    let dir = std::env::temp_dir().join(format!("tritonc-readme-{}", std::process::id()));
    let o = tritonc(&[
        "compile",
        "examples/softmax.py",
        "--target",
        "sm_90",
        "-o",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("in_row_stride=i32, out_row_stride=i32, n_cols=i32, BLOCK_SIZE=1024"),
        "{}",
        o.stderr
    );
    let bundles = tritonc_verify::BundleDir::read(&dir).expect("bundles readable");
    assert_eq!(bundles.bundles.len(), 1);
    // The metadata records the order of the row max and the row sum, for sm_90.
    let orders = bundles.bundles[0]
        .meta
        .reduction_layouts
        .as_ref()
        .expect("combine orders recorded");
    assert_eq!(orders["target"], "sm_90");
    let reductions = orders["reductions"].as_array().expect("reductions");
    assert_eq!(reductions.len(), 2, "{orders}");
    assert!(reductions.iter().all(|r| r["lanes"].as_array().is_some_and(|l| !l.is_empty())), "{orders}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--emit mlir` is the per-thread MLIR before MLIR's pipeline, `--emit llir` the LLVM IR
/// after LLVM's optimizations (what the NVPTX back end turns into the PTX); with `-o` each
/// stage is a file beside the PTX.
#[cfg(feature = "mlir")]
#[test]
fn compile_emits_mlir_and_llvm_ir() {
    let dir = std::env::temp_dir().join(format!("tritonc-emit-ir-{}", std::process::id()));
    let o = tritonc(&[
        "compile",
        "examples/vector_add.py",
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024",
        "--emit",
        "mlir,llir,ptx",
        "--no-cache",
        "-o",
        dir.to_str().expect("utf-8 temp dir"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    let (mlir, llir, ptx) = (
        read("add_kernel.mlir"),
        read("add_kernel.ll"),
        read("add_kernel.ptx"),
    );
    // The MLIR: a gpu.func of 128 threads (4 warps), still in the arith dialect.
    assert!(mlir.contains("gpu.module @add_kernel_module"), "{mlir}");
    assert!(mlir.contains("gpu.func @add_kernel("), "{mlir}");
    assert!(
        mlir.contains("known_block_size = array<i32: 128, 1, 1>"),
        "{mlir}"
    );
    assert!(mlir.contains("arith.muli"), "{mlir}");
    // The LLVM IR: an NVPTX kernel whose four 128-bit predicated loads (two per input)
    // and two stores are the PTX's.
    assert!(
        llir.contains("target triple = \"nvptx64-nvidia-cuda\""),
        "{llir}"
    );
    assert!(
        llir.contains("define ptx_kernel void @add_kernel("),
        "{llir}"
    );
    assert_eq!(llir.matches("ld.global.v4.b32").count(), 4, "{llir}");
    assert_eq!(ptx.matches("ld.global.v4.b32").count(), 4, "{ptx}");
    assert_eq!(llir.matches("st.global.v4.b32").count(), 2, "{llir}");
    let _ = std::fs::remove_dir_all(&dir);

    // libdevice is linked into the LLVM IR: its `erf` (a polynomial of fused
    // multiply-adds) is inlined, and no libdevice symbol is left to resolve.
    let dir = std::env::temp_dir().join(format!("tritonc-emit-ir-erf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("erf.py");
    std::fs::write(
        &file,
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n\
         def erf_kernel(x_ptr, n, BLOCK: tl.constexpr):\n    \
         i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    \
         x = tl.load(x_ptr + i, mask=i < n)\n    \
         tl.store(x_ptr + i, tl.math.erf(x), mask=i < n)\n",
    )
    .expect("temp dir writable");
    let o = tritonc(&[
        "compile",
        file.to_str().expect("utf-8 path"),
        "--signature",
        "*fp32:16, i32, 128",
        "--emit",
        "llir",
    ]);
    if !o.stderr.contains("needs libdevice") {
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(!o.stdout.contains("@__nv_"), "{}", o.stdout);
        assert!(
            o.stdout.matches("call float @llvm.fma.f32").count() >= 4,
            "{}",
            o.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "mlir"))]
#[test]
fn the_slim_build_has_no_back_end() {
    let o = tritonc(&["compile", "--spec", "examples/vector_add.toml"]);
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(o.stderr.contains("`mlir` feature"), "{}", o.stderr);
}

/// The compile cache and parallel compiles, end to end.
#[cfg(feature = "mlir")]
mod compile_cache {
    use std::collections::BTreeMap;

    use super::*;
    use common::tritonc_with_env;

    /// A scratch directory for one test, empty.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tritonc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        dir
    }

    /// Every file under `dir` (none if it does not exist), by relative path, with its bytes.
    fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).expect("the directory is readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    walk(base, &path, out);
                } else {
                    let rel = path.strip_prefix(base).expect("under base");
                    let bytes = std::fs::read(&path).expect("the file is readable");
                    out.insert(rel.display().to_string(), bytes);
                }
            }
        }
        let mut out = BTreeMap::new();
        if dir.exists() {
            walk(dir, dir, &mut out);
        }
        out
    }

    /// The cache's entry files.
    fn cache_entries(cache: &Path) -> Vec<PathBuf> {
        tree(cache)
            .into_keys()
            .filter(|p| p.ends_with(".entry"))
            .map(|p| cache.join(p))
            .collect()
    }

    const ADD_SIGNATURE: &str = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024";

    /// `tritonc compile FILE --signature … -o OUT` with the cache in `cache`.
    fn compile_add(file: &Path, out: &Path, cache: &Path, extra: &[&str]) -> Outcome {
        let mut args = vec![
            "compile",
            file.to_str().expect("utf-8 path"),
            "--signature",
            ADD_SIGNATURE,
            "-o",
            out.to_str().expect("utf-8 path"),
        ];
        args.extend_from_slice(extra);
        tritonc_with_env(&root(), &args, &[("TRITONC_CACHE_DIR", cache)])
    }

    #[test]
    fn a_second_compile_comes_from_the_cache_and_writes_the_same_bundle() {
        let dir = scratch("cache-hit");
        let cache = dir.join("cache");
        let file = root().join("examples/vector_add.py");
        let miss = compile_add(&file, &dir.join("miss"), &cache, &[]);
        assert_eq!(miss.code, 0, "{}", miss.stderr);
        assert!(!miss.stderr.contains("from the cache"), "{}", miss.stderr);
        assert_eq!(cache_entries(&cache).len(), 1);

        let hit = compile_add(&file, &dir.join("hit"), &cache, &[]);
        assert_eq!(hit.code, 0, "{}", hit.stderr);
        assert!(hit.stderr.contains("(from the cache)"), "{}", hit.stderr);
        let (miss_tree, hit_tree) = (tree(&dir.join("miss")), tree(&dir.join("hit")));
        assert!(
            miss_tree.keys().any(|k| k.ends_with("kernel.cubin")),
            "{miss_tree:?}"
        );
        assert_eq!(
            miss_tree, hit_tree,
            "a hit must write the bytes a miss writes"
        );

        let stats = tritonc_with_env(
            &root(),
            &["cache", "stats"],
            &[("TRITONC_CACHE_DIR", &cache)],
        );
        assert!(stats.stdout.starts_with("1 entries"), "{}", stats.stdout);
        let clean = tritonc_with_env(
            &root(),
            &["cache", "clean"],
            &[("TRITONC_CACHE_DIR", &cache)],
        );
        assert_eq!(clean.code, 0, "{}", clean.stderr);
        assert!(cache_entries(&cache).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn processes_compiling_at_once_share_the_cache_safely() {
        let dir = scratch("cache-racing");
        let cache = dir.join("cache");
        let file = root().join("examples/vector_add.py");
        let outcomes: Vec<Outcome> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..4)
                .map(|i| {
                    let (file, cache, out) = (&file, &cache, dir.join(format!("out{i}")));
                    s.spawn(move || compile_add(file, &out, cache, &[]))
                })
                .collect();
            runs.into_iter()
                .map(|r| r.join().expect("the compile thread finishes"))
                .collect()
        });
        for o in &outcomes {
            assert_eq!(o.code, 0, "{}", o.stderr);
            assert!(!o.stderr.contains("damaged"), "{}", o.stderr);
        }
        // One entry, no temporary files left (besides the entry, only the remembered
        // identities of ptxas and libdevice), and every process wrote the same bundle.
        assert_eq!(cache_entries(&cache).len(), 1);
        assert!(
            tree(&cache).keys().all(|k| k.ends_with(".entry")
                || (k.starts_with("v1/toolchain/") && k.ends_with(".id"))),
            "{:?}",
            tree(&cache).keys()
        );
        let first = tree(&dir.join("out0"));
        for i in 1..4 {
            assert_eq!(tree(&dir.join(format!("out{i}"))), first);
        }
        let hit = compile_add(&file, &dir.join("hit"), &cache, &[]);
        assert!(hit.stderr.contains("(from the cache)"), "{}", hit.stderr);
        assert_eq!(tree(&dir.join("hit")), first);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A bundle directory is named by the kernel and its specialization key, not by its
    /// code: two different kernels of one name and specialization would overwrite each
    /// other's bundle, so that is refused; the same kernel twice writes one bundle.
    #[test]
    fn two_kernels_of_one_name_and_specialization_may_not_share_a_bundle() {
        let dir = scratch("bundle-clash");
        let cache = dir.join("cache");
        let add = root().join("examples/vector_add.py");
        let source = std::fs::read_to_string(&add).expect("the example is readable");
        let mul = dir.join("mul.py");
        std::fs::write(&mul, source.replace("x + y", "x * y")).expect("writable");
        let compile = |files: [&Path; 2], out: &Path| {
            let args = [
                "compile",
                files[0].to_str().expect("utf-8 path"),
                files[1].to_str().expect("utf-8 path"),
                "--signature",
                ADD_SIGNATURE,
                "-o",
                out.to_str().expect("utf-8 path"),
            ];
            tritonc_with_env(&root(), &args, &[("TRITONC_CACHE_DIR", &cache)])
        };
        let clash = compile([&add, &mul], &dir.join("clash"));
        assert_eq!(clash.code, 2, "{}", clash.stderr);
        assert!(clash.stderr.contains("E0514"), "{}", clash.stderr);
        assert!(tree(&dir.join("clash")).is_empty(), "nothing is written");
        let same = compile([&add, &add], &dir.join("same"));
        assert_eq!(same.code, 0, "{}", same.stderr);

        // The same with `--spec`: a second spec for the other kernel file.
        let spec = std::fs::read_to_string(root().join("examples/vector_add.toml"))
            .expect("the example is readable");
        let mul_spec = dir.join("mul.toml");
        std::fs::write(&mul_spec, spec.replace("\"vector_add.py\"", "\"mul.py\""))
            .expect("writable");
        let specs = |second: &Path, out: &str| {
            let out = dir.join(out);
            let args = [
                "compile",
                "--spec",
                "examples/vector_add.toml",
                second.to_str().expect("utf-8 path"),
                "-o",
                out.to_str().expect("utf-8 path"),
            ];
            let o = tritonc_with_env(&root(), &args, &[("TRITONC_CACHE_DIR", &cache)]);
            (o, tree(&out))
        };
        let (clash, written) = specs(&mul_spec, "spec-clash");
        assert_eq!(clash.code, 2, "{}", clash.stderr);
        assert!(clash.stderr.contains("E0514"), "{}", clash.stderr);
        assert!(written.is_empty(), "nothing is written");
        let (same, _) = specs(&root().join("examples/vector_add.toml"), "spec-same");
        assert_eq!(same.code, 0, "{}", same.stderr);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The back end lowers the kernels again after a text stage did: their warnings are
    /// printed once.
    #[test]
    fn a_text_stage_and_the_ptx_warn_once() {
        let dir = scratch("warn-once-ptx");
        let file = dir.join("scale.py");
        // In debug mode an i32 multiply of runtime values warns E0343.
        std::fs::write(
            &file,
            "import triton\nimport triton.language as tl\n\n\n@triton.jit\n\
             def scale(x_ptr, n, BLOCK: tl.constexpr):\n    \
             i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    \
             tl.store(x_ptr + i, n * 3, mask=i < n)\n",
        )
        .expect("the scratch dir is writable");
        for stages in ["ptx", "ttir,ptx", "ttgir,ptx"] {
            let args = [
                "compile",
                file.to_str().expect("utf-8 path"),
                "--debug",
                "--no-cache",
                "--signature",
                "*i32:16, i32, 128",
                "--emit",
                stages,
            ];
            let o = tritonc_with_env(&dir, &args, &[]);
            assert_eq!(o.code, 0, "{stages}: {}", o.stderr);
            assert_eq!(
                o.stderr.matches("warning[E0343]").count(),
                1,
                "{stages}: {}",
                o.stderr
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A cache directory that cannot be used (here a regular file) is one warning; the
    /// compile goes on and writes its bundle.
    #[test]
    fn an_unusable_cache_directory_only_warns() {
        let dir = scratch("cache-is-a-file");
        let cache = dir.join("cache");
        std::fs::write(&cache, "").expect("the scratch dir is writable");
        let file = root().join("examples/vector_add.py");
        let o = compile_add(&file, &dir.join("out"), &cache, &[]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(
            o.stderr.matches("warning[E0514]").count(),
            1,
            "{}",
            o.stderr
        );
        assert!(!o.stderr.contains("recompiled"), "{}", o.stderr);
        assert_eq!(
            tree(&dir.join("out"))
                .keys()
                .filter(|k| k.ends_with("bundle.json"))
                .count(),
            1
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// ptxas that cannot be run, or a temporary directory it cannot work in, is the
    /// environment's fault: an input error (exit 2) with the reason, not an internal one.
    #[test]
    fn a_ptxas_that_cannot_run_is_an_input_error() {
        let dir = scratch("cache-ptxas-missing");
        let file = root().join("examples/vector_add.py");
        let not_a_dir = dir.join("not-a-dir");
        std::fs::write(&not_a_dir, "").expect("the scratch dir is writable");
        let missing = dir.join("no/such/ptxas");
        let cases: [(&str, &Path); 2] = [("TRITONC_PTXAS", &missing), ("TMPDIR", &not_a_dir)];
        for (i, (var, value)) in cases.into_iter().enumerate() {
            let out = dir.join(format!("out{i}"));
            let args = [
                "compile",
                file.to_str().expect("utf-8 path"),
                "--signature",
                ADD_SIGNATURE,
                "--no-cache",
                "-o",
                out.to_str().expect("utf-8 path"),
            ];
            let o = tritonc_with_env(&root(), &args, &[(var, value)]);
            assert_eq!(o.code, 2, "{var}: {}", o.stderr);
            assert!(!o.stderr.contains("E0594"), "{var}: {}", o.stderr);
            assert!(o.stderr.contains("ptxas"), "{var}: {}", o.stderr);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn another_ptxas_release_misses_the_cache() {
        use std::os::unix::fs::PermissionsExt;

        let dir = scratch("cache-ptxas");
        let cache = dir.join("cache");
        let file = root().join("examples/vector_add.py");
        let real = std::env::var_os("TRITONC_PTXAS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join(".tools/cuda/bin/ptxas"));
        assert!(
            real.is_file(),
            "ptxas (scripts/install-deps.sh) at {}",
            real.display()
        );
        // The same ptxas, answering `--version` as another release would.
        let other = dir.join("ptxas");
        std::fs::write(
            &other,
            format!(
                "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'Cuda compilation tools, release 99.9'; exit 0; }}\nexec '{}' \"$@\"\n",
                real.display()
            ),
        )
        .expect("the scratch dir is writable");
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755))
            .expect("the wrapper can be made executable");
        let run = |ptxas: &Path, out: &str| {
            let out = dir.join(out);
            let args = [
                "compile",
                file.to_str().expect("utf-8 path"),
                "--signature",
                ADD_SIGNATURE,
                "-o",
                out.to_str().expect("utf-8 path"),
            ];
            let o = tritonc_with_env(
                &root(),
                &args,
                &[("TRITONC_CACHE_DIR", &cache), ("TRITONC_PTXAS", ptxas)],
            );
            assert_eq!(o.code, 0, "{}", o.stderr);
            o.stderr.contains("(from the cache)")
        };
        assert!(!run(&real, "a"));
        assert!(run(&real, "b"));
        assert!(
            !run(&other, "c"),
            "a new ptxas release must not reuse the old cubin"
        );
        assert!(run(&other, "d"));
        assert_eq!(cache_entries(&cache).len(), 2);
        assert_eq!(tree(&dir.join("a")), tree(&dir.join("c")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn debug_mode_compiles_apart_from_the_cache_of_release_mode() {
        let dir = scratch("cache-debug");
        let cache = dir.join("cache");
        let run = |extra: &[&str], out: &str| {
            let out = dir.join(out);
            let mut args = vec!["compile", "--spec", "examples/vector_add.toml", "-o"];
            args.push(out.to_str().expect("utf-8 path"));
            args.extend_from_slice(extra);
            let o = tritonc_with_env(&root(), &args, &[("TRITONC_CACHE_DIR", &cache)]);
            assert_eq!(o.code, 0, "{}", o.stderr);
            (o.stderr, tree(&out))
        };
        let (_, release) = run(&[], "release");
        let (stderr, debug) = run(&["--debug"], "debug");
        assert!(!stderr.contains("from the cache"), "{stderr}");
        let metas: Vec<String> = debug
            .iter()
            .filter(|(k, _)| k.ends_with("bundle.json"))
            .map(|(_, v)| String::from_utf8(v.clone()).expect("JSON is text"))
            .collect();
        assert!(!metas.is_empty());
        assert!(
            metas.iter().all(|m| m.contains("\"debug\": true")),
            "{metas:?}"
        );
        assert!(release.keys().all(|k| !debug.contains_key(k)));
        let (stderr, _) = run(&["--debug"], "debug-again");
        assert!(
            stderr.contains(&format!("({} from the cache)", metas.len())),
            "{stderr}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_cache_entry_is_recompiled_and_replaced() {
        let dir = scratch("cache-damaged");
        let cache = dir.join("cache");
        let file = root().join("examples/vector_add.py");
        let first = compile_add(&file, &dir.join("first"), &cache, &[]);
        assert_eq!(first.code, 0, "{}", first.stderr);
        let [entry] = cache_entries(&cache).try_into().expect("one entry");
        // One flipped byte in the middle (the PTX), as a disk error would leave it.
        let mut bytes = std::fs::read(&entry).expect("the entry is readable");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x20;
        std::fs::write(&entry, &bytes).expect("the entry is writable");

        let again = compile_add(&file, &dir.join("again"), &cache, &[]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(
            again
                .stderr
                .contains("recompiled: the cache entry was damaged"),
            "{}",
            again.stderr
        );
        assert_eq!(tree(&dir.join("first")), tree(&dir.join("again")));

        // Truncated to nothing: recompiled again; then the replacement is used.
        std::fs::write(&entry, b"").expect("the entry is writable");
        let empty = compile_add(&file, &dir.join("empty"), &cache, &[]);
        assert!(empty.stderr.contains("damaged"), "{}", empty.stderr);
        let hit = compile_add(&file, &dir.join("hit"), &cache, &[]);
        assert!(hit.stderr.contains("(from the cache)"), "{}", hit.stderr);
        assert_eq!(tree(&dir.join("first")), tree(&dir.join("hit")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_cache_neither_reads_nor_writes_the_cache() {
        let dir = scratch("cache-off");
        let cache = dir.join("cache");
        let file = root().join("examples/vector_add.py");
        let off = compile_add(&file, &dir.join("off"), &cache, &["--no-cache"]);
        assert_eq!(off.code, 0, "{}", off.stderr);
        assert!(cache_entries(&cache).is_empty());

        let on = compile_add(&file, &dir.join("on"), &cache, &[]);
        assert_eq!(cache_entries(&cache).len(), 1, "{}", on.stderr);
        let off = compile_add(&file, &dir.join("off2"), &cache, &["--no-cache"]);
        assert!(!off.stderr.contains("from the cache"), "{}", off.stderr);
        assert_eq!(tree(&dir.join("off")), tree(&dir.join("on")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The source lines the PTX's `.loc` directives name (`.loc FILE LINE COL`).
    fn loc_lines(ptx: &str) -> Vec<u32> {
        ptx.lines()
            .filter_map(|l| l.trim().strip_prefix(".loc"))
            .filter_map(|rest| rest.split_whitespace().nth(1)?.parse().ok())
            .collect()
    }

    #[test]
    fn moving_the_kernel_down_a_line_misses_the_cache() {
        let dir = scratch("cache-moved");
        let cache = dir.join("cache");
        let source = std::fs::read_to_string(root().join("examples/vector_add.py"))
            .expect("the example is readable");
        let file = dir.join("add.py");
        std::fs::write(&file, &source).expect("the scratch dir is writable");
        let before = compile_add(&file, &dir.join("before"), &cache, &[]);
        assert_eq!(before.code, 0, "{}", before.stderr);

        // Same code, one line further down: only the locations change.
        std::fs::write(&file, format!("\n{source}")).expect("the scratch dir is writable");
        let after = compile_add(&file, &dir.join("after"), &cache, &[]);
        assert_eq!(after.code, 0, "{}", after.stderr);
        assert!(!after.stderr.contains("from the cache"), "{}", after.stderr);
        assert_eq!(cache_entries(&cache).len(), 2);

        let ptx = |out: &str| {
            let t = tree(&dir.join(out));
            let (_, bytes) = t
                .iter()
                .find(|(k, _)| k.ends_with("kernel.ptx"))
                .expect("the bundle has PTX");
            String::from_utf8(bytes.clone()).expect("PTX is text")
        };
        let (lines_before, lines_after) = (loc_lines(&ptx("before")), loc_lines(&ptx("after")));
        assert!(!lines_before.is_empty(), "the PTX has .loc lines");
        let shifted: Vec<u32> = lines_before.iter().map(|l| l + 1).collect();
        assert_eq!(lines_after, shifted);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parallel_compiles_write_what_sequential_ones_write() {
        let dir = scratch("cache-parallel");
        let cache = dir.join("cache");
        let run = |jobs: &str, out: &str| {
            let out = dir.join(out);
            let o = tritonc_with_env(
                &root(),
                &[
                    "compile",
                    "-j",
                    jobs,
                    "--no-cache",
                    "--spec",
                    "examples/vector_add.toml",
                    "examples/softmax.toml",
                    "examples/rms_norm.toml",
                    "-o",
                    out.to_str().expect("utf-8 path"),
                ],
                &[("TRITONC_CACHE_DIR", &cache)],
            );
            assert_eq!(o.code, 0, "{}", o.stderr);
            (o, tree(&out))
        };
        let (sequential, seq_tree) = run("1", "seq");
        let (parallel, par_tree) = run("4", "par");
        assert!(seq_tree.len() > 6, "{:?}", seq_tree.keys());
        assert_eq!(seq_tree, par_tree);
        // The same lines in the same order, whatever finished first.
        let normalized = |o: &Outcome| o.stderr.replace("/par", "/DIR").replace("/seq", "/DIR");
        assert_eq!(normalized(&sequential), normalized(&parallel));
        let summaries: Vec<&str> = sequential
            .stderr
            .lines()
            .filter(|l| l.starts_with("compiled "))
            .collect();
        assert_eq!(summaries.len(), 3, "{}", sequential.stderr);
        assert!(summaries[0].contains("vector_add"), "{summaries:?}");
        assert!(summaries[1].contains("`softmax_kernel`"), "{summaries:?}");

        // Several kernel files at once, in parallel, through the cache: the same bundles
        // as one file at a time.
        let add = root().join("examples/vector_add.py");
        let source = std::fs::read_to_string(&add).expect("the example is readable");
        let mul = dir.join("mul.py");
        let mul_source = source
            .replace("add_kernel", "mul_kernel")
            .replace("x + y", "x * y");
        std::fs::write(&mul, mul_source).expect("the scratch dir is writable");
        let files = [add.to_str().expect("utf-8"), mul.to_str().expect("utf-8")];
        let together = dir.join("together");
        let o = tritonc_with_env(
            &root(),
            &[
                "compile",
                "-j",
                "2",
                files[0],
                files[1],
                "--signature",
                ADD_SIGNATURE,
                "-o",
                together.to_str().expect("utf-8"),
            ],
            &[("TRITONC_CACHE_DIR", &cache)],
        );
        assert_eq!(o.code, 0, "{}", o.stderr);
        let apart = dir.join("apart");
        for f in files {
            let o = tritonc_with_env(
                &root(),
                &[
                    "compile",
                    "-j",
                    "1",
                    "--no-cache",
                    f,
                    "--signature",
                    ADD_SIGNATURE,
                    "-o",
                    apart.to_str().expect("utf-8"),
                ],
                &[("TRITONC_CACHE_DIR", &cache)],
            );
            assert_eq!(o.code, 0, "{}", o.stderr);
        }
        let together = tree(&together);
        let entries: Vec<&String> = together
            .keys()
            .filter(|k| k.ends_with("bundle.json"))
            .collect();
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert!(entries[1].starts_with("mul_kernel-"), "{entries:?}");
        assert_eq!(together, tree(&apart));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `--emit c` as docs/c.md shows it: the header and source compile with the example
/// program under `cc` (warnings as errors), and the program runs up to the driver: on a
/// machine without a GPU it exits 3 saying why, on a GPU host every sum is right.
#[test]
fn emit_c_builds_the_c_example_which_runs_up_to_the_device() {
    let dir = std::env::temp_dir().join(format!("tritonc-emit-c-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_string_lossy().into_owned();
    let o = tritonc(&[
        "compile",
        "examples/vector_add.py",
        "--target",
        "sm_90",
        "--emit",
        "c",
        "-o",
        &out,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("vector_add.h and vector_add.c: add_kernel_"), "{}", o.stderr);
    let header = std::fs::read_to_string(dir.join("vector_add.h")).expect("the header");
    assert!(
        header.contains(
            "tritonc_status add_kernel(tritonc_grid grid, void *stream, unsigned long long x_ptr, \
             unsigned long long y_ptr, unsigned long long out_ptr, int32_t n_elements);"
        ),
        "{header}"
    );
    let source = std::fs::read_to_string(dir.join("vector_add.c")).expect("the source");
    assert!(source.contains("static _Alignas(16) const unsigned char tritonc_cubin0_vector_add["));
    let exe = dir.join("vector_add");
    let cc = std::process::Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I"])
        .arg(&dir)
        .arg(root().join("examples/c/vector_add.c"))
        .arg(dir.join("vector_add.c"))
        .args(["-ldl", "-pthread", "-o"])
        .arg(&exe)
        .output()
        .expect("a C compiler `cc` on PATH (Debian: gcc)");
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let run = std::process::Command::new(&exe).output().expect("the example runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    match run.status.code() {
        Some(0) => assert!(stdout.contains("100000 of 100000 sums right"), "{stdout}"),
        Some(3) => assert!(
            stderr.contains("no NVIDIA driver: libcuda.so.1 could not be loaded")
                || stderr.contains("no CUDA device"),
            "{stderr}"
        ),
        other => panic!("exit {other:?}\n{stdout}{stderr}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `examples/rust-build` as docs/rust.md shows it: its build script compiles
/// `add_kernel` with this `tritonc` (tritonc-build), the generated launch functions
/// compile, and its tests pass: the variants it holds, the choice among them, the miss
/// error naming them, and `run` up to the device (exit 3 without a GPU). The example is
/// its own Cargo workspace, built in its own target directory beside this one.
#[test]
fn rust_build_example_compiles_its_kernels_in_build_rs_and_runs_up_to_the_device() {
    let exe = Path::new(env!("CARGO_BIN_EXE_tritonc"));
    let target = exe
        .parent()
        .and_then(Path::parent)
        .expect("tritonc lives in TARGET/PROFILE/")
        .join("example-rust-build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let o = std::process::Command::new(cargo)
        .args(["test", "--offline", "--locked", "--manifest-path"])
        .arg(root().join("examples/rust-build/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .env("TRITONC", exe)
        .output()
        .expect("cargo runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("test result: ok. 5 passed"), "{stdout}");
}

/// `python/tests/test_capture.py` with this `tritonc`: captured launches become specs
/// that parse and run, and a capture over the CPU interpreter replays bit for bit (when
/// `libtritonc_pyinterp.so` is built beside this binary). Without PyTorch and Triton on
/// the machine its tests are skipped.
#[test]
fn captured_launches_become_specs_that_run() {
    let exe = Path::new(env!("CARGO_BIN_EXE_tritonc"));
    let target = exe
        .parent()
        .and_then(Path::parent)
        .expect("tritonc lives in TARGET/PROFILE/");
    let o = std::process::Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-p",
            "test_capture.py",
        ])
        .current_dir(root())
        .env("TRITONC", exe)
        .env("CARGO_TARGET_DIR", target)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH");
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("Ran 6 tests"), "{text}");
}
