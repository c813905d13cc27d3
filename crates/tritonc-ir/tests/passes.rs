//! Pass tests: IR text in, IR text out.

mod fixtures;

use tritonc_ir::*;

fn run(text: &str, pm: PassManager) -> String {
    let mut m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let mut pm = pm;
    pm.run(&mut m).unwrap_or_else(|e| panic!("{e:?}"));
    m.to_string()
}

fn fold_and_clean() -> PassManager {
    PassManager::new()
        .add(passes::ConstantFolding)
        .add(passes::DeadCodeElimination)
}

#[test]
fn dce_removes_unused_pure_ops_and_keeps_effects() {
    let text = "module {
  tt.func public @k(%arg0: !tt.ptr<f32>, %arg1: i32) {
    %0 = arith.addi %arg1, %arg1 : i32
    %1 = arith.muli %0, %0 : i32
    %2 = tt.load %arg0 : !tt.ptr<f32> -> f32
    %3 = tt.load %arg0 {is_volatile = true} : !tt.ptr<f32> -> f32
    %4 = tt.atomic_rmw %arg0, %2 {rmw_op = fadd, sem = acq_rel, scope = gpu} : !tt.ptr<f32>, f32 -> f32
    tt.return
  }
}
";
    let out = run(text, PassManager::new().add(passes::DeadCodeElimination));
    let want = "module {
  tt.func public @k(%arg0: !tt.ptr<f32>, %arg1: i32) {
    %0 = tt.load %arg0 : !tt.ptr<f32> -> f32
    %1 = tt.load %arg0 {is_volatile = true} : !tt.ptr<f32> -> f32
    %2 = tt.atomic_rmw %arg0, %0 {rmw_op = fadd, sem = acq_rel, scope = gpu} : !tt.ptr<f32>, f32 -> f32
    tt.return
  }
}
";
    assert_eq!(out, want);
}

#[test]
fn dce_removes_pure_loops_but_not_loops_that_store() {
    let text = "module {
  tt.func public @k(%arg0: !tt.ptr<i32>, %arg1: i32) {
    %0 = arith.constant 0 : i32
    %1 = arith.constant 1 : i32
    %2 = scf.for %0, %arg1, %1, %0 : i32 {
    ^bb0(%arg2: i32, %arg3: i32):
      %3 = arith.addi %arg3, %arg2 : i32
      scf.yield %3 : i32
    }
    scf.for %0, %arg1, %1 : i32 {
    ^bb0(%arg4: i32):
      tt.store %arg0, %arg4 : !tt.ptr<i32>, i32
      scf.yield
    }
    tt.return
  }
}
";
    let out = run(text, PassManager::new().add(passes::DeadCodeElimination));
    assert!(!out.contains("arith.addi"), "{out}");
    assert_eq!(out.matches("scf.for").count(), 1, "{out}");
    assert!(out.contains("tt.store"));
}

#[test]
fn dce_keeps_everything_in_the_fixtures_that_matters() {
    // The fixtures compute only what they store, so DCE must leave them unchanged,
    // except the unused reduce of the control-flow fixture.
    for (m, removes) in [
        (fixtures::vector_add(), false),
        (fixtures::control_flow(), true),
    ] {
        let before = m.to_string();
        let mut m = m;
        let changed = PassManager::new()
            .add(passes::DeadCodeElimination)
            .run(&mut m)
            .unwrap();
        assert_eq!(changed, removes);
        let after = m.to_string();
        assert_eq!(before == after, !removes);
        assert!(after.contains("tt.store") || after.contains("tt.atomic_rmw"));
    }
}

