//! GPU-free tests of the backend choice: which backend a target needs, AMD bundles
//! sharing the launch checks and marshalling with NVIDIA ones, architecture matching, and
//! opening an AMD GPU on a machine without one (or in a build without HIP).

use tritonc_bundle::{
    Bundle, BundleMeta, ConstValue, HiddenParam, HiddenParamKind, ParamAbi, ParamRole,
    PtxParamKind, AMD_FORMAT_VERSION, FORMAT_VERSION,
};
use tritonc_runtime::{
    amd_code_for_device, check_and_marshal, select_variant, select_variant_on, Arg, Backend,
    CodeChoice, DType, Device, DevicePtr, RuntimeError,
};
use tritonc_sema::spec::KeyArg;
use tritonc_sema::{SpecializationKey, Target};

/// add_kernel(x: *fp32:16, y: *fp32:16, out: *fp32:16, n: i32, BLOCK=1024) for `target`.
fn add_meta(target: &str) -> BundleMeta {
    let ptr = |index| ParamRole::Passed {
        index,
        kind: PtxParamKind::Pointer {
            pointee: DType::F32,
            align: 16,
        },
    };
    let params = vec![
        ("x", ptr(0), "*fp32:16"),
        ("y", ptr(1), "*fp32:16"),
        ("out", ptr(2), "*fp32:16"),
        (
            "n",
            ParamRole::Passed {
                index: 3,
                kind: PtxParamKind::Scalar {
                    dtype: DType::I32,
                    divisibility: None,
                },
            },
            "i32",
        ),
        ("BLOCK", ParamRole::Constexpr(ConstValue::Int(1024)), "1024"),
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
    let amd = target.starts_with("gfx");
    BundleMeta {
        format_version: if amd {
            AMD_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        },
        entry: "add_kernel".into(),
        target: target.into(),
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
        hidden_params: vec![],
        reduction_layouts: None,
        ptxas: None,
        min_driver_version: None,
    }
}

fn amd_bundle(target: &str) -> Bundle {
    Bundle {
        meta: add_meta(target),
        ptx: String::new(),
        cubin: Some(b"\x7fELF code object".to_vec()),
    }
}

fn args(addr: u64, n: i64) -> Vec<Arg> {
    let p = |a| {
        Arg::Pointer(DevicePtr {
            addr: a,
            dtype: DType::F32,
            bytes: 4096,
        })
    };
    vec![
        p(addr),
        p(addr + 4096),
        p(addr + 8192),
        Arg::Int(n),
        Arg::Int(1024),
    ]
}

#[test]
fn targets_name_their_backend() {
    assert_eq!(Backend::for_target("sm_90"), Some(Backend::Cuda));
    assert_eq!(Backend::for_target("sm_90a"), Some(Backend::Cuda));
    assert_eq!(Backend::for_target("gfx942"), Some(Backend::Hip));
    assert_eq!(Backend::for_target("gfx90a"), Some(Backend::Hip));
    assert_eq!(Backend::for_target("rdna3"), None);
    assert_eq!(Backend::Cuda.is_built(), cfg!(feature = "cuda"));
    assert_eq!(Backend::Hip.is_built(), cfg!(feature = "hip"));
}

#[test]
fn amd_and_nvidia_bundles_marshal_the_same_arguments_alike() {
    let a = args(0x7f00_0000_0000, 4096);
    let nvidia = check_and_marshal(&add_meta("sm_90"), &a).unwrap();
    let amd = check_and_marshal(&add_meta("gfx942"), &a).unwrap();
    // Three 8-byte pointers, then the i32: the C ABI both launch APIs take.
    assert_eq!(amd.offsets(), &[0, 8, 16, 24]);
    assert_eq!(amd.bytes(), nvidia.bytes());
    assert_eq!(amd.param(0).unwrap(), &0x7f00_0000_0000u64.to_le_bytes());
    assert_eq!(amd.param(3).unwrap(), &4096i32.to_le_bytes());
    // And the launch-time checks refuse the same misaligned pointer.
    let misaligned = args(0x7f00_0000_0004, 4096);
    let err = select_variant(&[amd_bundle("gfx942")], &misaligned, None).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let text = err.to_string();
    assert!(
        text.starts_with("launch refused: 3 assumptions broken"),
        "{text}"
    );
    assert!(
        text.contains("`x` was specialized as 16-byte aligned"),
        "{text}"
    );
}

#[test]
fn marshalling_matches_the_kernel_arguments_of_a_triton_amd_code_object() {
    // The kernel argument list upstream Triton 3.6 gave add_kernel for gfx942
    // (crates/tritonc-bundle/tests/fixtures/add_kernel.gfx942.hsaco, its `.args`): three
    // global buffers, the i32, then the global and profile scratch pointers, as
    // (offset, size) in the kernel argument segment of 48 bytes.
    let triton_args: [(usize, usize); 6] = [(0, 8), (8, 8), (16, 8), (24, 4), (32, 8), (40, 8)];
    let mut meta = add_meta("gfx942");
    meta.hidden_params = [4, 5]
        .map(|index| HiddenParam {
            index,
            kind: HiddenParamKind::GlobalScratch {
                bytes_per_program: 0,
                align: 1,
            },
        })
        .to_vec();
    let mut buf = check_and_marshal(&meta, &args(0x7f00_0000_0000, 4096)).unwrap();
    let layout: Vec<(usize, usize)> = (0..buf.len())
        .map(|i| (buf.offsets()[i], buf.param(i).unwrap().len()))
        .collect();
    assert_eq!(layout, triton_args);
    assert_eq!(
        buf.kernel_params().len(),
        6,
        "one pointer per kernel argument"
    );
    assert_eq!(buf.param(4).unwrap(), &[0; 8], "no scratch: a null pointer");
    assert_eq!(buf.param(5).unwrap(), &[0; 8], "no profile scratch: a null pointer");
}

#[test]
fn an_amd_code_object_runs_only_on_its_processor() {
    let m = add_meta("gfx90a");
    assert_eq!(
        amd_code_for_device(&m, true, "gfx90a:sramecc+:xnack-"),
        Ok(CodeChoice::CodeObject)
    );
    assert_eq!(
        amd_code_for_device(&m, true, "gfx90a"),
        Ok(CodeChoice::CodeObject)
    );
    let err = amd_code_for_device(&m, true, "gfx942:sramecc+:xnack-").unwrap_err();
    assert!(
        err.contains("compiled for gfx90a, the GPU is gfx942"),
        "{err}"
    );
    assert!(amd_code_for_device(&m, false, "gfx90a").is_err());
    let err = amd_code_for_device(&add_meta("sm_90"), true, "gfx90a").unwrap_err();
    assert!(err.contains("not an AMD target"), "{err}");
}

#[test]
fn nvidia_selection_leaves_amd_bundles_to_the_load() {
    // A compute capability filters NVIDIA bundles only; an AMD bundle passes through to
    // the load, which matches it to the GPU.
    let bundles = [amd_bundle("gfx942")];
    assert_eq!(
        select_variant(&bundles, &args(0x7f00_0000_0000, 64), Some((9, 0))).unwrap(),
        0
    );
    assert_eq!(
        select_variant_on(&bundles, &args(0x7f00_0000_0000, 64), None).unwrap(),
        0
    );
}

#[cfg(feature = "hip")]
#[test]
fn without_an_amd_gpu_opening_one_is_an_error_value() {
    match Device::open_on(Backend::Hip, 0) {
        Ok(dev) => eprintln!(
            "an AMD GPU is present here ({}, {}): the no-device path cannot be observed",
            dev.name(),
            dev.arch()
        ),
        Err(err) => {
            assert!(matches!(err, RuntimeError::NoHipDevice { .. }), "{err}");
            assert_eq!(err.exit_code(), 3);
            let text = err.to_string();
            assert!(
                text.starts_with("no AMD GPU / HIP runtime found: "),
                "{text}"
            );
            // What the runtime said is kept: a failed count or a count of zero.
            assert!(
                text.contains("hipGetDeviceCount failed with hipError")
                    || text.contains("reports no devices"),
                "{text}"
            );
        }
    }
}

#[cfg(feature = "hip")]
#[test]
fn the_default_backend_switches_what_open_opens() {
    use tritonc_runtime::{default_backend, set_default_backend};
    assert_eq!(default_backend(), Backend::Cuda);
    set_default_backend(Backend::Hip);
    let result = Device::open(0);
    set_default_backend(Backend::Cuda);
    match result {
        Ok(dev) => assert_eq!(dev.backend(), Backend::Hip),
        Err(err) => assert!(matches!(err, RuntimeError::NoHipDevice { .. }), "{err}"),
    }
}

#[test]
fn a_backend_missing_from_the_build_is_not_implemented() {
    let err = RuntimeError::BackendNotBuilt {
        backend: Backend::Hip,
    };
    assert_eq!(err.exit_code(), 4);
    let text = err.to_string();
    assert!(
        text.starts_with("this build has no HIP launcher for AMD GPUs"),
        "{text}"
    );
    assert!(text.contains("`--features hip`"), "{text}");
    if !Backend::Hip.is_built() {
        let err = Device::open_on(Backend::Hip, 0).unwrap_err();
        assert!(matches!(err, RuntimeError::BackendNotBuilt { .. }), "{err}");
    }
}

#[test]
fn a_build_without_the_cuda_feature_says_which_feature_launches_nvidia_bundles() {
    let err = RuntimeError::BackendNotBuilt {
        backend: Backend::Cuda,
    };
    assert_eq!(err.exit_code(), 4);
    assert_eq!(
        err.to_string(),
        "this build has no CUDA launcher for NVIDIA GPUs: build with the `cuda` cargo feature \
         (on by default; it uses cudarc, which loads libcuda at run time)"
    );
    if !Backend::Cuda.is_built() {
        assert!(!Device::driver_present());
        let err = Device::open_on(Backend::Cuda, 0).unwrap_err();
        assert!(matches!(err, RuntimeError::BackendNotBuilt { .. }), "{err}");
    }
}
