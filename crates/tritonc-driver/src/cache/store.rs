//! Where entries live and how they are read, written and counted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::entry::{decode, encode, CachedCode};

/// The layout version: a change of the entry format moves to a new directory, so an old
/// binary and a new one never read each other's entries.
const LAYOUT: &str = "v1";
const ENTRY_EXTENSION: &str = "entry";

/// The cache directory: `$TRITONC_CACHE_DIR`, else `$XDG_CACHE_HOME/tritonc`, else
/// `~/.cache/tritonc` (empty variables count as unset); `None` without a home.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("TRITONC_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("tritonc"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache/tritonc"))
}

/// The outcome of a lookup.
#[derive(Debug)]
pub enum Lookup {
    /// An intact entry.
    Hit(CachedCode),
    /// No entry.
    Miss,
    /// An entry that cannot be used (damaged or unreadable): compile again.
    Damaged(String),
}

/// The entries under one directory.
#[derive(Debug)]
pub struct KernelCache {
    root: PathBuf,
}

/// What the cache holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Entries.
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
}

impl KernelCache {
    /// The cache in `root` (created on the first write).
    pub fn new(root: PathBuf) -> Self {
        KernelCache { root }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn entries_dir(&self) -> PathBuf {
        self.root.join(LAYOUT)
    }

    /// Where the toolchain's identities are remembered (`Toolchain::detect`); cleaned
    /// with the entries, and not counted among them.
    pub fn toolchain_dir(&self) -> PathBuf {
        self.entries_dir().join("toolchain")
    }

    fn entry_path(&self, key: &str) -> PathBuf {
        let (fanout, rest) = key.split_at(2.min(key.len()));
        self.entries_dir()
            .join(fanout)
            .join(format!("{rest}.{ENTRY_EXTENSION}"))
    }

    /// The entry for `key`.
    pub fn get(&self, key: &str) -> Lookup {
        match std::fs::read(self.entry_path(key)) {
            Ok(bytes) => match decode(key, &bytes) {
                Ok(code) => Lookup::Hit(code),
                Err(why) => Lookup::Damaged(why),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Miss,
            Err(e) => Lookup::Damaged(format!("cannot read the entry: {e}")),
        }
    }

    /// Stores `code` under `key`: written to a temporary file in the entry's directory,
    /// then renamed over the entry, so a reader sees the old entry or the new one whole.
    pub fn put(&self, key: &str, code: &CachedCode) -> Result<(), String> {
        let path = self.entry_path(key);
        let dir = path
            .parent()
            .expect("an entry path always has the fan-out directory as parent");
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let (temp, mut file) =
            create_temp(dir, key).map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
        let written = file.write_all(&encode(key, code)).and_then(|()| {
            drop(file);
            std::fs::rename(&temp, &path)
        });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(format!("cannot write {}: {e}", path.display()));
        }
        Ok(())
    }

    /// Counts the entries (temporary files of interrupted writes excluded).
    pub fn stats(&self) -> CacheStats {
        stats_of(&self.entries_dir())
    }

    /// Removes every entry and leftover temporary file; returns what the entries held.
    ///
    /// The entries' directory is first renamed aside, in one step, and removed there: a
    /// compile that writes meanwhile starts a new, empty directory instead of adding
    /// files to the one being removed (which would make its removal fail).
    pub fn clean(&self) -> Result<CacheStats, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = self.entries_dir();
        let aside = loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let aside = self
                .root
                .join(format!(".{LAYOUT}-removing-{}-{n}", std::process::id()));
            if aside.symlink_metadata().is_ok() {
                continue;
            }
            match std::fs::rename(&dir, &aside) {
                Ok(()) => break aside,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Ok(CacheStats::default())
                }
                Err(e) => return Err(format!("cannot remove {}: {e}", dir.display())),
            }
        };
        let stats = stats_of(&aside);
        std::fs::remove_dir_all(&aside)
            .map_err(|e| format!("cannot remove {}: {e}", aside.display()))?;
        Ok(stats)
    }
}

/// The entries under the entries' directory `dir`.
fn stats_of(dir: &Path) -> CacheStats {
    let mut stats = CacheStats::default();
    for (_, size) in entry_files(dir) {
        stats.entries += 1;
        stats.bytes += size;
    }
    stats
}

