//! The trace browser's arithmetic and parsing: scroll mapping for huge
//! traces, URL fragments, key tables, prompt editing, marker placement.
use tarmac_lens::model::hash::{self, HashTarget};
use tarmac_lens::model::keys::{self, Command, PaneKind, RegKind};
use tarmac_lens::model::view_state::{Recentre, Scroll, MAX_SCROLL_PX, ROW_PX};
use tarmac_lens::web::components::{delete_word, marker_index, parse_offset, recall};
use tarmac_lens_core::protocol::{FoldOp, Row};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn small_traces_scroll_one_pixel_per_pixel() {
    let s = Scroll::new(1000, 180.0);
    assert!(!s.scaled());
    assert_eq!(s.visible_rows(), 10);
    assert_eq!(s.row_at(0.0), 0);
    assert_eq!(s.row_at(ROW_PX * 37.0 + 5.0), 37);
    assert_eq!(s.scroll_top_for(37), 37.0 * ROW_PX);
    assert_eq!(s.row_at(1e9), 990);
}

#[wasm_bindgen_test]
fn huge_traces_map_the_capped_scrollbar_onto_every_row() {
    let s = Scroll::new(200_000_000, 900.0);
    assert!(s.scaled());
    assert_eq!(s.content_px(), MAX_SCROLL_PX);
    assert_eq!(s.row_at(0.0), 0);
    assert_eq!(s.row_at(MAX_SCROLL_PX), s.max_top());
    // One scroll pixel is ~25 rows here: a round trip lands within one pixel.
    for row in [0, 1, 12345, 99_999_999, s.max_top()] {
        let back = s.row_at(s.scroll_top_for(row));
        assert!(back.abs_diff(row) <= 25, "{row} -> {back}");
    }
}

#[wasm_bindgen_test]
fn the_last_top_row_leaves_no_gap_above_the_rows() {
    // 28.9 rows fit: at the browser's furthest scroll the top row is 971.1.
    let s = Scroll::new(1000, 520.0);
    assert_eq!(s.max_top(), 971);
    assert!(s.scroll_top_for(s.max_top()) <= 1000.0 * ROW_PX - 520.0);
}

#[wasm_bindgen_test]
fn keeping_rows_in_view_moves_as_little_as_possible() {
    let s = Scroll::new(1000, 180.0);
    assert_eq!(s.top_showing(100, 105, 106), 100);
    assert_eq!(s.top_showing(100, 112, 113), 104);
    assert_eq!(s.top_showing(100, 90, 91), 90);
}

#[wasm_bindgen_test]
fn recentre_cycles_middle_top_bottom() {
    let r = Recentre::default();
    assert_eq!(r.top_for(100, 102, 20), 90);
    assert_eq!(r.next().top_for(100, 102, 20), 100);
    assert_eq!(r.next().next().top_for(100, 102, 20), 83);
    assert_eq!(r.next().next().next(), Recentre::Middle);
}

#[wasm_bindgen_test]
fn fragments_name_lines_times_and_pcs() {
    assert_eq!(hash::parse("#line=42"), Some(HashTarget::Line(42)));
    assert_eq!(hash::parse("t=0x10"), Some(HashTarget::Time(16)));
    assert_eq!(
        hash::parse("#pc=main%2B4"),
        Some(HashTarget::Pc("main+4".into()))
    );
    assert_eq!(hash::parse(""), None);
    assert_eq!(
        hash::parse("#line=abc"),
        Some(HashTarget::Invalid(
            "#line=abc: \"abc\" is not a line number".into()
        ))
    );
    assert!(
        matches!(hash::parse("#t=-3"), Some(HashTarget::Invalid(m)) if m.contains("not a time"))
    );
    assert_eq!(hash::parse("#section"), None);
    assert_eq!(hash::parse(&hash::for_line(7)), Some(HashTarget::Line(7)));
}

