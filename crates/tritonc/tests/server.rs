//! End-to-end: `tritonc server` speaks the language server protocol over stdio.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// One message with the protocol's `Content-Length` framing.
fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// Runs `tritonc server` on `input`; returns the exit status and stdout.
fn serve(input: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the tritonc binary must be runnable");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("the server reads stdin");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_string(&mut stdout)
        .expect("the server writes UTF-8");
    let status = child.wait().expect("the server exits");
    (status.code().unwrap_or(-1), stdout)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
const SHUTDOWN: &str = r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#;
const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

#[test]
fn initialize_shutdown_exit_ends_with_status_0() {
    let input = [INITIALIZE, INITIALIZED, SHUTDOWN, EXIT]
        .map(frame)
        .concat();
    let (code, stdout) = serve(&input);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(r#""id":1"#) && stdout.contains(r#""textDocumentSync""#));
    assert!(stdout.contains(r#""id":2,"result":null"#), "{stdout}");
}

#[test]
fn exit_without_shutdown_ends_with_status_1() {
    let input = [INITIALIZE, INITIALIZED, EXIT].map(frame).concat();
    let (code, _) = serve(&input);
    assert_eq!(code, 1);
}
