//! Fast Models record types beyond instructions, registers and data memory:
//! cache, cache maintenance, table walks, TLB, memory bus, program flow.
//! (Placeholder entry points; implemented in full by the extra-records work.)

use super::lex::Lexer;
use super::record::*;

fn todo<'a>(lx: &Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    Err(Unparsed {
        reason: "record type not yet supported",
        column: lx.pos,
    })
}

/// `CACHE ...` (after the type word); also `CACHE MAINTENANCE ...`.
pub(super) fn cache<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    todo(lx)
}

/// `TTW`/`TTU` (after the type word).
pub(super) fn table_walk<'a>(lx: &mut Lexer<'a>, update: bool) -> Result<RecordKind<'a>, Unparsed> {
    let _ = update;
    todo(lx)
}

/// `TLB`/`WALKCACHE` (after the type word).
pub(super) fn tlb<'a>(lx: &mut Lexer<'a>, walk_cache: bool) -> Result<RecordKind<'a>, Unparsed> {
    let _ = walk_cache;
    todo(lx)
}

/// Whether a type word is a Fast Models bus record (`BRW4DL_S`-style).
pub(super) fn is_bus_type(word: &[u8]) -> bool {
    let _ = word;
    false
}

/// Bus record; `lx` is positioned after the type word `type_word`.
pub(super) fn bus<'a>(lx: &mut Lexer<'a>, type_word: &'a [u8]) -> Result<RecordKind<'a>, Unparsed> {
    let _ = type_word;
    todo(lx)
}

/// `FD`/`FI`/`FR` (after the type word).
pub(super) fn flow<'a>(lx: &mut Lexer<'a>, kind: BranchKind) -> Result<RecordKind<'a>, Unparsed> {
    let _ = kind;
    todo(lx)
}

/// ES-style `BR (target) state` (after the type word).
pub(super) fn es_branch<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    todo(lx)
}
