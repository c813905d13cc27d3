//! `acc + tl.dot(a, b)` folds into the dot exactly where Triton 3.6 folds it: every case
//! of `tests/fixtures/triton/dot_combine.json` (recorded from the wheel by
//! `scripts/triton_dot_combine.py`) lowered by sema and compared.

use tritonc_diagnostics::{SourceMap, Span};
use tritonc_ir::{BinaryOp, ConstValue, Function, OpKind, Value};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

fn lower(source: &str, sig: &str) -> Function {
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", source.to_string());
    let sig_file = sources.add("<signature>", sig.to_string());
    let parsed = tritonc_syntax::parse_module(file, source);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope.functions.get("kernel").expect("a kernel").clone();
    let items = parse_signature(sig, sig_file).expect("the signature parses");
    let spec = bind_signature(
        &def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .expect("the signature binds");
    let m = tritonc_sema::lower_kernel(&parsed.module, "kernel", &spec).expect("it lowers");
    tritonc_ir::verify_module(&m).expect("the IR verifies");
    m.functions.into_iter().next().expect("one function")
}

fn is_zero(f: &Function, v: Value) -> bool {
    match f.defining_op(v).map(|d| (d, f.kind(d))) {
        Some((_, OpKind::Constant(ConstValue::Int(0)))) => true,
        Some((_, OpKind::Constant(ConstValue::Float(x)))) => *x == 0.0,
        Some((d, OpKind::Splat | OpKind::Broadcast)) => is_zero(f, f.op(d).operands()[0]),
        _ => false,
    }
}

/// The fixture's criterion on tritonc's IR: no dot into zeros, no add of a dot's result.
fn folded(f: &Function) -> bool {
    let dots: Vec<_> = f
        .walk()
        .into_iter()
        .filter(|&op| matches!(f.kind(op), OpKind::Dot { .. }))
        .collect();
    let into_zeros = dots.iter().any(|&d| is_zero(f, f.op(d).operands()[2]));
    let added = f.walk().into_iter().any(|op| {
        matches!(f.kind(op), OpKind::Binary(BinaryOp::AddF | BinaryOp::AddI))
            && f.op(op).operands().iter().any(|&v| {
                f.defining_op(v)
                    .is_some_and(|d| matches!(f.kind(d), OpKind::Dot { .. }))
            })
    });
    !into_zeros && !added
}

#[test]
fn dot_accumulation_folds_where_triton_folds() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/triton/dot_combine.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
            .expect("JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 9);
    let mut mismatches = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let f = lower(
            case["source"].as_str().expect("source"),
            case["signature"].as_str().expect("signature"),
        );
        let want = case["folded"].as_bool().expect("folded");
        if folded(&f) != want {
            mismatches.push(format!("{name}: Triton folded={want}, tritonc folded={}\n{f}", !want));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
