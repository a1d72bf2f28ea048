//! Address expressions, as typed into Tarmac Trace Utilities' browser and
//! `--start`/`--end`-style options: integer constants, register names, ELF
//! symbol names, `reg::`/`sym::` prefixes, unary `-`/`+`, `*`, `+`, `-`,
//! `<<`, `>>` and parentheses, evaluated with 64-bit wrapping arithmetic.
//!
//! Behaviour, tree dump syntax and error messages follow TTU's `lib/expr.cpp`
//! so that its `exprtest` reference output is reproduced exactly (see
//! `tests/expr_conformance.rs`). Notable TTU rules kept here:
//!
//! - Precedence is unusual: shifts bind *looser* than `+`/`-`, which bind
//!   looser than `*`; all binary operators are left-associative. Unary `+`
//!   is dropped from the tree; unary `-` binds tightest.
//! - Numbers are decimal or `0x` hex only: a leading `0` does not mean octal
//!   (`010` is ten).
//! - Only space, tab and newline are whitespace (a `\r` is a bad token).
//! - Symbol names are resolved to constants at parse time, registers at
//!   evaluation time.
//! - A shift by 64 or more gives 0 rather than being undefined.
//!
//! Where TTU would crash (an uncaught `std::stoull` exception for `0x` with
//! no digits, or a constant over 64 bits) we return an
//! [`Error::Expression`](crate::Error::Expression).

use std::fmt;

/// Names and values an expression can refer to.
pub trait ExprContext {
    /// Current value of a register by name (e.g. `x0`, `sp`, `pc`); `None`
    /// if the name is unknown or the register has no value yet.
    fn register(&self, name: &str) -> Option<u64>;

    /// Address of an ELF symbol; `None` if there is no such symbol.
    fn symbol(&self, name: &str) -> Option<u64>;

    /// Whether `name` names a register at all, regardless of whether it has a
    /// value. TTU decides this at parse time, so that an unscoped identifier
    /// is a register if it can be one and a symbol otherwise, and so that a
    /// register with no value yet is an evaluation error rather than a parse
    /// error. The default accepts the names the trace parser knows, plus
    /// `sp`.
    fn is_register_name(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case("sp") || crate::parse::RegId::lookup(name.as_bytes()).is_some()
    }
}

/// A context with no registers and no symbols: only constant expressions
/// parse.
pub struct NoContext;

