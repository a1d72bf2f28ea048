//! A trace view's rows: which are asked for as it scrolls, and what a
//! click or right-click on one does.

use std::rc::Rc;

use super::state::{rows_cover, scroll_of};
use super::{Answer, Focus, Menu, MenuAction, Model, Msg, TraceView, ViewMsg};
use crate::i18n::{number, t, tf, tn};
use tarmac_lens_core::protocol::{
    FoldOp, LineEffect, Locate, NodeLines, Row, Rows, RowsReply, WriteTarget,
};

impl Model {
    /// Asks for the rows around the viewport: a screenful above and below
    /// too, so small scrolls are served from the cache.
    pub(super) fn fetch_rows(&mut self, view: u32) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        if v.rows_in_flight {
            v.rows_again = true;
            return;
        }
        v.rows_in_flight = true;
        let visible = scroll_of(v).visible_rows();
        let (first, count) = if v.rows.is_none() {
            // The first answer is the screenful alone: decoding and
            // rendering three screenfuls made the first rows' task long.
            // The margins are asked for when it comes (`on_rows`).
            (v.top, (visible + 2).min(2000) as u32)
        } else {
            (
                v.top.saturating_sub(visible),
                (visible * 3 + 2).min(2000) as u32,
            )
        };
        self.ask(Rows { view, first, count }, move |reply| {
            Msg::View(view, ViewMsg::Rows { reply })
        });
    }

    /// Fetches again even if the cache covers the viewport (folds changed,
    /// more is indexed).
    pub(super) fn refresh_rows(&mut self, view: u32) {
        if let Some(v) = self.view_mut(view) {
            v.rows_again = v.rows_in_flight;
        }
        self.fetch_rows(view);
    }

    /// More of the trace is indexed. Rows already indexed never change, so
    /// when the cached rows cover the viewport and end before the indexed
    /// end, only the row count (the scrollbar's range) is asked for: a
    /// screenful re-sent and re-rendered on every progress message was most
    /// of the UI thread's work while indexing.
    pub(super) fn rows_grown(&mut self, view: u32) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        let settled = v
            .rows
            .as_ref()
            .is_some_and(|rows| rows.first + (rows.rows.len() as u64) < rows.total_rows);
        if !settled || !rows_cover(v) || v.rows_in_flight {
            self.refresh_rows(view);
            return;
        }
        let first = v.top;
        self.ask(
            Rows {
                view,
                first,
                count: 0,
            },
            move |reply| Msg::View(view, ViewMsg::RowCount { reply }),
        );
    }

    /// Returns whether to render (only if the count changed).
    pub(super) fn on_row_count(&mut self, view: u32, reply: Answer<RowsReply>) -> bool {
        let Some(v) = self.view_mut(view) else {
            return false;
        };
        match reply {
            Ok(rows) => {
                if rows.total_rows == v.total_rows {
                    return false;
                }
                v.total_rows = rows.total_rows;
                if let Some(cached) = &mut v.rows {
                    Rc::make_mut(cached).total_rows = rows.total_rows;
                }
                if !rows_cover(v) {
                    self.fetch_rows(view);
                }
            }
            Err(e) => self.status = Some(e),
        }
        true
    }

    pub(super) fn on_rows(&mut self, view: u32, reply: Answer<RowsReply>) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        v.rows_in_flight = false;
        let again = std::mem::take(&mut v.rows_again);
        match reply {
            Ok(rows) => {
                let margins_missing = v.rows.is_none()
                    && (rows.first > 0 || rows.first + (rows.rows.len() as u64) < rows.total_rows);
                v.total_rows = rows.total_rows;
                v.rows = Some(Rc::new(rows));
                if again || margins_missing || !rows_cover(v) {
                    self.fetch_rows(view);
                }
            }
            Err(e) => self.status = Some(e),
        }
    }

    pub(super) fn on_viewport(&mut self, view: u32, top: u64, px: f64, follow: bool) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        v.viewport_px = px;
        v.top = top.min(scroll_of(v).max_top());
        if follow {
            v.scroll_seq += 1;
        }
        if !rows_cover(v) {
            self.fetch_rows(view);
        }
    }

    /// A new height: the top row stays, and a cursor that was in sight
    /// stays in it. A resize used to come as a scroll to the top row the
    /// pane last drew, which (arriving between a move and its render, or
    /// before the row count) sent a view opened at `#line=` back to the
    /// start with its cursor out of sight.
    pub(super) fn on_resized(&mut self, view: u32, px: f64) {
        let Some(v) = self.view_mut(view) else {
            return;
        };
        let seen = |v: &TraceView| {
            let rows = scroll_of(v).visible_rows();
            v.cursor_row
                .map(|r| (r >= v.top && r < v.top + rows, r, rows))
        };
        let before = seen(v);
        v.viewport_px = px;
        if let (Some((true, row, _)), Some((false, _, rows))) = (before, seen(v)) {
            v.top = row.saturating_sub(rows / 2).min(scroll_of(v).max_top());
            v.scroll_seq += 1;
        }
        if !rows_cover(v) {
            self.fetch_rows(view);
        }
    }

    pub(super) fn on_row_click(&mut self, view: u32, row: Row) {
        self.focus = Focus::View(view);
        self.refocus = true;
        match row {
            Row::Line { node, .. } => self.move_to(view, Locate::Node(node), false),
            Row::Fold { call_node, .. } => self.fold(view, Some(call_node), FoldOp::UnfoldCall),
        }
    }

    pub(super) fn on_row_context(&mut self, view: u32, row: Row, x: i32, y: i32) {
        match &row {
            Row::Line { node, .. } => {
                let node = *node;
                self.ask(NodeLines { node }, move |reply| {
                    Msg::View(view, ViewMsg::RowEffects { row, x, y, reply })
                });
            }
            Row::Fold { call_node, .. } => {
                self.menu = Some(Menu {
                    x,
                    y,
                    items: vec![(
                        t("Unfold this call").into(),
                        MenuAction::Fold {
                            view,
                            node: *call_node,
                            op: FoldOp::UnfoldCall,
                        },
                    )],
                });
            }
        }
    }

    pub(super) fn on_row_effects(
        &mut self,
        view: u32,
        row: Row,
        x: i32,
        y: i32,
        reply: Answer<Vec<LineEffect>>,
    ) {
        let Row::Line { node, line, .. } = row else {
            return;
        };
        let mut items = vec![
            (
                tf("Move the position here (after line {})", &[&line]),
                MenuAction::MoveTo { view, node },
            ),
            // `tarmac-lens gdbserver` stands before the instruction of
            // this line (docs/gdb.md).
            (
                tf("Copy for gdb: monitor line {}", &[&line]),
                MenuAction::Copy(format!("monitor line {line}")),
            ),
        ];
        if let Ok(effects) = reply {
            if let Some(target) = effects
                .iter()
                .find(|e| e.line == line)
                .and_then(|e| e.target.clone())
            {
                let what = match &target {
                    WriteTarget::Register(r) => r.clone(),
                    WriteTarget::Memory { addr, len } => tn(
                        *len,
                        "{} byte at {}",
                        "{} bytes at {}",
                        &[&number(*len), &format!("{addr:#x}")],
                    ),
                };
                items.push((
                    tf("Previous write of {}", &[&what]),
                    MenuAction::Write {
                        view,
                        node: node.saturating_sub(1),
                        target: target.clone(),
                        forward: false,
                    },
                ));
                items.push((
                    tf("Next write of {}", &[&what]),
                    MenuAction::Write {
                        view,
                        node,
                        target: target.clone(),
                        forward: true,
                    },
                ));
                if let WriteTarget::Memory { addr, .. } = target {
                    items.push((
                        tf("Open memory at {}", &[&format!("{addr:#x}")]),
                        MenuAction::OpenMemory { view, addr },
                    ));
                }
            }
        }
        for (label, op) in [
            ("Fold the call containing this line (-)", FoldOp::FoldCall),
            ("Unfold the call after this line (+)", FoldOp::UnfoldCall),
            (
                "Fold the calls this function makes ([)",
                FoldOp::FoldChildren,
            ),
            (
                "Unfold everything inside this function (])",
                FoldOp::UnfoldInside,
            ),
        ] {
            items.push((t(label).into(), MenuAction::Fold { view, node, op }));
        }
        self.menu = Some(Menu { x, y, items });
    }
}
