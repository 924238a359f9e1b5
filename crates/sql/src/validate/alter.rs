//! ALTER TABLE rules: option values always; column, key, partition and type-change rules when the current schema is known.

use super::casts::supports_cast;
use super::create::{paimon_rules, Col};
use super::options::check_values;
use super::{TableFormat, ValidationContext};
use crate::ast::*;
use crate::error::{Pos, Result, SqlError};
use lakescope_format::spec::schema::TableSchema;

const IMMUTABLE: &[&str] = &["primary-key", "partition", "bucket-key", "merge-engine"];

fn schema_cols(s: &TableSchema, pos: Pos) -> Vec<Col<'_>> {
    s.fields
        .iter()
        .map(|f| Col {
            name: &f.name,
            pos,
            data_type: Some(&f.data_type),
            physical: true,
        })
        .collect()
}

fn at(v: &[String], pos: Pos) -> Vec<(String, Pos)> {
    v.iter().map(|s| (s.clone(), pos)).collect()
}

fn missing(name: &Ident) -> SqlError {
    SqlError::validation(
        name.pos,
        format!("The column [{}] doesn't exist in the table.", name.name),
    )
}

/// Validates ALTER TABLE.
pub(super) fn alter_table(a: &AlterTable, ctx: &ValidationContext) -> Result<()> {
    let paimon = ctx.format != TableFormat::Iceberg;
    if let AlterAction::Set(opts) = &a.action {
        if paimon {
            check_values(opts)?;
        }
    }
    if let AlterAction::AddPartitionField(f) | AlterAction::DropPartitionField(f) = &a.action {
        if paimon {
            return Err(SqlError::unsupported(
                f.pos,
                "ADD / DROP PARTITION FIELD (partition-spec evolution) is for Iceberg tables: the partition keys of a Paimon table cannot change",
            ));
        }
        return Ok(());
    }
    let Some(s) = ctx.existing else {
        if let AlterAction::Add(ch) | AlterAction::Modify(ch) = &a.action {
            if let Some(pk) = &ch.primary_key {
                if !pk.not_enforced {
                    return Err(SqlError::validation(pk.pos, "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint: declare it NOT ENFORCED"));
                }
            }
        }
        return Ok(());
    };
    let pos = a.name.pos;
    let exists = |n: &str| s.field(n).is_some();
    let is_key =
        |n: &str| s.primary_keys.iter().any(|k| k == n) || s.partition_keys.iter().any(|k| k == n);
    match &a.action {
        AlterAction::Set(opts) => {
            for o in opts {
                if IMMUTABLE.contains(&o.key.as_str()) && s.options.get(&o.key) != Some(&o.value) {
                    return Err(SqlError::validation(
                        o.key_pos,
                        format!("Change '{}' is not supported yet.", o.key),
                    ));
                }
            }
            if paimon {
                let mut merged: Vec<OptionEntry> = s
                    .options
                    .iter()
                    .map(|(k, v)| OptionEntry {
                        key: k.clone(),
                        value: v.clone(),
                        key_pos: pos,
                        value_pos: pos,
                    })
                    .collect();
                merged.extend(opts.iter().cloned());
                paimon_rules(
                    &schema_cols(s, pos),
                    &at(&s.primary_keys, pos),
                    &at(&s.partition_keys, pos),
                    &merged,
                )?;
            }
        }
        AlterAction::Reset(keys) => {
            for (k, p) in keys {
                if IMMUTABLE.contains(&k.as_str()) || k == "bucket" {
                    return Err(SqlError::validation(*p, format!("Cannot reset {k}.")));
                }
            }
        }
        AlterAction::RenameTo(_) => {}
        AlterAction::RenameColumn { from, to } => {
            if !exists(&from.name) {
                return Err(missing(from));
            }
            if exists(&to.name) {
                return Err(SqlError::validation(
                    to.pos,
                    format!("The column [{}] already exists in the table.", to.name),
                ));
            }
            if s.partition_keys.contains(&from.name) {
                return Err(SqlError::validation(
                    from.pos,
                    format!("Cannot rename partition column: [{}]", from.name),
                ));
            }
        }
        AlterAction::DropColumns(cols) => {
            for c in cols {
                if !exists(&c.name) {
                    return Err(missing(c));
                }
                if is_key(&c.name) {
                    return Err(SqlError::validation(
                        c.pos,
                        format!("Cannot drop partition key or primary key: [{}]", c.name),
                    ));
                }
            }
            if cols.len() >= s.fields.len() {
                return Err(SqlError::validation(pos, "Cannot drop all fields in table"));
            }
        }
        AlterAction::Add(ch) => {
            let mut added: Vec<&str> = Vec::new();
            for cc in &ch.columns {
                let n = &cc.column.name;
                if exists(&n.name) || added.contains(&n.name.as_str()) {
                    return Err(SqlError::validation(
                        n.pos,
                        format!("The column [{}] already exists in the table.", n.name),
                    ));
                }
                if let Some(t) = cc.column.data_type() {
                    if !t.nullable && paimon {
                        return Err(SqlError::validation(
                            cc.column.type_pos,
                            format!(
                                "Column {} cannot specify NOT NULL in the {} table.",
                                n.name,
                                a.name.name()
                            ),
                        ));
                    }
                }
                if let Some(ColumnPosition::After(r)) = &cc.position {
                    if !exists(&r.name) && !added.contains(&r.name.as_str()) {
                        return Err(missing(r));
                    }
                }
                added.push(&n.name);
            }
            if let Some(w) = &ch.watermark {
                if !exists(&w.column.name) && !added.contains(&w.column.name.as_str()) {
                    return Err(SqlError::validation(
                        w.column.pos,
                        format!(
                            "The rowtime attribute field '{}' is not defined in the table schema",
                            w.column.name
                        ),
                    ));
                }
            }
            if ch.primary_key.is_some() && !s.primary_keys.is_empty() {
                let p = ch.primary_key.as_ref().map(|p| p.pos).unwrap_or(pos);
                return Err(SqlError::validation(p, "The base table has already defined the primary key constraint. You might want to drop it before adding a new one."));
            }
        }
        AlterAction::Modify(ch) => {
            for cc in &ch.columns {
                let n = &cc.column.name;
                let Some(old) = s.field(&n.name) else {
                    return Err(missing(n));
                };
                if let Some(new) = cc.column.data_type() {
                    let type_changed = old.data_type.kind != new.kind;
                    if type_changed && s.partition_keys.contains(&n.name) {
                        return Err(SqlError::validation(
                            cc.column.type_pos,
                            format!("Cannot update partition column: [{}]", n.name),
                        ));
                    }
                    if type_changed && s.primary_keys.contains(&n.name) {
                        return Err(SqlError::validation(
                            cc.column.type_pos,
                            format!("Cannot update primary key column: [{}]", n.name),
                        ));
                    }
                    if type_changed && !supports_cast(&old.data_type, new) {
                        return Err(SqlError::validation(
                            cc.column.type_pos,
                            format!(
                                "Column type {}[{}] cannot be converted to {} without loosing information.",
                                n.name,
                                old.data_type.clone().with_nullable(true),
                                new.clone().with_nullable(true)
                            ),
                        ));
                    }
                    // Primary-key columns are NOT NULL whatever the MODIFY says (Flink implies it).
                    let is_pk = s.primary_keys.contains(&n.name);
                    if old.data_type.nullable && !new.nullable && !is_pk {
                        let allowed = s
                            .options
                            .get("alter-column-null-to-not-null.disabled")
                            .is_some_and(|v| v == "false");
                        if !allowed {
                            return Err(SqlError::validation(
                                cc.column.type_pos,
                                format!("Cannot update column type from nullable to non nullable for {}. You can set table configuration option 'alter-column-null-to-not-null.disabled' = 'false' to allow converting null columns to not null", n.name),
                            ));
                        }
                    }
                }
                if let Some(ColumnPosition::After(r)) = &cc.position {
                    if !exists(&r.name) {
                        return Err(missing(r));
                    }
                }
            }
            if let Some(p) = &ch.primary_key {
                return Err(SqlError::unsupported(
                    p.pos,
                    "Paimon does not support changing the primary key of an existing table",
                ));
            }
        }
        AlterAction::DropWatermark(_)
        | AlterAction::AddPartitionField(_)
        | AlterAction::DropPartitionField(_) => {}
        AlterAction::DropPrimaryKey(p) => {
            if !s.primary_keys.is_empty() && paimon {
                return Err(SqlError::unsupported(
                    *p,
                    "Paimon does not support dropping the primary key of an existing table",
                ));
            }
        }
        AlterAction::DropPartitions { partitions, .. } => {
            if s.partition_keys.is_empty() {
                return Err(SqlError::validation(
                    pos,
                    format!("Table {} is not partitioned", a.name),
                ));
            }
            for spec in partitions {
                for e in spec {
                    if !s.partition_keys.contains(&e.key) {
                        return Err(SqlError::validation(
                            e.key_pos,
                            format!(
                                "'{}' is not a partition column; partition keys: [{}]",
                                e.key,
                                s.partition_keys.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
