//! Trace views: moving the position, scrolling, folding, the `a` highlight.

use super::state::{rows_cover, scroll_of};
use super::{Answer, Effect, Focus, HashAnswer, Model, Moved, Msg, TraceView};
use crate::i18n::{number, t, tf};
use crate::model::hash;
use crate::model::keys::Command;
use tarmac_lens_core::protocol::{
    CallFrame, CallStack, Eval, FindPc, Fold, FoldOp, Folded, LineEffect, LineHits, Locate, NodeId,
    NodeLines, NodeView, Question, Row, RowOfNode, Rows, RowsReply, Step, Write, WriteTarget,
};

/// A trace view's messages: its own input, and the answers to its questions.
pub enum ViewMsg {
    /// A step's answer (Up, Down).
    Stepped {
        /// Where the step went.
        reply: Moved,
    },
    /// The calls active at a position.
    Stack {
        /// The position they are for: a later move makes them stale.
        node: NodeId,
        /// The calls, outermost first.
        reply: Answer<Vec<CallFrame>>,
    },
    /// The fold box beside an active call's call instruction.
    FoldAt {
        /// The call instruction's node.
        call_node: NodeId,
    },
    /// Go to a node (a click in the call stack).
    GoTo {
        /// Where to go.
        node: NodeId,
    },
    /// The person scrolled, wheeled or resized the pane.
    Viewport {
        /// The first visible row.
        top: u64,
        /// The viewport's height, in pixels.
        px: f64,
        /// The scrollbar must follow `top` (the browser sets it again).
        follow: bool,
    },
    /// The view's height changed (the window, a splitter, the toolbar
    /// drawn): not a scroll, so the rows shown stay (see `on_resized`).
    Resized {
        /// The new height, in pixels.
        px: f64,
    },
    /// The rows around `top`, as asked for.
    Rows {
        /// The rows, with the view's row count.
        reply: Answer<RowsReply>,
    },
    /// The view's row count, more of the trace being indexed.
    RowCount {
        /// An answer whose count is all that is read.
        reply: Answer<RowsReply>,
    },
    /// The answer to a move (a goto, a search, a click).
    Moved {
        /// The node moved to, if any.
        reply: Moved,
        /// Put the position where Ctrl-L last put it, not just in sight.
        recentre: bool,
    },
    /// The row of the position's first line (or the fold hiding it).
    CursorRow {
        /// The position it is for: a later move makes it stale.
        node: NodeId,
        /// The row.
        reply: Answer<u64>,
        /// Recentre the view on it, not just keep it in sight.
        recentre: bool,
    },
    /// The row a page up or down lands on, whose node becomes the position.
    PageTarget {
        /// That one row.
        reply: Answer<RowsReply>,
    },
    /// The answer to a fold or unfold.
    Folded {
        /// The view's new row count and where its position now is.
        reply: Answer<Folded>,
    },
    /// The lines of the instruction before the position, for the `a` highlight.
    Annotated {
        /// The position they are for: a later move makes them stale.
        node: NodeId,
        /// The lines, with what each reads or writes.
        reply: Answer<Vec<LineEffect>>,
    },
    /// The previous write of a register or memory (Return).
    WriteFound {
        /// The node the search started at.
        from: NodeId,
        /// The register or memory written.
        target: WriteTarget,
        /// The writing node, if any.
        reply: Moved,
    },
    /// A click on a row: its node becomes the position, or its fold opens.
    RowClick {
        /// The row clicked.
        row: Row,
    },
    /// A right-click on a row: its context menu.
    RowContext {
        /// The row clicked.
        row: Row,
        /// Where the menu opens: the click's `clientX`.
        x: i32,
        /// Where the menu opens: the click's `clientY`.
        y: i32,
    },
    /// A row's lines, to fill its context menu.
    RowEffects {
        /// The row clicked.
        row: Row,
        /// Where the menu opens: the click's `clientX`.
        x: i32,
        /// Where the menu opens: the click's `clientY`.
        y: i32,
        /// The lines of the row's node.
        reply: Answer<Vec<LineEffect>>,
    },
    /// The view's close button.
    Close,
}

impl Model {
    /// Finds the first position once the session has one.
    pub(super) fn try_start(&mut self) {
        if self.started || self.start_in_flight || self.pending_hash.is_some() {
            return;
        }
        self.start_in_flight = true;
        self.ask(Locate::Start, |reply| Msg::Started { reply });
    }

