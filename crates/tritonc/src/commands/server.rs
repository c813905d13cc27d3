//! `tritonc server`: the language server (tritonc-server) over stdin/stdout.

use crate::cli::ServerArgs;
use crate::exit::Exit;
use crate::output::{write_to, Output, Stream};

/// Runs `server` until the client sends `exit`.
pub fn run(_args: &ServerArgs, _out: &Output) -> Exit {
    match tritonc_server::run_stdio() {
        Ok(tritonc_server::SessionEnd::Exit) => Exit::Success,
        // The protocol asks for status 1 when `exit` comes without `shutdown`; status 1
        // is what `Findings` maps to.
        Ok(tritonc_server::SessionEnd::ExitWithoutShutdown) => Exit::Findings,
        Err(err) => {
            write_to(Stream::Stderr, &format!("error: tritonc server: {err}\n"));
            Exit::InputError
        }
    }
}
