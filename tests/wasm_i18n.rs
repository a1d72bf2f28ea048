//! The translation layer: catalogues, fallback, arguments, language tags.
use tarmac_lens::model::keys::{tables, PaneKind, RegKind};
use tarmac_lens::web::page::i18n::{fill, lookup, Lang};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn translations_keep_every_placeholder() {
    for lang in Lang::ALL {
        for (en, text) in lang.catalogue() {
            assert_eq!(
                en.matches("{}").count(),
                text.matches("{}").count(),
                "{en:?}"
            );
        }
    }
}

#[wasm_bindgen_test]
fn catalogue_keys_are_unique() {
    let mut keys: Vec<_> = Lang::Fr.catalogue().iter().map(|(en, _)| en).collect();
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n);
    assert!(n > 50, "{n} French strings");
}

#[wasm_bindgen_test]
fn lookup_falls_back_to_english() {
    assert_eq!(lookup(Lang::Fr, "Browse"), "Parcourir");
    assert_eq!(lookup(Lang::En, "Browse"), "Browse");
    assert_eq!(
        lookup(Lang::Fr, "not in any catalogue"),
        "not in any catalogue"
    );
}

#[wasm_bindgen_test]
fn arguments_fill_in_order() {
    assert_eq!(
        fill("{} ({} bytes)", &[&"1 KiB", &1024]),
        "1 KiB (1024 bytes)"
    );
    assert_eq!(fill("{} left over {}", &[&1]), "1 left over {}");
}

#[wasm_bindgen_test]
fn tags_name_languages() {
    assert_eq!(Lang::from_tag("fr-FR"), Some(Lang::Fr));
    assert_eq!(Lang::from_tag("en_GB"), Some(Lang::En));
    assert_eq!(Lang::from_tag("de"), None);
    assert_eq!(Lang::from_tag(""), None);
}

#[wasm_bindgen_test]
fn every_key_help_is_in_french() {
    for pane in [PaneKind::Trace, PaneKind::Registers, PaneKind::Memory] {
        for b in tables(pane).into_iter().flat_map(|t| t.iter()) {
            assert_ne!(
                lookup(Lang::Fr, b.help),
                b.help,
                "no French for {:?}",
                b.help
            );
        }
    }
    for kind in RegKind::ALL {
        assert_ne!(lookup(Lang::Fr, kind.title()), kind.title());
    }
}

/// Numbers as the browser's `Intl` writes them in the page's language, and
/// the plural form each language's rule picks (French: 0 and 1 singular).
#[wasm_bindgen_test]
fn numbers_and_plurals_follow_the_language() {
    use tarmac_lens::web::page::format;
    use tarmac_lens::web::page::i18n::{self, is_singular, number, tn};
    i18n::set(Lang::Fr);
    assert_eq!(number(1_669_432), "1\u{202f}669\u{202f}432");
    assert_eq!(
        number(u64::MAX),
        "18\u{202f}446\u{202f}744\u{202f}073\u{202f}709\u{202f}551\u{202f}615"
    );
    let calls = |n: u64| tn(n, "{} call", "{} calls", &[&number(n)]);
    assert_eq!(calls(0), "0 appel");
    assert_eq!(calls(1), "1 appel");
    assert_eq!(calls(2), "2 appels");
    assert_eq!(calls(1_000), "1\u{202f}000 appels");
    assert_eq!(format::bytes(1_669_432), "1,6 Mio");
    assert_eq!(format::bytes(512), "512 o");
    i18n::set(Lang::En);
    assert_eq!(number(1_669_432), "1,669,432");
    assert_eq!(calls(0), "0 calls");
    assert_eq!(calls(1), "1 call");
    assert_eq!(calls(2), "2 calls");
    assert_eq!(format::bytes(1_669_432), "1.6 MiB");
    assert!(is_singular(Lang::Fr, 0) && !is_singular(Lang::En, 0));
}

/// The page writes numbers itself, exactly as the browser's
/// `Intl.NumberFormat` writes them in each language.
#[wasm_bindgen_test]
fn numbers_match_the_browser_s_intl() {
    use tarmac_lens::web::page::i18n::{self, number};
    let mut values = vec![0, 1, 9, 10, 999, 1_000, 9_999, 10_000, 65_536, 1_669_432];
    values.extend((0..64).map(|b| 1u64 << b));
    values.extend((1..20).map(|d| 10u64.pow(d) - 1));
    values.push(u64::MAX);
    for lang in Lang::ALL {
        i18n::set(lang);
        let locales = js_sys::Array::of1(&lang.code().into());
        let intl = js_sys::Intl::NumberFormat::new(&locales, &js_sys::Object::new()).format();
        for &n in &values {
            // A decimal string keeps every digit of a u64.
            let theirs = intl.call1(&JsValue::NULL, &n.to_string().into()).unwrap();
            assert_eq!(number(n), theirs.as_string().unwrap(), "{n} in {lang:?}");
        }
    }
    i18n::set(Lang::En);
}

/// Percentages too: `76.4%`, `76,4 %` (a no-break space), as
/// `Intl.NumberFormat`'s percent style with one decimal writes them.
#[wasm_bindgen_test]
fn percentages_match_the_browser_s_intl() {
    use tarmac_lens::web::page::i18n::{self, percent};
    for lang in Lang::ALL {
        i18n::set(lang);
        let locales = js_sys::Array::of1(&lang.code().into());
        let options = js_sys::Object::new();
        for (key, value) in [
            ("style", JsValue::from("percent")),
            ("minimumFractionDigits", 1.into()),
            ("maximumFractionDigits", 1.into()),
            ("useGrouping", false.into()),
        ] {
            js_sys::Reflect::set(&options, &key.into(), &value).unwrap();
        }
        let intl = js_sys::Intl::NumberFormat::new(&locales, &options).format();
        for x in [0.0, 0.2, 9.9, 15.0, 76.4, 99.9, 100.0] {
            let theirs = intl.call1(&JsValue::NULL, &(x / 100.0).into()).unwrap();
            assert_eq!(
                percent(x, 1),
                theirs.as_string().unwrap(),
                "{x} in {lang:?}"
            );
        }
    }
    i18n::set(Lang::En);
}
