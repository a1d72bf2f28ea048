//! The pane registry (`model::registry`), walked: every kind of pane has
//! its keys' help, palette entries, a line in `docs/keys.md`, a French
//! title, and opens and closes from its keys through the model.

use super::Page;
use tarmac_lens::i18n::Lang;
use tarmac_lens::model::keys::{self, PaneKind};
use tarmac_lens::model::palette;
use tarmac_lens::model::registry::{Close, Slot, PANES};
use tarmac_lens::model::{Config, Focus, Msg, PaneMsg};

/// The first cell of each row of `docs/keys.md`'s tables.
fn documented_keys() -> Vec<String> {
    let text = std::fs::read_to_string(super::data("../../docs/keys.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix('|'))
        .filter_map(|l| l.split('|').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_pane_kind_has_help_a_palette_entry_docs_and_a_french_title() {
    let docs = documented_keys();
    let palette = palette::commands(PaneKind::Trace);
    let french = Lang::Fr.catalogue();
    for e in PANES {
        assert!(
            french.iter().any(|(en, _)| *en == e.title),
            "{}: no French title for {:?}",
            e.name,
            e.title
        );
        assert!(!e.keys.is_empty(), "{}: no key", e.name);
        for key in e.keys {
            let binding = keys::tables(PaneKind::Trace)
                .into_iter()
                .flat_map(|t| t.iter())
                .find(|b| b.keys.contains(key))
                .unwrap_or_else(|| panic!("{}: `{key}` is bound to nothing", e.name));
            assert!(!binding.help.is_empty(), "{}: `{key}` has no help", e.name);
            assert!(
                palette.iter().any(|(_, c)| *c == binding.command),
                "{}: `{key}` is not in the palette",
                e.name
            );
            assert!(
                docs.iter().any(|cell| cell.contains(&format!("`{key}`"))),
                "{}: `{key}` has no line in docs/keys.md",
                e.name
            );
        }
    }
}

#[test]
fn every_pane_kind_opens_and_closes_from_its_keys() {
    let trace = std::fs::read(super::data(
        "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
    ))
    .unwrap();
    for slot in Slot::ALL {
        let e = slot.entry();
        for key in e.keys {
            let mut page = Page::open(&trace, Config::default());
            let count = |page: &Page| {
                page.model
                    .panes
                    .iter()
                    .filter(|p| p.body.slot() == slot)
                    .count()
            };
            let ids = |page: &Page| -> Vec<u32> { page.model.panes.iter().map(|p| p.id).collect() };
            let before = count(&page);
            let ids_before = ids(&page);
            match e.prompt {
                Some(text) => page.prompt(key, text),
                None => page.key(key),
            }
            let opened = count(&page);
            if opened < before {
                // A pane shown at first (the core registers, the call
                // stack): its key hid it; it opens again the same way.
                assert_eq!(e.close, Close::Same, "{}: `{key}`", e.name);
                page.key(key);
                assert_eq!(count(&page), before, "{}: `{key}` again", e.name);
                continue;
            }
            assert_eq!(opened, before + 1, "{}: `{key}` opens one", e.name);
            let new = *ids(&page)
                .iter()
                .find(|id| !ids_before.contains(id))
                .expect("a new pane");
            match e.close {
                Close::Same => page.key(key),
                Close::Key(k) => {
                    page.send(Msg::Focus(Focus::Pane(new)));
                    page.key(k);
                }
                Close::Button => page.send(Msg::Pane(new, PaneMsg::Close)),
            }
            assert_eq!(count(&page), before, "{}: `{key}` closes", e.name);
        }
    }
}

/// A kind in a folder of its own is named by no Rust file of the app
/// outside `src/panes/` (its key, title and state come from its line):
/// adding one touches `panes/mod.rs`'s list, its core question, `i18n`
/// and `docs/keys.md`, nothing in `src/model/` or `src/web/`.
#[test]
fn no_file_outside_src_panes_names_a_folder_pane_kind() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| !f.starts_with(src.join("panes")));
    assert!(
        files.len() > 50,
        "the app's files are found ({})",
        files.len()
    );
    for entry in tarmac_lens::panes::ENTRIES {
        let module = format!("panes::{}", entry.name);
        let named = format!("name: \"{}\"", entry.name);
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(
                !text.contains(&module) && !text.contains(&named),
                "{} names the {} pane: give what it needs through its registry line",
                file.display(),
                entry.name
            );
        }
    }
}

/// A new page shows the kinds whose line says so (`Entry::at_start`)
/// besides the core registers; the compact embedded viewer none of them.
#[test]
fn a_new_page_shows_the_kinds_its_registry_lines_name() {
    let trace = std::fs::read(super::data(
        "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
    ))
    .unwrap();
    let at_start: Vec<Slot> = Slot::ALL
        .into_iter()
        .filter(|s| s.entry().at_start)
        .collect();
    assert!(!at_start.is_empty(), "the call stack is shown at first");
    let page = Page::open(&trace, Config::default());
    for slot in Slot::ALL {
        let expected = at_start.contains(&slot) || slot == Slot::REGISTERS;
        assert_eq!(page.model.shown(slot), expected, "{slot:?}");
    }
    let compact = Page::open(
        &trace,
        Config {
            compact: true,
            ..Config::default()
        },
    );
    for slot in at_start {
        assert!(!compact.model.shown(slot), "{slot:?} in the compact viewer");
    }
}
