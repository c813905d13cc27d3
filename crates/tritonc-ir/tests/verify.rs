//! Verifier tests: valid fixtures pass; each broken invariant is reported at its op.

mod fixtures;

use tritonc_diagnostics::{FileId, Span};
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
fn fixtures_verify() {
    for m in all_fixtures() {
        if let Err(e) = verify_module(&m) {
            panic!("{m}\n{e:#?}");
        }
    }
}

fn messages(f: &Function) -> Vec<String> {
    verify_function(f)
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.message)
        .collect()
}

fn kernel(args: Vec<Type>) -> Function {
    Function::new("k", args, vec![])
}

#[test]
fn binary_operand_types_must_match() {
    let mut f = kernel(vec![Type::I32, Type::I64]);
    let [a, c] = f.args().to_vec()[..] else {
        unreachable!()
    };
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.set_loc(Location::new(Span::new(FileId(0), 3, 8)));
    b.binary(BinaryOp::AddI, a, c);
    b.set_loc(Location::unknown());
    b.ret(&[]);
    let errs = verify_function(&f).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].code, INVALID_IR);
    assert!(
        errs[0]
            .message
            .contains("`arith.addi` needs operands and result of one type"),
        "{}",
        errs[0].message
    );
    assert_eq!(errs[0].primary_span(), Some(Span::new(FileId(0), 3, 8)));
}

#[test]
fn float_op_rejects_ints() {
    let mut f = kernel(vec![Type::I32]);
    let a = f.args()[0];
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.binary(BinaryOp::AddF, a, a);
    b.ret(&[]);
    assert!(messages(&f)[0].contains("does not apply to i32"));
}

#[test]
fn missing_terminator_and_misplaced_terminator() {
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.ret(&[]);
    b.barrier();
    let m = messages(&f);
    assert!(
        m.iter()
            .any(|s| s.contains("`tt.return` is a terminator but not the last op")),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|s| s.contains("`gpu.barrier` ends a block but is not a terminator")),
        "{m:?}"
    );
}

#[test]
fn non_power_of_two_and_oversized_blocks() {
    let mut f = kernel(vec![Type::F32]);
    let x = f.args()[0];
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.splat(x, &[3]);
    b.splat(x, &[2048, 1024]);
    b.ret(&[]);
    let m = messages(&f);
    assert!(
        m.iter().any(|s| s.contains("dim 3 is not a power of two")),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|s| s.contains("2097152 elements exceed the limit of 1048576")),
        "{m:?}"
    );
}

#[test]
fn load_mask_must_match_pointer_shape() {
    let mut f = kernel(vec![Type::ptr(DType::F16)]);
    let p = f.args()[0];
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let ps = b.splat(p, &[64]);
    let t = b.const_bool(true);
    let mask = b.splat(t, &[32]);
    b.load(ps, Some(mask), None, LoadOptions::default());
    b.ret(&[]);
    assert!(messages(&f)[0].contains("mask must be i1 shaped like tensor<64x!tt.ptr<f16>>"));
}

#[test]
fn addptr_needs_int_offsets_of_same_shape() {
    let mut f = kernel(vec![Type::ptr(DType::F32), Type::F32]);
    let [p, x] = f.args().to_vec()[..] else {
        unreachable!()
    };
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.addptr(p, x);
    b.ret(&[]);
    assert!(messages(&f)[0].contains("needs an int offset"));
}

#[test]
fn broadcast_rules() {
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let r = b.make_range(0, 4);
    let r2 = b.expand_dims(r, 0);
    b.broadcast(r2, &[8, 4]); // ok: 1 -> 8
    b.broadcast(r2, &[1, 8]); // bad: 4 -> 8
    b.ret(&[]);
    let m = messages(&f);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("cannot broadcast tensor<1x4xi32> to tensor<1x8xi32>"));
}

#[test]
fn reduce_axis_out_of_range() {
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let r = b.make_range(0, 4);
    b.reduce_with(&[r], 1, |b, x, y| {
        vec![b.binary(BinaryOp::AddI, x[0], y[0])]
    });
    b.ret(&[]);
    assert!(messages(&f)
        .iter()
        .any(|s| s.contains("axis 1 out of range for rank 1")));
}

#[test]
fn yield_types_must_match_loop_results() {
    let mut f = kernel(vec![Type::I32, Type::F32]);
    let [n, x] = f.args().to_vec()[..] else {
        unreachable!()
    };
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let zero = b.const_i32(0);
    let one = b.const_i32(1);
    b.for_with(zero, n, one, &[x], |_, iv, _| vec![iv]);
    b.ret(&[]);
    assert!(messages(&f)[0].contains("scf.yield must yield the result types"));
}

#[test]
fn use_before_definition_and_out_of_scope() {
    let mut f = kernel(vec![Type::I32]);
    let n = f.args()[0];
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let zero = b.const_i32(0);
    let one = b.const_i32(1);
    let mut inner = None;
    b.for_with(zero, n, one, &[], |b, iv, _| {
        inner = Some(b.binary(BinaryOp::AddI, iv, iv));
        vec![]
    });
    // Uses a value defined inside the loop body after the loop.
    b.binary(BinaryOp::AddI, inner.unwrap(), n);
    b.ret(&[]);
    assert!(messages(&f)[0].contains("operand 0 is not defined before its use in scope"));
    // Moving a use before its definition is caught too.
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let c = b.const_i32(1);
    b.binary(BinaryOp::AddI, c, c);
    b.ret(&[]);
    let c_op = f.defining_op(c).unwrap();
    f.detach_op(c_op);
    f.insert_op(e, 1, c_op);
    assert!(messages(&f)
        .iter()
        .any(|s| s.contains("not defined before its use")));
}

#[test]
fn combiner_region_is_isolated() {
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    let r = b.make_range(0, 4);
    let outside = b.const_i32(7);
    b.reduce_with(&[r], 0, |b, x, _| {
        vec![b.binary(BinaryOp::AddI, x[0], outside)]
    });
    b.ret(&[]);
    assert!(messages(&f)
        .iter()
        .any(|s| s.contains("`arith.addi` operand 1 is not defined")));
}

#[test]
fn generic_types_are_checked_permissively() {
    let t = Type::Tensor {
        shape: vec![Dim::Symbolic("BLOCK".into())],
        elem: Elem::DType(DType::Var(0)),
        encoding: None,
    };
    let mut f = kernel(vec![t.clone(), Type::tensor_of(&[128], DType::F32)]);
    let [a, c] = f.args().to_vec()[..] else {
        unreachable!()
    };
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.binary(BinaryOp::AddF, a, c);
    b.math(MathOp::Exp, a);
    b.ret(&[]);
    assert!(verify_function(&f).is_ok(), "{:?}", messages(&f));
}

#[test]
fn constant_range_and_kind() {
    let mut f = kernel(vec![]);
    let e = f.entry_block();
    let mut b = Builder::at_end(&mut f, e);
    b.const_int(256, Type::Scalar(DType::U8));
    b.const_int(-1, Type::Scalar(DType::U32));
    b.const_int(255, Type::Scalar(DType::U8));
    b.const_float(1.0, Type::I32);
    b.ret(&[]);
    let m = messages(&f);
    assert_eq!(m.len(), 3, "{m:?}");
    assert!(m[0].contains("value 256 out of range for u8"));
    assert!(m[1].contains("value -1 out of range for u32"));
    assert!(m[2].contains("float value for i32"));
}
