//! Where and how a command prints: diagnostics in the chosen format, summary lines.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use tritonc_diagnostics::{render, Diagnostic, Format, SourceMap, TerminalOptions};

use crate::cli::{Cli, ColorChoice};
use crate::codes;
use crate::exit::Exit;

/// Which standard stream a command's diagnostics go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: `lint`'s findings are its product.
    Stdout,
    /// Standard error: diagnostics of commands whose product is something else.
    Stderr,
}

/// The output settings shared by all commands.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// The diagnostic format.
    pub format: Format,
    /// The colour choice.
    pub color: ColorChoice,
    /// Suppress summary lines.
    pub quiet: bool,
}

impl Output {
    /// The settings from the global options.
    pub fn from_cli(cli: &Cli) -> Self {
        Output {
            format: cli.format.format(),
            color: cli.color,
            quiet: cli.quiet,
        }
    }

    /// Terminal options for `stream`.
    pub fn terminal(&self, stream: Stream) -> TerminalOptions {
        let is_terminal = match stream {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr => std::io::stderr().is_terminal(),
        };
        TerminalOptions::for_stream(is_terminal, self.color.forced())
    }

    /// Prints `diagnostics` to `stream` in the chosen format. Machine formats always
    /// print (an empty JSON array included), so consumers can rely on the output.
    pub fn diagnostics(&self, stream: Stream, diagnostics: &[Diagnostic], sources: &SourceMap) {
        if diagnostics.is_empty() && !matches!(self.format, Format::Json) {
            return;
        }
        let text = render(self.format, diagnostics, sources, &self.terminal(stream));
        write_to(stream, &text);
    }

    /// Prints a summary line (not in quiet mode). With a machine format on stdout the
    /// line goes to stderr, so stdout stays parseable.
    pub fn summary(&self, stream: Stream, line: &str) {
        if self.quiet {
            return;
        }
        let stream = if self.format.is_machine_readable() {
            Stream::Stderr
        } else {
            stream
        };
        write_to(stream, &format!("{line}\n"));
    }
}

/// Writes to a standard stream (and flushes it). A closed pipe (`tritonc lint | head`)
/// ends the output quietly, as other Unix tools do: nothing more is written to that
/// stream, and the command's exit status stands. Any other failure (a full disk:
/// `> /dev/full`) is remembered, and [`finish`] turns it into exit status 2 with a message,
/// so output is never lost silently.
pub fn write_to(stream: Stream, text: &str) {
    let state = state(stream);
    if state.closed.load(Ordering::Relaxed) {
        return;
    }
    let written = match stream {
        Stream::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
        Stream::Stderr => {
            let mut err = std::io::stderr().lock();
            err.write_all(text.as_bytes()).and_then(|()| err.flush())
        }
    };
    if let Err(e) = written {
        state.closed.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let mut failure = state
                .failure
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            failure.get_or_insert_with(|| e.to_string());
        }
    }
}

/// What happened to one standard stream.
struct StreamState {
    /// Nothing more is written (the pipe closed, or a write failed).
    closed: AtomicBool,
    /// The first failure other than a closed pipe.
    failure: Mutex<Option<String>>,
}

static STDOUT: StreamState = StreamState {
    closed: AtomicBool::new(false),
    failure: Mutex::new(None),
};
static STDERR: StreamState = StreamState {
    closed: AtomicBool::new(false),
    failure: Mutex::new(None),
};

fn state(stream: Stream) -> &'static StreamState {
    match stream {
        Stream::Stdout => &STDOUT,
        Stream::Stderr => &STDERR,
    }
}

/// The exit status of a command that returned `exit`, given what happened to its output:
/// a failed write to stdout or stderr (other than a closed pipe) is an input/output error,
/// exit 2, with a message on stderr (when stderr can still take it).
pub fn finish(exit: Exit) -> Exit {
    let failure = |stream: Stream| {
        state(stream)
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    };
    let (name, why) = match (failure(Stream::Stdout), failure(Stream::Stderr)) {
        (Some(why), _) => ("standard output", why),
        (None, Some(why)) => ("standard error", why),
        (None, None) => return exit,
    };
    let message = format!("error[{}]: cannot write to {name}: {why}\n", codes::CANNOT_WRITE_OUTPUT);
    let _ = std::io::stderr().lock().write_all(message.as_bytes());
    exit.worst(Exit::InputError)
}
