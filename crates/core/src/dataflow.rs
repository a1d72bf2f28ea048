//! "Where did this value come from": the chain of writes that made a
//! register's or a memory range's value, as a tree.
//!
//! The key design choice: every step is a write the trace itself shows,
//! found by the index's backward watchpoint search
//! ([`Index::prev_access`]); nothing is simulated. The decoder
//! ([`crate::decode::operands`]) only says which earlier values the writing
//! instruction used (its register reads), and the writer's own `MR`/`LD`
//! lines say which memory it loaded, so a wrong or missing decoder entry can
//! hide a branch of the tree but never invent a write. Values shown are
//! the trace's: a register's value after its writer, memory as the loading
//! line gave it.
//!
//! A step's inputs are the registers the instruction reads and the memory
//! it loaded. The decoder does not tell a base register from a data one,
//! so for loads and stores the values do (`Walk::data_inputs`): what
//! carried no part of the value is named in [`WhyNode::not_followed`]
//! rather than followed. The walk is depth-first and bounded
//! twice: by a depth (a node at the limit says
//! [`Source::DepthLimit`]; asking again from its writer expands it) and by
//! [`MAX_NODES`] in all. A (writer, what) pair met a second time is not
//! expanded again ([`Source::SeeAbove`]), which keeps loops and shared
//! inputs (the stack pointer) from growing the tree exponentially.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::decode::{self, Operands};
use crate::engine::Node;
use crate::index::{value_text, AccessKind, Index, Watched};
use crate::parse::{Effect, ISet, MemDirection, Parser, RecordKind, RegClass, RegId};
use crate::source::TraceSource;
use crate::state::regfile;
use crate::symbols::SymbolTable;
use crate::Result;

/// Most nodes one tree holds; past it, nodes say [`Source::NodeLimit`].
pub const MAX_NODES: usize = 200;

/// Where a value came from, or why the walk stopped there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// Made by its writer from the inputs listed.
    Computed,
    /// Its writer read no register and no memory: an immediate, a
    /// pc-relative address (`ADR`), a return address (`BL`).
    Immediate,
    /// Memory no node of the trace wrote before: the loaded image.
    NeverWritten {
        /// First byte.
        addr: u64,
        /// The bytes the ELF image's loaded segments hold there, as a
        /// value, when an image was given and holds them.
        image_value: Option<String>,
    },
    /// No earlier write: the value the trace started with (also the
    /// register lines before the first instruction).
    TraceStart,
    /// Written by an exception entry, read from a system register, or
    /// written by a line its instruction does not explain.
    SystemOrException {
        /// Which.
        reason: String,
    },
    /// The writer's encoding could not be decoded.
    Undecoded {
        /// Why.
        reason: String,
    },
    /// The depth limit: not expanded (ask again from its writer).
    DepthLimit,
    /// This (writer, what) pair is expanded elsewhere in the tree.
    SeeAbove,
    /// [`MAX_NODES`] reached: not looked up.
    NodeLimit,
}

impl Source {
    /// A short word for the text rendering.
    pub fn label(&self) -> String {
        match self {
            Source::Computed => String::new(),
            Source::Immediate => "immediate".into(),
            Source::NeverWritten { addr, image_value } => match image_value {
                Some(v) => format!("never written: image [{addr:#x}] = {v}"),
                None => format!("never written: image [{addr:#x}]"),
            },
            Source::TraceStart => "trace start".into(),
            Source::SystemOrException { reason } => reason.clone(),
            Source::Undecoded { reason } => format!("undecoded: {reason}"),
            Source::DepthLimit => "not expanded (depth limit)".into(),
            Source::SeeAbove => "see above".into(),
            Source::NodeLimit => "not expanded (node limit)".into(),
        }
    }
}

