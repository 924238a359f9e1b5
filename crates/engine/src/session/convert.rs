//! Conversions at the SQL boundary: table hints to time travel, query rows to a table's columns, Arrow types to Paimon types.

use super::{StatementError, StatementResult};
use crate::Version;
use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, StringArray};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType as ArrowType, SchemaRef, TimeUnit};
use lakescope_paimon::incremental::IncrementalMode;
use lakescope_paimon::read::arrow_schema::to_arrow_type;
use lakescope_paimon::spec::binary_row::Datum;
use lakescope_paimon::spec::types::{DataField, DataType, TypeKind, MAX_LENGTH};
use lakescope_sql::ast::OptionEntry;
use lakescope_sql::Pos;
use std::sync::Arc;

fn hint<'a>(hints: &'a [OptionEntry], keys: &[&str]) -> Option<&'a OptionEntry> {
    hints.iter().find(|h| keys.contains(&h.key.as_str()))
}

fn number(h: &OptionEntry) -> StatementResult<i64> {
    h.value.trim().parse().map_err(|_| {
        StatementError::new(
            h.value_pos,
            format!("'{}' must be a number, not '{}'", h.key, h.value),
        )
    })
}

/// The version of a table a query reads, from its `/*+ OPTIONS(...) */` hints (Paimon's
/// `scan.*` keys and Iceberg-Flink's `snapshot-id` / `as-of-timestamp` / `tag`). In streaming
/// mode lakescope reads what exists now: a bounded "live" read of the latest snapshot.
/// A `'branch'` hint (Paimon's `branch` option, Iceberg-Flink's `branch`) is not a version but
/// the table read: the session reads `t$branch_<name>` instead ([`Resolved::with_branch_hint`]),
/// at the version the other hints name (for Paimon, within the branch).
///
/// [`Resolved::with_branch_hint`]: super::catalogs::Resolved::with_branch_hint
pub(super) fn time_travel(hints: &[OptionEntry]) -> StatementResult<Version> {
    if let Some(h) = hint(hints, &["incremental-between"]) {
        let mode = hint(hints, &["incremental-between-scan-mode"])
            .map(|m| {
                IncrementalMode::parse(&m.value)
                    .map_err(|e| StatementError::new(m.value_pos, format!("unknown {e}")))
            })
            .transpose()?;
        return Version::incremental_between(&h.value, mode).ok_or_else(|| {
            StatementError::new(
                h.value_pos,
                format!(
                    "'incremental-between' = '{}' must be 'start,end' (snapshot ids or tag names)",
                    h.value
                ),
            )
        });
    }
    if let Some(h) = hint(hints, &["scan.snapshot-id", "snapshot-id"]) {
        return Ok(Version::SnapshotId(number(h)?));
    }
    if let Some(h) = hint(hints, &["scan.tag-name", "tag"]) {
        return Ok(Version::Tag(h.value.clone()));
    }
    if let Some(h) = hint(hints, &["scan.timestamp-millis", "as-of-timestamp"]) {
        return Ok(Version::TimestampMillis(number(h)?));
    }
    Ok(Version::Latest)
}

/// Casts query columns to a Paimon type, failing (not nulling) on values that do not convert.
pub(super) fn cast_to(
    array: &ArrayRef,
    t: &DataType,
    column: &str,
    pos: Pos,
) -> StatementResult<ArrayRef> {
    let target = to_arrow_type(t);
    if array.data_type() == &target {
        return Ok(array.clone());
    }
    let options = CastOptions {
        safe: false,
        ..CastOptions::default()
    };
    cast_with_options(array, &target, &options).map_err(|e| {
        StatementError::new(
            pos,
            format!(
                "column '{column}': cannot convert {} to {t}: {e}",
                array.data_type()
            ),
        )
    })
}

/// A column of `rows` copies of a literal written as text (static partitions, default values).
pub(super) fn literal_column(
    text: &str,
    rows: usize,
    t: &DataType,
    column: &str,
    pos: Pos,
) -> StatementResult<ArrayRef> {
    let strings: ArrayRef = Arc::new(StringArray::from(vec![text; rows]));
    cast_to(&strings, t, column, pos)
}

/// The Paimon value of a literal written as text (static partition specs).
pub(super) fn literal_datum(
    text: &str,
    t: &DataType,
    column: &str,
    pos: Pos,
) -> StatementResult<Datum> {
    let array = literal_column(text, 1, t, column, pos)?;
    lakescope_paimon::write::datum::datum_at(array.as_ref(), 0, t)
        .map_err(|e| StatementError::new(pos, format!("column '{column}': {e}")))
}

/// A column of NULLs of a Paimon type.
pub(super) fn null_column(t: &DataType, rows: usize) -> ArrayRef {
    new_null_array(&to_arrow_type(t), rows)
}

