//! The ptxas driver against fake ptxas executables: bounds, classification, scratch
//! directories.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{alive, scratch, script};
use tritonc_toolchain::{Bounds, Ptxas, PtxasError};

struct Fakes {
    dir: PathBuf,
    /// Writes a cubin and a `-v` report, as ptxas does.
    good: PathBuf,
    /// Never answers (also not to `--version`); records its pid and directory first.
    hangs: PathBuf,
    /// Never answers, records nothing.
    sleeps: PathBuf,
    /// Prints its address-space limit (`ulimit -v`, KiB) and the arguments.
    limits: PathBuf,
    /// Fails as ptxas does when an allocation fails.
    no_memory: PathBuf,
    /// Dies of SIGSEGV.
    segfaults: PathBuf,
    /// Rejects the PTX.
    rejects: PathBuf,
    /// Succeeds without writing a cubin.
    no_cubin: PathBuf,
}

fn fakes() -> &'static Fakes {
    static FAKES: OnceLock<Fakes> = OnceLock::new();
    FAKES.get_or_init(|| {
        let dir = scratch("driver");
        let record = dir.join("hangs.where");
        Fakes {
            good: script(
                &dir,
                "good",
                "if [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 99.9'; exit 0; fi\n\
                 printf 'CUBIN' > kernel.cubin\n\
                 echo 'ptxas info    : Used 12 registers'",
            ),
            hangs: script(
                &dir,
                "hangs",
                &format!("echo \"$$ $(pwd)\" > {}\nexec sleep 1000", record.display()),
            ),
            sleeps: script(&dir, "sleeps", "exec sleep 1000"),
            limits: script(&dir, "limits", "echo \"as=$(ulimit -v) args=$*\"\nexit 3"),
            no_memory: script(
                &dir,
                "no_memory",
                "echo 'ptxas fatal   : Memory allocation failure' >&2\nexit 255",
            ),
            segfaults: script(&dir, "segfaults", "kill -SEGV $$"),
            rejects: script(
                &dir,
                "rejects",
                "echo \"ptxas error   : Unknown symbol 'x' in kernel.ptx\" >&2\nexit 255",
            ),
            no_cubin: script(&dir, "no_cubin", "exit 0"),
            dir,
        }
    })
}

fn bounds(secs: f64, memory: Option<u64>) -> Bounds {
    Bounds {
        time: Some(Duration::from_secs_f64(secs)),
        memory,
    }
}

#[test]
fn a_good_ptxas_gives_the_cubin_and_its_report() {
    let ptxas = Ptxas::new(&fakes().good, Bounds::default());
    let done = ptxas.assemble(".version 8.0", "sm_90").expect("assembles");
    assert_eq!(done.cubin, b"CUBIN");
    assert!(done.log.contains("Used 12 registers"), "{}", done.log);
    assert_eq!(
        ptxas.version().expect("answers"),
        "Cuda compilation tools, release 99.9"
    );
}

#[test]
fn a_hanging_ptxas_is_killed_at_the_time_bound_and_its_directory_removed() {
    let ptxas = Ptxas::new(&fakes().hangs, bounds(1.0, None));
    let start = Instant::now();
    let err = ptxas.assemble(".version 8.0", "sm_90").unwrap_err();
    let took = start.elapsed();
    assert!(matches!(err, PtxasError::TimedOut { .. }), "{err:?}");
    assert!(err.is_bound());
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(8), "{took:?}");
    let message = err.to_string();
    assert!(message.contains("time bound of 1 s"), "{message}");
    assert!(message.contains("TRITONC_PTXAS_TIMEOUT"), "{message}");
    let record = std::fs::read_to_string(fakes().dir.join("hangs.where")).expect("it ran");
    let (pid, dir) = record.trim().split_once(' ').expect("pid and directory");
    let pid: u32 = pid.parse().expect("a pid");
    assert!(!alive(pid), "ptxas {pid} still runs");
    assert!(
        !std::path::Path::new(dir).exists(),
        "{dir} was left behind"
    );
}

#[test]
fn a_long_run_is_told_about_once() {
    use std::sync::{Arc, Mutex};
    let heard: Arc<Mutex<Vec<(String, Duration)>>> = Arc::default();
    let sink = Arc::clone(&heard);
    let ptxas = Ptxas::new(&fakes().sleeps, bounds(1.0, None)).with_notice(
        Duration::from_millis(200),
        move |what, elapsed| sink.lock().unwrap().push((what.to_string(), elapsed)),
    );
    let err = ptxas.assemble("", "sm_90").unwrap_err();
    assert!(matches!(err, PtxasError::TimedOut { .. }), "{err:?}");
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].0, "ptxas -arch=sm_90");
    assert!(heard[0].1 >= Duration::from_millis(200), "{heard:?}");
    // A quick run says nothing.
    let quiet: Arc<Mutex<u32>> = Arc::default();
    let count = Arc::clone(&quiet);
    let good = Ptxas::new(&fakes().good, Bounds::default())
        .with_notice(Duration::from_secs(30), move |_, _| *count.lock().unwrap() += 1);
    good.assemble("", "sm_90").expect("assembles");
    assert_eq!(*quiet.lock().unwrap(), 0);
}