/// The node that wrote a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Writer {
    /// Its index.
    pub node: u64,
    /// Its first line, 1-based.
    pub line: u64,
    /// Its time, as its first line gives it.
    pub time: u64,
    /// Its instruction's address, if it holds one.
    pub pc: Option<u64>,
}

/// One step of the tree: a value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WhyNode {
    /// What it is, as the walk watched it (the JSON has `what`).
    #[serde(skip)]
    pub watched: Watched,
    /// A register name (`x5`, `r0`, `sp`, `cpsr`) or `[0x1000:8]`.
    pub what: String,
    /// The value as text (`0x5`; `??` for bytes not known), empty when
    /// nothing is known of it.
    pub value: String,
    /// The value's bytes (registers little-endian, memory in address
    /// order), and whether each is known.
    pub bytes: Vec<u8>,
    /// Per byte of `bytes`: whether the trace gives it.
    pub known: Vec<bool>,
    /// The last node that wrote it, at or before where it was asked.
    pub writer: Option<Writer>,
    /// The writer's disassembly as the trace gives it.
    pub instruction: Option<String>,
    /// The function holding the writer (with an image).
    pub function: Option<String>,
    /// Where the value came from.
    pub source: Source,
    /// What the writer read that made the value: registers, then memory.
    pub inputs: Vec<WhyNode>,
    /// What the writer read that the values show is not the value's data
    /// (the address of a load or store, the other registers of a `PUSH`),
    /// named and not followed.
    pub not_followed: Vec<String>,
}

impl WhyNode {
    /// Nodes in the tree, itself included.
    pub fn count(&self) -> usize {
        1 + self.inputs.iter().map(WhyNode::count).sum::<usize>()
    }
}

/// The bytes of an ELF file's loaded segments, by trace address.
#[derive(Clone, Debug, Default)]
pub struct ImageMemory {
    /// (trace address, file bytes), one per `PT_LOAD` segment.
    segments: Vec<(u64, Vec<u8>)>,
}

impl ImageMemory {
    /// Reads the loaded segments of an ELF file; `load_offset` is added to
    /// each address, as for [`SymbolTable::from_elf_bytes`].
    pub fn from_elf_bytes(data: &[u8], load_offset: i64) -> Result<ImageMemory> {
        use object::{Object, ObjectSegment};
        let words = crate::symbols::aligned_words(data);
        let aligned = &object::pod::bytes_of_slice(&words)[..data.len()];
        let file = object::File::parse(aligned).map_err(|e| crate::Error::Elf(e.to_string()))?;
        let segments = file
            .segments()
            .filter_map(|s| {
                let bytes = s.data().ok()?;
                let addr = s.address().wrapping_add(load_offset as u64);
                (!bytes.is_empty()).then(|| (addr, bytes.to_vec()))
            })
            .collect();
        Ok(ImageMemory { segments })
    }

    /// `len` bytes at `addr`, if one segment holds them all.
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        self.segments.iter().find_map(|(base, bytes)| {
            let off = addr.checked_sub(*base)?;
            let end = off.checked_add(len)?;
            (end <= bytes.len() as u64).then(|| &bytes[off as usize..end as usize])
        })
    }
}

/// What an ELF image gives the walk: function names and initial memory.
#[derive(Clone, Copy, Default)]
pub struct WhyImage<'a> {
    /// Names writers' functions.
    pub symbols: Option<&'a SymbolTable>,
    /// Gives never-written memory its image value.
    pub memory: Option<&'a ImageMemory>,
}

/// The tree of writes that made `what`'s value after node `node` (the
/// state "at" a node is after its lines, so a node that writes `what`
/// is its own first step), expanded `depth` levels below the root.
pub fn why(
    index: &Index,
    source: &mut dyn TraceSource,
    node: u64,
    what: Watched,
    depth: u32,
    image: WhyImage<'_>,
) -> Result<WhyNode> {
    why_loaded(index, source, node, what, None, depth, image)
}

