//! Queries on the index: positions by line, time, offset, instruction
//! and PC; the register file and memory after a node (previous and next
//! writes are watchpoints: `watch.rs`).

use super::*;

impl Index {
    /// The next (or previous) node strictly after (before) `node` whose
    /// instruction address is `pc` (Thumb bit ignored).
    pub fn find_pc(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        pc: u64,
        forward: bool,
    ) -> Result<Option<Node>> {
        let pcs = std::collections::HashSet::from([pc & !1]);
        self.find_pcs(source, node, &pcs, forward, |_| true)
    }

    /// The nearest node strictly after (before) `node` whose instruction
    /// address (Thumb bit cleared) is one of `pcs` and that `accept`
    /// takes; intervals whose PC filter has none of them are skipped.
    pub(crate) fn find_pcs(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        pcs: &std::collections::HashSet<u64>,
        forward: bool,
        mut accept: impl FnMut(&Node) -> bool,
    ) -> Result<Option<Node>> {
        let start = self.interval_of(node);
        let mut k = start as i64;
        while k >= 0 && (k as usize) < self.checkpoints.len() {
            // Testing many PCs against a filter costs more than it saves.
            let skip = (k as usize) != start
                && pcs.len() <= 64
                && self
                    .pc_blooms
                    .get(k as usize)
                    .is_some_and(|b| !pcs.iter().any(|&pc| bloom_has(b, pc)));
            if !skip {
                let mut found: Option<Node> = None;
                let mut scan = |n: &Node| {
                    let hit = n.at.pc != crate::engine::INVALID_PC
                        && pcs.contains(&(n.at.pc & !1))
                        && (if forward {
                            n.at.node > node
                        } else {
                            n.at.node < node
                        });
                    if hit && accept(n) {
                        found = Some(*n);
                        // Forward: the first is the nearest. Back: the last.
                        return !forward;
                    }
                    forward || n.at.node < node
                };
                self.scan_nodes(source, k as usize, &mut scan)?;
                if found.is_some() {
                    return Ok(found);
                }
            }
            k += if forward { 1 } else { -1 };
        }
        Ok(None)
    }

    /// The node with the given index.
    pub fn node(&self, source: &mut dyn TraceSource, index: u64) -> Result<Node> {
        self.find_node(source, self.interval_of(index), |n| n.at.node >= index)?
            .filter(|n| n.at.node == index)
            .ok_or_else(|| Error::OutOfRange(format!("no node {}", index)))
    }

    /// The node containing line `line` (lines before the first node belong to it).
    pub fn node_at_line(&self, source: &mut dyn TraceSource, line: u64) -> Result<Node> {
        let k = self.checkpoints.partition_point(|c| c.line <= line);
        self.node_from(source, k, |n| n.at.line + n.lines > line, "line", line)
    }

    /// The node containing byte `offset`.
    pub fn node_at_offset(&self, source: &mut dyn TraceSource, offset: u64) -> Result<Node> {
        let k = self.checkpoints.partition_point(|c| c.offset <= offset);
        self.node_from(
            source,
            k,
            |n| n.at.offset + n.len > offset,
            "offset",
            offset,
        )
    }

    /// The first node satisfying `contains`, searching from the interval
    /// before checkpoint `after` (the first checkpoint past the target).
    fn node_from(
        &self,
        source: &mut dyn TraceSource,
        after: usize,
        contains: impl Fn(&Node) -> bool,
        what: &str,
        value: u64,
    ) -> Result<Node> {
        self.find_node(source, after.saturating_sub(1), contains)?
            .ok_or_else(|| Error::OutOfRange(format!("{what} {value} is beyond the indexed trace")))
    }

    /// The node at `time`: the first node whose own time
    /// ([`Node::own_time`]) is `time`, where the trace wrote it even if its
    /// time went back before; a time no node has is placed where it falls
    /// among the clamped times: the last node whose clamped time is at most
    /// `time` (the first node if all are later).
    pub fn node_at_time(&self, source: &mut dyn TraceSource, time: u64) -> Result<Node> {
        if let Some(times) = &self.own_times {
            // Only intervals whose own times span `time` can hold it; the
            // intervals not closed yet may hold anything.
            for k in 0..self.checkpoints.len() {
                if times.get(k).is_some_and(|t| time < t[0] || time > t[1]) {
                    continue;
                }
                let mut found = None;
                self.scan_nodes(source, k, &mut |n| {
                    if n.own_time == time {
                        found = Some(*n);
                    }
                    found.is_none()
                })?;
                if let Some(n) = found {
                    return Ok(n);
                }
            }
        }
        self.node_at_clamped_time(source, time)
    }

