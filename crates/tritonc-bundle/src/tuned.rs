//! Tuning tables: the winners `tritonc tune` measured for an autotuned kernel, one per
//! value of the autotune `key`, stored next to the kernel's bundles and read by every
//! launcher (`tritonc run`, `tritonc-runtime`'s [`Variants`](../../tritonc_runtime/struct.Variants.html),
//! `tritonc_rt` in Python).
//!
//! A table is addressed by the kernel, the device model it was measured on, the target and
//! the configs (its file name, `KERNEL.tune-HASH.json`, [`TuneTable::file_name`]); each
//! entry records the [`code_digest`] of every variant it ran, so an entry measured on code
//! that is no longer there (a kernel recompiled from another source, with other options
//! or another toolchain) is never used: a reader keeps only the entries whose variants
//! it holds ([`TuneTable::usable`]).
//!
//! # The dispatch rule
//!
//! [`TuneTable::choose`] picks the config for the actual key values:
//! 1. a tuned entry whose key values are all equal to the actual ones: its winner;
//! 2. else, among entries whose non-numeric key values (dtypes, strings) are equal, the
//!    nearest: the smallest sum over numeric keys of `|log2(actual) - log2(tuned)|`
//!    (sizes that differ by the same factor are equally near; ties go to the entry tuned
//!    first); its winner;
//! 3. else (no entry fits, or no table): the first config, as Triton's autotuner would
//!    launch before tuning, or the caller's own default.
//!
//! A launcher still checks the chosen variant's specialization against the actual
//! arguments; the rule only orders the candidates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bundle::Bundle;

/// The format version of a tuning table this crate writes and reads.
pub const TUNE_FORMAT_VERSION: u32 = 1;

/// The SHA-256 of a variant's code, hex: of `tritonc-code-v1`, NUL, the specialization
/// key hash, NUL, the PTX, NUL, the binary (cubin or code object; empty when absent).
/// What a tuning table records for each config and checks against the bundles present.
pub fn code_digest(bundle: &Bundle) -> String {
    let mut h = Sha256::new();
    h.update(b"tritonc-code-v1\0");
    h.update(bundle.meta.key_hash.as_bytes());
    h.update(b"\0");
    h.update(bundle.ptx.as_bytes());
    h.update(b"\0");
    if let Some(bin) = &bundle.cubin {
        h.update(bin);
    }
    hex(&h.finalize())
}

/// The SHA-256 of arbitrary text, hex (the digest of a config that has no bundle: the
/// interpreter runs the tile IR, whose printed form stands for the code).
pub fn text_digest(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"tritonc-ir-v1\0");
    h.update(text.as_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One autotune config as tuned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedConfig {
    /// `BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3`.
    pub label: String,
    /// The meta-parameter values the config sets.
    pub values: BTreeMap<String, serde_json::Value>,
    /// Warps per program.
    pub num_warps: u32,
    /// Pipelining stages.
    pub num_stages: u32,
}

impl TunedConfig {
    /// Whether `meta` is a variant of this config: its warps, its stages and every
    /// meta-parameter value the config sets, folded into its code.
    pub fn is_config_of(&self, meta: &crate::BundleMeta) -> bool {
        meta.num_warps == self.num_warps
            && meta.key.num_stages == self.num_stages
            && self.values.iter().all(|(name, v)| {
                meta.params.iter().any(|p| {
                    &p.name == name
                        && matches!(&p.role, crate::ParamRole::Constexpr(c) if const_is(c, v))
                })
            })
    }
}

/// Whether a folded constexpr is the JSON value a config sets.
fn const_is(c: &crate::ConstValue, v: &serde_json::Value) -> bool {
    use crate::ConstValue;
    match c {
        ConstValue::Int(i) => v.as_i64() == Some(*i),
        ConstValue::Bool(b) => v.as_bool() == Some(*b),
        ConstValue::Float(f) => v.as_f64() == Some(*f),
        _ => false,
    }
}

/// The code one config ran as, at one key value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedVariant {
    /// Its bundle directory name (`matmul_kernel-0123….tcb`); `None` on the interpreter.
    pub bundle: Option<String>,
    /// [`code_digest`] of that bundle (on the interpreter, [`text_digest`] of the kernel
    /// file and the config).
    pub digest: String,
}

