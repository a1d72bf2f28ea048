//! The call-based reports computed once and explored in parts, for the
//! page's Reports panel: the call tree a level at a time, the profile table
//! sorted and paged, the flame graph as frames under a zoom root, and each
//! report's exact text (the same render functions the CLI prints with).
//!
//! Replies are bounded whatever the trace: a tree's children come in pages
//! of at most [`MAX_PAGE`], profile rows in pages of at most [`MAX_PAGE`],
//! and a flame graph reply holds at most [`MAX_FRAMES`] frames, those wide
//! enough to be seen under the zoom root ([`MIN_FRAME_FRACTION`]).

pub use super::text_kind::TextKind;
use crate::Result;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use super::calltree::{self, Activation, CallTree};
use super::{export, flamegraph, names, profile, vcd, CallAnalysis};
use crate::engine::{Engine, EngineOptions, Node, Observer, Site, INVALID_PC};
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;

/// Most tree nodes or profile rows in one reply.
pub const MAX_PAGE: usize = 500;
/// Most flame frames in one reply.
pub const MAX_FRAMES: usize = 4000;
/// Frames deeper than this below the zoom root are left out: a canvas
/// cannot be much taller than 32767 pixels (zooming in shows them).
pub const MAX_FRAME_DEPTH: u32 = 1000;
/// Frames narrower than this fraction of the zoom root are left out: at
/// 4000 px they would be under a pixel.
pub const MIN_FRAME_FRACTION: f64 = 1.0 / 4000.0;

/// A [`TraceSource`] that reports how far reading has got, so a report's
/// pass can show progress without the passes knowing.
pub struct Progressed<S, F> {
    /// The source read.
    pub inner: S,
    /// Called after each read with (bytes read up to, total bytes).
    pub on_read: F,
}

impl<S: TraceSource, F: FnMut(u64, u64)> TraceSource for Progressed<S, F> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let n = self.inner.read_at(offset, buf)?;
        let len = self.inner.len();
        (self.on_read)((offset + n as u64).min(len), len);
        Ok(n)
    }
}

/// Nodes without an instruction, as runs of node indices, so the
/// instructions between two nodes are counted without a count per node.
#[derive(Debug, Default)]
pub(crate) struct Gaps {
    /// `(first, last)` node index of each run, ascending.
    runs: Vec<(u64, u64)>,
    /// Nodes without an instruction before each run.
    before: Vec<u64>,
    total: u64,
}

impl Observer for Gaps {
    fn node(&mut self, node: &Node, _engine: &Engine) {
        if node.at.pc == INVALID_PC {
            self.push(node.at.node);
        }
    }
}

impl Gaps {
    /// Node `index` (ascending) has no instruction.
    fn push(&mut self, index: u64) {
        self.total += 1;
        match self.runs.last_mut() {
            Some(r) if r.1 + 1 == index => r.1 = index,
            _ => {
                self.before.push(self.total - 1);
                self.runs.push((index, index));
            }
        }
    }

    /// Nodes without an instruction among nodes `0..n`.
    fn below(&self, n: u64) -> u64 {
        let i = self.runs.partition_point(|r| r.0 < n);
        match i.checked_sub(1) {
            None => 0,
            Some(j) => {
                let (first, last) = self.runs[j];
                self.before[j] + (last.min(n - 1) - first + 1)
            }
        }
    }

    /// Instructions in nodes `first..=last`.
    pub(crate) fn instructions(&self, first: u64, last: u64) -> u64 {
        if last < first {
            return 0;
        }
        (last - first + 1) - (self.below(last + 1) - self.below(first))
    }
}

/// `None` for the unset site (the trace ended first).
fn set(s: &Site) -> Option<Site> {
    (*s != Site::default()).then_some(*s)
}

