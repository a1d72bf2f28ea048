//! Memory accesses (`MR`/`MW` and their flag letters), with physical
//! addresses, partial and diagrammed values (ES/LD/ST `LD`/`ST` lines).

use super::*;

/// Contiguous memory access: `M<rw><sz><attr>`, `R04`/`W08`, `MU<sz>_<op>`,
/// Cortex-M3/M4 `MNW4___D` forms.
pub(super) fn memory<'a>(
    lx: &mut Lexer<'a>,
    type_tok: Tok,
    big_endian: bool,
    scratch: &'a mut crate::parse::Scratch,
) -> Result<RecordKind<'a>, Fail> {
    let line = lx.line;
    let w = lx.text(type_tok);
    let mut atomic = None;
    let mut direction = None;
    let mut size: Option<u64> = None;
    let mut memory_order = false;
    let (mut exclusive, mut translated, mut locked) = (false, false, false);

    if let Some(rest) = w.strip_prefix(b"MU") {
        // `MU<sz>_<op>`: atomic update.
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        size = lex::parse_dec(&rest[..digits]);
        let op = rest[digits..].strip_prefix(b"_").unwrap_or(b"");
        atomic = Some(match op {
            b"ADD" => AtomicOp::Add,
            b"BIC" => AtomicOp::Bic,
            b"CAS" => AtomicOp::Cas,
            b"EOR" => AtomicOp::Eor,
            b"ORR" => AtomicOp::Orr,
            b"SMAX" => AtomicOp::Smax,
            b"SMIN" => AtomicOp::Smin,
            b"SWP" => AtomicOp::Swp,
            b"UMAX" => AtomicOp::Umax,
            b"UMIN" => AtomicOp::Umin,
            _ => return Err(fail("unknown atomic operation", type_tok.start)),
        });
        direction = Some(MemDirection::Update);
    } else if let Some(read) = fetch_word(w) {
        return fetch(lx, w, read, type_tok.start);
    } else {
        let mut i = 0;
        let n = w.len();
        while i < n {
            let c = w[i];
            i += 1;
            if direction.is_none() && (c == b'R' || c == b'W') {
                direction = Some(if c == b'R' {
                    MemDirection::Read
                } else {
                    MemDirection::Write
                });
            } else if size.is_none() && c.is_ascii_digit() {
                let start = i - 1;
                while i < n && w[i].is_ascii_digit() {
                    i += 1;
                }
                size = lex::parse_dec(&w[start..i]);
            } else if i == 8 && n == 8 && c == b'I' && side_word(w).is_some() {
                // An instruction-side transfer (emulators write ARMulator's
                // cycle word with the side appended): a bus cycle, so that
                // opcode fetches never reach the data memory the panes show.
                return side_cycle(lx, w, type_tok.start);
            } else if i == 8 && n == 8 && (c == b'I' || c == b'A') {
                // Cortex-M4 RTL: peripheral-bus accesses, and instruction-side
                // ones whose flags are not ARMulator's, have confusing
                // endianness; they are shown but not modelled.
                return Ok(RecordKind::Text(TextEvent {
                    type_word: w,
                    text: &line[type_tok.start..],
                }));
            } else if i == 8 && n == 8 && c == b'D' {
                memory_order = true;
            } else if i > 1 {
                match c {
                    b'X' => exclusive = true,
                    b'T' => translated = true,
                    b'L' => locked = true,
                    _ => {}
                }
            }
        }
    }
    let direction = direction.unwrap_or(MemDirection::Write);
    let size = match size {
        Some(s @ 1..=16) => s as usize,
        _ => return Err(fail("unsupported memory access size", type_tok.start)),
    };

    let mut tok = lx.next();
    if lx.is(tok, b"X") {
        exclusive = true;
        tok = lx.next();
    }
    let mut tag = None;
    if tok.is_punct(b'(') {
        // `(instruction address:serial)` tying the access to its instruction
        // (Cortex-R5 RTL).
        let a = lx.next();
        let colon = lx.next();
        let b = lx.next();
        let close = lx.next();
        let (Some(av), true, Some(bv), true) = (
            lex::parse_hex(lx.text(a)).filter(|_| a.is_word()),
            colon.is_punct(b':'),
            lex::parse_hex(lx.text(b)).filter(|_| b.is_word()),
            close.is_punct(b')'),
        ) else {
            return Err(fail(
                "expected (address:serial) before memory address",
                tok.start,
            ));
        };
        tag = Some((av, bv));
        tok = lx.next();
    }

    if lx.is(tok, b"TRANSFER") {
        let v = lx.next();
        let value = lex::parse_hex(lx.text(v))
            .filter(|_| v.is_word())
            .ok_or(fail("expected transferred value in hex", v.start))?;
        return Ok(RecordKind::CoprocTransfer(CoprocTransfer {
            type_word: w,
            read: direction == MemDirection::Read,
            size: size as u8,
            tag,
            value,
            value_text: lx.text(v),
        }));
    }

    if !tok.is_word() || !lex::all_hex(lx.text(tok)) {
        return Err(fail("expected memory address", tok.start));
    }
    let addr = lex::parse_hex(lx.text(tok)).ok_or(fail("memory address too large", tok.start))?;
    tok = lx.next();
    let mut phys = None;
    let mut phys2 = None;
    if tok.is_punct(b':') {
        tok = lx.next();
        phys = Some(
            hex_with_namespace(lx.text(tok))
                .filter(|_| tok.is_word())
                .ok_or(fail(
                    "expected physical memory address after ':'",
                    tok.start,
                ))?,
        );
        tok = lx.next();
        if tok.is_punct(b',') {
            tok = lx.next();
            phys2 = Some(
                hex_with_namespace(lx.text(tok))
                    .filter(|_| tok.is_word())
                    .ok_or(fail(
                        "expected second physical memory address after ','",
                        tok.start,
                    ))?,
            );
            tok = lx.next();
        }
    }
    if tok.is_punct(b'(') {
        let kw = lx.next();
        if lx.is(kw, b"ABORTED") {
            let close = lx.next();
            if !close.is_punct(b')') {
                return Err(fail("expected closing parenthesis", close.start));
            }
            return Ok(RecordKind::Text(TextEvent {
                type_word: lx.text(kw),
                text: &line[type_tok.start..],
            }));
        }
        return Err(fail("unrecognised parenthesised keyword", kw.start));
    }

    // The value: one token, or several (a 16-byte access written as two
    // 64-bit words), most significant first; `_` separators ignored; all `x`
    // means the data is not available.
    let value_start = tok.start;
    let mut chars = [0u8; 32];
    let mut nchars = 0usize;
    let mut unknown = false;
    let mut value_end;
    loop {
        if !tok.is_word() {
            return Err(fail("expected memory contents in hex", tok.start));
        }
        let t = lx.text(tok);
        if t.iter().all(|&b| b == b'x' || b == b'X' || b == b'_') && t.iter().any(|&b| b != b'_') {
            unknown = true;
        } else {
            for &c in t {
                if c == b'_' {
                    continue;
                }
                if !lex::is_hex(c) {
                    return Err(fail("expected memory contents in hex", tok.start));
                }
                if nchars == chars.len() {
                    return Err(fail("memory value longer than 16 bytes", tok.start));
                }
                chars[nchars] = c;
                nchars += 1;
            }
        }
        value_end = tok.end;
        if size <= 8 || nchars >= 2 * size || unknown {
            break;
        }
        let next = lx.peek();
        if !(next.is_word() && is_hex_with_separators(lx.text(next))) {
            break;
        }
        tok = lx.next();
    }

    let digits = (!unknown).then_some(&chars[..nchars]);
    let (bytes, accessed, known) = access_bytes(scratch, digits, size, memory_order || big_endian);
    let _ = value_end;
    Ok(RecordKind::Memory(MemoryAccess {
        direction,
        form: MemForm::Contiguous,
        type_word: w,
        addr,
        phys,
        phys2,
        size: size as u8,
        exclusive,
        translated,
        locked,
        atomic,
        memory_order,
        bytes,
        accessed,
        known,
        value_text: &line[value_start..value_end],
    }))
}

