//! Saving a finished index in the index cache, in pieces, while the page
//! is not asking questions.

use tarmac_lens_core::{compressed::bundle_head, TraceIdentity};

use super::with;
use crate::web::reading::index_cache;
use crate::web::shared::protocol::{PageEvent, ToPage};
use crate::web::shared::timing::{self, now};
use crate::web::worker::runtime::post;

/// How long the page must have asked nothing before the index is saved or
/// the next piece of it written. Saving a 1 GB trace's index (encoding
/// 28 MB, then writing it) right at `ready` took the second core from the
/// first keys, whose answers then waited: 30-50 ms for the first step.
const QUIET_MS: f64 = 400.0;

/// Entries of the index encoded per task when saving it: a few
/// milliseconds' work (a 10 GB trace's index took a quarter of a second
/// in one).
const SAVE_STEP: usize = 200_000;

/// Resolves once the page has been quiet for [`QUIET_MS`], and never in
/// the task it was called from.
async fn quiet() {
    loop {
        let since = now() - with(|w| w.last_ask.get());
        let wait = if since >= QUIET_MS {
            0.0
        } else {
            QUIET_MS - since
        };
        timing::sleep(wait).await;
        if now() - with(|w| w.last_ask.get()) >= QUIET_MS {
            return;
        }
    }
}

/// Saves the finished index of the trace opened as `generation` in the
/// index cache, while the page is not asking questions: each piece encoded
/// and each 1 MiB written waits for [`quiet`]. The pieces go to the file as
/// they are encoded, so the whole encoding (470 MB for a 10 GB trace) is
/// never in memory beside the index.
pub(super) async fn save_index(generation: u32, key: String, id: TraceIdentity) {
    quiet().await;
    let mut saving = None;
    with(|w| w.with_session(generation, |s| saving = s.save_start(id)));
    let Some(mut saving) = saving else { return };
    // A compressed trace's table goes first, in the same file: reused
    // exactly when the index is.
    let table = with(|w| {
        let open = w.open.try_borrow().ok()?;
        Some(open.as_ref()?.table.as_ref()?.table())
    });
    let mut file = match index_cache::create(&key).await {
        Ok(f) => f,
        Err(e) => return warn_not_cached(&e),
    };
    // `Ok(false)`: the trace was closed or replaced meanwhile.
    let saved: Result<bool, String> = async {
        if let Some(table) = &table {
            file.append(&bundle_head(table), quiet).await?;
        }
        loop {
            let mut done = None;
            let started = now();
            with(|w| w.with_session(generation, |s| done = s.save_step(&mut saving, SAVE_STEP)));
            timing::measure("encode index piece", started);
            let Some(done) = done else { return Ok(false) };
            file.append(&saving.take_output(), quiet).await?;
            if done {
                return Ok(true);
            }
            quiet().await;
        }
    }
    .await;
    match saved {
        Ok(true) => match file.finish().await {
            Ok(()) => {
                if let Err(e) = index_cache::trim().await {
                    web_sys::console::warn_1(&format!("tarmac-lens: index cache: {e}").into());
                }
                post(&ToPage::Event(PageEvent::IndexCached))
            }
            Err(e) => warn_not_cached(&e),
        },
        Ok(false) => file.abandon().await,
        Err(e) => {
            file.abandon().await;
            warn_not_cached(&e)
        }
    }
}

/// Not fatal: the trace is indexed; only the next opening will index it
/// again.
fn warn_not_cached(e: &str) {
    web_sys::console::warn_1(&format!("tarmac-lens: cannot cache the index: {e}").into())
}
