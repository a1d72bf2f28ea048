//! The browser's panes rendered into a real DOM without the stylesheet: the
//! attributes tests and embedders rely on (`data-reg`, `data-addr`,
//! `data-line`/`data-time` on the current row) and the marks for unknown and
//! changed values.
use std::rc::Rc;

use tarmac_lens::model::keys::RegKind;
use tarmac_lens::panes::registers::{RegisterPane, RegisterPaneProps};
use tarmac_lens::web::components::{
    MemoryPane, MemoryPaneProps, TracePane, TracePaneProps, TraceRow, TraceRowProps,
};
use tarmac_lens_core::protocol::{Hl, MemoryReply, RegCell, RegPanel, Row, RowsReply, Span};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::Callback;

use crate::dom::{fresh_root, one, settle};

fn row(line: u64, text: &str, spans: Vec<Span>) -> Row {
    Row::Line {
        line,
        node: 7,
        first_of_node: true,
        text: text.into(),
        spans,
        branch_symbol: Some("main".into()),
        source: None,
        function: None,
        capability: None,
    }
}

#[wasm_bindgen_test]
async fn the_current_row_carries_its_line_and_time_and_highlighting() {
    let root = fresh_root();
    let text = "12 clk IT (12) 00008000 e3a00001 A svc_s : MOV r0,#1";
    yew::Renderer::<TraceRow>::with_root_and_props(
        root.clone(),
        TraceRowProps {
            row: row(
                40,
                text,
                vec![Span {
                    start: 0,
                    end: 2,
                    hl: Hl::Time,
                }],
            ),
            current_time: Some(12),
            marker_after: true,
            annotated: false,
            syntax: true,
            symbols: true,
            source_column: false,
            function_column: false,
            on_click: Callback::noop(),
            on_context: Callback::noop(),
            call: true,
            on_fold: Callback::noop(),
            search_match: None,
            diverged: false,
            on_bookmark: None,
            bookmarked: false,
        },
    )
    .render();
    settle().await;
    let el = one(&root, ".trace-row.current");
    assert_eq!(el.get_attribute("data-line").as_deref(), Some("40"));
    assert_eq!(el.get_attribute("data-time").as_deref(), Some("12"));
    assert_eq!(one(&root, "[data-hl=time]").text_content().unwrap(), "12");
    assert!(el.text_content().unwrap().contains(text));
    assert!(one(&root, "[data-testid=fold-toggle]").is_connected());
    assert!(one(&root, "[data-testid=branch-symbol]")
        .text_content()
        .unwrap()
        .contains("main"));
    // The marker is drawn inline so the rule shows without the stylesheet.
    assert!(el.get_attribute("style").unwrap().contains("border-bottom"));
}

#[wasm_bindgen_test]
async fn a_bookmarked_row_is_marked_and_a_gutter_click_gives_its_line_without_moving() {
    let root = fresh_root();
    let text = "12 clk IT (12) 00008000 e3a00001 A svc_s : MOV r0,#1";
    let bookmarked = Rc::new(std::cell::Cell::new(None));
    let clicked = Rc::new(std::cell::Cell::new(false));
    let (b, c) = (bookmarked.clone(), clicked.clone());
    yew::Renderer::<TraceRow>::with_root_and_props(
        root.clone(),
        TraceRowProps {
            row: row(40, text, vec![]),
            current_time: None,
            marker_after: false,
            annotated: false,
            syntax: false,
            symbols: false,
            source_column: false,
            function_column: false,
            on_click: Callback::from(move |_| c.set(true)),
            on_context: Callback::noop(),
            call: false,
            on_fold: Callback::noop(),
            search_match: None,
            diverged: false,
            on_bookmark: Some(Callback::from(move |line| b.set(Some(line)))),
            bookmarked: true,
        },
    )
    .render();
    settle().await;
    let row_el = one(&root, ".trace-row");
    assert_eq!(
        row_el.get_attribute("data-bookmarked").as_deref(),
        Some("true")
    );
    // The gutter adds no text: the row's text is the trace line.
    assert_eq!(row_el.text_content().unwrap(), text);
    let gutter: web_sys::HtmlElement = one(&root, "[data-testid=bookmark-gutter]")
        .dyn_into()
        .unwrap();
    assert!(gutter.class_name().contains("bookmarked"));
    gutter.click();
    settle().await;
    assert_eq!(bookmarked.get(), Some(40));
    assert!(!clicked.get(), "a gutter click is not a click on the row");
}

