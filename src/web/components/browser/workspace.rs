//! Where the browser's panes are drawn: the trace views in the main area
//! and every other pane in the side or bottom area its kind sits in
//! (`model::layout`), each area behind a splitter, with each pane header's
//! layout buttons; and the scroll that brings a pane just opened into its
//! area's sight.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use super::{Browser, Reveal};
use crate::i18n::t;
use crate::model::layout::{Area, Layout, LayoutMsg, Shown, Slot};
use crate::model::{Msg, Pane};
use crate::web::components::{Sizes, Splitter};

impl Browser {
    /// Scrolls the area holding a pane just opened or moved so that the
    /// pane is in sight (all of it if it fits), as `scrollIntoView` would
    /// without moving the page or the views.
    pub(super) fn scroll_into_area(&self, shown: Shown) {
        let Some(root) = self.root.cast::<HtmlElement>() else {
            return;
        };
        let selector = match shown {
            Shown::Pane(id) => format!(".area-item > [data-pane=\"{id}\"]"),
            Shown::Slot(slot) => format!(".area-item[data-slot={}] > *", slot.name()),
        };
        let item = root
            .query_selector(&selector)
            .ok()
            .flatten()
            .and_then(|pane| pane.parent_element())
            .and_then(|item| item.dyn_into::<HtmlElement>().ok());
        let Some(item) = item else { return };
        let Some(area) = item.parent_element() else {
            return;
        };
        let nearest = |start: i32, size: i32, seen: i32, room: i32| {
            if start < seen || size > room {
                Some(start)
            } else if start + size > seen + room {
                Some(start + size - room)
            } else {
                None
            }
        };
        // Items are placed relative to their area (`position:relative`).
        let (top, height) = (item.offset_top(), item.offset_height());
        if let Some(to) = nearest(top, height, area.scroll_top(), area.client_height()) {
            area.set_scroll_top(to);
        }
        let (left, width) = (item.offset_left(), item.offset_width());
        if let Some(to) = nearest(left, width, area.scroll_left(), area.client_width()) {
            area.set_scroll_left(to);
        }
    }

    /// The trace views in the main area and every other pane in the side
    /// or bottom area its kind sits in (`model::layout`), each area after
    /// its splitter. Before the last stage of the first renders, the views
    /// alone (see [`Reveal`]).
    pub(super) fn view_workspace(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let layout = &self.model.layout;
        let mut side = Vec::new();
        let mut bottom = Vec::new();
        if self.reveal == Reveal::All {
            for (slot, key, pane) in self.area_items(ctx) {
                let collapsed = layout.collapsed(slot);
                let item = html! {
                    <div
                        key={key}
                        class={classes!("area-item", collapsed.then_some("collapsed"))}
                        data-slot={slot.name()}
                        style={area_item_style(layout.area(slot), slot, collapsed)}
                    >{ pane }</div>
                };
                match layout.area(slot) {
                    Area::Side => side.push(item),
                    Area::Bottom => bottom.push(item),
                }
            }
        }
        let (has_side, has_bottom) = (!side.is_empty(), !bottom.is_empty());
        html! {
            <div
                class="workspace"
                data-testid="workspace"
                style={workspace_style(layout, has_side, has_bottom, ctx.props().compact)}
            >
                <div class="views" data-area="main" style="grid-area:main;display:flex;gap:0.5rem;min-width:0;min-height:0;">
                    { for self.model.views.iter().map(|v| self.view_trace(ctx, v)) }
                </div>
                if has_side {
                    <Splitter sizes={Sizes::Side} px={layout.side_px} on_size={link.callback(|px| Msg::Layout(LayoutMsg::Side(px)))} />
                    <div class="area area-side" data-area="side" data-testid="area-side" style="grid-area:side;position:relative;display:flex;flex-direction:column;gap:0.4rem;min-width:0;min-height:0;overflow:auto;">
                        { for side }
                    </div>
                }
                if has_bottom {
                    <Splitter sizes={Sizes::Bottom} px={layout.bottom_px} on_size={link.callback(|px| Msg::Layout(LayoutMsg::Bottom(px)))} />
                    <div class="area area-bottom" data-area="bottom" data-testid="area-bottom" style="grid-area:bottom;position:relative;display:flex;gap:0.4rem;min-width:0;min-height:0;overflow:auto;">
                        { for bottom }
                    </div>
                }
            </div>
        }
    }

    /// Every pane besides the trace views, in the order the areas list
    /// them: by their kind's rank in the registry (`model::registry`), as
    /// opened within a rank (register, memory and source panes first, then
    /// the call stack, the bookmarks, the events, the watch, the why and
    /// the reports).
    pub(super) fn area_items(&self, ctx: &Context<Self>) -> Vec<(Slot, String, Html)> {
        let mut panes: Vec<&Pane> = self.model.panes.iter().collect();
        panes.sort_by_key(|p| p.body.slot().entry().rank);
        panes
            .into_iter()
            .filter_map(|p| {
                let slot = p.body.slot();
                let key = if p.body.focusable() {
                    format!("pane-{}", p.id)
                } else {
                    slot.name().to_string()
                };
                Some((slot, key, self.view_area_pane(ctx, p)?))
            })
            .collect()
    }

