//! `tarmac-lens gdbserver TRACE`: the trace as a recorded run that gdb
//! (or anything speaking its remote protocol) debugs forward and backward,
//! over the trace's index. The protocol is gdbstub's; `timeline.rs` moves
//! through the recording, `target.rs` answers gdbstub's traits from it,
//! `regs.rs` lays out the register sets, `monitor.rs` the `monitor`
//! commands, `link.rs` the byte stream. Reference: docs/gdb.md.

mod link;
mod monitor;
mod regs;
mod target;
mod timeline;

use std::cell::RefCell;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use clap::Args;
use gdbstub::arch::Arch;
use gdbstub::conn::Connection;
use gdbstub::stub::{DisconnectReason, GdbStub};
use tarmac_lens_core::{dataflow::ImageMemory, CpuName, FileSource, PcIntervals, TraceSource};

use self::link::{Link, Shared};
use self::regs::{Addr, Profile, RegBlock};
use self::target::{Debugger, EventLoop};
use self::timeline::{Core, Timeline};
use super::{index, input, Common};

#[derive(Args)]
pub struct GdbArgs {
    /// TCP port to listen on (default 0: a free one; the line printed at
    /// start says which).
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with = "stdio")]
    port: u16,
    /// Address to listen on: 127.0.0.1 (this machine only) unless told
    /// otherwise, e.g. 0.0.0.0 for every interface (anyone who reaches
    /// the port reads the trace).
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), conflicts_with = "stdio")]
    listen: IpAddr,
    /// Speak the protocol on standard input and output, for gdb's
    /// `target remote | tarmac-lens gdbserver --stdio TRACE`; one session.
    #[arg(long)]
    stdio: bool,
    /// End after the first session (default: serve sessions one after
    /// another until interrupted).
    #[arg(long)]
    once: bool,
}

/// Runs the command.
pub fn cmd_gdbserver(common: &Common, args: &GdbArgs) -> Result<(), String> {
    let name = super::display_name(&common.trace);
    let cores = open_cores(common)?;
    let image = match &common.image {
        Some(path) => {
            // Warns when the image is another program's.
            common.image()?;
            let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let memory = ImageMemory::from_elf_bytes(&data, common.load_offset.unwrap_or(0))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Some((memory, arm_m_profile(&data)))
        }
        None => None,
    };
    let profile = if cores.iter().any(|c| c.index.aarch64_used()) {
        Profile::A64
    } else if image.as_ref().is_some_and(|(_, m)| *m) {
        Profile::ArmM
    } else {
        Profile::ArmA
    };
    start_pc_tables(common, &cores);
    let mut source: Box<dyn TraceSource> = Box::new(common.open_random()?);
    let image = image.map(|(m, _)| m);
    let say = |text: &str| {
        if !common.quiet {
            eprintln!("tarmac-lens: gdbserver: {text}");
        }
    };
    if args.stdio {
        let link = Link::new(Box::new(std::io::stdin()), Box::new(std::io::stdout()));
        session(&cores, source, image, profile, link, &say)?;
        return Ok(());
    }
    let listener = TcpListener::bind((args.listen, args.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", args.listen, args.port))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot listen: {e}"))?;
    // The line a person (or a test) waits for, on standard output.
    println!(
        "listening on {addr} for gdb: target remote {addr}  ({name}, {} register set)",
        profile_name(profile)
    );
    let _ = std::io::stdout().flush();
    loop {
        let (stream, peer) = listener
            .accept()
            .map_err(|e| format!("cannot accept a connection: {e}"))?;
        let _ = stream.set_nodelay(true);
        say(&format!("session from {peer}"));
        let input = stream
            .try_clone()
            .map_err(|e| format!("cannot use the connection: {e}"))?;
        let link = Link::new(
            Box::new(input),
            Box::new(stream.try_clone().map_err(|e| e.to_string())?),
        );
        let result = session(&cores, source, image.clone(), profile, link, &say);
        let _ = stream.shutdown(std::net::Shutdown::Both);
        source = result?;
        if args.once {
            return Ok(());
        }
    }
}

fn profile_name(p: Profile) -> &'static str {
    match p {
        Profile::A64 => "AArch64",
        Profile::ArmA => "AArch32",
        Profile::ArmM => "Arm M-profile",
    }
}

