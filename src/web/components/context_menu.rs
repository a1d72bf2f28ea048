//! A right-click menu: a list of labelled actions at the pointer.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ContextMenuProps {
    pub x: i32,
    pub y: i32,
    pub items: Vec<AttrValue>,
    pub on_pick: Callback<usize>,
    pub on_close: Callback<()>,
}

#[function_component(ContextMenu)]
pub fn context_menu(props: &ContextMenuProps) -> Html {
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <>
            // Catches the click outside the menu that dismisses it.
            <div class="menu-backdrop" style="position:fixed;inset:0;z-index:29;" onclick={close.clone()} oncontextmenu={Callback::from(move |e: MouseEvent| { e.prevent_default(); close.emit(e); })} />
            <ul
                class="context-menu"
                data-testid="context-menu"
                role="menu"
                style={format!("position:fixed;left:{}px;top:{}px;z-index:30;list-style:none;margin:0;padding:0.25rem 0;border:1px solid #94a3b8;border-radius:0.35rem;background:Canvas;color:CanvasText;box-shadow:0 4px 12px rgb(0 0 0 / 0.2);", props.x, props.y)}
            >
                { for props.items.iter().enumerate().map(|(i, label)| html! {
                    <li role="menuitem" style="padding:0.2rem 0.9rem;cursor:pointer;white-space:nowrap;" onclick={props.on_pick.reform(move |_: MouseEvent| i)}>{ label.clone() }</li>
                }) }
            </ul>
        </>
    }
}
