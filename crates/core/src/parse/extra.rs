//! Fast Models record types beyond instructions, registers and data memory:
//! cache contents and maintenance, table walks, TLB, memory bus, program flow
//! and the ES-style `BR` line.
//!
//! The dispatch in `tarmac.rs` has already consumed the timestamp, unit, cpu
//! and type word; every function here starts with the lexer just after the
//! type word. Several of these records contain free-form words (`Inner=...`,
//! `CLEAN+INVAL`), so fields are mostly read as whitespace-delimited runs
//! ([`field`]) rather than lexer tokens, which would split them.

use super::lex::{self, Lexer, Tok, TokKind};
use super::record::*;

fn err(reason: &'static str, column: usize) -> Unparsed {
    Unparsed { reason, column }
}

/// Next whitespace-delimited run of bytes, as a word token; `None` at the end
/// of the line.
pub(super) fn field(lx: &mut Lexer<'_>) -> Option<Tok> {
    let line = lx.line;
    let mut p = lx.pos.min(line.len());
    while p < line.len() && lex::is_space(line[p]) {
        p += 1;
    }
    if p == line.len() {
        lx.pos = p;
        return None;
    }
    let start = p;
    while p < line.len() && !lex::is_space(line[p]) {
        p += 1;
    }
    lx.pos = p;
    Some(Tok {
        kind: TokKind::Word,
        start,
        end: p,
    })
}

/// Like [`field`], but a missing field is an error.
fn need<'a>(lx: &mut Lexer<'a>, reason: &'static str) -> Result<(Tok, &'a [u8]), Unparsed> {
    match field(lx) {
        Some(t) => Ok((t, lx.text(t))),
        None => Err(err(reason, lx.pos)),
    }
}

/// Strips a security suffix from a physical address: `_NS` means Non-secure;
/// nothing or `_S` (written by some producers) means Secure.
fn split_security(s: &[u8]) -> (&[u8], bool) {
    if let Some(a) = s.strip_suffix(b"_NS") {
        (a, true)
    } else if let Some(a) = s.strip_suffix(b"_S") {
        (a, false)
    } else {
        (s, false)
    }
}

/// An address in the common address definition, `<vaddr>{:<paddr><psecurity>}`,
/// as one field. Returns (vaddr, paddr, paddr is Non-secure).
pub(super) fn common_address(s: &[u8]) -> Option<(u64, Option<u64>, bool)> {
    match s.iter().position(|&b| b == b':') {
        None => {
            // A bare vaddr carries no security suffix in the definition, but
            // tolerate one rather than reject the line.
            let (v, ns) = split_security(s);
            Some((lex::parse_hex_0x(v)?, None, ns))
        }
        Some(i) => {
            let v = lex::parse_hex_0x(s.get(..i)?)?;
            let (pa, ns) = split_security(s.get(i + 1..)?);
            Some((v, Some(lex::parse_hex_0x(pa)?), ns))
        }
    }
}

/// `CACHE <id> LINE <line> <op> 0x<paddr>[_NS]`, or
/// `CACHE MAINTENANCE <side> <operation> <scope> <data> {<pagesize> <memtype>}`.
pub(super) fn cache<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    let (_, id) = need(lx, "CACHE record without a cache identifier")?;
    if id == b"MAINTENANCE" {
        return cache_maintenance(lx);
    }
    let (t, word) = need(lx, "CACHE record without LINE")?;
    if word != b"LINE" {
        return Err(err(
            "CACHE record: expected LINE after the cache identifier",
            t.start,
        ));
    }
    let (t, line_text) = need(lx, "CACHE record without a line number")?;
    let line = lex::parse_hex(line_text)
        .ok_or_else(|| err("CACHE record: line number is not hexadecimal", t.start))?;
    let (_, operation) = need(lx, "CACHE record without an operation")?;
    let (t, addr_text) = need(lx, "CACHE record without a physical address")?;
    let (addr_text, non_secure) = split_security(addr_text);
    let paddr = lex::parse_hex_0x(addr_text)
        .ok_or_else(|| err("CACHE record: bad physical address", t.start))?;
    if let Some(t) = field(lx) {
        return Err(err(
            "CACHE record: unexpected text after the address",
            t.start,
        ));
    }
    Ok(RecordKind::Cache(CacheLine {
        cache: id,
        line,
        operation,
        paddr,
        non_secure,
    }))
}

