//! The TOML form of a launch spec, parsed with spans so every error points at its line.

use toml::de::{DeTable, DeValue};
use toml::Spanned;
use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_ir::DType;

use crate::codes;

/// A number or a compile-time expression (`"x.shape[1]"`), with where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What is written.
    pub value: ExprValue,
    /// Where.
    pub span: Span,
}

/// The literal forms of [`Expr`].
#[derive(Debug, Clone, PartialEq)]
pub enum ExprValue {
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A boolean literal.
    Bool(bool),
    /// A Python expression evaluated by the constexpr evaluator.
    Text(String),
}

/// How a tensor's elements are initialized.
#[derive(Debug, Clone, PartialEq)]
pub enum Init {
    /// Standard normal (times `std`, plus `mean`).
    Randn {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
    },
    /// Uniform in `[low, high)`.
    Rand {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Uniform integers in `[low, high)`.
    Randint {
        /// Lower bound.
        low: i64,
        /// Upper bound (exclusive).
        high: i64,
    },
    /// All zero.
    Zeros,
    /// All one.
    Ones,
    /// `0, 1, 2, …` in storage order.
    Arange,
    /// One value everywhere.
    Full(f64),
    /// From a `.npy` file (path relative to the spec).
    Npy(String),
}

/// Special values sprinkled over a tensor after its initializer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Specials {
    /// Fraction of elements set to NaN.
    pub nan: f64,
    /// Fraction set to +inf.
    pub inf: f64,
    /// Fraction set to -inf.
    pub neg_inf: f64,
}

/// A tensor argument.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorSpec {
    /// Its name in the spec (expressions refer to it).
    pub name: String,
    /// The shape, outermost first.
    pub shape: Vec<Expr>,
    /// The element dtype.
    pub dtype: DType,
    /// The initializer.
    pub init: Init,
    /// Special values.
    pub specials: Specials,
    /// Element strides of the view (default: row-major contiguous).
    pub strides: Option<Vec<Expr>>,
    /// The view's storage offset in elements.
    pub offset: Option<Expr>,
    /// Store the data transposed: the view is the transpose of a contiguous 2-D block.
    pub transpose: bool,
    /// Whether the tensor is a result to report.
    pub output: bool,
    /// An independent reference for the output (`.npy`).
    pub reference: Option<String>,
    /// Absolute tolerance against the reference.
    pub atol: Option<f64>,
    /// Relative tolerance against the reference.
    pub rtol: Option<f64>,
    /// Where the table is written.
    pub span: Span,
}

/// A whole launch spec.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSpec {
    /// The kernel's file, relative to the spec.
    pub kernel_file: String,
    /// The kernel's name (`None`: the file's only `@triton.jit` kernel).
    pub kernel_name: Option<String>,
    /// 1–3 grid expressions.
    pub grid: Vec<Expr>,
    /// Warps per program.
    pub num_warps: u32,
    /// Software-pipelining stages of K loops (Triton's `num_stages`, default 3).
    pub num_stages: u32,
    /// Triton's debug mode (`debug = true`): device asserts are compiled in.
    pub debug: bool,
    /// Seed for the initializers.
    pub seed: u64,
    /// Tensors, in the order written.
    pub tensors: Vec<TensorSpec>,
    /// Kernel arguments by parameter name: a tensor name, a number or an expression.
    pub args: Vec<(String, Expr)>,
    /// Where the whole spec is.
    pub span: Span,
}

struct Cx {
    file: FileId,
}

type Val<'i> = Spanned<DeValue<'i>>;

impl Cx {
    fn span(&self, r: std::ops::Range<usize>) -> Span {
        Span::new(self.file, r.start as u32, r.end as u32)
    }

    fn err(&self, r: std::ops::Range<usize>, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(codes::MALFORMED_SPEC, msg.into()).with_primary(self.span(r), "")
    }

