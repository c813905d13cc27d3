//! Finding ptxas and libdevice: the order of the places searched, and never the current
//! directory.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{scratch, script};
use tritonc_toolchain::locate::{Search, LIBDEVICE_FILE};

fn file(path: &Path) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "bc").unwrap();
    path.to_path_buf()
}

#[test]
fn ptxas_is_searched_in_the_documented_order() {
    let root = scratch("locate-order");
    let exe_dir = root.join("dist/bin");
    std::fs::create_dir_all(&exe_dir).unwrap();
    let beside = script(&exe_dir, "ptxas", "exit 0");
    let home = root.join("cuda");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let in_home = script(&home.join("bin"), "ptxas", "exit 0");
    let on_path_dir = root.join("path");
    std::fs::create_dir_all(&on_path_dir).unwrap();
    let on_path = script(&on_path_dir, "ptxas", "exit 0");

    let mut search = Search {
        exe: Some(exe_dir.join("tritonc")),
        cuda_home: Some(home.clone().into()),
        path: Some(OsString::from(on_path_dir.as_os_str())),
        ..Search::default()
    };
    assert_eq!(search.ptxas(), Some(beside.clone()));
    std::fs::remove_file(&beside).unwrap();
    assert_eq!(search.ptxas(), Some(in_home));
    search.cuda_home = None;
    assert_eq!(search.ptxas(), Some(on_path.clone()));
    search.ptxas_var = Some("/elsewhere/ptxas".into());
    assert_eq!(search.ptxas(), Some(PathBuf::from("/elsewhere/ptxas")));
    search.ptxas_var = Some("".into());
    assert_eq!(search.ptxas(), None, "an empty $TRITONC_PTXAS means no ptxas");
    search.ptxas_var = None;
    search.path = None;
    assert_eq!(search.ptxas(), None);
    // .tools/cuda/bin (scripts/install-deps.sh) above the executable.
    std::fs::create_dir_all(root.join("dist/.tools/cuda/bin")).unwrap();
    let tools = script(&root.join("dist/.tools/cuda/bin"), "ptxas", "exit 0");
    assert_eq!(search.ptxas(), Some(tools));
}

#[test]
fn ptxas_is_looked_for_in_a_virtual_environments_triton_wheel() {
    let root = scratch("locate-wheel");
    let bin = root.join("venv/lib/python3.12/site-packages/triton/backends/nvidia/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wheel = script(&bin, "ptxas", "exit 0");
    let lib = file(&root.join(
        "venv/lib/python3.12/site-packages/triton/backends/nvidia/lib/libdevice.10.bc",
    ));
    let search = Search {
        virtual_env: Some(root.join("venv").into()),
        ..Search::default()
    };
    assert_eq!(search.ptxas(), Some(wheel));
    assert_eq!(search.libdevice(), Some(lib));
}

#[test]
fn neither_the_current_directory_nor_relative_path_entries_are_searched() {
    let root = scratch("locate-cwd");
    std::fs::create_dir_all(root.join(".tools/cuda/bin")).unwrap();
    script(&root.join(".tools/cuda/bin"), "ptxas", "exit 0");
    script(&root, "ptxas", "exit 0");
    file(&root.join(".tools/cuda/nvvm/libdevice").join(LIBDEVICE_FILE));
    // The test runs with its package directory as the current directory; a relative PATH
    // entry (`.`, or the empty entry a shell reads as `.`) is what would find ./ptxas.
    let search = Search {
        path: Some(OsString::from(".:")),
        ..Search::default()
    };
    let cwd = std::env::current_dir().unwrap();
    std::env::set_current_dir(&root).unwrap();
    let (ptxas, libdevice) = (search.ptxas(), search.libdevice());
    std::env::set_current_dir(cwd).unwrap();
    assert_eq!(ptxas, None);
    assert_eq!(libdevice, None);
}

#[test]
fn a_file_that_is_not_executable_is_not_ptxas() {
    let root = scratch("locate-mode");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/ptxas"), "not a program").unwrap();
    let search = Search {
        cuda_home: Some(root.clone().into()),
        ..Search::default()
    };
    assert_eq!(search.ptxas(), None);
}

#[test]
fn libdevice_is_searched_in_the_documented_order() {
    let root = scratch("locate-libdevice");
    let beside = file(&root.join("dist/bin").join(LIBDEVICE_FILE));
    let home = file(&root.join("cuda/nvvm/libdevice").join(LIBDEVICE_FILE));
    let mut search = Search {
        exe: Some(root.join("dist/bin/tritonc")),
        cuda_home: Some(root.join("cuda").into()),
        ..Search::default()
    };
    assert_eq!(search.libdevice(), Some(beside.clone()));
    std::fs::remove_file(&beside).unwrap();
    assert_eq!(search.libdevice(), Some(home.clone()));
    search.libdevice_var = Some(root.join("missing.bc").into());
    assert_eq!(search.libdevice(), None, "a wrong $TRITONC_LIBDEVICE is not replaced");
    search.libdevice_var = Some(home.clone().into());
    assert_eq!(search.libdevice(), Some(home));
}