/// Whether `w` is an RTL logger's instruction-side transfer, `MR4_I`
/// (`M`, `R` or `W`, the size, `_I`), and whether it reads.
pub(crate) fn fetch_word(w: &[u8]) -> Option<bool> {
    let stem = w.strip_suffix(b"_I")?;
    let (&dir, size) = stem.strip_prefix(b"M")?.split_first()?;
    let read = match dir {
        b'R' => true,
        b'W' => false,
        _ => return None,
    };
    (!size.is_empty() && size.iter().all(u8::is_ascii_digit)).then_some(read)
}

/// `MR4_I <addr> <data>`: an instruction fetch, kept apart from the data
/// accesses as a bus cycle (the reference tools show it as a memory read:
/// `dump` does too). The data is written in the bus's order, of any width.
fn fetch<'a>(
    lx: &mut Lexer<'a>,
    w: &'a [u8],
    read: bool,
    start: usize,
) -> Result<RecordKind<'a>, Fail> {
    let digits = &w[2..w.len() - 2];
    let size = lex::parse_dec(digits)
        .and_then(|s| u8::try_from(s).ok())
        .filter(|s| (1..=16).contains(s))
        .ok_or(fail("unsupported memory access size", start))?;
    let a = lx.next();
    let addr = match hex_of(lx, a) {
        Some(v) => v,
        None if is_dec_or_hex_word(lx, a) => return Err(fail("memory address too large", a.start)),
        None => return Err(fail("expected memory address", a.start)),
    };
    let data = lx.next();
    let text = lx.text(data);
    if !data.is_word()
        || !(is_hex_with_separators(text) || text.iter().all(|&b| b == b'x' || b == b'X'))
    {
        return Err(fail("expected memory contents in hex", data.start));
    }
    Ok(RecordKind::Bus(BusCycle {
        type_word: w,
        read: Some(read),
        size: Some(size),
        sequential: None,
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
        addr: Some(addr),
        data: text,
        wait: false,
        abort: false,
        instruction_side: Some(true),
    }))
}

