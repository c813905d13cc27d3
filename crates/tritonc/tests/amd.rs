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