/// One gdb session from the trace's first instruction; gives the source
/// back for the next one.
fn session(
    cores: &[Core],
    source: Box<dyn TraceSource>,
    image: Option<ImageMemory>,
    profile: Profile,
    link: Link,
    say: &dyn Fn(&str),
) -> Result<Box<dyn TraceSource>, String> {
    let cores = cores
        .iter()
        .map(|c| Core {
            name: c.name.clone(),
            index: c.index.clone(),
            pcs: c.pcs.clone(),
        })
        .collect();
    let timeline = Timeline::new(cores, source, image, profile)?;
    let xml = regs::target_xml(profile);
    let timeline = match profile {
        Profile::A64 => run_stub::<regs::A64>(timeline, xml, link, say),
        Profile::ArmA | Profile::ArmM => run_stub::<regs::A32>(timeline, xml, link, say),
    };
    Ok(timeline.into_source())
}

fn run_stub<A>(timeline: Timeline, xml: String, link: Link, say: &dyn Fn(&str)) -> Timeline
where
    A: Arch<Registers = RegBlock<<A as Arch>::Usize>>,
    A::Usize: Addr,
{
    let mut target = Debugger::<A>::new(timeline, xml);
    let link = Shared(Rc::new(RefCell::new(link)));
    loop {
        match GdbStub::new(link.clone()).run_blocking::<EventLoop<A>>(&mut target) {
            Ok(DisconnectReason::Disconnect) => say("gdb detached"),
            Ok(DisconnectReason::Kill) => say("gdb ended the session (kill)"),
            Ok(other) => say(&format!("session ended: {other:?}")),
            Err(e) if e.is_connection_error() || e.is_target_error() => {
                say(&format!("session ended: {e}"))
            }
            Err(e) => {
                // gdbstub gives up on a packet it cannot parse (a bad
                // checksum, a known command with malformed arguments):
                // answered with an error, the session goes on with a new
                // state machine over the same connection.
                say(&format!("refused a packet: {e}"));
                let mut l = link.0.borrow_mut();
                if l.write_all(b"$E01#a6").and_then(|_| l.flush()).is_ok() {
                    continue;
                }
            }
        }
        return target.timeline;
    }
}

/// The cores to debug, each with its index: the `--cpu` one, every core
/// of a multi-core trace (each core's index beside the trace as
/// `TRACE.<cpu>.index`), or the one core.
fn open_cores(common: &Common) -> Result<Vec<Core>, String> {
    let core = |name: Option<String>, index| Core {
        name,
        index: Arc::new(index),
        pcs: Arc::new(OnceLock::new()),
    };
    if let Some(cpu) = common.cpu {
        let built = index::obtain(common)?;
        return Ok(vec![core(Some(cpu.to_string()), built.index)]);
    }
    let names = {
        let mut source = common.open()?;
        let mut head = vec![0u8; source.len().min(1 << 20) as usize];
        let n = source.read_at(0, &mut head).map_err(|e| e.to_string())?;
        head.truncate(n);
        common.input.put_back(source);
        if let Some(end) = head.iter().rposition(|&b| b == b'\n') {
            head.truncate(end + 1);
        }
        tarmac_lens_core::count_cores(tarmac_lens_core::SliceSource(&head), common.parse_options())
            .map_err(|e| e.to_string())?
    };
    if names.len() < 2 {
        let built = index::obtain(common)?;
        return Ok(vec![core(
            names.first().map(|c| c.name.clone()),
            built.index,
        )]);
    }
    let mut cores = Vec::new();
    for c in names {
        let cpu: CpuName = c
            .name
            .parse()
            .map_err(|e: tarmac_lens_core::Error| e.to_string())?;
        let per_core = for_core(common, cpu);
        let built = index::obtain(&per_core)?;
        cores.push(core(Some(c.name), built.index));
    }
    Ok(cores)
}