impl ExprContext for NoContext {
    fn register(&self, _name: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, _name: &str) -> Option<u64> {
        None
    }
    fn is_register_name(&self, _name: &str) -> bool {
        false
    }
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant (a symbol becomes one when parsed).
    Const(u64),
    /// Register read at evaluation time, by the name the user wrote.
    Register(String),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`.
    Sub(Box<Expr>, Box<Expr>),
    /// `a * b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a << b` (0 for a shift by 64 or more).
    Shl(Box<Expr>, Box<Expr>),
    /// `a >> b` (0 for a shift by 64 or more).
    Shr(Box<Expr>, Box<Expr>),
    /// `-a`.
    Neg(Box<Expr>),
}

/// Why an expression failed to parse; `message` is TTU's wording.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ParseError {
    message: String,
}

impl ParseError {
    fn new(message: impl Into<String>) -> Self {
        ParseError {
            message: message.into(),
        }
    }
}

impl Expr {
    /// The tree in TTU's dump syntax, e.g. `(+ (const 1) (register x0))`.
    pub fn display(&self) -> String {
        self.to_string()
    }

    /// Whether the value cannot change over the trace (no register reads).
    pub fn is_constant(&self) -> bool {
        match self {
            Expr::Const(_) => true,
            Expr::Register(_) => false,
            Expr::Neg(a) => a.is_constant(),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Shl(a, b)
            | Expr::Shr(a, b) => a.is_constant() && b.is_constant(),
        }
    }

    /// Evaluates with 64-bit wrapping arithmetic. The only failure is a
    /// register without a value; the message is TTU's (`register name 'x0'`),
    /// which its callers embed in their own sentence.
    pub fn eval(&self, ctx: &dyn ExprContext) -> Result<u64, String> {
        Ok(match self {
            Expr::Const(v) => *v,
            Expr::Register(name) => ctx
                .register(name)
                .ok_or_else(|| format!("register name '{name}'"))?,
            Expr::Add(a, b) => a.eval(ctx)?.wrapping_add(b.eval(ctx)?),
            Expr::Sub(a, b) => a.eval(ctx)?.wrapping_sub(b.eval(ctx)?),
            Expr::Mul(a, b) => a.eval(ctx)?.wrapping_mul(b.eval(ctx)?),
            Expr::Shl(a, b) => {
                let (a, b) = (a.eval(ctx)?, b.eval(ctx)?);
                if b >= 64 {
                    0
                } else {
                    a << b
                }
            }
            Expr::Shr(a, b) => {
                let (a, b) = (a.eval(ctx)?, b.eval(ctx)?);
                if b >= 64 {
                    0
                } else {
                    a >> b
                }
            }
            Expr::Neg(a) => a.eval(ctx)?.wrapping_neg(),
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (op, a, b) = match self {
            Expr::Const(v) => return write!(f, "(const {v})"),
            Expr::Register(name) => return write!(f, "(register {name})"),
            Expr::Neg(a) => return write!(f, "(- {a})"),
            Expr::Add(a, b) => ("+", a, b),
            Expr::Sub(a, b) => ("-", a, b),
            Expr::Mul(a, b) => ("*", a, b),
            Expr::Shl(a, b) => ("<<", a, b),
            Expr::Shr(a, b) => (">>", a, b),
        };
        write!(f, "({op} {a} {b})")
    }
}

/// Parses an expression with no names available (constants only).
#[cfg(test)]
pub fn parse(input: &str) -> crate::Result<Expr> {
    parse_with(input, &NoContext)
}

/// Parses an expression, resolving names through `ctx` the way TTU does:
/// an unscoped identifier is a register if `ctx` says it can be one,
/// otherwise a symbol (which becomes a constant now).
pub fn parse_with(input: &str, ctx: &dyn ExprContext) -> crate::Result<Expr> {
    parse_expression(input, ctx).map_err(|e| crate::Error::Expression(e.message))
}

fn parse_expression(input: &str, ctx: &dyn ExprContext) -> Result<Expr, ParseError> {
    let mut lexer = Lexer::new(input.as_bytes())?;
    let mut parser = Parser {
        lexer: &mut lexer,
        ctx,
    };
    let expr = parser.parse_expr()?;
    if lexer.token != Token::Eof {
        return Err(ParseError::new("unexpected tokens after expression"));
    }
    Ok(expr)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Atom(u64),
    Id,
    LeftShift,
    RightShift,
    Scope,
    Plus,
    Minus,
    Star,
    LParen,
    RParen,
    Bad,
    Eof,
}

struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    token: Token,
    /// Text of the most recent identifier. Deliberately *not* cleared when a
    /// non-identifier token is read: TTU's parser reads it after advancing
    /// past an identifier, so an error for `foo bar` names `bar`, and we
    /// reproduce that.
    id: String,
}

fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

impl<'a> Lexer<'a> {
    fn new(input: &'a [u8]) -> Result<Self, ParseError> {
        let mut lexer = Lexer {
            input,
            pos: 0,
            token: Token::Eof,
            id: String::new(),
        };
        lexer.advance()?;
        Ok(lexer)
    }

    fn peek(&self, offset: usize) -> Option<u8> {
        self.input.get(self.pos + offset).copied()
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.pos;
        while self.pos < self.input.len() && pred(self.input[self.pos]) {
            self.pos += 1;
        }
        &self.input[start..self.pos]
    }

    fn advance(&mut self) -> Result<(), ParseError> {
        self.take_while(|c| c == b'\n' || c == b'\t' || c == b' ');
        let Some(c) = self.peek(0) else {
            self.token = Token::Eof;
            return Ok(());
        };
        if c == b'0' && matches!(self.peek(1), Some(b'x' | b'X')) {
            self.pos += 2;
            let digits = self.take_while(|c| c.is_ascii_hexdigit());
            self.token = Token::Atom(number(digits, 16)?);
            return Ok(());
        }
        if c.is_ascii_digit() {
            let digits = self.take_while(|c| c.is_ascii_digit());
            self.token = Token::Atom(number(digits, 10)?);
            return Ok(());
        }
        if is_id_start(c) {
            let name = self.take_while(|c| is_id_start(c) || c.is_ascii_digit());
            // Identifier bytes are all ASCII, so this cannot fail.
            self.id = String::from_utf8_lossy(name).into_owned();
            self.token = Token::Id;
            return Ok(());
        }
        let pair = (c, self.peek(1));
        let two = match pair {
            (b'<', Some(b'<')) => Some(Token::LeftShift),
            (b'>', Some(b'>')) => Some(Token::RightShift),
            (b':', Some(b':')) => Some(Token::Scope),
            _ => None,
        };
        if let Some(token) = two {
            self.pos += 2;
            self.token = token;
            return Ok(());
        }
        self.pos += 1;
        self.token = match c {
            b'+' => Token::Plus,
            b'-' => Token::Minus,
            b'*' => Token::Star,
            b'(' => Token::LParen,
            b')' => Token::RParen,
            _ => Token::Bad,
        };
        Ok(())
    }
}

fn number(digits: &[u8], radix: u32) -> Result<u64, ParseError> {
    if digits.is_empty() {
        return Err(ParseError::new("expected hex digits after '0x'"));
    }
    // Digits are ASCII by construction.
    let text = std::str::from_utf8(digits).unwrap_or_default();
    u64::from_str_radix(text, radix)
        .map_err(|_| ParseError::new(format!("integer constant '{text}' does not fit in 64 bits")))
}

struct Parser<'l, 'a> {
    lexer: &'l mut Lexer<'a>,
    ctx: &'l dyn ExprContext,
}

impl Parser<'_, '_> {
    fn register(&self, name: &str) -> Option<Expr> {
        self.ctx
            .is_register_name(name)
            .then(|| Expr::Register(name.to_string()))
    }

    fn symbol(&self, name: &str) -> Option<Expr> {
        self.ctx.symbol(name).map(Expr::Const)
    }

    fn parse_unary(&mut self) -> Result<Expr, ParseError> {
        while self.lexer.token == Token::Plus {
            self.lexer.advance()?;
        }
        match self.lexer.token {
            Token::Atom(value) => {
                self.lexer.advance()?;
                Ok(Expr::Const(value))
            }
            Token::Id => {
                let id1 = self.lexer.id.clone();
                self.lexer.advance()?;
                if self.lexer.token == Token::Scope {
                    self.lexer.advance()?;
                    if self.lexer.token != Token::Id {
                        return Err(ParseError::new("expected an identifier after '::'"));
                    }
                    let name = self.lexer.id.clone();
                    let expr = match id1.as_str() {
                        "reg" => self.register(&name).ok_or_else(|| {
                            ParseError::new(format!("unrecognised register name '{name}'"))
                        })?,
                        "sym" => self.symbol(&name).ok_or_else(|| {
                            ParseError::new(format!("unrecognised symbol name '{name}'"))
                        })?,
                        _ => {
                            return Err(ParseError::new(format!(
                                "unrecognised identifier scope '{id1}'"
                            )))
                        }
                    };
                    self.lexer.advance()?;
                    Ok(expr)
                } else {
                    // TTU looks the symbol up under the lexer's *current*
                    // identifier, which is the following token's if that is
                    // also an identifier. Either way the parse then fails, so
                    // this only changes which name the error message gives.
                    let later = self.lexer.id.clone();
                    self.register(&id1)
                        .or_else(|| self.symbol(&later))
                        .ok_or_else(|| {
                            ParseError::new(format!("unrecognised identifier name '{later}'"))
                        })
                }
            }
            Token::LParen => {
                self.lexer.advance()?;
                let expr = self.parse_expr()?;
                if self.lexer.token != Token::RParen {
                    return Err(ParseError::new("expected closing ')'"));
                }
                self.lexer.advance()?;
                Ok(expr)
            }
            Token::Minus => {
                self.lexer.advance()?;
                Ok(Expr::Neg(Box::new(self.parse_unary()?)))
            }
            Token::Eof => Err(ParseError::new("unexpected end of expression")),
            _ => Err(ParseError::new("unexpected token")),
        }
    }

    fn parse_mul(&mut self) -> Result<Expr, ParseError> {
        let mut expr = self.parse_unary()?;
        while self.lexer.token == Token::Star {
            self.lexer.advance()?;
            expr = Expr::Mul(Box::new(expr), Box::new(self.parse_unary()?));
        }
        Ok(expr)
    }

    fn parse_add(&mut self) -> Result<Expr, ParseError> {
        let mut expr = self.parse_mul()?;
        loop {
            let op = self.lexer.token;
            let make: fn(Box<Expr>, Box<Expr>) -> Expr = match op {
                Token::Plus => Expr::Add,
                Token::Minus => Expr::Sub,
                _ => return Ok(expr),
            };
            self.lexer.advance()?;
            expr = make(Box::new(expr), Box::new(self.parse_mul()?));
        }
    }

    fn parse_expr(&mut self) -> Result<Expr, ParseError> {
        let mut expr = self.parse_add()?;
        loop {
            let make: fn(Box<Expr>, Box<Expr>) -> Expr = match self.lexer.token {
                Token::LeftShift => Expr::Shl,
                Token::RightShift => Expr::Shr,
                _ => return Ok(expr),
            };
            self.lexer.advance()?;
            expr = make(Box::new(expr), Box::new(self.parse_add()?));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Regs;
    impl ExprContext for Regs {
        fn register(&self, name: &str) -> Option<u64> {
            (name == "x0").then_some(0x1000)
        }
        fn symbol(&self, name: &str) -> Option<u64> {
            (name == "main").then_some(0x400000)
        }
    }

    fn eval(s: &str) -> Result<u64, String> {
        parse_with(s, &Regs).map_err(|e| e.to_string())?.eval(&Regs)
    }

    #[test]
    fn constants() {
        assert_eq!(eval("010"), Ok(10), "leading zero is not octal");
        assert_eq!(eval("0XfF"), Ok(255));
        assert_eq!(eval("18446744073709551615"), Ok(u64::MAX));
        assert!(parse("18446744073709551616").is_err());
        assert!(parse("0x").is_err());
        assert!(parse("0x10000000000000000").is_err());
    }

    #[test]
    fn names() {
        assert_eq!(eval("x0 + 4"), Ok(0x1004));
        assert_eq!(eval("main + 0x10"), Ok(0x400010));
        assert_eq!(eval("sym::main"), Ok(0x400000));
        assert_eq!(
            eval("X0"),
            Err("register name 'X0'".into()),
            "known name, no value"
        );
        assert_eq!(eval("r1"), Err("register name 'r1'".into()));
        assert_eq!(
            eval("nosuch"),
            Err("unrecognised identifier name 'nosuch'".into())
        );
        assert_eq!(
            eval("reg::main"),
            Err("unrecognised register name 'main'".into())
        );
        // TTU's stale-identifier quirk: the error names the second word.
        assert_eq!(
            eval("nosuch other"),
            Err("unrecognised identifier name 'other'".into())
        );
        assert_eq!(
            eval("nosuch main"),
            Err("unexpected tokens after expression".into())
        );
    }

    #[test]
    fn shifts_and_wrapping() {
        assert_eq!(eval("1 << 64"), Ok(0));
        assert_eq!(eval("-1 >> 64"), Ok(0));
        assert_eq!(eval("-1 >> 63"), Ok(1));
        assert_eq!(eval("0 - 1"), Ok(u64::MAX));
        assert_eq!(eval("--5"), Ok(5));
        assert_eq!(eval("+-+5"), Ok(5u64.wrapping_neg()));
    }

    #[test]
    fn whitespace_and_bad_bytes() {
        assert_eq!(Lexer::new(b" \t\n").map(|l| l.token), Ok(Token::Eof));
        assert_ne!(Lexer::new(b"\r").map(|l| l.token), Ok(Token::Eof));
        assert_eq!(
            eval("1\r"),
            Err("unexpected tokens after expression".into())
        );
        assert_eq!(eval("é"), Err("unexpected token".into()));
        assert_eq!(
            eval("1 ;"),
            Err("unexpected tokens after expression".into())
        );
    }

    #[test]
    fn display_and_constness() {
        let e = parse_with("-(x0 + main) * 2", &Regs).unwrap();
        assert_eq!(
            e.display(),
            "(* (- (+ (register x0) (const 4194304))) (const 2))"
        );
        assert!(!e.is_constant());
        assert!(parse("1 << 2").unwrap().is_constant());
    }
}
