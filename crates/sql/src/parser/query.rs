//! Queries, INSERT, UPDATE and DELETE: sqlparser's AST plus table references and `/*+ OPTIONS(...) */` hints.

use super::Ctx;
use crate::ast::*;
use crate::cursor::{span_pos, Cursor};
use crate::error::{Pos, Result, SqlError};
use sqlparser::ast as sp;
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan};

/// Hints found in comments: (end of the token the comment follows, its OPTIONS entries).
fn hints(ctx: &Ctx, from: usize, to: usize) -> Result<Vec<(Location, Vec<OptionEntry>)>> {
    let mut out = Vec::new();
    for comment in &ctx.c.comments {
        if comment.after <= from || comment.after > to {
            continue;
        }
        let Some(body) = comment.text.strip_prefix('+') else {
            continue;
        };
        let Some(prev) = ctx.c.toks.get(comment.after - 1) else {
            continue;
        };
        out.push((prev.span.end, parse_hint(body, comment.start)?));
    }
    Ok(out)
}

/// Moves a location inside a comment body to script coordinates (`/*+` is 3 characters).
fn shift(l: Location, start: Location) -> Location {
    if l.line <= 1 {
        Location::new(start.line, start.column + 3 + l.column.saturating_sub(1))
    } else {
        Location::new(start.line + l.line - 1, l.column)
    }
}

/// Parses `OPTIONS('k' = 'v', ...) [, OTHER(...)]`; only OPTIONS entries are kept.
fn parse_hint(body: &str, start: Location) -> Result<Vec<OptionEntry>> {
    let (tokens, err) = crate::script::tokenize(body);
    if let Some(mut e) = err {
        let l = shift(Location::new(e.pos.line, e.pos.column), start);
        e.pos = Pos::new(l.line, l.column);
        return Err(e);
    }
    let tokens: Vec<TokenWithSpan> = tokens
        .into_iter()
        .map(|t| TokenWithSpan {
            span: Span::new(shift(t.span.start, start), shift(t.span.end, start)),
            token: t.token,
        })
        .collect();
    let mut c = Cursor::new(&tokens);
    let mut out = Vec::new();
    while !c.at_end() {
        if c.eat_kw("OPTIONS") {
            out.extend(c.options()?);
        } else {
            c.ident()?;
            if c.eat(&Token::LParen) {
                let close = c.scan_to(|t| matches!(t, Token::RParen));
                c.i = close;
                c.expect(&Token::RParen)?;
            }
        }
        if !c.eat(&Token::Comma) && !c.at_end() {
            return c.err("\",\" or end of hint");
        }
    }
    Ok(out)
}

fn object_name(name: &sp::ObjectName) -> Option<(ObjectName, Location)> {
    let mut parts = Vec::new();
    let mut first = None;
    let mut end = None;
    for p in &name.0 {
        let id = p.as_ident()?;
        first.get_or_insert(span_pos(&id.span));
        end = Some(id.span.end);
        parts.push(id.value.clone());
    }
    Some((ObjectName { parts, pos: first? }, end?))
}

struct Collector<'a> {
    hints: &'a [(Location, Vec<OptionEntry>)],
    as_of: &'a [(Location, String)],
    out: Vec<TableRef>,
}

impl Collector<'_> {
    fn query(&mut self, q: &sp::Query) {
        // One traversal for collecting and renaming: the order of `tables` is the renaming order.
        let mut copy = q.clone();
        crate::rewrite::for_each_table(&mut copy, &mut |name| self.table(name));
    }

    fn table(&mut self, name: &sp::ObjectName) {
        let Some((name, end)) = object_name(name) else {
            return;
        };
        let hints = self
            .hints
            .iter()
            .filter(|(l, _)| *l == end)
            .flat_map(|(_, h)| h.iter().cloned())
            .collect();
        let system_table = name.name().split_once('$').map(|(_, s)| s.to_string());
        let as_of = self
            .as_of
            .iter()
            .find(|(l, _)| *l == end)
            .map(|(_, t)| t.clone());
        self.out.push(TableRef {
            name,
            system_table,
            hints,
            as_of,
        });
    }
}

