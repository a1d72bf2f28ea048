//! The packets' way out: each [`TracePacket`] encoded as one element of
//! the `Trace` message's `packet` field (what a trace file is), into
//! numbered parts of at most a given size when asked.

use std::io::Write;

use prost::Message;

use super::proto::TracePacket;
use crate::{Error, Result};

/// Opens part `n` (from 1) of the export.
pub type OpenPart<'w> = dyn FnMut(u32) -> std::io::Result<Box<dyn Write + 'w>> + 'w;

pub(super) struct Packets<'w> {
    open: Box<OpenPart<'w>>,
    out: Option<Box<dyn Write + 'w>>,
    /// Parts opened so far; the current one is the last.
    pub(super) part: u32,
    /// Bytes in the current part.
    written: u64,
    limit: Option<u64>,
    buf: Vec<u8>,
}

/// The `Trace.packet` field: number 1, length-delimited.
const PACKET_FIELD: u32 = 1;

/// Bytes `packet` takes in a file.
pub(super) fn file_len(packet: &TracePacket) -> u64 {
    let len = packet.encoded_len();
    (prost::encoding::key_len(PACKET_FIELD) + prost::encoding::encoded_len_varint(len as u64) + len)
        as u64
}

impl<'w> Packets<'w> {
    pub(super) fn new(open: Box<OpenPart<'w>>, limit: Option<u64>) -> Packets<'w> {
        Packets {
            open,
            out: None,
            part: 0,
            written: 0,
            limit,
            buf: Vec::new(),
        }
    }

    /// Whether `bytes` more fit in the current part (any fit before the
    /// first part is opened, or without a limit).
    pub(super) fn fits(&self, bytes: u64) -> bool {
        self.out.is_none() || self.limit.is_none_or(|l| self.written + bytes <= l)
    }

    /// The size limit of a part.
    pub(super) fn limit(&self) -> Option<u64> {
        self.limit
    }

    pub(super) fn write(&mut self, packet: &TracePacket) -> Result<()> {
        if self.out.is_none() {
            self.next_part()?;
        }
        self.buf.clear();
        prost::encoding::message::encode(PACKET_FIELD, packet, &mut self.buf);
        if let Some(out) = &mut self.out {
            out.write_all(&self.buf).map_err(Error::Write)?;
        }
        self.written += self.buf.len() as u64;
        Ok(())
    }

    /// Ends the current part (if any) and opens the next.
    pub(super) fn next_part(&mut self) -> Result<()> {
        self.close()?;
        self.part += 1;
        self.out = Some((self.open)(self.part).map_err(Error::Write)?);
        self.written = 0;
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        if let Some(mut out) = self.out.take() {
            out.flush().map_err(Error::Write)?;
        }
        Ok(())
    }

    /// Ends the last part; an export that wrote nothing still makes one
    /// (empty) file. Says how many parts there are.
    pub(super) fn finish(mut self) -> Result<u32> {
        if self.part == 0 {
            self.next_part()?;
        }
        self.close()?;
        Ok(self.part)
    }
}
