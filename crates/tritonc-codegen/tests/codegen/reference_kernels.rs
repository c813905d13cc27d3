//! The hand-built reference kernels: build them in MLIR, lower them to PTX, check the PTX's
//! shape and let ptxas (when installed) assemble it for sm_80 and sm_90.

use std::path::{Path, PathBuf};

use melior::ir::Location;
use tritonc_codegen::{
    codegen_context,
    kernels::{softmax_row, vector_add},
    lower_module, lower_to_ptx, CodegenError, KernelModule, KernelParam, Target, Ptxas,
};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Compares `ptx` with the golden `tests/golden/{stem}.ptx`, or (re)writes the golden
/// when `TRITONC_UPDATE_GOLDEN` is set.
pub fn check_golden(stem: &str, ptx: &str) {
    let path = golden_path(&format!("{stem}.ptx"));
    if std::env::var_os("TRITONC_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, ptx).expect("golden written");
        return;
    }
    let golden = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} missing; run with TRITONC_UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(
        golden, ptx,
        "{stem} PTX changed; rerun with TRITONC_UPDATE_GOLDEN=1 and review"
    );
}

fn vector_add_ptx(target: Target) -> String {
    let context = codegen_context();
    let mut kernels = vector_add::build(&context, "vector_add_module").expect("vector_add builds");
    lower_to_ptx(&mut kernels, &target).expect("vector_add lowers to PTX")
}

fn softmax_row_ptx(target: Target) -> String {
    let context = codegen_context();
    let mut kernels = softmax_row::build(&context, "softmax_module").expect("softmax_row builds");
    lower_to_ptx(&mut kernels, &target).expect("softmax_row lowers to PTX")
}

