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
    let t = Instant::now();
    let out = tritonc_spec::run_spec_file(
        &dir.join("bench.toml"),
        &mut sources,
        &InterpOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let total = t.elapsed().as_secs_f64();
    let n = 4096.0 * 8192.0;
    println!(
        "tritonc interpreter (incl. init, lowering): {total:.3} s, {:.1} M elements/s",
        n / total / 1e6
    );
    // Peer: the same math in plain Rust over the same input.
    let x = out.launch.tensors[0].values(&out.launch.memory);
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
        "plain Rust row softmax (1 core):           {peer:.3} s, {:.1} M elements/s ({:.1}x)",
        n / peer / 1e6,
        total / peer
    );
    std::hint::black_box(y);
}
