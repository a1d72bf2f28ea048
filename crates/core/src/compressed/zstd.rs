//! Zstandard read at random offsets, a frame at a time: ruzstd's decoder
//! state cannot be saved mid-frame, so the access points are the frames'
//! starts, found by the pass or, for the seekable format, read at once
//! from the seek table at the file's end.

use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use super::{damaged, is_skippable, read_decoded, Decode, Input, InputReader};
use crate::codec::{Dec, Enc};
use crate::source::UNKNOWN_LEN;
use crate::{Error, Result, TraceSource};

const ZSTD_MAGIC: u32 = 0xfd2f_b528;
/// The seekable format's footer magic (after the seek table's entries).
const SEEKABLE_MAGIC: u32 = 0x8f92_eab1;
const IN_CHUNK: usize = 128 << 10;
/// Output decoded per step, and the most held as the cache of nearby
/// reads.
const STEP: usize = 1 << 20;
const HOLD: usize = 4 << 20;
const MAGIC: &[u8] = b"tarmac-lens zstd frames";
const VERSION: u64 = 1;

/// A data frame's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Frame {
    input: u64,
    out: u64,
}

/// The frame starts of one Zstandard file (see the [module](super)
/// documentation); saved with [`ZstdTable::encode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZstdTable {
    compressed_len: u64,
    frames: Vec<Frame>,
    /// Compressed offset of the last frame start the pass considered.
    frontier: Option<u64>,
    total: Option<u64>,
}

impl ZstdTable {
    /// Whether the pass (or a seek table) has given the whole file.
    pub fn is_complete(&self) -> bool {
        self.total.is_some()
    }

    /// The decompressed length, once the table is complete.
    pub fn decompressed_len(&self) -> Option<u64> {
        self.total
    }

    /// The length of the compressed file the table is for.
    pub fn compressed_len(&self) -> u64 {
        self.compressed_len
    }

    /// How many frames it knows.
    pub fn points(&self) -> usize {
        self.frames.len()
    }

    /// The table as bytes, to save with an index.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.bytes(MAGIC);
        e.u(VERSION);
        e.u(self.compressed_len);
        e.opt(self.total);
        e.opt(self.frontier);
        e.u(self.frames.len() as u64);
        let (mut input, mut out) = (0, 0);
        for f in &self.frames {
            e.u(f.input - input);
            e.u(f.out - out);
            (input, out) = (f.input, f.out);
        }
        e.into_bytes()
    }

    /// A table from [`ZstdTable::encode`]'s bytes; [`Error::IndexFile`]
    /// if they are not one.
    pub fn decode(bytes: &[u8]) -> Result<ZstdTable> {
        Self::decode_opt(bytes)
            .ok_or_else(|| Error::IndexFile("saved zstd frame table: truncated or corrupt".into()))
    }

    fn decode_opt(bytes: &[u8]) -> Option<ZstdTable> {
        let mut d = Dec::new(bytes);
        if d.bytes()? != MAGIC || d.u()? != VERSION {
            return None;
        }
        let compressed_len = d.u()?;
        let total = d.opt()?;
        let frontier = d.opt()?;
        let n = d.count()?;
        let mut frames: Vec<Frame> = Vec::with_capacity(n);
        let (mut input, mut out) = (0u64, 0u64);
        for _ in 0..n {
            let di = d.u()?;
            let dout = d.u()?;
            if !frames.is_empty() && di == 0 {
                return None;
            }
            input = input.checked_add(di)?;
            out = out.checked_add(dout)?;
            if input >= compressed_len || total.is_some_and(|t| out > t) {
                return None;
            }
            frames.push(Frame { input, out });
        }
        if !d.done() || frontier < frames.last().map(|f| f.input) {
            return None;
        }
        Some(ZstdTable {
            compressed_len,
            frames,
            frontier,
            total,
        })
    }

    /// The seekable format's frame table, from the skippable frame at the
    /// end of the file; `None` if there is none or it does not add up.
    fn from_seek_table<S: TraceSource + ?Sized>(src: &mut S) -> Result<Option<ZstdTable>> {
        let len = src.len();
        if len < 17 {
            return Ok(None);
        }
        let mut foot = [0u8; 9];
        src.read_at(len - 9, &mut foot)?;
        let le = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if le(&foot[5..]) != SEEKABLE_MAGIC || foot[4] & 0x7c != 0 {
            return Ok(None);
        }
        let n = u64::from(le(&foot[..4]));
        let entry = if foot[4] & 0x80 != 0 { 12 } else { 8 };
        let body = n * entry + 9;
        let Some(start) = len.checked_sub(body + 8) else {
            return Ok(None);
        };
        let mut head = [0u8; 8];
        src.read_at(start, &mut head)?;
        if le(&head[..4]) != 0x184d_2a5e || u64::from(le(&head[4..])) != body {
            return Ok(None);
        }
        let mut entries = vec![0u8; (n * entry) as usize];
        src.read_at(start + 8, &mut entries)?;
        let (mut input, mut out) = (0u64, 0u64);
        let mut frames = Vec::with_capacity(n as usize);
        for e in entries.chunks_exact(entry as usize) {
            frames.push(Frame { input, out });
            input += u64::from(le(&e[..4]));
            out += u64::from(le(&e[4..8]));
        }
        // Frames that do not end where the seek table starts: not a table
        // to trust; the pass finds the frames instead.
        if input != start || frames.windows(2).any(|w| w[1].input == w[0].input) {
            return Ok(None);
        }
        Ok(Some(ZstdTable {
            compressed_len: len,
            frontier: frames.last().map(|f| f.input),
            frames,
            total: Some(out),
        }))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    FrameStart,
    InFrame,
    End,
}