fn is_word(t: Option<&TokenWithSpan>, kw: &str) -> bool {
    matches!(t.map(|t| &t.token), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(kw))
}

/// Removes `FOR SYSTEM_TIME AS OF <expr>` (which sqlparser does not read) from the tokens and
/// returns, for each, the end of the table name it follows and the expression text.
fn strip_system_time(ctx: &Ctx, toks: &mut Vec<TokenWithSpan>) -> Result<Vec<(Location, String)>> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        if is_word(toks.get(k), "FOR") && is_word(toks.get(k + 1), "SYSTEM_VERSION") {
            // Flink 1.19 has no version clause (Spark's `VERSION AS OF` is not Flink SQL either):
            // refused, not read at some other version
            return Err(SqlError::unsupported(
                span_pos(&toks[k].span),
                "FOR SYSTEM_VERSION AS OF is not Flink SQL (Flink 1.19 has only FOR SYSTEM_TIME AS OF): read a branch with /*+ OPTIONS('branch' = 'dev') */ or t$branch_dev, a tag with /*+ OPTIONS('scan.tag-name' = 't1') */ (Iceberg: 'tag'), a snapshot with /*+ OPTIONS('scan.snapshot-id' = '3') */",
            ));
        }
        let is_clause = is_word(toks.get(k), "FOR")
            && is_word(toks.get(k + 1), "SYSTEM_TIME")
            && is_word(toks.get(k + 2), "AS")
            && is_word(toks.get(k + 3), "OF");
        if !is_clause {
            k += 1;
            continue;
        }
        if k == 0 {
            return Err(SqlError::syntax(
                span_pos(&toks[k].span),
                "FOR SYSTEM_TIME AS OF must follow a table name",
            ));
        }
        let start = k + 4;
        let dialect = crate::dialect::FlinkDialect;
        let rest = toks.get(start..).map(|r| r.to_vec()).unwrap_or_default();
        let mut parser = sqlparser::parser::Parser::new(&dialect).with_tokens_with_locations(rest);
        let consumed = match parser.parse_expr() {
            Ok(_) => parser.index(),
            Err(_) => 0,
        };
        if consumed == 0 || start >= toks.len() {
            let pos = toks
                .get(start)
                .map(|t| span_pos(&t.span))
                .unwrap_or_else(|| {
                    let l = toks[k + 3].span.end;
                    Pos::new(l.line.max(1), l.column.max(1))
                });
            return Err(SqlError::syntax(
                pos,
                "expected an expression after FOR SYSTEM_TIME AS OF",
            ));
        }
        let last = (start + consumed).min(toks.len()) - 1;
        let text = ctx.src.slice(toks[start].span.start, toks[last].span.end);
        out.push((toks[k - 1].span.end, text));
        toks.drain(k..=last);
    }
    Ok(out)
}

/// Parses tokens `from..to` as a query.
pub(super) fn query(ctx: &mut Ctx, from: usize, to: usize) -> Result<QueryStatement> {
    let mut toks: Vec<TokenWithSpan> = ctx
        .c
        .toks
        .get(from..to)
        .map(|s| s.to_vec())
        .unwrap_or_default();
    let as_of = strip_system_time(ctx, &mut toks)?;
    let q = ctx.c.sub_parse_tokens(toks, |p| p.parse_query())?;
    let hints = hints(ctx, from, to)?;
    let mut col = Collector {
        hints: &hints,
        as_of: &as_of,
        out: Vec::new(),
    };
    col.query(&q);
    ctx.c.i = to;
    Ok(QueryStatement {
        text: ctx.text(from, to),
        query: q,
        tables: col.out,
    })
}

