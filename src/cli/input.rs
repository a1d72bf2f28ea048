//! Opening a trace: a plain file is read in place, at offsets. A gzip or
//! Zstandard file (known by its magic bytes, whatever its name) is read in
//! place too by commands that read at offsets or more than once (`index`,
//! `find`, `vcd`, the index options...): through the core's
//! decompressor checkpoints (`tarmac_lens_core::compressed`), saved with
//! the index, so nothing decompressed is written anywhere. One-pass
//! commands read it, an xz file, standard input (`-`) or a pipe as a
//! stream, decoded on a thread of their own while the command parses
//! (libzstd decodes three times as fast as the pure-Rust decoder). Only a
//! stream that must be read at offsets (xz, a pipe) is first decompressed
//! to an anonymous temporary file, and that is said.

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;

use tarmac_lens_core::{
    compressed,
    compressed::{Compressed, Table},
    identify, ParseOptions,
};

use tarmac_lens_core::{read_sample, FileSource, TraceSource, UNKNOWN_LEN};

/// How a command reads its trace.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Once, front to back.
    Stream,
    /// At any offset, or more than once.
    Random,
}

/// The compressed formats read directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
    Xz,
}

impl Compression {
    /// From a file's first bytes.
    pub fn of(head: &[u8]) -> Option<Compression> {
        if head.starts_with(b"\x1f\x8b") {
            Some(Compression::Gzip)
        } else if compressed::sniff(head) == Some(compressed::Format::Zstd) {
            // A frame, or a skippable frame first (pzstd's).
            Some(Compression::Zstd)
        } else if head.starts_with(b"\xfd7zXZ\x00") {
            Some(Compression::Xz)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "Zstandard",
            Compression::Xz => "xz",
        }
    }

    fn decoder(self, raw: Box<dyn Read + Send>) -> std::io::Result<Box<dyn Read + Send>> {
        let raw = BufReader::with_capacity(256 << 10, raw);
        Ok(match self {
            // Multi-member: pigz and bgzip write several members.
            Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(raw)?),
            Compression::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(raw)),
        })
    }
}

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a trace is named in messages.
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// The compression of a regular file, from its magic bytes (`None` for a
/// plain file, standard input or a file that cannot be read: its opening
/// says why).
pub fn compression_of(path: &Path) -> Option<Compression> {
    if is_stdin(path) {
        return None;
    }
    let mut head = [0u8; 6];
    let n = File::open(path)
        .and_then(|f| read_full(&f, &mut head))
        .ok()?;
    Compression::of(&head[..n])
}

