//! Who may drive an embedded viewer (`?embed=1`), decided before any
//! message is read.
//!
//! The threat is a page on another origin that frames the viewer to read,
//! through its answers, a trace the viewer can fetch and that page cannot
//! (one on the viewer's own server, fetched with its cookies). So a host
//! on the viewer's own origin may do anything; a host on an origin the
//! iframe's `?origins=` lists may drive the viewer only with the bytes it
//! sends, never make it fetch a URL; and when the viewer opened a trace of
//! its own (`?url=`), only its own origin hears from it, whatever the list
//! says. Everybody else is ignored (and counted). Held by the unit tests
//! below and `tests/browser/embed_element.test.mjs`.

/// The origins an embedded viewer answers.
#[derive(Clone, Debug, PartialEq)]
pub struct HostOrigins {
    own: String,
    listed: Vec<String>,
}

/// What a host on an origin may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostTrust {
    /// The viewer's own origin: anything, URLs included.
    Own,
    /// Listed in `?origins=`: open the bytes it sends, move, hear answers.
    Listed,
    /// Neither: the message is ignored.
    Refused,
}

impl HostOrigins {
    /// The policy of a viewer on origin `own` (`location.origin`, `"null"`
    /// on `file://`), given its `?origins=` (comma-separated) and whether it
    /// was given a trace URL of its own (`?url=`). Also returns the list's
    /// entries that are not origins, for a warning.
    pub fn new(own: &str, origins: Option<&str>, own_trace: bool) -> (HostOrigins, Vec<String>) {
        let mut listed = Vec::new();
        let mut bad = Vec::new();
        for entry in origins.unwrap_or("").split(',') {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            match normalise(entry) {
                Some(origin) if origin != own => listed.push(origin),
                Some(_) => {}
                None => bad.push(entry.to_string()),
            }
        }
        if own_trace {
            listed.clear();
        }
        (
            HostOrigins {
                own: own.to_string(),
                listed,
            },
            bad,
        )
    }

    /// What a message's `origin` may do.
    pub fn trust(&self, origin: &str) -> HostTrust {
        if origin == self.own {
            // Two `file://` pages are both "null": the host is on the same
            // disk as the viewer, as trusted as a same-origin page.
            HostTrust::Own
        } else if self.listed.iter().any(|o| o == origin) {
            HostTrust::Listed
        } else {
            HostTrust::Refused
        }
    }

    /// The `targetOrigin` that reaches a host on `origin` and nobody else:
    /// an opaque origin (`"null"`) cannot be named, so `"*"`, which is safe
    /// only because the message goes to the parent window alone.
    pub fn target(origin: &str) -> &str {
        if origin == "null" {
            "*"
        } else {
            origin
        }
    }
}

/// `https://docs.example.org/` → `https://docs.example.org`; `None` for
/// what is not an origin (a path, another scheme, `*`).
fn normalise(entry: &str) -> Option<String> {
    if entry == "null" {
        return Some(entry.to_string());
    }
    let entry = entry.strip_suffix('/').unwrap_or(entry);
    let rest = entry
        .strip_prefix("https://")
        .or_else(|| entry.strip_prefix("http://"))?;
    let host_ok = !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    host_ok.then(|| entry.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: &str = "https://lens.example.org";

    #[test]
    fn own_origin_is_trusted_and_others_refused_by_default() {
        let (p, bad) = HostOrigins::new(OWN, None, false);
        assert!(bad.is_empty());
        assert_eq!(p.trust(OWN), HostTrust::Own);
        assert_eq!(p.trust("https://evil.example"), HostTrust::Refused);
        assert_eq!(p.trust("null"), HostTrust::Refused);
        assert_eq!(p.trust("https://lens.example.org:8443"), HostTrust::Refused);
    }

    #[test]
    fn listed_origins_are_normalised_and_bad_entries_named() {
        let (p, bad) = HostOrigins::new(
            OWN,
            Some(" https://Docs.Example.org/ ,http://localhost:8000,*,https://x.example/path,ftp://y,,null"),
            false,
        );
        assert_eq!(p.trust("https://docs.example.org"), HostTrust::Listed);
        assert_eq!(p.trust("http://localhost:8000"), HostTrust::Listed);
        assert_eq!(p.trust("http://localhost:8001"), HostTrust::Refused);
        assert_eq!(p.trust("null"), HostTrust::Listed);
        assert_eq!(bad, ["*", "https://x.example/path", "ftp://y"]);
        // Listing its own origin changes nothing.
        let (p, _) = HostOrigins::new(OWN, Some(OWN), false);
        assert_eq!(p.trust(OWN), HostTrust::Own);
    }

    #[test]
    fn a_trace_of_its_own_is_for_its_own_origin_only() {
        let (p, _) = HostOrigins::new(OWN, Some("https://docs.example.org"), true);
        assert_eq!(p.trust("https://docs.example.org"), HostTrust::Refused);
        assert_eq!(p.trust(OWN), HostTrust::Own);
    }

    #[test]
    fn file_pages_trust_each_other_and_are_answered_with_a_star() {
        let (p, _) = HostOrigins::new("null", None, false);
        assert_eq!(p.trust("null"), HostTrust::Own);
        assert_eq!(p.trust(OWN), HostTrust::Refused);
        assert_eq!(HostOrigins::target("null"), "*");
        assert_eq!(HostOrigins::target(OWN), OWN);
    }
}