    fn expr(&self, v: &Val<'_>) -> Result<Expr, Diagnostic> {
        let span = self.span(v.span());
        let value = match v.get_ref() {
            DeValue::Integer(i) => {
                ExprValue::Int(parse_int(i.as_str(), i.radix()).ok_or_else(|| {
                    self.err(
                        v.span(),
                        format!("`{}` does not fit in 64 bits", i.as_str()),
                    )
                })?)
            }
            DeValue::Float(f) => {
                ExprValue::Float(parse_float(f.as_str()).ok_or_else(|| {
                    self.err(v.span(), format!("`{}` is not a float", f.as_str()))
                })?)
            }
            DeValue::Boolean(b) => ExprValue::Bool(*b),
            DeValue::String(s) => ExprValue::Text(s.to_string()),
            other => {
                return Err(self.err(
                    v.span(),
                    format!(
                        "expected a number or an expression string, found {}",
                        other.type_str()
                    ),
                ))
            }
        };
        Ok(Expr { value, span })
    }

    fn exprs(&self, v: &Val<'_>) -> Result<Vec<Expr>, Diagnostic> {
        match v.get_ref() {
            DeValue::Array(a) => a.iter().map(|x| self.expr(x)).collect(),
            DeValue::String(_) => Ok(vec![self.expr(v)?]),
            _ => Err(self.err(v.span(), "expected an array of numbers or expressions")),
        }
    }

    fn f64(&self, v: &Val<'_>) -> Result<f64, Diagnostic> {
        match v.get_ref() {
            DeValue::Integer(i) => parse_int(i.as_str(), i.radix())
                .map(|x| x as f64)
                .ok_or_else(|| self.err(v.span(), "integer out of range")),
            DeValue::Float(f) => {
                parse_float(f.as_str()).ok_or_else(|| self.err(v.span(), "not a float"))
            }
            DeValue::String(s) => parse_float(s).ok_or_else(|| {
                self.err(
                    v.span(),
                    format!("`{s}` is not a number (`inf`, `-inf` and `nan` are)"),
                )
            }),
            _ => Err(self.err(v.span(), "expected a number")),
        }
    }

    fn str<'v>(&self, v: &'v Val<'_>) -> Result<&'v str, Diagnostic> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s),
            other => Err(self.err(
                v.span(),
                format!("expected a string, found {}", other.type_str()),
            )),
        }
    }

    fn bool(&self, v: &Val<'_>) -> Result<bool, Diagnostic> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.err(
                v.span(),
                format!("expected true or false, found {}", other.type_str()),
            )),
        }
    }

    fn table<'v, 'i>(&self, v: &'v Val<'i>) -> Result<&'v DeTable<'i>, Diagnostic> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.err(
                v.span(),
                format!("expected a table, found {}", other.type_str()),
            )),
        }
    }
}

fn parse_int(s: &str, radix: u32) -> Option<i64> {
    i64::from_str_radix(&s.replace('_', ""), radix).ok()
}

fn parse_float(s: &str) -> Option<f64> {
    let t = s.replace('_', "");
    match t.as_str() {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => t.parse().ok(),
    }
}

/// Entries of a table in the order written (the parser's map is sorted by key).
fn entries<'t, 'i>(
    t: &'t DeTable<'i>,
) -> Vec<(&'t Spanned<std::borrow::Cow<'i, str>>, &'t Val<'i>)> {
    let mut v: Vec<_> = t.iter().collect();
    v.sort_by_key(|(k, _)| k.span().start);
    v
}

/// Parses a dtype name in any of Triton's spellings (`float16`, `fp16`, `tl.float16`).
pub fn parse_dtype(s: &str) -> Option<DType> {
    let s = s
        .strip_prefix("tl.")
        .or_else(|| s.strip_prefix("torch."))
        .unwrap_or(s);
    let alias = match s {
        "half" => "float16",
        "float" => "float32",
        "double" => "float64",
        "bool" => "int1",
        "int" => "int32",
        "long" => "int64",
        "float8_e4m3fn" => "float8e4nv",
        "float8_e5m2" => "float8e5",
        other => other,
    };
    DType::from_triton_name(alias).or_else(|| DType::from_signature_name(alias))
}

