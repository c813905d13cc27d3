//! Conversion from Python source to the kernel AST: structure and spans.

use tritonc_diagnostics::{FileId, Span};
use tritonc_syntax::ast::*;
use tritonc_syntax::parse_module;

const FILE: FileId = FileId(0);

fn text_of(src: &str, span: Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

fn parse_ok(src: &str) -> Module {
    let parsed = parse_module(FILE, src);
    assert!(
        parsed.diagnostics.is_empty(),
        "unexpected diagnostics: {:?}",
        parsed.diagnostics
    );
    parsed.module
}

fn only_function(m: &Module) -> &FunctionDef {
    match &m
        .body
        .iter()
        .find(|s| matches!(s.kind, StmtKind::FunctionDef(_)))
        .unwrap()
        .kind
    {
        StmtKind::FunctionDef(f) => f,
        _ => unreachable!(),
    }
}

#[test]
fn function_def_spans_and_params() {
    let src = "import triton\n\n@triton.jit(debug=True)\n@other\ndef  add_kernel(x_ptr, n: int, /, BLOCK: tl.constexpr = 128, *rest, k=1, **kw) -> None:\n    pass\n";
    let m = parse_ok(src);
    let f = only_function(&m);
    assert_eq!(f.name.name, "add_kernel");
    assert_eq!(text_of(src, f.name.span), "add_kernel");
    assert!(text_of(src, f.span).starts_with("@triton.jit(debug=True)"));
    assert!(text_of(src, f.span).ends_with("pass"));
    assert!(text_of(src, f.header_span).starts_with("def  add_kernel("));
    assert!(text_of(src, f.header_span).ends_with("-> None:"));
    assert_eq!(f.decorators.len(), 2);
    assert_eq!(text_of(src, f.decorators[0].span), "triton.jit(debug=True)");
    let kinds: Vec<_> = f
        .params
        .iter()
        .map(|p| (p.name.name.as_str(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("x_ptr", ParamKind::PositionalOnly),
            ("n", ParamKind::PositionalOnly),
            ("BLOCK", ParamKind::Positional),
            ("rest", ParamKind::VarPositional),
            ("k", ParamKind::KeywordOnly),
            ("kw", ParamKind::VarKeyword),
        ]
    );
    let block = f.param("BLOCK").unwrap();
    assert_eq!(text_of(src, block.span), "BLOCK: tl.constexpr = 128");
    assert_eq!(
        text_of(src, block.annotation.as_ref().unwrap().span),
        "tl.constexpr"
    );
    assert_eq!(block.default.as_ref().unwrap().as_int_literal(), Some(128));
    assert_eq!(text_of(src, f.param("rest").unwrap().span), "*rest");
    assert_eq!(text_of(src, f.param("kw").unwrap().span), "**kw");
    assert_eq!(text_of(src, f.returns.as_ref().unwrap().span), "None");
}

#[test]
fn expression_spans() {
    let src = "y = tl.load(x_ptr + offs[:, None], mask=m, **extra)\n";
    let m = parse_ok(src);
    let StmtKind::Assign { targets, value } = &m.body[0].kind else {
        panic!("not an assign")
    };
    assert_eq!(text_of(src, targets[0].span), "y");
    let call = value.as_call().unwrap();
    assert_eq!(call.func.dotted_path().as_deref(), Some("tl.load"));
    let ExprKind::Attribute { attr, .. } = &call.func.kind else {
        panic!()
    };
    assert_eq!(text_of(src, attr.span), "load");
    assert_eq!(text_of(src, call.args[0].span), "x_ptr + offs[:, None]");
    let ExprKind::BinOp { rhs, .. } = &call.args[0].kind else {
        panic!()
    };
    let ExprKind::Subscript { index, .. } = &rhs.kind else {
        panic!()
    };
    let ExprKind::Tuple(items) = &index.kind else {
        panic!("index is not a tuple")
    };
    assert!(matches!(
        items[0].kind,
        ExprKind::Slice {
            lower: None,
            upper: None,
            step: None
        }
    ));
    assert_eq!(items[1].as_constant(), Some(&Constant::None));
    assert_eq!(text_of(src, call.keywords[0].span), "mask=m");
    assert_eq!(
        text_of(src, call.keywords[0].name.as_ref().unwrap().span),
        "mask"
    );
    assert!(call.keywords[1].name.is_none());
    assert_eq!(text_of(src, call.keywords[1].value.span), "extra");
}

#[test]
fn chained_compare_is_kept() {
    let src = "a < b <= c\n";
    let m = parse_ok(src);
    let StmtKind::Expr(e) = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::Compare {
        ops, comparators, ..
    } = &e.kind
    else {
        panic!()
    };
    assert_eq!(ops, &vec![CmpOp::Lt, CmpOp::LtE]);
    assert_eq!(comparators.len(), 2);
}

#[test]
fn integer_literals() {
    let src = "a = 170141183460469231731687303715884105727\nb = 170141183460469231731687303715884105728\nc = -5\nd = 0xFF\n";
    let m = parse_ok(src);
    let value = |i: usize| match &m.body[i].kind {
        StmtKind::Assign { value, .. } => value.clone(),
        _ => panic!(),
    };
    assert_eq!(value(0).as_constant(), Some(&Constant::Int(i128::MAX)));
    assert_eq!(
        value(1).as_constant(),
        Some(&Constant::BigInt(
            "170141183460469231731687303715884105728".into()
        ))
    );
    assert_eq!(value(2).as_int_literal(), Some(-5));
    assert_eq!(value(3).as_int_literal(), Some(255));
}

#[test]
fn elif_and_fstring() {
    let src = "if a:\n    pass\nelif b:\n    x = f\"v={n!r:>{w}}\"\nelse:\n    pass\n";
    let m = parse_ok(src);
    let StmtKind::If { orelse, .. } = &m.body[0].kind else {
        panic!()
    };
    assert!(orelse[0].is_elif(src));
    assert!(!m.body[0].is_elif(src));
    let StmtKind::If { body, .. } = &orelse[0].kind else {
        panic!()
    };
    let StmtKind::Assign { value, .. } = &body[0].kind else {
        panic!()
    };
    let ExprKind::FString(parts) = &value.kind else {
        panic!("not an f-string: {value:?}")
    };
    assert_eq!(parts[0], FStringPart::Literal("v=".into()));
    let FStringPart::Formatted {
        value,
        conversion,
        format_spec,
    } = &parts[1]
    else {
        panic!()
    };
    assert_eq!(value.as_name(), Some("n"));
    assert_eq!(*conversion, Some('r'));
    assert!(format_spec.is_some());
}

#[test]
fn imports_keep_spans() {
    let src = "import triton.language as tl, triton\nfrom triton.language.extra.cuda import libdevice as ld\nfrom . import x\n";
    let m = parse_ok(src);
    let StmtKind::Import(names) = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(text_of(src, names[0].span), "triton.language as tl");
    assert_eq!(text_of(src, names[0].name.span), "triton.language");
    assert_eq!(text_of(src, names[0].asname.as_ref().unwrap().span), "tl");
    let StmtKind::ImportFrom {
        module,
        level,
        names,
    } = &m.body[1].kind
    else {
        panic!()
    };
    assert_eq!(*level, 0);
    assert_eq!(
        text_of(src, module.as_ref().unwrap().span),
        "triton.language.extra.cuda"
    );
    assert_eq!(text_of(src, names[0].asname.as_ref().unwrap().span), "ld");
    let StmtKind::ImportFrom { module, level, .. } = &m.body[2].kind else {
        panic!()
    };
    assert_eq!((module.is_none(), *level), (true, 1));
}

#[test]
fn rejected_constructs_are_kept_as_nodes() {
    let src = "def f():\n    for i in range(3):\n        break\n    else:\n        pass\n    try:\n        del x\n    except ValueError as e:\n        raise\n    global g\n    lambda: 1\n    class C:\n        pass\n";
    let m = parse_ok(src);
    let f = only_function(&m);
    let StmtKind::For { body, orelse, .. } = &f.body[0].kind else {
        panic!()
    };
    assert!(matches!(body[0].kind, StmtKind::Break));
    assert_eq!(text_of(src, body[0].span), "break");
    assert_eq!(orelse.len(), 1);
    let StmtKind::Try(t) = &f.body[1].kind else {
        panic!()
    };
    assert!(matches!(t.body[0].kind, StmtKind::Delete(_)));
    assert_eq!(text_of(src, t.handlers[0].name.as_ref().unwrap().span), "e");
    let StmtKind::Global(names) = &f.body[2].kind else {
        panic!()
    };
    assert_eq!(text_of(src, names[0].span), "g");
    let StmtKind::ClassDef(c) = &f.body[4].kind else {
        panic!()
    };
    assert_eq!(text_of(src, c.name.span), "C");
}

#[test]
fn syntax_error_is_one_diagnostic_at_its_span() {
    let src = "def f(:\n    pass\n";
    let parsed = parse_module(FILE, src);
    assert_eq!(parsed.diagnostics.len(), 1);
    let d = &parsed.diagnostics[0];
    assert_eq!(d.code.0, "E0001");
    let span = d.primary_span().unwrap();
    assert_eq!(text_of(src, span), ":");
    assert!(parsed.module.body.is_empty());
}

#[test]
fn unicode_identifiers_have_byte_spans() {
    let src = "def größe(ä):\n    return ä\n";
    let m = parse_ok(src);
    let f = only_function(&m);
    assert_eq!(text_of(src, f.name.span), "größe");
    assert_eq!(text_of(src, f.params[0].name.span), "ä");
}
