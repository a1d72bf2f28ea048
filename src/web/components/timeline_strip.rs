//! The timeline: a thin canvas over the whole trace showing call depth,
//! event markers and mode changes per bucket of nodes, with the active
//! view's visible span and position; a click or a drag moves the view.
//!
//! The canvas has a fixed drawing width, scaled by CSS to the page's width,
//! so drawing never reads layout; only a click reads the strip's width.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::web::page::i18n::{t, use_lang};
use tarmac_lens_core::{
    node_at,
    protocol::{EventKind, NodeId, TimelineReply},
};

/// Drawing size of the canvas, in canvas pixels.
const W: f64 = 1200.0;
const H: f64 = 40.0;
/// The strip's box (its placeholder before the first rows has the same).
pub const TIMELINE_STYLE: &str =
    "display:flex;gap:0.3rem;align-items:center;height:2.6rem;flex:0 0 auto;";

/// Rows at the top for event ticks.
const TICKS: f64 = 6.0;

#[derive(Properties, PartialEq)]
pub struct TimelineStripProps {
    pub data: Option<TimelineReply>,
    /// Nodes the active view shows, first and last.
    pub visible: Option<(NodeId, NodeId)>,
    pub cursor: Option<NodeId>,
    pub on_seek: Callback<NodeId>,
    pub on_close: Callback<()>,
}

/// Canvas x of a node.
fn x_of(node: NodeId, nodes: u64) -> f64 {
    if nodes == 0 {
        0.0
    } else {
        node as f64 * W / nodes as f64
    }
}

/// The depth bars, event ticks and mode changes, on a canvas of their own
/// (transparent where there is none): drawn when the data changes, not at
/// each step, which then only copies them (half a millisecond a step with
/// thousands of bars).
fn draw_bars(data: &TimelineReply) -> Option<HtmlCanvasElement> {
    let canvas = web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into::<HtmlCanvasElement>()
        .ok()?;
    canvas.set_width(W as u32);
    canvas.set_height(H as u32);
    let cx = context(&canvas)?;
    let n = data.depth.len();
    if n == 0 {
        return Some(canvas);
    }
    let bw = W / n as f64;
    let max = f64::from(data.depth.iter().copied().max().unwrap_or(0).max(1));
    cx.set_fill_style_str("#5b8bd0");
    for (i, &d) in data.depth.iter().enumerate() {
        if d > 0 {
            let h = f64::from(d) / max * (H - TICKS - 2.0);
            cx.fill_rect(i as f64 * bw, H - h, bw.max(1.0), h);
        }
    }
    for (i, &k) in data.kinds.iter().enumerate() {
        let x = i as f64 * bw;
        if k & EventKind::ModeChange.bit() != 0 {
            cx.set_fill_style_str("rgba(30,150,60,0.8)");
            cx.fill_rect(x, TICKS, bw.max(1.0), H - TICKS);
        }
        let colour = if k & (EventKind::Exception.bit() | EventKind::Interrupt.bit()) != 0 {
            Some("#d03030")
        } else if k & EventKind::Aborted.bit() != 0 {
            Some("#e08000")
        } else if k & EventKind::Unparsed.bit() != 0 {
            Some("#8040c0")
        } else {
            None
        };
        if let Some(c) = colour {
            cx.set_fill_style_str(c);
            cx.fill_rect(x, 0.0, bw.max(2.0), TICKS);
        }
    }
    Some(canvas)
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()??
        .dyn_into::<CanvasRenderingContext2d>()
        .ok()
}

/// The strip: the span shown underneath, the bars over it (they keep their
/// colours), the span's outline and the position on top.
fn draw(
    canvas: &HtmlCanvasElement,
    data: Option<&TimelineReply>,
    bars: Option<&HtmlCanvasElement>,
    visible: Option<(NodeId, NodeId)>,
    cursor: Option<NodeId>,
) -> Option<()> {
    let cx = context(canvas)?;
    cx.clear_rect(0.0, 0.0, W, H);
    let data = data?;
    if data.depth.is_empty() {
        return Some(());
    }
    let span = visible.map(|(first, last)| {
        let x0 = x_of(first, data.nodes);
        (x0, x_of(last + 1, data.nodes).max(x0 + 2.0))
    });
    if let Some((x0, x1)) = span {
        cx.set_fill_style_str("rgba(255,200,0,0.25)");
        cx.fill_rect(x0, 0.0, x1 - x0, H);
    }
    if let Some(bars) = bars {
        let _ = cx.draw_image_with_html_canvas_element(bars, 0.0, 0.0);
    }
    if let Some((x0, x1)) = span {
        cx.set_stroke_style_str("#c08000");
        cx.stroke_rect(x0 + 0.5, 0.5, x1 - x0 - 1.0, H - 1.0);
    }
    if let Some(c) = cursor {
        // Dark on a light edge: seen on either theme.
        let x = x_of(c, data.nodes);
        cx.set_fill_style_str("#fff");
        cx.fill_rect(x - 1.0, 0.0, 3.5, H);
        cx.set_fill_style_str("#000");
        cx.fill_rect(x, 0.0, 1.5, H);
    }
    Some(())
}

#[function_component(TimelineStrip)]
pub fn timeline_strip(props: &TimelineStripProps) -> Html {
    use_lang();
    let canvas = use_node_ref();
    let bars = use_mut_ref(|| None::<HtmlCanvasElement>);
    {
        let bars = bars.clone();
        use_effect_with(props.data.clone(), move |data| {
            *bars.borrow_mut() = data.as_ref().and_then(draw_bars);
        });
    }
    {
        let canvas = canvas.clone();
        let key = (props.data.clone(), props.visible, props.cursor);
        use_effect_with(key, move |(data, visible, cursor)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                draw(&c, data.as_ref(), bars.borrow().as_ref(), *visible, *cursor);
            }
        });
    }
    let nodes = props.data.as_ref().map_or(0, |d| d.nodes);
    let seek_at = {
        let seek = props.on_seek.clone();
        move |e: &MouseEvent| {
            let Some(el) = e.target_dyn_into::<HtmlCanvasElement>() else {
                return;
            };
            let width = f64::from(el.client_width().max(1));
            seek.emit(node_at(f64::from(e.offset_x()) / width, nodes));
        }
    };
    let onmousedown = {
        let seek_at = seek_at.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            seek_at(&e)
        })
    };
    let onmousemove = Callback::from(move |e: MouseEvent| {
        if e.buttons() & 1 != 0 {
            seek_at(&e)
        }
    });
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <div class="timeline" data-testid="timeline" data-nodes={nodes.to_string()} style={TIMELINE_STYLE}>
            <canvas
                ref={canvas}
                data-testid="timeline-canvas"
                width={W.to_string()}
                height={H.to_string()}
                role="img"
                aria-label={t("Timeline: call depth, events and mode changes over the whole trace; click or drag to move")}
                title={t("Call depth (blue), exceptions (red), aborts (orange), unparsed lines (purple), mode changes (green), the lines shown (yellow); click or drag to move")}
                style="flex:1;min-width:0;width:100%;height:100%;box-sizing:border-box;cursor:pointer;border:1px solid #8884;"
                {onmousedown}
                {onmousemove}
            />
            <button class="close" data-testid="timeline-close" title={t("Close (T)")} onclick={close}>{ "×" }</button>
        </div>
    }
}
