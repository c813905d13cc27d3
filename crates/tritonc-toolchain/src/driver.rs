//! Running ptxas: the one place tritonc starts it.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bounds::{bytes, seconds, Bounds, MEMORY_VAR, TIMEOUT_VAR};
use crate::children::registry;

/// The longest `ptxas --version` may take (less when the time bound is shorter): it
/// answers in milliseconds, and a ptxas that does not must not hold up the compile.
pub const VERSION_TIME: Duration = Duration::from_secs(10);

/// A ptxas executable and the bounds it runs under.
#[derive(Clone, Debug)]
pub struct Ptxas {
    path: PathBuf,
    bounds: Bounds,
    notice: Option<Notice>,
}

/// Said once when a run takes long: after `after`, `say(what, elapsed)` is called (from the
/// thread waiting for ptxas, outside any lock).
#[derive(Clone)]
struct Notice {
    after: Duration,
    say: Arc<dyn Fn(&str, Duration) + Send + Sync>,
}

impl fmt::Debug for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Notice after {:?}", self.after)
    }
}

/// What a successful assembly produced.
#[derive(Clone, Debug)]
pub struct Assembled {
    /// The cubin.
    pub cubin: Vec<u8>,
    /// ptxas's standard output followed by its standard error (`-v`'s report).
    pub log: String,
}

/// Why ptxas gave no result.
#[derive(Debug)]
pub enum PtxasError {
    /// ptxas could not be started.
    Spawn {
        /// The executable tried.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The scratch directory (or a file in it) could not be made or read.
    Scratch {
        /// The directory or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// ptxas ran past the time bound and was killed.
    TimedOut {
        /// What was run (`ptxas -arch=sm_90`, `ptxas --version`).
        what: String,
        /// The bound.
        limit: Duration,
    },
    /// ptxas failed under the memory bound: it reported an allocation failure or died
    /// of a signal an allocation failure raises.
    OutOfMemory {
        /// What was run.
        what: String,
        /// The bound in bytes.
        limit: u64,
        /// What ptxas printed.
        log: String,
    },
    /// ptxas died of a signal.
    Crashed {
        /// What was run.
        what: String,
        /// How it ended.
        status: String,
        /// What ptxas printed.
        log: String,
    },
    /// ptxas ran and failed: it rejected the PTX (or `--version` failed).
    Failed {
        /// What was run.
        what: String,
        /// How it ended.
        status: String,
        /// What ptxas printed.
        log: String,
    },
    /// ptxas succeeded but wrote no cubin.
    NoCubin {
        /// Why it cannot be read.
        source: std::io::Error,
    },
    /// The program is shutting down ([`crate::shutdown`]): ptxas was killed or not started.
    Interrupted,
}

impl PtxasError {
    /// Whether a bound was hit (time or memory): the input is too large for the bounds
    /// set, not a bug.
    pub fn is_bound(&self) -> bool {
        matches!(
            self,
            PtxasError::TimedOut { .. } | PtxasError::OutOfMemory { .. }
        )
    }

    /// Whether ptxas could not be run at all (missing, not executable, no scratch space).
    pub fn is_environment(&self) -> bool {
        matches!(self, PtxasError::Spawn { .. } | PtxasError::Scratch { .. })
    }
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::Spawn { path, source } => {
                write!(f, "cannot run `{}`: {source}", path.display())
            }
            PtxasError::Scratch { path, source } => {
                write!(f, "ptxas's scratch space `{}`: {source}", path.display())
            }
            PtxasError::TimedOut { what, limit } => write!(
                f,
                "`{what}` ran past its time bound of {} and was stopped (set {TIMEOUT_VAR} \
                 to allow more, e.g. {TIMEOUT_VAR}=30m)",
                seconds(*limit)
            ),
            PtxasError::OutOfMemory { what, limit, log } => write!(
                f,
                "`{what}` ran out of its memory bound of {} (set {MEMORY_VAR} to allow \
                 more, e.g. {MEMORY_VAR}=64G){}",
                bytes(*limit),
                tail(log)
            ),
            PtxasError::Crashed { what, status, log } => {
                write!(f, "`{what}` crashed ({status}){}", tail(log))
            }
            PtxasError::Failed { what, status, log } => {
                write!(f, "`{what}` failed ({status}):\n{log}")
            }
            PtxasError::NoCubin { source } => write!(f, "ptxas wrote no cubin: {source}"),
            PtxasError::Interrupted => write!(f, "interrupted: ptxas was stopped"),
        }
    }
}

