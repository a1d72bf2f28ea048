//! One row of a trace view: a trace line with its syntax classes, or a
//! folded call.

use yew::prelude::*;

use crate::web::page::i18n::{t, tn, use_lang};

use tarmac_lens_core::protocol::{Hl, NodeId, Row, Span};

/// The stylesheet's class for a syntax class (`data-hl` carries the same).
pub fn hl_name(hl: Hl) -> &'static str {
    match hl {
        Hl::OtherCore => "other-core",
        Hl::Time => "time",
        Hl::Event => "event",
        Hl::Pc => "pc",
        Hl::Encoding => "encoding",
        Hl::ISet => "iset",
        Hl::Mode => "mode",
        Hl::Disassembly => "disasm",
        Hl::NotExecuted => "not-executed",
        Hl::Register => "register",
        Hl::Value => "value",
        Hl::Address => "address",
        Hl::Punct => "punct",
        Hl::Text => "text",
        Hl::Error => "error",
    }
}

/// Splits `text` into plain and highlighted pieces. Spans are byte ranges;
/// a range that is out of order or not on a character boundary is shown
/// plain rather than dropped.
pub fn highlighted(text: &str, spans: &[Span]) -> Html {
    let mut out = Vec::with_capacity(spans.len() * 2 + 1);
    let mut at = 0usize;
    for span in spans {
        let (start, end) = (span.start as usize, span.end as usize);
        if start < at
            || end < start
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end.min(text.len()))
        {
            continue;
        }
        let end = end.min(text.len());
        if start > at {
            out.push(html! { { &text[at..start] } });
        }
        out.push(html! {
            <span class={classes!("hl", hl_name(span.hl))} data-hl={hl_name(span.hl)}>{ &text[start..end] }</span>
        });
        at = end;
    }
    if at < text.len() {
        out.push(html! { { &text[at..] } });
    }
    out.into_iter().collect::<Html>()
}

#[derive(Properties, PartialEq)]
pub struct TraceRowProps {
    pub row: Row,
    /// The first line of the current node: carries `data-line`/`data-time`.
    pub current_time: Option<u64>,
    /// The position marker goes below this row.
    pub marker_after: bool,
    /// Highlighted by the `a` key.
    pub annotated: bool,
    pub syntax: bool,
    pub symbols: bool,
    /// Each instruction's `file:line` in a column before the text.
    #[prop_or_default]
    pub source_column: bool,
    /// Each instruction's function in a column before the text.
    #[prop_or_default]
    pub function_column: bool,
    pub on_click: Callback<Row>,
    pub on_context: Callback<(Row, i32, i32)>,
    /// The call instruction of an active call: a box folds the call.
    #[prop_or_default]
    pub call: bool,
    #[prop_or_default]
    pub on_fold: Callback<NodeId>,
    /// The current search result's match in this row (columns of `text`).
    #[prop_or_default]
    pub search_match: Option<(u32, u32)>,
    /// An instruction where the compared trace diverges (`diff_view.rs`).
    #[prop_or_default]
    pub diverged: bool,
    /// A gutter before the text: a click there on a node's first line
    /// bookmarks it (or removes its bookmark), given the line.
    #[prop_or_default]
    pub on_bookmark: Option<Callback<u64>>,
    /// The row is a bookmark's line: its gutter shows the mark.
    #[prop_or_default]
    pub bookmarked: bool,
}

/// The bookmark gutter: empty text (row text is what tests and copies
/// read), a mark drawn by style; clickable on a node's first line, where
/// bookmarks are anchored.
fn gutter(props: &TraceRowProps) -> Html {
    let Some(on_bookmark) = &props.on_bookmark else {
        return html! {};
    };
    let first = match &props.row {
        Row::Line {
            line,
            first_of_node: true,
            ..
        } => Some(*line),
        _ => None,
    };
    let style = if props.bookmarked {
        "display:inline-block;width:10px;height:10px;margin:0 4px;border-radius:50%;background:#2563eb;cursor:pointer;"
    } else if first.is_some() {
        "display:inline-block;width:10px;height:10px;margin:0 4px;border-radius:50%;cursor:pointer;"
    } else {
        "display:inline-block;width:10px;margin:0 4px;"
    };
    let Some(line) = first else {
        return html! { <span class="bookmark-gutter" aria-hidden="true" {style}></span> };
    };
    let on_bookmark = on_bookmark.clone();
    let onclick = Callback::from(move |e: MouseEvent| {
        // Bookmarking is not also a move to this row.
        e.stop_propagation();
        on_bookmark.emit(line);
    });
    html! {
        <span
            class={classes!("bookmark-gutter", props.bookmarked.then_some("bookmarked"))}
            data-testid="bookmark-gutter"
            role="button"
            title={if props.bookmarked { t("Remove the bookmark") } else { t("Bookmark this line (b)") }}
            {style}
            {onclick}
        ></span>
    }
}

/// The row's text with the search match marked, syntax classes kept on
/// both sides of and inside it.
fn with_match(text: &str, spans: &[Span], syntax: bool, (start, end): (u32, u32)) -> Html {
    let (start, end) = (start as usize, end as usize);
    if start > end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return if syntax {
            highlighted(text, spans)
        } else {
            html! { { text.to_string() } }
        };
    }
    let piece = |a: usize, b: usize| -> Html {
        if !syntax {
            return html! { { &text[a..b] } };
        }
        let clipped: Vec<Span> = spans
            .iter()
            .filter(|s| (s.end as usize) > a && (s.start as usize) < b)
            .map(|s| Span {
                start: (s.start as usize).max(a) as u32 - a as u32,
                end: (s.end as usize).min(b) as u32 - a as u32,
                hl: s.hl,
            })
            .collect();
        highlighted(&text[a..b], &clipped)
    };
    html! {
        <>
            { piece(0, start) }
            <mark class="search-match" data-testid="search-match">{ piece(start, end) }</mark>
            { piece(end, text.len()) }
        </>
    }
}