/// One activation of the call tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeNode {
    /// Child indices from the root: the node's id for asking its children.
    pub path: Vec<u32>,
    /// The function's name, or its entry address in hex.
    pub name: String,
    /// The activation's first node.
    pub entry: Site,
    /// `None` if the trace ended inside the activation.
    pub exit: Option<Site>,
    /// The instruction that made the call, and where execution resumed
    /// after it (`None` for the root, or a call that never returned).
    pub call: Option<Site>,
    /// Where execution resumed after the call (see `call`).
    pub resume: Option<Site>,
    /// `exit.time - entry.time`, when it exited.
    pub time: Option<u64>,
    /// Instructions from entry to exit, callees included.
    pub instructions: Option<u64>,
    /// Calls it made.
    pub children: u64,
}

/// Children of one node (or the root, for an empty parent path), a page
/// of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreePage {
    pub(crate) parent: Option<Vec<u32>>,
    pub(crate) offset: u64,
    /// Children the parent has (the page holds at most [`MAX_PAGE`] of them).
    pub total: u64,
    /// The page's children, in call order.
    pub nodes: Vec<TreeNode>,
}

/// A function's line of the profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRow {
    /// The function's address.
    pub addr: u64,
    /// Its name, or its address in hex without symbols.
    pub name: String,
    /// Activations.
    pub count: u64,
    /// The reference profile's `Time`: inclusive, `+1` per activation.
    pub inclusive: u64,
    /// Time in the function itself: what the flame graph counts for it.
    pub exclusive: u64,
    /// Instructions from its outermost activations' entries to their
    /// exits, callees included (a recursive call is counted once): the
    /// share of the trace a function accounts for.
    #[serde(default)]
    pub instructions: u64,
    /// Instructions in the function itself: over all functions these add
    /// up to the instructions the call tree covers.
    #[serde(default)]
    pub own_instructions: u64,
}

/// A column of the profile to sort by, one per [`ProfileRow`] field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProfileSort {
    /// By `addr`.
    Address,
    /// By `name`.
    Name,
    /// By `count`.
    Count,
    /// By `inclusive`.
    Inclusive,
    /// By `exclusive`.
    Exclusive,
    /// By `instructions`.
    Instructions,
    /// By `own_instructions`.
    OwnInstructions,
}

/// A page of the sorted profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfilePage {
    /// Functions in the profile.
    pub total: u64,
    pub(crate) offset: u64,
    /// The page's rows, in sort order.
    pub rows: Vec<ProfileRow>,
}

/// The activations of one function, in trace order, a page of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallsPage {
    pub(crate) addr: u64,
    /// The function's activations.
    pub total: u64,
    /// Position of the page's first activation among them.
    pub offset: u64,
    /// The page's activations.
    pub calls: Vec<TreeNode>,
}

/// A frame of the flame graph: one distinct call stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlameFrame {
    /// The frame's number: pass it to [`Reports::flame`] to zoom to it.
    pub id: u32,
    /// The frame one call out, `None` for the whole graph's root.
    pub parent: Option<u32>,
    /// Below the zoom root (the root is 0).
    pub depth: u32,
    /// The function's name.
    pub name: String,
    /// Time in the function itself on this stack (the folded-stack count).
    pub own: u64,
    /// Own time plus that of every stack above it.
    pub total: u64,
    /// Offset from the zoom root's left edge, in time.
    pub start: u64,
}

/// The flame graph under a zoom root, cut to what can be seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlameView {
    /// The zoom root first, then frames by depth.
    pub frames: Vec<FlameFrame>,
    /// Frames left out: too narrow, too deep, or past [`MAX_FRAMES`].
    pub omitted: u64,
    /// The zoom root's ancestors, outermost first (to zoom back out).
    pub ancestors: Vec<FlameFrame>,
}

/// What the reports hold, for the panel's heading.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportSummary {
    /// Activations, the root included.
    pub activations: u64,
    /// Distinct functions called.
    pub functions: u64,
    pub(crate) nodes: u64,
    /// Instructions in the trace (nodes holding one, executed or not).
    pub instructions: u64,
    pub(crate) unparsed: u64,
    /// Whether an ELF image names the functions.
    pub has_symbols: bool,
}

