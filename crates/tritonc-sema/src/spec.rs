//! Specialization: what a launch fixes about a kernel, from a signature in Triton's AOT
//! syntax (`"*fp16:16, *fp16:16, i32, i32:16, i32:1, 1024"`) and the kernel's annotations.
//!
//! The signature is positional over the kernel's parameters. Each item is a pointer type
//! (`*fp16`, `*kfp32` for a const pointer), a scalar type (`i32`), either with an optional
//! hint (`:16` divisible by 16, `:1` equal to one — which makes the parameter the constant
//! 1, as Triton does), or a bare constant for a `tl.constexpr` parameter (`1024`, `0.5`,
//! `True`, `'rtne'`, `tl.float16`). Signature spans point into the signature text, which callers
//! register in their [`SourceMap`](tritonc_diagnostics::SourceMap) as a file of its own.
//!
//! [`SpecializationKey`] is the one identity of a specialization shared by the compile
//! cache, bundles, launch-time checks and lint: a stable text form and a stable hash.

use std::fmt;

use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_ir::{DType, Elem, PtrType};
use tritonc_syntax::ast::{Expr, FunctionDef, Param, ParamKind};

use crate::codes;
use crate::constexpr::{self, MapEnv};
use crate::value::Constexpr;

/// How one parameter is specialized.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgSpec {
    /// A pointer argument.
    Pointer {
        /// The pointee dtype.
        pointee: DType,
        /// Whether the pointer is `const` (`*k…`).
        is_const: bool,
        /// The address is a multiple of this many bytes (16 with `:16`).
        divisibility: Option<u32>,
    },
    /// A scalar argument.
    Scalar {
        /// Its dtype.
        dtype: DType,
        /// The value is a multiple of this (16 with `:16`).
        divisibility: Option<u32>,
    },
    /// A compile-time constant (a `tl.constexpr` parameter, or an int hinted `:1`).
    Constexpr(Constexpr),
}

impl ArgSpec {
    /// Whether the argument is passed at launch (not folded into the kernel).
    pub fn is_runtime(&self) -> bool {
        !matches!(self, ArgSpec::Constexpr(_))
    }
}

impl fmt::Display for ArgSpec {
    /// The AOT signature form: `*fp16:16`, `*kfp32`, `i32`, `1024`, `'rtne'`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hint = |f: &mut fmt::Formatter<'_>, d: Option<u32>| match d {
            Some(d) => write!(f, ":{d}"),
            None => Ok(()),
        };
        match self {
            ArgSpec::Pointer {
                pointee,
                is_const,
                divisibility,
            } => {
                write!(
                    f,
                    "*{}{}",
                    if *is_const { "k" } else { "" },
                    pointee.signature_name().unwrap_or("?")
                )?;
                hint(f, *divisibility)
            }
            ArgSpec::Scalar {
                dtype,
                divisibility,
            } => {
                f.write_str(dtype.signature_name().unwrap_or("?"))?;
                hint(f, *divisibility)
            }
            ArgSpec::Constexpr(c) => write!(f, "{c}"),
        }
    }
}

/// One item of a parsed signature, with where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureItem {
    /// The item's text, trimmed.
    pub text: String,
    /// Its span in the signature file.
    pub span: Span,
    /// What it says, before it is matched to a parameter.
    pub kind: ItemKind,
}

/// What a signature item says on its own.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// A pointer type with an optional hint.
    Pointer {
        /// Pointee.
        pointee: DType,
        /// `*k`.
        is_const: bool,
        /// The hint after `:`, if any.
        hint: Option<u32>,
    },
    /// A scalar type with an optional hint; a bare dtype name is also a dtype constant.
    Scalar {
        /// The dtype.
        dtype: DType,
        /// The hint after `:`, if any.
        hint: Option<u32>,
    },
    /// A constant (int, float, bool, None, string).
    Value(Constexpr),
}

/// The target a specialization compiles for (its key form is `cuda:90:32`).
pub use tritonc_target::Target;

/// Launch options that take part in a specialization.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LaunchOptions {
    /// Warps per program (a power of two).
    pub num_warps: u32,
    /// Software pipelining stages.
    pub num_stages: u32,
    /// The target.
    pub target: Target,
    /// Triton's debug mode (`@triton.jit(debug=True)`, `TRITON_DEBUG=1`): device asserts
    /// become code instead of nothing.
    pub debug: bool,
    /// The Triton language version whose rules apply (default 3.6).
    pub triton_version: crate::TritonVersion,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            num_warps: 4,
            num_stages: 3,
            target: Target::cuda(90),
            debug: false,
            triton_version: crate::TritonVersion::default(),
        }
    }
}

