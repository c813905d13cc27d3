//! The server driven in-process over `Connection::memory()`, as an editor drives it.

use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionContext, CodeActionOrCommand, CodeActionParams, DidChangeTextDocumentParams,
    DidOpenTextDocumentParams, NumberOrString, Position, PublishDiagnosticsParams, Range,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem, Url,
    VersionedTextDocumentIdentifier,
};
use tritonc_server::{serve, ServerError, SessionEnd};

/// A kernel whose load is unmasked although the mask is computed: TRI101 with the fix
/// `mask=mask`. The load's line starts with a non-ASCII name (`é` is one UTF-16 unit and
/// two bytes; `𝑥` is two units and four bytes).
const KERNEL: &str = "\
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    é𝑥 = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, é𝑥, mask=mask)
";

struct Client {
    conn: Connection,
    server: JoinHandle<Result<SessionEnd, ServerError>>,
    next_id: i32,
}

impl Client {
    fn start() -> Client {
        let (server_side, conn) = Connection::memory();
        let server = std::thread::spawn(move || serve(&server_side));
        Client {
            conn,
            server,
            next_id: 0,
        }
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method.to_string(), params);
        self.conn.sender.send(request.into()).unwrap();
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => return r,
                Message::Response(r) => panic!("a response to another request: {r:?}"),
                // Diagnostics published meanwhile are not what this request waits for.
                Message::Notification(_) => {}
                Message::Request(r) => panic!("unexpected request from the server: {r:?}"),
            }
        }
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        let n = Notification::new(method.to_string(), params);
        self.conn.sender.send(n.into()).unwrap();
    }

    fn recv(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within a minute")
    }

    fn diagnostics(&self) -> PublishDiagnosticsParams {
        match self.recv() {
            Message::Notification(n) if n.method == notif::PublishDiagnostics::METHOD => {
                serde_json::from_value(n.params).unwrap()
            }
            other => panic!("expected diagnostics, got {other:?}"),
        }
    }

    fn initialize(&mut self) {
        let r = self.request(
            req::Initialize::METHOD,
            serde_json::json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        let result = r.result.expect("initialize succeeds");
        assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
        assert_eq!(result["serverInfo"]["name"], "tritonc");
        self.notify(notif::Initialized::METHOD, serde_json::json!({}));
    }

    fn open(&self, uri: &Url, text: &str) {
        self.notify(
            notif::DidOpenTextDocument::METHOD,
            DidOpenTextDocumentParams {
                text_document: TextDocumentItem::new(uri.clone(), "python".into(), 1, text.into()),
            },
        );
    }

    fn change(&self, uri: &Url, version: i32, range: Option<Range>, text: &str) {
        self.notify(
            notif::DidChangeTextDocument::METHOD,
            DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier::new(uri.clone(), version),
                content_changes: vec![TextDocumentContentChangeEvent {
                    range,
                    range_length: None,
                    text: text.into(),
                }],
            },
        );
    }

    fn shutdown_and_exit(mut self) -> SessionEnd {
        let r = self.request(req::Shutdown::METHOD, serde_json::Value::Null);
        assert!(r.error.is_none(), "{r:?}");
        // Requests after shutdown are refused, not served.
        let late = self.request(req::HoverRequest::METHOD, serde_json::json!({}));
        assert_eq!(late.error.unwrap().code, ErrorCode::InvalidRequest as i32);
        self.notify(notif::Exit::METHOD, serde_json::Value::Null);
        self.server
            .join()
            .unwrap()
            .expect("the session ends cleanly")
    }
}

fn kernel_uri() -> Url {
    // A directory with no configuration above it: the defaults apply.
    Url::from_file_path(
        std::env::temp_dir()
            .join("tritonc-server-test")
            .join("copy.py"),
    )
    .unwrap()
}

