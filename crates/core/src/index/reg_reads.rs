//! Which registers each interval's instructions read, from their encodings
//! (`crate::decode`; the trace writes only what an instruction wrote). A
//! register read watchpoint replays only the intervals whose bitmap names
//! the register. A program has few distinct encodings, so an indexing
//! pass decodes each once and looks the rest up (docs/performance.md).

use crate::decode;
use crate::parse::{Effect, ISet, Instruction};
use crate::state::fasthash::AddrMap;
use crate::state::regfile;

/// Register groups ([`regfile::group_of`]) as the index's bitmaps hold them.
pub(crate) type Groups = [u64; 2];

/// The encoding as a decoder cache key: value, instruction set, width.
fn key(ins: &Instruction<'_>) -> u64 {
    let set = match ins.iset {
        ISet::Arm => 0,
        ISet::Thumb => 1,
        ISet::A64 | ISet::C64 => 2,
        ISet::ThumbEE => 3,
    };
    (ins.encoding & 0xffff_ffff) | set << 32 | u64::from(ins.width) << 40
}

/// The register-file bytes `[offset, offset + size)` of every register an
/// executed instruction reads, or `None` for an encoding the decoder does
/// not know (which may read anything).
pub(crate) fn read_ranges(ins: &Instruction<'_>) -> Option<Vec<(usize, usize)>> {
    let width = (ins.width / 8).max(2);
    let ops = decode::operands(ins.iset, ins.encoding as u32, width).ok()?;
    let aarch64 = ins.iset.is_aarch64();
    Some(
        ops.reads()
            .iter()
            .map(|&r| regfile::location(r, aarch64))
            .collect(),
    )
}

/// Decodes the instructions of an indexing pass, once per encoding.
#[derive(Default)]
pub(crate) struct ReadDecoder {
    cache: AddrMap<u64, Groups>,
}

impl ReadDecoder {
    /// The groups `ins` reads, if it executed (all of them when it cannot
    /// be decoded: the bitmap is a filter, a replay decides).
    pub(crate) fn groups(&mut self, ins: &Instruction<'_>) -> Groups {
        if ins.effect != Effect::Executed {
            return [0; 2];
        }
        *self
            .cache
            .entry(key(ins))
            .or_insert_with(|| match read_ranges(ins) {
                None => [u64::MAX; 2],
                Some(ranges) => {
                    let mut g = [0u64; 2];
                    for (off, size) in ranges {
                        let (first, last) = (
                            regfile::group_of(off),
                            regfile::group_of(off + size.max(1) - 1),
                        );
                        for x in first..=last {
                            g[x / 64] |= 1 << (x % 64);
                        }
                    }
                    g
                }
            })
    }
}
