use super::*;
use tritonc_diagnostics::FileId;
use tritonc_syntax::ast::StmtKind;

/// Parses `text` as one Python expression.
fn parse_expr(text: &str) -> Expr {
    let src = format!("_ = {text}\n");
    let parsed = tritonc_syntax::parse_module(FileId(0), &src);
    assert!(!parsed.has_errors(), "{text}: {:?}", parsed.diagnostics);
    match &parsed.module.body[0].kind {
        StmtKind::Assign { value, .. } => value.clone(),
        other => panic!("not an assignment: {other:?}"),
    }
}

fn eval_in(text: &str, env: &MapEnv) -> Result<Constexpr, Diagnostic> {
    eval_expr(&parse_expr(text), env)
}

fn eval(text: &str) -> Constexpr {
    eval_in(text, &MapEnv::new()).unwrap_or_else(|d| panic!("{text}: {d:?}"))
}

use Constexpr::{Bool, Float, Int, Str};

#[test]
fn arithmetic_follows_python() {
    assert_eq!(eval("-7 // 2"), Int(-4));
    assert_eq!(eval("-7 % 2"), Int(1));
    assert_eq!(eval("7 // -2"), Int(-4));
    assert_eq!(eval("2 ** 10"), Int(1024));
    assert_eq!(eval("7 / 2"), Float(3.5));
    assert_eq!(eval("1 << 4 | 1"), Int(17));
    assert_eq!(eval("(3 + 4) * 2 - 1"), Int(13));
    assert_eq!(eval("-2 ** 2"), Int(-4));
}

#[test]
fn comparisons_booleans_and_ternaries() {
    assert_eq!(eval("1 < 2 < 3"), Bool(true));
    assert_eq!(eval("1 < 3 < 2"), Bool(false));
    assert_eq!(eval("0 or 5"), Int(5));
    assert_eq!(eval("3 and 0"), Int(0));
    assert_eq!(eval("not 0"), Bool(true));
    assert_eq!(eval("'a' if 2 > 1 else 'b'"), Str("a".into()));
    assert_eq!(eval("None is None"), Bool(true));
    assert_eq!(eval("'rtne' == 'rtne'"), Bool(true));
}

#[test]
fn builtins_and_triton_helpers() {
    assert_eq!(eval("triton.cdiv(1000, 128)"), Int(8));
    assert_eq!(eval("triton.cdiv(1024, 128)"), Int(8));
    assert_eq!(eval("triton.next_power_of_2(781)"), Int(1024));
    assert_eq!(eval("triton.next_power_of_2(1024)"), Int(1024));
    assert_eq!(eval("triton.next_power_of_2(1)"), Int(1));
    assert_eq!(eval("triton.next_power_of_2(0)"), Int(0));
    assert_eq!(eval("min(3, 1, 2)"), Int(1));
    assert_eq!(eval("max((3, 7, 2))"), Int(7));
    assert_eq!(eval("len((1, 2, 3))"), Int(3));
    assert_eq!(eval("int(3.9)"), Int(3));
    assert_eq!(eval("int(-3.9)"), Int(-3));
    assert_eq!(eval("float('-inf')"), Float(f64::NEG_INFINITY));
    assert_eq!(eval("abs(-5)"), Int(5));
    assert_eq!(eval("round(2.5)"), Int(2));
    assert_eq!(eval("tl.constexpr(16)"), Int(16));
    assert_eq!(eval("f'{1 + 1}x{2.5}'"), Str("2x2.5".into()));
}

#[test]
fn dtypes_are_values_with_introspection() {
    use tritonc_ir::{DType, Elem, PtrType};
    assert_eq!(eval("tl.float16"), Constexpr::dtype(DType::F16));
    assert_eq!(eval("tl.float16.is_fp16()"), Bool(true));
    assert_eq!(eval("tl.bfloat16.is_fp16()"), Bool(false));
    assert_eq!(eval("tl.int8.primitive_bitwidth"), Int(8));
    assert_eq!(eval("tl.float32 == tl.float32"), Bool(true));
    assert_eq!(eval("tl.float32 != tl.float16"), Bool(true));
    assert_eq!(
        eval("tl.pointer_type(tl.float16).element_ty"),
        Constexpr::dtype(DType::F16)
    );
    let env = MapEnv::new().with(
        "T",
        Constexpr::DType(Elem::Ptr(PtrType::global(DType::BF16))),
    );
    assert_eq!(eval_in("T.element_ty.is_bf16()", &env).unwrap(), Bool(true));
}

