//! A request run: the kernel parsed (cached per file version), the arguments specialized
//! as Triton's launcher does, the kernel lowered (cached per specialization), the host
//! buffers copied in, the grid interpreted, the buffers copied back.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use tritonc_diagnostics::{Diagnostic, FileId, SourceMap, TerminalOptions};
use tritonc_interp::{ArgValue, Buffer, InterpOptions, Memory, RuntimeErrorKind};
use tritonc_ir::{DType, Function};
use tritonc_sema::constexpr::{eval_expr, MapEnv};
use tritonc_sema::spec::is_constexpr_annotation;
use tritonc_sema::{ArgSpec, Constexpr, LaunchOptions, ModuleScope, Specialization};
use tritonc_syntax::ast::StmtKind;

use crate::request::{ArgIn, ClosureIn, Reply, Request};

/// A kernel file as parsed, keyed by path and modification time.
struct Parsed {
    text: Arc<str>,
    module: tritonc_syntax::ast::Module,
    scope: ModuleScope,
}

type FileKey = (PathBuf, Option<SystemTime>, u64);

fn parsed_files() -> &'static Mutex<HashMap<FileKey, Arc<Parsed>>> {
    static C: OnceLock<Mutex<HashMap<FileKey, Arc<Parsed>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn lowered_kernels() -> &'static Mutex<HashMap<String, Arc<Function>>> {
    static C: OnceLock<Mutex<HashMap<String, Arc<Function>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn pools() -> &'static Mutex<HashMap<usize, Arc<rayon::ThreadPool>>> {
    static C: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// The kernel file's id in a fresh source map (the first file added).
const KERNEL_FILE: FileId = FileId(0);

/// A failure before or during the run.
struct Failure {
    kind: &'static str,
    diagnostics: Vec<Diagnostic>,
    program: Option<[u32; 3]>,
    lane: Option<usize>,
}

impl Failure {
    fn of(kind: &'static str, diagnostics: Vec<Diagnostic>) -> Self {
        Failure {
            kind,
            diagnostics,
            program: None,
            lane: None,
        }
    }

    fn launch(msg: impl Into<String>) -> Self {
        Self::of(
            "launch",
            vec![Diagnostic::error(
                tritonc_interp::error::BAD_LAUNCH,
                msg.into(),
            )],
        )
    }
}

fn parse_file(path: &str) -> Result<Arc<Parsed>, Failure> {
    let p = PathBuf::from(path);
    let meta = std::fs::metadata(&p)
        .map_err(|e| Failure::launch(format!("cannot read the kernel file `{path}`: {e}")))?;
    let key = (p.clone(), meta.modified().ok(), meta.len());
    if let Some(hit) = parsed_files().lock().expect("cache lock").get(&key) {
        return Ok(hit.clone());
    }
    let text: Arc<str> = std::fs::read_to_string(&p)
        .map_err(|e| Failure::launch(format!("cannot read the kernel file `{path}`: {e}")))?
        .into();
    let parsed = tritonc_syntax::parse_module(KERNEL_FILE, &text);
    if parsed.has_errors() {
        return Err(Failure::of("compile", parsed.diagnostics));
    }
    let scope = ModuleScope::from_module(&parsed.module);
    let out = Arc::new(Parsed {
        text,
        module: parsed.module,
        scope,
    });
    parsed_files()
        .lock()
        .expect("cache lock")
        .insert(key, out.clone());
    Ok(out)
}

/// Scopes of kernels defined inside functions, per file version, line and closure.
fn nested_scopes() -> &'static Mutex<HashMap<String, Arc<ModuleScope>>> {
    static C: OnceLock<Mutex<HashMap<String, Arc<ModuleScope>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// The 1-based line `span` starts on in `text`.
