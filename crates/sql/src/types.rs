//! Flink SQL data types (`DECIMAL(10, 2)`, `ARRAY<ROW<a INT>>`, `TIMESTAMP_LTZ(3)`, ...) to Paimon's `DataType`.

use crate::cursor::Cursor;
use crate::error::{Result, SqlError};
use lakescope_format::spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};
use sqlparser::tokenizer::Token;

/// Parses a type with its nullability suffix (`NOT NULL` / `NULL`).
pub(crate) fn parse_type(c: &mut Cursor) -> Result<DataType> {
    let mut t = parse_type_body(c)?;
    // Flink's suffix form: `INT ARRAY`, `INT MULTISET`.
    loop {
        if c.eat_kw("ARRAY") {
            t = DataType::nullable(TypeKind::Array(Box::new(t)));
        } else if c.eat_kw("MULTISET") {
            t = DataType::nullable(TypeKind::Multiset(Box::new(t)));
        } else {
            break;
        }
    }
    if c.eat_kws(&["NOT", "NULL"]) {
        t.nullable = false;
    } else if c.eat_kw("NULL") {
        t.nullable = true;
    }
    Ok(t)
}

/// `( n )` if present.
fn opt_len(c: &mut Cursor) -> Result<Option<(u64, crate::error::Pos)>> {
    if c.eat(&Token::LParen) {
        let n = c.integer()?;
        c.expect(&Token::RParen)?;
        Ok(Some(n))
    } else {
        Ok(None)
    }
}

fn length(c: &mut Cursor, what: &str, default: u32) -> Result<u32> {
    match opt_len(c)? {
        None => Ok(default),
        Some((n, pos)) if n >= 1 && n <= MAX_LENGTH as u64 => {
            let _ = pos;
            Ok(n as u32)
        }
        Some((n, pos)) => Err(SqlError::validation(
            pos,
            format!("{what} length must be between 1 and {MAX_LENGTH} (both inclusive), got {n}"),
        )),
    }
}

fn precision(c: &mut Cursor, what: &str, default: u8, max: u8) -> Result<u8> {
    match opt_len(c)? {
        None => Ok(default),
        Some((n, _)) if n <= max as u64 => Ok(n as u8),
        Some((n, pos)) => Err(SqlError::validation(
            pos,
            format!("{what} precision must be between 0 and {max} (both inclusive), got {n}"),
        )),
    }
}

/// Opening `<` or `(` of a nested type; returns whether it was `(`.
fn open_nested(c: &mut Cursor) -> Result<bool> {
    if c.eat(&Token::Lt) {
        Ok(false)
    } else if c.eat(&Token::LParen) {
        Ok(true)
    } else {
        c.err("\"<\"")
    }
}

fn close_nested(c: &mut Cursor, paren: bool) -> Result<()> {
    if paren {
        c.expect(&Token::RParen)
    } else {
        c.expect_gt()
    }
}

