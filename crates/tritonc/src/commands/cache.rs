//! `tritonc cache dir|stats|clean`: the compile cache's directory, size, and cleaning.

use tritonc_diagnostics::{Diagnostic, SourceMap};

use crate::cache::{default_dir, KernelCache};
use crate::cli::{CacheAction, CacheArgs};
use crate::codes;
use crate::exit::Exit;
use crate::output::{write_to, Output, Stream};

/// Runs `cache`.
pub fn run(args: &CacheArgs, out: &Output) -> Exit {
    let Some(dir) = default_dir() else {
        let d = Diagnostic::error(
            codes::CANNOT_WRITE_OUTPUT,
            "no cache directory: none of TRITONC_CACHE_DIR, XDG_CACHE_HOME and HOME is set",
        );
        out.diagnostics(Stream::Stderr, &[d], &SourceMap::new());
        return Exit::InputError;
    };
    let cache = KernelCache::new(dir);
    match args.action {
        CacheAction::Dir => write_to(Stream::Stdout, &format!("{}\n", cache.root().display())),
        CacheAction::Stats => {
            let stats = cache.stats();
            write_to(
                Stream::Stdout,
                &format!(
                    "{} entries, {} in {}\n",
                    stats.entries,
                    human_bytes(stats.bytes),
                    cache.root().display()
                ),
            );
        }
        CacheAction::Clean => match cache.clean() {
            Ok(stats) => out.summary(
                Stream::Stderr,
                &format!(
                    "removed {} entries ({}) from {}",
                    stats.entries,
                    human_bytes(stats.bytes),
                    cache.root().display()
                ),
            ),
            Err(message) => {
                let d = Diagnostic::error(codes::CANNOT_WRITE_OUTPUT, message);
                out.diagnostics(Stream::Stderr, &[d], &SourceMap::new());
                return Exit::InputError;
            }
        },
    }
    Exit::Success
}

/// `812 B`, `14.2 KiB`, `3.1 MiB`.
fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_bytes(812), "812 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024), "3.0 MiB");
    }
}
