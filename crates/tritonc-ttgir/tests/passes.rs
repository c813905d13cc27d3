//! The GPU passes and the encoding verifier, tested from IR text.

use tritonc_ir::{parse_module, Function, OpKind};
use tritonc_ttgir::*;

const B4: &str =
    "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";
const B8: &str =
    "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>";

fn nvidia4() -> GpuOptions {
    GpuOptions::nvidia(4)
}

/// A GPU-IR function of a pointer block `%arg0` (4 per thread) and a value block `%arg1`
/// (8 per thread) with `body`.
fn kernel(body: &str) -> String {
    format!(
        "#b4 = {B4}\n#b8 = {B8}\nmodule {{\n  tt.func public @k(%arg0: tensor<1024x!tt.ptr<f32>, #b4>, %arg1: tensor<1024xf32, #b8>) {{\n{body}    tt.return\n  }}\n}}\n"
    )
}

#[test]
fn fold_conversions_removes_moves_of_nothing_and_chains() {
    let text = kernel(
        "    %0 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b8>
    %1 = ttg.convert_layout %0 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %2 = ttg.convert_layout %1 : tensor<1024xf32, #b4> -> tensor<1024xf32, #b8>
    %3 = ttg.convert_layout %2 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %4 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    tt.store %arg0, %3 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
",
    );
    let mut m = parse_module(&text).unwrap();
    let f = &mut m.functions[0];
    verify_encodings(f).unwrap();
    FoldConversions.run(f, &nvidia4()).unwrap();
    // One conversion is left: %arg1 straight to the store's layout (a chain of four
    // became one move; the same-layout one and the unused one are gone).
    let expected = format!(
        "#blocked = {B4}\n#blocked1 = {B8}\nmodule {{\n  tt.func public @k(%arg0: tensor<1024x!tt.ptr<f32>, #blocked>, %arg1: tensor<1024xf32, #blocked1>) {{\n    %0 = ttg.convert_layout %arg1 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>\n    tt.store %arg0, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xf32, #blocked>\n    tt.return\n  }}\n}}\n"
    );
    assert_eq!(m.to_string(), expected);
}

#[test]
fn the_encoding_verifier_names_the_broken_rule() {
    // An elementwise op on operands in two layouts.
    let mixed = kernel(
        "    %0 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %1 = arith.addf %0, %arg1 : tensor<1024xf32, #b4>, tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    tt.store %arg0, %1 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
",
    );
    let m = parse_module(&mixed).unwrap();
    let e = verify_encodings(&m.functions[0]).unwrap_err();
    assert!(e.message.contains("`arith.addf`"), "{}", e.message);
    assert!(
        e.message.contains("operand 1") && e.message.contains("elementwise"),
        "{}",
        e.message
    );
    // A store whose value is not in the access layout.
    let store = kernel(
        "    tt.store %arg0, %arg1 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b8>\n",
    );
    let m = parse_module(&store).unwrap();
    let e = verify_encodings(&m.functions[0]).unwrap_err();
    assert!(e.message.contains("the access"), "{}", e.message);
    // A tile-IR block (no encoding) in a GPU-IR function.
    let bare = "module {\n  tt.func public @k(%arg0: tensor<64xf32>) {\n    tt.return\n  }\n}\n";
    let m = parse_module(bare).unwrap();
    let e = verify_encodings(&m.functions[0]);
    // Arguments are not code values: only values of ops and blocks are checked.
    assert!(e.is_ok());
    let op = "module {\n  tt.func public @k(%arg0: tensor<64xf32>) {\n    %0 = math.exp %arg0 : tensor<64xf32>\n    tt.return\n  }\n}\n";
    let m = parse_module(op).unwrap();
    let e = verify_encodings(&m.functions[0]).unwrap_err();
    assert!(e.message.contains("has no encoding"), "{}", e.message);
}

