//! Launch-time safety: every specialization assumption a bundle was compiled under is
//! checked against the actual arguments before anything reaches the GPU.

use std::fmt;

use tritonc_bundle::{BundleMeta, ConstValue, ParamRole, PtxParamKind};
use tritonc_ir::DType;

use crate::args::{dtype_name, Arg};

/// One violated assumption (or a malformed argument list).
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    /// The argument list does not cover the kernel's parameters.
    ArgumentCount {
        /// Source parameters of the kernel.
        expected: usize,
        /// Arguments given.
        given: usize,
    },
    /// A pointer was given for a scalar, a scalar for a pointer, and the like.
    WrongKind {
        /// The parameter.
        param: String,
        /// What the bundle passes there.
        expected: String,
        /// What was given.
        given: String,
    },
    /// The tensor's dtype is not the pointee dtype the bundle was compiled for.
    PointerDtype {
        /// The parameter.
        param: String,
        /// The compiled pointee.
        expected: DType,
        /// The buffer's dtype.
        given: DType,
    },
    /// A pointer compiled as `:16` (16-byte aligned) got an address that is not.
    PointerAlignment {
        /// The parameter.
        param: String,
        /// The assumed alignment.
        align: u32,
        /// The address given.
        addr: u64,
    },
    /// An integer compiled as `:16` (divisible by 16) got a value that is not.
    Divisibility {
        /// The parameter.
        param: String,
        /// The assumed divisor.
        divisor: u32,
        /// The value given.
        value: i64,
    },
    /// An integer compiled as `:1` (equal to one) got another value.
    NotEqualToOne {
        /// The parameter.
        param: String,
        /// What was given.
        given: String,
    },
    /// A constexpr parameter got another value than the one compiled in.
    ConstexprMismatch {
        /// The parameter.
        param: String,
        /// The compiled-in value.
        expected: ConstValue,
        /// What was given.
        given: String,
    },
    /// An int does not fit the parameter's dtype.
    OutOfRange {
        /// The parameter.
        param: String,
        /// The parameter's dtype.
        dtype: DType,
        /// The value given.
        value: i64,
    },
    /// `AsCompiled` for a parameter the bundle passes at launch.
    NeedsValue {
        /// The parameter.
        param: String,
    },
    /// A parameter dtype the launcher cannot marshal (fp8 scalars).
    Unsupported {
        /// The parameter.
        param: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::ArgumentCount { expected, given } => write!(
                f,
                "the kernel takes {expected} argument(s) (constexprs included), {given} given"
            ),
            Violation::WrongKind {
                param,
                expected,
                given,
            } => write!(f, "`{param}` expects {expected}, got {given}"),
            Violation::PointerDtype {
                param,
                expected,
                given,
            } => write!(
                f,
                "`{param}` was compiled as `*{}` but the tensor holds {}",
                dtype_name(*expected),
                dtype_name(*given)
            ),
            Violation::PointerAlignment { param, align, addr } => write!(
                f,
                "`{param}` was specialized as {align}-byte aligned (`:{align}`), but its address {addr:#x} is not a multiple of {align}"
            ),
            Violation::Divisibility {
                param,
                divisor,
                value,
            } => write!(
                f,
                "`{param}` was specialized as divisible by {divisor} (`:{divisor}`), but it is {value}"
            ),
            Violation::NotEqualToOne { param, given } => write!(
                f,
                "`{param}` was specialized as equal to 1 (`:1`), but it is {given}"
            ),
            Violation::ConstexprMismatch {
                param,
                expected,
                given,
            } => write!(
                f,
                "constexpr `{param}` was compiled as {expected}, but the launch gives {given}"
            ),
            Violation::OutOfRange { param, dtype, value } => write!(
                f,
                "`{param}` is passed as {}, which cannot hold {value}",
                dtype_name(*dtype)
            ),
            Violation::NeedsValue { param } => write!(
                f,
                "`{param}` is a runtime parameter: it needs a value at launch"
            ),
            Violation::Unsupported { param, reason } => write!(f, "`{param}`: {reason}"),
        }
    }
}

/// The parameter buffer a launch passes: each PTX parameter's bytes at its offset,
/// aligned to its own size, in `.entry` order (the layout of CUDA's parameter space).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamBuffer {
    /// Backing storage; `u64` words keep every offset 8-byte aligned in memory.
    words: Vec<u64>,
    /// Byte offset of each PTX parameter.
    offsets: Vec<usize>,
    /// Byte size of each PTX parameter.
    sizes: Vec<usize>,
}

