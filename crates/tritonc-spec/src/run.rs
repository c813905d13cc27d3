//! From a parsed spec to a launch: tensors allocated and initialized, expressions
//! evaluated by sema's constexpr evaluator, the specialization derived from the actual
//! arguments as Triton's launcher does, and the interpreter run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, FileId, SourceMap, Span};
use tritonc_interp::{ArgValue, Buffer, BufferId, InterpOptions, LaunchReport, Memory};
use tritonc_ir::{DType, Function};
use tritonc_sema::constexpr::{eval_expr, MapEnv};
use tritonc_sema::spec::is_constexpr_annotation;
use tritonc_sema::value::HostObject;
use tritonc_sema::{ArgSpec, Constexpr, LaunchOptions, Specialization};
use tritonc_syntax::ast::{FunctionDef, StmtKind};

use crate::codes;
use crate::init::{storage_bytes, Source};
use crate::parse::{Expr, ExprValue, Init, LaunchSpec, TensorSpec};
use crate::rng::SplitMix64;

/// A materialized tensor argument: a view (shape, strides, offset) into a buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorArg {
    /// The tensor's name in the spec.
    pub name: String,
    /// Element dtype.
    pub dtype: DType,
    /// The view's shape.
    pub shape: Vec<usize>,
    /// The view's strides, in elements.
    pub strides: Vec<usize>,
    /// The view's storage offset, in elements.
    pub offset: usize,
    /// The buffer holding the storage.
    pub buffer: BufferId,
    /// Whether the spec marks it as an output.
    pub output: bool,
    /// The reference `.npy`, resolved against the spec's directory.
    pub reference: Option<PathBuf>,
    /// Absolute tolerance.
    pub atol: Option<f64>,
    /// Relative tolerance.
    pub rtol: Option<f64>,
}

impl TensorArg {
    /// The address the kernel receives (the view's first element).
    pub fn data_ptr(&self) -> u64 {
        self.buffer.base_address()
            + (self.offset * self.dtype.size_bytes().unwrap_or(1) as usize) as u64
    }

    /// The storage indices of the view's elements, in row-major view order.
    pub fn storage_indices(&self) -> Vec<usize> {
        use rayon::prelude::*;
        let n: usize = self.shape.iter().product();
        (0..n)
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(|mut i| {
                let mut at = self.offset;
                for (d, s) in self.shape.iter().zip(&self.strides).rev() {
                    at += (i % d) * s;
                    i /= d;
                }
                at
            })
            .collect()
    }

    /// The view's elements as typed data, in row-major view order.
    pub fn data(&self, memory: &Memory) -> tritonc_interp::Data {
        memory
            .buffer(self.buffer)
            .data()
            .gather(&self.storage_indices())
    }

    /// The view's elements widened to f64 (unsigned ints by value).
    pub fn values(&self, memory: &Memory) -> Vec<f64> {
        self.gather_view(memory.buffer(self.buffer).to_f64_vec(), f64::NAN)
    }

    /// Whether the view is the first elements of its buffer in row-major order with
    /// no gaps (its storage index of element `i` is `i`).
    pub fn is_dense_prefix(&self) -> bool {
        let mut expect = 1;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 && s != expect {
                return false;
            }
            expect *= d;
        }
        self.offset == 0
    }

    /// The view's elements, in row-major view order, out of `all` (every element of its
    /// buffer); an index past the end gives `missing`. A dense view takes `all` as it is
    /// (no index list, no copy).
    pub fn gather_view<T: Copy + Send + Sync>(&self, mut all: Vec<T>, missing: T) -> Vec<T> {
        use rayon::prelude::*;
        let n: usize = self.shape.iter().product();
        if self.is_dense_prefix() && n <= all.len() {
            all.truncate(n);
            return all;
        }
        self.storage_indices()
            .into_par_iter()
            .map(|i| all.get(i).copied().unwrap_or(missing))
            .collect()
    }
}

