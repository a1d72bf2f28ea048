//! Renderings for record kinds the reference parser test does not cover.
//!
//! Every line follows the reference style: `* <Name>Event time=<decimal>`
//! then `key=value` pairs; numbers in hex without `0x` unless noted as
//! decimal (N), booleans `true`/`false`, free text in double quotes (with `"`
//! and `\` escaped by `\`, invalid UTF-8 replaced), keywords bare. Pairs in
//! brackets appear only when the record has the value; `cpu=<id>` follows
//! `time=` whenever the line named a trace source.
//!
//! | Record | Rendering |
//! |---|---|
//! | Branch `FD`/`FI`/`FR` | `* BranchEvent time=T kind=direct\|indirect\|exception-return [inst_id=N] [from=HEX] target=HEX [iset=ARM\|Thumb\|A64\|ThumbEE\|C64] text="..."` |
//! | Bus (Fast Models `B...`, ARMulator `M...`/`B...`) | `* BusEvent time=T type="WORD" [read=B] [size=N] [sequential=B] fetch=B locked=B exclusive=B privileged=B [secure=B] speculative=B idle=B coprocessor=B [inner="WRCBS"] [outer="WRCBS"] [master=HEX] [addr=HEX] data="..." wait=B abort=B [side=instruction\|data]` (an instruction-side `M...I` transfer prints as the reference's `TextOnlyEvent`, an RTL logger's fetch `MR4_I` as its `MemoryEvent`) |
//! | Cache | `* CacheEvent time=T cache="ID" line=HEX op=OP paddr=HEX ns=B` |
//! | CacheMaintenance | `* CacheMaintenanceEvent time=T side="S" op="OP" scope="SCOPE" data=HEX [paddr=HEX] rest="..."` |
//! | TableWalk | `* TableWalkEvent time=T update=B side="S" format="F" stage=N level=N addr=HEX data=HEX result="..."` |
//! | Tlb | `* TlbEvent time=T cache=tlb\|walkcache op=FILL\|EVICT id="ID" size="SIZE" vaddr=HEX ns=B rest="..."` |
//! | EpTrace | `* EpTraceEvent time=T pc=HEX type=info\|discontinuity\|normal\|sploop-memory\|sploop-buffer\|sploop-memory-discontinuity ep_cycles=N addr=HEX size=N stall=N` |
//! | RegisterList | one `* RegisterEvent time=T reg=NAME offset=0 bytes=BB:BB:..` per entry whose register is known (NAME canonical, bytes big-endian, `ceil(digits/2)` of them, at most 8); nothing for unknown registers |
//! | Header (ARMulator) | `* HeaderEvent time=T kind=armulator text="..."` |
//! | Header (EP banner) | `* HeaderEvent time=T kind=ep-banner text="..."` |
//! | Header (EP version) | `* HeaderEvent time=T kind=ep-version version=N text="..."` |
//!
//! Examples:
//! `* CacheEvent time=1947 cpu=cpu0 cache="cpu.cpu0.l1icache" line=96 op=ALLOC paddr=152112c0 ns=false`,
//! `* RegisterEvent time=0 reg=psr offset=0 bytes=20:00:00:d3`.

use std::fmt::Write;

use crate::parse::{BranchKind, EpRecordType, HeaderKind, ISet, Record, RecordKind, RegListEntry};

fn quoted(out: &mut String, s: &[u8]) {
    out.push('"');
    for c in String::from_utf8_lossy(s).chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn bare(out: &mut String, s: &[u8]) {
    out.push_str(&String::from_utf8_lossy(s));
}

/// `* <name> time=T[ cpu=C]`.
fn start(out: &mut String, name: &str, rec: &Record<'_>) {
    let _ = write!(out, "* {name} time={}", rec.time);
    if let Some(cpu) = rec.cpu {
        out.push_str(" cpu=");
        bare(out, cpu);
    }
}

fn iset_name(i: ISet) -> &'static str {
    match i {
        ISet::Arm => "ARM",
        ISet::Thumb => "Thumb",
        ISet::A64 => "A64",
        ISet::ThumbEE => "ThumbEE",
        ISet::C64 => "C64",
    }
}

fn ep_type_name(t: EpRecordType) -> &'static str {
    match t {
        EpRecordType::Info => "info",
        EpRecordType::Discontinuity => "discontinuity",
        EpRecordType::Normal => "normal",
        EpRecordType::SploopMemory => "sploop-memory",
        EpRecordType::SploopBuffer => "sploop-buffer",
        EpRecordType::SploopMemoryDiscontinuity => "sploop-memory-discontinuity",
    }
}

