//! Hostile input and faults, end to end: each test is a row of docs/faults.md (the input
//! or fault, the exit status and message expected). Every run has a deadline: a hang is a
//! failure, not a stuck test.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

#[path = "../build/target_dir.rs"]
mod target_dir;

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `crates/tritonc/tests/fixtures`.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A fresh directory of this test process's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

const ADD: &str = "add.py";
const ADD_SIGNATURE: &str = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024";

/// What one run produced.
#[derive(Debug)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// One invocation of the binary, with a deadline.
struct Run {
    command: Command,
    deadline: Duration,
}

impl Run {
    fn new(args: &[&str]) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tritonc"));
        command
            .args(args)
            .current_dir(fixtures())
            .env("NO_COLOR", "1")
            .env_remove("CLICOLOR_FORCE")
            .env("TRITONC_CACHE_DIR", scratch_cache())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Run {
            command,
            deadline: Duration::from_secs(120),
        }
    }

    fn env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Run {
        self.command.env(name, value);
        self
    }

    fn env_remove(mut self, name: &str) -> Run {
        self.command.env_remove(name);
        self
    }

    fn dir(mut self, dir: &Path) -> Run {
        self.command.current_dir(dir);
        self
    }

    fn stdout(mut self, stdout: Stdio) -> Run {
        self.command.stdout(stdout);
        self
    }

    fn stderr(mut self, stderr: Stdio) -> Run {
        self.command.stderr(stderr);
        self
    }

    fn stdin(mut self, stdin: Stdio) -> Run {
        self.command.stdin(stdin);
        self
    }

    fn deadline(mut self, secs: u64) -> Run {
        self.deadline = Duration::from_secs(secs);
        self
    }

    fn spawn(mut self) -> (Child, Duration) {
        let child = self.command.spawn().expect("the tritonc binary runs");
        (child, self.deadline)
    }

    /// Runs to the end (or kills the process at the deadline and fails the test).
    fn go(self) -> Outcome {
        let (child, deadline) = self.spawn();
        finish(child, deadline)
    }
}

/// Waits for `child` up to `deadline`, reading its piped output.
fn finish(mut child: Child, deadline: Duration) -> Outcome {
    let start = Instant::now();
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let readers = [
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(o) = out.as_mut() {
                let _ = o.read_to_string(&mut s);
            }
            s
        }),
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(e) = err.as_mut() {
                let _ = e.read_to_string(&mut s);
            }
            s
        }),
    ];
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tritonc hung: killed after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = start.elapsed();
    let [out, err] = readers.map(|r| r.join().expect("reader"));
    Outcome {
        code: status.code(),
        stdout: out,
        stderr: err,
        took,
    }
}

/// The compile cache of this test binary (never the user's).
fn scratch_cache() -> PathBuf {
    std::env::temp_dir().join(format!("tritonc-faults-cache-{}", std::process::id()))
}

/// Fake ptxas executables, all written before any is run (a script open for writing
/// while another thread forks cannot be executed: ETXTBSY).
struct Fakes {
    dir: PathBuf,
    /// Answers nothing, ever (`--version` included); records its pid and directory.
    hangs: PathBuf,
    /// Answers `--version`, then hangs assembling; records its pid and directory.
    hangs_assembling: PathBuf,
    /// Fails as ptxas does when an allocation fails.
    no_memory: PathBuf,
    /// Dies of SIGSEGV when assembling.
    crashes: PathBuf,
}

fn fakes() -> &'static Fakes {
    static FAKES: OnceLock<Fakes> = OnceLock::new();
    FAKES.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("fakes");
        let script = |name: &str, body: &str| {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("writable");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            path
        };
        let version = "[ \"$1\" = --version ] && { echo 'Cuda compilation tools, release 98.7'; exit 0; }";
        Fakes {
            hangs: script(
                "hangs",
                &format!("echo \"$$ $(pwd)\" >> {}/hangs.log\nexec sleep 1000", dir.display()),
            ),
            hangs_assembling: script(
                "hangs_assembling",
                &format!(
                    "{version}\necho \"$$ $(pwd)\" >> \"$FAKE_LOG\"\nexec sleep 1000"
                ),
            ),
            no_memory: script(
                "no_memory",
                &format!("{version}\necho 'ptxas fatal   : Memory allocation failure' >&2\nexit 255"),
            ),
            crashes: script("crashes", &format!("{version}\nkill -SEGV $$")),
            dir,
        }
    })
}