fn cache_maintenance<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    // The descriptive fields are one word each in the format description
    // but several words in real traces ("Instruction and Data cache
    // Invalidate All to PoU 00000000"), so the data field is found as the
    // first address-shaped word and the words before it are split by
    // meaning: the side ends at "cache", the scope starts at "to"/"by".
    let line = lx.line;
    let mut words: [(usize, usize); 16] = [(0, 0); 16];
    let mut n = 0;
    let mut data = None;
    while let Some(t) = field(lx) {
        let text = &line[t.start..t.end];
        if n > 0 && text.len() >= 4 {
            if let Some((value, phys, _)) = common_address(text) {
                data = Some((value, phys));
                break;
            }
        }
        if n == words.len() {
            return Err(err(
                "CACHE MAINTENANCE: too many words before the data",
                t.start,
            ));
        }
        words[n] = (t.start, t.end);
        n += 1;
    }
    let Some((data, phys)) = data else {
        return Err(err(
            "CACHE MAINTENANCE: no address or data field",
            line.len(),
        ));
    };
    let span = |ws: &[(usize, usize)]| -> &'a [u8] {
        match (ws.first(), ws.last()) {
            (Some(a), Some(b)) => &line[a.0..b.1],
            _ => b"",
        }
    };
    let words = &words[..n];
    let (side, operation, scope) = if n == 3 {
        (span(&words[..1]), span(&words[1..2]), span(&words[2..]))
    } else {
        let side_end = words
            .iter()
            .position(|w| line[w.0..w.1].eq_ignore_ascii_case(b"cache"))
            .map_or(1.min(n), |i| i + 1);
        let rest = &words[side_end..];
        let scope_at = rest
            .iter()
            .position(|w| {
                let t = &line[w.0..w.1];
                t.eq_ignore_ascii_case(b"to") || t.eq_ignore_ascii_case(b"by")
            })
            .unwrap_or(rest.len());
        (
            span(&words[..side_end]),
            span(&rest[..scope_at]),
            span(&rest[scope_at..]),
        )
    };
    Ok(RecordKind::CacheMaintenance(CacheMaintenance {
        side,
        operation,
        scope,
        data,
        phys,
        rest: lex::trim(lx.rest()),
    }))
}

/// `<side> <format> <stage>:<level> <address> <data> : <result>`.
pub(super) fn table_walk<'a>(lx: &mut Lexer<'a>, update: bool) -> Result<RecordKind<'a>, Unparsed> {
    let (_, side) = need(lx, "table walk without a side")?;
    let (_, format) = need(lx, "table walk without a format")?;
    let (t, sl) = need(lx, "table walk without stage:level")?;
    let bad_sl = || err("table walk: expected <stage>:<level> in decimal", t.start);
    let colon = sl.iter().position(|&b| b == b':').ok_or_else(bad_sl)?;
    let small = |s: Option<&[u8]>| -> Option<u8> { u8::try_from(lex::parse_dec(s?)?).ok() };
    let stage = small(sl.get(..colon)).ok_or_else(bad_sl)?;
    let level = small(sl.get(colon + 1..)).ok_or_else(bad_sl)?;
    let (t, a) = need(lx, "table walk without an address")?;
    let addr = lex::parse_hex_0x(a).ok_or_else(|| err("table walk: bad address", t.start))?;
    let (t, d) = need(lx, "table walk without descriptor data")?;
    let data =
        lex::parse_hex_0x(d).ok_or_else(|| err("table walk: bad descriptor data", t.start))?;
    let (t, sep) = need(lx, "table walk without ': <result>'")?;
    if sep != b":" {
        return Err(err("table walk: expected ':' before the result", t.start));
    }
    let result = lex::trim(lx.rest());
    if result.is_empty() {
        return Err(err("table walk without a result", lx.line.len()));
    }
    Ok(RecordKind::TableWalk(TableWalk {
        update,
        side,
        format,
        stage,
        level,
        addr,
        data,
        result,
    }))
}

