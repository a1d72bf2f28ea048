//! A view's rows (trace lines and folded calls, highlighted, branch targets
//! named) and the moves that depend on its folds: a step over a folded call,
//! fold and unfold.

use super::folds::Fold;
use super::question::Example;
use super::*;
use crate::Result;

impl Answerable for Rows {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<RowsReply> {
        session.rows(self.view, self.first, self.count.min(MAX_ROWS))
    }

    fn examples(_: &Example) -> Vec<Rows> {
        vec![Rows {
            view: 0,
            first: 0,
            count: 80,
        }]
    }
}

impl Answerable for Step {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<NodeView> {
        Ok(view(&session.step(self.view, self.node, self.delta)?))
    }

    /// What a key press asks: without these the first Down key after
    /// indexing paid 3 ms of compiling in the worker.
    fn examples(at: &Example) -> Vec<Step> {
        [1, -1, 40]
            .map(|delta| Step {
                view: 0,
                node: at.node,
                delta,
            })
            .into()
    }
}

impl Answerable for protocol::Fold {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Folded> {
        session.fold(self.view, self.node, self.op)
    }

    fn examples(at: &Example) -> Vec<protocol::Fold> {
        [
            FoldOp::FoldAll,
            FoldOp::UnfoldAll,
            FoldOp::FoldChildren,
            FoldOp::UnfoldInside,
            FoldOp::FoldCall,
            FoldOp::UnfoldCall,
        ]
        .map(|op| protocol::Fold {
            view: at.fold_view,
            node: at.node,
            op,
        })
        .into()
    }
}