fn compile_add(out: &Path) -> Run {
    Run::new(&[
        "compile",
        ADD,
        "--signature",
        ADD_SIGNATURE,
        "--target",
        "sm_90",
        "-o",
        out.to_str().expect("utf-8"),
    ])
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
        .unwrap_or(false)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

/// Opens `/dev/full` for writing (every write fails with ENOSPC).
fn dev_full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full exists"),
    )
}

// ---- ptxas: bounds, interruption, not found ----------------------------------------------

#[test]
fn a_ptxas_that_hangs_even_on_version_is_stopped_at_the_time_bound() {
    let out = scratch("hang-out");
    let o = compile_add(&out)
        .env("TRITONC_PTXAS", &fakes().hangs)
        .env("TRITONC_PTXAS_TIMEOUT", "2")
        .deadline(60)
        .go();
    assert_eq!(o.code, Some(5), "{o:?}");
    assert!(o.stderr.contains("E0515"), "{}", o.stderr);
    assert!(o.stderr.contains("time bound of 2 s"), "{}", o.stderr);
    // Told about before the bound: a quarter of it (30 s at most).
    assert!(
        o.stderr.contains("note: `ptxas -arch=sm_90a` is still running after"),
        "{}",
        o.stderr
    );
    // `--version` (the cache's toolchain identity) and the assembly, 2 s each at most.
    assert!(o.took < Duration::from_secs(30), "{:?}", o.took);
    let log = std::fs::read_to_string(fakes().dir.join("hangs.log")).unwrap_or_default();
    for line in log.lines() {
        let (pid, dir) = line.split_once(' ').expect("pid and directory");
        assert!(!alive(pid.parse().expect("pid")), "ptxas {pid} survived");
        assert!(!Path::new(dir).exists(), "{dir} was left behind");
    }
}

#[test]
fn a_ptxas_out_of_memory_under_the_bound_is_exit_5() {
    let out = scratch("oom-out");
    let o = compile_add(&out)
        .env("TRITONC_PTXAS", &fakes().no_memory)
        .env("TRITONC_PTXAS_MEMORY", "1G")
        .arg_no_cache()
        .go();
    assert_eq!(o.code, Some(5), "{o:?}");
    assert!(o.stderr.contains("memory bound of 1 GiB"), "{}", o.stderr);
    assert!(o.stderr.contains("TRITONC_PTXAS_MEMORY"), "{}", o.stderr);
}

#[test]
fn a_ptxas_that_crashes_is_an_internal_error_not_a_hang() {
    let out = scratch("crash-out");
    let o = compile_add(&out)
        .env("TRITONC_PTXAS", &fakes().crashes)
        .env("TRITONC_PTXAS_MEMORY", "none")
        .arg_no_cache()
        .go();
    assert_eq!(o.code, Some(70), "{o:?}");
    assert!(o.stderr.contains("crashed (killed by signal 11)"), "{}", o.stderr);
}

#[test]
fn malformed_ptxas_bounds_are_input_errors() {
    for (var, value) in [
        ("TRITONC_PTXAS_TIMEOUT", "soon"),
        ("TRITONC_PTXAS_TIMEOUT", "0"),
        ("TRITONC_PTXAS_MEMORY", "12 apples"),
        ("TRITONC_PTXAS_MEMORY", "1M"),
    ] {
        let out = scratch("bounds-out");
        let o = compile_add(&out).env(var, value).arg_no_cache().go();
        assert_eq!(o.code, Some(2), "{var}={value}: {o:?}");
        assert!(o.stderr.contains("E0515"), "{}", o.stderr);
        assert!(o.stderr.contains(var), "{}", o.stderr);
    }
}

