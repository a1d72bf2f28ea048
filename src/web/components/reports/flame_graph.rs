//! The flame graph on a canvas: the outermost function at the bottom, each
//! call stack a frame as wide as its time. A click on a frame zooms into it
//! (the report worker sends the frames under it, those wide enough to see);
//! a click on the bottom frame zooms out a level, Esc all the way. Hovering
//! shows a frame's name and times; the search box highlights frames whose
//! name contains the text.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::Flame;
use tarmac_lens_core::report::explore::{FlameFrame, FlameView};

/// Height of a frame, in CSS pixels.
const ROW: f64 = 18.0;

#[derive(Properties, PartialEq)]
pub struct FlameGraphProps {
    pub client: ReportClient,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Zoom(u32),
    View(u32, Result<FlameView, String>),
    Hover(f64, f64),
    Leave,
    Click(f64, f64),
    Search(String),
    Key(KeyboardEvent),
    /// The canvas's box changed width (a splitter, a pane beside it).
    Resized,
}

pub struct FlameGraph {
    /// Width drawn at, in CSS pixels (the canvas has device pixels).
    css_width: std::cell::Cell<f64>,
    root: u32,
    view: Option<FlameView>,
    hover: Option<usize>,
    search: String,
    canvas: NodeRef,
    error: Option<String>,
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
    fn zoom(&mut self, ctx: &Context<Self>, root: u32) {
        self.root = root;
        self.hover = None;
        let link = ctx.link().clone();
        ctx.props().client.ask(Flame { root }, move |reply| {
            link.send_message(Msg::View(root, reply))
        });
    }

    fn max_depth(&self) -> u32 {
        self.view
            .as_ref()
            .map_or(0, |v| v.frames.iter().map(|f| f.depth).max().unwrap_or(0))
    }

    fn width(&self) -> f64 {
        self.css_width.get()
    }

    /// Pixels per unit of time.
    fn scale(&self) -> f64 {
        let total = self
            .view
            .as_ref()
            .and_then(|v| v.frames.first())
            .map_or(0, |f| f.total);
        if total == 0 {
            0.0
        } else {
            self.width() / total as f64
        }
    }

    fn rect(&self, f: &FlameFrame, scale: f64, max_depth: u32) -> (f64, f64, f64) {
        let x = f.start as f64 * scale;
        let w = f.total as f64 * scale;
        let y = f64::from(max_depth - f.depth.min(max_depth)) * ROW;
        (x, y, w)
    }

    fn hit(&self, x: f64, y: f64) -> Option<usize> {
        let view = self.view.as_ref()?;
        let (scale, max_depth) = (self.scale(), self.max_depth());
        view.frames.iter().position(|f| {
            let (fx, fy, fw) = self.rect(f, scale, max_depth);
            x >= fx && x < fx + fw && y >= fy && y < fy + ROW
        })
    }

    fn matches(&self, f: &FlameFrame) -> bool {
        !self.search.is_empty() && f.name.to_lowercase().contains(&self.search.to_lowercase())
    }

