//! Axis analysis, layouts, coalescing, reduction schedules and the ttgir text, checked
//! against values computed by hand from Triton's rules.

mod fixtures;

use tritonc_ir::{DType, Function, OpId, OpKind, Value};
use tritonc_ttgir::*;

fn find_ops(f: &Function, pred: impl Fn(&OpKind) -> bool) -> Vec<OpId> {
    f.walk()
        .into_iter()
        .filter(|&op| pred(f.kind(op)))
        .collect()
}

fn operand(f: &Function, op: OpId, i: usize) -> Value {
    f.op(op).operands()[i]
}

/// The `--emit ttgir` text of `f` on 4 warps, checked to parse back to itself.
fn gpu_ir_text(f: &Function) -> String {
    let options = GpuOptions::nvidia(4);
    let gpu = lower_to_gpu_ir(f, &options).unwrap();
    let text = print_gpu_module(&gpu, &options);
    let parsed = tritonc_ir::parse_module(&text).unwrap();
    let plain = text.replace(
        "module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 32 : i32, \"ttg.num-stages\" = 0 : i32} {",
        "module {",
    );
    assert_eq!(parsed.to_string(), plain);
    text
}

fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[u32]) -> BlockedLayout {
    BlockedLayout {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpc.to_vec(),
        order: order.to_vec(),
    }
}

#[test]
fn vector_add_axis_facts_follow_triton_rules() {
    let f = fixtures::vector_add(DType::F32, 1024, true);
    let axis = AxisAnalysis::run(&f);
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    // offs = splat(pid * 1024) + arange(0, 1024): contiguity gcd(1024 const, 1024 contig),
    // divisibility gcd(1024, 2^62).
    let ptr = operand(&f, load, 0);
    let add = f.defining_op(ptr).unwrap();
    let offs = axis.get(operand(&f, add, 1));
    assert_eq!(offs.contiguity, vec![1024]);
    assert_eq!(offs.divisibility, vec![1024]);
    assert_eq!(offs.constancy, vec![1]);
    // ptr: 16-byte aligned base + offs * 4 bytes: divisibility gcd(16, 4096) = 16.
    let p = axis.get(ptr);
    assert_eq!(
        (p.contiguity.clone(), p.divisibility.clone()),
        (vec![1024], vec![16])
    );
    // mask = offs < splat(n:16): constancy gcd(1024, gcd(1024, 16)) = 16.
    let mask = axis.get(operand(&f, load, 1));
    assert_eq!(mask.constancy, vec![16]);
    assert_eq!(mask.contiguity, vec![1]);
}

#[test]
fn mask_against_unaligned_bound_has_constancy_one() {
    let f = fixtures::vector_add(DType::F32, 1024, false);
    let axis = AxisAnalysis::run(&f);
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    assert_eq!(axis.get(operand(&f, load, 1)).constancy, vec![1]);
}

#[test]
fn softmax_row_pointer_keeps_16_byte_divisibility() {
    let f = fixtures::softmax(DType::F16, 1024, false);
    let axis = AxisAnalysis::run(&f);
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    let ptr = operand(&f, load, 0);
    let add = f.defining_op(ptr).unwrap();
    let splat = f.defining_op(operand(&f, add, 0)).unwrap();
    // row_in = in_ptr(16 B) + pid * stride(16) elements of 2 B: gcd(16, 32) = 16.
    let row_in = axis.get(operand(&f, splat, 0));
    assert_eq!(row_in.divisibility, vec![16]);
    let p = axis.get(ptr);
    assert_eq!(
        (p.contiguity.clone(), p.divisibility.clone()),
        (vec![1024], vec![16])
    );
}

#[test]
fn multiplying_a_range_drops_its_divisibility_and_contiguity() {
    use tritonc_ir::*;
    let mut f = Function::new("k", vec![], vec![]);
    let entry = f.entry_block();
    let mut b = Builder::at_end(&mut f, entry);
    let r = b.make_range(0, 64);
    let two = b.const_int(2, Type::tensor_of(&[64], DType::I32));
    let m = b.binary(BinaryOp::MulI, r, two);
    let e = b.expand_dims(r, 0);
    b.ret(&[]);
    let a = AxisAnalysis::run(&f);
    // [0, 2, 4, …]: contiguity 1; the range counts as divisibility 1, times 2.
    assert_eq!(a.get(m).contiguity, vec![1]);
    assert_eq!(a.get(m).divisibility, vec![2]);
    assert_eq!(a.get(m).constancy, vec![1]);
    // expand_dims of a contiguous range: new dim divisibility 1, contiguity 1.
    assert_eq!(a.get(e).contiguity, vec![1, 64]);
    assert_eq!(a.get(e).divisibility, vec![1, 1 << 62]);
}

