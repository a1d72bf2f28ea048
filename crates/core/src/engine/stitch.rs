//! What parallel indexing needs of the engine (`index::parallel`): the
//! engine's whole state as bytes, for handing a byte range's engine from one
//! worker to another; the split point, where an engine that started inside
//! a trace no longer depends on what came before; and the stitch, which
//! checks an engine that ran from a split against the sequential one there
//! and turns it into it.

use super::transfer_log::TransferLog;
use super::*;

/// What an engine that started at a split point records for the stitch.
#[derive(Clone, Debug)]
pub(crate) struct SplitInfo {
    /// The state at the split, to compare with the sequential one.
    pub(crate) control: ControlState,
    /// A semihosting call read registers or memory from before the split:
    /// its effect cannot be known here.
    pub(crate) undetermined: bool,
    /// Core registers read (sp, lr: of either execution state) while some
    /// of their bytes had not been written since the range started, as
    /// (offset, size, those bytes as a mask): the sequential pass read the
    /// same (nothing) only if one of those bytes is unknown to it at the
    /// split too ([`Engine::assumptions_hold`]).
    pub(crate) assumed_unknown: Vec<(u16, u8, u8)>,
    /// The node decisions had timestamps been clamped to a time above every
    /// one seen since the split, as they are when the trace's time went
    /// backwards before it (the sequential pass then holds a later
    /// `current_time` than the range): see [`SplitInfo::shadow`].
    pub(crate) clamped: ClampShadow,
}

/// The engine under a later clamp time `M` (the sequential pass's
/// `current_time` at the split, above the range's): every event line's time
/// is `M` until one's raw time exceeds `M`; from that line on both make the
/// same nodes. Before it, a node starts only at an instruction after one
/// (`seen`). The range's nodes are the same for every `M` below `diverge`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClampShadow {
    /// `seen_instruction` under the clamp.
    pub(crate) seen: bool,
    /// Highest raw time of an event line since the split.
    pub(crate) raw_max: u64,
    /// `raw_max` at the first line whose node decision differed.
    pub(crate) diverge: Option<u64>,
}

impl SplitInfo {
    /// Follows one event line fed after the split (`boundary`: whether it
    /// started a node; `was_event`: whether a node was open before it).
    pub(super) fn shadow(&mut self, raw: u64, boundary: bool, was_event: bool, instr: bool) {
        let c = &mut self.clamped;
        c.raw_max = c.raw_max.max(raw);
        if c.diverge.is_none() && boundary != (!was_event || (c.seen && instr)) {
            c.diverge = Some(c.raw_max);
        }
        c.seen |= instr;
    }
}

/// The part of the engine's state that steers what it does with later
/// lines, apart from memory and pending calls (which a split point starts
/// empty and the stitch lays over the sequential ones): equal states at a
/// node boundary make equal futures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ControlState {
    pub(crate) current_time: Option<u64>,
    pub(crate) seen_instruction: bool,
    pub(crate) expected_next_pc: u64,
    pub(crate) expected_next_lr: u64,
    pub(crate) insns_since_lr_update: u64,
    pub(crate) iflags: u32,
    pub(crate) iflags_reg: Option<u64>,
    /// Bytes and known flags of the stack pointer and link register of the
    /// current execution state, which call detection reads.
    pub(crate) sp_lr: [u8; 64],
    /// The node that ends at the split: index, first line, offset, time, pc.
    pub(crate) last_node: [u64; 5],
    pub(crate) next_node: u64,
    pub(crate) instructions: u64,
}

impl ControlState {
    /// Takes the sequential state's sp bytes where this one, a range's at
    /// its split, does not know them: the range read them only as the
    /// sequential pass did (transfers replayed with its sp,
    /// [`Engine::sp_reads_hold`]) or noted that it read them unknown
    /// ([`Engine::assumptions_hold`]).
    pub(crate) fn fill_unknown_sp(&mut self, seq: &ControlState) {
        for i in 0..8 {
            if self.sp_lr[32 + i] == 0 {
                self.sp_lr[i] = seq.sp_lr[i];
                self.sp_lr[32 + i] = seq.sp_lr[32 + i];
            }
        }
    }
}

