//! The toolchain part of every cache key: tritonc itself, LLVM, ptxas and libdevice.
//!
//! Identifying ptxas (`ptxas --version`, a process) and libdevice (a content hash of
//! about 0.5 MB) costs more than a cache hit should. Both are remembered in the cache
//! directory against the file's status ([`Stamp`]: device, inode, size, modification and
//! status-change times), so a later process whose ptxas and libdevice are the same files,
//! unchanged, reads the two identities back instead of computing them. A replaced or
//! rewritten file changes its stamp (its status-change time at least) and is identified
//! afresh. A file modified in the last two seconds is not remembered: a write in the
//! same clock tick could leave its stamp unchanged.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use blake3::{Hash, Hasher};

use super::key::field;

/// Everything besides the kernel that decides the generated code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// `tritonc`'s version.
    pub tritonc: String,
    /// The commit `tritonc` was built from, when the build saw a git checkout.
    pub commit: Option<String>,
    /// The running executable (size and modification time): a rebuilt binary, whose
    /// code generator may differ under the same version, starts afresh.
    pub executable: String,
    /// The LLVM the back end is linked with.
    pub llvm: String,
    /// `ptxas --version`, when a cubin is assembled.
    pub ptxas: Option<String>,
    /// libdevice's content hash, when one is found.
    pub libdevice: Option<String>,
}

impl Toolchain {
    /// The hash of every field.
    pub fn hash(&self) -> Hash {
        let mut h = Hasher::new();
        field(&mut h, "tritonc", self.tritonc.as_bytes());
        field(
            &mut h,
            "commit",
            self.commit.as_deref().unwrap_or("").as_bytes(),
        );
        field(&mut h, "executable", self.executable.as_bytes());
        field(&mut h, "llvm", self.llvm.as_bytes());
        field(
            &mut h,
            "ptxas",
            self.ptxas.as_deref().unwrap_or("").as_bytes(),
        );
        field(
            &mut h,
            "libdevice",
            self.libdevice.as_deref().unwrap_or("").as_bytes(),
        );
        h.finalize()
    }

    /// The toolchain of this process, with `ptxas` when a cubin is assembled. With
    /// `memo`, a directory, the identities of ptxas and libdevice are remembered there
    /// and read back while their files are unchanged.
    pub fn detect(ptxas: Option<&Path>, memo: Option<&Path>) -> Toolchain {
        Toolchain {
            tritonc: env!("CARGO_PKG_VERSION").to_string(),
            commit: option_env!("TRITONC_GIT_COMMIT").map(str::to_string),
            executable: executable_identity(),
            llvm: llvm_version(),
            ptxas: ptxas.map(|p| remembered(memo, "ptxas", p, || ptxas_version(p))),
            libdevice: libdevice_path().and_then(|p| {
                let hash = || file_hash(&p).unwrap_or_default();
                Some(remembered(memo, "libdevice", &p, hash)).filter(|h| !h.is_empty())
            }),
        }
    }
}

/// The running executable's size and modification time (empty if unknown).
fn executable_identity() -> String {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} bytes, modified {modified}", m.len())
        }
        Err(_) => String::new(),
    }
}

/// The version of the LLVM linked in (`22.1.0`).
#[cfg(feature = "mlir")]
fn llvm_version() -> String {
    extern "C" {
        /// LLVM's C API (llvm-c/Core.h): the version of the linked library.
        fn LLVMGetVersion(major: *mut u32, minor: *mut u32, patch: *mut u32);
    }
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: LLVMGetVersion only writes three integers through the pointers it is given,
    // which point to live locals.
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}

#[cfg(not(feature = "mlir"))]
fn llvm_version() -> String {
    String::new()
}

/// The libdevice code generation would link, if one is found.
fn libdevice_path() -> Option<PathBuf> {
    #[cfg(feature = "mlir")]
    {
        tritonc_codegen::locate_libdevice()
    }
    #[cfg(not(feature = "mlir"))]
    {
        None
    }
}

/// The content hash of a file.
fn file_hash(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(blake3::hash(&bytes).to_hex().to_string())
}

/// `ptxas --version` (its whole output), or the path when it does not answer: run by the
/// one ptxas driver, so a ptxas that hangs is stopped after
/// [`tritonc_toolchain::VERSION_TIME`] at most (the compile then meets the same ptxas
/// under its own bound).
fn ptxas_version(ptxas: &Path) -> String {
    let bounds = tritonc_toolchain::Bounds::from_env().unwrap_or_default();
    match tritonc_toolchain::Ptxas::new(ptxas, bounds).version() {
        Ok(version) => version,
        Err(_) => format!("unversioned {}", ptxas.display()),
    }
}

/// What identifies a file's version without reading it: device, inode, size,
/// modification and status-change times. Replacing the file (a new inode) or writing
/// it (new times) changes the stamp.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp(String);

