//! CREATE TABLE and ALTER TABLE: columns, computed columns, WATERMARK, PRIMARY KEY, PARTITIONED BY, LIKE, CTAS.

use super::{query, Ctx};
use crate::ast::*;
use crate::error::{Result, SqlError};
use crate::types::parse_type;
use sqlparser::tokenizer::Token;

/// One element of a column list in CREATE TABLE or ALTER TABLE ADD/MODIFY (short-lived).
#[allow(clippy::large_enum_variant)]
enum Element {
    Column(ColumnDef, Option<ColumnPosition>),
    PrimaryKey(PrimaryKey),
    Watermark(Watermark),
}

fn is_end_of_element(t: &Token) -> bool {
    matches!(t, Token::Comma | Token::RParen)
}

/// An expression running to the next `,` / `)` at depth 0 (or COMMENT / FIRST / AFTER).
fn expr_until_element_end(ctx: &mut Ctx) -> Result<(sqlparser::ast::Expr, String)> {
    let from = ctx.c.i;
    let to = ctx.c.scan_to(|t| {
        is_end_of_element(t)
            || matches!(t, Token::Word(w) if w.quote_style.is_none()
                && ["COMMENT", "FIRST", "AFTER"].iter().any(|k| w.value.eq_ignore_ascii_case(k)))
    });
    if from == to {
        return ctx.c.err("an expression");
    }
    let expr = ctx.c.sub_parse(from, to, |p| p.parse_expr())?;
    let text = ctx.text(from, to);
    ctx.c.i = to;
    Ok((expr, text))
}

fn primary_key(ctx: &mut Ctx, name: Option<String>) -> Result<PrimaryKey> {
    let pos = ctx.c.pos();
    ctx.c.expect_kws(&["PRIMARY", "KEY"])?;
    let columns = ctx.c.ident_list()?;
    let not_enforced = not_enforced(ctx)?;
    Ok(PrimaryKey {
        name,
        columns,
        not_enforced,
        pos,
    })
}

fn not_enforced(ctx: &mut Ctx) -> Result<bool> {
    if ctx.c.eat_kws(&["NOT", "ENFORCED"]) {
        return Ok(true);
    }
    if ctx.c.is_kw("ENFORCED") {
        return Err(SqlError::unsupported(
            ctx.c.pos(),
            "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode",
        ));
    }
    Ok(false)
}

fn watermark(ctx: &mut Ctx) -> Result<Watermark> {
    let pos = ctx.c.pos();
    ctx.c.expect_kw("WATERMARK")?;
    ctx.c.expect_kw("FOR")?;
    let column = ctx.c.ident()?;
    ctx.c.expect_kw("AS")?;
    let (expr, text) = expr_until_element_end(ctx)?;
    Ok(Watermark {
        column,
        expr,
        text,
        pos,
    })
}

fn position(ctx: &mut Ctx) -> Result<Option<ColumnPosition>> {
    if ctx.c.eat_kw("FIRST") {
        Ok(Some(ColumnPosition::First))
    } else if ctx.c.eat_kw("AFTER") {
        Ok(Some(ColumnPosition::After(ctx.c.ident()?)))
    } else {
        Ok(None)
    }
}

fn element(ctx: &mut Ctx) -> Result<Element> {
    let c = &mut ctx.c;
    if c.is_kw("WATERMARK") && c.is_kw_at(1, "FOR") {
        return Ok(Element::Watermark(watermark(ctx)?));
    }
    if c.is_kw("PRIMARY") && c.is_kw_at(1, "KEY") {
        return Ok(Element::PrimaryKey(primary_key(ctx, None)?));
    }
    if c.is_kw("CONSTRAINT") {
        c.advance();
        let name = c.ident()?.name;
        return Ok(Element::PrimaryKey(primary_key(ctx, Some(name))?));
    }
    let name = c.ident()?;
    let type_pos = c.pos();
    let mut pk = None;
    let kind = if c.eat_kw("AS") {
        let (expr, text) = expr_until_element_end(ctx)?;
        ColumnKind::Computed {
            expr: Box::new(expr),
            text,
        }
    } else {
        let data_type = parse_type(&mut ctx.c)?;
        if ctx.c.eat_kw("METADATA") {
            let key = if ctx.c.eat_kw("FROM") {
                Some(ctx.c.string()?.0)
            } else {
                None
            };
            let is_virtual = ctx.c.eat_kw("VIRTUAL");
            ColumnKind::Metadata {
                data_type,
                key,
                is_virtual,
            }
        } else {
            ColumnKind::Physical(data_type)
        }
    };
    let c = &mut ctx.c;
    let constraint = if c.eat_kw("CONSTRAINT") {
        Some(c.ident()?.name)
    } else {
        None
    };
    if c.is_kw("PRIMARY") {
        let pos = c.pos();
        c.expect_kws(&["PRIMARY", "KEY"])?;
        let not_enforced = not_enforced(ctx)?;
        pk = Some(PrimaryKey {
            name: constraint,
            columns: vec![name.clone()],
            not_enforced,
            pos,
        });
    } else if constraint.is_some() {
        return ctx.c.err("PRIMARY KEY");
    }
    let comment = if ctx.c.eat_kw("COMMENT") {
        Some(ctx.c.string()?.0)
    } else {
        None
    };
    let pos = position(ctx)?;
    let col = ColumnDef {
        name,
        kind,
        type_pos,
        comment,
    };
    if let Some(pk) = pk {
        // A column-level key is parked until the element is added to its list.
        ctx.pending_pk.push(pk);
    }
    Ok(Element::Column(col, pos))
}