    /// Returns whether to render now (see [`Self::on_moved`]).
    pub(super) fn on_started(&mut self, reply: Moved) -> bool {
        self.start_in_flight = false;
        if self.started {
            // A position asked for while the start was on its way got there
            // first; going to the start now would undo it.
            return false;
        }
        self.on_moved(0, reply, false)
    }

    /// Moves view `view` to the node a question answers with.
    pub(super) fn move_to<Q>(&mut self, view: u32, question: Q, recentre: bool)
    where
        Q: Question<Answer = Option<NodeView>> + 'static,
    {
        self.ask(question, move |reply| {
            Msg::View(view, ViewMsg::Moved { reply, recentre })
        });
    }

    /// The calls active at `node` in view `view` (named with the ELF's
    /// symbols, when loaded).
    pub(super) fn fetch_stack(&mut self, view: u32, node: NodeId) {
        self.ask(CallStack { node }, move |reply| {
            Msg::View(view, ViewMsg::Stack { node, reply })
        });
    }

    /// Returns whether to render now: not when the move asked for the
    /// cursor's row, stack and panes, which are drawn when they come. A
    /// render in between made Chromium draw a frame before it took the
    /// worker's answers, and the panes came a frame or two after the row.
    pub(super) fn on_moved(&mut self, view: u32, reply: Moved, recentre: bool) -> bool {
        let starting = view == 0 && !self.started;
        if starting {
            self.start_in_flight = false;
        }
        let asked = self
            .goto_line
            .take()
            .filter(|(v, _)| *v == view)
            .map(|(_, line)| line);
        let node = match reply {
            Ok(Some(node)) => node,
            // No first node: not indexed yet (the next progress asks
            // again), or none at all once everything is.
            Ok(None) if starting => {
                self.no_position = self.complete;
                return true;
            }
            Ok(None) => {
                let message = match asked {
                    Some(line) => self.beyond_note(line),
                    None => t("Not found.").to_string(),
                };
                self.effects.push(Effect::GotoFailed(message.clone()));
                self.status = Some(message);
                return true;
            }
            Err(e) => {
                // Before the first node is indexed the start simply is not
                // there yet; the next progress asks again. Once all is
                // indexed, there is none.
                if !starting {
                    self.status = Some(e);
                } else if self.complete {
                    self.no_position = true;
                }
                return true;
            }
        };
        if starting {
            self.started = true;
        }
        let Some(v) = self.view_mut(view) else {
            return true;
        };
        if v.cursor.map(|c| c.node) != Some(node.node) {
            v.prev = v.cursor.map(|c| c.node);
        }
        v.cursor = Some(node);
        v.annotate = None;
        self.ask(
            RowOfNode {
                view,
                node: node.node,
            },
            move |reply| {
                Msg::View(
                    view,
                    ViewMsg::CursorRow {
                        node: node.node,
                        reply,
                        recentre,
                    },
                )
            },
        );
        self.fetch_stack(view, node.node);
        self.panes_moved(view);
        self.refresh_panes_of(view);
        // The start of a trace opened without a position needs no fragment
        // (and writing one cost a dozen milliseconds of the first screen).
        let fresh_start = starting && !self.url_has_position;
        if !self.detached && !fresh_start {
            self.note_position(hash::for_line(node.first_line));
        }
        let snapped = asked.filter(|&line| line != node.first_line);
        if let Some(line) = snapped {
            self.status = Some(snap_note(line, &node));
        }
        self.effects.push(Effect::Position {
            view,
            node,
            asked: snapped,
        });
        for expr in std::mem::take(&mut self.pending_memory) {
            let asked = expr.clone();
            self.ask(
                Eval {
                    node: node.node,
                    expr,
                },
                move |reply| Msg::PaneAddress {
                    view,
                    expr: asked,
                    reply,
                },
            );
        }
        false
    }

