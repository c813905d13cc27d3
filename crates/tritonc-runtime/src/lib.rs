//! Loads tritonc bundles and launches them on NVIDIA GPUs (CUDA) and, with the `hip`
//! cargo feature, on AMD GPUs (HIP).
//!
//! The CUDA driver (libcuda) is loaded at run time, so this crate builds and its
//! GPU-free parts (argument checks, marshalling, variant selection) run on machines
//! without CUDA; [`Device::open`] reports [`RuntimeError::NoDriver`] there.
//!
//! Both backends sit behind the same types: a [`Device`] opened on a [`Backend`]
//! ([`Device::open_on`]), its buffers, and the [`Kernel`]s loaded from bundles. The
//! argument checks and marshalling, variant selection, scratch allocation and timing are
//! shared; each backend only allocates, copies, loads code and launches. The `hip`
//! feature links libamdhip64 (Debian's `libamdhip64-dev`); without an AMD GPU,
//! [`Device::open_on`]`(Backend::Hip, _)` is [`RuntimeError::NoHipDevice`] (exit 3), and
//! in a build without the feature [`RuntimeError::BackendNotBuilt`] (exit 4).
//!
//! The flow: open a [`Device`], read a [`Bundle`], [`Device::load`] it, put data on the
//! GPU with [`Device::upload`], then launch with one [`Arg`] per source parameter of the
//! kernel (constexprs included). Before anything reaches the GPU every specialization
//! assumption of the bundle is checked: `:16` pointers are 16-byte aligned, `:16` ints
//! divisible by 16, `:1` ints equal to 1, tensors hold the compiled pointee dtype, and
//! constexprs have the compiled value; a launch that breaks one is refused with
//! [`RuntimeError::LaunchRefused`], naming each broken assumption.
//!
//! ```no_run
//! use std::path::Path;
//! use tritonc_runtime::{Arg, Bundle, Device, Grid};
//!
//! let dev = Device::open(0)?;
//! let kernel = dev.load(&Bundle::read_dir(Path::new("bundles/add_kernel-0123456789abcdef.tcb"))?)?;
//! let n = 1 << 20;
//! let x = dev.upload(&vec![1.0f32; n])?;
//! let y = dev.upload(&vec![2.0f32; n])?;
//! let out = dev.alloc_zeroed(tritonc_runtime::DType::F32, n as u64)?;
//! // add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr)
//! let args = [x.arg(), y.arg(), out.arg(), Arg::Int(n as i64), Arg::Int(1024)];
//! kernel.launch(Grid::x((n as u32).div_ceil(1024)), &args)?;
//! let result: Vec<f32> = out.to_vec()?;
//! assert!(result.iter().all(|&v| v == 3.0));
//! # Ok::<(), tritonc_runtime::RuntimeError>(())
//! ```
//!
//! Errors map onto the CLI's exit codes through [`RuntimeError::exit_code`]: a refused
//! launch or an unusable bundle is an input error (2), a missing driver, GPU or device
//! memory is 3, a backend this build lacks is 4, a driver failure on code tritonc
//! generated is internal (70).

mod args;
mod backend;
mod check;
#[cfg(feature = "cuda")]
mod cuda;
mod device;
mod error;
#[cfg(feature = "hip")]
mod hip;
mod kernel;
mod select;
mod timing;
mod variants;

pub use args::{Arg, DevicePtr, Grid, Stream};
pub use backend::{default_backend, set_default_backend, Backend};
pub use check::{check_and_marshal, specialization_score, ParamBuffer, Violation};
pub use device::{Device, DeviceBuffer, HostElement};
pub use error::{exit, LaunchRefusal, NoMatchingVariant, RuntimeError};
pub use kernel::{Kernel, LaunchTimings, PreparedLaunch};
pub use select::{
    amd_code_for_device, check_ptx_driver, code_for_bundle, code_for_device, select_variant, select_variant_on,
    CodeChoice,
};
pub use tritonc_bundle::{Bundle, BundleMeta, ConstValue};
pub use timing::{median, L2Flush, TimingMethod};
pub use variants::{EmbeddedBundle, SpecializationMiss, Variants};
pub use tritonc_ir::DType;