/// A kernel specialized for one launch: every parameter's [`ArgSpec`] and the options.
#[derive(Debug, Clone, PartialEq)]
pub struct Specialization {
    /// The kernel's name.
    pub kernel: String,
    /// One entry per parameter, in order: name and spec.
    pub params: Vec<(String, ArgSpec)>,
    /// num_warps, num_stages and target.
    pub options: LaunchOptions,
}

impl Specialization {
    /// The spec of parameter `name`.
    pub fn param(&self, name: &str) -> Option<&ArgSpec> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The constexpr parameters and their values.
    pub fn constexprs(&self) -> impl Iterator<Item = (&str, &Constexpr)> {
        self.params.iter().filter_map(|(n, s)| match s {
            ArgSpec::Constexpr(c) => Some((n.as_str(), c)),
            _ => None,
        })
    }

    /// This specialization's key.
    pub fn key(&self) -> SpecializationKey {
        SpecializationKey {
            kernel: self.kernel.clone(),
            args: self
                .params
                .iter()
                .map(|(n, s)| KeyArg {
                    name: n.clone(),
                    spec: s.to_string(),
                })
                .collect(),
            num_warps: self.options.num_warps,
            num_stages: self.options.num_stages,
            target: self.options.target,
            debug: self.options.debug,
            triton_version: self.options.triton_version,
        }
    }

    /// A variant with constexpr parameters set from an autotune config's kwargs (or a
    /// heuristic's results) and the config's options. `span` is where the config is written.
    pub fn with_meta(
        &self,
        values: &[(String, Constexpr)],
        num_warps: Option<u32>,
        num_stages: Option<u32>,
        span: Span,
    ) -> Result<Specialization, Diagnostic> {
        let mut out = self.clone();
        for (name, value) in values {
            let Some(slot) = out.params.iter_mut().find(|(n, _)| n == name) else {
                return Err(Diagnostic::error(
                    codes::BAD_META_PARAMETER,
                    format!("`{name}` is not a parameter of `{}`", self.kernel),
                )
                .with_primary(span, "set here"));
            };
            slot.1 = ArgSpec::Constexpr(value.clone());
        }
        if let Some(w) = num_warps {
            if !w.is_power_of_two() {
                return Err(Diagnostic::error(
                    codes::BAD_META_PARAMETER,
                    format!("num_warps must be a power of two, got {w}"),
                )
                .with_primary(span, ""));
            }
            out.options.num_warps = w;
        }
        if let Some(s) = num_stages {
            out.options.num_stages = s;
        }
        Ok(out)
    }
}

/// One argument of a [`SpecializationKey`]: the parameter name and its AOT spec text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct KeyArg {
    /// The parameter name.
    pub name: String,
    /// `*fp16:16`, `i32`, `1024`, `'rtne'`, `tl.float16` (a dtype constant).
    pub spec: String,
}

/// The identity of one specialization: argument types and hints, constexpr values,
/// num_warps, num_stages, target and debug mode. Its [`Display`](fmt::Display) form is stable and
/// [`SpecializationKey::hash_hex`] hashes exactly that text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SpecializationKey {
    /// The kernel's name.
    pub kernel: String,
    /// Every parameter, in order.
    pub args: Vec<KeyArg>,
    /// Warps per program.
    pub num_warps: u32,
    /// Pipelining stages.
    pub num_stages: u32,
    /// The target.
    pub target: Target,
    /// Debug mode (device asserts compiled in). Absent in keys written before it existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub debug: bool,
    /// The Triton language version (3.6 unless set). Absent for 3.6, so 3.6 keys keep
    /// the text and hash they had before versions existed.
    #[serde(default, skip_serializing_if = "crate::TritonVersion::is_default")]
    pub triton_version: crate::TritonVersion,
}

impl fmt::Display for SpecializationKey {
    /// `add_kernel(x_ptr=*fp32:16, …, BLOCK_SIZE=1024) warps=4 stages=3 target=cuda:90:32`,
    /// then ` debug` in debug mode and ` triton=3.7` for a version other than 3.6 (so keys
    /// without them keep their text and hash).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kernel)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}={}", a.name, a.spec)?;
        }
        write!(
            f,
            ") warps={} stages={} target={}",
            self.num_warps, self.num_stages, self.target
        )?;
        if self.debug {
            f.write_str(" debug")?;
        }
        if !self.triton_version.is_default() {
            write!(f, " triton={}", self.triton_version)?;
        }
        Ok(())
    }
}