/// `( element, ... )` → columns, watermark, primary key.
fn element_list(ctx: &mut Ctx) -> Result<SchemaChange> {
    ctx.c.expect(&Token::LParen)?;
    let mut out = SchemaChange::default();
    loop {
        let e = element(ctx)?;
        add_element(ctx, &mut out, e)?;
        if ctx.c.eat(&Token::RParen) {
            return Ok(out);
        }
        ctx.c.expect(&Token::Comma)?;
    }
}

fn add_element(ctx: &mut Ctx, out: &mut SchemaChange, e: Element) -> Result<()> {
    let mut pks = std::mem::take(&mut ctx.pending_pk);
    match e {
        Element::Column(col, position) => out.columns.push(ColumnChange {
            column: col,
            position,
        }),
        Element::Watermark(w) => {
            if out.watermark.is_some() {
                return Err(SqlError::validation(
                    w.pos,
                    "Multiple watermark definitions are not supported yet.",
                ));
            }
            out.watermark = Some(w)
        }
        Element::PrimaryKey(pk) => pks.insert(0, pk),
    }
    for pk in pks {
        if out.primary_key.is_some() {
            return Err(SqlError::validation(
                pk.pos,
                "Duplicate primary key definition",
            ));
        }
        out.primary_key = Some(pk);
    }
    Ok(())
}

fn transform(ctx: &mut Ctx, name: &Ident) -> Result<PartitionField> {
    let lower = name.name.to_ascii_lowercase();
    let c = &mut ctx.c;
    c.expect(&Token::LParen)?;
    let t = match lower.as_str() {
        "years" | "year" => Some(Transform::Years),
        "months" | "month" => Some(Transform::Months),
        "days" | "day" => Some(Transform::Days),
        "hours" | "hour" => Some(Transform::Hours),
        _ => None,
    };
    let (transform, column) = if let Some(t) = t {
        (t, c.ident()?)
    } else if lower == "bucket" || lower == "truncate" {
        let (n, col) = if matches!(c.peek(), Token::Number(..)) {
            let n = c.integer()?;
            c.expect(&Token::Comma)?;
            (n, c.ident()?)
        } else {
            let col = c.ident()?;
            c.expect(&Token::Comma)?;
            (c.integer()?, col)
        };
        if n.0 == 0 || n.0 > i32::MAX as u64 {
            return Err(SqlError::validation(
                n.1,
                format!("{lower} width must be a positive integer, got {}", n.0),
            ));
        }
        let w = n.0 as u32;
        (
            if lower == "bucket" {
                Transform::Bucket(w)
            } else {
                Transform::Truncate(w)
            },
            col,
        )
    } else {
        return Err(SqlError::validation(
            name.pos,
            format!(
                "unknown partition transform '{}': expected years, months, days, hours, bucket(n, col) or truncate(n, col)",
                name.name
            ),
        ));
    };
    c.expect(&Token::RParen)?;
    Ok(PartitionField {
        column,
        transform: Some(transform),
        pos: name.pos,
    })
}

/// One partition term: `column` or `transform(..., column)`.
fn partition_term(ctx: &mut Ctx) -> Result<PartitionField> {
    let id = ctx.c.ident()?;
    if ctx.c.is(&Token::LParen) {
        transform(ctx, &id)
    } else {
        Ok(PartitionField {
            pos: id.pos,
            column: id,
            transform: None,
        })
    }
}

fn partitioned_by(ctx: &mut Ctx) -> Result<Vec<PartitionField>> {
    ctx.c.expect(&Token::LParen)?;
    let mut out = Vec::new();
    loop {
        out.push(partition_term(ctx)?);
        if ctx.c.eat(&Token::RParen) {
            return Ok(out);
        }
        ctx.c.expect(&Token::Comma)?;
    }
}