#[test]
fn folds_integer_arithmetic_with_wrapping() {
    let text = "module {
  tt.func public @k(%arg0: !tt.ptr<i8>, %arg1: !tt.ptr<u8>, %arg2: !tt.ptr<i1>) {
    %0 = arith.constant 100 : i8
    %1 = arith.addi %0, %0 : i8
    tt.store %arg0, %1 : !tt.ptr<i8>, i8
    %2 = arith.constant 7 : i8
    %3 = arith.constant -2 : i8
    %4 = arith.divsi %2, %3 : i8
    tt.store %arg0, %4 : !tt.ptr<i8>, i8
    %5 = arith.remsi %3, %2 : i8
    tt.store %arg0, %5 : !tt.ptr<i8>, i8
    %6 = arith.shrsi %3, %2 : i8
    tt.store %arg0, %6 : !tt.ptr<i8>, i8
    %7 = arith.constant 250 : u8
    %8 = arith.constant 10 : u8
    %9 = arith.addi %7, %8 : u8
    tt.store %arg1, %9 : !tt.ptr<u8>, u8
    %10 = arith.cmpi %7, %8 {predicate = ugt} : u8, u8 -> i1
    tt.store %arg2, %10 : !tt.ptr<i1>, i1
    %11 = arith.constant 0 : i8
    %12 = arith.divsi %2, %11 : i8
    tt.store %arg0, %12 : !tt.ptr<i8>, i8
    tt.return
  }
}
";
    let out = run(text, fold_and_clean());
    let want = "module {
  tt.func public @k(%arg0: !tt.ptr<i8>, %arg1: !tt.ptr<u8>, %arg2: !tt.ptr<i1>) {
    %0 = arith.constant -56 : i8
    tt.store %arg0, %0 : !tt.ptr<i8>, i8
    %1 = arith.constant 7 : i8
    %2 = arith.constant -3 : i8
    tt.store %arg0, %2 : !tt.ptr<i8>, i8
    %3 = arith.constant -2 : i8
    tt.store %arg0, %3 : !tt.ptr<i8>, i8
    %4 = arith.constant -1 : i8
    tt.store %arg0, %4 : !tt.ptr<i8>, i8
    %5 = arith.constant 4 : u8
    tt.store %arg1, %5 : !tt.ptr<u8>, u8
    %6 = arith.constant true : i1
    tt.store %arg2, %6 : !tt.ptr<i1>, i1
    %7 = arith.constant 0 : i8
    %8 = arith.divsi %1, %7 : i8
    tt.store %arg0, %8 : !tt.ptr<i8>, i8
    tt.return
  }
}
";
    assert_eq!(out, want);
}

#[test]
fn folds_floats_with_rounding_of_the_result_type() {
    let text = "module {
  tt.func public @k(%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<f32>) {
    %0 = arith.constant 1.0 : f16
    %1 = arith.constant 0.0009765625 : f16
    %2 = arith.addf %0, %1 : f16
    %3 = arith.constant 0.00048828125 : f16
    %4 = arith.addf %0, %3 : f16
    tt.store %arg0, %2 : !tt.ptr<f16>, f16
    tt.store %arg0, %4 : !tt.ptr<f16>, f16
    %5 = arith.constant 1.0 : f32
    %6 = arith.constant 3.0 : f32
    %7 = arith.divf %5, %6 : f32
    tt.store %arg1, %7 : !tt.ptr<f32>, f32
    tt.return
  }
}
";
    let out = run(text, fold_and_clean());
    // 1 + 2^-10 is representable in f16; 1 + 2^-11 is a tie that rounds to even (1.0).
    assert!(out.contains("arith.constant 1.0009765625 : f16"), "{out}");
    assert!(out.contains("arith.constant 1.0 : f16"), "{out}");
    // 1/3 rounded to f32, printed as the exact f64 of that f32.
    let third = f64::from(1.0f32 / 3.0f32);
    assert!(
        out.contains(&format!("arith.constant {third:?} : f32")),
        "{out}"
    );
    assert!(
        !out.contains("arith.addf") && !out.contains("arith.divf"),
        "{out}"
    );
}

#[test]
fn folds_splats_casts_and_selects() {
    let text = "module {
  tt.func public @k(%arg0: !tt.ptr<i64>, %arg1: i64) {
    %0 = arith.constant -1 : i32
    %1 = arith.extsi %0 : i32 -> i64
    %2 = arith.extui %0 : i32 -> i64
    %3 = arith.constant true : i1
    %4 = arith.select %3, %1, %arg1 : i1, i64, i64 -> i64
    %5 = tt.splat %arg0 : !tt.ptr<i64> -> tensor<4x!tt.ptr<i64>>
    %6 = tt.splat %2 : i64 -> tensor<4xi64>
    tt.store %5, %6 : tensor<4x!tt.ptr<i64>>, tensor<4xi64>
    tt.store %arg0, %4 : !tt.ptr<i64>, i64
    tt.return
  }
}
";
    let out = run(text, fold_and_clean());
    let want = "module {
  tt.func public @k(%arg0: !tt.ptr<i64>, %arg1: i64) {
    %0 = arith.constant -1 : i64
    %1 = tt.splat %arg0 : !tt.ptr<i64> -> tensor<4x!tt.ptr<i64>>
    %2 = arith.constant dense<4294967295> : tensor<4xi64>
    tt.store %1, %2 : tensor<4x!tt.ptr<i64>>, tensor<4xi64>
    tt.store %arg0, %0 : !tt.ptr<i64>, i64
    tt.return
  }
}
";
    assert_eq!(out, want);
}

