//! The front end (parse + discovery + generic analysis of every `@triton.jit` function)
//! over directory trees of Python files, in parallel.
//!
//! ```text
//! cargo run --release -p tritonc-sema --example frontend -- report DIR...
//! cargo run --release -p tritonc-sema --example frontend -- bench LINES SEED_DIR...
//! ```
//!
//! `report` prints, per DIR, how many kernels generic analysis accepted, rejected (with
//! the first diagnostic) and panicked on; imports of the file's project (the nearest
//! ancestor directory without `__init__.py`) are resolved across files. `bench` writes a tree of about LINES lines by
//! replicating the seed files (every `.py` under the SEED_DIRs that mentions `triton`)
//! into a temporary directory and times the whole front end over it.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use tritonc_diagnostics::FileId;
use tritonc_sema::generic::{lower_kernel_generic, PartialSpecialization};
use tritonc_sema::{LoadedModule, ModuleLoader, ModuleScope, Project};
use tritonc_syntax::{discover, parse_module_on_this_thread, PARSE_STACK_BYTES};

/// What happened to one kernel.
enum Outcome {
    Accepted,
    Rejected(String),
    Panicked,
}

fn py_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            py_files(&p, out);
        } else if p.extension().and_then(|x| x.to_str()) == Some("py") {
            out.push(p);
        }
    }
}

fn mentions_triton(bytes: &[u8]) -> bool {
    bytes.windows(6).any(|w| w == b"triton")
}

/// The modules under one project root, read and parsed on first use.
struct TreeLoader {
    root: PathBuf,
    cache: Mutex<HashMap<String, Option<Arc<LoadedModule>>>>,
}

impl ModuleLoader for TreeLoader {
    fn load(&self, dotted: &str) -> Option<Arc<LoadedModule>> {
        if let Some(hit) = self.cache.lock().ok()?.get(dotted) {
            return hit.clone();
        }
        let base = dotted.split('.').fold(self.root.clone(), |p, s| p.join(s));
        let loaded = [
            (base.with_extension("py"), false),
            (base.join("__init__.py"), true),
        ]
        .into_iter()
        .find(|(p, _)| p.is_file())
        .and_then(|(p, is_package)| {
            let text = std::fs::read_to_string(p).ok()?;
            // Helpers' files are not shown: one id for all of them.
            let parsed = parse_module_on_this_thread(FileId(1), &text);
            Some(Arc::new(LoadedModule {
                name: dotted.to_string(),
                is_package,
                index: discover(&parsed.module),
            }))
        });
        self.cache
            .lock()
            .ok()?
            .insert(dotted.to_string(), loaded.clone());
        loaded
    }
}

/// One [`Project`] per project root.
#[derive(Default)]
struct Projects(Mutex<HashMap<PathBuf, Arc<Project>>>);

impl Projects {
    /// The scope of `path` in its project, or on its own outside any package.
    fn scope(&self, path: &Path, index: &tritonc_syntax::ModuleIndex) -> ModuleScope {
        let mut root = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        while root.join("__init__.py").is_file() && root.pop() {}
        let Ok(rel) = path.strip_prefix(&root) else {
            return ModuleScope::from_index(index);
        };
        let mut parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let last = parts.pop().unwrap_or_default();
        let stem = last.trim_end_matches(".py");
        let is_package = stem == "__init__";
        if !is_package {
            parts.push(stem.to_string());
        }
        if parts.is_empty() {
            return ModuleScope::from_index(index);
        }
        let project = {
            let Ok(mut map) = self.0.lock() else {
                return ModuleScope::from_index(index);
            };
            map.entry(root.clone())
                .or_insert_with(|| {
                    Project::new(TreeLoader {
                        root,
                        cache: Mutex::new(HashMap::new()),
                    })
                })
                .clone()
        };
        project.root_scope(index, &parts.join("."), is_package)
    }
}

/// Runs the front end over one file: (path, kernel, outcome) per kernel; with `projects`,
/// imports of the file's project are resolved.
fn analyse(path: &Path, text: &str, projects: Option<&Projects>) -> Vec<(String, Outcome)> {
    let parsed = parse_module_on_this_thread(FileId(0), text);
    if parsed.has_errors() {
        let msg = parsed.diagnostics.first().map(|d| d.message.clone());
        return vec![(
            path.display().to_string(),
            Outcome::Rejected(format!("E0001 {}", msg.unwrap_or_default())),
        )];
    }
    let index = discover(&parsed.module);
    let scope = match projects {
        Some(p) => p.scope(path, &index),
        None => ModuleScope::from_index(&index),
    };
    let mut out = Vec::new();
    for k in &index.kernels {
        let r = catch_unwind(AssertUnwindSafe(|| {
            lower_kernel_generic(&scope, k, &PartialSpecialization::default())
        }));
        let o = match r {
            Ok(Ok(_)) => Outcome::Accepted,
            Ok(Err(ds)) => {
                let d = &ds[0];
                // Line 0: the error is in a helper of another file.
                let line = d
                    .primary_span()
                    .filter(|s| s.file == FileId(0))
                    .map(|s| text[..(s.start as usize).min(text.len())].lines().count())
                    .unwrap_or(0);
                Outcome::Rejected(format!("{}:{line} {} {}", k.name, d.code.0, d.message))
            }
            Err(_) => Outcome::Panicked,
        };
        out.push((k.name.clone(), o));
    }
    out
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(PARSE_STACK_BYTES)
        .build()
        .expect("a thread pool can be built")
}

