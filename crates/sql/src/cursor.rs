//! A cursor over one statement's tokens (comments set aside) with the small helpers the front end needs.

use crate::ast::{Ident, ObjectName, OptionEntry};
use crate::dialect::FlinkDialect;
use crate::error::{Pos, Result, SqlError};
use crate::script::is_comment;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

/// A block comment kept with the index of the significant token it follows.
#[derive(Debug, Clone)]
pub(crate) struct Comment {
    /// Comment text without `/*` and `*/`.
    pub text: String,
    /// Start of the comment.
    pub start: Location,
    /// Number of significant tokens before the comment.
    pub after: usize,
}

/// Cursor over significant tokens.
pub(crate) struct Cursor {
    pub toks: Vec<TokenWithSpan>,
    pub comments: Vec<Comment>,
    pub i: usize,
    /// A `>` left over after splitting a `>>` token.
    pending_gt: bool,
    end: Location,
}

fn loc_pos(l: Location) -> Pos {
    Pos::new(l.line.max(1), l.column.max(1))
}

/// Renders a token for an error message.
pub(crate) fn describe(t: &Token) -> String {
    match t {
        Token::EOF => "end of statement".to_string(),
        Token::SingleQuotedString(s) => format!("'{s}'"),
        other => format!("\"{other}\""),
    }
}

impl Cursor {
    pub(crate) fn new(all: &[TokenWithSpan]) -> Self {
        let mut toks = Vec::new();
        let mut comments = Vec::new();
        for t in all {
            if is_comment(&t.token) {
                if let Token::Whitespace(Whitespace::MultiLineComment(text)) = &t.token {
                    comments.push(Comment {
                        text: text.clone(),
                        start: t.span.start,
                        after: toks.len(),
                    });
                }
            } else if !matches!(t.token, Token::Whitespace(_)) {
                toks.push(t.clone());
            }
        }
        let end = toks
            .last()
            .map(|t| t.span.end)
            .unwrap_or(Location::new(1, 1));
        Self {
            toks,
            comments,
            i: 0,
            pending_gt: false,
            end,
        }
    }

    pub(crate) fn peek(&self) -> &Token {
        self.peek_nth(0)
    }

    pub(crate) fn peek_nth(&self, n: usize) -> &Token {
        self.toks
            .get(self.i + n)
            .map(|t| &t.token)
            .unwrap_or(&Token::EOF)
    }

    pub(crate) fn at_end(&self) -> bool {
        self.i >= self.toks.len()
    }

    /// Position of the current token (the end of the statement at its end).
    pub(crate) fn pos(&self) -> Pos {
        self.pos_at(self.i)
    }

    pub(crate) fn pos_at(&self, i: usize) -> Pos {
        loc_pos(self.toks.get(i).map(|t| t.span.start).unwrap_or(self.end))
    }

    pub(crate) fn advance(&mut self) {
        if self.i < self.toks.len() {
            self.i += 1;
        }
    }

