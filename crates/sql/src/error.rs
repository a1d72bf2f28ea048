//! A query's error as a person reads it: the engine's message, where in
//! the query it is (line and column, from the engine's diagnostic or the
//! parser's message), and that line of the query with a caret under it.

use datafusion::error::DataFusionError;

/// A query that failed: what went wrong and where.
#[derive(Debug)]
pub struct QueryError {
    /// The engine's message, without its error-kind prefix noise.
    pub message: String,
    /// Line and column (from 1) in the query, when known.
    pub position: Option<(u64, u64)>,
    /// The query's line there, to show under the message.
    context: Option<String>,
}

impl QueryError {
    /// `e`, raised by `sql`.
    pub fn new(e: DataFusionError, sql: &str) -> QueryError {
        let diagnostic = e.iter().find_map(|e| e.diagnostic());
        let mut message = e.find_root().strip_backtrace();
        let mut position = diagnostic
            .and_then(|d| d.span)
            .filter(|s| s.start.line > 0)
            .map(|s| (s.start.line, s.start.column));
        if let Some(d) = diagnostic {
            if !d.message.is_empty() && !message.contains(&d.message) {
                message = format!("{message}: {}", d.message);
            }
        }
        if position.is_none() {
            position = parser_position(&message);
        }
        // The parser gives no position for the query's end.
        if position.is_none() && message.contains("found: EOF") {
            let lines = sql.trim_end().lines().count().max(1);
            let last = sql.trim_end().lines().last().unwrap_or("");
            position = Some((lines as u64, last.chars().count() as u64 + 1));
        }
        if message.contains("not found") && message.contains("table") {
            let names: Vec<&str> = crate::Table::ALL.iter().map(|t| t.name()).collect();
            message = format!("{message} (the tables: {})", names.join(", "));
        }
        let context = position.and_then(|(line, column)| {
            let text = sql.lines().nth(line.checked_sub(1)? as usize)?;
            let pad = " ".repeat(column.saturating_sub(1) as usize);
            Some(format!("  {text}\n  {pad}^"))
        });
        QueryError {
            message,
            position,
            context,
        }
    }
}

/// sqlparser's "... at Line: 3, Column: 7".
fn parser_position(message: &str) -> Option<(u64, u64)> {
    let at = message.rfind("Line: ")?;
    let rest = &message[at + 6..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, column.parse().ok()?))
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "query error at line {line}, column {column}: ")?,
            None => write!(f, "query error: ")?,
        }
        write!(f, "{}", self.message)?;
        if let Some(c) = &self.context {
            write!(f, "\n{c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for QueryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parser_position_is_read_from_its_message() {
        assert_eq!(
            parser_position(
                "sql parser error: Expected: end of statement, found: x at Line: 2, Column: 15"
            ),
            Some((2, 15))
        );
        assert_eq!(parser_position("no position"), None);
    }
}
