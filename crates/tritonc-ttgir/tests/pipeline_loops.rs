//! `tritonc-pipeline-loops` and `tritonc-allocate-shared` from IR text.
//!
//! The inputs are the GPU IR of `fixtures/pipeline/k_loop.py` (a K loop feeding a
//! tensor-core dot) before pipelining, as `--emit ttgir --num-stages 1` prints it:
//!
//! ```text
//! tritonc compile crates/tritonc-ttgir/tests/fixtures/pipeline/k_loop.py \
//!     --signature '*fp16:16, *fp16:16, *fp16:16, i32:16, 32, 32, 32' \
//!     --target sm_80 --num-stages 1 --emit ttgir        # k_loop_32.ttgir
//!     (the same with 64, 64, 64 and --target sm_86)      # k_loop_64.ttgir
//! ```
//!
//! `k_loop_32.pipelined.ttgir` is the expected result with three stages, written out
//! after it was read through: two buffers per operand, the prologue's copies of
//! iterations 0 and 1, the loop carrying look-ahead pointers and the buffer index, the
//! dot reading buffer `i mod 2`, then the copies of iteration `i + 2` into that buffer,
//! the drain after the loop (barriers come later, from `tritonc-place-barriers`). `TRITONC_BLESS=1` rewrites it from the pass
//! (review the diff).

use tritonc_ir::{parse_module, verify_function, Function, OpKind};
use tritonc_ttgir::*;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pipeline")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse(name: &str) -> Function {
    let mut m = parse_module(&fixture(name)).unwrap();
    m.functions.remove(0)
}

/// Runs the two passes as the pass list does.
fn pipeline(f: &mut Function, options: &GpuOptions) {
    PipelineLoops.run(f, options).unwrap();
    AllocateShared.run(f, options).unwrap();
    verify_function(f).unwrap();
    verify_encodings(f).unwrap();
}

fn count(f: &Function, pred: impl Fn(&OpKind) -> bool) -> usize {
    f.walk().into_iter().filter(|&op| pred(f.kind(op))).count()
}

/// The leading (buffer) dim of every allocation.
fn buffers(f: &Function) -> Vec<u64> {
    f.walk()
        .into_iter()
        .filter(|&op| matches!(f.kind(op), OpKind::LocalAlloc { .. }))
        .map(|op| f.value_type(f.op(op).results()[0]).memdesc().unwrap().shape[0])
        .collect()
}

#[test]
fn three_stages_give_the_committed_pipelined_loop() {
    let mut f = parse("k_loop_32.ttgir");
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(3);
    pipeline(&mut f, &options);
    let printed = print_gpu_module(&f, &options);
    if std::env::var_os("TRITONC_BLESS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pipeline/k_loop_32.pipelined.ttgir");
        std::fs::write(path, &printed).unwrap();
    }
    assert_eq!(printed, fixture("k_loop_32.pipelined.ttgir"));
}

#[test]
fn the_pipelined_text_parses_verifies_and_prints_back() {
    let text = fixture("k_loop_32.pipelined.ttgir");
    let f = parse("k_loop_32.pipelined.ttgir");
    verify_function(&f).unwrap();
    verify_encodings(&f).unwrap();
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(3);
    assert_eq!(print_gpu_module(&f, &options), text);
    // Two operands, two buffers each, at 0 and after the first allocation (32 swizzled
    // rows of 32 fp16 = 2048 bytes per buffer), in Triton's swizzle for 64-byte rows.
    assert_eq!(buffers(&f), vec![2, 2]);
    assert!(text.contains("ttg.local_alloc {offset = 0 : i32}"));
    assert!(text.contains("ttg.local_alloc {offset = 4096 : i32}"));
    assert!(text.contains("#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>"));
    // Two commits in the prologue (one per buffer) and one per iteration; the loop waits
    // while one group (the next iteration's) is in flight, the drain for none.
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncCommitGroup)), 3);
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncWait { num: 1 })), 1);
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncWait { num: 0 })), 1);
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncCopyGlobalToLocal { .. })), 6);
    // No barrier yet: `tritonc-place-barriers` places them (see below).
    assert_eq!(count(&f, |k| matches!(k, OpKind::Barrier)), 0);
    assert_eq!(count(&f, |k| matches!(k, OpKind::LocalDealloc)), 2);
    // The loads are gone: the dot reads the buffers.
    assert_eq!(count(&f, |k| matches!(k, OpKind::Load { .. })), 0);
    assert_eq!(count(&f, |k| matches!(k, OpKind::LocalLoad)), 2);
}

