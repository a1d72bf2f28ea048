//! The flame graph on a canvas (`model::flame_graph` holds the zoom, the
//! frames, where each is drawn, the hover and the search): paints it, and
//! shows a hovered frame's name and times.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

use crate::model::flame_graph::{FlameGraphState, FlameMsg, ROW};
use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::Flame;

#[derive(Properties, PartialEq)]
pub struct FlameGraphProps {
    pub client: ReportClient,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Graph(FlameMsg),
    Key(KeyboardEvent),
    /// The canvas's box changed width (a splitter, a pane beside it).
    Resized,
}

/// Paints `model::flame_graph` and carries its questions to the worker.
pub struct FlameGraph {
    model: FlameGraphState,
    canvas: NodeRef,
    /// The zoom root last scrolled to: a new one's base frames are brought
    /// into sight once (a person scrolling up to the top frames stays there).
    scrolled_for: std::cell::Cell<Option<u32>>,
    /// Redraws at the new width when the box around the canvas resizes.
    resize: Option<(
        web_sys::ResizeObserver,
        wasm_bindgen::closure::Closure<dyn FnMut()>,
    )>,
    _lang: LangWatch,
}

fn hue(name: &str) -> u32 {
    // FNV-1a: a stable colour per function, warm hues only.
    let h = name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h % 55
}

impl FlameGraph {
    /// Asks the worker for the frames the model wants.
    fn ask(&mut self, ctx: &Context<Self>) {
        for root in self.model.take_asks() {
            let link = ctx.link().clone();
            ctx.props().client.ask(Flame { root }, move |reply| {
                link.send_message(Msg::Graph(FlameMsg::View(root, reply)))
            });
        }
    }

    /// The width the canvas's box gives, in CSS pixels.
    fn measure(&self) -> Option<f64> {
        self.canvas
            .cast::<HtmlCanvasElement>()
            .and_then(|c| c.parent_element())
            .map(|p| f64::from(p.client_width().max(100)))
    }

    fn draw(&self) {
        let Some(canvas) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let model = &self.model;
        if model.view.is_none() {
            return;
        }
        let max_depth = model.max_depth();
        let width = model.width;
        let height = (f64::from(max_depth) + 1.0) * ROW;
        // Device pixels, so frames and names are sharp on high-density screens.
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0));
        canvas.set_width((width * dpr) as u32);
        canvas.set_height((height * dpr) as u32);
        // The whole style: Yew sets this attribute only when its own
        // value changes, which it never does.
        let _ = canvas.set_attribute(
            "style",
            &format!("display:block;cursor:pointer;width:{width}px;height:{height}px;"),
        );
        // The base frames are at the bottom: in a box too short for the
        // whole graph, they are what is shown first.
        if self.scrolled_for.get() != Some(model.root) {
            self.scrolled_for.set(Some(model.root));
            if let Ok(Some(panel)) = canvas.closest("[role=tabpanel]") {
                panel.set_scroll_top(panel.scroll_height());
            }
        }
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        ctx.set_font("12px monospace");
        ctx.set_text_baseline("middle");
        let searching = !model.search.is_empty();
        for (i, (f, x, y, w)) in model.placed().enumerate() {
            if w < 0.5 {
                continue;
            }
            let colour = if model.hover == Some(i) {
                "hsl(200, 70%, 65%)".to_string()
            } else if model.matches(f) {
                "hsl(300, 70%, 65%)".to_string()
            } else if searching {
                "hsl(0, 0%, 78%)".to_string()
            } else {
                format!("hsl({}, 85%, 62%)", hue(&f.name))
            };
            ctx.set_fill_style_str(&colour);
            ctx.fill_rect(x, y, (w - 1.0).max(0.5), ROW - 1.0);
            // A name where it fits (about 7 px per character).
            let room = ((w - 6.0) / 7.0).floor();
            if room >= 3.0 {
                let chars: Vec<char> = f.name.chars().collect();
                let text: String = if chars.len() as f64 <= room {
                    f.name.clone()
                } else {
                    chars[..room as usize - 1].iter().collect::<String>() + "…"
                };
                ctx.set_fill_style_str("#000");
                let _ = ctx.fill_text(&text, x + 3.0, y + ROW / 2.0);
            }
        }
    }
}

