//! The `tritonc` command line as a library: argument types, commands and the exit-code
//! table. `main.rs` only installs the panic hook and calls [`run`]. Everything between
//! the command line and the compiler (projects, configuration, selection, options,
//! variants, the back end, the cache) is `tritonc-driver`'s.

// A `Diagnostic` is the error value of every fallible step here by design; it is built
// only on the cold path, so its size (well over clippy's 128 bytes) costs nothing.
#![allow(clippy::result_large_err)]

pub mod cli;
pub mod commands;
pub mod exit;
pub mod kernel_source;
pub mod output;

// The driver's modules, under the names the commands use.
pub use tritonc_driver::{backend, cache, codes, frontend, input, project, target};

use crate::cli::{Cli, Command};
use crate::exit::Exit;
use crate::output::Output;

/// Runs the parsed command line and returns how the process should exit.
pub fn run(cli: &Cli) -> Exit {
    let out = Output::from_cli(cli);
    let exit = match &cli.command {
        Command::Compile(args) => commands::compile::run(args, &out),
        Command::Lint(args) => commands::lint::run(args, &out),
        Command::Run(args) => commands::run::run(args, &out),
        Command::Verify(args) => commands::verify::run(args, &out),
        Command::Tune(args) => commands::tune::run(args, &out),
        Command::Rule(args) => commands::rule::run(args, &out),
        Command::Server(args) => commands::server::run(args, &out),
        Command::Cache(args) => commands::cache::run(args, &out),
    };
    output::finish(exit)
}