#[test]
fn sigterm_and_sigint_kill_ptxas_and_remove_its_directory() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let out = scratch(&format!("signal-{signal}"));
        let log = out.join("fake.log");
        let (child, deadline) = compile_add(&out.join("bundles"))
            .env("TRITONC_PTXAS", &fakes().hangs_assembling)
            .env("FAKE_LOG", &log)
            .arg_no_cache()
            .spawn();
        let start = Instant::now();
        let seen = loop {
            if let Ok(s) = std::fs::read_to_string(&log) {
                if s.ends_with('\n') {
                    break s;
                }
            }
            assert!(start.elapsed() < Duration::from_secs(60), "ptxas never started");
            std::thread::sleep(Duration::from_millis(20));
        };
        let (pid, dir) = seen.trim().split_once(' ').expect("pid and directory");
        let pid: u32 = pid.parse().expect("pid");
        assert!(alive(pid));
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let o = finish(child, deadline);
        assert_eq!(o.code, Some(code), "SIG{signal}: {o:?}");
        // SIGKILL is delivered at once, but the kernel may take a moment to reap.
        let gone = Instant::now();
        while alive(pid) && gone.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(pid), "SIG{signal}: ptxas {pid} survived tritonc");
        assert!(!Path::new(dir).exists(), "SIG{signal}: {dir} was left behind");
    }
}

#[test]
fn no_ptxas_gives_a_ptx_only_bundle_with_a_warning() {
    let out = scratch("no-ptxas");
    let o = compile_add(&out).env("TRITONC_PTXAS", "").arg_no_cache().go();
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(o.stderr.contains("warning"), "{}", o.stderr);
    assert!(o.stderr.contains("ptxas not found"), "{}", o.stderr);
    assert!(o.stderr.contains("PTX only"), "{}", o.stderr);
    // And for `--spec`, once.
    let o = Run::new(&[
        "compile",
        "--spec",
        "examples/vector_add.toml",
        "-o",
        out.join("spec").to_str().expect("utf-8"),
        "--no-cache",
    ])
    .dir(&root())
    .env("TRITONC_PTXAS", "")
    .go();
    assert_eq!(o.code, Some(0), "{o:?}");
    assert_eq!(o.stderr.matches("ptxas not found").count(), 1, "{}", o.stderr);
}

#[test]
fn ptxas_is_found_from_any_current_directory() {
    // Started where no .tools/ is (the temp dir), with ptxas found beside the sources
    // tritonc was built from, or on PATH, or in $CUDA_HOME: the bundle has a cubin.
    let cwd = scratch("elsewhere");
    let kernel = fixtures().join(ADD);
    let o = Run::new(&[
        "compile",
        kernel.to_str().expect("utf-8"),
        "--signature",
        ADD_SIGNATURE,
        "-o",
        "out",
        "--no-cache",
    ])
    .dir(&cwd)
    .env_remove("TRITONC_PTXAS")
    .go();
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(!o.stderr.contains("ptxas not found"), "{}", o.stderr);
    let cubins = std::fs::read_dir(cwd.join("out"))
        .expect("bundles written")
        .flatten()
        .filter(|e| e.path().join("kernel.cubin").is_file())
        .count();
    assert_eq!(cubins, 1, "{}", o.stderr);
}

#[test]
fn a_ptxas_path_naming_nothing_is_an_input_error() {
    let out = scratch("ptxas-missing");
    let o = compile_add(&out)
        .env("TRITONC_PTXAS", out.join("no/such/ptxas"))
        .arg_no_cache()
        .go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0501"), "{}", o.stderr);
}

impl Run {
    fn arg_no_cache(mut self) -> Run {
        self.command.arg("--no-cache");
        self
    }
}

// ---- standard streams -----------------------------------------------------------------

