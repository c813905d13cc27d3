//! The message loop: initialization, request dispatch, document notifications, shutdown
//! and exit as the protocol prescribes.

use std::collections::HashMap;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, HoverProviderCapability,
    InitializeResult, PositionEncodingKind, PublishDiagnosticsParams, SaveOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
};
use serde::de::DeserializeOwned;

use crate::check::{check_document, is_config_file, SettingsCache};
use crate::convert::lsp_diagnostics;
use crate::documents::Document;
use crate::{actions, hover, ServerError};

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEnd {
    /// `exit` after `shutdown`: the process should exit with status 0.
    Exit,
    /// `exit` without `shutdown`: the process should exit with status 1.
    ExitWithoutShutdown,
}

/// Where the session is in the protocol's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifecycle {
    /// Waiting for `initialize`.
    Uninitialized,
    /// Serving requests.
    Running,
    /// `shutdown` was answered; only `exit` is expected.
    ShutDown,
}

/// Serves `connection` until the client sends `exit` (or disconnects: an error).
pub fn serve(connection: &Connection) -> Result<SessionEnd, ServerError> {
    let mut server = Server {
        connection,
        lifecycle: Lifecycle::Uninitialized,
        documents: HashMap::new(),
        settings: SettingsCache::default(),
    };
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Err(ServerError::Disconnected);
        };
        match message {
            Message::Request(request) => server.on_request(request)?,
            Message::Notification(n) if n.method == notif::Exit::METHOD => {
                return Ok(if server.lifecycle == Lifecycle::ShutDown {
                    SessionEnd::Exit
                } else {
                    SessionEnd::ExitWithoutShutdown
                });
            }
            Message::Notification(n) => server.on_notification(n)?,
            // The server sends no requests, so a response answers nothing.
            Message::Response(_) => {}
        }
        // Lint once the queue is drained: a burst of edits costs one lint.
        if connection.receiver.is_empty() {
            server.publish_stale()?;
        }
    }
}

struct Server<'a> {
    connection: &'a Connection,
    lifecycle: Lifecycle,
    documents: HashMap<Url, Document>,
    settings: SettingsCache,
}

