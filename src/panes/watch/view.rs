//! The watch pane: every read and write of a register or memory range,
//! listed as the worker finds them, each row a button to its position; the
//! accesses before and after the position (`(`, `)`) and which kind
//! (reads, writes, both) are the header's.
//!
//! The list holds up to 10,000 rows; only those in sight are drawn
//! (`windowed`), and the position's access is brought into sight.

use yew::prelude::*;

use super::{Watch, WatchMsg, MAX_LISTED};
use crate::model::keys::Command;
use crate::model::Msg;
use crate::panes::render::PaneContext;
use crate::web::components::windowed::use_window;
use crate::web::page::i18n::{number, t, tf, use_lang};
use tarmac_lens_core::protocol::{AccessKind, NodeId};

/// A row's height: every row has it, so the list knows which are in sight.
const ROW_PX: f64 = 18.0;

/// The pane, once a view has a position to mark its access.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let watch = cx.state::<Watch>()?.clone();
    let model = cx.model;
    let cursor = model.view_ref(model.active_view())?.cursor.map(|c| c.node);
    let own = cx.own::<WatchMsg>();
    Some(html! {
        <WatchPane
            listed={watch.listed(model.indexed_nodes, model.complete)}
            {watch}
            {cursor}
            on_pick={own.reform(WatchMsg::Pick)}
            on_step={cx.send.reform(|forward| Msg::Run(Command::WatchStep { forward }))}
            on_kind={own.reform(WatchMsg::Kind)}
            on_close={cx.on_close()}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
struct WatchPaneProps {
    watch: Watch,
    /// Every access is listed (or as many as the pane lists).
    listed: bool,
    /// The node of the active view's position (its access is marked).
    cursor: Option<NodeId>,
    on_pick: Callback<NodeId>,
    /// The access before (false) or after (true) the position.
    on_step: Callback<bool>,
    on_kind: Callback<AccessKind>,
    on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    tools: Html,
}

fn kind_label(kind: AccessKind) -> &'static str {
    t(match kind {
        AccessKind::Any => "reads and writes",
        AccessKind::Read => "reads",
        AccessKind::Write => "writes",
    })
}

#[function_component(WatchPane)]
fn watch_pane(props: &WatchPaneProps) -> Html {
    use_lang();
    let w = &props.watch;
    let count = w.hits.len();
    let title = if props.listed {
        tf("Watch {}: {} accesses", &[&w.label, &number(count as u64)])
    } else {
        tf(
            "Watch {}: {} accesses so far…",
            &[&w.label, &number(count as u64)],
        )
    };
    let close = props.on_close.reform(|_: MouseEvent| ());
    let prev = props.on_step.reform(|_: MouseEvent| false);
    let next = props.on_step.reform(|_: MouseEvent| true);
    let kinds = [AccessKind::Any, AccessKind::Read, AccessKind::Write];
    let current = props.cursor.and_then(|node| w.index_of(node));
    let window = use_window(count, ROW_PX, current);
    html! {
        <section
            class="pane nav-pane watch-pane"
            data-testid="watch-pane"
            data-count={count.to_string()}
            data-listed={props.listed.to_string()}
            data-target={w.label.clone()}
            role="region"
            aria-label={t("Watch")}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <header class="pane-header" style="display:flex;gap:0.4rem;align-items:center;padding:0.15rem 0.4rem;flex-wrap:wrap;">
                <strong style="flex:1;" data-testid="watch-title">{ title }</strong>
                <span role="radiogroup" aria-label={t("Which accesses")} style="display:flex;gap:0.15rem;">
                    { for kinds.into_iter().map(|k| {
                        let pick = props.on_kind.reform(move |_: MouseEvent| k);
                        html! {
                            <button
                                role="radio"
                                aria-checked={(w.kind == k).to_string()}
                                data-testid="watch-kind"
                                data-kind={format!("{k:?}").to_lowercase()}
                                class={classes!((w.kind == k).then_some("on"))}
                                onclick={pick}
                            >{ kind_label(k) }</button>
                        }
                    }) }
                </span>
                <button data-testid="watch-prev" onclick={prev} title={t("The access before the position (()")}>{ "‹" }</button>
                <button data-testid="watch-next" onclick={next} title={t("The access after the position ())")}>{ "›" }</button>
                { props.tools.clone() }
                <button class="close" data-testid="watch-close" title={t("Close")} onclick={close}>{ "×" }</button>
            </header>
            if w.hits.is_empty() {
                <p class="pane-empty" data-testid="watch-empty" style="margin:0.25rem 0.5rem;">{
                    if props.listed { t("No access.") } else { t("Looking…") }
                }</p>
            } else {
                <div
                    ref={window.scroller}
                    class="watch-hits"
                    onscroll={window.onscroll}
                    style="flex:1 1 10rem;min-height:0;overflow:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;"
                >
                    <ol style={format!("list-style:none;margin:0.2rem 0.4rem;padding:0;position:relative;height:{}px;", count as f64 * ROW_PX)}>
                        { for window.rows.map(|i| {
                            let h = &w.hits[i];
                            let node = h.node.node;
                            let pick = props.on_pick.reform(move |_: MouseEvent| node);
                            html! {
                                <li
                                    key={node}
                                    class={classes!("watch-hit", (current == Some(i)).then_some("current"))}
                                    data-testid="watch-hit"
                                    data-index={i.to_string()}
                                    data-line={h.node.first_line.to_string()}
                                    data-kind={h.kind.clone()}
                                    style={format!("position:absolute;left:0;right:0;top:{}px;height:{ROW_PX}px;line-height:{ROW_PX}px;display:flex;gap:0.6rem;cursor:pointer;white-space:pre;overflow:hidden;", i as f64 * ROW_PX)}
                                    title={t("Go to this access")}
                                    onclick={pick}
                                >
                                    <span style="min-width:5em;text-align:right;">{ h.node.first_line }</span>
                                    <span style="min-width:2em;">{ h.kind.clone() }</span>
                                    <span style="overflow:hidden;text-overflow:ellipsis;" data-testid="watch-detail">{ h.detail.clone() }</span>
                                    <span style="opacity:0.7;">{ h.function.clone() }</span>
                                </li>
                            }
                        }) }
                    </ol>
                </div>
                if count >= MAX_LISTED {
                    <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ tf("The list stops at {}; ( and ) find the others.", &[&number(MAX_LISTED as u64)]) }</p>
                }
            }
        </section>
    }
}
