//! Registers and memory ranges as a person names them to watch or explain
//! (`x5`, `[sp:0x40]`, `buf:64`), and as the panes name them back.

use crate::i18n::{t, tf};
use tarmac_lens_core::protocol::WriteTarget;

/// `x5` names a register; `[sp:0x40]`, `buf:64`, `0x1000` memory (the
/// address an expression evaluated at the position, the length 1 unless
/// given): the condition grammar's memory brackets, or a length.
pub fn parse_target(text: &str) -> Result<(Option<String>, String, u64), String> {
    let inner = text
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .map(str::trim);
    let bracketed = inner.is_some();
    let body = inner.unwrap_or(text);
    let (expr, len) = match body.rsplit_once(':') {
        Some((e, n)) => match super::hash::number(n.trim()) {
            Some(0) => return Err(t("The length is 0.").into()),
            Some(len) => (e.trim(), len),
            None => (body, 1),
        },
        None => (body, 1),
    };
    if expr.is_empty() {
        return Err(tf("{} is not a register or a memory range.", &[&text]));
    }
    let register =
        !bracketed && len == 1 && !body.contains(':') && tarmac_lens_core::is_register_name(expr);
    Ok((register.then(|| expr.to_string()), expr.to_string(), len))
}

/// How a watched or explained register or memory range is named.
pub fn target_label(target: &WriteTarget) -> String {
    match target {
        WriteTarget::Register(r) => r.clone(),
        WriteTarget::Memory { addr, len } => format!("[{addr:#x}:{len}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_target;

    #[test]
    fn registers_and_memory_are_told_apart() {
        assert_eq!(parse_target("x5"), Ok((Some("x5".into()), "x5".into(), 1)));
        assert_eq!(parse_target("sp"), Ok((Some("sp".into()), "sp".into(), 1)));
        assert_eq!(parse_target("[sp]"), Ok((None, "sp".into(), 1)));
        assert_eq!(parse_target("[sp:0x40]"), Ok((None, "sp".into(), 64)));
        assert_eq!(parse_target("buf:64"), Ok((None, "buf".into(), 64)));
        assert_eq!(parse_target("0x1000"), Ok((None, "0x1000".into(), 1)));
        assert_eq!(parse_target("sp+8:4"), Ok((None, "sp+8".into(), 4)));
        assert!(parse_target("buf:0").is_err());
        assert!(parse_target(":4").is_err());
    }
}