impl Server<'_> {
    fn send(&self, message: impl Into<Message>) -> Result<(), ServerError> {
        self.connection
            .sender
            .send(message.into())
            .map_err(|_| ServerError::Disconnected)
    }

    fn reply_error(
        &self,
        id: RequestId,
        code: ErrorCode,
        message: String,
    ) -> Result<(), ServerError> {
        self.send(Response::new_err(id, code as i32, message))
    }

    fn on_request(&mut self, request: Request) -> Result<(), ServerError> {
        let Request { id, method, params } = request;
        match self.lifecycle {
            Lifecycle::Uninitialized if method != req::Initialize::METHOD => {
                return self.reply_error(
                    id,
                    ErrorCode::ServerNotInitialized,
                    format!("`{method}` before `initialize`"),
                );
            }
            Lifecycle::ShutDown => {
                return self.reply_error(
                    id,
                    ErrorCode::InvalidRequest,
                    format!("`{method}` after `shutdown`: only `exit` is accepted"),
                );
            }
            _ => {}
        }
        match method.as_str() {
            req::Initialize::METHOD => {
                if self.lifecycle != Lifecycle::Uninitialized {
                    return self.reply_error(
                        id,
                        ErrorCode::InvalidRequest,
                        "`initialize` was already received".into(),
                    );
                }
                // The client's capabilities do not change what this server sends, but
                // malformed ones are still an invalid request.
                let Some(_params) = self.params::<req::Initialize>(&id, params)? else {
                    return Ok(());
                };
                self.lifecycle = Lifecycle::Running;
                self.send(Response::new_ok(id, initialize_result()))
            }
            req::Shutdown::METHOD => {
                self.lifecycle = Lifecycle::ShutDown;
                self.send(Response::new_ok(id, ()))
            }
            req::CodeActionRequest::METHOD => {
                let Some(p) = self.params::<req::CodeActionRequest>(&id, params)? else {
                    return Ok(());
                };
                let uri = p.text_document.uri.clone();
                let result = match self.fresh_document(&uri) {
                    Some(doc) => Some(actions::code_actions(doc, &uri, p.range, &p.context)),
                    None => None,
                };
                self.send(Response::new_ok(id, result))
            }
            req::HoverRequest::METHOD => {
                let Some(p) = self.params::<req::HoverRequest>(&id, params)? else {
                    return Ok(());
                };
                let position = p.text_document_position_params;
                let result = self
                    .documents
                    .get(&position.text_document.uri)
                    .and_then(|doc| hover::hover(doc, position.position));
                self.send(Response::new_ok(id, result))
            }
            _ => self.reply_error(
                id,
                ErrorCode::MethodNotFound,
                format!("`{method}` is not supported"),
            ),
        }
    }

    /// The params of a request, or `None` after answering with `InvalidParams`.
    fn params<R: req::Request>(
        &self,
        id: &RequestId,
        params: serde_json::Value,
    ) -> Result<Option<R::Params>, ServerError>
    where
        R::Params: DeserializeOwned,
    {
        match serde_json::from_value(params) {
            Ok(p) => Ok(Some(p)),
            Err(err) => {
                self.reply_error(
                    id.clone(),
                    ErrorCode::InvalidParams,
                    format!("invalid `{}` params: {err}", R::METHOD),
                )?;
                Ok(None)
            }
        }
    }

    fn on_notification(&mut self, n: Notification) -> Result<(), ServerError> {
        // Before `initialize` and after `shutdown`, notifications other than `exit` are
        // dropped.
        if self.lifecycle != Lifecycle::Running {
            return Ok(());
        }
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                if let Some(p) = notification_params::<notif::DidOpenTextDocument>(n) {
                    let item = p.text_document;
                    let doc = Document::new(item.text, item.version, item.language_id);
                    self.documents.insert(item.uri, doc);
                }
            }
            notif::DidChangeTextDocument::METHOD => {
                if let Some(p) = notification_params::<notif::DidChangeTextDocument>(n) {
                    match self.documents.get_mut(&p.text_document.uri) {
                        Some(doc) => doc.apply_changes(p.text_document.version, p.content_changes),
                        None => eprintln!(
                            "tritonc server: change to `{}`, which is not open",
                            p.text_document.uri
                        ),
                    }
                }
            }
            notif::DidSaveTextDocument::METHOD => {
                if let Some(p) = notification_params::<notif::DidSaveTextDocument>(n) {
                    self.on_file_changed(&p.text_document.uri);
                    if let Some(doc) = self.documents.get_mut(&p.text_document.uri) {
                        doc.mark_stale();
                    }
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                if let Some(p) = notification_params::<notif::DidCloseTextDocument>(n) {
                    if self.documents.remove(&p.text_document.uri).is_some() {
                        // A closed file's diagnostics would otherwise stay in the editor.
                        self.publish(p.text_document.uri, Vec::new(), None)?;
                    }
                }
            }
            notif::DidChangeWatchedFiles::METHOD => {
                if let Some(p) = notification_params::<notif::DidChangeWatchedFiles>(n) {
                    for change in p.changes {
                        self.on_file_changed(&change.uri);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A saved or changed configuration file re-lints every open document.
    fn on_file_changed(&mut self, uri: &Url) {
        if is_config_file(uri) {
            self.settings.clear();
            for doc in self.documents.values_mut() {
                doc.mark_stale();
            }
        }
    }

    /// The document at `uri` with its findings up to date.
    fn fresh_document(&mut self, uri: &Url) -> Option<&Document> {
        let doc = self.documents.get_mut(uri)?;
        if doc.is_stale() {
            let checked = check_document(uri, doc, &mut self.settings);
            doc.set_checked(checked);
        }
        Some(&*doc)
    }

    /// Lints every document changed since its last lint and publishes the diagnostics.
    fn publish_stale(&mut self) -> Result<(), ServerError> {
        let stale: Vec<Url> = self
            .documents
            .iter()
            .filter(|(_, d)| d.is_stale())
            .map(|(u, _)| u.clone())
            .collect();
        for uri in stale {
            let Some(doc) = self.fresh_document(&uri) else {
                continue;
            };
            let diagnostics = doc
                .checked()
                .map(|c| lsp_diagnostics(c, &uri))
                .unwrap_or_default();
            let version = doc.version();
            self.publish(uri, diagnostics, Some(version))?;
        }
        Ok(())
    }

    fn publish(
        &self,
        uri: Url,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) -> Result<(), ServerError> {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(
            notif::PublishDiagnostics::METHOD.to_string(),
            params,
        ))
    }
}

/// The params of a notification; malformed ones are logged and dropped (a notification
/// cannot be answered).
fn notification_params<N: notif::Notification>(n: Notification) -> Option<N::Params>
where
    N::Params: DeserializeOwned,
{
    match serde_json::from_value(n.params) {
        Ok(p) => Some(p),
        Err(err) => {
            eprintln!("tritonc server: invalid `{}` params: {err}", N::METHOD);
            None
        }
    }
}

/// What the server can do: incremental sync in UTF-16 positions, diagnostics pushed on
/// open/change/save, quick fixes and hover.
fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(PositionEncodingKind::UTF16),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                    ..Default::default()
                },
            )),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, actions::fix_all_kind()]),
                resolve_provider: Some(false),
                ..Default::default()
            })),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "tritonc".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}
