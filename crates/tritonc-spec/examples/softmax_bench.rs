//! Interpreter throughput on fused softmax over a 4096x8192 fp16 input, against a plain
//! Rust row softmax (f32, same data) measured in the same run.
//!
//! `cargo run --release -p tritonc-spec --example softmax_bench`

use std::time::Instant;

use tritonc_diagnostics::SourceMap;
use tritonc_interp::InterpOptions;

fn main() {
    let dir = std::env::temp_dir().join("tritonc-softmax-bench");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/softmax.py");
    std::fs::copy(&kernel, dir.join("softmax.py")).expect("copy kernel");
    let spec = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/softmax.toml"),
    )
    .expect("spec")
    .replace("shape = [1823, 781]", "shape = [4096, 8192]");
    std::fs::write(dir.join("bench.toml"), spec).expect("write spec");
    let mut sources = SourceMap::new();
    let spec_path = dir.join("bench.toml");
    let t = Instant::now();
    let text = std::fs::read_to_string(&spec_path).expect("spec");
    let file = sources.add(spec_path.clone(), text.as_str());
    let spec = tritonc_spec::parse(&text, file).unwrap_or_else(|e| panic!("{e:?}"));
    let (mut launch, _, module) =
        tritonc_spec::prepare(&spec, &spec_path, &mut sources).unwrap_or_else(|e| panic!("{e:?}"));
    let prepare = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let lowered = tritonc_sema::lower_kernel(&module, &launch.kernel_name, &launch.specialization)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let lower = t.elapsed().as_secs_f64();
    let opts = InterpOptions {
        num_warps: spec.num_warps,
        ..InterpOptions::default()
    };
    let t = Instant::now();
    tritonc_interp::launch(
        &lowered.functions[0],
        &launch.runtime_args,
        launch.grid,
        &mut launch.memory,
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let interp = t.elapsed().as_secs_f64();
    let total = prepare + lower + interp;
    let n = 4096.0 * 8192.0;
    println!(
        "spec (parse, allocate, randn x, zero y; 32 Mi fp16 each): {prepare:.3} s\n\
         lowering (sema):                                      {lower:.3} s\n\
         interpretation ({} threads):                           {interp:.3} s, {:.1} M elements/s\n\
         total:                                                {total:.3} s",
        rayon::current_num_threads(),
        n / interp / 1e6
    );
    let out = launch;
    // Peer: the same math in plain Rust over the same input.
    let x = out.tensors[0].values(&out.memory);
    let t = Instant::now();
    let mut y = vec![0f32; x.len()];
    for (row, yr) in x.chunks(8192).zip(y.chunks_mut(8192)) {
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b as f32));
        let mut s = 0f32;
        for (o, &v) in yr.iter_mut().zip(row) {
            *o = (v as f32 - m).exp();
            s += *o;
        }
        for o in yr.iter_mut() {
            *o /= s;
        }
    }
    let peer = t.elapsed().as_secs_f64();
    println!(
        "plain Rust row softmax (1 core):                      {peer:.3} s, {:.1} M elements/s (interpretation takes {:.1}x)",
        n / peer / 1e6,
        interp / peer
    );
    std::hint::black_box(y);
}
