//! `callinfo`: every visit to a given instruction address (typically a
//! function's entry point), with its time, line and byte position.

use crate::{Error, Result};
use std::fmt::Write;

use crate::engine::{Engine, EngineOptions, Node, Observer, Site, INVALID_PC};
use crate::expr::{self, ExprContext};
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;

/// What one command-line argument asks about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A `0x` hex address, or an address expression.
    Address(u64),
    /// An ELF symbol, printed with a header line as the reference tool does.
    Symbol {
        /// The name as given.
        name: String,
        /// Its address in the trace.
        addr: u64,
        /// Its size in bytes.
        size: u64,
    },
}

impl Target {
    /// The address the target names.
    pub fn addr(&self) -> u64 {
        match self {
            Target::Address(a) => *a,
            Target::Symbol { addr, .. } => *addr,
        }
    }
}

/// `0x` followed only by hex digits: the reference tool takes these as
/// addresses without consulting the image.
fn plain_hex(arg: &str) -> Option<u64> {
    let digits = arg.strip_prefix("0x")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // More than 64 bits: the reference tool throws; treat as not an address
    // so the expression parser reports it.
    u64::from_str_radix(digits, 16).ok()
}

struct Symbols<'a>(Option<&'a SymbolTable>);

impl ExprContext for Symbols<'_> {
    fn register(&self, _name: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.0.and_then(|t| t.address_of(name))
    }
    // There is no "current" register state for a whole-trace search, so no
    // name is a register: identifiers are always symbols.
    fn is_register_name(&self, _name: &str) -> bool {
        false
    }
}

/// Resolves an argument: plain hex, then a symbol name, then an address
/// expression (which may use symbols: `main+0x10`).
pub fn resolve(arg: &str, image: Option<&SymbolTable>) -> Result<Target> {
    if let Some(a) = plain_hex(arg) {
        return Ok(Target::Address(a));
    }
    if let Some(sym) = image.and_then(|t| t.find_by_name(arg)) {
        return Ok(Target::Symbol {
            name: arg.to_string(),
            addr: sym.addr,
            size: sym.size,
        });
    }
    let is_identifier = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
        && !arg.as_bytes()[0].is_ascii_digit();
    if is_identifier {
        return Err(Error::Expression(match image {
            None => format!(
                "no image, symbol '{}' can not be looked up (give the ELF file with --image)",
                arg
            ),
            Some(_) => format!("symbol '{}' not found in the image", arg),
        }));
    }
    let ctx = Symbols(image);
    let e = expr::parse_with(arg, &ctx)
        .map_err(|e| Error::Expression(format!("'{}' is not an address or symbol: {}", arg, e)))?;
    let v = e
        .eval(&ctx)
        .map_err(|e| Error::Expression(format!("'{}' could not be evaluated: {}", arg, e)))?;
    Ok(Target::Address(v))
}

struct Visits<'a> {
    /// Addresses searched for, Thumb bit cleared.
    wanted: &'a [u64],
    found: Vec<Vec<Site>>,
}

impl Observer for Visits<'_> {
    fn node(&mut self, node: &Node, _engine: &Engine) {
        if node.at.pc == INVALID_PC {
            return;
        }
        let pc = node.at.pc & !1;
        for (i, &w) in self.wanted.iter().enumerate() {
            if w != pc {
                continue;
            }
            let list = &mut self.found[i];
            // The reference tool steps through its by-address index asking
            // for the strict successor of (pc, previous line + 1), so a visit
            // on the line right after the previous one found is skipped.
            if list.last().is_some_and(|s| node.at.line == s.line + 1) {
                continue;
            }
            list.push(node.at);
        }
    }
}

/// For each address (Thumb bit ignored), the nodes at it, in trace order.
pub fn find_visits<S: TraceSource>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    addrs: &[u64],
) -> Result<Vec<Vec<Site>>> {
    let wanted: Vec<u64> = addrs.iter().map(|a| a & !1).collect();
    let mut obs = Visits {
        wanted: &wanted,
        found: vec![Vec::new(); wanted.len()],
    };
    super::run::run_engine(source, parse_opts, engine_opts, &mut obs)?;
    Ok(obs.found)
}

/// The reference output for one argument.
pub fn render(target: &Target, visits: &[Site]) -> String {
    let mut out = String::new();
    if let Target::Symbol { name, addr, size } = target {
        let _ = writeln!(
            out,
            "Symbol '{}' at 0x{:x} ({} bytes) called from :",
            name, addr, size
        );
    }
    for s in visits {
        let _ = writeln!(
            out,
            " - time: {} (line:{}, pos:{})",
            s.time, s.line, s.offset
        );
    }
    out
}