/// `( k = literal, ... )` of INSERT ... PARTITION and ALTER TABLE DROP PARTITION.
pub(crate) fn partition_spec(c: &mut Cursor) -> Result<Vec<OptionEntry>> {
    c.expect(&Token::LParen)?;
    let mut out = Vec::new();
    loop {
        let k = c.ident()?;
        c.expect(&Token::Eq)?;
        let value_pos = c.pos();
        let value = match c.peek().clone() {
            Token::SingleQuotedString(s) => s,
            Token::Number(n, _) => n,
            Token::Minus => {
                c.advance();
                match c.peek().clone() {
                    Token::Number(n, _) => format!("-{n}"),
                    _ => return c.err("a literal"),
                }
            }
            Token::Word(w)
                if w.quote_style.is_none()
                    && (w.value.eq_ignore_ascii_case("true")
                        || w.value.eq_ignore_ascii_case("false")) =>
            {
                w.value.to_ascii_lowercase()
            }
            _ => return c.err("a literal partition value"),
        };
        c.advance();
        out.push(OptionEntry {
            key: k.name,
            value,
            key_pos: k.pos,
            value_pos,
        });
        if c.eat(&Token::RParen) {
            return Ok(out);
        }
        c.expect(&Token::Comma)?;
    }
}

/// INSERT INTO|OVERWRITE t [hint] [PARTITION (...)] [(cols)] VALUES|query.
pub(super) fn insert(ctx: &mut Ctx) -> Result<Statement> {
    let c = &mut ctx.c;
    c.expect_kw("INSERT")?;
    let overwrite = if c.eat_kw("OVERWRITE") {
        true
    } else {
        c.expect_kw("INTO")?;
        false
    };
    c.eat_kw("TABLE");
    let table = c.object_name()?;
    let name_end = c.i;
    let mut table_hints = Vec::new();
    for h in hints(ctx, name_end - 1, name_end)? {
        table_hints.extend(h.1);
    }
    let c = &mut ctx.c;
    let partition = if c.eat_kw("PARTITION") {
        partition_spec(c)?
    } else {
        Vec::new()
    };
    let columns = if c.is(&Token::LParen)
        && !matches!(c.peek_nth(1), Token::Word(w) if w.value.eq_ignore_ascii_case("SELECT") || w.value.eq_ignore_ascii_case("WITH") || w.value.eq_ignore_ascii_case("VALUES"))
    {
        c.ident_list()?
    } else {
        Vec::new()
    };
    if c.at_end() {
        return c.err("VALUES or SELECT");
    }
    let from = c.i;
    let to = c.toks.len();
    let source = if c.is_kw("VALUES") {
        let q = c.sub_parse(from, to, |p| p.parse_query())?;
        let text = ctx.text(from, to);
        match *q.body {
            sp::SetExpr::Values(v) => InsertSource::Values {
                rows: v.rows.into_iter().map(|r| r.content).collect(),
                text,
            },
            _ => InsertSource::Select(QueryStatement {
                text,
                query: q,
                tables: Vec::new(),
            }),
        }
    } else {
        InsertSource::Select(query(ctx, from, to)?)
    };
    ctx.c.i = to;
    Ok(Statement::Insert(Box::new(Insert {
        overwrite,
        table,
        hints: table_hints,
        partition,
        columns,
        source,
    })))
}

/// UPDATE t SET ... / DELETE FROM t ..., parsed by sqlparser.
pub(super) fn row_level(ctx: &mut Ctx) -> Result<Statement> {
    let c = &mut ctx.c;
    let update = c.eat_kw("UPDATE");
    if !update {
        c.expect_kw("DELETE")?;
        c.expect_kw("FROM")?;
    }
    let table = c.object_name()?;
    let to = c.toks.len();
    let ast = Box::new(c.sub_parse(0, to, |p| p.parse_statement())?);
    c.i = to;
    let rl = RowLevel { table, ast };
    Ok(if update {
        Statement::Update(rl)
    } else {
        Statement::Delete(rl)
    })
}
