//! Translation and cache events, where the trace has them (Fast Models'
//! `TTW`/`TTU` table walks, `TLB`/`WALKCACHE` fills and evictions, `CACHE
//! ... LINE` operations and `CACHE MAINTENANCE`): a table per kind counting
//! them by their fields, and the first events of each kind with their
//! fields decoded.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::Statistics;
use crate::parse::RecordKind;

/// Events of each kind kept with their fields (all are counted).
pub const MAX_KEPT: usize = 1000;

/// The kinds of event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum MemsysKind {
    /// `TTW`/`TTU`: a translation table walk's read or update.
    TableWalk,
    /// `TLB`/`WALKCACHE` `FILL`/`EVICT`.
    Tlb,
    /// `CACHE <id> LINE <n> <op>`.
    CacheLine,
    /// `CACHE MAINTENANCE`.
    CacheMaintenance,
}

impl MemsysKind {
    /// Every kind, in report order.
    pub const ALL: [MemsysKind; 4] = [
        MemsysKind::TableWalk,
        MemsysKind::Tlb,
        MemsysKind::CacheLine,
        MemsysKind::CacheMaintenance,
    ];

    /// As the report titles it.
    pub fn title(self) -> &'static str {
        match self {
            MemsysKind::TableWalk => "Translation table walks (TTW/TTU)",
            MemsysKind::Tlb => "TLB and walk-cache entries (TLB/WALKCACHE)",
            MemsysKind::CacheLine => "Cache lines (CACHE ... LINE)",
            MemsysKind::CacheMaintenance => "Cache maintenance (CACHE MAINTENANCE)",
        }
    }

    /// The fields its counts are grouped by.
    pub fn key_fields(self) -> &'static [&'static str] {
        match self {
            MemsysKind::TableWalk => &["op", "side", "format", "stage:level", "result"],
            MemsysKind::Tlb => &["structure", "op", "id", "size"],
            MemsysKind::CacheLine => &["cache", "op"],
            MemsysKind::CacheMaintenance => &["side", "op", "scope"],
        }
    }
}

/// One event with its fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemsysEvent {
    /// Its line.
    pub line: u64,
    /// Its time.
    pub time: u64,
    /// Its fields, named, in the line's order.
    pub fields: Vec<(String, String)>,
}

/// Counts grouped by a kind's key fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemsysGroup {
    /// The key fields' values, in [`MemsysKind::key_fields`]'s order.
    pub key: Vec<String>,
    /// Events with that key.
    pub count: u64,
}

/// One kind's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemsysTable {
    /// The kind.
    pub kind: MemsysKind,
    /// Events of it.
    pub count: u64,
    /// Counts by key, most first.
    pub groups: Vec<MemsysGroup>,
    /// The first events (at most [`MAX_KEPT`]).
    pub events: Vec<MemsysEvent>,
}

/// An event's fields, named.
type Fields = Vec<(String, String)>;

/// Collects the events through the pass.
#[derive(Default)]
pub(crate) struct MemsysCollector {
    counts: BTreeMap<MemsysKind, u64>,
    /// By kind, then the key fields' bytes joined by [`SEP`]: looked up
    /// from one reused buffer, so an event line allocates nothing unless
    /// its group is new.
    groups: BTreeMap<MemsysKind, HashMap<Vec<u8>, u64>>,
    key: Vec<u8>,
    events: BTreeMap<MemsysKind, Vec<MemsysEvent>>,
}