#[test]
fn a_hanging_ptxas_version_is_bounded_too() {
    let ptxas = Ptxas::new(&fakes().sleeps, bounds(1.5, None));
    let start = Instant::now();
    let err = ptxas.version().unwrap_err();
    assert!(matches!(err, PtxasError::TimedOut { .. }), "{err:?}");
    assert!(err.to_string().contains("`ptxas --version`"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(8));
}

#[test]
fn the_memory_bound_is_ptxas_address_space() {
    let ptxas = Ptxas::new(&fakes().limits, bounds(30.0, Some(512 << 20)));
    let err = ptxas.assemble("", "sm_80").unwrap_err();
    let PtxasError::Failed { log, status, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(status, "exit status 3");
    // ulimit -v reports KiB.
    assert!(log.contains("as=524288 "), "{log}");
    assert!(log.contains("args=-arch=sm_80 -v kernel.ptx -o kernel.cubin"), "{log}");
    let unbounded = Ptxas::new(&fakes().limits, bounds(30.0, None));
    let err = unbounded.assemble("", "sm_80").unwrap_err();
    assert!(err.to_string().contains("as=unlimited"), "{err}");
}

#[test]
fn an_allocation_failure_under_the_memory_bound_names_the_bound() {
    let ptxas = Ptxas::new(&fakes().no_memory, bounds(30.0, Some(1 << 30)));
    let err = ptxas.assemble("", "sm_90").unwrap_err();
    assert!(matches!(err, PtxasError::OutOfMemory { .. }), "{err:?}");
    assert!(err.is_bound());
    let message = err.to_string();
    assert!(message.contains("memory bound of 1 GiB"), "{message}");
    assert!(message.contains("TRITONC_PTXAS_MEMORY"), "{message}");
    assert!(message.contains("Memory allocation failure"), "{message}");
}

#[test]
fn a_crash_is_out_of_memory_under_a_bound_and_a_crash_without_one() {
    let bounded = Ptxas::new(&fakes().segfaults, bounds(30.0, Some(1 << 30)));
    let err = bounded.assemble("", "sm_90").unwrap_err();
    assert!(matches!(err, PtxasError::OutOfMemory { .. }), "{err:?}");
    let unbounded = Ptxas::new(&fakes().segfaults, bounds(30.0, None));
    let err = unbounded.assemble("", "sm_90").unwrap_err();
    assert!(matches!(err, PtxasError::Crashed { .. }), "{err:?}");
    assert!(!err.is_bound());
    assert!(err.to_string().contains("killed by signal 11"), "{err}");
}

#[test]
fn rejected_ptx_keeps_ptxas_messages() {
    let ptxas = Ptxas::new(&fakes().rejects, Bounds::default());
    let err = ptxas.assemble("", "sm_90").unwrap_err();
    let PtxasError::Failed { log, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(log.contains("Unknown symbol 'x'"), "{log}");
    assert!(!err.is_bound() && !err.is_environment());
}

#[test]
fn success_without_a_cubin_is_an_error() {
    let ptxas = Ptxas::new(&fakes().no_cubin, Bounds::default());
    let err = ptxas.assemble("", "sm_90").unwrap_err();
    assert!(matches!(err, PtxasError::NoCubin { .. }), "{err:?}");
}

#[test]
fn a_missing_ptxas_is_an_environment_error() {
    let ptxas = Ptxas::new(fakes().dir.join("absent"), Bounds::default());
    let err = ptxas.assemble("", "sm_90").unwrap_err();
    assert!(err.is_environment(), "{err:?}");
    assert!(err.to_string().starts_with("cannot run `"), "{err}");
    assert!(ptxas.version().unwrap_err().is_environment());
}

#[test]
fn the_library_installs_no_signal_handler() {
    // Programs embedding tritonc's libraries keep their own SIGINT/SIGTERM handling: after
    // runs (a timeout included), both signals have the action they had before (the
    // default, or ignored when the test process was started in the background).
    let action = |signal| {
        // SAFETY: sigaction with a null new action only reads the current one into `old`.
        let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) };
        assert_eq!(r, 0);
        old.sa_sigaction
    };
    let before: Vec<_> = [libc::SIGINT, libc::SIGTERM].map(action).to_vec();
    for &a in &before {
        assert!(a == libc::SIG_DFL || a == libc::SIG_IGN, "a handler before any run");
    }
    let ptxas = Ptxas::new(&fakes().good, Bounds::default());
    ptxas.assemble("", "sm_90").expect("assembles");
    let _ = Ptxas::new(&fakes().sleeps, bounds(0.2, None)).version();
    for (i, signal) in [libc::SIGINT, libc::SIGTERM].into_iter().enumerate() {
        assert_eq!(action(signal), before[i], "signal {signal} has a handler");
    }
}
