//! Value conditions: `x5 == 0`, `w3 != 0x10`, `cpsr & 0x80`,
//! `[sp+8] == 0xdeadbeef`, `[buf:4] > 100`, `pc == main+0x20 && x0 == 1`.
//! [`Index::find_condition`](crate::Index::find_condition) finds where one
//! becomes true.
//!
//! # Grammar
//!
//! A layer over the address expressions of [`crate::expr`]: every address
//! expression is a condition with the same value (numbers, register and
//! symbol names, `reg::`/`sym::`, unary `-`/`+`, `*`, `+`, `-`, `<<`, `>>`,
//! parentheses, 64-bit wrapping arithmetic, shifts looser than `+`/`-`).
//! Added, from the loosest binding:
//!
//! | operator | meaning |
//! |---|---|
//! | `a \|\| b` | either is true |
//! | `a && b` | both are true |
//! | `a == b`, `!=`, `<`, `<=`, `>`, `>=` | unsigned 64-bit comparison, 1 or 0 (they do not chain) |
//! | `a & b` | bitwise and (binds tighter than comparisons: `cpsr & 0x80 == 0x80` is `(cpsr & 0x80) == 0x80`) |
//! | shifts, `+ -`, `*` | as in address expressions |
//! | `!a` (unary, like `-`) | 1 if `a` is 0, else 0 |
//! | `[EXPR]`, `[EXPR:LEN]` | memory at address `EXPR`, `LEN` = 1, 2, 4 or 8 bytes |
//!
//! A value is true when it is not zero, so a bare expression (`cpsr & 0x80`)
//! is a condition. `[EXPR]` reads a word of the execution state: 8 bytes in
//! AArch64, 4 in AArch32. Memory is read in the trace's byte order
//! (little-endian unless the trace says big-endian). `pc` is the address of
//! the node's instruction (Thumb bit cleared); a node without one has no
//! `pc`.
//!
//! # Unknown values
//!
//! A register or memory byte the trace has not shown yet is *unknown*, and
//! so is any value computed from it: a comparison with an unknown operand is
//! unknown, and so is `!` of it, which is neither true nor false. `&&` is
//! false if either side is false, `||` true if either side is true (an
//! unknown side does not matter then). A condition holds only where its
//! value is known and not zero.
//!
//! Errors name the column (1-based, in bytes) where the parse failed:
//! `at column 7: expected ']'`.

use crate::expr::ExprContext;
use crate::parse::RegId;
use crate::state::regfile as registers;
use crate::{Error, Result};

/// How wide a memory read is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// `[EXPR]`: 8 bytes in AArch64 state, 4 in AArch32.
    Word,
    /// `[EXPR:LEN]`: this many bytes (1, 2, 4 or 8).
    Bytes(u8),
}

/// A register a condition reads, resolved for both execution states (`sp`
/// and `lr` differ).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegRef {
    /// The name as written.
    pub name: String,
    /// The register in AArch64 state (`None` for `pc`).
    pub(crate) a64: Option<RegId>,
    /// The register in AArch32 state (`None` for `pc`).
    pub(crate) a32: Option<RegId>,
}

impl RegRef {
    /// Whether this is the program counter.
    pub fn is_pc(&self) -> bool {
        self.a64.is_none() && self.a32.is_none()
    }

    /// The register it names in AArch64 or AArch32 state (`None` for `pc`).
    pub fn reg(&self, aarch64: bool) -> Option<RegId> {
        if aarch64 {
            self.a64
        } else {
            self.a32
        }
    }
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    BitAnd,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// A parsed condition's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// A constant (a symbol becomes one when parsed).
    Const(u64),
    /// A register, by its index in [`Condition::registers`].
    Reg(usize),
    /// Memory read, by its index in [`Condition::memory`].
    Mem(usize),
    /// `-a`.
    Neg(Box<Cond>),
    /// `!a`.
    Not(Box<Cond>),
    /// `a OP b`.
    Bin(BinOp, Box<Cond>, Box<Cond>),
}

/// A memory read of a condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRef {
    /// The text between the brackets, as written (trimmed).
    pub text: String,
    /// The address.
    pub addr: Cond,
    /// How many bytes.
    pub width: Width,
}