#[test]
fn default_layout_matches_triton() {
    assert_eq!(
        BlockedLayout::default_for(&[1024], 4),
        blocked(&[1], &[32], &[4], &[0])
    );
    // [4, 64], 4 warps: the last dim takes 32 lanes and 2 warps, dim 0 the other 2 warps.
    assert_eq!(
        BlockedLayout::default_for(&[4, 64], 4),
        blocked(&[1, 1], &[1, 32], &[2, 2], &[1, 0])
    );
    // [64, 8], 4 warps: 8 lanes along dim 1, 4 along dim 0, all warps on dim 0.
    assert_eq!(
        BlockedLayout::default_for(&[64, 8], 4),
        blocked(&[1, 1], &[4, 8], &[4, 1], &[1, 0])
    );
}

#[test]
fn linear_layout_maps_threads_to_elements_and_back() {
    let l = Layout::Blocked(blocked(&[4], &[32], &[4], &[0]));
    let lin = l.to_linear(&[1024]).unwrap();
    assert_eq!(lin.num_registers(), 8);
    let at = |warp, lane, register| {
        lin.coords(ThreadRegister {
            warp,
            lane,
            register,
        })
    };
    assert_eq!(at(0, 0, 3), vec![3]);
    assert_eq!(at(0, 1, 0), vec![4]);
    assert_eq!(at(1, 0, 0), vec![128]);
    // Register 4 is the second repetition: 512 further.
    assert_eq!(at(3, 31, 7), vec![512 + 3 * 128 + 31 * 4 + 3]);
    // Every element has exactly one holder, and locate inverts coords.
    let mut seen = vec![false; 1024];
    for warp in 0..4 {
        for lane in 0..32 {
            for register in 0..8 {
                let t = ThreadRegister {
                    warp,
                    lane,
                    register,
                };
                let c = lin.coords(t);
                assert!(!seen[c[0] as usize]);
                seen[c[0] as usize] = true;
                assert_eq!(lin.locate(&c), Some(t));
            }
        }
    }
}

#[test]
fn small_blocks_replicate_across_lanes_and_drop_registers() {
    // 64 elements with 4 per thread and 128 threads: lanes 16.. and all warps hold copies.
    let lin = Layout::Blocked(blocked(&[4], &[32], &[4], &[0]))
        .to_linear(&[64])
        .unwrap();
    assert_eq!(lin.num_registers(), 4);
    assert_eq!(lin.lanes[4], vec![0]);
    assert!(lin.warps.iter().all(|w| w == &vec![0]));
    // 2 elements, 4 per thread: only two registers remain.
    let lin = Layout::Blocked(blocked(&[4], &[32], &[1], &[0]))
        .to_linear(&[2])
        .unwrap();
    assert_eq!(lin.num_registers(), 2);
}

#[test]
fn slice_layout_drops_the_reduced_dim() {
    let parent = Layout::Blocked(BlockedLayout::default_for(&[4, 64], 4));
    let lin = parent.slice(1).to_linear(&[4]).unwrap();
    // Rows: warp bit 1 gives row 1, the repetition register gives row 2; lanes replicate.
    assert_eq!(lin.registers, vec![vec![2]]);
    assert!(lin.lanes.iter().all(|b| b == &vec![0]));
    assert_eq!(lin.warps, vec![vec![0], vec![1]]);
}

#[test]
fn coalescing_picks_128_bit_chunks() {
    let f = fixtures::vector_add(DType::F32, 1024, true);
    let a = assign_layouts(&f, 4).unwrap();
    for op in find_ops(&f, |k| {
        matches!(k, OpKind::Load { .. } | OpKind::Store { .. })
    }) {
        let plan = a.access(op).unwrap();
        assert_eq!(
            plan.layout,
            Layout::Blocked(blocked(&[4], &[32], &[4], &[0]))
        );
        assert_eq!(plan.vector_width, 4);
    }
    assert_eq!(a.conversions().count(), 0);
    // fp16, 2048: 8 halves are 128 bits.
    let f = fixtures::vector_add(DType::F16, 2048, true);
    let a = assign_layouts(&f, 4).unwrap();
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    assert_eq!(
        a.access(load).unwrap().layout,
        Layout::Blocked(blocked(&[8], &[32], &[4], &[0]))
    );
    assert_eq!(a.access(load).unwrap().vector_width, 8);
    // An unaligned `n` keeps the layout but splits the accesses (one predicate each).
    let f = fixtures::vector_add(DType::F32, 1024, false);
    let a = assign_layouts(&f, 4).unwrap();
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    assert_eq!(a.access(load).unwrap().vector_width, 1);
    // Small blocks: 256 elements over 128 threads cap the chunk at 2.
    let f = fixtures::vector_add(DType::F32, 256, true);
    let a = assign_layouts(&f, 4).unwrap();
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    assert_eq!(
        a.access(load).unwrap().layout,
        Layout::Blocked(blocked(&[2], &[32], &[4], &[0]))
    );
}

