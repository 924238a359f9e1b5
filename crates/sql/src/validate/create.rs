//! CREATE TABLE rules: columns, primary key, partitions, watermark, bucket and field options (Paimon) and transforms (Iceberg).

use super::options::{check_values, field_option, parse_int};
use super::{TableFormat, ValidationContext};
use crate::ast::*;
use crate::error::{Pos, Result, SqlError};
use lakescope_format::spec::types::{DataType, TypeKind};

/// A column as the rules see it.
pub(super) struct Col<'a> {
    pub name: &'a str,
    /// Where the column is named (the table name for existing columns).
    pub pos: Pos,
    pub data_type: Option<&'a DataType>,
    pub physical: bool,
}

fn find<'a>(cols: &'a [Col<'a>], name: &str) -> Option<&'a Col<'a>> {
    cols.iter().find(|c| c.name == name)
}

fn names(cols: &[Col]) -> String {
    cols.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}

fn list(v: &[(String, Pos)]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Paimon's table rules over columns, key, partitions and options (shared by CREATE and ALTER).
pub(super) fn paimon_rules(
    cols: &[Col],
    pk: &[(String, Pos)],
    parts: &[(String, Pos)],
    options: &[OptionEntry],
) -> Result<()> {
    check_values(options)?;
    let get = |k: &str| options.iter().rev().find(|o| o.key == k);
    for (name, pos) in pk {
        let Some(c) = find(cols, name) else {
            return Err(SqlError::validation(
                *pos,
                format!("Primary key column '{name}' is not defined in the schema. Available columns: [{}]", names(cols)),
            ));
        };
        if !c.physical {
            return Err(SqlError::validation(
                *pos,
                format!("Could not create a PRIMARY KEY with column '{name}'. A PRIMARY KEY constraint must be declared on physical columns."),
            ));
        }
        if let Some(t) = c.data_type {
            if t.is_nested() || t.kind == TypeKind::Variant {
                return Err(SqlError::validation(
                    *pos,
                    format!("The type {t} in primary key field {name} is unsupported"),
                ));
            }
        }
    }
    for (name, pos) in parts {
        let Some(c) = find(cols, name) else {
            return Err(SqlError::validation(
                *pos,
                format!("Partition column '{name}' not defined in the table schema. Available columns: [{}]", names(cols)),
            ));
        };
        if let Some(t) = c.data_type {
            if t.is_nested() || t.kind == TypeKind::Variant {
                return Err(SqlError::validation(
                    *pos,
                    format!("The type {t} in partition field {name} is unsupported"),
                ));
            }
        }
    }
    let bucket = get("bucket")
        .and_then(|o| parse_int(&o.value))
        .unwrap_or(-1);
    if bucket > 0 && !pk.is_empty() {
        let missing: Vec<&(String, Pos)> = parts
            .iter()
            .filter(|(p, _)| !pk.iter().any(|(k, _)| k == p))
            .collect();
        if let Some((_, pos)) = pk.first().filter(|_| !missing.is_empty()) {
            return Err(SqlError::validation(
                *pos,
                format!(
                    "You should use dynamic bucket (bucket = -1) mode in cross partition update case (Primary key constraint {} not include all partition fields {}); with 'bucket' = '{bucket}' the primary key must include all partition fields",
                    list(pk),
                    list(parts)
                ),
            ));
        }
    }
    let bucket_key = get("bucket-key");
    if let Some(bk) = bucket_key.filter(|_| bucket == -1) {
        return Err(SqlError::validation(
            bk.key_pos,
            "Cannot define 'bucket-key' in unaware or dynamic bucket mode ('bucket' = '-1'): set 'bucket' to the number of buckets or remove 'bucket-key'.",
        ));
    }
    let cross_partition =
        !pk.is_empty() && parts.iter().any(|(p, _)| !pk.iter().any(|(k, _)| k == p));
    if let Some(cp) = get("changelog-producer") {
        let v = cp.value.trim().to_ascii_lowercase();
        if pk.is_empty() && v != "none" {
            return Err(SqlError::validation(
                cp.key_pos,
                "Can not set changelog-producer on table without primary keys, please define primary keys.",
            ));
        }
        let first_row =
            get("merge-engine").is_some_and(|m| m.value.trim().eq_ignore_ascii_case("first-row"));
        if first_row && v != "none" && v != "lookup" {
            return Err(SqlError::validation(
                cp.value_pos,
                "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine",
            ));
        }
    }
    if let Some(pe) = get("partition.expiration-time") {
        if parts.is_empty() {
            return Err(SqlError::validation(
                pe.key_pos,
                "Can not set 'partition.expiration-time' for non-partitioned table.",
            ));
        }
    }
    let retained = |k: &str| get(k).and_then(|o| parse_int(&o.value).map(|v| (o, v)));
    if let Some((o, min)) = retained("snapshot.num-retained.min") {
        if min < 1 {
            return Err(SqlError::validation(
                o.value_pos,
                "snapshot.num-retained.min should be at least 1",
            ));
        }
        if let Some((_, max)) = retained("snapshot.num-retained.max").filter(|(_, max)| min > *max)
        {
            return Err(SqlError::validation(o.value_pos, format!("snapshot.num-retained.min should not be larger than snapshot.num-retained.max ({max})")));
        }
    }
    for c in cols {
        if c.name == "_SEQUENCE_NUMBER" || c.name == "_VALUE_KIND" || c.name.starts_with("_KEY_") {
            return Err(SqlError::validation(
                c.pos,
                format!("Field name[{}] in schema is reserved by Paimon (system fields _SEQUENCE_NUMBER, _VALUE_KIND and the _KEY_ prefix)", c.name),
            ));
        }
    }
    if bucket > 0 && pk.is_empty() && bucket_key.is_none() {
        let pos = get("bucket").map(|o| o.key_pos).unwrap_or_default();
        return Err(SqlError::validation(
            pos,
            format!("You should define a 'bucket-key' for bucketed append mode ('bucket' = '{bucket}' on a table without primary key)."),
        ));
    }
    if let Some(bk) = bucket_key {
        for k in bk.value.split(',').map(str::trim) {
            if find(cols, k).is_none() {
                return Err(SqlError::validation(
                    bk.value_pos,
                    format!(
                        "Bucket key field '{k}' is not a column. Available columns: [{}]",
                        names(cols)
                    ),
                ));
            }
            if parts.iter().any(|(p, _)| p == k) {
                return Err(SqlError::validation(
                    bk.value_pos,
                    format!(
                        "Bucket keys [{}] should not be in partition keys {}.",
                        bk.value,
                        list(parts)
                    ),
                ));
            }
            if !pk.is_empty() && !pk.iter().any(|(p, _)| p == k) {
                return Err(SqlError::validation(
                    bk.value_pos,
                    format!(
                        "Primary key constraint {} should include all bucket key fields [{}]",
                        list(pk),
                        bk.value
                    ),
                ));
            }
        }
    }
    for key in ["sequence.field", "record-level.time-field", "rowkind.field"] {
        if let Some(o) = get(key) {
            for f in o.value.split(',').map(str::trim) {
                if find(cols, f).is_none() {
                    return Err(SqlError::validation(
                        o.value_pos,
                        format!("'{key}' refers to column '{f}', which can not be found in table schema. Available columns: [{}]", names(cols)),
                    ));
                }
            }
        }
    }
    if let Some(o) = get("sequence.field") {
        for f in o.value.split(',').map(str::trim) {
            if get(&format!("fields.{f}.aggregate-function")).is_some() {
                return Err(SqlError::validation(
                    o.value_pos,
                    format!("Should not define aggregation on sequence field: '{f}'."),
                ));
            }
        }
        if get("merge-engine").is_some_and(|m| m.value.trim().eq_ignore_ascii_case("first-row")) {
            return Err(SqlError::validation(
                o.key_pos,
                "Do not support use sequence field on FIRST_ROW merge engine.",
            ));
        }
        if cross_partition {
            return Err(SqlError::validation(
                o.key_pos,
                format!("You can not use sequence.field in cross partition update case (Primary key constraint {} not include all partition fields {}).", list(pk), list(parts)),
            ));
        }
    }
    for o in options {
        let Some((fields, suffix)) = field_option(&o.key) else {
            continue;
        };
        if o.key == "fields.default-aggregate-function" {
            continue;
        }
        for f in &fields {
            if find(cols, f).is_none() {
                return Err(SqlError::validation(
                    o.key_pos,
                    format!("Field {f} can not be found in table schema (option '{}'). Available columns: [{}]", o.key, names(cols)),
                ));
            }
        }
        if suffix == "sequence-group" {
            for f in o.value.split(',').map(str::trim) {
                if find(cols, f).is_none() {
                    return Err(SqlError::validation(
                        o.value_pos,
                        format!(
                            "Field {f} can not be found in table schema (sequence group '{}').",
                            o.key
                        ),
                    ));
                }
            }
        }
        if suffix == "default-value" {
            let f = fields.first().copied().unwrap_or("");
            if let Some(t) = find(cols, f).and_then(|c| c.data_type) {
                if !default_value_fits(&o.value, t) {
                    return Err(SqlError::validation(
                        o.value_pos,
                        format!("The default value {} of the column {f} can not be cast to datatype: {t}", o.value),
                    ));
                }
            }
            if pk.iter().any(|(k, _)| k == f) {
                return Err(SqlError::validation(
                    o.key_pos,
                    format!(
                        "Primary key {f} should not be assign default column ('{}').",
                        o.key
                    ),
                ));
            }
            if parts.iter().any(|(k, _)| k == f) {
                return Err(SqlError::validation(
                    o.key_pos,
                    format!(
                        "Partition key {f} should not be assign default column ('{}').",
                        o.key
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Whether a `fields.<f>.default-value` string converts to the column's type (simple types only).
fn default_value_fits(v: &str, t: &DataType) -> bool {
    let v = v.trim();
    match &t.kind {
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt => {
            v.parse::<i64>().is_ok()
        }
        TypeKind::Float | TypeKind::Double | TypeKind::Decimal { .. } => v.parse::<f64>().is_ok(),
        TypeKind::Boolean => v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false"),
        TypeKind::Array(_) | TypeKind::Map(..) | TypeKind::Multiset(_) | TypeKind::Row(_) => false,
        _ => true,
    }
}

fn check_watermark(w: &Watermark, cols: &[Col]) -> Result<()> {
    let Some(c) = find(cols, &w.column.name) else {
        return Err(SqlError::validation(
            w.column.pos,
            format!("The rowtime attribute field '{}' is not defined in the table schema, at {}. Available fields: [{}]", w.column.name, w.column.pos, names(cols)),
        ));
    };
    if let Some(t) = c.data_type {
        let ok =
            matches!(t.kind, TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) if p <= 3);
        if !ok {
            return Err(SqlError::validation(
                w.column.pos,
                format!("Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is {t}"),
            ));
        }
    }
    Ok(())
}

pub(super) fn columns(t: &[ColumnDef]) -> Vec<Col<'_>> {
    t.iter()
        .map(|c| Col {
            name: &c.name.name,
            pos: c.name.pos,
            data_type: c.data_type(),
            physical: matches!(c.kind, ColumnKind::Physical(_)),
        })
        .collect()
}

/// Validates CREATE TABLE.
pub(super) fn create_table(t: &CreateTable, ctx: &ValidationContext) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    for c in &t.columns {
        if seen.contains(&c.name.name.as_str()) {
            return Err(SqlError::validation(
                c.name.pos,
                format!("A column named '{}' already exists in the table. Duplicate columns exist in the table schema.", c.name.name),
            ));
        }
        seen.push(&c.name.name);
    }
    if let Some(pk) = &t.primary_key {
        if !pk.not_enforced {
            return Err(SqlError::validation(
                pk.pos,
                "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED controls if the constraint checks are performed on the incoming/outgoing data. Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode",
            ));
        }
    }
    let cols = columns(&t.columns);
    let has_columns = !t.columns.is_empty();
    if let Some(w) = &t.watermark {
        check_watermark(w, &cols)?;
    }
    let connector = t
        .options
        .iter()
        .find(|o| o.key == "connector")
        .map(|o| o.value.as_str());
    let pk: Vec<(String, Pos)> = t
        .primary_key
        .iter()
        .flat_map(|p| p.columns.iter().map(|c| (c.name.clone(), c.pos)))
        .collect();
    let format = match connector {
        None => ctx.format,
        Some("paimon") => TableFormat::Paimon,
        Some("iceberg") => TableFormat::Iceberg,
        // Other connectors (kafka, filesystem, ...) are the engine's to accept or refuse.
        Some(_) => return Ok(()),
    };
    match format {
        TableFormat::Paimon => {
            if let Some(p) = t.partitioned_by.iter().find(|p| p.transform.is_some()) {
                return Err(SqlError::unsupported(
                    p.pos,
                    "Paimon tables are partitioned by plain columns; partition transforms (years/months/days/hours/bucket/truncate) are Iceberg hidden partitioning",
                ));
            }
            let parts: Vec<(String, Pos)> = t
                .partitioned_by
                .iter()
                .map(|p| (p.column.name.clone(), p.column.pos))
                .collect();
            if has_columns {
                paimon_rules(&cols, &pk, &parts, &t.options)
            } else {
                check_values(&t.options)
            }
        }
        TableFormat::Iceberg => {
            for p in &t.partitioned_by {
                let Some(c) = find(&cols, &p.column.name) else {
                    return Err(SqlError::validation(
                        p.column.pos,
                        format!("Partition column '{}' not defined in the table schema. Available columns: [{}]", p.column.name, names(&cols)),
                    ));
                };
                let temporal = c.data_type.is_some_and(|d| {
                    matches!(
                        d.kind,
                        TypeKind::Date | TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_)
                    )
                });
                if matches!(
                    p.transform,
                    Some(Transform::Years | Transform::Months | Transform::Days | Transform::Hours)
                ) && !temporal
                {
                    return Err(SqlError::validation(
                        p.pos,
                        format!("Cannot apply a time transform to column '{}' of type {}: it needs a DATE or TIMESTAMP column", p.column.name, c.data_type.map(|d| d.to_string()).unwrap_or_default()),
                    ));
                }
            }
            for (name, pos) in &pk {
                if find(&cols, name).is_none() {
                    return Err(SqlError::validation(*pos, format!("Primary key column '{name}' is not defined in the schema. Available columns: [{}]", names(&cols))));
                }
            }
            Ok(())
        }
        TableFormat::Unknown => Ok(()),
    }
}