/// The side a cycle word of length 8 names in its last letter (`MNR4O__I`,
/// `BNW4___D`): ARMulator's cycle word before it, `I` or `D` after.
pub(super) fn side_word(w: &[u8]) -> Option<(crate::parse::armulator::CycleType, bool)> {
    let (&side, cycle) = w.split_last().filter(|_| w.len() == 8)?;
    let instruction = match side {
        b'I' => true,
        b'D' => false,
        _ => return None,
    };
    let c = crate::parse::armulator::cycle_type(cycle)?;
    // Idle and coprocessor cycles carry no address, so no side either.
    (c.read.is_some() && c.size.is_some()).then_some((c, instruction))
}

/// `MNR4O__I <addr> <data>` and the bus form `BNR4___I`: a transfer kept
/// with its flags as a bus cycle. `start` is the type word's column.
pub(super) fn side_cycle<'a>(
    lx: &mut Lexer<'a>,
    w: &'a [u8],
    start: usize,
) -> Result<RecordKind<'a>, Fail> {
    let Some((c, instruction_side)) = side_word(w) else {
        return Err(fail("unknown flags in memory cycle type", start));
    };
    let a = lx.next();
    let addr = match hex_of(lx, a) {
        Some(v) => v,
        None if is_dec_or_hex_word(lx, a) => return Err(fail("memory address too large", a.start)),
        None => return Err(fail("expected memory address", a.start)),
    };
    let first = lx.next();
    let mut t = first;
    let mut end = first.start;
    while !t.is_eol() {
        let s = lx.text(t);
        let unknown = s.iter().all(|&b| b == b'x' || b == b'X');
        if !t.is_word() || !(unknown || is_hex_with_separators(s)) {
            return Err(fail("expected memory contents in hex", t.start));
        }
        end = t.end;
        t = lx.next();
    }
    if first.is_eol() {
        return Err(fail("expected memory contents in hex", first.start));
    }
    Ok(RecordKind::Bus(BusCycle {
        type_word: w,
        read: c.read,
        size: c.size,
        sequential: c.sequential,
        opcode_fetch: c.opcode_fetch,
        locked: c.locked,
        exclusive: false,
        privileged: false,
        secure: None,
        speculative: c.speculative,
        idle: false,
        coprocessor: false,
        inner_attrs: None,
        outer_attrs: None,
        master_id: None,
        addr: Some(addr),
        data: &lx.line[first.start..end],
        wait: false,
        abort: false,
        instruction_side: Some(instruction_side),
    }))
}

