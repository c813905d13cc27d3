//! Reading source files named on the command line, with a diagnostic for every way it
//! can fail.

use std::io::ErrorKind;
use std::path::Path;

use tritonc_diagnostics::{Diagnostic, FileId, SourceMap, Span};

use crate::codes;

/// Reads `path` as UTF-8 text and adds it to `sources`. Only a regular file is read: a
/// FIFO, socket or device is refused at once (`E0502`), never waited on.
pub fn read_source(path: &Path, sources: &mut SourceMap) -> Result<FileId, Diagnostic> {
    add_source(path, tritonc_spec::files::read_regular(path), sources)
}

/// Adds the result of reading `path` to `sources`. Failures are `E05xx` diagnostics; a
/// file that is not UTF-8 is added lossily decoded, so the diagnostic can point at the
/// first bad byte.
pub fn add_source(
    path: &Path,
    bytes: std::io::Result<Vec<u8>>,
    sources: &mut SourceMap,
) -> Result<FileId, Diagnostic> {
    let bytes = bytes.map_err(|err| read_error(path, &err))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(sources.add(path, text)),
        Err(err) => {
            let at = err.utf8_error().valid_up_to() as u32;
            // The lossy text keeps the valid prefix unchanged, so `at` is a char boundary
            // and the first bad sequence became one U+FFFD (3 bytes).
            let lossy = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let file = sources.add(path, lossy);
            Err(Diagnostic::error(
                codes::NOT_UTF8,
                format!("`{}` is not valid UTF-8", path.display()),
            )
            .with_primary(Span::new(file, at, at + 3), "invalid UTF-8 here")
            .with_help("save the file as UTF-8"))
        }
    }
}

/// The diagnostic for an I/O error on `path`.
pub fn read_error(path: &Path, err: &std::io::Error) -> Diagnostic {
    let shown = path.display();
    match err.kind() {
        ErrorKind::NotFound => path_not_found(path),
        ErrorKind::IsADirectory => not_a_file(path),
        // tritonc_spec::files::read_regular: a FIFO, socket or device.
        ErrorKind::InvalidInput => {
            Diagnostic::error(codes::NOT_A_FILE, format!("`{shown}` is {err}"))
                .with_help("name a regular file: a FIFO or device is refused rather than waited on")
        }
        _ if path.is_dir() => not_a_file(path),
        _ => Diagnostic::error(
            codes::UNREADABLE_FILE,
            format!("cannot read `{shown}`: {err}"),
        ),
    }
}

/// `E0501` for `path`.
pub fn path_not_found(path: &Path) -> Diagnostic {
    Diagnostic::error(
        codes::PATH_NOT_FOUND,
        format!("`{}`: no such file or directory", path.display()),
    )
}

/// `E0502` for `path`.
pub fn not_a_file(path: &Path) -> Diagnostic {
    Diagnostic::error(
        codes::NOT_A_FILE,
        format!("`{}` is a directory, not a file", path.display()),
    )
    .with_help("`tritonc compile` takes one Python file; `tritonc lint` walks directories")
}
