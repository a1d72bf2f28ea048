//! A splitter between the trace views and the side or bottom area: drag it
//! with the mouse (or touch), or focus it and use the arrow keys (Home and
//! End: smallest and largest). While a drag lasts it only rewrites the
//! workspace's `--side` / `--bottom` custom property, so the browser is not
//! rendered again per pointer move; the size goes to the model (and is
//! kept) when the drag ends.

use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, ResizeObserver};
use yew::prelude::*;

use crate::model::layout::{MAX_PX, MIN_PX, STEP_PX};
use crate::web::page::i18n::{t, use_lang};

/// Which area a splitter sizes: the side area right of it (a vertical
/// bar, dragged sideways) or the bottom area under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    Side,
    Bottom,
}

impl Sizes {
    fn var(self) -> &'static str {
        match self {
            Sizes::Side => "--side",
            Sizes::Bottom => "--bottom",
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct SplitterProps {
    pub sizes: Sizes,
    /// The area's size as the model has it (the page may show it smaller).
    pub px: u32,
    pub on_size: Callback<u32>,
}

/// The area this splitter sizes, as drawn: the element after it in the
/// workspace with its `data-area`.
fn area(splitter: &Element, sizes: Sizes) -> Option<HtmlElement> {
    let workspace = splitter.parent_element()?;
    let name = match sizes {
        Sizes::Side => "side",
        Sizes::Bottom => "bottom",
    };
    workspace
        .query_selector(&format!(":scope > [data-area={name}]"))
        .ok()
        .flatten()?
        .dyn_into()
        .ok()
}

fn shown_px(splitter: &Element, sizes: Sizes) -> Option<i32> {
    let area = area(splitter, sizes)?;
    Some(match sizes {
        Sizes::Side => area.offset_width(),
        Sizes::Bottom => area.offset_height(),
    })
}

/// Sets the workspace's custom property for the area's size in place.
fn set_var(splitter: &Element, sizes: Sizes, px: i32) {
    let Some(workspace) = splitter.parent_element() else {
        return;
    };
    let style = workspace.get_attribute("style").unwrap_or_default();
    let var = sizes.var();
    let kept: Vec<&str> = style
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.starts_with(&format!("{var}:")))
        .collect();
    let _ = workspace.set_attribute("style", &format!("{};{var}:{px}px", kept.join(";")));
}

fn clamp(px: i32) -> u32 {
    px.clamp(MIN_PX as i32, MAX_PX as i32) as u32
}

/// Sets the splitter's `aria-valuenow` to the size its area is shown at.
fn say_shown(splitter: &Element, sizes: Sizes) {
    if let Some(px) = shown_px(splitter, sizes) {
        let _ = splitter.set_attribute("aria-valuenow", &px.to_string());
    }
}

#[function_component(Splitter)]
pub fn splitter(props: &SplitterProps) -> Html {
    use_lang();
    let node = use_node_ref();
    // Where a drag started: pointer position along the axis, and the
    // area's shown size then.
    let drag = use_mut_ref(|| None::<(i32, i32)>);
    let sizes = props.sizes;
    let along = move |e: &PointerEvent| match sizes {
        Sizes::Side => e.client_x(),
        Sizes::Bottom => e.client_y(),
    };
    // The area is right of (under) the splitter: moving left (up) grows it.
    let size_at = move |start: (i32, i32), e: &PointerEvent| start.1 - (along(e) - start.0);
    let onpointerdown = {
        let drag = drag.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let Some(el) = e.target_dyn_into::<Element>() else {
                return;
            };
            let Some(px) = shown_px(&el, sizes) else {
                return;
            };
            e.prevent_default();
            let _ = el.set_pointer_capture(e.pointer_id());
            *drag.borrow_mut() = Some((along(&e), px));
        })
    };
    let onpointermove = {
        let drag = drag.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(start) = *drag.borrow() else { return };
            if let Some(el) = e.target_dyn_into::<Element>() {
                set_var(&el, sizes, clamp(size_at(start, &e)) as i32);
            }
        })
    };
    let end = {
        let drag = drag.clone();
        let on_size = props.on_size.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(start) = drag.borrow_mut().take() else {
                return;
            };
            // What the page shows, which its caps may have made smaller
            // than asked: kept as the size, so a key step starts from it.
            let shown = e
                .target_dyn_into::<Element>()
                .and_then(|el| shown_px(&el, sizes));
            let asked = clamp(size_at(start, &e));
            on_size.emit(shown.map_or(asked, |s| asked.min(clamp(s))));
        })
    };
    let onkeydown = {
        let on_size = props.on_size.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(el) = e.target_dyn_into::<Element>() else {
                return;
            };
            let shown = shown_px(&el, sizes).unwrap_or(0);
            let step = STEP_PX as i32 * if e.shift_key() { 4 } else { 1 };
            let px = match (sizes, e.key().as_str()) {
                (Sizes::Side, "ArrowLeft") | (Sizes::Bottom, "ArrowUp") => shown + step,
                (Sizes::Side, "ArrowRight") | (Sizes::Bottom, "ArrowDown") => shown - step,
                (_, "Home") => MIN_PX as i32,
                (_, "End") => MAX_PX as i32,
                _ => return,
            };
            // The splitter's keys, not the browser's (which moves the
            // position with the arrows).
            e.prevent_default();
            e.stop_propagation();
            // What the page can show of it (End asks for more than any
            // window has): kept as the size, as a drag's end keeps it, so
            // the next step starts from what is seen.
            let asked = clamp(px);
            set_var(&el, sizes, asked as i32);
            let kept = shown_px(&el, sizes).map_or(asked, |s| asked.min(clamp(s)));
            set_var(&el, sizes, kept as i32);
            on_size.emit(kept);
        })
    };
    // `aria-valuenow` is the size shown, which the page's caps (a share
    // of the window) may make smaller than the size kept: set once the
    // layout is done, after each change of size and whenever the area is
    // resized (the window, the other splitter).
    {
        let node = node.clone();
        use_effect_with(props.px, move |_| {
            if let Some(el) = node.cast::<Element>() {
                say_shown(&el, sizes);
            }
        });
    }
    {
        let node = node.clone();
        use_effect_with((), move |_| {
            let observer = node.cast::<Element>().and_then(|el| {
                let target = area(&el, sizes)?;
                let on_resize = Closure::<dyn FnMut()>::new(move || say_shown(&el, sizes));
                let observer = ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
                observer.observe(&target);
                Some((observer, on_resize))
            });
            move || {
                if let Some((observer, _on_resize)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    let (orientation, label) = match sizes {
        Sizes::Side => ("vertical", t("Resize the side area")),
        Sizes::Bottom => ("horizontal", t("Resize the bottom area")),
    };
    html! {
        <div
            ref={node}
            class={classes!("splitter", format!("splitter-{}", match sizes { Sizes::Side => "side", Sizes::Bottom => "bottom" }))}
            data-testid={match sizes { Sizes::Side => "splitter-side", Sizes::Bottom => "splitter-bottom" }}
            role="separator"
            tabindex="0"
            aria-orientation={orientation}
            aria-label={label}
            title={label}
            aria-valuenow={props.px.to_string()}
            aria-valuemin={MIN_PX.to_string()}
            aria-valuemax={MAX_PX.to_string()}
            style={match sizes {
                Sizes::Side => "grid-area:vsplit;cursor:col-resize;touch-action:none;",
                Sizes::Bottom => "grid-area:hsplit;cursor:row-resize;touch-action:none;",
            }}
            {onpointerdown}
            {onpointermove}
            onpointerup={end.clone()}
            onpointercancel={end}
            {onkeydown}
        ></div>
    }
}