#[test]
fn stdout_to_a_full_disk_is_exit_2_with_a_message() {
    let lint_dir = fixtures().join("lint");
    let cases: [&[&str]; 4] = [
        &["compile", ADD, "--signature", ADD_SIGNATURE, "--emit", "ttir"],
        &["rule", "TRI101"],
        &["rule", "--all"],
        &["lint", lint_dir.to_str().expect("utf-8")],
    ];
    for args in cases {
        let o = Run::new(args).stdout(dev_full()).go();
        assert_eq!(o.code, Some(2), "{args:?}: {o:?}");
        assert!(
            o.stderr.contains("cannot write to standard output: No space left on device"),
            "{args:?}: {}",
            o.stderr
        );
        assert!(o.stderr.contains("E0514"), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn stderr_to_a_full_disk_keeps_the_exit_status_and_never_panics() {
    // The error cannot be told; the status still says what happened (2), not 70 or 101.
    let o = Run::new(&["compile", "no_such_file.py"]).stderr(dev_full()).go();
    assert_eq!(o.code, Some(2), "{o:?}");
    let o = Run::new(&["lint", "no_such_dir"]).stderr(dev_full()).go();
    assert_eq!(o.code, Some(2), "{o:?}");
}

#[test]
fn a_closed_pipe_on_stdout_ends_quietly() {
    for args in [&["rule", "--all"][..], &["lint", "lint"][..]] {
        let (mut child, deadline) = Run::new(args).spawn();
        // Close the reading end before tritonc writes.
        drop(child.stdout.take());
        let o = finish(child, deadline);
        assert!(
            matches!(o.code, Some(0) | Some(1)),
            "{args:?}: a closed pipe is not an error: {o:?}"
        );
        assert!(!o.stderr.contains("cannot write"), "{args:?}: {}", o.stderr);
        assert!(!o.stderr.contains("internal error"), "{args:?}: {}", o.stderr);
    }
}

// ---- special files ------------------------------------------------------------------------

#[test]
fn a_fifo_named_to_lint_compile_run_or_verify_is_refused_at_once() {
    let dir = scratch("fifo");
    let fifo = dir.join("kernel.py");
    mkfifo(&fifo);
    let spec = dir.join("spec.toml");
    mkfifo(&spec);
    let f = fifo.to_str().expect("utf-8");
    let s = spec.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 5] = [
        (&["lint", f], "E0502"),
        (&["compile", f, "--signature", ADD_SIGNATURE, "--emit", "ttir"], "E0502"),
        (&["lint", "lint", "--config", f], "FIFO"),
        (&["run", s, "--interpret"], "FIFO"),
        (&["verify", s, "--interpret"], "FIFO"),
    ];
    for (args, expected) in cases {
        let o = Run::new(args).deadline(20).go();
        assert_eq!(o.code, Some(2), "{args:?}: {o:?}");
        // lint reports on stdout (its product), the other commands on stderr.
        let said = format!("{}{}", o.stdout, o.stderr);
        assert!(said.contains(expected), "{args:?}: {said}");
        assert!(said.contains("not a regular file"), "{args:?}: {said}");
    }
}

#[test]
fn a_device_named_to_lint_is_refused_not_read_forever() {
    let o = Run::new(&["lint", "/dev/zero"]).deadline(20).go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stdout.contains("E0502"), "{}", o.stdout);
    assert!(o.stdout.contains("a character device, not a regular file"), "{}", o.stdout);
}

// ---- the slim runner's target directory ---------------------------------------------------

#[test]
fn the_slim_runner_and_the_full_binary_never_share_a_target_directory() {
    let ws = Path::new("/src/tritonc");
    let out = |p: &str| ws.join(p);
    // The README's slim build, into the default target/: refused.
    let slim_default = target_dir::refusal(&out("target/release/build/tritonc-1/out"), ws, false);
    assert!(slim_default.is_some_and(|m| m.contains("--target-dir target/slim")));
    assert!(target_dir::refusal(&out("target/debug/build/tritonc-1/out"), ws, false).is_some());
    // Into target/slim: fine; the full build there: refused.
    assert_eq!(
        target_dir::refusal(&out("target/slim/release/build/tritonc-1/out"), ws, false),
        None
    );
    assert!(target_dir::refusal(&out("target/slim/release/build/tritonc-1/out"), ws, true).is_some());
    // The full build into target/, and either anywhere else: fine.
    assert_eq!(target_dir::refusal(&out("target/release/build/tritonc-1/out"), ws, true), None);
    assert_eq!(
        target_dir::refusal(Path::new("/tmp/t/release/build/tritonc-1/out"), ws, false),
        None
    );
}

// ---- input errors, one row each -----------------------------------------------------------

/// Runs `args` in the fixtures and checks the exit status and a piece of stderr (or
/// stdout, for lint's findings).
fn expect(args: &[&str], code: i32, needle: &str) -> Outcome {
    let o = Run::new(args).go();
    assert_eq!(o.code, Some(code), "{args:?}: {o:?}");
    assert!(
        o.stderr.contains(needle) || o.stdout.contains(needle),
        "{args:?}: `{needle}` in\n{}\n{}",
        o.stdout,
        o.stderr
    );
    assert!(!o.stderr.contains("internal error"), "{args:?}: {}", o.stderr);
    o
}

#[test]
fn lint_a_missing_path() {
    expect(&["lint", "no_such_dir"], 2, "E0501");
}

#[test]
fn lint_a_directory_without_python_is_a_warning() {
    // As ruff: a warning, exit 0.
    let dir = scratch("no-python");
    std::fs::write(dir.join("notes.txt"), "x").expect("writable");
    let o = expect(&["lint", dir.to_str().expect("utf-8")], 0, "E0513");
    assert!(o.stdout.contains("warning"), "{}", o.stdout);
}

#[test]
fn lint_a_file_that_is_not_utf8() {
    expect(&["lint", "latin1.py"], 2, "E0504");
}

#[test]
fn lint_a_syntax_error_is_a_finding() {
    expect(&["lint", "syntax_error.py"], 1, "E0001");
}

#[test]
fn lint_an_unknown_rule_selector() {
    expect(&["lint", ADD, "--select", "TRI999"], 2, "TRI999");
}

#[test]
fn lint_deeply_nested_source_is_a_diagnostic_not_a_stack_overflow() {
    let dir = scratch("deep");
    let depth = 100_000;
    let text = format!(
        "import triton\n\n@triton.jit\ndef k(x):\n    y = {}x + {}{}\n",
        "-".repeat(depth),
        "[".repeat(depth),
        "]".repeat(depth)
    );
    std::fs::write(dir.join("deep.py"), text).expect("writable");
    let o = Run::new(&["lint", dir.join("deep.py").to_str().expect("utf-8")]).go();
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stdout.contains("nested too deeply"), "{}", &o.stdout[..o.stdout.len().min(300)]);
}