#[wasm_bindgen_test]
async fn other_rows_have_no_data_line_and_plain_text_without_syntax() {
    let root = fresh_root();
    yew::Renderer::<TraceRow>::with_root_and_props(
        root.clone(),
        TraceRowProps {
            row: row(
                41,
                "12 clk R r0 00000001",
                vec![Span {
                    start: 0,
                    end: 2,
                    hl: Hl::Time,
                }],
            ),
            current_time: None,
            marker_after: false,
            annotated: false,
            syntax: false,
            symbols: false,
            source_column: false,
            function_column: false,
            on_click: Callback::noop(),
            on_context: Callback::noop(),
            call: false,
            on_fold: Callback::noop(),
            search_match: None,
            diverged: false,
            on_bookmark: None,
            bookmarked: false,
        },
    )
    .render();
    settle().await;
    assert!(root.query_selector("[data-line]").unwrap().is_none());
    assert!(root.query_selector("[data-hl]").unwrap().is_none());
    assert!(root
        .query_selector("[data-testid=branch-symbol]")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn a_fold_row_names_the_callee() {
    let root = fresh_root();
    yew::Renderer::<TraceRow>::with_root_and_props(
        root.clone(),
        TraceRowProps {
            row: Row::Fold {
                call: 3,
                call_node: 10,
                entry_node: 11,
                lines: 1234,
                function: 0x8040,
                name: "partition".into(),
            },
            current_time: None,
            marker_after: false,
            annotated: false,
            syntax: true,
            symbols: true,
            source_column: false,
            function_column: false,
            on_click: Callback::noop(),
            on_context: Callback::noop(),
            call: false,
            on_fold: Callback::noop(),
            search_match: None,
            diverged: false,
            on_bookmark: None,
            bookmarked: false,
        },
    )
    .render();
    settle().await;
    let el = one(&root, "[data-testid=fold-row]");
    assert_eq!(
        el.get_attribute("data-function").as_deref(),
        Some("partition")
    );
    assert!(el.text_content().unwrap().contains("1,234 lines"));
}

#[wasm_bindgen_test]
async fn registers_show_values_unknown_bytes_and_changes() {
    let root = fresh_root();
    let cell = |name: &str, text: &str, known: bool, changed: bool| RegCell {
        name: name.into(),
        text: text.into(),
        known,
        changed,
        decoded: None,
    };
    let mut psr = cell("psr", "600003cd", true, false);
    psr.decoded = Some("nZCv".into());
    yew::Renderer::<RegisterPane>::with_root_and_props(
        root.clone(),
        RegisterPaneProps {
            kind: RegKind::Core,
            side: false,
            panel: Some(RegPanel {
                kind: "core".into(),
                title: "Core".into(),
                cells: vec![
                    cell("x0", "0000000000100000", true, true),
                    cell("x1", "????????0000ffff", false, false),
                    psr,
                ],
            }),
            selected: 1,
            note: Some("x1 = 0xffff".into()),
            on_pick: Callback::noop(),
            on_context: Callback::noop(),
        },
    )
    .render();
    settle().await;
    assert_eq!(
        one(&root, "[data-reg=x0]").text_content().unwrap(),
        "0000000000100000"
    );
    assert_eq!(
        one(&root, "[data-reg=x1]").text_content().unwrap(),
        "????????0000ffff"
    );
    assert_eq!(
        one(&root, "[data-decoded=psr]")
            .text_content()
            .unwrap()
            .trim(),
        "nZCv"
    );
    assert!(one(&root, ".reg.changed [data-reg=x0]").is_connected());
    assert!(one(&root, ".reg.unknown.selected [data-reg=x1]").is_connected());
    assert_eq!(
        one(&root, "[data-testid=pane-note]")
            .text_content()
            .unwrap(),
        "x1 = 0xffff"
    );
}

#[wasm_bindgen_test]
async fn a_register_kind_the_trace_lacks_says_so() {
    let root = fresh_root();
    yew::Renderer::<RegisterPane>::with_root_and_props(
        root.clone(),
        RegisterPaneProps {
            kind: RegKind::Mve,
            side: false,
            panel: None,
            selected: 0,
            note: None,
            on_pick: Callback::noop(),
            on_context: Callback::noop(),
        },
    )
    .render();
    settle().await;
    assert!(one(&root, "[data-testid=registers-empty]")
        .text_content()
        .unwrap()
        .contains("mve vectors"));
}

#[wasm_bindgen_test]
async fn memory_shows_hex_ascii_and_unknown_bytes() {
    let root = fresh_root();
    let mut bytes = vec![0u8; 32];
    bytes[..5].copy_from_slice(b"Hello");
    let mut known = vec![true; 32];
    known[20] = false;
    let mut changed = vec![false; 32];
    changed[1] = true;
    yew::Renderer::<MemoryPane>::with_root_and_props(
        root.clone(),
        MemoryPaneProps {
            memory: Some(MemoryReply {
                node: 3,
                addr: 0x1000,
                bytes,
                known,
                changed,
            }),
            selected: 0x1004,
            note: None,
            on_pick: Callback::noop(),
            on_context: Callback::noop(),
            on_scroll: Callback::noop(),
        },
    )
    .render();
    settle().await;
    assert_eq!(root.query_selector_all("[data-addr]").unwrap().length(), 32);
    assert_eq!(
        one(&root, "[data-addr='0x1000']").text_content().unwrap(),
        "48"
    );
    assert_eq!(
        one(&root, "[data-addr='0x1014']").text_content().unwrap(),
        "??"
    );
    assert!(one(&root, ".byte.unknown[data-addr='0x1014']").is_connected());
    assert!(one(&root, ".byte.changed[data-addr='0x1001']").is_connected());
    assert!(one(&root, ".byte.selected[data-addr='0x1004']").is_connected());
    assert!(one(&root, ".mem-ascii")
        .text_content()
        .unwrap()
        .contains("Hello"));
    assert_eq!(root.query_selector_all(".mem-row").unwrap().length(), 2);
}

fn pane_props(rows: &Rc<RowsReply>, top: u64) -> TracePaneProps {
    TracePaneProps {
        view: 0,
        focused: true,
        rows: Some(rows.clone()),
        total_rows: rows.total_rows,
        top,
        scroll_seq: top,
        cursor: None,
        annotated_line: None,
        syntax: true,
        symbols: false,
        source_column: false,
        function_column: false,
        on_viewport: Callback::noop(),
        on_resize: Callback::noop(),
        on_click: Callback::noop(),
        on_context: Callback::noop(),
        on_focus: Callback::noop(),
        call_nodes: Vec::new(),
        on_fold: Callback::noop(),
        search_match: None,
        diverged_lines: Rc::new(Vec::new()),
        bookmarked_lines: Rc::new(Vec::new()),
        on_bookmark: None,
    }
}

fn shown_rows(root: &web_sys::Element) -> Vec<web_sys::Element> {
    let list = root.query_selector_all("[data-row-line]").unwrap();
    (0..list.length())
        .map(|i| list.item(i).unwrap().dyn_into().unwrap())
        .collect()
}

/// A step keeps the elements of the rows still in view; a jump past them
/// updates the old row elements in place rather than making new ones.
#[wasm_bindgen_test]
async fn rows_keep_their_elements_across_steps_and_jumps() {
    let root = fresh_root();
    // A screenful of about ten rows (without a height the pane would grow
    // to show all 400, and a jump would stay in view).
    root.set_attribute("style", "height:180px").unwrap();
    let rows = Rc::new(RowsReply {
        first: 0,
        rows: (0..400u64)
            .map(|i| {
                let text = format!("{i} clk IT ({i}) 0000{i:04x} e3a00001 A svc_s : MOV r0,#1");
                row(
                    i + 1,
                    &text,
                    vec![Span {
                        start: 0,
                        end: 1,
                        hl: Hl::Time,
                    }],
                )
            })
            .collect(),
        total_rows: 400,
    });
    let mut app =
        yew::Renderer::<TracePane>::with_root_and_props(root.clone(), pane_props(&rows, 0))
            .render();
    settle().await;
    let at_start = shown_rows(&root);
    assert!(at_start.len() >= 2, "{} rows shown", at_start.len());

    app.update(pane_props(&rows, 200));
    // The pane's height comes from a ResizeObserver, whose callback a
    // loaded machine may run a task or two later.
    for _ in 0..50 {
        settle().await;
        let first = shown_rows(&root)
            .first()
            .and_then(|r| r.get_attribute("data-row-line"));
        if first.as_deref() == Some("201") {
            break;
        }
    }
    let jumped = shown_rows(&root);
    assert_eq!(
        jumped[0].get_attribute("data-row-line").as_deref(),
        Some("201")
    );
    let lines = |rows: &[web_sys::Element]| {
        rows.iter()
            .map(|r| r.get_attribute("data-row-line").unwrap_or_default())
            .collect::<Vec<_>>()
    };
    assert!(
        jumped[0].is_same_node(Some(&at_start[0])),
        "the jump made new row elements: {:?} then {:?}, first still in the page: {}",
        lines(&at_start),
        lines(&jumped),
        at_start[0].is_connected()
    );

    app.update(pane_props(&rows, 201));
    settle().await;
    let stepped = shown_rows(&root);
    assert_eq!(
        stepped[0].get_attribute("data-row-line").as_deref(),
        Some("202")
    );
    assert!(
        stepped[0].is_same_node(Some(&jumped[1])),
        "the row still in view was remade"
    );
    assert!(one(&root, "[data-row-line='202'] [data-hl=time]")
        .text_content()
        .is_some());
}