fn like_clause(ctx: &mut Ctx) -> Result<LikeClause> {
    let source = ctx.c.object_name()?;
    let mut options = Vec::new();
    if ctx.c.eat(&Token::LParen) {
        loop {
            let strategy = if ctx.c.eat_kw("INCLUDING") {
                LikeStrategy::Including
            } else if ctx.c.eat_kw("EXCLUDING") {
                LikeStrategy::Excluding
            } else if ctx.c.eat_kw("OVERWRITING") {
                LikeStrategy::Overwriting
            } else {
                return ctx.c.err("INCLUDING, EXCLUDING or OVERWRITING");
            };
            let pos = ctx.c.pos();
            let feature = ctx.c.ident()?.name.to_ascii_uppercase();
            const FEATURES: [&str; 7] = [
                "ALL",
                "CONSTRAINTS",
                "PARTITIONS",
                "GENERATED",
                "METADATA",
                "OPTIONS",
                "WATERMARKS",
            ];
            if !FEATURES.contains(&feature.as_str()) {
                return Err(SqlError::syntax(
                    pos,
                    format!(
                        "expected one of {} after LIKE's {strategy:?}, found {feature}",
                        FEATURES.join(", ")
                    ),
                ));
            }
            options.push((strategy, feature));
            if ctx.c.eat(&Token::RParen) {
                break;
            }
            ctx.c.expect(&Token::Comma)?;
        }
    }
    Ok(LikeClause { source, options })
}

/// CREATE [TEMPORARY] TABLE ...
pub(super) fn create_table(ctx: &mut Ctx) -> Result<Statement> {
    ctx.c.expect_kw("CREATE")?;
    let temporary = ctx.c.eat_kw("TEMPORARY");
    if ctx.c.is_kw("VIEW") || ctx.c.is_kw("FUNCTION") || ctx.c.is_kw("SYSTEM") {
        return Err(SqlError::unsupported(
            ctx.c.pos(),
            "CREATE VIEW and CREATE FUNCTION are not supported by lakescope",
        ));
    }
    if !ctx.c.eat_kw("TABLE") {
        return ctx.c.err("TABLE, CATALOG or DATABASE");
    }
    let if_not_exists = ctx.c.eat_kws(&["IF", "NOT", "EXISTS"]);
    let name = ctx.c.object_name()?;
    let mut t = CreateTable {
        temporary,
        if_not_exists,
        name,
        columns: Vec::new(),
        watermark: None,
        primary_key: None,
        comment: None,
        partitioned_by: Vec::new(),
        options: Vec::new(),
        like: None,
        as_select: None,
    };
    if ctx.c.is(&Token::LParen) {
        let change = element_list(ctx)?;
        for cc in change.columns {
            if let Some(p) = &cc.position {
                let pos = match p {
                    ColumnPosition::First => cc.column.name.pos,
                    ColumnPosition::After(a) => a.pos,
                };
                return Err(SqlError::syntax(
                    pos,
                    "FIRST / AFTER are only allowed in ALTER TABLE",
                ));
            }
            t.columns.push(cc.column);
        }
        t.watermark = change.watermark;
        t.primary_key = change.primary_key;
    }
    loop {
        let c = &mut ctx.c;
        if c.is_kw("COMMENT") && t.comment.is_none() {
            c.advance();
            t.comment = Some(c.string()?.0);
        } else if c.is_kw("PARTITIONED") && t.partitioned_by.is_empty() {
            c.advance();
            c.expect_kw("BY")?;
            t.partitioned_by = partitioned_by(ctx)?;
        } else if c.is_kw("WITH") && t.options.is_empty() {
            c.advance();
            t.options = c.options()?;
        } else if c.is_kw("LIKE") && t.like.is_none() {
            c.advance();
            t.like = Some(like_clause(ctx)?);
        } else if c.is_kw("AS") {
            let as_pos = c.pos();
            c.advance();
            if t.like.is_some() || !t.columns.is_empty() {
                return Err(SqlError::validation(
                    as_pos,
                    "CREATE TABLE AS SELECT does not support explicit columns or LIKE: the query defines the schema",
                ));
            }
            let from = c.i;
            let end = c.toks.len();
            t.as_select = Some(query::query(ctx, from, end)?);
            ctx.c.i = end;
            break;
        } else {
            break;
        }
    }
    if !ctx.c.at_end() {
        return ctx
            .c
            .err("COMMENT, PARTITIONED BY, WITH, LIKE, AS or end of statement");
    }
    if t.columns.is_empty() && t.like.is_none() && t.as_select.is_none() {
        return Err(SqlError::syntax(
            t.name.pos,
            "CREATE TABLE needs a column list, LIKE or AS SELECT",
        ));
    }
    Ok(Statement::CreateTable(Box::new(t)))
}

