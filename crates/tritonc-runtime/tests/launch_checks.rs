//! GPU-free tests: parameter-buffer layout, launch-time specialization checks, variant
//! selection, device compatibility, and the no-driver path.

use tritonc_bundle::{
    Bundle, BundleMeta, ConstValue, HiddenParam, HiddenParamKind, ParamAbi, ParamRole,
    PtxParamKind, FORMAT_VERSION,
};
use tritonc_runtime::{
    check_and_marshal, code_for_bundle, code_for_device, select_variant, Arg, CodeChoice, DType, Device, DevicePtr,
    ParamBuffer, RuntimeError, Violation,
};
use tritonc_sema::spec::KeyArg;
use tritonc_sema::{SpecializationKey, Target};

/// A parameter of a hand-written ABI.
enum P {
    Ptr(DType, u32),
    Scalar(DType, Option<u32>),
    Const(ConstValue),
    One,
}

fn meta(kernel: &str, params: &[(&str, P)]) -> BundleMeta {
    let mut next = 0;
    let mut abi = Vec::new();
    let mut key_args = Vec::new();
    for (name, p) in params {
        let (role, spec) = match p {
            P::Ptr(d, a) => {
                next += 1;
                (
                    ParamRole::Passed {
                        index: next - 1,
                        kind: PtxParamKind::Pointer {
                            pointee: *d,
                            align: *a,
                        },
                    },
                    format!(
                        "*{}{}",
                        d.signature_name().unwrap(),
                        if *a == 16 { ":16" } else { "" }
                    ),
                )
            }
            P::Scalar(d, div) => {
                next += 1;
                (
                    ParamRole::Passed {
                        index: next - 1,
                        kind: PtxParamKind::Scalar {
                            dtype: *d,
                            divisibility: *div,
                        },
                    },
                    format!(
                        "{}{}",
                        d.signature_name().unwrap(),
                        if div.is_some() { ":16" } else { "" }
                    ),
                )
            }
            P::Const(c) => (ParamRole::Constexpr(c.clone()), c.to_string()),
            P::One => (ParamRole::EqualToOne, "1".to_string()),
        };
        abi.push(ParamAbi {
            name: name.to_string(),
            role,
        });
        key_args.push(KeyArg {
            name: name.to_string(),
            spec,
        });
    }
    let key = SpecializationKey {
        kernel: kernel.into(),
        args: key_args,
        num_warps: 4,
        num_stages: 3,
        target: Target::cuda(90),
        debug: false,
        triton_version: Default::default(),
    };
    BundleMeta {
        format_version: FORMAT_VERSION,
        entry: kernel.into(),
        target: "sm_90".into(),
        key_hash: key.hash_hex(),
        key,
        num_warps: 4,
        dynamic_shared_bytes: 0,
        static_shared_bytes: 0,
        params: abi,
        hidden_params: vec![],
        reduction_layouts: None,
        ptxas: None,
        min_driver_version: None,
    }
}

/// add_kernel(x, y, out, n, BLOCK) with everything `:16`.
fn add_meta(align: u32, n_div: Option<u32>) -> BundleMeta {
    meta(
        "add_kernel",
        &[
            ("x", P::Ptr(DType::F32, align)),
            ("y", P::Ptr(DType::F32, align)),
            ("out", P::Ptr(DType::F32, align)),
            ("n", P::Scalar(DType::I32, n_div)),
            ("BLOCK", P::Const(ConstValue::Int(1024))),
        ],
    )
}

fn f32_at(addr: u64) -> Arg {
    Arg::Pointer(DevicePtr {
        addr,
        dtype: DType::F32,
        bytes: 4096,
    })
}

fn add_args(x: u64, n: i64, block: i64) -> Vec<Arg> {
    vec![
        f32_at(x),
        f32_at(0x7f00_0000_1000),
        f32_at(0x7f00_0000_2000),
        Arg::Int(n),
        Arg::Int(block),
    ]
}

fn violations(meta: &BundleMeta, args: &[Arg]) -> Vec<Violation> {
    check_and_marshal(meta, args).expect_err("the launch must be refused")
}