fn parse_type_body(c: &mut Cursor) -> Result<DataType> {
    let pos = c.pos();
    let Token::Word(w) = c.peek().clone() else {
        return c.err("a data type");
    };
    if w.quote_style.is_some() {
        return c.err("a data type");
    }
    c.advance();
    let name = w.value.to_ascii_uppercase();
    let kind = match name.as_str() {
        "BOOLEAN" | "BOOL" => TypeKind::Boolean,
        "TINYINT" => TypeKind::TinyInt,
        "SMALLINT" => TypeKind::SmallInt,
        "INT" | "INTEGER" => TypeKind::Int,
        "BIGINT" => TypeKind::BigInt,
        "FLOAT" | "REAL" => TypeKind::Float,
        "DOUBLE" => {
            c.eat_kw("PRECISION");
            TypeKind::Double
        }
        "DECIMAL" | "DEC" | "NUMERIC" => {
            let (mut p, mut s) = (10u64, 0u64);
            let mut spos = pos;
            let mut ppos = pos;
            if c.eat(&Token::LParen) {
                (p, ppos) = c.integer()?;
                if c.eat(&Token::Comma) {
                    (s, spos) = c.integer()?;
                }
                c.expect(&Token::RParen)?;
            }
            if !(1..=38).contains(&p) {
                return Err(SqlError::validation(
                    ppos,
                    format!("Decimal precision must be between 1 and 38 (both inclusive), got {p}"),
                ));
            }
            if s > p {
                return Err(SqlError::validation(
                    spos,
                    format!("Decimal scale must be between 0 and the precision {p} (both inclusive), got {s}"),
                ));
            }
            TypeKind::Decimal {
                precision: p as u8,
                scale: s as u8,
            }
        }
        "CHAR" | "CHARACTER" => {
            if c.eat_kw("VARYING") {
                TypeKind::VarChar(length(c, "VARCHAR", 1)?)
            } else {
                TypeKind::Char(length(c, "CHAR", 1)?)
            }
        }
        "VARCHAR" => TypeKind::VarChar(length(c, "VARCHAR", 1)?),
        "STRING" => TypeKind::VarChar(MAX_LENGTH),
        "BINARY" => TypeKind::Binary(length(c, "BINARY", 1)?),
        "VARBINARY" => TypeKind::VarBinary(length(c, "VARBINARY", 1)?),
        "BYTES" => TypeKind::VarBinary(MAX_LENGTH),
        "DATE" => TypeKind::Date,
        "TIME" => {
            let p = precision(c, "TIME", 0, 9)?;
            c.eat_kws(&["WITHOUT", "TIME", "ZONE"]);
            TypeKind::Time(p)
        }
        "TIMESTAMP" => {
            let p = precision(c, "TIMESTAMP", 6, 9)?;
            if c.eat_kws(&["WITH", "LOCAL", "TIME", "ZONE"]) {
                TypeKind::LocalZonedTimestamp(p)
            } else if c.is_kw("WITH") && c.is_kw_at(1, "TIME") {
                return Err(SqlError::unsupported(
                    c.pos(),
                    "TIMESTAMP WITH TIME ZONE is not supported by Flink; use TIMESTAMP_LTZ (TIMESTAMP WITH LOCAL TIME ZONE)",
                ));
            } else {
                c.eat_kws(&["WITHOUT", "TIME", "ZONE"]);
                TypeKind::Timestamp(p)
            }
        }
        "TIMESTAMP_LTZ" => TypeKind::LocalZonedTimestamp(precision(c, "TIMESTAMP_LTZ", 6, 9)?),
        "VARIANT" => TypeKind::Variant,
        "ARRAY" | "MULTISET" => {
            let paren = open_nested(c)?;
            let elem = parse_type(c)?;
            close_nested(c, paren)?;
            if name == "ARRAY" {
                TypeKind::Array(Box::new(elem))
            } else {
                TypeKind::Multiset(Box::new(elem))
            }
        }
        "MAP" => {
            let paren = open_nested(c)?;
            let k = parse_type(c)?;
            c.expect(&Token::Comma)?;
            let v = parse_type(c)?;
            close_nested(c, paren)?;
            TypeKind::Map(Box::new(k), Box::new(v))
        }
        "ROW" => {
            let paren = open_nested(c)?;
            let mut fields = Vec::new();
            let empty = if paren {
                c.is(&Token::RParen)
            } else {
                c.is_gt()
            };
            if !empty {
                loop {
                    let fname = c.ident()?;
                    if fields.iter().any(|f: &DataField| f.name == fname.name) {
                        return Err(SqlError::validation(
                            fname.pos,
                            format!(
                                "Field names must be unique. Found duplicates: [{}]",
                                fname.name
                            ),
                        ));
                    }
                    let ftype = parse_type(c)?;
                    let description = match c.peek() {
                        Token::SingleQuotedString(_) => Some(c.string()?.0),
                        _ => None,
                    };
                    fields.push(DataField {
                        id: fields.len() as i32,
                        name: fname.name,
                        data_type: ftype,
                        description,
                    });
                    if !c.eat(&Token::Comma) {
                        break;
                    }
                }
            }
            close_nested(c, paren)?;
            TypeKind::Row(fields)
        }
        "RAW" | "STRUCTURED" | "INTERVAL" | "NULL" | "SYMBOL" => {
            return Err(SqlError::unsupported(
                pos,
                format!("type {name} cannot be stored in a Paimon table"),
            ))
        }
        _ => {
            return Err(SqlError::syntax(
                pos,
                format!("unknown data type '{}'", w.value),
            ))
        }
    };
    Ok(DataType::nullable(kind))
}

/// Parses a whole string as one Flink type (e.g. `"ARRAY<ROW<a INT>> NOT NULL"`).
pub fn parse_data_type(text: &str) -> Result<DataType> {
    let (tokens, err) = crate::script::tokenize(text);
    if let Some(e) = err {
        return Err(e);
    }
    let mut c = Cursor::new(&tokens);
    let t = parse_type(&mut c)?;
    if !c.at_end() {
        return c.err("end of type");
    }
    Ok(t)
}