/// Fills the scratch buffers for a contiguous `size`-byte access, in address
/// order, from its value: hex `digits`, most significant first (`None` when
/// the trace shows the data as unknown). Shorter values are zero-extended;
/// longer ones keep their low `size` bytes (as the reference index does).
/// `as_written` keeps the digits' byte order (memory-order data, or a
/// big-endian CPU's logical value).
fn access_bytes<'s>(
    scratch: &'s mut crate::parse::Scratch,
    digits: Option<&[u8]>,
    size: usize,
    as_written: bool,
) -> (&'s [u8], &'s [u8], &'s [u8]) {
    let mut logical = [0u8; 16];
    if let Some(chars) = digits {
        let mut pos = chars.len();
        let mut k = 0;
        while pos > 0 && k < size {
            let lo = lex::hex_val(chars[pos - 1]);
            let hi = if pos >= 2 {
                lex::hex_val(chars[pos - 2])
            } else {
                0
            };
            logical[size - 1 - k] = (hi << 4) | lo;
            pos = pos.saturating_sub(2);
            k += 1;
        }
    }
    let crate::parse::Scratch {
        bytes,
        known,
        accessed,
        ..
    } = scratch;
    for i in 0..size {
        bytes[i] = if as_written {
            logical[i]
        } else {
            logical[size - 1 - i]
        };
        known[i] = u8::from(digits.is_some());
        accessed[i] = 1;
    }
    (&bytes[..size], &accessed[..size], &known[..size])
}

/// Hex digits with optional `_` separators, at least one digit.
fn is_hex_with_separators(s: &[u8]) -> bool {
    s.iter().all(|&b| lex::is_hex(b) || b == b'_') && s.iter().any(|&b| b != b'_')
}

/// LD/ST 16-byte diagram. `lx` is positioned after the type word (or at the
/// address of a continuation line). Returns the record and the continuation
/// state for the next line.
pub(super) fn diagram<'a>(
    lx: &mut Lexer<'a>,
    store: bool,
    big_endian: bool,
    scratch: &'a mut crate::parse::Scratch,
    type_word: &'a [u8],
) -> (RecordKind<'a>, Option<Continuation>) {
    let addr_tok = lx.next();
    let cont = Some(Continuation {
        store,
        column: addr_tok.start,
    });
    match diagram_body(lx, addr_tok, store, big_endian, scratch, type_word) {
        Ok(k) => (k, cont),
        Err(u) => (RecordKind::Unparsed(u), cont),
    }
}

fn diagram_body<'a>(
    lx: &mut Lexer<'a>,
    addr_tok: Tok,
    store: bool,
    big_endian: bool,
    scratch: &'a mut crate::parse::Scratch,
    type_word: &'a [u8],
) -> Result<RecordKind<'a>, Fail> {
    let _ = big_endian; // diagrams are little-endian pictures of memory whatever the CPU
    if !addr_tok.is_word() || !lex::all_hex(lx.text(addr_tok)) {
        return Err(fail("expected load/store memory address", addr_tok.start));
    }
    let addr = lex::parse_hex(lx.text(addr_tok))
        .ok_or(fail("memory address too large", addr_tok.start))?;
    let bytes = &mut scratch.bytes;
    let known = &mut scratch.known;
    let accessed = &mut scratch.accessed;
    // Diagram position k (0 = leftmost) shows the byte at addr + 15 - k.
    let mut k = 0usize;
    while k < 16 {
        let t = lx.next();
        if !t.is_word() {
            return Err(fail("expected a word of data bytes, '.' and '#'", t.start));
        }
        let s = lx.text(t);
        if !s.len().is_multiple_of(2) {
            return Err(fail(
                "expected data word to cover a whole number of bytes",
                t.start,
            ));
        }
        for (j, pair) in s.chunks_exact(2).enumerate() {
            if k >= 16 {
                return Err(fail("expected exactly 16 data bytes", t.start + 2 * j));
            }
            let at = 15 - k;
            match pair {
                b".." => {
                    accessed[at] = 0;
                    known[at] = 0;
                    bytes[at] = 0;
                }
                b"##" => {
                    accessed[at] = 1;
                    known[at] = 0;
                    bytes[at] = 0;
                }
                [h, l] if lex::is_hex(*h) && lex::is_hex(*l) => {
                    accessed[at] = 1;
                    known[at] = 1;
                    bytes[at] = (lex::hex_val(*h) << 4) | lex::hex_val(*l);
                }
                _ => {
                    return Err(fail(
                        "expected each byte to be only one of '.', '#' and hex",
                        t.start + 2 * j,
                    ))
                }
            }
            k += 1;
        }
    }
    Ok(RecordKind::Memory(MemoryAccess {
        direction: if store {
            MemDirection::Write
        } else {
            MemDirection::Read
        },
        form: MemForm::Diagram,
        type_word,
        addr,
        phys: None,
        phys2: None,
        size: 16,
        exclusive: false,
        translated: false,
        locked: false,
        atomic: None,
        memory_order: false,
        bytes: &bytes[..16],
        accessed: &accessed[..16],
        known: &known[..16],
        value_text: b"",
    }))
}
