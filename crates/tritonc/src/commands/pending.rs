//! `tritonc run` and `tritonc verify`: their arguments are final; the work is not in this
//! build yet.

use std::path::Path;

use tritonc_diagnostics::{Diagnostic, SourceMap};

use crate::cli::{RunArgs, VerifyArgs};
use crate::codes;
use crate::exit::Exit;
use crate::input::{not_a_file, path_not_found};
use crate::output::{Output, Stream};

/// Runs `run`.
pub fn run(args: &RunArgs, out: &Output) -> Exit {
    let what = if args.interpret {
        "`tritonc run --interpret` is not implemented yet: the CPU interpreter is not available \
         in this build"
    } else {
        "`tritonc run` is not implemented yet: the GPU runner is not available in this build"
    };
    not_implemented(&args.spec, what, out)
}

/// Runs `verify`.
pub fn verify(args: &VerifyArgs, out: &Output) -> Exit {
    not_implemented(
        &args.spec,
        "`tritonc verify` is not implemented yet: it needs the GPU runner and the interpreter",
        out,
    )
}

/// Checks the spec path (a missing spec is still an input error), then reports the gap.
fn not_implemented(spec: &Path, message: &str, out: &Output) -> Exit {
    let sources = SourceMap::new();
    let (diagnostic, exit) = if !spec.exists() {
        (path_not_found(spec), Exit::InputError)
    } else if spec.is_dir() {
        (not_a_file(spec), Exit::InputError)
    } else {
        (
            Diagnostic::error(codes::NOT_IMPLEMENTED, message),
            Exit::NotImplemented,
        )
    };
    out.diagnostics(Stream::Stderr, &[diagnostic], &sources);
    exit
}