#[test]
fn stages_follow_num_stages_and_the_target() {
    // num_stages = 4 keeps three buffers per operand, waiting while two groups are in
    // flight.
    let mut f = parse("k_loop_32.ttgir");
    pipeline(&mut f, &GpuOptions::nvidia_sm(4, 80).with_stages(4));
    assert_eq!(buffers(&f), vec![3, 3]);
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncWait { num: 2 })), 1);
    assert_eq!(count(&f, |k| matches!(k, OpKind::AsyncCommitGroup)), 4);
    // num_stages 1, and targets without cp.async (sm_75), are left alone.
    for options in [
        GpuOptions::nvidia_sm(4, 80).with_stages(1),
        GpuOptions::nvidia_sm(4, 75).with_stages(3),
    ] {
        let mut f = parse("k_loop_32.ttgir");
        let before = print_gpu_module(&f, &options);
        pipeline(&mut f, &options);
        assert_eq!(print_gpu_module(&f, &options), before);
    }
}

#[test]
fn buffers_shrink_to_the_targets_shared_memory() {
    // 64 x 64 fp16 operands: 64 swizzled rows of 64 = 8192 bytes per buffer and
    // operand. On sm_86 (99 KiB per block, 16 KiB kept for the rest: 84,992 bytes)
    // eight stages would need 7 x 16384 bytes: five buffers fit.
    let mut f = parse("k_loop_64.ttgir");
    pipeline(&mut f, &GpuOptions::nvidia_sm(4, 86).with_stages(8));
    assert_eq!(buffers(&f), vec![5, 5]);
    // sm_90 takes all seven.
    let mut f = parse("k_loop_64.ttgir");
    pipeline(&mut f, &GpuOptions::nvidia_sm(4, 90).with_stages(8));
    assert_eq!(buffers(&f), vec![7, 7]);
}

/// `k_loop_32.ttgir` with its loop's own `num_stages` (`tl.range(..., num_stages=N)`).
fn with_loop_stages(n: u32) -> Function {
    let text = fixture("k_loop_32.ttgir");
    let text = text.replacen(
        " : i32, i32, i32, tensor<32x32xf32, #mma>",
        &format!(" {{num_stages = {n} : i32}} : i32, i32, i32, tensor<32x32xf32, #mma>"),
        1,
    );
    let mut m = parse_module(&text).unwrap();
    m.functions.remove(0)
}

#[test]
fn a_loops_own_num_stages_overrides_the_launchs() {
    // The attribute parses and prints back.
    let f = with_loop_stages(4);
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(3);
    assert!(print_gpu_module(&f, &options).contains("{num_stages = 4 : i32}"));
    // num_stages=4 on the loop: three buffers although the launch says 3 (two).
    let mut f = with_loop_stages(4);
    pipeline(&mut f, &options);
    assert_eq!(buffers(&f), vec![3, 3]);
    // num_stages=1 on the loop: not pipelined although the launch says 3.
    let mut f = with_loop_stages(1);
    pipeline(&mut f, &options);
    assert!(buffers(&f).is_empty());
    // And the launch's 1 does not stop a loop that asks for 3.
    let mut f = with_loop_stages(3);
    pipeline(&mut f, &GpuOptions::nvidia_sm(4, 80).with_stages(1));
    assert_eq!(buffers(&f), vec![2, 2]);
}