struct Cursor {
    dec: FrameDecoder,
    phase: Phase,
    input: Input,
    held: Vec<u8>,
    out_start: u64,
    valid: bool,
}

impl Cursor {
    fn out_end(&self) -> u64 {
        self.out_start + self.held.len() as u64
    }

    fn place(&mut self, f: Frame) {
        self.input.seek(f.input);
        self.held.clear();
        self.out_start = f.out;
        self.phase = Phase::FrameStart;
        self.valid = true;
    }

    fn step<S: TraceSource + ?Sized>(&mut self, src: &mut S, table: &mut ZstdTable) -> Result<()> {
        match self.phase {
            Phase::End => Ok(()),
            Phase::FrameStart => self.frame_start(src, table),
            Phase::InFrame => self.decode(src),
        }
    }

    fn frame_start<S: TraceSource + ?Sized>(
        &mut self,
        src: &mut S,
        table: &mut ZstdTable,
    ) -> Result<()> {
        let at = self.input.offset();
        let out = self.out_end();
        let mut magic = [0u8; 4];
        for (i, b) in magic.iter_mut().enumerate() {
            match self.input.byte(src)? {
                Some(v) => *b = v,
                None if i == 0 && at > 0 => {
                    self.phase = Phase::End;
                    if table.total.is_some_and(|t| t != out) {
                        return Err(Error::Read(format!(
                            "zstd stream: {out} bytes decompressed, the table says {}",
                            table.total.unwrap_or(0)
                        )));
                    }
                    table.total = Some(out);
                    return Ok(());
                }
                None => return Err(damaged("zstd", at, "cut short in a frame's magic number")),
            }
        }
        if is_skippable(&magic) {
            let mut n = [0u8; 4];
            for b in &mut n {
                *b = self
                    .input
                    .byte(src)?
                    .ok_or_else(|| damaged("zstd", at, "cut short in a skippable frame header"))?;
            }
            let skip = u64::from(u32::from_le_bytes(n));
            let next = self.input.offset() + skip;
            if next > src.len() {
                return Err(damaged(
                    "zstd",
                    at,
                    "skippable frame runs past the file's end",
                ));
            }
            self.input.seek(next);
            return Ok(());
        }
        if u32::from_le_bytes(magic) != ZSTD_MAGIC {
            return Err(damaged(
                "zstd",
                at,
                "not a Zstandard frame (bytes after the last frame?)",
            ));
        }
        if table.frontier.is_none_or(|f| at > f) {
            table.frontier = Some(at);
            table.frames.push(Frame { input: at, out });
        }
        // ruzstd reads the magic number itself.
        self.input.seek(at);
        let mut reader = InputReader {
            input: &mut self.input,
            source: src,
            error: None,
        };
        let r = self.dec.reset(&mut reader);
        if let Some(e) = reader.error {
            return Err(e);
        }
        r.map_err(|e| damaged("zstd", at, e))?;
        self.phase = Phase::InFrame;
        Ok(())
    }

