//! Where a trace enters the page: drag and drop, or a file picker.

use wasm_bindgen::JsCast;
use web_sys::{DragEvent, HtmlInputElement};
use yew::prelude::*;

use crate::web::page::i18n::{t, use_lang};

#[derive(Properties, PartialEq)]
pub struct DropZoneProps {
    pub on_file: Callback<web_sys::File>,
    /// A file is being indexed; a new one replaces it.
    #[prop_or_default]
    pub busy: bool,
    /// A trace is open: the zone shrinks to a strip to leave room.
    #[prop_or_default]
    pub compact: bool,
}

#[function_component(DropZone)]
pub fn drop_zone(props: &DropZoneProps) -> Html {
    use_lang();
    let hovering = use_state_eq(|| false);
    // dragenter/dragleave also fire when the pointer crosses child elements;
    // counting them tells leaving the zone from moving within it.
    let depth = use_mut_ref(|| 0u32);

    // Without preventDefault on dragover the browser refuses the drop and
    // opens the file itself instead.
    let on_drag_over = Callback::from(|e: DragEvent| {
        e.prevent_default();
        if let Some(dt) = e.data_transfer() {
            dt.set_drop_effect("copy");
        }
    });
    let on_drag_enter = {
        let hovering = hovering.clone();
        let depth = depth.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            *depth.borrow_mut() += 1;
            hovering.set(true);
        })
    };
    let on_drag_leave = {
        let hovering = hovering.clone();
        let depth = depth.clone();
        Callback::from(move |_: DragEvent| {
            let mut d = depth.borrow_mut();
            *d = d.saturating_sub(1);
            if *d == 0 {
                hovering.set(false);
            }
        })
    };
    let on_drop = {
        let hovering = hovering.clone();
        let on_file = props.on_file.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            *depth.borrow_mut() = 0;
            hovering.set(false);
            // A trace and its ELF image may be dropped together.
            if let Some(files) = e.data_transfer().and_then(|dt| dt.files()) {
                for i in 0..files.length() {
                    if let Some(file) = files.get(i) {
                        on_file.emit(file);
                    }
                }
            }
        })
    };
    let on_change = {
        let on_file = props.on_file.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            else {
                return;
            };
            if let Some(files) = input.files() {
                for i in 0..files.length() {
                    if let Some(file) = files.get(i) {
                        on_file.emit(file);
                    }
                }
            }
            // Lets the same file be picked again (e.g. after it changed on disk).
            input.set_value("");
        })
    };

    let border = if *hovering { "#2563eb" } else { "#94a3b8" };
    if props.compact {
        // A trace is open: a small target in the header, the picker a button.
        return html! {
            <section
                class={classes!("drop-zone", "compact", hovering.then_some("hovering"))}
                data-testid="drop-zone"
                title={t("Drop another trace to replace this one, or its ELF image for symbols")}
                style={format!("display:flex;align-items:center;gap:0.4rem;padding:0.05rem 0.2rem 0.05rem 0.6rem;border:2px dashed {border};border-radius:0.5rem;")}
                ondragover={on_drag_over}
                ondragenter={on_drag_enter}
                ondragleave={on_drag_leave}
                ondrop={on_drop}
            >
                <span>{ t("Drop another trace here, or") }</span>
                <label class="file-button">
                    { t("Open…") }
                    <input type="file" multiple=true data-testid="file-input" style="display:none;" onchange={on_change} />
                </label>
            </section>
        };
    }
    let style = format!(
        "display:flex;flex-direction:column;align-items:center;justify-content:center;\
         gap:0.5rem;min-height:8rem;padding:1.5rem;border:2px dashed {border};\
         border-radius:0.75rem;text-align:center;"
    );
    html! {
        <section
            class={classes!("drop-zone", hovering.then_some("hovering"))}
            data-testid="drop-zone"
            style={style}
            ondragover={on_drag_over}
            ondragenter={on_drag_enter}
            ondragleave={on_drag_leave}
            ondrop={on_drop}
        >
            <p style="margin:0;font-size:1.1rem;">
                { if props.busy { t("Drop another trace to replace this one, or its ELF image for symbols") } else { t("Drop a Tarmac trace here (with its ELF image, for symbols)") } }
            </p>
            <label class="file-picker">
                { t("or choose a file: ") }
                <input type="file" multiple=true data-testid="file-input" onchange={on_change} />
            </label>
        </section>
    }
}
