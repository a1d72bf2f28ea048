//! A memory pane: hex and ASCII, 16 bytes a row, unknown bytes as `??` and
//! bytes changed since the compared position marked.

use web_sys::WheelEvent;
use yew::prelude::*;

use tarmac_lens_core::protocol::MemoryReply;

#[derive(Properties, PartialEq)]
pub struct MemoryPaneProps {
    pub memory: Option<MemoryReply>,
    pub selected: u64,
    pub note: Option<String>,
    pub on_pick: Callback<u64>,
    pub on_context: Callback<(u64, i32, i32)>,
    /// Wheel: rows of 16 bytes to scroll by (negative: up).
    pub on_scroll: Callback<i64>,
}

#[function_component(MemoryPane)]
pub fn memory_pane(props: &MemoryPaneProps) -> Html {
    let Some(mem) = &props.memory else {
        return html! { <p class="pane-empty" style="margin:0.25rem 0.5rem;">{ "Reading memory…" }</p> };
    };
    let rows = mem.bytes.len().div_ceil(16);
    let on_scroll = props.on_scroll.clone();
    let onwheel = Callback::from(move |e: WheelEvent| {
        // Memory has no end to scroll to: the pane reads the next rows.
        e.prevent_default();
        let rows = if e.delta_y() > 0.0 { 2 } else { -2 };
        on_scroll.emit(rows);
    });
    html! {
        <>
            <div class="memory" {onwheel} style="padding:0.25rem 0.5rem;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:pre;">
                { for (0..rows).map(|r| {
                    let base = mem.addr.wrapping_add(r as u64 * 16);
                    let range = r * 16..((r + 1) * 16).min(mem.bytes.len());
                    let ascii: String = range.clone().map(|i| {
                        let b = mem.bytes[i];
                        if !mem.known[i] { '?' } else if (0x20..0x7f).contains(&b) { b as char } else { '.' }
                    }).collect();
                    html! {
                        <div class="mem-row" key={base.to_string()}>
                            <span class="mem-addr">{ format!("{base:016x} ") }</span>
                            { for range.map(|i| {
                                let addr = mem.addr.wrapping_add(i as u64);
                                let text = if mem.known[i] { format!("{:02x}", mem.bytes[i]) } else { "??".to_string() };
                                let pick = props.on_pick.reform(move |_: MouseEvent| addr);
                                let context = props.on_context.clone();
                                let oncontextmenu = Callback::from(move |e: MouseEvent| {
                                    e.prevent_default();
                                    context.emit((addr, e.client_x(), e.client_y()));
                                });
                                html! {
                                    <>
                                        <span
                                            class={classes!("byte", (!mem.known[i]).then_some("unknown"), mem.changed[i].then_some("changed"), (addr == props.selected).then_some("selected"))}
                                            data-addr={format!("{addr:#x}")}
                                            style="cursor:pointer;"
                                            onclick={pick}
                                            {oncontextmenu}
                                        >{ text }</span>
                                        { if i % 16 == 7 { "  " } else { " " } }
                                    </>
                                }
                            }) }
                            <span class="mem-ascii">{ format!(" {ascii}") }</span>
                        </div>
                    }
                }) }
            </div>
            if let Some(note) = &props.note {
                <p class="pane-note" data-testid="pane-note" style="margin:0.25rem 0.5rem;">{ note }</p>
            }
        </>
    }
}
