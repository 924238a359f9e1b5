//! `$statistics`: the table statistics an `ANALYZE` committed (the file the snapshot's
//! `statistics` names, in `<table>/statistics/`), as Paimon's `StatisticTable` shows them.

use crate::spec::jackson::{pretty_object, write_string};
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use serde::Deserialize;
use std::sync::Arc;

/// A statistics file (Java `Statistics`); unknown fields are ignored, as Java's mapper does.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Statistics {
    snapshot_id: i64,
    schema_id: i64,
    merged_record_count: Option<i64>,
    merged_record_size: Option<i64>,
    /// By column name, in file order (serde_json keeps it).
    col_stats: Option<serde_json::Map<String, serde_json::Value>>,
}

/// One column's statistics (Java `ColStats`); `min`/`max` are the type's text form.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ColStats {
    col_id: i32,
    distinct_count: Option<i64>,
    min: Option<String>,
    max: Option<String>,
    null_count: Option<i64>,
    avg_len: Option<i64>,
    max_len: Option<i64>,
}

/// `$statistics` of `snapshot` (time travel applies, as Paimon 1.x reads the travelled-to
/// snapshot's statistics; 0.9 read the latest's): one row `snapshot_id`, `schema_id`,
/// `mergedRecordCount`, `mergedRecordSize`, `colstat` when the snapshot has statistics, none
/// otherwise. `colstat` is the column statistics as Java prints them (Jackson's pretty JSON,
/// fields `colId`, `distinctCount`, `min`, `max`, `nullCount`, `avgLen`, `maxLen`, absent ones
/// left out). A column statistic naming no column of the statistics' schema is an error, as in
/// Java. An absent record count or size is NULL (Java 0.9–2.x fail on it).
pub async fn statistics(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("snapshot_id", DataType::Int64, false),
        Field::new("schema_id", DataType::Int64, false),
        Field::new("mergedRecordCount", DataType::Int64, true),
        Field::new("mergedRecordSize", DataType::Int64, true),
        Field::new("colstat", DataType::Utf8, true),
    ]));
    let Some(file) = snapshot.and_then(|s| s.statistics.as_deref()) else {
        return Ok(ReadOutput {
            schema,
            batches: Vec::new(),
        });
    };
    // the table's folder, also for a branch (Java's `FileStorePathFactory.statisticsPath`)
    let key = format!("{}/statistics/{file}", table.path().trim_end_matches('/'));
    let bytes = table.store().get(&key).await?;
    let stats: Statistics = serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&key, e))?;
    let colstat = match &stats.col_stats {
        None => "null".to_string(),
        Some(cols) => {
            let columns = table.schema(stats.schema_id).await?;
            let mut members = Vec::with_capacity(cols.len());
            for (name, value) in cols {
                if columns.field(name).is_none() {
                    return Err(Error::corrupt(
                        &key,
                        format!(
                            "statistics of column '{name}', not in schema {}",
                            stats.schema_id
                        ),
                    ));
                }
                let col = ColStats::deserialize(value)
                    .map_err(|e| Error::corrupt(&key, format!("column '{name}': {e}")))?;
                members.push((name.as_str(), col_stats_json(&col)));
            }
            pretty_object(&members, 0)
        }
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(vec![stats.snapshot_id])),
        Arc::new(Int64Array::from(vec![stats.schema_id])),
        Arc::new(Int64Array::from(vec![stats.merged_record_count])),
        Arc::new(Int64Array::from(vec![stats.merged_record_size])),
        Arc::new(StringArray::from(vec![colstat])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building $statistics: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}

/// One column's statistics as Jackson prints Java's `ColStats` inside the map (nesting 1).
fn col_stats_json(col: &ColStats) -> String {
    let text = |s: &str| {
        let mut out = String::new();
        write_string(&mut out, s);
        out
    };
    let mut members = vec![("colId", col.col_id.to_string())];
    let optional = [
        ("distinctCount", col.distinct_count.map(|v| v.to_string())),
        ("min", col.min.as_deref().map(text)),
        ("max", col.max.as_deref().map(text)),
        ("nullCount", col.null_count.map(|v| v.to_string())),
        ("avgLen", col.avg_len.map(|v| v.to_string())),
        ("maxLen", col.max_len.map(|v| v.to_string())),
    ];
    members.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    pretty_object(&members, 1)
}
