//! A virtualized trace view: a capped spacer gives the scrollbar its range
//! and only the rows in the viewport exist in the DOM.

use std::cell::Cell;
use std::rc::Rc;

use web_sys::{Element, WheelEvent};
use yew::prelude::*;

use crate::web::page::i18n::{t, use_lang};

use super::trace_row::TraceRow;
use super::windowed::use_height;
use crate::model::view_state::{Scroll, ROW_PX};
use tarmac_lens_core::protocol::{NodeId, NodeView, Row, RowsReply};

#[derive(Properties, PartialEq)]
pub struct TracePaneProps {
    pub view: u32,
    pub focused: bool,
    pub rows: Option<Rc<RowsReply>>,
    pub total_rows: u64,
    /// First visible row.
    pub top: u64,
    /// Bumped whenever `top` is set by the browser (not by scrolling), so the
    /// pane moves its scrollbar to match.
    pub scroll_seq: u64,
    pub cursor: Option<NodeView>,
    pub annotated_line: Option<u64>,
    pub syntax: bool,
    pub symbols: bool,
    /// Show each instruction row's `file:line` in a column.
    #[prop_or_default]
    pub source_column: bool,
    /// Show each instruction row's function in a column.
    #[prop_or_default]
    pub function_column: bool,
    /// (first visible row, viewport height in px, whether the scrollbar
    /// must follow) after scrolling, wheeling or resizing.
    pub on_viewport: Callback<(u64, f64, bool)>,
    /// The viewport's new height in px.
    pub on_resize: Callback<f64>,
    pub on_click: Callback<Row>,
    pub on_context: Callback<(Row, i32, i32)>,
    pub on_focus: Callback<()>,
    /// Call instructions of the calls active at the cursor: they get a fold box.
    #[prop_or_default]
    pub call_nodes: Vec<NodeId>,
    #[prop_or_default]
    pub on_fold: Callback<NodeId>,
    /// The current search result: its line and match columns.
    #[prop_or_default]
    pub search_match: Option<(u64, u32, u32)>,
    /// Lines marked as divergences from a compared trace, sorted.
    #[prop_or_default]
    pub diverged_lines: Rc<Vec<u64>>,
    /// Bookmarked lines, sorted: their rows' gutters are marked.
    #[prop_or_default]
    pub bookmarked_lines: Rc<Vec<u64>>,
    /// The rows' bookmark gutter (none: no gutter).
    #[prop_or_default]
    pub on_bookmark: Option<Callback<u64>>,
}

fn node_of(row: &Row) -> NodeId {
    match row {
        Row::Line { node, .. } => *node,
        Row::Fold { entry_node, .. } => *entry_node,
    }
}

/// Index of the row the position marker goes under: the last row at or
/// before the current node.
pub fn marker_index(rows: &[Row], cursor: NodeId) -> Option<usize> {
    let after = rows.partition_point(|r| node_of(r) <= cursor);
    after.checked_sub(1)
}

/// The rows' keys: the row number plus an offset. While the window moves
/// by less than its height, the offset stays, so rows still in view keep
/// their elements and only the rows coming in are created. A jump to rows
/// wholly out of view takes the keys the old rows had, by position: Yew
/// then updates the existing row elements in place instead of removing a
/// screenful and creating another (the first step of a trace, past its
/// reset dump, was such a jump).
#[derive(Default)]
struct RowKeys {
    offset: i64,
    first: u64,
    count: u64,
}

impl RowKeys {
    fn offset_for(&mut self, first: u64, count: u64) -> i64 {
        let overlaps = first < self.first + self.count && self.first < first + count;
        if self.count > 0 && count > 0 && !overlaps {
            self.offset = self.first as i64 + self.offset - first as i64;
        }
        if count > 0 {
            self.first = first;
            self.count = count;
        }
        self.offset
    }
}

/// Sets the scroller's `scrollTop`, and again in later tasks while the
/// browser keeps it short of the target: before the scroller has its height
/// (a page opened at `#line=`, the workspace still being laid out) the
/// browser clamps it, fires no scroll event when the clamp leaves it where
/// it was, and the rows drawn for the target sat out of sight above a view
/// scrolled to the top. Gives up after a second, or when a newer target
/// (`seq` moved on) replaces it.
fn scroll_until_there(el: Element, target: i32, seq: Rc<Cell<u32>>, tries: u32) {
    el.set_scroll_top(target);
    if (el.scroll_top() - target).abs() <= 1 || tries >= 60 {
        return;
    }
    let mine = seq.get();
    crate::web::shared::timing::after_ms(16, move || {
        if seq.get() == mine && el.is_connected() {
            scroll_until_there(el, target, seq, tries + 1);
        }
    });
}

