//! Autotuning without Python (`tritonc tune`): an autotuned kernel's configs, from its
//! `@triton.autotune` decorator ([`autotuned`]), pruned as `prune_configs_by` says
//! ([`prune`]), each launched with the tuning shapes of a launch spec ([`cases`]),
//! checked against a reference before it is timed ([`check`]), timed on a
//! [`bench::TuneBench`] — a GPU through the runtime, or the interpreter for tests — and
//! the fastest correct one recorded per key value in a tuning table next to the bundles
//! ([`tuner`], [`tritonc_bundle::tuned`]), which `tritonc run` and the launchers read
//! ([`dispatch`]).

pub mod autotuned;
pub mod bench;
pub mod cases;
pub mod check;
pub mod dispatch;
pub mod prune;
pub mod tuner;
