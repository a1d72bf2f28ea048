//! Pure parts of opening URLs, embedding and the index cache: which origins
//! a page's Content-Security-Policy lets it read, the embedded viewer's pane
//! list, which cached indexes are evicted.
use tarmac_lens::model::keys::RegKind;
use tarmac_lens::web::page::page_params::{parse_panes, PaneSpec};
use tarmac_lens::web::shared::csp::policy_allows;
use wasm_bindgen_test::*;

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

#[wasm_bindgen_test]
fn the_index_cache_evicts_the_oldest() {
    use tarmac_lens::web::reading::index_cache::{to_evict, Entry};
    let e = |name: &str, bytes, saved_ms| Entry {
        name: name.into(),
        bytes,
        saved_ms,
    };
    let entries = [
        e("a", 400, 1.0),
        e("b", 300, 3.0),
        e("c", 500, 2.0),
        e("d", 100, 4.0),
    ];
    // Newest first: d (100), b (400 so far), c would make 900 > 800: out, a fits.
    assert_eq!(to_evict(&entries, 800, 10), vec!["c".to_string()]);
    assert_eq!(
        to_evict(&entries, 10_000, 2),
        vec!["c".to_string(), "a".to_string()]
    );
    // The newest stays even alone over the limit.
    assert_eq!(to_evict(&entries[..1], 10, 10), Vec::<String>::new());
    assert_eq!(to_evict(&[], 10, 10), Vec::<String>::new());
}
