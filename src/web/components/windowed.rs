//! A long list of rows of one height, drawn only where it is in sight: the
//! rows a person can see and a few around them, under a spacer as tall as
//! the whole list. Ten thousand rows in the page made every step lay out
//! 91,000 boxes (20 ms; docs/performance.md, the watch pane).

use std::cell::Cell;
use std::ops::Range;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, ResizeObserver, ResizeObserverEntry};
use yew::prelude::*;

/// Rows drawn beyond each edge of the sight, so that a scroll shows rows
/// at once while the next render comes.
const AROUND: usize = 8;

/// What a windowed list draws and how it follows its scroller.
pub struct Window {
    /// The rows to draw.
    pub rows: Range<usize>,
    /// The scroller's ref.
    pub scroller: NodeRef,
    /// The scroller's `onscroll`.
    pub onscroll: Callback<Event>,
}

/// The rows of a list of `count` rows of `row_px` each to draw, from its
/// scroller's position and height, and the row `keep` brought into sight
/// when it changes (centred). The height comes from a ResizeObserver
/// (after layout, so reading it forces none); the observer attaches once
/// the scroller is in the page (`count > 0`).
#[hook]
pub fn use_window(count: usize, row_px: f64, keep: Option<usize>) -> Window {
    let scroller = use_node_ref();
    let scroll_top = use_state_eq(|| 0.0f64);
    // Until the observer says: a tall window's worth.
    let height = use_height(scroller.clone(), count > 0, 1200.0, Callback::noop());
    {
        // From the states, not the scroller: a read would force a layout.
        let scroller = scroller.clone();
        let scroll_top = scroll_top.clone();
        use_effect_with(keep, move |keep| {
            if let (Some(i), Some(el)) = (*keep, scroller.cast::<Element>()) {
                let y = i as f64 * row_px;
                if y < *scroll_top || y + row_px > *scroll_top + height {
                    let top = (y - height / 2.0).max(0.0);
                    el.set_scroll_top(top as i32);
                    scroll_top.set(top);
                }
            }
        });
    }
    let onscroll = {
        let scroller = scroller.clone();
        let scroll_top = scroll_top.clone();
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<Element>() {
                scroll_top.set(el.scroll_top() as f64);
            }
        })
    };
    let top = (*scroll_top / row_px).floor() as usize;
    let in_sight = (height / row_px).ceil() as usize + 1;
    let rows = top.saturating_sub(AROUND).min(count)..(top + in_sight + AROUND).min(count);
    Window {
        rows,
        scroller,
        onscroll,
    }
}

/// A scroller's height in px, from a ResizeObserver: it runs after layout,
/// so the read forces none (reading it after every render forced a layout
/// into every step, tens of ms). The observer attaches once `attached` is
/// true (the scroller is in the page); `on_change` hears each new height.
/// A height of zero (a hidden tab or a collapsed pane) keeps the last.
#[hook]
pub fn use_height(
    scroller: NodeRef,
    attached: bool,
    initial: f64,
    on_change: Callback<f64>,
) -> f64 {
    let height = use_state_eq(|| initial);
    // The observer outlives renders; it calls the latest callback.
    let latest = use_mut_ref(|| on_change.clone());
    *latest.borrow_mut() = on_change;
    {
        let height = height.clone();
        use_effect_with(attached, move |_| {
            let observer = scroller.cast::<Element>().and_then(|el| {
                let last = Cell::new(0.0f64);
                let on_resize =
                    Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                        let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() else {
                            return;
                        };
                        let h = entry.target().client_height() as f64;
                        if h > 0.0 && h != last.get() {
                            last.set(h);
                            height.set(h);
                            let on_change = latest.borrow().clone();
                            on_change.emit(h);
                        }
                    });
                let observer = ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
                observer.observe(&el);
                Some((observer, on_resize))
            });
            move || {
                if let Some((observer, _on_resize)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    *height
}
