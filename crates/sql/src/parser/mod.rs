//! Statement dispatch: script → statements → typed AST, plus the small catalog/session statements.

mod ddl;
mod query;

use crate::ast::*;
use crate::cursor::Cursor;
use crate::error::{Result, SqlError};
use crate::script::{split_script, LineIndex, StatementSource};
use sqlparser::tokenizer::Token;

/// Parse context: the cursor plus the script text for slicing.
pub(crate) struct Ctx<'a> {
    pub c: Cursor,
    pub src: &'a LineIndex<'a>,
    /// Column-level PRIMARY KEY seen in the element being parsed.
    pub pending_pk: Vec<PrimaryKey>,
}

impl Ctx<'_> {
    /// Text of tokens `from..to`.
    pub(crate) fn text(&self, from: usize, to: usize) -> String {
        self.c.text(self.src, from, to)
    }
}

/// Splits and parses every statement of a script; each statement succeeds or fails on its own.
pub fn parse_script(sql: &str) -> Vec<Parsed> {
    let index = LineIndex::new(sql);
    split_script(sql)
        .into_iter()
        .map(|s| {
            let statement = parse_source(&s, &index);
            Parsed {
                number: s.number,
                pos: s.pos,
                text: s.text,
                byte_range: s.byte_range,
                statement,
            }
        })
        .collect()
}

/// Parses exactly one statement (a trailing `;` is allowed).
pub fn parse_statement(sql: &str) -> Result<Statement> {
    let mut all = parse_script(sql);
    if all.len() > 1 {
        let second = &all[1];
        return Err(SqlError::syntax(
            second.pos,
            "expected a single statement, found several",
        ));
    }
    match all.pop() {
        Some(p) => p.statement,
        None => Err(SqlError::syntax(
            crate::error::Pos::new(1, 1),
            "empty statement",
        )),
    }
}

fn parse_source(s: &StatementSource, index: &LineIndex) -> Result<Statement> {
    if let Some(e) = &s.error {
        return Err(e.clone());
    }
    let mut ctx = Ctx {
        c: Cursor::new(&s.tokens),
        src: index,
        pending_pk: Vec::new(),
    };
    let stmt = parse_one(&mut ctx)?;
    if !ctx.c.at_end() {
        return ctx.c.err("end of statement");
    }
    Ok(stmt)
}