/// The tile IR of `y = x.to(f16)` from an fp32 load to an fp16 store: the load
/// vectorizes by 4, the store by 8, so the value must change layout.
const DOWNCAST: &str = "module {
  tt.func public @downcast(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> -> tensor<1024x!tt.ptr<f32>>
    %3 = tt.load %2 : tensor<1024x!tt.ptr<f32>> -> tensor<1024xf32>
    %4 = arith.truncf %3 : tensor<1024xf32> -> tensor<1024xf16>
    %5 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %6 = tt.addptr %5, %0 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32> -> tensor<1024x!tt.ptr<f16>>
    tt.store %6, %4 : tensor<1024x!tt.ptr<f16>>, tensor<1024xf16>
    tt.return
  }
}
";

/// DOWNCAST over a 32×32 tile: the fp32 load's coalesced layout (4 per thread, lanes
/// 4×8) and the fp16 store's (8 per thread, lanes 8×4) differ in more than elements per
/// thread, so the stored value moves between them.
const DOWNCAST_2D: &str = "module {
  tt.func public @downcast(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
    %1 = tt.expand_dims %0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %2 = arith.constant dense<32> : tensor<32x1xi32>
    %3 = arith.muli %1, %2 : tensor<32x1xi32>
    %4 = tt.broadcast %3 : tensor<32x1xi32> -> tensor<32x32xi32>
    %5 = tt.expand_dims %0 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %6 = tt.broadcast %5 : tensor<1x32xi32> -> tensor<32x32xi32>
    %7 = arith.addi %4, %6 : tensor<32x32xi32>
    %8 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %9 = tt.addptr %8, %7 : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32> -> tensor<32x32x!tt.ptr<f32>>
    %10 = tt.load %9 : tensor<32x32x!tt.ptr<f32>> -> tensor<32x32xf32>
    %11 = arith.truncf %10 : tensor<32x32xf32> -> tensor<32x32xf16>
    %12 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<32x32x!tt.ptr<f16>>
    %13 = tt.addptr %12, %7 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32> -> tensor<32x32x!tt.ptr<f16>>
    tt.store %13, %11 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xf16>
    tt.return
  }
}
";

fn ops_named(f: &Function, name: &str) -> Vec<tritonc_ir::OpId> {
    f.walk()
        .into_iter()
        .filter(|&op| f.kind(op).name() == name)
        .collect()
}

