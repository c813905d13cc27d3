//! `tritonc server`: a language server over stdio that shows `tritonc lint`'s findings in
//! editors.
//!
//! # Layout
//!
//! - [`session`]: the message loop — initialization, dispatch, shutdown and exit as the
//!   protocol prescribes; invalid requests are answered with errors.
//! - [`documents`]: open documents and their edits (UTF-16 positions, incremental sync).
//! - [`check`]: front-end and lint diagnostics of one document, with the configuration
//!   found from its directory; a panic in a check becomes an internal-error diagnostic.
//! - [`convert`]: our diagnostics as protocol diagnostics (ranges in UTF-16 columns, rule
//!   URLs, related information, tags).
//! - [`actions`]: quick fixes from findings' fixes and `# noqa` suppressions.
//! - [`hover`]: a rule's documentation when hovering its code in a suppression comment.
//! - [`transport`]: the stdio frames, read with a bound on their size; a frame that is not
//!   a message is answered with a JSON-RPC error and the server goes on.
//!
//! The server lints a document when no other message is waiting: a burst of edits is
//! linted once, after its last change (requests that need fresh findings lint first).

pub mod actions;
pub mod check;
pub mod convert;
pub mod documents;
pub mod hover;
pub mod session;
pub mod transport;

pub use session::{serve, SessionEnd};

/// Why the server stopped before an `exit` notification.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The client closed the connection.
    #[error("the client closed the connection")]
    Disconnected,
    /// Reading or writing stdio failed.
    #[error("stdio failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves one client over stdin/stdout until it sends `exit`.
///
/// Replaces the process's panic hook with one that only logs to stderr: a panic inside a
/// check is caught and reported as a diagnostic, so it must not end the process.
pub fn run_stdio() -> Result<SessionEnd, ServerError> {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("tritonc server: internal error: {info}");
    }));
    transport::serve_io(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
}