    pub(crate) fn err<T>(&self, expected: &str) -> Result<T> {
        Err(SqlError::syntax(
            self.pos(),
            format!("expected {expected}, found {}", describe(self.peek())),
        ))
    }

    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_at(0, kw)
    }

    pub(crate) fn is_kw_at(&self, n: usize, kw: &str) -> bool {
        matches!(self.peek_nth(n), Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
    }

    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Eats all keywords in order, or none.
    pub(crate) fn eat_kws(&mut self, kws: &[&str]) -> bool {
        if kws.iter().enumerate().all(|(n, k)| self.is_kw_at(n, k)) {
            self.i += kws.len();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect_kw(&mut self, kw: &str) -> Result<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.err(kw)
        }
    }

    pub(crate) fn expect_kws(&mut self, kws: &[&str]) -> Result<()> {
        for k in kws {
            self.expect_kw(k)?;
        }
        Ok(())
    }

    pub(crate) fn is(&self, t: &Token) -> bool {
        self.peek() == t
    }

    pub(crate) fn eat(&mut self, t: &Token) -> bool {
        if self.is(t) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, t: &Token) -> Result<()> {
        if self.eat(t) {
            Ok(())
        } else {
            self.err(&format!("\"{t}\""))
        }
    }

    /// Expects `>`, splitting `>>` (as in `ARRAY<ROW<a INT>>`).
    pub(crate) fn expect_gt(&mut self) -> Result<()> {
        if self.pending_gt {
            self.pending_gt = false;
            self.advance();
            return Ok(());
        }
        match self.peek() {
            Token::Gt => {
                self.advance();
                Ok(())
            }
            Token::ShiftRight => {
                self.pending_gt = true;
                Ok(())
            }
            _ => self.err("\">\""),
        }
    }

    /// Whether the next token is a `>` (or the second half of a `>>`).
    pub(crate) fn is_gt(&self) -> bool {
        self.pending_gt || matches!(self.peek(), Token::Gt | Token::ShiftRight)
    }

    /// An identifier (plain or backquoted).
    pub(crate) fn ident(&mut self) -> Result<Ident> {
        match self.peek().clone() {
            Token::Word(w) => {
                let pos = self.pos();
                self.advance();
                Ok(Ident { name: w.value, pos })
            }
            _ => self.err("an identifier"),
        }
    }

    /// `a`, `a.b` or `a.b.c`.
    pub(crate) fn object_name(&mut self) -> Result<ObjectName> {
        let first = self.ident()?;
        let pos = first.pos;
        let mut parts = vec![first.name];
        while self.is(&Token::Period) {
            self.advance();
            parts.push(self.ident()?.name);
        }
        if parts.len() > 3 {
            return Err(SqlError::syntax(
                pos,
                format!(
                    "object name '{}' has more than three parts (catalog.database.object)",
                    parts.join(".")
                ),
            ));
        }
        Ok(ObjectName { parts, pos })
    }

    /// A single-quoted string literal.
    pub(crate) fn string(&mut self) -> Result<(String, Pos)> {
        match self.peek().clone() {
            Token::SingleQuotedString(s) => {
                let pos = self.pos();
                self.advance();
                Ok((s, pos))
            }
            _ => self.err("a string literal"),
        }
    }

    /// An unsigned integer literal.
    pub(crate) fn integer(&mut self) -> Result<(u64, Pos)> {
        let pos = self.pos();
        match self.peek().clone() {
            Token::Number(n, _) => match n.parse::<u64>() {
                Ok(v) => {
                    self.advance();
                    Ok((v, pos))
                }
                Err(_) => Err(SqlError::syntax(
                    pos,
                    format!("expected an integer, found {n}"),
                )),
            },
            _ => self.err("an integer"),
        }
    }

    /// `( 'k' = 'v' , ... )`.
    pub(crate) fn options(&mut self) -> Result<Vec<OptionEntry>> {
        self.expect(&Token::LParen)?;
        let mut out = Vec::new();
        if self.eat(&Token::RParen) {
            return Ok(out);
        }
        loop {
            let (key, key_pos) = self.string()?;
            self.expect(&Token::Eq)?;
            let (value, value_pos) = self.string()?;
            out.push(OptionEntry {
                key,
                value,
                key_pos,
                value_pos,
            });
            if self.eat(&Token::RParen) {
                return Ok(out);
            }
            self.expect(&Token::Comma)?;
        }
    }

    /// `( ident , ... )`.
    pub(crate) fn ident_list(&mut self) -> Result<Vec<Ident>> {
        self.expect(&Token::LParen)?;
        let mut out = vec![self.ident()?];
        while self.eat(&Token::Comma) {
            out.push(self.ident()?);
        }
        self.expect(&Token::RParen)?;
        Ok(out)
    }

    /// Index of the first token at depth 0 (from the cursor) for which `stop` holds, or the end.
    pub(crate) fn scan_to(&self, stop: impl Fn(&Token) -> bool) -> usize {
        let mut depth = 0i32;
        for (k, t) in self.toks.iter().enumerate().skip(self.i) {
            match &t.token {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket if depth > 0 => depth -= 1,
                tok if depth == 0 && stop(tok) => return k,
                _ => {}
            }
        }
        self.toks.len()
    }

    /// Source text of the tokens `from..to` (as written, from the script).
    pub(crate) fn text(&self, src: &crate::script::LineIndex, from: usize, to: usize) -> String {
        if from >= to {
            return String::new();
        }
        let (Some(a), Some(b)) = (self.toks.get(from), self.toks.get(to - 1)) else {
            return String::new();
        };
        src.slice(a.span.start, b.span.end)
    }

    /// Runs a sqlparser function on tokens `from..to`, requiring it to consume them all.
    pub(crate) fn sub_parse<T>(
        &self,
        from: usize,
        to: usize,
        f: impl FnOnce(&mut Parser) -> std::result::Result<T, ParserError>,
    ) -> Result<T> {
        let toks: Vec<TokenWithSpan> = self
            .toks
            .get(from..to)
            .map(|s| s.to_vec())
            .unwrap_or_default();
        self.sub_parse_tokens(toks, f)
    }

    /// Runs a sqlparser function on `toks`, requiring it to consume them all.
    pub(crate) fn sub_parse_tokens<T>(
        &self,
        toks: Vec<TokenWithSpan>,
        f: impl FnOnce(&mut Parser) -> std::result::Result<T, ParserError>,
    ) -> Result<T> {
        let end = toks.last().map(|t| t.span.end).unwrap_or(self.end);
        let dialect = FlinkDialect;
        let mut parser = Parser::new(&dialect).with_tokens_with_locations(toks);
        let result = f(&mut parser);
        match result {
            Ok(v) => {
                let next = parser.peek_token_ref();
                if next.token != Token::EOF {
                    return Err(SqlError::syntax(
                        loc_pos(next.span.start),
                        format!("unexpected {}", describe(&next.token)),
                    ));
                }
                Ok(v)
            }
            Err(e) => {
                let raw = match e {
                    ParserError::ParserError(m) | ParserError::TokenizerError(m) => m,
                    ParserError::RecursionLimitExceeded => {
                        "expression nested too deeply".to_string()
                    }
                };
                let (msg, pos) = split_location(&raw).unwrap_or_else(|| {
                    let cur = parser.peek_token_ref();
                    let l = if cur.token == Token::EOF {
                        end
                    } else {
                        cur.span.start
                    };
                    (raw.clone(), loc_pos(l))
                });
                Err(SqlError::syntax(pos, msg))
            }
        }
    }
}

/// Splits sqlparser's "... at Line: L, Column: C" suffix off a message.
fn split_location(msg: &str) -> Option<(String, Pos)> {
    let at = msg.rfind(" at Line: ")?;
    let rest = &msg[at + " at Line: ".len()..];
    let (line, col) = rest.split_once(", Column: ")?;
    let line: u64 = line.trim().parse().ok()?;
    let col: u64 = col.trim().parse().ok()?;
    if line == 0 {
        return None;
    }
    let text = msg[..at]
        .replace("Expected: ", "expected ")
        .replacen("Expected ", "expected ", 1);
    Some((text, Pos::new(line, col.max(1))))
}

/// A span's start as a position.
pub(crate) fn span_pos(s: &Span) -> Pos {
    loc_pos(s.start)
}
