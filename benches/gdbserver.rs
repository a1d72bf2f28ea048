//! `gdbserver`'s budgets on a big trace, measured with a raw GDB remote
//! protocol client (no gdb in the loop): start-up with the index file
//! present, `stepi`/`reverse-stepi` round trips at random positions (the
//! step alone, and with the register and memory reads gdb makes at each
//! stop), and `reverse-continue` from the end to breakpoints and
//! watchpoints near and far. Measures, never asserts.
//!
//! `TL_GDB_TRACE=/tmp/mixed-1g.tarmac cargo bench --bench gdbserver`
//! (the trace made by `tracegen.py -p mixed -a aarch64 -s fastmodel -t 1G
//! -o /tmp/mixed-1g.tarmac`, its ELF beside it as `/tmp/mixed-1g.elf`,
//! or `TL_GDB_ELF`). The index is built once and reused.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tarmac-lens");

struct Client {
    s: TcpStream,
    acks: bool,
}

impl Client {
    fn connect(port: u16) -> Client {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nodelay(true).unwrap();
        let mut c = Client { s, acks: true };
        c.ask("qSupported:swbreak+;hwbreak+;vContSupported+");
        c.ask("QStartNoAckMode");
        c.acks = false;
        c
    }

    /// Sends a packet, returns the reply's body (console output `O`
    /// packets of a monitor command are skipped).
    fn ask(&mut self, body: &str) -> String {
        let sum = body.bytes().fold(0u8, |a, b| a.wrapping_add(b));
        self.s
            .write_all(format!("${body}#{sum:02x}").as_bytes())
            .unwrap();
        loop {
            let r = self.read_packet();
            if r.starts_with('O') && r != "OK" {
                continue;
            }
            return r;
        }
    }