    /// One pane's render, by its kind; `None` for the lists that follow
    /// the active view while it has none.
    fn view_area_pane(&self, ctx: &Context<Self>, p: &Pane) -> Option<Html> {
        let slot = p.body.slot();
        crate::panes::render::view(&crate::panes::render::PaneContext {
            model: &self.model,
            pane: p,
            send: self.pane_send.clone(),
            tools: self.area_tools(ctx, slot),
            trace: self.client.clone(),
            elf: ctx.props().elf,
            elf_error: ctx.props().elf_error.clone(),
        })
    }

    /// A pane header's layout buttons: collapse to the header, move to the
    /// other area.
    pub(super) fn area_tools(&self, ctx: &Context<Self>, slot: Slot) -> Html {
        let link = ctx.link();
        let collapsed = self.model.layout.collapsed(slot);
        let (glyph, title) = match self.model.layout.area(slot) {
            Area::Side => ("↓", t("Move to the bottom area (A)")),
            Area::Bottom => ("→", t("Move to the side area (A)")),
        };
        html! {
            <>
                <button
                    class="area-tool"
                    data-testid={format!("collapse-{}", slot.name())}
                    aria-expanded={(!collapsed).to_string()}
                    title={if collapsed { t("Show the pane") } else { t("Collapse to the header") }}
                    onclick={link.callback(move |_| Msg::Layout(LayoutMsg::Collapse(slot)))}
                >{ if collapsed { "▸" } else { "▾" } }</button>
                <button
                    class="area-tool"
                    data-testid={format!("move-{}", slot.name())}
                    {title}
                    onclick={link.callback(move |_| Msg::Layout(LayoutMsg::Move(slot)))}
                >{ glyph }</button>
            </>
        }
    }
}

/// The workspace's grid: the trace views (`main`), and when they have
/// panes the side area right of them and the bottom area under them, each
/// behind a splitter. The areas' sizes are custom properties the splitters
/// change while dragged, capped to a share of the room so the views keep
/// some (less in the embedded viewer, which is smaller): the bottom area
/// never takes the rows the views need for their header and a few lines,
/// so a short window shrinks it rather than drawing one over the other.
fn workspace_style(layout: &Layout, side: bool, bottom: bool, compact: bool) -> String {
    let (side_cap, bottom_cap) = if compact { (50, 50) } else { (70, 75) };
    let columns = if side {
        // Narrow browsers (two compared side by side) keep 60% for the
        // views, wide ones at least 620 px.
        format!("minmax(0,1fr) 6px clamp(10rem,var(--side),min({side_cap}%,max(40%,100% - 620px)))")
    } else {
        "minmax(0,1fr)".to_string()
    };
    let rows = if bottom {
        format!(
            "minmax(0,1fr) 6px clamp(5rem,var(--bottom),min({bottom_cap}%,max(5rem,100% - {MAIN_MIN_HEIGHT})))"
        )
    } else {
        "minmax(0,1fr)".to_string()
    };
    let areas = match (side, bottom) {
        (false, false) => r#""main""#,
        (true, false) => r#""main vsplit side""#,
        (false, true) => r#""main" "hsplit" "bottom""#,
        (true, true) => r#""main vsplit side" "hsplit vsplit side" "bottom vsplit side""#,
    };
    format!(
        "--side:{}px;--bottom:{}px;display:grid;flex:1 1 auto;min-height:0;\
         grid-template-columns:{columns};grid-template-rows:{rows};grid-template-areas:{areas}",
        layout.side_px, layout.bottom_px
    )
}

/// The height the trace views keep beside the bottom area (a view's
/// header and about nine rows), plus the splitter's.
const MAIN_MIN_HEIGHT: &str = "12rem - 6px";

/// A pane's place in its area. No pane is ever drawn over another: when
/// the room is short, panes shrink and scroll inside (their headers stay),
/// and only when even their smallest sizes do not fit does the area
/// scroll. In the side column the register and memory panes take their
/// height (shrinking to a few rows when the column is short), and the
/// lists (the call stack, events, watch, why, bookmarks) and the source
/// and reports share the rest; in the bottom row memory panes take their
/// width and the others share the rest, the wide ones (`Entry::wide`: the
/// reports, tables) twice as much, none narrower than a share of the row
/// that lets three fit.
fn area_item_style(area: Area, slot: Slot, collapsed: bool) -> &'static str {
    match (area, slot, collapsed) {
        (_, _, true) => "flex:0 0 auto;min-width:0;display:flex;flex-direction:column;",
        (Area::Side, Slot::REGISTERS | Slot::MEMORY, _) => {
            "flex:0 1 auto;min-height:4rem;min-width:0;overflow:auto;display:flex;flex-direction:column;"
        }
        (Area::Side, _, _) => {
            "flex:1 1 0;min-height:6rem;min-width:0;overflow:auto;display:flex;flex-direction:column;"
        }
        (Area::Bottom, slot, _) if slot.entry().wide => {
            "flex:2 1 0;min-width:min(20rem,35%);min-height:0;overflow:auto;display:flex;flex-direction:column;"
        }
        // Its 16 bytes a row whole, while the room allows.
        (Area::Bottom, Slot::MEMORY, _) => {
            "flex:0 1 auto;min-width:min(14rem,30%);min-height:0;overflow:auto;display:flex;flex-direction:column;"
        }
        (Area::Bottom, _, _) => {
            "flex:1 1 0;min-width:min(16rem,30%);min-height:0;overflow:auto;display:flex;flex-direction:column;"
        }
    }
}