#[function_component(TracePane)]
pub fn trace_pane(props: &TracePaneProps) -> Html {
    use_lang();
    let scroller = use_node_ref();
    // The observer attaches once: the scroller is there from the first render.
    let viewport_px = use_height(scroller.clone(), true, 0.0, props.on_resize.clone());
    let scroll_top = use_state_eq(|| 0.0f64);
    let scroll = Scroll::new(props.total_rows, viewport_px.max(ROW_PX));

    // The browser moved the view (a key, a jump): move the scrollbar.
    {
        let scroller = scroller.clone();
        let scroll_top = scroll_top.clone();
        let target = scroll.scroll_top_for(props.top);
        let at_top = *scroll_top == 0.0;
        let seq = use_mut_ref(|| Rc::new(Cell::new(0u32))).borrow().clone();
        use_effect_with((props.scroll_seq, props.total_rows > 0), move |_| {
            seq.set(seq.get().wrapping_add(1));
            // Setting scrollTop forces a synchronous layout: not for the top
            // when the scroller is there (as a new one is), which put a
            // layout into the task mounting the browser and the first rows'.
            if target == 0.0 && at_top {
                return;
            }
            if let Some(el) = scroller.cast::<Element>() {
                scroll_until_there(el, target.round() as i32, seq, 0);
                scroll_top.set(target);
            }
        });
    }
    let onscroll = {
        let scroller = scroller.clone();
        let scroll_top = scroll_top.clone();
        let on_viewport = props.on_viewport.clone();
        let viewport = viewport_px;
        let top = props.top;
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<Element>() {
                let st = el.scroll_top() as f64;
                scroll_top.set(st);
                if let Some(row) = scroll.scrolled_to(top, st) {
                    on_viewport.emit((row, viewport, false));
                }
            }
        })
    };
    // Scaled, one scroll pixel is many rows: wheel steps by rows instead.
    let onwheel = {
        let on_viewport = props.on_viewport.clone();
        let viewport = viewport_px;
        let top = props.top;
        Callback::from(move |e: WheelEvent| {
            if !scroll.scaled() {
                return;
            }
            e.prevent_default();
            let rows = match e.delta_mode() {
                WheelEvent::DOM_DELTA_LINE => e.delta_y() * 1.0,
                WheelEvent::DOM_DELTA_PAGE => e.delta_y() * scroll.visible_rows() as f64,
                _ => e.delta_y() / ROW_PX,
            }
            .round() as i64;
            let row = (top as i64 + rows).clamp(0, scroll.max_top() as i64) as u64;
            on_viewport.emit((row, viewport, true));
        })
    };
    let onfocus = {
        let cb = props.on_focus.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };

    let visible = scroll.visible_rows() + 1;
    let cursor = props.cursor.map(|c| c.node);
    let keying = use_mut_ref(RowKeys::default);
    let mut shown: Vec<Html> = Vec::new();
    if let Some(reply) = &props.rows {
        let from = props.top.saturating_sub(reply.first) as usize;
        if props.top >= reply.first && from < reply.rows.len() {
            let slice = &reply.rows[from..(from + visible as usize).min(reply.rows.len())];
            let key_offset = keying
                .borrow_mut()
                .offset_for(reply.first + from as u64, slice.len() as u64);
            // Computed over all fetched rows: the row after the window decides
            // whether the window's last row gets the marker.
            let marker = cursor.and_then(|c| marker_index(&reply.rows, c));
            for (i, row) in slice.iter().enumerate() {
                let index = from + i;
                let current_time = match (row, props.cursor) {
                    (
                        Row::Line {
                            node,
                            first_of_node: true,
                            ..
                        },
                        Some(c),
                    ) if *node == c.node => Some(c.time),
                    _ => None,
                };
                let line = match row {
                    Row::Line { line, .. } => Some(*line),
                    Row::Fold { .. } => None,
                };
                shown.push(html! {
                    <TraceRow
                        key={(reply.first as i64 + index as i64 + key_offset).to_string()}
                        row={row.clone()}
                        current_time={current_time}
                        marker_after={marker == Some(index)}
                        annotated={line.is_some() && line == props.annotated_line}
                        syntax={props.syntax}
                        symbols={props.symbols}
                        source_column={props.source_column}
                        function_column={props.function_column}
                        on_click={props.on_click.clone()}
                        on_context={props.on_context.clone()}
                        call={matches!(row, Row::Line { node, first_of_node: true, .. } if props.call_nodes.contains(node))}
                        on_fold={props.on_fold.clone()}
                        search_match={props.search_match.filter(|m| Some(m.0) == line).map(|m| (m.1, m.2))}
                        diverged={line.is_some_and(|l| props.diverged_lines.binary_search(&l).is_ok())}
                        on_bookmark={props.on_bookmark.clone()}
                        bookmarked={line.is_some_and(|l| props.bookmarked_lines.binary_search(&l).is_ok())}
                    />
                });
            }
        }
    }
    let window_top = scroll.window_top_px(props.top, *scroll_top);
    html! {
        <div
            class={classes!("trace-pane", "pane", props.focused.then_some("focused"))}
            data-testid="trace-pane"
            role="listbox"
            aria-label={t("Trace lines")}
            data-view={props.view.to_string()}
            data-rows={props.total_rows.to_string()}
            data-top={props.top.to_string()}
            ref={scroller}
            {onscroll}
            {onwheel}
            onmousedown={onfocus}
            style="position:relative;overflow:auto;height:100%;min-height:0;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;"
        >
            <div class="trace-spacer" style={format!("height:{}px;position:relative;overflow-y:clip;", scroll.content_px())}>
                <div class="trace-rows" style={format!("position:absolute;left:0;right:0;top:{window_top}px;min-width:max-content;")}>
                    { for shown }
                </div>
            </div>
        </div>
    }
}
