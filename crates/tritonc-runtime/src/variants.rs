//! A kernel's compiled variants built into a program, loaded together on one device:
//! what the launch functions `tritonc-build` generates call (docs/rust.md).
//!
//! Each variant is an [`EmbeddedBundle`] (its files as `&'static [u8]`, from
//! `include_bytes!`) with the name of its generated launch function. [`Variants::load`]
//! loads every variant that can run on the device; a launch then goes either to one
//! named variant ([`Variants::launch_variant`], what a typed per-variant function calls)
//! or to the most specialized variant whose assumptions the arguments satisfy
//! ([`Variants::launch`]). A launch no variant accepts is an error naming every
//! variant that exists and why each refused it.

use std::fmt;

use tritonc_bundle::Bundle;

use crate::args::{Arg, Grid, Stream};
use crate::check::{check_and_marshal, specialization_score, Violation};
use crate::device::Device;
use crate::error::{NoMatchingVariant, RuntimeError};
use crate::kernel::Kernel;

/// One compiled variant's files, built into the program.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedBundle {
    /// The name of the variant's launch function (`sm_90_1aaae5f9`), used in messages.
    pub name: &'static str,
    /// `bundle.json`.
    pub meta: &'static [u8],
    /// `kernel.ptx` (empty for an AMD bundle).
    pub ptx: &'static [u8],
    /// `kernel.cubin` (an AMD bundle's `kernel.hsaco`), when the bundle has one.
    pub binary: Option<&'static [u8]>,
}

impl EmbeddedBundle {
    /// The bundle, validated as [`Bundle::from_bytes`] validates one.
    pub fn bundle(&self) -> Result<Bundle, RuntimeError> {
        Ok(Bundle::from_bytes(self.meta, self.ptx, self.binary)?)
    }
}

/// One variant: its bundle, and the loaded kernel or why it cannot run on the device
/// (`kernel` is `None` with `unusable` also `None` only for [`Variants::unloaded`]).
#[derive(Debug)]
struct Slot {
    name: &'static str,
    bundle: Bundle,
    kernel: Option<Kernel>,
    unusable: Option<String>,
}

/// The variants of one kernel, loaded on one device.
#[derive(Debug)]
pub struct Variants {
    kernel: String,
    slots: Vec<Slot>,
    /// Slot indices in the order [`Variants::select`] tries them: by [`preference`],
    /// highest first (ties: declaration order).
    order: Vec<usize>,
}

/// Slot indices sorted by [`preference`], highest first, ties in declaration order.
fn preference_order(slots: &[Slot]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..slots.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(preference(&slots[i])));
    order
}

impl Variants {
    /// Reads every bundle and loads each that can run on `device` (an NVIDIA bundle for
    /// a newer GPU, or for the other vendor, stays unloaded and is reported as such when
    /// a launch would need it). An unreadable bundle is an error, and so is a set of
    /// which no variant can run here ([`RuntimeError::IncompatibleBundle`], with each
    /// variant's reason).
    pub fn load(
        device: &Device,
        kernel: &str,
        bundles: &[EmbeddedBundle],
    ) -> Result<Variants, RuntimeError> {
        let mut slots = Vec::with_capacity(bundles.len());
        for e in bundles {
            let bundle = e.bundle()?;
            let (kernel, unusable) = match device.load(&bundle) {
                Ok(k) => (Some(k), None),
                Err(RuntimeError::IncompatibleBundle { reason, .. }) => (None, Some(reason)),
                Err(other) => return Err(other),
            };
            slots.push(Slot {
                name: e.name,
                bundle,
                kernel,
                unusable,
            });
        }
        if !slots.is_empty() && slots.iter().all(|s| s.unusable.is_some()) {
            let reasons: Vec<String> = slots
                .iter()
                .map(|s| format!("{}: {}", s.name, s.unusable.as_deref().unwrap_or_default()))
                .collect();
            return Err(RuntimeError::IncompatibleBundle {
                entry: kernel.to_string(),
                reason: format!(
                    "no compiled variant runs on this GPU ({})",
                    reasons.join("; ")
                ),
            });
        }
        Ok(Variants {
            kernel: kernel.to_string(),
            order: preference_order(&slots),
            slots,
        })
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The variants' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.slots.iter().map(|s| s.name).collect()
    }

