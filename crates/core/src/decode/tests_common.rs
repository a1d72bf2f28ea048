//! The table tests' row format: registers as the core names them, plus
//! `pc` for [`Operands::reads_pc`]/[`Operands::writes_pc`] and `[mem]` for
//! a load (among reads) or a store (among writes).

use super::{operands, Operands};
use crate::parse::{ISet, RegId};

fn names(regs: &[RegId], pc: bool, mem: bool) -> Vec<String> {
    let mut out: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
    if pc {
        out.push("pc".into());
    }
    if mem {
        out.push("[mem]".into());
    }
    out.sort();
    out
}

/// `(reads, writes)` of decoded operands, each sorted and space-separated.
pub(super) fn describe(o: &Operands) -> (String, String) {
    (
        names(o.reads(), o.reads_pc, o.loads).join(" "),
        names(o.writes(), o.writes_pc, o.stores).join(" "),
    )
}

fn sorted(list: &str) -> String {
    let mut v: Vec<&str> = list.split_whitespace().collect();
    v.sort_unstable();
    v.join(" ")
}

/// Checks each row `(encoding, assembly, reads, writes)`, reporting every
/// mismatch at once.
pub(super) fn check(iset: ISet, width: u8, rows: &[(u32, &str, &str, &str)]) {
    let mut bad = Vec::new();
    for &(encoding, asm, reads, writes) in rows {
        match operands(iset, encoding, width) {
            Ok(o) => {
                let got = describe(&o);
                if got != (sorted(reads), sorted(writes)) {
                    bad.push(format!(
                        "{encoding:08x} {asm}: reads [{}] writes [{}], expected [{}] [{}]",
                        got.0,
                        got.1,
                        sorted(reads),
                        sorted(writes)
                    ));
                }
            }
            Err(e) => bad.push(format!("{encoding:08x} {asm}: {e}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} rows wrong:\n{}",
        bad.len(),
        rows.len(),
        bad.join("\n")
    );
}

/// Prints rows for encodings listed one a line (`hex<TAB>assembly`) in the
/// file named by `TL_DECODE_DRAFT`, to draft a table (run with
/// `--ignored --nocapture`).
#[test]
#[ignore]
fn draft() {
    let Ok(path) = std::env::var("TL_DECODE_DRAFT") else {
        return;
    };
    let iset = match std::env::var("TL_DECODE_ISET").as_deref() {
        Ok("arm") => ISet::Arm,
        Ok("thumb") => ISet::Thumb,
        _ => ISet::A64,
    };
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let Some((hex, asm)) = line.split_once('\t') else {
            continue;
        };
        let hex: String = hex.split_whitespace().collect();
        let width = (hex.len() / 2) as u8;
        let enc = u32::from_str_radix(&hex, 16).unwrap();
        let asm = asm.trim();
        match operands(iset, enc, width) {
            Ok(o) => {
                let (r, w) = describe(&o);
                println!("(0x{enc:08x}, \"{asm}\", \"{r}\", \"{w}\"),");
            }
            Err(e) => println!("// ERR 0x{enc:08x} {asm}: {}", e.reason),
        }
    }
}

/// Arbitrary encodings decode or fail with [`super::Undecoded`], never
/// panic; the width must fit the instruction set.
#[test]
fn arbitrary_encodings_never_panic() {
    const ROUNDS: usize = 100_000;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u32
    };
    let mut decoded = 0;
    for _ in 0..ROUNDS {
        let w = next();
        for (iset, width) in [(ISet::A64, 4), (ISet::Arm, 4), (ISet::Thumb, 4)] {
            decoded += usize::from(operands(iset, w, width).is_ok());
        }
        decoded += usize::from(operands(ISet::Thumb, w & 0xffff, 2).is_ok());
    }
    assert!(decoded > 200_000, "only {decoded} of 400000 decoded");
    let err = |iset, w, width| operands(iset, w, width).unwrap_err().reason;
    assert_eq!(
        err(ISet::Thumb, 0xf000, 2),
        "the first half of a 32-bit Thumb encoding"
    );
    assert_eq!(
        err(ISet::Thumb, 0x4770, 4),
        "a 16-bit Thumb encoding given as 32 bits"
    );
    assert_eq!(err(ISet::Thumb, 0x1_4770, 2), "wider than 16 bits");
    assert_eq!(
        err(ISet::A64, 0xd65f03c0, 2),
        "encoding width does not fit the instruction set"
    );
    assert_eq!(err(ISet::ThumbEE, 0x4770, 2), "ThumbEE is not decoded");
    // SVE, which yaxpeax-arm 0.5 does not decode: `add z0.s, z1.s, z2.s`.
    assert!(operands(ISet::A64, 0x04a20020, 4).is_err());
    // Advanced SIMD in A32: `vadd.i32 q0, q1, q2`.
    assert!(operands(ISet::Arm, 0xf2220844, 4).is_err());
}

/// Sweeps 75 million encodings (every top 12 bits and low byte, a few
/// middles) and all 16-bit Thumb ones for panics; about 30 s unoptimized,
/// so run by hand (`--ignored`).
#[test]
#[ignore]
fn sweep() {
    for hi in 0..4096u32 {
        for lo in 0..256u32 {
            for mid in [0u32, 0xfff00, 0x5a500, 0xa5a00, 0xf0f00, 0x0f000] {
                let w = hi << 20 | mid | lo;
                for (iset, width) in [(ISet::A64, 4), (ISet::Arm, 4), (ISet::Thumb, 4)] {
                    let r = std::panic::catch_unwind(|| operands(iset, w, width).is_ok());
                    if r.is_err() {
                        println!("PANIC {iset:?} {w:08x}");
                    }
                }
            }
        }
    }
    for h in 0..65536u32 {
        let _ = operands(ISet::Thumb, h, 2);
    }
}
