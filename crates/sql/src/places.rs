//! What an address is in the ELF image: the symbol holding it and the
//! source line it was compiled from, looked up once per address a scan
//! meets (a program runs the same few thousand addresses millions of
//! times).

use std::collections::HashMap;
use std::sync::Arc;

use crate::trace::Trace;

/// An address's symbol and source line.
#[derive(Clone, Default)]
pub(crate) struct Place {
    pub(crate) function: Option<Arc<str>>,
    pub(crate) file: Option<Arc<str>>,
    pub(crate) line: Option<u32>,
}

/// Places by address, for one scan.
#[derive(Default)]
pub(crate) struct Places {
    cache: HashMap<u64, Place>,
    files: HashMap<String, Arc<str>>,
    symbols: HashMap<String, Arc<str>>,
}

impl Places {
    /// The place of `pc` in `trace`'s image (nothing without one).
    pub(crate) fn get(&mut self, trace: &Trace, pc: u64, want_source: bool) -> &Place {
        if !self.cache.contains_key(&pc) {
            let place = self.look_up(trace, pc, want_source);
            self.cache.insert(pc, place);
        }
        &self.cache[&pc]
    }

    fn look_up(&mut self, trace: &Trace, pc: u64, want_source: bool) -> Place {
        let mut place = Place::default();
        if let Some(image) = &trace.image {
            if let Some((sym, _)) = image.find_by_address(pc) {
                let name = sym.display_name();
                place.function = Some(intern(&mut self.symbols, name));
            }
        }
        if want_source {
            if let Some(dwarf) = &trace.dwarf {
                let found = dwarf
                    .lock()
                    .map(|d| d.location(pc).ok().flatten())
                    .unwrap_or(None);
                if let Some(loc) = found {
                    place.file = Some(intern(&mut self.files, loc.file));
                    place.line = loc.line;
                }
            }
        }
        place
    }
}

fn intern(map: &mut HashMap<String, Arc<str>>, s: String) -> Arc<str> {
    map.entry(s)
        .or_insert_with_key(|k| Arc::from(k.as_str()))
        .clone()
}
