//! Adds two vectors with `add_kernel` from `examples/vector_add.py`, compiled by this
//! crate's build script (tritonc-build) for sm_80 and sm_90 and built into the program,
//! launched through the generated typed functions (docs/rust.md). Exit status: 0 when
//! every sum is right, 1 when one is not, the runtime's exit code on an error (3: no
//! NVIDIA driver or GPU).

use std::process::ExitCode;

use tritonc_runtime::{DType, Device, DevicePtr, Grid, RuntimeError, Stream};

// Module `add_kernel`: `Kernel::load`, a launch method per variant (`aligned_sm_80`,
// `aligned_sm_90`, `any_sm_80`, `any_sm_90`), `Kernel::launch`, which picks the variant
// from the arguments, and `variant_for`, which says which one it would pick.
include!(concat!(env!("OUT_DIR"), "/tritonc_kernels.rs"));

/// Elements per program: the `BLOCK_SIZE` both signatures compile in.
const BLOCK_SIZE: usize = 1024;

/// Adds `i` and `i / 2` for `n` elements on GPU 0, twice: on whole tensors through
/// `launch`, then one element in, through the `any_sm_80` variant. Returns how many
/// sums of the two launches are right (of `2n - 1`).
pub fn run(n: usize) -> Result<usize, RuntimeError> {
    let device = Device::open(0)?;
    let kernel = add_kernel::Kernel::load(&device)?;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| i as f32 / 2.0).collect();
    let (dx, dy) = (device.upload(&x)?, device.upload(&y)?);
    let out = device.alloc_zeroed(DType::F32, n as u64)?;
    let right = |out: &[f32], from: usize| (from..n).filter(|&i| out[i] == x[i] + y[i]).count();

    // Whole tensors (16-byte aligned, n divisible by 16): `launch` takes every source
    // parameter, constexpr included, and picks the most specialized variant that accepts
    // them and runs here: on an H100/H200 `aligned_sm_90`.
    let grid = Grid::x(n.div_ceil(BLOCK_SIZE) as u32);
    let (x_ptr, y_ptr, out_ptr) = (dx.ptr(), dy.ptr(), out.ptr());
    let chosen = kernel.launch(
        Stream::DEFAULT,
        grid,
        x_ptr,
        y_ptr,
        out_ptr,
        n as i64,
        BLOCK_SIZE as i64,
    )?;
    println!("launch chose {}", add_kernel::BUNDLES[chosen].name);
    let whole = right(&out.to_vec::<f32>()?, 0);

    // One element in: the views are 4 bytes past 16-byte alignment, which only the `any`
    // variants accept; a typed variant takes its passed parameters only (BLOCK_SIZE is
    // compiled in). `aligned_sm_90` would refuse these arguments, naming every variant.
    out.fill_bytes(0)?;
    let one_in = |p: DevicePtr| p.offset(1).expect("n > 1");
    let m = n - 1;
    kernel.any_sm_80(
        Stream::DEFAULT,
        Grid::x(m.div_ceil(BLOCK_SIZE) as u32),
        one_in(x_ptr),
        one_in(y_ptr),
        one_in(out_ptr),
        m as i32,
    )?;
    let shifted = right(&out.to_vec::<f32>()?, 1);
    Ok(whole + shifted)
}