#[test]
fn launch_spec_expressions_over_host_objects() {
    use std::sync::Arc;
    let x = HostObject {
        type_name: "tensor".into(),
        fields: [(
            "shape".to_string(),
            Constexpr::Tuple(vec![Int(1823), Int(781)]),
        )]
        .into_iter()
        .collect(),
    };
    let env = MapEnv::new().with("x", Constexpr::Object(Arc::new(x)));
    assert_eq!(eval_in("x.shape[1]", &env).unwrap(), Int(781));
    assert_eq!(eval_in("x.shape[-2]", &env).unwrap(), Int(1823));
    assert_eq!(eval_in("next_pow2(x.shape[1])", &env).unwrap(), Int(1024));
    assert_eq!(eval_in("cdiv(x.shape[0], 64)", &env).unwrap(), Int(29));
}

#[test]
fn heuristics_lambdas() {
    let lambda = parse_expr("lambda args: triton.next_power_of_2(args['n_cols'])");
    let args = eval("{'n_cols': 781, 'n_rows': 4}");
    assert_eq!(
        call_lambda(&lambda, &[args], &MapEnv::new()).unwrap(),
        Int(1024)
    );
    let even = parse_expr("lambda args: args['n'] % args['BLOCK'] == 0");
    let args = eval("{'n': 4096, 'BLOCK': 128}");
    assert_eq!(
        call_lambda(&even, &[args], &MapEnv::new()).unwrap(),
        Bool(true)
    );
}

#[test]
fn errors_have_codes_and_spans() {
    let env = MapEnv::new();
    let e = eval_in("1 // 0", &env).unwrap_err();
    assert_eq!(e.code, codes::CONSTEXPR_ERROR);
    assert!(e.message.contains("ZeroDivisionError"), "{}", e.message);
    // The span covers `1 // 0` in `_ = 1 // 0`.
    assert_eq!(e.primary_span().map(|s| (s.start, s.end)), Some((4, 10)));

    let e = eval_in("undefined_thing + 1", &env).unwrap_err();
    assert_eq!(e.code, codes::UNDEFINED_NAME);

    let e = eval_in("tl.arang", &env).unwrap_err();
    assert_eq!(e.code, codes::UNKNOWN_TL_OP);
    assert_eq!(e.help.as_deref(), Some("did you mean `tl.arange`?"));

    let e = eval_in("2 ** 1000", &env).unwrap_err();
    assert!(e.message.contains("overflow"), "{}", e.message);

    let e = eval_in("tl.float16.nonsense", &env).unwrap_err();
    assert_eq!(e.code, codes::UNKNOWN_ATTRIBUTE);

    let e = eval_in("(1, 2)[5]", &env).unwrap_err();
    assert!(e.message.contains("IndexError"), "{}", e.message);
}

#[test]
fn list_comprehensions_filter_and_nest_as_python() {
    use Constexpr::Tuple;
    assert_eq!(
        eval("[x * 2 for x in (1, 2, 3, 4) if x % 2 == 0]"),
        Tuple(vec![Int(4), Int(8)])
    );
    assert_eq!(
        eval("[(a, b) for a in (1, 2) for b in (a, 3) if a != b]"),
        Tuple(vec![
            Tuple(vec![Int(1), Int(3)]),
            Tuple(vec![Int(2), Int(3)])
        ])
    );
    // The loop variable does not leak past the comprehension.
    let e = eval_in("[y for y in (1,)] + [y]", &MapEnv::new()).unwrap_err();
    assert_eq!(e.code, codes::UNDEFINED_NAME);
    let e = eval_in("[y for y in 3]", &MapEnv::new()).unwrap_err();
    assert!(e.message.contains("not int"), "{}", e.message);
}

#[test]
fn lambdas_take_a_trailing_kwargs_parameter_as_an_empty_dict() {
    // The shape of an autotune `early_config_prune`.
    let prune = parse_expr("lambda configs, nargs, **kw: [c for c in configs if c <= nargs['n'] and len(kw) == 0]");
    let nargs = Constexpr::Object(std::sync::Arc::new(HostObject {
        type_name: "dict".into(),
        fields: [("n".to_string(), Int(2))].into_iter().collect(),
    }));
    let configs = Constexpr::Tuple(vec![Int(1), Int(2), Int(3)]);
    assert_eq!(
        call_lambda(&prune, &[configs, nargs], &MapEnv::new()).unwrap(),
        Constexpr::Tuple(vec![Int(1), Int(2)])
    );
}
