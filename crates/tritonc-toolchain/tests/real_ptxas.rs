//! The ptxas driver's bounds against the real ptxas (`$TRITONC_PTXAS`, else the
//! checkout's `.tools/cuda/bin/ptxas`, else the documented search); each test says so
//! and passes when no ptxas is found. The inputs are small PTX files that make ptxas
//! itself go past a bound within a second or two, so the tests stay fast:
//!
//! - memory: `.reg .f32 %f<100000000>;` makes ptxas allocate its register tables up front
//!   (about 800 MB); under the smallest bound tritonc accepts (256 MiB of address space)
//!   ptxas fails with its own `Memory allocation failure` at once. The same kernel with
//!   10^6 registers assembles under that bound, so the bound, not the PTX, is what fails.
//! - time: a chain of 200,000 dependent `add.f32` keeps ptxas's optimizer busy for many
//!   seconds; a 1 s bound stops it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tritonc_toolchain::{Bounds, Ptxas, PtxasError, MIN_MEMORY};

fn real_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TRITONC_PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/cuda/bin/ptxas");
    if checkout.is_file() {
        return Some(checkout);
    }
    tritonc_toolchain::locate::find_ptxas()
}

/// The real ptxas, or `None` after saying the test is skipped.
fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    let found = real_ptxas();
    if found.is_none() {
        eprintln!("{test}: skipped, no ptxas found (set TRITONC_PTXAS)");
    }
    found
}

/// A kernel declaring `registers` f32 registers and using one.
fn many_registers(registers: u64) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry big(.param .u64 p)\n{{\n\
         \t.reg .f32 %f<{registers}>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n\
         \tst.global.f32 [%rd1+4], %f1;\n\tret;\n}}\n"
    )
}

#[test]
fn real_ptxas_past_its_memory_bound_is_out_of_memory_naming_the_bound() {
    let Some(path) = ptxas_or_skip("memory bound") else {
        return;
    };
    let bounds = Bounds {
        time: Some(Duration::from_secs(120)),
        memory: Some(MIN_MEMORY),
    };
    let ptxas = Ptxas::new(&path, bounds);
    let started = Instant::now();
    let err = ptxas
        .assemble(&many_registers(100_000_000), "sm_90")
        .expect_err("10^8 registers do not fit 256 MiB");
    assert!(matches!(err, PtxasError::OutOfMemory { .. }), "{err:?}");
    assert!(err.is_bound());
    let message = err.to_string();
    assert!(message.contains("memory bound of 256 MiB"), "{message}");
    assert!(message.contains("TRITONC_PTXAS_MEMORY"), "{message}");
    assert!(message.contains("Memory allocation failure"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );

    // The control: a kernel of the same shape that fits assembles under the same bound.
    let assembled = ptxas
        .assemble(&many_registers(1_000_000), "sm_90")
        .expect("10^6 registers fit 256 MiB");
    assert!(
        assembled.cubin.starts_with(b"\x7fELF"),
        "a cubin is an ELF file"
    );
}

#[test]
fn real_ptxas_past_its_time_bound_is_stopped() {
    let Some(path) = ptxas_or_skip("time bound") else {
        return;
    };
    let n = 200_000;
    let mut ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry chain(.param .u64 p)\n{{\n\t.reg .f32 %f<{}>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [p];\n\tld.global.f32 %f0, [%rd1];\n\
         \tld.global.f32 %f1, [%rd1+4];\n",
        n + 2
    );
    for i in 2..n + 2 {
        ptx.push_str(&format!("\tadd.f32 %f{i}, %f{}, %f{};\n", i - 1, i - 2));
    }
    ptx.push_str(&format!(
        "\tst.global.f32 [%rd1], %f{};\n\tret;\n}}\n",
        n + 1
    ));
    let ptxas = Ptxas::new(
        &path,
        Bounds {
            time: Some(Duration::from_secs(1)),
            memory: None,
        },
    );
    let started = Instant::now();
    let err = ptxas
        .assemble(&ptx, "sm_90")
        .expect_err("200,000 dependent adds take ptxas more than a second");
    assert!(matches!(err, PtxasError::TimedOut { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("time bound of 1 s"), "{message}");
    assert!(message.contains("TRITONC_PTXAS_TIMEOUT"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
