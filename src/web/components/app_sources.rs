//! The page's other ways in, beside a dropped file: `?url=` (with the
//! download's progress when the server serves no ranges) and the embedded
//! viewer (`?embed=1`), whose compact layout and host messages live here so
//! that the app keeps to the drop page.

use std::rc::Rc;

use yew::prelude::*;

use super::app::{Action, PageState, Phase};
use super::{Browser, ErrorBanner};
use crate::web::page::client::{Reading, TraceClient, TraceInput};
use crate::web::page::embed::{self, Payload};
use crate::web::page::i18n::{t, tf};
use crate::web::page::page_params::{self, PageParams};

/// The `data-reading` value tests key on.
pub(super) fn reading_name(r: Reading) -> &'static str {
    match r {
        Reading::File => "file",
        Reading::CachedIndex => "cached-index",
        Reading::Ranges => "ranges",
        Reading::Downloaded => "downloaded",
        Reading::Served => "served",
    }
}

/// How the trace was read, when it is worth saying.
pub(super) fn view_reading(reading: Option<Reading>) -> Html {
    let (testid, text) = match reading {
        Some(Reading::CachedIndex) => (
            "index-restored",
            t("Index restored from the cache: this trace was indexed before."),
        ),
        Some(Reading::Ranges) => (
            "read-by-ranges",
            t("Read from the server in byte ranges, as needed: never downloaded whole."),
        ),
        Some(Reading::Downloaded) => (
            "downloaded",
            t("Downloaded whole: the server does not serve byte ranges."),
        ),
        Some(Reading::Served) => (
            "served",
            t("Answered by tarmac-lens serve from the trace's file and index: nothing is read into this page."),
        ),
        Some(Reading::File) | None => return html! {},
    };
    html! { <p class="hint" data-testid={testid} style="margin:0;">{ text }</p> }
}

/// A URL being downloaded whole (its server serves no byte ranges).
pub(super) fn view_download(state: &PageState) -> Html {
    let Some((done, total)) = state.download else {
        return html! {};
    };
    if state.reading.is_some() {
        return html! {};
    }
    let done_text = crate::web::page::format::bytes(done);
    let text = match total {
        Some(total) => tf(
            "Downloading {} of {} (the server does not serve byte ranges, so the whole trace is fetched)…",
            &[&done_text, &crate::web::page::format::bytes(total)],
        ),
        None => tf(
            "Downloading {} (the server does not serve byte ranges, so the whole trace is fetched)…",
            &[&done_text],
        ),
    };
    html! {
        <div class="download" data-testid="download-progress" data-done={done.to_string()}>
            <progress
                max={total.unwrap_or(0).max(done).max(1).to_string()}
                value={done.to_string()}
                style="width:100%;height:1rem;"
            />
            <span>{ text }</span>
        </div>
    }
}