impl std::error::Error for PtxasError {}

/// `:\n` and the log, when there is one.
fn tail(log: &str) -> String {
    if log.trim().is_empty() {
        String::new()
    } else {
        format!(":\n{}", log.trim_end())
    }
}

/// How a run ended.
struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ptxas {
    /// ptxas at `path` under `bounds` (not checked until run). A relative path with a
    /// directory part is made absolute now, against the current directory: ptxas runs in
    /// a scratch directory. A bare name is looked up on `PATH`.
    pub fn new(path: impl Into<PathBuf>, bounds: Bounds) -> Ptxas {
        let path = path.into();
        let path = if path.is_relative() && path.components().count() > 1 {
            std::env::current_dir()
                .map(|d| d.join(&path))
                .unwrap_or(path)
        } else {
            path
        };
        Ptxas {
            path,
            bounds,
            notice: None,
        }
    }

    /// Calls `say(what, elapsed)` once for each run still going after `after` (`what` is
    /// `ptxas -arch=sm_90`): a long assembly is told about, not silent. The library
    /// prints nothing itself.
    pub fn with_notice(
        mut self,
        after: Duration,
        say: impl Fn(&str, Duration) + Send + Sync + 'static,
    ) -> Ptxas {
        self.notice = Some(Notice {
            after,
            say: Arc::new(say),
        });
        self
    }

    /// ptxas at `path` under the bounds the environment sets ([`Bounds::from_env`]).
    pub fn with_env_bounds(path: impl Into<PathBuf>) -> Result<Ptxas, String> {
        Ok(Ptxas::new(path, Bounds::from_env()?))
    }

    /// The executable.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bounds.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// `ptxas --version`, trimmed, under the memory bound and at most [`VERSION_TIME`].
    pub fn version(&self) -> Result<String, PtxasError> {
        let time = self.bounds.time.map_or(VERSION_TIME, |t| t.min(VERSION_TIME));
        let dir = ScratchDir::new()?;
        let done = self.run(
            &["--version".into()],
            dir.path(),
            Some(time),
            "ptxas --version",
        )?;
        Ok(done.stdout.trim().to_string())
    }

    /// Assembles `ptx` for `arch` (`sm_90`) with `-v`: the cubin and ptxas's report.
    ///
    /// ptxas runs in a scratch directory of its own on `kernel.ptx` (so the file names in
    /// its messages are the same on every run), which is removed afterwards, also when
    /// ptxas fails or is killed.
    pub fn assemble(&self, ptx: &str, arch: &str) -> Result<Assembled, PtxasError> {
        let dir = ScratchDir::new()?;
        let input = dir.path().join("kernel.ptx");
        std::fs::write(&input, ptx).map_err(|source| PtxasError::Scratch {
            path: input.clone(),
            source,
        })?;
        let args: Vec<OsString> = vec![
            format!("-arch={arch}").into(),
            "-v".into(),
            "kernel.ptx".into(),
            "-o".into(),
            "kernel.cubin".into(),
        ];
        let what = format!("ptxas -arch={arch}");
        let done = self.run(&args, dir.path(), self.bounds.time, &what)?;
        let log = format!("{}{}", done.stdout, done.stderr);
        let cubin = std::fs::read(dir.path().join("kernel.cubin"))
            .map_err(|source| PtxasError::NoCubin { source })?;
        Ok(Assembled { cubin, log })
    }

    /// Runs ptxas with `args` in `dir` (standard output and error go to files there) and
    /// waits at most `time`; a failure is classified into [`PtxasError`].
    fn run(
        &self,
        args: &[OsString],
        dir: &Path,
        time: Option<Duration>,
        what: &str,
    ) -> Result<Finished, PtxasError> {
        let out_path = dir.join("ptxas.stdout");
        let err_path = dir.join("ptxas.stderr");
        let scratch = |path: &Path| {
            let path = path.to_path_buf();
            move |source| PtxasError::Scratch { path, source }
        };
        let stdout = File::create(&out_path).map_err(scratch(&out_path))?;
        let stderr = File::create(&err_path).map_err(scratch(&err_path))?;
        let mut command = Command::new(&self.path);
        command
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        limit_child(&mut command, self.bounds.memory);

        let mut child = {
            let mut registry = registry();
            if registry.shutting_down() {
                return Err(PtxasError::Interrupted);
            }
            let child = command.spawn().map_err(|source| PtxasError::Spawn {
                path: self.path.clone(),
                source,
            })?;
            registry.add_child(child.id());
            child
        };
        let started = Instant::now();
        let notice = self.notice.as_ref().map(|n| {
            let what = what.to_string();
            let say = Arc::clone(&n.say);
            (n.after, move |elapsed: Duration| say(&what, elapsed))
        });
        let status = wait(&mut child, started, time, notice);
        if registry().shutting_down() {
            return Err(PtxasError::Interrupted);
        }
        let Some(status) = status else {
            return Err(PtxasError::TimedOut {
                what: what.to_string(),
                limit: time.unwrap_or_default(),
            });
        };
        let read = |path: &Path| {
            std::fs::read(path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .map_err(scratch(path))
        };
        let done = Finished {
            status,
            stdout: read(&out_path)?,
            stderr: read(&err_path)?,
        };
        if done.status.success() {
            return Ok(done);
        }
        let log = format!("{}{}", done.stdout, done.stderr);
        let signal = signal_of(&done.status);
        if let Some(limit) = self.bounds.memory {
            if signal.is_some_and(is_allocation_signal) || mentions_allocation_failure(&log) {
                return Err(PtxasError::OutOfMemory {
                    what: what.to_string(),
                    limit,
                    log,
                });
            }
        }
        let status = describe(&done.status);
        if signal.is_some() {
            return Err(PtxasError::Crashed {
                what: what.to_string(),
                status,
                log,
            });
        }
        Err(PtxasError::Failed {
            what: what.to_string(),
            status,
            log,
        })
    }
}

/// Waits for `child` at most `time` after `started`: its status, or `None` when the bound
/// was hit (the child is then killed and reaped). The child is reaped and unregistered
/// under the registry lock, so [`crate::shutdown`] never signals a reaped process.
fn wait(
    child: &mut Child,
    started: Instant,
    time: Option<Duration>,
    mut notice: Option<(Duration, impl Fn(Duration))>,
) -> Option<ExitStatus> {
    let pid = child.id();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some((after, say)) = &notice {
            let elapsed = started.elapsed();
            if elapsed >= *after {
                say(elapsed);
                notice = None;
            }
        }
        {
            let mut registry = registry();
            match child.try_wait() {
                Ok(Some(status)) => {
                    registry.remove_child(pid);
                    return Some(status);
                }
                Ok(None) => {}
                Err(_) => {
                    // The child cannot be waited for: kill it rather than wait forever.
                    let _ = child.kill();
                    let status = child.wait().ok();
                    registry.remove_child(pid);
                    return status;
                }
            }
            if time.is_some_and(|t| started.elapsed() >= t) {
                let _ = child.kill();
                let _ = child.wait();
                registry.remove_child(pid);
                return None;
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

/// Sets the child's address-space limit and (on Linux) has it killed when the thread
/// that started it dies, so a tritonc killed by SIGKILL leaves no ptxas behind.
#[cfg(unix)]
fn limit_child(command: &mut Command, memory: Option<u64>) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec and only makes
    // async-signal-safe system calls (getppid, prctl, setrlimit, _exit); it allocates
    // nothing and takes no lock.
    #[cfg(target_os = "linux")]
    let parent = unsafe { libc::getpid() };
    unsafe {
        command.pre_exec(move || {
            #[cfg(target_os = "linux")]
            {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before prctl took effect.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            if let Some(bytes) = memory {
                let limit = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn limit_child(_command: &mut Command, _memory: Option<u64>) {}

#[cfg(unix)]
fn signal_of(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: &ExitStatus) -> Option<i32> {
    None
}

/// Signals a process that ran out of address space typically dies of (a failed
/// allocation dereferenced, `abort` from `std::bad_alloc`, the kernel's OOM killer).
fn is_allocation_signal(signal: i32) -> bool {
    #[cfg(unix)]
    {
        [libc::SIGSEGV, libc::SIGABRT, libc::SIGKILL, libc::SIGBUS].contains(&signal)
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        false
    }
}

/// Whether ptxas's messages report a failed allocation (ptxas says
/// `ptxas fatal   : Memory allocation failure`).
fn mentions_allocation_failure(log: &str) -> bool {
    let log = log.to_ascii_lowercase();
    [
        "memory allocation failure",
        "out of memory",
        "bad_alloc",
        "cannot allocate memory",
        "failed to map segment",
    ]
    .iter()
    .any(|m| log.contains(m))
}

/// `exit status 1`, `signal 9`.
fn describe(status: &ExitStatus) -> String {
    match (status.code(), signal_of(status)) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// A directory only this run uses, removed on drop and by [`crate::shutdown`].
pub(crate) struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    fn new() -> Result<ScratchDir, PtxasError> {
        let temp = std::env::temp_dir();
        let mut registry = registry();
        if registry.shutting_down() {
            return Err(PtxasError::Interrupted);
        }
        let path = fresh_dir(&temp, "tritonc-ptxas").map_err(|source| PtxasError::Scratch {
            path: temp.clone(),
            source,
        })?;
        registry.add_dir(&path);
        Ok(ScratchDir { path })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let mut registry = registry();
        let _ = std::fs::remove_dir_all(&self.path);
        registry.remove_dir(&self.path);
    }
}

/// Creates a directory under `parent` (made if missing) that no other run uses:
/// `PREFIX-PID-N` for the first `N` not taken. One that exists already (left by an
/// earlier process of the same id, or made by a process of another PID namespace that
/// shares `parent`) is skipped, never shared: two runs in one directory would assemble
/// each other's PTX.
pub(crate) fn fresh_dir(parent: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(parent)?;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("{prefix}-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_that_exists_already_is_never_reused() {
        let parent = std::env::temp_dir().join(format!("tritonc-fresh-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&parent);
        let first = fresh_dir(&parent, "t").expect("the temp dir is writable");
        let n: u64 = first
            .to_string_lossy()
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("the name ends in its number");
        // The names the next calls would take, made by someone else, with a file inside.
        for m in n + 1..n + 65 {
            let taken = parent.join(format!("t-{}-{m}", std::process::id()));
            std::fs::create_dir(&taken).expect("the scratch parent is writable");
            std::fs::write(taken.join("kernel.ptx"), "theirs").expect("writable");
        }
        let second = fresh_dir(&parent, "t").expect("the temp dir is writable");
        assert_ne!(first, second);
        assert!(
            !second.join("kernel.ptx").exists(),
            "{} belongs to someone else",
            second.display()
        );
        let _ = std::fs::remove_dir_all(&parent);
    }

    #[test]
    fn allocation_failures_are_recognised_in_ptxas_messages() {
        assert!(mentions_allocation_failure(
            "ptxas fatal   : Memory allocation failure\n"
        ));
        assert!(mentions_allocation_failure("terminate: std::bad_alloc"));
        assert!(!mentions_allocation_failure(
            "ptxas error   : Unknown symbol 'x'"
        ));
    }
}