#[test]
fn assign_layouts_makes_every_layout_change_an_op() {
    let m = parse_module(DOWNCAST_2D).unwrap();
    let tile = &m.functions[0];
    let analysis = assign_layouts(tile, 4).unwrap();
    let gpu = lower_to_gpu_ir(tile, &nvidia4()).unwrap();
    verify_encodings(&gpu).unwrap();
    // As many conversions as the analysis found, each right before its user, reading
    // the analysed value and producing the layout the user needs.
    let converts = ops_named(&gpu, "ttg.convert_layout");
    assert_eq!(converts.len(), analysis.conversions().count());
    assert!(!converts.is_empty());
    for c in analysis.conversions() {
        let operand = gpu.op(c.op).operands()[c.operand];
        let def = gpu.defining_op(operand).unwrap();
        assert!(matches!(gpu.kind(def), OpKind::ConvertLayout));
        assert_eq!(gpu.op(def).operands()[0], c.value);
        assert_eq!(gpu.value_type(operand).encoding(), Some(&c.to));
        assert_eq!(gpu.value_type(c.value).encoding(), Some(&c.from));
        let at = gpu.position_in_block(c.op).unwrap();
        assert_eq!(gpu.position_in_block(def), Some(at - 1));
    }
    // The load is in fp32's 4-wide layout, the store in fp16's 8-wide one.
    let spt = |op| match gpu.value_type(gpu.op(op).operands()[0]).encoding() {
        Some(Layout::Blocked(b)) => b.size_per_thread.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(spt(ops_named(&gpu, "tt.load")[0]), [1, 4]);
    assert_eq!(spt(ops_named(&gpu, "tt.store")[0]), [1, 8]);
    // Every block value now has an encoding; the tile IR is untouched.
    assert!(tile.walk().into_iter().all(|op| tile
        .op(op)
        .results()
        .iter()
        .all(|&r| tile.value_type(r).encoding().is_none())));
    // The printout parses back to the same IR.
    let text = print_gpu_module(&gpu, &nvidia4());
    let again = parse_module(&text).unwrap();
    verify_encodings(&again.functions[0]).unwrap();
    let plain = text.replace(
        "module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32, \"ttg.num-stages\" = 0 : i32} {",
        "module {",
    );
    assert_eq!(again.to_string(), plain);
}

#[test]
fn one_d_accesses_differing_only_in_elements_per_thread_share_the_widest_layout() {
    // fp32 load (4 per thread when alone) and fp16 store (8): both in the 8-wide layout,
    // nothing converted; the load stays 128 bits wide (two per 8 elements), the store too.
    let m = parse_module(DOWNCAST).unwrap();
    let tile = &m.functions[0];
    let gpu = lower_to_gpu_ir(tile, &nvidia4()).unwrap();
    verify_encodings(&gpu).unwrap();
    assert!(ops_named(&gpu, "ttg.convert_layout").is_empty());
    let encoding = |op| gpu.value_type(gpu.op(op).operands()[0]).encoding().cloned();
    let b8 = Layout::Blocked(BlockedLayout {
        size_per_thread: vec![8],
        threads_per_warp: vec![32],
        warps_per_cta: vec![4],
        order: vec![0],
    });
    let (load, store) = (ops_named(&gpu, "tt.load")[0], ops_named(&gpu, "tt.store")[0]);
    assert_eq!(encoding(load), Some(b8.clone()));
    assert_eq!(encoding(store), Some(b8));
    let a = assign_layouts(tile, 4).unwrap();
    let width = |name| a.access(ops_named(tile, name)[0]).unwrap().vector_width;
    assert_eq!((width("tt.load"), width("tt.store")), (4, 8));
    // A block too small for 8 per thread everywhere keeps what each access can have:
    // 256 elements over 128 threads are 2 per thread on both sides.
    let small = DOWNCAST.replace("1024", "256");
    let m = parse_module(&small).unwrap();
    let gpu = lower_to_gpu_ir(&m.functions[0], &nvidia4()).unwrap();
    assert!(ops_named(&gpu, "ttg.convert_layout").is_empty());
}

#[test]
fn the_pass_list_is_named_and_in_order() {
    assert_eq!(
        gpu_passes().names(),
        [
            "tritonc-assign-layouts",
            "tritonc-fold-conversions",
            "tritonc-sink-conversions",
            "tritonc-pipeline-loops",
            "tritonc-hoist-dot-operands",
            "tritonc-wgmma-waits",
            "tritonc-allocate-shared",
            "tritonc-place-barriers"
        ]
    );
}

#[test]
fn wave64_layouts_use_64_lanes() {
    let m = parse_module(DOWNCAST).unwrap();
    let options = GpuOptions::for_target(4, tritonc_target::Target::amd(0x942));
    let gpu = lower_to_gpu_ir(&m.functions[0], &options).unwrap();
    let load = ops_named(&gpu, "tt.load")[0];
    let Some(Layout::Blocked(b)) = gpu.value_type(gpu.op(load).results()[0]).encoding() else {
        panic!("a blocked load")
    };
    // 1024 fp32 over 4 x 64 threads: 4 per thread, 64 lanes along the only dim.
    assert_eq!(b.threads_per_warp, [64]);
    assert_eq!(b.size_per_thread, [4]);
    assert_eq!(b.warp_size(), 64);
    let text = print_gpu_module(&gpu, &options);
    // The target as Triton writes it for AMD (`hip:gfx942`).
    assert!(text.contains(
        "module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32, \"ttg.num-stages\" = 0 : i32, \"ttg.target\" = \"hip:gfx942\"} {"
    ), "{text}");
}

const DOT: &str = "module {
  tt.func public @k(%arg4: !tt.ptr<f16>, %arg5: !tt.ptr<f16>, %arg3: !tt.ptr<f16>) {
    %pa = tt.splat %arg4 : !tt.ptr<f16> -> tensor<128x64x!tt.ptr<f16>>
    %arg0 = tt.load %pa : tensor<128x64x!tt.ptr<f16>> -> tensor<128x64xf16>
    %pb = tt.splat %arg5 : !tt.ptr<f16> -> tensor<64x256x!tt.ptr<f16>>
    %arg1 = tt.load %pb : tensor<64x256x!tt.ptr<f16>> -> tensor<64x256xf16>
    %arg2 = tt.splat %arg3 : !tt.ptr<f16> -> tensor<128x256x!tt.ptr<f16>>
    %0 = arith.constant dense<0.0> : tensor<128x256xf32>
    %1 = tt.dot %arg0, %arg1, %0 {input_precision = tf32} : tensor<128x64xf16>, tensor<64x256xf16>, tensor<128x256xf32> -> tensor<128x256xf32>
    %2 = arith.truncf %1 : tensor<128x256xf32> -> tensor<128x256xf16>
    tt.store %arg2, %2 : tensor<128x256x!tt.ptr<f16>>, tensor<128x256xf16>
    tt.return
  }
}
";

