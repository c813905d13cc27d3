//! `tritonc`: the command-line driver. Parses arguments, runs the command and maps its
//! outcome to the exit-code table in [`tritonc::exit`].

use std::process::ExitCode;

use clap::Parser;
use tritonc::cli::Cli;
use tritonc::exit::Exit;

fn main() -> ExitCode {
    install_panic_hook();
    // clap exits by itself: 2 for usage errors, 0 for --help and --version.
    let cli = Cli::parse();
    tritonc::run(&cli).into()
}

/// A panic is a bug: print one clean line with a bug-report hint and exit with the
/// internal-error status (70), never Rust's default 101.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!("internal error: {message}{}", location.unwrap_or_default());
        eprintln!(
            "note: this is a bug in tritonc {}; please report it with the command line and \
             the input file",
            env!("CARGO_PKG_VERSION")
        );
        std::process::exit(i32::from(Exit::InternalError.code()));
    }));
}