/// [`why`] for memory some later instruction loaded: `loaded` is the
/// value (bytes in address order, and whether each is known) as that
/// load read it, which is how the tree shows memory below its root.
///
/// A node `c` a tree did not expand (its depth limit, [`Source::SeeAbove`],
/// [`Source::NodeLimit`]) below a node `p` is expanded by asking at
/// `p`'s writer's node minus one (the state `p` read) for `c.watched`,
/// with `c`'s bytes as `loaded` for memory: the walk then takes the same
/// steps from `c` as a deeper single call would, except that a pair
/// expanded elsewhere in that call is expanded here too.
pub fn why_loaded(
    index: &Index,
    source: &mut dyn TraceSource,
    node: u64,
    what: Watched,
    loaded: Option<(Vec<u8>, Vec<bool>)>,
    depth: u32,
    image: WhyImage<'_>,
) -> Result<WhyNode> {
    let mut walk = Walk {
        index,
        source,
        image,
        depth,
        count: 0,
        seen: HashSet::new(),
        big_endian: index.options().parse.big_endian,
    };
    let loaded = loaded.filter(|_| matches!(what, Watched::Mem { .. }));
    walk.expand(what, node.saturating_add(1), loaded, 0)
}

/// A register's name as people write it.
pub fn reg_name(reg: RegId) -> String {
    match reg.class {
        RegClass::Xsp => "sp".into(),
        RegClass::Wsp => "wsp".into(),
        RegClass::Psr => "cpsr".into(),
        _ => reg.to_string(),
    }
}

/// `[0x1000:8]`.
fn mem_name(addr: u64, len: u64) -> String {
    format!("[{addr:#x}:{len}]")
}

/// A hashable form of [`Watched`].
fn key(what: Watched) -> (u8, u64, u64) {
    match what {
        Watched::Reg(r) => (0, r.class as u64, r.index as u64),
        Watched::Mem { addr, len } => (1, addr, len),
    }
}

/// What a writer node's lines say.
#[derive(Default)]
struct NodeText {
    /// (instruction set, encoding, width in bytes, disassembly, executed).
    instruction: Option<(ISet, u32, u8, String, bool)>,
    exception: bool,
    /// Memory it read: (address, bytes, known).
    loads: Vec<Access>,
    /// Memory it wrote, the same way.
    stores: Vec<Access>,
}

/// A memory access of a node: address, bytes in address order, known.
type Access = (u64, Vec<u8>, Vec<bool>);

struct Walk<'a, 's> {
    index: &'a Index,
    source: &'s mut dyn TraceSource,
    image: WhyImage<'a>,
    depth: u32,
    count: usize,
    seen: HashSet<(u64, (u8, u64, u64))>,
    big_endian: bool,
}

