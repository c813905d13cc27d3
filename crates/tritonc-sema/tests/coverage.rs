//! Constructs real-world kernels use, each decided by Triton 3.6: every case of
//! `tests/fixtures/triton/coverage.json` (recorded from the wheel by
//! `scripts/triton_coverage.py`) goes through tritonc's front end with the same
//! specialization. tritonc must accept what Triton accepts and reject what it rejects,
//! and where the fixture records TTIR facts (op counts, the i32 constants), tritonc's tile
//! IR must agree.

use std::collections::BTreeMap;

use tritonc_diagnostics::{Diagnostic, Severity, SourceMap, Span};
use tritonc_ir::{BinaryOp, ConstValue, Module, OpKind};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

/// What tritonc does with a case: the lowered module, or the first error (with the
/// source text at its primary span).
fn run(source: &str, sig: &str) -> Result<Module, (Diagnostic, String)> {
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", source.to_string());
    let sig_file = sources.add("<signature>", sig.to_string());
    let parsed = tritonc_syntax::parse_module(file, source);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let index = tritonc_syntax::discover(&parsed.module);
    let text_at = |d: &Diagnostic| {
        d.primary_span()
            .filter(|s| s.file == file)
            .map(|s| source[s.start as usize..s.end as usize].to_string())
            .unwrap_or_default()
    };
    let kernel = index.kernel("kernel").expect("a kernel");
    // What the CLI runs first: discovery and the syntactic subset check.
    let front: Vec<Diagnostic> = index
        .diagnostics
        .iter()
        .cloned()
        .chain(tritonc_syntax::check_kernel_subset(&kernel.def))
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if let Some(d) = front.into_iter().next() {
        let t = text_at(&d);
        return Err((d, t));
    }
    let items = parse_signature(sig, sig_file).expect("the signature parses");
    let spec = bind_signature(
        &kernel.def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .map_err(|ds| {
        let t = text_at(&ds[0]);
        (ds[0].clone(), t)
    })?;
    let m = tritonc_sema::lower_kernel(&parsed.module, "kernel", &spec).map_err(|ds| {
        let t = text_at(&ds[0]);
        (ds[0].clone(), t)
    })?;
    tritonc_ir::verify_module(&m).expect("the IR verifies");
    Ok(m)
}

fn op_counts(m: &Module) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for f in &m.functions {
        for op in f.walk() {
            *out.entry(f.kind(op).name()).or_default() += 1;
        }
    }
    out
}

/// The constant operands of every `arith.xori`, as `<bits>:<value as unsigned>` (the
/// fixture's form: Triton's IR has no unsigned types).
fn xor_constants(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for f in &m.functions {
        for op in f.walk() {
            if !matches!(f.kind(op), OpKind::Binary(BinaryOp::XOrI)) {
                continue;
            }
            for &v in f.op(op).operands() {
                let Some(mut def) = f.defining_op(v) else {
                    continue;
                };
                // A block constant is a scalar one splat (Triton's is a dense constant).
                if matches!(f.kind(def), OpKind::Splat) {
                    match f.defining_op(f.op(def).operands()[0]) {
                        Some(d) => def = d,
                        None => continue,
                    }
                }
                if let OpKind::Constant(ConstValue::Int(c)) = f.kind(def) {
                    let bits = f.value_type(v).elem().bitwidth().expect("an integer type");
                    let value = (*c as i128).rem_euclid(1i128 << bits);
                    out.push(format!("{bits}:{value}"));
                }
            }
        }
    }
    out.sort();
    out
}

fn int_constants(m: &Module) -> Vec<i128> {
    let mut out = Vec::new();
    for f in &m.functions {
        for op in f.walk() {
            if let OpKind::Constant(ConstValue::Int(v)) = f.kind(op) {
                out.push(*v as i128);
            }
        }
    }
    out
}

