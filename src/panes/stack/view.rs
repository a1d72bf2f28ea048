//! The call stack pane's render: the active view's calls, innermost
//! first, each a button that goes to its call instruction. At the end of
//! a completely indexed trace the active calls are the ones that never
//! returned (a hung or crashed run), and the title says so.

use yew::prelude::*;

use crate::model::{Msg, ViewMsg};
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{t, tf, use_lang};
use tarmac_lens_core::protocol::{CallFrame, NodeId};

/// Draws the active view's calls; `None` while there is no active view.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let model = cx.model;
    let view = model.active_view();
    let v = model.view_ref(view)?;
    let at_end = model.complete
        && matches!(v.cursor, Some(c) if c.node + 1 >= model.indexed_nodes);
    Some(html! {
        <StackPane
            frames={v.stack.clone()}
            {at_end}
            on_pick={cx.send.reform(move |node| Msg::View(view, ViewMsg::GoTo { node }))}
            on_close={cx.on_close()}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
pub struct StackPaneProps {
    /// Outermost first, as the session answers.
    pub frames: Vec<CallFrame>,
    /// The position is the trace's last node and the trace is fully indexed.
    pub at_end: bool,
    pub on_pick: Callback<NodeId>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
}

/// How a frame is named: its symbol with an ELF, else the callee address.
pub fn frame_name(f: &CallFrame) -> String {
    if f.name.is_empty() {
        format!("{:#x}", f.function & !1)
    } else {
        f.name.clone()
    }
}

#[function_component(StackPane)]
pub fn stack_pane(props: &StackPaneProps) -> Html {
    use_lang();
    let title = if props.at_end {
        t("Calls that never returned")
    } else {
        t("Call stack")
    };
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <section
            class="pane nav-pane stack-pane"
            data-testid="stack-pane"
            data-at-end={props.at_end.to_string()}
            role="region"
            aria-label={title}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <header class="pane-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                <strong style="flex:1;" data-testid="stack-pane-title">{ title }</strong>
                <span class="pane-hint" title={t("The innermost call is listed first")}>{ t("innermost first") }</span>
                { props.tools.clone() }
                <button class="close" data-testid="stack-pane-close" title={t("Close (C)")} onclick={close}>{ "×" }</button>
            </header>
            // Its area gives it its height (the rest of the side column),
            // whatever the stack's depth: a stack growing as the position
            // moves would move the panes under it.
            if props.frames.is_empty() {
                <p class="pane-empty" data-testid="stack-empty" style="margin:0.25rem 0.5rem;">
                    { if props.at_end { t("Every call returned.") } else { t("No call is active here.") } }
                </p>
            } else {
                <ol class="stack-frames" style="list-style:none;margin:0;padding:0.2rem 0.4rem;flex:1 1 6rem;min-height:0;overflow:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;">
                    { for props.frames.iter().enumerate().rev().map(|(depth, f)| {
                        let call_node = f.call_node;
                        let pick = props.on_pick.reform(move |_: MouseEvent| call_node);
                        html! {
                            <li key={f.call} style="display:flex;gap:0.4rem;align-items:baseline;">
                                <span class="stack-depth" style="min-width:1.5em;text-align:right;opacity:0.7;">{ depth }</span>
                                <button
                                    class="frame"
                                    data-testid="stack-frame"
                                    data-name={frame_name(f)}
                                    data-call-node={call_node.to_string()}
                                    title={tf("Go to the call of {}", &[&frame_name(f)])}
                                    style="font:inherit;text-align:left;cursor:pointer;"
                                    onclick={pick}
                                >{ frame_name(f) }</button>
                            </li>
                        }
                    }) }
                </ol>
            }
        </section>
    }
}
