//! The call tree, a level at a time: a node's calls are asked for when it is
//! expanded, a page of them at once ("more" asks for the next), so a tree of
//! millions of calls never travels whole.

use std::collections::{HashMap, HashSet};

use yew::prelude::*;

use crate::web::page::i18n::{number, t, tf, tn, LangWatch};
use crate::web::page::report_client::ReportClient;
use crate::web::shared::report_protocol::{PathAt, Tree};
use tarmac_lens_core::report::explore::{TreeNode, TreePage, MAX_PAGE};

/// Calls asked for per expansion or "more".
const PAGE: u32 = 200;
/// Showing a position's call loads its caller's calls up to it, but not
/// past this many (the rest is a "more" click each).
const REVEAL_LIMIT: u32 = 5000;

#[derive(Properties, PartialEq)]
pub struct CallTreeProps {
    pub client: ReportClient,
    pub on_jump: Callback<u64>,
    pub reveal: Option<(u32, u64)>,
}

pub enum Msg {
    /// The page's language changed: draw again.
    Lang,
    Path(Result<Vec<u32>, String>),
    Root(Result<TreePage, String>),
    Toggle(Vec<u32>),
    More(Vec<u32>),
    Children(Vec<u32>, Result<TreePage, String>),
}

#[derive(Default)]
struct Loaded {
    nodes: Vec<TreeNode>,
    total: u64,
    asking: bool,
}

pub struct CallTree {
    root: Option<TreeNode>,
    children: HashMap<Vec<u32>, Loaded>,
    open: HashSet<Vec<u32>>,
    error: Option<String>,
    /// The call being shown (`g`): its ancestors are opened and their
    /// calls loaded up to it, a page at a time.
    revealing: Option<Vec<u32>>,
    selected: Option<Vec<u32>>,
    scroll_to_selected: bool,
    /// The call shown is this number of its caller's calls, past what
    /// showing it loads (said in the language of the moment).
    beyond_reveal: Option<u32>,
    /// The root was asked for and there is none: no instruction.
    no_root: bool,
    _lang: LangWatch,
}