const TOP_KEYS: &[&str] = &[
    "kernel",
    "name",
    "grid",
    "num_warps",
    "num_stages",
    "debug",
    "seed",
    "tensors",
    "args",
    "verify",
];
const TENSOR_KEYS: &[&str] = &[
    "shape",
    "dtype",
    "init",
    "mean",
    "std",
    "low",
    "high",
    "value",
    "path",
    "special",
    "strides",
    "offset",
    "transpose",
    "output",
    "reference",
    "atol",
    "rtol",
];

fn unknown_key(
    cx: &Cx,
    key: &Spanned<std::borrow::Cow<'_, str>>,
    allowed: &[&str],
    what: &str,
) -> Diagnostic {
    let mut d = cx
        .err(
            key.span(),
            format!("unknown key `{}` in {what}", key.get_ref()),
        )
        .with_note(format!("known keys: {}", allowed.join(", ")));
    if let Some(best) = allowed.iter().find(|a| strsim_close(a, key.get_ref())) {
        d = d.with_help(format!("did you mean `{best}`?"));
    }
    d
}

/// Whether two keys differ by at most one edit (cheap typo detection).
fn strsim_close(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + (a[i - 1] != b[j - 1]) as usize;
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()] <= 1
}

/// Parses a launch spec. `file` is the id under which the caller registered `text`.
pub fn parse(text: &str, file: FileId) -> Result<LaunchSpec, Vec<Diagnostic>> {
    let cx = Cx { file };
    let doc = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        vec![Diagnostic::error(
            codes::MALFORMED_SPEC,
            format!("invalid TOML: {}", e.message()),
        )
        .with_primary(cx.span(span), "")]
    })?;
    let mut errors = Vec::new();
    let root = doc.get_ref();
    let mut spec = LaunchSpec {
        kernel_file: String::new(),
        kernel_name: None,
        grid: Vec::new(),
        num_warps: 4,
        num_stages: 3,
        debug: false,
        seed: 0,
        tensors: Vec::new(),
        args: Vec::new(),
        span: cx.span(0..text.len()),
    };
    let mut have_kernel = false;
    for (k, v) in entries(root) {
        let r: Result<(), Diagnostic> = (|| {
            match k.get_ref().as_ref() {
                "kernel" => {
                    spec.kernel_file = cx.str(v)?.to_string();
                    have_kernel = true;
                }
                "name" => spec.kernel_name = Some(cx.str(v)?.to_string()),
                "grid" => {
                    spec.grid = cx.exprs(v)?;
                    if spec.grid.is_empty() || spec.grid.len() > 3 {
                        return Err(cx.err(v.span(), "the grid has 1 to 3 dimensions"));
                    }
                }
                "num_warps" => {
                    let w = cx.f64(v)?;
                    if !(1.0..=32.0).contains(&w)
                        || w.fract() != 0.0
                        || !(w as u32).is_power_of_two()
                    {
                        return Err(
                            cx.err(v.span(), "num_warps must be a power of two from 1 to 32")
                        );
                    }
                    spec.num_warps = w as u32;
                }
                "num_stages" => {
                    let n = cx.f64(v)?;
                    if !(1.0..=8.0).contains(&n) || n.fract() != 0.0 {
                        return Err(cx.err(v.span(), "num_stages must be an integer from 1 to 8"));
                    }
                    spec.num_stages = n as u32;
                }
                "debug" => spec.debug = cx.bool(v)?,
                "seed" => {
                    let s = cx.f64(v)?;
                    if s < 0.0 || s.fract() != 0.0 {
                        return Err(cx.err(v.span(), "the seed is a non-negative integer"));
                    }
                    spec.seed = s as u64;
                }
                "tensors" => {
                    for (name, t) in entries(cx.table(v)?) {
                        match tensor(&cx, name.get_ref(), t) {
                            Ok(ts) => spec.tensors.push(ts),
                            Err(mut e) => errors.append(&mut e),
                        }
                    }
                }
                "args" => {
                    for (name, a) in entries(cx.table(v)?) {
                        match cx.expr(a) {
                            Ok(e) => spec.args.push((name.get_ref().to_string(), e)),
                            Err(e) => errors.push(e),
                        }
                    }
                }
                // `tritonc verify`'s settings: parsed and checked by tritonc-verify; a
                // launch does not depend on them.
                "verify" => {
                    cx.table(v)?;
                }
                _ => return Err(unknown_key(&cx, k, TOP_KEYS, "the launch spec")),
            }
            Ok(())
        })();
        if let Err(e) = r {
            errors.push(e);
        }
    }
    if !have_kernel {
        errors.push(
            Diagnostic::error(
                codes::MALFORMED_SPEC,
                "the launch spec names no kernel file",
            )
            .with_primary(cx.span(0..0), "")
            .with_help("add `kernel = \"path/to/kernel.py\"`"),
        );
    }
    if spec.grid.is_empty() && have_kernel {
        errors.push(
            Diagnostic::error(codes::MALFORMED_SPEC, "the launch spec has no grid")
                .with_primary(cx.span(0..0), "")
                .with_help("add e.g. `grid = [\"triton.cdiv(n, BLOCK)\"]`"),
        );
    }
    if errors.is_empty() {
        Ok(spec)
    } else {
        Err(errors)
    }
}

