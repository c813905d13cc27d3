//! libdevice's function names as AMD's math library (ocml) spells them.
//!
//! The tile IR names math functions as NVIDIA's libdevice does (`__nv_expf`,
//! `__nv_erf`: Triton's `tl.math` and `libdevice.*` wrappers). ocml has the same
//! functions under `__ocml_<name>_<type>`: `__nv_expf` is `__ocml_exp_f32`, `__nv_erf`
//! (fp64) is `__ocml_erf_f64`, as Triton's AMD back end maps them. A name ocml lacks is
//! refused when the device libraries are linked (cpp/amdgpu.cpp).

/// The ocml name of libdevice's `symbol` whose result is fp64 when `fp64` (fp32
/// otherwise); `None` for a name that is not libdevice's.
pub fn ocml_symbol(symbol: &str, fp64: bool) -> Option<String> {
    let name = symbol.strip_prefix("__nv_")?;
    let base = if fp64 {
        name
    } else {
        // fp32 functions end in `f` (`expf`, `erff`); `_rn`-style suffixes come after it.
        name.strip_suffix('f').unwrap_or(name)
    };
    if base.is_empty() {
        return None;
    }
    Some(format!(
        "__ocml_{base}_{}",
        if fp64 { "f64" } else { "f32" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libdevice_names_become_ocml_names() {
        assert_eq!(
            ocml_symbol("__nv_expf", false).as_deref(),
            Some("__ocml_exp_f32")
        );
        assert_eq!(
            ocml_symbol("__nv_erff", false).as_deref(),
            Some("__ocml_erf_f32")
        );
        assert_eq!(
            ocml_symbol("__nv_erf", true).as_deref(),
            Some("__ocml_erf_f64")
        );
        assert_eq!(
            ocml_symbol("__nv_sinf", false).as_deref(),
            Some("__ocml_sin_f32")
        );
        assert_eq!(ocml_symbol("expf", false), None);
    }
}
