//! A gzip or Zstandard trace, dropped or fetched, read in place: the
//! core's decompressor checkpoints (`tarmac_lens_core::compressed`) over
//! the file's own source, never a decompressed copy. The session owns the
//! source; the worker keeps a second handle to save the table with the
//! index.

use std::cell::RefCell;
use std::rc::Rc;

use tarmac_lens_core::{
    compressed::{sniff, Compressed, Format, Table},
    Error, Result, TraceSource,
};

/// The decompressed bytes of a compressed source, shared between the
/// session that reads them and the worker that saves their table.
#[derive(Clone)]
pub struct Shared(Rc<RefCell<Compressed<Box<dyn TraceSource>>>>);

impl Shared {
    /// The checkpoints found so far.
    pub fn table(&self) -> Table {
        self.0.borrow().table()
    }
}

impl TraceSource for Shared {
    fn len(&self) -> u64 {
        self.0.borrow().len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.0.borrow_mut().read_at(offset, buf)
    }
}

/// The compression format `source` starts with, if it is one read in place.
pub fn format_of(source: &mut dyn TraceSource) -> Result<Option<Format>> {
    let mut head = [0u8; 4];
    let n = source.read_at(0, &mut head)?;
    Ok(sniff(&head[..n]))
}

/// `source`'s decompressed bytes, from a saved `table` if there is one.
pub fn open(source: Box<dyn TraceSource>, table: Option<Table>) -> Result<Shared> {
    let opened = Compressed::open(source, table)?
        .ok_or_else(|| Error::Read("neither gzip nor Zstandard".into()))?;
    Ok(Shared(Rc::new(RefCell::new(opened))))
}

/// Decompressed bytes read per task by [`build_table`]: tens of
/// milliseconds, so a newer file dropped meanwhile is seen soon.
const STEP: usize = 8 << 20;

/// Reads the stream once to its end, a step per task, so its length is
/// known and every checkpoint found before a session opens over it (a
/// session takes the length at its start). `Ok(false)` if `current`
/// said to stop.
pub async fn build_table(source: &Shared, current: impl Fn() -> bool) -> Result<bool> {
    let mut buf = vec![0u8; 1 << 20];
    let mut pos = 0u64;
    loop {
        let mut read = 0;
        while read < STEP {
            let n = source.clone().read_at(pos, &mut buf)?;
            if n == 0 {
                return Ok(true);
            }
            pos += n as u64;
            read += n;
        }
        crate::web::shared::timing::sleep(0.0).await;
        if !current() {
            return Ok(false);
        }
    }
}

/// `source` as a trace: its decompressed bytes if it is gzip or Zstandard
/// (from `table` when a pass found it before, which this one saves), else
/// itself. For the workers that read a trace in whole passes (reports,
/// comparison), which take its length first: a first pass finds it.
pub fn decompressed(
    mut source: Box<dyn TraceSource>,
    table: &RefCell<Option<Table>>,
) -> Result<Box<dyn TraceSource>> {
    if format_of(&mut *source)?.is_none() {
        return Ok(source);
    }
    let shared = open(source, table.borrow().clone())?;
    if !shared.0.borrow().table().is_complete() {
        let mut buf = vec![0u8; 1 << 20];
        let mut pos = 0u64;
        loop {
            let n = shared.clone().read_at(pos, &mut buf)?;
            if n == 0 {
                break;
            }
            pos += n as u64;
        }
        *table.borrow_mut() = Some(shared.table());
    }
    Ok(Box::new(shared))
}
