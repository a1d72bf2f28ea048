//! Where a trace on a web server is ([`Target`]), shared by the reader of
//! ranges ([`super::http_source`]) and the read-ahead that fetches them
//! ([`super::read_ahead`]).

use web_sys::XmlHttpRequest;

/// Where a URL points, for messages: cross-origin requests fail for
/// reasons (CORS, a Content-Security-Policy) same-origin ones cannot meet.
#[derive(Clone, Debug)]
pub struct Target {
    pub url: String,
    pub cross_origin: bool,
}

impl Target {
    /// The message for a request that failed without an HTTP status: the
    /// browser hides why, so name what it usually is.
    pub(super) fn network_error(&self) -> String {
        if crate::web::shared::csp::violated(&self.url) {
            return crate::web::shared::csp::refusal(&self.url);
        }
        if self.cross_origin {
            format!(
                "cannot read {}: the request failed. It is on another site, which must allow \
                 this page to read it (CORS: the server must send Access-Control-Allow-Origin), \
                 or the server is unreachable",
                self.url
            )
        } else {
            format!("cannot read {}: the server is unreachable", self.url)
        }
    }

    pub(super) fn status_error(&self, xhr: &XmlHttpRequest) -> String {
        let status = xhr.status().unwrap_or(0);
        let text = xhr.status_text().unwrap_or_default();
        format!(
            "cannot read {}: the server answered HTTP {status}{}",
            self.url,
            if text.is_empty() {
                String::new()
            } else {
                format!(" {text}")
            }
        )
    }
}
