//! The browser's toolbar: the commands used most, then menus; every
//! command is also in the palette (Ctrl-K) and on a key (F1).

use yew::prelude::*;

use super::Browser;
use crate::i18n::t;
use crate::model::keys::{Command, RegKind};
use crate::model::layout::{LayoutMsg, Slot};
use crate::model::registry::Opens;
use crate::model::search::SearchMsg;
use crate::model::{Msg, PromptFor};
use crate::web::components::ToolbarMenu;
use tarmac_lens_core::protocol::FoldOp;

impl Browser {
    pub(super) fn view_toolbar(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let run = |cmd: Command| link.callback(move |_: MouseEvent| Msg::Run(cmd));
        let view = self.model.active_view();
        let prompt = |p: PromptFor| link.callback(move |_: MouseEvent| Msg::Prompt(p.clone()));
        let reg_shown = |kind: RegKind| {
            let testid = format!("{}-{}", Slot::REGISTERS.name(), kind.panel());
            self.model.panes.iter().any(|p| p.testid() == testid)
        };
        let toggle = |on: bool,
                      testid: &'static str,
                      key: &'static str,
                      label: &'static str,
                      cmd: Command| {
            html! {
                <button
                    class={classes!("toggle", on.then_some("on"))}
                    aria-pressed={on.to_string()}
                    data-testid={testid}
                    title={key}
                    onclick={run(cmd)}
                >{ t(label) }</button>
            }
        };
        let source = Slot::named("source").is_some_and(|slot| self.model.shown(slot));
        let nav = &self.model.nav;
        let shown = |slot: Slot| self.model.shown(slot);
        // The commands used most, then menus; every command is also in the
        // palette (Ctrl-K) and on a key (F1).
        html! {
            <div class="toolbar" data-testid="toolbar" style="display:flex;flex-wrap:wrap;gap:0.3rem;align-items:center;flex:none;">
                <button onclick={prompt(PromptFor::GotoLine { view })} title="l">{ t("Line…") }</button>
                <button onclick={prompt(PromptFor::GotoTime { view })} title="t">{ t("Time…") }</button>
                <button data-testid="open-search" onclick={link.callback(|_: MouseEvent| Msg::Search(SearchMsg::Open { forward: true }))} title="/">{ t("Search…") }</button>
                <button data-testid="open-memory" onclick={prompt(PromptFor::OpenMemory { view })} title="m">{ t("Memory…") }</button>
                <ToolbarMenu label={t("Registers")} testid="menu-registers">
                    { for RegKind::ALL.iter().map(|&kind| html! {
                        <button
                            class={classes!("toggle", reg_shown(kind).then_some("on"))}
                            aria-pressed={reg_shown(kind).to_string()}
                            data-testid={format!("toggle-{}", kind.panel())}
                            title={t(kind.title())}
                            onclick={run(Command::ToggleRegisters(kind))}
                        >{ t(kind.title()) }</button>
                    }) }
                </ToolbarMenu>
                { toggle(source, "toggle-source", "s", "Source", Command::ToggleSource) }
                { toggle(Slot::named("reports").is_some_and(shown), "open-reports", "R", "Reports", Command::Reports) }
                <ToolbarMenu label={t("Panes")} testid="menu-panes">
                    // Every kind its registry line shows and hides.
                    { for Slot::ALL.into_iter().filter(|s| matches!(s.entry().opens, Opens::Toggle { .. })).map(|slot| {
                        let on = shown(slot);
                        html! {
                            <button
                                class={classes!("toggle", on.then_some("on"))}
                                aria-pressed={on.to_string()}
                                data-testid={format!("toggle-{}", slot.name())}
                                title={slot.entry().keys[0]}
                                onclick={run(Command::TogglePane(slot))}
                            >{ t(slot.entry().title) }</button>
                        }
                    }) }
                    { toggle(nav.timeline, "toggle-timeline", "T", "Timeline", Command::ToggleTimeline) }
                    <button data-testid="reset-layout" onclick={run(Command::Layout(LayoutMsg::Reset))} title="Ctrl-Shift-Backspace">{ t("Reset the layout") }</button>
                </ToolbarMenu>
                <ToolbarMenu label={t("Trace")} testid="menu-trace">
                    <button onclick={prompt(PromptFor::FindPc { view, forward: true })} title="p">{ t("Next PC…") }</button>
                    <button onclick={prompt(PromptFor::FindPc { view, forward: false })} title="P">{ t("Prev PC…") }</button>
                    <button onclick={run(Command::Fold(FoldOp::FoldAll))} title="{">{ t("Fold all") }</button>
                    <button onclick={run(Command::Fold(FoldOp::UnfoldAll))} title="}">{ t("Unfold all") }</button>
                    { toggle(self.model.syntax, "toggle-syntax", "F6", "Colours", Command::ToggleSyntax) }
                    { toggle(self.model.symbols, "toggle-symbols", "F7", "Symbols", Command::ToggleSymbols) }
                    { toggle(self.model.source_column, "toggle-source-column", "L", "file:line", Command::ToggleSourceColumn) }
                    { toggle(self.model.function_column, "toggle-function-column", "H", "Functions", Command::ToggleFunctionColumn) }
                </ToolbarMenu>
                <button data-testid="new-view" onclick={link.callback(|_| Msg::NewView)}>{ t("New view") }</button>
                <button data-testid="open-palette" onclick={run(Command::Palette)} title="Ctrl-K">{ t("Commands…") }</button>
                <button onclick={run(Command::Help)} title="F1">{ t("Keys") }</button>
            </div>
        }
    }
}
