//! The `[verify]` table of a launch spec: what the verifier may assume about a kernel
//! (`deterministic = false`) and the overrides of its defaults (tolerances, dtypes,
//! sizes, run counts).
//!
//! The launch-spec parser knows nothing of `[verify]`; [`split_verify_table`] cuts the
//! table out of the text before the spec is parsed, replacing it with blanks of the same
//! length so every span the spec parser reports still points at the right byte.

use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_ir::DType;
use tritonc_spec::codes;

/// The verifier's settings for one spec.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyConfig {
    /// Whether repeated runs must be bitwise identical (`false` for kernels with float
    /// atomics or locks: runs are then compared within the tolerance).
    pub deterministic: bool,
    /// Absolute tolerance against the interpreter, replacing the derived one.
    pub atol: Option<f64>,
    /// Relative tolerance against the interpreter, replacing the derived one.
    pub rtol: Option<f64>,
    /// Stage 2's float dtypes (default fp16, bf16, fp32).
    pub dtypes: Vec<DType>,
    /// Stage 3's sizes not divisible by any power-of-two block (default 127 and 33).
    pub edge_sizes: Vec<usize>,
    /// Stage 3: which literal dims the size variants may change.
    pub vary_sizes: SizeVariation,
    /// Stage 4's runs (default 10).
    pub runs: usize,
    /// Stage 5's launches (default 200).
    pub stress_iterations: usize,
    /// Stage 5: how much device memory use may grow over the launches, in bytes.
    pub stress_memory_slack: u64,
    /// Stage 3's launch past 2^31 elements (`[verify.large]`), when the spec declares one.
    pub large: Option<LargeConfig>,
    /// Where the `[verify]` table is (`None` without one), for errors found later.
    pub span: Option<Span>,
}

/// `[verify.large]`: the launch of stage 3's large-input check, as overrides of the
/// spec, and how many program ids the interpreter samples from it.
#[derive(Debug, Clone, PartialEq)]
pub struct LargeConfig {
    /// New values of literal dims (`"x.shape[0]" = 2147488648`): expressions over them
    /// (other shapes, `x.numel`, the grid) follow.
    pub dims: Vec<(DimRef, u64)>,
    /// New values of `[args]` entries (`BLOCK_SIZE = 4096`).
    pub args: Vec<(String, tritonc_spec::parse::ExprValue)>,
    /// Random program ids sampled besides the first, the last and those around the
    /// boundary (default 4).
    pub random_programs: usize,
    /// The element count the launch must pass (2^31; smaller only in tests).
    pub boundary: u64,
}

impl LargeConfig {
    /// 2^31: the first element index an int32 offset cannot reach.
    pub const BOUNDARY: u64 = 1 << 31;
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            deterministic: true,
            atol: None,
            rtol: None,
            dtypes: vec![DType::F16, DType::BF16, DType::F32],
            edge_sizes: vec![127, 33],
            vary_sizes: SizeVariation::Every,
            runs: 10,
            stress_iterations: 200,
            stress_memory_slack: 1 << 20,
            large: None,
            span: None,
        }
    }
}

/// Which literal dims of a spec stage 3's size variants may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeVariation {
    /// Every literal dim above 1 (`vary_sizes = true`, the default).
    Every,
    /// None: the kernel needs the spec's sizes (`vary_sizes = false`).
    Off,
    /// Only these (`vary_sizes = ["q.shape[2]"]`): the kernel needs the others, e.g. a
    /// head dim that sizes a `tl.arange` or a dot's K.
    Only(Vec<DimRef>),
}

impl SizeVariation {
    /// Whether dim `dim` of tensor `tensor` may change.
    pub fn allows(&self, tensor: &str, dim: usize) -> bool {
        match self {
            SizeVariation::Every => true,
            SizeVariation::Off => false,
            SizeVariation::Only(dims) => dims.iter().any(|d| d.tensor == tensor && d.dim == dim),
        }
    }
}

/// One dim of one spec tensor, written `x.shape[1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimRef {
    /// The tensor's name.
    pub tensor: String,
    /// The dim's position.
    pub dim: usize,
}

impl DimRef {
    /// Parses `NAME.shape[I]`.
    pub fn parse(text: &str) -> Option<DimRef> {
        let (tensor, rest) = text.trim().split_once(".shape[")?;
        let dim = rest.strip_suffix(']')?.trim().parse().ok()?;
        let tensor = tensor.trim();
        let ident = !tensor.is_empty()
            && tensor.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !tensor.starts_with(|c: char| c.is_ascii_digit());
        ident.then(|| DimRef {
            tensor: tensor.to_string(),
            dim,
        })
    }
}

