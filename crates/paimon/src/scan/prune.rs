//! Min/max-stats pruning of planned files, only where it cannot drop a row of the merged result.
//!
//! Rules (Java `AppendOnlyFileStoreScan`, `KeyValueFileStoreScan.filterByStats` /
//! `filterWholeBucketByStats`, stats mapped by field id as `SimpleStatsEvolution`):
//! - append tables: each file by its value stats (no merge, every row stands alone);
//! - primary-key tables, key filter (the conjuncts on trimmed primary-key columns): each file by
//!   its key stats; merging is per key, so a file without the key contributes nothing to it;
//! - primary-key tables, value filter (the whole predicate on value stats):
//!   - one file, or all files on one level ≥ 1 (no key overlaps): each file by its stats;
//!   - deletion vectors: level ≥ 1 files each by their stats (the reader takes them as they are,
//!     one live row per key; level-0 files are not read and stay);
//!   - partial-update / aggregation without deletion vectors: no value pruning (a merged row
//!     mixes several versions; Java keeps the bucket too, and we are stricter for a single
//!     level-0 file, whose per-key merge may still combine records);
//!   - deduplicate / first-row: the merged row is one of the versions, so a bucket where no
//!     file may match is dropped whole; otherwise it stays whole.
//!
//! Stats of a file written with an older schema are mapped by field id: a column added later is
//! all NULL in that file; a column whose type changed is widened if it is an integer or float
//! widening, otherwise treated as unknown. Files with `_VALUE_STATS_COLS` have stats for those
//! columns only; undecodable stats (e.g. `metadata.stats-mode` = none) are unknown: never pruned.

use super::Split;
use crate::predicate::{BoundPredicate, ColStats};
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::manifest::{DataFileMeta, SimpleStats};
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataField, TypeKind};
use crate::spec::MergeEngine;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Everything the pruner needs about the table.
pub(super) struct Pruner<'a> {
    /// The predicate bound to the read schema.
    pub predicate: &'a BoundPredicate,
    /// The read schema.
    pub schema: &'a TableSchema,
    /// Schemas of the files, by id.
    pub file_schemas: &'a HashMap<i64, Rc<TableSchema>>,
    /// `deletion-vectors.enabled`.
    pub deletion_vectors: bool,
    /// `merge-engine`.
    pub merge_engine: MergeEngine,
}

impl Pruner<'_> {
    /// Removes files (and whole splits) that cannot hold a matching row; returns how many
    /// files were removed.
    pub fn prune(&self, splits: &mut Vec<Split>) -> usize {
        let before: usize = splits.iter().map(|s| s.files.len()).sum();
        let is_pk = !self.schema.primary_keys.is_empty();
        let key_ids: BTreeSet<i32> = self
            .schema
            .trimmed_primary_key_fields()
            .iter()
            .map(|f| f.id)
            .collect();
        let key_filter = if is_pk {
            self.predicate.conjuncts_on(&key_ids)
        } else {
            None
        };
        for split in splits.iter_mut() {
            if !is_pk {
                // Data evolution: a file's stats may be of columns that newer files of the same
                // rows replace; the rows are filtered once stitched.
                if !crate::read::stitch::needs_stitching(&split.files) {
                    split.files.retain(|f| self.value_may_match(f));
                }
                continue;
            }
            if let Some(kf) = &key_filter {
                split.files.retain(|f| self.key_may_match(kf, f));
            }
            self.prune_values_pk(split);
        }
        splits.retain(|s| !s.files.is_empty());
        for split in splits.iter_mut() {
            let names: BTreeSet<&str> = split.files.iter().map(|f| f.file_name.as_str()).collect();
            split
                .deletion_files
                .retain(|k, _| names.contains(k.as_str()));
        }
        before - splits.iter().map(|s| s.files.len()).sum::<usize>()
    }

    fn prune_values_pk(&self, split: &mut Split) {
        let files = &split.files;
        let no_overlap = files.len() <= 1
            || (files[0].level > 0 && files.iter().all(|f| f.level == files[0].level));
        if no_overlap {
            split.files.retain(|f| self.value_may_match(f));
        } else if self.deletion_vectors {
            split
                .files
                .retain(|f| f.level == 0 || self.value_may_match(f));
        } else if matches!(
            self.merge_engine,
            MergeEngine::PartialUpdate | MergeEngine::Aggregation
        ) {
            // Merged rows mix versions: keep everything.
        } else if !split.files.iter().any(|f| self.value_may_match(f)) {
            split.files.clear();
        }
    }

    fn key_may_match(&self, key_filter: &BoundPredicate, file: &DataFileMeta) -> bool {
        let Some(file_schema) = self.file_schemas.get(&file.schema_id) else {
            return true;
        };
        let fields: Vec<&DataField> = file_schema.trimmed_primary_key_fields();
        match FileStats::new(&fields, &file.key_stats, file.row_count) {
            Some(stats) => key_filter.may_match(&|id| stats.get(id, self.schema)),
            None => true,
        }
    }

    fn value_may_match(&self, file: &DataFileMeta) -> bool {
        if file.write_cols.is_some() {
            return true;
        }
        let Some(file_schema) = self.file_schemas.get(&file.schema_id) else {
            return true;
        };
        let fields: Vec<&DataField> = match &file.value_stats_cols {
            None => file_schema.fields.iter().collect(),
            Some(cols) => {
                let found: Option<Vec<&DataField>> =
                    cols.iter().map(|c| file_schema.field(c)).collect();
                match found {
                    Some(f) => f,
                    None => return true,
                }
            }
        };
        if fields.is_empty() {
            return true;
        }
        // Columns of the file schema without stats are unknown; columns absent from the file
        // schema are all NULL.
        let absent_all_null = |id: i32| file_schema.field_by_id(id).is_none();
        match FileStats::new(&fields, &file.value_stats, file.row_count) {
            Some(stats) => self.predicate.may_match(&|id| {
                if absent_all_null(id) {
                    Some(ColStats::all_null(file.row_count))
                } else {
                    stats.get(id, self.schema)
                }
            }),
            None => true,
        }
    }
}