/// Everything a launch needs, ready to run.
pub struct Launch {
    /// The spec's directory.
    pub base_dir: PathBuf,
    /// The kernel file.
    pub kernel_path: PathBuf,
    /// The kernel's file id in the caller's source map.
    pub kernel_file: FileId,
    /// The kernel's name.
    pub kernel_name: String,
    /// The tensors, in spec order.
    pub tensors: Vec<TensorArg>,
    /// The buffers.
    pub memory: Memory,
    /// The specialization derived from the arguments.
    pub specialization: Specialization,
    /// The runtime arguments, in parameter order (constexprs excluded).
    pub runtime_args: Vec<ArgValue>,
    /// The grid.
    pub grid: [u32; 3],
    /// The kernel module's scope (its imports resolved by the [`crate::KernelScopes`]
    /// the launch was prepared with).
    pub scope: tritonc_sema::ModuleScope,
}

fn err(code: tritonc_diagnostics::Code, span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg.into()).with_primary(span, "")
}

/// An expression's value, evaluated over `env`; its errors point at the spec.
fn eval(e: &Expr, env: &MapEnv) -> Result<Constexpr, Diagnostic> {
    match &e.value {
        ExprValue::Int(i) => Ok(Constexpr::Int(*i as i128)),
        ExprValue::Float(f) => Ok(Constexpr::Float(*f)),
        ExprValue::Bool(b) => Ok(Constexpr::Bool(*b)),
        ExprValue::Text(t) => {
            let src = format!("_ = ({t})\n");
            let parsed = tritonc_syntax::parse_module(FileId(u32::MAX - 1), &src);
            let expr = match parsed.module.body.first().map(|s| &s.kind) {
                Some(StmtKind::Assign { value, .. }) if !parsed.has_errors() => value.clone(),
                _ => {
                    return Err(err(
                        codes::BAD_EXPRESSION,
                        e.span,
                        format!("`{t}` is not a Python expression"),
                    ))
                }
            };
            eval_expr(&expr, env).map_err(|d| {
                let mut out = err(
                    codes::BAD_EXPRESSION,
                    e.span,
                    format!("`{t}`: {}", d.message),
                );
                if let Some(h) = d.help {
                    out = out.with_help(h);
                }
                out
            })
        }
    }
}

fn eval_usize(e: &Expr, env: &MapEnv, what: &str) -> Result<usize, Diagnostic> {
    match eval(e, env)? {
        Constexpr::Int(v) if v >= 0 && v <= u32::MAX as i128 * 64 => Ok(v as usize),
        other => Err(err(
            codes::BAD_TENSOR,
            e.span,
            format!("{what} must be a non-negative integer, not `{other}`"),
        )),
    }
}

/// The host object an expression sees for a tensor: `x.shape`, `x.stride`/`x.strides`,
/// `x.dtype`, `x.numel`, `x.ndim`.
fn host_tensor(t: &TensorArg) -> Constexpr {
    let tuple =
        |v: &[usize]| Constexpr::Tuple(v.iter().map(|&d| Constexpr::Int(d as i128)).collect());
    let mut o = HostObject {
        type_name: "tensor".into(),
        ..Default::default()
    };
    o.fields.insert("shape".into(), tuple(&t.shape));
    o.fields.insert("strides".into(), tuple(&t.strides));
    o.fields.insert("stride".into(), tuple(&t.strides));
    o.fields.insert("dtype".into(), Constexpr::dtype(t.dtype));
    o.fields.insert(
        "numel".into(),
        Constexpr::Int(t.shape.iter().product::<usize>() as i128),
    );
    o.fields
        .insert("ndim".into(), Constexpr::Int(t.shape.len() as i128));
    Constexpr::Object(Arc::new(o))
}

/// The most programs a launch has along x, y and z: CUDA's grid limits, which Triton's
/// launcher shares (a larger grid fails at launch on the GPU, and would be refused, or
/// exhaust memory, in the interpreter).
pub const GRID_LIMITS: [u32; 3] = [i32::MAX as u32, 65535, 65535];

fn read_file(path: &Path, span: Span) -> Result<Vec<u8>, Diagnostic> {
    crate::files::read_regular(path).map_err(|e| {
        err(
            codes::UNREADABLE_FILE,
            span,
            format!("cannot read `{}`: {e}", path.display()),
        )
    })
}

/// The most bytes one interpreter buffer can hold: each buffer owns an address range of
/// 2^40 bytes.
pub const MAX_BUFFER_BYTES: u64 = 1 << tritonc_interp::memory::BUFFER_SHIFT;

