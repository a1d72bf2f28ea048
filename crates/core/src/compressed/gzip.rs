//! gzip read at random offsets: zran-style access points at deflate block
//! boundaries, found by miniz_oxide stopping at each boundary
//! (`TINFL_FLAG_STOP_ON_BLOCK_BOUNDARY`) and resumed from one with the
//! bits left of the last byte and the 32 KiB window preset in a
//! non-wrapping output buffer.

use miniz_oxide::inflate::core::inflate_flags::{
    TINFL_FLAG_HAS_MORE_INPUT, TINFL_FLAG_STOP_ON_BLOCK_BOUNDARY,
    TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
};
use miniz_oxide::inflate::core::{decompress, BlockBoundaryState, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use super::{damaged, read_decoded, Decode, Input, DEFAULT_SPACING};
use crate::codec::{Dec, Enc};
use crate::source::UNKNOWN_LEN;
use crate::{Error, Result, TraceSource};

/// Deflate's largest match distance: what a resumed inflater must see.
const WINDOW: usize = 32 * 1024;
/// Output held after the window: the cache that serves nearby reads.
const OUT_CHUNK: usize = 2 << 20;
/// Compressed bytes read at a time.
const IN_CHUNK: usize = 128 << 10;
/// The windows are deflated at level 1: level 6 saves a fifth more but
/// would cost a tenth of the pass's time.
const WINDOW_LEVEL: u8 = 1;
const MAGIC: &[u8] = b"tarmac-lens gzip access points";
const VERSION: u64 = 1;

/// One access point: where inflating can start.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Point {
    /// Decompressed offset.
    out: u64,
    /// For a member start, the compressed offset of its header; else that
    /// of the first byte after the last one the inflater took.
    input: u64,
    /// How many high bits of the byte before `input` are still unread
    /// (0..=7), and those bits, in the low bits of `bit_buf`.
    bits: u8,
    bit_buf: u8,
    /// A member header is at `input`: no window, no deflate state.
    header: bool,
    /// Decompressed offset of this point's member: ISIZE is checked
    /// against it at the member's end.
    member_out: u64,
    /// CRC-32 of the member's output up to `out`.
    crc: u32,
    /// The (up to) 32 KiB of the member's output before `out`, deflated.
    window: Vec<u8>,
}

impl Point {
    /// Position in the compressed stream in bits: strictly increasing
    /// along the stream, so it orders the boundaries the pass meets.
    fn key(&self) -> u64 {
        self.input * 8 - u64::from(self.bits)
    }
}

/// The access points of one gzip file, built by one front-to-back pass
/// (see the [module](super) documentation); small enough to save with an
/// index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzipTable {
    compressed_len: u64,
    spacing: u64,
    points: Vec<Point>,
    /// Bit position of the last boundary the pass considered: later ones
    /// are new, earlier ones were decided once already.
    frontier: u64,
    /// The decompressed length, once the pass has reached the end.
    total: Option<u64>,
}

impl GzipTable {
    fn new(compressed_len: u64, spacing: u64) -> GzipTable {
        GzipTable {
            compressed_len,
            spacing: spacing.max(1),
            points: vec![Point {
                out: 0,
                input: 0,
                bits: 0,
                bit_buf: 0,
                header: true,
                member_out: 0,
                crc: 0,
                window: Vec::new(),
            }],
            frontier: 0,
            total: None,
        }
    }

    /// Whether the pass has reached the end of the stream.
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

    /// How many access points it has.
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// Output bytes between access points.
    pub fn spacing(&self) -> u64 {
        self.spacing
    }