/// The entry files under the entries' directory `dir`, with their sizes.
fn entry_files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut files = Vec::new();
    let Ok(fanouts) = std::fs::read_dir(dir) else {
        return files;
    };
    for fanout in fanouts.flatten() {
        let Ok(entries) = std::fs::read_dir(fanout.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let is_entry = path.extension().is_some_and(|e| e == ENTRY_EXTENSION)
                && !entry.file_name().to_string_lossy().starts_with('.');
            if let (true, Ok(meta)) = (is_entry, entry.metadata()) {
                if meta.is_file() {
                    files.push((path, meta.len()));
                }
            }
        }
    }
    files
}

/// A temporary file for an entry of `key` in `dir`, created by this call alone
/// (`.KEY-PID-N.tmp` for the first `N` not taken): a file of that name made by another
/// writer (a process of the same id in another PID namespace sharing the directory) is
/// skipped, never written through.
fn create_temp(dir: &Path, key: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{key}-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code() -> CachedCode {
        CachedCode {
            entry: "k".into(),
            ptx: ".target sm_90\n".into(),
            num_warps: 4,
            shared_bytes: 16,
            dynamic_shared: false,
            cubin: None,
            ptxas: None,
            combine_orders: None,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tritonc-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_stored_entry_is_found_counted_and_cleaned() {
        let dir = scratch("store");
        let cache = KernelCache::new(dir.clone());
        assert!(matches!(cache.get("ab12"), Lookup::Miss));
        cache
            .put("ab12", &code())
            .expect("the scratch directory is writable");
        match cache.get("ab12") {
            Lookup::Hit(c) => assert_eq!(c, code()),
            other => panic!("expected a hit, got {other:?}"),
        }
        assert_eq!(cache.stats().entries, 1);
        assert_eq!(cache.clean().map(|s| s.entries), Ok(1));
        assert!(matches!(cache.get("ab12"), Lookup::Miss));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_temporary_file_of_another_writer_is_never_written_through() {
        let dir = scratch("temp");
        std::fs::create_dir_all(&dir).expect("the temp dir is writable");
        let (first, _) = create_temp(&dir, "ef56").expect("the scratch directory is writable");
        let n: u64 = first
            .to_string_lossy()
            .trim_end_matches(".tmp")
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("the name ends in its number");
        // The names the next calls would take, held by another writer.
        let theirs: Vec<PathBuf> = (n + 1..n + 65)
            .map(|m| dir.join(format!(".ef56-{}-{m}.tmp", std::process::id())))
            .collect();
        for t in &theirs {
            std::fs::write(t, "theirs").expect("the scratch directory is writable");
        }
        let (second, _) = create_temp(&dir, "ef56").expect("the scratch directory is writable");
        assert!(!theirs.contains(&second), "{}", second.display());
        for t in &theirs {
            assert_eq!(std::fs::read(t).ok().as_deref(), Some(&b"theirs"[..]));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cleaning_while_entries_are_written_succeeds() {
        let dir = scratch("clean-racing");
        let cache = KernelCache::new(dir.clone());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let stored = AtomicU64::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // Errors are expected while the directory is being removed.
                    if cache.put(&format!("{:064x}", i % 4096), &code()).is_ok() {
                        stored.fetch_add(1, Ordering::Relaxed);
                    }
                    i += 1;
                }
            });
            for _ in 0..300 {
                // Some entries are written between two cleans, and during them.
                let before = stored.load(Ordering::Relaxed);
                while stored.load(Ordering::Relaxed) < before + 20 {
                    std::thread::yield_now();
                }
                let cleaned = cache.clean();
                if cleaned.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                assert!(cleaned.is_ok(), "{cleaned:?}");
            }
            stop.store(true, Ordering::Relaxed);
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_entry_is_reported_not_returned() {
        let dir = scratch("damaged");
        let cache = KernelCache::new(dir.clone());
        cache
            .put("cd34", &code())
            .expect("the scratch directory is writable");
        std::fs::write(cache.entry_path("cd34"), b"garbage").expect("entry is writable");
        assert!(matches!(cache.get("cd34"), Lookup::Damaged(_)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