/// Host memory the spec's tensors may take together, and what they take so far.
struct Budget {
    used: u64,
    limit: u64,
    /// Whether tensors get their data; without it buffers are empty (no limits apply).
    data: bool,
}

/// This host's physical memory (`MemTotal` of `/proc/meminfo`), when it can be read.
pub fn host_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `bytes` for people: `1.5 GiB`.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Allocates and initializes one tensor. Its size is checked against
/// [`MAX_BUFFER_BYTES`] and what is left of `budget` before anything is allocated.
fn materialize_tensor(
    t: &TensorSpec,
    index: usize,
    env: &MapEnv,
    seed: u64,
    base_dir: &Path,
    memory: &mut Memory,
    budget: &mut Budget,
) -> Result<TensorArg, Diagnostic> {
    // Each entry is a dim, or a tuple of dims (`shape = "x.shape"`).
    let mut shape: Vec<usize> = Vec::new();
    for e in &t.shape {
        match eval(e, env)? {
            Constexpr::Tuple(items) => {
                for it in items {
                    match it {
                        Constexpr::Int(v) if v >= 0 => shape.push(v as usize),
                        other => {
                            return Err(err(
                                codes::BAD_TENSOR,
                                e.span,
                                format!("a dim must be a non-negative integer, not `{other}`"),
                            ))
                        }
                    }
                }
            }
            _ => shape.push(eval_usize(e, env, "a dim")?),
        }
    }
    // Sizes come from the spec (and `[verify.large]`): they may pass what a buffer can
    // hold, which is a finding at the tensor, never an overflow.
    let too_large = |why: String| {
        err(
            codes::BAD_TENSOR,
            t.span,
            format!("tensor `{}` is too large: {why}", t.name),
        )
    };
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| too_large(format!("its shape {shape:?} has more than 2^64 elements")))?;
    // Storage layout of the view.
    let (strides, storage_len, offset) = if t.transpose {
        if shape.len() != 2 {
            return Err(err(
                codes::BAD_TENSOR,
                t.span,
                "`transpose` needs a 2-D tensor",
            ));
        }
        (vec![1, shape[0]], n, 0)
    } else {
        let strides = match &t.strides {
            Some(s) => {
                if s.len() != shape.len() {
                    return Err(err(
                        codes::BAD_TENSOR,
                        t.span,
                        format!("{} strides for a rank-{} tensor", s.len(), shape.len()),
                    ));
                }
                s.iter()
                    .map(|e| eval_usize(e, env, "a stride"))
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => tritonc_interp::data::row_major_strides(&shape),
        };
        let offset = match &t.offset {
            Some(e) => eval_usize(e, env, "the offset")?,
            None => 0,
        };
        let extent = if n == 0 {
            Some(0)
        } else {
            shape
                .iter()
                .zip(&strides)
                .try_fold(1usize, |a, (d, s)| (d - 1).checked_mul(*s)?.checked_add(a))
        };
        let storage = extent.and_then(|e| e.checked_add(offset)).ok_or_else(|| {
            too_large("its strides and offset span more than 2^64 elements".into())
        })?;
        (strides, storage, offset)
    };
    let elem = crate::init::element_size(t.dtype);
    // What materializing costs: the storage, and for an `.npy` view the f64 staging copy.
    let staging = if matches!(t.init, Init::Npy(_)) { 8 } else { 0 };
    let bytes = storage_len
        .checked_mul(elem)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            too_large(format!(
                "{storage_len} elements of {elem} bytes are more than one allocation can hold"
            ))
        })?;
    if !budget.data {
        // Shapes only: the buffer's place (and so the pointer's alignment) without bytes.
        return Ok(place_tensor(t, base_dir, memory, Vec::new(), shape, strides, offset));
    }
    if bytes as u64 > MAX_BUFFER_BYTES {
        return Err(too_large(format!(
            "{storage_len} elements of {elem} bytes ({}) pass the interpreter's limit of {} per buffer",
            human_bytes(bytes as u64),
            human_bytes(MAX_BUFFER_BYTES)
        )));
    }
    let cost = (storage_len as u64)
        .saturating_mul(staging)
        .saturating_add(bytes as u64);
    let total = budget.used.saturating_add(cost);
    if total > budget.limit {
        return Err(too_large(format!(
            "{storage_len} elements of {elem} bytes ({}) bring the spec's tensors to {}, \
             more than this host's memory ({})",
            human_bytes(cost),
            human_bytes(total),
            human_bytes(budget.limit)
        ))
        .with_help("make the shapes smaller; every tensor of a spec is allocated in host memory"));
    }
    budget.used = total;
    // Values in storage order (the view's elements are a subset when strided).
    let rng = SplitMix64::new(seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let source = match &t.init {
        Init::Npy(p) => {
            let path = base_dir.join(p);
            let a = crate::npy::read(&read_file(&path, t.span)?).map_err(|m| {
                err(
                    codes::BAD_TENSOR,
                    t.span,
                    format!("`{}`: {m}", path.display()),
                )
            })?;
            if a.shape != shape {
                return Err(err(
                    codes::BAD_TENSOR,
                    t.span,
                    format!(
                        "`{}` has shape {:?} but the tensor is {:?}",
                        path.display(),
                        a.shape,
                        shape
                    ),
                ));
            }
            let b = Buffer {
                name: t.name.clone(),
                dtype: a.dtype,
                bytes: a.bytes,
            };
            let logical = b.to_f64_vec();
            // Scatter the C-order file data into the view's storage positions.
            let mut v = vec![0.0; storage_len];
            let view = TensorArg {
                name: String::new(),
                dtype: t.dtype,
                shape: shape.clone(),
                strides: strides.clone(),
                offset,
                buffer: BufferId(0),
                output: false,
                reference: None,
                atol: None,
                rtol: None,
            };
            for (x, i) in logical.into_iter().zip(view.storage_indices()) {
                v[i] = x;
            }
            Source::Values(v)
        }
        init => Source::Init(init),
    };
    let bytes = storage_bytes(t.dtype, storage_len, source, &rng, &t.specials);
    Ok(place_tensor(t, base_dir, memory, bytes, shape, strides, offset))
}