fn tensor(cx: &Cx, name: &str, v: &Val<'_>) -> Result<TensorSpec, Vec<Diagnostic>> {
    let t = cx.table(v).map_err(|e| vec![e])?;
    let mut errors = Vec::new();
    let get = |key: &str| t.iter().find(|(k, _)| k.get_ref() == key).map(|(_, v)| v);
    for (k, _) in t.iter() {
        if !TENSOR_KEYS.contains(&k.get_ref().as_ref()) {
            errors.push(unknown_key(cx, k, TENSOR_KEYS, &format!("tensor `{name}`")));
        }
    }
    let shape = match get("shape") {
        Some(s) => cx.exprs(s).map_err(|e| errors.push(e)).unwrap_or_default(),
        None => {
            errors.push(cx.err(v.span(), format!("tensor `{name}` has no `shape`")));
            Vec::new()
        }
    };
    let dtype = match get("dtype") {
        Some(d) => match cx.str(d) {
            Ok(s) => parse_dtype(s).unwrap_or_else(|| {
                errors.push(cx.err(d.span(), format!("unknown dtype `{s}`")).with_note(
                    "dtypes: float16 bfloat16 float32 float64 int8 int16 int32 int64 uint8 … \
                     float8e4nv float8e5 (or fp16, bf16, fp32, i32, …)",
                ));
                DType::F32
            }),
            Err(e) => {
                errors.push(e);
                DType::F32
            }
        },
        None => {
            errors.push(cx.err(v.span(), format!("tensor `{name}` has no `dtype`")));
            DType::F32
        }
    };
    let num = |key: &str, default: f64, errors: &mut Vec<Diagnostic>| -> f64 {
        get(key)
            .map(|x| cx.f64(x).map_err(|e| errors.push(e)).unwrap_or(default))
            .unwrap_or(default)
    };
    let init = match get("init") {
        None => Init::Zeros,
        Some(i) => match cx.str(i) {
            Ok("randn") => Init::Randn {
                mean: num("mean", 0.0, &mut errors),
                std: num("std", 1.0, &mut errors),
            },
            Ok("rand") => Init::Rand {
                low: num("low", 0.0, &mut errors),
                high: num("high", 1.0, &mut errors),
            },
            Ok("randint") => Init::Randint {
                low: num("low", 0.0, &mut errors) as i64,
                high: num("high", 100.0, &mut errors) as i64,
            },
            Ok("zeros") => Init::Zeros,
            Ok("ones") => Init::Ones,
            Ok("arange") => Init::Arange,
            Ok("full") => match get("value") {
                Some(x) => Init::Full(cx.f64(x).map_err(|e| errors.push(e)).unwrap_or(0.0)),
                None => {
                    errors.push(cx.err(i.span(), "`init = \"full\"` needs a `value`"));
                    Init::Zeros
                }
            },
            Ok("npy") => match get("path").map(|p| cx.str(p)) {
                Some(Ok(p)) => Init::Npy(p.to_string()),
                Some(Err(e)) => {
                    errors.push(e);
                    Init::Zeros
                }
                None => {
                    errors.push(cx.err(i.span(), "`init = \"npy\"` needs a `path`"));
                    Init::Zeros
                }
            },
            Ok(other) => {
                errors.push(
                    cx.err(i.span(), format!("unknown initializer `{other}`"))
                        .with_note(
                            "initializers: randn, rand, randint, zeros, ones, arange, full, npy",
                        ),
                );
                Init::Zeros
            }
            Err(e) => {
                errors.push(e);
                Init::Zeros
            }
        },
    };
    let mut specials = Specials::default();
    if let Some(s) = get("special") {
        match cx.table(s) {
            Ok(st) => {
                for (k, x) in st.iter() {
                    let f = cx.f64(x).map_err(|e| errors.push(e)).unwrap_or(0.0);
                    if !(0.0..=1.0).contains(&f) {
                        errors
                            .push(cx.err(x.span(), "a special-value fraction is between 0 and 1"));
                    }
                    match k.get_ref().as_ref() {
                        "nan" => specials.nan = f,
                        "inf" => specials.inf = f,
                        "neg_inf" | "-inf" => specials.neg_inf = f,
                        _ => {
                            errors.push(unknown_key(cx, k, &["nan", "inf", "neg_inf"], "`special`"))
                        }
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    let flag = |key: &str, errors: &mut Vec<Diagnostic>| {
        get(key)
            .map(|x| cx.bool(x).map_err(|e| errors.push(e)).unwrap_or(false))
            .unwrap_or(false)
    };
    let transpose = flag("transpose", &mut errors);
    let output = flag("output", &mut errors);
    let strides = get("strides").and_then(|s| cx.exprs(s).map_err(|e| errors.push(e)).ok());
    let offset = get("offset").and_then(|s| cx.expr(s).map_err(|e| errors.push(e)).ok());
    let reference =
        get("reference").and_then(|s| cx.str(s).map_err(|e| errors.push(e)).ok().map(String::from));
    let atol = get("atol").and_then(|s| cx.f64(s).map_err(|e| errors.push(e)).ok());
    let rtol = get("rtol").and_then(|s| cx.f64(s).map_err(|e| errors.push(e)).ok());
    if transpose && strides.is_some() {
        errors.push(cx.err(
            v.span(),
            format!("tensor `{name}` sets both `transpose` and `strides`"),
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(TensorSpec {
        name: name.to_string(),
        shape,
        dtype,
        init,
        specials,
        strides,
        offset,
        transpose,
        output,
        reference,
        atol,
        rtol,
        span: cx.span(v.span()),
    })
}

#[cfg(test)]
mod num_stages_tests {
    use super::*;

    const HEAD: &str = "kernel = \"k.py\"\ngrid = [\"1\"]\n";

    #[test]
    fn num_stages_defaults_to_tritons_3_and_is_checked() {
        let file = FileId(0);
        assert_eq!(parse(HEAD, file).expect("parses").num_stages, 3);
        let four = parse(&format!("{HEAD}num_stages = 4\n"), file).expect("parses");
        assert_eq!(four.num_stages, 4);
        for bad in ["0", "2.5", "9"] {
            let errors = parse(&format!("{HEAD}num_stages = {bad}\n"), file)
                .expect_err("out of range");
            assert!(
                errors.iter().any(|d| d.message.contains("num_stages must be")),
                "{bad}: {errors:?}"
            );
        }
    }
}
