//! The page's components rendered into a real DOM (no stylesheet, as in
//! any page that embeds them without www/).
use std::collections::BTreeMap;

use tarmac_lens::web::components::{
    App, CountsTable, CountsTableProps, FileSummary, FileSummaryProps, ProgressBar,
    ProgressBarProps, UnparsedList, UnparsedListProps,
};
use tarmac_lens::web::page::format;
use tarmac_lens_core::{UnparsedLine, ValueNote};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

use crate::dom::{fresh_root, one, settle};

fn text(root: &Element, selector: &str) -> String {
    one(root, selector).text_content().unwrap_or_default()
}

fn attr(root: &Element, selector: &str, name: &str) -> Option<String> {
    root.query_selector(selector).unwrap()?.get_attribute(name)
}

#[wasm_bindgen_test]
async fn counts_table_shows_every_kind_with_its_count() {
    let root = fresh_root();
    let records: BTreeMap<String, u64> = [
        ("instruction", 36u64),
        ("register", 77),
        ("memory", 39),
        ("some_future_kind", 5),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    yew::Renderer::<CountsTable>::with_root_and_props(
        root.clone(),
        CountsTableProps {
            records: records.clone(),
        },
    )
    .render();
    settle().await;

    let cells = root.query_selector_all("[data-kind]").unwrap();
    assert_eq!(cells.length() as usize, records.len());
    let mut shown = BTreeMap::new();
    for i in 0..cells.length() {
        let cell: Element = cells.item(i).unwrap().dyn_into().unwrap();
        shown.insert(
            cell.get_attribute("data-kind").unwrap(),
            cell.text_content().unwrap().parse::<u64>().unwrap(),
        );
    }
    assert_eq!(shown, records);
    // Parser order first, unknown kinds last, so nothing is dropped.
    let first: Element = cells.item(0).unwrap().dyn_into().unwrap();
    assert_eq!(first.get_attribute("data-kind").unwrap(), "instruction");
    let last: Element = cells.item(3).unwrap().dyn_into().unwrap();
    assert_eq!(last.get_attribute("data-kind").unwrap(), "some_future_kind");
    assert_eq!(text(&root, "[data-testid=record-total]"), "157");
}

#[wasm_bindgen_test]
async fn unparsed_list_shows_line_reason_and_text() {
    let root = fresh_root();
    let lines = vec![
        UnparsedLine {
            line: 7,
            column: 3,
            reason: "expected a register name".into(),
            text: "12 clk R X99 00".into(),
        },
        UnparsedLine {
            line: 19,
            column: 0,
            reason: "unknown record".into(),
            text: "garbage".into(),
        },
    ];
    yew::Renderer::<UnparsedList>::with_root_and_props(
        root.clone(),
        UnparsedListProps {
            total: 250,
            lines,
            empty: false,
            by_word: BTreeMap::from([("XYZ".into(), 12), ("".into(), 1), ("BNR4".into(), 237)]),
            short_registers: Default::default(),
            unknown_registers: Default::default(),
        },
    )
    .render();
    settle().await;

    let items = root.query_selector_all("li[data-line]").unwrap();
    assert_eq!(items.length(), 2);
    let first = text(&root, "li[data-line='7']");
    assert!(first.contains("expected a register name"), "{first}");
    assert!(first.contains("12 clk R X99 00"), "{first}");
    assert!(first.contains("column 4"), "{first}");
    assert!(text(&root, "h2").contains("250"));
    assert!(text(&root, "h2").contains("first 2"));
    // By type, the most first (as `tarmac-lens stats` lists them).
    let words = root
        .query_selector_all("[data-testid=unparsed-words] li")
        .unwrap();
    let words: Vec<String> = (0..words.length())
        .map(|i| words.item(i).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(
        words,
        [
            "237 lines of type “BNR4” unread",
            "12 lines of type “XYZ” unread",
            "1 line of other types unread"
        ]
    );
}

#[wasm_bindgen_test]
async fn unparsed_list_says_so_when_everything_parsed() {
    let root = fresh_root();
    yew::Renderer::<UnparsedList>::with_root_and_props(
        root.clone(),
        UnparsedListProps {
            total: 0,
            lines: vec![],
            empty: false,
            by_word: BTreeMap::new(),
            short_registers: Default::default(),
            unknown_registers: Default::default(),
        },
    )
    .render();
    settle().await;
    assert!(root.query_selector("li").unwrap().is_none());
    assert!(text(&root, "[data-testid=unparsed-none]").contains("Every line was understood"));
}

/// Register values short or unknown are said even when every line parsed,
/// counted with their first line, as `stats` says them.
#[wasm_bindgen_test]
async fn unparsed_list_names_short_and_unknown_register_values() {
    let root = fresh_root();
    yew::Renderer::<UnparsedList>::with_root_and_props(
        root.clone(),
        UnparsedListProps {
            total: 0,
            lines: vec![],
            empty: false,
            by_word: BTreeMap::new(),
            short_registers: ValueNote {
                count: 2,
                first_line: 2,
            },
            unknown_registers: ValueNote {
                count: 1,
                first_line: 4,
            },
        },
    )
    .render();
    settle().await;
    assert!(text(&root, "[data-testid=unparsed-none]").contains("Every line was understood"));
    assert_eq!(
        text(&root, "[data-note=short-registers]"),
        "2 register values shorter than the register (zero-extended, or unchanged after dashes), first at line 2"
    );
    assert_eq!(
        text(&root, "[data-note=unknown-registers]"),
        "1 register value unknown (all dashes: nothing set), first at line 4"
    );
}

/// An empty file is not a file whose every line was understood.
#[wasm_bindgen_test]
async fn unparsed_list_says_an_empty_file_is_empty() {
    let root = fresh_root();
    yew::Renderer::<UnparsedList>::with_root_and_props(
        root.clone(),
        UnparsedListProps {
            total: 0,
            lines: vec![],
            empty: true,
            by_word: BTreeMap::new(),
            short_registers: Default::default(),
            unknown_registers: Default::default(),
        },
    )
    .render();
    settle().await;
    assert_eq!(
        text(&root, "[data-testid=unparsed-none]"),
        "This file is empty."
    );
}

#[wasm_bindgen_test]
async fn file_summary_has_exact_size_and_lines() {
    let root = fresh_root();
    yew::Renderer::<FileSummary>::with_root_and_props(
        root.clone(),
        FileSummaryProps {
            name: "big.tarmac".into(),
            bytes: 5_000_000_000,
            lines: Some(123_456_789),
            dialect: Some("tarmac".into()),
        },
    )
    .render();
    settle().await;
    assert_eq!(text(&root, "[data-testid=file-name]"), "big.tarmac");
    assert_eq!(
        attr(&root, "[data-testid=file-size]", "data-bytes").as_deref(),
        Some("5000000000")
    );
    assert!(text(&root, "[data-testid=file-size]").contains("4.7 GiB"));
    // Shown as the page's language writes numbers, exact in the attribute.
    assert_eq!(text(&root, "[data-testid=line-count]"), "123,456,789");
    assert_eq!(
        attr(&root, "[data-testid=line-count]", "data-lines").as_deref(),
        Some("123456789")
    );
}

#[wasm_bindgen_test]
async fn progress_bar_shows_percent_and_rate() {
    let root = fresh_root();
    yew::Renderer::<ProgressBar>::with_root_and_props(
        root.clone(),
        ProgressBarProps {
            done: 50_000_000,
            total: 200_000_000,
            elapsed_ms: 500.0,
        },
    )
    .render();
    settle().await;
    assert_eq!(
        attr(&root, "[data-testid=progress]", "data-percent").as_deref(),
        Some("25")
    );
    assert!(text(&root, "[data-testid=progress-percent]").contains("25%"));
    assert_eq!(text(&root, "[data-testid=progress-rate]"), "100.0 MB/s");
}

#[wasm_bindgen_test]
async fn app_starts_idle_with_a_drop_zone_and_file_input() {
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    settle().await;
    // `idle` at once; the hidden rehearsal (here without a worker to answer
    // it: it ends at once) then says `data-warm`.
    let mut states = Vec::new();
    for _ in 0..100 {
        let state = attr(&root, "[data-testid=status]", "data-state");
        if states.last() != Some(&state) {
            states.push(state.clone());
        }
        if attr(&root, "[data-testid=status]", "data-warm").as_deref() == Some("yes") {
            break;
        }
        settle().await;
    }
    assert_eq!(states, vec![Some("idle".to_string())], "states seen");
    assert_eq!(
        attr(&root, "[data-testid=status]", "data-warm").as_deref(),
        Some("yes")
    );
    // Nothing of the rehearsal is left for a test or a person to find.
    for selector in [
        "[data-reg]",
        "[data-row-line]",
        "[data-addr]",
        "[aria-hidden=true]",
    ] {
        assert!(
            root.query_selector(selector).unwrap().is_none(),
            "{selector} left after the rehearsal"
        );
    }
    assert_eq!(attr(&root, "[data-testid=status]", "data-lines"), None);
    assert!(root
        .query_selector("[data-testid=drop-zone]")
        .unwrap()
        .is_some());
    assert_eq!(
        attr(&root, "input[data-testid=file-input]", "type").as_deref(),
        Some("file")
    );
}

#[wasm_bindgen_test]
fn numbers_are_formatted_for_people() {
    assert_eq!(format::thousands(0), "0");
    assert_eq!(format::thousands(1_234_567), "1,234,567");
    assert_eq!(format::bytes(1023), "1023 B");
    assert_eq!(format::bytes(18_359), "17.9 KiB");
    assert_eq!(format::percent(0, 0), 100);
    assert_eq!(format::percent(999, 1000), 99);
    assert_eq!(format::percent(1000, 1000), 100);
    assert_eq!(format::rate(1_000_000, 0.0), "– MB/s");
}

#[wasm_bindgen_test]
fn a_panic_is_shown_on_the_page() {
    use tarmac_lens::web::page::panic_overlay::{show_panic, PANIC_ELEMENT_ID};
    show_panic("index out of bounds at src/somewhere.rs:1:1");
    let document = web_sys::window().unwrap().document().unwrap();
    let overlay = document
        .get_element_by_id(PANIC_ELEMENT_ID)
        .expect("panic overlay");
    assert_eq!(overlay.get_attribute("role").as_deref(), Some("alert"));
    let shown = overlay.text_content().unwrap();
    assert!(
        shown.contains("index out of bounds at src/somewhere.rs:1:1"),
        "{shown}"
    );
    // A second panic reuses the overlay instead of stacking new ones.
    show_panic("second");
    assert_eq!(
        document
            .query_selector_all("[data-testid=panic]")
            .unwrap()
            .length(),
        1
    );
    overlay.remove();
}