impl Stamp {
    /// The stamp of `path`, with its modification time; `None` when it cannot be read.
    fn of(path: &Path) -> Option<(Stamp, SystemTime)> {
        let m = std::fs::metadata(path).ok()?;
        let modified = m.modified().ok()?;
        let nanos = |t: SystemTime| t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        #[cfg(unix)]
        let text = {
            use std::os::unix::fs::MetadataExt;
            format!(
                "dev {} ino {} size {} mtime {} ctime {}.{}",
                m.dev(),
                m.ino(),
                m.len(),
                nanos(modified),
                m.ctime(),
                m.ctime_nsec()
            )
        };
        #[cfg(not(unix))]
        let text = format!("size {} mtime {}", m.len(), nanos(modified));
        Some((Stamp(text), modified))
    }
}

/// How recently modified a file may be and still be remembered.
const SETTLED: Duration = Duration::from_secs(2);

/// `compute()` for `path`, or what an earlier call remembered in `memo` for the same
/// file with the same [`Stamp`]. `kind` names what is remembered (`ptxas`).
fn remembered(
    memo: Option<&Path>,
    kind: &str,
    path: &Path,
    compute: impl FnOnce() -> String,
) -> String {
    let (Some(dir), Some((stamp, modified))) = (memo, Stamp::of(path)) else {
        return compute();
    };
    let name = {
        let mut h = Hasher::new();
        field(&mut h, "kind", kind.as_bytes());
        field(&mut h, "path", path.as_os_str().as_encoded_bytes());
        format!("{}.id", &h.finalize().to_hex()[..32])
    };
    let file = dir.join(name);
    if let Ok(text) = std::fs::read_to_string(&file) {
        if let Some((first, value)) = text.split_once('\n') {
            if first == stamp.0 {
                return value.to_string();
            }
        }
    }
    let value = compute();
    let settled = SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age >= SETTLED);
    // Unchanged since the stamp was taken: what was computed belongs to that stamp.
    if settled && Stamp::of(path).is_some_and(|(s, _)| s == stamp) {
        // Failing to remember costs only the next process's time.
        let _ = write_atomically(dir, &file, &format!("{}\n{value}", stamp.0));
    }
    value
}

/// Writes `text` to `file` through a temporary file in `dir` renamed into place.
fn write_atomically(dir: &Path, file: &Path, text: &str) -> std::io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".id-{}-{n}.tmp", std::process::id()));
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tritonc-toolchain-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        dir
    }

    /// Sets the file's modification time `SETTLED` and more into the past.
    fn settle(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(60);
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("writable");
        f.set_modified(old).expect("settable modification time");
    }

    #[test]
    fn an_unchanged_file_is_identified_once_and_a_changed_one_again() {
        let dir = scratch("memo");
        let memo = dir.join("memo");
        let tool = dir.join("tool");
        std::fs::write(&tool, "version 1").expect("writable");
        settle(&tool);
        let calls = Cell::new(0);
        let identify = |p: &Path| {
            calls.set(calls.get() + 1);
            std::fs::read_to_string(p).expect("readable")
        };
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || identify(&tool)),
            "version 1"
        );
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || identify(&tool)),
            "version 1"
        );
        assert_eq!(calls.get(), 1, "the second answer comes from the memo");
        // Another kind of identity for the same file is remembered apart.
        assert_eq!(remembered(Some(&memo), "other", &tool, || "x".into()), "x");

        // Same size, modification time put back: the status-change time still moves.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&tool, "version 2").expect("writable");
        settle(&tool);
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || identify(&tool)),
            "version 2"
        );
        assert_eq!(calls.get(), 2);
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || identify(&tool)),
            "version 2"
        );
        assert_eq!(calls.get(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_modified_just_now_is_not_remembered() {
        let dir = scratch("fresh");
        let memo = dir.join("memo");
        let tool = dir.join("tool");
        std::fs::write(&tool, "v").expect("writable");
        let calls = Cell::new(0);
        for _ in 0..2 {
            remembered(Some(&memo), "tool", &tool, || {
                calls.set(calls.get() + 1);
                "v".into()
            });
        }
        assert_eq!(calls.get(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_memo_of_another_stamp_or_damaged_is_not_used() {
        let dir = scratch("damaged");
        let memo = dir.join("memo");
        let tool = dir.join("tool");
        std::fs::write(&tool, "v").expect("writable");
        settle(&tool);
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || "right".into()),
            "right"
        );
        let entries: Vec<PathBuf> = std::fs::read_dir(&memo)
            .expect("the memo was written")
            .map(|e| e.expect("listable").path())
            .collect();
        assert_eq!(entries.len(), 1);
        std::fs::write(&entries[0], "dev 0 ino 0\nwrong").expect("writable");
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || "right".into()),
            "right"
        );
        std::fs::write(&entries[0], "no newline").expect("writable");
        assert_eq!(
            remembered(Some(&memo), "tool", &tool, || "right".into()),
            "right"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