fn read_full(mut r: impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// An opened trace.
pub enum Opened {
    /// A plain regular file, read at offsets.
    File(FileSource),
    /// Decompressed or piped bytes, read once.
    Stream(StreamSource),
    /// A stream decompressed to a temporary file.
    Spooled(Spooled),
    /// A gzip or Zstandard file read in place, at offsets.
    InPlace(InPlace),
}

impl Opened {
    /// The temporary file holding a decompressed trace, to map for indexing.
    pub fn spooled_file(&self) -> Option<&File> {
        match self {
            Opened::Spooled(s) => Some(&s.file),
            _ => None,
        }
    }
}

impl TraceSource for Opened {
    fn len(&self) -> u64 {
        match self {
            Opened::File(f) => f.len(),
            Opened::Stream(s) => s.len(),
            Opened::Spooled(s) => s.len(),
            Opened::InPlace(s) => s.source.len(),
        }
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        match self {
            Opened::File(f) => f.read_at(offset, buf),
            Opened::Stream(s) => s.read_at(offset, buf),
            Opened::Spooled(s) => s.read_at(offset, buf),
            Opened::InPlace(s) => s.read_at(offset, buf),
        }
    }
}

/// Bytes of a stream's start kept in memory: the sample that picks the
/// dialect and the head that checks for interleaved cores are read again
/// after the stream has moved on.
const HEAD: usize = 1 << 20;

/// A stream as a [`TraceSource`] of unknown length: reads go forward, or
/// back into the first [`HEAD`] bytes.
pub struct StreamSource {
    reader: Chunks,
    head: Vec<u8>,
    /// Offset of the next byte the reader gives.
    pos: u64,
    name: String,
}

impl StreamSource {
    fn read_stream(&mut self, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let n = self
            .reader
            .fill(buf)
            .map_err(|e| tarmac_lens_core::Error::Read(format!("{}: {e}", self.name)))?;
        if (self.head.len() as u64) == self.pos && self.head.len() < HEAD {
            let keep = n.min(HEAD - self.head.len());
            self.head.extend_from_slice(&buf[..keep]);
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl TraceSource for StreamSource {
    fn len(&self) -> u64 {
        UNKNOWN_LEN
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let mut done = 0;
        if offset < self.head.len() as u64 {
            let from = offset as usize;
            let n = buf.len().min(self.head.len() - from);
            buf[..n].copy_from_slice(&self.head[from..from + n]);
            done = n;
            if done == buf.len() || (self.head.len() as u64) < self.pos {
                return Ok(done);
            }
        } else if offset < self.pos {
            return Err(tarmac_lens_core::Error::Read(format!(
                "{}: a stream cannot be read again (internal: this command reads its trace twice)",
                self.name
            )));
        }
        // Forward past bytes nobody asked for (not done by any command).
        let mut skip = (offset + done as u64).saturating_sub(self.pos);
        let mut scratch = vec![0u8; 64 << 10];
        while skip > 0 {
            let want = skip.min(scratch.len() as u64) as usize;
            let n = self.read_stream(&mut scratch[..want])?;
            if n == 0 {
                return Ok(done);
            }
            skip -= n as u64;
        }
        Ok(done + self.read_stream(&mut buf[done..])?)
    }
}

/// The bytes of a reader, read on a thread of its own in large chunks, so
/// decompression runs beside the parsing.
struct Chunks {
    rx: mpsc::Receiver<Result<Vec<u8>, String>>,
    chunk: Vec<u8>,
    at: usize,
    ended: bool,
}

const CHUNK: usize = 1 << 20;

impl Chunks {
    fn spawn(
        mut reader: Box<dyn Read + Send>,
        what: impl Fn(std::io::Error) -> String + Send + 'static,
    ) -> Chunks {
        let (tx, rx) = mpsc::sync_channel(4);
        std::thread::spawn(move || loop {
            let mut chunk = vec![0u8; CHUNK];
            let message = match read_full(&mut reader, &mut chunk) {
                Ok(n) => {
                    chunk.truncate(n);
                    Ok(chunk)
                }
                Err(e) => Err(what(e)),
            };
            let last = !matches!(&message, Ok(c) if c.len() == CHUNK);
            // The command may stop reading early (`search -m`): then the
            // receiver is gone and so is the reason to decode.
            if tx.send(message).is_err() || last {
                return;
            }
        });
        Chunks {
            rx,
            chunk: Vec::new(),
            at: 0,
            ended: false,
        }
    }

    /// Fills `buf` but at the end of the bytes.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        let mut done = 0;
        while done < buf.len() {
            if self.at == self.chunk.len() {
                if self.ended {
                    break;
                }
                match self.rx.recv() {
                    Ok(Ok(chunk)) => {
                        self.ended = chunk.len() < CHUNK;
                        self.chunk = chunk;
                        self.at = 0;
                    }
                    Ok(Err(e)) => {
                        self.ended = true;
                        return Err(e);
                    }
                    Err(_) => {
                        self.ended = true;
                        return Err("the reading thread stopped".into());
                    }
                }
                continue;
            }
            let n = (buf.len() - done).min(self.chunk.len() - self.at);
            buf[done..done + n].copy_from_slice(&self.chunk[self.at..self.at + n]);
            self.at += n;
            done += n;
        }
        Ok(done)
    }
}

/// A decompressed trace in an anonymous temporary file.
pub struct Spooled {
    file: File,
    len: u64,
}

impl Spooled {
    fn try_clone(&self) -> Result<Spooled, String> {
        Ok(Spooled {
            file: self.file.try_clone().map_err(|e| e.to_string())?,
            len: self.len,
        })
    }
}

impl TraceSource for Spooled {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        use std::os::unix::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match self.file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(tarmac_lens_core::Error::Read(e.to_string())),
            }
        }
        Ok(done)
    }
}

/// A gzip or Zstandard file's decompressed bytes, read at offsets through
/// its decompressor table; errors name the file.
pub struct InPlace {
    source: Compressed<FileSource>,
    name: String,
}

impl TraceSource for InPlace {
    fn len(&self) -> u64 {
        self.source.len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        self.source.read_at(offset, buf).map_err(|e| {
            let format = match self.source.format() {
                compressed::Format::Gzip => "gzip",
                compressed::Format::Zstd => "Zstandard",
            };
            tarmac_lens_core::Error::Read(format!(
                "{}: the {format} data is corrupt or cut short ({e})",
                self.name
            ))
        })
    }
}