fn line_of(text: &str, span: tritonc_diagnostics::Span) -> u32 {
    let end = (span.start as usize).min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// The `@triton.jit` definition named `name` whose first line (first decorator) is `line`.
fn def_at(
    parsed: &Parsed,
    name: &str,
    line: u32,
) -> Option<Arc<tritonc_syntax::ast::FunctionDef>> {
    tritonc_syntax::discovery::every_def(&parsed.module)
        .into_iter()
        .find(|d| d.name.name == name && line_of(&parsed.text, d.span) == line)
}

/// The names the kernel of `req` sees: the module's scope for a module-level kernel; for
/// a kernel defined inside a function (found by its line), that scope with the kernel
/// under its name and the enclosing function's variables it reads over the module's
/// globals, as Triton's capture scope (`__globals__ | nonlocals`) has them.
fn kernel_scope(parsed: &Arc<Parsed>, req: &Request) -> Result<Arc<ModuleScope>, Failure> {
    let own = |parsed: &Parsed| Arc::new(parsed.scope.clone());
    let Some(line) = req.line else {
        return Ok(own(parsed));
    };
    let at_module_level = parsed
        .scope
        .functions
        .get(&req.kernel)
        .is_some_and(|d| line_of(&parsed.text, d.span) == line);
    if at_module_level && req.closure.is_empty() {
        return Ok(own(parsed));
    }
    let key = format!(
        "{}\0{:?}\0{}\0{line}\0{:?}",
        req.file,
        parsed.text.len(),
        req.kernel,
        req.closure
    );
    if let Some(hit) = nested_scopes().lock().expect("cache lock").get(&key) {
        return Ok(hit.clone());
    }
    let compile_error = |message: String| {
        Failure::of(
            "compile",
            vec![Diagnostic::error(tritonc_spec::codes::MALFORMED_SPEC, message)],
        )
    };
    let def = def_at(parsed, &req.kernel, line).ok_or_else(|| {
        compile_error(format!(
            "`{}` has no function `{}` defined on line {line} (was the file changed since it \
             was imported?)",
            req.file, req.kernel
        ))
    })?;
    let mut scope = parsed.scope.clone();
    scope.functions.insert(req.kernel.clone(), def.clone());
    for (name, value) in &req.closure {
        match value {
            ClosureIn::Jit {
                name: fname,
                file,
                line,
            } => {
                if file != &req.file {
                    return Err(compile_error(format!(
                        "`{}` reads `{name}`, a @triton.jit function of another file \
                         (`{file}`) reached through a closure; tritonc's interpreter finds \
                         such helpers through imports only: import it at module level",
                        req.kernel
                    )));
                }
                let helper = def_at(parsed, fname, *line).ok_or_else(|| {
                    compile_error(format!(
                        "`{}` has no function `{fname}` defined on line {line}",
                        req.file
                    ))
                })?;
                scope.globals.shift_remove(name);
                scope.hidden.shift_remove(name);
                scope.functions.insert(name.clone(), helper);
            }
            ClosureIn::Constexpr(text) => {
                let mut env = MapEnv::new();
                for (k, v) in &scope.globals {
                    env.values.insert(k.clone(), v.clone());
                }
                let v = eval_text(text, &env).map_err(|m| {
                    compile_error(format!(
                        "`{name}`, read by `{}` from its enclosing function, is not a value \
                         tritonc reads: {m}",
                        req.kernel
                    ))
                })?;
                scope.functions.shift_remove(name);
                scope.hidden.shift_remove(name);
                scope.globals.insert(name.clone(), v);
            }
            ClosureIn::Module(path) => {
                scope.functions.shift_remove(name);
                scope.hidden.shift_remove(name);
                match tritonc_sema::lower::path_value(path) {
                    Some(v) => {
                        scope.globals.insert(name.clone(), v);
                    }
                    None => {
                        scope.globals.shift_remove(name);
                    }
                }
            }
            ClosureIn::Other(_) => {
                // Triton refuses to read it (only constexprs, dtypes, jit functions and
                // modules are captured): the same error as for such a module global.
                scope.functions.shift_remove(name);
                scope.globals.shift_remove(name);
                scope.hidden.insert(
                    name.clone(),
                    tritonc_sema::lower::HiddenGlobal::NotConstexpr {
                        kind: tritonc_syntax::discovery::ConstexprGlobalKind::Plain,
                        span: assignment_span(&def, name, parsed).unwrap_or(def.header_span),
                    },
                );
            }
        }
    }
    let scope = Arc::new(scope);
    nested_scopes()
        .lock()
        .expect("cache lock")
        .insert(key, scope.clone());
    Ok(scope)
}

/// Where the enclosing function of `kernel` assigns `name` (for the "defined here" label
/// of a variable Triton does not let the kernel read): the last plain assignment to
/// `name` before the kernel's definition, in any function of the file.
fn assignment_span(
    kernel: &tritonc_syntax::ast::FunctionDef,
    name: &str,
    parsed: &Parsed,
) -> Option<tritonc_diagnostics::Span> {
    use tritonc_syntax::ast::Stmt;
    fn walk(stmts: &[Stmt], name: &str, before: u32, out: &mut Option<tritonc_diagnostics::Span>) {
        for s in stmts {
            if s.span.start >= before {
                return;
            }
            match &s.kind {
                StmtKind::Assign { targets, .. }
                    if targets.iter().any(|t| t.as_name() == Some(name)) =>
                {
                    *out = Some(s.span)
                }
                StmtKind::FunctionDef(f) => walk(&f.body, name, before, out),
                _ => {}
            }
        }
    }
    let mut out = None;
    walk(&parsed.module.body, name, kernel.span.start, &mut out);
    out
}

fn eval_text(text: &str, env: &MapEnv) -> Result<Constexpr, String> {
    let src = format!("_ = ({text})\n");
    let parsed = tritonc_syntax::parse_module(FileId(u32::MAX - 1), &src);
    match parsed.module.body.first().map(|s| &s.kind) {
        Some(StmtKind::Assign { value, .. }) if !parsed.has_errors() => {
            eval_expr(value, env).map_err(|d| format!("`{text}`: {}", d.message))
        }
        _ => Err(format!("`{text}` is not a Python expression")),
    }
}

fn dtype_named(name: &str) -> Result<DType, Failure> {
    DType::from_triton_name(name)
        .ok_or_else(|| Failure::launch(format!("`{name}` is not a dtype the interpreter knows")))
}

/// Runs `req` against `host`, the caller's buffers (written back on success).
pub fn run(req: &Request, host: &mut [&mut [u8]]) -> Reply {
    let text = parse_file(&req.file).ok().map(|p| p.text.clone());
    match run_inner(req, host) {
        Ok(r) => r,
        Err(f) => {
            let mut sources = SourceMap::new();
            if let Some(t) = text {
                let id = sources.add(PathBuf::from(&req.file), t);
                debug_assert_eq!(id, KERNEL_FILE);
            }
            let opts = TerminalOptions::plain(100);
            let rendered = f
                .diagnostics
                .iter()
                .map(|d| tritonc_diagnostics::render::render_terminal(d, &sources, &opts))
                .collect::<Vec<_>>()
                .join("\n");
            let first = f.diagnostics.first();
            Reply {
                ok: false,
                kind: f.kind.into(),
                code: first.map(|d| d.code.0.to_string()).unwrap_or_default(),
                message: first.map(|d| d.message.clone()).unwrap_or_default(),
                rendered,
                program: f.program,
                lane: f.lane,
                ..Reply::default()
            }
        }
    }
}

fn run_inner(req: &Request, host: &mut [&mut [u8]]) -> Result<Reply, Failure> {
    if req.buffers.len() != host.len() {
        return Err(Failure::launch(format!(
            "{} buffer descriptions for {} buffers",
            req.buffers.len(),
            host.len()
        )));
    }
    let parsed = parse_file(&req.file)?;
    let scope = kernel_scope(&parsed, req)?;
    let Some(def) = scope.functions.get(&req.kernel).cloned() else {
        return Err(Failure::of(
            "compile",
            vec![Diagnostic::error(
                tritonc_spec::codes::MALFORMED_SPEC,
                format!(
                    "`{}` has no @triton.jit function `{}`{}",
                    req.file,
                    req.kernel,
                    req.line.map(|l| format!(" defined on line {l}")).unwrap_or_default()
                ),
            )],
        ));
    };
    let mut env = MapEnv::new();
    for (k, v) in &scope.globals {
        env.values.insert(k.clone(), v.clone());
    }
    let mut params = Vec::new();
    let mut runtime_args = Vec::new();
    for p in &def.params {
        let name = &p.name.name;
        let Some((_, arg)) = req.args.iter().find(|(n, _)| n == name) else {
            return Err(Failure::launch(format!(
                "`{}` is called without a value for `{name}`",
                req.kernel
            )));
        };
        let is_constexpr = p.annotation.as_ref().is_some_and(is_constexpr_annotation);
        let value = match arg {
            ArgIn::Tensor {
                buffer,
                offset,
                dtype,
                aligned16,
            } => {
                if is_constexpr {
                    return Err(Failure::launch(format!(
                        "`{name}` is a tl.constexpr parameter but is given a tensor"
                    )));
                }
                if *buffer >= host.len() || *offset > host[*buffer].len() as u64 {
                    return Err(Failure::launch(format!(
                        "`{name}` points outside the buffers passed"
                    )));
                }
                let pointee = dtype_named(dtype)?;
                runtime_args.push(ArgValue::Ptr(
                    tritonc_interp::BufferId(*buffer as u32).base_address() + offset,
                ));
                params.push((
                    name.clone(),
                    ArgSpec::Pointer {
                        pointee,
                        is_const: false,
                        divisibility: aligned16.then_some(16),
                    },
                ));
                continue;
            }
            ArgIn::Int(t) => Constexpr::Int(
                t.parse::<i128>()
                    .map_err(|_| Failure::launch(format!("`{name}`: `{t}` is not an int")))?,
            ),
            ArgIn::Float(f) => Constexpr::Float(*f),
            ArgIn::Bool(b) => Constexpr::Bool(*b),
            ArgIn::None => Constexpr::None,
            ArgIn::Expr(t) => eval_text(t, &env).map_err(|m| {
                Failure::launch(format!(
                    "the value of `{name}` is not one tritonc reads: {m}"
                ))
            })?,
        };
        env.values.insert(name.clone(), value.clone());
        if is_constexpr {
            params.push((name.clone(), ArgSpec::Constexpr(value)));
            continue;
        }
        let specialize = !req.do_not_specialize.iter().any(|n| n == name);
        match tritonc_spec::scalar_arg(&value, specialize) {
            Some((spec, v)) => {
                runtime_args.extend(v);
                params.push((name.clone(), spec));
            }
            None => {
                return Err(Failure::launch(format!(
                    "`{name}` is a runtime parameter but its value is `{value}`; annotate it \
                     `tl.constexpr` or pass a number or a tensor"
                )))
            }
        }
    }
    let mut grid = [1u32; 3];
    if req.grid.is_empty() || req.grid.len() > 3 {
        return Err(Failure::launch(format!(
            "a grid has 1 to 3 dimensions, not {}",
            req.grid.len()
        )));
    }
    for (i, &g) in req.grid.iter().enumerate() {
        if g < 0 || g > tritonc_spec::GRID_LIMITS[i] as i64 {
            return Err(Failure::launch(format!(
                "grid dimension {i} is {g}: a launch has 0 to {} programs along {}",
                tritonc_spec::GRID_LIMITS[i],
                ["x", "y", "z"][i]
            )));
        }
        grid[i] = g as u32;
    }
    let specialization = Specialization {
        kernel: req.kernel.clone(),
        params,
        options: LaunchOptions {
            num_warps: req.num_warps,
            num_stages: req.num_stages,
            debug: req.debug || tritonc_spec::jit_debug(&parsed.module, &req.kernel),
            ..LaunchOptions::default()
        },
    };
    let key = format!(
        "{}\0{:?}\0{:?}\0{:?}",
        req.file, req.line, req.closure, specialization
    );
    let cached = lowered_kernels()
        .lock()
        .expect("cache lock")
        .get(&key)
        .cloned();
    let function = match cached {
        Some(f) => f,
        None => {
            let m = tritonc_sema::lower_kernel_in(&scope, &req.kernel, &specialization)
                .map_err(|d| Failure::of("compile", d))?
                .module;
            let f = Arc::new(m.functions.into_iter().next().ok_or_else(|| {
                Failure::launch("the front end produced no function".to_string())
            })?);
            lowered_kernels()
                .lock()
                .expect("cache lock")
                .insert(key, f.clone());
            f
        }
    };
    let mut memory = Memory::new();
    for (b, h) in req.buffers.iter().zip(host.iter()) {
        memory.add(Buffer {
            name: b.name.clone(),
            dtype: dtype_named(&b.dtype)?,
            bytes: h.to_vec(),
        });
    }
    let opts = InterpOptions {
        num_warps: req.num_warps,
        ..InterpOptions::default()
    };
    let mut go = || tritonc_interp::launch(&function, &runtime_args, grid, &mut memory, &opts);
    let result = if req.threads == 0 {
        go()
    } else {
        let pool = {
            let mut p = pools().lock().expect("pool lock");
            match p.get(&req.threads) {
                Some(pool) => pool.clone(),
                None => {
                    let pool = Arc::new(
                        rayon::ThreadPoolBuilder::new()
                            .num_threads(req.threads)
                            .build()
                            .map_err(|e| Failure::launch(format!("no thread pool: {e}")))?,
                    );
                    p.insert(req.threads, pool.clone());
                    pool
                }
            }
        };
        pool.install(go)
    };
    let report = result.map_err(|e| {
        let kind = match e.kind {
            RuntimeErrorKind::OutOfBounds { .. } => "out_of_bounds",
            RuntimeErrorKind::Misaligned { .. } => "misaligned",
            RuntimeErrorKind::Race { .. } => "race",
            RuntimeErrorKind::NoProgress { .. } => "no_progress",
            RuntimeErrorKind::Unsupported(_) => "unsupported",
            RuntimeErrorKind::BadLaunch(_) => "launch",
            RuntimeErrorKind::AssertFailed { .. } => "assert",
        };
        Failure {
            kind,
            diagnostics: vec![e.to_diagnostic()],
            program: e.program,
            lane: e.lane,
        }
    })?;
    for (i, h) in host.iter_mut().enumerate() {
        let bytes = &memory.buffer(tritonc_interp::BufferId(i as u32)).bytes;
        if h[..] != bytes[..] {
            h.copy_from_slice(bytes);
        }
    }
    Ok(Reply {
        ok: true,
        programs: report.programs,
        prints: report.prints,
        ..Reply::default()
    })
}