impl SpecializationKey {
    /// A stable 64-bit FNV-1a hash of the text form.
    pub fn hash64(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.to_string().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    /// The hash as 16 lowercase hex digits.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash64())
    }
}

fn malformed(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(codes::SIGNATURE_MALFORMED, msg).with_primary(span, "")
}

/// A dtype by signature name (`fp16`), Triton name (`float16`) or `tl.` name (`tl.float16`).
fn dtype_by_any_name(s: &str) -> Option<DType> {
    let s = s.strip_prefix("tl.").unwrap_or(s);
    DType::from_signature_name(s).or_else(|| DType::from_triton_name(s))
}

fn unknown_dtype(name: &str, span: Span) -> Diagnostic {
    let names: Vec<&str> = tritonc_ir::ALL_DTYPES
        .iter()
        .filter_map(|d| d.signature_name())
        .collect();
    let mut d = Diagnostic::error(
        codes::SIGNATURE_UNKNOWN_DTYPE,
        format!("unknown dtype `{name}` in signature"),
    )
    .with_primary(span, "not a Triton dtype");
    if let Some(s) = crate::builtins::names::did_you_mean(name, names.iter().copied()) {
        d = d.with_help(format!("did you mean `{s}`?"));
    } else {
        d = d.with_note(format!("signature dtypes are: {}", names.join(" ")));
    }
    d
}

/// Parses a bare constant item.
fn parse_value(text: &str) -> Option<Constexpr> {
    match text {
        "True" => return Some(Constexpr::Bool(true)),
        "False" => return Some(Constexpr::Bool(false)),
        "None" => return Some(Constexpr::None),
        _ => {}
    }
    let quoted = (text.starts_with('\'') && text.ends_with('\''))
        || (text.starts_with('"') && text.ends_with('"'));
    if quoted && text.len() >= 2 {
        return Some(Constexpr::Str(text[1..text.len() - 1].to_string()));
    }
    if let Ok(v) = text.parse::<i128>() {
        return Some(Constexpr::Int(v));
    }
    let looks_numeric =
        text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    if looks_numeric || matches!(text, "inf" | "-inf" | "nan") {
        return text.parse::<f64>().ok().map(Constexpr::Float);
    }
    None
}