/// The rest of ALTER TABLE ... ADD / DROP PARTITION FIELD term (Spark's Iceberg syntax).
fn partition_field_change(
    ctx: &mut Ctx,
    if_exists: bool,
    name: ObjectName,
    add: bool,
) -> Result<Statement> {
    let term = partition_term(ctx)?;
    if !ctx.c.at_end() {
        return ctx.c.err("end of statement");
    }
    Ok(Statement::AlterTable(AlterTable {
        if_exists,
        name,
        action: if add {
            AlterAction::AddPartitionField(term)
        } else {
            AlterAction::DropPartitionField(term)
        },
    }))
}

/// ALTER TABLE ...
pub(super) fn alter_table(ctx: &mut Ctx) -> Result<Statement> {
    ctx.c.expect_kw("ALTER")?;
    if !ctx.c.eat_kw("TABLE") {
        return Err(SqlError::unsupported(
            ctx.c.pos(),
            "only ALTER TABLE is supported",
        ));
    }
    let if_exists = ctx.c.eat_kws(&["IF", "EXISTS"]);
    let name = ctx.c.object_name()?;
    let c = &mut ctx.c;
    let action = if c.eat_kw("SET") {
        AlterAction::Set(c.options()?)
    } else if c.eat_kw("RESET") {
        c.expect(&Token::LParen)?;
        let mut keys = vec![c.string()?];
        while c.eat(&Token::Comma) {
            keys.push(c.string()?);
        }
        c.expect(&Token::RParen)?;
        AlterAction::Reset(keys)
    } else if c.eat_kw("RENAME") {
        if c.eat_kw("TO") {
            AlterAction::RenameTo(c.object_name()?)
        } else {
            let from = c.ident()?;
            c.expect_kw("TO")?;
            AlterAction::RenameColumn {
                from,
                to: c.ident()?,
            }
        }
    } else if c.is_kw("ADD") || c.is_kw("MODIFY") {
        let add = c.is_kw("ADD");
        c.advance();
        if add && c.is_kw("PARTITION") && c.is_kw_at(1, "FIELD") {
            c.advance();
            c.advance();
            return partition_field_change(ctx, if_exists, name, true);
        }
        if c.is_kw("PARTITION") || (c.is_kw("IF") && add) {
            return Err(SqlError::unsupported(
                c.pos(),
                "ALTER TABLE ADD PARTITION is not supported by Paimon tables",
            ));
        }
        let change = if c.is(&Token::LParen) {
            element_list(ctx)?
        } else {
            let e = element(ctx)?;
            let mut out = SchemaChange::default();
            add_element(ctx, &mut out, e)?;
            out
        };
        if add {
            AlterAction::Add(change)
        } else {
            AlterAction::Modify(change)
        }
    } else if c.eat_kw("DROP") {
        if c.is_kw("PARTITION") && c.is_kw_at(1, "FIELD") {
            c.advance();
            c.advance();
            return partition_field_change(ctx, if_exists, name, false);
        }
        if c.is(&Token::LParen) {
            AlterAction::DropColumns(c.ident_list()?)
        } else if c.is_kw("WATERMARK") {
            let pos = c.pos();
            c.advance();
            AlterAction::DropWatermark(pos)
        } else if c.is_kw("PRIMARY") {
            let pos = c.pos();
            c.expect_kws(&["PRIMARY", "KEY"])?;
            AlterAction::DropPrimaryKey(pos)
        } else if c.is_kw("CONSTRAINT") {
            let pos = c.pos();
            c.advance();
            c.ident()?;
            AlterAction::DropPrimaryKey(pos)
        } else if c.is_kw("PARTITION") || (c.is_kw("IF") && c.is_kw_at(1, "EXISTS")) {
            let if_exists = c.eat_kws(&["IF", "EXISTS"]);
            let mut partitions = Vec::new();
            loop {
                c.expect_kw("PARTITION")?;
                partitions.push(query::partition_spec(c)?);
                if !c.eat(&Token::Comma) {
                    break;
                }
            }
            AlterAction::DropPartitions {
                if_exists,
                partitions,
            }
        } else {
            AlterAction::DropColumns(vec![c.ident()?])
        }
    } else {
        return c.err("SET, RESET, RENAME, ADD, MODIFY or DROP");
    };
    Ok(Statement::AlterTable(AlterTable {
        if_exists,
        name,
        action,
    }))
}
