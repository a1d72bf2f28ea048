//! The call tree of the Reports panel, a level at a time: a call's calls
//! are asked for when it is expanded, a page at a time ("more" asks for
//! the next), so a tree of millions of calls never travels whole. Showing
//! a position's call (`g` in the trace view) opens its callers and loads
//! their calls up to it, a page at a time, then selects it. The questions
//! go out through [`CallTreeState::take_asks`] and their answers come back
//! as messages; the Yew view (`web::components::reports::call_tree`)
//! carries them and draws [`CallTreeState::rows`].
//! `tests/browser_model/call_tree.rs` answers them from the reports
//! computed natively.

use std::collections::{HashMap, HashSet};

use tarmac_lens_core::report::{TreeNode, TreePage, MAX_PAGE};

/// Calls asked for per expansion or "more".
pub const PAGE: u32 = 200;

/// Showing a position's call loads its caller's calls up to it, but not
/// past this many (the rest is a "more" click each).
pub const REVEAL_LIMIT: u32 = 5000;

/// A question for the report worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeAsk {
    /// The root call.
    Root,
    /// `limit` calls made by the call at `path`, from its `offset`th.
    Children {
        /// The caller.
        path: Vec<u32>,
        /// The first call wanted.
        offset: u64,
        /// How many.
        limit: u32,
    },
    /// The path of the innermost call holding this node.
    PathAt(u64),
}

/// What changes the tree.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeMsg {
    /// The root call (a page of one), or why not.
    Root(Result<TreePage, String>),
    /// A call expanded or collapsed.
    Toggle(Vec<u32>),
    /// The next page of a call's calls asked for.
    More(Vec<u32>),
    /// A page of the call at the path's calls, or why not.
    Children(Vec<u32>, Result<TreePage, String>),
    /// Show the call holding this node.
    Reveal(u64),
    /// The path of the call to show, or why not.
    Path(Result<Vec<u32>, String>),
}

/// A call's calls loaded so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    /// In call order, from the first.
    pub nodes: Vec<TreeNode>,
    /// How many calls it made.
    pub total: u64,
    /// A page is asked for.
    pub asking: bool,
}

/// A row drawn: a call, or a "more" button under a caller's calls.
#[derive(Debug, PartialEq)]
pub enum TreeRow<'a> {
    /// A call at `depth` (the root at 0).
    Call {
        /// Its depth.
        depth: usize,
        /// The call.
        node: &'a TreeNode,
        /// Its calls are shown.
        open: bool,
        /// It is the call selected.
        selected: bool,
    },
    /// The caller at `path` has `left` calls not loaded.
    More {
        /// Depth of the calls it would load.
        depth: usize,
        /// The caller.
        path: &'a [u32],
        /// Calls not loaded.
        left: u64,
        /// A page is being asked for.
        asking: bool,
    },
}

/// The tree's state (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallTreeState {
    /// The root call, once answered.
    pub root: Option<TreeNode>,
    /// Calls loaded, by their caller's path.
    pub children: HashMap<Vec<u32>, Loaded>,
    /// Calls expanded.
    pub open: HashSet<Vec<u32>>,
    /// The last question that failed: why.
    pub error: Option<String>,
    /// The call being shown: its callers are opened and their calls
    /// loaded up to it, a page at a time.
    revealing: Option<Vec<u32>>,
    /// The call selected.
    pub selected: Option<Vec<u32>>,
    /// The view scrolls the selected call into sight at its next draw.
    pub scroll_to_selected: bool,
    /// The call shown is this number of its caller's calls, past what
    /// showing it loads.
    pub beyond_reveal: Option<u32>,
    /// The root was asked for and there is none: no instruction.
    pub no_root: bool,
    asks: Vec<TreeAsk>,
}

impl CallTreeState {
    /// A tree asking for its root, and for the call holding `reveal`.
    pub fn new(reveal: Option<u64>) -> CallTreeState {
        let mut tree = CallTreeState {
            asks: vec![TreeAsk::Root],
            ..CallTreeState::default()
        };
        if let Some(node) = reveal {
            tree.update(TreeMsg::Reveal(node));
        }
        tree
    }

    /// The questions to ask now, in order.
    pub fn take_asks(&mut self) -> Vec<TreeAsk> {
        std::mem::take(&mut self.asks)
    }

    /// Applies `msg`.
    pub fn update(&mut self, msg: TreeMsg) {
        match msg {
            TreeMsg::Root(Ok(page)) => {
                self.root = page.nodes.into_iter().next();
                self.step_reveal();
                self.no_root = self.root.is_none();
            }
            TreeMsg::Toggle(path) => {
                if !self.open.remove(&path) {
                    if !self.children.contains_key(&path) {
                        self.ask_children(path.clone(), PAGE);
                    }
                    self.open.insert(path);
                }
            }
            TreeMsg::More(path) => self.ask_children(path, PAGE),
            TreeMsg::Children(path, Ok(page)) => {
                let loaded = self.children.entry(path).or_default();
                loaded.asking = false;
                loaded.total = page.total;
                loaded.nodes.extend(page.nodes);
                self.step_reveal();
            }
            TreeMsg::Reveal(node) => self.asks.push(TreeAsk::PathAt(node)),
            TreeMsg::Path(Ok(path)) => {
                self.beyond_reveal = None;
                self.revealing = Some(path);
                if self.root.is_some() {
                    self.step_reveal();
                }
            }
            TreeMsg::Root(Err(e)) | TreeMsg::Children(_, Err(e)) | TreeMsg::Path(Err(e)) => {
                self.error = Some(e)
            }
        }
    }

    /// Opens the next caller or asks for the next page the call shown
    /// needs, or, when all are there, selects it.
    fn step_reveal(&mut self) {
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
                self.ask_children(parent, limit);
                return;
            }
        }
        self.revealing = None;
        self.selected = Some(path);
        self.scroll_to_selected = true;
    }

    fn ask_children(&mut self, path: Vec<u32>, limit: u32) {
        let loaded = self.children.entry(path.clone()).or_default();
        if loaded.asking {
            return;
        }
        loaded.asking = true;
        let offset = loaded.nodes.len() as u64;
        self.asks.push(TreeAsk::Children {
            path,
            offset,
            limit,
        });
    }

    /// The rows to draw, top to bottom: the root, and under each open call
    /// its calls loaded and a "more" row for the rest.
    pub fn rows(&self) -> Vec<TreeRow<'_>> {
        let mut rows = Vec::new();
        if let Some(root) = &self.root {
            self.push_rows(root, 0, &mut rows);
        }
        rows
    }

    fn push_rows<'a>(&'a self, node: &'a TreeNode, depth: usize, out: &mut Vec<TreeRow<'a>>) {
        let open = self.open.contains(&node.path);
        out.push(TreeRow::Call {
            depth,
            node,
            open,
            selected: self.selected.as_ref() == Some(&node.path),
        });
        let Some(loaded) = self.children.get(&node.path).filter(|_| open) else {
            return;
        };
        for child in &loaded.nodes {
            self.push_rows(child, depth + 1, out);
        }
        let shown = loaded.nodes.len() as u64;
        if shown < loaded.total {
            out.push(TreeRow::More {
                depth: depth + 1,
                path: &node.path,
                left: loaded.total - shown,
                asking: loaded.asking,
            });
        }
    }
}
