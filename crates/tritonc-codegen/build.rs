//! Compiles cpp/registration.cpp: registration of exactly the MLIR dialects, interfaces,
//! translations and passes the NVIDIA pipeline uses (MLIR's C API can only register all
//! of them, which costs milliseconds per process; see src/context.rs).

use std::{env, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=cpp/registration.cpp");
    println!("cargo:rerun-if-changed=cpp/nvptx.cpp");
    println!("cargo:rerun-if-changed=cpp/amdgpu.cpp");
    println!("cargo:rerun-if-changed=cpp/llvm_steps.h");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    // The same LLVM 22 install mlir-sys links (.cargo/config.toml sets the prefix).
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let llvm_config = PathBuf::from(&prefix).join("bin").join("llvm-config");
    let output = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run {} ({error}): install LLVM/MLIR 22 (scripts/install-deps.sh) or \
                 set MLIR_SYS_220_PREFIX",
                llvm_config.display()
            )
        });
    assert!(
        output.status.success(),
        "{} --cxxflags failed",
        llvm_config.display()
    );
    let flags = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("cpp/registration.cpp")
        .file("cpp/nvptx.cpp")
        .file("cpp/amdgpu.cpp")
        .warnings(false);
    for flag in flags.split_whitespace() {
        build.flag(flag);
    }
    build.compile("tritonc_mlir_registration");
}
