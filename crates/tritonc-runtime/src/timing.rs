//! Timing a launch the way tritonc's benchmarks do (`bench/gpu_bench.py`): untimed
//! warm-up launches, then rounds that each restore the inputs the caller names, flush
//! the L2 cache by writing a buffer larger than it, and time the launch alone between two
//! GPU events; the result is every round's time, summarised by its [`median`].
//! `tritonc tune` times autotune configs with it; a program comparing variants of its
//! own can too.
//!
//! ```no_run
//! # fn f(kernel: &tritonc_runtime::Kernel, args: &[tritonc_runtime::Arg]) -> Result<(), tritonc_runtime::RuntimeError> {
//! use tritonc_runtime::{median, L2Flush, TimingMethod};
//! let method = TimingMethod::default();
//! let flush = L2Flush::new(&kernel.device(), method.flush_bytes)?;
//! let mut launch = kernel.prepare(tritonc_runtime::Grid::x(4096), args)?;
//! let rounds = launch.time_rounds(&method, &flush, &mut || Ok(()))?;
//! println!("median {:.4} ms", median(&rounds));
//! # Ok(()) }
//! ```

use crate::device::{Device, DeviceBuffer};
use crate::error::RuntimeError;
use crate::kernel::PreparedLaunch;

/// How launches are timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingMethod {
    /// Untimed launches first (each after the inputs are restored).
    pub warmup: usize,
    /// Timed rounds.
    pub rounds: usize,
    /// Bytes written before every timed launch to evict it from L2 (0: no flush).
    pub flush_bytes: u64,
}

impl Default for TimingMethod {
    /// 3 warm-up launches, 25 rounds, 256 MiB flushed (an H100/H200 L2 is 50–60 MiB).
    fn default() -> Self {
        TimingMethod {
            warmup: 3,
            rounds: 25,
            flush_bytes: 256 << 20,
        }
    }
}

impl std::fmt::Display for TimingMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} warm-up launches, median of {} rounds, {} MiB written before each to flush L2, GPU events around the launch",
            self.warmup,
            self.rounds,
            self.flush_bytes >> 20
        )
    }
}

/// A buffer whose every byte is written before a timed launch, so that the launch
/// finds none of its data in the L2 cache.
#[derive(Debug)]
pub struct L2Flush {
    buffer: Option<DeviceBuffer>,
}

impl L2Flush {
    /// A flush of `bytes` bytes on `device` (0: none).
    pub fn new(device: &Device, bytes: u64) -> Result<L2Flush, RuntimeError> {
        let buffer = (bytes > 0)
            .then(|| device.alloc_zeroed(tritonc_ir::DType::I8, bytes))
            .transpose()?;
        Ok(L2Flush { buffer })
    }

    /// Writes the buffer (enqueued on the default stream, before what follows).
    pub fn flush(&self) -> Result<(), RuntimeError> {
        match &self.buffer {
            Some(b) => b.fill_bytes(0),
            None => Ok(()),
        }
    }
}

impl PreparedLaunch<'_> {
    /// Times this launch by `method`: `restore()` runs before every launch, warm-up
    /// included (it puts back what the kernel overwrites: the inputs an autotuner's
    /// `restore_value` names, the outputs `reset_to_zero` clears), then the L2 flush,
    /// then the launch between two events. Returns each round's GPU time in milliseconds.
    pub fn time_rounds(
        &mut self,
        method: &TimingMethod,
        flush: &L2Flush,
        restore: &mut dyn FnMut() -> Result<(), RuntimeError>,
    ) -> Result<Vec<f64>, RuntimeError> {
        for _ in 0..method.warmup {
            restore()?;
            self.launch()?;
        }
        let device = self.device();
        device.synchronize()?;
        let rounds = method.rounds.max(1);
        let events = device.api.events(2 * rounds)?;
        for i in 0..rounds {
            restore()?;
            flush.flush()?;
            self.bind()?;
            events.record(2 * i)?;
            self.launch_bound_default()?;
            events.record(2 * i + 1)?;
        }
        events.synchronize(2 * rounds - 1)?;
        (0..rounds)
            .map(|i| events.elapsed_ms(2 * i, 2 * i + 1).map(f64::from))
            .collect()
    }
}

/// The median of `values` (the mean of the middle two for an even count; NaN when
/// empty).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(super::median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(super::median(&[]).is_nan());
    }
}