impl ParamBuffer {
    /// An all-zero buffer laid out for parameters of these sizes, or `None` when a size
    /// is not 1, 2, 4 or 8 bytes (the scalar and pointer slots a launch passes).
    pub fn layout(sizes: &[usize]) -> Option<ParamBuffer> {
        let mut offsets = Vec::with_capacity(sizes.len());
        let mut end = 0usize;
        for &s in sizes {
            if !matches!(s, 1 | 2 | 4 | 8) {
                return None;
            }
            // At most 8 bytes per slot: no overflow before memory would run out.
            let at = end.next_multiple_of(s);
            offsets.push(at);
            end = at + s;
        }
        Some(ParamBuffer {
            words: vec![0; end.div_ceil(8)],
            offsets,
            sizes: sizes.to_vec(),
        })
    }

    /// The whole buffer as bytes (its length rounded up to 8).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: u64 storage viewed as bytes; u8 has no alignment or validity needs.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast(), self.words.len() * 8) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`.
        unsafe {
            std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast(), self.words.len() * 8)
        }
    }

    /// Byte offset of each PTX parameter.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The bytes of PTX parameter `index`, or `None` past the last parameter.
    pub fn param(&self, index: usize) -> Option<&[u8]> {
        let (&at, &size) = (self.offsets.get(index)?, self.sizes.get(index)?);
        self.bytes().get(at..at + size)
    }

    /// Writes PTX parameter `index` (little-endian `value`, truncated to the slot size);
    /// returns `false`, writing nothing, past the last parameter (or for a slot wider
    /// than 8 bytes).
    #[must_use = "a parameter index outside the buffer writes nothing"]
    pub fn set(&mut self, index: usize, value: u64) -> bool {
        let (Some(&at), Some(&size)) = (self.offsets.get(index), self.sizes.get(index)) else {
            return false;
        };
        if size > 8 {
            return false;
        }
        match self.bytes_mut().get_mut(at..at + size) {
            Some(slot) => {
                slot.copy_from_slice(&value.to_le_bytes()[..size]);
                true
            }
            None => false,
        }
    }

    /// The `void**` array `cuLaunchKernel` takes: one pointer per parameter into this
    /// buffer. Valid while the buffer is neither dropped nor resized.
    pub fn kernel_params(&mut self) -> Vec<*mut std::ffi::c_void> {
        let base: *mut u8 = self.words.as_mut_ptr().cast();
        self.offsets
            .iter()
            // SAFETY: every offset lies inside the buffer (layout() sized it).
            .map(|&o| unsafe { base.add(o) }.cast())
            .collect()
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether the kernel takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }
}

/// Checks `args` against every assumption in `meta` and, when all hold, lays out the
/// parameter buffer. Hidden parameters are left zero (a null scratch pointer); the
/// launcher fills them. All violations are reported, not only the first.
pub fn check_and_marshal(meta: &BundleMeta, args: &[Arg]) -> Result<ParamBuffer, Vec<Violation>> {
    if args.len() != meta.params.len() {
        return Err(vec![Violation::ArgumentCount {
            expected: meta.params.len(),
            given: args.len(),
        }]);
    }
    let ptx = meta.ptx_params();
    let sizes: Vec<usize> = ptx.iter().map(|(_, k)| k.size_bytes() as usize).collect();
    let mut violations = Vec::new();
    // Metadata built or edited without `Bundle::validate` may name slots the layout
    // lacks, or one slot twice: refused, never an argument silently dropped.
    let mut written = vec![false; sizes.len()];
    let Some(mut buf) = ParamBuffer::layout(&sizes) else {
        return Err(vec![Violation::Unsupported {
            param: meta.entry.clone(),
            reason: format!("a parameter size of {sizes:?} bytes cannot be passed"),
        }]);
    };
    for (p, arg) in meta.params.iter().zip(args) {
        let name = &p.name;
        match &p.role {
            ParamRole::Constexpr(want) => {
                if let Some(v) = check_constexpr(name, want, arg) {
                    violations.push(v);
                }
            }
            ParamRole::EqualToOne => match arg {
                Arg::Int(1) | Arg::AsCompiled => {}
                other => violations.push(Violation::NotEqualToOne {
                    param: name.clone(),
                    given: other.describe(),
                }),
            },
            ParamRole::Passed { index, kind } => match encode(name, kind, arg) {
                Ok(bits) => {
                    let slot = *index as usize;
                    let fresh = written.get(slot).is_some_and(|w| !w);
                    if fresh && buf.set(slot, bits) {
                        written[slot] = true;
                    } else {
                        violations.push(Violation::Unsupported {
                            param: name.clone(),
                            reason: format!(
                                "the metadata passes it as kernel parameter {index}, which \
                                 is not a free slot of the {} the kernel declares (a \
                                 malformed bundle)",
                                sizes.len()
                            ),
                        });
                    }
                }
                Err(v) => violations.push(v),
            },
        }
    }
    if violations.is_empty() {
        Ok(buf)
    } else {
        Err(violations)
    }
}