    pub(super) fn on_cursor_row(
        &mut self,
        view: u32,
        node: NodeId,
        reply: Answer<u64>,
        recentre: bool,
    ) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        if v.cursor.map(|c| c.node) != Some(node) {
            return;
        }
        let row = match reply {
            Ok(row) => row,
            Err(e) => {
                self.status = Some(e);
                return;
            }
        };
        v.cursor_row = Some(row);
        let lines = v.cursor.map_or(1, |c| c.lines.max(1));
        // The row after the node's lines is kept in view too: the marker
        // sits on the boundary.
        let last = row + lines;
        let mut scroll = scroll_of(v);
        scroll.total_rows = scroll.total_rows.max(last + 1);
        let top = if recentre {
            v.recentre.top_for(row, last, scroll.visible_rows())
        } else {
            scroll.top_showing(v.top, row, last)
        }
        .min(scroll.max_top());
        if top != v.top {
            v.top = top;
            v.scroll_seq += 1;
        }
        if !rows_cover(v) {
            self.fetch_rows(view);
        }
    }

    pub(super) fn run_trace(&mut self, view: u32, cmd: Command) {
        let Some(v) = self.view_ref(view) else {
            return;
        };
        let cursor = v.cursor;
        let node = cursor.map(|c| c.node);
        let visible = scroll_of(v).visible_rows();
        match cmd {
            Command::StepDown | Command::StepUp => {
                let delta = if cmd == Command::StepDown { 1 } else { -1 };
                self.step(view, delta);
            }
            Command::PageDown | Command::PageUp => {
                let Some(row) = v.cursor_row else { return };
                let target = if cmd == Command::PageDown {
                    row + visible
                } else {
                    row.saturating_sub(visible)
                };
                let target = target.min(v.total_rows.saturating_sub(1));
                if let Some(v) = self.view_mut(view) {
                    let s = scroll_of(v);
                    v.top = if cmd == Command::PageDown {
                        (v.top + visible).min(s.max_top())
                    } else {
                        v.top.saturating_sub(visible)
                    };
                    v.scroll_seq += 1;
                }
                self.fetch_rows(view);
                self.ask(
                    Rows {
                        view,
                        first: target,
                        count: 1,
                    },
                    move |reply| Msg::View(view, ViewMsg::PageTarget { reply }),
                );
            }
            Command::Home => self.move_to(view, Locate::Start, false),
            Command::End => self.move_to(view, Locate::End, false),
            Command::Recentre => {
                let Some(v) = self.view_mut(view) else { return };
                let (Some(row), Some(c)) = (v.cursor_row, v.cursor) else {
                    return;
                };
                let s = scroll_of(v);
                v.top = v
                    .recentre
                    .top_for(row, row + c.lines.max(1), s.visible_rows())
                    .min(s.max_top());
                v.recentre = v.recentre.next();
                v.scroll_seq += 1;
                if !rows_cover(v) {
                    self.fetch_rows(view);
                }
            }
            // Whole-trace folds need no position: before the first row
            // arrives they still apply, from node 0.
            Command::Fold(op @ (FoldOp::FoldAll | FoldOp::UnfoldAll)) => {
                self.fold(view, node.or(Some(0)), op)
            }
            Command::Fold(op) => self.fold(view, node, op),
            Command::GotoLine => self.prompt = Some(super::PromptFor::GotoLine { view }),
            Command::GotoTime => self.prompt = Some(super::PromptFor::GotoTime { view }),
            Command::FindPc { forward } => {
                self.prompt = Some(super::PromptFor::FindPc { view, forward })
            }
            Command::OpenMemory => self.prompt = Some(super::PromptFor::OpenMemory { view }),
            Command::RepeatPc { forward } => match (self.last_pc, node) {
                (Some(pc), Some(node)) => self.move_to(view, FindPc { node, pc, forward }, true),
                _ => self.status = Some(t("No PC searched for yet (p or P).").into()),
            },
            Command::Annotate => {
                let Some(node) = node else { return };
                let Some(v) = self.view_mut(view) else { return };
                match &mut v.annotate {
                    Some((lines, i)) => {
                        if *i + 1 < lines.len() {
                            *i += 1;
                        } else {
                            v.annotate = None;
                        }
                    }
                    None => self.ask(NodeLines { node }, move |reply| {
                        Msg::View(view, ViewMsg::Annotated { node, reply })
                    }),
                }
            }
            Command::PreviousWrite => {
                let Some(v) = self.view_ref(view) else { return };
                match (v.annotated().and_then(|a| a.target.clone()), node) {
                    (Some(target), Some(node)) => {
                        self.previous_write(view, node.saturating_sub(1), target)
                    }
                    _ => {
                        self.status = Some(
                            t("Highlight a register or memory line with a first, then Return.")
                                .into(),
                        )
                    }
                }
            }
            _ => {}
        }
    }

    fn step(&mut self, view: u32, delta: i64) {
        let Some(v) = self.view_mut(view) else { return };
        let Some(node) = v.cursor.map(|c| c.node) else {
            return;
        };
        if v.step_in_flight {
            v.queued_steps += delta;
            return;
        }
        v.step_in_flight = true;
        self.ask(Step { view, node, delta }, move |reply| {
            Msg::View(
                view,
                ViewMsg::Stepped {
                    reply: reply.map(Some),
                },
            )
        });
    }

    pub(super) fn on_stepped(&mut self, view: u32, reply: Moved) -> bool {
        let render = self.on_moved(view, reply, false);
        let Some(v) = self.view_mut(view) else {
            return render;
        };
        v.step_in_flight = false;
        let queued = std::mem::take(&mut v.queued_steps);
        if queued != 0 {
            self.step(view, queued);
        }
        render
    }

    pub(super) fn on_page_target(&mut self, view: u32, reply: Answer<RowsReply>) {
        match reply {
            Ok(rows) => {
                let node = match rows.rows.first() {
                    Some(Row::Line { node, .. }) => *node,
                    Some(Row::Fold { call_node, .. }) => *call_node,
                    None => return,
                };
                self.move_to(view, Locate::Node(node), false);
            }
            Err(e) => self.status = Some(e),
        }
    }

    /// Returns whether to render (only if the stack changed: it is asked
    /// for again while indexing).
    pub(super) fn on_stack(
        &mut self,
        view: u32,
        node: NodeId,
        reply: Answer<Vec<CallFrame>>,
    ) -> bool {
        let Some(v) = self.view_mut(view) else {
            return false;
        };
        if v.cursor.map(|c| c.node) != Some(node) {
            return false;
        }
        // The call stack is a convenience: without it the view works.
        let frames = reply.unwrap_or_default();
        if v.stack == frames {
            return false;
        }
        v.stack = frames;
        true
    }

    /// The fold box beside a call instruction of an active call.
    pub(super) fn fold_at(&mut self, view: u32, call_node: NodeId) {
        let entry = self
            .view_ref(view)
            .and_then(|v| v.stack.iter().find(|f| f.call_node == call_node))
            .map(|f| f.entry_node);
        self.fold(view, entry, FoldOp::FoldCall);
    }

    pub(super) fn fold(&mut self, view: u32, node: Option<NodeId>, op: FoldOp) {
        let Some(node) = node else { return };
        self.ask(Fold { view, node, op }, move |reply| {
            Msg::View(view, ViewMsg::Folded { reply })
        });
    }

    pub(super) fn on_folded(&mut self, view: u32, reply: Answer<Folded>) {
        match reply {
            Ok(Folded { total_rows, cursor }) => {
                let Some(v) = self.view_mut(view) else { return };
                v.total_rows = total_rows;
                let current = v.cursor.map(|c| c.node);
                self.refresh_rows(view);
                if current.is_some() && current != Some(cursor) {
                    // The position was folded away: it moves to the call.
                    self.move_to(view, Locate::Node(cursor), false);
                } else if let Some(node) = current {
                    self.ask(RowOfNode { view, node }, move |reply| {
                        Msg::View(
                            view,
                            ViewMsg::CursorRow {
                                node,
                                reply,
                                recentre: false,
                            },
                        )
                    });
                }
            }
            Err(e) => self.status = Some(e),
        }
    }

    pub(super) fn on_annotated(&mut self, view: u32, node: NodeId, reply: Answer<Vec<LineEffect>>) {
        let Some(v) = self.view_mut(view) else { return };
        if v.cursor.map(|c| c.node) != Some(node) {
            return;
        }
        match reply {
            Ok(lines) if !lines.is_empty() => v.annotate = Some((lines, 0)),
            Ok(_) => self.status = Some(t("This instruction has no lines.").into()),
            Err(e) => self.status = Some(e),
        }
    }

    /// The write at or before `from` to `target`; the bound view moves there.
    pub(super) fn previous_write(&mut self, view: u32, from: NodeId, target: WriteTarget) {
        let question = Write {
            node: from,
            target: target.clone(),
            forward: false,
        };
        self.ask(question, move |reply| {
            Msg::View(
                view,
                ViewMsg::WriteFound {
                    from,
                    target,
                    reply,
                },
            )
        });
    }

    pub(super) fn on_write_found(
        &mut self,
        view: u32,
        from: NodeId,
        target: WriteTarget,
        reply: Moved,
    ) {
        let here = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node);
        match &reply {
            // The write is where the view already is: the person wants the
            // one before it, so repeated presses walk back through writes.
            Ok(Some(n)) if Some(n.node) == here && n.node == from && from > 0 => {
                self.previous_write(view, from - 1, target);
            }
            Ok(None) => {
                self.status = Some(t("No earlier write in the trace.").into());
            }
            _ => {
                self.on_moved(view, reply, true);
            }
        }
    }

    pub(super) fn new_view(&mut self) {
        let id = self.next_view;
        self.next_view += 1;
        let cursor = self.view_ref(self.active_view()).and_then(|v| v.cursor);
        self.views.push(TraceView::new(id, None));
        self.focus = Focus::View(id);
        self.fetch_rows(id);
        if let Some(c) = cursor {
            self.move_to(id, Locate::Node(c.node), true);
        }
    }

    pub(super) fn close_view(&mut self, id: u32) {
        if self.views.len() <= 1 {
            return;
        }
        self.views.retain(|v| v.id != id);
        let fallback = self.views[0].id;
        let rebound: Vec<u32> = self
            .panes
            .iter_mut()
            .filter(|p| p.view == id)
            .map(|p| {
                p.view = fallback;
                p.id
            })
            .collect();
        for p in rebound {
            self.refresh_pane(p);
        }
        if self.focus == Focus::View(id) {
            self.focus = Focus::View(fallback);
        }
    }

    pub(super) fn try_hash(&mut self) {
        if self.hash_in_flight {
            return;
        }
        let Some(target) = self.pending_hash.clone() else {
            return;
        };
        self.hash_in_flight = true;
        let asked = target.clone();
        let tried = move |reply| Msg::HashTried {
            target: asked,
            reply,
        };
        match target {
            hash::HashTarget::Line(n) => {
                self.ask(Locate::Line(n), move |r| tried(HashAnswer::Node(r)))
            }
            hash::HashTarget::Time(t) => {
                self.ask(Locate::Time(t), move |r| tried(HashAnswer::Node(r)))
            }
            hash::HashTarget::Pc(expr) => {
                self.ask(Eval { node: 0, expr }, move |r| tried(HashAnswer::Pc(r)))
            }
            hash::HashTarget::Source(file, line) => {
                let first = LineHits {
                    file,
                    line,
                    after: None,
                    count: 1,
                };
                // The line's first execution, if it ran.
                self.ask(first, move |r| {
                    tried(HashAnswer::Node(
                        r.map(|h| h.hits.first().map(|hit| hit.node)),
                    ))
                })
            }
            hash::HashTarget::Invalid(message) => {
                self.hash_in_flight = false;
                self.hash_failed(tf("Cannot go to the position in the URL: {}", &[&message]));
            }
        }
    }

    /// The position the URL asks for cannot be had: said to the person and
    /// the embedding host, and the view starts where it would have.
    fn hash_failed(&mut self, message: String) {
        self.pending_hash = None;
        self.effects.push(Effect::GotoFailed(message.clone()));
        self.status = Some(message);
        self.try_start();
    }

    pub(super) fn on_hash_tried(&mut self, target: hash::HashTarget, reply: HashAnswer) {
        self.hash_in_flight = false;
        if self.pending_hash.as_ref() != Some(&target) {
            // Another position was asked for while this one was on its way
            // (the fragment changed, another divergence was picked): the
            // latest wins, and this answer must not take its place.
            self.try_hash();
            return;
        }
        let view = self.views[0].id;
        match reply {
            HashAnswer::Node(Ok(Some(node))) => {
                self.pending_hash = None;
                self.started = true;
                self.focus = Focus::View(view);
                if let hash::HashTarget::Line(line) = target {
                    self.goto_line = Some((view, line));
                }
                self.on_moved(view, Ok(Some(node)), true);
            }
            HashAnswer::Pc(Ok(pc)) => {
                self.pending_hash = None;
                self.started = true;
                self.last_pc = Some(pc);
                // The first visit after the start of the trace.
                self.move_to(
                    view,
                    FindPc {
                        node: 0,
                        pc,
                        forward: true,
                    },
                    true,
                );
            }
            HashAnswer::Node(Err(e)) | HashAnswer::Pc(Err(e)) if self.complete => {
                self.hash_failed(tf("Cannot go to the position in the URL: {}", &[&e]));
            }
            HashAnswer::Node(Ok(None)) if self.complete => {
                let message = match target {
                    hash::HashTarget::Line(line) => self.beyond_note(line),
                    hash::HashTarget::Source(file, line) => {
                        tf("{} never ran in this trace.", &[&format!("{file}:{line}")])
                    }
                    _ => t("The position in the URL is not in this trace.").to_string(),
                };
                self.hash_failed(message);
            }
            // Not indexed that far yet: the next progress tries again.
            _ => {}
        }
    }
}