impl InPlace {
    /// The decompressor table as far as reads have built it.
    pub fn table(&self) -> Table {
        self.source.table()
    }
}

/// Decompressed bytes the inflating thread hands over at a time.
const AHEAD_PIECE: usize = 1 << 20;

/// A piece of decompressed text, or why the thread stopped.
type Piece = tarmac_lens_core::Result<Vec<u8>>;

/// A trace read in place, inflated front to back on a thread of its own
/// ahead of its one reader (indexing), so decompressing and parsing
/// overlap: a gzip stream cannot be split, so that is the parallelism it
/// has. The thread reads through the same [`InPlace`] source, so it
/// records the same decompressor table as a reader on one thread would;
/// [`Ahead::finish`] hands the source (and the table) back. A read the
/// pieces do not serve (backwards, past the first piece, which is kept
/// for the sample read again from the start) stops the thread and is
/// served by the source itself.
pub struct Ahead {
    /// The source once no thread holds it; `None` while one does, and
    /// after the thread panicked.
    source: Option<InPlace>,
    thread: Option<(mpsc::Receiver<Piece>, std::thread::JoinHandle<InPlace>)>,
    /// The first piece, kept.
    head: Vec<u8>,
    /// The last piece received, and the offset of its first byte.
    piece: Vec<u8>,
    piece_at: u64,
    /// The source's length when the thread took it (known if its table
    /// was complete).
    len: u64,
    name: String,
}

impl Ahead {
    /// Starts inflating `source` from its start on a thread of its own.
    pub fn spawn(mut source: InPlace) -> Ahead {
        let len = source.len();
        let name = source.name.clone();
        // A few pieces ahead: enough to smooth the two sides' pace, and
        // a bound on what is inflated for nothing if the reader stops.
        let (tx, rx) = mpsc::sync_channel::<Piece>(3);
        let handle = std::thread::spawn(move || {
            let mut at = 0u64;
            loop {
                let mut piece = vec![0u8; AHEAD_PIECE];
                let mut filled = 0;
                let message = loop {
                    match source.read_at(at + filled as u64, &mut piece[filled..]) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            filled += n;
                            if filled == piece.len() {
                                break Ok(());
                            }
                        }
                        Err(e) => break Err(e),
                    }
                };
                piece.truncate(filled);
                at += filled as u64;
                let last = filled < AHEAD_PIECE || message.is_err();
                // The reader may stop early (an error of its own): then
                // the receiver is gone and so is the reason to inflate.
                if tx.send(message.map(|()| piece)).is_err() || last {
                    return source;
                }
            }
        });
        Ahead {
            source: None,
            thread: Some((rx, handle)),
            head: Vec::new(),
            piece: Vec::new(),
            piece_at: 0,
            len,
            name,
        }
    }

    /// Stops the thread (at once if it is ahead, waiting on the reader)
    /// and gives back the source, with the table as far as it got.
    pub fn finish(mut self) -> Result<InPlace, String> {
        self.stop().map_err(|e| e.to_string())?;
        self.source
            .take()
            .ok_or_else(|| format!("{}: the inflating thread stopped", self.name))
    }

    fn stop(&mut self) -> tarmac_lens_core::Result<()> {
        let Some((rx, handle)) = self.thread.take() else {
            return Ok(());
        };
        drop(rx);
        match handle.join() {
            Ok(source) => {
                self.source = Some(source);
                Ok(())
            }
            Err(_) => Err(tarmac_lens_core::Error::Read(format!(
                "{}: the inflating thread stopped",
                self.name
            ))),
        }
    }

    /// The next piece from the thread; an empty one at the end.
    fn next_piece(&mut self) -> tarmac_lens_core::Result<()> {
        let Some((rx, _)) = &self.thread else {
            return Ok(());
        };
        let received = rx.recv();
        let at = self.piece_at + self.piece.len() as u64;
        match received {
            Ok(Ok(piece)) => {
                if piece.len() < AHEAD_PIECE {
                    // The last: the thread is returning the source, which
                    // now knows the length.
                    self.stop()?;
                }
                if at == 0 {
                    self.head.clone_from(&piece);
                }
                self.piece = piece;
                self.piece_at = at;
                Ok(())
            }
            Ok(Err(e)) => {
                self.stop()?;
                Err(e)
            }
            Err(_) => {
                self.stop()?;
                Err(tarmac_lens_core::Error::Read(format!(
                    "{}: the inflating thread stopped",
                    self.name
                )))
            }
        }
    }
}