#[test]
fn dots_take_the_mma_layout_on_sm_80_and_the_fma_tile_below() {
    let m = parse_module(DOT).unwrap();
    let dot_layout_on = |capability| {
        let options = GpuOptions::nvidia_sm(8, capability);
        let gpu = lower_to_gpu_ir(&m.functions[0], &options).unwrap();
        let dot = ops_named(&gpu, "tt.dot")[0];
        gpu.value_type(gpu.op(dot).results()[0]).encoding().cloned()
    };
    // Triton 3.6's sm_80 layout for this dot: #mma v2 on warpsPerCTA [2, 4].
    assert_eq!(
        dot_layout_on(80),
        Some(Layout::Mma(tritonc_ir::MmaLayout::v2([2, 4])))
    );
    // And on sm_90 the wgmma layout, #mma v3 on warpsPerCTA [8, 1] with instrShape
    // [16, 256, 16] (tests/fixtures/triton/wgmma.json, fp16_128x256x64_w8).
    assert_eq!(
        dot_layout_on(90),
        Some(Layout::Mma(tritonc_ir::MmaLayout::v3([8, 1], 256, 16)))
    );
    assert!(matches!(dot_layout_on(75), Some(Layout::Blocked(_))));
    assert!(matches!(dot_layout_on(0), Some(Layout::Blocked(_))));
}

#[test]
fn the_epilogue_converts_after_the_narrowing_cast() {
    let m = parse_module(DOT).unwrap();
    let gpu = lower_to_gpu_ir(&m.functions[0], &GpuOptions::nvidia_sm(8, 80)).unwrap();
    let text = print_gpu_module(&gpu, &GpuOptions::nvidia_sm(8, 80));
    // truncf runs in the mma layout; the one conversion moves fp16.
    assert!(text.lines().any(|l| l.contains("arith.truncf") && l.ends_with(": tensor<128x256xf32, #mma> -> tensor<128x256xf16, #mma>")), "{text}");
    let conversions = ops_named(&gpu, "ttg.convert_layout");
    assert_eq!(conversions.len(), 1, "{text}");
    let moved = gpu.value_type(gpu.op(conversions[0]).operands()[0]);
    assert_eq!(moved.dtype(), Some(tritonc_ir::DType::F16), "{text}");
    // The text parses back to the same IR.
    let again = parse_module(&text).unwrap();
    assert_eq!(
        print_gpu_module(&again.functions[0], &GpuOptions::nvidia_sm(8, 80)),
        text
    );
}