#[test]
fn lint_nul_bytes_and_an_empty_file() {
    let dir = scratch("nul");
    std::fs::write(dir.join("nul.py"), "import triton\n\0\0\0\n").expect("writable");
    std::fs::write(dir.join("empty.py"), "").expect("writable");
    let o = Run::new(&["lint", dir.to_str().expect("utf-8")]).go();
    assert!(matches!(o.code, Some(0) | Some(1)), "{o:?}");
    assert!(!o.stderr.contains("internal error"), "{}", o.stderr);
}

#[test]
fn compile_a_directory() {
    expect(&["compile", "lint", "--emit", "ttir"], 2, "E0502");
}

#[test]
fn compile_a_missing_file() {
    expect(&["compile", "nope.py", "--emit", "ttir"], 2, "E0501");
}

#[test]
fn compile_an_empty_file() {
    expect(&["compile", "empty.py", "--emit", "ttir"], 2, "E0505");
}

#[test]
fn compile_a_file_without_kernels() {
    expect(&["compile", "no_kernels.py", "--emit", "ttir"], 2, "E0506");
}

#[test]
fn compile_an_unknown_kernel() {
    expect(
        &["compile", ADD, "--kernel", "nope", "--signature", ADD_SIGNATURE, "--emit", "ttir"],
        2,
        "E0507",
    );
}

#[test]
fn compile_an_ambiguous_kernel() {
    expect(&["compile", "two_kernels.py", "--emit", "ttir"], 2, "E0508");
}

#[test]
fn compile_bad_num_warps() {
    expect(
        &["compile", ADD, "--signature", ADD_SIGNATURE, "--num-warps", "3", "--emit", "ttir"],
        2,
        "E0509",
    );
}

#[test]
fn compile_an_unknown_target() {
    expect(
        &["compile", ADD, "--signature", ADD_SIGNATURE, "--target", "sm_12", "--emit", "ttir"],
        2,
        "E0510",
    );
}

#[test]
fn compile_an_unknown_stage() {
    expect(
        &["compile", ADD, "--signature", ADD_SIGNATURE, "--emit", "asm"],
        2,
        "E0511",
    );
}

#[test]
fn compile_a_malformed_signature() {
    let o = expect(
        &["compile", ADD, "--signature", "*fp32, *bogus, ", "--emit", "ttir"],
        2,
        "error",
    );
    assert!(o.stderr.contains("E04"), "{}", o.stderr);
}

#[test]
fn compile_the_largest_block_triton_allows_is_accepted() {
    // BLOCK = 2**20 elements: Triton's maximum, so the front end takes it.
    let o = Run::new(&[
        "compile",
        ADD,
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1048576",
        "--emit",
        "ttir",
    ])
    .go();
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(o.stdout.contains("1048576"), "{}", o.stdout);
}

