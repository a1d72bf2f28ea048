//! A page's questions over one WebSocket (`api/socket?page=P`): each text
//! message is a batch, as posted to `api/ask`, and each answer goes back in
//! the order asked. A page sends its next batch without waiting for the last
//! one's answers; one connection keeps them in order, and the socket's
//! messages skip the browser's per-request loader, which cost a step 2-4 ms
//! per fetch (docs/performance.md).

use std::io::{Read, Write};
use std::time::Instant;

use tiny_http::{Request, Response, StatusCode};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::frame::CloseFrame;
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
use tungstenite::{Error, Message};

use super::{header, lock, respond, text, Shared, MAX_ASK_BYTES};
use tarmac_lens_core::TraceSource;

/// Takes the connection of an upgrade request and answers its messages on
/// a thread of its own until the page goes.
pub(super) fn accept<S: TraceSource + Send + 'static>(
    request: Request,
    answers: Shared<S>,
    page: String,
    verbose: bool,
) {
    let wants = |name: &'static str, value: &str| {
        request.headers().iter().any(|h| {
            h.field.equiv(name)
                && h.value
                    .as_str()
                    .split(',')
                    .any(|v| v.trim().eq_ignore_ascii_case(value))
        })
    };
    let key = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Sec-WebSocket-Key"))
        .map(|h| h.value.as_str().trim().to_string());
    let (Some(key), true) = (key, wants("Upgrade", "websocket")) else {
        respond(
            request,
            text(
                426,
                "426 Upgrade Required: api/socket is a WebSocket (questions go to api/ask by POST)\n",
            ),
        );
        return;
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let response =
        Response::empty(StatusCode(101)).with_header(header("Sec-WebSocket-Accept", &accept));
    let stream = request.upgrade("websocket", response);
    let spawned = std::thread::Builder::new()
        .name("serve-socket".into())
        .spawn(move || answer(stream, &answers, &page, verbose));
    if let Err(e) = spawned {
        eprintln!("tarmac-lens: warning: a page's socket has no thread: {e}");
    }
}

/// Reads batches and writes their answers until the socket closes.
fn answer<S: TraceSource, T: Read + Write>(
    stream: T,
    answers: &Shared<S>,
    page: &str,
    verbose: bool,
) {
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_ASK_BYTES as usize))
        .max_frame_size(Some(MAX_ASK_BYTES as usize));
    let mut socket = WebSocket::from_raw_socket(stream, Role::Server, Some(config));
    loop {
        let batch = match socket.read() {
            Ok(Message::Text(batch)) => batch,
            Ok(Message::Binary(_)) => {
                refuse(
                    &mut socket,
                    CloseCode::Unsupported,
                    "batches are text (JSON)",
                );
                return;
            }
            // Pings are answered by the next read; the close handshake too.
            Ok(_) => continue,
            Err(Error::Capacity(e)) => {
                refuse(&mut socket, CloseCode::Size, &e.to_string());
                return;
            }
            Err(_) => return,
        };
        let started = Instant::now();
        let answered = lock(answers).batch(page, batch.as_bytes());
        let sent = match answered.map(String::from_utf8) {
            Ok(Ok(json)) => socket.send(Message::text(json)),
            Ok(Err(e)) => {
                refuse(&mut socket, CloseCode::Error, &e.to_string());
                return;
            }
            Err(why) => {
                refuse(&mut socket, CloseCode::Invalid, &why);
                return;
            }
        };
        if verbose {
            eprintln!(
                "tarmac-lens: socket batch: {:.2} ms",
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        if sent.is_err() {
            return;
        }
    }
}

/// Closes the socket saying why; the page shows the reason.
fn refuse<T: Read + Write>(socket: &mut WebSocket<T>, code: CloseCode, why: &str) {
    // A close frame's reason holds 123 bytes.
    let mut end = why.len().min(123);
    while !why.is_char_boundary(end) {
        end -= 1;
    }
    let frame = CloseFrame {
        code,
        reason: why[..end].to_string().into(),
    };
    if socket.close(Some(frame)).is_ok() {
        // The page's close frame completes the handshake.
        while socket.read().is_ok() {}
    }
}
