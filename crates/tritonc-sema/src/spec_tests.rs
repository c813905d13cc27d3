use super::*;
use tritonc_syntax::ast::StmtKind;

const SIG: FileId = FileId(7);

fn kernel(src: &str) -> std::sync::Arc<FunctionDef> {
    let parsed = tritonc_syntax::parse_module(FileId(0), src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    parsed
        .module
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::FunctionDef(f) => Some(f.clone()),
            _ => None,
        })
        .expect("the source defines a function")
}

const ADD: &str =
    "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    pass\n";

fn bind(src: &str, sig: &str) -> Result<Specialization, Vec<Diagnostic>> {
    let items = parse_signature(sig, SIG)?;
    let span = Span::new(SIG, 0, sig.len() as u32);
    bind_signature(&kernel(src), &items, &[], LaunchOptions::default(), span)
}

fn one_error(r: Result<impl std::fmt::Debug, Vec<Diagnostic>>) -> Diagnostic {
    let errs = r.expect_err("expected an error");
    assert_eq!(errs.len(), 1, "{errs:?}");
    errs.into_iter().next().unwrap()
}

fn span_text<'a>(sig: &'a str, d: &Diagnostic) -> &'a str {
    let s = d.primary_span().expect("primary label");
    &sig[s.start as usize..s.end as usize]
}

#[test]
fn parses_types_hints_and_values() {
    let items = parse_signature(
        "*fp16:16, *kfp32, i32, i32:16, u64:1, 1024, 0.5, True, 'rtne', -3",
        SIG,
    )
    .unwrap();
    let kinds: Vec<_> = items.iter().map(|i| i.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            ItemKind::Pointer {
                pointee: DType::F16,
                is_const: false,
                hint: Some(16)
            },
            ItemKind::Pointer {
                pointee: DType::F32,
                is_const: true,
                hint: None
            },
            ItemKind::Scalar {
                dtype: DType::I32,
                hint: None
            },
            ItemKind::Scalar {
                dtype: DType::I32,
                hint: Some(16)
            },
            ItemKind::Scalar {
                dtype: DType::U64,
                hint: Some(1)
            },
            ItemKind::Value(Constexpr::Int(1024)),
            ItemKind::Value(Constexpr::Float(0.5)),
            ItemKind::Value(Constexpr::Bool(true)),
            ItemKind::Value(Constexpr::Str("rtne".into())),
            ItemKind::Value(Constexpr::Int(-3)),
        ]
    );
    // Spans point at each trimmed item.
    assert_eq!((items[1].span.start, items[1].span.end), (10, 16));
}

#[test]
fn binds_vector_add_with_one_becoming_constexpr() {
    let spec = bind(ADD, "*fp32:16, *fp32:16, *fp32:16, i32:1, 1024").unwrap();
    assert_eq!(
        spec.param("x_ptr"),
        Some(&ArgSpec::Pointer {
            pointee: DType::F32,
            is_const: false,
            divisibility: Some(16)
        })
    );
    assert_eq!(
        spec.param("n"),
        Some(&ArgSpec::Constexpr(Constexpr::Int(1)))
    );
    assert_eq!(
        spec.param("BLOCK"),
        Some(&ArgSpec::Constexpr(Constexpr::Int(1024)))
    );
    let key = spec.key();
    assert_eq!(
        key.to_string(),
        "add_kernel(x_ptr=*fp32:16, y_ptr=*fp32:16, out_ptr=*fp32:16, n=1, BLOCK=1024) warps=4 stages=3 target=cuda:90:32"
    );
    // The hash is a pure function of the text: an equal key hashes equally, another differs.
    assert_eq!(
        key.hash_hex(),
        bind(ADD, "*fp32:16,*fp32:16,*fp32:16,i32:1,1024")
            .unwrap()
            .key()
            .hash_hex()
    );
    assert_ne!(
        key.hash_hex(),
        bind(ADD, "*fp32:16, *fp32:16, *fp32:16, i32:1, 512")
            .unwrap()
            .key()
            .hash_hex()
    );
    let json = serde_json::to_string(&key).unwrap();
    let back: SpecializationKey = serde_json::from_str(&json).unwrap();
    assert_eq!(back, key);
}

#[test]
fn dtype_constants_for_constexpr_params() {
    let src = "@triton.jit\ndef k(x, DT: tl.constexpr):\n    pass\n";
    let spec = bind(src, "*fp16, tl.float32").unwrap();
    assert_eq!(
        spec.param("DT"),
        Some(&ArgSpec::Constexpr(Constexpr::dtype(DType::F32)))
    );
    assert_eq!(spec.key().args[1].spec, "tl.float32");
    assert_eq!(bind(src, "*fp16, float32").unwrap(), spec);
    // A signature type name is a runtime type, which a constexpr parameter refuses.
    assert_eq!(
        one_error(bind(src, "*fp16, fp32")).code,
        codes::SIGNATURE_CONSTEXPR_TYPED
    );
}

