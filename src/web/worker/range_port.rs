//! What a range worker tells the session's worker, on the `MessagePort`
//! the page joins them by (the page only introduces them, so the UI thread
//! never carries the bytes). Port messages are `[JSON text, ArrayBuffer?]`:
//! the partial index's bytes travel as a transferred `ArrayBuffer`, not
//! copied on the way.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::MessagePort;

use tarmac_lens_core::stats::Stats;

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

/// Posts `msg` on `port`, with `bytes` transferred after it.
pub fn send(port: &MessagePort, msg: &RangeMsg, bytes: Option<&[u8]>) {
    let text = match serde_json::to_string(msg) {
        Ok(t) => t,
        Err(e) => {
            web_sys::console::error_1(&format!("tarmac-lens range worker: {e}").into());
            return;
        }
    };
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let sent = match bytes {
        Some(b) => {
            let buffer = js_sys::Uint8Array::from(b).buffer();
            parts.push(&buffer);
            port.post_message_with_transferable(&parts, &js_sys::Array::of1(&buffer))
        }
        None => port.post_message(&parts),
    };
    if let Err(e) = sent {
        web_sys::console::error_2(&"tarmac-lens range worker: postMessage failed".into(), &e);
    }
}

/// A port message's parts (the bytes of a `Done` are `parts.get(1)`) and
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
