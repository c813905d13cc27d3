//! Choosing what to load and which variant to launch.

use tritonc_bundle::{parse_gfx, parse_sm, Bundle, BundleMeta};

use crate::args::Arg;
use crate::backend::Backend;
use crate::check::{check_and_marshal, specialization_score};
use crate::device::Device;
use crate::error::{LaunchRefusal, NoMatchingVariant, RuntimeError};

/// Which code of a bundle the driver loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeChoice {
    /// The cubin, as ptxas produced it.
    Cubin,
    /// The PTX, compiled by the driver's JIT at load.
    Ptx,
    /// The AMD code object (HSACO), loaded as is.
    CodeObject,
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
        return Err(format!(
            "target `{}` is not an NVIDIA target (sm_XY)",
            meta.target
        ));
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

/// Whether a driver that reports `driver_version` (`cuDriverGetVersion`: 12080 for
/// CUDA 12.8) can compile the bundle's PTX: the bundle's
/// [`min_driver_version`](Bundle::min_driver_version), recorded in its metadata or read
/// from the PTX's `.version`, must not be newer. The error says what is needed.
pub fn check_ptx_driver(bundle: &Bundle, driver_version: u32) -> Result<(), String> {
    match bundle.min_driver_version() {
        Some(needed) if driver_version < needed => Err(format!(
            "its PTX{} needs a CUDA {} driver or newer to be compiled at load, but this \
             driver supports CUDA {}; update the NVIDIA driver, or compile with a ptxas \
             this driver accepts cubins from",
            tritonc_bundle::ptx_isa_version(&bundle.ptx)
                .map(|(a, b)| format!(" (ISA {a}.{b})"))
                .unwrap_or_default(),
            tritonc_bundle::driver_version_name(needed),
            tritonc_bundle::driver_version_name(driver_version),
        )),
        _ => Ok(()),
    }
}

/// [`code_for_device`] for a whole bundle: the capability is the one its code needs
/// ([`Bundle::code_capability`]: an `sm_90` bundle's PTX is `sm_90a`, which newer GPUs
/// cannot compile), so such a bundle is refused on them with the reason.
pub fn code_for_bundle(bundle: &Bundle, device: (u32, u32)) -> Result<CodeChoice, String> {
    let mut meta = bundle.meta.clone();
    if let Some((major, minor, true)) = bundle.code_capability() {
        meta.target = format!("sm_{major}{minor}a");
    }
    code_for_device(&meta, bundle.cubin.is_some(), device)
}

/// Decides whether a bundle for `meta.target` runs on an AMD GPU whose architecture
/// HIP names `device_arch` (`gfx90a:sramecc+:xnack-`): an AMD code object runs only on
/// the processor it was built for, so the processors must be equal.
pub fn amd_code_for_device(
    meta: &BundleMeta,
    has_code_object: bool,
    device_arch: &str,
) -> Result<CodeChoice, String> {
    let Some(target) = parse_gfx(&meta.target) else {
        return Err(format!(
            "target `{}` is not an AMD target (gfxNNN)",
            meta.target
        ));
    };
    let processor = device_arch.split(':').next().unwrap_or(device_arch);
    if target != processor {
        return Err(format!(
            "it was compiled for {target}, the GPU is {processor} (an AMD code object runs \
             only on the processor it was built for)"
        ));
    }
    if !has_code_object {
        return Err("it carries no code object".into());
    }
    Ok(CodeChoice::CodeObject)
}

/// Why a bundle for `meta.target` cannot run on `device` because it targets the other
/// vendor's GPUs; `None` when the vendors agree (or the target names neither).
pub(crate) fn other_vendor(meta: &BundleMeta, device: &Device) -> Option<String> {
    let backend = Backend::for_target(&meta.target)?;
    (backend != device.backend()).then(|| {
        format!(
            "it was compiled for {} `{}`, the GPU is {} ({})",
            backend.vendor(),
            meta.target,
            device.backend().vendor(),
            device.arch()
        )
    })
}

/// Whether `bundle` can run on `device`, by vendor and architecture.
fn runs_on(bundle: &Bundle, device: &Device) -> Result<(), String> {
    let meta = &bundle.meta;
    if let Some(reason) = other_vendor(meta, device) {
        return Err(reason);
    }
    let has_code = bundle.cubin.is_some();
    match device.backend() {
        Backend::Hip => amd_code_for_device(meta, has_code, device.arch()).map(drop),
        Backend::Cuda => code_for_bundle(bundle, device.compute_capability()).map(drop),
    }
}

/// Picks the variant to launch: among bundles that can run on `device` (when given) and
/// whose every assumption holds for `args`, the most specialized (ties: the first).
/// With one bundle, a refusal is [`RuntimeError::LaunchRefused`] naming each violated
/// assumption; with several, [`RuntimeError::NoMatchingVariant`] says why each failed.
///
/// `device` is an NVIDIA compute capability: it filters bundles with NVIDIA targets.
/// Bundles for AMD targets are matched to their GPU when loaded; [`select_variant_on`]
/// checks both kinds against an opened device.
pub fn select_variant(
    bundles: &[Bundle],
    args: &[Arg],
    device: Option<(u32, u32)>,
) -> Result<usize, RuntimeError> {
    select(bundles, args, |b| match device {
        Some(cc) if parse_gfx(&b.meta.target).is_none() => {
            code_for_bundle(b, cc).map(drop)
        }
        _ => Ok(()),
    })
}

/// [`select_variant`] against an opened device of either backend: a bundle runs there
/// when it targets the device's vendor and architecture.
pub fn select_variant_on(
    bundles: &[Bundle],
    args: &[Arg],
    device: Option<&Device>,
) -> Result<usize, RuntimeError> {
    select(bundles, args, |b| match device {
        Some(d) => runs_on(b, d),
        None => Ok(()),
    })
}

fn select(
    bundles: &[Bundle],
    args: &[Arg],
    compatible: impl Fn(&Bundle) -> Result<(), String>,
) -> Result<usize, RuntimeError> {
    let mut best: Option<(usize, usize)> = None;
    let mut refusals = Vec::new();
    for (i, b) in bundles.iter().enumerate() {
        if let Err(reason) = compatible(b) {
            if bundles.len() == 1 {
                return Err(RuntimeError::IncompatibleBundle {
                    entry: b.meta.entry.clone(),
                    reason,
                });
            }
            refusals.push((b.meta.key.to_string(), vec![reason]));
            continue;
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
