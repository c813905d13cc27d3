//! Times the path to PTX text: MLIR construction + lowering for the hand-built reference
//! kernels, and the whole tile IR → layouts → MLIR → PTX path for vector add and softmax.
//!
//! `cargo run --release -p tritonc-codegen --example ptx_timing [ITERATIONS]`

#[path = "../../tritonc-ttgir/tests/fixtures/mod.rs"]
mod fixtures;

use std::time::{Duration, Instant};

use tritonc_codegen::{
    codegen_context, compile_to_ptx_in,
    kernels::{softmax_row, vector_add},
    lower_to_ptx, CompileOptions, Target,
};
use tritonc_diagnostics::SourceMap;
use tritonc_ir::DType;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(50);
    let target = Target::nvidia(90);

    let start = Instant::now();
    let context = codegen_context();
    println!(
        "context creation (the pipeline's dialects, passes, translations): {:?}",
        start.elapsed()
    );

    type Build =
        for<'c> fn(
            &'c melior::Context,
            &str,
        )
            -> Result<tritonc_codegen::KernelModule<'c>, tritonc_codegen::CodegenError>;
    let kernels: [(&str, Build); 2] = [
        ("vector_add", vector_add::build),
        ("softmax_row", softmax_row::build),
    ];
    for (name, build) in kernels {
        let mut first = None;
        let (mut construct, mut lower) = (Vec::new(), Vec::new());
        for _ in 0..iterations {
            let t0 = Instant::now();
            let mut module = build(&context, "timing").expect("the kernel builds");
            let t1 = Instant::now();
            let ptx = lower_to_ptx(&mut module, &target).expect("the kernel lowers");
            let t2 = Instant::now();
            first.get_or_insert(t2 - t0);
            construct.push(t1 - t0);
            lower.push(t2 - t1);
            assert!(ptx.contains(".entry"));
        }
        println!(
            "{name}: first {:?}; median construct {:?}, lower to PTX {:?} ({iterations} runs)",
            first.unwrap_or_default(),
            median(construct),
            median(lower),
        );
    }

    let sources = SourceMap::new();
    let tile_kernels = [
        (
            "tile vector_add fp32",
            fixtures::vector_add(DType::F32, 1024, true),
            4,
        ),
        (
            "tile vector_add fp16",
            fixtures::vector_add(DType::F16, 2048, true),
            4,
        ),
        (
            "tile softmax fp16",
            fixtures::softmax(DType::F16, 1024, false),
            4,
        ),
        (
            "tile softmax fp32",
            fixtures::softmax(DType::F32, 8192, true),
            16,
        ),
    ];
    for (name, func, num_warps) in tile_kernels {
        let options = CompileOptions {
            num_warps,
            ..CompileOptions::default()
        };
        let mut samples = Vec::new();
        for _ in 0..iterations {
            let t0 = Instant::now();
            let k = compile_to_ptx_in(&context, &func, &sources, &target, &options)
                .expect("the tile kernel compiles");
            samples.push(t0.elapsed());
            assert!(k.ptx.contains(".entry"));
        }
        println!(
            "{name}: tile IR -> PTX median {:?} ({iterations} runs, shared context)",
            median(samples)
        );
    }
}
