//! `tritonc`: the command-line driver. Parses arguments, runs the command and maps its
//! outcome to the exit-code table in [`tritonc::exit`].

use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Parser;
use tritonc::cli::Cli;
use tritonc::exit::Exit;

/// jemalloc instead of glibc's allocator: parsing and lint allocate and free many small
/// nodes, which glibc's allocator made about 15% of `tritonc lint`'s time.
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The message and location of the most recent panic, recorded by the panic hook.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn main() -> ExitCode {
    install_panic_hook();
    // clap exits by itself: 2 for usage errors, 0 for --help and --version.
    let cli = Cli::parse();
    handle_interruptions();
    match panic::catch_unwind(AssertUnwindSafe(|| tritonc::run(&cli))) {
        Ok(exit) => exit.into(),
        Err(_) => report_internal_error(),
    }
}

/// A panic is a bug. The hook only records it, so that stages which contain a panic to
/// one kernel (lint reports such a kernel as not analysed and goes on) can do so; a panic
/// that reaches `main` is reported once, with a bug-report hint, under the internal-error
/// status (70), never Rust's default 101.
fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{location}"));
        }
    }));
}

/// SIGINT and SIGTERM: every ptxas still running is killed and its scratch directory
/// removed (`tritonc_toolchain::shutdown`), then the process exits 128 + the signal (130,
/// 143), as a shell reports a process the signal ended. The handler is the binary's: the
/// libraries install none. The work happens on a thread of its own, not in the signal
/// handler (which only wakes it).
fn handle_interruptions() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // The thread registers the handler itself: if it cannot be started, or cannot
    // register, the signals keep their default action (the process ends, and ptxas, which
    // dies with its parent, with it) rather than being swallowed.
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(|| {
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
                return;
            };
            if let Some(signal) = signals.forever().next() {
                tritonc_toolchain::shutdown();
                std::process::exit(128 + signal);
            }
        });
}

fn report_internal_error() -> ExitCode {
    let message = LAST_PANIC
        .lock()
        .ok()
        .and_then(|mut last| last.take())
        .unwrap_or_else(|| "unknown panic".to_string());
    // Not eprintln!: it panics when stderr cannot be written (`2>/dev/full`).
    let _ = writeln!(
        std::io::stderr(),
        "internal error: {message}\nnote: this is a bug in tritonc {}; please report it with \
         the command line and the input file",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(Exit::InternalError.code())
}