impl Walk<'_, '_> {
    /// The node for `what` as it was just before node `before`; `read` is
    /// the value the asking node loaded (for memory).
    fn expand(
        &mut self,
        what: Watched,
        before: u64,
        read: Option<(Vec<u8>, Vec<bool>)>,
        level: u32,
    ) -> Result<WhyNode> {
        let name = match what {
            Watched::Reg(r) => reg_name(r),
            Watched::Mem { addr, len } => mem_name(addr, len),
        };
        let mut out = WhyNode {
            watched: what,
            what: name,
            value: String::new(),
            bytes: Vec::new(),
            known: Vec::new(),
            writer: None,
            instruction: None,
            function: None,
            source: Source::NodeLimit,
            inputs: Vec::new(),
            not_followed: Vec::new(),
        };
        if let Some((b, k)) = &read {
            self.set_value(&mut out, what, b.clone(), k.clone());
        }
        self.count += 1;
        if self.count > MAX_NODES {
            return Ok(out);
        }
        let hit = (self.index).prev_access(self.source, before, what, AccessKind::Write)?;
        let Some(hit) = hit else {
            out.source = match what {
                Watched::Reg(_) => Source::TraceStart,
                Watched::Mem { addr, len } => {
                    if read.is_none() {
                        self.memory_value(&mut out, what, before)?;
                    }
                    let image_value = (self.image.memory)
                        .and_then(|m| m.read(addr, len.max(1)))
                        .map(|b| value_text(b, &vec![true; b.len()], self.big_endian));
                    Source::NeverWritten { addr, image_value }
                }
            };
            return Ok(out);
        };
        let n = hit.node;
        out.writer = Some(writer_of(&n));
        if let (Some(symbols), true) = (self.image.symbols, n.has_instruction()) {
            let f = symbols.symbolic_address(n.at.pc & !1, false);
            out.function = Some(f).filter(|f| !f.is_empty());
        }
        match (what, hit.reg) {
            (Watched::Reg(_), Some((b, k))) => self.set_value(&mut out, what, b, k),
            (Watched::Mem { addr, len }, _) if read.is_none() => {
                // The value after the writer: its stores, clipped.
                let len = len.max(1);
                let mut bytes = vec![0; len as usize];
                let mut known = vec![false; len as usize];
                for a in hit.mem.iter().filter(|a| a.write) {
                    for (i, (&b, &k)) in a.bytes.iter().zip(&a.known).enumerate() {
                        let at = a.addr.wrapping_add(i as u64).wrapping_sub(addr);
                        if at < len {
                            bytes[at as usize] = b;
                            known[at as usize] = k;
                        }
                    }
                }
                self.set_value(&mut out, what, bytes, known);
            }
            _ => {}
        }
        let text = self.node_text(&n)?;
        if let Some((_, _, _, dis, _)) = &text.instruction {
            out.instruction = Some(dis.clone()).filter(|d| !d.is_empty());
        }
        if !self.seen.insert((n.at.node, key(what))) {
            out.source = Source::SeeAbove;
            return Ok(out);
        }
        let (ops, source) = classify(&text, what, self.index.aarch64_used());
        out.source = source;
        let Some(ops) = ops else {
            return Ok(out);
        };
        let regs: Vec<RegId> = ops.reads().to_vec();
        if regs.is_empty() && text.loads.is_empty() {
            out.source = if is_system_read(&text) {
                Source::SystemOrException {
                    reason: "system register".into(),
                }
            } else {
                Source::Immediate
            };
            return Ok(out);
        }
        if level >= self.depth {
            out.source = Source::DepthLimit;
            return Ok(out);
        }
        let (regs, loads, skipped) = self.data_inputs(what, &out, regs, &text, &n)?;
        out.not_followed = skipped;
        for reg in regs {
            let child = self.expand(Watched::Reg(reg), n.at.node, None, level + 1)?;
            out.inputs.push(child);
        }
        for (addr, bytes, known) in loads {
            let what = Watched::Mem {
                addr,
                len: bytes.len() as u64,
            };
            let child = self.expand(what, n.at.node, Some((bytes, known)), level + 1)?;
            out.inputs.push(child);
        }
        Ok(out)
    }