/// `FILL <id> <size> <virtualregime>:<paddr> ...` or `EVICT <id> <size> <virtualregime>`.
///
/// `non_secure` is the `_NS` of the virtual base (the translation regime);
/// the physical address and its own security suffix stay in `rest`.
pub(super) fn tlb<'a>(lx: &mut Lexer<'a>, walk_cache: bool) -> Result<RecordKind<'a>, Unparsed> {
    let (t, op) = need(lx, "TLB record without FILL or EVICT")?;
    let fill = match op {
        b"FILL" => true,
        b"EVICT" => false,
        _ => return Err(err("TLB record: expected FILL or EVICT", t.start)),
    };
    let (_, id) = need(lx, "TLB record without an identifier")?;
    let (_, size) = need(lx, "TLB record without a size")?;
    let (t, va) = need(lx, "TLB record without a virtual address")?;
    // The regime continues after the base (`0x00020000, nG asid=...`), so a
    // comma may follow the address directly.
    let va = va.strip_suffix(b",").unwrap_or(va);
    let (va, non_secure) = split_security(va);
    if !(va.starts_with(b"0x") || va.starts_with(b"0X")) {
        return Err(err(
            "TLB record: virtual address must start with 0x",
            t.start,
        ));
    }
    let vaddr =
        lex::parse_hex_0x(va).ok_or_else(|| err("TLB record: bad virtual address", t.start))?;
    Ok(RecordKind::Tlb(Tlb {
        walk_cache,
        fill,
        id,
        size,
        vaddr,
        non_secure,
        rest: lex::trim(lx.rest()),
    }))
}

/// Whether a type word is a Fast Models bus record: `B<rw><sz><fd><lk><p><s>`,
/// e.g. `BR4D__S`, `BW16ILPN`. Exact shape only, so no other type word matches.
pub(super) fn is_bus_type(word: &[u8]) -> bool {
    bus_type(word).is_some()
}

struct BusType {
    read: bool,
    size: u8,
    fetch: bool,
    locked: bool,
    exclusive: bool,
    privileged: bool,
    secure: bool,
}

fn bus_type(word: &[u8]) -> Option<BusType> {
    let rest = word.strip_prefix(b"B")?;
    let (&rw, rest) = rest.split_first()?;
    let read = match rw {
        b'R' => true,
        b'W' => false,
        _ => return None,
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let size = u8::try_from(lex::parse_dec(rest.get(..digits)?)?).ok()?;
    let flags = rest.get(digits..)?;
    let &[fd, lk, p, s] = flags else {
        return None;
    };
    let fetch = match fd {
        b'I' => true,
        b'D' => false,
        _ => return None,
    };
    let (locked, exclusive) = match lk {
        b'L' => (true, false),
        b'X' => (false, true),
        b'_' => (false, false),
        _ => return None,
    };
    let privileged = match p {
        b'P' => true,
        b'_' => false,
        _ => return None,
    };
    let secure = match s {
        b'S' => true,
        b'N' => false,
        _ => return None,
    };
    Some(BusType {
        read,
        size,
        fetch,
        locked,
        exclusive,
        privileged,
        secure,
    })
}

/// Cache attribute field `I<wrcbs>`/`O<wrcbs>`; returns the five flags.
fn wrcbs<'a>(s: &'a [u8], prefixes: &[u8]) -> Option<&'a [u8]> {
    let (&first, attrs) = s.split_first()?;
    if !prefixes.contains(&first) || attrs.len() != 5 {
        return None;
    }
    let ok = attrs
        .iter()
        .zip(b"WRCBS")
        .all(|(&a, &letter)| a == letter || a == b'_');
    ok.then_some(attrs)
}