/// Parses a signature. `file` is the id under which the caller registered `text`.
pub fn parse_signature(text: &str, file: FileId) -> Result<Vec<SignatureItem>, Vec<Diagnostic>> {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    let mut offset = 0usize;
    for raw in text.split(',') {
        let start = offset + (raw.len() - raw.trim_start().len());
        let trimmed = raw.trim();
        let span = Span::new(file, start as u32, (start + trimmed.len()) as u32);
        offset += raw.len() + 1;
        if trimmed.is_empty() {
            if text.trim().is_empty() && items.is_empty() && errors.is_empty() {
                return Ok(Vec::new());
            }
            errors.push(malformed(span, "empty item in signature"));
            continue;
        }
        match parse_item(trimmed, span) {
            Ok(kind) => items.push(SignatureItem {
                text: trimmed.to_string(),
                span,
                kind,
            }),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(items)
    } else {
        Err(errors)
    }
}

fn parse_item(text: &str, span: Span) -> Result<ItemKind, Diagnostic> {
    if let Some(v) = parse_value(text) {
        return Ok(ItemKind::Value(v));
    }
    // Triton dtype names (`float16`, `tl.float16`) are dtype constants; signature names
    // (`fp16`, `i32`) are runtime types. The two sets do not overlap.
    if let Some(d) = DType::from_triton_name(text.strip_prefix("tl.").unwrap_or(text)) {
        return Ok(ItemKind::Value(Constexpr::dtype(d)));
    }
    let (ty, hint) = match text.split_once(':') {
        Some((t, h)) => {
            let t = t.trim_end();
            let h_trim = h.trim();
            let h_start = span.start
                + (text.len() - h.len()) as u32
                + (h.len() - h.trim_start().len()) as u32;
            let h_span = Span::new(span.file, h_start, h_start + h_trim.len() as u32);
            let value = h_trim.parse::<u32>().map_err(|_| {
                Diagnostic::error(
                    codes::SIGNATURE_BAD_HINT,
                    format!("`{h_trim}` is not a specialization hint"),
                )
                .with_primary(h_span, "expected `16` or `1`")
            })?;
            if value != 16 && value != 1 {
                return Err(Diagnostic::error(
                    codes::SIGNATURE_BAD_HINT,
                    format!("only `:16` and `:1` are specialization hints, not `:{value}`"),
                )
                .with_primary(h_span, "")
                .with_note("`:16` means divisible by 16; `:1` means equal to 1"));
            }
            (t, Some((value, h_span)))
        }
        None => (text, None),
    };
    let ty_span = Span::new(span.file, span.start, span.start + ty.len() as u32);
    if let Some(rest) = ty.strip_prefix('*') {
        let (is_const, name) = match rest.strip_prefix('k') {
            Some(n) if dtype_by_any_name(n).is_some() => (true, n),
            _ => (false, rest),
        };
        let name_start = ty_span.end - name.len() as u32;
        let name_span = Span::new(span.file, name_start, ty_span.end);
        let pointee = dtype_by_any_name(name).ok_or_else(|| unknown_dtype(name, name_span))?;
        if let Some((1, h_span)) = hint {
            return Err(Diagnostic::error(
                codes::SIGNATURE_BAD_HINT,
                "a pointer cannot be specialized as equal to 1",
            )
            .with_primary(h_span, "")
            .with_help("use `:16` for a 16-byte aligned pointer"));
        }
        return Ok(ItemKind::Pointer {
            pointee,
            is_const,
            hint: hint.map(|h| h.0),
        });
    }
    if ty.starts_with("tensordesc") {
        return Err(Diagnostic::error(
            codes::SIGNATURE_MALFORMED,
            "tensor descriptor arguments are not supported yet",
        )
        .with_primary(ty_span, ""));
    }
    if !ty
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return Err(malformed(
            span,
            format!("`{text}` is neither a type nor a constant"),
        ));
    }
    let dtype = dtype_by_any_name(ty).ok_or_else(|| unknown_dtype(ty, ty_span))?;
    if let Some((h, h_span)) = hint {
        if dtype.is_float() {
            return Err(Diagnostic::error(
                codes::SIGNATURE_BAD_HINT,
                format!("float arguments take no hint (`:{h}`)"),
            )
            .with_primary(h_span, "")
            .with_note("Triton never specializes floats"));
        }
        if dtype == DType::I1 {
            return Err(Diagnostic::error(
                codes::SIGNATURE_BAD_HINT,
                format!("bool arguments take no hint (`:{h}`)"),
            )
            .with_primary(h_span, ""));
        }
    }
    Ok(ItemKind::Scalar {
        dtype,
        hint: hint.map(|h| h.0),
    })
}

/// Whether an annotation means `tl.constexpr`: the class by any dotted name, or a string
/// that mentions it (`"tl.constexpr"`, as unsloth writes parameters): Triton 3.6's
/// `KernelParam.is_constexpr` is `"constexpr" in annotation`.
pub fn is_constexpr_annotation(annotation: &Expr) -> bool {
    annotation
        .dotted_path()
        .is_some_and(|p| p == "constexpr" || p.ends_with(".constexpr"))
        || annotation
            .as_str_literal()
            .is_some_and(|s| s.contains("constexpr"))
}

/// The dtype an annotation names (`tl.int64`, `"i32"`), if any.
fn annotation_dtype(annotation: &Expr) -> Option<DType> {
    if let Some(s) = annotation.as_str_literal() {
        return dtype_by_any_name(s);
    }
    let path = annotation.dotted_path()?;
    let last = path.rsplit('.').next()?;
    if path.contains('.') {
        DType::from_triton_name(last)
    } else {
        None
    }
}

