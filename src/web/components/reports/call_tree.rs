//! The call tree's rows (`model::call_tree` holds what is loaded, open
//! and selected, and what to ask the report worker).

use yew::prelude::*;

use crate::model::call_tree::{CallTreeState, TreeAsk, TreeMsg, TreeRow};
use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::{PathAt, Tree};
use tarmac_lens_core::report::TreeNode;

#[derive(Properties, PartialEq)]
pub struct CallTreeProps {
    pub client: ReportClient,
    pub on_jump: Callback<u64>,
    pub reveal: Option<(u32, u64)>,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Tree(TreeMsg),
}

/// Draws `model::call_tree` and carries its questions to the worker.
pub struct CallTree {
    model: CallTreeState,
    _lang: LangWatch,
}

fn path_text(path: &[u32]) -> String {
    path.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

impl CallTree {
    /// Asks the worker what the model wants to know.
    fn ask(&mut self, ctx: &Context<Self>) {
        let client = &ctx.props().client;
        for ask in self.model.take_asks() {
            let link = ctx.link().clone();
            match ask {
                TreeAsk::Root => client.ask(
                    Tree {
                        parent: None,
                        offset: 0,
                        limit: 1,
                    },
                    move |reply| link.send_message(Msg::Tree(TreeMsg::Root(reply))),
                ),
                TreeAsk::Children {
                    path,
                    offset,
                    limit,
                } => client.ask(
                    Tree {
                        parent: Some(path.clone()),
                        offset,
                        limit,
                    },
                    move |reply| link.send_message(Msg::Tree(TreeMsg::Children(path, reply))),
                ),
                TreeAsk::PathAt(node) => client.ask(PathAt { node }, move |reply| {
                    link.send_message(Msg::Tree(TreeMsg::Path(reply)))
                }),
            }
        }
    }

    fn row(
        &self,
        ctx: &Context<Self>,
        node: &TreeNode,
        depth: usize,
        open: bool,
        selected: bool,
    ) -> Html {
        let link = ctx.link();
        let path = node.path.clone();
        let on_jump = ctx.props().on_jump.clone();
        let call_node = node.call.map_or(node.entry.node, |c| c.node);
        let call_line = node.call.map_or(node.entry.line, |c| c.line);
        let jump_call = Callback::from(move |_: MouseEvent| on_jump.emit(call_node));
        let on_jump = ctx.props().on_jump.clone();
        let exit = node.exit;
        let jump_return = Callback::from(move |_: MouseEvent| {
            if let Some(e) = exit {
                on_jump.emit(e.node)
            }
        });
        let toggle = link.callback(move |_: MouseEvent| Msg::Tree(TreeMsg::Toggle(path.clone())));
        html! {
            <div
                class={classes!("tree-row", selected.then_some("selected"))}
                role="treeitem"
                aria-selected={selected.then_some("true")}
                data-selected={selected.then_some("true")}
                aria-level={(depth + 1).to_string()}
                aria-expanded={(node.children > 0).then(|| open.to_string())}
                data-testid="tree-row"
                data-path={path_text(&node.path)}
                data-name={node.name.clone()}
                data-children={node.children.to_string()}
                style={format!("display:flex;gap:0.6rem;align-items:baseline;padding-left:{}rem;white-space:nowrap;{}", depth as f64 * 1.1, if selected { "outline:2px solid #38f;" } else { "" })}
            >
                if node.children > 0 {
                    <button class="tree-toggle" data-testid="tree-toggle" aria-label={if open { t("collapse") } else { t("expand") }} onclick={toggle} style="width:1.6rem;">{ if open { "▾" } else { "▸" } }</button>
                } else {
                    <span style="display:inline-block;width:1.6rem;"></span>
                }
                <span class="tree-name" data-testid="tree-name" style="font-weight:600;">{ node.name.clone() }</span>
                <span data-testid="tree-time" data-value={node.time.map(|v| v.to_string())}>{ match node.time {
                    Some(v) => tf("time {}", &[&number(v)]),
                    None => t("does not return").to_string(),
                } }</span>
                if let Some(n) = node.instructions {
                    <span data-testid="tree-instructions" data-value={n.to_string()}>{ tn(n, "{} instruction", "{} instructions", &[&number(n)]) }</span>
                }
                if node.children > 0 {
                    <span style="opacity:0.7;">{ tn(node.children, "{} call", "{} calls", &[&number(node.children)]) }</span>
                }
                <button data-testid="jump-call" data-line={call_line.to_string()} title={t("go to the call in the trace view")} onclick={jump_call}>{
                    if node.call.is_some() { tf("call l.{}", &[&number(call_line)]) } else { tf("entry l.{}", &[&number(call_line)]) }
                }</button>
                if let Some(e) = node.exit {
                    <button data-testid="jump-return" data-line={e.line.to_string()} title={t("go to the return in the trace view")} onclick={jump_return}>{ tf("return l.{}", &[&number(e.line)]) }</button>
                }
            </div>
        }
    }

    /// A "more" row: `left` calls of the caller at `path` not loaded.
    fn more(
        &self,
        ctx: &Context<Self>,
        depth: usize,
        path: &[u32],
        left: u64,
        asking: bool,
    ) -> Html {
        let path = path.to_vec();
        html! {
            <div style={format!("padding-left:{}rem;", depth as f64 * 1.1)}>
                <button data-testid="tree-more" disabled={asking} onclick={ctx.link().callback(move |_| Msg::Tree(TreeMsg::More(path.clone())))}>
                    { tn(left, "{} more call…", "{} more calls…", &[&number(left)]) }
                </button>
            </div>
        }
    }
}

impl Component for CallTree {
    type Message = Msg;
    type Properties = CallTreeProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut tree = CallTree {
            model: CallTreeState::new(ctx.props().reveal.map(|(_, node)| node)),
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        tree.ask(ctx);
        tree
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        if ctx.props().reveal != old.reveal {
            if let Some((_, node)) = ctx.props().reveal {
                self.model.update(TreeMsg::Reveal(node));
                self.ask(ctx);
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if !std::mem::take(&mut self.model.scroll_to_selected) {
            return;
        }
        let row = web_sys::window().and_then(|w| w.document()).and_then(|d| {
            d.query_selector("[data-testid=tree-row][data-selected=true]")
                .ok()
                .flatten()
        });
        if let Some(row) = row {
            row.scroll_into_view_with_bool(false);
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        if let Msg::Tree(msg) = msg {
            self.model.update(msg);
            self.ask(ctx);
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let model = &self.model;
        let rows = model.rows().into_iter().map(|row| match row {
            TreeRow::Call {
                depth,
                node,
                open,
                selected,
            } => self.row(ctx, node, depth, open, selected),
            TreeRow::More {
                depth,
                path,
                left,
                asking,
            } => self.more(ctx, depth, path, left, asking),
        });
        html! {
            <div class="call-tree" role="tree" data-testid="call-tree" style="font-family:var(--mono, monospace);font-size:0.85rem;">
                if let Some(e) = &model.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if model.no_root {
                    <p class="error" role="alert">{ t("The trace has no instruction: there is no call tree.") }</p>
                }
                if let Some(n) = model.beyond_reveal {
                    <p role="status" data-testid="tree-note">{ tf(
                        "The call is number {} of its caller's calls: expand \"more\" to reach it.",
                        &[&number(u64::from(n))],
                    ) }</p>
                }
                { for rows }
            </div>
        }
    }
}
