//! The one place kernels are compiled. By default the `tritonc` command, as `prost-build`
//! runs `protoc`: a build script then needs neither LLVM nor a long build of the compiler,
//! and a compile the cache already holds costs about a process start. With the
//! `in-process` feature, tritonc-driver's `compile_file` — the function the command itself
//! calls — inside the build script (LLVM/MLIR linked into it).

use std::path::{Path, PathBuf};
use std::process::Command;

use tritonc_bundle::{list_bundle_dirs, Bundle};

use crate::Error;

/// One `tritonc compile` run: one kernel of one file, one signature (or the project
/// configuration's), one target.
#[derive(Debug, Clone)]
pub(crate) struct CompileJob<'a> {
    pub file: &'a Path,
    pub kernel: &'a str,
    pub signature: Option<&'a str>,
    pub target: &'a str,
    pub num_warps: Option<u32>,
    pub num_stages: Option<u32>,
    /// Where the bundles go (emptied first).
    pub out: &'a Path,
}

/// What a compile produced: the bundles (with their directories) and its warnings.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub bundles: Vec<(PathBuf, Bundle)>,
    pub warnings: Vec<String>,
}

/// How kernels are compiled.
#[derive(Debug, Clone)]
pub(crate) enum Compiler {
    /// The `tritonc` program at this path (or name on PATH).
    Command(PathBuf),
    /// tritonc-driver, in this process (the `in-process` feature).
    #[cfg(feature = "in-process")]
    InProcess,
}

impl Compiler {
    /// The program run, for the command.
    pub(crate) fn program(&self) -> Option<&Path> {
        match self {
            Compiler::Command(p) => Some(p),
            #[cfg(feature = "in-process")]
            Compiler::InProcess => None,
        }
    }
}

/// Compiles `job` and returns its bundles, written under `job.out`.
pub(crate) fn compile(compiler: &Compiler, job: &CompileJob<'_>) -> Result<Compiled, Error> {
    match compiler {
        Compiler::Command(tritonc) => compile_with_command(tritonc, job),
        #[cfg(feature = "in-process")]
        Compiler::InProcess => in_process::compile(job),
    }
}

/// Compiles `job` with the `tritonc` program `tritonc` and reads back its bundles.
fn compile_with_command(tritonc: &Path, job: &CompileJob<'_>) -> Result<Compiled, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    if job.out.exists() {
        std::fs::remove_dir_all(job.out).map_err(io(job.out))?;
    }
    std::fs::create_dir_all(job.out).map_err(io(job.out))?;
    let mut cmd = Command::new(tritonc);
    // `--format short`: one line per diagnostic, which a build script passes on as a
    // `cargo:warning`; `--quiet`: no summary lines.
    cmd.args([
        "--color", "never", "--format", "short", "--quiet", "compile",
    ])
    .arg(job.file)
    .args(["--kernel", job.kernel, "--target", job.target, "-o"])
    .arg(job.out);
    if let Some(sig) = job.signature {
        cmd.args(["--signature", sig]);
    }
    if let Some(n) = job.num_warps {
        cmd.args(["--num-warps", &n.to_string()]);
    }
    if let Some(n) = job.num_stages {
        cmd.args(["--num-stages", &n.to_string()]);
    }
    let output = cmd.output().map_err(|source| Error::NoCompiler {
        program: tritonc.to_path_buf(),
        source,
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(Error::CompileFailed {
            file: job.file.to_path_buf(),
            kernel: job.kernel.to_string(),
            target: job.target.to_string(),
            status: output.status.code(),
            stderr,
        });
    }
    let mut bundles = Vec::new();
    for dir in list_bundle_dirs(job.out)? {
        let bundle = Bundle::read_dir(&dir)?;
        bundles.push((dir, bundle));
    }
    let warnings = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    Ok(Compiled { bundles, warnings })
}

#[cfg(feature = "in-process")]
mod in_process {
    use tritonc_diagnostics::{render, Format, TerminalOptions};
    use tritonc_driver::compile::{compile_file, write_bundle, CompileFailure};
    use tritonc_driver::options::{Options, Request};
    use tritonc_driver::target::Target;
    use tritonc_driver::variants::StageError;

    use super::{CompileJob, Compiled};
    use crate::Error;

    /// `tritonc compile FILE --kernel K [--signature S] --target T -o OUT`, as the
    /// command runs it, without the process.
    pub(super) fn compile(job: &CompileJob<'_>) -> Result<Compiled, Error> {
        let failed = |stderr: String| Error::CompileFailed {
            file: job.file.to_path_buf(),
            kernel: job.kernel.to_string(),
            target: job.target.to_string(),
            status: None,
            stderr,
        };
        let target = Target::parse(job.target)
            .ok_or_else(|| failed(format!("unknown target `{}`", job.target)))?;
        let mut options = Options::new(target);
        if let Some(n) = job.num_warps {
            options.num_warps = n;
        }
        if let Some(n) = job.num_stages {
            options.num_stages = n;
        }
        let mut request = Request::new(options);
        request.signature = job.signature.map(str::to_string);
        request.num_warps_given = job.num_warps.is_some();
        let compiled = compile_file(job.file, Some(job.kernel), &request, false, None).map_err(
            |CompileFailure { error, sources }| {
                failed(match error {
                    StageError::Diagnostics(d) => {
                        render(Format::Short, &d, &sources, &TerminalOptions::plain(100))
                    }
                    StageError::NotImplemented(m) => m,
                    StageError::Backend(e) => format!("{e:?}"),
                })
            },
        )?;
        if job.out.exists() {
            std::fs::remove_dir_all(job.out).map_err(|source| Error::Io {
                path: job.out.to_path_buf(),
                source,
            })?;
        }
        let mut warnings: Vec<String> = render(
            Format::Short,
            &compiled.warnings,
            &compiled.sources,
            &TerminalOptions::plain(100),
        )
        .lines()
        .map(str::to_string)
        .collect();
        let mut bundles = Vec::new();
        for v in compiled.variants {
            warnings.extend(v.note.clone());
            let dir = write_bundle(&v.bundle, job.out).map_err(|d| failed(d.message.clone()))?;
            bundles.push((dir, v.bundle));
        }
        Ok(Compiled { bundles, warnings })
    }
}
