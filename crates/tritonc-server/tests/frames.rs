//! The stdio transport under bad frames: a body that is not JSON, JSON that is not a
//! message, a `Content-Length` far past any real frame. Each is answered with a JSON-RPC
//! error and the session goes on to a clean `exit`.

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use tritonc_server::transport::{serve_io, Frame, FrameReader, MAX_FRAME_BYTES};
use tritonc_server::SessionEnd;

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The JSON bodies of the frames in `out`.
fn bodies(out: &[u8]) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(out);
    let mut rest = text.as_ref();
    let mut all = Vec::new();
    while let Some(i) = rest.find("Content-Length: ") {
        rest = &rest[i + 16..];
        let end = rest.find("\r\n").expect("header line end");
        let len: usize = rest[..end].parse().expect("a length");
        let start = rest.find("\r\n\r\n").expect("header end") + 4;
        all.push(serde_json::from_str(&rest[start..start + len]).expect("JSON body"));
        rest = &rest[start + len..];
    }
    all
}

fn session(middle: &str) -> (SessionEnd, Vec<serde_json::Value>) {
    let input = [
        frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#),
        frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
        middle.to_string(),
        frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#),
        frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
    ]
    .concat();
    let out = Shared::default();
    let end =
        serve_io(Cursor::new(input.into_bytes()), out.clone()).expect("the session ends cleanly");
    let bytes = out.0.lock().unwrap().clone();
    (end, bodies(&bytes))
}

fn error_codes(replies: &[serde_json::Value]) -> Vec<i64> {
    replies
        .iter()
        .filter_map(|r| r["error"]["code"].as_i64())
        .collect()
}

fn answered_shutdown(replies: &[serde_json::Value]) -> bool {
    replies
        .iter()
        .any(|r| r["id"] == 2 && r.get("error").is_none() && r.get("result").is_some())
}

#[test]
fn a_frame_that_is_not_json_is_answered_with_a_parse_error() {
    let (end, replies) = session(&frame("{\"jsonrpc\": \"2.0\", \"id\": 7, oops"));
    assert_eq!(end, SessionEnd::Exit);
    assert_eq!(error_codes(&replies), vec![-32700], "{replies:#?}");
    let err = replies.iter().find(|r| r.get("error").is_some()).unwrap();
    assert!(err["id"].is_null(), "{err}");
    assert!(answered_shutdown(&replies), "{replies:#?}");
}

#[test]
fn json_that_is_not_a_message_is_an_invalid_request_with_its_id() {
    let (end, replies) = session(&frame(r#"{"jsonrpc": "2.0", "id": 9, "error": "nope"}"#));
    assert_eq!(end, SessionEnd::Exit);
    assert_eq!(error_codes(&replies), vec![-32600], "{replies:#?}");
    let err = replies.iter().find(|r| r.get("error").is_some()).unwrap();
    assert_eq!(err["id"], 9, "{err}");
    assert!(answered_shutdown(&replies), "{replies:#?}");
}

#[test]
fn a_huge_content_length_is_refused_without_allocating_it() {
    // No body follows the header: the next frame starts right away.
    let (end, replies) = session("Content-Length: 99999999999\r\n\r\n");
    assert_eq!(end, SessionEnd::Exit);
    assert_eq!(error_codes(&replies), vec![-32600], "{replies:#?}");
    let err = replies.iter().find(|r| r.get("error").is_some()).unwrap();
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("99999999999"),
        "{err}"
    );
    assert!(answered_shutdown(&replies), "{replies:#?}");
}

#[test]
fn a_header_without_a_length_is_refused_and_reading_goes_on() {
    let (end, replies) = session("Content-Type: text/plain\r\n\r\ngarbage\r\n");
    assert_eq!(end, SessionEnd::Exit);
    assert_eq!(error_codes(&replies), vec![-32600], "{replies:#?}");
    assert!(answered_shutdown(&replies), "{replies:#?}");
}

#[test]
fn a_frame_just_over_the_limit_is_refused_and_one_at_the_limit_is_read() {
    let over = format!("Content-Length: {}\r\n\r\n", MAX_FRAME_BYTES + 1);
    let mut r = FrameReader::new(Cursor::new(
        [over, frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)]
            .concat()
            .into_bytes(),
    ));
    assert!(matches!(r.read_frame().unwrap(), Frame::Bad(_)));
    assert!(matches!(r.read_frame().unwrap(), Frame::Message(_)));
    assert!(matches!(r.read_frame().unwrap(), Frame::Eof));
}