#[test]
fn vector_add_params_are_laid_out_as_cuda_expects() {
    let buf = check_and_marshal(&add_meta(16, None), &add_args(0x7f00_0000_0000, 5000, 1024))
        .expect("aligned pointers and the compiled BLOCK are accepted");
    assert_eq!(buf.offsets(), &[0, 8, 16, 24]);
    assert_eq!(buf.param(0).unwrap(), &0x7f00_0000_0000u64.to_le_bytes());
    assert_eq!(buf.param(2).unwrap(), &0x7f00_0000_2000u64.to_le_bytes());
    assert_eq!(buf.param(3).unwrap(), &5000i32.to_le_bytes());
    assert_eq!(buf.bytes().len(), 32);
}

#[test]
fn scalars_are_aligned_to_their_size() {
    let m = meta(
        "mixed",
        &[
            ("h", P::Scalar(DType::F16, None)),
            ("i", P::Scalar(DType::I32, None)),
            ("b", P::Scalar(DType::I1, None)),
            ("l", P::Scalar(DType::I64, None)),
            ("p", P::Ptr(DType::BF16, 1)),
            ("f", P::Scalar(DType::F32, None)),
            ("u", P::Scalar(DType::U8, None)),
        ],
    );
    let args = [
        Arg::Float(1.5),
        Arg::Int(-2),
        Arg::Bool(true),
        Arg::Int(1 << 40),
        Arg::Pointer(DevicePtr {
            addr: 0x1003,
            dtype: DType::BF16,
            bytes: 2,
        }),
        Arg::Int(3),
        Arg::Int(255),
    ];
    let buf = check_and_marshal(&m, &args).unwrap();
    assert_eq!(buf.offsets(), &[0, 4, 8, 16, 24, 32, 36]);
    assert_eq!(
        buf.param(0).unwrap(),
        &half::f16::from_f32(1.5).to_bits().to_le_bytes()
    );
    assert_eq!(buf.param(1).unwrap(), &(-2i32).to_le_bytes());
    assert_eq!(buf.param(2).unwrap(), &[1]);
    assert_eq!(buf.param(3).unwrap(), &(1i64 << 40).to_le_bytes());
    // An unhinted pointer may have any address.
    assert_eq!(buf.param(4).unwrap(), &0x1003u64.to_le_bytes());
    // An int passed for a float parameter is converted, as Python does.
    assert_eq!(buf.param(5).unwrap(), &3.0f32.to_bits().to_le_bytes());
    assert_eq!(buf.param(6).unwrap(), &[255]);
}

#[test]
fn parameter_indices_past_the_buffer_are_refused_not_a_panic() {
    let mut buf = ParamBuffer::layout(&[8, 4]).unwrap();
    assert_eq!(buf.param(2), None);
    assert_eq!(buf.param(usize::MAX), None);
    assert!(!buf.set(2, 1));
    assert!(!buf.set(usize::MAX, 1));
    // Nothing was written.
    assert_eq!(buf.param(0).unwrap(), &[0; 8]);
    assert_eq!(buf.param(1).unwrap(), &[0; 4]);
}

#[test]
fn kernel_params_point_into_the_buffer() {
    let mut buf = ParamBuffer::layout(&[8, 4, 4]).unwrap();
    assert!(buf.set(0, 0xdead_beef_0000_0010));
    assert!(buf.set(2, 7));
    let ptrs = buf.kernel_params();
    // SAFETY (test): the pointers come from kernel_params over live storage.
    unsafe {
        assert_eq!(*(ptrs[0] as *const u64), 0xdead_beef_0000_0010);
        assert_eq!(*(ptrs[2] as *const u32), 7);
    }
}

#[test]
fn misaligned_pointer_is_refused_by_name() {
    let v = violations(&add_meta(16, None), &add_args(0x7f00_0000_0004, 64, 1024));
    assert_eq!(
        v,
        vec![Violation::PointerAlignment {
            param: "x".into(),
            align: 16,
            addr: 0x7f00_0000_0004
        }]
    );
    let msg = v[0].to_string();
    assert!(
        msg.contains("`x` was specialized as 16-byte aligned (`:16`)"),
        "{msg}"
    );
    assert!(msg.contains("0x7f0000000004"), "{msg}");
    // The same address is fine for a variant compiled without the hint.
    assert!(check_and_marshal(&add_meta(1, None), &add_args(0x7f00_0000_0004, 64, 1024)).is_ok());
}

