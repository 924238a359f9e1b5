//! Scan planning: replaying manifests into splits per (partition, bucket).

mod plan;
mod prune;

pub use plan::{plan, plan_delta, plan_filtered};

use crate::spec::binary_row::Datum;
use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use std::collections::HashMap;

/// Where the deletion vector of one data file is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionFile {
    /// Store key of the DV index file (`<table>/index/<name>`).
    pub index_file_path: String,
    /// Byte offset of the vector (its 4-byte size prefix) in the index file.
    pub offset: i64,
    /// Length of the serialized vector in bytes.
    pub length: i64,
    /// Number of deleted rows, when the writer recorded it.
    pub cardinality: Option<i64>,
}

/// The live files of one (partition, bucket).
///
/// `files` are sorted by (level, min key, min sequence number, file name); the min key is
/// compared as decoded values of the trimmed primary key (files whose key cannot be decoded
/// compare as empty keys). No level-0 visibility rule is applied: that is the reader's job.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// Partition values, decoded from the manifest's `_PARTITION` (partition-key order).
    pub partition: Vec<Datum>,
    /// The raw `_PARTITION` BinaryRow bytes.
    pub partition_bytes: Vec<u8>,
    /// Bucket number.
    pub bucket: i32,
    /// Total buckets recorded for the partition (newest entry), if the writer recorded it.
    pub total_buckets: Option<i32>,
    /// Live data files.
    pub files: Vec<std::sync::Arc<DataFileMeta>>,
    /// Deletion vectors by data file name.
    pub deletion_files: HashMap<String, DeletionFile>,
    /// Only rows `[start, end)` of its one data file (positions from the file's first row): an
    /// append file cut into pieces for parallel readers ([`Split::cut_rows`]); `None`: every row.
    pub rows: Option<std::ops::Range<u64>>,
}

impl Split {
    /// Sum of the files' `row_count` (rows stored, before merging or deletion vectors).
    pub fn row_count(&self) -> i64 {
        self.files.iter().map(|f| f.row_count).sum()
    }

    /// One split per file, in file order, each with its file's deletion vector.
    pub fn by_file(&self) -> Vec<Split> {
        self.files
            .iter()
            .map(|file| Split {
                files: vec![file.clone()],
                deletion_files: self
                    .deletion_files
                    .get(&file.file_name)
                    .map(|d| HashMap::from([(file.file_name.clone(), d.clone())]))
                    .unwrap_or_default(),
                partition: self.partition.clone(),
                partition_bytes: self.partition_bytes.clone(),
                bucket: self.bucket,
                total_buckets: self.total_buckets,
                rows: None,
            })
            .collect()
    }

    /// This split of one data file cut into `pieces` splits of consecutive rows, each starting
    /// at a multiple of `align` rows (so the batches of `align` rows a reader makes end where
    /// they would in the whole file), in row order; a split of several files, or already cut,
    /// stays whole, and a file is cut into at most one piece per `align` rows.
    pub fn cut_rows(&self, pieces: usize, align: u64) -> Vec<Split> {
        let rows = match self.files.as_slice() {
            [file] if self.rows.is_none() => u64::try_from(file.row_count).unwrap_or(0),
            _ => return vec![self.clone()],
        };
        let align = align.max(1);
        let units = rows.div_ceil(align);
        let pieces = u64::try_from(pieces).unwrap_or(1).clamp(1, units.max(1));
        if pieces < 2 {
            return vec![self.clone()];
        }
        (0..pieces)
            .map(|i| Split {
                rows: Some(
                    (units * i / pieces * align).min(rows)
                        ..(units * (i + 1) / pieces * align).min(rows),
                ),
                ..self.clone()
            })
            .collect()
    }
}

/// The result of planning a full scan of one snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The snapshot planned.
    pub snapshot_id: i64,
    /// The snapshot's schema id.
    pub schema_id: i64,
    /// Splits sorted by (partition, bucket).
    pub splits: Vec<Split>,
    /// Live data files dropped by min/max-stats pruning ([`plan_filtered`] with a predicate).
    pub pruned_files: usize,
    /// Manifest files skipped by partition stats (partition filter or predicate).
    pub pruned_manifests: usize,
}

impl Plan {
    /// Sum of all live files' `row_count` (equals the snapshot's `totalRecordCount`).
    pub fn row_count(&self) -> i64 {
        self.splits.iter().map(Split::row_count).sum()
    }

    /// Number of live data files.
    pub fn file_count(&self) -> usize {
        self.splits.iter().map(|s| s.files.len()).sum()
    }
}

/// The changes of one snapshot (its delta manifest list only).
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaPlan {
    /// The snapshot planned.
    pub snapshot_id: i64,
    /// The snapshot's schema id.
    pub schema_id: i64,
    /// Files the commit added, grouped like [`Plan::splits`] (deletion files: the snapshot's).
    pub added: Vec<Split>,
    /// Files the commit removed (compaction inputs, overwritten files), grouped the same way.
    pub deleted: Vec<Split>,
}

/// Which partitions to plan.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum PartitionFilter {
    /// Every partition.
    #[default]
    All,
    /// Partitions whose named columns equal the given values (`Datum::Null` matches NULL).
    Eq(Vec<(String, Datum)>),
}

impl PartitionFilter {
    /// Whether a partition (values in the schema's partition-key order) passes.
    pub fn matches(&self, schema: &TableSchema, partition: &[Datum]) -> bool {
        match self {
            PartitionFilter::All => true,
            PartitionFilter::Eq(conds) => conds.iter().all(|(name, want)| {
                schema
                    .partition_keys
                    .iter()
                    .position(|k| k == name)
                    .and_then(|i| partition.get(i))
                    .is_some_and(|got| got.total_cmp(want).is_eq())
            }),
        }
    }

    /// Checks that every named column is a partition key of `schema`.
    pub fn validate(&self, schema: &TableSchema) -> crate::Result<()> {
        if let PartitionFilter::Eq(conds) = self {
            for (name, _) in conds {
                if !schema.partition_keys.contains(name) {
                    return Err(crate::Error::Invalid(format!(
                        "'{name}' is not a partition column (partition keys: {:?})",
                        schema.partition_keys
                    )));
                }
            }
        }
        Ok(())
    }
}