/// The Paimon type of a query column: the source table's own type when the query passes a
/// column through unchanged (keeps TIMESTAMP(3), VARCHAR(n), NOT NULL), else from Arrow.
pub(crate) fn paimon_type(
    name: &str,
    arrow: &ArrowType,
    nullable: bool,
    sources: &[DataField],
) -> Result<DataType, String> {
    if let Some(f) = sources
        .iter()
        .find(|f| f.name == name && &to_arrow_type(&f.data_type) == arrow)
    {
        return Ok(f.data_type.clone());
    }
    let kind = match arrow {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 => TypeKind::SmallInt,
        ArrowType::Int32 => TypeKind::Int,
        ArrowType::Int64 => TypeKind::BigInt,
        ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal128(p, s) if *s >= 0 => TypeKind::Decimal {
            precision: *p,
            scale: *s as u8,
        },
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => {
            TypeKind::VarChar(MAX_LENGTH)
        }
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            TypeKind::VarBinary(MAX_LENGTH)
        }
        ArrowType::Date32 => TypeKind::Date,
        ArrowType::Timestamp(unit, tz) => {
            let p = match unit {
                TimeUnit::Second => 0,
                TimeUnit::Millisecond => 3,
                TimeUnit::Microsecond => 6,
                TimeUnit::Nanosecond => 9,
            };
            if tz.is_some() {
                TypeKind::LocalZonedTimestamp(p)
            } else {
                TypeKind::Timestamp(p)
            }
        }
        ArrowType::Null => TypeKind::VarChar(MAX_LENGTH),
        other => {
            return Err(format!(
                "column '{name}' has type {other}, which has no Paimon type yet"
            ))
        }
    };
    Ok(DataType::nullable(kind).with_nullable(nullable))
}

/// The rows of `batches` with a non-null value in every NOT NULL column of `fields`, or Flink's
/// error when `drop` is false (`table.exec.sink.not-null-enforcer` = ERROR, the default).
pub(super) fn enforce_not_null(
    columns: Vec<ArrayRef>,
    fields: &[DataField],
    table: &str,
    drop: bool,
    pos: Pos,
) -> StatementResult<Vec<ArrayRef>> {
    let mut keep: Option<Vec<bool>> = None;
    for (f, c) in fields.iter().zip(&columns) {
        if f.data_type.nullable || c.null_count() == 0 {
            continue;
        }
        if !drop {
            return Err(StatementError::new(
                pos,
                format!(
                    "Column '{}' is NOT NULL, however, a null value is being written into it (table {table}). You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.",
                    f.name
                ),
            ));
        }
        let k = keep.get_or_insert_with(|| vec![true; c.len()]);
        for (i, slot) in k.iter_mut().enumerate() {
            if c.is_null(i) {
                *slot = false;
            }
        }
    }
    let Some(keep) = keep else {
        return Ok(columns);
    };
    let mask = arrow_array::BooleanArray::from(keep);
    columns
        .iter()
        .map(|c| {
            arrow_select::filter::filter(c.as_ref(), &mask)
                .map_err(|e| StatementError::new(pos, format!("dropping NULL rows: {e}")))
        })
        .collect()
}

/// One batch of the given columns under `schema`.
pub(super) fn batch(
    schema: SchemaRef,
    columns: Vec<ArrayRef>,
    pos: Pos,
) -> StatementResult<RecordBatch> {
    let rows = columns.first().map_or(0, |c| c.len());
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| StatementError::new(pos, format!("building rows: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, value: &str, column: u64) -> OptionEntry {
        let pos = |column| Pos { line: 1, column };
        OptionEntry {
            key: key.into(),
            value: value.into(),
            key_pos: pos(column),
            value_pos: pos(column + 1),
        }
    }

    #[test]
    fn the_incremental_scan_mode_is_read_as_paimon_names_it_and_an_unknown_one_is_refused_there() {
        let between = entry("incremental-between", "1,3", 1);
        let version = time_travel(&[
            between.clone(),
            entry("incremental-between-scan-mode", "Diff", 10),
        ]);
        assert!(
            matches!(
                version,
                Ok(Version::IncrementalBetween {
                    mode: Some(IncrementalMode::Diff),
                    ..
                })
            ),
            "{version:?}"
        );
        let e = time_travel(&[between, entry("incremental-between-scan-mode", "full", 10)])
            .unwrap_err();
        assert_eq!(
            e.pos,
            Pos {
                line: 1,
                column: 11
            }
        );
        assert!(
            e.message
                .contains("unknown incremental-between-scan-mode 'full'")
                && e.message.contains("auto, delta, changelog or diff"),
            "{}",
            e.message
        );
    }
}