    /// The table as bytes, to save with an index.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.bytes(MAGIC);
        e.u(VERSION);
        e.u(self.compressed_len);
        e.u(self.spacing);
        e.opt(self.total);
        e.u(self.frontier);
        e.u(self.points.len() as u64);
        let (mut out, mut input) = (0, 0);
        for p in &self.points {
            e.u(p.out - out);
            e.u(p.input - input);
            (out, input) = (p.out, p.input);
            e.u(u64::from(p.bits) | u64::from(p.header) << 3);
            e.u(u64::from(p.bit_buf));
            e.u(p.out - p.member_out);
            e.u(u64::from(p.crc));
            e.bytes(&p.window);
        }
        e.into_bytes()
    }

    /// A table from [`GzipTable::encode`]'s bytes; [`Error::IndexFile`]
    /// if they are not one.
    pub fn decode(bytes: &[u8]) -> Result<GzipTable> {
        Self::decode_opt(bytes).ok_or_else(|| {
            Error::IndexFile("saved gzip access points: truncated or corrupt".into())
        })
    }

    fn decode_opt(bytes: &[u8]) -> Option<GzipTable> {
        let mut d = Dec::new(bytes);
        if d.bytes()? != MAGIC || d.u()? != VERSION {
            return None;
        }
        let compressed_len = d.u()?;
        let spacing = d.u()?;
        let total = d.opt()?;
        let frontier = d.u()?;
        let n = d.count()?;
        let mut points: Vec<Point> = Vec::with_capacity(n);
        let (mut out, mut input) = (0u64, 0u64);
        for _ in 0..n {
            out = out.checked_add(d.u()?)?;
            input = input.checked_add(d.u()?)?;
            let flags = d.u()?;
            let bit_buf = u8::try_from(d.u()?).ok()?;
            let back = d.u()?;
            let crc = u32::try_from(d.u()?).ok()?;
            let window = d.bytes()?.to_vec();
            let bits = (flags & 7) as u8;
            let p = Point {
                out,
                input,
                bits,
                bit_buf,
                header: flags & 8 != 0,
                member_out: out.checked_sub(back)?,
                crc,
                window,
            };
            let ordered = match points.last() {
                Some(q) => p.out > q.out && p.key() > q.key(),
                None => p.out == 0 && p.input == 0 && p.header,
            };
            if flags > 15
                || !ordered
                || input * 8 < u64::from(bits)
                || input > compressed_len
                || input > u64::MAX >> 4
                || (p.header && (bits != 0 || back != 0))
            {
                return None;
            }
            points.push(p);
        }
        if !d.done() || spacing == 0 || frontier < points.last()?.key() {
            return None;
        }
        Some(GzipTable {
            compressed_len,
            spacing,
            points,
            frontier,
            total,
        })
    }

    /// Index of the last point at or before decompressed offset `out`.
    fn point_before(&self, out: u64) -> usize {
        self.points.partition_point(|p| p.out <= out).max(1) - 1
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The next bytes are a member header (or the end of the file).
    Header,
    Deflate,
    End,
}

/// The inflater with its input and the output it has made: the cache of
/// the last decompressed block too.
struct Cursor {
    dec: Box<DecompressorOxide>,
    phase: Phase,
    input: Input,
    /// `WINDOW + OUT_CHUNK` bytes; `out[..filled]` is output from
    /// `out_start` on.
    out: Vec<u8>,
    filled: usize,
    out_start: u64,
    /// Where the current member's output starts in `out` (0 if before):
    /// inflating sees only its own member, as a valid stream never
    /// reaches back past it.
    member_base: usize,
    member_out: u64,
    crc: crc32fast::Hasher,
    /// Output before this has been checked: by a member's CRC, or by
    /// meeting a known access point with the CRC it recorded.
    checked_to: u64,
    /// The first known access point ahead of the inflater, which it must
    /// meet exactly.
    next_point: usize,
    /// False until placed at a point, and after an error.
    valid: bool,
}

impl Cursor {
    fn new() -> Cursor {
        Cursor {
            dec: Box::default(),
            phase: Phase::Header,
            input: Input::new(IN_CHUNK),
            out: vec![0; WINDOW + OUT_CHUNK],
            filled: 0,
            out_start: 0,
            member_base: 0,
            member_out: 0,
            crc: crc32fast::Hasher::new(),
            checked_to: 0,
            next_point: 0,
            valid: false,
        }
    }

    fn out_end(&self) -> u64 {
        self.out_start + self.filled as u64
    }