/// The diagnostic code and the source text at its span tritonc gives each case Triton
/// rejects (Triton's own error is in the fixture).
fn expected_rejection(name: &str) -> (&'static str, &'static str) {
    match name {
        "none_used_as_pointer" => ("E0303", "b_ptr + r"),
        "raise_reached" => ("E0105", "raise ValueError(\"unknown MODE\")"),
        "raise_in_runtime_branch" => ("E0105", "raise ValueError(\"n must be positive\")"),
        "raise_in_helper_reached" => ("E0105", "raise NotImplementedError(f\"activation {ACT}\")"),
        "static_assert_fstring_fails" => ("E0312", "BLOCK >= 16"),
        "range_num_stages_runtime" => ("E0309", "n"),
        "range_unknown_keyword" => ("E0308", "num_stage=2"),
        "range_num_stages_float" => ("E0308", "2.5"),
        "fp8_load_int_other" => ("E0313", "other=0"),
        "assume_on_block" => ("E0322", "r < n"),
        "assume_on_int" => ("E0322", "n"),
        "pointer_cast_from_int32" => ("E0313", "n.to(tl.pointer_type(tl.float32))"),
        "pointer_to_int32" => ("E0313", "x_ptr.to(tl.int32)"),
        "full_of_pointer_int32" => ("E0313", "x_ptr"),
        "pointer_cast_other_address_space" => ("E0313", "x_ptr.to(tl.pointer_type(tl.float32, 3))"),
        "isinstance_tuple_of_classes" => ("E0309", "(tl.tensor_descriptor, tl.tensor)"),
        "descriptor_last_stride_not_one" => ("E0335", "strides=[1, M]"),
        "descriptor_last_stride_two" => ("E0335", "strides=[N, 2]"),
        "descriptor_runtime_last_stride" => ("E0335", "strides=[N, s]"),
        "descriptor_strides_count" => ("E0335", "strides=[1]"),
        "descriptor_six_dims" => ("E0335", "shape=[M, N, M, N, M, N]"),
        "descriptor_last_dim_under_16_bytes" => ("E0335", "block_shape=[16, 2]"),
        "descriptor_nan_padding_int" => ("E0335", "padding_option='nan'"),
        "descriptor_store_wrong_shape" => ("E0335", "tl.zeros([16, 8], tl.float32)"),
        "descriptor_store_scalar" => ("E0335", "1.0"),
        "descriptor_int64_offset" => ("E0335", "[o, 0]"),
        "descriptor_offsets_count" => ("E0335", "[0]"),
        "descriptor_block_of_pointers" => ("E0335", "x_ptr + tl.arange(0, 16)"),
        "private_helper_log2_runtime" => ("E0309", "n"),
        "private_helper_core_get_int_dtype_12" => ("E0311", "tl.core.get_int_dtype(12, True)"),
        "private_helper_argmax_combine_one_operand" => (
            "E0330",
            "tl.reduce(x, 0, tl.standard._argmax_combine_tie_break_left)",
        ),
        "literal_int_beyond_int32" => ("E0315", "d ^ (1 << S)"),
        "index_none_past_rank" => ("E0316", "None"),
        other => panic!("no expectation for the rejected case {other}"),
    }
}

/// TTIR facts that depend on Triton's TTIR passes rather than the front end's meaning.
fn comparable(name: &str, fact: &str) -> bool {
    // `loop_unroll_factor=2` unrolls the loop in Triton's TTIR passes; tritonc validates
    // the keyword but keeps one loop.
    let unrolled = name == "range_all_keywords" && matches!(fact, "tt.load" | "scf.for");
    // Triton's TTIR canonicalization folds the bf16 -> f32 -> bf16 round trip of
    // `x.to(tl.float32)` stored back to a bf16 pointer; tritonc's tile IR keeps the casts.
    let round_trip =
        name == "constexpr_global_from_call" && matches!(fact, "arith.extf" | "arith.truncf");
    // Triton reinterprets a pointer as another with `tt.bitcast`; tritonc goes through
    // the address (`tt.ptr_to_int` then `tt.int_to_ptr`).
    let pointer_bitcast = name == "pointer_cast_between_pointers" && fact == "tt.ptr_to_int";
    !(unrolled || round_trip || pointer_bitcast)
}