    fn read_packet(&mut self) -> String {
        let mut byte = [0u8; 1];
        loop {
            self.s.read_exact(&mut byte).unwrap();
            if byte[0] == b'$' {
                break;
            }
        }
        let mut body = Vec::new();
        loop {
            self.s.read_exact(&mut byte).unwrap();
            if byte[0] == b'#' {
                break;
            }
            body.push(byte[0]);
        }
        let mut sum = [0u8; 2];
        self.s.read_exact(&mut sum).unwrap();
        if self.acks {
            self.s.write_all(b"+").unwrap();
        }
        // Run-length encoding: `c*N` is c repeated N - 29 more times.
        let mut out = Vec::with_capacity(body.len());
        let mut i = 0;
        while i < body.len() {
            if body[i] == b'*' && i + 1 < body.len() {
                let last = *out.last().unwrap_or(&b'0');
                for _ in 0..body[i + 1].saturating_sub(29) {
                    out.push(last);
                }
                i += 2;
            } else {
                out.push(body[i]);
                i += 1;
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    fn monitor(&mut self, cmd: &str) -> String {
        let hex: String = cmd.bytes().map(|b| format!("{b:02x}")).collect();
        self.ask(&format!("qRcmd,{hex}"))
    }
}

struct Server {
    child: Child,
    port: u16,
    /// Standard error's lines, as they come.
    stderr: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(trace: &Path, elf: Option<&Path>) -> (Server, Duration) {
    let t0 = Instant::now();
    let mut cmd = Command::new(BIN);
    cmd.arg("gdbserver").arg(trace).arg("-v");
    if let Some(e) = elf {
        cmd.arg("--image").arg(e);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    let listening = t0.elapsed();
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    (
        Server {
            child,
            port,
            stderr: rx,
        },
        listening,
    )
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

fn symbol(elf: &Path, name: &str) -> Option<u64> {
    let data = std::fs::read(elf).ok()?;
    tarmac_lens_core::SymbolTable::from_elf_bytes(&data, 0)
        .ok()?
        .address_of(name)
}

fn main() {
    let Some(trace) = std::env::var_os("TL_GDB_TRACE").map(PathBuf::from) else {
        eprintln!("gdbserver bench: set TL_GDB_TRACE to a big trace (see the top of benches/gdbserver.rs); skipped");
        return;
    };
    let elf = std::env::var_os("TL_GDB_ELF")
        .map(PathBuf::from)
        .or_else(|| Some(trace.with_extension("elf")).filter(|p| p.exists()));
    // The index, built once.
    let out = Command::new(BIN).arg("index").arg(&trace).output().unwrap();
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let lines = figures["lines"].as_u64().unwrap_or(1_000_000);
    println!(
        "trace {} ({} lines), index {}",
        trace.display(),
        lines,
        if figures["reused"].as_bool() == Some(true) {
            "reused"
        } else {
            "built"
        }
    );

    // Start-up: to the listening line, and to the answers gdb's
    // `target remote` waits for.
    let mut listen = Vec::new();
    let mut answered = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        let (server, to_listen) = start(&trace, elf.as_deref());
        let mut c = Client::connect(server.port);
        c.ask("?");
        c.ask("g");
        answered.push(ms(t0.elapsed()));
        listen.push(ms(to_listen));
    }
    println!(
        "start-up (index present): listening {:.0}-{:.0} ms; first stop and registers answered {:.0}-{:.0} ms",
        listen.iter().copied().fold(f64::MAX, f64::min),
        listen.iter().copied().fold(0.0, f64::max),
        answered.iter().copied().fold(f64::MAX, f64::min),
        answered.iter().copied().fold(0.0, f64::max),
    );

    let (server, _) = start(&trace, elf.as_deref());
    let t0 = Instant::now();
    let mut c = Client::connect(server.port);
    c.ask("?");

    // Breakpoint before the address table is ready: the index's filters.
    let far_pc = elf
        .as_deref()
        .and_then(|e| symbol(e, "_start"))
        .map(|a| a + 4);
    c.ask("vCont;c");
    if let Some(pc) = far_pc {
        c.ask(&format!("Z0,{pc:x},4"));
        let t = Instant::now();
        let r = c.ask("bc");
        println!(
            "reverse-continue from the end to a breakpoint run once at the start, before the address table: {:.0} ms ({})",
            ms(t.elapsed()),
            &r[..r.len().min(40)]
        );
        c.ask(&format!("z0,{pc:x},4"));
    }
    // Wait for the address table.
    let ready = loop {
        match server.stderr.recv_timeout(Duration::from_secs(600)) {
            Ok(l) if l.contains("breakpoint table ready") => break l,
            Ok(_) => {}
            Err(_) => panic!("no breakpoint table"),
        }
    };
    println!(
        "address table: {} ({:.1} s after start)",
        ready.trim(),
        t0.elapsed().as_secs_f64()
    );

    // stepi / reverse-stepi at random positions.
    let mut rng = Lcg(42);
    let (mut step, mut step_g, mut step_all) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..300 {
        let line = 1 + rng.below(lines - 1);
        c.monitor(&format!("line {line}"));
        let forward = i % 2 == 0;
        let packet = if forward { "vCont;s:1" } else { "bs" };
        let t = Instant::now();
        let r = c.ask(packet);
        step.push(ms(t.elapsed()));
        assert!(r.starts_with('T') || r.starts_with('S'), "{r}");
        // As gdb does at a stop: registers, the instruction, the stack.
        let packet2 = if forward { "bs" } else { "vCont;s:1" };
        let t = Instant::now();
        c.ask(packet2);
        let g = c.ask("g");
        step_g.push(ms(t.elapsed()));
        let reg = |i: usize| {
            let h = &g[i * 16..i * 16 + 16];
            let b: Vec<u8> = (0..8)
                .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap_or(0))
                .collect();
            u64::from_le_bytes(b.try_into().unwrap())
        };
        let (sp, pc) = (reg(31), reg(32));
        let t = Instant::now();
        c.ask(packet);
        c.ask("g");
        c.ask(&format!("m{pc:x},4"));
        c.ask(&format!("m{sp:x},40"));
        step_all.push(ms(t.elapsed()));
    }
    for (name, v) in [
        ("step packet alone", &mut step),
        ("step + g", &mut step_g),
        ("step + g + m pc + m sp", &mut step_all),
    ] {
        println!(
            "stepi/reverse-stepi round trip, {name}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} at random lines)",
            percentile(v, 0.5),
            percentile(v, 0.99),
            percentile(v, 1.0),
            v.len()
        );
    }

    // reverse-continue from the end.
    let mut to_end = || {
        let t = Instant::now();
        let r = c.ask("vCont;c");
        (ms(t.elapsed()), r)
    };
    let (t_end, r) = to_end();
    println!(
        "continue to the end (nothing set): {t_end:.0} ms ({})",
        &r[..r.len().min(30)]
    );
    let Some(elf) = elf else {
        return;
    };
    for (what, name, off) in [
        ("run once, at the start", "_start", 4),
        ("once per iteration", "prog_recursion", 0),
        ("hot", "swap", 0),
        ("never run", "tg_alloc_reset", 0),
    ] {
        let Some(a) = symbol(&elf, name).map(|a| a + off) else {
            continue;
        };
        c.ask("vCont;c");
        c.ask(&format!("Z0,{a:x},4"));
        let t = Instant::now();
        let r = c.ask("bc");
        println!(
            "reverse-continue from the end to a breakpoint {what} ({name}+{off}): {:.1} ms ({})",
            ms(t.elapsed()),
            &r[..r.len().min(30)]
        );
        c.ask(&format!("z0,{a:x},4"));
    }
    for (what, name, off) in [
        ("written once, early", "crc_table_ready", 0),
        ("written every iteration", "qs_array", 8),
        ("read, never written", "sha_k", 0),
        ("written at the end", "tg_result", 0),
    ] {
        let Some(a) = symbol(&elf, name).map(|a| a + off) else {
            continue;
        };
        c.ask("vCont;c");
        c.ask(&format!("Z2,{a:x},4"));
        let t = Instant::now();
        let r = c.ask("bc");
        println!(
            "reverse-continue from the end to a write watchpoint, {what} ({name}+{off}): {:.1} ms ({})",
            ms(t.elapsed()),
            &r[..r.len().min(40)]
        );
        c.ask(&format!("z2,{a:x},4"));
    }
    // Stack words at random positions: the nearest earlier write.
    let mut near = Vec::new();
    for _ in 0..20 {
        let line = 1 + rng.below(lines - 1);
        c.monitor(&format!("line {line}"));
        let g = c.ask("g");
        let h = &g[31 * 16..32 * 16];
        let b: Vec<u8> = (0..8)
            .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap_or(0))
            .collect();
        let sp = u64::from_le_bytes(b.try_into().unwrap()) + 8 * rng.below(8);
        c.ask(&format!("Z2,{sp:x},8"));
        let t = Instant::now();
        c.ask("bc");
        near.push(ms(t.elapsed()));
        c.ask(&format!("z2,{sp:x},8"));
    }
    println!(
        "reverse-continue to a write watchpoint on the stack (random positions): p50 {:.1} ms, max {:.1} ms",
        percentile(&mut near, 0.5),
        percentile(&mut near, 1.0)
    );
}
