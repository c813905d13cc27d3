//! The build helper from the outside: the generated Rust from real bundles (compared with
//! a reviewed golden; `TRITONC_BLESS=1` rewrites it), and `Build::compile` driving a
//! stand-in `tritonc` (a shell script that writes fixture bundles and records how it was
//! called), so what is asked of the compiler and what is done with its answer are
//! checked without LLVM. `examples/rust-build` is the end-to-end test with the real
//! compiler (run by crates/tritonc's tests).

use std::path::{Path, PathBuf};

use tritonc_build::{rust_source, Build, BundlePath, Error, Kernel, KernelModule, VariantCode};
use tritonc_bundle::Bundle;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `add_kernel` for sm_90 as `*fp32:16, *fp32:16, *fp32:16, i32:16, 1024` (with a cubin).
fn aligned_dir() -> PathBuf {
    root().join("examples/rust/kernels/add_kernel.tcb")
}

/// `add_kernel` for sm_90 as `*fp32, *fp32, *fp32, i32, 1024` (PTX only), written by
/// `tritonc compile examples/vector_add.py --signature "*fp32, *fp32, *fp32, i32, 1024"
/// --target sm_90` without its cubin.
fn any_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_kernel_any.tcb")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tritonc-build-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch directory");
    d
}

#[test]
fn generated_source_matches_the_golden() {
    let variant = |function: &str, dir: PathBuf, rel: &str| VariantCode {
        function: function.to_string(),
        bundle: Bundle::read_dir(&dir).expect("a fixture bundle"),
        dir: BundlePath::OutDir(rel.to_string()),
    };
    let module = KernelModule {
        kernel: "add_kernel".into(),
        source: "examples/vector_add.py".into(),
        variants: vec![
            variant(
                "aligned",
                aligned_dir(),
                "tritonc/add_kernel-0-sm_90/add_kernel-1aaae5f98fd84e7d.tcb",
            ),
            variant(
                "any",
                any_dir(),
                "tritonc/add_kernel-1-sm_90/add_kernel-any.tcb",
            ),
        ],
    };
    let text = rust_source(&[module]).expect("Rust for two variants");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/add_kernel.rs");
    if std::env::var_os("TRITONC_BLESS").is_some() {
        std::fs::write(&golden, &text).expect("golden written");
    }
    let want = std::fs::read_to_string(&golden).expect("the golden");
    assert_eq!(text, want, "run with TRITONC_BLESS=1 and review the diff");
    // What the golden must say, independently of its exact text.
    assert!(text.contains(
        "pub fn aligned(&self, stream: rt::Stream, grid: rt::Grid, x_ptr: rt::DevicePtr, \
         y_ptr: rt::DevicePtr, out_ptr: rt::DevicePtr, n_elements: i32)"
    ));
    assert!(text.contains(
        "pub fn launch(&self, stream: rt::Stream, grid: rt::Grid, x_ptr: rt::DevicePtr, \
         y_ptr: rt::DevicePtr, out_ptr: rt::DevicePtr, n_elements: i64, BLOCK_SIZE: i64)"
    ));
    assert!(
        text.contains("binary: None,"),
        "the PTX-only fixture has no cubin"
    );
    assert!(
        text.contains("/kernel.cubin\"))),"),
        "the aligned fixture has one"
    );
}

#[test]
fn two_kernels_of_one_name_or_clashing_functions_are_refused() {
    let aligned = Bundle::read_dir(&aligned_dir()).unwrap();
    let v = |f: &str| VariantCode {
        function: f.into(),
        bundle: aligned.clone(),
        dir: BundlePath::Absolute("/b".into()),
    };
    let m = |fns: &[&str]| KernelModule {
        kernel: "add_kernel".into(),
        source: "a.py".into(),
        variants: fns.iter().map(|f| v(f)).collect(),
    };
    let e = rust_source(&[m(&["a", "a"])]).unwrap_err();
    assert!(
        e.to_string()
            .contains("two launch functions would be named `a`"),
        "{e}"
    );
    let e = rust_source(&[m(&["launch"])]).unwrap_err();
    assert!(e.to_string().contains("`launch`"), "{e}");
    let e = rust_source(&[m(&["a"]), m(&["b"])]).unwrap_err();
    assert!(e.to_string().contains("module `add_kernel`"), "{e}");
    let e = rust_source(&[m(&[])]).unwrap_err();
    assert!(e.to_string().contains("no variant was compiled"), "{e}");
}

