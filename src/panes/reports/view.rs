//! The Reports pane's render: the panel (`web::components::reports`) at
//! the pane's tab, with callbacks made once per page (the panel's call
//! tree is drawn again whenever they change).

use yew::prelude::*;

use super::Reports;
use crate::model::pane_state::PaneAction;
use crate::model::{Msg, PaneMsg, ReportTab};
use crate::panes::render::PaneContext;
use crate::web::components::{ElfLoad, ReportsPanel};
use crate::web::page::client::TraceClient;

/// The panel at the pane's tab.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let tab = cx.state::<Reports>()?.tab;
    Some(html! {
        <ReportsHost
            id={cx.pane.id}
            send={cx.send.clone()}
            trace={cx.trace.clone()}
            elf={cx.elf}
            elf_error={cx.elf_error.clone()}
            {tab}
            reveal={cx.model.report_reveal}
            show_calls={cx.model.report_calls}
            tools={cx.tools.clone()}
        />
    })
}

#[derive(Properties, PartialEq)]
struct HostProps {
    id: u32,
    send: Callback<Msg>,
    trace: TraceClient,
    elf: Option<ElfLoad>,
    elf_error: Option<String>,
    tab: ReportTab,
    reveal: Option<(u32, u64)>,
    show_calls: Option<(u32, u64)>,
    tools: Html,
}

/// The panel's callbacks, from the page's `send`.
struct Callbacks {
    tab: Callback<ReportTab>,
    jump: Callback<u64>,
    jump_line: Callback<u64>,
    close: Callback<()>,
    source: Callback<(String, u32)>,
}

#[function_component(ReportsHost)]
fn reports_host(props: &HostProps) -> Html {
    let cb = use_memo((props.send.clone(), props.id), |(send, id)| {
        let id = *id;
        Callbacks {
            tab: send.reform(Msg::ReportTab),
            jump: send.reform(Msg::ReportJump),
            jump_line: send.reform(Msg::ReportJumpLine),
            close: send.reform(move |_| Msg::Pane(id, PaneMsg::Action(PaneAction::Close))),
            source: send.reform(|(file, line)| Msg::ShowSource { file, line }),
        }
    });
    html! {
        <ReportsPanel
            trace={props.trace.clone()}
            elf={props.elf}
            elf_error={props.elf_error.clone()}
            tab={props.tab}
            on_tab={cb.tab.clone()}
            on_jump={cb.jump.clone()}
            on_jump_line={cb.jump_line.clone()}
            on_close={cb.close.clone()}
            reveal={props.reveal}
            show_calls={props.show_calls}
            on_source={cb.source.clone()}
            tools={props.tools.clone()}
        />
    }
}