impl<S: TraceSource> Session<S> {
    fn rows(&mut self, v: u32, first: u64, count: u32) -> Result<RowsReply> {
        let lines = self.lines();
        let folds = self.folds.entry(v).or_default().clone();
        let total_rows = folds.total_rows(lines);
        let mut rows = Vec::new();
        let mut r = first;
        let end_row = first.saturating_add(u64::from(count)).min(total_rows);
        while r < end_row {
            match folds.at_row(r) {
                RowTarget::Fold(i) => {
                    let f = &folds.folds()[i];
                    rows.push(Row::Fold {
                        call: f.call,
                        call_node: f.call_node,
                        entry_node: f.entry_node,
                        lines: f.end - f.first,
                        function: f.function,
                        name: self.name_of(f.function),
                    });
                    r += 1;
                }
                RowTarget::Line(line) => {
                    // A run of visible lines up to the next fold or the end.
                    let next_fold = folds
                        .folds()
                        .iter()
                        .find(|f| f.first > line)
                        .map_or(u64::MAX, |f| f.first);
                    let n = (end_row - r).min(next_fold - line);
                    let mut got = 0;
                    let image = self.image.as_ref();
                    let debug = self.debug_info.as_ref();
                    let (idx, src) = match (&self.index, &self.building) {
                        (Some(i), _) => (i, &mut self.source as &mut dyn TraceSource),
                        (None, Some(b)) => {
                            (b.builder.index(), &mut self.source as &mut dyn TraceSource)
                        }
                        (None, None) => break,
                    };
                    let mut out: Vec<Row> = Vec::new();
                    let mut prev_node = None;
                    idx.scan_lines(src, line, n, &mut |number, text, node| {
                        let first_of_node = prev_node != Some(node);
                        prev_node = Some(node);
                        out.push(line_row(
                            number,
                            text,
                            node,
                            first_of_node,
                            (image, debug),
                            idx.options().parse,
                            idx.dialect(),
                        ));
                        got += 1;
                    })?;
                    rows.append(&mut out);
                    if got == 0 {
                        break;
                    }
                    r += got;
                }
            }
        }
        Ok(RowsReply {
            first,
            rows,
            total_rows,
        })
    }
    fn step(&mut self, v: u32, node: u64, delta: i64) -> Result<Node> {
        let nodes = self.nodes();
        let folds = self.folds.entry(v).or_default().clone();
        let mut cur = node.min(nodes.saturating_sub(1));
        let (idx, src) = self.parts();
        let mut info = idx.node(src, cur)?;
        for _ in 0..delta.unsigned_abs() {
            let next = if delta > 0 {
                if cur + 1 >= nodes {
                    break;
                }
                cur + 1
            } else {
                if cur == 0 {
                    break;
                }
                cur - 1
            };
            let mut n = idx.node(src, next)?;
            if let Some(i) = folds.hiding(n.at.line) {
                let f = &folds.folds()[i];
                let target = if delta > 0 {
                    f.resume_node
                } else {
                    Some(f.call_node)
                };
                match target {
                    Some(t) if t < nodes => n = idx.node(src, t)?,
                    _ => break,
                }
            }
            cur = n.at.node;
            info = n;
        }
        Ok(info)
    }
    fn fold(&mut self, v: u32, node: u64, op: FoldOp) -> Result<Folded> {
        if self.index.is_none() {
            return Err(Error::Query(
                "calls are known once indexing completes".into(),
            ));
        }
        let lines = self.lines();
        let nodes = self.nodes();
        let idx = self.index.as_ref().expect("checked above");
        let calls = idx.calls();
        let fold_of = |c: &crate::index::CallInfo| Fold {
            call: c.id,
            call_node: c.call_node,
            entry_node: c.entry_node,
            resume_node: c.resume_node,
            function: c.function,
            first: c.entry_line,
            end: c.resume_line.unwrap_or(lines + 1),
        };
        // The position is after `node`: the function it is in is the one
        // containing the next node.
        let inside = (node + 1).min(nodes.saturating_sub(1));
        let stack = calls.stack_at(inside);
        let folds = self.folds.entry(v).or_default();
        match op {
            FoldOp::FoldCall => {
                if let Some(c) = stack.last() {
                    folds.add(fold_of(c));
                }
            }
            FoldOp::UnfoldCall => {
                folds.retain(|f| {
                    !(f.call_node == node
                        || (f.entry_node <= inside && f.resume_node.is_none_or(|r| inside < r)))
                });
            }
            FoldOp::FoldChildren => {
                let parent = stack.last().map(|c| c.id);
                let (from, to) = stack.last().map_or((0, u64::MAX), |c| {
                    (c.entry_node, c.resume_node.unwrap_or(u64::MAX))
                });
                for c in calls.overlapping(from, to.saturating_sub(1)) {
                    if c.parent == parent
                        && c.entry_node >= from
                        && c.entry_node < to
                        && Some(c.id) != parent
                    {
                        folds.add(fold_of(&c));
                    }
                }
            }
            FoldOp::UnfoldInside => {
                let (first, end) = stack.last().map_or((0, u64::MAX), |c| {
                    (c.entry_line, c.resume_line.unwrap_or(u64::MAX))
                });
                folds.retain(|f| !(f.first >= first && f.end <= end));
            }
            FoldOp::FoldAll => {
                for c in calls.iter() {
                    if c.parent.is_none() {
                        folds.add(fold_of(&c));
                    }
                }
            }
            FoldOp::UnfoldAll => folds.retain(|_| false),
        }
        let total_rows = folds.total_rows(lines);
        // Keep the cursor visible: a folded-away position moves to the call.
        let folds = folds.clone();
        let (idx, src) = self.parts();
        let n = idx.node(src, node)?;
        let cursor = match folds.hiding(n.at.line) {
            Some(i) => folds.folds()[i].call_node,
            None => node,
        };
        Ok(Folded { total_rows, cursor })
    }
}

/// Expands tabs so columns line up in the page.
pub(super) fn display_text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let s = s.trim_end_matches(['\r', '\n']);
    if !s.contains('\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\t' {
            let n = 8 - out.chars().count() % 8;
            out.extend(std::iter::repeat_n(' ', n));
        } else {
            out.push(c);
        }
    }
    out
}

