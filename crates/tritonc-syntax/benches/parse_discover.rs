//! Parsing + kernel discovery + subset check over a generated tree of kernel files.
//!
//! `cargo bench -p tritonc-syntax --bench parse_discover [-- FILES]` writes FILES (default
//! 2000) Python files into a temporary directory, each a fixture kernel file with its
//! functions renamed, then reports throughput sequentially and with rayon, next to
//! CPython's own `ast.parse` over the same files (the peer), when `python3` is present.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use tritonc_diagnostics::FileId;
use tritonc_syntax::{check_kernel_subset, discover, parse_module};

fn seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        root.join("../../examples"),
        root.join("tests/fixtures/subset"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.extension().and_then(|x| x.to_str()) == Some("py")
                && !name.starts_with("reject_")
                && name != "cases.py"
                && name != "verify_with_triton.py"
            {
                out.push(std::fs::read_to_string(&p).expect("seed file is readable"));
            }
        }
    }
    out.sort();
    out
}

/// Renames every `def NAME(` (and its uses) so each generated file has its own kernels.
fn renamed(src: &str, suffix: usize) -> String {
    let mut out = src.to_string();
    for line in src.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("def ") {
            if let Some(name) = rest.split('(').next() {
                out = out.replace(&format!("{name}("), &format!("{name}_{suffix}("));
            }
        }
    }
    out
}

fn generate(dir: &Path, files: usize) -> (Vec<PathBuf>, usize, usize) {
    let seeds = seeds();
    assert!(!seeds.is_empty(), "no seed kernels found");
    let (mut bytes, mut lines) = (0, 0);
    let mut paths = Vec::new();
    for i in 0..files {
        let sub = dir.join(format!("pkg{}", i / 100));
        std::fs::create_dir_all(&sub).expect("temp dir is writable");
        // Three seeds per file gives files of typical size (~150 lines).
        let text: String = (0..3)
            .map(|j| renamed(&seeds[(i * 3 + j) % seeds.len()], i * 3 + j))
            .collect::<Vec<_>>()
            .join("\n");
        bytes += text.len();
        lines += text.lines().count();
        let path = sub.join(format!("kernels_{i}.py"));
        std::fs::write(&path, text).expect("temp file is writable");
        paths.push(path);
    }
    (paths, bytes, lines)
}

/// Parses, discovers and checks one file; returns (kernels, diagnostics).
fn process(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path).expect("generated file is readable");
    let parsed = parse_module(FileId(0), &text);
    let index = discover(&parsed.module);
    let checks: usize = index
        .kernels
        .iter()
        .map(|k| check_kernel_subset(&k.def).len())
        .sum();
    (
        index.kernels.len(),
        parsed.diagnostics.len() + index.diagnostics.len() + checks,
    )
}

fn main() {
    let files: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = std::env::temp_dir().join(format!("tritonc-syntax-bench-{}", std::process::id()));
    let (paths, bytes, lines) = generate(&dir, files);
    let mb = bytes as f64 / 1e6;
    println!(
        "tree: {files} files, {lines} lines, {mb:.1} MB in {}",
        dir.display()
    );

    let t = Instant::now();
    let (mut kernels, mut diags) = (0, 0);
    for p in &paths {
        let (k, d) = process(p);
        kernels += k;
        diags += d;
    }
    let seq = t.elapsed().as_secs_f64();
    println!(
        "sequential:  {seq:.3} s  {:.1} MB/s  {:.0} lines/s  {:.0} kernels/s  ({kernels} kernels, {diags} diagnostics)",
        mb / seq,
        lines as f64 / seq,
        kernels as f64 / seq
    );

    let t = Instant::now();
    let par_kernels: usize = paths.par_iter().map(|p| process(p).0).sum();
    let par = t.elapsed().as_secs_f64();
    println!(
        "rayon ({} threads): {par:.3} s  {:.1} MB/s  {:.0} kernels/s",
        rayon::current_num_threads(),
        mb / par,
        par_kernels as f64 / par
    );

    // The peer: CPython's parser alone (no discovery) over the same files.
    let script = "import ast,sys,time,pathlib\nps=sorted(pathlib.Path(sys.argv[1]).rglob('*.py'))\nt=time.perf_counter()\nfor p in ps: ast.parse(p.read_text())\nprint(time.perf_counter()-t)";
    match std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&dir)
        .output()
    {
        Ok(out) if out.status.success() => {
            let py: f64 = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .unwrap_or(f64::NAN);
            println!(
                "peer: CPython ast.parse {py:.3} s  {:.1} MB/s; tritonc sequential (parse+discover+check) / CPython parse = {:.2}x the time",
                mb / py,
                seq / py
            );
        }
        _ => println!("peer: python3 not available"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