/// What became of one config at one key value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ConfigOutcome {
    /// Timed: the median and every round, in milliseconds.
    Timed {
        /// Median over the rounds.
        median_ms: f64,
        /// Each round.
        rounds_ms: Vec<f64>,
    },
    /// Removed by `prune_configs_by` before running.
    Pruned,
    /// Its output differed from the reference's: reported, never chosen.
    Wrong {
        /// What differed (tensor, element, values).
        detail: String,
    },
    /// It did not run (refused, failed to compile or launch).
    Failed {
        /// Why.
        detail: String,
    },
}

/// The tuning result for one value of the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneEntry {
    /// The key's values: ints for sizes, strings for anything else (dtypes).
    pub key: BTreeMap<String, serde_json::Value>,
    /// The index of the winning config.
    pub winner: usize,
    /// Every config's outcome, in config order.
    pub outcomes: Vec<ConfigOutcome>,
    /// The reference the outputs were checked against (`config 0`, `interpreter`).
    pub reference: String,
    /// The variant each config ran as (`None`: pruned, or never prepared).
    pub variants: Vec<Option<TunedVariant>>,
}

impl TuneEntry {
    /// Whether every variant it ran is among `digests` (the code a reader holds).
    pub fn usable(&self, digests: &[String]) -> bool {
        self.variants
            .iter()
            .flatten()
            .all(|v| digests.contains(&v.digest))
    }
}

/// A kernel's tuning table on one device model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneTable {
    /// [`TUNE_FORMAT_VERSION`].
    pub format_version: u32,
    /// The kernel.
    pub kernel: String,
    /// The device model it was measured on (`NVIDIA H200`, `interpreter`).
    pub device: String,
    /// The target the variants were compiled for (`sm_90`).
    pub target: String,
    /// The autotune key's parameter names.
    pub key: Vec<String>,
    /// The configs, in the decorator's order.
    pub configs: Vec<TunedConfig>,
    /// One entry per key value tuned.
    pub entries: Vec<TuneEntry>,
    /// How the configs were timed (warm-up, rounds, L2 flush).
    pub method: String,
}

/// How [`TuneTable::choose`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// The entry for exactly these key values.
    Exact(usize),
    /// The nearest tuned key values (entry index).
    Nearest(usize),
    /// No entry fits: the first config.
    Default,
}

impl Choice {
    /// The entry it took its winner from.
    pub fn entry(&self) -> Option<usize> {
        match self {
            Choice::Exact(i) | Choice::Nearest(i) => Some(*i),
            Choice::Default => None,
        }
    }
}