/// The largest block compiled through the back end: refused before the lowering starts
/// (E0517, exit 5, in seconds), not minutes of LLVM in process that no bound could stop.
/// Without the budget this run would not end within its deadline. Nothing is cached and
/// no bundle is written.
#[test]
fn compiling_the_largest_block_is_stopped_by_the_register_budget_before_llvm() {
    let out = scratch("largest-block");
    let cache = scratch("largest-block-cache");
    let o = Run::new(&[
        "compile",
        ADD,
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1048576",
        "-o",
        out.to_str().expect("utf-8"),
    ])
    .env("TRITONC_CACHE_DIR", &cache)
    .env_remove("TRITONC_REGISTER_BUDGET")
    .deadline(60)
    .go();
    assert_eq!(o.code, Some(5), "{o:?}");
    assert!(
        o.stderr.contains("E0517") && o.stderr.contains("163840 registers, past the budget of 65536"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("TRITONC_REGISTER_BUDGET=none"), "{}", o.stderr);
    let written = |d: &Path| std::fs::read_dir(d).map_or(0, |r| r.count());
    assert_eq!(written(&out), 0, "no bundle");
    // The cache directory holds no entry for the refused kernel (at most its own
    // bookkeeping, never a kernel file).
    let entries = walk_files(&cache);
    assert!(
        !entries.iter().any(|p| p.extension().is_some_and(|e| e == "ptx" || e == "cubin")),
        "{entries:?}"
    );
    // Its tile IR and GPU IR still print (`--emit ttgir` builds no per-thread code).
    let o = Run::new(&[
        "compile",
        ADD,
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 1048576",
        "--emit",
        "ttgir",
    ])
    .go();
    assert_eq!(o.code, Some(0), "{o:?}");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&cache);
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn a_malformed_register_budget_is_an_input_error() {
    for bad in ["lots", "0", "-5"] {
        let o = compile_add(&scratch("budget-malformed"))
            .env("TRITONC_REGISTER_BUDGET", bad)
            .arg_no_cache()
            .go();
        assert_eq!(o.code, Some(2), "{bad}: {o:?}");
        assert!(
            o.stderr.contains("E0517") && o.stderr.contains("TRITONC_REGISTER_BUDGET"),
            "{}",
            o.stderr
        );
    }
}

#[test]
fn compile_a_block_past_tritons_maximum_is_refused() {
    let o = Run::new(&[
        "compile",
        ADD,
        "--signature",
        "*fp32:16, *fp32:16, *fp32:16, i32:16, 2097152",
        "--emit",
        "ttir",
    ])
    .go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(!o.stderr.contains("internal error"), "{}", o.stderr);
}

#[test]
fn compile_into_an_output_directory_that_is_a_file() {
    let dir = scratch("out-is-file");
    let file = dir.join("bundles");
    std::fs::write(&file, "").expect("writable");
    let o = compile_add(&file).arg_no_cache().go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0514"), "{}", o.stderr);
}

#[test]
fn rule_an_unknown_code() {
    expect(&["rule", "E0599"], 2, "E0512");
}

#[test]
fn rule_documents_the_ptxas_bound() {
    expect(&["rule", "E0515"], 0, "TRITONC_PTXAS_TIMEOUT");
}

#[test]
fn run_a_missing_spec() {
    let o = Run::new(&["run", "no_such.toml", "--interpret"]).go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("no_such.toml"), "{}", o.stderr);
}

#[test]
fn run_a_spec_that_is_not_toml() {
    let dir = scratch("bad-toml");
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, "kernel = [unclosed\n").expect("writable");
    let o = Run::new(&["run", spec.to_str().expect("utf-8"), "--interpret"]).go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(!o.stderr.contains("internal error"), "{}", o.stderr);
}

/// examples/vector_add.toml with `edit` applied, beside the example kernels.
fn vector_add_spec(name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("examples/vector_add.toml")).expect("spec");
    let path = root().join(format!(
        "examples/.faults-{}-{name}.toml",
        std::process::id()
    ));
    std::fs::write(&path, edit(text)).expect("examples/ is writable");
    path
}

#[test]
fn run_verify_and_compile_a_spec_of_a_trillion_elements() {
    let spec = vector_add_spec("huge", |t| {
        t.replacen("shape = [98432]", "shape = [1000000, 1000000]", 1)
    });
    let s = spec.to_str().expect("utf-8");
    for args in [
        &["run", s, "--interpret"][..],
        &["verify", s, "--interpret"][..],
        &["compile", "--spec", s, "--emit", "ttir"][..],
    ] {
        let o = Run::new(args).go();
        assert!(o.code == Some(2), "{args:?}: {o:?}");
        assert!(!o.stderr.contains("memory allocation"), "{args:?}: {}", o.stderr);
    }
    let o = Run::new(&["run", s, "--interpret"]).go();
    assert!(o.stderr.contains("E0705"), "{}", o.stderr);
    let _ = std::fs::remove_file(spec);
}