/// Opens what the query string asks for: the trace `tarmac-lens serve`
/// serves (`?serve=1`), `?url=` (and `&elf=`), or waits for the host
/// page's messages (`?embed=1`).
pub(super) fn start_from_params(
    params: &PageParams,
    open_trace: Rc<dyn Fn(TraceInput)>,
    client: Rc<std::cell::RefCell<Option<TraceClient>>>,
    load_elf: Rc<dyn Fn(web_sys::File, i64)>,
    state: UseReducerHandle<PageState>,
) {
    let serve_state = state.clone();
    let open_url = {
        let open_trace = open_trace.clone();
        let client = client.clone();
        move |url: &str, elf: Option<&str>| {
            match page_params::resolve(url) {
                Ok((url, cross_origin, name)) => open_trace(TraceInput::Url {
                    url,
                    cross_origin,
                    name,
                }),
                Err(e) => {
                    state.dispatch(Action::StartFailed(e));
                    return;
                }
            }
            if let Some(elf) = elf {
                match (page_params::resolve(elf), client.borrow().as_ref()) {
                    (Ok((url, cross_origin, name)), Some(c)) => {
                        c.load_elf_url(url, cross_origin, name)
                    }
                    (Err(e), _) => state.dispatch(Action::StartFailed(e)),
                    (Ok(_), None) => {}
                }
            }
        }
    };
    if params.serve {
        let state = serve_state;
        let open_trace = open_trace.clone();
        // At once, before the browser lays out the page without its trace.
        if let Some(written) = crate::web::page::server_link::written_opening() {
            match written {
                Ok(opening) => open_trace(TraceInput::Served(Rc::new(opening))),
                Err(e) => state.dispatch(Action::StartFailed(e)),
            }
        } else {
            wasm_bindgen_futures::spawn_local(async move {
                match crate::web::page::server_link::opening().await {
                    Ok(opening) => open_trace(TraceInput::Served(Rc::new(opening))),
                    Err(e) => state.dispatch(Action::StartFailed(e)),
                }
            });
        }
    } else if let Some(url) = &params.url {
        open_url(url, params.elf.as_deref());
    }
    if params.embed {
        embed::listen(
            params.origins.as_deref(),
            params.url.is_some(),
            move |request| {
                match request.trace {
                    Payload::File(file) => open_trace(TraceInput::File(file)),
                    Payload::Url(url) => open_url(&url, None),
                }
                match request.elf {
                    Some(Payload::File(file)) => load_elf(file, 0),
                    Some(Payload::Url(url)) => {
                        if let (Ok((url, cross_origin, name)), Some(c)) =
                            (page_params::resolve(&url), client.borrow().as_ref())
                        {
                            c.load_elf_url(url, cross_origin, name);
                        }
                    }
                    None => {}
                }
            },
        );
    }
}

/// The compact viewer for an `<iframe>`: the trace and the panes asked
/// for, a one-line status, nothing else.
pub(super) fn view_embedded(
    state: &UseReducerHandle<PageState>,
    panes: Option<Vec<crate::web::page::page_params::PaneSpec>>,
    open: bool,
) -> Html {
    let lines = match (&state.phase, &state.progress) {
        (Phase::Ready(stats), _) => Some(stats.lines),
        (Phase::Indexing { .. } | Phase::Stopped(_), Some(p)) => Some(p.lines),
        _ => None,
    };
    let status = match &state.phase {
        Phase::Idle => {
            html! { <span class="hint">{ t("Waiting for a trace from the page…") }</span> }
        }
        Phase::Indexing { done, total } => html! {
            <span>{ tf("Indexing {}… {}%", &[&state.file.as_ref().map_or("", |f| f.name.as_str()), &crate::web::page::format::percent(*done, *total)]) }</span>
        },
        Phase::Ready(_) => html! {
            <span data-testid="file-name">{ state.file.as_ref().map_or(String::new(), |f| f.name.clone()) }</span>
        },
        Phase::Stopped(reason) => html! {
            <p class="stopped" role="alert" data-testid="stopped">{ reason.clone() }</p>
        },
        Phase::Error(message) => html! { <ErrorBanner message={message.clone()} /> },
    };
    html! {
        <main class="app embedded" style="display:flex;flex-direction:column;gap:0.3rem;padding:0.3rem;box-sizing:border-box;height:100vh;height:100dvh;overflow:hidden;">
            <section
                class="status"
                data-testid="status"
                data-state={state.phase.name()}
                data-lines={lines.map(|n| n.to_string())}
                data-reading={state.reading.map(reading_name)}
                aria-live="polite"
                style="font-size:0.85rem;flex:none;"
            >
                { status }
            </section>
            if let Some(session) = state.session.clone().filter(|_| open) {
                <Browser
                    session={session}
                    progress={state.progress.clone()}
                    elf={state.elf}
                    panes={Some(panes.unwrap_or_default())}
                    compact={true}
                />
            }
        </main>
    }
}