/// `t`'s argument over a new buffer of `bytes` in `memory` (empty bytes: the buffer's
/// place only, for compiling without data).
fn place_tensor(
    t: &TensorSpec,
    base_dir: &Path,
    memory: &mut Memory,
    bytes: Vec<u8>,
    shape: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
) -> TensorArg {
    let buffer = memory.add(Buffer {
        name: t.name.clone(),
        dtype: t.dtype,
        bytes,
    });
    TensorArg {
        name: t.name.clone(),
        dtype: t.dtype,
        shape,
        strides,
        offset,
        buffer,
        output: t.output,
        reference: t.reference.as_ref().map(|r| base_dir.join(r)),
        atol: t.atol,
        rtol: t.rtol,
    }
}

/// A Python int argument's signature type, as Triton's launcher picks it.
fn int_dtype(v: i128) -> DType {
    if i32::try_from(v).is_ok() {
        DType::I32
    } else if v >= 1 << 63 {
        DType::U64
    } else {
        DType::I64
    }
}

/// How a Python value passed for a runtime (not constexpr) scalar parameter is specialized
/// and passed, as Triton's launcher does: a bool is an `i1`, an int `i32`/`i64`/`u64` by
/// its range with `:16` when divisible by 16, and an int equal to 1 is folded into the
/// kernel as the constexpr 1 (with `specialize` false, as for `do_not_specialize`, neither
/// happens); a float is an `fp32`, `None` a constexpr. The value to pass is `None` when the
/// parameter is folded; the whole answer is `None` for a value no runtime parameter takes.
pub fn scalar_arg(v: &Constexpr, specialize: bool) -> Option<(ArgSpec, Option<ArgValue>)> {
    Some(match v {
        Constexpr::Bool(b) => (
            ArgSpec::Scalar {
                dtype: DType::I1,
                divisibility: None,
            },
            Some(ArgValue::Int(*b as i128)),
        ),
        Constexpr::Int(1) if specialize => (ArgSpec::Constexpr(Constexpr::Int(1)), None),
        Constexpr::Int(i) => (
            ArgSpec::Scalar {
                dtype: int_dtype(*i),
                divisibility: (specialize && i % 16 == 0).then_some(16),
            },
            Some(ArgValue::Int(*i)),
        ),
        Constexpr::Float(f) => (
            ArgSpec::Scalar {
                dtype: DType::F32,
                divisibility: None,
            },
            Some(ArgValue::Float(*f)),
        ),
        Constexpr::None => (ArgSpec::Constexpr(Constexpr::None), None),
        _ => return None,
    })
}