fn report(dirs: &[String]) {
    std::panic::set_hook(Box::new(|_| {}));
    let pool = pool();
    let projects = Projects::default();
    println!("| tree | files | kernels | accepted | rejected | panicked |");
    println!("|---|---|---|---|---|---|");
    let mut details = Vec::new();
    for dir in dirs {
        let mut files = Vec::new();
        py_files(Path::new(dir), &mut files);
        files.sort();
        let results: Vec<(PathBuf, Vec<(String, Outcome)>)> = pool.install(|| {
            files
                .par_iter()
                .filter_map(|p| {
                    let bytes = std::fs::read(p).ok()?;
                    if !mentions_triton(&bytes) {
                        return None;
                    }
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    Some((p.clone(), analyse(p, &text, Some(&projects))))
                })
                .collect()
        });
        let (mut acc, mut rej, mut pan, mut kernels) = (0, 0, 0, 0);
        for (p, ks) in &results {
            for (k, o) in ks {
                kernels += 1;
                let rel = p.strip_prefix(dir).unwrap_or(p).display().to_string();
                match o {
                    Outcome::Accepted => acc += 1,
                    Outcome::Rejected(m) => {
                        rej += 1;
                        details.push(format!("rejected {rel} {m}"));
                    }
                    Outcome::Panicked => {
                        pan += 1;
                        details.push(format!("PANIC {rel} {k}"));
                    }
                }
            }
        }
        let name = Path::new(dir)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "| {name} | {} | {kernels} | {acc} | {rej} | {pan} |",
            results.len()
        );
    }
    println!();
    for d in details {
        println!("{d}");
    }
}

fn bench(lines: usize, seed_dirs: &[String]) {
    let mut seeds = Vec::new();
    for d in seed_dirs {
        let mut files = Vec::new();
        py_files(Path::new(d), &mut files);
        files.sort();
        for f in files {
            if let Ok(t) = std::fs::read_to_string(&f) {
                if mentions_triton(t.as_bytes()) {
                    seeds.push(t);
                }
            }
        }
    }
    assert!(!seeds.is_empty(), "no seed files");
    let dir = std::env::temp_dir().join(format!("tritonc-frontend-bench-{}", std::process::id()));
    let (mut total_lines, mut total_bytes, mut n) = (0, 0, 0);
    while total_lines < lines {
        let text = &seeds[n % seeds.len()];
        let sub = dir.join(format!("pkg{}", n / 100));
        std::fs::create_dir_all(&sub).expect("temp dir is writable");
        std::fs::write(sub.join(format!("m{n}.py")), text).expect("temp file is writable");
        total_lines += text.lines().count();
        total_bytes += text.len();
        n += 1;
    }
    std::panic::set_hook(Box::new(|_| {}));
    let pool = pool();
    for run in 0..3 {
        let t0 = Instant::now();
        let mut files = Vec::new();
        py_files(&dir, &mut files);
        let counts: (usize, usize) = pool.install(|| {
            files
                .par_iter()
                .map(|p| {
                    let Ok(bytes) = std::fs::read(p) else {
                        return (0, 0);
                    };
                    if !mentions_triton(&bytes) {
                        return (0, 0);
                    }
                    let text = String::from_utf8_lossy(&bytes);
                    let ks = analyse(p, &text, None);
                    let ok = ks
                        .iter()
                        .filter(|(_, o)| matches!(o, Outcome::Accepted))
                        .count();
                    (ks.len(), ok)
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        });
        let dt = t0.elapsed().as_secs_f64();
        println!(
            "run {run}: {n} files, {total_lines} lines, {:.1} MB, {} kernels ({} accepted) in {:.3} s ({:.1} MB/s, {} threads)",
            total_bytes as f64 / 1e6,
            counts.0,
            counts.1,
            dt,
            total_bytes as f64 / 1e6 / dt,
            pool.current_num_threads()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("report") => report(&args[1..]),
        Some("bench") => {
            let lines = args.get(1).and_then(|l| l.parse().ok()).unwrap_or(300_000);
            bench(lines, &args[2..]);
        }
        _ => eprintln!("usage: frontend report DIR... | frontend bench LINES SEED_DIR..."),
    }
}
