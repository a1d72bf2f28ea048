//! Content-Security-Policy and trace URLs. The page's policy (a `<meta>`
//! in index.html) may only allow its own origin in `connect-src`: a trace
//! URL on another site is then refused by the browser before any request,
//! with the same opaque network error as a CORS failure. The page checks
//! its policy first, and the worker notes violations it is told about, so
//! the message can say which it was.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::SecurityPolicyViolationEvent;

thread_local! {
    static BLOCKED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Starts noting the URLs the policy blocks in this global (window or worker).
pub fn watch() {
    let on_violation = Closure::<dyn FnMut(SecurityPolicyViolationEvent)>::new(
        |e: SecurityPolicyViolationEvent| {
            BLOCKED.with(|b| b.borrow_mut().push(e.blocked_uri()));
        },
    );
    let global: web_sys::EventTarget = js_sys::global().unchecked_into();
    let _ = global.add_event_listener_with_callback(
        "securitypolicyviolation",
        on_violation.as_ref().unchecked_ref(),
    );
    // Lives as long as the global.
    on_violation.forget();
}

/// Whether the policy blocked a request to `url` (reports may name the
/// whole URL or only its origin).
pub fn violated(url: &str) -> bool {
    BLOCKED.with(|b| {
        b.borrow()
            .iter()
            .any(|blocked| !blocked.is_empty() && url.starts_with(blocked.as_str()))
    })
}

/// The message for a URL the policy refuses.
pub fn refusal(url: &str) -> String {
    format!(
        "cannot read {url}: this page's Content-Security-Policy only allows trace URLs from \
         its own site (connect-src); serve the trace next to the page, or have the page's \
         deployer add that site to connect-src (see docs/hosting.md)"
    )
}

/// Whether a policy's `connect-src` (or `default-src`) allows requests
/// from a page at `page_origin` to `url_origin` (`scheme://host[:port]`).
/// No such directive allows everything.
pub fn policy_allows(policy: &str, page_origin: &str, url_origin: &str) -> bool {
    let directives: Vec<Vec<&str>> = policy
        .split(';')
        .map(|d| d.split_whitespace().collect::<Vec<_>>())
        .filter(|d| !d.is_empty())
        .collect();
    let find = |name: &str| {
        directives
            .iter()
            .find(|d| d[0].eq_ignore_ascii_case(name))
            .map(|d| &d[1..])
    };
    let Some(sources) = find("connect-src").or_else(|| find("default-src")) else {
        return true;
    };
    let (scheme, host_port) = url_origin.split_once("://").unwrap_or(("", url_origin));
    let host = host_port.rsplit_once(':').map_or(host_port, |(h, _)| h);
    sources.iter().any(|&s| {
        let s = s.to_ascii_lowercase();
        match s.as_str() {
            "'self'" => url_origin == page_origin,
            "*" => matches!(scheme, "http" | "https"),
            "'none'" => false,
            _ if s.ends_with(':') && !s.contains('/') => s.trim_end_matches(':') == scheme,
            _ => {
                let (s_scheme, s_rest) = match s.split_once("://") {
                    Some((sc, rest)) => (Some(sc), rest),
                    None => (None, s.as_str()),
                };
                if s_scheme.is_some_and(|sc| sc != scheme) {
                    return false;
                }
                let s_rest = s_rest.trim_end_matches('/');
                let has_port = s_rest
                    .rsplit_once(':')
                    .is_some_and(|(_, p)| p == "*" || p.chars().all(|c| c.is_ascii_digit()));
                let (s_host, s_port) = if has_port {
                    s_rest
                        .rsplit_once(':')
                        .map_or((s_rest, None), |(h, p)| (h, Some(p)))
                } else {
                    (s_rest, None)
                };
                let host_ok = match s_host.strip_prefix("*.") {
                    Some(suffix) => host.ends_with(&format!(".{suffix}")),
                    None => s_host == host,
                };
                let port_ok = match s_port {
                    None | Some("*") => true,
                    Some(p) => host_port.ends_with(&format!(":{p}")),
                };
                host_ok && port_ok
            }
        }
    })
}

/// Whether this page's policy lets it read `url_origin` (checked before
/// asking the worker, whose refusal would look like a network error).
pub fn page_allows(url_origin: &str) -> bool {
    let Some(w) = web_sys::window() else {
        return true;
    };
    let page_origin = w.location().origin().unwrap_or_default();
    let Some(doc) = w.document() else {
        return true;
    };
    let Ok(metas) = doc.query_selector_all("meta[http-equiv]") else {
        return true;
    };
    (0..metas.length())
        .filter_map(|i| metas.item(i)?.dyn_into::<web_sys::Element>().ok())
        .filter(|m| {
            m.get_attribute("http-equiv")
                .is_some_and(|h| h.eq_ignore_ascii_case("content-security-policy"))
        })
        .filter_map(|m| m.get_attribute("content"))
        .all(|policy| policy_allows(&policy, &page_origin, url_origin))
}