const ROW_STYLE: &str = "height:18px;line-height:18px;white-space:pre;overflow:hidden;\
                         box-sizing:border-box;cursor:default;";

#[function_component(TraceRow)]
pub fn trace_row(props: &TraceRowProps) -> Html {
    use_lang();
    let onclick = {
        let row = props.row.clone();
        let cb = props.on_click.clone();
        Callback::from(move |_: MouseEvent| cb.emit(row.clone()))
    };
    let oncontextmenu = {
        let row = props.row.clone();
        let cb = props.on_context.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            cb.emit((row.clone(), e.client_x(), e.client_y()))
        })
    };
    // The marker is a rule between instructions, drawn as the row's bottom
    // border so it costs no height and row positions stay arithmetic.
    let mut style = if props.marker_after {
        format!("{ROW_STYLE}border-bottom:2px solid #dc2626;")
    } else {
        ROW_STYLE.to_string()
    };
    if props.diverged {
        // A bar at the left: the current row's background stays visible.
        style.push_str("box-shadow:inset 5px 0 0 #f59e0b;");
    }
    match &props.row {
        Row::Line {
            line,
            text,
            spans,
            branch_symbol,
            source,
            function,
            capability,
            ..
        } => {
            let current = props.current_time.is_some();
            let function_cell = props.function_column.then(|| {
                html! {
                    <span class="row-function" data-testid="row-function" style="display:inline-block;width:20ch;overflow:hidden;text-overflow:ellipsis;vertical-align:top;opacity:0.75;">{ function.clone().unwrap_or_default() }</span>
                }
            });
            let source_cell = props.source_column.then(|| {
                let short = source.as_deref().map(short_source).unwrap_or_default();
                html! {
                    <span class="row-source" data-testid="row-source" style="display:inline-block;width:18ch;overflow:hidden;text-overflow:ellipsis;vertical-align:top;opacity:0.75;">{ short }</span>
                }
            });
            let fold_box = match (&props.row, props.call) {
                (Row::Line { node, .. }, true) => {
                    let (node, on_fold) = (*node, props.on_fold.clone());
                    let onclick = Callback::from(move |e: MouseEvent| {
                        // Folding is not also a move to this row.
                        e.stop_propagation();
                        on_fold.emit(node);
                    });
                    html! {
                        <span class="fold-box" data-testid="fold-toggle" title={t("Fold this call")} style="cursor:pointer;" {onclick}>{ "⊟ " }</span>
                    }
                }
                _ => html! {},
            };
            html! {
                <div
                    class={classes!("trace-row", current.then_some("current"), props.marker_after.then_some("marker"), props.annotated.then_some("annotated"), props.diverged.then_some("diverged"))}
                    role="option"
                    aria-selected={current.to_string()}
                    data-row-line={line.to_string()}
                    data-line={current.then(|| line.to_string())}
                    data-time={props.current_time.map(|t| t.to_string())}
                    data-source={source.clone()}
                    data-capability={capability.clone()}
                    data-bookmarked={props.bookmarked.then_some("true")}
                    title={match (source, capability) {
                        (Some(s), Some(c)) => Some(format!("{s}\n{c}")),
                        (s, c) => s.clone().or_else(|| c.clone()),
                    }}
                    style={style}
                    {onclick}
                    {oncontextmenu}
                >
                    { gutter(props) }
                    { function_cell }
                    { source_cell }
                    { fold_box }
                    { match props.search_match {
                        Some(m) => with_match(text, spans, props.syntax, m),
                        None if props.syntax => highlighted(text, spans),
                        None => html! { { text.clone() } },
                    } }
                    if let (true, Some(symbol)) = (props.symbols, branch_symbol) {
                        <span class="branch-symbol" data-testid="branch-symbol">{ format!("  → {symbol}") }</span>
                    }
                </div>
            }
        }
        Row::Fold {
            lines,
            name,
            function,
            ..
        } => {
            let callee = if name.is_empty() {
                format!("{function:#x}")
            } else {
                name.clone()
            };
            html! {
                <div
                    class={classes!("trace-row", "fold-row", props.marker_after.then_some("marker"))}
                    data-testid="fold-row"
                    role="option"
                    aria-selected="false"
                    data-function={callee.clone()}
                    title={t("Click to unfold")}
                    style={format!("{style}cursor:pointer;")}
                    {onclick}
                    {oncontextmenu}
                >
                    { gutter(props) }
                    <span class="fold-box" aria-hidden="true">{ "⊞ " }</span>
                    <span class="fold-name">{ callee }</span>
                    <span class="fold-lines">{ tn(*lines, "  … {} line folded", "  … {} lines folded", &[&crate::web::page::format::thousands(*lines)]) }</span>
                </div>
            }
        }
    }
}

/// `file.c:42` of a DWARF `dir/sub/file.c:42`: the column is narrow.
fn short_source(full: &str) -> String {
    match full.rfind(['/', '\\']) {
        Some(i) => full[i + 1..].to_string(),
        None => full.to_string(),
    }
}