/// Between a group key's fields: a byte no field of a trace line holds.
const SEP: u8 = 0x1f;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `WORD KEY=VALUE ...` (a walk's result, a TLB entry's attributes) as
/// fields: the bare words under `name`, the pairs by their keys.
fn words(name: &str, b: &[u8], fields: &mut Vec<(String, String)>) {
    let t = text(b);
    let mut bare = Vec::new();
    let mut pending_key: Option<String> = None;
    for w in t.split(|c: char| c.is_whitespace() || c == ',') {
        if w.is_empty() {
            continue;
        }
        if let Some(k) = pending_key.take() {
            // `ContiguousHint =0`: the key, then `=value`.
            if let Some(v) = w.strip_prefix('=') {
                fields.push((k, v.to_string()));
                continue;
            }
            bare.push(k);
        }
        match w.split_once('=') {
            Some((k, v)) if !k.is_empty() => fields.push((k.to_string(), v.to_string())),
            _ => pending_key = Some(w.to_string()),
        }
    }
    if let Some(k) = pending_key {
        bare.push(k);
    }
    if !bare.is_empty() {
        fields.push((name.to_string(), bare.join(" ")));
    }
}

impl MemsysCollector {
    pub(crate) fn note(&mut self, line: u64, time: u64, kind: &RecordKind<'_>) {
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        let mut part = |b: &[u8]| {
            if !key.is_empty() {
                key.push(SEP);
            }
            key.extend_from_slice(b);
        };
        let (k, fields): (MemsysKind, Option<Fields>) = match kind {
            RecordKind::TableWalk(w) => {
                let result = w
                    .result
                    .split(|c| c.is_ascii_whitespace())
                    .find(|x| !x.is_empty())
                    .unwrap_or_default();
                let op = if w.update { "update" } else { "walk" };
                let stage = format!("{}:{}", w.stage, w.level);
                for b in [op.as_bytes(), w.side, w.format, stage.as_bytes(), result] {
                    part(b);
                }
                let fields = self.want(MemsysKind::TableWalk).then(|| {
                    let mut f = vec![
                        ("op".into(), op.into()),
                        ("side".into(), text(w.side)),
                        ("format".into(), text(w.format)),
                        ("stage:level".into(), stage),
                        ("descriptor address".into(), format!("0x{:x}", w.addr)),
                        ("descriptor".into(), format!("0x{:x}", w.data)),
                    ];
                    words("result", w.result, &mut f);
                    f
                });
                (MemsysKind::TableWalk, fields)
            }
            RecordKind::Tlb(t) => {
                let structure = if t.walk_cache { "WALKCACHE" } else { "TLB" };
                let op = if t.fill { "FILL" } else { "EVICT" };
                for b in [structure.as_bytes(), op.as_bytes(), t.id, t.size] {
                    part(b);
                }
                let fields = self.want(MemsysKind::Tlb).then(|| {
                    let mut f = vec![
                        ("structure".into(), structure.into()),
                        ("op".into(), op.into()),
                        ("id".into(), text(t.id)),
                        ("size".into(), text(t.size)),
                        ("virtual address".into(), format!("0x{:x}", t.vaddr)),
                        (
                            "security".into(),
                            if t.non_secure { "Non-secure" } else { "Secure" }.into(),
                        ),
                    ];
                    words("attributes", t.rest, &mut f);
                    f
                });
                (MemsysKind::Tlb, fields)
            }
            RecordKind::Cache(c) => {
                part(c.cache);
                part(c.operation);
                let fields = self.want(MemsysKind::CacheLine).then(|| {
                    vec![
                        ("cache".into(), text(c.cache)),
                        ("op".into(), text(c.operation)),
                        ("line".into(), format!("0x{:x}", c.line)),
                        ("physical address".into(), format!("0x{:x}", c.paddr)),
                        (
                            "security".into(),
                            if c.non_secure { "Non-secure" } else { "Secure" }.into(),
                        ),
                    ]
                });
                (MemsysKind::CacheLine, fields)
            }
            RecordKind::CacheMaintenance(m) => {
                for b in [m.side, m.operation, m.scope] {
                    part(b);
                }
                let fields = self.want(MemsysKind::CacheMaintenance).then(|| {
                    let mut f = vec![
                        ("side".into(), text(m.side)),
                        ("op".into(), text(m.operation)),
                        ("scope".into(), text(m.scope)),
                        ("data".into(), format!("0x{:x}", m.data)),
                    ];
                    if let Some(pa) = m.phys {
                        f.push(("physical address".into(), format!("0x{pa:x}")));
                    }
                    words("attributes", m.rest, &mut f);
                    f
                });
                (MemsysKind::CacheMaintenance, fields)
            }
            _ => {
                self.key = key;
                return;
            }
        };
        *self.counts.entry(k).or_default() += 1;
        let groups = self.groups.entry(k).or_default();
        match groups.get_mut(&key[..]) {
            Some(n) => *n += 1,
            None => {
                groups.insert(key.clone(), 1);
            }
        }
        self.key = key;
        if let Some(fields) = fields {
            self.events
                .entry(k)
                .or_default()
                .push(MemsysEvent { line, time, fields });
        }
    }