/// Cases Triton accepts that tritonc refuses with a precise "not yet supported" error:
/// the code and the text at its span.
fn not_yet_supported(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        // Descriptor atomics (`tt.descriptor_reduce`) are not lowered; loads and stores are.
        "descriptor_atomic_add" => Some(("E0302", "d.atomic_add")),
        _ => None,
    }
}

/// Cases Triton rejects for a limit of its Python implementation rather than of the
/// language, which tritonc compiles: the number of `tt.load` ops the result must have.
fn beyond_triton_limits(name: &str) -> Option<usize> {
    match name {
        // RecursionError: Triton's code generator recurses once per operand of a chain
        // and Python stops it at 1000 frames; tritonc lowers chains in a loop.
        "sum_of_1000_loads" => Some(1000),
        _ => None,
    }
}

#[test]
fn front_end_agrees_with_triton_on_real_world_constructs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/triton/coverage.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    assert_eq!(fixture["none_argument_type"], "constexpr");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let source = case["source"].as_str().expect("source");
        let sig = case["signature"].as_str().expect("signature");
        let accepted = case["accepted"].as_bool().expect("accepted");
        match (run(source, sig), accepted) {
            (Ok(m), true) => {
                let counts = op_counts(&m);
                let facts = case["facts"].as_object().expect("facts");
                let fact = |op: &str| facts.get(op).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
                for op in [
                    "tt.load",
                    "tt.store",
                    "scf.for",
                    "math.absf",
                    "arith.extf",
                    "arith.truncf",
                    "arith.fptosi",
                    "arith.sitofp",
                    "tt.ptr_to_int",
                ] {
                    if !comparable(name, op) {
                        continue;
                    }
                    // A descriptor load or store is a masked pointer load or store in the
                    // tile IR (what Triton's TTIR becomes without TMA).
                    let want = fact(op)
                        + match op {
                            "tt.load" => fact("tt.descriptor_load"),
                            "tt.store" => fact("tt.descriptor_store"),
                            _ => 0,
                        };
                    let got = counts.get(op).copied().unwrap_or(0);
                    if want != got {
                        failures.push(format!("{name}: {op} x{got}, Triton x{want}\n{m}"));
                    }
                }
                // `tl.extra.cuda.gdc_*` are Triton's inline PTX, tritonc's own ops.
                let inline_asm = ["tt.gdc_wait", "tt.gdc_launch_dependents"]
                    .iter()
                    .map(|op| counts.get(op).copied().unwrap_or(0))
                    .sum::<usize>();
                if inline_asm != fact("tt.elementwise_inline_asm") {
                    failures.push(format!(
                        "{name}: {inline_asm} grid-dependency ops, Triton {} inline asm",
                        fact("tt.elementwise_inline_asm")
                    ));
                }
                // `~x` is `x xor all-ones`: `true` for i1, 2^bits - 1 for unsigned types.
                if let Some(want) = facts.get("xori_constants") {
                    let want: Vec<String> = want
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap().to_string())
                        .collect();
                    let got = xor_constants(&m);
                    if got != want {
                        failures.push(format!("{name}: xori constants {got:?}, Triton {want:?}"));
                    }
                }
                // `tl.core.CONSTEXPR_0`, `tl.standard._log2`, `get_int_dtype`, ... fold
                // to the constants Triton's do.
                if name == "num_threads"
                    || (name.starts_with("private_helper_") && facts.contains_key("i32_constants"))
                {
                    let want: Vec<i128> = facts["i32_constants"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_i64().unwrap() as i128)
                        .collect();
                    let got = int_constants(&m);
                    if !want.iter().all(|w| got.contains(w)) {
                        failures.push(format!("{name}: constants {got:?}, Triton {want:?}"));
                    }
                }
            }
            (Ok(m), false) if beyond_triton_limits(name).is_some() => {
                assert_eq!(case["error"]["type"], "RecursionError", "{name}");
                let want = beyond_triton_limits(name).unwrap();
                let got = op_counts(&m).get("tt.load").copied().unwrap_or(0);
                if got != want {
                    failures.push(format!("{name}: tt.load x{got}, expected x{want}"));
                }
            }
            (Ok(_), false) => failures.push(format!(
                "{name}: tritonc accepts, Triton rejects ({})",
                case["error"]
            )),
            (Err((d, at)), true) if not_yet_supported(name).is_some() => {
                let (code, text) = not_yet_supported(name).unwrap();
                if d.code.0 != code || at != text {
                    failures.push(format!(
                        "{name}: {} {} at `{at}`, expected {code} at `{text}`",
                        d.code.0, d.message
                    ));
                }
            }
            (Err((d, at)), true) => failures.push(format!(
                "{name}: tritonc rejects, Triton accepts: {} {} at `{at}`",
                d.code.0, d.message
            )),
            (Err((d, at)), false) => {
                let (code, text) = expected_rejection(name);
                if d.code.0 != code || at != text {
                    failures.push(format!(
                        "{name}: {} {} at `{at}`, expected {code} at `{text}`",
                        d.code.0, d.message
                    ));
                }
                if name == "static_assert_fstring_fails" {
                    // Triton's message, with the `{expr=}` f-string formatted.
                    let want = case["error"]["message"].as_str().unwrap();
                    if !d.message.ends_with(want) {
                        failures.push(format!("{name}: message `{}`, Triton `{want}`", d.message));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_tl_range_keyword_suggests_the_known_one() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr, n):\n    for i in tl.range(0, n, num_stage=2):\n        tl.store(x_ptr + i, 1.0)\n";
    let (d, at) = run(src, "*fp32, i32").expect_err("rejected");
    assert_eq!((d.code.0, at.as_str()), ("E0308", "num_stage=2"));
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("`num_stages`")),
        "{d:?}"
    );
}

