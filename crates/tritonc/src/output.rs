//! Where and how a command prints: diagnostics in the chosen format, summary lines.

use std::io::{IsTerminal, Write};

use tritonc_diagnostics::{render, Diagnostic, Format, SourceMap, TerminalOptions};

use crate::cli::{Cli, ColorChoice};

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

/// Writes to a standard stream, ignoring a closed pipe (`tritonc lint | head`).
pub fn write_to(stream: Stream, text: &str) {
    let _ = match stream {
        Stream::Stdout => std::io::stdout().lock().write_all(text.as_bytes()),
        Stream::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}
