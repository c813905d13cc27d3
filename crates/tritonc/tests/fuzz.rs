//! A seeded, time-bounded fuzz suite over the binary: mutated kernels (lint, compile to
//! tile IR), signatures, launch specs, bundles and language-server frames. Each run must
//! end within its deadline with a status of the README's table for that kind of input,
//! never 70 (internal error), 101 (panic), 134 (abort) or a signal.
//!
//! `TRITONC_FUZZ_SEED` picks the seed (default 1) and `TRITONC_FUZZ_SCALE` multiplies the
//! number of cases (default 1, a few seconds); docs/faults.md records a longer campaign.
//! A failure prints the seed and the input, so it can be replayed.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn seed() -> u64 {
    std::env::var("TRITONC_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn scale() -> usize {
    std::env::var("TRITONC_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-fuzz-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

/// Runs the binary with `args` (and `stdin`), killing it at `deadline`: (status, stdout,
/// stderr). A hang or a death by signal fails the test with `what` to replay it.
fn run(args: &[&str], stdin: Option<&[u8]>, deadline: Duration, what: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("TRITONC_CACHE_DIR", scratch_cache())
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tritonc binary runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("piped");
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waitable") {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("seed {}: tritonc {args:?} hung ({what})", seed());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&o.join().expect("reader")).into_owned();
    let stderr = String::from_utf8_lossy(&e.join().expect("reader")).into_owned();
    let Some(code) = status.code() else {
        panic!("seed {}: tritonc {args:?} died of a signal ({what})\n{stderr}", seed());
    };
    assert!(
        !stderr.contains("internal error") && code != 70 && code != 101,
        "seed {}: tritonc {args:?} exit {code} ({what})\n{stderr}",
        seed()
    );
    (code, stdout, stderr)
}

fn scratch_cache() -> PathBuf {
    std::env::temp_dir().join(format!("tritonc-fuzz-cache-{}", std::process::id()))
}

/// Pieces of Python and Triton that make mutants interesting.
const TOKENS: &[&str] = &[
    "(", ")", "[", "]", ":", ",", "tl.", "0", "-1", "**", "\n    ", "\n", "@triton.jit\n",
    "None", "1e309", "2**63", "2**20", "tl.constexpr", "tl.arange(0, 3)", "tl.load(", "mask=",
    "if ", "for i in range(", "while True:", "return", "lambda: ", "\"", "'", "\\", "#", "\0",
    "é", "tl.dot(", ".T", "tl.static_assert(", "x", "def ", "*", "//", "%", "<<", ">>",
    "tl.program_id(5)", "tl.reshape(", "tl.zeros((0,), tl.float32)", "float('nan')",
];

/// `text` with one to four random edits: deleting a range, repeating a line, swapping two
/// lines, inserting a token.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(4) {
        let len = s.len();
        let mut at = rng.below(len + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(4) {
            0 => {
                let mut end = (at + 1 + rng.below(40)).min(len);
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, "");
            }
            1 => {
                let lines: Vec<&str> = s.lines().collect();
                let i = rng.below(lines.len());
                let mut out: Vec<&str> = lines.clone();
                out.insert(i, lines.get(i).copied().unwrap_or(""));
                s = out.join("\n");
            }
            2 => {
                let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
                if lines.len() > 1 {
                    let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                    lines.swap(i, j);
                }
                s = lines.join("\n");
            }
            _ => {
                let token: &&str = rng.pick(TOKENS);
                s.insert_str(at, token);
            }
        }
    }
    s
}

const KERNELS: &[&str] = &[
    "examples/vector_add.py",
    "examples/softmax.py",
    "examples/layer_norm.py",
    "examples/matmul.py",
    "examples/cumsum.py",
    "examples/dropout.py",
];

