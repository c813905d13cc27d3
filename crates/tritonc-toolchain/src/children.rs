//! The ptxas processes and scratch directories alive in this process, so that
//! [`shutdown`] can kill and remove them.
//!
//! Every change happens under one lock: a child is registered in the same critical
//! section that spawns it (and refused once shutdown began), and unregistered in the same
//! critical section that reaps it, so shutdown never signals a process id that has been
//! reaped (and may be reused).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

#[derive(Default)]
pub(crate) struct Registry {
    shutting_down: bool,
    /// Process ids of running ptxas children.
    children: Vec<u32>,
    /// Scratch directories in use.
    dirs: Vec<PathBuf>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    shutting_down: false,
    children: Vec::new(),
    dirs: Vec::new(),
});

/// The registry, locked (a panic elsewhere never stops a shutdown).
pub(crate) fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    pub(crate) fn shutting_down(&self) -> bool {
        self.shutting_down
    }

    pub(crate) fn add_child(&mut self, pid: u32) {
        self.children.push(pid);
    }

    pub(crate) fn remove_child(&mut self, pid: u32) {
        self.children.retain(|&p| p != pid);
    }

    pub(crate) fn add_dir(&mut self, dir: &Path) {
        self.dirs.push(dir.to_path_buf());
    }

    pub(crate) fn remove_dir(&mut self, dir: &Path) {
        self.dirs.retain(|d| d != dir);
    }
}

/// Kills every ptxas this process started that is still running, removes their scratch
/// directories, and refuses to start another ptxas from now on (a refused run is
/// [`crate::PtxasError::Interrupted`]).
///
/// Meant for a program's own SIGINT/SIGTERM handling, run on an ordinary thread (not
/// inside a signal handler: it takes a lock and removes files). Idempotent.
pub fn shutdown() {
    let mut registry = registry();
    registry.shutting_down = true;
    for &pid in &registry.children {
        kill(pid);
    }
    for dir in registry.dirs.drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Whether [`shutdown`] has run.
pub fn is_shutting_down() -> bool {
    registry().shutting_down
}

#[cfg(unix)]
fn kill(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill has no memory effects; `pid` is a child of this process that has
        // not been reaped (the registry's invariant), so it names that child.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill(_pid: u32) {}
