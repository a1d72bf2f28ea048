//! The events pane's render: the page of events the page keeps, the
//! active view's marked, a pager, each row a button to its position.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::model::nav::{NavMsg, EVENTS_PAGE};
use crate::model::{Msg, ViewMsg};
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{number, t, tf, use_lang};
use tarmac_lens_core::protocol::{EventKind, EventsReply, NodeId};

/// Draws the page's events; `None` while there is no active view.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let model = cx.model;
    let view = model.active_view();
    let v = model.view_ref(view)?;
    Some(html! {
        <EventsPane
            page={model.nav.events_page.clone()}
            cursor={v.cursor.map(|c| c.node)}
            on_pick={cx.send.reform(move |node| Msg::View(view, ViewMsg::GoTo { node }))}
            on_page={cx.send.reform(|first| Msg::Nav(NavMsg::EventsAt(first)))}
            on_close={cx.on_close()}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
pub struct EventsPaneProps {
    /// `None` until the first answer.
    pub page: Option<EventsReply>,
    /// The node of the active view's position (its events are marked).
    pub cursor: Option<NodeId>,
    pub on_pick: Callback<NodeId>,
    /// Show the page starting at this event.
    pub on_page: Callback<u64>,
    pub on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    #[prop_or_default]
    pub tools: Html,
}

pub fn kind_name(kind: EventKind) -> &'static str {
    t(match kind {
        EventKind::Exception => "exception",
        EventKind::Interrupt => "interrupt",
        EventKind::ModeChange => "mode change",
        EventKind::Aborted => "aborted access",
        EventKind::Unparsed => "unparsed line",
    })
}

/// The class (and colour in the stylesheet and the timeline) of a kind.
pub fn kind_class(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Exception => "exception",
        EventKind::Interrupt => "interrupt",
        EventKind::ModeChange => "mode-change",
        EventKind::Aborted => "aborted",
        EventKind::Unparsed => "unparsed",
    }
}

/// Scrolls the list so its first current event shows. Reads layout, so it
/// runs only when the position is at an event, not at every step.
fn reveal_current(list: &HtmlElement) -> Option<()> {
    let row: HtmlElement = list
        .query_selector(".event.current")
        .ok()??
        .dyn_into()
        .ok()?;
    let (top, bottom) = (row.offset_top(), row.offset_top() + row.offset_height());
    let (view_top, height) = (list.scroll_top(), list.client_height());
    if top < view_top || bottom > view_top + height {
        list.set_scroll_top((top - height / 3).max(0));
    }
    Some(())
}

#[function_component(EventsPane)]
pub fn events_pane(props: &EventsPaneProps) -> Html {
    use_lang();
    let list = use_node_ref();
    {
        let list = list.clone();
        let at_event = props
            .page
            .as_ref()
            .is_some_and(|p| p.events.iter().any(|e| Some(e.node) == props.cursor));
        let key = (props.cursor, props.page.as_ref().map(|p| p.first), at_event);
        use_effect_with(key, move |&(_, _, at_event)| {
            if at_event {
                if let Some(l) = list.cast::<HtmlElement>() {
                    reveal_current(&l);
                }
            }
        });
    }
    let close = props.on_close.reform(|_: MouseEvent| ());
    let (first, total) = props.page.as_ref().map_or((0, 0), |p| (p.first, p.total));
    let shown = props.page.as_ref().map_or(0, |p| p.events.len() as u64);
    let earlier = props
        .on_page
        .reform(move |_: MouseEvent| first.saturating_sub(EVENTS_PAGE));
    let later = props
        .on_page
        .reform(move |_: MouseEvent| first + EVENTS_PAGE);
    html! {
        <section
            class="pane nav-pane events-pane"
            data-testid="events-pane"
            data-total={total.to_string()}
            role="region"
            aria-label={t("Events")}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <header class="pane-header" style="display:flex;gap:0.5rem;align-items:center;padding:0.15rem 0.4rem;">
                <strong style="flex:1;" data-testid="events-pane-title">{ tf("Events: {}", &[&number(total)]) }</strong>
                if total > EVENTS_PAGE {
                    <span>{ tf("{}–{}", &[&number(first + 1), &number(first + shown)]) }</span>
                    <button data-testid="events-earlier" disabled={first == 0} onclick={earlier} title={t("Earlier events")}>{ "‹" }</button>
                    <button data-testid="events-later" disabled={first + shown >= total} onclick={later} title={t("Later events")}>{ "›" }</button>
                }
                { props.tools.clone() }
                <button class="close" data-testid="events-pane-close" title={t("Close (v)")} onclick={close}>{ "×" }</button>
            </header>
            if let Some(page) = &props.page {
                if page.events.is_empty() {
                    <p class="pane-empty" data-testid="events-empty" style="margin:0.25rem 0.5rem;">{ t("No exceptions, mode changes, aborts or unparsed lines.") }</p>
                } else {
                    <ol ref={list} class="events" style="position:relative;list-style:none;margin:0;padding:0.2rem 0.4rem;flex:1 1 10rem;min-height:0;overflow:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;">
                        { for page.events.iter().map(|e| {
                            let node = e.node;
                            let pick = props.on_pick.reform(move |_: MouseEvent| node);
                            let current = props.cursor == Some(node);
                            html! {
                                <li
                                    key={e.line}
                                    class={classes!("event", kind_class(e.kind), current.then_some("current"))}
                                    data-testid="event"
                                    data-line={e.line.to_string()}
                                    data-kind={kind_class(e.kind)}
                                    style="display:flex;gap:0.6rem;align-items:baseline;cursor:pointer;white-space:pre;"
                                    title={t("Go to this event")}
                                    onclick={pick}
                                >
                                    <span class="event-line" style="min-width:5em;text-align:right;">{ e.line }</span>
                                    <span class="event-kind" style="min-width:8em;">{ kind_name(e.kind) }</span>
                                    <span class="event-text" style="overflow:hidden;text-overflow:ellipsis;">{ e.text.clone() }</span>
                                </li>
                            }
                        }) }
                    </ol>
                }
            } else {
                <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ t("Reading events…") }</p>
            }
        </section>
    }
}
