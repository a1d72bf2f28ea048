//! `monitor` commands: jumps to a position the page or another command
//! named (`line N`, `time T`) and where the debugger stands (`info`).

use tarmac_lens_core::Node;

use super::timeline::Timeline;

/// What gdb must be told after a jump: it keeps registers and stack
/// memory it read until the next stop, which a monitor command is not.
const REFRESH: &str = "gdb keeps what it read before: run `maintenance flush register-cache` (docs/gdb.md defines `tl-line` and `tl-time`, which do)";

pub const HELP: &str = "\
monitor line N   stand at the instruction of trace line N (the page's position menu gives it)
monitor time T   stand at the node the trace gives for time T (the last at or before it)
monitor info     where the debugger stands: line, time, instruction number, node, pc, core";

fn number(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn describe(t: &Timeline, core: usize, n: &Node) -> String {
    let who = if t.cores.len() > 1 {
        format!(", {} (thread {})", t.core_name(core), core + 1)
    } else {
        String::new()
    };
    format!(
        "line {}, time {}, instruction {}, node {}, pc {:#x}{who}",
        n.at.line,
        n.at.time,
        n.instructions_before(),
        n.at.node,
        n.at.pc & !1
    )
}

/// Runs one command; the text to print.
pub fn run(t: &mut Timeline, cmd: &str) -> String {
    let cmd = cmd.trim();
    let (word, rest) = cmd.split_once(char::is_whitespace).unwrap_or((cmd, ""));
    let jumped = |t: &mut Timeline, r: Result<Node, String>| match r {
        Ok(n) => {
            let core = t.current();
            format!("at {}\n{REFRESH}", describe(t, core, &n))
        }
        Err(e) => format!("error: {e}"),
    };
    match word {
        "line" => match number(rest) {
            Some(l) if l > 0 => {
                let r = t.go_to_line(l);
                jumped(t, r)
            }
            _ => format!("error: `monitor line N` wants a line number (from 1), not `{rest}`"),
        },
        "time" => match number(rest) {
            Some(time) => {
                let r = t.go_to_time(time);
                jumped(t, r)
            }
            None => format!("error: `monitor time T` wants a time, not `{rest}`"),
        },
        "info" => {
            let core = t.current();
            match t.position(core) {
                Ok(n) => describe(t, core, &n),
                Err(e) => format!("error: {e}"),
            }
        }
        "" | "help" => HELP.to_string(),
        other => format!("error: unknown monitor command `{other}`\n{HELP}"),
    }
}
