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