/// The number of specialization assumptions a bundle makes (aligned pointers, divisible
/// ints, ints equal to one): among variants that accept a launch, more is better.
pub fn specialization_score(meta: &BundleMeta) -> usize {
    meta.params
        .iter()
        .filter(|p| match &p.role {
            ParamRole::EqualToOne => true,
            ParamRole::Passed {
                kind: PtxParamKind::Pointer { align, .. },
                ..
            } => *align > 1,
            ParamRole::Passed {
                kind: PtxParamKind::Scalar { divisibility, .. },
                ..
            } => divisibility.is_some_and(|d| d > 1),
            ParamRole::Constexpr(_) => false,
        })
        .count()
}

fn check_constexpr(name: &str, want: &ConstValue, arg: &Arg) -> Option<Violation> {
    let same = match (want, arg) {
        (_, Arg::AsCompiled) => true,
        (ConstValue::Int(w), Arg::Int(g)) => w == g,
        (ConstValue::Bool(w), Arg::Bool(g)) => w == g,
        // Bit equality: a NaN constexpr matches a NaN argument, -0.0 does not match 0.0.
        (ConstValue::Float(w), Arg::Float(g)) => w.to_bits() == g.to_bits(),
        (w, Arg::Const(g)) => w == g,
        _ => false,
    };
    (!same).then(|| Violation::ConstexprMismatch {
        param: name.to_string(),
        expected: want.clone(),
        given: arg.describe(),
    })
}

/// The bits of one passed argument, after checking it against the parameter's kind.
fn encode(name: &str, kind: &PtxParamKind, arg: &Arg) -> Result<u64, Violation> {
    let wrong = |expected: String| Violation::WrongKind {
        param: name.to_string(),
        expected,
        given: arg.describe(),
    };
    match kind {
        PtxParamKind::Pointer { pointee, align } => {
            let p = match arg {
                Arg::Pointer(p) => p,
                Arg::AsCompiled => {
                    return Err(Violation::NeedsValue {
                        param: name.to_string(),
                    })
                }
                _ => return Err(wrong(format!("a pointer to {}", dtype_name(*pointee)))),
            };
            if p.dtype != *pointee {
                return Err(Violation::PointerDtype {
                    param: name.to_string(),
                    expected: *pointee,
                    given: p.dtype,
                });
            }
            if *align > 1 && p.addr % u64::from(*align) != 0 {
                return Err(Violation::PointerAlignment {
                    param: name.to_string(),
                    align: *align,
                    addr: p.addr,
                });
            }
            Ok(p.addr)
        }
        PtxParamKind::Scalar {
            dtype,
            divisibility,
        } => {
            let dtype = *dtype;
            if let Arg::AsCompiled = arg {
                return Err(Violation::NeedsValue {
                    param: name.to_string(),
                });
            }
            if dtype.is_bool() {
                return match arg {
                    Arg::Bool(b) => Ok(u64::from(*b)),
                    Arg::Int(i @ (0 | 1)) => Ok(*i as u64),
                    _ => Err(wrong("a bool".into())),
                };
            }
            if dtype.is_int() {
                let Arg::Int(v) = arg else {
                    return Err(wrong(format!("an int ({})", dtype_name(dtype))));
                };
                let v = *v;
                if !int_fits(dtype, v) {
                    return Err(Violation::OutOfRange {
                        param: name.to_string(),
                        dtype,
                        value: v,
                    });
                }
                if let Some(d) = divisibility.filter(|d| *d > 1) {
                    if v % i64::from(d) != 0 {
                        return Err(Violation::Divisibility {
                            param: name.to_string(),
                            divisor: d,
                            value: v,
                        });
                    }
                }
                // Two's-complement bits; `set` keeps the low bytes of the slot.
                return Ok(v as u64);
            }
            let x = match arg {
                Arg::Float(x) => *x,
                // Python converts an int passed for a float parameter.
                Arg::Int(i) => *i as f64,
                _ => return Err(wrong(format!("a float ({})", dtype_name(dtype)))),
            };
            match dtype {
                DType::F64 => Ok(x.to_bits()),
                DType::F32 => Ok(u64::from((x as f32).to_bits())),
                DType::F16 => Ok(u64::from(half::f16::from_f64(x).to_bits())),
                DType::BF16 => Ok(u64::from(half::bf16::from_f64(x).to_bits())),
                _ => Err(Violation::Unsupported {
                    param: name.to_string(),
                    reason: format!("{} scalars cannot be passed yet", dtype_name(dtype)),
                }),
            }
        }
    }
}

/// Whether `v` is representable in integer dtype `d`.
fn int_fits(d: DType, v: i64) -> bool {
    let bits = d.bitwidth().unwrap_or(64);
    if d.is_unsigned() {
        v >= 0 && (bits >= 64 || v < (1i64 << bits))
    } else if bits >= 64 {
        true
    } else {
        let lim = 1i64 << (bits - 1);
        (-lim..lim).contains(&v)
    }
}