impl Model {
    /// Why line `line` has no position: past the trace's end (naming its
    /// last line), or not indexed yet.
    pub(super) fn beyond_note(&self, line: u64) -> String {
        let lines = self.indexed_lines;
        if self.complete {
            tf(
                "Line {} is past the end: the trace ends at line {}.",
                &[&number(line), &number(lines)],
            )
        } else {
            tf(
                "Line {} is not indexed yet (lines 1–{} are).",
                &[&number(line), &number(lines)],
            )
        }
    }
}

/// Where a go-to-line went when it is not the line asked for: a line is
/// shown as part of the instruction it belongs to, and the lines before the
/// first instruction as the trace's start.
fn snap_note(line: u64, node: &tarmac_lens_core::protocol::NodeView) -> String {
    if node.instruction.is_none() && node.node == 0 {
        tf(
            "Line {} comes before the first instruction: the position is the trace's start, line {}.",
            &[&number(line), &number(node.first_line)],
        )
    } else if node.instruction.is_some() {
        tf(
            "Line {} is part of the instruction at line {}.",
            &[&number(line), &number(node.first_line)],
        )
    } else {
        tf(
            "Line {} is part of the position at line {}.",
            &[&number(line), &number(node.first_line)],
        )
    }
}

impl Model {
    /// Records the position in the URL (the page writes it a moment after
    /// the last move).
    fn note_position(&mut self, fragment: String) {
        let fragment = self.hash_for_position(fragment);
        self.effects.push(Effect::Fragment(fragment));
    }
}

