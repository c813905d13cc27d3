//! Parser tests: printed fixtures round-trip, errors carry offsets, garbage never panics.

mod fixtures;

use tritonc_ir::*;

fn all_fixtures() -> Vec<Module> {
    vec![
        fixtures::vector_add(),
        fixtures::row_argmax(),
        fixtures::loop_accumulate(),
        fixtures::control_flow(),
    ]
}

#[test]
fn printed_fixtures_round_trip() {
    for with_locations in [false, true] {
        let opts = PrintOptions { with_locations };
        for m in all_fixtures() {
            let text = print_module(&m, opts);
            let parsed = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(print_module(&parsed, opts), text);
            verify_module(&parsed).unwrap_or_else(|e| panic!("{e:?}"));
        }
    }
}

#[test]
fn locations_survive_a_round_trip() {
    let text = print_module(
        &fixtures::vector_add(),
        PrintOptions {
            with_locations: true,
        },
    );
    let m = parse_module(&text).unwrap();
    let f = &m.functions[0];
    let ops = f.walk();
    let load = ops
        .iter()
        .find(|&&o| matches!(f.kind(o), OpKind::Load { .. }))
        .unwrap();
    let loc = &f.op(*load).loc;
    assert_eq!((loc.span.start, loc.span.end), (100, 120));
    assert_eq!(loc.call_sites.len(), 1);
    assert_eq!((loc.call_sites[0].file.0, loc.call_sites[0].start), (1, 5));
    assert_eq!((f.loc.span.start, f.loc.span.end), (0, 400));
}

#[test]
fn parses_hand_written_ir() {
    let text = r#"
module {
  // A comment.
  tt.func private @h(%x: tensor<4xf16>, %p: !tt.ptr<bf16>) -> (tensor<4xf16>) {
    %c = arith.constant dense<-2.5> : tensor<4xf16>
    %big = arith.constant 18446744073709551615 : u64
    %inf = arith.constant -inf : f32
    %s = arith.mulf %x, %c : tensor<4xf16>
    %g = tt.splat "sym" : tensor<BLOCKx?x!dtype<3>>
    tt.return %s : tensor<4xf16>
  }
}
"#;
    // `tt.splat` with a literal operand is not IR.
    let err = parse_module(text).unwrap_err();
    assert!(
        err.message.starts_with("expected `:`, found `\"sym\""),
        "{err}"
    );
    assert!(text[err.offset..].starts_with("\"sym\""));
    let fixed = text.replace(
        "    %g = tt.splat \"sym\" : tensor<BLOCKx?x!dtype<3>>\n",
        "",
    );
    let m = parse_module(&fixed).unwrap();
    let f = &m.functions[0];
    assert!(!f.public);
    assert_eq!(f.result_types, vec![Type::tensor_of(&[4], DType::F16)]);
    let consts: Vec<_> = f
        .walk()
        .into_iter()
        .filter_map(|o| match f.kind(o) {
            OpKind::Constant(c) => Some(*c),
            _ => None,
        })
        .collect();
    assert_eq!(consts[0], ConstValue::Float(-2.5));
    assert_eq!(consts[1], ConstValue::Int(u64::MAX as i128));
    assert_eq!(consts[2], ConstValue::Float(f64::NEG_INFINITY));
    verify_module(&m).unwrap();
}

#[test]
fn generic_types_round_trip() {
    let t = Type::Tensor {
        shape: vec![
            Dim::Symbolic("BLOCK_M".into()),
            Dim::Unknown,
            Dim::Symbolic("xblock".into()),
            Dim::Known(4),
        ],
        elem: Elem::Ptr(PtrType::global(DType::Var(2))),
        encoding: None,
    };
    let f = Function::new("g", vec![t.clone()], vec![t.clone()]);
    let m = Module { functions: vec![f] };
    let text = m.to_string();
    assert!(
        text.contains("tensor<BLOCK_Mx?x\"xblock\"x4x!tt.ptr<!dtype<2>>>"),
        "{text}"
    );
    let back = parse_module(&text).unwrap();
    assert_eq!(back.functions[0].result_types[0], t);
}