/// `tritonc-hoist-dot-operands`: `invariant_a.ttgir` is the GPU IR of
/// `fixtures/pipeline/invariant_a.py` (a dot in a loop whose A operand is loaded before
/// it) before the pass; `invariant_a.hoisted.ttgir` is what `--emit ttgir` prints for it:
///
/// ```text
/// tritonc compile crates/tritonc-ttgir/tests/fixtures/pipeline/invariant_a.py \
///     --signature '*fp16:16, *fp16:16, *fp16:16, i32:16, 32, 32, 32' \
///     --target sm_80 --num-stages 1 --emit ttgir        # invariant_a.hoisted.ttgir
/// ```
/// (the input is that text without the buffer's three ops, the dot reading `%14`).
#[test]
fn a_loop_invariant_operand_is_read_from_a_buffer_filled_before_the_loop() {
    let mut f = parse("invariant_a.ttgir");
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(1);
    assert_eq!(count(&f, |k| matches!(k, OpKind::LocalAlloc { .. })), 0);
    HoistDotOperands.run(&mut f, &options).unwrap();
    AllocateShared.run(&mut f, &options).unwrap();
    verify_function(&f).unwrap();
    verify_encodings(&f).unwrap();
    let printed = print_gpu_module(&f, &options);
    assert_eq!(printed, fixture("invariant_a.hoisted.ttgir"));
    // One immutable buffer filled from the block, read in the loop, freed after it.
    assert!(printed.contains("ttg.local_alloc %14 {offset = 0 : i32} : tensor<32x32xf16, #blocked> -> !ttg.memdesc<32x32xf16, #shared>"));
    assert_eq!(count(&f, |k| matches!(k, OpKind::LocalLoad)), 1);
    assert_eq!(count(&f, |k| matches!(k, OpKind::LocalDealloc)), 1);
    // Running it again changes nothing (the operand is a buffer's load now).
    HoistDotOperands.run(&mut f, &options).unwrap();
    assert_eq!(print_gpu_module(&f, &options), printed);
    // Targets without tensor cores keep the FMA dot as it is.
    let mut g = parse("invariant_a.ttgir");
    HoistDotOperands.run(&mut g, &GpuOptions::nvidia_sm(4, 75)).unwrap();
    assert_eq!(count(&g, |k| matches!(k, OpKind::LocalAlloc { .. })), 0);
}

/// Each barrier `tritonc-place-barriers` puts in `f`: the op it precedes and whether
/// that op is inside the loop.
fn barriers(f: &mut Function, options: &GpuOptions) -> Vec<(&'static str, bool)> {
    PlaceBarriers.run(f, options).unwrap();
    verify_function(f).unwrap();
    let mut out = Vec::new();
    for op in f.walk() {
        if !matches!(f.kind(op), OpKind::Barrier) {
            continue;
        }
        let block = f.op(op).parent().unwrap();
        let ops = f.block(block).ops();
        let next = ops[ops.iter().position(|&o| o == op).unwrap() + 1];
        out.push((f.kind(next).name(), f.block_parent_op(block).is_some()));
    }
    out
}

#[test]
fn the_pipelined_loop_waits_after_its_copies_land_and_before_it_overwrites_a_buffer() {
    let mut f = parse("k_loop_32.pipelined.ttgir");
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(3);
    assert_eq!(count(&f, |k| matches!(k, OpKind::Barrier)), 0);
    assert_eq!(
        barriers(&mut f, &options),
        vec![
            // Other threads' copies of this iteration's buffer are read by the dot.
            ("ttg.local_load", true),
            // The copies of iteration i + 2 overwrite what the dot read.
            ("ttg.async_copy_global_to_local", true),
            // The epilogue's conversion reuses the buffers' bytes as scratch.
            ("ttg.convert_layout", false),
        ]
    );
    // The prologue's copies need none: nothing read the buffers before.
}

#[test]
fn a_hoisted_operand_is_read_after_every_thread_stored_it() {
    let mut f = parse("invariant_a.hoisted.ttgir");
    let options = GpuOptions::nvidia_sm(4, 80).with_stages(1);
    // The loop's first read of the buffer waits for the fill before the loop; every
    // later iteration waits for the previous one's scratch readers at the same place.
    // After the loop the buffer is dead and the epilogue's scratch starts over it.
    assert_eq!(
        barriers(&mut f, &options),
        vec![("ttg.local_load", true), ("ttg.convert_layout", false)]
    );
}