#[derive(Debug)]
struct FlameNode {
    name: String,
    own: u64,
    total: u64,
    parent: Option<u32>,
    /// Sorted by name, as FlameGraph draws them.
    children: Vec<u32>,
}

/// The reports of one trace.
pub struct Reports {
    analysis: CallAnalysis,
    tree: Option<CallTree>,
    image: Option<SymbolTable>,
    gaps: Gaps,
    profile: Vec<ProfileRow>,
    flame: Vec<FlameNode>,
    parse: ParseOptions,
    engine: EngineOptions,
}

fn hex_or(name: String, addr: u64) -> String {
    if name.is_empty() {
        format!("0x{addr:x}")
    } else {
        name
    }
}

impl Reports {
    /// One engine pass over `source`.
    pub fn compute<S: TraceSource>(
        source: S,
        parse: ParseOptions,
        engine: EngineOptions,
        image: Option<SymbolTable>,
    ) -> Result<Reports> {
        let mut gaps = Gaps::default();
        let mut analysis = super::analyse_calls_observing(source, parse, engine, &mut gaps)?;
        // The tree holds what the calls said; kept, they would double the
        // memory per call (the tree's text needs only the first event line).
        let tree = calltree::build_taking_calls(&mut analysis);
        analysis.debug = Vec::new();
        let mut r = Reports {
            analysis,
            tree,
            image,
            gaps,
            profile: Vec::new(),
            flame: Vec::new(),
            parse,
            engine,
        };
        r.profile = r.build_profile();
        r.flame = r.build_flame();
        Ok(r)
    }

