//! Page side of a trace comparison: starts a comparison worker
//! (`worker/diff.rs`), sends it both `File`s once it listens, and passes
//! its messages on. Dropping the job ends the worker.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker};

use crate::model::comparison::DiffMsg;
use crate::web::shared::protocol::{encode, OpenOptions, ToWorker};
use crate::web::shared::role::Role;

pub struct DiffJob {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl Drop for DiffJob {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

impl DiffJob {
    /// Compares `a` with `b` in a new worker; `on_msg` gets its progress,
    /// its result or why it failed (never `Ready`).
    pub fn start(
        url: &str,
        a: web_sys::File,
        b: web_sys::File,
        options: OpenOptions,
        max: u32,
        on_msg: impl Fn(DiffMsg) + 'static,
    ) -> Result<DiffJob, String> {
        let worker = super::spare::new_worker(url, Role::Diff)
            .map_err(|e| format!("cannot start the worker ({url}): {e:?}"))?;
        let request = encode(&ToWorker::Diff { a, b, options, max })?;
        let on_msg = Rc::new(on_msg);
        // The request waits for the worker to listen (a message posted
        // before would be lost).
        let request = RefCell::new(Some(request));
        let on_message = {
            let on_msg = on_msg.clone();
            let worker = worker.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let msg = event
                    .data()
                    .as_string()
                    .ok_or_else(|| "a message from the worker is not JSON text".to_string())
                    .and_then(|text| {
                        serde_json::from_str::<DiffMsg>(&text).map_err(|e| e.to_string())
                    });
                match msg {
                    Ok(DiffMsg::Ready) => {
                        if let Some(request) = request.borrow_mut().take() {
                            if let Err(e) = worker.post_message(&request) {
                                on_msg(DiffMsg::Failed {
                                    message: format!("cannot message the worker: {e:?}"),
                                });
                            }
                        }
                    }
                    Ok(msg) => on_msg(msg),
                    Err(e) => on_msg(DiffMsg::Failed {
                        message: format!("unreadable message from the worker: {e}"),
                    }),
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let message = event
                .dyn_ref::<ErrorEvent>()
                .map(|e| e.message())
                .unwrap_or_default();
            on_msg(DiffMsg::Failed {
                message: format!("the comparison worker stopped: {message}"),
            });
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(DiffJob {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}
