//! A Tarmac trace of any size made on the fly, for the export's memory
//! test (`tests/export_memory.rs`) and benchmark (`benches/export.rs`):
//! an AArch64 loop whose every round makes three calls (two nested at
//! EL0, one at EL1 inside an SVC), an exception and two changes of
//! exception level, its times and instruction counts counting on.
//! Numbers are zero-padded, so every round is the same number of bytes
//! and any offset is read without making the rounds before it.

use tarmac_lens_core::TraceSource;

/// One round: an instruction and the lines after it.
const ROUND: [(&str, &[&str]); 13] = [
    (
        "00000ffc 9100001f O EL0t_n : MOV      sp,x0",
        &["R SP_EL0 0000000000100000"],
    ),
    (
        "00001000 94000010 O EL0t_n : BL       {pc}+0x40 ; 0x1040",
        &["R X30 0000000000001004"],
    ),
    (
        "00001040 d10043ff O EL0t_n : SUB      sp,sp,#0x10",
        &["R SP_EL0 00000000000FFFF0"],
    ),
    (
        "00001044 94000010 O EL0t_n : BL       {pc}+0x40 ; 0x1084",
        &["R X30 0000000000001048"],
    ),
    ("00001084 d503201f O EL0t_n : NOP", &[]),
    ("00001088 d65f03c0 O EL0t_n : RET", &[]),
    (
        "00001048 910043ff O EL0t_n : ADD      sp,sp,#0x10",
        &["R SP_EL0 0000000000100000"],
    ),
    ("0000104c d65f03c0 O EL0t_n : RET", &[]),
    (
        "00001004 d4000001 O EL0t_n : SVC      #0",
        &["E 00001008 00000015 CoreEvent_LOWER_A64_SYNC"],
    ),
    (
        "00000400 94000004 O EL1h_n : BL       {pc}+0x10 ; 0x410",
        &["R X30 0000000000000404"],
    ),
    ("00000410 d65f03c0 O EL1h_n : RET", &[]),
    ("00000404 d69f03e0 O EL1h_n : ERET", &[]),
    (
        "00001008 17fffffd O EL0t_n : B        {pc}-0xc ; 0xffc",
        &[],
    ),
];

/// Instructions (and calls: 3) per round.
pub const ROUND_INSTRUCTIONS: u64 = ROUND.len() as u64;

/// `rounds` rounds of the loop.
pub struct Synthetic {
    rounds: u64,
    round_len: u64,
    /// The round last made, and its text.
    made: Option<(u64, Vec<u8>)>,
}

impl Synthetic {
    pub fn new(rounds: u64) -> Synthetic {
        let round_len = round(0).len() as u64;
        Synthetic {
            rounds,
            round_len,
            made: None,
        }
    }

    /// About `bytes` of trace (whole rounds, at least one).
    pub fn of_size(bytes: u64) -> Synthetic {
        let one = round(0).len() as u64;
        Synthetic::new((bytes / one).max(1))
    }

    pub fn rounds(&self) -> u64 {
        self.rounds
    }
}

/// The text of round `k`.
fn round(k: u64) -> Vec<u8> {
    let mut out = String::new();
    for (i, (insn, after)) in ROUND.iter().enumerate() {
        let t = k * ROUND_INSTRUCTIONS + i as u64 + 1;
        out.push_str(&format!("{t:016} clk IT ({t:016}) {insn}\n"));
        for line in *after {
            out.push_str(&format!("{t:016} clk {line}\n"));
        }
    }
    out.into_bytes()
}

impl TraceSource for Synthetic {
    fn len(&self) -> u64 {
        self.rounds * self.round_len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let at = offset + done as u64;
            if at >= self.len() {
                break;
            }
            let k = at / self.round_len;
            if self.made.as_ref().is_none_or(|(m, _)| *m != k) {
                self.made = Some((k, round(k)));
            }
            let text = &self.made.as_ref().map_or(&[][..], |(_, t)| t);
            let from = (at - k * self.round_len) as usize;
            let n = (text.len() - from).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&text[from..from + n]);
            done += n;
        }
        Ok(done)
    }
}
