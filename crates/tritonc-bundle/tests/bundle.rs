//! Bundle round trips, validation against the PTX, and version handling.

use std::path::PathBuf;

use tritonc_bundle::{
    ptx, Bundle, BundleError, BundleMeta, ConstValue, HiddenParam, HiddenParamKind, ParamAbi,
    ParamRole, PtxParamKind, PtxasReport, FORMAT_VERSION,
};
use tritonc_ir::DType;
use tritonc_sema::spec::KeyArg;
use tritonc_sema::{SpecializationKey, Target};

const VECTOR_ADD_PTX: &str = include_str!("../../tritonc-codegen/tests/golden/vector_add.ptx");

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tritonc-bundle-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn key(args: &[(&str, &str)]) -> SpecializationKey {
    SpecializationKey {
        kernel: "vector_add".into(),
        args: args
            .iter()
            .map(|(n, s)| KeyArg {
                name: n.to_string(),
                spec: s.to_string(),
            })
            .collect(),
        num_warps: 4,
        num_stages: 3,
        target: Target::cuda(90),
        debug: false,
        triton_version: Default::default(),
    }
}

fn ptr(index: u32) -> ParamRole {
    ParamRole::Passed {
        index,
        kind: PtxParamKind::Pointer {
            pointee: DType::F32,
            align: 16,
        },
    }
}

/// The golden vector add with a `BLOCK` constexpr: (x, y, out, n, BLOCK).
fn vector_add_bundle() -> Bundle {
    let key = key(&[
        ("x", "*fp32:16"),
        ("y", "*fp32:16"),
        ("out", "*fp32:16"),
        ("n", "i32"),
        ("BLOCK", "128"),
    ]);
    let names = ["x", "y", "out"];
    let mut params: Vec<ParamAbi> = names
        .iter()
        .enumerate()
        .map(|(i, n)| ParamAbi {
            name: n.to_string(),
            role: ptr(i as u32),
        })
        .collect();
    params.push(ParamAbi {
        name: "n".into(),
        role: ParamRole::Passed {
            index: 3,
            kind: PtxParamKind::Scalar {
                dtype: DType::I32,
                divisibility: None,
            },
        },
    });
    params.push(ParamAbi {
        name: "BLOCK".into(),
        role: ParamRole::Constexpr(ConstValue::Int(128)),
    });
    Bundle {
        meta: BundleMeta {
            format_version: FORMAT_VERSION,
            entry: "vector_add".into(),
            target: "sm_90".into(),
            key_hash: key.hash_hex(),
            key,
            num_warps: 4,
            dynamic_shared_bytes: 0,
            static_shared_bytes: 0,
            params,
            hidden_params: vec![],
            reduction_layouts: Some(serde_json::json!({"kind": "none"})),
            ptxas: Some(PtxasReport::parse(
                "ptxas info    : Used 10 registers, used 0 barriers, 384 bytes cmem[0]\n",
            )),
            min_driver_version: Some(12000),
        },
        ptx: VECTOR_ADD_PTX.to_string(),
        // A real cubin (of the example kernel): a bundle's cubin must be a well-formed
        // CUDA ELF file, which is all validation checks of it.
        cubin: Some(
            include_bytes!("../../../examples/rust/kernels/add_kernel.tcb/kernel.cubin").to_vec(),
        ),
    }
}

#[test]
fn golden_vector_add_entry_params_are_read() {
    let params = ptx::entry_params(VECTOR_ADD_PTX, "vector_add").expect("entry exists");
    assert_eq!(params.len(), 4);
    for p in &params[..3] {
        assert!(p.is_ptr);
        assert_eq!(p.ty, ".u64");
        assert_eq!(p.align, Some(16));
    }
    assert_eq!(params[3].ty, ".u32");
    assert!(!params[3].is_ptr);
    assert_eq!(params[3].name, "vector_add_param_3");
    assert_eq!(ptx::entry_names(VECTOR_ADD_PTX), vec!["vector_add"]);
    assert_eq!(tritonc_bundle::ptx_target(VECTOR_ADD_PTX), Some("sm_90a"));
}

