//! NVIDIA's tools as tritonc uses them.
//!
//! - [`locate`]: where ptxas and libdevice are, never relative to the current directory.
//! - [`Ptxas`]: the one way tritonc runs ptxas (assembling PTX, `--version`): in a scratch
//!   directory of its own, under a time bound and a memory bound ([`Bounds`],
//!   `TRITONC_PTXAS_TIMEOUT` and `TRITONC_PTXAS_MEMORY`), killed when the bound is hit.
//! - [`shutdown`]: kills every ptxas still running and removes the scratch directories.
//!
//! The library installs no signal handler: a program that wants ptxas killed when it is
//! interrupted calls [`shutdown`] from a handler of its own (the `tritonc` binary does, for
//! SIGINT and SIGTERM).

mod bounds;
mod children;
mod driver;
pub mod amd;
pub mod locate;

pub use bounds::{Bounds, MEMORY_VAR, MIN_MEMORY, TIMEOUT_VAR};
pub use children::{is_shutting_down, shutdown};
pub use driver::{Assembled, Ptxas, PtxasError, VERSION_TIME};