/// Decoded stats of one file, by field id of the file's schema.
struct FileStats<'f> {
    fields: Vec<&'f DataField>,
    min: Vec<Datum>,
    max: Vec<Datum>,
    null_counts: Vec<Option<i64>>,
    row_count: i64,
}

impl<'f> FileStats<'f> {
    fn new(fields: &[&'f DataField], stats: &SimpleStats, row_count: i64) -> Option<Self> {
        let types: Vec<_> = fields.iter().map(|f| f.data_type.clone()).collect();
        let min = BinaryRow::decode(&stats.min_values, &types).ok()?;
        let max = BinaryRow::decode(&stats.max_values, &types).ok()?;
        if min.len() != fields.len() || max.len() != fields.len() {
            return None;
        }
        Some(FileStats {
            fields: fields.to_vec(),
            min,
            max,
            null_counts: stats.null_counts.clone(),
            row_count,
        })
    }

    /// Stats of read field `id` (typed as in `read_schema`), `None` when unknown.
    fn get(&self, id: i32, read_schema: &TableSchema) -> Option<ColStats> {
        let i = self.fields.iter().position(|f| f.id == id)?;
        let read_type = &read_schema.field_by_id(id)?.data_type;
        let file_type = &self.fields[i].data_type;
        let convert = |d: &Datum| -> Option<Datum> {
            if d.is_null() {
                return None;
            }
            if file_type.kind == read_type.kind {
                return Some(d.clone());
            }
            widen(d, &read_type.kind)
        };
        Some(ColStats {
            min: self.min.get(i).and_then(convert),
            max: self.max.get(i).and_then(convert),
            null_count: self.null_counts.get(i).copied().flatten(),
            row_count: Some(self.row_count),
        })
    }
}

/// Integer and float widenings (INT → BIGINT, FLOAT → DOUBLE, ...) and string length changes.
fn widen(d: &Datum, to: &TypeKind) -> Option<Datum> {
    let int = match d {
        Datum::TinyInt(v) => Some(i64::from(*v)),
        Datum::SmallInt(v) => Some(i64::from(*v)),
        Datum::Int(v) => Some(i64::from(*v)),
        Datum::BigInt(v) => Some(*v),
        _ => None,
    };
    match (d, to) {
        (Datum::String(_), TypeKind::VarChar(_) | TypeKind::Char(_)) => Some(d.clone()),
        (Datum::Binary(_), TypeKind::VarBinary(_) | TypeKind::Binary(_)) => Some(d.clone()),
        (Datum::Float(v), TypeKind::Double) => Some(Datum::Double(f64::from(*v))),
        (_, TypeKind::SmallInt) => int.and_then(|v| i16::try_from(v).ok()).map(Datum::SmallInt),
        (_, TypeKind::Int) => int.and_then(|v| i32::try_from(v).ok()).map(Datum::Int),
        (_, TypeKind::BigInt) => int.map(Datum::BigInt),
        _ => None,
    }
}
