//! Fake ptxas executables (shell scripts) for the driver's tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A directory of this test process's own.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tritonc-toolchain-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

/// Writes an executable shell script `name` with `body` into `dir`. Every script a test
/// binary uses is written before any is run (a script open for writing while another
/// thread forks cannot be executed: ETXTBSY).
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("writable");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Whether process `pid` exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        }
        Err(_) => false,
    }
}

/// Waits up to `secs` for `path` to exist with content; its content.
pub fn wait_for_file(path: &Path, secs: u64) -> Option<String> {
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < secs {
        if let Ok(s) = std::fs::read_to_string(path) {
            if s.ends_with('\n') {
                return Some(s);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}