impl Engine {
    pub(super) fn control(&self, last_node: [u64; 5], next_node: u64) -> ControlState {
        // Only the bytes the current execution state reads: a change of
        // state after a split makes the range fall back (see `instruction`).
        // lr is read only within 8 instructions of a write to it; until
        // then its old value does not matter.
        let mut sp_lr = [0u8; 64];
        let regs = if self.insns_since_lr_update < 8 { 2 } else { 1 };
        for (i, r) in [self.sp_reg(), self.lr_reg()]
            .into_iter()
            .take(regs)
            .enumerate()
        {
            let (o, n) = regfile::location(r, self.aarch64());
            sp_lr[i * 8..i * 8 + n].copy_from_slice(&self.regs.bytes[o..o + n]);
            sp_lr[32 + i * 8..32 + i * 8 + n].copy_from_slice(&self.regs.known[o..o + n]);
        }
        ControlState {
            current_time: self.current_time,
            seen_instruction: self.seen_instruction,
            expected_next_pc: self.expected_next_pc,
            expected_next_lr: self.expected_next_lr,
            insns_since_lr_update: self.insns_since_lr_update,
            iflags: self.iflags,
            iflags_reg: self.regs.value(regfile::IFLAGS, 4),
            sp_lr,
            last_node,
            next_node,
            instructions: self.instructions,
        }
    }
    /// Everything, for handing a range's engine to another worker.
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.b(self.opts.big_endian);
        e.b(self.opts.debug_calls);
        e.bytes(self.opts.cpu.as_ref().map_or(&[][..], |c| c.as_bytes()));
        e.b(self.core.is_none_or(|c| c.selected()));
        e.raw(&self.regs.bytes[..]);
        e.raw(&self.regs.known[..]);
        e.raw(&self.committed.bytes);
        e.raw(&self.committed.known);
        e.b(self.core_dirty != 0);
        self.mem.encode(e);
        self.calls.encode(e);
        e.opt(self.current_time);
        e.b(self.seen_instruction);
        e.b(self.seen_any_event);
        for v in [
            self.node_index,
            self.node_first_line,
            self.node_offset,
            self.node_pc,
            self.node_own_time,
        ] {
            e.u(v);
        }
        e.b(self.prev_site.is_some());
        if let Some(s) = &self.prev_site {
            s.encode(e);
        }
        for v in [
            self.expected_next_pc,
            self.expected_next_lr,
            self.insns_since_lr_update,
            u64::from(self.iflags),
        ] {
            e.u(v);
        }
        e.b(self.aarch64_used);
        e.u(self.instructions);
        e.b(self.synced);
        e.b(self.split.is_some());
        if let Some(s) = &self.split {
            let c = &s.control;
            e.opt(c.current_time);
            e.b(c.seen_instruction);
            for v in [
                c.expected_next_pc,
                c.expected_next_lr,
                c.insns_since_lr_update,
                u64::from(c.iflags),
            ] {
                e.u(v);
            }
            e.opt(c.iflags_reg);
            e.raw(&c.sp_lr);
            for v in c.last_node {
                e.u(v);
            }
            e.u(c.next_node);
            e.u(c.instructions);
            e.b(s.undetermined);
            e.u(s.assumed_unknown.len() as u64);
            for &(o, n, m) in &s.assumed_unknown {
                e.u(u64::from(o));
                e.u(u64::from(n));
                e.u(u64::from(m));
            }
            e.b(s.clamped.seen);
            e.u(s.clamped.raw_max);
            e.opt(s.clamped.diverge);
        }
    }
    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Engine> {
        let big_endian = d.b()?;
        let debug_calls = d.b()?;
        let cpu = match d.bytes()? {
            [] => None,
            name => Some(CpuName::new(name).ok()?),
        };
        let opts = EngineOptions {
            big_endian,
            debug_calls,
            cpu,
        };
        let selected = d.b()?;
        let mut e = Engine::new(opts);
        if let Some(c) = &mut e.core {
            c.set_selected(selected);
        }
        e.regs.bytes.copy_from_slice(d.raw(regfile::SIZE)?);
        e.regs.known.copy_from_slice(d.raw(regfile::SIZE)?);
        e.committed.bytes.copy_from_slice(d.raw(CORE_BYTES)?);
        e.committed.known.copy_from_slice(d.raw(CORE_BYTES)?);
        e.core_dirty = if d.b()? { u32::MAX } else { 0 };
        e.core_stale = e.committed.differs(&e.regs);
        e.mem = Memory::decode(d)?;
        e.calls = CallDetector::decode(d)?;
        e.current_time = d.opt()?;
        e.seen_instruction = d.b()?;
        e.seen_any_event = d.b()?;
        e.node_index = d.u()?;
        e.node_first_line = d.u()?;
        e.node_offset = d.u()?;
        e.node_pc = d.u()?;
        e.node_own_time = d.u()?;
        if d.b()? {
            e.prev_site = Some(Site::decode(d)?);
        }
        e.expected_next_pc = d.u()?;
        e.expected_next_lr = d.u()?;
        e.insns_since_lr_update = d.u()?;
        e.iflags = u32::try_from(d.u()?).ok()?;
        e.aarch64_used = d.b()?;
        e.instructions = d.u()?;
        e.synced = d.b()?;
        if d.b()? {
            let current_time = d.opt()?;
            let seen_instruction = d.b()?;
            let (expected_next_pc, expected_next_lr, insns_since_lr_update) =
                (d.u()?, d.u()?, d.u()?);
            let iflags = u32::try_from(d.u()?).ok()?;
            let iflags_reg = d.opt()?;
            let mut sp_lr = [0u8; 64];
            sp_lr.copy_from_slice(d.raw(64)?);
            let mut last_node = [0u64; 5];
            for v in &mut last_node {
                *v = d.u()?;
            }
            let control = ControlState {
                current_time,
                seen_instruction,
                expected_next_pc,
                expected_next_lr,
                insns_since_lr_update,
                iflags,
                iflags_reg,
                sp_lr,
                last_node,
                next_node: d.u()?,
                instructions: d.u()?,
            };
            let undetermined = d.b()?;
            let mut assumed_unknown = Vec::new();
            for _ in 0..d.count()? {
                assumed_unknown.push((
                    u16::try_from(d.u()?).ok()?,
                    u8::try_from(d.u()?).ok()?,
                    u8::try_from(d.u()?).ok()?,
                ));
            }
            let clamped = ClampShadow {
                seen: d.b()?,
                raw_max: d.u()?,
                diverge: d.opt()?,
            };
            e.split = Some(SplitInfo {
                control,
                undetermined,
                assumed_unknown,
                clamped,
            });
        }
        Some(e)
    }
    /// The control state the engine would have after closing its open node
    /// at the next line (as [`SplitInfo::control`] records it).
    pub(crate) fn control_closing(&self) -> Option<ControlState> {
        if !self.seen_any_event {
            return None;
        }
        let last = [
            self.node_index,
            self.node_first_line,
            self.node_offset,
            self.current_time.unwrap_or(0),
            self.node_pc,
        ];
        Some(self.control(last, self.node_index + 1))
    }
    /// Whether the state after the node just closed no longer depends on
    /// anything before this engine started (given equal memory and pending
    /// calls): an instruction was seen, lr was written or control
    /// transferred since, and sp is known. `Some(false)` when all but sp
    /// hold after many instructions: sp may not be traced at all, or only
    /// rarely (a split made then is tentative). The stitch checks it.
    pub(crate) fn split_ready(&self) -> Option<bool> {
        let (o, n) = regfile::location(self.sp_reg(), self.aarch64());
        let sp_known = self.regs.known[o..o + n].iter().all(|&k| k != 0);
        let ready = self.instructions > 0 && self.synced && (sp_known || self.instructions >= 1024);
        ready.then_some(sp_known)
    }
    /// Notes that `reg` was read with bytes unknown since a split (no-op
    /// without one).
    pub(super) fn assume_unknown(&mut self, reg: RegId) {
        if self.split.is_none() {
            return;
        }
        let (o, n) = regfile::location(reg, self.aarch64());
        let mut mask = 0u8;
        for i in 0..n.min(8) {
            if self.committed.known[o + i] == 0 {
                mask |= 1 << i;
            }
        }
        let a = (o as u16, n as u8, mask);
        let Some(s) = &mut self.split else {
            return;
        };
        if !s.assumed_unknown.contains(&a) {
            s.assumed_unknown.push(a);
        }
    }
    /// Whether the registers `split` read as unknown since its split read
    /// as unknown here too: this engine is the sequential one at the split.
    pub(crate) fn assumptions_hold(&self, split: &SplitInfo) -> bool {
        split.assumed_unknown.iter().all(|&(o, n, mask)| {
            let o = usize::from(o);
            (0..usize::from(n).min(8)).any(|i| mask & (1 << i) != 0 && self.regs.known[o + i] == 0)
        })
    }
    /// Whether a range should make its split again here (where
    /// [`Engine::split_ready`] holds): its work since cannot be adopted
    /// (`undetermined`), or it read registers unknown since the split that
    /// it knows now. The sequential pass nearly always knows them (sp and
    /// lr are written early in any program) and would refuse the join:
    /// it then parses the whole range again, where a split made again
    /// costs it only the bytes up to here.
    pub(crate) fn wants_resplit(&self) -> bool {
        let Some(s) = &self.split else {
            return false;
        };
        s.undetermined
            || (!s.assumed_unknown.is_empty()
                && s.assumed_unknown.iter().all(|&(o, n, _)| {
                    let o = usize::from(o);
                    self.committed.known[o..o + usize::from(n)]
                        .iter()
                        .all(|&k| k != 0)
                }))
    }
    /// Where sp is in the register file, when this engine runs from a split
    /// and has not seen any of it written: the sequential pass reads there
    /// the value it held at the split.
    pub(super) fn sp_from_split(&self) -> Option<(u16, u8)> {
        self.split.as_ref()?;
        let (o, n) = regfile::location(self.sp_reg(), self.aarch64());
        let unseen = self.committed.known[o..o + n].iter().all(|&k| k == 0);
        unseen.then_some((o as u16, n as u8))
    }
    /// Whether the transfers `range` logged with an sp from before its
    /// split (`TopTransfer::sp_from_split`) would have been logged too with
    /// the sp this engine, the sequential one at the split, holds there:
    /// each at or above the highest sp the range had seen by then. One
    /// below it could meet a potential call the range made since, or make
    /// one that a transfer the range decided itself would have met.
    pub(crate) fn sp_reads_hold(&self, range: &Engine) -> bool {
        range.calls.deferred_log().all(|t| {
            let (Some((o, n)), Some(m)) = (t.sp_from_split, t.max_sp) else {
                return true;
            };
            self.regs
                .value(usize::from(o), usize::from(n))
                .is_none_or(|sp| sp >= m)
        })
    }
    /// What this engine recorded at its split point, if it made one.
    pub(crate) fn split_info(&self) -> Option<&SplitInfo> {
        self.split.as_ref()
    }
    pub(super) fn begin_split(&mut self) {
        let last = self
            .prev_site
            .map_or([0; 5], |s| [s.node, s.line, s.offset, s.time, s.pc]);
        let control = self.control(last, self.node_index);
        self.split = Some(SplitInfo {
            clamped: ClampShadow {
                seen: control.seen_instruction,
                ..ClampShadow::default()
            },
            control,
            undetermined: false,
            assumed_unknown: Vec::new(),
        });
        self.mem = Memory::at_split();
        self.calls.defer();
    }
    /// Closes the open node where `line` starts, as feeding it would when it
    /// opens the next node, and leaves the engine as a checkpoint resume
    /// does (the next event opens a node).
    pub(crate) fn close_before(&mut self, line: &Line<'_>, obs: &mut dyn Observer) {
        self.close_node(line.offset, line.number, obs);
        self.seen_any_event = false;
    }
    /// Transfers logged since the split, and the highest sp seen, for
    /// [`Engine::replay_transfers`] on the sequential engine.
    pub(crate) fn take_transfers(&mut self) -> (TransferLog, Option<u64>) {
        self.calls.take_deferred()
    }
    /// Replays transfers logged by an engine that started at a split point
    /// at this one's position, reporting the calls they confirm.
    pub(crate) fn replay_transfers(
        &mut self,
        log: &TransferLog,
        max_sp: Option<u64>,
        map: impl Fn(Site) -> Site,
        obs: &mut dyn Observer,
    ) {
        let regs = &self.regs;
        let sp_at_split = |(o, n): (u16, u8)| regs.value(usize::from(o), usize::from(n));
        self.calls
            .replay(log, max_sp, map, sp_at_split, &mut |c| obs.call(c));
    }
    /// Turns this engine, which ran from a split point, into the sequential
    /// engine: `base` is the sequential engine at the split (after
    /// [`Engine::replay_transfers`]); node, line and instruction numbers
    /// here are short by the offsets.
    /// `time_floor`: the sequential pass's time at the split when it was
    /// later than the range's (times below it read as it).
    pub(crate) fn rebase(
        &mut self,
        base: Engine,
        node_off: u64,
        line_off: u64,
        instr_off: u64,
        time_floor: Option<u64>,
    ) {
        let Engine {
            regs: base_regs,
            committed: base_committed,
            mem: mut base_mem,
            calls: mut base_calls,
            aarch64_used,
            ..
        } = base;
        for o in 0..regfile::SIZE {
            if self.regs.known[o] == 0 && base_regs.known[o] != 0 {
                self.regs.known[o] = 1;
                self.regs.bytes[o] = base_regs.bytes[o];
            }
        }
        for o in 0..CORE_BYTES {
            if self.committed.known[o] == 0 && base_committed.known[o] != 0 {
                self.committed.known[o] = 1;
                self.committed.bytes[o] = base_committed.bytes[o];
            }
        }
        self.core_stale |= self.committed.differs(&self.regs);
        base_mem.overlay(&self.mem, node_off);
        self.mem = base_mem;
        let floor = time_floor.unwrap_or(0);
        let map = |s: Site| Site {
            node: s.node + node_off,
            line: s.line + line_off,
            time: s.time.max(floor),
            ..s
        };
        if let (Some(f), Some(t)) = (time_floor, self.current_time) {
            if t <= f {
                // The clamp still holds: no time has passed it since the
                // split, so nodes went as the shadow says.
                if let Some(s) = &self.split {
                    self.seen_instruction = s.clamped.seen;
                }
            }
            self.current_time = Some(t.max(f));
        }
        let top = std::mem::take(&mut self.calls);
        base_calls.absorb(top, map);
        self.calls = base_calls;
        self.node_index += node_off;
        self.instructions += instr_off;
        self.node_first_line += line_off;
        self.prev_site = self.prev_site.map(|mut s| {
            s.node += node_off;
            s.line += line_off;
            s.time = s.time.max(floor);
            s
        });
        self.aarch64_used |= aarch64_used;
        self.split = None;
    }
}