    fn place(&mut self, table: &GzipTable, i: usize) -> Result<()> {
        self.valid = false;
        let p = &table.points[i];
        self.checked_to = p.out;
        self.next_point = i + 1;
        let window = if p.window.is_empty() {
            Vec::new()
        } else {
            miniz_oxide::inflate::decompress_to_vec_with_limit(&p.window, WINDOW)
                .map_err(|_| Error::IndexFile("saved gzip access point: bad window".into()))?
        };
        if window.len() as u64 > p.out - p.member_out {
            return Err(Error::IndexFile(
                "saved gzip access point: window before its member".into(),
            ));
        }
        self.out[..window.len()].copy_from_slice(&window);
        self.filled = window.len();
        self.out_start = p.out - window.len() as u64;
        self.member_base = 0;
        self.member_out = p.member_out;
        self.crc = crc32fast::Hasher::new_with_initial(p.crc);
        self.input.seek(p.input);
        if p.header {
            self.phase = Phase::Header;
        } else {
            let st = BlockBoundaryState {
                num_bits: p.bits,
                bit_buf: p.bit_buf,
                ..BlockBoundaryState::default()
            };
            *self.dec = DecompressorOxide::from_block_boundary_state(&st);
            self.phase = Phase::Deflate;
        }
        self.valid = true;
        Ok(())
    }

    /// Makes progress: a member header, or output up to the next block
    /// boundary or the end of the buffer. Adds access points past the
    /// table's frontier.
    fn step<S: TraceSource + ?Sized>(&mut self, src: &mut S, table: &mut GzipTable) -> Result<()> {
        match self.phase {
            Phase::End => Ok(()),
            Phase::Header => self.header(src, table),
            Phase::Deflate => self.inflate(src, table),
        }
    }