#[test]
fn tl_range_num_stages_is_kept_on_the_loop() {
    // `tl.range(..., num_stages=N)` overrides the launch's num_stages for that loop (the
    // GPU IR's pipelining reads it); a plain range leaves the launch's.
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr, n):\n    for i in tl.range(0, n, num_stages=4):\n        tl.store(x_ptr + i, 1.0)\n    for j in range(0, n):\n        tl.store(x_ptr + j, 2.0)\n";
    let m = run(src, "*fp32, i32").expect("lowers");
    let f = &m.functions[0];
    let loops: Vec<_> = f
        .walk()
        .into_iter()
        .filter_map(|op| match f.kind(op) {
            OpKind::For { num_stages } => Some(*num_stages),
            _ => None,
        })
        .collect();
    assert_eq!(loops, vec![Some(4), None]);
    assert!(m.to_string().contains("{num_stages = 4 : i32}"), "{m}");
}

#[test]
fn python_range_keywords_are_ignored_with_a_warning() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr, n):\n    for i in range(0, n, num_stages=2):\n        tl.store(x_ptr + i, 1.0)\n";
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", src.to_string());
    let parsed = tritonc_syntax::parse_module(file, src);
    let index = tritonc_syntax::discover(&parsed.module);
    let def = &index.kernel("kernel").unwrap().def;
    let sig_file = sources.add("<signature>", "*fp32, i32".to_string());
    let items = parse_signature("*fp32, i32", sig_file).unwrap();
    let spec = bind_signature(
        def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(sig_file, 0, 10),
    )
    .unwrap();
    let scope = tritonc_sema::ModuleScope::from_index(&index);
    let lowered = tritonc_sema::lower_kernel_in(&scope, "kernel", &spec).expect("lowers");
    let w: Vec<_> = lowered
        .warnings
        .iter()
        .map(|d| {
            let s = d.primary_span().unwrap();
            (d.code.0, &src[s.start as usize..s.end as usize])
        })
        .collect();
    assert_eq!(w, vec![("E0308", "num_stages=2")]);
}

