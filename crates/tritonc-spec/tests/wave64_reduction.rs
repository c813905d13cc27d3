//! The interpreter replays the wave64 reduction schedule of AMD targets, so the bits an
//! AMD GPU computes for a 16-bit reduction are known without one (there is no AMD GPU
//! here: nothing in this test ran on AMD hardware).
//!
//! The kernel sums 128 fp16 values with one warp. On gfx942 the back end's layout puts 2
//! elements in each of 64 lanes; the GPU code (tritonc's ROCDL lowering, following
//! `ReductionSchedule`) adds each lane's pair, then runs a butterfly over lane masks
//! 32, 16, 8, 4, 2, 1, rounding to fp16 after every add. That lane-by-lane process is
//! simulated here independently and must give the interpreter's bits exactly; NVIDIA's
//! 32-lane order rounds differently for some inputs, which shows that the order is what
//! is being tested.

mod common;

use std::path::PathBuf;

use common::tensor;
use half::f16;
use tritonc_diagnostics::SourceMap;
use tritonc_interp::{InterpOptions, ReductionOrderSource};
use tritonc_ir::layout::Layout;
use tritonc_spec::{npy, run_spec_file, RunOutcome};
use tritonc_target::Target;

const LEN: usize = 128;

/// Inputs of mixed magnitude so that fp16 rounding depends on the order.
fn inputs(seed: u32) -> Vec<f16> {
    (0..LEN as u32)
        .map(|i| {
            let mut h = i.wrapping_mul(0x9E37_79B9) ^ seed.wrapping_mul(0x85EB_CA6B);
            h ^= h >> 15;
            h = h.wrapping_mul(0x2C1B_3C6D);
            h ^= h >> 12;
            let mantissa = (h % 2048) as f32 / 1024.0 - 1.0;
            let scale = [1.0f32, 16.0, 0.0625, 256.0][(h >> 20) as usize % 4];
            f16::from_f32(mantissa * scale)
        })
        .collect()
}

fn case_dir(test: &str, seed: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tritonc-wave64-{}-{test}-{seed}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bytes = inputs(seed).iter().flat_map(|v| v.to_le_bytes()).collect();
    let x = npy::NpyArray {
        dtype: tritonc_ir::DType::F16,
        shape: vec![LEN],
        bytes,
    };
    std::fs::write(dir.join("x.npy"), npy::write(&x)).expect("write npy");
    let kernel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wave64_sum.py");
    std::fs::copy(kernel, dir.join("k.py")).expect("copy kernel");
    let spec = format!(
        "kernel = \"k.py\"\ngrid = [1]\nnum_warps = 1\n\
         [tensors.x]\nshape = [{LEN}]\ndtype = \"float16\"\ninit = \"npy\"\npath = \"x.npy\"\n\
         [tensors.out]\nshape = [1]\ndtype = \"float16\"\noutput = true\n\
         [args]\nx_ptr = \"x\"\nout_ptr = \"out\"\nBLOCK = {LEN}\n"
    );
    std::fs::write(dir.join("sum.toml"), spec).expect("write spec");
    dir
}

fn run(dir: &PathBuf, orders: ReductionOrderSource) -> RunOutcome {
    let mut sources = SourceMap::new();
    let opts = InterpOptions {
        reduction_orders: orders,
        ..InterpOptions::default()
    };
    run_spec_file(&dir.join("sum.toml"), &mut sources, &opts)
        .unwrap_or_else(|ds| panic!("{:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>()))
}

fn out_bits(o: &RunOutcome) -> u16 {
    let t = tensor(o, "out");
    let b = &o.launch.memory.buffer(t.buffer).bytes;
    u16::from_le_bytes([b[0], b[1]])
}

/// What `lanes` lanes holding `per_lane` consecutive elements each compute: each lane
/// folds its registers in order, then every lane adds its partner `lane ^ mask`'s value
/// for masks from `lanes / 2` down to 1, rounding to fp16 after every add. Lane 0's value.
fn simulate(x: &[f16], lanes: usize, per_lane: usize) -> f16 {
    let mut acc: Vec<f16> = (0..lanes)
        .map(|l| {
            let regs = &x[l * per_lane..(l + 1) * per_lane];
            regs[1..].iter().fold(regs[0], |a, &r| a + r)
        })
        .collect();
    let mut mask = lanes / 2;
    while mask > 0 {
        acc = (0..lanes).map(|l| acc[l] + acc[l ^ mask]).collect();
        mask /= 2;
    }
    acc[0]
}

#[test]
fn gfx942_layout_is_two_elements_in_each_of_64_lanes() {
    let dir = case_dir("layout", 0);
    let o = run(&dir, ReductionOrderSource::BackendFor(Target::amd(0x942)));
    let options = tritonc_ttgir::GpuOptions::for_target(1, Target::amd(0x942));
    let gpu = tritonc_ttgir::lower_to_gpu_ir(&o.function, &options).expect("GPU IR");
    let load = gpu
        .walk()
        .into_iter()
        .find(|&op| gpu.kind(op).name() == "tt.load")
        .expect("a load");
    let Some(Layout::Blocked(b)) = gpu.value_type(gpu.op(load).results()[0]).encoding() else {
        panic!("a blocked load")
    };
    assert_eq!(
        (b.size_per_thread.clone(), b.threads_per_warp.clone()),
        (vec![2], vec![64])
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn fp16_sum_follows_the_wave64_butterfly_bit_for_bit() {
    let mut differs_from_nvidia = 0;
    for seed in 0..24 {
        let dir = case_dir("sum", seed);
        let x = inputs(seed);
        let amd = out_bits(&run(
            &dir,
            ReductionOrderSource::BackendFor(Target::amd(0x942)),
        ));
        assert_eq!(
            amd,
            simulate(&x, 64, 2).to_bits(),
            "seed {seed}: the interpreter's gfx942 order is not the wave64 butterfly"
        );
        // NVIDIA: 4 elements in each of 32 lanes.
        let nvidia = out_bits(&run(
            &dir,
            ReductionOrderSource::BackendFor(Target::nvidia(90)),
        ));
        assert_eq!(
            nvidia,
            simulate(&x, 32, 4).to_bits(),
            "seed {seed}: sm_90 order"
        );
        differs_from_nvidia += usize::from(amd != nvidia);
        std::fs::remove_dir_all(dir).ok();
    }
    assert!(
        differs_from_nvidia > 0,
        "no input distinguishes the two orders: the test would not notice a wrong one"
    );
}