#[test]
fn a_view_at_an_odd_offset_breaks_alignment() {
    let base = DevicePtr {
        addr: 0x7f00_0000_0000,
        dtype: DType::F32,
        bytes: 4096,
    };
    let view = base.offset(1).unwrap();
    assert_eq!(view.addr, 0x7f00_0000_0004);
    assert_eq!(view.bytes, 4092);
    assert!(base.offset(4).is_some_and(|p| p.addr % 16 == 0));
    assert!(base.offset(2000).is_none());
}

#[test]
fn divisibility_of_ints_is_checked() {
    let m = add_meta(16, Some(16));
    assert!(check_and_marshal(&m, &add_args(0x7f00_0000_0000, 4096, 1024)).is_ok());
    let v = violations(&m, &add_args(0x7f00_0000_0000, 4097, 1024));
    assert_eq!(
        v,
        vec![Violation::Divisibility {
            param: "n".into(),
            divisor: 16,
            value: 4097
        }]
    );
    // Negative multiples are multiples.
    let m = meta("k", &[("s", P::Scalar(DType::I32, Some(16)))]);
    assert!(check_and_marshal(&m, &[Arg::Int(-32)]).is_ok());
}

#[test]
fn equal_to_one_is_checked() {
    let m = meta("k", &[("p", P::Ptr(DType::F16, 16)), ("stride", P::One)]);
    let p = Arg::Pointer(DevicePtr {
        addr: 0x1000,
        dtype: DType::F16,
        bytes: 64,
    });
    let buf = check_and_marshal(&m, &[p.clone(), Arg::Int(1)]).unwrap();
    assert_eq!(buf.len(), 1, "a `:1` int is not passed");
    assert!(check_and_marshal(&m, &[p.clone(), Arg::AsCompiled]).is_ok());
    let v = violations(&m, &[p, Arg::Int(2)]);
    assert_eq!(
        v[0].to_string(),
        "`stride` was specialized as equal to 1 (`:1`), but it is the int 2"
    );
}

#[test]
fn constexpr_values_must_match() {
    let v = violations(&add_meta(16, None), &add_args(0x7f00_0000_0000, 64, 512));
    assert_eq!(
        v[0].to_string(),
        "constexpr `BLOCK` was compiled as 1024, but the launch gives the int 512"
    );
    let m = meta(
        "k",
        &[
            ("MODE", P::Const(ConstValue::Str("rtne".into()))),
            ("DT", P::Const(ConstValue::Dtype(DType::F16))),
            ("EPS", P::Const(ConstValue::Float(1e-5))),
            ("FLAG", P::Const(ConstValue::Bool(true))),
        ],
    );
    let good = [
        Arg::Const(ConstValue::Str("rtne".into())),
        Arg::Const(ConstValue::Dtype(DType::F16)),
        Arg::Float(1e-5),
        Arg::Bool(true),
    ];
    assert!(check_and_marshal(&m, &good).is_ok());
    // True is not the int 1 for specialization purposes.
    let bad = [
        Arg::Const(ConstValue::Str("rtz".into())),
        Arg::Const(ConstValue::Dtype(DType::BF16)),
        Arg::Float(1e-6),
        Arg::Int(1),
    ];
    let v = violations(&m, &bad);
    assert_eq!(v.len(), 4, "every broken assumption is reported: {v:?}");
}

#[test]
fn pointer_dtype_must_match_the_tensor() {
    let mut args = add_args(0x7f00_0000_0000, 64, 1024);
    args[1] = Arg::Pointer(DevicePtr {
        addr: 0x7f00_0000_1000,
        dtype: DType::F16,
        bytes: 64,
    });
    let v = violations(&add_meta(16, None), &args);
    assert_eq!(
        v[0].to_string(),
        "`y` was compiled as `*fp32` but the tensor holds fp16"
    );
}

#[test]
fn ints_must_fit_their_parameter() {
    let m = add_meta(16, None);
    let v = violations(&m, &add_args(0x7f00_0000_0000, 1 << 31, 1024));
    assert_eq!(
        v,
        vec![Violation::OutOfRange {
            param: "n".into(),
            dtype: DType::I32,
            value: 1 << 31
        }]
    );
    assert!(check_and_marshal(&m, &add_args(0x7f00_0000_0000, i32::MIN as i64, 1024)).is_ok());
    let u = meta("k", &[("u", P::Scalar(DType::U32, None))]);
    assert!(check_and_marshal(&u, &[Arg::Int(-1)]).is_err());
    assert!(check_and_marshal(&u, &[Arg::Int(u32::MAX as i64)]).is_ok());
}