impl TuneTable {
    /// The file name: `KERNEL.tune-` and 16 hex digits of the SHA-256 of the kernel, the
    /// device model, the target and every config's label.
    pub fn file_name(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"tritonc-tune-v1\0");
        for part in [&self.kernel, &self.device, &self.target] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        for c in &self.configs {
            h.update(c.label.as_bytes());
            h.update(b"\0");
        }
        let digest = hex(&h.finalize());
        format!("{}.tune-{}.json", self.kernel, &digest[..16])
    }

    /// The table with only the entries whose variants are all among `digests`.
    pub fn usable(&self, digests: &[String]) -> TuneTable {
        TuneTable {
            entries: self
                .entries
                .iter()
                .filter(|e| e.usable(digests))
                .cloned()
                .collect(),
            ..self.clone()
        }
    }

    /// The entry for exactly `key`.
    pub fn entry(&self, key: &BTreeMap<String, serde_json::Value>) -> Option<&TuneEntry> {
        self.entries.iter().find(|e| &e.key == key)
    }

    /// Records `entry`, replacing an earlier one for the same key values.
    pub fn record(&mut self, entry: TuneEntry) {
        match self.entries.iter_mut().find(|e| e.key == entry.key) {
            Some(slot) => *slot = entry,
            None => self.entries.push(entry),
        }
    }

    /// The config to launch for the actual key values `key` (the module's dispatch
    /// rule), with how it was decided.
    pub fn choose(&self, key: &BTreeMap<String, serde_json::Value>) -> (usize, Choice) {
        if let Some(i) = self.entries.iter().position(|e| &e.key == key) {
            return (self.entries[i].winner, Choice::Exact(i));
        }
        let mut best: Option<(f64, usize)> = None;
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(d) = key_distance(key, &e.key) {
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, i));
                }
            }
        }
        match best {
            Some((_, i)) => (self.entries[i].winner, Choice::Nearest(i)),
            None => (0, Choice::Default),
        }
    }

    /// Writes the table to `dir/`[`file_name`](Self::file_name), merging the entries of
    /// a table already there (entries of this table win); returns the path.
    pub fn write_merged(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let path = dir.join(self.file_name());
        let mut merged = match read_table(&path) {
            Some(old) if old.configs == self.configs => old,
            _ => TuneTable {
                entries: Vec::new(),
                ..self.clone()
            },
        };
        merged.method = self.method.clone();
        for e in &self.entries {
            merged.record(e.clone());
        }
        std::fs::create_dir_all(dir)?;
        let text = serde_json::to_string_pretty(&merged).map_err(std::io::Error::other)?;
        // Written whole then renamed: a reader never sees half a table.
        let tmp = dir.join(format!(".{}.{}", self.file_name(), std::process::id()));
        std::fs::write(&tmp, text + "\n")?;
        std::fs::rename(&tmp, &path)?;
        Ok(path)
    }
}

/// The distance of the dispatch rule between actual key values and tuned ones: `None`
/// when a non-numeric value differs or the names differ.
fn key_distance(
    actual: &BTreeMap<String, serde_json::Value>,
    tuned: &BTreeMap<String, serde_json::Value>,
) -> Option<f64> {
    if actual.len() != tuned.len() {
        return None;
    }
    let mut d = 0.0;
    for (name, a) in actual {
        let t = tuned.get(name)?;
        match (a.as_f64(), t.as_f64()) {
            (Some(a), Some(t)) => {
                let log = |v: f64| v.abs().max(1.0).log2();
                d += (log(a) - log(t)).abs();
            }
            _ if a == t => {}
            _ => return None,
        }
    }
    Some(d)
}

/// Every table of `kernel` in `dir` (`KERNEL.tune-*.json`, any device model), in file
/// name order; unreadable files and other formats are left out.
pub fn tables_in(dir: &Path, kernel: &str) -> Vec<TuneTable> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let prefix = format!("{kernel}.tune-");
    let mut names: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        })
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|p| read_table(p))
        .filter(|t| t.kernel == kernel)
        .collect()
}

/// Reads one table file; `None` when it is missing or not a table of this format.
pub fn read_table(path: &Path) -> Option<TuneTable> {
    let text = std::fs::read_to_string(path).ok()?;
    let t: TuneTable = serde_json::from_str(&text).ok()?;
    (t.format_version == TUNE_FORMAT_VERSION).then_some(t)
}