/// Builds the launch: tensors, arguments, specialization and grid. The kernel file is
/// added to `sources` so sema's diagnostics render.
pub fn prepare(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
) -> Result<(Launch, Arc<FunctionDef>, tritonc_syntax::ast::Module), Vec<Diagnostic>> {
    prepare_with(spec, spec_path, sources, true, &crate::SingleFile)
}

/// [`prepare`] with the kernel's imports resolved by `scopes`.
pub fn prepare_in(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
    scopes: &dyn crate::KernelScopes,
) -> Result<(Launch, Arc<FunctionDef>, tritonc_syntax::ast::Module), Vec<Diagnostic>> {
    prepare_with(spec, spec_path, sources, true, scopes)
}

/// [`prepare`] without the tensors' data: every buffer is empty (nothing is allocated,
/// no `.npy` is read, no size limit applies), while shapes, strides, pointers (and so
/// their alignment), arguments, the specialization and the grid are those of
/// [`prepare`]. For compiling a spec's kernel, which needs no data.
pub fn prepare_shapes(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
) -> Result<(Launch, Arc<FunctionDef>, tritonc_syntax::ast::Module), Vec<Diagnostic>> {
    prepare_with(spec, spec_path, sources, false, &crate::SingleFile)
}

/// [`prepare_shapes`] with the kernel's imports resolved by `scopes`.
pub fn prepare_shapes_in(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
    scopes: &dyn crate::KernelScopes,
) -> Result<(Launch, Arc<FunctionDef>, tritonc_syntax::ast::Module), Vec<Diagnostic>> {
    prepare_with(spec, spec_path, sources, false, scopes)
}

