//! The namespaces kernels can reach at compile time: every public name of Triton 3.6's
//! `triton.language` (and its `math` submodule), the host helpers of `triton`, and the
//! Python builtins Triton allows in kernels.
//!
//! A name resolves to a [`Constexpr`]: a dtype, a submodule, or a builtin by canonical
//! path. Whether a builtin is *lowered* is decided by the dispatch table in
//! [`super::registry`], not here: this table is only about which names exist.

use tritonc_ir::{DType, ALL_DTYPES};

use crate::value::Constexpr;

/// Every public name of `triton.language` in Triton 3.6 (`dir(triton.language)`), minus dtypes.
pub const TL_NAMES: &[&str] = &[
    "PropagateNan",
    "TRITON_MAX_TENSOR_NUMEL",
    "abs",
    "add",
    "advance",
    "arange",
    "argmax",
    "argmin",
    "associative_scan",
    "assume",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_xchg",
    "atomic_xor",
    "bitonic_merge",
    "block_type",
    "broadcast",
    "broadcast_to",
    "cast",
    "cat",
    "cdiv",
    "ceil",
    "clamp",
    "condition",
    "const",
    "constexpr",
    "constexpr_type",
    "cos",
    "cumprod",
    "cumsum",
    "debug_barrier",
    "device_assert",
    "device_print",
    "div_rn",
    "dot",
    "dot_scaled",
    "dtype",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "fdiv",
    "flip",
    "floor",
    "fma",
    "full",
    "gather",
    "histogram",
    "inline_asm_elementwise",
    "interleave",
    "join",
    "load",
    "load_tensor_descriptor",
    "log",
    "log2",
    "make_block_ptr",
    "make_tensor_descriptor",
    "map_elementwise",
    "max",
    "max_constancy",
    "max_contiguous",
    "maximum",
    "min",
    "minimum",
    "mul",
    "multiple_of",
    "num_programs",
    "pair_uniform_to_normal",
    "permute",
    "philox",
    "philox_impl",
    "pi32_t",
    "pointer_type",
    "program_id",
    "rand",
    "rand4x",
    "randint",
    "randint4x",
    "randn",
    "randn4x",
    "range",
    "ravel",
    "reduce",
    "reduce_or",
    "reshape",
    "rsqrt",
    "sigmoid",
    "sin",
    "slice",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_rn",
    "static_assert",
    "static_print",
    "static_range",
    "store",
    "store_tensor_descriptor",
    "str_to_ty",
    "sub",
    "sum",
    "swizzle2d",
    "tensor",
    "tensor_descriptor",
    "tensor_descriptor_type",
    "topk",
    "trans",
    "tuple",
    "tuple_type",
    "uint_to_uniform_float",
    "umulhi",
    "view",
    "void",
    "where",
    "xor_sum",
    "zeros",
    "zeros_like",
];

/// Submodules of `triton.language` reachable as attributes.
pub const TL_SUBMODULES: &[&str] = &[
    "core",
    "extra",
    "math",
    "random",
    "standard",
    "target_info",
    "semantic",
];

/// Public names of `triton.language.math` (each is also `triton.language.<name>`).
pub const TL_MATH_NAMES: &[&str] = &[
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
    "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi",
];

/// Host-side names of the `triton` package that kernels and decorators use.
pub const TRITON_NAMES: &[&str] = &[
    "cdiv",
    "next_power_of_2",
    "jit",
    "autotune",
    "heuristics",
    "Config",
    "constexpr",
];

/// Python builtins Triton accepts inside kernels (and `print`, mapped to `device_print`).
pub const PY_BUILTINS: &[&str] = &[
    "min",
    "max",
    "len",
    "int",
    "float",
    "abs",
    "bool",
    "str",
    "round",
    "range",
    "print",
    "isinstance",
    "getattr",
    "hasattr",
    "tuple",
    "list",
];

/// A module whose namespace tritonc does not model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnmodelledModule;

