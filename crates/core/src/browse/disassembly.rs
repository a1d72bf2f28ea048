//! The function around a position, decoded from the ELF image's bytes,
//! each instruction with the index's per-PC counts.
//!
//! Instruction boundaries follow the coverage's rules (`coverage/image.rs`):
//! the mapping symbols say which instruction set a piece holds (`$d`
//! pieces are data and list nothing), a Thumb instruction's first halfword
//! its width. The text is `yaxpeax-arm`'s; `tests/browser_model/
//! disassembly.rs` holds it against `objdump -d`.

use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv7;
use yaxpeax_arm::armv8::a64;

use serde::{Deserialize, Serialize};

use super::protocol::NodeId;
use super::question::{Answerable, Example};
use super::Session;
use crate::coverage::classify::thumb_size;
use crate::source::TraceSource;
use crate::symbols::Contents;
use crate::Result;

/// The ELF image's function around a node's instruction, decoded, with
/// each instruction's execution counts ([`DisassemblyReply`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disassembly {
    /// The position.
    pub node: NodeId,
}

/// The function around a position ([`Disassembly`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisassemblyReply {
    /// The function's symbol, empty when there is none.
    pub function: String,
    /// The position's instruction address (Thumb bit cleared).
    pub pc: u64,
    /// Its instructions in address order; literal pools left out.
    pub rows: Vec<DisassemblyRow>,
    /// Whether the counts cover the whole trace (else the part indexed).
    pub complete: bool,
    /// Why there is no listing (no ELF loaded, no function there), if so.
    pub note: Option<String>,
}

/// One instruction of a [`DisassemblyReply`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisassemblyRow {
    /// Its address in the trace.
    pub addr: u64,
    /// Its encoding as the trace writes it (a 32-bit Thumb instruction's
    /// first halfword high).
    pub encoding: u32,
    /// 2 or 4 bytes.
    pub size: u8,
    /// `yaxpeax-arm`'s text; `.inst 0x…` for what it does not decode.
    pub text: String,
    /// Times it ran.
    pub executed: u64,
    /// Times it was reached and failed its condition.
    pub failed: u64,
}

/// The longest function listed: a listing is read in one answer, and a
/// "function" this long is a symbol without a real size.
const MAX_BYTES: u64 = 64 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Set {
    A64,
    A32,
    T32,
}

impl Answerable for Disassembly {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<DisassemblyReply> {
        session.disassembly(self.node)
    }

    fn examples(at: &Example) -> Vec<Disassembly> {
        vec![Disassembly { node: at.node }]
    }
}

impl<S: TraceSource> Session<S> {
    fn disassembly(&mut self, node: NodeId) -> Result<DisassemblyReply> {
        let n = self.node(node)?;
        let pc = n.at.pc & !1;
        let complete = self.index.is_some();
        let none = |note: String| {
            Ok(DisassemblyReply {
                pc,
                complete,
                note: Some(note),
                ..DisassemblyReply::default()
            })
        };
        if n.at.pc == crate::engine::INVALID_PC {
            return none("no instruction at this position".into());
        }
        let (Some(table), Some(memory)) = (&self.image, &self.image_memory) else {
            return none("no ELF image is loaded".into());
        };
        let Some((sym, _)) = table
            .find_by_address(pc)
            .filter(|(s, _)| s.is_function() && s.size > 0)
            .filter(|(s, _)| pc.wrapping_sub(s.addr & !1) < s.size)
        else {
            return none(format!("no function of the ELF image holds {pc:#x}"));
        };
        let (start, size) = (sym.addr & !1, sym.size);
        let function = sym.display_name();
        if size > MAX_BYTES {
            return none(format!("{function} is {size} bytes long: too long to list"));
        }
        let Some(bytes) = memory.read(start, size) else {
            return none(format!(
                "{function}'s bytes are not in the image's segments"
            ));
        };
        let aarch64 = table.machine() == object::elf::EM_AARCH64;
        let end = start + size;
        let mut cuts = table.code_boundaries(start, end);
        cuts.retain(|&c| c > start);
        cuts.push(end);
        let Some(idx) = self.index() else {
            return none("no trace is open".into());
        };
        let mut rows = Vec::new();
        let mut from = start;
        for cut in cuts {
            let set = match table.contents_at(from) {
                Some(Contents::A64) => Set::A64,
                Some(Contents::Arm) => Set::A32,
                Some(Contents::Thumb) => Set::T32,
                Some(Contents::Data) => {
                    from = cut;
                    continue;
                }
                None if aarch64 => Set::A64,
                None if sym.addr & 1 == 1 => Set::T32,
                None => Set::A32,
            };
            let mut at = from;
            while at < cut {
                let piece = &bytes[(at - start) as usize..(cut - start) as usize];
                let Some((size, encoding)) = width(set, piece) else {
                    break;
                };
                let counts = idx.pc_count(at).unwrap_or_default();
                rows.push(DisassemblyRow {
                    addr: at,
                    encoding,
                    size,
                    text: text(set, &piece[..size as usize], encoding),
                    executed: counts.executed,
                    failed: counts.failed,
                });
                at += u64::from(size);
            }
            from = cut;
        }
        Ok(DisassemblyReply {
            function,
            pc,
            rows,
            complete,
            note: None,
        })
    }
}

/// The next instruction's width and its encoding as traces write it; `None`
/// when the piece ends inside it.
fn width(set: Set, bytes: &[u8]) -> Option<(u8, u32)> {
    let half = |i: usize| -> Option<u32> {
        Some(u32::from(u16::from_le_bytes(
            bytes.get(i..i + 2)?.try_into().ok()?,
        )))
    };
    match set {
        Set::A64 | Set::A32 => Some((4, u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?))),
        Set::T32 => {
            let h1 = half(0)?;
            match thumb_size(h1 as u16) {
                4 => Some((4, h1 << 16 | half(2)?)),
                _ => Some((2, h1)),
            }
        }
    }
}

/// `yaxpeax-arm`'s text of one instruction (`bytes` in memory order; code
/// is little-endian in every image Armv7 and later run, BE8 included).
fn text(set: Set, bytes: &[u8], encoding: u32) -> String {
    let decoded = match set {
        Set::A64 => a64::InstDecoder::default()
            .decode(&mut U8Reader::new(bytes))
            .ok()
            .filter(|i: &a64::Instruction| i.opcode != a64::Opcode::Invalid)
            .map(|i| i.to_string()),
        // yaxpeax-arm 0.5 panics naming r16 for an A32 LDRD/STRD of r15
        // (unpredictable): such a word is not decoded.
        Set::A32 if encoding & 0x0e10_00d0 == 0x0000_00d0 && encoding >> 12 & 0xf == 15 => None,
        Set::A32 | Set::T32 => armv7::InstDecoder::default()
            .with_thumb_mode(set == Set::T32)
            .decode(&mut U8Reader::new(bytes))
            .ok()
            .filter(|i: &armv7::Instruction| i.opcode != armv7::Opcode::Invalid)
            .map(|i| i.to_string()),
    };
    decoded.unwrap_or_else(|| format!(".inst {encoding:#x}"))
}
