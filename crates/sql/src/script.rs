//! Splits a multi-statement script into statements (on `;` tokens, so strings and comments are safe).

use crate::dialect::FlinkDialect;
use crate::error::{Pos, SqlError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

/// One statement of a script, still as tokens.
#[derive(Debug, Clone)]
pub struct StatementSource {
    /// Statement number in the script, from 1.
    pub number: usize,
    /// Where the statement's first token starts.
    pub pos: Pos,
    /// The statement text (first to last token, without the `;`).
    pub text: String,
    /// Byte range of `text` in the script.
    pub byte_range: std::ops::Range<usize>,
    /// All tokens of the statement, comments included, whitespace excluded.
    pub tokens: Vec<TokenWithSpan>,
    /// Set when the tokenizer failed inside this statement (the rest of the script).
    pub error: Option<SqlError>,
}

/// Maps tokenizer locations (line, character column) to byte offsets.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        Self { text, starts }
    }

    /// The text between two locations.
    pub(crate) fn slice(&self, a: Location, b: Location) -> String {
        let (x, y) = (self.offset(a), self.offset(b));
        self.text.get(x..y.max(x)).unwrap_or("").to_string()
    }

    /// Byte offset of a location (clamped to the text).
    pub(crate) fn offset(&self, loc: Location) -> usize {
        let line = (loc.line.max(1) - 1) as usize;
        let Some(&start) = self.starts.get(line) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let line_text = self.text.get(start..end).unwrap_or("");
        let col = (loc.column.max(1) - 1) as usize;
        match line_text.char_indices().nth(col) {
            Some((i, _)) => start + i,
            None => end,
        }
    }
}

/// Tokenizes `sql` with the Flink dialect; on error returns the tokens before the error too.
pub(crate) fn tokenize(sql: &str) -> (Vec<TokenWithSpan>, Option<SqlError>) {
    let dialect = FlinkDialect;
    let mut buf = Vec::new();
    let mut tokenizer = Tokenizer::new(&dialect, sql);
    match tokenizer.tokenize_with_location_into_buf(&mut buf) {
        Ok(()) => (buf, None),
        Err(e) => {
            let pos = Pos::new(e.location.line.max(1), e.location.column.max(1));
            (buf, Some(SqlError::syntax(pos, e.message)))
        }
    }
}

/// Whether a token is a comment.
pub(crate) fn is_comment(t: &Token) -> bool {
    matches!(
        t,
        Token::Whitespace(Whitespace::SingleLineComment { .. })
            | Token::Whitespace(Whitespace::MultiLineComment(_))
    )
}

fn is_space(t: &Token) -> bool {
    matches!(t, Token::Whitespace(_)) && !is_comment(t)
}

/// Splits a script into statements numbered from 1; empty statements (only comments) are skipped.
/// A tokenizer error (e.g. an unterminated string) makes the statement it occurs in the last one,
/// carrying the error.
pub fn split_script(sql: &str) -> Vec<StatementSource> {
    let (tokens, error) = tokenize(sql);
    let index = LineIndex::new(sql);
    let mut out = Vec::new();
    let mut current: Vec<TokenWithSpan> = Vec::new();
    let flush = |current: &mut Vec<TokenWithSpan>,
                 error: Option<SqlError>,
                 out: &mut Vec<StatementSource>| {
        let toks = std::mem::take(current);
        let first = toks.iter().find(|t| !is_comment(&t.token));
        // Trailing block comments (hints such as `/*+ OPTIONS(...) */`) belong to the statement.
        let last = toks.iter().rev().find(|t| {
            !matches!(
                t.token,
                Token::Whitespace(Whitespace::SingleLineComment { .. })
            )
        });
        let (first, last) = match (first, last, &error) {
            (Some(f), Some(l), _) => (f.span.start, l.span.end),
            (None, _, Some(e)) => {
                let loc = Location::new(e.pos.line, e.pos.column);
                (loc, loc)
            }
            _ => return,
        };
        let start = index.offset(first);
        let end = match &error {
            Some(_) => sql.len(),
            None => index.offset(last),
        }
        .max(start);
        out.push(StatementSource {
            number: out.len() + 1,
            pos: Pos::new(first.line, first.column),
            text: sql.get(start..end).unwrap_or("").to_string(),
            byte_range: start..end,
            tokens: toks,
            error,
        });
    };
    for t in tokens {
        match &t.token {
            Token::SemiColon => flush(&mut current, None, &mut out),
            tok if is_space(tok) => {}
            _ => current.push(t),
        }
    }
    flush(&mut current, error, &mut out);
    out
}