#[test]
fn sink_conversions_leaves_widening_casts_and_shared_conversions() {
    let m = parse_module(DOT).unwrap();
    let mut gpu = lower_to_gpu_ir(&m.functions[0], &GpuOptions::nvidia_sm(8, 80)).unwrap();
    let before = print_gpu_module(&gpu, &GpuOptions::nvidia_sm(8, 80));
    // Running it again changes nothing: the conversion now reads a cast, not the reverse.
    SinkConversions.run(&mut gpu, &GpuOptions::nvidia_sm(8, 80)).unwrap();
    assert_eq!(print_gpu_module(&gpu, &GpuOptions::nvidia_sm(8, 80)), before);
}

/// Offsets `tritonc-allocate-shared` gave the allocations, in order.
fn alloc_offsets(f: &Function) -> Vec<Option<u32>> {
    f.walk()
        .into_iter()
        .filter_map(|op| match f.kind(op) {
            OpKind::LocalAlloc { offset } => Some(*offset),
            _ => None,
        })
        .collect()
}

#[test]
fn allocate_shared_reuses_the_bytes_of_dead_buffers_only() {
    // %0 (2 x 64x72 fp16 = 18432 bytes) and %1 (2 x 32x72 = 9216) are live together; %2
    // starts after both ended and takes offset 0 again. A use inside a loop keeps %3
    // live for the whole loop, so %4 (allocated in the loop) cannot overlap it.
    let text = "#s = #ttg.padded_shared<[64:+8] {order = [1, 0]}>
module {
  tt.func public @k(%arg0: i32) {
    %0 = ttg.local_alloc : !ttg.memdesc<2x64x64xf16, #s, mutable>
    %1 = ttg.local_alloc : !ttg.memdesc<2x32x64xf16, #s, mutable>
    %2 = ttg.memdesc_index %0, %arg0 : !ttg.memdesc<2x64x64xf16, #s, mutable>, i32 -> !ttg.memdesc<64x64xf16, #s, mutable>
    ttg.local_dealloc %1 : !ttg.memdesc<2x32x64xf16, #s, mutable>
    ttg.local_dealloc %0 : !ttg.memdesc<2x64x64xf16, #s, mutable>
    %3 = ttg.local_alloc : !ttg.memdesc<1x32x64xf16, #s, mutable>
    %4 = arith.constant 0 : i32
    %5 = arith.constant 4 : i32
    %6 = arith.constant 1 : i32
    scf.for %4, %5, %6 : i32, i32, i32 {
    ^bb0(%arg1: i32):
      %7 = ttg.local_alloc : !ttg.memdesc<1x32x64xf16, #s, mutable>
      %8 = ttg.memdesc_index %3, %arg1 : !ttg.memdesc<1x32x64xf16, #s, mutable>, i32 -> !ttg.memdesc<32x64xf16, #s, mutable>
      ttg.local_dealloc %7 : !ttg.memdesc<1x32x64xf16, #s, mutable>
      scf.yield
    }
    tt.return
  }
}
";
    let mut m = parse_module(text).unwrap();
    let f = &mut m.functions[0];
    AllocateShared.run(f, &nvidia4()).unwrap();
    assert_eq!(
        alloc_offsets(f),
        vec![Some(0), Some(18432), Some(0), Some(4608)]
    );
    // The offsets print and parse back.
    let printed = m.to_string();
    assert!(printed.contains("ttg.local_alloc {offset = 18432 : i32}"), "{printed}");
    let again = parse_module(&printed).unwrap();
    assert_eq!(alloc_offsets(&again.functions[0]), alloc_offsets(&m.functions[0]));
}

/// `text` after `tritonc-place-barriers`, and the line after each barrier it placed.
fn place_barriers(text: &str) -> (String, Vec<String>) {
    let mut m = parse_module(text).unwrap();
    PlaceBarriers.run(&mut m.functions[0], &nvidia4()).unwrap();
    let printed = m.to_string();
    let lines: Vec<&str> = printed.lines().collect();
    let after = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == "gpu.barrier")
        .map(|(i, _)| lines[i + 1].trim().to_string())
        .collect();
    (printed, after)
}