impl Component for FlameGraph {
    type Message = Msg;
    type Properties = FlameGraphProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut g = FlameGraph {
            model: FlameGraphState::default(),
            canvas: NodeRef::default(),
            scrolled_for: std::cell::Cell::new(None),
            resize: None,
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        g.ask(ctx);
        g
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let changed = match msg {
            Msg::Lang => true,
            Msg::Graph(msg) => self.model.update(msg),
            Msg::Resized => self.measure().is_some_and(|w| w != self.model.width),
            Msg::Key(e) => {
                if e.key() != "Escape" {
                    return false;
                }
                // Handled here: the trace browser's keys are not for this.
                e.prevent_default();
                e.stop_propagation();
                self.model.update(FlameMsg::Escape)
            }
        };
        self.ask(ctx);
        changed
    }

    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if first {
            let link = ctx.link().clone();
            let on_resize = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
                link.send_message(Msg::Resized)
            });
            let parent = self
                .canvas
                .cast::<HtmlCanvasElement>()
                .and_then(|c| c.parent_element());
            if let (Ok(observer), Some(parent)) = (
                web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()),
                parent,
            ) {
                observer.observe(&parent);
                self.resize = Some((observer, on_resize));
            }
        }
        if let Some(width) = self.measure() {
            self.model.update(FlameMsg::Width(width));
        }
        self.draw();
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        if let Some((observer, _)) = self.resize.take() {
            observer.disconnect();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let at = |e: &MouseEvent| (f64::from(e.offset_x()), f64::from(e.offset_y()));
        let onmousemove = link.callback(move |e: MouseEvent| {
            let (x, y) = at(&e);
            Msg::Graph(FlameMsg::Hover(x, y))
        });
        let onclick = link.callback(move |e: MouseEvent| {
            let (x, y) = at(&e);
            Msg::Graph(FlameMsg::Click(x, y))
        });
        let oninput = link.callback(|e: InputEvent| {
            let v = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .map(|i| i.value())
                .unwrap_or_default();
            Msg::Graph(FlameMsg::Search(v))
        });
        let model = &self.model;
        let view = model.view.as_ref();
        let root = view.and_then(|v| v.frames.first());
        let matching = view.map_or(0, |v| v.frames.iter().filter(|f| model.matches(f)).count());
        let hovered = model.hovered();
        let tip = match (hovered, root) {
            (Some(f), Some(r)) => tf(
                "{}: time {} ({}% of {}), own time {}",
                &[
                    &f.name,
                    &f.total,
                    &format!(
                        "{:.1}",
                        if r.total == 0 {
                            0.0
                        } else {
                            f.total as f64 * 100.0 / r.total as f64
                        }
                    ),
                    &r.name,
                    &f.own,
                ],
            ),
            _ => {
                t("Click a frame to zoom into it, the bottom frame or Esc to zoom out.").to_string()
            }
        };
        html! {
            <div
                class="flame-graph"
                data-testid="flame-graph"
                tabindex="0"
                onkeydown={link.callback(Msg::Key)}
                style="display:flex;flex-direction:column;gap:0.3rem;outline:none;"
            >
                // One row: the search, the zoom path, then what is hovered
                // (cut short, whole in its title), so the frames keep the room.
                <div style="display:flex;gap:0.3rem;align-items:center;min-width:0;">
                    <input
                        type="search"
                        data-testid="flame-search"
                        placeholder={t("highlight functions…")}
                        aria-label={t("highlight functions")}
                        value={model.search.clone()}
                        {oninput}
                    />
                    if !model.search.is_empty() {
                        <span data-testid="flame-matches" data-count={matching.to_string()}>{ tn(matching as u64, "{} matching frame", "{} matching frames", &[&number(matching as u64)]) }</span>
                    }
                    <nav aria-label={t("zoom")} data-testid="flame-path" style="display:flex;gap:0.2rem;align-items:center;flex:0 1 auto;min-width:0;overflow:hidden;">
                        { for view.into_iter().flat_map(|v| v.ancestors.iter()).map(|a| {
                            let id = a.id;
                            html! { <button data-testid="flame-ancestor" onclick={link.callback(move |_| Msg::Graph(FlameMsg::Zoom(id)))}>{ a.name.clone() }</button> }
                        }) }
                        if let Some(r) = root {
                            <strong>{ r.name.clone() }</strong>
                        }
                    </nav>
                    <div data-testid="flame-tooltip"
                        data-name={hovered.map(|f| f.name.clone())}
                        data-total={hovered.map(|f| f.total.to_string())}
                        data-own={hovered.map(|f| f.own.to_string())}
                        title={tip.clone()}
                        style="flex:1 1 0;min-width:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font-family:var(--mono, monospace);font-size:0.85rem;">
                        { tip.clone() }
                    </div>
                </div>
                if let Some(e) = &model.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                <div style="width:100%;">
                    <canvas
                        ref={self.canvas.clone()}
                        data-testid="flame-canvas"
                        data-root={root.map(|r| r.name.clone())}
                        data-root-id={model.root.to_string()}
                        data-frames={view.map(|v| v.frames.len().to_string())}
                        data-depth={model.max_depth().to_string()}
                        role="img"
                        aria-label={t("flame graph")}
                        style="display:block;cursor:pointer;"
                        {onmousemove}
                        {onclick}
                        onmouseleave={link.callback(|_| Msg::Graph(FlameMsg::Leave))}
                    />
                </div>
                if let Some(v) = view {
                    if v.omitted > 0 {
                        <p style="opacity:0.7;">{ tn(v.omitted, "{} frame too narrow to draw is left out; zoom in to see it.", "{} frames too narrow to draw are left out; zoom in to see them.", &[&number(v.omitted)]) }</p>
                    }
                }
            </div>
        }
    }
}