#[test]
fn run_a_spec_with_an_empty_grid() {
    let spec = vector_add_spec("grid0", |t| {
        t.replacen("grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]", "grid = [0]", 1)
    });
    let o = Run::new(&["run", spec.to_str().expect("utf-8"), "--interpret"]).go();
    let _ = std::fs::remove_file(&spec);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0706"), "{}", o.stderr);
}

#[test]
fn run_a_spec_with_a_grid_past_the_launch_limits() {
    let spec = vector_add_spec("grid-huge", |t| {
        t.replacen(
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]",
            "grid = [1000000, 1000000]",
            1,
        )
    });
    let o = Run::new(&["run", spec.to_str().expect("utf-8"), "--interpret"]).go();
    let _ = std::fs::remove_file(&spec);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0707"), "{}", o.stderr);
    assert!(!o.stderr.contains("memory allocation"), "{}", o.stderr);
}

#[test]
fn run_a_grid_within_the_limits_but_past_host_memory_on_the_interpreter() {
    let spec = vector_add_spec("grid-max", |t| {
        t.replacen(
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]",
            "grid = [2147483647, 65535, 65535]",
            1,
        )
    });
    let o = Run::new(&["run", spec.to_str().expect("utf-8"), "--interpret"]).go();
    let _ = std::fs::remove_file(&spec);
    // Refused before anything runs (9.2e18 programs would run for ages), never an abort
    // and never a hang.
    assert!(matches!(o.code, Some(1) | Some(4)), "{o:?}");
    assert!(o.stderr.contains("more than the interpreter runs in one launch"), "{}", o.stderr);
}

#[test]
fn run_a_spec_passing_a_number_to_a_pointer() {
    let spec = vector_add_spec("int-ptr", |t| t.replacen("x_ptr = \"x\"", "x_ptr = 7", 1));
    let o = Run::new(&["run", spec.to_str().expect("utf-8"), "--interpret"]).go();
    let _ = std::fs::remove_file(&spec);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0703"), "{}", o.stderr);
    assert!(!o.stderr.contains("element_ty"), "{}", o.stderr);
}

#[test]
fn run_a_bundle_directory_that_holds_garbage() {
    let dir = scratch("garbage-bundle");
    let bundle = dir.join("add_kernel-0000000000000000.tcb");
    std::fs::create_dir_all(&bundle).expect("writable");
    std::fs::write(bundle.join("bundle.json"), "{ not json").expect("writable");
    std::fs::write(bundle.join("kernel.ptx"), "\0\0").expect("writable");
    let o = Run::new(&[
        "run",
        root().join("examples/vector_add.toml").to_str().expect("utf-8"),
        "--bundle",
        dir.to_str().expect("utf-8"),
    ])
    .go();
    assert!(matches!(o.code, Some(2) | Some(3)), "{o:?}");
    assert!(!o.stderr.contains("internal error"), "{}", o.stderr);
}

#[test]
fn cache_without_any_directory() {
    let o = Run::new(&["cache", "dir"])
        .env_remove("TRITONC_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME")
        .go();
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("E0514"), "{}", o.stderr);
}

#[test]
fn the_server_survives_garbage_on_stdin() {
    let garbage = "Content-Length: 5\r\n\r\n{{{{{Content-Length: 99999999999\r\n\r\nxx\r\n\r\n";
    let dir = scratch("server");
    let input = dir.join("in");
    std::fs::write(&input, garbage).expect("writable");
    let o = Run::new(&["server"])
        .stdin(Stdio::from(std::fs::File::open(&input).expect("readable")))
        .deadline(30)
        .go();
    // End of input without `exit`: the session ends; never a crash or an abort.
    assert!(matches!(o.code, Some(0) | Some(1) | Some(2)), "{o:?}");
    assert!(!o.stderr.contains("memory allocation"), "{}", o.stderr);
    assert!(o.stdout.contains("-32700") || o.stdout.contains("-32600"), "{}", o.stdout);
}
