//! The memory pane's render: the hex dump (`components::MemoryPane`, which
//! the rehearsal page draws too) in the frame the register and source
//! panes have, its clicks made once per pane.

use yew::prelude::*;

use super::model::{MemMsg, MemoryPane};
use crate::model::{Msg, PaneMsg};
use crate::panes::render::PaneContext;
use crate::web::components::MemoryPane as HexDump;
use tarmac_lens_core::protocol::MemoryReply;

/// The memory pane in its frame.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let pane = cx.state::<MemoryPane>()?;
    let body = html! {
        <Memory
            pane={cx.pane.id}
            send={cx.send.clone()}
            memory={pane.memory.clone()}
            selected={pane.selected}
            note={cx.pane.note.clone()}
        />
    };
    Some(cx.frame("memory-pane-title", false, body))
}

#[derive(Properties, PartialEq)]
struct MemoryProps {
    pane: u32,
    send: Callback<Msg>,
    memory: Option<MemoryReply>,
    selected: u64,
    note: Option<String>,
}

#[function_component(Memory)]
fn memory(props: &MemoryProps) -> Html {
    let (on_pick, on_context, on_scroll) =
        (*use_memo((props.pane, props.send.clone()), |(id, send)| {
            let id = *id;
            let own = move |m: MemMsg| Msg::Pane(id, PaneMsg::Own(Box::new(m)));
            (
                send.reform(move |addr| own(MemMsg::Pick { addr })),
                send.reform(move |(addr, x, y)| own(MemMsg::Context { addr, x, y })),
                send.reform(move |rows| own(MemMsg::Scroll { rows })),
            )
        }))
        .clone();
    html! {
        <HexDump
            memory={props.memory.clone()}
            selected={props.selected}
            note={props.note.clone()}
            {on_pick}
            {on_context}
            {on_scroll}
        />
    }
}
