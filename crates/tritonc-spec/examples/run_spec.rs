//! Runs launch specs on the interpreter and prints each output's summary and the time:
//! `cargo run --release -p tritonc-spec --example run_spec -- examples/matmul.toml …`

use std::time::Instant;

use tritonc_diagnostics::SourceMap;
use tritonc_interp::InterpOptions;

fn main() {
    for path in std::env::args().skip(1) {
        let mut sources = SourceMap::new();
        let t = Instant::now();
        match tritonc_spec::run_spec_file(
            std::path::Path::new(&path),
            &mut sources,
            &InterpOptions::default(),
        ) {
            Ok(o) => {
                println!(
                    "{path}: {} programs in {:.3} s",
                    o.report.programs,
                    t.elapsed().as_secs_f64()
                );
                for t in o.launch.tensors.iter().filter(|t| t.output) {
                    let s = tritonc_spec::summarize(&t.values(&o.launch.memory));
                    println!("  {}: {s}", t.name);
                }
            }
            Err(ds) => {
                println!("{path}: failed");
                for d in ds {
                    println!("  {}", d.message);
                }
            }
        }
    }
}
