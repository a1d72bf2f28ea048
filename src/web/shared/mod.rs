//! What the page and the workers both use: the messages between them
//! ([`protocol`] for the browsing session's worker, [`report_protocol`] for
//! the report worker), User Timing spans ([`timing`]) and the
//! Content-Security-Policy checks ([`csp`]: the page checks its policy
//! before asking for a URL, a worker notes the requests it blocked).

pub mod csp;
pub mod protocol;
pub mod report_protocol;
pub mod timing;