#[test]
fn softmax_layouts_follow_the_load() {
    let f = fixtures::softmax(DType::F16, 1024, false);
    let a = assign_layouts(&f, 4).unwrap();
    let coalesced = Layout::Blocked(blocked(&[8], &[32], &[4], &[0]));
    for op in find_ops(&f, |k| matches!(k, OpKind::Reduce { .. })) {
        assert_eq!(a.layout(operand(&f, op, 0)), Some(&coalesced));
        let s = a.reduction_schedule(&f, op).unwrap();
        assert_eq!(s.register_positions, (0..8).collect::<Vec<u64>>());
        let lanes: Vec<(u32, u64)> = s
            .lane_steps
            .iter()
            .map(|x| (x.xor_mask, x.axis_offset))
            .collect();
        assert_eq!(lanes, vec![(16, 128), (8, 64), (4, 32), (2, 16), (1, 8)]);
        let warps: Vec<(u32, u64)> = s
            .warp_steps
            .iter()
            .map(|x| (x.xor_mask, x.axis_offset))
            .collect();
        assert_eq!(warps, vec![(2, 512), (1, 256)]);
    }
    assert_eq!(a.conversions().count(), 0);
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    // n_cols without `:16`: the mask changes every element.
    assert_eq!(a.access(load).unwrap().vector_width, 1);
    let f = fixtures::softmax(DType::F16, 1024, true);
    let a = assign_layouts(&f, 4).unwrap();
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    assert_eq!(a.access(load).unwrap().vector_width, 8);
}

#[test]
fn reduction_tree_order_is_register_then_lane_butterfly() {
    // [8] with 2 per thread: lanes 0..3 distinct, the rest replicas, one warp's worth.
    let l = Layout::Blocked(blocked(&[2], &[32], &[2], &[0]));
    let s = ReductionSchedule::new(&l, &[8], 0).unwrap();
    assert_eq!(
        s.tree().to_string(),
        "(((0 + 1) + (4 + 5)) + ((2 + 3) + (6 + 7)))"
    );
    assert!(!s.crosses_warps());
    // A non-commutative combiner exposes the order: concatenation.
    let order = s.evaluate(|k| k.to_string(), |a, b| format!("{a}{b}"));
    assert_eq!(order, "01452367");
}

#[test]
fn reduction_over_warps_uses_warp_bits_along_the_axis_only() {
    let l = Layout::Blocked(BlockedLayout::default_for(&[4, 64], 4));
    // Along dim 0: rows 0 and 2 are one thread's registers, row 1 is warp bit 1.
    let s = ReductionSchedule::new(&l, &[4, 64], 0).unwrap();
    assert_eq!(s.register_positions, vec![0, 2]);
    assert!(s.lane_steps.is_empty());
    assert_eq!(s.tree().to_string(), "((0 + 2) + (1 + 3))");
    // Along dim 1: 32 lanes then warp bit 0.
    let s = ReductionSchedule::new(&l, &[4, 64], 1).unwrap();
    assert_eq!(s.register_positions, vec![0]);
    assert_eq!(s.lane_steps.len(), 5);
    assert_eq!(s.warp_steps.len(), 1);
    assert_eq!(s.warp_steps[0].axis_offset, 32);
    let sum = s.evaluate(|k| k, |a, b| a + b);
    assert_eq!(sum, (0..64).sum::<u64>());
    let mut leaves = s.tree().leaves();
    leaves.sort_unstable();
    assert_eq!(leaves, (0..64).collect::<Vec<u64>>());
}