/// What a condition reads its values from.
pub trait Values {
    /// A register's value (`None`: unknown).
    fn register(&self, reg: &RegRef) -> Option<u64>;
    /// The `len` bytes at `addr` as a number in the trace's byte order
    /// (`None`: any byte unknown).
    fn memory(&self, addr: u64, len: u64) -> Option<u64>;
    /// Whether the state is AArch64 (for `[EXPR]`'s width).
    fn aarch64(&self) -> bool;
}

/// A parsed condition.
#[derive(Clone, Debug)]
pub struct Condition {
    /// The text it was parsed from.
    pub text: String,
    /// Its tree.
    pub root: Cond,
    /// The registers it reads, each once.
    pub registers: Vec<RegRef>,
    /// The memory reads it makes, in order of writing.
    pub memory: Vec<MemRef>,
}

fn known(v: bool) -> Option<u64> {
    Some(u64::from(v))
}

impl Condition {
    /// Parses `text`, resolving names through `ctx` as address expressions
    /// do: an unscoped identifier is a register (or `pc`) if it can be one,
    /// else a symbol, which becomes a constant now.
    pub fn parse(text: &str, ctx: &dyn ExprContext) -> Result<Condition> {
        Condition::parse_at(text, ctx)
            .map_err(|(col, msg)| Error::Expression(format!("at column {col}: {msg}")))
    }

    /// [`Condition::parse`], an error as its column (1-based, in bytes)
    /// and message apart, for a page that points at the column.
    pub fn parse_at(
        text: &str,
        ctx: &dyn ExprContext,
    ) -> std::result::Result<Condition, (usize, String)> {
        let mut p = CondParser {
            lexer: Lexer {
                input: text.as_bytes(),
                pos: 0,
                start: 0,
                token: Tok::Eof,
                id: String::new(),
            },
            ctx,
            registers: Vec::new(),
            memory: Vec::new(),
        };
        let result = (|| {
            p.lexer.advance()?;
            if p.lexer.token == Tok::Eof {
                return Err(p.error("empty condition"));
            }
            let root = p.or()?;
            match p.lexer.token {
                Tok::Eof => {}
                Tok::Bad(_) => return Err(p.unexpected()),
                _ => return Err(p.error("unexpected tokens after condition")),
            }
            Ok(root)
        })();
        result.map(|root| Condition {
            text: text.to_string(),
            root,
            registers: p.registers,
            memory: p.memory,
        })
    }

    /// Whether it reads `pc`.
    pub fn uses_pc(&self) -> bool {
        self.registers.iter().any(RegRef::is_pc)
    }

    /// Its value (`None`: unknown).
    pub fn eval(&self, v: &dyn Values) -> Option<u64> {
        self.eval_node(&self.root, v, &mut |_, _| {})
    }

    /// Whether it holds: known and not zero.
    pub fn holds(&self, v: &dyn Values) -> bool {
        self.eval(v).is_some_and(|x| x != 0)
    }

    /// Evaluates, reporting each memory range read at a known address as
    /// `(addr, len)` to `ranges` (every read, whichever way `&&`/`||` go).
    pub fn eval_ranges(&self, v: &dyn Values, ranges: &mut dyn FnMut(u64, u64)) -> Option<u64> {
        self.eval_node(&self.root, v, ranges)
    }

    /// The operands' values: each register, then each memory read, as
    /// `(name, value)` (`[TEXT:LEN]` for memory).
    pub fn operands(&self, v: &dyn Values) -> Vec<(String, Option<u64>)> {
        let mut out: Vec<(String, Option<u64>)> = self
            .registers
            .iter()
            .map(|r| (r.name.clone(), v.register(r)))
            .collect();
        for m in &self.memory {
            let len = self.width(m.width, v);
            let addr = self.eval_node(&m.addr, v, &mut |_, _| {});
            out.push((
                format!("[{}:{len}]", m.text),
                addr.and_then(|a| v.memory(a, len)),
            ));
        }
        out
    }