/// Byte offsets of spans into the tab-expanded text (tabs only move later
/// columns; the common case has none).
pub(super) fn remap_spans(bytes: &[u8], spans: Vec<Span>) -> Vec<Span> {
    if !bytes.contains(&b'\t') {
        return spans;
    }
    let mut map = Vec::with_capacity(bytes.len() + 1);
    let mut col = 0u32;
    for &b in bytes {
        map.push(col);
        col += if b == b'\t' { 8 - col % 8 } else { 1 };
    }
    map.push(col);
    spans
        .into_iter()
        .map(|s| Span {
            start: map[(s.start as usize).min(bytes.len())],
            end: map[(s.end as usize).min(bytes.len())],
            hl: s.hl,
        })
        .collect()
}

/// Branch target of a disassembly, for symbolic display: the address after
/// `; ` (Fast Models style) or the operand of a branch mnemonic (gem5 style).
pub(super) fn branch_target(dis: &str) -> Option<u64> {
    let mnemonic = dis.split_whitespace().next()?.to_ascii_uppercase();
    let is_branch =
        mnemonic.starts_with('B') && !mnemonic.starts_with("BIC") && !mnemonic.starts_with("BFI")
            || mnemonic.starts_with("CB")
            || mnemonic.starts_with("TB");
    if !is_branch {
        return None;
    }
    let text = match dis.rfind(';') {
        Some(i) => &dis[i + 1..],
        None => dis.split_whitespace().last()?,
    };
    let t = text.trim().trim_start_matches('#');
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    u64::from_str_radix(hex.split(|c: char| !c.is_ascii_hexdigit()).next()?, 16).ok()
}

pub(super) fn line_row(
    number: u64,
    text: &[u8],
    node: u64,
    first_of_node: bool,
    (image, debug): (Option<&SymbolTable>, Option<&crate::DebugInfo>),
    parse: ParseOptions,
    dialect: crate::parse::Dialect,
) -> Row {
    // Each row is highlighted on its own: a fresh parser per line keeps rows
    // independent of what was fetched before (only LD/ST continuation
    // lines lose their type, and they still highlight as memory words).
    let mut parser = Parser::new(parse, dialect);
    let rec = parser.parse_line(text);
    // While one core is followed, the others' lines are shown dimmed: they
    // sit among its nodes but change none of its registers.
    let other_core = matches!((parse.cpu, rec.cpu), (Some(want), Some(c)) if c != want.as_bytes());
    let spans = if other_core {
        vec![protocol::Span {
            start: 0,
            end: text.len() as u32,
            hl: Hl::OtherCore,
        }]
    } else {
        highlight::spans(text, &rec)
    };
    let spans = remap_spans(text, spans);
    let function = match (&rec.kind, image) {
        (RecordKind::Instruction(i), Some(img)) => {
            img.find_by_address(i.pc).map(|(sym, _)| sym.display_name())
        }
        _ => None,
    };
    let branch_symbol = match (&rec.kind, image) {
        (RecordKind::Instruction(i), Some(img)) => {
            branch_target(&String::from_utf8_lossy(i.disassembly))
                .map(|t| img.symbolic_address(t, false))
                .filter(|s| !s.is_empty())
        }
        _ => None,
    };
    // One line-table lookup per instruction row (a unit's table is read
    // once, at its first lookup).
    let source = match (&rec.kind, debug) {
        (RecordKind::Instruction(i), Some(d)) => d
            .location(i.pc)
            .ok()
            .flatten()
            .filter(|l| l.line.is_some())
            .map(|l| l.to_string()),
        _ => None,
    };
    let capability = match &rec.kind {
        RecordKind::Instruction(i) => i
            .capability
            .map(|c| crate::parse::capability::Described(c, i.pc).to_string()),
        _ => None,
    };
    Row::Line {
        line: number,
        node,
        first_of_node,
        text: display_text(text),
        spans,
        branch_symbol,
        source,
        function,
        capability,
    }
}
