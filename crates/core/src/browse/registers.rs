//! Register panels as the browser shows them: hex text with `??` for
//! unknown bytes, floating-point values in decimal, psr flags spelled out,
//! and which registers are marked: those the position's instruction wrote
//! (as the reference tools' browser and TRACE32 mark them), or those that
//! differ from a compared state.

use super::protocol::{RegCell, RegPanel, RegistersReply};
use crate::parse::{RegClass, RegId};
use crate::state::regfile::{self, RegFile};
pub(crate) use crate::state::regfile::{is_aarch64, lookup};

fn hex_text(rf: &RegFile, off: usize, size: usize) -> (String, bool) {
    let mut s = String::with_capacity(size * 2);
    let mut all = true;
    for i in (0..size).rev() {
        if rf.known[off + i] != 0 {
            s.push_str(&format!("{:02x}", rf.bytes[off + i]));
        } else {
            s.push_str("??");
            all = false;
        }
    }
    (s, all)
}

fn differs(a: &RegFile, b: &RegFile, off: usize, size: usize) -> bool {
    (off..off + size)
        .any(|i| a.known[i] != b.known[i] || (a.known[i] != 0 && a.bytes[i] != b.bytes[i]))
}

/// Which registers a panel marks.
#[derive(Clone, Copy)]
pub(crate) enum Marks<'a> {
    None,
    /// Those with a byte known here: the bytes the position's lines wrote
    /// ([`crate::index::Index::registers_written`]).
    Written(&'a RegFile),
    /// Those that differ from this state.
    Differs(&'a RegFile),
}

fn cell(name: String, rf: &RegFile, marks: Marks<'_>, off: usize, size: usize) -> RegCell {
    let (text, known) = hex_text(rf, off, size);
    RegCell {
        name,
        text,
        known,
        changed: match marks {
            Marks::None => false,
            Marks::Written(w) => w.known[off..off + size].iter().any(|&k| k != 0),
            Marks::Differs(c) => differs(rf, c, off, size),
        },
        decoded: None,
    }
}

fn psr_flags(v: u64) -> String {
    let flag = |bit: u32, c: char| {
        if v >> bit & 1 == 1 {
            c
        } else {
            c.to_ascii_lowercase()
        }
    };
    format!(
        "{}{}{}{}",
        flag(31, 'N'),
        flag(30, 'Z'),
        flag(29, 'C'),
        flag(28, 'V')
    )
}

/// Shortest decimal that reads back as the same float, as people expect.
fn float_text(bits: u64, double: bool) -> String {
    if double {
        let v = f64::from_bits(bits);
        format!("{}", v)
    } else {
        let v = f32::from_bits(bits as u32);
        format!("{}", v)
    }
}

/// Builds every panel for the state `rf` (after a node whose instruction
/// address is `pc`), marking registers as `cmp` says.
pub(crate) fn panels(
    rf: &RegFile,
    cmp: Marks<'_>,
    node: u64,
    pc: Option<u64>,
    aarch64_hint: bool,
) -> RegistersReply {
    let aarch64 = is_aarch64(rf, aarch64_hint);
    let mut core = Vec::new();
    if aarch64 {
        for i in 0..31u8 {
            let (o, s) = regfile::location(RegId::new(RegClass::X, i), true);
            core.push(cell(format!("x{}", i), rf, cmp, o, s));
        }
        core.push(cell("sp".into(), rf, cmp, regfile::XSP, 8));
    } else {
        for i in 0..13u8 {
            let (o, s) = regfile::location(RegId::new(RegClass::R, i), false);
            core.push(cell(format!("r{}", i), rf, cmp, o, s));
        }
        let (o, s) = regfile::location(RegId::new(RegClass::R, 13), false);
        core.push(cell("sp".into(), rf, cmp, o, s));
        let (o, s) = regfile::location(RegId::new(RegClass::R, 14), false);
        core.push(cell("lr".into(), rf, cmp, o, s));
    }
    core.push(RegCell {
        name: "pc".into(),
        text: pc.map_or_else(
            || "?".repeat(if aarch64 { 16 } else { 8 }),
            |p| {
                let p = p & !1;
                if aarch64 {
                    format!("{:016x}", p)
                } else {
                    format!("{:08x}", p)
                }
            },
        ),
        known: pc.is_some(),
        changed: false,
        decoded: None,
    });
    let mut psr = cell("psr".into(), rf, cmp, regfile::PSR, 4);
    psr.decoded = rf.value(regfile::PSR, 4).map(psr_flags);
    core.push(psr);
    for (name, off) in [
        ("fpsr", regfile::FPSR),
        ("fpcr", regfile::FPCR),
        ("fpscr", regfile::FPSCR),
    ] {
        if rf.known[off..off + 4].iter().any(|&k| k != 0) {
            core.push(cell(name.into(), rf, cmp, off, 4));
        }
    }

    let mut single = Vec::new();
    let mut double = Vec::new();
    for i in 0..32u8 {
        let (o, s) = regfile::location(RegId::new(RegClass::S, i), aarch64);
        let mut c = cell(format!("s{}", i), rf, cmp, o, s);
        c.decoded = rf.value(o, 4).map(|v| float_text(v, false));
        single.push(c);
        let (o, s) = regfile::location(RegId::new(RegClass::D, i), aarch64);
        let mut c = cell(format!("d{}", i), rf, cmp, o, s);
        c.decoded = rf.value(o, 8).map(|v| float_text(v, true));
        double.push(c);
    }
    let mut neon = Vec::new();
    for i in 0..32u8 {
        let (o, s) = regfile::location(RegId::new(RegClass::Q, i), aarch64);
        neon.push(cell(format!("q{}", i), rf, cmp, o, s));
    }
    let mut mve = Vec::new();
    for i in 0..8u8 {
        let (o, s) = regfile::location(RegId::new(RegClass::Q, i), false);
        mve.push(cell(format!("q{}", i), rf, cmp, o, s));
    }
    mve.push(cell("vpr".into(), rf, cmp, regfile::VPR, 4));
    // SVE: show as many bytes as any z register ever had written (the
    // vector length the trace used), at least the 16 NEON bytes.
    let mut vl = 16;
    for i in 0..32 {
        let base = regfile::Z_BASE + i * regfile::Z_STRIDE;
        if let Some(last) = rf.known[base..base + regfile::Z_STRIDE]
            .iter()
            .rposition(|&k| k != 0)
        {
            vl = vl.max((last + 16) & !15);
        }
    }
    let mut sve = Vec::new();
    for i in 0..32u8 {
        let (o, _) = regfile::location(RegId::new(RegClass::Z, i), true);
        sve.push(cell(format!("z{}", i), rf, cmp, o, vl));
    }
    for i in 0..16u8 {
        let (o, _) = regfile::location(RegId::new(RegClass::P, i), true);
        sve.push(cell(format!("p{}", i), rf, cmp, o, vl / 8));
    }
    let panel = |kind: &str, title: &str, cells| RegPanel {
        kind: kind.into(),
        title: title.into(),
        cells,
    };
    let mut panels = vec![
        panel("core", "Core registers", core),
        panel("single", "Single precision", single),
        panel("double", "Double precision", double),
        panel("neon", "NEON", neon),
        panel("mve", "MVE", mve),
        panel("sve", "SVE", sve),
    ];
    let changed = changed_cells(&panels, vl > 16);
    panels.push(panel("changed", "Changed registers", changed));
    RegistersReply {
        node,
        aarch64,
        panels,
    }
}

/// The marked registers of every panel, once each: MVE's `q` registers are
/// NEON's, and SVE's `z` registers only add to NEON's `q` when the trace
/// used vectors wider than 128 bits (otherwise each NEON write would be
/// listed twice). Kept out of `panels`: inlined, it made that function's
/// optimising compile land in the middle of a drop (`tier_up.test.mjs`).
#[inline(never)]
fn changed_cells(panels: &[RegPanel], sve_wide: bool) -> Vec<RegCell> {
    let mut out: Vec<RegCell> = Vec::new();
    for panel in panels {
        for c in &panel.cells {
            let listed = || out.iter().any(|o| o.name == c.name);
            if c.changed
                && (sve_wide || panel.kind != "sve" || c.name.starts_with('p'))
                && !listed()
            {
                out.push(c.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_bytes_and_changes() {
        let mut a = RegFile::default();
        a.write(regfile::IFLAGS, &[1, 0, 0, 0], &[1; 4]);
        a.write(8, &[0x34, 0x12], &[1, 1]);
        let mut b = a.clone();
        b.write(8, &[0x35], &[1]);
        let r = panels(&b, Marks::Differs(&a), 5, Some(0x1001), false);
        let core = &r.panels[0];
        let x1 = core.cells.iter().find(|c| c.name == "x1").unwrap();
        assert_eq!(x1.text, "????????????1235");
        assert!(x1.changed && !x1.known);
        let x0 = core.cells.iter().find(|c| c.name == "x0").unwrap();
        assert!(!x0.changed);
        let pc = core.cells.iter().find(|c| c.name == "pc").unwrap();
        assert_eq!(pc.text, "0000000000001000");
        assert!(r.aarch64);
        assert_eq!(psr_flags(0x6000_0000), "nZCv");
        assert_eq!(float_text(0x3f80_0000, false), "1");
        assert_eq!(lookup("SP", true), Some(RegId::new(RegClass::Xsp, 0)));
        assert_eq!(lookup("x3", true), Some(RegId::new(RegClass::X, 3)));
        let changed = r.panels.iter().find(|p| p.kind == "changed").unwrap();
        let names: Vec<&str> = changed.cells.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["x1"]);
    }

    #[test]
    fn the_changed_panel_lists_a_vector_write_once_per_name() {
        let mut a = RegFile::default();
        a.write(regfile::IFLAGS, &[1, 0, 0, 0], &[1; 4]);
        let mut w = RegFile::default();
        let (o, _) = regfile::location(RegId::new(RegClass::Q, 2), true);
        w.write(o, &[7; 16], &[1; 16]);
        let (o, _) = regfile::location(RegId::new(RegClass::X, 0), true);
        w.write(o, &[1; 8], &[1; 8]);
        a.write(o, &[1; 8], &[1; 8]);
        let r = panels(&a, Marks::Written(&w), 5, None, true);
        let changed = r.panels.iter().find(|p| p.kind == "changed").unwrap();
        let names: Vec<&str> = changed.cells.iter().map(|c| c.name.as_str()).collect();
        // q2 holds s2 and d2 too; without wide SVE vectors z2 is q2 again.
        assert_eq!(names, ["x0", "s2", "d2", "q2"]);
    }

    #[test]
    fn written_registers_are_marked_whatever_their_value() {
        let mut rf = RegFile::default();
        rf.write(regfile::IFLAGS, &[1, 0, 0, 0], &[1; 4]);
        rf.write(0, &[7; 8], &[1; 8]);
        rf.write(16, &[9; 8], &[1; 8]);
        // The node wrote x2 (with the value it already had) and w0's low
        // byte: both are marked, x1 is not.
        let mut written = RegFile::default();
        written.write(16, &[9; 8], &[1; 8]);
        written.write(0, &[7], &[1]);
        let r = panels(&rf, Marks::Written(&written), 5, None, true);
        let marked: Vec<&str> = r.panels[0]
            .cells
            .iter()
            .filter(|c| c.changed)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(marked, ["x0", "x2"]);
        let r = panels(&rf, Marks::None, 5, None, true);
        assert!(r.panels.iter().all(|p| p.cells.iter().all(|c| !c.changed)));
    }
}
