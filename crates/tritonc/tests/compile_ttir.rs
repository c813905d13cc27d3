//! End-to-end tests of `tritonc compile --emit ttir`: the example kernels under the
//! signatures of upstream Triton's reference fixtures, signature-less compiles from
//! annotations, autotune variants, heuristics, `-o DIR`, and the errors.

mod common;
use common::*;

/// The reference fixture `tests/fixtures/triton/NAME.json`, written by upstream Triton.
fn reference(name: &str) -> serde_json::Value {
    let path = repo_root().join(format!("tests/fixtures/triton/{name}.json"));
    let text = std::fs::read_to_string(&path).expect("reference fixture exists");
    serde_json::from_str(&text).expect("reference fixture is JSON")
}

/// The `tt.func` header line of a TTIR printout.
fn func_header(ir: &str) -> &str {
    ir.lines()
        .find(|l| l.trim_start().starts_with("tt.func"))
        .unwrap_or_else(|| panic!("no tt.func in:\n{ir}"))
}

/// Compiles an example with the signature of its reference fixture and checks the
/// function's name and argument types against what Triton 3.6 produced.
fn compile_like_reference(fixture: &str) -> String {
    let r = reference(fixture);
    let file = r["file"].as_str().expect("file");
    let kernel = r["kernel"].as_str().expect("kernel");
    let sig = r["signature"].as_str().expect("signature");
    let out = tritonc_in(
        &repo_root(),
        &[
            "compile",
            file,
            "--kernel",
            kernel,
            "--signature",
            sig,
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stderr.is_empty(), "{}", out.transcript());
    let header = func_header(&out.stdout);
    let func_name = r["func_name"].as_str().expect("func_name");
    assert!(
        header.contains(&format!("tt.func public @{func_name}(")),
        "{header}"
    );
    let args = r["args"].as_array().expect("args");
    for (i, a) in args.iter().enumerate() {
        let ty = a["type"].as_str().expect("type");
        let expected = match a.get("divisibility") {
            Some(d) => format!("%arg{i}: {ty} {{tt.divisibility = {d} : i32}}"),
            None => format!("%arg{i}: {ty}"),
        };
        assert!(header.contains(&expected), "want `{expected}` in\n{header}");
    }
    assert!(
        !header.contains(&format!("%arg{}", args.len())),
        "more arguments than Triton's: {header}"
    );
    out.stdout
}

#[test]
fn vector_add_matches_the_reference_signature() {
    let ir = compile_like_reference("vector_add__add_kernel");
    assert_eq!(ir.matches("tt.load").count(), 2, "{ir}");
    assert_eq!(ir.matches("tt.store").count(), 1, "{ir}");
    insta::assert_snapshot!("ttir_vector_add", ir);
}

#[test]
fn softmax_matches_the_reference_signature() {
    let ir = compile_like_reference("softmax__softmax_kernel");
    // One max and one sum reduction, like Triton's.
    assert_eq!(ir.matches(" tt.reduce %").count(), 2, "{ir}");
    insta::assert_snapshot!("ttir_softmax", ir);
}

#[test]
fn output_dir_gets_kernel_dot_ttir() {
    let dir = std::env::temp_dir().join(format!("tritonc-ttir-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_s = dir.to_str().expect("temp dir is UTF-8");
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "add.py",
            "--signature",
            "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
            "--emit",
            "ttir",
            "-o",
            dir_s,
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(out.stdout.is_empty(), "{}", out.transcript());
    let text = std::fs::read_to_string(dir.join("add_kernel.ttir")).expect("add_kernel.ttir");
    assert!(text.contains("tt.func public @add_kernel("), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn several_files_print_their_stages_in_command_line_order() {
    let dir = std::env::temp_dir().join(format!("tritonc-ttir-order-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    let source = std::fs::read_to_string(fixtures().join("ttir/annotated.py"))
        .expect("the fixture is readable");
    let zero = dir.join("zero.py");
    std::fs::write(&zero, source.replace("fill_kernel", "zero_kernel"))
        .expect("the temp dir is writable");
    let fill = fixtures().join("ttir/annotated.py");
    let (zero, fill) = (zero.to_str().expect("UTF-8"), fill.to_str().expect("UTF-8"));
    for (first, second) in [(zero, fill), (fill, zero)] {
        let out = tritonc_in(&fixtures(), &["compile", first, second, "--emit", "ttir"]);
        assert_eq!(out.code, 0, "{}", out.transcript());
        let at = |name: &str| {
            out.stdout
                .find(&format!("tt.func public @{name}("))
                .unwrap_or_else(|| panic!("no @{name} in {}", out.stdout))
        };
        let (z, f) = (at("zero_kernel"), at("fill_kernel"));
        assert_eq!(z < f, first == zero, "{}", out.stdout);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_kernels_of_one_name_may_not_share_an_output_dir() {
    let dir = std::env::temp_dir().join(format!("tritonc-ttir-clash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/annotated.py",
            "ttir/annotated.py",
            "--emit",
            "ttir",
            "-o",
            dir.to_str().expect("temp dir is UTF-8"),
        ],
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("two kernels named `fill_kernel`"),
        "{}",
        out.transcript()
    );
    assert!(!dir.join("fill_kernel.ttir").exists());
}

#[test]
fn without_a_signature_annotations_specialize() {
    let out = tritonc_in(
        &fixtures(),
        &["compile", "ttir/annotated.py", "--emit", "ttir"],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    let header = func_header(&out.stdout);
    // `out_ptr: "*fp16"`, `n: tl.int32`, `value: tl.float32`; BLOCK takes its default.
    assert!(
        header.contains("(%arg0: !tt.ptr<f16>, %arg1: i32, %arg2: f32)"),
        "{header}"
    );
    assert!(out.stdout.contains("end = 128 : i32"), "{}", out.stdout);
}

#[test]
fn without_a_signature_unknown_types_are_listed() {
    let out = tritonc_in(&fixtures(), &["compile", "add.py", "--emit", "ttir"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("E0410"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--signature \"*fp32:16, *fp32:16, *fp32:16, i32, 1024\""),
        "{}",
        out.stderr
    );
    insta::assert_snapshot!("ttir_signature_required", out.transcript());
}

/// A directory holding `examples/softmax.py` and the given `pyproject.toml`.
fn project_with_config(name: &str, pyproject: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-config-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(
        repo_root().join("examples/softmax.py"),
        dir.join("softmax.py"),
    )
    .expect("example copied");
    std::fs::write(dir.join("pyproject.toml"), pyproject).expect("config written");
    dir
}

#[test]
fn without_a_signature_the_project_configuration_specializes() {
    let dir = project_with_config(
        "ok",
        "[tool.tritonc.kernels.softmax_kernel]\nsignature = \"*fp16:16, *fp16:16, i32, i32, i32, 256\"\n",
    );
    let out = tritonc_in(&dir, &["compile", "softmax.py", "--emit", "ttir"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    let header = func_header(&out.stdout);
    assert!(
        header.contains("%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}"),
        "{header}"
    );
    assert!(out.stdout.contains("end = 256 : i32"), "{}", out.stdout);
    // `--signature` wins over the configuration.
    let out = tritonc_in(
        &dir,
        &[
            "compile",
            "softmax.py",
            "--signature",
            "*fp32, *fp32, i32, i32, i32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(func_header(&out.stdout).contains("%arg0: !tt.ptr<f32>,"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_configured_signature_points_into_the_configuration() {
    let dir = project_with_config(
        "short",
        "[tool.tritonc.kernels.softmax_kernel]\nsignature = \"*fp16, *fp16, i32\"\n",
    );
    let out = tritonc_in(&dir, &["compile", "softmax.py", "--emit", "ttir"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("E0401"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("pyproject.toml [kernels.softmax_kernel] signature"),
        "{}",
        out.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
    let dir = project_with_config("broken", "[tool.tritonc.kernels.softmax_kernel\n");
    let out = tritonc_in(&dir, &["compile", "softmax.py", "--emit", "ttir"]);
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(
        out.stderr.contains("E0503") && out.stderr.contains("cannot read the configuration"),
        "{}",
        out.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn autotune_configs_give_one_variant_each() {
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/autotuned.py",
            "--signature",
            "*fp32:16, *fp32:16, i32",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    let ir = &out.stdout;
    assert!(
        ir.contains("// scale_kernel variant 0 of 2: BLOCK=256, num_warps=2, num_stages=3\n"),
        "{ir}"
    );
    assert!(
        ir.contains("// scale_kernel variant 1 of 2: BLOCK=1024, num_warps=8, num_stages=2\n"),
        "{ir}"
    );
    // The heuristic HALF = BLOCK // 2 sees each config's BLOCK.
    assert!(ir.contains("end = 128 : i32"), "{ir}");
    assert!(ir.contains("end = 512 : i32"), "{ir}");
    insta::assert_snapshot!("ttir_autotune_variants", ir);
}

#[test]
fn autotune_variants_go_to_numbered_files() {
    let dir = std::env::temp_dir().join(format!("tritonc-ttir-variants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_s = dir.to_str().expect("temp dir is UTF-8");
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/autotuned.py",
            "--signature",
            "*fp32:16, *fp32:16, i32",
            "--emit",
            "ttir",
            "-o",
            dir_s,
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    let v0 = std::fs::read_to_string(dir.join("scale_kernel.0.ttir")).expect("variant 0");
    let v1 = std::fs::read_to_string(dir.join("scale_kernel.1.ttir")).expect("variant 1");
    assert!(
        v0.starts_with("// scale_kernel variant 0: BLOCK=256"),
        "{v0}"
    );
    assert!(
        v1.starts_with("// scale_kernel variant 1: BLOCK=1024"),
        "{v1}"
    );
    assert!(!dir.join("scale_kernel.ttir").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explicit_meta_parameters_give_one_specialization() {
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/autotuned.py",
            "--signature",
            "*fp32:16, *fp32:16, i32, 64, 16",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(!out.stdout.contains("variant"), "{}", out.stdout);
    assert!(out.stdout.contains("end = 16 : i32"), "{}", out.stdout);
}

#[test]
fn heuristic_reading_a_runtime_value_is_an_error() {
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/heuristic_needs_n.py",
            "--signature",
            "*fp32:16, *fp32:16, i32, 64",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    insta::assert_snapshot!("ttir_heuristic_needs_value", out.transcript());
    // Giving the heuristic's value explicitly compiles.
    let ok = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "ttir/heuristic_needs_n.py",
            "--signature",
            "*fp32:16, *fp32:16, i32, 64, True",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(ok.code, 0, "{}", ok.transcript());
    // EVEN is true: the unmasked branch is taken, so no load has a mask.
    assert!(!ok.stdout.contains("arith.cmpi"), "{}", ok.stdout);
}

#[test]
fn unreadable_autotune_configs_need_a_full_signature() {
    let out = tritonc_in(
        &repo_root(),
        &[
            "compile",
            "examples/matmul.py",
            "--kernel",
            "matmul_kernel",
            "--signature",
            "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 'gelu'",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    assert!(out.stderr.contains("E0408"), "{}", out.stderr);
    assert!(
        out.stderr.contains("must list all 17 parameters"),
        "{}",
        out.stderr
    );
}

#[test]
fn semantic_errors_point_into_the_kernel() {
    let out = tritonc_in(
        &fixtures(),
        &[
            "compile",
            "add.py",
            "--signature",
            "*fp32:16, *fp32:16, *fp32:16, i32, 1000",
            "--emit",
            "ttir",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.transcript());
    insta::assert_snapshot!("ttir_arange_not_pow2", out.transcript());
}

/// `--spec` takes the stages, warps and pipelining stages from the launch spec: an
/// `--emit`, `--num-warps` or `--num-stages` next to it would be ignored, so it is refused.
#[test]
fn spec_refuses_the_options_it_would_ignore() {
    let out = std::env::temp_dir().join(format!("tritonc-spec-options-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let out_arg = out.to_str().expect("utf-8 temp path");
    for option in [
        ["--emit", "ttir"],
        ["--num-warps", "8"],
        ["--num-stages", "2"],
    ] {
        let mut args = vec![
            "compile",
            "--spec",
            "examples/vector_add.toml",
            "-o",
            out_arg,
        ];
        args.extend(option);
        let o = tritonc_in(&repo_root(), &args);
        assert_eq!(o.code, 2, "{option:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("cannot be used with"),
            "{option:?}: {}",
            o.stderr
        );
    }
    assert!(!out.exists(), "nothing is compiled");
}

/// A kernel lowered for several stages warns once, not once per stage.
#[test]
fn each_warning_is_printed_once_whatever_the_stages() {
    let dir = std::env::temp_dir().join(format!("tritonc-warn-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    let file = dir.join("scale.py");
    // In debug mode an i32 multiply of runtime values warns E0343 (no overflow check).
    std::fs::write(
        &file,
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n\
         def scale(x_ptr, n, BLOCK: tl.constexpr):\n    \
         i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    \
         tl.store(x_ptr + i, n * 3, mask=i < n)\n",
    )
    .expect("the temp dir is writable");
    let path = file.to_str().expect("utf-8 temp path");
    for stages in ["ttir", "ttir,ttgir"] {
        let o = tritonc_in(
            &dir,
            &[
                "compile",
                path,
                "--debug",
                "--signature",
                "*i32:16, i32, 128",
                "--emit",
                stages,
            ],
        );
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

/// `compile --spec` needs the specialization, not the data: a spec of 2 × 4 TB tensors
/// compiles (the interpreter, which needs the data, refuses it with E0705).
#[test]
fn compile_spec_allocates_no_tensor_data() {
    let dir = std::env::temp_dir().join(format!("tritonc-huge-spec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    let kernel = repo_root().join("examples/vector_add.py");
    let spec = dir.join("huge.toml");
    std::fs::write(
        &spec,
        format!(
            "kernel = {:?}\ngrid = [\"triton.cdiv(x.numel, 1024)\"]\n\n[tensors.x]\nshape = [1000000, 1000000]\ndtype = \"float32\"\ninit = \"randn\"\n\n[tensors.y]\nshape = [\"x.shape[0]\", \"x.shape[1]\"]\ndtype = \"float32\"\ninit = \"randn\"\n\n[tensors.out]\nshape = [\"x.shape[0]\", \"x.shape[1]\"]\ndtype = \"float32\"\noutput = true\n\n[args]\nx_ptr = \"x\"\ny_ptr = \"y\"\nout_ptr = \"out\"\nn_elements = \"x.numel\"\nBLOCK_SIZE = 1024\n",
            kernel.to_str().expect("utf-8 path")
        ),
    )
    .expect("the spec is written");
    let out = dir.join("out");
    let (spec_arg, out_arg) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let o = tritonc_in(&dir, &["compile", "--spec", spec_arg, "--target", "sm_90", "-o", out_arg, "--no-cache"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(out.exists(), "a bundle is written");
    let o = tritonc_in(&dir, &["run", spec_arg, "--interpret"]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(format!("{}{}", o.stdout, o.stderr).contains("E0705"), "{}", o.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
