//! What the page's query string asks for: `?url=TRACE&elf=IMAGE` opens a
//! trace from a web server, `?embed=1&panes=regs,mem` the compact viewer
//! for an `<iframe>` (see [`super::embed`]).

use web_sys::{Url, UrlSearchParams};

use crate::model::keys::RegKind;
pub use crate::model::PaneSpec;

/// The page's parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageParams {
    pub url: Option<String>,
    pub elf: Option<String>,
    /// `?serve=1`: the page `tarmac-lens serve` serves, its trace answered
    /// by that server.
    pub serve: bool,
    /// `&src=BASE_URL`: where the source pane fetches source files.
    pub src: Option<String>,
    pub embed: bool,
    /// Panes of the embedded viewer; `None`: the usual core registers.
    pub panes: Option<Vec<PaneSpec>>,
    /// `&origins=`: the hosts on other origins the embedded viewer answers
    /// (`model::host_origins`).
    pub origins: Option<String>,
}

/// Reads a pane list such as `regs,mem` or `core,neon,mem:x0+16`; unknown
/// names are skipped.
pub fn parse_panes(list: &str) -> Vec<PaneSpec> {
    list.split(',')
        .filter_map(|name| {
            let name = name.trim();
            let (name, arg) = name.split_once(':').unwrap_or((name, ""));
            match name {
                "regs" | "registers" => Some(PaneSpec::Registers(RegKind::Core)),
                "source" | "src" => Some(PaneSpec::Source),
                "mem" | "memory" => Some(PaneSpec::Memory(if arg.is_empty() {
                    "sp".into()
                } else {
                    arg.into()
                })),
                other => RegKind::ALL
                    .iter()
                    .find(|k| k.panel() == other)
                    .map(|&k| PaneSpec::Registers(k)),
            }
        })
        .collect()
}

/// The parameters of this page.
pub fn current() -> PageParams {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let Ok(params) = UrlSearchParams::new_with_str(&search) else {
        return PageParams::default();
    };
    let get = |k: &str| params.get(k).filter(|v| !v.trim().is_empty());
    PageParams {
        url: get("url"),
        elf: get("elf"),
        serve: super::server_link::is_served(),
        src: get("src"),
        embed: get("embed").is_some_and(|v| v != "0"),
        panes: get("panes").map(|p| parse_panes(&p)),
        origins: get("origins"),
    }
}

/// A trace URL made absolute (relative to the page), whether it is on
/// another origin, and its file name; refused when the page's
/// Content-Security-Policy would refuse it.
pub fn resolve(url: &str) -> Result<(String, bool, String), String> {
    let window = web_sys::window().ok_or("no window")?;
    let base = window.location().href().map_err(|e| format!("{e:?}"))?;
    let parsed = Url::new_with_base(url, &base).map_err(|_| format!("not a valid URL: {url}"))?;
    if !matches!(parsed.protocol().as_str(), "http:" | "https:") {
        return Err(format!(
            "cannot open {url}: only http and https URLs can be read"
        ));
    }
    let origin = parsed.origin();
    let page_origin = window.location().origin().unwrap_or_default();
    let absolute = parsed.href();
    if !crate::web::shared::csp::page_allows(&origin) {
        return Err(crate::web::shared::csp::refusal(&absolute));
    }
    let path = parsed.pathname();
    let name = path
        .rsplit('/')
        .find(|s| !s.is_empty())
        .map(|s| {
            js_sys::decode_uri_component(s)
                .ok()
                .and_then(|d| d.as_string())
                .unwrap_or_else(|| s.to_string())
        })
        .unwrap_or_else(|| parsed.host());
    Ok((absolute, origin != page_origin, name))
}
