//! The content-addressed cache of `tritonc compile` (see docs/backend-nvidia.md, "The
//! compile cache").
//!
//! An entry holds what code generation and ptxas produced for one kernel variant: the
//! PTX, the cubin and ptxas's report, and the launch facts of the code (entry name,
//! warps, shared memory). The bundle metadata is rebuilt from the specialization on a hit
//! exactly as on a miss, so a hit writes the same bytes.
//!
//! The key ([`CacheKey`]) hashes the tile IR printed without locations, the location
//! table (every op's `file:line:col`, which the PTX's `.loc` lines carry), the
//! specialization, the code-generation options and the [`Toolchain`]. Entries live in
//! `DIR/v1/XX/REST.entry`; a write goes to a temporary file renamed into place, so
//! concurrent compiles never see half an entry, and every entry carries a checksum, so a
//! damaged one is recompiled, never used.

mod entry;
mod key;
mod store;
mod toolchain;

pub use entry::{decode, encode, CachedCode};
pub use key::{location_table_hash, CacheKey, KeyInputs};
pub use store::{default_dir, CacheStats, KernelCache, Lookup};
pub use toolchain::Toolchain;