/// A stand-in `tritonc`: appends its arguments to `log`, then writes the aligned
/// fixture for a `:16` signature and the PTX-only one otherwise, into `-o DIR`.
fn stand_in(dir: &Path, with_cubin_for_any: bool) -> PathBuf {
    let any = if with_cubin_for_any {
        // The PTX-only fixture with a cubin beside it (any well-formed cubin: nothing
        // loads it, but reading a bundle checks that its cubin is a CUDA ELF file).
        let d = dir.join("any-with-cubin.tcb");
        std::fs::create_dir_all(&d).unwrap();
        for f in ["bundle.json", "kernel.ptx"] {
            std::fs::copy(any_dir().join(f), d.join(f)).unwrap();
        }
        let cubin = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/rust/kernels/add_kernel.tcb/kernel.cubin");
        std::fs::copy(cubin, d.join("kernel.cubin")).unwrap();
        d
    } else {
        any_dir()
    };
    let script = format!(
        r#"#!/bin/sh
echo "$@" >> '{log}'
out=; sig=; prev=
for a in "$@"; do
  case "$prev" in -o) out=$a;; --signature) sig=$a;; esac
  prev=$a
done
case "$sig" in *:16*) src='{aligned}';; *) src='{any}';; esac
mkdir -p "$out/add_kernel-x.tcb" && cp "$src"/* "$out/add_kernel-x.tcb/"
echo "vector_add.py:1:1: warning[E0000]: a stand-in warning" >&2
"#,
        log = dir.join("log").display(),
        aligned = aligned_dir().display(),
        any = any.display(),
    );
    let path = dir.join("tritonc");
    std::fs::write(&path, script).unwrap();
    make_executable(&path);
    path
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn two_signatures() -> Kernel {
    Kernel::new("examples/vector_add.py", "add_kernel")
        .signature("aligned", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024")
        .signature("any", "*fp32, *fp32, *fp32, i32, 1024")
        .num_warps(4)
}

#[test]
fn compile_asks_tritonc_for_each_signature_and_target_and_generates_their_functions() {
    let dir = scratch("compile");
    let tritonc = stand_in(&dir, true);
    let out = dir.join("out");
    let generated = Build::new()
        .target("sm_90")
        .kernel(two_signatures())
        .tritonc(&tritonc)
        .out_dir(&out)
        .cargo_metadata(false)
        .compile()
        .expect("the build succeeds");
    assert_eq!(generated.path, out.join("tritonc_kernels.rs"));
    assert_eq!(
        generated.kernels,
        [(
            "add_kernel".to_string(),
            vec!["aligned".to_string(), "any".to_string()]
        )]
    );
    let log = std::fs::read_to_string(dir.join("log")).unwrap();
    let calls: Vec<&str> = log.lines().collect();
    let o = out.join("tritonc");
    assert_eq!(
        calls,
        [
            format!(
                "--color never --format short --quiet compile examples/vector_add.py --kernel \
                 add_kernel --target sm_90 -o {} --signature *fp32:16, *fp32:16, *fp32:16, \
                 i32:16, 1024 --num-warps 4",
                o.join("add_kernel-0-sm_90").display()
            ),
            format!(
                "--color never --format short --quiet compile examples/vector_add.py --kernel \
                 add_kernel --target sm_90 -o {} --signature *fp32, *fp32, *fp32, i32, 1024 \
                 --num-warps 4",
                o.join("add_kernel-1-sm_90").display()
            ),
        ]
    );
    // Out of Cargo's OUT_DIR the bundles are named by absolute paths.
    let text = std::fs::read_to_string(&generated.path).unwrap();
    let meta = o.join("add_kernel-1-sm_90/add_kernel-x.tcb/bundle.json");
    assert!(
        text.contains(&format!("include_bytes!({:?})", meta.display().to_string())),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_targets_name_functions_by_target_and_one_specialization_is_one_variant() {
    let dir = scratch("targets");
    let tritonc = stand_in(&dir, true);
    // The stand-in writes the same sm_90 bundle for both targets and for both
    // signatures spelled alike: one variant, the first function name.
    let generated = Build::new()
        .target("sm_90")
        .target("sm_90")
        .target("sm_80")
        .kernel(
            Kernel::new("k.py", "add_kernel")
                .signature("first", "*fp32, *fp32, *fp32, i32, 1024")
                .signature("second", "*fp32, *fp32, *fp32, i32,1024"),
        )
        .tritonc(&tritonc)
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .compile()
        .unwrap();
    assert_eq!(generated.kernels[0].1, ["first_sm_90"]);
    let log = std::fs::read_to_string(dir.join("log")).unwrap();
    assert_eq!(log.lines().count(), 4, "2 signatures x 2 targets:\n{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ptx_only_variant_is_an_error_unless_allowed() {
    let dir = scratch("ptx-only");
    let tritonc = stand_in(&dir, false);
    let build = Build::new()
        .target("sm_90")
        .kernel(two_signatures())
        .tritonc(&tritonc)
        .out_dir(dir.join("out"))
        .cargo_metadata(false);
    let e = build.compile().unwrap_err();
    assert!(matches!(e, Error::PtxOnly { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("`add_kernel` for sm_90 was compiled to PTX only (no cubin)"),
        "{text}"
    );
    assert!(
        text.contains("a stand-in warning"),
        "tritonc's note is passed on: {text}"
    );
    assert!(text.contains("allow_ptx_only(true)"), "{text}");
    let generated = build.allow_ptx_only(true).compile().unwrap();
    let text = std::fs::read_to_string(&generated.path).unwrap();
    assert!(text.contains("binary: None,"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_compile_passes_tritons_diagnostics_on() {
    let dir = scratch("fails");
    let tritonc = dir.join("tritonc");
    std::fs::write(
        &tritonc,
        "#!/bin/sh\necho 'k.py:3:5: error[E0301]: `tl.foo` is not a Triton builtin' >&2\nexit 2\n",
    )
    .unwrap();
    make_executable(&tritonc);
    let e = Build::new()
        .target("sm_90")
        .kernel(Kernel::new("k.py", "add_kernel"))
        .tritonc(&tritonc)
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .compile()
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("tritonc could not compile `add_kernel` of k.py for sm_90 (exit 2):\n"),
        "{text}"
    );
    assert!(
        text.contains("error[E0301]: `tl.foo` is not a Triton builtin"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_compiler_or_configuration_is_a_clear_error() {
    let dir = scratch("missing");
    let e = Build::new()
        .target("sm_90")
        .kernel(Kernel::new("k.py", "add_kernel"))
        .tritonc(dir.join("no-such-tritonc"))
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .compile()
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("cannot run the tritonc compiler"), "{text}");
    assert!(text.contains("pip install tritonc"), "{text}");
    let e = Build::new()
        .kernel(Kernel::new("k.py", "add_kernel"))
        .out_dir(dir.join("out"))
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("no target"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With the `in-process` feature and no `TRITONC`, tritonc-driver compiles in the build
/// script itself: the real kernel, with a cubin, under the key the command gives it.
#[cfg(feature = "in-process")]
#[test]
fn in_process_the_driver_compiles_the_kernel() {
    if std::env::var_os("TRITONC").is_some() {
        return; // the command would be used
    }
    let dir = scratch("in-process");
    let generated = Build::new()
        .target("sm_90")
        .kernel(
            Kernel::new(root().join("examples/vector_add.py"), "add_kernel")
                .signature("aligned", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"),
        )
        .out_dir(dir.join("out"))
        .cargo_metadata(false)
        .compile()
        .expect("compiled in process");
    assert_eq!(generated.kernels[0].1, ["aligned"]);
    let dirs =
        tritonc_bundle::list_bundle_dirs(&dir.join("out/tritonc/add_kernel-0-sm_90")).unwrap();
    assert_eq!(dirs.len(), 1);
    let bundle = Bundle::read_dir(&dirs[0]).unwrap();
    assert_eq!(
        bundle.meta.key_hash, "1aaae5f98fd84e7d",
        "the key the command gives it"
    );
    assert!(bundle.cubin.is_some(), "ptxas ran");
    let _ = std::fs::remove_dir_all(&dir);
}