    /// Variant `index`'s bundle.
    pub fn bundle(&self, index: usize) -> Option<&Bundle> {
        self.slots.get(index).map(|s| &s.bundle)
    }

    /// Variant `index` as loaded (`None` when it cannot run on the device, or for
    /// [`Variants::unloaded`]).
    pub fn loaded(&self, index: usize) -> Option<&Kernel> {
        self.slots.get(index)?.kernel.as_ref()
    }

    /// Why variant `index` cannot run on the device, if it cannot.
    pub fn unusable(&self, index: usize) -> Option<&str> {
        self.slots.get(index)?.unusable.as_deref()
    }

    /// Each variant's code digest ([`tritonc_bundle::tuned::code_digest`]), in order: what
    /// [`tritonc_bundle::tuned::find_table`] matches a tuning table against.
    pub fn digests(&self) -> Vec<String> {
        self.slots
            .iter()
            .map(|s| tritonc_bundle::tuned::code_digest(&s.bundle))
            .collect()
    }

    /// The variant to launch for the actual autotune key values `key` and arguments
    /// `args` by a tuning table (`tritonc tune`, docs/tune.md): the config the dispatch
    /// rule of [`tritonc_bundle::tuned`] picks (exact, else nearest, else the first
    /// config), among the table's entries whose variants are all here (an entry measured
    /// on other code is left out), then the most specialized variant of that config —
    /// its meta-parameter values, warps and stages — whose assumptions `args` satisfy.
    /// `None` when no variant of the config accepts the arguments.
    pub fn select_tuned(
        &self,
        table: &tritonc_bundle::tuned::TuneTable,
        key: &std::collections::BTreeMap<String, serde_json::Value>,
        args: &[Arg],
    ) -> Option<(usize, tritonc_bundle::tuned::Choice)> {
        let table = table.usable(&self.digests());
        let (config, choice) = table.choose(key);
        let config = table.configs.get(config)?;
        let index = self.order.iter().copied().find(|&i| {
            let meta = &self.slots[i].bundle.meta;
            config.is_config_of(meta) && check_and_marshal(meta, args).is_ok()
        })?;
        Some((index, choice))
    }

    /// The variants without a device: every one is taken to run on the GPU, so
    /// [`Variants::select`] says which variant a launch with given arguments would use
    /// (or why none would) on a machine without one; launching is
    /// [`RuntimeError::NoDevice`].
    pub fn unloaded(kernel: &str, bundles: &[EmbeddedBundle]) -> Result<Variants, RuntimeError> {
        let slots = bundles
            .iter()
            .map(|e| {
                Ok(Slot {
                    name: e.name,
                    bundle: e.bundle()?,
                    kernel: None,
                    unusable: None,
                })
            })
            .collect::<Result<Vec<Slot>, RuntimeError>>()?;
        Ok(Variants {
            kernel: kernel.to_string(),
            order: preference_order(&slots),
            slots,
        })
    }

    /// Launches variant `index` on `stream` with one [`Arg`] per source parameter (the
    /// folded ones as [`Arg::AsCompiled`] or their compiled value). Arguments that break
    /// one of its assumptions are [`RuntimeError::SpecializationMiss`], which lists every
    /// variant and which of them would accept the arguments.
    pub fn launch_variant(
        &self,
        index: usize,
        stream: Stream,
        grid: Grid,
        args: &[Arg],
    ) -> Result<(), RuntimeError> {
        let Some(slot) = self.slots.get(index) else {
            return Err(RuntimeError::IncompatibleBundle {
                entry: self.kernel.clone(),
                reason: format!(
                    "there is no variant {index} ({} compiled)",
                    self.slots.len()
                ),
            });
        };
        let kernel = match (&slot.kernel, &slot.unusable) {
            (Some(k), _) => k,
            (None, Some(reason)) => {
                return Err(RuntimeError::IncompatibleBundle {
                    entry: format!("{} ({})", self.kernel, slot.name),
                    reason: reason.clone(),
                })
            }
            (None, None) => {
                // Unloaded variants: check as a launch would, then say there is no GPU.
                if let Err(violations) = check_and_marshal(&slot.bundle.meta, args) {
                    return Err(RuntimeError::SpecializationMiss(
                        self.miss(index, violations, args),
                    ));
                }
                return Err(RuntimeError::NoDevice {
                    reason: "these variants were not loaded on a GPU".into(),
                });
            }
        };
        match kernel.launch_on(stream, grid, args) {
            Err(RuntimeError::LaunchRefused(refusal)) => Err(RuntimeError::SpecializationMiss(
                self.miss(index, refusal.violations, args),
            )),
            other => other,
        }
    }