#[test]
fn round_trip_through_a_directory() {
    let b = vector_add_bundle();
    b.validate()
        .expect("the hand-written bundle matches the golden PTX");
    let dir = temp_dir("round-trip").join(b.dir_name());
    b.write_dir(&dir).unwrap();
    let back = Bundle::read_dir(&dir).unwrap();
    assert_eq!(back, b);
    // Without a cubin the file goes away and reading gives None.
    let mut no_cubin = b.clone();
    no_cubin.cubin = None;
    no_cubin.write_dir(&dir).unwrap();
    assert!(!dir.join(tritonc_bundle::CUBIN_FILE).exists());
    assert_eq!(Bundle::read_dir(&dir).unwrap(), no_cubin);
    let listed = tritonc_bundle::list_bundle_dirs(dir.parent().unwrap()).unwrap();
    assert_eq!(listed, vec![dir.clone()]);
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn json_form_is_the_documented_one() {
    let b = vector_add_bundle();
    let v = serde_json::to_value(&b.meta).unwrap();
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["params"][0]["role"]["passed"]["index"], 0);
    assert_eq!(
        v["params"][0]["role"]["passed"]["kind"]["pointer"]["pointee"],
        "fp32"
    );
    assert_eq!(
        v["params"][0]["role"]["passed"]["kind"]["pointer"]["align"],
        16
    );
    assert_eq!(
        v["params"][3]["role"]["passed"]["kind"]["scalar"]["dtype"],
        "i32"
    );
    assert_eq!(v["params"][4]["role"]["constexpr"]["int"], 128);
    let eq1 = serde_json::to_value(ParamRole::EqualToOne).unwrap();
    assert_eq!(eq1, serde_json::json!("equal_to_one"));
    let hidden = HiddenParam {
        index: 4,
        kind: HiddenParamKind::GlobalScratch {
            bytes_per_program: 0,
            align: 1,
        },
    };
    let hv = serde_json::to_value(&hidden).unwrap();
    assert_eq!(hv["kind"]["global_scratch"]["bytes_per_program"], 0);
    let back: HiddenParam = serde_json::from_value(hv).unwrap();
    assert_eq!(back, hidden);
}

#[test]
fn every_const_value_round_trips() {
    for c in [
        ConstValue::None,
        ConstValue::Bool(true),
        ConstValue::Int(-7),
        ConstValue::Float(0.5),
        ConstValue::Str("rtne".into()),
        ConstValue::Dtype(DType::BF16),
    ] {
        let text = serde_json::to_string(&c).unwrap();
        let back: ConstValue = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c, "{text}");
    }
    assert_eq!(ConstValue::Dtype(DType::F16).to_string(), "tl.float16");
    assert_eq!(ConstValue::Str("rtne".into()).to_string(), "'rtne'");
}

#[test]
fn unknown_dtype_in_metadata_is_a_json_error() {
    let mut v = serde_json::to_value(vector_add_bundle().meta).unwrap();
    v["params"][0]["role"]["passed"]["kind"]["pointer"]["pointee"] = "fp13".into();
    let err = serde_json::from_value::<BundleMeta>(v).unwrap_err();
    assert!(err.to_string().contains("unknown dtype `fp13`"), "{err}");
}

