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

/// A finding as both sides can state it: code, the message's first line, and where its
/// primary span starts (canonical file path, 1-based line, 1-based UTF-16 column).
type Located = (String, String, std::path::PathBuf, u64, u64);

/// The first line of a message (the server appends notes and help on their own lines).
fn first_line(m: &str) -> String {
    m.lines().next().unwrap_or_default().to_string()
}

/// `tritonc lint --output-format json FILE`'s findings, run in `dir`.
fn cli_findings(dir: &std::path::Path, file: &str) -> Vec<Located> {
    let out = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .args(["lint", "--output-format", "json", file])
        .current_dir(dir)
        .output()
        .expect("the tritonc binary must be runnable");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let mut found: Vec<Located> = rows
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            let path = dir.join(r["filename"].as_str().expect("a located finding"));
            (
                r["code"].as_str().unwrap_or_default().to_string(),
                first_line(r["message"].as_str().unwrap_or_default()),
                std::fs::canonicalize(path).expect("the file exists"),
                r["location"]["row"].as_u64().expect("a row"),
                r["location"]["column"].as_u64().expect("a column"),
            )
        })
        .collect();
    found.sort();
    found
}

/// Reads one framed message from the server's stdout.
fn read_message(out: &mut impl std::io::BufRead) -> serde_json::Value {
    let mut length = None;
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).expect("stdout reads") > 0,
            "the server stopped"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length.expect("a Content-Length header")];
    out.read_exact(&mut body).expect("the body reads");
    serde_json::from_slice(&body).expect("a JSON message")
}

/// The diagnostics `tritonc server` publishes for `path` opened with its text on disk.
/// A diagnostic whose primary span lies in another file sits at the document's start and
/// names that span first among its related locations.
fn server_findings(path: &std::path::Path) -> Vec<Located> {
    let uri = format!("file://{}", path.display());
    let text = std::fs::read_to_string(path).expect("the fixture reads");
    let open = serde_json::json!({
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    })
    .to_string();
    // The server lints once its queue is drained: wait for the diagnostics before
    // shutting it down.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tritonc"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the tritonc binary must be runnable");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout is piped"));
    stdin
        .write_all(
            [INITIALIZE, INITIALIZED, &open]
                .map(frame)
                .concat()
                .as_bytes(),
        )
        .expect("the server reads stdin");
    let diagnostics = loop {
        let v = read_message(&mut stdout);
        if v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == uri {
            break v["params"]["diagnostics"].clone();
        }
    };
    stdin
        .write_all([SHUTDOWN, EXIT].map(frame).concat().as_bytes())
        .expect("the server reads stdin");
    drop(stdin);
    assert_eq!(child.wait().expect("the server exits").code(), Some(0));
    let mut found: Vec<Located> = diagnostics
        .as_array()
        .expect("a list")
        .iter()
        .map(|d| {
            let at_start = d["range"]["start"] == serde_json::json!({"line": 0, "character": 0});
            let elsewhere = d["relatedInformation"]
                .as_array()
                .and_then(|r| r.iter().find(|i| i["location"]["uri"] != uri.as_str()));
            let (file, start) = match elsewhere.filter(|_| at_start) {
                Some(i) => {
                    let u = i["location"]["uri"].as_str().expect("a uri");
                    (
                        std::path::PathBuf::from(u.trim_start_matches("file://")),
                        i["location"]["range"]["start"].clone(),
                    )
                }
                None => (path.to_path_buf(), d["range"]["start"].clone()),
            };
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                first_line(d["message"].as_str().unwrap_or_default()),
                std::fs::canonicalize(file).expect("the file exists"),
                start["line"].as_u64().expect("a line") + 1,
                start["character"].as_u64().expect("a column") + 1,
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_server_reports_what_lint_reports_for_helpers_of_other_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/xfile_lint");
    let path = std::fs::canonicalize(dir.join("lintpkg/kernels.py")).expect("the fixture");
    let cli = cli_findings(&dir, "lintpkg/kernels.py");
    let server = server_findings(&path);
    assert_eq!(server, cli);
    // Both lowered the kernels through the helpers of `helpers.py`: the fp16 sum and the
    // unmasked store are found only when the helpers' types and offsets are known.
    for code in ["TRI201", "TRI101"] {
        assert!(
            cli.iter().any(|(c, _, f, _, _)| c == code && *f == path),
            "{code} in kernels.py: {cli:?}"
        );
    }
    assert!(!cli.iter().any(|(c, ..)| c == "TRI001"), "{cli:?}");
}