    fn decode<S: TraceSource + ?Sized>(&mut self, src: &mut S) -> Result<()> {
        let mut reader = InputReader {
            input: &mut self.input,
            source: src,
            error: None,
        };
        let r = self
            .dec
            .decode_blocks(&mut reader, BlockDecodingStrategy::UptoBytes(STEP));
        if let Some(e) = reader.error {
            return Err(e);
        }
        let finished = r.map_err(|e| damaged("zstd", self.input.offset(), e))?;
        let chunk = self.dec.collect().unwrap_or_default();
        if self.held.len() + chunk.len() > HOLD {
            self.out_start += self.held.len() as u64;
            self.held.clear();
        }
        self.held.extend_from_slice(&chunk);
        if finished {
            if let Some(rest) = self.dec.collect() {
                self.held.extend_from_slice(&rest);
            }
            if let (Some(want), Some(got)) = (
                self.dec.get_checksum_from_data(),
                self.dec.get_calculated_checksum(),
            ) {
                if want != got {
                    return Err(damaged(
                        "zstd",
                        self.input.offset(),
                        format!("frame checksum {want:08x}, the data gives {got:08x}"),
                    ));
                }
            }
            self.phase = Phase::FrameStart;
        }
        Ok(())
    }
}

/// The decompressed bytes of a Zstandard file, at any offset; see the
/// [module](super) documentation.
pub struct ZstdSource<S> {
    source: S,
    table: ZstdTable,
    cursor: Cursor,
}

impl<S: TraceSource> ZstdSource<S> {
    /// An adaptor with the seekable format's table if the file has one,
    /// else an empty one filled as reads go forward.
    pub fn new(mut source: S) -> Result<ZstdSource<S>> {
        let table = ZstdTable::from_seek_table(&mut source)?.unwrap_or(ZstdTable {
            compressed_len: source.len(),
            frames: Vec::new(),
            frontier: None,
            total: None,
        });
        Self::with_table(source, table)
    }

    /// An adaptor with a saved table; it must be of a file of this length.
    pub fn with_table(source: S, table: ZstdTable) -> Result<ZstdSource<S>> {
        if table.compressed_len != source.len() {
            return Err(Error::IndexFile(format!(
                "saved zstd frame table is for a file of {} bytes, this one has {}",
                table.compressed_len,
                source.len()
            )));
        }
        Ok(ZstdSource {
            source,
            table,
            cursor: Cursor {
                dec: FrameDecoder::new(),
                phase: Phase::FrameStart,
                input: Input::new(IN_CHUNK),
                held: Vec::new(),
                out_start: 0,
                valid: false,
            },
        })
    }

    /// The frames found so far.
    pub fn table(&self) -> &ZstdTable {
        &self.table
    }

    /// Runs the pass to the end of the stream; afterwards
    /// [`TraceSource::len`] is known.
    pub fn build_table(&mut self) -> Result<()> {
        if self.table.total.is_some() {
            return Ok(());
        }
        if let Some(&last) = self.table.frames.last() {
            if !self.cursor.valid || self.cursor.out_end() < last.out {
                self.cursor.place(last);
            }
        } else if !self.cursor.valid {
            self.cursor.place(Frame { input: 0, out: 0 });
        }
        while self.cursor.phase != Phase::End {
            self.step()?;
        }
        Ok(())
    }
}

impl<S: TraceSource> Decode for ZstdSource<S> {
    type Point = Frame;

    fn total(&self) -> Option<u64> {
        self.table.total
    }

    fn held(&self) -> Option<(u64, &[u8])> {
        let c = &self.cursor;
        c.valid.then(|| (c.out_start, &c.held[..]))
    }

    fn checkpoint(&self, pos: u64) -> (Frame, u64) {
        let i = self.table.frames.partition_point(|f| f.out <= pos);
        let start = i
            .checked_sub(1)
            .map_or(Frame { input: 0, out: 0 }, |i| self.table.frames[i]);
        (start, start.out)
    }

    fn place(&mut self, f: Frame) -> Result<()> {
        self.cursor.place(f);
        Ok(())
    }

    fn at_end(&self) -> bool {
        self.cursor.phase == Phase::End
    }

    fn step(&mut self) -> Result<()> {
        let r = self.cursor.step(&mut self.source, &mut self.table);
        if r.is_err() {
            self.cursor.valid = false;
        }
        r
    }
}

impl<S: TraceSource> TraceSource for ZstdSource<S> {
    /// [`UNKNOWN_LEN`] until the table is complete, then the exact length.
    fn len(&self) -> u64 {
        self.table.total.unwrap_or(UNKNOWN_LEN)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        read_decoded(self, offset, buf)
    }
}