    fn header<S: TraceSource + ?Sized>(
        &mut self,
        src: &mut S,
        table: &mut GzipTable,
    ) -> Result<()> {
        let at = self.input.offset();
        let out = self.out_end();
        let Some(id1) = self.input.byte(src)? else {
            if at == 0 {
                return Err(damaged("gzip", 0, "the file is empty"));
            }
            self.phase = Phase::End;
            if let Some(total) = table.total {
                if total != out {
                    return Err(Error::Read(format!(
                        "gzip stream: {out} bytes decompressed, the table says {total}"
                    )));
                }
            }
            table.total = Some(out);
            return Ok(());
        };
        let key = at * 8;
        self.meet(table, key, true)?;
        if key > table.frontier {
            table.frontier = key;
            if out >= table.points.last().map_or(0, |p| p.out) + table.spacing {
                // A point the pass makes is the data's own: nothing to
                // check the stretch before it against (the member's end
                // will), so reads there must not step on to look for it.
                self.checked_to = out;
                self.next_point = table.points.len() + 1;
                table.points.push(Point {
                    out,
                    input: at,
                    bits: 0,
                    bit_buf: 0,
                    header: true,
                    member_out: out,
                    crc: 0,
                    window: Vec::new(),
                });
            }
        }
        let mut need = |input: &mut Input| -> Result<u8> {
            input
                .byte(src)?
                .ok_or_else(|| damaged("gzip", input.offset(), "cut short in a member header"))
        };
        let mut fixed = [id1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        for b in &mut fixed[1..] {
            *b = need(&mut self.input)?;
        }
        if fixed[..2] != [0x1f, 0x8b] {
            return Err(damaged(
                "gzip",
                at,
                "not a gzip member header (bytes after the last member?)",
            ));
        }
        if fixed[2] != 8 {
            return Err(damaged(
                "gzip",
                at,
                format!("compression method {}, not deflate", fixed[2]),
            ));
        }
        let flags = fixed[3];
        if flags & 0xe0 != 0 {
            return Err(damaged("gzip", at, "reserved header flags set"));
        }
        if flags & 4 != 0 {
            let xlen = u16::from_le_bytes([need(&mut self.input)?, need(&mut self.input)?]);
            for _ in 0..xlen {
                need(&mut self.input)?;
            }
        }
        // File name, then comment: zero-terminated.
        for flag in [8, 16] {
            if flags & flag != 0 {
                while need(&mut self.input)? != 0 {}
            }
        }
        if flags & 2 != 0 {
            need(&mut self.input)?;
            need(&mut self.input)?;
        }
        self.member_out = out;
        self.member_base = self.filled;
        self.crc = crc32fast::Hasher::new();
        *self.dec = DecompressorOxide::new();
        self.phase = Phase::Deflate;
        Ok(())
    }

    fn inflate<S: TraceSource + ?Sized>(
        &mut self,
        src: &mut S,
        table: &mut GzipTable,
    ) -> Result<()> {
        if self.filled == self.out.len() {
            // Keep the window: the next block's matches reach into it.
            let keep = WINDOW;
            self.out.copy_within(self.filled - keep..self.filled, 0);
            let shift = self.filled - keep;
            self.out_start += shift as u64;
            self.member_base = self.member_base.saturating_sub(shift);
            self.filled = keep;
        }
        if self.input.rest().is_empty() {
            self.input.fill(src)?;
        }
        let at_end = self.input.rest().is_empty();
        let mut flags =
            TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF | TINFL_FLAG_STOP_ON_BLOCK_BOUNDARY;
        if !at_end {
            flags |= TINFL_FLAG_HAS_MORE_INPUT;
        }
        let base = self.member_base;
        let (status, used, made) = decompress(
            &mut self.dec,
            self.input.rest(),
            &mut self.out[base..],
            self.filled - base,
            flags,
        );
        self.input.consume(used);
        self.crc.update(&self.out[self.filled..self.filled + made]);
        self.filled += made;
        match status {
            TINFLStatus::BlockBoundary => {
                let st = self.dec.block_boundary_state().ok_or_else(|| {
                    damaged("gzip", self.input.offset(), "inflater lost its place")
                })?;
                let input = self.input.offset();
                let key = input * 8 - u64::from(st.num_bits);
                self.meet(table, key, false)?;
                if key > table.frontier {
                    table.frontier = key;
                    let out = self.out_end();
                    if out >= table.points.last().map_or(0, |p| p.out) + table.spacing {
                        let w = WINDOW.min(self.filled - self.member_base);
                        let window = miniz_oxide::deflate::compress_to_vec(
                            &self.out[self.filled - w..self.filled],
                            WINDOW_LEVEL,
                        );
                        self.checked_to = out;
                        self.next_point = table.points.len() + 1;
                        table.points.push(Point {
                            out,
                            input,
                            bits: st.num_bits,
                            bit_buf: st.bit_buf,
                            header: false,
                            member_out: self.member_out,
                            crc: self.crc.clone().finalize(),
                            window,
                        });
                    }
                }
                Ok(())
            }
            TINFLStatus::HasMoreOutput => Ok(()),
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                if at_end || !self.input.fill(src)? {
                    Err(damaged(
                        "gzip",
                        self.input.offset(),
                        "cut short (the file ends inside a deflate stream)",
                    ))
                } else {
                    Ok(())
                }
            }
            TINFLStatus::Done => self.trailer(src),
            other => Err(damaged(
                "gzip",
                self.input.offset(),
                format!("invalid deflate data ({other:?})"),
            )),
        }
    }

    fn trailer<S: TraceSource + ?Sized>(&mut self, src: &mut S) -> Result<()> {
        let at = self.input.offset();
        let mut t = [0u8; 8];
        for b in &mut t {
            *b = self.input.byte(src)?.ok_or_else(|| {
                damaged("gzip", at, "cut short in a member trailer (CRC, length)")
            })?;
        }
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        let ours = self.crc.clone().finalize();
        if crc != ours {
            return Err(damaged(
                "gzip",
                at,
                format!("member CRC-32 {crc:08x}, the data gives {ours:08x}"),
            ));
        }
        // ISIZE is the length mod 2^32, so only a check.
        let len = self.out_end() - self.member_out;
        if u64::from(isize) != len & 0xffff_ffff {
            return Err(damaged(
                "gzip",
                at,
                format!("member length {isize} (mod 2^32), the data gives {len}"),
            ));
        }
        self.checked_to = self.out_end();
        self.phase = Phase::Header;
        Ok(())
    }

