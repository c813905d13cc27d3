//! Host launch overhead from Rust: `add_kernel` (examples/vector_add.py) on a 16 Ki-element
//! add (16 programs; the GPU finishes each in about 2 µs, so the host is the bottleneck),
//! launched back to back three ways — the generated typed function of the variant for
//! this GPU, the generated `launch` that picks the variant from the arguments, and a
//! `PreparedLaunch` (arguments checked and marshalled once) — and prints the median
//! microseconds per launch of each over ROUNDS rounds of LAUNCHES launches, writing them
//! to OUT/rust.json (bench/launch/run.sh runs it).
//!
//! `TRITONC=… cargo run --release --manifest-path examples/rust-build/Cargo.toml --bin
//! launch_overhead -- OUT [LAUNCHES] [ROUNDS]`

use std::process::ExitCode;
use std::time::Instant;

use tritonc_runtime::{DType, Device, Grid, RuntimeError, Stream};

include!(concat!(env!("OUT_DIR"), "/tritonc_kernels.rs"));

const N: usize = 16 * 1024;
const BLOCK_SIZE: usize = 1024;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure(
    device: &Device,
    rounds: usize,
    launches: usize,
    mut launch: impl FnMut() -> Result<(), RuntimeError>,
) -> Result<f64, RuntimeError> {
    for _ in 0..100 {
        launch()?;
    }
    device.synchronize()?;
    let mut us = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..launches {
            launch()?;
        }
        us.push(t.elapsed().as_secs_f64() * 1e6 / launches as f64);
        device.synchronize()?;
    }
    Ok(median(us))
}

fn run(out: &str, launches: usize, rounds: usize) -> Result<bool, RuntimeError> {
    let device = Device::open(0)?;
    let kernel = add_kernel::Kernel::load(&device)?;
    let x: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..N).map(|i| i as f32 / 4.0).collect();
    let (dx, dy) = (device.upload(&x)?, device.upload(&y)?);
    let dout = device.alloc_zeroed(DType::F32, N as u64)?;
    let (xp, yp, op) = (dx.ptr(), dy.ptr(), dout.ptr());
    let grid = Grid::x((N / BLOCK_SIZE) as u32);
    let (major, _) = device.compute_capability();
    let typed_name = if major == 9 {
        "aligned_sm_90"
    } else {
        "aligned_sm_80"
    };
    let typed = |s| {
        if major == 9 {
            kernel.aligned_sm_90(s, grid, xp, yp, op, N as i32)
        } else {
            kernel.aligned_sm_80(s, grid, xp, yp, op, N as i32)
        }
    };
    let mut results = Vec::new();
    results.push((
        format!("typed ({typed_name})"),
        measure(&device, rounds, launches, || typed(Stream::DEFAULT))?,
    ));
    results.push((
        "launch (picks the variant)".to_string(),
        measure(&device, rounds, launches, || {
            kernel
                .launch(
                    Stream::DEFAULT,
                    grid,
                    xp,
                    yp,
                    op,
                    N as i64,
                    BLOCK_SIZE as i64,
                )
                .map(drop)
        })?,
    ));
    let chosen = kernel.0.select(&[
        tritonc_runtime::Arg::Pointer(xp),
        tritonc_runtime::Arg::Pointer(yp),
        tritonc_runtime::Arg::Pointer(op),
        tritonc_runtime::Arg::Int(N as i64),
        tritonc_runtime::Arg::Int(BLOCK_SIZE as i64),
    ])?;
    let loaded = kernel
        .0
        .loaded(chosen)
        .expect("the chosen variant is loaded");
    let mut prepared = loaded.prepare(
        grid,
        &[
            tritonc_runtime::Arg::Pointer(xp),
            tritonc_runtime::Arg::Pointer(yp),
            tritonc_runtime::Arg::Pointer(op),
            tritonc_runtime::Arg::Int(N as i64),
            tritonc_runtime::Arg::AsCompiled,
        ],
    )?;
    results.push((
        "PreparedLaunch".to_string(),
        measure(&device, rounds, launches, || {
            prepared.launch_on(Stream::DEFAULT)
        })?,
    ));
    let got: Vec<f32> = dout.to_vec()?;
    let right = got
        .iter()
        .zip(x.iter().zip(&y))
        .all(|(o, (a, b))| *o == a + b);
    let mut json = String::from("{\"us_per_launch_median\": {");
    for (i, (name, us)) in results.iter().enumerate() {
        println!("Rust {name:28} {us:7.2} us per launch (median of {rounds} rounds of {launches})");
        json += &format!("{}\"{name}\": {us:.3}", if i > 0 { ", " } else { "" });
    }
    json += &format!(
        "}}, \"rounds\": {rounds}, \"launches_per_round\": {launches}, \"sums_right\": {right}}}\n"
    );
    let path = std::path::Path::new(out).join("rust.json");
    if let Err(e) = std::fs::write(&path, json) {
        eprintln!("launch_overhead: {}: {e}", path.display());
        return Ok(false);
    }
    if !right {
        eprintln!("launch_overhead: WRONG SUMS");
    }
    Ok(right)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let out = args.get(1).map_or(".", String::as_str);
    let launches = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20000);
    let rounds = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(15);
    match run(out, launches, rounds) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("launch_overhead: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
