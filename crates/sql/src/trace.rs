//! One trace as the tables read it: its finished index, a way to open its
//! text (once per partition, so partitions read in parallel), its ELF
//! image's symbols and DWARF, and its name (the `run` of a farm).

use std::sync::{Arc, Mutex};

use tarmac_lens_core::{DebugInfo, Index, IntervalStart, SymbolTable, TraceSource};

/// Opens the trace's text for reading at offsets; called once per
/// partition of a scan, so each reads on its own.
pub trait OpenSource: Send + Sync {
    /// A fresh reader of the trace.
    fn open(&self) -> tarmac_lens_core::Result<Box<dyn TraceSource + Send>>;
}

impl<F> OpenSource for F
where
    F: Fn() -> tarmac_lens_core::Result<Box<dyn TraceSource + Send>> + Send + Sync,
{
    fn open(&self) -> tarmac_lens_core::Result<Box<dyn TraceSource + Send>> {
        self()
    }
}

/// A trace the tables read: its index (complete), its text and its image.
pub struct Trace {
    pub(crate) name: String,
    pub(crate) index: Arc<Index>,
    pub(crate) source: Arc<dyn OpenSource>,
    pub(crate) image: Option<Arc<SymbolTable>>,
    /// DWARF answers through a lazily filled cache (not `Sync`): behind a
    /// lock, taken once per new address.
    pub(crate) dwarf: Option<Mutex<DebugInfo>>,
    pub(crate) big_endian: bool,
    /// Where each checkpoint interval starts, with the end as a last entry
    /// (the nodes, instructions and bytes of the whole trace).
    pub(crate) starts: Vec<IntervalStart>,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace").field("name", &self.name).finish()
    }
}

impl Trace {
    /// A trace named `name` (the `run` of a farm), over a complete index.
    pub fn new(name: impl Into<String>, index: Arc<Index>, source: Arc<dyn OpenSource>) -> Trace {
        let s = index.summary();
        let mut starts: Vec<IntervalStart> = (0..index.interval_count())
            .filter_map(|k| index.interval_start(k))
            .collect();
        starts.push(IntervalStart {
            line: s.lines + 1,
            offset: s.bytes,
            node: s.nodes,
            instructions: s.instructions,
            time_before: None,
        });
        Trace {
            name: name.into(),
            big_endian: index.options().parse.big_endian,
            index,
            source,
            image: None,
            dwarf: None,
            starts,
        }
    }

    /// With the ELF image's symbols (`functions`, names) and DWARF
    /// (`source_lines`, source columns), if it has any.
    pub fn with_image(mut self, symbols: SymbolTable, dwarf: Option<DebugInfo>) -> Trace {
        self.image = Some(Arc::new(symbols));
        self.dwarf = dwarf.map(Mutex::new);
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Checkpoint intervals.
    pub(crate) fn intervals(&self) -> usize {
        self.starts.len() - 1
    }

    /// Bytes of interval `k`.
    pub(crate) fn interval_bytes(&self, k: usize) -> u64 {
        self.starts[k + 1]
            .offset
            .saturating_sub(self.starts[k].offset)
    }

    /// The interval holding node `node`.
    pub(crate) fn interval_of_node(&self, node: u64) -> usize {
        self.starts[..self.intervals()]
            .partition_point(|s| s.node <= node)
            .saturating_sub(1)
    }
}