/// `common` following one core, its index file beside the others.
fn for_core(common: &Common, cpu: CpuName) -> Common {
    let mut path = index::index_path(common).into_os_string();
    path.push(format!(".{cpu}"));
    Common {
        trace: common.trace.clone(),
        input: input::Cache::default(),
        implicit_thumb: common.implicit_thumb,
        li: common.li,
        bi: common.bi,
        dialect: common.dialect,
        cpu: Some(cpu),
        image: None,
        load_offset: common.load_offset,
        index: Some(PathBuf::from(path)),
        force_index: common.force_index,
        no_index: common.no_index,
        only_index: false,
        quiet: common.quiet,
        verbose: common.verbose,
        show_progress_meter: common.show_progress_meter,
        jobs: common.jobs,
    }
}

/// Gives each core its table of where every instruction address ran:
/// read from beside its index (`INDEX.pcs`) when it is there and made
/// for that index, else made on a thread of its own from a plain trace
/// file and written there for the next start (a compressed trace keeps
/// the index's filters: each pass would decompress it all again).
fn start_pc_tables(common: &Common, cores: &[Core]) {
    let plain = input::compression_of(&common.trace).is_none() && !input::is_stdin(&common.trace);
    for core in cores {
        let mut path = match core.name.as_deref().and_then(|n| n.parse::<CpuName>().ok()) {
            Some(cpu) if cores.len() > 1 => index::index_path(&for_core(common, cpu)),
            _ => index::index_path(common),
        }
        .into_os_string();
        path.push(".pcs");
        let path = PathBuf::from(path);
        if let Some(table) = std::fs::read(&path)
            .ok()
            .and_then(|b| PcIntervals::from_bytes(&b, &core.index))
        {
            let _ = core.pcs.set(table);
            if common.verbose {
                eprintln!(
                    "tarmac-lens: gdbserver: breakpoint table ready (read {})",
                    path.display()
                );
            }
            continue;
        }
        if !plain {
            continue;
        }
        let (index, cell, trace) = (core.index.clone(), core.pcs.clone(), common.trace.clone());
        let (verbose, write) = (common.verbose, !common.no_index);
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let Ok(mut source) = FileSource::open(&trace) else {
                return;
            };
            if let Ok(Some(table)) = PcIntervals::build(&index, &mut source, &mut |_| true) {
                if write {
                    let _ = std::fs::write(&path, table.to_bytes(&index));
                }
                if verbose {
                    eprintln!(
                        "tarmac-lens: gdbserver: breakpoint table ready in {:.2} s ({} bytes)",
                        started.elapsed().as_secs_f64(),
                        table.resident_bytes()
                    );
                }
                let _ = cell.set(table);
            }
        });
    }
}

/// Whether an Arm ELF says it is for an M-profile core (its build
/// attributes' `Tag_CPU_arch_profile` is 'M'): gdb then wants `xpsr` and
/// Thumb only.
fn arm_m_profile(elf: &[u8]) -> bool {
    // The `.ARM.attributes` section: 'A', then subsections (u32 length,
    // vendor name, then tag-length-value groups); the "aeabi" one's file
    // attributes start with the CPU name (tags 4, 5: strings), the
    // architecture (6) and the profile (7), ULEB128 numbers.
    let Some(at) = elf.windows(b"aeabi\0".len()).position(|w| w == b"aeabi\0") else {
        return false;
    };
    let mut p = at + b"aeabi\0".len();
    // Tag_File and its u32 size.
    if elf.get(p) != Some(&1) {
        return false;
    }
    p += 5;
    let uleb = |p: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *elf.get(*p)?;
            *p += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    for _ in 0..8 {
        let Some(tag) = uleb(&mut p) else {
            return false;
        };
        match tag {
            4 | 5 => match elf[p.min(elf.len())..].iter().position(|&b| b == 0) {
                Some(end) => p += end + 1,
                None => return false,
            },
            7 => return uleb(&mut p) == Some(u64::from(b'M')),
            _ => {
                if uleb(&mut p).is_none() {
                    return false;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_attribute_is_read() {
        let a_profile =
            std::fs::read("tests/data/tracegen/quicksort-thumb-O2-fastmodel-2M.elf").unwrap();
        assert!(!arm_m_profile(&a_profile));
        // A made attributes section: CPU name "7E-M", arch v7E-M (13), profile 'M'.
        let mut m = b"junkA\x1e\0\0\0aeabi\0\x01\x14\0\0\0\x057E-M\0\x06\x0d\x07M".to_vec();
        m.extend_from_slice(b"\x08\x01");
        assert!(arm_m_profile(&m));
    }
}