/// `I<wrcbs> O<wrcbs> <master_id> <addr> <data>` after a bus type word.
pub(super) fn bus<'a>(lx: &mut Lexer<'a>, type_word: &'a [u8]) -> Result<RecordKind<'a>, Unparsed> {
    let Some(ty) = bus_type(type_word) else {
        return Err(err("not a bus record type word", lx.pos));
    };
    let (t, inner) = need(lx, "bus record without inner attributes")?;
    // One edition of the Fast Models guide prints the inner field as `l<wrcbs>`.
    let inner =
        wrcbs(inner, b"Il").ok_or_else(|| err("bus record: bad I<wrcbs> field", t.start))?;
    let (t, outer) = need(lx, "bus record without outer attributes")?;
    let outer = wrcbs(outer, b"O").ok_or_else(|| err("bus record: bad O<wrcbs> field", t.start))?;
    let (t, m) = need(lx, "bus record without a master id")?;
    let master = lex::parse_hex_0x(m).ok_or_else(|| err("bus record: bad master id", t.start))?;
    let (t, a) = need(lx, "bus record without an address")?;
    let addr = lex::parse_hex_0x(a).ok_or_else(|| err("bus record: bad address", t.start))?;
    let data = lex::trim(lx.rest());
    if data.is_empty() {
        return Err(err("bus record without data", lx.line.len()));
    }
    Ok(RecordKind::Bus(BusCycle {
        type_word,
        read: Some(ty.read),
        size: Some(ty.size),
        sequential: None,
        opcode_fetch: ty.fetch,
        locked: ty.locked,
        exclusive: ty.exclusive,
        privileged: ty.privileged,
        secure: Some(ty.secure),
        speculative: false,
        idle: false,
        coprocessor: false,
        inner_attrs: Some(inner),
        outer_attrs: Some(outer),
        master_id: Some(master),
        addr: Some(addr),
        data,
        wait: false,
        abort: false,
        instruction_side: None,
    }))
}

fn iset_letter(s: &[u8]) -> Option<ISet> {
    match s {
        b"A" => Some(ISet::Arm),
        b"T" => Some(ISet::Thumb),
        b"X" => Some(ISet::ThumbEE),
        b"O" => Some(ISet::A64),
        _ => None,
    }
}

/// `(<inst_id>) <addr> <targ_addr> [A|T|X|O]` after `FD`/`FI`/`FR`.
pub(super) fn flow<'a>(lx: &mut Lexer<'a>, kind: BranchKind) -> Result<RecordKind<'a>, Unparsed> {
    let text = lex::trim(lx.rest());
    let t = lx.next();
    if !t.is_punct(b'(') {
        return Err(err("program-flow record: expected (<inst_id>)", t.start));
    }
    let t = lx.next();
    let inst_id = if t.is_word() {
        lex::parse_dec(lx.text(t))
    } else {
        None
    }
    .ok_or_else(|| err("program-flow record: bad instruction count", t.start))?;
    let t = lx.next();
    if !t.is_punct(b')') {
        return Err(err("program-flow record: expected ')'", t.start));
    }
    let (t, a) = need(lx, "program-flow record without a source address")?;
    let (from, _, _) =
        common_address(a).ok_or_else(|| err("program-flow record: bad source address", t.start))?;
    let (t, a) = need(lx, "program-flow record without a target address")?;
    let (target, _, _) =
        common_address(a).ok_or_else(|| err("program-flow record: bad target address", t.start))?;
    // Older guides list the state as optional in practice; accept it missing.
    let iset = match field(lx) {
        None => None,
        Some(t) => Some(
            iset_letter(lx.text(t))
                .ok_or_else(|| err("program-flow record: state must be A, T, X or O", t.start))?,
        ),
    };
    if let Some(t) = field(lx) {
        return Err(err(
            "program-flow record: unexpected text after the state",
            t.start,
        ));
    }
    Ok(RecordKind::Branch(Branch {
        kind,
        inst_id: Some(inst_id),
        from: Some(from),
        target,
        iset,
        text,
    }))
}