/// Resolves `module.attr` for a module given by canonical path.
///
/// `Ok(None)` means the module is known but has no such name; `Err(UnmodelledModule)` means tritonc does
/// not model the module's namespace (its attributes can only be reported as unknown).
pub fn module_attr(module: &str, attr: &str) -> Result<Option<Constexpr>, UnmodelledModule> {
    match module {
        "triton" => Ok(match attr {
            "language" => Some(Constexpr::module("triton.language")),
            a if TRITON_NAMES.contains(&a) => Some(Constexpr::builtin(&format!("triton.{a}"))),
            _ => None,
        }),
        "triton.language" => Ok(tl_attr(attr)),
        "triton.language.core" => super::private::core_attr(attr),
        "triton.language.standard" => super::private::standard_attr(attr),
        "triton.language.math" => Ok(TL_MATH_NAMES
            .contains(&attr)
            .then(|| Constexpr::builtin(&format!("triton.language.{attr}")))),
        // AMD's device library: it exists in Triton 3.6 but tritonc does not model it, so it
        // is opaque (unknown in generic analysis, reported when a kernel uses it).
        m if m.starts_with("triton.language.extra.hip") => Err(UnmodelledModule),
        "triton.language.extra" if attr == "hip" => {
            Ok(Some(Constexpr::module("triton.language.extra.hip")))
        }
        m if m.starts_with("triton.language.extra") => Ok(super::math::extra_module_attr(m, attr)),
        "builtins" => Ok(PY_BUILTINS
            .contains(&attr)
            .then(|| Constexpr::builtin(&format!("builtins.{attr}")))),
        _ => Err(UnmodelledModule),
    }
}

/// Resolves `triton.language.<attr>`.
pub(crate) fn tl_attr(attr: &str) -> Option<Constexpr> {
    if let Some(d) = DType::from_triton_name(attr) {
        return Some(Constexpr::dtype(d));
    }
    if TL_SUBMODULES.contains(&attr) {
        return Some(Constexpr::module(&format!("triton.language.{attr}")));
    }
    if attr == "TRITON_MAX_TENSOR_NUMEL" {
        return Some(Constexpr::Int(tritonc_ir::MAX_TENSOR_NUMEL as i128));
    }
    TL_NAMES
        .contains(&attr)
        .then(|| Constexpr::builtin(&format!("triton.language.{attr}")))
}

/// Every name of `triton.language` including dtypes, for did-you-mean suggestions.
pub fn all_tl_names() -> impl Iterator<Item = &'static str> {
    TL_NAMES
        .iter()
        .copied()
        .chain(ALL_DTYPES.iter().filter_map(|d| d.triton_name()))
        .chain(TL_SUBMODULES.iter().copied())
}

/// The closest candidate to `name` (Levenshtein distance ≤ 1/3 of its length, at least 1).
pub fn did_you_mean<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        // Ties go to a candidate of the same length (a typo, not a dropped character).
        .min_by_key(|(d, c)| (*d, c.chars().count().abs_diff(name.chars().count()), *c))
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dtypes_builtins_and_submodules() {
        assert_eq!(
            module_attr("triton.language", "float16"),
            Ok(Some(Constexpr::dtype(DType::F16)))
        );
        assert_eq!(
            module_attr("triton.language", "arange"),
            Ok(Some(Constexpr::builtin("triton.language.arange")))
        );
        assert_eq!(
            module_attr("triton.language.math", "exp"),
            Ok(Some(Constexpr::builtin("triton.language.exp")))
        );
        assert_eq!(
            module_attr("triton.language", "math"),
            Ok(Some(Constexpr::module("triton.language.math")))
        );
        assert_eq!(module_attr("triton.language", "exponent"), Ok(None));
        assert_eq!(
            module_attr("triton", "cdiv"),
            Ok(Some(Constexpr::builtin("triton.cdiv")))
        );
        assert_eq!(module_attr("numpy", "exp"), Err(UnmodelledModule));
    }

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("arang", all_tl_names()), Some("arange"));
        assert_eq!(did_you_mean("zero", all_tl_names()), Some("zeros"));
        assert_eq!(did_you_mean("exponent", all_tl_names()), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