fn parse_one(ctx: &mut Ctx) -> Result<Statement> {
    let c = &mut ctx.c;
    if c.is_kw("CREATE") {
        if c.is_kw_at(1, "CATALOG") {
            c.i += 2;
            let name = c.ident()?;
            c.expect_kw("WITH")?;
            let options = c.options()?;
            return Ok(Statement::CreateCatalog { name, options });
        }
        if c.is_kw_at(1, "DATABASE") || c.is_kw_at(1, "SCHEMA") {
            c.i += 2;
            let if_not_exists = c.eat_kws(&["IF", "NOT", "EXISTS"]);
            let name = c.object_name()?;
            let comment = if c.eat_kw("COMMENT") {
                Some(c.string()?.0)
            } else {
                None
            };
            let options = if c.eat_kw("WITH") {
                c.options()?
            } else {
                Vec::new()
            };
            return Ok(Statement::CreateDatabase(CreateDatabase {
                if_not_exists,
                name,
                comment,
                options,
            }));
        }
        return ddl::create_table(ctx);
    }
    if c.is_kw("ALTER") {
        return ddl::alter_table(ctx);
    }
    if c.eat_kw("DROP") {
        if c.eat_kw("DATABASE") || c.eat_kw("SCHEMA") {
            let if_exists = c.eat_kws(&["IF", "EXISTS"]);
            let name = c.object_name()?;
            let cascade = c.eat_kw("CASCADE");
            if !cascade {
                c.eat_kw("RESTRICT");
            }
            return Ok(Statement::DropDatabase {
                if_exists,
                name,
                cascade,
            });
        }
        let temporary = c.eat_kw("TEMPORARY");
        c.expect_kw("TABLE")?;
        let if_exists = c.eat_kws(&["IF", "EXISTS"]);
        let name = c.object_name()?;
        return Ok(Statement::DropTable {
            temporary,
            if_exists,
            name,
        });
    }
    if c.eat_kw("USE") {
        if c.is_kw("CATALOG") && !matches!(c.peek_nth(1), Token::EOF | Token::Period) {
            c.advance();
            return Ok(Statement::UseCatalog(c.ident()?));
        }
        return Ok(Statement::UseDatabase(c.object_name()?));
    }
    if c.eat_kw("SHOW") {
        if c.eat_kw("CATALOGS") {
            return Ok(Statement::ShowCatalogs);
        }
        if c.eat_kws(&["CURRENT", "CATALOG"]) {
            return Ok(Statement::ShowCurrentCatalog);
        }
        if c.eat_kws(&["CURRENT", "DATABASE"]) {
            return Ok(Statement::ShowCurrentDatabase);
        }
        if c.eat_kw("DATABASES") {
            return Ok(Statement::ShowDatabases);
        }
        if c.eat_kw("TABLES") {
            let from = if c.eat_kw("FROM") || c.eat_kw("IN") {
                Some(c.object_name()?)
            } else {
                None
            };
            return Ok(Statement::ShowTables(from));
        }
        if c.eat_kws(&["CREATE", "TABLE"]) {
            return Ok(Statement::ShowCreateTable(c.object_name()?));
        }
        return c
            .err("CATALOGS, CURRENT CATALOG, CURRENT DATABASE, DATABASES, TABLES or CREATE TABLE");
    }
    if c.eat_kw("DESCRIBE") || c.eat_kw("DESC") {
        c.eat_kw("EXTENDED");
        return Ok(Statement::Describe(c.object_name()?));
    }
    if c.eat_kw("SET") {
        if c.at_end() {
            return Ok(Statement::Set(None));
        }
        let (key, key_pos) = c.string()?;
        c.expect(&Token::Eq)?;
        let (value, value_pos) = c.string()?;
        return Ok(Statement::Set(Some(OptionEntry {
            key,
            value,
            key_pos,
            value_pos,
        })));
    }
    if c.eat_kw("RESET") {
        if c.at_end() {
            return Ok(Statement::Reset(None));
        }
        return Ok(Statement::Reset(Some(c.string()?)));
    }
    if c.eat_kw("CALL") {
        return call(ctx);
    }
    if c.is_kw("INSERT") {
        return query::insert(ctx);
    }
    if c.is_kw("UPDATE") || c.is_kw("DELETE") {
        return query::row_level(ctx);
    }
    if c.is_kw("SELECT") || c.is_kw("WITH") || c.is_kw("VALUES") || c.is(&Token::LParen) {
        let end = c.toks.len();
        return Ok(Statement::Query(query::query(ctx, 0, end)?));
    }
    if c.is_kw("EXPLAIN") || c.is_kw("TRUNCATE") || c.is_kw("LOAD") || c.is_kw("EXECUTE") {
        return Err(SqlError::unsupported(
            c.pos(),
            format!(
                "{} statements are not supported by lakescope",
                describe_word(c.peek())
            ),
        ));
    }
    c.err("a statement (CREATE, ALTER, DROP, USE, SHOW, DESCRIBE, SET, RESET, CALL, INSERT, UPDATE, DELETE or SELECT)")
}

fn describe_word(t: &Token) -> String {
    match t {
        Token::Word(w) => w.value.to_ascii_uppercase(),
        other => other.to_string(),
    }
}

/// `CALL sys.proc(arg, name => arg, ...)`.
fn call(ctx: &mut Ctx) -> Result<Statement> {
    let procedure = ctx.c.object_name()?;
    ctx.c.expect(&Token::LParen)?;
    let mut args = Vec::new();
    if !ctx.c.eat(&Token::RParen) {
        loop {
            let name =
                if matches!(ctx.c.peek(), Token::Word(_)) && ctx.c.peek_nth(1) == &Token::RArrow {
                    let n = ctx.c.ident()?;
                    ctx.c.advance();
                    Some(n)
                } else {
                    None
                };
            let from = ctx.c.i;
            let to = ctx.c.scan_to(|t| matches!(t, Token::Comma | Token::RParen));
            if from == to {
                return ctx.c.err("an argument");
            }
            let value = ctx.c.sub_parse(from, to, |p| p.parse_expr())?;
            let text = ctx.text(from, to);
            let pos = ctx.c.pos_at(from);
            ctx.c.i = to;
            args.push(CallArg {
                name,
                value,
                text,
                pos,
            });
            if ctx.c.eat(&Token::RParen) {
                break;
            }
            ctx.c.expect(&Token::Comma)?;
        }
    }
    Ok(Statement::Call { procedure, args })
}