    /// The last node whose clamped time is at most `time` (the first node if
    /// all are later).
    fn node_at_clamped_time(&self, source: &mut dyn TraceSource, time: u64) -> Result<Node> {
        // Node times never decrease. Checkpoint k+1 records the time of the
        // last node of interval k: find the first interval ending after `time`.
        let k = self.checkpoints[1..]
            .partition_point(|c| c.resume.current_time.is_none_or(|t| t <= time));
        let mut best: Option<Node> = None;
        let mut first: Option<Node> = None;
        self.scan_nodes(source, k, &mut |n| {
            first.get_or_insert(*n);
            if n.at.time <= time {
                best = Some(*n);
                true
            } else {
                false
            }
        })?;
        match (best, first) {
            (Some(b), _) => Ok(b),
            (None, _) if k > 0 => self.node(source, self.checkpoints[k].resume.node_index - 1),
            (None, Some(f)) => Ok(f),
            (None, None) => Err(Error::OutOfRange("the trace has no nodes".into())),
        }
    }

    /// The node holding instruction number `n` (0-based).
    pub fn node_at_instruction(&self, source: &mut dyn TraceSource, n: u64) -> Result<Node> {
        let k = self
            .checkpoints
            .partition_point(|c| c.resume.instructions <= n)
            .saturating_sub(1);
        self.find_node(source, k, |node| {
            node.at.pc != crate::engine::INVALID_PC && node.instructions_before >= n
        })?
        .ok_or_else(|| Error::OutOfRange(format!("instruction {} is beyond the indexed trace", n)))
    }

    /// First node from interval `k` on satisfying `pred`.
    fn find_node(
        &self,
        source: &mut dyn TraceSource,
        mut k: usize,
        pred: impl Fn(&Node) -> bool,
    ) -> Result<Option<Node>> {
        while k < self.checkpoints.len() {
            let mut found = None;
            self.scan_nodes(source, k, &mut |n| {
                if pred(n) {
                    found = Some(*n);
                    false
                } else {
                    true
                }
            })?;
            if found.is_some() {
                return Ok(found);
            }
            k += 1;
        }
        Ok(None)
    }

    /// Register file after node `node`.
    pub fn registers_after(&self, source: &mut dyn TraceSource, node: u64) -> Result<RegFile> {
        self.registers_and_node(source, node).map(|(r, _)| r)
    }

    /// Register file after node `node`, and the node, from one replay
    /// (the registers pane wants both: a scan for the node beside the
    /// replay was a quarter of its parsing).
    pub fn registers_and_node(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
    ) -> Result<(RegFile, Node)> {
        self.registers_where(source, self.interval_of(node), |n| n.at.node == node)?
            .ok_or_else(|| Error::OutOfRange(format!("no node {}", node)))
    }

    /// Register file after the node holding `line` (as
    /// [`Index::node_at_line`] finds it), and the node, from one replay:
    /// finding the node first parsed its interval twice (Python's
    /// `registers_at` p99 1.24 ms on a 1 GB trace).
    pub fn registers_at_line(
        &self,
        source: &mut dyn TraceSource,
        line: u64,
    ) -> Result<(RegFile, Node)> {
        let holds = |n: &Node| n.at.line + n.lines > line;
        match self.registers_where(source, self.interval_of_line(line), holds)? {
            Some(found) => Ok(found),
            // A line past its interval's last node (trailing lines the
            // next interval's first node owns): the node first, as found.
            None => {
                let n = self.node_at_line(source, line)?;
                self.registers_and_node(source, n.at.node)
            }
        }
    }

    /// The register file after the first node of interval `k` that `pred`
    /// takes, and the node; `None` if the interval has none.
    fn registers_where(
        &self,
        source: &mut dyn TraceSource,
        k: usize,
        pred: impl Fn(&Node) -> bool,
    ) -> Result<Option<(RegFile, Node)>> {
        struct Regs<F> {
            pred: F,
            out: Option<(RegFile, Node)>,
        }
        impl<F: Fn(&Node) -> bool> Observer for Regs<F> {
            fn node(&mut self, n: &Node, e: &Engine) {
                if self.out.is_none() && (self.pred)(n) {
                    self.out = Some((e.regs().clone(), *n));
                }
            }
            fn done(&self) -> bool {
                self.out.is_some()
            }
        }
        let mut r = Regs { pred, out: None };
        self.replay(source, k, &mut r)?;
        Ok(r.out)
    }