    /// At a block boundary or member start at bit `key`: a known access
    /// point there must say the same output offset and CRC, and none may
    /// be passed by, else the stream is not the one the table is of.
    fn meet(&mut self, table: &GzipTable, key: u64, header: bool) -> Result<()> {
        let Some(p) = table.points.get(self.next_point) else {
            return Ok(());
        };
        if key < p.key() {
            return Ok(());
        }
        let out = self.out_end();
        let crc = self.crc.clone().finalize();
        if key > p.key() || p.header != header || p.out != out || (!header && p.crc != crc) {
            return Err(damaged(
                "gzip",
                p.input,
                "the stream does not match its access point there",
            ));
        }
        self.checked_to = out;
        self.next_point += 1;
        Ok(())
    }
}

/// The decompressed bytes of a gzip file, at any offset; see the
/// [module](super) documentation.
pub struct GzipSource<S> {
    source: S,
    table: GzipTable,
    cursor: Cursor,
}

impl<S: TraceSource> GzipSource<S> {
    /// An adaptor with an empty table, filled as reads go forward, with
    /// access points every [`DEFAULT_SPACING`] bytes.
    pub fn new(source: S) -> Result<GzipSource<S>> {
        Self::with_spacing(source, DEFAULT_SPACING)
    }

    /// As [`GzipSource::new`], with access points every `spacing` bytes
    /// of output (at the first block boundary after).
    pub fn with_spacing(source: S, spacing: u64) -> Result<GzipSource<S>> {
        let table = GzipTable::new(source.len(), spacing);
        Ok(GzipSource {
            source,
            table,
            cursor: Cursor::new(),
        })
    }

    /// An adaptor with a saved table (complete or not); the table must be
    /// of a file of this length.
    pub fn with_table(source: S, table: GzipTable) -> Result<GzipSource<S>> {
        if table.compressed_len != source.len() {
            return Err(Error::IndexFile(format!(
                "saved gzip access points are for a file of {} bytes, this one has {}",
                table.compressed_len,
                source.len()
            )));
        }
        Ok(GzipSource {
            source,
            table,
            cursor: Cursor::new(),
        })
    }

    /// The access points found so far.
    pub fn table(&self) -> &GzipTable {
        &self.table
    }

    /// The compressed source.
    pub fn into_inner(self) -> S {
        self.source
    }

    /// Runs the pass to the end of the stream (from where the table
    /// stops), checking every member; afterwards [`TraceSource::len`] is
    /// known. `progress` gets compressed bytes read.
    pub fn build_table(&mut self, mut progress: impl FnMut(u64)) -> Result<()> {
        if self.table.total.is_some() {
            return Ok(());
        }
        let last = self.table.points.len() - 1;
        if !self.cursor.valid || self.cursor.out_end() < self.table.points[last].out {
            self.place(last)?;
        }
        let mut next = 0;
        while self.cursor.phase != Phase::End {
            self.step()?;
            if self.cursor.input.offset() >= next {
                progress(self.cursor.input.offset());
                next = self.cursor.input.offset() + (8 << 20);
            }
        }
        progress(self.table.compressed_len);
        Ok(())
    }
}

impl<S: TraceSource> Decode for GzipSource<S> {
    type Point = usize;

    fn total(&self) -> Option<u64> {
        self.table.total
    }

    fn held(&self) -> Option<(u64, &[u8])> {
        let c = &self.cursor;
        c.valid.then(|| (c.out_start, &c.out[..c.filled]))
    }

    fn checkpoint(&self, pos: u64) -> (usize, u64) {
        let i = self.table.point_before(pos);
        (i, self.table.points[i].out)
    }

    fn place(&mut self, i: usize) -> Result<()> {
        self.cursor.place(&self.table, i)
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

impl<S: TraceSource> TraceSource for GzipSource<S> {
    /// [`UNKNOWN_LEN`] until the table is complete, then the exact length.
    fn len(&self) -> u64 {
        self.table.total.unwrap_or(UNKNOWN_LEN)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let done = read_decoded(self, offset, buf)?;
        // Data of a stretch the table covers is handed out checked: on
        // to the next access point (at most a spacing more), whose CRC
        // must agree. Beyond the table, the pass checks at the member's
        // end (so a first pass sees damage at most a member late).
        let end = offset.saturating_add(done as u64);
        while self.cursor.checked_to < end
            && self.cursor.phase != Phase::End
            && (self.table.total.is_some()
                || self.table.points[self.table.points.len() - 1].out >= end)
        {
            self.step()?;
        }
        Ok(done)
    }
}