#[test]
fn barriers_separate_scratch_uses_and_nothing_else() {
    // %0 moves through scratch; %2 reuses it; %5 is recomputed in the new layout (a
    // splat); %6 moves through scratch again while %0's readers may still read it.
    let text = kernel(
        "    %0 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %1 = arith.addf %0, %0 : tensor<1024xf32, #b4>, tensor<1024xf32, #b4> -> tensor<1024xf32, #b4>
    %2 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %3 = arith.constant 1.0 : f32
    %4 = tt.splat %3 : f32 -> tensor<1024xf32, #b8>
    %5 = ttg.convert_layout %4 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %6 = ttg.convert_layout %1 : tensor<1024xf32, #b4> -> tensor<1024xf32, #b8>
",
    );
    let (printed, after) = place_barriers(&text);
    assert_eq!(after.len(), 1, "{printed}");
    assert!(after[0].starts_with("%6 = ttg.convert_layout %1"), "{printed}");
}

#[test]
fn a_loop_waits_for_the_previous_iterations_readers_inside_its_body() {
    let text = kernel(
        "    %0 = arith.constant 0 : i32
    %1 = arith.constant 4 : i32
    %2 = arith.constant 1 : i32
    scf.for %0, %1, %2 : i32, i32, i32 {
    ^bb0(%arg2: i32):
      %3 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
      tt.store %arg0, %3 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
      scf.yield
    }
",
    );
    let (printed, after) = place_barriers(&text);
    // Nothing before the loop touched shared memory: only the back edge needs one.
    assert_eq!(after.len(), 1, "{printed}");
    assert!(after[0].starts_with("%3 = ttg.convert_layout"), "{printed}");
    let barrier = printed.find("gpu.barrier").unwrap();
    assert!(barrier > printed.find("scf.for").unwrap(), "{printed}");
}

#[test]
fn a_branch_that_used_scratch_makes_the_next_use_wait() {
    let body = |then: &str| {
        kernel(&format!(
            "    %0 = arith.constant true : i1
    scf.if %0 : i1 {{
{then}      scf.yield
    }} else {{
      scf.yield
    }}
    %5 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    tt.store %arg0, %5 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
"
        ))
    };
    let used = body(
        "      %1 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
      tt.store %arg0, %1 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
",
    );
    let (printed, after) = place_barriers(&used);
    assert_eq!(after.len(), 1, "{printed}");
    assert!(after[0].starts_with("%2 = ttg.convert_layout"), "{printed}");
    // A branch that touches no shared memory needs none.
    let (printed, after) = place_barriers(&body(""));
    assert!(after.is_empty(), "{printed}");
}

#[test]
fn the_thread_footprint_counts_32_bit_registers_per_thread_of_every_block_value() {
    // %arg0: 1024 pointers, 4 per thread (#b4 over 128 threads), 64-bit: 8 registers;
    // %arg1: 1024 f32, 8 per thread: 8. Arguments are not counted (no op defines them).
    // %0: f32 in #b4: 1024 / 128 = 8 per thread; %1: f16 in #b8: 8 (one word each);
    // %2: 1024 i64 in #b4: 8 elements of 2 words: 16. Total 32, the largest %2.
    let text = kernel(
        "    %0 = ttg.convert_layout %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf32, #b4>
    %1 = arith.truncf %arg1 : tensor<1024xf32, #b8> -> tensor<1024xf16, #b8>
    %2 = arith.fptosi %0 : tensor<1024xf32, #b4> -> tensor<1024xi64, #b4>
    tt.store %arg0, %0 : tensor<1024x!tt.ptr<f32>, #b4>, tensor<1024xf32, #b4>
",
    );
    let m = parse_module(&text).unwrap();
    let f = &m.functions[0];
    let fp = footprint::thread_footprint(f);
    assert_eq!(fp.total_registers, 8 + 8 + 16);
    let (most, op) = fp.largest.expect("a block value");
    assert_eq!(most, 16);
    assert_eq!(f.op(op).results()[0], ops_named(f, "arith.fptosi").iter().map(|&o| f.op(o).results()[0]).next().unwrap());
}