    fn root(&self) -> Option<Activation<'_>> {
        self.tree.as_ref().map(CallTree::root)
    }

    /// The name the call tree and profile print (offsets shown).
    fn name(&self, addr: u64) -> String {
        names::function_name(self.image.as_ref(), addr, true)
    }

    /// The numbers for the panel's heading.
    pub fn summary(&self) -> ReportSummary {
        ReportSummary {
            activations: self.profile.iter().map(|r| r.count).sum(),
            functions: self.profile.len() as u64,
            nodes: self.analysis.nodes,
            instructions: self.analysis.nodes - self.gaps.total,
            unparsed: self.analysis.unparsed.count,
            has_symbols: self.image.is_some(),
        }
    }

    fn build_profile(&self) -> Vec<ProfileRow> {
        let Some(root) = self.root() else {
            return Vec::new();
        };
        let table = profile::compute(root);
        let mut own: BTreeMap<u64, u64> = BTreeMap::new();
        let mut stack = vec![root];
        while let Some(act) = stack.pop() {
            // The flame graph's own time, so the two views agree.
            let mut t = act.exit.time.wrapping_sub(act.entry.time);
            for (_, _, callee) in act.calls.iter() {
                t = t.wrapping_sub(callee.exit.time.wrapping_sub(callee.entry.time));
                stack.push(callee);
            }
            let e = own.entry(act.entry.pc).or_default();
            *e = e.wrapping_add(t);
        }
        let instructions = self.instructions_by_function(root);
        table
            .iter()
            .map(|(&addr, e)| {
                let (inclusive, own_instructions) =
                    instructions.get(&addr).copied().unwrap_or_default();
                ProfileRow {
                    addr,
                    name: self.name(addr),
                    count: e.count,
                    inclusive: e.time,
                    exclusive: own.get(&addr).copied().unwrap_or(0),
                    instructions: inclusive,
                    own_instructions,
                }
            })
            .collect()
    }

    /// Instructions an activation spans, callees included: to its exit,
    /// or to the trace's end for one that never returned.
    fn activation_instructions(&self, act: Activation<'_>) -> u64 {
        let last = if *act.exit == Site::default() {
            self.analysis.nodes.saturating_sub(1)
        } else {
            act.exit.node
        };
        self.gaps.instructions(act.entry.node, last)
    }

    /// Per function entry: (inclusive, own) instructions. Inclusive counts
    /// only activations not inside another of the same function, so a
    /// recursive function is not counted twice.
    fn instructions_by_function(&self, root: Activation<'_>) -> BTreeMap<u64, (u64, u64)> {
        let mut out: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        let mut active: BTreeMap<u64, u32> = BTreeMap::new();
        // (activation, whether its callees have been pushed).
        let mut stack = vec![(root, false)];
        while let Some((act, expanded)) = stack.pop() {
            let pc = act.entry.pc;
            if expanded {
                if let Some(n) = active.get_mut(&pc) {
                    *n -= 1;
                }
                continue;
            }
            let all = self.activation_instructions(act);
            let callees: u64 = act
                .calls
                .iter()
                .map(|(_, _, c)| self.activation_instructions(c))
                .sum();
            let depth = active.entry(pc).or_default();
            let e = out.entry(pc).or_default();
            if *depth == 0 {
                e.0 += all;
            }
            e.1 += all.saturating_sub(callees);
            *depth += 1;
            stack.push((act, true));
            for (_, _, callee) in act.calls.iter().rev() {
                stack.push((callee, false));
            }
        }
        out
    }

    /// The activations of the function entered at `addr`, in trace order:
    /// `limit` (at most [`MAX_PAGE`]) from the `offset`-th.
    pub fn calls_of(&self, addr: u64, offset: u64, limit: usize) -> CallsPage {
        let limit = limit.min(MAX_PAGE) as u64;
        let mut page = CallsPage {
            addr,
            total: 0,
            offset,
            calls: Vec::new(),
        };
        let Some(root) = self.root() else {
            return page;
        };
        // Depth first in call order is trace order: the activations on the
        // way down, each with its next callee; `path` their indices.
        let none = Site::default();
        let mut take = |act: Activation<'_>, path: &[u32], call: &Site, resume: &Site| {
            if act.entry.pc == addr {
                if page.total >= offset && page.total < offset + limit {
                    page.calls
                        .push(self.tree_node(path.to_vec(), act, call, resume));
                }
                page.total += 1;
            }
        };
        take(root, &[], &none, &none);
        let mut stack: Vec<(Activation<'_>, usize)> = vec![(root, 0)];
        let mut path: Vec<u32> = Vec::new();
        while let Some(top) = stack.last_mut() {
            let (act, next) = *top;
            match act.calls.get(next) {
                Some((call, resume, callee)) => {
                    top.1 += 1;
                    path.push(next as u32);
                    take(callee, &path, call, resume);
                    stack.push((callee, 0));
                }
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
        page
    }

    fn build_flame(&self) -> Vec<FlameNode> {
        let Some(root) = self.root() else {
            return Vec::new();
        };
        let mut nodes = vec![FlameNode {
            name: hex_or(self.name(root.entry.pc), root.entry.pc),
            own: 0,
            total: 0,
            parent: None,
            children: Vec::new(),
        }];
        let mut index: BTreeMap<(u32, String), u32> = BTreeMap::new();
        // (activation, its frame, own time so far, next callee), walked
        // iteratively as flamegraph::render walks it.
        let mut work: Vec<(Activation<'_>, u32, u64, usize)> =
            vec![(root, 0, root.exit.time.wrapping_sub(root.entry.time), 0)];
        while let Some(top) = work.last_mut() {
            let (act, frame, _, next) = *top;
            if let Some((_, _, callee)) = act.calls.get(next) {
                top.3 += 1;
                top.2 = top
                    .2
                    .wrapping_sub(callee.exit.time.wrapping_sub(callee.entry.time));
                let name = hex_or(self.name(callee.entry.pc), callee.entry.pc);
                let id = *index.entry((frame, name.clone())).or_insert_with(|| {
                    nodes.push(FlameNode {
                        name,
                        own: 0,
                        total: 0,
                        parent: Some(frame),
                        children: Vec::new(),
                    });
                    let id = (nodes.len() - 1) as u32;
                    nodes[frame as usize].children.push(id);
                    id
                });
                let own = callee.exit.time.wrapping_sub(callee.entry.time);
                work.push((callee, id, own, 0));
            } else {
                let (_, frame, own, _) = work.pop().expect("present");
                let n = &mut nodes[frame as usize].own;
                *n = n.wrapping_add(own);
            }
        }
        // Totals bottom-up: children always come after their parent.
        for i in (0..nodes.len()).rev() {
            let own = nodes[i].own;
            let t = nodes[i].total.wrapping_add(own);
            nodes[i].total = t;
            if let Some(p) = nodes[i].parent {
                let pt = &mut nodes[p as usize].total;
                *pt = pt.wrapping_add(t);
            }
        }
        let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
        for n in &mut nodes {
            n.children
                .sort_by(|a, b| names[*a as usize].cmp(&names[*b as usize]));
        }
        nodes
    }

    fn at(&self, path: &[u32]) -> Option<Activation<'_>> {
        let mut cur = self.root()?;
        for &i in path {
            cur = cur.calls.get(i as usize)?.2;
        }
        Some(cur)
    }

    fn tree_node(
        &self,
        path: Vec<u32>,
        act: Activation<'_>,
        call: &Site,
        resume: &Site,
    ) -> TreeNode {
        let exit = set(act.exit);
        TreeNode {
            path,
            name: hex_or(self.name(act.entry.pc), act.entry.pc),
            entry: *act.entry,
            exit,
            call: set(call),
            resume: set(resume),
            time: exit.map(|e| e.time.wrapping_sub(act.entry.time)),
            instructions: exit.map(|e| self.gaps.instructions(act.entry.node, e.node)),
            children: act.calls.len() as u64,
        }
    }

    /// Children of the activation at `parent` from `offset` (the root
    /// itself for `None`). `None` if there is no such activation.
    pub fn tree(&self, parent: Option<&[u32]>, offset: u64, limit: usize) -> Option<TreePage> {
        let limit = limit.min(MAX_PAGE);
        let Some(path) = parent else {
            let root = self.root();
            return Some(TreePage {
                parent: None,
                offset: 0,
                total: u64::from(root.is_some()),
                nodes: root
                    .map(|r| self.tree_node(Vec::new(), r, &Site::default(), &Site::default()))
                    .into_iter()
                    .collect(),
            });
        };
        let act = self.at(path)?;
        let start = (offset as usize).min(act.calls.len());
        let nodes = act
            .calls
            .iter()
            .skip(start)
            .take(limit)
            .enumerate()
            .map(|(i, (call, resume, callee))| {
                let mut p = path.to_vec();
                p.push((start + i) as u32);
                self.tree_node(p, callee, call, resume)
            })
            .collect();
        Some(TreePage {
            parent: Some(path.to_vec()),
            offset: start as u64,
            total: act.calls.len() as u64,
            nodes,
        })
    }

    /// The path of the innermost activation holding node `node` (empty:
    /// the root, also for nodes before it), for showing a position's call
    /// in the tree. A call site belongs to the caller, the callee's first
    /// node to the callee.
    pub fn path_at(&self, node: u64) -> Vec<u32> {
        let mut path = Vec::new();
        let Some(mut act) = self.root() else {
            return path;
        };
        loop {
            // Calls are in trace order.
            let i = act.calls.partition_point(|c| c.entry.node <= node);
            let Some(i) = i.checked_sub(1) else { break };
            let Some((_, _, callee)) = act.calls.get(i) else {
                break;
            };
            let open = *callee.exit == Site::default();
            if !open && node > callee.exit.node {
                break;
            }
            path.push(i as u32);
            act = callee;
        }
        path
    }

    /// The profile sorted by `sort` (ties by address), a page of it.
    pub fn profile(
        &self,
        sort: ProfileSort,
        descending: bool,
        offset: u64,
        limit: usize,
    ) -> ProfilePage {
        let (total, offset, rows) = sorted_page(
            &self.profile,
            |a, b| match sort {
                ProfileSort::Address => a.addr.cmp(&b.addr),
                ProfileSort::Name => a.name.cmp(&b.name),
                ProfileSort::Count => a.count.cmp(&b.count),
                ProfileSort::Inclusive => a.inclusive.cmp(&b.inclusive),
                ProfileSort::Exclusive => a.exclusive.cmp(&b.exclusive),
                ProfileSort::Instructions => a.instructions.cmp(&b.instructions),
                ProfileSort::OwnInstructions => a.own_instructions.cmp(&b.own_instructions),
            },
            |r| r.addr,
            (descending, offset, limit),
        );
        ProfilePage {
            total,
            offset,
            rows,
        }
    }

    fn frame(&self, id: u32, depth: u32, start: u64) -> FlameFrame {
        let n = &self.flame[id as usize];
        FlameFrame {
            id,
            parent: n.parent,
            depth,
            name: n.name.clone(),
            own: n.own,
            total: n.total,
            start,
        }
    }

    /// The frames under `root` (0: the whole graph) wide enough to see.
    /// `None` if there is no such frame.
    pub fn flame(&self, root: u32) -> Option<FlameView> {
        self.flame.get(root as usize)?;
        let min = (self.flame[root as usize].total as f64 * MIN_FRAME_FRACTION) as u64;
        let mut frames = vec![self.frame(root, 0, 0)];
        let mut omitted = 0u64;
        // Breadth first, so a capped reply keeps the outer frames.
        let mut at = 0;
        while at < frames.len() {
            let (id, depth, mut start) = (frames[at].id, frames[at].depth, frames[at].start);
            for &c in &self.flame[id as usize].children {
                let total = self.flame[c as usize].total;
                if total < min.max(1) || frames.len() >= MAX_FRAMES || depth >= MAX_FRAME_DEPTH {
                    omitted += 1;
                } else {
                    frames.push(self.frame(c, depth + 1, start));
                }
                start = start.wrapping_add(total);
            }
            at += 1;
        }
        let mut ancestors = Vec::new();
        let mut p = self.flame[root as usize].parent;
        while let Some(id) = p {
            ancestors.push(self.frame(id, 0, 0));
            p = self.flame[id as usize].parent;
        }
        ancestors.reverse();
        Some(FlameView {
            frames,
            omitted,
            ancestors,
        })
    }

    /// A report's text, as `tarmac-lens calltree|profile|flamegraph` print
    /// it. The VCD needs the trace again: see [`Reports::write_vcd`]; the
    /// EP and flow texts are other reports' (`None` too).
    pub fn text(&self, kind: TextKind) -> Option<String> {
        let name = |addr: u64| self.name(addr);
        Some(match kind {
            TextKind::Calltree => {
                let mut out = String::new();
                if let Some(tree) = &self.tree {
                    out = calltree::render(tree, &self.analysis, &name);
                }
                out
            }
            TextKind::Profile => {
                let table = self.root().map(profile::compute).unwrap_or_default();
                profile::render(&table, &name)
            }
            TextKind::Flamegraph => match self.root() {
                Some(root) => flamegraph::render(root, &|addr, _| self.name(addr)),
                None => String::new(),
            },
            TextKind::Vcd
            | TextKind::EpProfile
            | TextKind::Flow
            | TextKind::Chrome
            | TextKind::Perfetto
            | TextKind::Callgrind => return None,
        })
    }

    /// The VCD (`tarmac-lens vcd --no-date`), from two more passes over
    /// the trace (`open` gives a fresh source each time).
    pub fn write_vcd<S: TraceSource>(
        &self,
        mut open: impl FnMut() -> Result<S>,
        out: &mut dyn Write,
    ) -> Result<()> {
        let name = |addr: u64| self.name(addr);
        let functions = self
            .root()
            .map(|r| vcd::function_changes(r, &name))
            .unwrap_or_default();
        let aarch64 = vcd::is_aarch64(open()?, self.parse)?;
        vcd::write(
            open()?,
            self.parse,
            EngineOptions {
                debug_calls: false,
                ..self.engine
            },
            aarch64,
            functions,
            vcd::VcdOptions {
                date: None,
                use_tarmac_timestamps: false,
            },
            out,
        )
        .map(|_| ())
    }
}

impl Reports {
    /// An export (`tarmac-lens export --format chrome|callgrind|perfetto`,
    /// with `--cpu` when the engine follows a core), from one more pass
    /// over `source` (the Perfetto export's first pass is the calls these
    /// reports were made from). `trace` names the process, or the `cmd:`.
    pub fn write_export<S: TraceSource>(
        &self,
        kind: TextKind,
        trace: &str,
        source: S,
        out: &mut dyn Write,
    ) -> Result<()> {
        let name = |addr: u64| self.name(addr);
        let engine = EngineOptions {
            debug_calls: false,
            ..self.engine
        };
        match kind {
            TextKind::Chrome => {
                let mut w = export::chrome::ChromeWriter::new(out, trace)?;
                if let Some(root) = self.root() {
                    let thread = self.engine.cpu.map_or("cpu".into(), |c| c.to_string());
                    w.thread(1, &thread, source, self.parse, engine, root, &name)?;
                }
                w.finish()
            }
            TextKind::Perfetto => {
                let mut out = Some(out);
                let mut w = export::perfetto::PerfettoWriter::new(
                    trace,
                    Box::new(move |_| {
                        out.take()
                            .map(|o| Box::new(o) as Box<dyn Write + '_>)
                            .ok_or_else(|| std::io::Error::other("one part only"))
                    }),
                    None,
                );
                let entries = self
                    .root()
                    .map(export::stream::Entries::from_tree)
                    .unwrap_or_default();
                let core = self.engine.cpu.map_or("cpu".into(), |c| c.to_string());
                w.core_with(&core, &entries, source, self.parse, engine, &name)?;
                w.finish().map(|_| ())
            }
            TextKind::Callgrind => export::callgrind::write(
                source,
                self.parse,
                engine,
                self.root(),
                trace,
                &name,
                None,
                out,
            )
            .map(|_| ()),
            _ => Ok(()),
        }
    }
}

/// A page of `rows` sorted by `key` (reversed if `descending`), ties in
/// order of `tie`: the total, the page's first index (clamped) and at most
/// `limit` (and [`MAX_PAGE`]) rows from `offset`.
pub(crate) fn sorted_page<T: Clone>(
    rows: &[T],
    key: impl Fn(&T, &T) -> Ordering,
    tie: impl Fn(&T) -> u64,
    (descending, offset, limit): (bool, u64, usize),
) -> (u64, u64, Vec<T>) {
    let mut sorted: Vec<&T> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        let o = key(a, b);
        (if descending { o.reverse() } else { o }).then(tie(a).cmp(&tie(b)))
    });
    let start = (offset as usize).min(sorted.len());
    let page = sorted[start..]
        .iter()
        .take(limit.min(MAX_PAGE))
        .map(|r| (*r).clone())
        .collect();
    (sorted.len() as u64, start as u64, page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_count_instructions_between_nodes() {
        let mut g = Gaps::default();
        // Nodes 1, 2 and 4 hold no instruction.
        for i in [1, 2, 4] {
            g.push(i);
        }
        assert_eq!(g.instructions(0, 5), 3);
        assert_eq!(g.instructions(1, 2), 0);
        assert_eq!(g.instructions(2, 3), 1);
        assert_eq!(g.instructions(3, 5), 2);
        assert_eq!(g.instructions(5, 4), 0);
    }
}