    /// The register bytes node `node`'s lines write (whatever the value
    /// written): a register file whose known flags are those bytes.
    pub(crate) fn registers_written(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
    ) -> Result<RegFile> {
        struct Written {
            target: u64,
            mask: RegFile,
            found: bool,
            passed: bool,
        }
        impl Observer for Written {
            fn node(&mut self, n: &Node, _e: &Engine) {
                self.passed = n.at.node >= self.target;
                if n.at.node == self.target {
                    self.found = true;
                }
            }
            fn done(&self) -> bool {
                self.passed
            }
            fn reg_write(&mut self, node: u64, offset: usize, bytes: &[u8], known: &[u8]) {
                // Not the indexer's own bookkeeping of the execution state.
                if node == self.target && offset != regfile::IFLAGS {
                    self.mask.write(offset, bytes, known);
                }
            }
        }
        let mut w = Written {
            target: node,
            mask: RegFile::default(),
            found: false,
            passed: false,
        };
        self.replay(source, self.interval_of(node), &mut w)?;
        if !w.found {
            return Err(Error::OutOfRange(format!("no node {}", node)));
        }
        Ok(w.mask)
    }

    /// Memory `[addr, addr+len)` after node `node`.
    pub fn memory_after(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        addr: u64,
        len: u64,
    ) -> Result<MemView> {
        let len = len.min(1 << 20);
        let k = self.interval_of(node);
        // Bytes written inside the interval up to the node, from the trace.
        struct Window {
            target: u64,
            addr: u64,
            len: u64,
            state: Vec<memdiff::ByteState>,
            reached: bool,
        }
        impl Observer for Window {
            fn node(&mut self, n: &Node, _e: &Engine) {
                if n.at.node == self.target {
                    self.reached = true;
                }
            }
            fn done(&self) -> bool {
                self.reached
            }
            fn mem_write(&mut self, node: u64, addr: u64, bytes: &[u8]) {
                if node > self.target {
                    return;
                }
                for (j, &v) in bytes.iter().enumerate() {
                    let a = addr.wrapping_add(j as u64);
                    // Wrapping: a window may run past the top of memory to 0.
                    let i = a.wrapping_sub(self.addr);
                    if i < self.len {
                        self.state[i as usize] = Some(Ok(v));
                    }
                }
            }
            fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
                if node > self.target {
                    return;
                }
                for i in 0..len {
                    let a = addr.wrapping_add(i);
                    let i = a.wrapping_sub(self.addr);
                    if i < self.len {
                        self.state[i as usize] = Some(Err(node));
                    }
                }
            }
        }
        let mut w = Window {
            target: node,
            addr,
            len,
            state: vec![None; len as usize],
            reached: false,
        };
        self.replay(source, k, &mut w)?;
        if !w.reached {
            return Err(Error::OutOfRange(format!("no node {}", node)));
        }
        // Earlier intervals, block by block.
        let mut bytes = vec![0u8; len as usize];
        let mut known = vec![false; len as usize];
        let mut block_cache: Option<(u64, [memdiff::ByteState; 16])> = None;
        for i in 0..len {
            let a = addr.wrapping_add(i);
            let st = match w.state[i as usize] {
                Some(s) => Some(s),
                None => {
                    let block = a >> memdiff::BLOCK_BITS;
                    if block_cache.as_ref().is_none_or(|(b, _)| *b != block) {
                        block_cache = Some((block, self.mem.block_state(block, k)));
                    }
                    block_cache
                        .as_ref()
                        .and_then(|(_, s)| s[(a & (memdiff::BLOCK - 1)) as usize])
                }
            };
            let v = match st {
                Some(Ok(v)) => Some(v),
                Some(Err(since)) => self.mem.fill_value(Some(since), a),
                None => self.mem.fill_value(None, a),
            };
            if let Some(v) = v {
                bytes[i as usize] = v;
                known[i as usize] = true;
            }
        }
        Ok(MemView { addr, bytes, known })
    }
}