    /// Of a load's or store's inputs, those that carried the value, told
    /// from addresses by the values themselves (the decoder does not say
    /// which register is the base): a loaded register keeps the part of
    /// the memory that holds its value, a store keeps the registers whose
    /// values it wrote, and a register a store or load also wrote (a base
    /// written back, `sp` of a `PUSH`) drops the registers whose values
    /// went to memory. When the values say nothing (unknown bytes, no
    /// match), every input is kept.
    fn data_inputs(
        &mut self,
        what: Watched,
        out: &WhyNode,
        regs: Vec<RegId>,
        text: &NodeText,
        n: &Node,
    ) -> Result<(Vec<RegId>, Vec<Access>, Vec<String>)> {
        let all = (regs.clone(), text.loads.clone(), Vec::new());
        let mut not_followed = Vec::new();
        let known = |k: &[bool]| !k.is_empty() && k.iter().all(|&k| k);
        if !known(&out.known) || (text.loads.is_empty() && text.stores.is_empty()) {
            return Ok(all);
        }
        let be = self.big_endian;
        if let (Watched::Reg(_), false) = (what, text.loads.is_empty()) {
            // A loaded register: the part of the memory holding its value.
            let mut parts = Vec::new();
            for (addr, bytes, k) in &text.loads {
                if !known(k) {
                    return Ok(all);
                }
                if let Some((off, len)) = holds(bytes, &out.bytes, be) {
                    let part = bytes[off..off + len].to_vec();
                    parts.push((addr + off as u64, part, vec![true; len]));
                }
            }
            if !parts.is_empty() {
                not_followed.extend(regs.iter().map(|&r| reg_name(r)));
                return Ok((Vec::new(), parts, not_followed));
            }
        }
        // The registers' values just before the writer.
        let Some(prev) = n.at.node.checked_sub(1) else {
            return Ok(all);
        };
        let file = self.index.registers_after(self.source, prev)?;
        let aarch64 = self.index.aarch64_used();
        let value = |r: RegId| {
            let (off, size) = regfile::location(r, aarch64);
            let k = file.known[off..off + size].iter().all(|&k| k != 0);
            k.then(|| file.bytes[off..off + size].to_vec())
        };
        let stored = |r: RegId, mem: &[(u64, Vec<u8>, Vec<bool>)]| {
            value(r).is_some_and(|v| (mem.iter()).any(|(_, b, k)| known(k) && holds_in(b, &v, be)))
        };
        let (keep, drop): (Vec<RegId>, Vec<RegId>) = match what {
            Watched::Mem { .. } => {
                // The registers whose values are what was asked for (one
                // of a pair), else any the writer stored.
                let mine = [(0, out.bytes.clone(), out.known.clone())];
                let (keep, drop): (Vec<RegId>, Vec<RegId>) =
                    regs.iter().partition(|&&r| stored(r, &mine));
                if keep.is_empty() {
                    regs.iter().partition(|&&r| stored(r, &text.stores))
                } else {
                    (keep, drop)
                }
            }
            Watched::Reg(w) => {
                // Also the writer's own registers, whose bytes overlap.
                let same = |r: RegId| {
                    let (a, s) = regfile::location(r, aarch64);
                    let (b, t) = regfile::location(w, aarch64);
                    a < b + t && b < a + s
                };
                regs.iter()
                    .partition(|&&r| same(r) || !stored(r, &text.stores))
            }
        };
        if keep.is_empty() {
            return Ok(all);
        }
        not_followed.extend(drop.iter().map(|&r| reg_name(r)));
        let loads = match what {
            // A written-back base: not from the memory it loaded.
            Watched::Reg(_) => {
                (text.loads.iter())
                    .for_each(|(a, b, _)| not_followed.push(mem_name(*a, b.len() as u64)));
                Vec::new()
            }
            Watched::Mem { .. } => text.loads.clone(),
        };
        Ok((keep, loads, not_followed))
    }

    fn set_value(&self, out: &mut WhyNode, what: Watched, bytes: Vec<u8>, known: Vec<bool>) {
        out.value = match what {
            // Registers are little-endian in the file; wide ones show
            // their low 8 bytes.
            Watched::Reg(_) => value_text(&bytes[..bytes.len().min(8)], &known, false),
            Watched::Mem { .. } => value_text(&bytes, &known, self.big_endian),
        };
        out.bytes = bytes;
        out.known = known;
    }

    /// Memory nobody wrote, asked for at the root: what the index knows
    /// of it there (the trace's reads).
    fn memory_value(&mut self, out: &mut WhyNode, what: Watched, before: u64) -> Result<()> {
        if let (Watched::Mem { addr, len }, Some(at)) = (what, before.checked_sub(1)) {
            let view = self.index.memory_after(self.source, at, addr, len.max(1))?;
            self.set_value(out, what, view.bytes, view.known);
        }
        Ok(())
    }

