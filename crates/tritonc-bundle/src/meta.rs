//! The bundle's metadata (`bundle.json`): identity, target, launch configuration and the
//! argument ABI that maps the kernel's source parameters to PTX `.entry` parameters.

use std::fmt;

use serde::{Deserialize, Serialize};
use tritonc_ir::DType;
use tritonc_sema::{ArgSpec, Constexpr, Specialization, SpecializationKey};

/// The metadata format of NVIDIA bundles (PTX, optional cubin).
pub const FORMAT_VERSION: u32 = 1;
/// The metadata format of AMD bundles: version 1's metadata with a `gfx…` target, the
/// code object (HSACO) in place of the cubin and no PTX. A separate number, so readers
/// that predate AMD bundles refuse them by version rather than by their target.
pub const AMD_FORMAT_VERSION: u32 = 2;

/// The format version a bundle for `target` carries: [`AMD_FORMAT_VERSION`] for AMD
/// targets, [`FORMAT_VERSION`] otherwise.
pub fn format_version_for(target: &str) -> u32 {
    if parse_gfx(target).is_some() {
        AMD_FORMAT_VERSION
    } else {
        FORMAT_VERSION
    }
}

/// Everything a launcher needs to know about one compiled kernel variant besides its code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleMeta {
    /// The metadata format version ([`FORMAT_VERSION`] when written by this crate).
    pub format_version: u32,
    /// The `.entry` name in the PTX (and the function name in the cubin).
    pub entry: String,
    /// The GPU architecture the code was generated for: `sm_90`, `sm_80`, `sm_90a`, or an
    /// AMD processor (`gfx90a`, `gfx942`).
    pub target: String,
    /// The specialization this variant was compiled for.
    pub key: SpecializationKey,
    /// [`SpecializationKey::hash_hex`] of `key`, recorded so tools can index bundles
    /// without recomputing it; checked on read.
    pub key_hash: String,
    /// Warps per program: the launch uses `32 * num_warps` threads per block.
    pub num_warps: u32,
    /// Dynamic shared memory per block, in bytes, passed at launch (above 48 KB the
    /// launcher opts in with `cuFuncSetAttribute`).
    pub dynamic_shared_bytes: u32,
    /// Static shared memory per block (`.shared` arrays in the code), in bytes: not
    /// passed at launch, recorded for reports and the device-limit check.
    #[serde(default)]
    pub static_shared_bytes: u32,
    /// The source parameters, in declaration order, with what became of each.
    pub params: Vec<ParamAbi>,
    /// Parameters the back end appends that have no source parameter.
    #[serde(default)]
    pub hidden_params: Vec<HiddenParam>,
    /// The order in which the code combines each reduction and scan (written by
    /// `tritonc_codegen::combine_orders`: the target, and per `tt.reduce` its location,
    /// axis, operand layout, register order and lane and warp butterflies, per `tt.scan`
    /// its steps); opaque here. `verify` and `run --interpret` replay the bundle
    /// target's order.
    #[serde(default)]
    pub reduction_layouts: Option<serde_json::Value>,
    /// What `ptxas -v` reported, when the bundle carries a cubin.
    #[serde(default)]
    pub ptxas: Option<PtxasReport>,
    /// The oldest CUDA driver that can load the PTX, as `cuDriverGetVersion` reports it
    /// (`1000 × major + 10 × minor`: 12000 is CUDA 12.0), decided by the PTX's `.version`
    /// ([`crate::min_driver_for_ptx`]). Absent in bundles written before it was recorded
    /// and in AMD bundles; a loader then reads it from the PTX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_driver_version: Option<u32>,
}

impl BundleMeta {
    /// The number of PTX `.entry` parameters (passed and hidden).
    pub fn ptx_param_count(&self) -> usize {
        self.params.iter().filter(|p| p.role.is_passed()).count() + self.hidden_params.len()
    }

    /// The PTX parameters in `.entry` order: `(index, kind)` for passed and hidden ones.
    pub fn ptx_params(&self) -> Vec<(u32, PtxParamKind)> {
        let mut out: Vec<(u32, PtxParamKind)> = self
            .params
            .iter()
            .filter_map(|p| match &p.role {
                ParamRole::Passed { index, kind } => Some((*index, kind.clone())),
                _ => None,
            })
            .chain(self.hidden_params.iter().map(|h| (h.index, h.ptx_kind())))
            .collect();
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// The compute capability `target` names, e.g. `(9, 0, false)` for `sm_90` and
    /// `(9, 0, true)` for the architecture-specific `sm_90a`.
    pub fn target_capability(&self) -> Option<(u32, u32, bool)> {
        parse_sm(&self.target)
    }
}

/// Parses `sm_XY` / `sm_XYa` / `sm_XYZ` into (major, minor, arch-specific).
pub fn parse_sm(target: &str) -> Option<(u32, u32, bool)> {
    let digits = target.strip_prefix("sm_")?;
    let (digits, specific) = match digits.strip_suffix(['a', 'f']) {
        Some(d) => (d, true),
        None => (digits, false),
    };
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?, specific))
}

