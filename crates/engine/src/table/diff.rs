//! The diff of two versions of a table of either format: rows inserted, deleted and changed
//! (Arrow batches with a `_change` column) and counts per partition.

use crate::version::{iceberg_selector, paimon_diff};
use crate::{Result, TableRef, Version};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_iceberg::diff::diff_at;
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::diff::{diff_snapshots_with_progress, DiffProgress, PartitionCounts};
use lakescope_paimon::table::Table as PaimonTable;
use std::rc::Rc;

/// The changes between two versions of a table.
#[derive(Debug, Clone)]
pub struct TableDiff {
    /// The snapshot diffed from (`None`: the empty table).
    pub from: Option<i64>,
    /// The snapshot diffed to.
    pub to: Option<i64>,
    /// `_change` (`insert`, `delete`, `update_before`, `update_after`), then the table's columns
    /// at `to`.
    pub schema: SchemaRef,
    /// Changed rows; each `update_before` row is immediately followed by its `update_after`.
    pub batches: Vec<RecordBatch>,
    /// Counts per partition with at least one change.
    pub partitions: Vec<PartitionCounts>,
    /// What had to be read, in the format's units.
    pub read: DiffRead,
}

impl TableDiff {
    /// Total rows of [`TableDiff::batches`].
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

/// What a diff had to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffRead {
    /// Paimon: the (partition, bucket)s whose files differ, and their data files.
    Paimon {
        /// (partition, bucket)s read.
        buckets: usize,
        /// Data files read.
        files: usize,
    },
    /// Iceberg: data files read over both snapshots, and those skipped as unchanged.
    Iceberg {
        /// Data files read.
        files: usize,
        /// Data files skipped (the same, with the same deletes, on both sides).
        skipped: usize,
    },
}

/// The diff of a Paimon table (any branch's handle) from `from` to `to`, each side read on its
/// branch.
pub(super) async fn paimon(
    table: &Rc<PaimonTable>,
    from: Option<&Version>,
    to: &Version,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<TableDiff> {
    let sides = paimon_diff(table, from, to).await?;
    let d = diff_snapshots_with_progress(&sides.table, sides.from.as_ref(), &sides.to, progress)
        .await?;
    Ok(TableDiff {
        from: d.from,
        to: d.to,
        schema: d.schema,
        batches: d.batches,
        partitions: d.partitions,
        read: DiffRead::Paimon {
            buckets: d.buckets_read,
            files: d.files_read,
        },
    })
}

/// The diff of an Iceberg table from `from` to `to`, each side read with the schema Java gives
/// it (a branch the table's current schema, a tag or snapshot its own).
pub(super) async fn iceberg(
    table: &IcebergTable,
    name: &TableRef,
    from: Option<&Version>,
    to: &Version,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<TableDiff> {
    let a = from.map(|v| iceberg_selector(name, v)).transpose()?;
    let b = iceberg_selector(name, to)?;
    let d = diff_at(table, a.as_ref(), &b, progress).await?;
    Ok(TableDiff {
        from: d.from,
        to: d.to,
        schema: d.schema,
        batches: d.batches,
        partitions: d.partitions,
        read: DiffRead::Iceberg {
            files: d.files_read,
            skipped: d.files_skipped,
        },
    })
}
