//! Pure parts of opening URLs and embedding: which origins a page's
//! Content-Security-Policy lets it read, and the embedded viewer's pane list.
#![cfg(target_arch = "wasm32")]

use tarmac_lens::web::csp::policy_allows;
use tarmac_lens::web::keys::RegKind;
use tarmac_lens::web::page_params::{parse_panes, PaneSpec};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const PAGE: &str = "https://lens.example.org";

#[wasm_bindgen_test]
fn connect_src_decides() {
    let strict = "default-src 'self'; connect-src 'self' blob: data:; img-src 'self'";
    assert!(policy_allows(strict, PAGE, PAGE));
    assert!(!policy_allows(strict, PAGE, "https://traces.example.com"));
    let wider = "connect-src 'self' https://traces.example.com *.cdn.example.net:8443";
    assert!(policy_allows(wider, PAGE, "https://traces.example.com"));
    assert!(!policy_allows(wider, PAGE, "http://traces.example.com"));
    assert!(policy_allows(wider, PAGE, "https://a.cdn.example.net:8443"));
    assert!(!policy_allows(wider, PAGE, "https://a.cdn.example.net"));
    // default-src stands in for a missing connect-src; no policy allows all.
    assert!(!policy_allows(
        "default-src 'self'",
        PAGE,
        "https://x.example"
    ));
    assert!(policy_allows("img-src 'self'", PAGE, "https://x.example"));
    assert!(policy_allows("connect-src *", PAGE, "https://x.example"));
    assert!(policy_allows(
        "connect-src https:",
        PAGE,
        "https://x.example"
    ));
    assert!(!policy_allows("connect-src 'none'", PAGE, PAGE));
}

#[wasm_bindgen_test]
fn pane_lists() {
    assert_eq!(
        parse_panes("regs,mem, neon ,mem:x0+16,bogus"),
        vec![
            PaneSpec::Registers(RegKind::Core),
            PaneSpec::Memory("sp".into()),
            PaneSpec::Registers(RegKind::Neon),
            PaneSpec::Memory("x0+16".into()),
        ]
    );
    assert_eq!(parse_panes(""), vec![]);
}
