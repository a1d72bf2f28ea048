//! Every text the page translates has a French translation: the English
//! texts are read from the `t("…")`, `tf("…", …)` and `tn(n, "…", "…", …)`
//! calls of the web shell's and the browser model's source, the catalogue
//! from `src/i18n.rs`.
//! The key tables' help texts and register pane titles are checked here
//! natively, and in `tests/wasm_i18n.rs` as the page shows them.
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
            // `t(match kind { … => "text", … })`, `t(if a { "x" } else { "y" })`:
            // every literal inside the call is a text.
            if call == "t(" && (args.starts_with("match ") || args.starts_with("if ")) {
                out.extend(literals_in_call(args));
                continue;
            }
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

/// The string literals of a call's arguments: `args` up to the `)` that
/// closes the call.
fn literals_in_call(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut rest = args;
    while let Some(c) = rest.chars().next() {
        match c {
            '"' => match literal(rest) {
                Some((text, after)) => {
                    out.push(text);
                    rest = after;
                    continue;
                }
                None => break,
            },
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' if depth == 0 => break,
            ')' | '}' | ']' => depth -= 1,
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
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
        let f = t(match k { K::A => "Three", K::B => "Four" });
        let g = t(if forward { "Five" } else { "Six" }).to_string();
    "#;
    assert_eq!(
        texts(source),
        ["One", "Three", "Four", "Five", "Six", "Two {}", "{} call", "{} calls"]
    );
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

#[test]
fn every_key_name_and_record_kind_the_page_shows_is_in_the_french_catalogue() {
    use tarmac_lens::i18n::{is_key_name, key_label, record_kind_text, set_current, Lang};
    use tarmac_lens::model::keys::{tables, PaneKind};
    use tarmac_lens_core::RecordKind;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let keys = french_keys(&std::fs::read_to_string(root.join("src/i18n.rs")).unwrap());
    let mut missing = BTreeSet::new();
    // The help's and the palette's key names ("Down", "Shift-Tab").
    for pane in [
        PaneKind::Trace,
        PaneKind::Registers,
        PaneKind::Memory,
        PaneKind::Source,
    ] {
        for binding in tables(pane).into_iter().flatten() {
            for part in binding.label.split('-').filter(|p| is_key_name(p)) {
                if !keys.contains(part) {
                    missing.insert(format!("key {part:?} of {:?}", binding.label));
                }
            }
        }
    }
    // The Summary's record kinds.
    for name in RecordKind::NAMES {
        if !keys.contains(record_kind_text(name)) {
            missing.insert(format!("record kind {name:?}"));
        }
    }
    assert!(missing.is_empty(), "no French for: {missing:#?}");
    // As the help shows them.
    set_current(Lang::Fr);
    assert_eq!(key_label("Shift-Tab"), "Maj-Tab");
    assert_eq!(key_label("Ctrl-Shift-Down"), "Ctrl-Maj-Bas");
    assert_eq!(key_label("-"), "-");
    assert_eq!(key_label("F6"), "F6");
    assert_eq!(key_label("Ctrl-K"), "Ctrl-K");
    set_current(Lang::En);
    assert_eq!(key_label("Shift-Tab"), "Shift-Tab");
}

/// The components of `source` that would keep the language they were first
/// drawn in: a function component that does not call `use_lang()`, a
/// struct component that keeps no `LangWatch` (nor has the language as a
/// prop). Yew draws a child again only when its props change, and the
/// language is not a prop: such a component's texts stayed French after a
/// switch back to English.
fn deaf_components(source: &str) -> Vec<String> {
    // The component's name and its body: up to the first line that closes
    // an item at the file's top level.
    let body = |from: usize| -> &str {
        let rest = &source[from..];
        &rest[..rest.find("\n}\n").map_or(rest.len(), |e| e + 3)]
    };
    let name = |after: &str| -> String {
        after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut deaf = Vec::new();
    for (at, _) in source.match_indices("#[function_component(") {
        let b = body(at);
        // The page itself holds the language and provides it.
        if !b.contains("use_lang()") && !b.contains("ContextProvider<Lang>") {
            deaf.push(name(&source[at + "#[function_component(".len()..]));
        }
    }
    for (at, _) in source.match_indices("impl Component for ") {
        if !body(at).contains("LangWatch::new(") && !source.contains("pub lang: Lang,") {
            deaf.push(name(&source[at + "impl Component for ".len()..]));
        }
    }
    deaf
}

#[test]
fn every_component_with_texts_is_drawn_again_when_the_language_changes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src/web/components"), &mut files);
    let mut deaf = Vec::new();
    let mut checked = 0;
    for (file, source) in &files {
        // A file that says nothing in the page's language.
        if !source.contains("i18n::") {
            continue;
        }
        checked += source.matches("#[function_component(").count()
            + source.matches("impl Component for ").count();
        deaf.extend(
            deaf_components(source)
                .into_iter()
                .map(|c| format!("{file}: {c}")),
        );
    }
    assert!(
        checked > 30,
        "only {checked} components found: is the scan right?"
    );
    assert!(
        deaf.is_empty(),
        "drawn once in the language of the moment (call use_lang() or keep a LangWatch):\n{}",
        deaf.join("\n")
    );
}

#[test]
fn the_component_scan_finds_a_component_that_does_not_follow_the_language() {
    let source = r#"
#[function_component(Fine)]
pub fn fine() -> Html {
    use_lang();
    html! { { t("Yes") } }
}

#[function_component(Deaf)]
pub fn deaf() -> Html {
    html! { { t("No") } }
}

impl Component for Listens {
    fn create(ctx: &Context<Self>) -> Self {
        Listens { _lang: LangWatch::new(ctx, || Msg::Lang) }
    }
}

impl Component for Stuck {
    fn create(_ctx: &Context<Self>) -> Self {
        Stuck
    }
}
"#;
    assert_eq!(deaf_components(source), ["Deaf", "Stuck"]);
}
