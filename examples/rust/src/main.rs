//! Adds two vectors with `add_kernel` from `examples/vector_add.py`, compiled ahead of
//! time and built into this program, on memory and a stream the program owns (docs/rust.md).
//!
//! The bundle under `kernels/` comes from
//! `tritonc compile examples/vector_add.py --target sm_90 -o OUT` (renamed to
//! `add_kernel.tcb`). Exit status: 0 when every sum is right, 1 when one is not, and the
//! runtime's exit code on an error (3: no NVIDIA driver or GPU).

use std::process::ExitCode;

use cudarc::driver::{CudaContext, DevicePtr as _};
use tritonc_runtime::{Arg, Bundle, DType, Device, DevicePtr, Grid, RuntimeError, Stream};

/// `add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE)` compiled for sm_90 as
/// `*fp32:16, *fp32:16, *fp32:16, i32:16, 1024`.
pub fn bundle() -> Result<Bundle, RuntimeError> {
    Ok(Bundle::from_bytes(
        include_bytes!("../kernels/add_kernel.tcb/bundle.json"),
        include_bytes!("../kernels/add_kernel.tcb/kernel.ptx"),
        Some(include_bytes!("../kernels/add_kernel.tcb/kernel.cubin")),
    )?)
}

/// Elements per program: the bundle's `BLOCK_SIZE`.
const BLOCK_SIZE: usize = 1024;

/// What can fail: the runtime, or the caller's own CUDA calls.
#[derive(Debug)]
pub enum Error {
    /// tritonc-runtime refused or failed (its exit code says how).
    Runtime(RuntimeError),
    /// The program's own CUDA code failed.
    Cuda(cudarc::driver::DriverError),
}

impl From<RuntimeError> for Error {
    fn from(e: RuntimeError) -> Self {
        Error::Runtime(e)
    }
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        Error::Cuda(e)
    }
}

/// Adds `i` and `i / 2` for `n` elements (a multiple of 16: the bundle assumes `:16`) on
/// GPU 0; returns how many sums are right.
pub fn run(n: usize) -> Result<usize, Error> {
    // First, because it reports a missing driver or GPU as an error value.
    let device = Device::open(0)?;
    let kernel = device.load(&bundle()?)?;

    // The program's own CUDA code (here cudarc) owns the memory and the stream. Both
    // live in GPU 0's primary context, the one `Device::open` uses.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| i as f32 / 2.0).collect();
    let dx = stream.clone_htod(&x)?;
    let dy = stream.clone_htod(&y)?;
    let mut dout = stream.alloc_zeros::<f32>(n)?;
    {
        let bytes = (n * 4) as u64;
        let ptr = |addr: u64| {
            Arg::Pointer(DevicePtr {
                addr,
                dtype: DType::F32,
                bytes,
            })
        };
        let (x_addr, _x) = dx.device_ptr(&stream);
        let (y_addr, _y) = dy.device_ptr(&stream);
        let (out_addr, _out) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut dout, &stream);
        // One argument per source parameter, the constexpr BLOCK_SIZE included; every
        // `:16` assumption is checked before the launch.
        let args = [
            ptr(x_addr),
            ptr(y_addr),
            ptr(out_addr),
            Arg::Int(n as i64),
            Arg::Int(BLOCK_SIZE as i64),
        ];
        // SAFETY: `stream` is a live stream of GPU 0's primary context and outlives the
        // launch call.
        let on = unsafe { Stream::from_raw(stream.cu_stream().cast()) };
        kernel.launch_on(on, Grid::x(n.div_ceil(BLOCK_SIZE) as u32), &args)?;
    }
    let out = stream.clone_dtoh(&dout)?;
    Ok(out
        .iter()
        .zip(x.iter().zip(&y))
        .filter(|(o, (a, b))| **o == *a + *b)
        .count())
}

fn main() -> ExitCode {
    const N: usize = 1 << 20;
    match run(N) {
        Ok(right) => {
            println!("{right} of {N} sums right");
            ExitCode::from(if right == N { 0 } else { 1 })
        }
        Err(Error::Runtime(e)) => {
            eprintln!("add_kernel: {e}");
            ExitCode::from(e.exit_code())
        }
        Err(Error::Cuda(e)) => {
            eprintln!("add_kernel: CUDA: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_runtime::{check_and_marshal, Violation};

    #[test]
    fn docs_rust_md_shows_this_program() {
        let doc = include_str!("../../../docs/rust.md");
        let this = include_str!("main.rs");
        assert!(
            doc.contains(&format!("```rust\n{this}```")),
            "docs/rust.md is out of date"
        );
    }

    #[test]
    fn runs_up_to_the_device() {
        match run(4096) {
            Ok(right) => assert_eq!(right, 4096),
            Err(Error::Runtime(e)) => {
                assert!(
                    matches!(
                        e,
                        RuntimeError::NoDriver { .. } | RuntimeError::NoDevice { .. }
                    ),
                    "{e}"
                );
                assert_eq!(e.exit_code(), 3);
            }
            Err(Error::Cuda(e)) => panic!("{e}"),
        }
    }

    #[test]
    fn the_embedded_bundle_checks_arguments_against_its_signature() {
        let bundle = bundle().expect("the embedded bundle is valid");
        assert_eq!(bundle.meta.target, "sm_90");
        assert!(bundle.cubin.is_some());
        let at = |addr| {
            Arg::Pointer(DevicePtr {
                addr,
                dtype: DType::F32,
                bytes: 4096,
            })
        };
        let good = [
            at(0x1000),
            at(0x2000),
            at(0x3000),
            Arg::Int(1024),
            Arg::Int(1024),
        ];
        assert!(check_and_marshal(&bundle.meta, &good).is_ok());
        let bad = [
            at(0x1004),
            at(0x2000),
            at(0x3000),
            Arg::Int(1000),
            Arg::Int(512),
        ];
        let violations = check_and_marshal(&bundle.meta, &bad).unwrap_err();
        let text: Vec<String> = violations.iter().map(Violation::to_string).collect();
        assert_eq!(violations.len(), 3, "{text:?}");
        assert!(
            text[0].contains("`x_ptr` was specialized as 16-byte aligned"),
            "{text:?}"
        );
    }
}