#[test]
fn nan_constants_keep_their_bits() {
    let mut f = Function::new("n", vec![], vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let payload = f64::from_bits(0x7FF0_0000_0000_0123);
    b.const_float(payload, Type::F32);
    b.ret(&[]);
    let m = Module { functions: vec![f] };
    let back = parse_module(&m.to_string()).unwrap();
    let g = &back.functions[0];
    let op = g.walk()[0];
    match g.kind(op) {
        OpKind::Constant(ConstValue::Float(x)) => assert_eq!(x.to_bits(), 0x7FF0_0000_0000_0123),
        k => panic!("{k:?}"),
    }
}

#[test]
fn errors_point_at_the_problem() {
    let text = "module {\n  tt.func public @k() {\n    %0 = arith.addi %9, %9 : i32\n  }\n}\n";
    let err = parse_module(text).unwrap_err();
    assert_eq!(err.message, "use of undefined value `%9`");
    assert_eq!(&text[err.offset..err.offset + 2], "%9");

    let text = "module {\n  tt.func public @k() {\n    %0 = tt.frobnicate : i32\n  }\n}\n";
    let err = parse_module(text).unwrap_err();
    assert_eq!(err.message, "unknown op `tt.frobnicate`");
    assert!(text[err.offset..].starts_with("tt.frobnicate"));

    let text = "module {\n  tt.func public @k() {\n    %0 = tt.get_program_id {axis = 0 : i32, bogus = 1} : i32\n  }\n}\n";
    let err = parse_module(text).unwrap_err();
    assert_eq!(
        err.message,
        "unknown attribute `bogus` for `tt.get_program_id`"
    );

    let text =
        "module {\n  tt.func public @k(%a: i32) {\n    %0 = arith.addi %a, %a : i64\n  }\n}\n";
    let err = parse_module(text).unwrap_err();
    assert!(
        err.message
            .contains("operand 0 has type i32, but the signature says i64"),
        "{err}"
    );

    let d = err.to_diagnostic(tritonc_diagnostics::FileId(3));
    assert_eq!(d.code, INVALID_IR_TEXT);
    assert_eq!(d.primary_span().map(|s| s.start as usize), Some(err.offset));
}

/// A small deterministic generator, so the test needs no extra dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Parses `text` and, when it parses, verifies and prints it; none of it may panic.
fn exercise(text: &str) {
    if let Ok(m) = parse_module(text) {
        let _ = verify_module(&m);
        let printed = m.to_string();
        // What parses once must parse again identically.
        let again =
            parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}\nfrom\n{text}"));
        assert_eq!(again.to_string(), printed);
    }
}

#[test]
fn truncated_and_garbled_input_never_panics() {
    let sources: Vec<String> = all_fixtures()
        .iter()
        .flat_map(|m| {
            [
                m.to_string(),
                print_module(
                    m,
                    PrintOptions {
                        with_locations: true,
                    },
                ),
            ]
        })
        .collect();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let junk: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "<",
        ">",
        "%",
        "%0",
        "#",
        ":",
        ",",
        "->",
        "tensor<",
        "x",
        "?",
        "\"",
        "\\",
        "^bb0",
        "0x",
        "-",
        "99999999999999999999999999999999999999999",
        "loc(",
        "scf.for",
        "tt.reduce",
        "é",
        "\n",
        " ",
    ];
    for src in &sources {
        // Every prefix on a char boundary.
        for cut in (0..src.len()).step_by(7) {
            if src.is_char_boundary(cut) {
                exercise(&src[..cut]);
            }
        }
        for _ in 0..400 {
            let mut s = src.clone();
            for _ in 0..=rng.below(3) {
                let at = rng.below(s.len());
                if !s.is_char_boundary(at) {
                    continue;
                }
                match rng.below(3) {
                    0 => s.insert_str(at, junk[rng.below(junk.len())]),
                    1 => {
                        let end = (at + 1 + rng.below(8)).min(s.len());
                        if s.is_char_boundary(end) {
                            s.replace_range(at..end, "");
                        }
                    }
                    _ => {
                        let end = (at + 1).min(s.len());
                        if s.is_char_boundary(end) {
                            s.replace_range(at..end, junk[rng.below(junk.len())]);
                        }
                    }
                }
            }
            exercise(&s);
        }
    }
    // Deep nesting is refused, not a stack overflow.
    let deep = format!(
        "module {{ tt.func public @k() {{ {} }} }}",
        "scf.if %c : i1 { ".repeat(10_000)
    );
    assert!(parse_module(&deep).is_err());
}