/// Binds signature items to a kernel's parameters.
///
/// `meta_params` are the parameters filled later by autotune configs or heuristics: they
/// take no item and start as `None` constants until [`Specialization::with_meta`] sets
/// them. `signature_span` covers the whole signature (for arity errors).
pub fn bind_signature(
    kernel: &FunctionDef,
    items: &[SignatureItem],
    meta_params: &[&str],
    options: LaunchOptions,
    signature_span: Span,
) -> Result<Specialization, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    for p in &kernel.params {
        if !matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) {
            errors.push(
                Diagnostic::error(codes::SIGNATURE_MALFORMED, "kernels with `*args`, `**kwargs` or keyword-only parameters cannot be specialized")
                    .with_primary(p.span, ""),
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let positional: Vec<&Param> = kernel
        .params
        .iter()
        .filter(|p| !meta_params.contains(&p.name.name.as_str()))
        .collect();
    if positional.len() != items.len() {
        let names: Vec<&str> = positional.iter().map(|p| p.name.name.as_str()).collect();
        let mut d = Diagnostic::error(
            codes::SIGNATURE_ARITY,
            format!(
                "the signature has {} item(s) but `{}` takes {} parameter(s)",
                items.len(),
                kernel.name.name,
                positional.len()
            ),
        );
        d = match items.get(positional.len()) {
            Some(extra) => d.with_primary(extra.span, "no parameter left for this item"),
            None => d.with_primary(
                signature_span,
                format!("missing `{}`", names[items.len()..].join("`, `")),
            ),
        };
        d = d
            .with_secondary(kernel.header_span, "parameters declared here")
            .with_note(format!(
                "the signature lists, in order: {}",
                names.join(", ")
            ));
        if !meta_params.is_empty() {
            d = d.with_note(format!(
                "set by autotune configs or heuristics, so not listed: {}",
                meta_params.join(", ")
            ));
        }
        return Err(vec![d]);
    }
    let mut params = Vec::new();
    let mut item_iter = items.iter();
    for p in &kernel.params {
        let name = p.name.name.clone();
        if meta_params.contains(&name.as_str()) {
            params.push((name, ArgSpec::Constexpr(Constexpr::None)));
            continue;
        }
        let item = item_iter
            .next()
            .expect("the arity check matched items to positional parameters");
        match bind_one(p, item) {
            Ok(spec) => params.push((name, spec)),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(Specialization {
            kernel: kernel.name.name.clone(),
            params,
            options,
        })
    } else {
        Err(errors)
    }
}

fn bind_one(p: &Param, item: &SignatureItem) -> Result<ArgSpec, Diagnostic> {
    let is_constexpr = p.annotation.as_ref().is_some_and(is_constexpr_annotation);
    let pname = &p.name.name;
    match (&item.kind, is_constexpr) {
        (ItemKind::Value(v), true) => Ok(ArgSpec::Constexpr(v.clone())),
        // Triton's launcher specializes a `None` argument as the constant `None` whatever
        // the parameter's annotation (`mangle_type(None)` is `constexpr`).
        (ItemKind::Value(Constexpr::None), false) => Ok(ArgSpec::Constexpr(Constexpr::None)),
        (ItemKind::Pointer { .. } | ItemKind::Scalar { .. }, true) => Err(Diagnostic::error(
            codes::SIGNATURE_CONSTEXPR_TYPED,
            format!(
                "`{pname}` is a `tl.constexpr` parameter but the signature gives it a runtime type"
            ),
        )
        .with_primary(item.span, "expected a constant such as `1024`")
        .with_secondary(p.span, "declared `tl.constexpr` here")),
        (ItemKind::Value(v), false) => Err(Diagnostic::error(
            codes::SIGNATURE_VALUE_FOR_RUNTIME,
            format!(
                "`{pname}` is a runtime parameter but the signature gives it the constant `{v}`"
            ),
        )
        .with_primary(item.span, "a constant needs a `tl.constexpr` parameter")
        .with_secondary(p.span, "declared here")
        .with_help(format!(
            "give a type such as `i32`, or annotate `{pname}: tl.constexpr`"
        ))),
        (
            ItemKind::Pointer {
                pointee,
                is_const,
                hint,
            },
            false,
        ) => Ok(ArgSpec::Pointer {
            pointee: *pointee,
            is_const: *is_const,
            divisibility: *hint,
        }),
        (ItemKind::Scalar { dtype, hint }, false) => {
            if let Some(want) = p.annotation.as_ref().and_then(annotation_dtype) {
                if want != *dtype {
                    return Err(Diagnostic::error(
                        codes::SIGNATURE_ANNOTATION_MISMATCH,
                        format!(
                            "`{pname}` is annotated `{}` but the signature says `{}`",
                            want.signature_name().unwrap_or("?"),
                            dtype.signature_name().unwrap_or("?")
                        ),
                    )
                    .with_primary(item.span, "")
                    .with_secondary(p.span, "annotated here"));
                }
            }
            if *hint == Some(1) {
                // Triton turns an argument equal to 1 into the constant 1.
                return Ok(ArgSpec::Constexpr(Constexpr::Int(1)));
            }
            Ok(ArgSpec::Scalar {
                dtype: *dtype,
                divisibility: *hint,
            })
        }
    }
}

/// Evaluates one autotune config value or heuristic expression (compile-time Python).
pub fn eval_meta_value(expr: &Expr) -> Result<Constexpr, Diagnostic> {
    constexpr::eval_expr(expr, &MapEnv::new())
}

/// The pointer element an [`ArgSpec`] gives its parameter in IR.
pub fn pointer_elem(pointee: DType) -> Elem {
    Elem::Ptr(PtrType::global(pointee))
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