#[test]
fn wrong_arity_points_at_the_extra_item_or_the_signature() {
    let sig = "*fp32, *fp32, *fp32, i32, 1024, 7";
    let d = one_error(bind(ADD, sig));
    assert_eq!(d.code, codes::SIGNATURE_ARITY);
    assert_eq!(span_text(sig, &d), "7");
    let sig = "*fp32, *fp32";
    let d = one_error(bind(ADD, sig));
    assert_eq!(d.code, codes::SIGNATURE_ARITY);
    assert_eq!(
        d.labels[0].message.as_deref(),
        Some("missing `out_ptr`, `n`, `BLOCK`")
    );
}

#[test]
fn unknown_dtype_suggests_a_name() {
    let sig = "*fp32, *float3, *fp32, i32, 1024";
    let d = one_error(bind(ADD, sig));
    assert_eq!(d.code, codes::SIGNATURE_UNKNOWN_DTYPE);
    assert_eq!(span_text(sig, &d), "float3");
    let d = one_error(parse_signature("*fp32, i31", SIG));
    assert_eq!(d.help.as_deref(), Some("did you mean `i32`?"));
}

#[test]
fn constexpr_given_a_type_and_runtime_given_a_value() {
    let sig = "*fp32, *fp32, *fp32, i32, i32";
    let d = one_error(bind(ADD, sig));
    assert_eq!(d.code, codes::SIGNATURE_CONSTEXPR_TYPED);
    assert_eq!(
        d.primary_span().unwrap().start as usize,
        sig.rfind("i32").unwrap()
    );
    let sig = "*fp32, *fp32, *fp32, 4096, 1024";
    let d = one_error(bind(ADD, sig));
    assert_eq!(d.code, codes::SIGNATURE_VALUE_FOR_RUNTIME);
    assert_eq!(span_text(sig, &d), "4096");
}

#[test]
fn bad_hints() {
    for (sig, bad) in [
        ("*fp32:8", "8"),
        ("i32:x", "x"),
        ("*fp32:1", "1"),
        ("fp32:16", "16"),
        ("i1:16", "16"),
    ] {
        let d = one_error(parse_signature(sig, SIG));
        assert_eq!(d.code, codes::SIGNATURE_BAD_HINT, "{sig}");
        assert_eq!(span_text(sig, &d), bad, "{sig}");
    }
}

#[test]
fn malformed_items() {
    let d = one_error(parse_signature("*fp32,, i32", SIG));
    assert_eq!(d.code, codes::SIGNATURE_MALFORMED);
    let d = one_error(parse_signature("*fp32, i32[4]", SIG));
    assert_eq!(d.code, codes::SIGNATURE_MALFORMED);
    assert!(parse_signature("", SIG).unwrap().is_empty());
}

#[test]
fn annotation_mismatch_and_meta_params() {
    let src = "@triton.jit\ndef k(x, n: tl.int64, BLOCK: tl.constexpr):\n    pass\n";
    let d = one_error(bind(src, "*fp32, i32, 64"));
    assert_eq!(d.code, codes::SIGNATURE_ANNOTATION_MISMATCH);
    assert!(bind(src, "*fp32, i64, 64").is_ok());

    let items = parse_signature("*fp32, i64", SIG).unwrap();
    let span = Span::new(SIG, 0, 10);
    let base = bind_signature(
        &kernel(src),
        &items,
        &["BLOCK"],
        LaunchOptions::default(),
        span,
    )
    .unwrap();
    let v = base
        .with_meta(
            &[("BLOCK".into(), Constexpr::Int(128))],
            Some(8),
            Some(2),
            span,
        )
        .unwrap();
    assert_eq!(
        v.param("BLOCK"),
        Some(&ArgSpec::Constexpr(Constexpr::Int(128)))
    );
    assert_eq!((v.options.num_warps, v.options.num_stages), (8, 2));
    assert_ne!(v.key().hash64(), base.key().hash64());
    let d = base
        .with_meta(&[("BLOK".into(), Constexpr::Int(1))], None, None, span)
        .unwrap_err();
    assert_eq!(d.code, codes::BAD_META_PARAMETER);
    assert!(base.with_meta(&[], Some(3), None, span).is_err());
}
