//! Loads the golden fp32 vector add (`vector_add(x, y, out, n)`, PTX from the NVIDIA back
//! end's tests) as a bundle with hand-written metadata, runs it on 2^24 elements, checks
//! the result exactly, and prints GPU time, bandwidth and host launch overhead.
//!
//! ```text
//! cargo run --release -p tritonc-runtime --example launch_ptx [-- PATH/TO/vector_add.ptx [vector_add.cubin]]
//! ```
//!
//! Exits with the runtime's exit codes: 3 without a driver or GPU, 1 on a wrong result.

use std::process::ExitCode;
use std::time::Instant;

use tritonc_bundle::{Bundle, BundleMeta, ParamAbi, ParamRole, PtxParamKind, FORMAT_VERSION};
use tritonc_runtime::{Arg, DType, Device, Grid, RuntimeError};
use tritonc_sema::spec::KeyArg;
use tritonc_sema::{SpecializationKey, Target};

const DEFAULT_PTX: &str = "crates/tritonc-codegen/tests/golden/vector_add.ptx";
const NUM_WARPS: u32 = 8;

/// The metadata the back end would write for the golden kernel: three `:16` fp32
/// pointers and an i32, passed in declaration order.
fn vector_add_meta() -> BundleMeta {
    let key = SpecializationKey {
        kernel: "vector_add".into(),
        args: ["x", "y", "out", "n"]
            .iter()
            .zip(["*fp32:16", "*fp32:16", "*fp32:16", "i32"])
            .map(|(n, s)| KeyArg {
                name: n.to_string(),
                spec: s.to_string(),
            })
            .collect(),
        num_warps: NUM_WARPS,
        num_stages: 1,
        target: Target::cuda(90),
        debug: false,
        triton_version: Default::default(),
    };
    let pointer = |index| ParamRole::Passed {
        index,
        kind: PtxParamKind::Pointer {
            pointee: DType::F32,
            align: 16,
        },
    };
    BundleMeta {
        format_version: FORMAT_VERSION,
        entry: "vector_add".into(),
        target: "sm_90".into(),
        key_hash: key.hash_hex(),
        key,
        num_warps: NUM_WARPS,
        dynamic_shared_bytes: 0,
        static_shared_bytes: 0,
        params: vec![
            ParamAbi {
                name: "x".into(),
                role: pointer(0),
            },
            ParamAbi {
                name: "y".into(),
                role: pointer(1),
            },
            ParamAbi {
                name: "out".into(),
                role: pointer(2),
            },
            ParamAbi {
                name: "n".into(),
                role: ParamRole::Passed {
                    index: 3,
                    kind: PtxParamKind::Scalar {
                        dtype: DType::I32,
                        divisibility: None,
                    },
                },
            },
        ],
        hidden_params: vec![],
        reduction_layouts: None,
        ptxas: None,
        min_driver_version: None,
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run() -> Result<bool, RuntimeError> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| DEFAULT_PTX.to_string());
    let ptx = std::fs::read_to_string(&path).map_err(|e| {
        RuntimeError::Bundle(tritonc_bundle::BundleError::Io {
            path: path.clone().into(),
            source: e,
        })
    })?;
    let bundle = Bundle {
        meta: vector_add_meta(),
        ptx,
        cubin: None,
    };
    bundle
        .validate()
        .map_err(|reason| RuntimeError::IncompatibleBundle {
            entry: "vector_add".into(),
            reason,
        })?;
    // Through the on-disk format, as a runner on a GPU host would read it.
    let dir = std::env::temp_dir().join(bundle.dir_name());
    bundle.write_dir(&dir)?;
    let bundle = Bundle::read_dir(&dir)?;

    let t = Instant::now();
    let dev = Device::open(0)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let (major, minor) = dev.compute_capability();
    println!(
        "device: {} (sm_{major}{minor}), driver CUDA {}.{}, {:.1} GiB; opened in {open_ms:.1} ms",
        dev.name(),
        dev.driver_version() / 1000,
        dev.driver_version() % 1000 / 10,
        dev.total_memory() as f64 / (1u64 << 30) as f64
    );
    let t = Instant::now();
    let kernel = dev.load(&bundle)?;
    println!(
        "loaded `{}` from {:?} in {:.2} ms",
        kernel.meta().entry,
        kernel.code(),
        t.elapsed().as_secs_f64() * 1e3
    );
    if let Some(why) = kernel.cubin_error() {
        println!("  the cubin was not loaded: {why}");
    }

    let n: usize = 1 << 24;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 1000) as f32).collect();
    let dx = dev.upload(&x)?;
    let dy = dev.upload(&y)?;
    let dout = dev.alloc_zeroed(DType::F32, n as u64 + 1)?;
    let block = kernel.block_threads();
    let grid = Grid::x((n as u32).div_ceil(block));
    let args = [dx.arg(), dy.arg(), dout.arg(), Arg::Int(n as i64)];

    // Launch-time safety on the real device: a view one element in breaks `x: :16`.
    let view = dx
        .ptr()
        .offset(1)
        .expect("the buffer has more than one element");
    let bad = [
        Arg::Pointer(view),
        dy.arg(),
        dout.arg(),
        Arg::Int(n as i64 - 1),
    ];
    match kernel.prepare(grid, &bad) {
        Err(e @ RuntimeError::LaunchRefused(_)) => {
            println!(
                "refused as expected (exit {}): {}",
                e.exit_code(),
                e.to_string().replace('\n', " |")
            )
        }
        Err(e) => return Err(e),
        Ok(_) => {
            println!("FAIL: a misaligned launch was accepted");
            return Ok(false);
        }
    }

    // Guard element past `n`: poisoned, and must stay so.
    dout.fill_bytes(0xff)?;
    let mut launch = kernel.prepare(grid, &args)?;
    let timings = launch.time_launches(100)?;
    let out: Vec<f32> = dout.to_vec()?;
    let wrong = (0..n)
        .filter(|&i| out[i].to_bits() != (x[i] + y[i]).to_bits())
        .count();
    let guard_ok = out[n].to_bits() == u32::MAX;

    // A size that is not a multiple of the block: the mask must hold.
    let m = n - 3;
    dout.fill_bytes(0xff)?;
    kernel.launch(
        Grid::x((m as u32).div_ceil(block)),
        &[dx.arg(), dy.arg(), dout.arg(), Arg::Int(m as i64)],
    )?;
    let out2: Vec<f32> = dout.to_vec()?;
    let wrong2 = (0..m)
        .filter(|&i| out2[i].to_bits() != (x[i] + y[i]).to_bits())
        .count();
    let tail_ok = out2[m..].iter().all(|v| v.to_bits() == u32::MAX);

    let bytes = 3.0 * 4.0 * n as f64;
    let med = timings.median_gpu_ms();
    println!(
        "vector_add n=2^24, grid {} × {block} threads, {} launches:",
        grid.x,
        timings.gpu_ms.len()
    );
    println!(
        "  GPU time: median {:.4} ms, min {:.4} ms -> {:.0} GB/s (median), {:.0} GB/s (best)",
        med,
        timings.min_gpu_ms(),
        bytes / (med * 1e-3) / 1e9,
        bytes / (timings.min_gpu_ms() * 1e-3) / 1e9
    );
    println!(
        "  host launch overhead: median {:.2} µs per cuLaunchKernel call (p90 {:.2} µs); burst {:.2} µs per launch",
        timings.median_host_us(),
        percentile(&timings.host_us, 0.9),
        timings.burst_host_us_per_launch
    );
    println!(
        "  result: {} wrong of {n}; guard {}; masked run (n-3): {} wrong, tail {}",
        wrong,
        if guard_ok { "untouched" } else { "OVERWRITTEN" },
        wrong2,
        if tail_ok { "untouched" } else { "OVERWRITTEN" }
    );
    let ok = wrong == 0 && guard_ok && wrong2 == 0 && tail_ok;
    println!("{}", if ok { "PASS" } else { "FAIL" });
    Ok(ok)
}

fn percentile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(((s.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}