    /// Launches the most specialized variant that can run on the device and whose every
    /// assumption `args` satisfy, and returns its index. Among equally specialized ones
    /// it prefers a variant whose cubin runs on the GPU (rather than PTX compiled by the
    /// driver), then the newest target, then the first. When none
    /// does, [`RuntimeError::NoMatchingVariant`] names each variant with its reasons.
    pub fn launch(&self, stream: Stream, grid: Grid, args: &[Arg]) -> Result<usize, RuntimeError> {
        let index = self.select(args)?;
        self.launch_variant(index, stream, grid, args)?;
        Ok(index)
    }

    /// The variant [`Variants::launch`] would launch for `args`.
    pub fn select(&self, args: &[Arg]) -> Result<usize, RuntimeError> {
        // The variants in preference order: the first that accepts is the choice, so a
        // launch the most wanted variant accepts costs one check.
        for &i in &self.order {
            let s = &self.slots[i];
            if s.unusable.is_none() && check_and_marshal(&s.bundle.meta, args).is_ok() {
                return Ok(i);
            }
        }
        Err(RuntimeError::NoMatchingVariant(NoMatchingVariant {
            refusals: (0..self.slots.len())
                .map(|i| {
                    let why = match &self.slots[i].unusable {
                        Some(reason) => vec![format!("cannot run on this GPU: {reason}")],
                        None => match check_and_marshal(&self.slots[i].bundle.meta, args) {
                            Err(v) => v.iter().map(Violation::to_string).collect(),
                            Ok(_) => Vec::new(),
                        },
                    };
                    (self.label(i), why)
                })
                .collect(),
        }))
    }

    /// `NAME: KEY` for variant `index`, as messages name it.
    fn label(&self, index: usize) -> String {
        let s = &self.slots[index];
        format!("{}: {}", s.name, s.bundle.meta.key)
    }

    fn miss(&self, index: usize, violations: Vec<Violation>, args: &[Arg]) -> SpecializationMiss {
        let others = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let accepts =
                    s.unusable.is_none() && check_and_marshal(&s.bundle.meta, args).is_ok();
                (self.label(i), accepts)
            })
            .collect();
        SpecializationMiss {
            kernel: self.kernel.clone(),
            variant: self.label(index),
            violations,
            variants: others,
        }
    }
}

/// How much [`Variants::select`] wants a variant that accepts the arguments: its
/// specialization score, then whether its cubin was loaded, then its compute capability.
fn preference(s: &Slot) -> (usize, bool, u32) {
    let cubin = s
        .kernel
        .as_ref()
        .is_some_and(|k| k.code() == crate::select::CodeChoice::Cubin);
    let cc = tritonc_bundle::parse_sm(&s.bundle.meta.target).map_or(0, |(a, b, _)| a * 10 + b);
    (specialization_score(&s.bundle.meta), cubin, cc)
}

/// A launch of one named variant with arguments that break its assumptions.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecializationMiss {
    /// The kernel.
    pub kernel: String,
    /// The variant asked for, as `NAME: KEY`.
    pub variant: String,
    /// What the arguments break.
    pub violations: Vec<Violation>,
    /// Every compiled variant of the kernel (`NAME: KEY`), and whether it would accept
    /// these arguments on this GPU.
    pub variants: Vec<(String, bool)>,
}

impl fmt::Display for SpecializationMiss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "launch refused: variant {} of `{}` was not compiled for these arguments",
            self.variant, self.kernel
        )?;
        for v in &self.violations {
            write!(f, "\n  - {v}")?;
        }
        write!(f, "\n  compiled variants of `{}`:", self.kernel)?;
        for (name, accepts) in &self.variants {
            let mark = if *accepts {
                "  (accepts these arguments)"
            } else {
                ""
            };
            write!(f, "\n    {name}{mark}")?;
        }
        Ok(())
    }
}