/// The AMD processor an AMD target names (`gfx90a`, `gfx942`, `gfx1100`): `gfx` and three
/// or four hexadecimal digits, without target features (`:xnack-`).
pub fn parse_gfx(target: &str) -> Option<&str> {
    let digits = target.strip_prefix("gfx")?;
    let ok = matches!(digits.len(), 3 | 4)
        && digits
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some(target)
}

/// One source parameter and what the compiled variant does with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamAbi {
    /// The parameter's name in the source.
    pub name: String,
    /// Dropped or passed.
    pub role: ParamRole,
}

/// What the compiled variant does with a source parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamRole {
    /// A `tl.constexpr` parameter folded into the code; a launch must give this value.
    Constexpr(ConstValue),
    /// An integer parameter specialized as equal to 1 (`:1`); a launch must pass 1.
    EqualToOne,
    /// Passed as the PTX parameter `index` (0-based position in the `.entry` list).
    Passed {
        /// Position in the `.entry` parameter list.
        index: u32,
        /// How it is passed.
        kind: PtxParamKind,
    },
}

impl ParamRole {
    /// Whether the parameter appears in the `.entry` parameter list.
    pub fn is_passed(&self) -> bool {
        matches!(self, ParamRole::Passed { .. })
    }
}

/// How a value is passed in PTX `.param` space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PtxParamKind {
    /// `.param .u64 .ptr .global .align ALIGN`: a global-memory address. `align` is the
    /// alignment the code assumes (16 for a `:16` pointer, else 1); `pointee` the dtype
    /// the kernel reads and writes through it.
    Pointer {
        /// The element type.
        #[serde(with = "dtype_name")]
        pointee: DType,
        /// Assumed alignment of the address in bytes.
        align: u32,
    },
    /// A scalar by value: `i32` as `.param .u32`, `fp32` as `.param .f32`, …
    Scalar {
        /// The scalar's dtype.
        #[serde(with = "dtype_name")]
        dtype: DType,
        /// The value is assumed divisible by this (16 for a `:16` integer).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        divisibility: Option<u32>,
    },
}

impl PtxParamKind {
    /// Bytes the parameter occupies in the parameter buffer (also its alignment there).
    pub fn size_bytes(&self) -> u32 {
        match self {
            PtxParamKind::Pointer { .. } => 8,
            PtxParamKind::Scalar { dtype, .. } => dtype.size_bytes().unwrap_or(8),
        }
    }
}

impl fmt::Display for PtxParamKind {
    /// The PTX spelling: `.u64 .ptr .global .align 16`, `.u32`, `.f32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxParamKind::Pointer { align, .. } => write!(f, ".u64 .ptr .global .align {align}"),
            PtxParamKind::Scalar { dtype, .. } => f.write_str(ptx_scalar_type(*dtype)),
        }
    }
}

/// The `.param` type LLVM's NVPTX back end gives a scalar of this dtype.
pub fn ptx_scalar_type(dtype: DType) -> &'static str {
    use DType::*;
    match dtype {
        I1 | I8 | U8 => ".u8",
        I16 | U16 => ".u16",
        I32 | U32 => ".u32",
        I64 | U64 => ".u64",
        F16 | BF16 => ".b16",
        F32 => ".f32",
        F64 => ".f64",
        F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ => ".u8",
        Var(_) => ".b64",
    }
}

/// A parameter the back end appends after the source's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HiddenParam {
    /// Position in the `.entry` parameter list.
    pub index: u32,
    /// What the launcher passes.
    pub kind: HiddenParamKind,
}

impl HiddenParam {
    /// How the hidden parameter is passed in PTX.
    pub fn ptx_kind(&self) -> PtxParamKind {
        match self.kind {
            HiddenParamKind::GlobalScratch { align, .. } => PtxParamKind::Pointer {
                pointee: DType::I8,
                align,
            },
        }
    }
}

/// The kinds of hidden parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HiddenParamKind {
    /// A global-memory scratch area of `bytes_per_program` bytes for each program of the
    /// grid; the launcher passes a null pointer when the size is 0.
    GlobalScratch {
        /// Bytes each program may use.
        bytes_per_program: u64,
        /// Alignment the kernel assumes for the scratch base.
        align: u32,
    },
}

/// A compile-time value a parameter was specialized to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstValue {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A dtype (`tl.float16`), by signature name.
    Dtype(#[serde(with = "dtype_name")] DType),
}

impl ConstValue {
    /// The bundle form of a sema constant; `None` for values a bundle cannot record
    /// (functions, tuples, modules, ints past `i64`).
    pub fn from_constexpr(c: &Constexpr) -> Option<ConstValue> {
        Some(match c {
            Constexpr::None => ConstValue::None,
            Constexpr::Bool(b) => ConstValue::Bool(*b),
            Constexpr::Int(i) => ConstValue::Int(i64::try_from(*i).ok()?),
            Constexpr::Float(f) => ConstValue::Float(*f),
            Constexpr::Str(s) => ConstValue::Str(s.clone()),
            Constexpr::DType(tritonc_ir::Elem::DType(d)) => ConstValue::Dtype(*d),
            _ => return None,
        })
    }
}