#[wasm_bindgen_test]
fn keys_depend_on_the_focused_pane() {
    assert_eq!(
        keys::command(PaneKind::Trace, "ArrowDown"),
        Some(Command::StepDown)
    );
    assert_eq!(
        keys::command(PaneKind::Memory, "ArrowDown"),
        Some(Command::Down)
    );
    assert_eq!(
        keys::command(PaneKind::Trace, "["),
        Some(Command::Fold(FoldOp::FoldChildren))
    );
    assert_eq!(
        keys::command(PaneKind::Memory, "["),
        Some(Command::PrevChanged)
    );
    assert_eq!(keys::command(PaneKind::Registers, "["), None);
    assert_eq!(
        keys::command(PaneKind::Memory, "4"),
        Some(Command::WriteOfWidth(4))
    );
    assert_eq!(
        keys::command(PaneKind::Registers, "S"),
        Some(Command::ToggleRegisters(RegKind::Single))
    );
    assert_eq!(keys::key_name("L", true, true), "C-S-l");
    assert_eq!(keys::key_name("l", true, false), "C-l");
    assert_eq!(
        keys::command(PaneKind::Trace, "C-S-p"),
        Some(Command::Palette)
    );
    assert_eq!(keys::key_name("Tab", false, true), "S-Tab");
    assert_eq!(
        keys::command(PaneKind::Trace, "C-l"),
        Some(Command::Recentre)
    );
    assert_eq!(
        keys::command(PaneKind::Memory, "C-l"),
        Some(Command::ToggleLock)
    );
}

#[wasm_bindgen_test]
fn every_key_has_one_meaning_per_pane() {
    for pane in [PaneKind::Trace, PaneKind::Registers, PaneKind::Memory] {
        let mut seen = std::collections::HashSet::new();
        for binding in keys::tables(pane).into_iter().flat_map(|t| t.iter()) {
            for key in binding.keys {
                assert!(seen.insert(*key), "{key} bound twice in {pane:?}");
            }
        }
    }
}

#[wasm_bindgen_test]
fn prompt_editing() {
    assert_eq!(delete_word("sp + 0x10"), "sp + ");
    assert_eq!(delete_word("main  "), "");
    assert_eq!(delete_word(""), "");
    // Up from the typed text shows the newest, then older ones, and stops
    // at the oldest; Down comes back, then to an empty line.
    assert_eq!(recall(3, None, true), Some(2));
    assert_eq!(recall(3, Some(2), true), Some(1));
    assert_eq!(recall(3, Some(0), true), Some(0));
    assert_eq!(recall(3, Some(1), false), Some(2));
    assert_eq!(recall(3, Some(2), false), None);
    assert_eq!(recall(3, None, false), None);
    assert_eq!(recall(0, None, true), None);
    assert_eq!(parse_offset(""), Some(0));
    assert_eq!(parse_offset("0x1000"), Some(4096));
    assert_eq!(parse_offset("-16"), Some(-16));
    assert_eq!(parse_offset("zz"), None);
}

fn line(node: u64, line: u64) -> Row {
    Row::Line {
        line,
        node,
        first_of_node: true,
        text: String::new(),
        spans: vec![],
        branch_symbol: None,
        source: None,
        function: None,
        capability: None,
    }
}

#[wasm_bindgen_test]
fn the_marker_sits_after_the_current_nodes_last_row() {
    let rows = vec![
        line(3, 10),
        line(3, 11),
        line(4, 12),
        Row::Fold {
            call: 0,
            call_node: 4,
            entry_node: 5,
            lines: 40,
            function: 0x8000,
            name: "f".into(),
        },
        line(20, 53),
    ];
    assert_eq!(marker_index(&rows, 3), Some(1));
    assert_eq!(marker_index(&rows, 4), Some(2));
    // Inside the fold: the marker goes under the fold row.
    assert_eq!(marker_index(&rows, 7), Some(3));
    assert_eq!(marker_index(&rows, 2), None);
}
