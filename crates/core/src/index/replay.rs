//! Replay: a query restores the nearest checkpoint and runs one interval
//! of trace text through the same [`Engine`] that built the index,
//! reporting to an [`Observer`].

use super::*;

impl Index {
    pub(super) fn interval_of(&self, node: u64) -> usize {
        self.checkpoints
            .partition_point(|c| c.resume.node_index <= node)
            .saturating_sub(1)
    }

    /// Replays checkpoint interval `k` from the trace through the same
    /// [`Engine`] that built the index, reporting to `obs` until its
    /// [`Observer::line`] or [`Observer::done`] says it has what it wanted.
    pub(super) fn replay(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        obs: &mut dyn Observer,
    ) -> Result<()> {
        let cp = self
            .checkpoints
            .get(k)
            .ok_or_else(|| Error::OutOfRange(format!("no checkpoint {}", k)))?;
        let end = match self.checkpoints.get(k + 1) {
            Some(next) => next.offset,
            None => self.summary.bytes.min(source.len()),
        };
        let regs = self.snapshots.get(k);
        let mut engine = Engine::resume(self.opts.engine(), &cp.resume, regs);
        let mut parser = Parser::new(self.opts.parse, self.dialect);
        parser.reset(cp.parser_time);
        let mut reader =
            LineReader::with_range(SourceRef(source), cp.offset, end, cp.line, 256 << 10);
        let mut next_line = cp.line;
        while let Some(line) = reader.next_line().map_err(Error::in_query)? {
            if !obs.line(&line) {
                return Ok(());
            }
            let rec = parser.parse_line(line.text);
            engine.feed(&line, &rec, obs);
            next_line = line.number + 1;
            if obs.done() {
                return Ok(());
            }
        }
        engine.finish(end, next_line, obs);
        Ok(())
    }

    /// Calls `f(line, node)` for `count` lines from `first_line`, where
    /// `node` is the node the line belongs to (lines before the first event
    /// belong to node 0). Stops early at the end of the indexed part.
    pub fn scan_lines(
        &self,
        source: &mut dyn TraceSource,
        first_line: u64,
        count: u64,
        f: &mut dyn FnMut(u64, &[u8], u64),
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let last_line = first_line.saturating_add(count - 1);
        let mut k = self
            .checkpoints
            .partition_point(|c| c.line <= first_line)
            .saturating_sub(1);
        // Lines wait until the node that holds them closes.
        struct Lines<'f> {
            first: u64,
            last: u64,
            pending: Vec<(u64, Vec<u8>)>,
            f: &'f mut dyn FnMut(u64, &[u8], u64),
            done: bool,
        }
        impl Lines<'_> {
            fn flush_until(&mut self, end_line: u64, node: u64) {
                let mut i = 0;
                while i < self.pending.len() && self.pending[i].0 < end_line {
                    let (n, ref t) = self.pending[i];
                    (self.f)(n, t, node);
                    if n >= self.last {
                        self.done = true;
                    }
                    i += 1;
                }
                self.pending.drain(..i);
            }
        }
        impl Observer for Lines<'_> {
            fn line(&mut self, line: &Line<'_>) -> bool {
                if line.number > self.last + 4096 || self.done {
                    return false;
                }
                if line.number >= self.first && line.number <= self.last {
                    self.pending.push((line.number, line.text.to_vec()));
                }
                true
            }
            fn node(&mut self, n: &Node, _e: &Engine) {
                self.flush_until(n.at.line + n.lines, n.at.node);
            }
            fn done(&self) -> bool {
                self.done
            }
        }
        let mut obs = Lines {
            first: first_line,
            last: last_line,
            pending: Vec::new(),
            f,
            done: false,
        };
        while k < self.checkpoints.len() && !obs.done {
            self.replay(source, k, &mut obs)?;
            // Lines after the last node of the indexed part (an open node).
            if k + 1 == self.checkpoints.len() && !obs.pending.is_empty() {
                let node = self.summary.nodes.saturating_sub(1);
                obs.flush_until(u64::MAX, node);
            }
            k += 1;
        }
        Ok(())
    }

    pub(super) fn scan_nodes(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        f: &mut dyn FnMut(&Node) -> bool,
    ) -> Result<()> {
        struct Scan<'f> {
            f: &'f mut dyn FnMut(&Node) -> bool,
            stop: bool,
        }
        impl Observer for Scan<'_> {
            fn node(&mut self, n: &Node, _e: &Engine) {
                if !self.stop && !(self.f)(n) {
                    self.stop = true;
                }
            }
            fn done(&self) -> bool {
                self.stop
            }
        }
        self.replay(source, k, &mut Scan { f, stop: false })
    }
}

/// Lets a borrowed `&mut dyn TraceSource` feed a [`LineReader`].
pub(super) struct SourceRef<'s, S: TraceSource + ?Sized>(pub(super) &'s mut S);

impl<S: TraceSource + ?Sized> TraceSource for SourceRef<'_, S> {
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.0.read_at(offset, buf)
    }
}