/// The `.param` lines of `.entry name(...)`, whitespace-normalized.
pub fn entry_params(ptx: &str, name: &str) -> Vec<String> {
    let header = format!(".visible .entry {name}(");
    let start = ptx
        .find(&header)
        .unwrap_or_else(|| panic!("no `{header}` in:\n{ptx}"));
    let rest = &ptx[start + header.len()..];
    let end = rest.find(')').expect("the parameter list closes");
    rest[..end]
        .split(',')
        .map(|param| param.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Runs ptxas for sm_80 and sm_90 on the PTX `make` produces for each, or says why not.
fn assemble_for_ampere_and_hopper(kernel: &str, make: fn(Target) -> String) {
    let Some(ptxas) = Ptxas::locate(&workspace_root()) else {
        eprintln!("skipped: no ptxas at .tools/cuda/bin/ptxas (run scripts/install-deps.sh) and TRITONC_PTXAS unset");
        return;
    };
    for sm in [80, 90] {
        let arch = format!("sm_{sm}");
        let report = ptxas
            .check(&make(Target::nvidia(sm)), &arch)
            .unwrap_or_else(|error| panic!("{kernel} for {arch}: {error}"));
        assert!(
            report.registers.is_some(),
            "ptxas -v reports registers:\n{}",
            report.log
        );
        eprintln!(
            "{kernel} {arch}: {} registers",
            report.registers.unwrap_or(0)
        );
    }
}

#[test]
fn vector_add_entry_takes_pointers_then_scalars() {
    let ptx = vector_add_ptx(Target::nvidia(90));
    assert!(
        ptx.contains(".version 8.0"),
        "PTX ISA 8.0 for sm_90:\n{ptx}"
    );
    assert!(ptx.contains(".target sm_90"));
    let global_ptr = ".param .u64 .ptr .global .align 16";
    assert_eq!(
        entry_params(&ptx, "vector_add"),
        [
            format!("{global_ptr} vector_add_param_0"),
            format!("{global_ptr} vector_add_param_1"),
            format!("{global_ptr} vector_add_param_2"),
            ".param .u32 vector_add_param_3".to_owned(),
        ]
    );
    assert_eq!(ptx.matches("ld.global").count(), 2, "x[i] and y[i]:\n{ptx}");
    assert_eq!(ptx.matches("st.global").count(), 1, "out[i]:\n{ptx}");
    // With fp fusion (the default, as Triton's `enable_fp_fusion`) a plain `add.f32`,
    // which ptxas may contract with a multiply; without it `add.rn.f32`, which it may not.
    assert!(ptx.contains("add.f32"), "an fp32 add:\n{ptx}");
    assert!(!ptx.contains("add.rn.f32"), "{ptx}");
    assert!(ptx.contains("%ctaid.x") && ptx.contains("%ntid.x") && ptx.contains("%tid.x"));
    let context = codegen_context();
    let mut kernels = vector_add::build(&context, "vector_add_module").expect("vector_add builds");
    let strict = lower_module(&mut kernels, &Target::nvidia(90), false, &[], false)
        .expect("vector_add lowers to PTX")
        .ptx;
    assert!(strict.contains("add.rn.f32"), "{strict}");
    assert!(!strict.contains("add.f32"), "{strict}");
}

#[test]
fn softmax_row_uses_shuffles_shared_memory_barriers_and_ex2() {
    let ptx = softmax_row_ptx(Target::nvidia(90));
    let params = entry_params(&ptx, "softmax_row");
    assert_eq!(params.len(), 4, "{params:?}");
    assert!(params[0].starts_with(".param .u64 .ptr .global .align 16"));
    assert!(params[1].starts_with(".param .u64 .ptr .global .align 16"));
    assert!(params[2].starts_with(".param .u32") && params[3].starts_with(".param .u32"));
    // 4 elements per thread; 5 butterfly steps per warp and 3 across the 8 warps, twice.
    assert_eq!(ptx.matches("ld.global").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("st.global").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("shfl.sync.bfly").count(), 16, "{ptx}");
    assert_eq!(
        ptx.matches("ex2.approx").count(),
        4,
        "one per element:\n{ptx}"
    );
    assert!(ptx.contains("bar.sync"), "{ptx}");
    assert!(ptx.contains(".maxntid 256, 1, 1"), "{ptx}");
    assert!(
        ptx.contains("st.shared") && ptx.contains("ld.shared"),
        "{ptx}"
    );
    assert!(!ptx.contains("__nv_"), "no libdevice calls:\n{ptx}");
}

#[test]
fn ptxas_accepts_vector_add() {
    assemble_for_ampere_and_hopper("vector_add", vector_add_ptx);
}

#[test]
fn ptxas_accepts_softmax_row() {
    assemble_for_ampere_and_hopper("softmax_row", softmax_row_ptx);
}

#[test]
fn math_lowers_to_nvvm_approximations_without_libdevice() {
    let context = codegen_context();
    let location = Location::new(&context, "math.py", 3, 5);
    let mut kernels = KernelModule::new(&context, "math_module", location);
    let params = [
        KernelParam::GlobalPtr { align: None },
        KernelParam::GlobalPtr { align: None },
    ];
    kernels
        .add_kernel("unary_math", &params, None, location, |b, args| {
            let f32_type = b.f32_type();
            let i = b.thread_id_x()?;
            let x = b.load(b.element_ptr(args[0], i, f32_type)?, f32_type)?;
            let e = b.exp_f32(x)?;
            let e2 = b.exp2_f32(x)?;
            let r = b.rsqrt_f32(x)?;
            let sum = b.binary("arith.addf", e, e2)?;
            let sum = b.binary("arith.addf", sum, r)?;
            b.store(sum, b.element_ptr(args[1], i, f32_type)?)
        })
        .expect("the math kernel builds");
    let ptx = lower_to_ptx(&mut kernels, &Target::nvidia(90)).expect("the math kernel lowers");
    // exp keeps subnormals, exp2 flushes them (as Triton lowers `math.exp`/`math.exp2`).
    assert_eq!(ptx.matches("ex2.approx.f32").count(), 1, "exp:\n{ptx}");
    assert_eq!(ptx.matches("ex2.approx.ftz.f32").count(), 1, "exp2:\n{ptx}");
    assert_eq!(ptx.matches("rsqrt.approx.f32").count(), 1, "{ptx}");
    // exp(x) = ex2(x * log2 e): the multiply by 0f3FB8AA3B (log2 e as f32) precedes ex2.
    assert!(ptx.contains("0f3FB8AA3B"), "log2(e) constant:\n{ptx}");
    assert!(
        !ptx.contains("__nv_") && !ptx.contains(".extern"),
        "no libdevice:\n{ptx}"
    );
    // Unaligned pointers keep PTX's default `.align 1`.
    assert!(
        ptx.contains(".param .u64 .ptr .global .align 1 unary_math_param_0"),
        "{ptx}"
    );
}

/// An error LLVM reports while compiling (here an inline-asm constraint NVPTX does not
/// know) is returned as an error: LLVM's own handler would print it and exit the process.
#[test]
fn an_llvm_back_end_error_is_an_error_not_an_exit() {
    use melior::ir::{attribute::StringAttribute, Attribute};
    let context = codegen_context();
    let location = Location::new(&context, "asm.py", 3, 5);
    let mut kernels = KernelModule::new(&context, "asm_module", location);
    kernels
        .add_kernel("asm", &[KernelParam::I32], None, location, |b, args| {
            let attrs: [(&str, Attribute); 3] = [
                (
                    "asm_string",
                    StringAttribute::new(&context, "mov.b32 $0, $1;").into(),
                ),
                ("constraints", StringAttribute::new(&context, "=r,Q").into()),
                ("has_side_effects", Attribute::unit(&context)),
            ];
            b.value("llvm.inline_asm", &[args[0]], b.i32_type(), &attrs)?;
            Ok(())
        })
        .expect("the kernel builds");
    match lower_to_ptx(&mut kernels, &Target::nvidia(90)) {
        Err(CodegenError::Lowering { diagnostics }) => {
            assert!(
                diagnostics
                    .iter()
                    .any(|d| d.contains("NVPTX back end") && d.contains("constraint 'Q'")),
                "{diagnostics:?}"
            );
        }
        other => panic!("expected a lowering error, got {other:?}"),
    }
}

#[test]
fn an_ill_typed_op_is_reported_at_its_source_location() {
    let context = codegen_context();
    let location = Location::new(&context, "bad.py", 7, 9);
    let mut kernels = KernelModule::new(&context, "bad_module", location);
    kernels
        .add_kernel("bad", &[KernelParam::I32], None, location, |b, args| {
            // An integer add of a float and an int: built, but rejected by the verifier.
            let one = b.const_f32(1.0)?;
            b.value("arith.addi", &[one, args[0]], b.i32_type(), &[])?;
            Ok(())
        })
        .expect("construction does not verify");
    match lower_to_ptx(&mut kernels, &Target::nvidia(90)) {
        Err(CodegenError::InvalidModule { diagnostics }) => {
            assert!(
                diagnostics.iter().any(|d| d.starts_with("bad.py:7:9: ")),
                "diagnostics carry the op's location: {diagnostics:?}"
            );
        }
        other => panic!("expected InvalidModule, got {other:?}"),
    }
}

#[test]
fn golden_ptx_matches_the_generator() {
    // The goldens are what the GPU machine runs; regenerate with TRITONC_UPDATE_GOLDEN=1.
    let update = std::env::var_os("TRITONC_UPDATE_GOLDEN").is_some();
    for (file, ptx) in [
        ("vector_add.ptx", vector_add_ptx(Target::nvidia(90))),
        ("softmax_row.ptx", softmax_row_ptx(Target::nvidia(90))),
    ] {
        let path = golden_path(file);
        if update {
            std::fs::write(&path, &ptx).expect("the golden directory is writable");
            continue;
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(golden, ptx, "{file} differs from the generator's output");
    }
}