fn prepare_with(
    spec: &LaunchSpec,
    spec_path: &Path,
    sources: &mut SourceMap,
    data: bool,
    scopes: &dyn crate::KernelScopes,
) -> Result<(Launch, Arc<FunctionDef>, tritonc_syntax::ast::Module), Vec<Diagnostic>> {
    let base_dir = spec_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let kernel_path = base_dir.join(&spec.kernel_file);
    let text = crate::files::read_regular_to_string(&kernel_path).map_err(|e| {
        vec![err(
            codes::UNREADABLE_FILE,
            Span::new(spec.span.file, 0, 0),
            format!(
                "cannot read the kernel file `{}`: {e}",
                kernel_path.display()
            ),
        )]
    })?;
    let kernel_file = sources.add(kernel_path.clone(), text.as_str());
    let parsed = tritonc_syntax::parse_module(kernel_file, &text);
    if parsed.has_errors() {
        return Err(parsed.diagnostics);
    }
    let scope = scopes.scope(&kernel_path, &parsed.module, sources);
    let kernel_name = match &spec.kernel_name {
        Some(n) => n.clone(),
        None => {
            let names: Vec<&String> = scope.functions.keys().collect();
            if names.len() != 1 {
                return Err(vec![err(
                    codes::MALFORMED_SPEC,
                    spec.span,
                    format!(
                        "`{}` defines {} @triton.jit functions; name one with `name = \"…\"`",
                        spec.kernel_file,
                        names.len()
                    ),
                )]);
            }
            names[0].clone()
        }
    };
    let Some(def) = scope.functions.get(&kernel_name).cloned() else {
        return Err(vec![err(
            codes::MALFORMED_SPEC,
            spec.span,
            format!(
                "`{}` has no @triton.jit function `{kernel_name}`",
                spec.kernel_file
            ),
        )]);
    };
    let mut env = MapEnv::new();
    for (k, v) in &scope.globals {
        env.values.insert(k.clone(), v.clone());
    }
    let mut memory = Memory::new();
    let mut budget = Budget {
        used: 0,
        limit: host_memory_bytes().unwrap_or(u64::MAX),
        data,
    };
    let mut tensors = Vec::new();
    let mut errors = Vec::new();
    for (i, t) in spec.tensors.iter().enumerate() {
        match materialize_tensor(t, i, &env, spec.seed, &base_dir, &mut memory, &mut budget) {
            Ok(ta) => {
                env.values.insert(ta.name.clone(), host_tensor(&ta));
                tensors.push(ta);
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Arguments in spec order: a tensor name binds the tensor, anything else evaluates.
    enum Bound {
        Tensor(usize),
        Value(Constexpr),
    }
    let mut bound: Vec<(String, Bound, Span)> = Vec::new();
    for (name, e) in &spec.args {
        if !def.params.iter().any(|p| &p.name.name == name) {
            let names: Vec<&str> = def.params.iter().map(|p| p.name.name.as_str()).collect();
            errors.push(
                err(
                    codes::ARGUMENT_MISMATCH,
                    e.span,
                    format!("`{kernel_name}` has no parameter `{name}`"),
                )
                .with_note(format!("its parameters: {}", names.join(", "))),
            );
            continue;
        }
        let b = match &e.value {
            ExprValue::Text(t) if tensors.iter().any(|x| &x.name == t) => Bound::Tensor(
                tensors
                    .iter()
                    .position(|x| &x.name == t)
                    .expect("checked by any()"),
            ),
            _ => match eval(e, &env) {
                Ok(v) => {
                    env.values.insert(name.clone(), v.clone());
                    Bound::Value(v)
                }
                Err(d) => {
                    errors.push(d);
                    continue;
                }
            },
        };
        bound.push((name.clone(), b, e.span));
    }
    // Parameters in kernel order; defaults fill the gaps.
    let mut params = Vec::new();
    let mut runtime_args = Vec::new();
    for p in &def.params {
        let name = &p.name.name;
        let is_constexpr = p.annotation.as_ref().is_some_and(is_constexpr_annotation);
        let b = match bound.iter().position(|(n, _, _)| n == name) {
            Some(i) => &bound[i].1,
            None => match &p.default {
                Some(d) => match eval_expr(d, &env) {
                    Ok(v) => {
                        bound.push((name.clone(), Bound::Value(v), p.span));
                        &bound.last().expect("just pushed").1
                    }
                    Err(e) => {
                        errors.push(e);
                        continue;
                    }
                },
                None => {
                    errors.push(
                        err(
                            codes::ARGUMENT_MISMATCH,
                            spec.span,
                            format!("the spec gives no value for `{name}` of `{kernel_name}`"),
                        )
                        .with_secondary(p.span, "parameter declared here")
                        .with_help(format!("add `{name} = …` under `[args]`")),
                    );
                    continue;
                }
            },
        };
        let spec_of = match (b, is_constexpr) {
            (Bound::Value(v), true) => ArgSpec::Constexpr(v.clone()),
            (Bound::Tensor(i), true) => {
                errors.push(err(
                    codes::ARGUMENT_MISMATCH,
                    spec.span,
                    format!(
                        "`{name}` is a tl.constexpr parameter but is given tensor `{}`",
                        tensors[*i].name
                    ),
                ));
                continue;
            }
            (Bound::Tensor(i), false) => {
                let t = &tensors[*i];
                runtime_args.push(ArgValue::Ptr(t.data_ptr()));
                ArgSpec::Pointer {
                    pointee: t.dtype,
                    is_const: false,
                    divisibility: (t.data_ptr() % 16 == 0).then_some(16),
                }
            }
            (Bound::Value(v), false) => match scalar_arg(v, true) {
                Some((spec_of, value)) => {
                    runtime_args.extend(value);
                    spec_of
                }
                None => {
                    errors.push(
                        err(
                            codes::ARGUMENT_MISMATCH,
                            spec.span,
                            format!("`{name}` is a runtime parameter but its value is `{v}`"),
                        )
                        .with_help(format!("annotate `{name}: tl.constexpr` or pass a number")),
                    );
                    continue;
                }
            },
        };
        params.push((name.clone(), spec_of));
    }
    let mut grid = [1u32; 3];
    for (i, g) in spec.grid.iter().enumerate() {
        match eval(g, &env) {
            Ok(Constexpr::Int(0)) => errors.push(
                err(
                    codes::EMPTY_GRID,
                    g.span,
                    format!("grid dimension {i} is 0: the launch would run no program"),
                )
                .with_help("every grid dimension must be at least 1 (Triton launches nothing for a 0 grid)"),
            ),
            Ok(Constexpr::Int(v)) if v > GRID_LIMITS[i] as i128 => errors.push(
                err(
                    codes::GRID_TOO_LARGE,
                    g.span,
                    format!(
                        "grid dimension {i} is {v}: a launch has at most {} programs along {}",
                        GRID_LIMITS[i],
                        ["x", "y", "z"][i]
                    ),
                )
                .with_help(
                    "CUDA (and Triton's launcher) allow 2^31 - 1 programs along x and 65535 \
                     along y and z; loop inside the kernel over the rest",
                ),
            ),
            Ok(Constexpr::Int(v)) if v > 0 => grid[i] = v as u32,
            Ok(other) => errors.push(err(
                codes::BAD_EXPRESSION,
                g.span,
                format!("a grid dimension must be a non-negative integer, not `{other}`"),
            )),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let specialization = Specialization {
        kernel: kernel_name.clone(),
        params,
        options: LaunchOptions {
            num_warps: spec.num_warps,
            num_stages: spec.num_stages,
            // As Triton: the launch's debug option or the decorator's `debug=True`.
            debug: spec.debug || scope.debug.contains(&kernel_name),
            triton_version: scopes.triton_version(&kernel_path),
            ..LaunchOptions::default()
        },
    };
    Ok((
        Launch {
            base_dir,
            kernel_path,
            kernel_file,
            kernel_name,
            tensors,
            memory,
            specialization,
            runtime_args,
            grid,
            scope,
        },
        def,
        parsed.module,
    ))
}

/// Lowers the kernel for the launch's specialization. When that fails and a runtime
/// parameter the spec passes a number to lowers as a pointer, the error is the spec's:
/// it names the parameter, at the spec's value (an int passed where the kernel loads or
/// stores through the parameter fails deep in sema otherwise, as it does in Triton).
pub fn lower(
    spec: &LaunchSpec,
    launch: &Launch,
    module: &tritonc_syntax::ast::Module,
) -> Result<tritonc_ir::Module, Vec<Diagnostic>> {
    let name = &launch.kernel_name;
    let _ = module;
    let lower = |spec: &Specialization| {
        tritonc_sema::lower_kernel_in(&launch.scope, name, spec).map(|l| l.module)
    };
    let original = match lower(&launch.specialization) {
        Ok(m) => return Ok(m),
        Err(d) => d,
    };
    for (i, (param, arg)) in launch.specialization.params.iter().enumerate() {
        // An int equal to 1 is specialized to the constexpr 1, as Triton's launcher does.
        if !matches!(
            arg,
            ArgSpec::Scalar { .. } | ArgSpec::Constexpr(Constexpr::Int(1))
        ) {
            continue;
        }
        let Some((_, value)) = spec.args.iter().find(|(n, _)| n == param) else {
            continue;
        };
        let mut as_pointer = launch.specialization.clone();
        as_pointer.params[i].1 = ArgSpec::Pointer {
            pointee: DType::F32,
            is_const: false,
            divisibility: None,
        };
        if lower(&as_pointer).is_ok() {
            let shown = match &value.value {
                ExprValue::Int(v) => v.to_string(),
                ExprValue::Float(v) => v.to_string(),
                ExprValue::Bool(v) => v.to_string(),
                ExprValue::Text(t) => format!("`{t}`"),
            };
            let tensors: Vec<&str> = spec.tensors.iter().map(|t| t.name.as_str()).collect();
            let mut d = err(
                codes::ARGUMENT_MISMATCH,
                value.span,
                format!(
                    "`{param}` of `{name}` is used as a pointer, but the spec passes the number {shown}"
                ),
            )
            .with_help(if tensors.is_empty() {
                format!("declare a tensor under `[tensors]` and pass its name: `{param} = \"…\"`")
            } else {
                format!(
                    "pass a tensor by its name, e.g. `{param} = \"{}\"` (the spec's tensors: {})",
                    tensors[0],
                    tensors.join(", ")
                )
            });
            if let Some(first) = original.first() {
                d = d.with_note(format!(
                    "lowering the kernel with a number there fails: {}",
                    first.message
                ));
            }
            return Err(vec![d]);
        }
    }
    Err(original)
}

/// Whether `@triton.jit(debug=True)` decorates kernel `name`.
pub fn jit_debug(module: &tritonc_syntax::ast::Module, name: &str) -> bool {
    tritonc_syntax::discover(module)
        .kernels
        .iter()
        .any(|k| k.name == name && k.jit.debug == Some(true))
}

/// The outcome of running a spec.
pub struct RunOutcome {
    /// The launch (tensors and memory after the run).
    pub launch: Launch,
    /// The interpreter's report.
    pub report: LaunchReport,
    /// The kernel's IR.
    pub function: Function,
    /// Each output with a `reference` compared against it (in spec order).
    pub references: Vec<crate::reference::ReferenceCheck>,
}

/// Parses, prepares, lowers and interprets a spec file, then compares the outputs that
/// name a `reference` with it ([`RunOutcome::references`]; values outside tolerance are
/// reported there, not as errors). Diagnostics refer to files in `sources` (the spec and
/// the kernel are added to it).
pub fn run_spec_file(
    spec_path: &Path,
    sources: &mut SourceMap,
    opts: &InterpOptions,
) -> Result<RunOutcome, Vec<Diagnostic>> {
    let text = crate::files::read_regular_to_string(spec_path).map_err(|e| {
        vec![Diagnostic::error(
            codes::UNREADABLE_FILE,
            format!("cannot read `{}`: {e}", spec_path.display()),
        )]
    })?;
    let file = sources.add(spec_path.to_path_buf(), text.as_str());
    let spec = crate::parse::parse(&text, file)?;
    let (mut launch, _def, module) = prepare(&spec, spec_path, sources)?;
    let lowered = lower(&spec, &launch, &module)?;
    let function = lowered.functions.into_iter().next().ok_or_else(|| {
        vec![Diagnostic::error(
            codes::MALFORMED_SPEC,
            "sema produced no function",
        )]
    })?;
    let mut opts = opts.clone();
    opts.num_warps = spec.num_warps;
    let report = tritonc_interp::launch(
        &function,
        &launch.runtime_args,
        launch.grid,
        &mut launch.memory,
        &opts,
    )
    .map_err(|e| vec![e.to_diagnostic()])?;
    let references = crate::reference::check_references(&spec, &launch)?;
    Ok(RunOutcome {
        launch,
        report,
        function,
        references,
    })
}

#[cfg(test)]
mod view_tests {
    use super::*;

    fn view(shape: &[usize], strides: &[usize], offset: usize) -> TensorArg {
        TensorArg {
            name: "v".into(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
            buffer: BufferId(0),
            output: true,
            reference: None,
            atol: None,
            rtol: None,
        }
    }

    #[test]
    fn views_gather_their_elements_dense_ones_without_an_index_list() {
        let all: Vec<f64> = (0..12).map(f64::from).collect();
        // 3×4 row-major: the buffer itself; size-1 dims take any stride.
        assert!(view(&[3, 4], &[4, 1], 0).is_dense_prefix());
        assert!(view(&[3, 1, 4], &[4, 99, 1], 0).is_dense_prefix());
        assert_eq!(view(&[3, 4], &[4, 1], 0).gather_view(all.clone(), f64::NAN), all);
        // A prefix of the buffer.
        assert_eq!(view(&[2, 2], &[2, 1], 0).gather_view(all.clone(), f64::NAN), vec![0.0, 1.0, 2.0, 3.0]);
        // Transposed (4×3 over the 3×4 storage), offset, and past the end.
        let t = view(&[4, 3], &[1, 4], 0);
        assert!(!t.is_dense_prefix());
        assert_eq!(
            t.gather_view(all.clone(), f64::NAN),
            vec![0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0]
        );
        let o = view(&[2], &[1], 11);
        assert!(!o.is_dense_prefix());
        let got = o.gather_view(all, f64::NAN);
        assert_eq!(got[0], 11.0);
        assert!(got[1].is_nan());
    }
}