#[test]
fn mutated_kernels_lint_to_findings_never_to_a_crash() {
    let mut rng = Rng::new(seed());
    let dir = scratch("lint");
    let n = 40 * scale();
    for i in 0..n {
        let source = std::fs::read_to_string(root().join(rng.pick(KERNELS))).expect("example");
        std::fs::write(dir.join(format!("m{i}.py")), mutate(&source, &mut rng)).expect("writable");
    }
    let d = dir.to_str().expect("utf-8");
    let (code, stdout, _) = run(
        &["lint", d, "--output-format", "json"],
        None,
        Duration::from_secs(120),
        &format!("the mutants in {d}"),
    );
    assert!(matches!(code, 0..=2), "lint exit {code}");
    let findings: serde_json::Value = serde_json::from_str(&stdout).expect("lint's JSON parses");
    assert!(findings.is_array());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutated_kernels_and_signatures_compile_to_tile_ir_or_an_input_error() {
    let mut rng = Rng::new(seed() ^ 0xC0FFEE);
    let dir = scratch("compile");
    let source = std::fs::read_to_string(root().join("examples/vector_add.py")).expect("example");
    let parts = [
        "*fp32", "*fp16:16", "*bf16", "*i8", "*fp8e4nv", "i32", "i64:16", "i32:1", "u8", "fp32",
        "1024", "0", "-4", "3", "2**20", "1048576", "2097152", "*", ":", "", "*fp32:7", "None",
        "1e3", "i1", "*i1",
    ];
    for i in 0..12 * scale() {
        let file = dir.join(format!("k{i}.py"));
        let text = if i % 2 == 0 {
            mutate(&source, &mut rng)
        } else {
            source.clone()
        };
        std::fs::write(&file, &text).expect("writable");
        let arity = 3 + rng.below(4);
        let signature: Vec<&str> = (0..arity).map(|_| *rng.pick(&parts)).collect();
        let signature = signature.join(", ");
        let f = file.to_str().expect("utf-8");
        let (code, _, _) = run(
            &["compile", f, "--signature", &signature, "--emit", "ttir"],
            None,
            Duration::from_secs(60),
            &format!("{f} with `{signature}`"),
        );
        assert!(matches!(code, 0 | 2 | 4), "compile exit {code}: {f} `{signature}`");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutated_launch_specs_run_or_are_refused() {
    let mut rng = Rng::new(seed() ^ 0x5EED);
    let text = std::fs::read_to_string(root().join("examples/vector_add.toml")).expect("spec");
    let values = [
        "0", "-1", "3", "1000000000000", "2**40", "17.5", "\"x\"", "[]", "[0]", "[1, 0]",
        "[1000000, 1000000]", "\"float64\"", "\"int1\"", "true", "\"rand\"", "\"zeros\"", "{}",
    ];
    for i in 0..8 * scale() {
        // Replace one value (the text after `= ` on a random line) with a hostile one.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for _ in 0..1 + rng.below(2) {
            let k = rng.below(lines.len());
            if let Some(eq) = lines[k].find("= ") {
                let value = rng.pick(&values);
                lines[k] = format!("{}= {value}", &lines[k][..eq]);
            }
        }
        let mutated = lines.join("\n");
        let path = root().join(format!("examples/.fuzz-{}-{i}.toml", std::process::id()));
        std::fs::write(&path, &mutated).expect("examples/ is writable");
        let p = path.to_str().expect("utf-8");
        let result = std::panic::catch_unwind(|| {
            run(&["run", p, "--interpret"], None, Duration::from_secs(120), &mutated)
        });
        let _ = std::fs::remove_file(&path);
        let (code, _, _) = result.unwrap_or_else(|e| std::panic::resume_unwind(e));
        assert!(matches!(code, 0..=2), "run exit {code}:\n{mutated}");
    }
}

#[test]
fn damaged_bundles_are_refused() {
    let mut rng = Rng::new(seed() ^ 0xB0B);
    let dir = scratch("bundles");
    let spec = root().join("examples/vector_add.toml");
    let s = spec.to_str().expect("utf-8");
    let good = dir.join("good");
    let (code, _, stderr) = run(
        &["compile", "--spec", s, "-o", good.to_str().expect("utf-8"), "--target", "sm_90"],
        None,
        Duration::from_secs(300),
        "the bundle to damage",
    );
    assert_eq!(code, 0, "{stderr}");
    let bundle = std::fs::read_dir(&good)
        .expect("bundles")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("bundle.json").is_file())
        .expect("a bundle");
    let meta = std::fs::read(bundle.join("bundle.json")).expect("readable");
    for i in 0..6 * scale() {
        let damaged = dir.join(format!("d{i}"));
        let target = damaged.join(bundle.file_name().expect("named"));
        std::fs::create_dir_all(&target).expect("writable");
        for entry in std::fs::read_dir(&bundle).expect("listable").flatten() {
            std::fs::copy(entry.path(), target.join(entry.file_name())).expect("copyable");
        }
        let mut bytes = meta.clone();
        match rng.below(3) {
            0 => bytes.truncate(rng.below(bytes.len())),
            1 => {
                for _ in 0..1 + rng.below(8) {
                    let k = rng.below(bytes.len());
                    bytes[k] = rng.next() as u8;
                }
            }
            _ => {
                let _ = std::fs::remove_file(target.join("kernel.ptx"));
            }
        }
        std::fs::write(target.join("bundle.json"), &bytes).expect("writable");
        let d = damaged.to_str().expect("utf-8");
        let (code, _, _) = run(
            &["run", s, "--bundle", d],
            None,
            Duration::from_secs(60),
            &format!("bundle {d}"),
        );
        // 2: the bundle is refused; 3: no GPU here (the bundle may have parsed).
        assert!(matches!(code, 0..=3), "run --bundle exit {code}: {d}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_language_server_frames_are_answered_and_the_session_ends() {
    let mut rng = Rng::new(seed() ^ 0x15);
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let bodies = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///k.py","languageId":"python","version":1,"text":"@triton.jit\ndef k(x):\n  tl.load(x + tl.arange(0, 7))\n"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///k.py"},"position":{"line":99,"character":-1}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        r#"{"id":"x"}"#,
        r#"[1,2,3]"#,
        "{{{{",
        "",
    ];
    for _ in 0..4 * scale() {
        let mut input = String::new();
        for _ in 0..2 + rng.below(8) {
            let body = *rng.pick(&bodies);
            let mut f = frame(body);
            if rng.below(4) == 0 {
                f = mutate(&f, &mut rng);
            }
            input.push_str(&f);
        }
        input.push_str(&frame(r#"{"jsonrpc":"2.0","id":99,"method":"shutdown"}"#));
        input.push_str(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
        let (code, _, stderr) = run(
            &["server"],
            Some(input.as_bytes()),
            Duration::from_secs(60),
            &format!("frames {input:?}"),
        );
        assert!(matches!(code, 0..=2), "server exit {code}: {input:?}\n{stderr}");
    }
}