    fn width(&self, w: Width, v: &dyn Values) -> u64 {
        match w {
            Width::Bytes(n) => u64::from(n),
            Width::Word if v.aarch64() => 8,
            Width::Word => 4,
        }
    }

    fn eval_node(&self, c: &Cond, v: &dyn Values, ranges: &mut dyn FnMut(u64, u64)) -> Option<u64> {
        match c {
            Cond::Const(x) => Some(*x),
            Cond::Reg(i) => v.register(&self.registers[*i]),
            Cond::Mem(i) => {
                let m = &self.memory[*i];
                let addr = self.eval_node(&m.addr, v, ranges)?;
                let len = self.width(m.width, v);
                ranges(addr, len);
                v.memory(addr, len)
            }
            Cond::Neg(a) => self.eval_node(a, v, ranges).map(u64::wrapping_neg),
            Cond::Not(a) => self.eval_node(a, v, ranges).map(|x| u64::from(x == 0)),
            Cond::Bin(op, a, b) => {
                let a = self.eval_node(a, v, ranges);
                let b = self.eval_node(b, v, ranges);
                match op {
                    BinOp::And => match (a, b) {
                        (Some(0), _) | (_, Some(0)) => Some(0),
                        (Some(_), Some(_)) => Some(1),
                        _ => None,
                    },
                    BinOp::Or => match (a, b) {
                        (Some(x), _) | (_, Some(x)) if x != 0 => Some(1),
                        (Some(_), Some(_)) => Some(0),
                        _ => None,
                    },
                    _ => {
                        let (a, b) = (a?, b?);
                        match op {
                            BinOp::Add => Some(a.wrapping_add(b)),
                            BinOp::Sub => Some(a.wrapping_sub(b)),
                            BinOp::Mul => Some(a.wrapping_mul(b)),
                            BinOp::Shl => Some(if b >= 64 { 0 } else { a << b }),
                            BinOp::Shr => Some(if b >= 64 { 0 } else { a >> b }),
                            BinOp::BitAnd => Some(a & b),
                            BinOp::Eq => known(a == b),
                            BinOp::Ne => known(a != b),
                            BinOp::Lt => known(a < b),
                            BinOp::Le => known(a <= b),
                            BinOp::Gt => known(a > b),
                            BinOp::Ge => known(a >= b),
                            BinOp::And | BinOp::Or => unreachable!(),
                        }
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Num(u64),
    Id,
    Scope,
    Plus,
    Minus,
    Star,
    Shl,
    Shr,
    Amp,
    AndAnd,
    OrOr,
    Bang,
    Cmp(BinOp),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Colon,
    Bad(u8),
    Eof,
}

type PResult<T> = std::result::Result<T, (usize, String)>;

struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    /// Where the current token starts.
    start: usize,
    token: Tok,
    id: String,
}

impl Lexer<'_> {
    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &[u8] {
        let s = self.pos;
        while self.pos < self.input.len() && pred(self.input[self.pos]) {
            self.pos += 1;
        }
        &self.input[s..self.pos]
    }

    fn advance(&mut self) -> PResult<()> {
        // The whitespace of address expressions: space, tab, newline.
        self.take_while(|c| c == b' ' || c == b'\t' || c == b'\n');
        self.start = self.pos;
        let col = self.pos + 1;
        let Some(&c) = self.input.get(self.pos) else {
            self.token = Tok::Eof;
            return Ok(());
        };
        let next = self.input.get(self.pos + 1).copied();
        if c == b'0' && matches!(next, Some(b'x' | b'X')) {
            self.pos += 2;
            let digits = String::from_utf8_lossy(self.take_while(|c| c.is_ascii_hexdigit()));
            if digits.is_empty() {
                return Err((col, "expected hex digits after '0x'".into()));
            }
            let v = u64::from_str_radix(&digits, 16).map_err(|_| {
                (
                    col,
                    format!("integer constant '{digits}' does not fit in 64 bits"),
                )
            })?;
            self.token = Tok::Num(v);
            return Ok(());
        }
        if c.is_ascii_digit() {
            let digits = String::from_utf8_lossy(self.take_while(|c| c.is_ascii_digit()));
            let v = digits.parse::<u64>().map_err(|_| {
                (
                    col,
                    format!("integer constant '{digits}' does not fit in 64 bits"),
                )
            })?;
            self.token = Tok::Num(v);
            return Ok(());
        }
        let id_start = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c == b'$';
        if id_start(c) {
            let name = self.take_while(|c| id_start(c) || c.is_ascii_digit());
            self.id = String::from_utf8_lossy(name).into_owned();
            self.token = Tok::Id;
            return Ok(());
        }
        let two = match (c, next) {
            (b'<', Some(b'<')) => Some(Tok::Shl),
            (b'>', Some(b'>')) => Some(Tok::Shr),
            (b':', Some(b':')) => Some(Tok::Scope),
            (b'&', Some(b'&')) => Some(Tok::AndAnd),
            (b'|', Some(b'|')) => Some(Tok::OrOr),
            (b'=', Some(b'=')) => Some(Tok::Cmp(BinOp::Eq)),
            (b'!', Some(b'=')) => Some(Tok::Cmp(BinOp::Ne)),
            (b'<', Some(b'=')) => Some(Tok::Cmp(BinOp::Le)),
            (b'>', Some(b'=')) => Some(Tok::Cmp(BinOp::Ge)),
            _ => None,
        };
        if let Some(t) = two {
            self.pos += 2;
            self.token = t;
            return Ok(());
        }
        self.pos += 1;
        self.token = match c {
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'*' => Tok::Star,
            b'&' => Tok::Amp,
            b'!' => Tok::Bang,
            b'<' => Tok::Cmp(BinOp::Lt),
            b'>' => Tok::Cmp(BinOp::Gt),
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b':' => Tok::Colon,
            _ => Tok::Bad(c),
        };
        Ok(())
    }
}

struct CondParser<'a> {
    lexer: Lexer<'a>,
    ctx: &'a dyn ExprContext,
    registers: Vec<RegRef>,
    memory: Vec<MemRef>,
}

impl CondParser<'_> {
    /// An error at the current token.
    fn error(&self, msg: impl Into<String>) -> (usize, String) {
        (self.lexer.start + 1, msg.into())
    }

    fn unexpected(&self) -> (usize, String) {
        match self.lexer.token {
            Tok::Eof => self.error("unexpected end of condition"),
            Tok::Bad(b'=') => self.error("unexpected character '=' (equality is '==')"),
            Tok::Bad(c) if c.is_ascii_graphic() => {
                self.error(format!("unexpected character '{}'", c as char))
            }
            _ => self.error("unexpected token"),
        }
    }

    fn next(&mut self) -> PResult<()> {
        self.lexer.advance()
    }

    fn binary(
        &mut self,
        sub: fn(&mut Self) -> PResult<Cond>,
        op_of: fn(Tok) -> Option<BinOp>,
    ) -> PResult<Cond> {
        let mut c = sub(self)?;
        while let Some(op) = op_of(self.lexer.token) {
            self.next()?;
            c = Cond::Bin(op, Box::new(c), Box::new(sub(self)?));
        }
        Ok(c)
    }

    fn or(&mut self) -> PResult<Cond> {
        self.binary(Self::and, |t| (t == Tok::OrOr).then_some(BinOp::Or))
    }

    fn and(&mut self) -> PResult<Cond> {
        self.binary(Self::compare, |t| (t == Tok::AndAnd).then_some(BinOp::And))
    }

    fn compare(&mut self) -> PResult<Cond> {
        let a = self.bits()?;
        let Tok::Cmp(op) = self.lexer.token else {
            return Ok(a);
        };
        self.next()?;
        let b = self.bits()?;
        if matches!(self.lexer.token, Tok::Cmp(_)) {
            return Err(self.error("comparisons do not chain: use parentheses and '&&'"));
        }
        Ok(Cond::Bin(op, Box::new(a), Box::new(b)))
    }

    fn bits(&mut self) -> PResult<Cond> {
        self.binary(Self::shift, |t| (t == Tok::Amp).then_some(BinOp::BitAnd))
    }

    fn shift(&mut self) -> PResult<Cond> {
        self.binary(Self::add, |t| match t {
            Tok::Shl => Some(BinOp::Shl),
            Tok::Shr => Some(BinOp::Shr),
            _ => None,
        })
    }

    fn add(&mut self) -> PResult<Cond> {
        self.binary(Self::mul, |t| match t {
            Tok::Plus => Some(BinOp::Add),
            Tok::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn mul(&mut self) -> PResult<Cond> {
        self.binary(Self::unary, |t| (t == Tok::Star).then_some(BinOp::Mul))
    }

    fn unary(&mut self) -> PResult<Cond> {
        while self.lexer.token == Tok::Plus {
            self.next()?;
        }
        match self.lexer.token {
            Tok::Minus => {
                self.next()?;
                Ok(Cond::Neg(Box::new(self.unary()?)))
            }
            Tok::Bang => {
                self.next()?;
                Ok(Cond::Not(Box::new(self.unary()?)))
            }
            _ => self.primary(),
        }
    }

    fn register(&mut self, name: &str) -> Option<Cond> {
        let pc = name.eq_ignore_ascii_case("pc");
        let (a64, a32) = (
            registers::lookup(name, true),
            registers::lookup(name, false),
        );
        if !pc && a64.is_none() && a32.is_none() {
            return None;
        }
        let key = name.to_ascii_lowercase();
        let i = match self
            .registers
            .iter()
            .position(|r| r.name.eq_ignore_ascii_case(&key))
        {
            Some(i) => i,
            None => {
                self.registers.push(RegRef {
                    name: name.to_string(),
                    a64,
                    a32,
                });
                self.registers.len() - 1
            }
        };
        Some(Cond::Reg(i))
    }

    fn primary(&mut self) -> PResult<Cond> {
        match self.lexer.token {
            Tok::Num(v) => {
                self.next()?;
                Ok(Cond::Const(v))
            }
            Tok::Id => {
                let id_col = self.lexer.start + 1;
                let id1 = self.lexer.id.clone();
                self.next()?;
                if self.lexer.token == Tok::Scope {
                    self.next()?;
                    if self.lexer.token != Tok::Id {
                        return Err(self.error("expected an identifier after '::'"));
                    }
                    let name = self.lexer.id.clone();
                    let c = match id1.as_str() {
                        "reg" => self.register(&name).ok_or_else(|| {
                            self.error(format!("unrecognised register name '{name}'"))
                        })?,
                        "sym" => self.ctx.symbol(&name).map(Cond::Const).ok_or_else(|| {
                            self.error(format!("unrecognised symbol name '{name}'"))
                        })?,
                        _ => {
                            return Err((id_col, format!("unrecognised identifier scope '{id1}'")))
                        }
                    };
                    self.next()?;
                    return Ok(c);
                }
                if let Some(c) = self.register(&id1) {
                    return Ok(c);
                }
                self.ctx.symbol(&id1).map(Cond::Const).ok_or_else(|| {
                    (
                        id_col,
                        format!(
                            "unrecognised identifier name '{id1}' (no such register or symbol)"
                        ),
                    )
                })
            }
            Tok::LParen => {
                self.next()?;
                let c = self.or()?;
                if self.lexer.token != Tok::RParen {
                    return Err(self.error("expected closing ')'"));
                }
                self.next()?;
                Ok(c)
            }
            Tok::LBracket => {
                self.next()?;
                let text_start = self.lexer.start;
                let addr = self.or()?;
                let text_end = self.lexer.start;
                let width = if self.lexer.token == Tok::Colon {
                    self.next()?;
                    let Tok::Num(n @ (1 | 2 | 4 | 8)) = self.lexer.token else {
                        return Err(self.error("expected a length of 1, 2, 4 or 8 after ':'"));
                    };
                    self.next()?;
                    Width::Bytes(n as u8)
                } else {
                    Width::Word
                };
                if self.lexer.token != Tok::RBracket {
                    return Err(self.error("expected closing ']'"));
                }
                self.next()?;
                let text = String::from_utf8_lossy(&self.lexer.input[text_start..text_end])
                    .trim()
                    .to_string();
                self.memory.push(MemRef { text, addr, width });
                Ok(Cond::Mem(self.memory.len() - 1))
            }
            _ => Err(self.unexpected()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ctx;
    impl ExprContext for Ctx {
        fn register(&self, _: &str) -> Option<u64> {
            None
        }
        fn symbol(&self, name: &str) -> Option<u64> {
            (name == "main").then_some(0x400000)
        }
    }

    struct Vals;
    impl Values for Vals {
        fn register(&self, r: &RegRef) -> Option<u64> {
            match r.name.as_str() {
                "x0" => Some(1),
                "x5" => Some(0),
                "pc" => Some(0x400020),
                "sp" => Some(0x1000),
                _ => None,
            }
        }
        fn memory(&self, addr: u64, len: u64) -> Option<u64> {
            (addr == 0x1008).then_some(0xdeadbeef & (u64::MAX >> (64 - 8 * len)))
        }
        fn aarch64(&self) -> bool {
            true
        }
    }

    fn eval(s: &str) -> Option<u64> {
        Condition::parse(s, &Ctx).unwrap().eval(&Vals)
    }

    fn err(s: &str) -> String {
        Condition::parse(s, &Ctx).unwrap_err().to_string()
    }

    #[test]
    fn values() {
        assert_eq!(eval("x5 == 0"), Some(1));
        assert_eq!(eval("x0 != 1"), Some(0));
        assert_eq!(eval("pc == main+0x20 && x0 == 1"), Some(1));
        assert_eq!(eval("[sp+8:4] == 0xdeadbeef"), Some(1));
        assert_eq!(eval("[sp+8:2] == 0xbeef"), Some(1));
        assert_eq!(eval("[sp+8] > 100"), Some(1));
        assert_eq!(eval("[sp] > 100"), None);
        assert_eq!(eval("0x1f & 0x10"), Some(0x10));
        assert_eq!(eval("0x1f & 0x10 == 0x10"), Some(1));
        assert_eq!(eval("!x0"), Some(0));
        assert_eq!(eval("x0 - 2 < 5"), Some(0), "unsigned: 0 - 1 wraps");
        assert_eq!(eval("1 << 2 + 1"), Some(8), "shifts looser than +");
    }

    #[test]
    fn unknowns() {
        assert_eq!(eval("x7 == 0"), None);
        assert_eq!(eval("!(x7 == 0)"), None);
        assert_eq!(eval("x7 == 0 && x0 == 2"), Some(0));
        assert_eq!(eval("x7 == 0 || x0 == 1"), Some(1));
        assert_eq!(eval("x7 == 0 || x0 == 2"), None);
        assert!(!Condition::parse("x7 != 0", &Ctx).unwrap().holds(&Vals));
    }

    #[test]
    fn operands_are_listed_once() {
        let c = Condition::parse("x0 == 1 || X0 == 2 && [sp + 8 : 4] != 0", &Ctx).unwrap();
        let names: Vec<String> = c.operands(&Vals).into_iter().map(|o| o.0).collect();
        assert_eq!(names, ["x0", "sp", "[sp + 8:4]"]);
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(err("x0 == "), "at column 7: unexpected end of condition");
        assert_eq!(
            err("x0 = 1"),
            "at column 4: unexpected character '=' (equality is '==')"
        );
        assert_eq!(
            err("[sp+8:3] == 0"),
            "at column 7: expected a length of 1, 2, 4 or 8 after ':'"
        );
        assert_eq!(err("[sp+8 == 0"), "at column 11: expected closing ']'");
        assert_eq!(err("(x0 == 0"), "at column 9: expected closing ')'");
        assert_eq!(
            err("x0 == nosuch"),
            "at column 7: unrecognised identifier name 'nosuch' (no such register or symbol)"
        );
        assert_eq!(
            err("1 < x0 < 3"),
            "at column 8: comparisons do not chain: use parentheses and '&&'"
        );
        assert_eq!(
            err("x0 == 1)"),
            "at column 8: unexpected tokens after condition"
        );
        assert_eq!(err("  "), "at column 3: empty condition");
        assert_eq!(err("0x"), "at column 1: expected hex digits after '0x'");
    }
}
