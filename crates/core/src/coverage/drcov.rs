//! drcov, the coverage file of DynamoRIO's drcov tool, which lighthouse
//! (IDA, Binary Ninja), Cartographer and Lightkeeper (Ghidra), bncov and
//! Cutter read: a text header, a module table (here one module, the
//! image), then `BB Table: N bbs` and N binary entries of a block's start
//! (u32, from its module's base), size (u16, bytes) and module id (u16),
//! little-endian.
//!
//! A block here is a run of reached instructions (executed, or failed
//! their condition) inside one of the image's basic blocks
//! ([`super::blocks`]): the whole block when control went through it,
//! less when an exception or the trace's end cut it. Code reached outside
//! the image has no module and is left out (the writer says how much).

use std::io::Write;

use super::Image;
use crate::{Error, Result};

/// What a drcov file held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrcovSummary {
    /// Block entries written.
    pub blocks: u64,
    /// Instructions of the image reached, all in some block.
    pub instructions: u64,
}

/// Writes the drcov file of the image's instructions for which `reached`
/// says so; `path` is the module's path in the table (what the tools
/// match against the binary they show).
pub fn write_drcov(
    image: &Image,
    path: &str,
    reached: &dyn Fn(u64) -> bool,
    out: &mut dyn Write,
) -> Result<DrcovSummary> {
    let (base, end, entry) = image.span;
    let mut entries: Vec<(u32, u16)> = Vec::new();
    let mut summary = DrcovSummary::default();
    // The block (by its leader's index) and end of the entry being made.
    let mut open: Option<(usize, u64)> = None;
    for insn in image.code() {
        if !reached(insn.addr) {
            open = None;
            continue;
        }
        summary.instructions += 1;
        let block = image.leaders.partition_point(|&l| l <= insn.addr);
        let size = u64::from(insn.size);
        let extends = open.is_some_and(|(b, e)| b == block && e == insn.addr);
        let last = entries.last().map_or(0, |e| e.1);
        if extends && u64::from(last) + size <= u64::from(u16::MAX) {
            if let Some(e) = entries.last_mut() {
                e.1 += size as u16;
            }
        } else {
            let offset = insn
                .addr
                .checked_sub(base)
                .and_then(|o| u32::try_from(o).ok())
                .ok_or_else(|| {
                    Error::Export(format!(
                        "code at 0x{:x} is not within 4 GiB above the image's base 0x{base:x}: \
                         drcov cannot give its offset",
                        insn.addr
                    ))
                })?;
            entries.push((offset, size as u16));
        }
        open = Some((block, insn.addr + size));
    }
    summary.blocks = entries.len() as u64;
    let mut text = String::new();
    text.push_str("DRCOV VERSION: 2\nDRCOV FLAVOR: tarmac-lens\n");
    text.push_str("Module Table: version 2, count 1\n");
    text.push_str("Columns: id, base, end, entry, checksum, timestamp, path\n");
    // A path is the rest of its line.
    let path = path.replace(['\n', '\r'], " ");
    text.push_str(&format!(
        "0, 0x{base:016x}, 0x{end:016x}, 0x{entry:016x}, 0x00000000, 0x00000000, {path}\n"
    ));
    text.push_str(&format!("BB Table: {} bbs\n", entries.len()));
    out.write_all(text.as_bytes()).map_err(Error::Write)?;
    let mut bytes = Vec::with_capacity(entries.len() * 8);
    for (start, size) in entries {
        bytes.extend_from_slice(&start.to_le_bytes());
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&0u16.to_le_bytes());
    }
    out.write_all(&bytes).map_err(Error::Write)?;
    out.flush().map_err(Error::Write)?;
    Ok(summary)
}