#[test]
fn default_schedule_uses_one_element_per_thread() {
    let s = default_reduction_schedule(&[1024], 0, DType::F16, 4).unwrap();
    assert_eq!(
        s.register_positions,
        vec![0, 128, 256, 384, 512, 640, 768, 896]
    );
    assert_eq!(s.lane_steps[0].axis_offset, 16);
    assert_eq!(s.warp_steps.len(), 2);
}

#[test]
fn ttgir_vector_add_fp32() {
    let f = fixtures::vector_add(DType::F32, 1024, true);
    assign_layouts(&f, 4).unwrap();
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn ttgir_softmax_fp16() {
    let f = fixtures::softmax(DType::F16, 1024, false);
    assign_layouts(&f, 4).unwrap();
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn ttgir_2d_tile_takes_slices_of_the_store_layout() {
    use tritonc_ir::*;
    // A 2-D tile: rows from a range, stored with a layout the range does not have.
    let mut f = Function::new("tile", vec![Type::ptr(DType::F32)], vec![]);
    f.arg_attrs[0].divisibility = Some(16);
    let p = f.args()[0];
    let entry = f.entry_block();
    let mut b = Builder::at_end(&mut f, entry);
    let r = b.make_range(0, 16);
    let c = b.make_range(0, 64);
    let r2 = b.expand_dims(r, 1);
    let c2 = b.expand_dims(c, 0);
    let stride = b.const_int(64, Type::tensor_of(&[16, 1], DType::I32));
    let r2 = b.binary(BinaryOp::MulI, r2, stride);
    let r2 = b.broadcast(r2, &[16, 64]);
    let c2 = b.broadcast(c2, &[16, 64]);
    let offs = b.binary(BinaryOp::AddI, r2, c2);
    let v = b.cast(CastOp::SIToFP, offs, DType::F32);
    let ptrs = b.splat(p, &[16, 64]);
    let ptrs = b.addptr(ptrs, offs);
    b.store(ptrs, v, None, CacheModifier::None, EvictionPolicy::Normal);
    b.ret(&[]);
    assign_layouts(&f, 4).unwrap();
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn ttgir_keeps_one_layout_for_1d_accesses_of_different_widths() {
    use tritonc_ir::*;
    // fp32 in (4 per 128-bit access), fp16 out (8 per access): both take the 8-wide
    // layout, so the value never changes layout (the load is two 128-bit accesses).
    let mut f = Function::new(
        "downcast",
        vec![Type::ptr(DType::F32), Type::ptr(DType::F16)],
        vec![],
    );
    f.arg_attrs[0].divisibility = Some(16);
    f.arg_attrs[1].divisibility = Some(16);
    let [src, dst] = f.args().to_vec()[..] else {
        unreachable!("two arguments")
    };
    let entry = f.entry_block();
    let mut b = Builder::at_end(&mut f, entry);
    let r = b.make_range(0, 1024);
    let p = b.splat(src, &[1024]);
    let p = b.addptr(p, r);
    let x = b.load(p, None, None, LoadOptions::default());
    let h = b.cast(CastOp::TruncF, x, DType::F16);
    let q = b.splat(dst, &[1024]);
    let q = b.addptr(q, r);
    b.store(q, h, None, CacheModifier::None, EvictionPolicy::Normal);
    b.ret(&[]);
    let a = assign_layouts(&f, 4).unwrap();
    assert_eq!(a.conversions().count(), 0);
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn reduction_results_keep_the_slice_of_their_input() {
    let f = fixtures::reduce_2d();
    let a = assign_layouts(&f, 4).unwrap();
    for op in find_ops(&f, |k| matches!(k, OpKind::Reduce { .. })) {
        let OpKind::Reduce { axis } = *f.kind(op) else {
            unreachable!("filtered to reductions")
        };
        let input = a.layout(operand(&f, op, 0)).unwrap().clone();
        assert_eq!(a.layout(f.op(op).results()[0]), Some(&input.slice(axis)));
    }
    // Both results are stored in a 1-D blocked layout: one conversion each.
    let stores = find_ops(&f, |k| matches!(k, OpKind::Store { .. }));
    for op in stores {
        assert!(a.conversion(op, 1).is_some());
    }
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn loop_carried_block_takes_the_layout_of_its_yield() {
    let f = fixtures::loop_sum();
    let a = assign_layouts(&f, 4).unwrap();
    let for_op = find_ops(&f, |k| matches!(k, OpKind::For { .. }))[0];
    let load = find_ops(&f, |k| matches!(k, OpKind::Load { .. }))[0];
    let body = f.region_entry(for_op, 0).unwrap();
    let carried = f.block(body).args()[1];
    let result = f.op(for_op).results()[0];
    // fp32 loads with 16-byte alignment: 4 per thread. The zeros init is rebuilt in that
    // layout instead of the accumulator being converted every iteration.
    assert_eq!(a.layout(carried), a.layout(f.op(load).results()[0]));
    assert_eq!(a.layout(result), a.layout(carried));
    let yield_op = *f.block(body).ops().last().unwrap();
    assert!(a.conversion(yield_op, 0).is_none());
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn a_loaded_init_is_converted_once_before_the_loop() {
    // The init is a reduction's result (a slice of a 2-D layout), the body adds 1-D
    // loads: the loop carries the body's layout and the init is converted once, outside
    // the loop, rather than the carried value twice per iteration.
    let f = fixtures::loop_sum_loaded_init();
    let a = assign_layouts(&f, 4).unwrap();
    let for_op = find_ops(&f, |k| matches!(k, OpKind::For { .. }))[0];
    let loads = find_ops(&f, |k| matches!(k, OpKind::Load { .. }));
    let body_load = loads[1];
    let reduce = find_ops(&f, |k| matches!(k, OpKind::Reduce { .. }))[0];
    let body = f.region_entry(for_op, 0).unwrap();
    let carried = f.block(body).args()[1];
    assert_ne!(
        a.layout(f.op(reduce).results()[0]),
        a.layout(f.op(body_load).results()[0]),
        "the fixture needs two layouts"
    );
    assert_eq!(a.layout(carried), a.layout(f.op(body_load).results()[0]));
    let yield_op = *f.block(body).ops().last().unwrap();
    assert!(a.conversion(yield_op, 0).is_none());
    let add = f.block(body).ops()[f.block(body).ops().len() - 2];
    assert!(a.conversion(add, 0).is_none() && a.conversion(add, 1).is_none());
    // The one conversion: the loop's init operand (after lb, ub, step).
    assert!(a.conversion(for_op, 3).is_some());
}

#[test]
fn scan_schedule_follows_the_layout_bits() {
    let f = fixtures::cumsum_1d(1024);
    let a = assign_layouts(&f, 4).unwrap();
    let scan = find_ops(&f, |k| matches!(k, OpKind::Scan { .. }))[0];
    let s = a.scan_schedule(&f, scan).unwrap();
    // [4] x [32] x [4] over 1024 positions: 2 register bits, 5 lane bits, 2 warp bits,
    // then 1 repetition register bit (1024 = 512 * 2).
    let units: Vec<ScanUnit> = s.steps.iter().map(|x| x.unit).collect();
    use ScanUnit::*;
    assert_eq!(
        units,
        [Register, Register, Lane, Lane, Lane, Lane, Lane, Warp, Warp, Register]
    );
    assert_eq!(s.steps[9].index_mask, 4);
    // The order is Triton's for 4 per thread, 32 lanes, 4 warps and 2 repetitions.
    let sizes = s.sizes();
    assert_eq!(
        (sizes.spt, sizes.lanes, sizes.warps, sizes.blocks),
        (4, 32, 4, 2)
    );
    assert_eq!(s.tree(777), ScanSchedule::for_sizes(4, 32, 4, 2, false).tree(777));
    // Position 5: lane 1's in-thread prefix after lane 0's finished last element.
    assert_eq!(s.tree(5).to_string(), "((((0 + 1) + 2) + 3) + (4 + 5))");
    insta::assert_snapshot!(gpu_ir_text(&f));
}

#[test]
fn dot_gets_a_register_tile_layout() {
    let f = fixtures::small_dot();
    let a = assign_layouts(&f, 4).unwrap();
    let dot = find_ops(&f, |k| matches!(k, OpKind::Dot { .. }))[0];
    let r = f.op(dot).results()[0];
    // 16x16 over 128 threads: 4x4 per thread would need only 16 threads, so lanes
    // hold replicas; every thread still owns a 4x4 (or smaller) register tile.
    let Layout::Blocked(l) = a.layout(r).unwrap() else {
        panic!("a blocked layout")
    };
    assert_eq!(l.size_per_thread, [4, 4]);
    assert_eq!(l.threads_per_warp, [8, 4]);
    assert_eq!(l.order, [1, 0]);
    assert_eq!(dot_layout(&[128, 256], 8, 32).warps_per_cta, [2, 4]);
    insta::assert_snapshot!(gpu_ir_text(&f));
}