impl TraceSource for Ahead {
    fn len(&self) -> u64 {
        self.source.as_ref().map_or(self.len, TraceSource::len)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let pos = offset + done as u64;
            let n = match copy_from(&self.head, 0, pos, &mut buf[done..]) {
                0 => copy_from(&self.piece, self.piece_at, pos, &mut buf[done..]),
                n => n,
            };
            if n > 0 {
                done += n;
                continue;
            }
            let end = self.piece_at + self.piece.len() as u64;
            if self.thread.is_some() && pos >= end {
                self.next_piece()?;
                continue;
            }
            // Backwards, or the thread is done: the source itself.
            self.stop()?;
            let Some(source) = &mut self.source else {
                return Err(tarmac_lens_core::Error::Read(format!(
                    "{}: the inflating thread stopped",
                    self.name
                )));
            };
            let n = source.read_at(pos, &mut buf[done..])?;
            if n == 0 {
                break;
            }
            done += n;
        }
        Ok(done)
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        // The thread sees the receiver gone at its next piece.
        let _ = self.stop();
    }
}

/// Copies from `data`, the bytes from offset `start`, into `buf` at
/// `offset`; how many it gave (0 if `offset` is not among them).
fn copy_from(data: &[u8], start: u64, offset: u64, buf: &mut [u8]) -> usize {
    if offset < start || offset - start >= data.len() as u64 {
        return 0;
    }
    let at = (offset - start) as usize;
    let n = buf.len().min(data.len() - at);
    buf[..n].copy_from_slice(&data[at..at + n]);
    n
}

/// A command's trace, opened once: a stream cannot be opened twice, so the
/// sample `--image` checks and the pass that follows share it.
#[derive(Default)]
pub struct Cache {
    opened: Mutex<Option<Opened>>,
    stdin_taken: AtomicBool,
    /// The decompressor table of a trace read in place: loaded with its
    /// index or built by indexing, for every later opening.
    table: Mutex<Option<Table>>,
}

impl Cache {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Opened>> {
        self.opened.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The decompressor table later openings of a compressed trace start
    /// from.
    pub fn set_table(&self, table: Option<Table>) {
        *self.table.lock().unwrap_or_else(|e| e.into_inner()) = table;
    }

    /// The trace at `path`, refused with what it is if it is no trace.
    pub fn open(
        &self,
        path: &Path,
        opts: ParseOptions,
        mode: Mode,
        quiet: bool,
    ) -> Result<Opened, String> {
        if mode == Mode::Random
            && matches!(
                compression_of(path),
                Some(Compression::Gzip | Compression::Zstd)
            )
        {
            // A stream kept from reading the sample is no use here.
            self.slot().take();
            let table = self.table.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return open_in_place(path, opts, table);
        }
        let cached = self.slot().take();
        let opened = match cached {
            Some(Opened::Spooled(s)) => {
                let copy = s.try_clone()?;
                *self.slot() = Some(Opened::Spooled(s));
                return Ok(Opened::Spooled(copy));
            }
            Some(o) => o,
            None => open_input(path, opts, &self.stdin_taken)?,
        };
        match (opened, mode) {
            (Opened::Stream(s), Mode::Random) => {
                let spooled = spool(s, &display_name(path), quiet)?;
                let copy = spooled.try_clone()?;
                *self.slot() = Some(Opened::Spooled(spooled));
                Ok(Opened::Spooled(copy))
            }
            (o, _) => Ok(o),
        }
    }