impl Model {
    /// What a message of one view does.
    pub(super) fn on_view(&mut self, view: u32, msg: ViewMsg) -> bool {
        match msg {
            ViewMsg::Viewport { top, px, follow } => self.on_viewport(view, top, px, follow),
            ViewMsg::Resized { px } => self.on_resized(view, px),
            ViewMsg::Rows { reply } => self.on_rows(view, reply),
            ViewMsg::RowCount { reply } => return self.on_row_count(view, reply),
            ViewMsg::Moved { reply, recentre } => return self.on_moved(view, reply, recentre),
            ViewMsg::Stepped { reply } => return self.on_stepped(view, reply),
            ViewMsg::Stack { node, reply } => return self.on_stack(view, node, reply),
            ViewMsg::FoldAt { call_node } => self.fold_at(view, call_node),
            ViewMsg::GoTo { node } => {
                self.refocus = true;
                self.move_to(view, Locate::Node(node), false);
            }
            ViewMsg::CursorRow {
                node,
                reply,
                recentre,
            } => self.on_cursor_row(view, node, reply, recentre),
            ViewMsg::PageTarget { reply } => self.on_page_target(view, reply),
            ViewMsg::Folded { reply } => self.on_folded(view, reply),
            ViewMsg::Annotated { node, reply } => self.on_annotated(view, node, reply),
            ViewMsg::WriteFound {
                from,
                target,
                reply,
            } => self.on_write_found(view, from, target, reply),
            ViewMsg::RowClick { row } => self.on_row_click(view, row),
            ViewMsg::RowContext { row, x, y } => self.on_row_context(view, row, x, y),
            ViewMsg::RowEffects { row, x, y, reply } => self.on_row_effects(view, row, x, y, reply),
            ViewMsg::Close => self.close_view(view),
        }
        true
    }
}
