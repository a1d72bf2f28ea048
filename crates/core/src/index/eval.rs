//! Address expressions (`sp+0x100`, `main+4`, `x0-8`) evaluated at a node:
//! registers as they are after it, `pc` its instruction, symbols from the
//! image. One place, so the browser's memory pane and the CLI's `watch`
//! read `sp` alike.

use super::Index;
use crate::expr::{self, ExprContext};
use crate::parse::RegId;
use crate::source::TraceSource;
use crate::state::regfile::{self, RegFile};
use crate::symbols::SymbolTable;
use crate::{Error, Result};

struct Ctx<'a> {
    regs: &'a RegFile,
    aarch64: bool,
    pc: Option<u64>,
    image: Option<&'a SymbolTable>,
}

impl ExprContext for Ctx<'_> {
    fn register(&self, name: &str) -> Option<u64> {
        if name.eq_ignore_ascii_case("pc") {
            return self.pc.map(|p| p & !1);
        }
        let reg = regfile::lookup(name, self.aarch64)?;
        self.regs.reg_value(reg, self.aarch64)
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.image?.address_of(name)
    }
    fn is_register_name(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("pc") || regfile::lookup(name, self.aarch64).is_some()
    }
}

impl Index {
    /// The register `name` means in this trace (`sp` is AArch64's in a
    /// trace that ran AArch64), or `None` for no register.
    pub fn register_named(&self, name: &str) -> Option<RegId> {
        let a64 = self.aarch64_used;
        regfile::lookup(name, a64).or_else(|| regfile::lookup(name, !a64))
    }

    /// The value of address expression `text` after node `node`. An
    /// expression that does not parse, or names a register without a value
    /// there, is an [`Error::Expression`] saying so.
    pub fn eval_at(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        text: &str,
        image: Option<&SymbolTable>,
    ) -> Result<u64> {
        self.eval_with_hint(source, node, text, image, self.aarch64_used)
    }

    /// [`Index::eval_at`] for an index still being built, which does not
    /// know yet whether the trace ran AArch64 (`aarch64_hint` says).
    pub(crate) fn eval_with_hint(
        &self,
        source: &mut dyn TraceSource,
        node: u64,
        text: &str,
        image: Option<&SymbolTable>,
        aarch64_hint: bool,
    ) -> Result<u64> {
        let regs = self.registers_after(source, node)?;
        let n = self.node(source, node)?;
        let ctx = Ctx {
            aarch64: regfile::is_aarch64(&regs, aarch64_hint),
            regs: &regs,
            pc: n.has_instruction().then_some(n.at.pc),
            image,
        };
        let parsed =
            expr::parse_with(text, &ctx).map_err(|e| Error::Expression(format!("{text}: {e}")))?;
        parsed
            .eval(&ctx)
            .map_err(|e| Error::Expression(format!("{text}: {e} has no known value here")))
    }
}