/// `gdc_wait()` stays before the kernel's memory accesses and `gdc_launch_dependents()`
/// after its store, in program order (tests/fixtures/triton/gdc.json records Triton's PTX).
#[test]
fn gdc_calls_keep_their_place_among_memory_ops() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr):\n    tl.extra.cuda.gdc_wait()\n    tl.store(x_ptr, tl.load(x_ptr) + 1.0)\n    tl.extra.cuda.gdc_launch_dependents()\n";
    let m = run(src, "*fp32").expect("compiles");
    let f = &m.functions[0];
    let order: Vec<&str> = f
        .walk()
        .into_iter()
        .map(|op| f.kind(op).name())
        .filter(|n| n.starts_with("tt.gdc") || *n == "tt.load" || *n == "tt.store")
        .collect();
    assert_eq!(
        order,
        [
            "tt.gdc_wait",
            "tt.load",
            "tt.store",
            "tt.gdc_launch_dependents"
        ],
        "{m}"
    );
    // An unused `gdc_wait` is not dead code.
    let mut m2 = m.clone();
    tritonc_ir::PassManager::new()
        .add(tritonc_ir::passes::DeadCodeElimination)
        .run(&mut m2)
        .expect("DCE runs");
    assert!(m2.to_string().contains("tt.gdc_wait"), "{m2}");
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr):\n    tl.extra.cuda.gdc_wait(x_ptr)\n";
    let (d, at) = run(src, "*fp32").expect_err("no arguments");
    assert_eq!((d.code.0, at.as_str()), ("E0308", "x_ptr"));
}

/// `other=float("-inf")` on an integer load (a real kernel's masked lanes): Triton
/// converts the fp32 `-inf` at run time (`arith.fptosi`, not folded), so tritonc emits the
/// conversion instead of an int64 constant out of range (which the IR verifier refused
/// as an internal error).
#[test]
fn a_float_no_integer_holds_converts_at_run_time() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):\n    r = tl.arange(0, BLOCK)\n    tl.store(y_ptr + r, tl.load(x_ptr + r, mask=r < 3, other=float(\"-inf\")))\n    tl.store(y_ptr, tl.load(x_ptr, mask=False, other=2.0**70))\n    tl.store(y_ptr, tl.load(x_ptr, mask=False, other=-7.9))\n";
    let m = run(src, "*i64, *i64, 64").expect("compiles");
    let counts = op_counts(&m);
    assert_eq!(counts.get("arith.fptosi").copied(), Some(2), "{m}");
    assert!(int_constants(&m).contains(&-7), "{m}");
}

/// A kernel written for host-side `TensorDescriptor` arguments (`desc.load([...])`)
/// compiled with a pointer in their place: the error says descriptors are the missing
/// feature.
#[test]
fn descriptor_methods_on_a_pointer_name_tensor_descriptors() {
    let src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef kernel(desc, y_ptr):\n    t = desc.load([0, 0])\n    tl.store(y_ptr, t)\n";
    let (d, at) = run(src, "*fp16, *fp16").expect_err("rejected");
    assert_eq!((d.code.0, at.as_str()), ("E0319", "load"));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("host-side `TensorDescriptor`")),
        "{d:?}"
    );
}

/// The private names of `triton.language.standard` / `core` tritonc knows are exactly
/// the wheel's, so none is reported as a name Triton does not have.
#[test]
fn private_names_of_standard_and_core_are_the_wheels() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/triton/coverage.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    for (kind, ours) in tritonc_sema::builtins::private::listed_names() {
        let wheel: Vec<&str> = fixture["private_names"][kind]
            .as_array()
            .unwrap_or_else(|| panic!("{kind} in the fixture"))
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(ours, wheel, "{kind}");
    }
}
