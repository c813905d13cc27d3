//! The GPU IR's text: encodings, shared buffers, tokens and the `ttg.*` ops parse,
//! print back unchanged and verify; malformed ones are rejected with a reason.

use tritonc_ir::layout::Layout;
use tritonc_ir::*;

const PIPELINED_COPY: &str = r#"module {
  tt.func public @k(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: i32) {
    %0 = tt.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    %1 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, tensor<64xi32, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> -> tensor<64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    %3 = ttg.local_alloc : !ttg.memdesc<2x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>
    %4 = arith.constant 1 : i32
    %5 = ttg.memdesc_index %3, %4 : !ttg.memdesc<2x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>, i32 -> !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>
    %6 = ttg.async_copy_global_to_local %2, %5 {cache = cg} : tensor<64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable> -> !ttg.async.token
    %7 = ttg.async_commit_group %6 : !ttg.async.token
    %8 = ttg.async_wait %7 {num = 0 : i32} : !ttg.async.token
    %9 = ttg.local_load %5, %8 : !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>, !ttg.async.token -> tensor<64xf16, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>>
    %10 = ttg.convert_layout %9 : tensor<64xf16, #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>> -> tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    ttg.local_store %10, %5 : tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, mutable>
    tt.store %2, %10 : tensor<64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    tt.return
  }
}
"#;

#[test]
fn gpu_ir_round_trips_and_verifies() {
    let m = parse_module(PIPELINED_COPY).unwrap();
    verify_module(&m).unwrap();
    // Printed with aliases; the aliased text parses to the same IR.
    let printed = m.to_string();
    assert!(printed.starts_with(
        "#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>\n#shared = #ttg.swizzled_shared<"
    ), "{printed}");
    assert!(printed.contains("tensor<64xf16, #ttg.slice<{dim = 0, parent = #blocked1}>>"));
    assert!(printed.contains("!ttg.memdesc<2x64xf16, #shared, mutable>"));
    let again = parse_module(&printed).unwrap();
    assert_eq!(again.to_string(), printed);
    assert_eq!(
        print_module(&again, PrintOptions::default()).replace("#blocked1", "B1"),
        printed.replace("#blocked1", "B1")
    );
    let f = &m.functions[0];
    let load = f
        .walk()
        .into_iter()
        .find(|&op| matches!(f.kind(op), OpKind::LocalLoad))
        .unwrap();
    let ty = f.value_type(f.op(load).results()[0]);
    assert!(matches!(ty.encoding(), Some(Layout::Slice(s)) if s.dim == 0));
    let wait = f
        .walk()
        .into_iter()
        .find(|&op| matches!(f.kind(op), OpKind::AsyncWait { num: 0 }));
    assert!(wait.is_some());
}

fn verify_error(text: &str) -> String {
    let m = parse_module(text).unwrap();
    let errors = verify_module(&m).unwrap_err();
    errors
        .iter()
        .map(|d| d.message.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn gpu_ops_are_verified() {
    // Storing into a buffer filled at allocation (immutable).
    let immutable = "module {\n  tt.func public @k(%arg0: tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) {\n    %0 = ttg.local_alloc %arg0 : tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> -> !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>\n    ttg.local_store %arg0, %0 : tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, !ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>\n    tt.return\n  }\n}\n";
    assert!(verify_error(immutable).contains("stores into an immutable"));
    // An allocation without data must be writable.
    let empty = immutable.replace(
        "%0 = ttg.local_alloc %arg0 : tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> ->",
        "%0 = ttg.local_alloc :",
    );
    assert!(verify_error(&empty).contains("must be mutable"));
    // A conversion may not change the element type.
    let retyped = "module {\n  tt.func public @k(%arg0: tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) {\n    %0 = ttg.convert_layout %arg0 : tensor<64xf16, #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> -> tensor<64xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>\n    tt.return\n  }\n}\n";
    assert!(verify_error(retyped).contains("changes only the encoding"));
    // An encoding that does not fit its block: a rank-2 layout on a rank-1 block.
    let bad_rank = "module {\n  tt.func public @k(%arg0: tensor<64xf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>) {\n    tt.return\n  }\n}\n";
    let m = parse_module(bad_rank).unwrap();
    let d = verify_module(&m).unwrap_err();
    assert!(
        d.iter().any(|d| d.message.contains("rank-2 layout")),
        "{d:?}"
    );
}

#[test]
fn malformed_gpu_types_do_not_parse() {
    for (bad, why) in [
        (
            "tensor<64xf16, #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>",
            "differ in length",
        ),
        ("tensor<64xf16, #ttg.slice<{dim = 3, parent = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>", "outside its parent"),
        ("tensor<64xf16, #ttg.mystery<{}>>", "expected a layout"),
        ("!ttg.memdesc<xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>", "at least one dimension"),
        ("!ttg.memdesc<64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>", "more dims than the buffer"),
    ] {
        let text = format!("module {{\n  tt.func public @k(%arg0: {bad}) {{\n    tt.return\n  }}\n}}\n");
        let e = parse_module(&text).unwrap_err();
        assert!(e.message.contains(why), "{bad}: {}", e.message);
    }
}

#[test]
fn aliases_must_be_defined_once_and_of_the_right_kind() {
    let body =
        "module {\n  tt.func public @k(%arg0: tensor<64xf16, #b>) {\n    tt.return\n  }\n}\n";
    let e = parse_module(body).unwrap_err();
    assert!(e.message.contains("undefined alias `#b`"), "{}", e.message);
    let shared = "#b = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n";
    let e = parse_module(&format!("{shared}{body}")).unwrap_err();
    assert!(e.message.contains("not a distributed one"), "{}", e.message);
    let blocked = "#b = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>\n";
    let e = parse_module(&format!("{blocked}{blocked}{body}")).unwrap_err();
    assert!(e.message.contains("defined twice"), "{}", e.message);
    let m = parse_module(&format!("{blocked}{body}")).unwrap();
    assert!(m.to_string().contains("%arg0: tensor<64xf16, #blocked>"));
}

#[test]
fn a_swizzle_wider_than_the_row_is_an_invalid_type() {
    let text = "module {\n  tt.func public @k(%arg0: !ttg.memdesc<16x32xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, mutable>) {\n    tt.return\n  }\n}\n";
    let m = parse_module(text).unwrap();
    let e = verify_module(&m).unwrap_err();
    assert!(
        e.iter().any(|d| d.message.contains("do not fit a row")),
        "{e:?}"
    );
}