    /// Keeps an opened trace for the next [`Cache::open`] (after reading
    /// its sample only).
    pub fn put_back(&self, opened: Opened) {
        *self.slot() = Some(opened);
    }
}

/// A gzip or Zstandard file read in place, from `table` if it was saved.
fn open_in_place(path: &Path, opts: ParseOptions, table: Option<Table>) -> Result<Opened, String> {
    let name = display_name(path);
    let open = |table| -> Result<Option<Compressed<FileSource>>, String> {
        let file = FileSource::open(path).map_err(|e| e.to_string())?;
        Compressed::open(file, table).map_err(|e| format!("{name}: {e}"))
    };
    // A table that does not fit the file (rewritten since) is dropped.
    let source = match open(table.clone()) {
        Err(_) if table.is_some() => open(None)?,
        r => r?,
    }
    .ok_or_else(|| format!("{name}: neither gzip nor Zstandard any more"))?;
    let mut source = InPlace { source, name };
    let sample = read_sample(&mut source).map_err(|e| e.to_string())?;
    let kind = identify(&sample, sample.len() as u64, opts);
    if let Some(problem) = kind.problem(&source.name) {
        return Err(problem);
    }
    Ok(Opened::InPlace(source))
}

fn open_input(path: &Path, opts: ParseOptions, stdin_taken: &AtomicBool) -> Result<Opened, String> {
    let name = display_name(path);
    let raw: Box<dyn Read + Send> = if is_stdin(path) {
        if stdin_taken.swap(true, Ordering::Relaxed) {
            return Err("standard input was read already".into());
        }
        Box::new(std::io::stdin())
    } else {
        let file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
        let meta = file.metadata().map_err(|e| format!("{name}: {e}"))?;
        if meta.is_dir() {
            return Err(format!("{name}: is a directory, not a trace"));
        }
        if meta.is_file() {
            let mut head = [0u8; 6];
            let n = read_full(&file, &mut head).map_err(|e| format!("{name}: {e}"))?;
            if Compression::of(&head[..n]).is_none() {
                let mut source = FileSource::open(path).map_err(|e| e.to_string())?;
                let sample = read_sample(&mut source).map_err(|e| e.to_string())?;
                let kind = identify(&sample, source.len(), opts);
                return match kind.problem(&name) {
                    Some(problem) => Err(problem),
                    None => Ok(Opened::File(source)),
                };
            }
            let file = File::open(path).map_err(|e| format!("{name}: {e}"))?;
            Box::new(file)
        } else if meta.file_type().is_fifo() || meta.file_type().is_socket() {
            // A named pipe or a process substitution: read as it comes.
            Box::new(file)
        } else {
            // A device would read as an empty or endless trace.
            return Err(format!(
                "{name}: not a regular file, a pipe or standard input (`-`)"
            ));
        }
    };
    let (head, raw) = peek(raw).map_err(|e| format!("{name}: {e}"))?;
    let reader = match Compression::of(&head) {
        Some(c) => {
            let format = c.name();
            let decoder = c
                .decoder(raw)
                .map_err(|e| format!("{name}: {format}: {e}"))?;
            Chunks::spawn(decoder, move |e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    format!("the {format} data is cut short ({e}): the file is truncated, or was still being written")
                } else {
                    format!("the {format} data is corrupt ({e})")
                }
            })
        }
        None => Chunks::spawn(raw, |e| e.to_string()),
    };
    let mut source = StreamSource {
        reader,
        head: Vec::new(),
        pos: 0,
        name: name.clone(),
    };
    let sample = read_sample(&mut source).map_err(|e| e.to_string())?;
    // The sample's own length: the stream's is not known, and only an
    // empty one matters here.
    let kind = identify(&sample, sample.len() as u64, opts);
    if let Some(problem) = kind.problem(&name) {
        return Err(problem);
    }
    Ok(Opened::Stream(source))
}

/// A reader's first bytes (for its magic number) and the reader with them
/// put back.
fn peek(mut raw: Box<dyn Read + Send>) -> std::io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut head = vec![0u8; 6];
    let n = read_full(&mut raw, &mut head)?;
    head.truncate(n);
    let again = std::io::Cursor::new(head.clone()).chain(raw);
    Ok((head, Box::new(again)))
}

