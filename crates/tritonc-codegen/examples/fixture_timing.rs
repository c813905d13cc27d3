//! Times tile IR → PTX for every example kernel of `tests/fixtures/triton` (the
//! signatures Triton 3.6 was measured with), in one shared MLIR context, and prints a
//! Markdown table: kernel, median tile IR → PTX, median source → tile IR (sema),
//! registers and shared memory from ptxas when it is found.
//!
//! `cargo run --release -p tritonc-codegen --example fixture_timing [ITERATIONS [FILTER]]`
//! (FILTER: only fixtures whose name contains it).

use std::path::Path;
use std::time::{Duration, Instant};

use tritonc_codegen::{codegen_context, compile_to_ptx_in, CompileOptions, Target, Ptxas};
use tritonc_diagnostics::{FileId, SourceMap, Span};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(20);
    let filter = std::env::args().nth(2).unwrap_or_default();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let context = codegen_context();
    let target = Target::nvidia(90);
    let ptxas = Ptxas::locate(&root);
    let mut names: Vec<_> = std::fs::read_dir(root.join("tests/fixtures/triton"))
        .expect("the fixtures exist")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json") && p.to_string_lossy().contains("__")
        })
        .collect();
    names.sort();
    println!(
        "| kernel | num_warps | source → tile IR | tile IR → PTX | registers | shared bytes |"
    );
    println!("|---|---|---|---|---|---|");
    for path in names {
        let stem = path
            .file_stem()
            .expect("named")
            .to_string_lossy()
            .into_owned();
        if !stem.contains(&filter) {
            continue;
        }
        let fx: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        let file = fx["file"].as_str().expect("file");
        let kernel = fx["kernel"].as_str().expect("kernel");
        let sig = fx["signature"].as_str().expect("signature");
        let num_warps = fx["num_warps"].as_u64().unwrap_or(4) as u32;
        let src = std::fs::read_to_string(root.join(file)).expect("the example is readable");
        let mut sources = SourceMap::new();
        let file_id = sources.add(file.to_string(), src.clone());
        let sig_file = FileId(1);
        let items = parse_signature(sig, sig_file).expect("the signature parses");
        let launch = LaunchOptions {
            num_warps,
            ..LaunchOptions::default()
        };
        let mut sema_samples = Vec::new();
        let mut module = None;
        for _ in 0..iterations {
            let t0 = Instant::now();
            let parsed = tritonc_syntax::parse_module(file_id, &src);
            let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
            let def = scope
                .functions
                .get(kernel)
                .expect("the kernel exists")
                .clone();
            let spec = bind_signature(
                &def,
                &items,
                &[],
                launch.clone(),
                Span::new(sig_file, 0, sig.len() as u32),
            )
            .expect("the signature binds");
            let m = tritonc_sema::lower_kernel(&parsed.module, kernel, &spec).expect("sema");
            sema_samples.push(t0.elapsed());
            module = Some(m);
        }
        let module = module.expect("at least one iteration");
        let func = module.function(kernel).expect("the kernel is lowered");
        let options = CompileOptions {
            num_warps,
            ..CompileOptions::default()
        };
        let mut samples = Vec::new();
        let mut last = None;
        for _ in 0..iterations {
            let t0 = Instant::now();
            let k =
                compile_to_ptx_in(&context, func, &sources, &target, &options).expect("compiles");
            samples.push(t0.elapsed());
            last = Some(k);
        }
        let k = last.expect("at least one iteration");
        let regs = ptxas
            .as_ref()
            .and_then(|p| p.check(&k.ptx, "sm_90").ok())
            .and_then(|r| r.registers)
            .map_or("–".to_string(), |r| r.to_string());
        println!(
            "| {stem} | {num_warps} | {:.2} ms | {:.2} ms | {regs} | {} |",
            median(sema_samples).as_secs_f64() * 1e3,
            median(samples).as_secs_f64() * 1e3,
            k.shared_bytes
        );
    }
}