    /// The writer's lines, read straight from the trace: a node's bytes
    /// are contiguous, and its instruction, register and memory lines
    /// parse without the lines before them.
    fn node_text(&mut self, n: &Node) -> Result<NodeText> {
        let mut buf = vec![0u8; n.len.min(1 << 20) as usize];
        let mut got = 0;
        while got < buf.len() {
            let k = self
                .source
                .read_at(n.at.offset + got as u64, &mut buf[got..])?;
            if k == 0 {
                break;
            }
            got += k;
        }
        buf.truncate(got);
        let mut parser = Parser::new(self.index.options().parse, self.index.dialect());
        let mut out = NodeText::default();
        for line in buf.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let rec = parser.parse_line(line);
            match &rec.kind {
                RecordKind::Instruction(i) if out.instruction.is_none() => {
                    let dis = String::from_utf8_lossy(i.disassembly);
                    let dis = dis.trim().trim_start_matches(':').trim().to_string();
                    let width = i.width / 8;
                    let executed = i.effect == Effect::Executed;
                    out.instruction = Some((i.iset, i.encoding as u32, width, dis, executed));
                }
                RecordKind::Exception(_) => out.exception = true,
                RecordKind::Memory(m) => {
                    let Some(first) = m.accessed.iter().position(|&a| a != 0) else {
                        continue;
                    };
                    let last = m.accessed.iter().rposition(|&a| a != 0).unwrap_or(first);
                    let known = m.known[first..=last].iter().map(|&k| k != 0).collect();
                    let addr = m.addr.wrapping_add(first as u64);
                    let access = (addr, m.bytes[first..=last].to_vec(), known);
                    match m.direction {
                        MemDirection::Read => out.loads.push(access),
                        _ => out.stores.push(access),
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

fn writer_of(n: &Node) -> Writer {
    Writer {
        node: n.at.node,
        line: n.at.line,
        time: n.own_time,
        pc: n.has_instruction().then_some(n.at.pc & !1),
    }
}

/// The writer's decoded operands when its instruction explains the write
/// of `what`, else the source that ends the walk there.
fn classify(text: &NodeText, what: Watched, aarch64: bool) -> (Option<Operands>, Source) {
    let exception = || Source::SystemOrException {
        reason: "exception entry".into(),
    };
    let Some((iset, encoding, width, _, executed)) = &text.instruction else {
        let s = if text.exception {
            exception()
        } else {
            Source::TraceStart
        };
        return (None, s);
    };
    let ops = match decode::operands(*iset, *encoding, *width) {
        Ok(ops) => ops,
        Err(e) => {
            let reason = e.reason.to_string();
            return (None, Source::Undecoded { reason });
        }
    };
    let explained = *executed
        && match what {
            Watched::Reg(reg) => {
                let (off, size) = regfile::location(reg, aarch64);
                ops.writes().iter().any(|&w| {
                    let (o, s) = regfile::location(w, aarch64);
                    o < off + size && off < o + s
                })
            }
            Watched::Mem { .. } => ops.stores,
        };
    if explained {
        (Some(ops), Source::Computed)
    } else if text.exception {
        (None, exception())
    } else {
        let reason = "written by a line its instruction does not explain".into();
        (None, Source::SystemOrException { reason })
    }
}

/// An instruction that reads a register no view models: `MRS`, `MRC`,
/// `VMRS` (their only input is the system register).
fn is_system_read(text: &NodeText) -> bool {
    let Some((_, _, _, dis, _)) = &text.instruction else {
        return false;
    };
    let word = dis
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    ["mrs", "mrc", "mrc2", "mrrc", "mrrc2", "vmrs"]
        .iter()
        .any(|m| word == *m || (word.starts_with(m) && word.len() <= m.len() + 2))
}

/// Where `mem` (bytes in address order) holds register value `value`
/// (little-endian): the whole access when it is no wider than the
/// register and equals its low bytes (a narrow load, zero- or
/// sign-extended), else a register-sized part that equals it (one
/// register of a pair).
fn holds(mem: &[u8], value: &[u8], big_endian: bool) -> Option<(usize, usize)> {
    let same = |part: &[u8], v: &[u8]| {
        if big_endian {
            part.iter().rev().eq(v.iter())
        } else {
            part == v
        }
    };
    let size = value.len();
    if mem.is_empty() || size == 0 {
        None
    } else if mem.len() <= size {
        same(mem, &value[..mem.len()]).then_some((0, mem.len()))
    } else {
        (0..=mem.len() - size)
            .step_by(size)
            .find(|&off| same(&mem[off..off + size], value))
            .map(|off| (off, size))
    }
}

/// Whether memory `mem` holds register value `value`, whole or (for an
/// access narrower than the register) its low bytes.
fn holds_in(mem: &[u8], value: &[u8], big_endian: bool) -> bool {
    holds(mem, value, big_endian).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn why_image_memory_reads_loaded_segments() {
        let elf =
            include_bytes!("../../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
        let m = ImageMemory::from_elf_bytes(elf, 0).unwrap();
        // The literal `_start` loads its stack pointer from.
        assert_eq!(m.read(0x10038, 8), Some(&[0, 0, 0x40, 0, 0, 0, 0, 0][..]));
        assert_eq!(m.read(0x10038, 0x10_0000), None, "past the segment");
        assert_eq!(m.read(0, 4), None);
        let moved = ImageMemory::from_elf_bytes(elf, 0x1000).unwrap();
        assert_eq!(moved.read(0x11038, 8), m.read(0x10038, 8));
        assert!(ImageMemory::from_elf_bytes(b"not an elf", 0).is_err());
    }

    #[test]
    fn why_names_registers_as_people_write_them() {
        let name = |class, index| reg_name(RegId::new(class, index));
        assert_eq!(name(RegClass::Xsp, 0), "sp");
        assert_eq!(name(RegClass::Psr, 0), "cpsr");
        assert_eq!(name(RegClass::X, 5), "x5");
        assert_eq!(name(RegClass::R, 13), "r13");
        assert_eq!(mem_name(0x1000, 8), "[0x1000:8]");
    }

    #[test]
    fn why_holds_tells_data_by_value() {
        let x = 0x1122_3344_5566_7788u64.to_le_bytes();
        // A whole register, one half of a pair, a narrow load's low bytes.
        assert_eq!(holds(&x, &x, false), Some((0, 8)));
        let pair: Vec<u8> = [[0u8; 8], x].concat();
        assert_eq!(holds(&pair, &x, false), Some((8, 8)));
        assert_eq!(holds(&x[..4], &x, false), Some((0, 4)));
        assert_eq!(holds(&x[4..], &x, false), None);
        // Big-endian memory holds the value's bytes the other way round.
        let be: Vec<u8> = x.iter().rev().copied().collect();
        assert_eq!(holds(&be, &x, true), Some((0, 8)));
        assert_eq!(holds(&be, &x, false), None);
        assert_eq!(holds(&[], &x, false), None);
    }

    #[test]
    fn why_system_reads_are_known_by_mnemonic() {
        let text = |dis: &str| NodeText {
            instruction: Some((ISet::A64, 0, 4, dis.into(), true)),
            ..NodeText::default()
        };
        assert!(is_system_read(&text("MRS      x0,cntvct_el0")));
        assert!(is_system_read(&text("mrc p15, 0, r0, c13, c0, 3")));
        assert!(is_system_read(&text("VMRS     r0,FPSCR")));
        assert!(!is_system_read(&text("MOV      x0,#5")));
        assert!(!is_system_read(&NodeText::default()));
    }
}