/// A pass that breaks the IR, to check the manager's verification.
struct BreakTypes;

impl Pass for BreakTypes {
    fn name(&self) -> &'static str {
        "break-types"
    }

    fn run_on_function(&mut self, f: &mut Function) -> bool {
        let v = f.args()[0];
        f.set_value_type(v, Type::F32);
        true
    }
}

#[test]
fn pass_manager_verifies_after_each_pass_when_asked() {
    let mut m = fixtures::vector_add();
    let errors = PassManager::new()
        .add(BreakTypes)
        .verify_each(true)
        .run(&mut m)
        .unwrap_err();
    assert!(!errors.is_empty());
    assert!(
        errors[0]
            .notes
            .iter()
            .any(|n| n.contains("after the `break-types` pass")),
        "{errors:?}"
    );
    let mut m = fixtures::vector_add();
    assert!(PassManager::new()
        .add(BreakTypes)
        .verify_each(false)
        .run(&mut m)
        .is_ok());
}

const DOT_ADD: &str = "module {
  tt.func public @k(%arg0: tensor<16x16xf16>, %arg1: tensor<16x16xf16>, %arg2: tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = arith.constant dense<0.0> : tensor<16x16xf32>
    %1 = tt.dot %arg0, %arg1, %0 {input_precision = tf32} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
    %2 = arith.addf ADD : tensor<16x16xf32>
    tt.return %2 : tensor<16x16xf32>
  }
}
";

#[test]
fn dot_accumulate_folds_an_add_into_a_dot_into_zeros_either_order() {
    let want = "module {
  tt.func public @k(%arg0: tensor<16x16xf16>, %arg1: tensor<16x16xf16>, %arg2: tensor<16x16xf32>) -> (tensor<16x16xf32>) {
    %0 = tt.dot %arg0, %arg1, %arg2 {input_precision = tf32} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
    tt.return %0 : tensor<16x16xf32>
  }
}
";
    for add in ["%arg2, %1", "%1, %arg2"] {
        let out = run(&DOT_ADD.replace("ADD", add), PassManager::new().add(passes::DotAccumulate));
        assert_eq!(out, want, "{add}");
    }
}

#[test]
fn dot_accumulate_keeps_what_triton_keeps() {
    // A dot into a non-zero accumulator; a dot whose result is used twice; a float dot
    // with an imprecise-accumulation limit: each stays a dot plus an add.
    let nonzero = DOT_ADD
        .replace("dense<0.0>", "dense<2.0>")
        .replace("ADD", "%arg2, %1");
    let twice = DOT_ADD
        .replace("ADD", "%arg2, %1")
        .replace("tt.return %2 : tensor<16x16xf32>", "%3 = arith.mulf %1, %2 : tensor<16x16xf32>\n    tt.return %3 : tensor<16x16xf32>");
    let imprecise = DOT_ADD
        .replace("{input_precision = tf32}", "{input_precision = tf32, max_num_imprecise_acc = 32 : i32}")
        .replace("ADD", "%arg2, %1");
    for text in [nonzero, twice, imprecise] {
        let out = run(&text, PassManager::new().add(passes::DotAccumulate));
        assert_eq!(out, parse_module(&text).unwrap().to_string());
    }
}

#[test]
fn dot_accumulate_folds_integer_adds_of_a_splatted_zero() {
    let text = "module {
  tt.func public @k(%arg0: tensor<16x16xi8>, %arg1: tensor<16x16xi8>, %arg2: tensor<16x16xi32>) -> (tensor<16x16xi32>) {
    %0 = arith.constant 0 : i32
    %1 = tt.splat %0 : i32 -> tensor<16x16xi32>
    %2 = tt.dot %arg0, %arg1, %1 {input_precision = ieee} : tensor<16x16xi8>, tensor<16x16xi8>, tensor<16x16xi32> -> tensor<16x16xi32>
    %3 = arith.addi %2, %arg2 : tensor<16x16xi32>
    tt.return %3 : tensor<16x16xi32>
  }
}
";
    let out = run(text, PassManager::new().add(passes::DotAccumulate));
    assert!(out.contains("tt.dot %arg0, %arg1, %arg2"), "{out}");
    assert!(!out.contains("arith.addi") && !out.contains("tt.splat"), "{out}");
}