impl fmt::Display for ConstValue {
    /// Python spelling: `None`, `True`, `1024`, `0.5`, `'rtne'`, `tl.float16`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstValue::None => f.write_str("None"),
            ConstValue::Bool(true) => f.write_str("True"),
            ConstValue::Bool(false) => f.write_str("False"),
            ConstValue::Int(i) => write!(f, "{i}"),
            ConstValue::Float(x) => write!(f, "{x:?}"),
            ConstValue::Str(s) => write!(f, "'{s}'"),
            ConstValue::Dtype(d) => write!(f, "tl.{}", d.triton_name().unwrap_or("?")),
        }
    }
}

/// What `ptxas -v` reported for the cubin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PtxasReport {
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of register spill stores.
    pub spill_stores: u32,
    /// Bytes of register spill loads.
    pub spill_loads: u32,
    /// Static shared memory in bytes.
    pub shared_bytes: u32,
    /// The raw `-v` output.
    pub log: String,
}

impl PtxasReport {
    /// Reads the figures out of `ptxas -v` output (the `Used N registers`,
    /// `N bytes spill stores, N bytes spill loads` and `N bytes smem` phrases).
    pub fn parse(log: &str) -> PtxasReport {
        let number_before = |line: &str, what: &str| -> Option<u32> {
            let at = line.find(what)?;
            line[..at].split_whitespace().last()?.parse().ok()
        };
        let mut r = PtxasReport {
            log: log.to_string(),
            ..PtxasReport::default()
        };
        for line in log.lines() {
            if let Some(at) = line.find("Used ") {
                if let Some(n) = line[at + 5..]
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                {
                    r.registers = n;
                }
                if let Some(n) = number_before(line, "bytes smem") {
                    r.shared_bytes = n;
                }
            }
            if let Some(n) = number_before(line, "bytes spill stores") {
                r.spill_stores = n;
            }
            if let Some(n) = number_before(line, "bytes spill loads") {
                r.spill_loads = n;
            }
        }
        r
    }
}

/// Why a specialization could not be described as a bundle ABI.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("parameter `{param}`: {reason}")]
pub struct AbiFromSpecError {
    /// The parameter.
    pub param: String,
    /// What is wrong.
    pub reason: String,
}

/// The ABI of a specialization whose runtime parameters become PTX parameters in
/// declaration order (Triton's convention): pointers with `.align 16` when hinted `:16`.
/// `constexpr_params` names the `tl.constexpr` parameters; any other parameter the
/// specialization fixed to the constant 1 was an integer hinted `:1`.
pub fn abi_in_declaration_order(
    spec: &Specialization,
    constexpr_params: &[&str],
) -> Result<Vec<ParamAbi>, AbiFromSpecError> {
    let mut next = 0u32;
    let mut out = Vec::with_capacity(spec.params.len());
    for (name, arg) in &spec.params {
        let role = match arg {
            ArgSpec::Constexpr(Constexpr::Int(1)) if !constexpr_params.contains(&name.as_str()) => {
                ParamRole::EqualToOne
            }
            ArgSpec::Constexpr(c) => {
                ParamRole::Constexpr(ConstValue::from_constexpr(c).ok_or_else(|| {
                    AbiFromSpecError {
                        param: name.clone(),
                        reason: format!("the constant `{c}` cannot be recorded in a bundle"),
                    }
                })?)
            }
            ArgSpec::Pointer {
                pointee,
                divisibility,
                ..
            } => {
                next += 1;
                ParamRole::Passed {
                    index: next - 1,
                    kind: PtxParamKind::Pointer {
                        pointee: *pointee,
                        align: divisibility.unwrap_or(1),
                    },
                }
            }
            ArgSpec::Scalar {
                dtype,
                divisibility,
            } => {
                next += 1;
                ParamRole::Passed {
                    index: next - 1,
                    kind: PtxParamKind::Scalar {
                        dtype: *dtype,
                        divisibility: *divisibility,
                    },
                }
            }
        };
        out.push(ParamAbi {
            name: name.clone(),
            role,
        });
    }
    Ok(out)
}

/// Serializes a [`DType`] by its signature name (`fp16`, `i32`, `fp8e4nv`).
mod dtype_name {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use tritonc_ir::DType;

    pub fn serialize<S: Serializer>(d: &DType, s: S) -> Result<S::Ok, S::Error> {
        match d.signature_name() {
            Some(n) => s.serialize_str(n),
            None => Err(serde::ser::Error::custom(format!(
                "dtype variable {d} has no signature name"
            ))),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DType, D::Error> {
        let name = String::deserialize(d)?;
        DType::from_signature_name(&name)
            .ok_or_else(|| D::Error::custom(format!("unknown dtype `{name}`")))
    }
}