impl std::fmt::Display for DimRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.shape[{}]", self.tensor, self.dim)
    }
}

/// `vary_sizes = true | false | ["x.shape[0]", …]`.
fn parse_vary_sizes(v: &toml::Value) -> Result<SizeVariation, String> {
    const FORM: &str =
        "`vary_sizes` must be true, false or a list of the dims that may vary (\"x.shape[0]\")";
    match v {
        toml::Value::Boolean(true) => Ok(SizeVariation::Every),
        toml::Value::Boolean(false) => Ok(SizeVariation::Off),
        toml::Value::Array(items) => {
            let dims = items
                .iter()
                .map(|d| match d.as_str().map(DimRef::parse) {
                    Some(Some(r)) => Ok(r),
                    _ => Err(format!("{FORM}; `{d}` is not `NAME.shape[I]`")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(if dims.is_empty() {
                SizeVariation::Off
            } else {
                SizeVariation::Only(dims)
            })
        }
        _ => Err(FORM.into()),
    }
}

/// The keys `[verify]` accepts.
const KEYS: &[&str] = &[
    "deterministic",
    "atol",
    "rtol",
    "dtypes",
    "edge_sizes",
    "vary_sizes",
    "runs",
    "stress_iterations",
    "stress_memory_slack",
    "large",
];

/// The keys `[verify.large]` accepts.
const LARGE_KEYS: &[&str] = &["dims", "args", "random_programs"];

/// The most random programs a large launch samples: each runs on the CPU interpreter, so
/// thousands would take minutes (and a huge count would exhaust memory planning them).
const MAX_RANDOM_PROGRAMS: i64 = 1024;

/// Reads `[verify.large]`.
fn parse_large(v: &toml::Value) -> Result<LargeConfig, String> {
    use tritonc_spec::parse::ExprValue;
    let t = v
        .as_table()
        .ok_or("`[verify.large]` must be a table (`[verify.large]` with `dims = { … }`)")?;
    let mut c = LargeConfig {
        dims: Vec::new(),
        args: Vec::new(),
        random_programs: 4,
        boundary: LargeConfig::BOUNDARY,
    };
    for (k, v) in t {
        match k.as_str() {
            "dims" => {
                let dims = v.as_table().ok_or(
                    "`[verify.large] dims` must be a table of dims and sizes \
                     (`dims = { \"x.shape[0]\" = 2147488648 }`)",
                )?;
                for (d, n) in dims {
                    let r = DimRef::parse(d).ok_or_else(|| {
                        format!("`[verify.large] dims`: `{d}` is not `NAME.shape[I]`")
                    })?;
                    let n = match n {
                        toml::Value::Integer(i) if *i >= 1 => *i as u64,
                        _ => {
                            return Err(format!(
                                "`[verify.large] dims`: `{d}` must be a positive integer"
                            ))
                        }
                    };
                    c.dims.push((r, n));
                }
            }
            "args" => {
                let args = v.as_table().ok_or(
                    "`[verify.large] args` must be a table (`args = { BLOCK_SIZE = 4096 }`)",
                )?;
                for (name, a) in args {
                    let value = match a {
                        toml::Value::Integer(i) => ExprValue::Int(*i),
                        toml::Value::Float(f) => ExprValue::Float(*f),
                        toml::Value::Boolean(b) => ExprValue::Bool(*b),
                        toml::Value::String(s) => ExprValue::Text(s.clone()),
                        _ => {
                            return Err(format!(
                                "`[verify.large] args`: `{name}` must be a number, a boolean \
                                 or an expression string"
                            ))
                        }
                    };
                    c.args.push((name.clone(), value));
                }
            }
            "random_programs" => match v {
                toml::Value::Integer(i) if (0..=MAX_RANDOM_PROGRAMS).contains(i) => {
                    c.random_programs = *i as usize
                }
                _ => {
                    return Err(format!(
                        "`random_programs` must be an integer from 0 to {MAX_RANDOM_PROGRAMS}"
                    ))
                }
            },
            other => {
                return Err(format!(
                    "unknown key `{other}` in `[verify.large]`; the keys are: {}",
                    LARGE_KEYS.join(", ")
                ))
            }
        }
    }
    if c.dims.is_empty() {
        return Err(
            "`[verify.large]` needs `dims`: the literal dims that make some tensor larger \
             than 2^31 elements (`dims = { \"x.shape[0]\" = 2147488648 }`)"
                .into(),
        );
    }
    Ok(c)
}

/// Splits a spec's text into the text for the launch-spec parser (with the `[verify]`
/// table blanked out, byte offsets unchanged) and the parsed `[verify]` settings.
/// `file` is the spec's id, for the spans of errors.
pub fn split_verify_table(
    text: &str,
    file: FileId,
) -> Result<(String, VerifyConfig), Vec<Diagnostic>> {
    let mut masked = String::with_capacity(text.len());
    let mut table = String::new();
    let mut table_start = None;
    let mut inside = false;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let head = line.trim_start();
        if head.starts_with('[') {
            let name = head
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim();
            inside = name == "verify" || name.starts_with("verify.");
            if inside && table_start.is_none() {
                table_start = Some(offset);
            }
        }
        if inside {
            table.push_str(line);
            // Keep the line breaks so line numbers stay right; blank everything else.
            masked.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            // Multi-byte characters become one space each: pad to the same byte length.
            let lost = line.len() - line.chars().count();
            masked.extend(std::iter::repeat_n(' ', lost));
        } else {
            masked.push_str(line);
        }
        offset += line.len();
    }
    let Some(start) = table_start else {
        return Ok((masked, VerifyConfig::default()));
    };
    let span = Span::new(file, start as u32, (start + table.len()) as u32);
    let error =
        |msg: String| vec![Diagnostic::error(codes::MALFORMED_SPEC, msg).with_primary(span, "")];
    let doc: toml::Table = table.parse().map_err(|e: toml::de::Error| {
        error(format!("invalid `[verify]` table: {}", e.message()))
    })?;
    let Some(toml::Value::Table(t)) = doc.get("verify") else {
        return Err(error("`[verify]` must be a table".into()));
    };
    parse_config(t)
        .map(|c| {
            let c = VerifyConfig {
                span: Some(span),
                ..c
            };
            (masked, c)
        })
        .map_err(error)
}

/// Reads the `[verify]` keys.
fn parse_config(t: &toml::Table) -> Result<VerifyConfig, String> {
    let mut c = VerifyConfig::default();
    for (k, v) in t {
        let number = |v: &toml::Value| -> Result<f64, String> {
            match v {
                toml::Value::Integer(i) => Ok(*i as f64),
                toml::Value::Float(f) if *f >= 0.0 => Ok(*f),
                _ => Err(format!("`{k}` must be a non-negative number")),
            }
        };
        let count = |v: &toml::Value| -> Result<usize, String> {
            match v {
                toml::Value::Integer(i) if *i >= 1 => Ok(*i as usize),
                _ => Err(format!("`{k}` must be a positive integer")),
            }
        };
        match k.as_str() {
            "deterministic" => {
                c.deterministic = v
                    .as_bool()
                    .ok_or_else(|| format!("`{k}` must be true or false"))?;
            }
            "vary_sizes" => c.vary_sizes = parse_vary_sizes(v)?,
            "large" => c.large = Some(parse_large(v)?),
            "atol" => c.atol = Some(number(v)?),
            "rtol" => c.rtol = Some(number(v)?),
            "runs" => c.runs = count(v)?.max(2),
            "stress_iterations" => c.stress_iterations = count(v)?,
            "stress_memory_slack" => c.stress_memory_slack = number(v)? as u64,
            "dtypes" => {
                let items = v
                    .as_array()
                    .ok_or("`dtypes` must be an array of dtype names")?;
                c.dtypes = items
                    .iter()
                    .map(|d| {
                        d.as_str()
                            .and_then(tritonc_spec::parse::parse_dtype)
                            .filter(|d| d.is_float())
                            .ok_or_else(|| format!("`{d}` is not a float dtype"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "edge_sizes" => {
                let items = v
                    .as_array()
                    .ok_or("`edge_sizes` must be an array of sizes")?;
                c.edge_sizes = items.iter().map(count).collect::<Result<_, _>>()?;
            }
            other => {
                return Err(format!(
                    "unknown key `{other}` in `[verify]`; the keys are: {}",
                    KEYS.join(", ")
                ))
            }
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "kernel = \"k.py\"\ngrid = [1]\n\n[verify]\ndeterministic = false\nrtol = 1e-3\ndtypes = [\"fp16\", \"float32\"]\n\n[args]\nn = 3\n";

    #[test]
    fn the_verify_table_is_blanked_with_offsets_kept() {
        let (masked, cfg) = split_verify_table(SPEC, FileId(0)).expect("valid");
        assert_eq!(masked.len(), SPEC.len());
        assert_eq!(masked.lines().count(), SPEC.lines().count());
        assert!(!masked.contains("verify"));
        // What follows the table is untouched, at the same offset.
        let args = SPEC.find("[args]").expect("present");
        assert_eq!(&masked[args..], &SPEC[args..]);
        assert!(!cfg.deterministic);
        assert_eq!(cfg.rtol, Some(1e-3));
        assert_eq!(cfg.atol, None);
        assert_eq!(cfg.dtypes, vec![DType::F16, DType::F32]);
    }

    #[test]
    fn a_spec_without_the_table_gets_the_defaults() {
        let text = "kernel = \"k.py\"\n";
        let (masked, cfg) = split_verify_table(text, FileId(0)).expect("valid");
        assert_eq!(masked, text);
        assert_eq!(cfg, VerifyConfig::default());
    }

    #[test]
    fn unknown_keys_and_bad_values_point_at_the_table() {
        let text = "kernel = \"k.py\"\n[verify]\ndeterministc = false\n";
        let errs = split_verify_table(text, FileId(0)).expect_err("unknown key");
        assert!(errs[0].message.contains("unknown key `deterministc`"));
        let span = errs[0].primary_span().expect("has a span");
        assert_eq!(span.start as usize, text.find("[verify]").expect("present"));

        let bad = "[verify]\ndtypes = [\"int32\"]\n";
        let errs = split_verify_table(bad, FileId(0)).expect_err("not a float dtype");
        assert!(errs[0].message.contains("not a float dtype"));
    }

    #[test]
    fn vary_sizes_takes_a_flag_or_the_dims_that_may_vary() {
        let cfg = |v: &str| {
            split_verify_table(&format!("[verify]\nvary_sizes = {v}\n"), FileId(0))
                .map(|(_, c)| c.vary_sizes)
        };
        assert_eq!(cfg("true").expect("valid"), SizeVariation::Every);
        assert_eq!(cfg("false").expect("valid"), SizeVariation::Off);
        assert_eq!(cfg("[]").expect("valid"), SizeVariation::Off);
        let only = cfg(r#"["q.shape[2]", "k_cache.shape[0]"]"#).expect("valid");
        assert_eq!(
            only,
            SizeVariation::Only(vec![
                DimRef {
                    tensor: "q".into(),
                    dim: 2
                },
                DimRef {
                    tensor: "k_cache".into(),
                    dim: 0
                },
            ])
        );
        assert!(only.allows("q", 2) && !only.allows("q", 3) && !only.allows("k", 2));
        for bad in [r#"["q"]"#, r#"["q.shape[x]"]"#, r#"[".shape[0]"]"#, "3"] {
            let e = cfg(bad).expect_err(bad);
            assert!(
                e[0].message.contains("vary_sizes"),
                "{bad}: {}",
                e[0].message
            );
        }
    }

    #[test]
    fn verify_large_declares_dims_args_and_samples() {
        let text = "kernel = \"k.py\"\n[verify]\nruns = 3\n\n[verify.large]\ndims = { \"x.shape[0]\" = 2147488648 }\nargs = { BLOCK_SIZE = 4096, n = \"x.numel\" }\nrandom_programs = 2\n\n[args]\nn = 1\n";
        let (masked, cfg) = split_verify_table(text, FileId(0)).expect("valid");
        assert!(!masked.contains("large") && masked.contains("[args]"));
        assert_eq!(cfg.runs, 3);
        let large = cfg.large.expect("declared");
        assert_eq!(
            large.dims,
            vec![(DimRef::parse("x.shape[0]").expect("a dim"), 2_147_488_648)]
        );
        assert_eq!(large.args.len(), 2);
        assert_eq!(large.random_programs, 2);
        assert_eq!(large.boundary, 1 << 31);
        assert_eq!(
            split_verify_table("[verify]\n", FileId(0))
                .expect("valid")
                .1
                .large,
            None
        );
        for (bad, why) in [
            ("[verify.large]\nrandom_programs = 2\n", "needs `dims`"),
            (
                "[verify.large]\ndims = { \"x\" = 5 }\n",
                "not `NAME.shape[I]`",
            ),
            (
                "[verify.large]\ndims = { \"x.shape[0]\" = 0 }\n",
                "positive integer",
            ),
            (
                "[verify.large]\ndims = { \"x.shape[0]\" = 5 }\nsamples = 3\n",
                "unknown key `samples`",
            ),
            (
                "[verify.large]\ndims = { \"x.shape[0]\" = 5 }\nrandom_programs = 100000000000\n",
                "from 0 to 1024",
            ),
        ] {
            let e = split_verify_table(bad, FileId(0)).expect_err(bad);
            assert!(e[0].message.contains(why), "{bad}: {}", e[0].message);
        }
    }
}
