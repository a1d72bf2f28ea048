//! A toolbar button that opens a list of more buttons, so the toolbar keeps
//! one row: it closes when one of them is used, on Escape, or when the
//! focus leaves it (a click anywhere else). The list stays in the page
//! while closed (hidden), so its toggles' state can be read.

use wasm_bindgen::JsCast;
use web_sys::{FocusEvent, Node};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ToolbarMenuProps {
    pub label: AttrValue,
    /// `data-testid` of the button (the list's is it with `-list`).
    pub testid: AttrValue,
    /// The list opens leftwards from the button's right edge (a menu near
    /// its pane's right end, which would cut it).
    #[prop_or_default]
    pub end: bool,
    pub children: Html,
}

#[function_component(ToolbarMenu)]
pub fn toolbar_menu(props: &ToolbarMenuProps) -> Html {
    let open = use_state_eq(|| false);
    let root = use_node_ref();
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    // A click on an item runs it (its own handler) and closes the menu.
    let onclick_list = {
        let open = open.clone();
        Callback::from(move |e: MouseEvent| {
            let on_button = e
                .target_dyn_into::<web_sys::Element>()
                .and_then(|el| el.closest("button").ok().flatten())
                .is_some();
            if on_button {
                open.set(false);
            }
        })
    };
    let onfocusout = {
        let open = open.clone();
        let root = root.clone();
        Callback::from(move |e: FocusEvent| {
            let inside = match (root.get(), e.related_target()) {
                (Some(root), Some(to)) => to
                    .dyn_ref::<Node>()
                    .is_some_and(|to| root.contains(Some(to))),
                _ => false,
            };
            if !inside {
                open.set(false);
            }
        })
    };
    let onkeydown = {
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" && *open {
                e.stop_propagation();
                open.set(false);
            }
        })
    };
    html! {
        <div class="toolbar-menu" ref={root} style="position:relative;display:inline-block;" {onfocusout} {onkeydown}>
            <button
                data-testid={props.testid.clone()}
                aria-haspopup="true"
                aria-expanded={open.to_string()}
                onclick={toggle}
            >{ format!("{} ▾", props.label) }</button>
            <div
                class="toolbar-menu-list"
                data-testid={format!("{}-list", props.testid)}
                role="menu"
                hidden={!*open}
                onclick={onclick_list}
                style={if *open {
                    format!("position:absolute;z-index:20;top:100%;{};margin-top:0.2rem;", if props.end { "right:0" } else { "left:0" })
                        + "display:flex;flex-direction:column;align-items:stretch;gap:0.2rem;padding:0.3rem;min-width:12rem;background:var(--panel, #fff);border:1px solid var(--line, #ccc);border-radius:0.4rem;box-shadow:0 4px 14px #0003;"
                } else {
                    "display:none;".to_string()
                }}
            >
                { props.children.clone() }
            </div>
        </div>
    }
}
