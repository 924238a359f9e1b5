//! The one error type of the SQL front end: a message with the line and column it points at.

use std::fmt;

/// A position in the script: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: u64,
    /// Column, from 1 (characters, not bytes).
    pub column: u64,
}

impl Pos {
    /// A position.
    pub fn new(line: u64, column: u64) -> Self {
        Self { line, column }
    }

    /// Character offset of this position in `text` (clamped to its line's end, or to the
    /// text's end for a line past it): where an editor puts the cursor.
    pub fn char_offset(&self, text: &str) -> usize {
        let mut offset = 0;
        for (n, line) in text.split('\n').enumerate() {
            let length = line.chars().count();
            if n as u64 + 1 == self.line {
                return offset + (self.column.saturating_sub(1) as usize).min(length);
            }
            offset += length + 1;
        }
        offset.saturating_sub(1)
    }

    /// The line of `text` this position is on, numbered, with a caret under the column.
    pub fn excerpt(&self, text: &str) -> Option<String> {
        let line = text.split('\n').nth(self.line.checked_sub(1)? as usize)?;
        let pad = " ".repeat(self.column.saturating_sub(1) as usize);
        Some(format!("{:>4} | {line}\n     | {pad}^", self.line))
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What kind of problem an error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not valid Flink SQL.
    Syntax,
    /// The statement parses but breaks a Flink or Paimon rule.
    Validation,
    /// The statement is valid Flink SQL that lakescope does not support.
    Unsupported,
}

/// A parse or validation error, pointing at the offending token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {}, column {}: {message}", pos.line, pos.column)]
pub struct SqlError {
    /// Where the offending token starts.
    pub pos: Pos,
    /// Syntax, validation or unsupported.
    pub kind: ErrorKind,
    /// The message, without the position.
    pub message: String,
}

impl SqlError {
    /// A syntax error.
    pub fn syntax(pos: Pos, message: impl Into<String>) -> Self {
        Self {
            pos,
            kind: ErrorKind::Syntax,
            message: message.into(),
        }
    }

    /// A validation error.
    pub fn validation(pos: Pos, message: impl Into<String>) -> Self {
        Self {
            pos,
            kind: ErrorKind::Validation,
            message: message.into(),
        }
    }

    /// An unsupported-feature error.
    pub fn unsupported(pos: Pos, message: impl Into<String>) -> Self {
        Self {
            pos,
            kind: ErrorKind::Unsupported,
            message: message.into(),
        }
    }
}

/// Result with [`SqlError`].
pub type Result<T> = std::result::Result<T, SqlError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_excerpts_point_at_the_column() {
        let script = "SELECT 1;\nSELEC x FROM t;";
        assert_eq!(Pos::new(2, 1).char_offset(script), 10);
        assert_eq!(Pos::new(2, 7).char_offset(script), 16);
        assert_eq!(Pos::new(1, 99).char_offset(script), 9);
        assert_eq!(Pos::new(7, 1).char_offset(script), script.chars().count());
        assert_eq!(
            Pos::new(2, 7).excerpt(script).as_deref(),
            Some("   2 | SELEC x FROM t;\n     |       ^")
        );
        assert_eq!(Pos::new(9, 1).excerpt(script), None);
        assert_eq!(Pos::new(0, 1).excerpt(script), None);
    }
}
