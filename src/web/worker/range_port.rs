//! What a range worker tells the session's worker, on the `MessagePort`
//! the page joins them by (the page only introduces them, so the UI thread
//! never carries the bytes). Port messages are `[JSON text, ArrayBuffer...]`:
//! the partial index's bytes travel as transferred `ArrayBuffer`s, not
//! copied on the way.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::MessagePort;

use tarmac_lens_core::Stats;

/// Range worker -> session worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum RangeMsg {
    /// Bytes of the range indexed so far.
    Progress {
        done: u64,
    },
    /// The range is indexed: its bytes follow the text.
    Done {
        stats: Box<Stats>,
    },
    Failed {
        message: String,
    },
}

/// Posts `msg` on `port`, with `chunks` (`ArrayBuffer`s) transferred
/// after it.
pub fn send(port: &MessagePort, msg: &RangeMsg, chunks: &js_sys::Array) {
    let text = match serde_json::to_string(msg) {
        Ok(t) => t,
        Err(e) => {
            web_sys::console::error_1(&format!("tarmac-lens range worker: {e}").into());
            return;
        }
    };
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    for c in chunks.iter() {
        parts.push(&c);
    }
    if let Err(e) = port.post_message_with_transferable(&parts, chunks) {
        web_sys::console::error_2(&"tarmac-lens range worker: postMessage failed".into(), &e);
    }
}

/// The bytes of `parts[1..]`, the `ArrayBuffer`s a `Done` carries, in one
/// run of wasm memory of exactly their length. Each buffer is detached
/// once copied, which gives its memory back at once (let go, 192 MiB of
/// buffers were still held 3 s later).
pub fn gather(parts: &js_sys::Array) -> Vec<u8> {
    let chunks: Vec<js_sys::ArrayBuffer> =
        parts.iter().skip(1).map(JsCast::unchecked_into).collect();
    let mut out = vec![0; chunks.iter().map(|c| c.byte_length() as usize).sum()];
    let mut at = 0;
    for c in chunks {
        let n = c.byte_length() as usize;
        js_sys::Uint8Array::new(&c).copy_to(&mut out[at..at + n]);
        at += n;
        // A browser without `transfer` collects it later.
        let _ = c.transfer_with_length(0);
    }
    out
}

/// A port message's parts (the bytes of a `Done` are [`gather`]ed) and
/// its message.
pub fn receive(data: JsValue) -> (js_sys::Array, Result<RangeMsg, String>) {
    let parts: js_sys::Array = data.unchecked_into();
    let msg = parts
        .get(0)
        .as_string()
        .ok_or_else(|| "not text".to_string())
        .and_then(|t| serde_json::from_str::<RangeMsg>(&t).map_err(|e| e.to_string()));
    (parts, msg)
}