    fn draw(&self) {
        let Some(canvas) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let Some(view) = &self.view else { return };
        let max_depth = self.max_depth();
        let width = f64::from(
            canvas
                .parent_element()
                .map_or(800, |p| p.client_width().max(100)),
        );
        let height = (f64::from(max_depth) + 1.0) * ROW;
        // Device pixels, so frames and names are sharp on high-density screens.
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0));
        self.css_width.set(width);
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
        if self.scrolled_for.get() != Some(self.root) {
            self.scrolled_for.set(Some(self.root));
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
        let scale = self.scale();
        ctx.set_font("12px monospace");
        ctx.set_text_baseline("middle");
        let searching = !self.search.is_empty();
        for (i, f) in view.frames.iter().enumerate() {
            let (x, y, w) = self.rect(f, scale, max_depth);
            if w < 0.5 {
                continue;
            }
            let colour = if self.hover == Some(i) {
                "hsl(200, 70%, 65%)".to_string()
            } else if self.matches(f) {
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
            css_width: std::cell::Cell::new(0.0),
            root: 0,
            view: None,
            hover: None,
            search: String::new(),
            canvas: NodeRef::default(),
            error: None,
            scrolled_for: std::cell::Cell::new(None),
            resize: None,
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        g.zoom(ctx, 0);
        g
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Lang => {}
            Msg::Zoom(root) => self.zoom(ctx, root),
            Msg::View(root, reply) => {
                if root != self.root {
                    return false;
                }
                match reply {
                    Ok(v) => {
                        self.view = Some(v);
                        self.error = None;
                    }
                    Err(e) => {
                        self.view = None;
                        self.error = Some(if root == 0 {
                            t("The trace has no calls to draw.").to_string()
                        } else {
                            e
                        });
                    }
                }
            }
            Msg::Hover(x, y) => {
                let h = self.hit(x, y);
                if h == self.hover {
                    return false;
                }
                self.hover = h;
            }
            Msg::Leave => {
                if self.hover.is_none() {
                    return false;
                }
                self.hover = None;
            }
            Msg::Click(x, y) => {
                let Some(i) = self.hit(x, y) else {
                    return false;
                };
                let Some(view) = &self.view else { return false };
                let target = if i == 0 {
                    // The zoom root: one level out.
                    match view.ancestors.last() {
                        Some(a) => a.id,
                        None => return false,
                    }
                } else {
                    view.frames[i].id
                };
                self.zoom(ctx, target);
            }
            Msg::Search(s) => self.search = s,
            Msg::Resized => {
                let width = self
                    .canvas
                    .cast::<HtmlCanvasElement>()
                    .and_then(|c| c.parent_element())
                    .map(|p| f64::from(p.client_width().max(100)));
                return width.is_some_and(|w| w != self.css_width.get());
            }
            Msg::Key(e) => {
                if e.key() != "Escape" {
                    return false;
                }
                // Handled here: the trace browser's keys are not for this.
                e.prevent_default();
                e.stop_propagation();
                if self.root != 0 {
                    self.zoom(ctx, 0);
                }
            }
        }
        true
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
            Msg::Hover(x, y)
        });
        let onclick = link.callback(move |e: MouseEvent| {
            let (x, y) = at(&e);
            Msg::Click(x, y)
        });
        let oninput = link.callback(|e: InputEvent| {
            let v = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
                .map(|i| i.value())
                .unwrap_or_default();
            Msg::Search(v)
        });
        let view = self.view.as_ref();
        let root = view.and_then(|v| v.frames.first());
        let matching = view.map_or(0, |v| v.frames.iter().filter(|f| self.matches(f)).count());
        let hovered = self.hover.and_then(|i| view.and_then(|v| v.frames.get(i)));
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
                        value={self.search.clone()}
                        {oninput}
                    />
                    if !self.search.is_empty() {
                        <span data-testid="flame-matches" data-count={matching.to_string()}>{ tn(matching as u64, "{} matching frame", "{} matching frames", &[&number(matching as u64)]) }</span>
                    }
                    <nav aria-label={t("zoom")} data-testid="flame-path" style="display:flex;gap:0.2rem;align-items:center;flex:0 1 auto;min-width:0;overflow:hidden;">
                        { for view.into_iter().flat_map(|v| v.ancestors.iter()).map(|a| {
                            let id = a.id;
                            html! { <button data-testid="flame-ancestor" onclick={link.callback(move |_| Msg::Zoom(id))}>{ a.name.clone() }</button> }
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
                if let Some(e) = &self.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                <div style="width:100%;">
                    <canvas
                        ref={self.canvas.clone()}
                        data-testid="flame-canvas"
                        data-root={root.map(|r| r.name.clone())}
                        data-root-id={self.root.to_string()}
                        data-frames={view.map(|v| v.frames.len().to_string())}
                        data-depth={self.max_depth().to_string()}
                        role="img"
                        aria-label={t("flame graph")}
                        style="display:block;cursor:pointer;"
                        {onmousemove}
                        {onclick}
                        onmouseleave={link.callback(|_| Msg::Leave)}
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