#[test]
fn newer_format_version_is_refused_by_name() {
    let b = vector_add_bundle();
    let dir = temp_dir("version");
    b.write_dir(&dir).unwrap();
    let meta_path = dir.join(tritonc_bundle::META_FILE);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    v["format_version"] = 3.into();
    // A future version may rename fields; the version is still what is reported.
    v.as_object_mut().unwrap().remove("entry");
    std::fs::write(&meta_path, v.to_string()).unwrap();
    let err = Bundle::read_dir(&dir).unwrap_err();
    assert!(
        matches!(
            err,
            BundleError::UnsupportedVersion {
                found: 3,
                supported: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("newer tritonc"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn metadata_that_contradicts_the_ptx_is_refused() {
    let mut b = vector_add_bundle();
    // n declared as i64: the PTX passes .u32.
    b.meta.params[3].role = ParamRole::Passed {
        index: 3,
        kind: PtxParamKind::Scalar {
            dtype: DType::I64,
            divisibility: None,
        },
    };
    let err = b.validate().unwrap_err();
    assert!(err.contains("parameter 3"), "{err}");

    let mut b = vector_add_bundle();
    b.meta.params[0].role = ParamRole::Passed {
        index: 0,
        kind: PtxParamKind::Pointer {
            pointee: DType::F32,
            align: 1,
        },
    };
    let err = b.validate().unwrap_err();
    assert!(err.contains(".align 16"), "{err}");

    let mut b = vector_add_bundle();
    b.meta.hidden_params.push(HiddenParam {
        index: 4,
        kind: HiddenParamKind::GlobalScratch {
            bytes_per_program: 0,
            align: 1,
        },
    });
    let err = b.validate().unwrap_err();
    assert!(
        err.contains("declares 4 parameter(s) but the metadata passes 5"),
        "{err}"
    );

    let mut b = vector_add_bundle();
    b.meta.entry = "vector_sub".into();
    let err = b.validate().unwrap_err();
    assert!(
        err.contains("no `.entry vector_sub` (entries: vector_add)"),
        "{err}"
    );

    let mut b = vector_add_bundle();
    b.meta.target = "sm_80".into();
    let err = b.validate().unwrap_err();
    assert!(err.contains(".target sm_90"), "{err}");

    let mut b = vector_add_bundle();
    b.meta.key.num_warps = 8;
    let err = b.validate().unwrap_err();
    assert!(err.contains("key_hash"), "{err}");
}

#[test]
fn ptxas_report_is_parsed() {
    let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'softmax_row' for 'sm_90'\n\
ptxas info    : Function properties for softmax_row\n\
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 20 registers, used 1 barriers, 64 bytes smem, 368 bytes cmem[0]\n";
    let r = PtxasReport::parse(log);
    assert_eq!(
        (r.registers, r.spill_stores, r.spill_loads, r.shared_bytes),
        (20, 4, 12, 64)
    );
}

#[test]
fn sm_targets_parse() {
    use tritonc_bundle::parse_sm;
    assert_eq!(parse_sm("sm_90"), Some((9, 0, false)));
    assert_eq!(parse_sm("sm_90a"), Some((9, 0, true)));
    assert_eq!(parse_sm("sm_86"), Some((8, 6, false)));
    assert_eq!(parse_sm("sm_120"), Some((12, 0, false)));
    assert_eq!(parse_sm("sm_9"), None);
    assert_eq!(parse_sm("compute_90"), None);
}

#[test]
fn abi_from_a_specialization_follows_declaration_order() {
    use tritonc_bundle::abi_in_declaration_order;
    use tritonc_sema::{ArgSpec, Constexpr, LaunchOptions, Specialization};
    let spec = Specialization {
        kernel: "k".into(),
        params: vec![
            (
                "n".into(),
                ArgSpec::Scalar {
                    dtype: DType::I32,
                    divisibility: Some(16),
                },
            ),
            (
                "x".into(),
                ArgSpec::Pointer {
                    pointee: DType::F16,
                    is_const: false,
                    divisibility: Some(16),
                },
            ),
            ("stride".into(), ArgSpec::Constexpr(Constexpr::Int(1))),
            ("BLOCK".into(), ArgSpec::Constexpr(Constexpr::Int(1))),
            (
                "y".into(),
                ArgSpec::Pointer {
                    pointee: DType::BF16,
                    is_const: true,
                    divisibility: None,
                },
            ),
            (
                "DT".into(),
                ArgSpec::Constexpr(Constexpr::DType(tritonc_ir::Elem::DType(DType::F32))),
            ),
        ],
        options: LaunchOptions::default(),
    };
    let abi = abi_in_declaration_order(&spec, &["BLOCK", "DT"]).unwrap();
    let roles: Vec<&ParamRole> = abi.iter().map(|p| &p.role).collect();
    assert_eq!(
        roles,
        vec![
            &ParamRole::Passed {
                index: 0,
                kind: PtxParamKind::Scalar {
                    dtype: DType::I32,
                    divisibility: Some(16)
                }
            },
            &ParamRole::Passed {
                index: 1,
                kind: PtxParamKind::Pointer {
                    pointee: DType::F16,
                    align: 16
                }
            },
            &ParamRole::EqualToOne,
            &ParamRole::Constexpr(ConstValue::Int(1)),
            &ParamRole::Passed {
                index: 2,
                kind: PtxParamKind::Pointer {
                    pointee: DType::BF16,
                    align: 1
                }
            },
            &ParamRole::Constexpr(ConstValue::Dtype(DType::F32)),
        ]
    );
    let tuple = Specialization {
        params: vec![("T".into(), ArgSpec::Constexpr(Constexpr::Tuple(vec![])))],
        ..spec
    };
    let err = abi_in_declaration_order(&tuple, &["T"]).unwrap_err();
    assert_eq!(err.param, "T");
}

/// A code object upstream Triton 3.6 built for gfx942 from add_kernel (x, y, out, n, BLOCK):
/// `triton.compile(ASTSource(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr":
/// "*fp32", "n_elements": "i32", "BLOCK_SIZE": "constexpr"}, {"BLOCK_SIZE": 1024}),
/// target=GPUTarget("hip", "gfx942", 64)).asm["hsaco"]`.
const GFX942_ADD_KERNEL: &[u8] = include_bytes!("fixtures/add_kernel.gfx942.hsaco");

/// The vector add as an AMD bundle: same metadata, a gfx942 code object, no PTX.
fn amd_vector_add_bundle() -> Bundle {
    let mut b = vector_add_bundle();
    b.meta.format_version = tritonc_bundle::AMD_FORMAT_VERSION;
    b.meta.target = "gfx942".into();
    b.meta.ptxas = None;
    b.ptx = String::new();
    b.cubin = Some(GFX942_ADD_KERNEL.to_vec());
    b
}

#[test]
fn amd_targets_parse() {
    use tritonc_bundle::{format_version_for, parse_gfx};
    assert_eq!(parse_gfx("gfx90a"), Some("gfx90a"));
    assert_eq!(parse_gfx("gfx942"), Some("gfx942"));
    assert_eq!(parse_gfx("gfx1100"), Some("gfx1100"));
    assert_eq!(
        parse_gfx("gfx90a:xnack-"),
        None,
        "features are not part of a target"
    );
    assert_eq!(parse_gfx("gfx9"), None);
    assert_eq!(parse_gfx("sm_90"), None);
    assert_eq!(format_version_for("gfx942"), 2);
    assert_eq!(format_version_for("sm_90"), FORMAT_VERSION);
}

#[test]
fn amd_bundle_round_trips_with_its_code_object() {
    let b = amd_vector_add_bundle();
    b.validate().expect("a well-formed AMD bundle");
    assert_eq!(b.hsaco(), b.cubin.as_deref());
    assert_eq!(
        vector_add_bundle().hsaco(),
        None,
        "an NVIDIA cubin is no HSACO"
    );
    let dir = temp_dir("amd").join(b.dir_name());
    b.write_dir(&dir).unwrap();
    assert!(dir.join(tritonc_bundle::HSACO_FILE).is_file());
    assert!(!dir.join(tritonc_bundle::PTX_FILE).exists());
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(tritonc_bundle::META_FILE)).unwrap(),
    )
    .unwrap();
    assert_eq!(v["format_version"], 2);
    assert_eq!(v["target"], "gfx942");
    assert_eq!(Bundle::read_dir(&dir).unwrap(), b);
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn amd_bundles_are_checked_for_version_and_code() {
    let mut wrong_version = amd_vector_add_bundle();
    wrong_version.meta.format_version = FORMAT_VERSION;
    let err = wrong_version.validate().unwrap_err();
    assert!(err.contains("expected 2 for target `gfx942`"), "{err}");

    let mut no_code = amd_vector_add_bundle();
    no_code.cubin = None;
    assert!(no_code.validate().unwrap_err().contains("no code object"));

    let mut not_elf = amd_vector_add_bundle();
    not_elf.cubin = Some(b"MZ".to_vec());
    assert!(not_elf.validate().unwrap_err().contains("not an ELF"));

    // An NVIDIA cubin (EM_CUDA, 190) is an ELF file, but no AMDGPU code object.
    let mut cubin = GFX942_ADD_KERNEL.to_vec();
    cubin[18..20].copy_from_slice(&190u16.to_le_bytes());
    let mut nvidia_code = amd_vector_add_bundle();
    nvidia_code.cubin = Some(cubin);
    let err = nvidia_code.validate().unwrap_err();
    assert!(err.contains("machine 190, not AMDGPU (224)"), "{err}");

    // The metadata must name the processor the code object was built for.
    let mut other_processor = amd_vector_add_bundle();
    other_processor.meta.target = "gfx90a".into();
    let err = other_processor.validate().unwrap_err();
    assert!(
        err.contains("the metadata says `gfx90a` but the code object was built for gfx942"),
        "{err}"
    );
    // A processor whose EF_AMDGPU_MACH is not known is not checked.
    other_processor.meta.target = "gfx1030".into();
    other_processor.validate().expect("gfx1030 is not checked");

    let mut with_ptx = amd_vector_add_bundle();
    with_ptx.ptx = VECTOR_ADD_PTX.into();
    assert!(with_ptx.validate().unwrap_err().contains("carries PTX"));

    let mut unknown = vector_add_bundle();
    unknown.meta.target = "rdna3".into();
    let err = unknown.validate().unwrap_err();
    assert!(
        err.contains("neither of the form sm_XY nor an AMD gfx"),
        "{err}"
    );
}

#[test]
fn amd_bundle_parameter_indices_must_run_without_gaps() {
    // Without PTX to compare against, the metadata's own parameter indices are all a
    // launcher has to lay out the kernel arguments: one past the end would be written
    // out of the argument buffer.
    let mut gap = amd_vector_add_bundle();
    let last = gap
        .meta
        .params
        .iter_mut()
        .rev()
        .find_map(|p| match &mut p.role {
            ParamRole::Passed { index, .. } => Some(index),
            _ => None,
        })
        .expect("vector_add passes parameters");
    *last = 99;
    let err = gap.validate().unwrap_err();
    assert!(err.contains("without gaps"), "{err}");

    let mut twice = amd_vector_add_bundle();
    let indices: Vec<&mut u32> = twice
        .meta
        .params
        .iter_mut()
        .filter_map(|p| match &mut p.role {
            ParamRole::Passed { index, .. } => Some(index),
            _ => None,
        })
        .collect();
    let n = indices.len();
    for (i, index) in indices.into_iter().enumerate() {
        *index = (i as u32).min(n as u32 - 2);
    }
    let err = twice.validate().unwrap_err();
    assert!(err.contains("without gaps"), "{err}");
}

#[test]
fn a_bundle_from_bytes_is_the_bundle_read_from_its_directory() {
    let b = vector_add_bundle();
    let dir = temp_dir("from-bytes").join(b.dir_name());
    b.write_dir(&dir).unwrap();
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let meta = read(tritonc_bundle::META_FILE);
    let ptx = read(tritonc_bundle::PTX_FILE);
    let cubin = read(tritonc_bundle::CUBIN_FILE);
    let embedded = Bundle::from_bytes(&meta, &ptx, Some(&cubin)).unwrap();
    assert_eq!(embedded, Bundle::read_dir(&dir).unwrap());
    // Validated as a directory is: PTX whose entry does not match the metadata is refused.
    let other = VECTOR_ADD_PTX.replace(".entry vector_add", ".entry other");
    let err = Bundle::from_bytes(&meta, other.as_bytes(), None).unwrap_err();
    assert!(matches!(err, BundleError::Inconsistent { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("(embedded): inconsistent bundle"),
        "{err}"
    );
    let err = Bundle::from_bytes(b"{\"format_version\": 9}", &ptx, None).unwrap_err();
    assert!(
        err.to_string().contains("written by a newer tritonc"),
        "{err}"
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn the_minimum_driver_is_recorded_and_may_not_understate_the_ptx() {
    let mut b = vector_add_bundle();
    // `.version 8.0`: CUDA 12.0.
    assert_eq!(b.min_driver_version(), Some(12000));
    let v = serde_json::to_value(&b.meta).unwrap();
    assert_eq!(v["min_driver_version"], 12000);
    // Older bundles without the field: read from the PTX.
    b.meta.min_driver_version = None;
    assert_eq!(b.min_driver_version(), Some(12000));
    let v = serde_json::to_value(&b.meta).unwrap();
    assert!(v.get("min_driver_version").is_none());
    b.validate().unwrap();
    b.meta.min_driver_version = Some(11080);
    let err = b.validate().unwrap_err();
    assert!(
        err.contains("older than the 12000 the PTX's `.version` needs"),
        "{err}"
    );
}