fn register_entry(out: &mut String, time: u64, e: &RegListEntry) {
    let Some(reg) = e.reg else { return };
    let width = usize::from(e.digits).div_ceil(2).clamp(1, 8);
    let _ = write!(out, "* RegisterEvent time={time} reg={reg} offset=0 bytes=");
    for i in (0..width).rev() {
        let byte = (e.value >> (8 * i)) & 0xff;
        let sep = if i == 0 { "" } else { ":" };
        let _ = write!(out, "{byte:02x}{sep}");
    }
    out.push('\n');
}

/// Appends the `* ...` line(s) for `rec` to `out` if it is one of the kinds
/// rendered here; returns whether it was.
pub(super) fn render_extra(rec: &Record<'_>, out: &mut String) -> bool {
    match &rec.kind {
        RecordKind::Branch(b) => {
            let kind = match b.kind {
                BranchKind::Direct => "direct",
                BranchKind::Indirect => "indirect",
                BranchKind::ExceptionReturn => "exception-return",
                BranchKind::Es => return false,
            };
            start(out, "BranchEvent", rec);
            let _ = write!(out, " kind={kind}");
            if let Some(id) = b.inst_id {
                let _ = write!(out, " inst_id={id}");
            }
            if let Some(from) = b.from {
                let _ = write!(out, " from={from:x}");
            }
            let _ = write!(out, " target={:x}", b.target);
            if let Some(i) = b.iset {
                let _ = write!(out, " iset={}", iset_name(i));
            }
            out.push_str(" text=");
            quoted(out, b.text);
        }
        RecordKind::Bus(b) => {
            start(out, "BusEvent", rec);
            out.push_str(" type=");
            quoted(out, b.type_word);
            if let Some(r) = b.read {
                let _ = write!(out, " read={r}");
            }
            if let Some(s) = b.size {
                let _ = write!(out, " size={s}");
            }
            if let Some(s) = b.sequential {
                let _ = write!(out, " sequential={s}");
            }
            let _ = write!(
                out,
                " fetch={} locked={} exclusive={} privileged={}",
                b.opcode_fetch, b.locked, b.exclusive, b.privileged
            );
            if let Some(s) = b.secure {
                let _ = write!(out, " secure={s}");
            }
            let _ = write!(
                out,
                " speculative={} idle={} coprocessor={}",
                b.speculative, b.idle, b.coprocessor
            );
            if let Some(a) = b.inner_attrs {
                out.push_str(" inner=");
                quoted(out, a);
            }
            if let Some(a) = b.outer_attrs {
                out.push_str(" outer=");
                quoted(out, a);
            }
            if let Some(m) = b.master_id {
                let _ = write!(out, " master={m:x}");
            }
            if let Some(a) = b.addr {
                let _ = write!(out, " addr={a:x}");
            }
            out.push_str(" data=");
            quoted(out, b.data);
            let _ = write!(out, " wait={} abort={}", b.wait, b.abort);
            if let Some(i) = b.instruction_side {
                out.push_str(if i { " side=instruction" } else { " side=data" });
            }
        }
        RecordKind::Cache(c) => {
            start(out, "CacheEvent", rec);
            out.push_str(" cache=");
            quoted(out, c.cache);
            let _ = write!(out, " line={:x} op=", c.line);
            bare(out, c.operation);
            let _ = write!(out, " paddr={:x} ns={}", c.paddr, c.non_secure);
        }
        RecordKind::CacheMaintenance(m) => {
            start(out, "CacheMaintenanceEvent", rec);
            out.push_str(" side=");
            quoted(out, m.side);
            out.push_str(" op=");
            quoted(out, m.operation);
            out.push_str(" scope=");
            quoted(out, m.scope);
            let _ = write!(out, " data={:x}", m.data);
            if let Some(pa) = m.phys {
                let _ = write!(out, " paddr={pa:x}");
            }
            out.push_str(" rest=");
            quoted(out, m.rest);
        }
        RecordKind::TableWalk(w) => {
            start(out, "TableWalkEvent", rec);
            let _ = write!(out, " update={} side=", w.update);
            quoted(out, w.side);
            out.push_str(" format=");
            quoted(out, w.format);
            let _ = write!(
                out,
                " stage={} level={} addr={:x} data={:x} result=",
                w.stage, w.level, w.addr, w.data
            );
            quoted(out, w.result);
        }
        RecordKind::Tlb(t) => {
            start(out, "TlbEvent", rec);
            let cache = if t.walk_cache { "walkcache" } else { "tlb" };
            let op = if t.fill { "FILL" } else { "EVICT" };
            let _ = write!(out, " cache={cache} op={op} id=");
            quoted(out, t.id);
            out.push_str(" size=");
            quoted(out, t.size);
            let _ = write!(out, " vaddr={:x} ns={} rest=", t.vaddr, t.non_secure);
            quoted(out, t.rest);
        }
        RecordKind::EpTrace(e) => {
            start(out, "EpTraceEvent", rec);
            let _ = write!(
                out,
                " pc={:x} type={} ep_cycles={} addr={:x} size={} stall={}",
                e.pc,
                ep_type_name(e.record_type),
                e.ep_cycles,
                e.addr,
                e.ep_size,
                e.stall_cycles
            );
        }
        RecordKind::RegisterList(l) => {
            for e in l.entries {
                register_entry(out, rec.time, e);
            }
            return true;
        }
        RecordKind::Header(h) => {
            let kind = match h.kind {
                HeaderKind::Armulator => "armulator",
                HeaderKind::EpBanner => "ep-banner",
                HeaderKind::EpVersion(_) => "ep-version",
                HeaderKind::TarmacText => return false,
            };
            start(out, "HeaderEvent", rec);
            let _ = write!(out, " kind={kind}");
            if let HeaderKind::EpVersion(v) = h.kind {
                let _ = write!(out, " version={v}");
            }
            out.push_str(" text=");
            quoted(out, h.text);
        }
        _ => return false,
    }
    out.push('\n');
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{
        Branch, BusCycle, CacheLine, CacheMaintenance, EpRecord, Header, RegisterList, TableWalk,
        Tlb,
    };
    use crate::parse::{Dialect, ParseOptions, Parser, RegId};

    fn rec(kind: RecordKind<'_>) -> Record<'_> {
        Record {
            time: 1947,
            has_time: true,
            unit: None,
            cpu: Some(b"cpu0"),
            kind,
        }
    }

    fn render(r: &Record<'_>) -> Option<String> {
        let mut s = String::new();
        render_extra(r, &mut s).then_some(s)
    }

    #[test]
    fn cache_line() {
        let r = rec(RecordKind::Cache(CacheLine {
            cache: b"cpu.cpu0.l1icache",
            line: 0x96,
            operation: b"ALLOC",
            paddr: 0x152112c0,
            non_secure: false,
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* CacheEvent time=1947 cpu=cpu0 cache=\"cpu.cpu0.l1icache\" line=96 op=ALLOC paddr=152112c0 ns=false\n"
        );
    }

    #[test]
    fn maintenance_walk_and_tlb() {
        let r = rec(RecordKind::CacheMaintenance(CacheMaintenance {
            side: b"D",
            operation: b"CLEAN",
            scope: b"MVA_PoC",
            data: 0x1000,
            phys: Some(0x2000),
            rest: b"4K Normal",
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* CacheMaintenanceEvent time=1947 cpu=cpu0 side=\"D\" op=\"CLEAN\" scope=\"MVA_PoC\" data=1000 paddr=2000 rest=\"4K Normal\"\n"
        );
        let r = rec(RecordKind::TableWalk(TableWalk {
            update: false,
            side: b"ITLB",
            format: b"LPAE",
            stage: 1,
            level: 3,
            addr: 0x16390010,
            data: 0x152204c3,
            result: b"BLOCK ATTRIDX=0",
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* TableWalkEvent time=1947 cpu=cpu0 update=false side=\"ITLB\" format=\"LPAE\" stage=1 level=3 addr=16390010 data=152204c3 result=\"BLOCK ATTRIDX=0\"\n"
        );
        let r = rec(RecordKind::Tlb(Tlb {
            walk_cache: false,
            fill: true,
            id: b"cpu.cpu0.ITLB",
            size: b"64K",
            vaddr: 0x20000,
            non_secure: false,
            rest: b"nG asid=0:0x0015220000",
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* TlbEvent time=1947 cpu=cpu0 cache=tlb op=FILL id=\"cpu.cpu0.ITLB\" size=\"64K\" vaddr=20000 ns=false rest=\"nG asid=0:0x0015220000\"\n"
        );
    }

    #[test]
    fn branches() {
        let mut b = Branch {
            kind: BranchKind::Indirect,
            inst_id: Some(5),
            from: Some(0x8000),
            target: 0x100,
            iset: Some(ISet::Thumb),
            text: b"(5) 00008000 00000100 T",
        };
        let r = rec(RecordKind::Branch(b.clone()));
        assert_eq!(
            render(&r).unwrap(),
            "* BranchEvent time=1947 cpu=cpu0 kind=indirect inst_id=5 from=8000 target=100 iset=Thumb text=\"(5) 00008000 00000100 T\"\n"
        );
        b.kind = BranchKind::Es;
        assert_eq!(render(&rec(RecordKind::Branch(b))), None);
    }

    #[test]
    fn bus_cycles() {
        let r = Record {
            time: 0,
            has_time: false,
            unit: None,
            cpu: None,
            kind: RecordKind::Bus(BusCycle {
                type_word: b"MNR4O___",
                read: Some(true),
                size: Some(4),
                sequential: Some(false),
                opcode_fetch: true,
                locked: false,
                exclusive: false,
                privileged: false,
                secure: None,
                speculative: false,
                idle: false,
                coprocessor: false,
                inner_attrs: None,
                outer_attrs: None,
                master_id: None,
                addr: Some(0x8000),
                data: b"E28F8090",
                wait: false,
                abort: false,
                instruction_side: None,
            }),
        };
        assert_eq!(
            render(&r).unwrap(),
            "* BusEvent time=0 type=\"MNR4O___\" read=true size=4 sequential=false fetch=true locked=false exclusive=false privileged=false speculative=false idle=false coprocessor=false addr=8000 data=\"E28F8090\" wait=false abort=false\n"
        );
    }

    #[test]
    fn ep_and_headers() {
        let r = rec(RecordKind::EpTrace(EpRecord {
            cycle: 531,
            pc: 0xe0001440,
            record_type: EpRecordType::SploopBuffer,
            ep_cycles: 1,
            addr: 0xe0001440,
            ep_size: 4,
            stall_cycles: 0,
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* EpTraceEvent time=1947 cpu=cpu0 pc=e0001440 type=sploop-buffer ep_cycles=1 addr=e0001440 size=4 stall=0\n"
        );
        let h = |kind, text| {
            let mut r = rec(RecordKind::Header(Header { kind, text }));
            r.cpu = None;
            render(&r)
        };
        assert_eq!(
            h(HeaderKind::Armulator, &b"Source: \"Armul\""[..]).unwrap(),
            "* HeaderEvent time=1947 kind=armulator text=\"Source: \\\"Armul\\\"\"\n"
        );
        assert_eq!(
            h(HeaderKind::EpBanner, &b"#### PC\xc2\xa0 \xff"[..]).unwrap(),
            "* HeaderEvent time=1947 kind=ep-banner text=\"#### PC\u{a0} \u{fffd}\"\n"
        );
        assert_eq!(
            h(HeaderKind::EpVersion(3), &b"####Version:3"[..]).unwrap(),
            "* HeaderEvent time=1947 kind=ep-version version=3 text=\"####Version:3\"\n"
        );
        assert_eq!(h(HeaderKind::TarmacText, &b"Tarmac Text Rev 3t"[..]), None);
    }

    #[test]
    fn register_lists() {
        let mut p = Parser::new(ParseOptions::default(), Dialect::Armulator);
        let r = p.parse_line(b"R r14=20000060, spsr=10, cpsr=d3, r0=123");
        assert_eq!(
            render(&r).unwrap(),
            "* RegisterEvent time=0 reg=r14 offset=0 bytes=20:00:00:60\n\
             * RegisterEvent time=0 reg=psr offset=0 bytes=d3\n\
             * RegisterEvent time=0 reg=r0 offset=0 bytes=01:23\n"
        );
        let e = RegListEntry {
            name_start: 0,
            name_end: 0,
            reg: RegId::lookup(b"x0"),
            value: u64::MAX,
            digits: 200,
        };
        let entries = [e];
        let r = rec(RecordKind::RegisterList(RegisterList {
            line: b"",
            entries: &entries,
        }));
        assert_eq!(
            render(&r).unwrap(),
            "* RegisterEvent time=1947 reg=x0 offset=0 bytes=ff:ff:ff:ff:ff:ff:ff:ff\n"
        );
    }

    #[test]
    fn other_kinds_are_not_rendered_here() {
        assert_eq!(render(&rec(RecordKind::Blank)), None);
    }
}
