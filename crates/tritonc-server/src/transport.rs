//! The stdio transport: `Content-Length` frames read with a bound, so that no frame a
//! client sends can end the server. lsp-server's own stdio transport allocates whatever
//! length a header announces and stops at the first frame that is not a message; this one
//! answers such frames with JSON-RPC errors and goes on.
//!
//! - A body that is not JSON: a `-32700` (parse error) response with a null id.
//! - JSON that is not a message: a `-32600` (invalid request) response, with the
//!   request's id when it has one.
//! - A header without a usable `Content-Length`, or a length above [`MAX_FRAME_BYTES`]:
//!   a `-32600` response with a null id; nothing of the announced length is allocated.
//!   The reader then skips to the next line that starts a header (`Content-Length:`),
//!   which is where the client's next frame begins.

use std::io::{self, BufRead, Read, Write};

use std::sync::{Arc, Mutex};
use std::thread;

use lsp_server::{Connection, Message};

/// The largest frame body the server reads: 64 MiB, far above any source file.
pub const MAX_FRAME_BYTES: usize = 64 << 20;

/// The longest header line kept; longer ones are not headers.
const MAX_HEADER_LINE: usize = 4096;

/// One frame from the client.
#[derive(Debug)]
pub enum Frame {
    /// A message.
    Message(Message),
    /// A frame that is not a message: the JSON-RPC error response to send back.
    Bad(serde_json::Value),
    /// The input ended.
    Eof,
}

/// A JSON-RPC error response (`id` may be null).
fn error_response(id: serde_json::Value, code: i32, message: String) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
}

/// One header line, without its line end; `None` at the end of input. A line longer than
/// [`MAX_HEADER_LINE`] is returned cut (it is then not a valid header).
fn header_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(MAX_HEADER_LINE as u64)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && n == MAX_HEADER_LINE {
        // Drop the rest of the overlong line.
        loop {
            let mut rest = Vec::new();
            let m = r
                .by_ref()
                .take(MAX_HEADER_LINE as u64)
                .read_until(b'\n', &mut rest)?;
            if m == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

fn content_length(line: &str) -> Option<Result<u64, ()>> {
    let (name, value) = line.split_once(':')?;
    name.trim()
        .eq_ignore_ascii_case("Content-Length")
        .then(|| value.trim().parse::<u64>().map_err(|_| ()))
}

/// Reads frames from a byte stream, with a bound on what one frame may take.
pub struct FrameReader<R> {
    input: R,
    /// A header line read while skipping a bad frame: the next frame's first line.
    pending: Option<String>,
}

impl<R: BufRead> FrameReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        FrameReader {
            input,
            pending: None,
        }
    }

    fn line(&mut self) -> io::Result<Option<String>> {
        match self.pending.take() {
            Some(l) => Ok(Some(l)),
            None => header_line(&mut self.input),
        }
    }

    /// Skips input up to the next line that is a `Content-Length` header (kept as the
    /// next frame's first line), a line at a time: the skipped bytes are never held.
    fn skip_to_next_header(&mut self) -> io::Result<()> {
        while let Some(line) = header_line(&mut self.input)? {
            if content_length(&line).is_some() {
                self.pending = Some(line);
                break;
            }
        }
        Ok(())
    }

    /// Reads one frame. A malformed frame is [`Frame::Bad`] (the reader is then
    /// positioned at the next frame); only an I/O error is an error.
    pub fn read_frame(&mut self) -> io::Result<Frame> {
        let mut length: Option<Result<u64, ()>> = None;
        let mut saw_header = false;
        loop {
            let Some(line) = self.line()? else {
                return Ok(if saw_header {
                    Frame::Bad(error_response(
                        serde_json::Value::Null,
                        -32600,
                        "the input ended inside a frame's header".into(),
                    ))
                } else {
                    Frame::Eof
                });
            };
            if line.is_empty() {
                if !saw_header {
                    continue; // stray blank lines between frames
                }
                break;
            }
            saw_header = true;
            if let Some(l) = content_length(&line) {
                length = Some(l);
            }
        }
        let bad = |message: String| {
            Ok(Frame::Bad(error_response(
                serde_json::Value::Null,
                -32600,
                message,
            )))
        };
        let len = match length {
            Some(Ok(n)) if n <= MAX_FRAME_BYTES as u64 => n as usize,
            Some(Ok(n)) => {
                self.skip_to_next_header()?;
                return bad(format!(
                "a frame of {n} bytes is larger than the server reads ({MAX_FRAME_BYTES} bytes); it was skipped"
            ));
            }
            Some(Err(())) => {
                self.skip_to_next_header()?;
                return bad("the frame's Content-Length is not a number; it was skipped".into());
            }
            None => {
                self.skip_to_next_header()?;
                return bad("the frame has no Content-Length header; it was skipped".into());
            }
        };
        let mut body = Vec::with_capacity(len.min(1 << 20));
        self.input
            .by_ref()
            .take(len as u64)
            .read_to_end(&mut body)?;
        if body.len() < len {
            return bad(format!(
                "the input ended after {} of the frame's {len} bytes",
                body.len()
            ));
        }
        let value: serde_json::Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                return Ok(Frame::Bad(error_response(
                    serde_json::Value::Null,
                    -32700,
                    format!("the frame is not JSON: {e}"),
                )))
            }
        };
        let id = value
            .get("id")
            .filter(|id| id.is_number() || id.is_string())
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        match serde_json::from_value::<Message>(value) {
            Ok(m) => Ok(Frame::Message(m)),
            Err(e) => Ok(Frame::Bad(error_response(
                id,
                -32600,
                format!("the frame is not a JSON-RPC message: {e}"),
            ))),
        }
    }
}

/// Serves one client over `input` and `output` (stdin and stdout for
/// [`crate::run_stdio`]) with the bounded reader of this module.
pub fn serve_io(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<crate::SessionEnd, crate::ServerError> {
    let (server, client) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client;
    let output = Arc::new(Mutex::new(output));
    let out = Arc::clone(&output);
    let writer = thread::Builder::new()
        .name("tritonc-server-writer".into())
        .spawn(move || -> io::Result<()> {
            for m in from_server {
                let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                m.write(&mut *o)?;
            }
            Ok(())
        })?;
    let out = Arc::clone(&output);
    let reader = thread::Builder::new()
        .name("tritonc-server-reader".into())
        .spawn(move || -> io::Result<()> {
            let mut input = FrameReader::new(input);
            loop {
                match input.read_frame()? {
                    Frame::Eof => return Ok(()),
                    Frame::Message(m) => {
                        let is_exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                        if to_server.send(m).is_err() || is_exit {
                            return Ok(());
                        }
                    }
                    Frame::Bad(reply) => {
                        eprintln!(
                            "tritonc server: {}",
                            reply["error"]["message"].as_str().unwrap_or("a bad frame")
                        );
                        let text = reply.to_string();
                        let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                        write!(o, "Content-Length: {}\r\n\r\n{text}", text.len())?;
                        o.flush()?;
                    }
                }
            }
        })?;
    let end = crate::serve(&server);
    // The writer ends when the server's sender is gone.
    drop(server);
    let written = writer.join().unwrap_or(Ok(()));
    // After `exit` or the end of input the reader has stopped on its own; after a
    // failure on the way out it may still wait for input, and is left to the process.
    let read = match &end {
        Ok(_) => reader.join().unwrap_or(Ok(())),
        Err(_) => Ok(()),
    };
    let end = end?;
    if end != crate::SessionEnd::Exit {
        read?;
        written?;
    }
    Ok(end)
}
