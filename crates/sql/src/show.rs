//! SHOW CREATE TABLE: Flink DDL from a Paimon `TableSchema`, and the schema a CREATE TABLE defines (its inverse).

use crate::ast::{ColumnKind, CreateTable};
use crate::error::{Result, SqlError};
use lakescope_paimon::spec::schema::{TableSchema, CURRENT_SCHEMA_VERSION};
use lakescope_paimon::spec::types::{DataField, DataType, TypeKind};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Backquotes an identifier (`` ` `` doubled inside).
pub fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// Single-quotes a string literal (`'` doubled inside).
pub fn quote_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A Paimon type in Flink syntax (row field names quoted, field comments kept).
pub fn flink_type(t: &DataType) -> String {
    let body = match &t.kind {
        TypeKind::Array(e) => format!("ARRAY<{}>", flink_type(e)),
        TypeKind::Multiset(e) => format!("MULTISET<{}>", flink_type(e)),
        TypeKind::Map(k, v) => format!("MAP<{}, {}>", flink_type(k), flink_type(v)),
        TypeKind::Row(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| match &f.description {
                    Some(d) => format!(
                        "{} {} {}",
                        quote_ident(&f.name),
                        flink_type(&f.data_type),
                        quote_str(d)
                    ),
                    None => format!("{} {}", quote_ident(&f.name), flink_type(&f.data_type)),
                })
                .collect();
            format!("ROW<{}>", inner.join(", "))
        }
        _ => return t.to_string(),
    };
    if t.nullable {
        body
    } else {
        format!("{body} NOT NULL")
    }
}

/// Flink DDL for a table: `CREATE TABLE name (...) COMMENT ... PARTITIONED BY (...) WITH (...)`.
/// `name` is written as given, each dot-separated part backquoted.
pub fn show_create_table(name: &[&str], schema: &TableSchema) -> String {
    let mut out = String::new();
    let qualified: Vec<String> = name.iter().map(|p| quote_ident(p)).collect();
    let _ = writeln!(out, "CREATE TABLE {} (", qualified.join("."));
    let mut lines: Vec<String> = schema
        .fields
        .iter()
        .map(|f| {
            let mut l = format!("  {} {}", quote_ident(&f.name), flink_type(&f.data_type));
            if let Some(d) = &f.description {
                let _ = write!(l, " COMMENT {}", quote_str(d));
            }
            l
        })
        .collect();
    if !schema.primary_keys.is_empty() {
        let keys: Vec<String> = schema.primary_keys.iter().map(|k| quote_ident(k)).collect();
        lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", keys.join(", ")));
    }
    out.push_str(&lines.join(",\n"));
    out.push_str("\n)");
    if let Some(c) = &schema.comment {
        let _ = write!(out, "\nCOMMENT {}", quote_str(c));
    }
    if !schema.partition_keys.is_empty() {
        let keys: Vec<String> = schema
            .partition_keys
            .iter()
            .map(|k| quote_ident(k))
            .collect();
        let _ = write!(out, "\nPARTITIONED BY ({})", keys.join(", "));
    }
    if !schema.options.is_empty() {
        let opts: Vec<String> = schema
            .options
            .iter()
            .map(|(k, v)| format!("  {} = {}", quote_str(k), quote_str(v)))
            .collect();
        let _ = write!(out, "\nWITH (\n{}\n)", opts.join(",\n"));
    }
    out
}

/// Gives nested row fields ids after the top-level ones, as Paimon does; returns the highest id.
fn assign_nested_ids(t: &mut DataType, next: &mut i32) {
    match &mut t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) => assign_nested_ids(e, next),
        TypeKind::Map(k, v) => {
            assign_nested_ids(k, next);
            assign_nested_ids(v, next);
        }
        TypeKind::Row(fields) => {
            for f in fields.iter_mut() {
                *next += 1;
                f.id = *next;
                assign_nested_ids(&mut f.data_type, next);
            }
        }
        _ => {}
    }
}

/// The Paimon schema (id 0) a CREATE TABLE with a column list defines: physical columns, primary
/// key columns made NOT NULL, partition keys, comment and WITH options.
pub fn create_table_schema(t: &CreateTable) -> Result<TableSchema> {
    if t.columns.is_empty() {
        return Err(SqlError::unsupported(
            t.name.pos,
            "the schema of CREATE TABLE ... LIKE / AS SELECT depends on the source table: resolve it in the engine",
        ));
    }
    if let Some(p) = t.partitioned_by.iter().find(|p| p.transform.is_some()) {
        return Err(SqlError::unsupported(
            p.pos,
            "partition transforms have no Paimon schema",
        ));
    }
    let pk: Vec<String> = t
        .primary_key
        .iter()
        .flat_map(|p| p.columns.iter().map(|c| c.name.clone()))
        .collect();
    let mut fields = Vec::new();
    for c in &t.columns {
        let ColumnKind::Physical(dt) = &c.kind else {
            continue;
        };
        let mut dt = dt.clone();
        if pk.contains(&c.name.name) {
            dt.nullable = false;
        }
        fields.push(DataField {
            id: fields.len() as i32,
            name: c.name.name.clone(),
            data_type: dt,
            description: c.comment.clone(),
        });
    }
    let mut next = fields.len() as i32 - 1;
    for f in fields.iter_mut() {
        assign_nested_ids(&mut f.data_type, &mut next);
    }
    let options: BTreeMap<String, String> = t
        .options
        .iter()
        .map(|o| (o.key.clone(), o.value.clone()))
        .collect();
    Ok(TableSchema {
        version: CURRENT_SCHEMA_VERSION,
        id: 0,
        fields,
        highest_field_id: next,
        partition_keys: t
            .partitioned_by
            .iter()
            .map(|p| p.column.name.clone())
            .collect(),
        primary_keys: pk,
        options,
        comment: t.comment.clone(),
        time_millis: 0,
    })
}