/// `(<target>) <state>` after an ES-style `BR`.
pub(super) fn es_branch<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    let text = lex::trim(lx.rest());
    let t = lx.next();
    if !t.is_punct(b'(') {
        return Err(err("BR: expected (<target>)", t.start));
    }
    let t = lx.next();
    let target = if t.is_word() {
        lex::parse_hex(lx.text(t))
    } else {
        None
    }
    .ok_or_else(|| err("BR: bad target address", t.start))?;
    let t = lx.next();
    if !t.is_punct(b')') {
        return Err(err("BR: expected ')' after the target", t.start));
    }
    let (t, s) = need(lx, "BR without an instruction-set state")?;
    let iset = iset_letter(s).ok_or_else(|| err("BR: state must be A, T, X or O", t.start))?;
    if let Some(t) = field(lx) {
        return Err(err("BR: unexpected text after the state", t.start));
    }
    Ok(RecordKind::Branch(Branch {
        kind: BranchKind::Es,
        inst_id: None,
        from: None,
        target,
        iset: Some(iset),
        text,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lexer positioned just after the first token equal to `word`, as the
    /// dispatch in `tarmac.rs` leaves it.
    fn after<'a>(line: &'a [u8], word: &[u8]) -> Lexer<'a> {
        let mut lx = Lexer::new(line);
        loop {
            let t = lx.next();
            assert!(!t.is_eol(), "type word not found");
            if lx.text(t) == word {
                return lx;
            }
        }
    }

    fn unparsed(r: Result<RecordKind<'_>, Unparsed>) -> Unparsed {
        match r {
            Err(u) => u,
            Ok(k) => panic!("expected Unparsed, got {k:?}"),
        }
    }

    #[test]
    fn cache_line() {
        let line = b"1947 clk cpu0 CACHE cpu.cpu0.l1icache LINE 0096 ALLOC 0x0000152112c0";
        let Ok(RecordKind::Cache(c)) = cache(&mut after(line, b"CACHE")) else {
            panic!()
        };
        assert_eq!(c.cache, b"cpu.cpu0.l1icache");
        assert_eq!(c.line, 0x96);
        assert_eq!(c.operation, b"ALLOC");
        assert_eq!(c.paddr, 0x152112c0);
        assert!(!c.non_secure);

        let line = b"5 clk cpu0 CACHE Validation_X.cpu.l2_cache LINE 0c40 DIRTY 0x000016393100_NS";
        let Ok(RecordKind::Cache(c)) = cache(&mut after(line, b"CACHE")) else {
            panic!()
        };
        assert_eq!(c.cache, b"Validation_X.cpu.l2_cache");
        assert_eq!((c.line, c.paddr, c.non_secure), (0xc40, 0x16393100, true));
    }

    #[test]
    fn cache_maintenance_forms() {
        let line = b"7 clk cpu0 CACHE MAINTENANCE D CLEAN+INVAL MVA_PoC 00012340:000015212340_NS 4K Normal";
        let Ok(RecordKind::CacheMaintenance(m)) = cache(&mut after(line, b"CACHE")) else {
            panic!()
        };
        assert_eq!(m.side, b"D");
        assert_eq!(m.operation, b"CLEAN+INVAL");
        assert_eq!(m.scope, b"MVA_PoC");
        assert_eq!(m.data, 0x12340);
        assert_eq!(m.phys, Some(0x15212340));
        assert_eq!(m.rest, b"4K Normal");

        let line = b"7 clk cpu0 CACHE MAINTENANCE I INVAL SetWay 80000040";
        let Ok(RecordKind::CacheMaintenance(m)) = cache(&mut after(line, b"CACHE")) else {
            panic!()
        };
        assert_eq!((m.data, m.phys, m.rest), (0x80000040, None, &b""[..]));
    }

    #[test]
    fn cache_bad_inputs() {
        for line in [
            &b"1 clk CACHE"[..],
            b"1 clk CACHE l1 LINE",
            b"1 clk CACHE l1 LINES 0096 ALLOC 0x10",
            b"1 clk CACHE l1 LINE zz ALLOC 0x10",
            b"1 clk CACHE l1 LINE 0096 ALLOC",
            b"1 clk CACHE l1 LINE 0096 ALLOC 0x1ffffffffffffffff",
            b"1 clk CACHE l1 LINE 0096 ALLOC 0x10 extra",
            b"1 clk CACHE MAINTENANCE D CLEAN",
            b"1 clk CACHE MAINTENANCE D CLEAN MVA :::",
        ] {
            let u = unparsed(cache(&mut after(line, b"CACHE")));
            assert!(u.column <= line.len());
        }
    }

    #[test]
    fn table_walk_example() {
        let line = b"1951 clk cpu0 TTW ITLB LPAE 1:3 000016390010 00000000152204c3 : BLOCK ATTRIDX=0 NS=0 AP=3 SH=0";
        let Ok(RecordKind::TableWalk(w)) = table_walk(&mut after(line, b"TTW"), false) else {
            panic!()
        };
        assert!(!w.update);
        assert_eq!((w.side, w.format), (&b"ITLB"[..], &b"LPAE"[..]));
        assert_eq!((w.stage, w.level), (1, 3));
        assert_eq!((w.addr, w.data), (0x16390010, 0x152204c3));
        assert_eq!(w.result, b"BLOCK ATTRIDX=0 NS=0 AP=3 SH=0");

        let line = b"9 clk cpu0 TTU DTLB VMSA 2:1 00001000 00000000 : FAULT";
        let Ok(RecordKind::TableWalk(w)) = table_walk(&mut after(line, b"TTU"), true) else {
            panic!()
        };
        assert!(w.update);
        assert_eq!((w.stage, w.level, w.result), (2, 1, &b"FAULT"[..]));

        for line in [
            &b"1 clk TTW ITLB LPAE 1:3 0010 04c3 :"[..],
            b"1 clk TTW ITLB LPAE 1:3 0010 04c3 BLOCK",
            b"1 clk TTW ITLB LPAE 13 0010 04c3 : FAULT",
            b"1 clk TTW ITLB LPAE 1:999 0010 04c3 : FAULT",
            b"1 clk TTW ITLB LPAE :3 0010 04c3 : FAULT",
            b"1 clk TTW ITLB LPAE 1:3 00g0 04c3 : FAULT",
            b"1 clk TTW ITLB",
        ] {
            unparsed(table_walk(&mut after(line, b"TTW"), false));
        }
    }

    #[test]
    fn tlb_fill_and_evict() {
        let line = b"1951 clk cpu0 TLB FILL cpu.cpu0.ITLB 64K 0x00020000, nG asid=0:0x0015220000 Normal NonShareable xn=0 pxn=0 ContiguousHint =0";
        let Ok(RecordKind::Tlb(t)) = tlb(&mut after(line, b"TLB"), false) else {
            panic!()
        };
        assert!(t.fill && !t.walk_cache && !t.non_secure);
        assert_eq!((t.id, t.size), (&b"cpu.cpu0.ITLB"[..], &b"64K"[..]));
        assert_eq!(t.vaddr, 0x20000);
        assert_eq!(
            t.rest,
            b"nG asid=0:0x0015220000 Normal NonShareable xn=0 pxn=0 ContiguousHint =0"
        );

        let line = b"3 clk cpu0 WALKCACHE EVICT cpu.cpu0.WC 4K 0x06200000_NS EL1_n vmid=1";
        let Ok(RecordKind::Tlb(t)) = tlb(&mut after(line, b"WALKCACHE"), true) else {
            panic!()
        };
        assert!(!t.fill && t.walk_cache && t.non_secure);
        assert_eq!((t.vaddr, t.rest), (0x6200000, &b"EL1_n vmid=1"[..]));

        for line in [
            &b"1 clk TLB FLUSH x 4K 0x0"[..],
            b"1 clk TLB FILL x 4K",
            b"1 clk TLB FILL x 4K 00020000,",
            b"1 clk TLB FILL x 4K 0x,",
            b"1 clk TLB",
        ] {
            unparsed(tlb(&mut after(line, b"TLB"), false));
        }
    }

    #[test]
    fn bus_type_words() {
        assert!(is_bus_type(b"BR4D__S"));
        assert!(is_bus_type(b"BW16ILPN"));
        assert!(is_bus_type(b"BR8DX_N"));
        for w in [
            &b"BR"[..],
            b"B",
            b"BRW",
            b"BR4",
            b"BR4D_S",
            b"BR4D__SX",
            b"BNR4O___",
            b"BSR8O___",
            b"BR4Q__S",
            b"BR9999D__S",
            b"BR999D__S",
            b"BLX",
            b"B\xc2\xa0",
        ] {
            assert!(!is_bus_type(w), "{:?}", String::from_utf8_lossy(w));
        }
    }

    #[test]
    fn bus_record() {
        let line = b"100 clk cpu0 BR8DX_S I__CB_ OW_CBS 3 00001000 78563412_00000000";
        let mut lx = after(line, b"BR8DX_S");
        let Ok(RecordKind::Bus(b)) = bus(&mut lx, b"BR8DX_S") else {
            panic!()
        };
        assert_eq!(
            (b.read, b.size, b.secure),
            (Some(true), Some(8), Some(true))
        );
        assert!(b.exclusive && !b.locked && !b.privileged && !b.opcode_fetch);
        assert_eq!(b.inner_attrs, Some(&b"__CB_"[..]));
        assert_eq!(b.outer_attrs, Some(&b"W_CBS"[..]));
        assert_eq!((b.master_id, b.addr), (Some(3), Some(0x1000)));
        assert_eq!(b.data, b"78563412_00000000");

        let line = b"100 clk BW4ILPN l_____ O_____ 0x10 0x20 01020304";
        let Ok(RecordKind::Bus(b)) = bus(&mut after(line, b"BW4ILPN"), b"BW4ILPN") else {
            panic!()
        };
        assert_eq!((b.read, b.secure), (Some(false), Some(false)));
        assert!(b.opcode_fetch && b.locked && b.privileged);

        for line in [
            &b"1 clk BR4D__S I_____ O_____ 3 1000"[..],
            b"1 clk BR4D__S I____ O_____ 3 1000 00",
            b"1 clk BR4D__S I_____ OWRCBX 3 1000 00",
            b"1 clk BR4D__S I_____ O_____ zz 1000 00",
            b"1 clk BR4D__S I_____ O_____ 3 1000000000000000000 00",
            b"1 clk BR4D__S",
        ] {
            unparsed(bus(&mut after(line, b"BR4D__S"), b"BR4D__S"));
        }
        unparsed(bus(&mut Lexer::new(b"x"), b"BNR4O___"));
    }

    #[test]
    fn program_flow() {
        let line = b"10 clk cpu0 FD (1927) 000112cc:0000152112cc_NS 0002305c:00001522305c O";
        let Ok(RecordKind::Branch(b)) = flow(&mut after(line, b"FD"), BranchKind::Direct) else {
            panic!()
        };
        assert_eq!(b.kind, BranchKind::Direct);
        assert_eq!(b.inst_id, Some(1927));
        assert_eq!((b.from, b.target), (Some(0x112cc), 0x2305c));
        assert_eq!(b.iset, Some(ISet::A64));
        assert_eq!(b.text, &line[15..]);

        let line = b"10 ns FR (5) 00008000 00000100 T";
        let Ok(RecordKind::Branch(b)) = flow(&mut after(line, b"FR"), BranchKind::ExceptionReturn)
        else {
            panic!()
        };
        assert_eq!(
            (b.from, b.target, b.iset),
            (Some(0x8000), 0x100, Some(ISet::Thumb))
        );

        let line = b"10 ns FI (5) 00008000 00000100";
        let Ok(RecordKind::Branch(b)) = flow(&mut after(line, b"FI"), BranchKind::Indirect) else {
            panic!()
        };
        assert_eq!(b.iset, None);

        for line in [
            &b"1 ns FD 5 00008000 00000100 A"[..],
            b"1 ns FD (x) 00008000 00000100 A",
            b"1 ns FD (5 00008000 00000100 A",
            b"1 ns FD (5) 00008000",
            b"1 ns FD (5) 00008000 00000100 Q",
            b"1 ns FD (5) 00008000 00000100 A more",
            b"1 ns FD (99999999999999999999) 0 0 A",
            b"1 ns FD (",
        ] {
            unparsed(flow(&mut after(line, b"FD"), BranchKind::Direct));
        }
    }

    #[test]
    fn es_branch_lines() {
        let line = b"                    BR (00000080) A";
        let Ok(RecordKind::Branch(b)) = es_branch(&mut after(line, b"BR")) else {
            panic!()
        };
        assert_eq!(b.kind, BranchKind::Es);
        assert_eq!((b.target, b.iset), (0x80, Some(ISet::Arm)));
        assert_eq!(b.text, b"(00000080) A");

        let line = b"BR (0000000000010000) O  ";
        let Ok(RecordKind::Branch(b)) = es_branch(&mut after(line, b"BR")) else {
            panic!()
        };
        assert_eq!((b.target, b.iset), (0x10000, Some(ISet::A64)));
        assert_eq!(b.text, b"(0000000000010000) O");

        for line in [
            &b"BR"[..],
            b"BR (",
            b"BR (00000080",
            b"BR (00000080)",
            b"BR 00000080 A",
            b"BR (10000000000000000) A",
            b"BR (00000080) Z",
            b"BR (00000080) A A",
        ] {
            unparsed(es_branch(&mut after(line, b"BR")));
        }
    }

    #[test]
    fn common_addresses() {
        assert_eq!(common_address(b"1000"), Some((0x1000, None, false)));
        assert_eq!(
            common_address(b"1000:2000_NS"),
            Some((0x1000, Some(0x2000), true))
        );
        assert_eq!(
            common_address(b"1000:2000_S"),
            Some((0x1000, Some(0x2000), false))
        );
        assert_eq!(common_address(b"1000:"), None);
        assert_eq!(common_address(b":"), None);
        assert_eq!(common_address(b""), None);
    }

    #[test]
    fn garbage_never_panics() {
        let junk: [&[u8]; 6] = [
            b"",
            b"\xff\xfe\x00",
            b"(((((",
            b": : : :",
            b"0x 0x 0x 0x 0x 0x",
            b"\xc2\xa0 ( ) : , =",
        ];
        for j in junk {
            let _ = cache(&mut Lexer::new(j));
            let _ = table_walk(&mut Lexer::new(j), true);
            let _ = tlb(&mut Lexer::new(j), true);
            let _ = bus(&mut Lexer::new(j), b"BR4D__S");
            let _ = flow(&mut Lexer::new(j), BranchKind::Direct);
            let _ = es_branch(&mut Lexer::new(j));
            let _ = is_bus_type(j);
            let mut lx = Lexer::new(j);
            lx.pos = 1000;
            let _ = cache(&mut lx);
        }
    }
}