/// Decompresses a stream into an anonymous temporary file, for commands
/// that read at offsets.
fn spool(mut stream: StreamSource, name: &str, quiet: bool) -> Result<Spooled, String> {
    use std::io::Write;
    let file = tempfile::tempfile().map_err(|e| {
        format!(
            "{name}: cannot make a temporary file to decompress into ({e}; TMPDIR chooses where)"
        )
    })?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, &file);
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = stream.read_at(len, &mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n])
            .map_err(|e| format!("{name}: writing the temporary file: {e}"))?;
        len += n as u64;
    }
    out.flush()
        .map_err(|e| format!("{name}: writing the temporary file: {e}"))?;
    drop(out);
    if !quiet {
        eprintln!(
            "tarmac-lens: note: {name}: read into a temporary file ({:.1} MB), as this command reads the trace at offsets",
            len as f64 / 1e6
        );
    }
    Ok(Spooled { file, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use tarmac_lens_core::{Index, IndexOptions, TraceIdentity};

    /// A gzip file of `copies` of the 2 MB test trace in a directory of
    /// its own; the directory is removed on drop.
    struct Gz(std::path::PathBuf);

    impl Gz {
        fn new(tag: &str, copies: usize, damage: bool) -> Gz {
            let dir = std::env::temp_dir()
                .join(format!("tarmac-lens-ahead-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let trace = std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"
            ))
            .unwrap();
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            for _ in 0..copies {
                e.write_all(&trace).unwrap();
            }
            let mut gz = e.finish().unwrap();
            if damage {
                let middle = gz.len() * 2 / 3;
                for b in &mut gz[middle..middle + 64] {
                    *b ^= 0x5a;
                }
            }
            std::fs::write(dir.join("t.gz"), gz).unwrap();
            Gz(dir)
        }

        fn path(&self) -> std::path::PathBuf {
            self.0.join("t.gz")
        }

        fn open(&self) -> InPlace {
            match open_in_place(&self.path(), ParseOptions::default(), None).unwrap() {
                Opened::InPlace(s) => s,
                _ => panic!("not read in place"),
            }
        }
    }

    impl Drop for Gz {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn index(source: &mut impl TraceSource) -> tarmac_lens_core::Result<Vec<u8>> {
        let index = Index::build(source, IndexOptions::default(), |_| {})?;
        Ok(index.to_bytes(TraceIdentity { len: 1, mtime: 2 }))
    }

    /// Inflating on a thread ahead of the parse changes nothing: the
    /// index and the decompressor table are those one thread makes.
    #[test]
    fn inflating_ahead_gives_the_one_thread_index_and_table() {
        let gz = Gz::new("same", 5, false);
        let mut alone = gz.open();
        let want = index(&mut alone).unwrap();
        let mut ahead = Ahead::spawn(gz.open());
        let got = index(&mut ahead).unwrap();
        assert!(got == want);
        let table = ahead.finish().unwrap().table();
        assert!(table.is_complete());
        assert!(table.points() > 1);
        assert_eq!(table, alone.table());
    }

    /// A reader that stops early stops the thread: it inflates a few
    /// pieces ahead, not the whole stream, and hands the source back.
    #[test]
    fn the_thread_stops_when_its_reader_does() {
        let gz = Gz::new("early", 10, false);
        let mut ahead = Ahead::spawn(gz.open());
        let mut buf = vec![0u8; 100_000];
        assert_eq!(ahead.read_at(0, &mut buf).unwrap(), buf.len());
        std::thread::sleep(std::time::Duration::from_millis(200));
        let table = ahead.finish().unwrap().table();
        assert!(!table.is_complete());
        // Dropped without finishing, too.
        let mut ahead = Ahead::spawn(gz.open());
        assert_eq!(ahead.read_at(0, &mut buf).unwrap(), buf.len());
        drop(ahead);
    }

    /// Reads the pieces do not serve (backwards, far behind) are the
    /// source's own, and give the same bytes.
    #[test]
    fn reads_out_of_order_are_served_by_the_source() {
        let gz = Gz::new("order", 3, false);
        let mut alone = gz.open();
        let mut ahead = Ahead::spawn(gz.open());
        let read = |s: &mut dyn TraceSource, at: u64| {
            let mut buf = vec![0u8; 5000];
            let n = s.read_at(at, &mut buf).unwrap();
            buf.truncate(n);
            buf
        };
        for at in [0, 10, 3 << 20, 2 << 20, 1 << 20, 5 << 20, 100, 6_000_000] {
            assert!(read(&mut ahead, at) == read(&mut alone, at), "at {at}");
        }
    }

    /// A damaged stream is an error naming the file and the format, from
    /// the thread to the reader; the source comes back.
    #[test]
    fn damage_met_by_the_thread_is_the_readers_error() {
        let gz = Gz::new("damaged", 5, true);
        let mut ahead = Ahead::spawn(gz.open());
        let e = index(&mut ahead).unwrap_err().to_string();
        assert!(e.contains("t.gz") && e.contains("gzip"), "{e}");
        let mut alone = gz.open();
        assert_eq!(index(&mut alone).unwrap_err().to_string(), e);
        assert!(ahead.finish().is_ok());
    }
}