    fn want(&self, k: MemsysKind) -> bool {
        self.events.get(&k).map_or(0, Vec::len) < MAX_KEPT
    }
}

/// The translation and cache events report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemsysReport {
    /// One table per kind the trace has.
    pub tables: Vec<MemsysTable>,
}

impl MemsysReport {
    /// From the pass.
    pub fn build(stats: &Statistics) -> MemsysReport {
        let c = &stats.pass.c.memsys;
        let mut tables = Vec::new();
        for k in MemsysKind::ALL {
            let Some(&count) = c.counts.get(&k) else {
                continue;
            };
            let mut groups: Vec<MemsysGroup> = c
                .groups
                .get(&k)
                .into_iter()
                .flatten()
                .map(|(key, &count)| MemsysGroup {
                    key: key.split(|&b| b == SEP).map(text).collect(),
                    count,
                })
                .collect();
            groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
            tables.push(MemsysTable {
                kind: k,
                count,
                groups,
                events: c.events.get(&k).cloned().unwrap_or_default(),
            });
        }
        MemsysReport { tables }
    }

    /// The text the CLI prints, with the first `listed` events of each kind.
    pub fn render(&self, listed: usize) -> String {
        let mut out = String::new();
        if self.tables.is_empty() {
            out.push_str(
                "No translation or cache events in this trace (no TTW, TTU, TLB, WALKCACHE or CACHE lines)\n",
            );
            return out;
        }
        for (i, t) in self.tables.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{}: {}", t.kind.title(), t.count);
            let fields = t.kind.key_fields();
            let widths: Vec<usize> = (0..fields.len())
                .map(|j| {
                    t.groups
                        .iter()
                        .map(|g| g.key[j].len())
                        .chain([fields[j].len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let mut row = format!("  {:>10}", "Count");
            for (f, w) in fields.iter().zip(&widths) {
                let _ = write!(row, "  {f:<w$}");
            }
            let _ = writeln!(out, "{}", row.trim_end());
            for g in &t.groups {
                let mut row = format!("  {:>10}", g.count);
                for (v, w) in g.key.iter().zip(&widths) {
                    let _ = write!(row, "  {v:<w$}");
                }
                let _ = writeln!(out, "{}", row.trim_end());
            }
            let shown = t.events.len().min(listed);
            if shown > 0 {
                let _ = writeln!(out, "  The first {shown}:");
                for e in &t.events[..shown] {
                    let f: Vec<String> = e.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let _ = writeln!(out, "    line {} t={}: {}", e.line, e.time, f.join(" "));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_into_fields() {
        let mut f = Vec::new();
        words(
            "result",
            b"BLOCK ATTRIDX=0 NS=0 AP=3 ContiguousHint =0",
            &mut f,
        );
        assert_eq!(
            f,
            [
                ("ATTRIDX".to_string(), "0".to_string()),
                ("NS".into(), "0".into()),
                ("AP".into(), "3".into()),
                ("ContiguousHint".into(), "0".into()),
                ("result".into(), "BLOCK".into()),
            ]
        );
    }
}
