//! `shutdown` kills a running ptxas and removes its scratch directory (its own test
//! binary: shutdown is for the rest of the process's life).

mod common;

use std::time::{Duration, Instant};

use common::{alive, scratch, script, wait_for_file};
use tritonc_toolchain::{is_shutting_down, shutdown, Bounds, Ptxas, PtxasError};

#[test]
fn shutdown_kills_ptxas_removes_its_directory_and_refuses_new_runs() {
    let dir = scratch("shutdown");
    let record = dir.join("where");
    let hangs = script(
        &dir,
        "hangs",
        &format!("echo \"$$ $(pwd)\" > {}\nexec sleep 1000", record.display()),
    );
    let ptxas = Ptxas::new(&hangs, Bounds::default());
    let worker = {
        let ptxas = ptxas.clone();
        std::thread::spawn(move || ptxas.assemble(".version 8.0", "sm_90"))
    };
    let seen = wait_for_file(&record, 30).expect("the fake ptxas started");
    let (pid, scratch_dir) = seen.trim().split_once(' ').expect("pid and directory");
    let pid: u32 = pid.parse().expect("a pid");
    assert!(alive(pid));
    assert!(std::path::Path::new(scratch_dir).is_dir());

    let start = Instant::now();
    assert!(!is_shutting_down());
    shutdown();
    assert!(is_shutting_down());
    let result = worker.join().expect("the worker does not panic");
    assert!(
        matches!(result, Err(PtxasError::Interrupted)),
        "{result:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(!alive(pid), "ptxas {pid} survived the shutdown");
    assert!(
        !std::path::Path::new(scratch_dir).exists(),
        "{scratch_dir} survived the shutdown"
    );
    // Nothing new starts.
    let again = ptxas.version();
    assert!(matches!(again, Err(PtxasError::Interrupted)), "{again:?}");
}