fn main() -> ExitCode {
    const N: usize = 1 << 20;
    match run(N) {
        Ok(right) => {
            println!("{right} of {} sums right", 2 * N - 1);
            ExitCode::from(if right == 2 * N - 1 { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("add_kernel: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(addr: u64) -> DevicePtr {
        DevicePtr {
            addr,
            dtype: DType::F32,
            bytes: 1 << 20,
        }
    }

    #[test]
    fn docs_rust_md_shows_this_program_and_its_build_script() {
        let doc = include_str!("../../../docs/rust.md");
        for (name, text) in [
            ("main.rs", include_str!("main.rs")),
            ("build.rs", include_str!("../build.rs")),
        ] {
            assert!(
                doc.contains(&format!("```rust\n{text}```")),
                "docs/rust.md does not show examples/rust-build/{name} as it is"
            );
        }
    }

    #[test]
    fn runs_up_to_the_device() {
        match run(4096) {
            Ok(right) => assert_eq!(right, 2 * 4096 - 1),
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        RuntimeError::NoDriver { .. } | RuntimeError::NoDevice { .. }
                    ),
                    "{e}"
                );
                assert_eq!(e.exit_code(), 3);
            }
        }
    }

    #[test]
    fn every_variant_has_a_cubin_and_the_build_script_signature() {
        let names: Vec<&str> = add_kernel::BUNDLES.iter().map(|b| b.name).collect();
        assert_eq!(
            names,
            ["aligned_sm_80", "aligned_sm_90", "any_sm_80", "any_sm_90"]
        );
        for b in &add_kernel::BUNDLES {
            let bundle = b.bundle().expect("a valid bundle");
            assert!(bundle.cubin.is_some(), "{} has no cubin", b.name);
            let spec: Vec<String> = bundle
                .meta
                .key
                .args
                .iter()
                .map(|a| a.spec.to_string())
                .collect();
            let want = if b.name.starts_with("aligned") {
                ["*fp32:16", "*fp32:16", "*fp32:16", "i32:16", "1024"]
            } else {
                ["*fp32", "*fp32", "*fp32", "i32", "1024"]
            };
            assert_eq!(spec, want, "{}", b.name);
            assert_eq!(bundle.meta.target, &b.name[b.name.len() - 5..]);
        }
    }

    #[test]
    fn the_arguments_choose_the_variant() {
        let chosen = |x, n| add_kernel::variant_for(at(x), at(0x2000), at(0x3000), n, 1024);
        // Without a GPU every variant counts as runnable; the newest target wins a tie.
        assert_eq!(chosen(0x1000, 4096).unwrap(), "aligned_sm_90");
        assert_eq!(chosen(0x1004, 4096).unwrap(), "any_sm_90");
        assert_eq!(chosen(0x1000, 4095).unwrap(), "any_sm_90");
        // A constexpr no variant was compiled with: every variant named, with why.
        let e = add_kernel::variant_for(at(0x1000), at(0x2000), at(0x3000), 4096, 512).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("none of the 4 compiled variant(s)"), "{text}");
        for name in ["aligned_sm_80", "aligned_sm_90", "any_sm_80", "any_sm_90"] {
            assert!(text.contains(&format!("\n  {name}: add_kernel(")), "{text}");
        }
        assert!(text.contains("`BLOCK_SIZE`"), "{text}");
    }

    #[test]
    fn a_typed_variant_refuses_arguments_it_was_not_compiled_for() {
        let unloaded = tritonc_runtime::Variants::unloaded("add_kernel", &add_kernel::BUNDLES)
            .expect("valid bundles");
        let kernel = add_kernel::Kernel(unloaded);
        let e = kernel
            .aligned_sm_90(
                Stream::DEFAULT,
                Grid::x(4),
                at(0x1004),
                at(0x2000),
                at(0x3000),
                4096,
            )
            .unwrap_err();
        let RuntimeError::SpecializationMiss(miss) = &e else {
            panic!("{e}");
        };
        assert_eq!(miss.violations.len(), 1, "{e}");
        let accepting: Vec<&str> = miss
            .variants
            .iter()
            .filter(|(_, ok)| *ok)
            .map(|(name, _)| name.split(':').next().unwrap_or_default())
            .collect();
        assert_eq!(accepting, ["any_sm_80", "any_sm_90"], "{e}");
        let text = e.to_string();
        assert!(
            text.contains("`x_ptr` was specialized as 16-byte aligned"),
            "{text}"
        );
        assert!(
            text.contains("any_sm_80: add_kernel(x_ptr=*fp32, "),
            "{text}"
        );
        assert_eq!(e.exit_code(), 2);
    }
}