/// The table of `kernel` in `dir` measured on `device`, with only the entries whose
/// variants are among `digests` (the file with the most such entries, when several).
pub fn find_table(dir: &Path, kernel: &str, device: &str, digests: &[String]) -> Option<TuneTable> {
    let prefix = format!("{kernel}.tune-");
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        })
        .collect();
    names.sort();
    let mut best: Option<TuneTable> = None;
    for t in names.iter().filter_map(|p| read_table(p)) {
        if t.kernel != kernel || t.device != device {
            continue;
        }
        let t = t.usable(digests);
        if best.as_ref().is_none_or(|b| t.entries.len() > b.entries.len()) {
            best = Some(t);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(m: i64, dtype: &str) -> BTreeMap<String, serde_json::Value> {
        [("M".to_string(), json!(m)), ("dt".to_string(), json!(dtype))]
            .into_iter()
            .collect()
    }

    fn table(entries: &[(i64, &str, usize)]) -> TuneTable {
        TuneTable {
            format_version: TUNE_FORMAT_VERSION,
            kernel: "k".into(),
            device: "NVIDIA H200".into(),
            target: "sm_90".into(),
            key: vec!["M".into(), "dt".into()],
            configs: (0..3)
                .map(|i| TunedConfig {
                    label: format!("BLOCK={}", 16 << i),
                    values: [("BLOCK".to_string(), json!(16 << i))].into_iter().collect(),
                    num_warps: 4,
                    num_stages: 3,
                })
                .collect(),
            entries: entries
                .iter()
                .map(|&(m, dt, winner)| TuneEntry {
                    key: key(m, dt),
                    winner,
                    outcomes: Vec::new(),
                    reference: "config 0".into(),
                    variants: (0..3)
                        .map(|i| {
                            Some(TunedVariant {
                                bundle: None,
                                digest: format!("d{i}-{m}"),
                            })
                        })
                        .collect(),
                })
                .collect(),
            method: String::new(),
        }
    }

    #[test]
    fn exact_then_nearest_by_log_distance_then_the_first_config() {
        let t = table(&[(1024, "fp16", 1), (8192, "fp16", 2), (4096, "fp32", 0)]);
        assert_eq!(t.choose(&key(1024, "fp16")), (1, Choice::Exact(0)));
        // 2048 is one doubling from 1024 and two from 8192.
        assert_eq!(t.choose(&key(2048, "fp16")), (1, Choice::Nearest(0)));
        // 5000 is nearer 8192 (log2 ratio 0.71) than 1024 (2.29); fp32's entry is
        // nearer still but of another dtype.
        assert_eq!(t.choose(&key(5000, "fp16")), (2, Choice::Nearest(1)));
        // Equally far (512 and 2048 around 1024 only): the entry tuned first wins ties.
        let tie = table(&[(512, "fp16", 2), (2048, "fp16", 1)]);
        assert_eq!(tie.choose(&key(1024, "fp16")), (2, Choice::Nearest(0)));
        // No entry of this dtype: the first config.
        assert_eq!(t.choose(&key(1024, "bf16")), (0, Choice::Default));
    }

    #[test]
    fn the_file_name_addresses_device_and_configs_and_stale_entries_are_left_out() {
        let t = table(&[(1024, "fp16", 1)]);
        let mut other_device = t.clone();
        other_device.device = "NVIDIA A100".into();
        let mut other_configs = t.clone();
        other_configs.configs[2].label = "BLOCK=4096".into();
        assert_ne!(t.file_name(), other_device.file_name());
        assert_ne!(t.file_name(), other_configs.file_name());
        assert!(t.file_name().starts_with("k.tune-"));
        let dir = std::env::temp_dir().join(format!("tritonc-tune-table-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        t.write_merged(&dir).unwrap();
        table(&[(2048, "fp16", 2), (1024, "fp16", 0)]).write_merged(&dir).unwrap();
        let digests: Vec<String> = [1024, 2048]
            .iter()
            .flat_map(|m| (0..3).map(move |i| format!("d{i}-{m}")))
            .collect();
        let read = find_table(&dir, "k", "NVIDIA H200", &digests).expect("the table is found");
        assert_eq!(read.entries.len(), 2);
        assert_eq!(read.entry(&key(1024, "fp16")).unwrap().winner, 0, "the later tuning replaces");
        assert_eq!(read.entry(&key(2048, "fp16")).unwrap().winner, 2);
        assert!(find_table(&dir, "k", "NVIDIA A100", &digests).is_none());
        // The code of 2048's variants is gone (recompiled): its entry is not used, and
        // 2048 now takes the nearest usable entry's winner.
        let read = find_table(&dir, "k", "NVIDIA H200", &digests[..3]).expect("found");
        assert_eq!(read.entries.len(), 1);
        assert_eq!(read.choose(&key(2048, "fp16")), (0, Choice::Nearest(0)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