fn path_text(path: &[u32]) -> String {
    path.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

impl CallTree {
    fn ask_path(&self, ctx: &Context<Self>) {
        if let Some((_, node)) = ctx.props().reveal {
            let link = ctx.link().clone();
            ctx.props().client.ask(PathAt { node }, move |reply| {
                link.send_message(Msg::Path(reply))
            });
        }
    }

    /// Opens the next ancestor or loads the next page the call needs, or,
    /// when all are there, selects it.
    fn step_reveal(&mut self, ctx: &Context<Self>) {
        let Some(path) = self.revealing.clone() else {
            return;
        };
        for depth in 0..path.len() {
            let parent = path[..depth].to_vec();
            let index = path[depth];
            self.open.insert(parent.clone());
            let (len, asking) = self
                .children
                .get(&parent)
                .map_or((0, false), |l| (l.nodes.len(), l.asking));
            if index as usize >= len {
                if asking {
                    return;
                }
                if index >= REVEAL_LIMIT {
                    self.revealing = None;
                    self.beyond_reveal = Some(index + 1);
                    self.selected = Some(parent);
                    self.scroll_to_selected = true;
                    return;
                }
                let limit = (index + 1 - len as u32).clamp(PAGE, MAX_PAGE as u32);
                self.ask_children(ctx, parent, limit);
                return;
            }
        }
        self.revealing = None;
        self.selected = Some(path);
        self.scroll_to_selected = true;
    }

    fn ask_children(&mut self, ctx: &Context<Self>, path: Vec<u32>, limit: u32) {
        let loaded = self.children.entry(path.clone()).or_default();
        if loaded.asking {
            return;
        }
        loaded.asking = true;
        let offset = loaded.nodes.len() as u64;
        let link = ctx.link().clone();
        ctx.props().client.ask(
            Tree {
                parent: Some(path.clone()),
                offset,
                limit,
            },
            move |reply| link.send_message(Msg::Children(path, reply)),
        );
    }

    fn row(&self, ctx: &Context<Self>, node: &TreeNode, depth: usize, out: &mut Vec<Html>) {
        let link = ctx.link();
        let open = self.open.contains(&node.path);
        let selected = self.selected.as_ref() == Some(&node.path);
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
        let toggle = link.callback(move |_: MouseEvent| Msg::Toggle(path.clone()));
        out.push(html! {
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
        });
        if !open {
            return;
        }
        let Some(loaded) = self.children.get(&node.path) else {
            return;
        };
        for child in &loaded.nodes {
            self.row(ctx, child, depth + 1, out);
        }
        let shown = loaded.nodes.len() as u64;
        if shown < loaded.total {
            let path = node.path.clone();
            out.push(html! {
                <div style={format!("padding-left:{}rem;", (depth + 1) as f64 * 1.1)}>
                    <button data-testid="tree-more" disabled={loaded.asking} onclick={link.callback(move |_| Msg::More(path.clone()))}>
                        { tn(loaded.total - shown, "{} more call…", "{} more calls…", &[&number(loaded.total - shown)]) }
                    </button>
                </div>
            });
        }
    }
}

impl Component for CallTree {
    type Message = Msg;
    type Properties = CallTreeProps;

    fn create(ctx: &Context<Self>) -> Self {
        let link = ctx.link().clone();
        ctx.props().client.ask(
            Tree {
                parent: None,
                offset: 0,
                limit: 1,
            },
            move |reply| link.send_message(Msg::Root(reply)),
        );
        let tree = CallTree {
            root: None,
            children: HashMap::new(),
            open: HashSet::new(),
            error: None,
            revealing: None,
            selected: None,
            scroll_to_selected: false,
            beyond_reveal: None,
            no_root: false,
            _lang: LangWatch::new(ctx, || Msg::Lang),
        };
        tree.ask_path(ctx);
        tree
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        if ctx.props().reveal != old.reveal {
            self.ask_path(ctx);
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if !std::mem::take(&mut self.scroll_to_selected) {
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
        match msg {
            Msg::Lang => return true,
            Msg::Root(Ok(page)) => {
                self.root = page.nodes.into_iter().next();
                self.step_reveal(ctx);
                self.no_root = self.root.is_none();
            }
            Msg::Toggle(path) => {
                if !self.open.remove(&path) {
                    if !self.children.contains_key(&path) {
                        self.ask_children(ctx, path.clone(), PAGE);
                    }
                    self.open.insert(path);
                }
            }
            Msg::More(path) => self.ask_children(ctx, path, PAGE),
            Msg::Children(path, Ok(page)) => {
                let loaded = self.children.entry(path).or_default();
                loaded.asking = false;
                loaded.total = page.total;
                loaded.nodes.extend(page.nodes);
                self.step_reveal(ctx);
            }
            Msg::Path(Ok(path)) => {
                self.beyond_reveal = None;
                self.revealing = Some(path);
                if self.root.is_some() {
                    self.step_reveal(ctx);
                }
            }
            Msg::Root(Err(e)) | Msg::Children(_, Err(e)) | Msg::Path(Err(e)) => {
                self.error = Some(e)
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let mut rows = Vec::new();
        if let Some(root) = &self.root {
            self.row(ctx, root, 0, &mut rows);
        }
        html! {
            <div class="call-tree" role="tree" data-testid="call-tree" style="font-family:var(--mono, monospace);font-size:0.85rem;">
                if let Some(e) = &self.error {
                    <p class="error" role="alert">{ e.clone() }</p>
                }
                if self.no_root {
                    <p class="error" role="alert">{ t("The trace has no instruction: there is no call tree.") }</p>
                }
                if let Some(n) = self.beyond_reveal {
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
