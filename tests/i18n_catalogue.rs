//! Every text the page translates has a French translation: the English
//! texts are read from the `t("…")`, `tf("…", …)` and `tn(n, "…", "…", …)`
//! calls of the web shell's and the browser model's source, the catalogue
//! from `src/i18n.rs`.
//! The key tables' help texts and register pane titles are checked here
//! natively, and in `tests/wasm_i18n.rs` as the page shows them.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::Path;

/// The Rust string literal starting at `s[0] == '"'`: its text (escapes
/// `\"` and `\\` undone) and the rest after it.
fn literal(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.strip_prefix('"')?.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 2..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The English texts of the translation calls in `source`.
fn texts(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (call, skip_first_arg) in [("t(", false), ("tf(", false), ("tn(", true)] {
        let mut rest = source;
        while let Some(at) = rest.find(call) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + call.len()..];
            // A call, not the end of another name (`format(`, `getopt(`).
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let mut args = rest.trim_start();
            if skip_first_arg {
                match args.find(',') {
                    Some(comma) if !args[..comma].contains('"') => {
                        args = args[comma + 1..].trim_start()
                    }
                    _ => continue,
                }
            }
            let Some((first, after)) = literal(args) else {
                continue;
            };
            out.push(first);
            if skip_first_arg {
                if let Some((second, _)) = after
                    .trim_start()
                    .strip_prefix(',')
                    .and_then(|a| literal(a.trim_start()))
                {
                    out.push(second);
                }
            }
        }
    }
    out
}

/// The French catalogue's English keys.
fn french_keys(i18n: &str) -> BTreeSet<String> {
    let start = i18n.find("static FR:").expect("the French catalogue");
    let mut keys = BTreeSet::new();
    let mut rest = &i18n[start..];
    // An entry is `("english", "french")`, or, when rustfmt breaks a long
    // one, `(` and the English on the next line.
    while let Some(at) = rest.find('(') {
        rest = rest[at + 1..].trim_start();
        if !rest.starts_with('"') {
            continue;
        }
        if let Some((key, after)) = literal(rest) {
            keys.insert(key);
            rest = after;
        }
    }
    keys
}

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

#[test]
fn every_translated_text_is_in_the_french_catalogue() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let keys = french_keys(&std::fs::read_to_string(root.join("src/i18n.rs")).unwrap());
    assert!(keys.len() > 300, "{} French texts", keys.len());
    let mut files = Vec::new();
    sources(&root.join("src/web"), &mut files);
    sources(&root.join("src/model"), &mut files);
    let mut missing = BTreeSet::new();
    let mut seen = 0;
    for (file, source) in &files {
        // The catalogue's own file holds `t(english)` as a definition.
        if file.ends_with("i18n.rs") {
            continue;
        }
        for text in texts(source) {
            seen += 1;
            if !keys.contains(&text) {
                missing.insert(format!("{file}: {text:?}"));
            }
        }
    }
    assert!(
        seen > 300,
        "only {seen} translated texts found: is the scan right?"
    );
    assert!(
        missing.is_empty(),
        "no French for:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_scan_finds_each_kind_of_call() {
    let source = r#"
        let a = t("One");
        let b = tf(
            "Two {}",
            &[&x],
        );
        let c = tn(n as u64, "{} call", "{} calls", &[&number(n)]);
        let d = format("Not this");
        let e = x.t("Nor this");
    "#;
    assert_eq!(texts(source), ["One", "Two {}", "{} call", "{} calls"]);
    assert_eq!(
        literal(r#""say \"hi\"" rest"#),
        Some(("say \"hi\"".to_string(), " rest"))
    );
}

#[test]
fn every_key_help_text_is_in_the_french_catalogue() {
    use tarmac_lens::model::keys::{tables, PaneKind, RegKind};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let keys = french_keys(&std::fs::read_to_string(root.join("src/i18n.rs")).unwrap());
    let mut missing = BTreeSet::new();
    for pane in [PaneKind::Trace, PaneKind::Registers, PaneKind::Memory] {
        for binding in tables(pane).into_iter().flatten() {
            if !keys.contains(binding.help) {
                missing.insert(binding.help.to_string());
            }
        }
    }
    for kind in RegKind::ALL {
        if !keys.contains(kind.title()) {
            missing.insert(kind.title().to_string());
        }
    }
    assert!(missing.is_empty(), "no French for: {missing:#?}");
}
