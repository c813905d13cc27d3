//! The one place kernels are compiled: the `tritonc` command, as `prost-build` runs
//! `protoc`. A build script then needs neither LLVM nor a long build of the compiler,
//! and a compile the cache already holds costs about a process start.

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

/// Compiles `job` with the `tritonc` program `tritonc` and reads back its bundles.
pub(crate) fn compile(tritonc: &Path, job: &CompileJob<'_>) -> Result<Compiled, Error> {
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
