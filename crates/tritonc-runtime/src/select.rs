//! Choosing what to load and which variant to launch.

use tritonc_bundle::{parse_sm, Bundle, BundleMeta};

use crate::args::Arg;
use crate::check::{check_and_marshal, specialization_score};
use crate::error::{LaunchRefusal, NoMatchingVariant, RuntimeError};

/// Which code of a bundle the driver loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeChoice {
    /// The cubin, as ptxas produced it.
    Cubin,
    /// The PTX, compiled by the driver's JIT at load.
    Ptx,
}

/// Decides how a bundle for `meta.target` runs on a device of compute capability
/// `(major, minor)`: a cubin runs on the same major version with an equal or newer
/// minor; PTX runs on any equal or newer device; `sm_90a`-style targets only on exactly
/// their device.
pub fn code_for_device(
    meta: &BundleMeta,
    has_cubin: bool,
    device: (u32, u32),
) -> Result<CodeChoice, String> {
    let Some((major, minor, specific)) = parse_sm(&meta.target) else {
        return Err(format!("target `{}` is not of the form sm_XY", meta.target));
    };
    let device_name = format!("sm_{}{}", device.0, device.1);
    if specific && device != (major, minor) {
        return Err(format!(
            "it was compiled for {} (architecture-specific), the GPU is {device_name}",
            meta.target
        ));
    }
    if has_cubin && device.0 == major && device.1 >= minor {
        return Ok(CodeChoice::Cubin);
    }
    if device >= (major, minor) {
        return Ok(CodeChoice::Ptx);
    }
    Err(format!(
        "it was compiled for {}, newer than the GPU ({device_name})",
        meta.target
    ))
}

/// Picks the variant to launch: among bundles that can run on `device` (when given) and
/// whose every assumption holds for `args`, the most specialized (ties: the first).
/// With one bundle, a refusal is [`RuntimeError::LaunchRefused`] naming each violated
/// assumption; with several, [`RuntimeError::NoMatchingVariant`] says why each failed.
pub fn select_variant(
    bundles: &[Bundle],
    args: &[Arg],
    device: Option<(u32, u32)>,
) -> Result<usize, RuntimeError> {
    let mut best: Option<(usize, usize)> = None;
    let mut refusals = Vec::new();
    for (i, b) in bundles.iter().enumerate() {
        if let Some(cc) = device {
            if let Err(reason) = code_for_device(&b.meta, b.cubin.is_some(), cc) {
                if bundles.len() == 1 {
                    return Err(RuntimeError::IncompatibleBundle {
                        entry: b.meta.entry.clone(),
                        reason,
                    });
                }
                refusals.push((b.meta.key.to_string(), vec![reason]));
                continue;
            }
        }
        match check_and_marshal(&b.meta, args) {
            Ok(_) => {
                let score = specialization_score(&b.meta);
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((i, score));
                }
            }
            Err(violations) => {
                if bundles.len() == 1 {
                    return Err(RuntimeError::LaunchRefused(LaunchRefusal {
                        variant: b.meta.key.to_string(),
                        violations,
                    }));
                }
                refusals.push((
                    b.meta.key.to_string(),
                    violations.iter().map(|v| v.to_string()).collect(),
                ));
            }
        }
    }
    best.map(|(i, _)| i)
        .ok_or(RuntimeError::NoMatchingVariant(NoMatchingVariant {
            refusals,
        }))
}