#[test]
fn wrong_kinds_and_counts_are_refused() {
    let m = add_meta(16, None);
    let mut args = add_args(0x7f00_0000_0000, 64, 1024);
    args.swap(0, 3);
    let v = violations(&m, &args);
    assert_eq!(v.len(), 2);
    assert!(matches!(&v[0], Violation::WrongKind { param, .. } if param == "x"));
    assert_eq!(
        v[1].to_string(),
        "`n` expects an int (i32), got a pointer to fp32 at 0x7f0000000000"
    );
    let v = violations(&m, &args[..4]);
    assert_eq!(
        v,
        vec![Violation::ArgumentCount {
            expected: 5,
            given: 4
        }]
    );
    let mut args = add_args(0x7f00_0000_0000, 64, 1024);
    args[3] = Arg::AsCompiled;
    assert_eq!(
        violations(&m, &args),
        vec![Violation::NeedsValue { param: "n".into() }]
    );
    let f8 = meta("k", &[("s", P::Scalar(DType::F8E5M2, None))]);
    assert!(matches!(
        violations(&f8, &[Arg::Float(1.0)])[0],
        Violation::Unsupported { .. }
    ));
}

#[test]
fn hidden_scratch_parameter_gets_a_slot() {
    let mut m = add_meta(16, None);
    m.hidden_params.push(HiddenParam {
        index: 4,
        kind: HiddenParamKind::GlobalScratch {
            bytes_per_program: 0,
            align: 1,
        },
    });
    let buf = check_and_marshal(&m, &add_args(0x7f00_0000_0000, 64, 1024)).unwrap();
    assert_eq!(buf.offsets(), &[0, 8, 16, 24, 32]);
    assert_eq!(buf.param(4).unwrap(), &[0; 8], "a size-0 scratch is a null pointer");
}

fn bundle(meta: BundleMeta) -> Bundle {
    Bundle {
        meta,
        ptx: String::new(),
        cubin: None,
    }
}

#[test]
fn the_most_specialized_matching_variant_is_chosen() {
    let bundles = [
        bundle(add_meta(1, None)),
        bundle(add_meta(16, Some(16))),
        bundle(add_meta(16, None)),
    ];
    let aligned = add_args(0x7f00_0000_0000, 4096, 1024);
    assert_eq!(select_variant(&bundles, &aligned, Some((9, 0))).unwrap(), 1);
    let odd_n = add_args(0x7f00_0000_0000, 4097, 1024);
    assert_eq!(select_variant(&bundles, &odd_n, Some((9, 0))).unwrap(), 2);
    let misaligned = add_args(0x7f00_0000_0008, 4096, 1024);
    assert_eq!(select_variant(&bundles, &misaligned, None).unwrap(), 0);
    let wrong_block = add_args(0x7f00_0000_0000, 4096, 128);
    let err = select_variant(&bundles, &wrong_block, None).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let RuntimeError::NoMatchingVariant(ref nm) = err else {
        panic!("expected NoMatchingVariant, got {err}");
    };
    assert_eq!(nm.refusals.len(), 3);
    assert!(
        err.to_string()
            .contains("none of the 3 compiled variant(s)"),
        "{err}"
    );
}

