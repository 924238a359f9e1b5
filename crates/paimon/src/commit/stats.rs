//! Summaries of a manifest for its manifest-list entry (counts, partition stats, bucket/level range).

use crate::error::Result;
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::manifest::{FileKind, ManifestEntry, ManifestFileMeta, SimpleStats};
use crate::spec::schema::TableSchema;
use crate::write::binary_row::serialize;
use std::cmp::Ordering;

/// The manifest-list entry of a manifest holding `entries`.
pub fn manifest_meta(
    schema: &TableSchema,
    file_name: &str,
    file_size: i64,
    entries: &[ManifestEntry],
    schema_id: i64,
) -> Result<ManifestFileMeta> {
    let types = schema.partition_types();
    let n = types.len();
    let mut min: Vec<Datum> = vec![Datum::Null; n];
    let mut max: Vec<Datum> = vec![Datum::Null; n];
    let mut nulls = vec![0i64; n];
    for e in entries {
        let values = BinaryRow::decode_in(file_name, &e.partition, &types)?;
        for (i, v) in values.into_iter().enumerate() {
            if v.is_null() {
                nulls[i] += 1;
                continue;
            }
            if min[i].is_null() || v.total_cmp(&min[i]) == Ordering::Less {
                min[i] = v.clone();
            }
            if max[i].is_null() || v.total_cmp(&max[i]) == Ordering::Greater {
                max[i] = v;
            }
        }
    }
    let count = |k: FileKind| entries.iter().filter(|e| e.kind == k).count() as i64;
    Ok(ManifestFileMeta {
        file_name: file_name.to_string(),
        file_size,
        num_added_files: count(FileKind::Add),
        num_deleted_files: count(FileKind::Delete),
        partition_stats: SimpleStats {
            min_values: serialize(&min, &types)?,
            max_values: serialize(&max, &types)?,
            null_counts: nulls.into_iter().map(Some).collect(),
        },
        schema_id,
        min_bucket: entries.iter().map(|e| e.bucket).min(),
        max_bucket: entries.iter().map(|e| e.bucket).max(),
        min_level: entries.iter().map(|e| e.file.level).min(),
        max_level: entries.iter().map(|e| e.file.level).max(),
        min_row_id: None,
        max_row_id: None,
        total_buckets: None,
    })
}