#[test]
fn open_publish_fix_and_exit() {
    let mut client = Client::start();
    client.initialize();
    let uri = kernel_uri();
    client.open(&uri, KERNEL);

    let published = client.diagnostics();
    assert_eq!(published.uri, uri);
    assert_eq!(published.version, Some(1));
    let d = match published.diagnostics.as_slice() {
        [d] => d,
        other => panic!("expected one TRI101, got {other:#?}"),
    };
    assert_eq!(d.code, Some(NumberOrString::String("TRI101".into())));
    assert!(
        d.message
            .starts_with("`tl.load` of a block that can run past the tensor has no mask"),
        "{}",
        d.message
    );
    // Line 9 (0-based 8) is `    é𝑥 = tl.load(x_ptr + offs)`: the call starts after
    // 4 + 1 + 2 + 3 = 10 UTF-16 units (13 bytes, 9 characters) and is 21 units long.
    assert_eq!(
        d.range,
        Range::new(Position::new(8, 10), Position::new(8, 31))
    );
    assert!(d
        .code_description
        .as_ref()
        .is_some_and(|c| c.href.as_str().ends_with("/TRI101.md")));
    // The secondary labels (the range, the unused mask) are related information.
    let related = d.related_information.as_ref().expect("related information");
    assert!(
        related.iter().any(|r| r.location.range.start.line == 7),
        "{related:#?}"
    );

    // The fix passes the mask: an unsafe quick fix (it changes memory behaviour), and a
    // suppression.
    let r = client.request(
        req::CodeActionRequest::METHOD,
        serde_json::to_value(CodeActionParams {
            text_document: TextDocumentIdentifier::new(uri.clone()),
            range: Range::new(Position::new(8, 12), Position::new(8, 12)),
            context: CodeActionContext::default(),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .unwrap(),
    );
    let actions: Vec<CodeActionOrCommand> = serde_json::from_value(r.result.unwrap()).unwrap();
    let titles: Vec<String> = actions
        .iter()
        .map(|a| match a {
            CodeActionOrCommand::CodeAction(a) => a.title.clone(),
            CodeActionOrCommand::Command(c) => c.title.clone(),
        })
        .collect();
    assert_eq!(
        titles,
        [
            "Pass `mask=mask` (unsafe fix)",
            "Suppress TRI101 on this line"
        ]
    );
    let CodeActionOrCommand::CodeAction(fix) = &actions[0] else {
        unreachable!("checked above")
    };
    assert_eq!(fix.is_preferred, Some(false));
    let edits = &fix.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
    assert_eq!(edits.len(), 1);
    let fixed = apply(KERNEL, edits);
    assert!(
        fixed.contains("    é𝑥 = tl.load(x_ptr + offs, mask=mask)\n"),
        "{fixed}"
    );
    let CodeActionOrCommand::CodeAction(suppress) = &actions[1] else {
        unreachable!("checked above")
    };
    let edits = &suppress.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
    assert!(apply(KERNEL, edits).contains("tl.load(x_ptr + offs)  # noqa: TRI101\n"));

    // Applying the fix as an incremental edit clears the diagnostics.
    client.change(&uri, 2, Some(edits_range(&fix.edit)), ", mask=mask");
    let published = client.diagnostics();
    assert_eq!(published.version, Some(2));
    assert!(
        published.diagnostics.is_empty(),
        "{:#?}",
        published.diagnostics
    );

    assert_eq!(client.shutdown_and_exit(), SessionEnd::Exit);
}

/// The kernel with an unused suppression on the mask's line: TRI002, whose fix (deleting
/// the comment) is safe, next to the unsafe TRI101 fix.
fn kernel_with_unused_noqa() -> String {
    KERNEL.replace("    mask = offs < n\n", "    mask = offs < n  # noqa: TRI103\n")
}

fn code_actions(
    client: &mut Client,
    uri: &Url,
    at: Position,
    diagnostics: Vec<lsp_types::Diagnostic>,
    only: Option<Vec<lsp_types::CodeActionKind>>,
) -> Vec<lsp_types::CodeAction> {
    let r = client.request(
        req::CodeActionRequest::METHOD,
        serde_json::to_value(CodeActionParams {
            text_document: TextDocumentIdentifier::new(uri.clone()),
            range: Range::new(at, at),
            context: CodeActionContext {
                diagnostics,
                only,
                trigger_kind: None,
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .unwrap(),
    );
    let actions: Vec<CodeActionOrCommand> = serde_json::from_value(r.result.unwrap()).unwrap();
    actions
        .into_iter()
        .map(|a| match a {
            CodeActionOrCommand::CodeAction(a) => a,
            CodeActionOrCommand::Command(c) => panic!("a bare command: {c:?}"),
        })
        .collect()
}

#[test]
fn quick_fixes_for_the_context_and_fix_all_of_the_safe_fixes() {
    let mut client = Client::start();
    client.initialize();
    let uri = kernel_uri();
    let text = kernel_with_unused_noqa();
    client.open(&uri, &text);
    let published = client.diagnostics().diagnostics;
    let mut codes: Vec<_> = published.iter().map(|d| d.code.clone().unwrap()).collect();
    codes.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(
        codes,
        [
            NumberOrString::String("TRI002".into()),
            NumberOrString::String("TRI101".into())
        ]
    );
    let tri101 = published
        .iter()
        .find(|d| d.code == Some(NumberOrString::String("TRI101".into())))
        .unwrap()
        .clone();

    // The cursor at column 0 of the load's line is outside the finding's range, but the
    // request carries the line's diagnostic (as editors send it): its actions come back.
    let at_line_start = Position::new(8, 0);
    assert!(code_actions(&mut client, &uri, at_line_start, vec![], None)
        .iter()
        .all(|a| a.kind.as_ref() != Some(&lsp_types::CodeActionKind::QUICKFIX)));
    let actions = code_actions(&mut client, &uri, at_line_start, vec![tri101], None);
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Pass `mask=mask` (unsafe fix)",
            "Suppress TRI101 on this line",
            "Fix all safe tritonc findings"
        ]
    );

    // `only: ["source.fixAll"]` gets the fix-all action alone; it applies the safe fix
    // (the unused comment goes) and not the unsafe one (the load keeps no mask).
    let actions = code_actions(
        &mut client,
        &uri,
        at_line_start,
        vec![],
        Some(vec![lsp_types::CodeActionKind::SOURCE_FIX_ALL]),
    );
    let [fix_all] = actions.as_slice() else {
        panic!("expected one action, got {actions:#?}")
    };
    assert_eq!(
        fix_all.kind.as_ref().map(|k| k.as_str()),
        Some("source.fixAll.tritonc")
    );
    let edits = &fix_all.edit.as_ref().unwrap().changes.as_ref().unwrap()[&uri];
    assert_eq!(apply(&text, edits), KERNEL);

    // `only: ["quickfix"]` leaves it out.
    let actions = code_actions(
        &mut client,
        &uri,
        Position::new(8, 12),
        vec![],
        Some(vec![lsp_types::CodeActionKind::QUICKFIX]),
    );
    assert!(actions
        .iter()
        .all(|a| a.kind.as_ref() == Some(&lsp_types::CodeActionKind::QUICKFIX)));
    assert_eq!(actions.len(), 2, "{actions:#?}");

    // Without a safe fix in the document there is no fix-all action.
    client.change(&uri, 2, None, KERNEL);
    client.diagnostics();
    let actions = code_actions(
        &mut client,
        &uri,
        at_line_start,
        vec![],
        Some(vec![lsp_types::CodeActionKind::SOURCE]),
    );
    assert!(actions.is_empty(), "{actions:#?}");

    assert_eq!(client.shutdown_and_exit(), SessionEnd::Exit);
}

fn edits_range(edit: &Option<lsp_types::WorkspaceEdit>) -> Range {
    let changes = edit.as_ref().unwrap().changes.as_ref().unwrap();
    changes.values().next().unwrap()[0].range
}

/// Applies LSP edits (UTF-16 positions) to `text`, last first.
fn apply(text: &str, edits: &[lsp_types::TextEdit]) -> String {
    let offset = |p: Position| {
        let line_start: usize = text
            .split_inclusive('\n')
            .take(p.line as usize)
            .map(str::len)
            .sum();
        let mut units = 0;
        for (i, c) in text[line_start..].char_indices() {
            if units == p.character {
                return line_start + i;
            }
            units += c.len_utf16() as u32;
        }
        text.len()
    };
    let mut out = text.to_string();
    let mut sorted: Vec<_> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse((e.range.start.line, e.range.start.character)));
    for e in sorted {
        out.replace_range(offset(e.range.start)..offset(e.range.end), &e.new_text);
    }
    out
}

#[test]
fn full_sync_and_non_triton_files() {
    let mut client = Client::start();
    client.initialize();
    let uri = kernel_uri();
    client.open(&uri, "print('no kernels here')\n");
    assert!(client.diagnostics().diagnostics.is_empty());
    // A full-text change that brings a kernel in is linted.
    client.change(&uri, 2, None, KERNEL);
    let published = client.diagnostics();
    assert_eq!(published.diagnostics.len(), 1);
    // A syntax error is a front-end diagnostic, not a crash.
    client.change(&uri, 3, None, "import triton\ndef f(:\n");
    let published = client.diagnostics();
    assert!(!published.diagnostics.is_empty());
    assert!(published
        .diagnostics
        .iter()
        .all(|d| d.severity == Some(lsp_types::DiagnosticSeverity::ERROR)));
    assert_eq!(client.shutdown_and_exit(), SessionEnd::Exit);
}

#[test]
fn invalid_requests_get_errors() {
    let mut client = Client::start();
    // Before initialize.
    let r = client.request(req::HoverRequest::METHOD, serde_json::json!({}));
    assert_eq!(
        r.error.unwrap().code,
        ErrorCode::ServerNotInitialized as i32
    );
    client.initialize();
    let r = client.request("tritonc/unknown", serde_json::Value::Null);
    assert_eq!(r.error.unwrap().code, ErrorCode::MethodNotFound as i32);
    let r = client.request(
        req::CodeActionRequest::METHOD,
        serde_json::json!({ "x": 1 }),
    );
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidParams as i32);
    let r = client.request(
        req::Initialize::METHOD,
        serde_json::json!({ "processId": null, "rootUri": null, "capabilities": {} }),
    );
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidRequest as i32);
    // A malformed notification is dropped; the server keeps serving.
    client.notify(
        notif::DidOpenTextDocument::METHOD,
        serde_json::json!({ "bogus": true }),
    );
    let r = client.request(req::Shutdown::METHOD, serde_json::Value::Null);
    assert!(r.error.is_none());
    client.notify(notif::Exit::METHOD, serde_json::Value::Null);
    assert_eq!(client.server.join().unwrap().unwrap(), SessionEnd::Exit);
}

#[test]
fn exit_without_shutdown_is_reported() {
    let mut client = Client::start();
    client.initialize();
    client.notify(notif::Exit::METHOD, serde_json::Value::Null);
    assert_eq!(
        client.server.join().unwrap().unwrap(),
        SessionEnd::ExitWithoutShutdown
    );
}
