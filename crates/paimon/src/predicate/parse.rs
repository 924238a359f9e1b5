//! A tiny filter expression syntax (`a = 'x' AND (n >= 3 OR b IS NULL)`) parsed into a [`Predicate`].
//!
//! Grammar: `expr := and (OR and)*`, `and := not (AND not)*`, `not := NOT not | '(' expr ')' |
//! leaf`; leaves are `col (=|<>|!=|<|<=|>|>=) lit`, `col IS [NOT] NULL`, `col [NOT] IN (lit, ...)`
//! and `col LIKE 'prefix%'`. Literals: `'text'` (`''` escapes a quote), numbers (integers,
//! decimals, `1e3` doubles), `TRUE`, `FALSE`, `NULL`. Columns are bare words or `` `quoted` ``.
//! Keywords are case-insensitive. Dates and timestamps are written as strings and converted to
//! the column type when the predicate is bound.

use super::bind::parse_decimal;
use super::{Op, Predicate};
use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Str(String),
    Num(String),
    Sym(&'static str),
}

/// Parses a filter expression.
pub fn parse(text: &str) -> Result<Predicate> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0, text };
    let e = p.or()?;
    if p.pos != p.toks.len() {
        return Err(p.err("unexpected input"));
    }
    Ok(e)
}

fn lex(text: &str) -> Result<Vec<Tok>> {
    let err = |at: usize, what: &str| Error::Invalid(format!("filter '{text}': {what} at {at}"));
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' || c == '`' {
            let mut s = String::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err(err(i, "unterminated quote")),
                    Some(&q) if q == c && b.get(i + 1) == Some(&c) => {
                        s.push(c);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&x) => {
                        s.push(x);
                        i += 1;
                    }
                }
            }
            out.push(if c == '\'' {
                Tok::Str(s)
            } else {
                Tok::Quoted(s)
            });
        } else if c.is_ascii_digit()
            || ((c == '-' || c == '.') && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == '.'
                    || ((b[i] == '-' || b[i] == '+') && matches!(b[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            out.push(Tok::Num(b[start..i].iter().collect()));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '$') {
                i += 1;
            }
            out.push(Tok::Word(b[start..i].iter().collect()));
        } else {
            let two: String = b[i..(i + 2).min(b.len())].iter().collect();
            let sym = match two.as_str() {
                "<=" => Some("<="),
                ">=" => Some(">="),
                "<>" | "!=" => Some("<>"),
                _ => None,
            };
            if let Some(s) = sym {
                out.push(Tok::Sym(s));
                i += 2;
                continue;
            }
            let sym = match c {
                '=' => "=",
                '<' => "<",
                '>' => ">",
                '(' => "(",
                ')' => ")",
                ',' => ",",
                _ => return Err(err(i, &format!("unexpected character '{c}'"))),
            };
            out.push(Tok::Sym(sym));
            i += 1;
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> Error {
        let near = match self.toks.get(self.pos) {
            Some(Tok::Word(w)) | Some(Tok::Num(w)) => format!("'{w}'"),
            Some(Tok::Quoted(w)) => format!("`{w}`"),
            Some(Tok::Str(s)) => format!("'{s}' (string)"),
            Some(Tok::Sym(s)) => format!("'{s}'"),
            None => "end of input".into(),
        };
        Error::Invalid(format!("filter '{}': {what} near {near}", self.text))
    }

    fn keyword(&mut self, kw: &str) -> bool {
        match self.toks.get(self.pos) {
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw) => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    fn sym(&mut self, s: &str) -> bool {
        if self.toks.get(self.pos) == Some(&Tok::Sym(static_sym(s))) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Predicate> {
        let mut parts = vec![self.and()?];
        while self.keyword("OR") {
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Predicate::Or(parts)
        })
    }

    fn and(&mut self) -> Result<Predicate> {
        let mut parts = vec![self.not()?];
        while self.keyword("AND") {
            parts.push(self.not()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Predicate::And(parts)
        })
    }

    fn not(&mut self) -> Result<Predicate> {
        if self.keyword("NOT") {
            return Ok(Predicate::Not(Box::new(self.not()?)));
        }
        if self.sym("(") {
            let e = self.or()?;
            if !self.sym(")") {
                return Err(self.err("expected ')'"));
            }
            return Ok(e);
        }
        self.leaf()
    }

    fn leaf(&mut self) -> Result<Predicate> {
        let column = match self.toks.get(self.pos) {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => w.clone(),
            _ => return Err(self.err("expected a column name")),
        };
        self.pos += 1;
        if self.keyword("IS") {
            let negated = self.keyword("NOT");
            if !self.keyword("NULL") {
                return Err(self.err("expected NULL"));
            }
            let op = if negated { Op::IsNotNull } else { Op::IsNull };
            return Ok(Predicate::leaf(column, op, Vec::new()));
        }
        let negated = self.keyword("NOT");
        if self.keyword("IN") {
            if !self.sym("(") {
                return Err(self.err("expected '(' after IN"));
            }
            let mut lits = vec![self.literal()?];
            while self.sym(",") {
                lits.push(self.literal()?);
            }
            if !self.sym(")") {
                return Err(self.err("expected ')' after the IN list"));
            }
            let op = if negated { Op::NotIn } else { Op::In };
            return Ok(Predicate::leaf(column, op, lits));
        }
        if self.keyword("LIKE") {
            let pattern = match self.toks.get(self.pos) {
                Some(Tok::Str(s)) => s.clone(),
                _ => return Err(self.err("LIKE needs a string pattern")),
            };
            let prefix = pattern
                .strip_suffix('%')
                .filter(|p| !p.contains(['%', '_']))
                .ok_or_else(|| self.err("only LIKE 'prefix%' is supported"))?;
            self.pos += 1;
            let p = Predicate::leaf(column, Op::StartsWith, vec![Datum::String(prefix.into())]);
            return Ok(if negated {
                Predicate::Not(Box::new(p))
            } else {
                p
            });
        }
        if negated {
            return Err(self.err("expected IN or LIKE after NOT"));
        }
        let op = match self.toks.get(self.pos) {
            Some(Tok::Sym("=")) => Op::Eq,
            Some(Tok::Sym("<>")) => Op::NotEq,
            Some(Tok::Sym("<")) => Op::Lt,
            Some(Tok::Sym("<=")) => Op::LtEq,
            Some(Tok::Sym(">")) => Op::Gt,
            Some(Tok::Sym(">=")) => Op::GtEq,
            _ => return Err(self.err("expected a comparison, IS, IN or LIKE")),
        };
        self.pos += 1;
        let lit = self.literal()?;
        Ok(Predicate::leaf(column, op, vec![lit]))
    }

    fn literal(&mut self) -> Result<Datum> {
        let tok = self.toks.get(self.pos).cloned();
        let d = match tok {
            Some(Tok::Str(s)) => Datum::String(s),
            Some(Tok::Num(n)) => number(&n).ok_or_else(|| self.err("bad number"))?,
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("NULL") => Datum::Null,
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("TRUE") => Datum::Boolean(true),
            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("FALSE") => Datum::Boolean(false),
            _ => return Err(self.err("expected a literal")),
        };
        self.pos += 1;
        Ok(d)
    }
}

fn static_sym(s: &str) -> &'static str {
    ["<=", ">=", "<>", "=", "<", ">", "(", ")", ","]
        .into_iter()
        .find(|x| *x == s)
        .unwrap_or("")
}

fn number(n: &str) -> Option<Datum> {
    if n.contains(['e', 'E']) {
        return n.parse().ok().map(Datum::Double);
    }
    if !n.contains('.') {
        if let Ok(v) = n.parse::<i64>() {
            return Some(Datum::BigInt(v));
        }
    }
    let (unscaled, scale) = parse_decimal(n)?;
    Some(Datum::Decimal {
        unscaled,
        precision: 38,
        scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_syntax() {
        let p = parse("a = 'x' AND n >= 3 OR NOT (b IS NOT NULL) AND c IN (1, 2.5, NULL)").unwrap();
        assert_eq!(
            p.to_string(),
            "((a = 'x') AND (n >= 3)) OR ((NOT (b IS NOT NULL)) AND (c IN (1, 2.5, NULL)))"
        );
        let p = parse("`my col` like 'ab%' and d <> 'it''s'").unwrap();
        assert_eq!(p.to_string(), "(my col STARTS WITH 'ab') AND (d <> 'it's')");
        assert!(parse("x NOT IN (-1, 1e3)").is_ok());
        for bad in [
            "a =",
            "a = 'x",
            "(a = 1",
            "a LIKE '%x'",
            "a ~ 1",
            "= 1",
            "a = 1 b",
        ] {
            let e = parse(bad).err().unwrap().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }
}
