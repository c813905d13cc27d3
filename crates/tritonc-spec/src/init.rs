//! A tensor's storage bytes from its initializer: generated in parallel chunks straight
//! into the dtype's bytes, so a tensor of billions of elements (past 2^31, for `tritonc
//! verify`'s large inputs) costs its bytes and no more: no f64 copy of the whole tensor.
//!
//! Every chunk draws from the random stream at its own position (SplitMix64 skips ahead
//! in O(1)), so the values are those of one sequential pass: element `i` of `randn` is the
//! `i`-th normal of the tensor's stream, and the special values (NaN, ±inf) come from the
//! draws that follow the initializer's. A tensor of zeros without special values is
//! allocated zeroed and never written: its pages stay unmapped until something reads or
//! writes them.

use rayon::prelude::*;
use tritonc_interp::Buffer;
use tritonc_ir::DType;

use crate::parse::{Init, Specials};
use crate::rng::SplitMix64;

/// Elements per chunk. Even, so a Box–Muller pair never straddles two chunks.
const CHUNK: usize = 1 << 16;

/// How a tensor's storage is filled.
pub(crate) enum Source<'a> {
    /// From the initializer.
    Init(&'a Init),
    /// From values already in storage order (a `.npy` file scattered into the view).
    Values(Vec<f64>),
}

/// The bytes of `len` elements of `dtype`, from `source` and the tensor's random stream
/// `rng`, with `specials` applied.
pub(crate) fn storage_bytes(
    dtype: DType,
    len: usize,
    source: Source<'_>,
    rng: &SplitMix64,
    specials: &Specials,
) -> Vec<u8> {
    let elem = element_size(dtype);
    let mut bytes = vec![0u8; len * elem];
    let has_specials = specials.nan + specials.inf + specials.neg_inf > 0.0;
    // The specials' draws follow the initializer's.
    let specials_rng = match &source {
        Source::Init(init) => rng.skipped(draws(init, len)),
        Source::Values(_) => rng.clone(),
    };
    if matches!(source, Source::Init(Init::Zeros)) && !has_specials {
        return bytes;
    }
    bytes
        .par_chunks_mut(CHUNK * elem)
        .enumerate()
        .for_each(|(c, out)| {
            let start = c * CHUNK;
            let n = out.len() / elem;
            let mut values = match &source {
                Source::Init(init) => chunk_values(init, rng, start, n),
                Source::Values(v) => v[start..start + n].to_vec(),
            };
            if has_specials {
                let mut r = specials_rng.skipped(start as u64);
                for v in &mut values {
                    let u = r.uniform();
                    if u < specials.nan {
                        *v = f64::NAN;
                    } else if u < specials.nan + specials.inf {
                        *v = f64::INFINITY;
                    } else if u < specials.nan + specials.inf + specials.neg_inf {
                        *v = f64::NEG_INFINITY;
                    }
                }
            }
            out.copy_from_slice(&Buffer::from_f64("", dtype, &values).bytes);
        });
    bytes
}

/// Bytes per element as the interpreter stores `dtype` (`i1` takes a byte).
pub(crate) fn element_size(dtype: DType) -> usize {
    Buffer::from_f64("", dtype, &[0.0]).bytes.len()
}

/// The random draws `init` takes for `len` elements.
fn draws(init: &Init, len: usize) -> u64 {
    match init {
        // Normals come in Box–Muller pairs from two draws each.
        Init::Randn { .. } => 2 * len.div_ceil(2) as u64,
        Init::Rand { .. } | Init::Randint { .. } => len as u64,
        Init::Zeros | Init::Ones | Init::Full(_) | Init::Arange | Init::Npy(_) => 0,
    }
}

/// Elements `start .. start + n` of `init`'s values (`start` even).
fn chunk_values(init: &Init, rng: &SplitMix64, start: usize, n: usize) -> Vec<f64> {
    let mut r = rng.skipped(start as u64);
    match init {
        Init::Zeros | Init::Npy(_) => vec![0.0; n],
        Init::Ones => vec![1.0; n],
        Init::Full(v) => vec![*v; n],
        Init::Arange => (start..start + n).map(|i| i as f64).collect(),
        Init::Randn { mean, std } => (0..n).map(|_| mean + std * r.normal()).collect(),
        Init::Rand { low, high } => (0..n).map(|_| low + (high - low) * r.uniform()).collect(),
        Init::Randint { low, high } => {
            let span = (high - low).max(1) as u64;
            (0..n)
                .map(|_| (*low + (r.next_u64() % span) as i64) as f64)
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One sequential pass, the definition the chunks must reproduce.
    fn sequential(dtype: DType, len: usize, init: &Init, seed: u64, s: &Specials) -> Vec<u8> {
        let mut r = SplitMix64::new(seed);
        let mut v: Vec<f64> = (0..len)
            .map(|i| match init {
                Init::Randn { mean, std } => mean + std * r.normal(),
                Init::Rand { low, high } => low + (high - low) * r.uniform(),
                Init::Randint { low, high } => {
                    (*low + (r.next_u64() % (high - low).max(1) as u64) as i64) as f64
                }
                Init::Arange => i as f64,
                _ => 0.0,
            })
            .collect();
        for x in &mut v {
            let u = r.uniform();
            if u < s.nan {
                *x = f64::NAN;
            } else if u < s.nan + s.inf {
                *x = f64::INFINITY;
            } else if u < s.nan + s.inf + s.neg_inf {
                *x = f64::NEG_INFINITY;
            }
        }
        Buffer::from_f64("", dtype, &v).bytes
    }

    #[test]
    fn chunks_give_the_values_of_one_sequential_pass() {
        let specials = Specials {
            nan: 0.01,
            inf: 0.005,
            neg_inf: 0.005,
        };
        let none = Specials::default();
        let len = 3 * CHUNK + 7; // odd, and past several chunk boundaries
        for (init, dtype) in [
            (
                Init::Randn {
                    mean: 0.5,
                    std: 2.0,
                },
                DType::F16,
            ),
            (
                Init::Rand {
                    low: -1.0,
                    high: 3.0,
                },
                DType::F32,
            ),
            (Init::Randint { low: -5, high: 9 }, DType::I8),
            (Init::Arange, DType::BF16),
        ] {
            for s in [&none, &specials] {
                let got = storage_bytes(dtype, len, Source::Init(&init), &SplitMix64::new(7), s);
                let want = sequential(dtype, len, &init, 7, s);
                assert_eq!(got.len(), want.len(), "{init:?}");
                assert!(got == want, "{init:?} {s:?}: the chunked values differ");
            }
        }
    }

    #[test]
    fn a_zero_tensor_of_gigabytes_is_allocated_without_being_written() {
        // 3 GiB of fp16 zeros: the allocation is virtual until touched. Resident memory
        // must not grow by anything like its size.
        let rss = || -> Option<u64> {
            let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
            let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
            Some(pages * 4096)
        };
        let before = rss();
        let len = 3usize << 29; // 1.5 Gi elements
        let b = storage_bytes(
            DType::F16,
            len,
            Source::Init(&Init::Zeros),
            &SplitMix64::new(0),
            &Specials::default(),
        );
        assert_eq!(b.len(), 2 * len);
        assert_eq!(b[len], 0);
        if let (Some(a), Some(z)) = (before, rss()) {
            assert!(z.saturating_sub(a) < 256 << 20, "resident grew {}", z - a);
        }
    }
}