#[test]
fn a_single_variant_refusal_names_the_assumption() {
    let bundles = [bundle(add_meta(16, None))];
    let err = select_variant(&bundles, &add_args(0x7f00_0000_0004, 64, 1024), None).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let text = err.to_string();
    assert!(
        text.starts_with("launch refused: `x` was specialized as 16-byte aligned"),
        "{text}"
    );
    assert!(
        text.contains("compiled variant: add_kernel(x=*fp32:16"),
        "{text}"
    );
    // A bundle for a newer GPU is incompatible, not refused.
    let err = select_variant(
        &bundles,
        &add_args(0x7f00_0000_0000, 64, 1024),
        Some((8, 0)),
    )
    .unwrap_err();
    assert!(
        matches!(err, RuntimeError::IncompatibleBundle { .. }),
        "{err}"
    );
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn code_choice_follows_cuda_compatibility() {
    let mut m = add_meta(16, None);
    assert_eq!(code_for_device(&m, true, (9, 0)), Ok(CodeChoice::Cubin));
    assert_eq!(code_for_device(&m, false, (9, 0)), Ok(CodeChoice::Ptx));
    // A newer major runs the PTX through the JIT, never the cubin.
    assert_eq!(code_for_device(&m, true, (10, 0)), Ok(CodeChoice::Ptx));
    assert!(code_for_device(&m, true, (8, 9)).is_err());
    m.target = "sm_80".into();
    assert_eq!(code_for_device(&m, true, (8, 6)), Ok(CodeChoice::Cubin));
    m.target = "sm_90a".into();
    assert_eq!(code_for_device(&m, true, (9, 0)), Ok(CodeChoice::Cubin));
    let err = code_for_device(&m, true, (10, 0)).unwrap_err();
    assert!(err.contains("architecture-specific"), "{err}");
}

#[test]
fn an_sm_90_bundle_with_sm_90a_code_runs_on_capability_9_0_only() {
    // `--target sm_90` compiles `sm_90a` PTX (wgmma): the metadata says sm_90, the code
    // needs exactly 9.0, so newer GPUs must refuse it rather than fail in the JIT.
    let mut b = bundle(add_meta(16, None));
    b.meta.target = "sm_90".into();
    b.ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n".into();
    b.cubin = Some(vec![0x7f, b'E', b'L', b'F']);
    assert_eq!(b.code_capability(), Some((9, 0, true)));
    assert_eq!(code_for_bundle(&b, (9, 0)), Ok(CodeChoice::Cubin));
    for newer in [(10, 0), (12, 0)] {
        let err = code_for_bundle(&b, newer).unwrap_err();
        assert!(err.contains("sm_90a") && err.contains("architecture-specific"), "{err}");
    }
    // An sm_80 bundle's PTX runs on them through the driver's JIT.
    b.meta.target = "sm_80".into();
    b.ptx = ".version 7.0\n.target sm_80\n.address_size 64\n".into();
    assert_eq!(b.code_capability(), Some((8, 0, false)));
    assert_eq!(code_for_bundle(&b, (12, 0)), Ok(CodeChoice::Ptx));
    assert_eq!(code_for_bundle(&b, (8, 6)), Ok(CodeChoice::Cubin));
    // Without a `.target` line the metadata decides.
    b.ptx = String::new();
    b.meta.target = "sm_86".into();
    assert_eq!(b.code_capability(), Some((8, 6, false)));
}

#[test]
fn without_a_driver_opening_a_device_is_an_error_value() {
    if Device::driver_present() {
        eprintln!("libcuda is present here: the no-driver path cannot be observed");
        return;
    }
    let err = Device::open(0).expect_err("no driver, no device");
    assert!(matches!(err, RuntimeError::NoDriver { .. }), "{err}");
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().starts_with("no NVIDIA driver"), "{err}");
    assert!(err.to_string().contains("libcuda.so"), "{err}");
}

#[test]
fn a_driver_older_than_the_ptx_needs_is_refused_with_what_it_needs() {
    let mut bundle = Bundle {
        meta: add_meta(16, Some(16)),
        ptx: "//\n.version 8.7\n.target sm_90\n.address_size 64\n".into(),
        cubin: None,
    };
    // Read from the PTX's `.version` when the metadata does not say.
    let err = tritonc_runtime::check_ptx_driver(&bundle, 12040).unwrap_err();
    assert_eq!(
        err,
        "its PTX (ISA 8.7) needs a CUDA 12.8 driver or newer to be compiled at load, but this \
         driver supports CUDA 12.4; update the NVIDIA driver, or compile with a ptxas this \
         driver accepts cubins from"
    );
    assert_eq!(tritonc_runtime::check_ptx_driver(&bundle, 12080), Ok(()));
    assert_eq!(tritonc_runtime::check_ptx_driver(&bundle, 13000), Ok(()));
    // The metadata's figure wins.
    bundle.meta.min_driver_version = Some(13000);
    assert!(tritonc_runtime::check_ptx_driver(&bundle, 12080)
        .unwrap_err()
        .contains("needs a CUDA 13.0 driver"));
}

#[test]
fn a_stream_is_the_callers_raw_handle() {
    use tritonc_runtime::Stream;
    assert!(Stream::DEFAULT.as_raw().is_null());
    let handle = 0x5555_0000usize as *mut std::ffi::c_void;
    // SAFETY: the handle is only compared, never given to a driver.
    let s = unsafe { Stream::from_raw(handle) };
    assert_eq!(s.as_raw(), handle);
}
