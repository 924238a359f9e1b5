//! SHOW CREATE TABLE: Flink DDL from a Paimon `TableSchema`, and the schema a CREATE TABLE defines (its inverse).

use crate::ast::{ColumnKind, CreateTable};
use crate::error::{Result, SqlError};
use lakescope_format::spec::schema::{TableSchema, CURRENT_SCHEMA_VERSION};
use lakescope_format::spec::types::{DataField, DataType, TypeKind};
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

/// A PARTITIONED BY entry as written (`c`, `days(c)`, `bucket(16, c)`).
fn partition_entry(p: &crate::ast::PartitionField) -> String {
    use crate::ast::Transform;
    let c = quote_ident(&p.column.name);
    match p.transform {
        None => c,
        Some(Transform::Years) => format!("years({c})"),
        Some(Transform::Months) => format!("months({c})"),
        Some(Transform::Days) => format!("days({c})"),
        Some(Transform::Hours) => format!("hours({c})"),
        Some(Transform::Bucket(n)) => format!("bucket({n}, {c})"),
        Some(Transform::Truncate(n)) => format!("truncate({n}, {c})"),
    }
}

/// The DDL a session table was declared with (TEMPORARY or in-memory catalog tables of other
/// connectors), as Flink shows it: columns (physical, computed, metadata), WATERMARK, PRIMARY
/// KEY, COMMENT, PARTITIONED BY and the WITH options in declared order. `name` parts are
/// backquoted.
pub fn show_declared(name: &[&str], t: &CreateTable) -> String {
    let mut lines: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let mut l = format!("  {} ", quote_ident(&c.name.name));
            match &c.kind {
                ColumnKind::Physical(dt) => l.push_str(&flink_type(dt)),
                ColumnKind::Computed { text, .. } => {
                    let _ = write!(l, "AS {text}");
                }
                ColumnKind::Metadata {
                    data_type,
                    key,
                    is_virtual,
                } => {
                    let _ = write!(l, "{} METADATA", flink_type(data_type));
                    if let Some(k) = key {
                        let _ = write!(l, " FROM {}", quote_str(k));
                    }
                    if *is_virtual {
                        l.push_str(" VIRTUAL");
                    }
                }
            }
            if let Some(d) = &c.comment {
                let _ = write!(l, " COMMENT {}", quote_str(d));
            }
            l
        })
        .collect();
    if let Some(w) = &t.watermark {
        lines.push(format!(
            "  WATERMARK FOR {} AS {}",
            quote_ident(&w.column.name),
            w.text
        ));
    }
    if let Some(pk) = &t.primary_key {
        let keys: Vec<String> = pk.columns.iter().map(|k| quote_ident(&k.name)).collect();
        lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", keys.join(", ")));
    }
    let qualified: Vec<String> = name.iter().map(|p| quote_ident(p)).collect();
    let temporary = if t.temporary { "TEMPORARY " } else { "" };
    let mut out = format!("CREATE {temporary}TABLE {} (\n", qualified.join("."));
    out.push_str(&lines.join(",\n"));
    out.push_str("\n)");
    if let Some(c) = &t.comment {
        let _ = write!(out, "\nCOMMENT {}", quote_str(c));
    }
    if !t.partitioned_by.is_empty() {
        let keys: Vec<String> = t.partitioned_by.iter().map(partition_entry).collect();
        let _ = write!(out, "\nPARTITIONED BY ({})", keys.join(", "));
    }
    if !t.options.is_empty() {
        let opts: Vec<String> = t
            .options
            .iter()
            .map(|o| format!("  {} = {}", quote_str(&o.key), quote_str(&o.value)))
            .collect();
        let _ = write!(out, "\nWITH (\n{}\n)", opts.join(",\n"));
    }
    out
}
