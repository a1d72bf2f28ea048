//! What the page and the workers both use: the messages between them
//! ([`protocol`] for the browsing session's worker, [`report_protocol`] for
//! the report worker; a comparison worker's are the model's, `model::comparison`), the
//! workers' roles and the names the page starts them with ([`role`]), User
//! Timing spans ([`timing`]) and the Content-Security-Policy checks
//! ([`csp`]: the page checks its policy before asking for a URL, a worker
//! notes the requests it blocked).

pub mod csp;
pub mod open_options;
pub mod protocol;
pub mod report_protocol;
pub mod role;
pub mod timing;
