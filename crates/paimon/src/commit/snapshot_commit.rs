//! The last step of a commit, pluggable as Java's `SnapshotCommit`: a filesystem table creates
//! `snapshot-N` itself ([`RenamingSnapshotCommit`]), a REST catalog's table hands the snapshot
//! to the catalog service (`rest::RestSnapshotCommit`).

use crate::error::{Error, Result};
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, ManifestEntry};
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use async_trait::async_trait;
use lakescope_storage::{join, PutOutcome};
use serde::Serialize;
use std::collections::BTreeMap;

/// Makes a prepared snapshot the table's latest, atomically.
#[async_trait(?Send)]
pub trait SnapshotCommit {
    /// Commits `snapshot` (its manifests are written), planned on `base` (the latest snapshot
    /// when the commit was planned; `None`: the table had none). `entries` are the data-file
    /// changes it records. `Ok(false)`: another commit won the race, nothing was committed and
    /// the committer plans again. An `Err` may leave the outcome unknown (a lost answer).
    async fn commit(
        &self,
        table: &Table,
        base: Option<&Snapshot>,
        snapshot: &Snapshot,
        entries: &[ManifestEntry],
    ) -> Result<bool>;
}

/// A filesystem table's snapshot commit: `snapshot-N` is created with put-if-absent (never
/// overwritten), then the `LATEST` (and for snapshot 1 `EARLIEST`) hints are written, best
/// effort. Java's `RenamingSnapshotCommit`, on stores without rename.
#[derive(Debug, Default, Clone, Copy)]
pub struct RenamingSnapshotCommit;

#[async_trait(?Send)]
impl SnapshotCommit for RenamingSnapshotCommit {
    async fn commit(
        &self,
        table: &Table,
        _base: Option<&Snapshot>,
        snapshot: &Snapshot,
        _entries: &[ManifestEntry],
    ) -> Result<bool> {
        let dir = join(table.path(), "snapshot");
        let key = join(&dir, &format!("snapshot-{}", snapshot.id));
        let json = serde_json::to_vec_pretty(snapshot)
            .map_err(|e| Error::Invalid(format!("{key}: serializing: {e}")))?;
        if table.store().put_if_absent(&key, json.into()).await? == PutOutcome::AlreadyExists {
            return Ok(false);
        }
        // Hints are best effort: readers probe past a stale LATEST.
        let _ = table
            .store()
            .put(&join(&dir, "LATEST"), snapshot.id.to_string().into())
            .await;
        if snapshot.id == 1 {
            let _ = table
                .store()
                .put_if_absent(&join(&dir, "EARLIEST"), "1".to_string().into())
                .await;
        }
        Ok(true)
    }
}

/// What one commit changes in one partition (Java's `PartitionStatistics`, the delta a REST
/// catalog keeps per partition): counts go down for deleted files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionStatistics {
    /// Partition key → value text, as in the partition's folder name (unescaped).
    pub spec: BTreeMap<String, String>,
    /// Rows added less rows deleted.
    pub record_count: i64,
    /// Bytes of files added less bytes of files deleted.
    pub file_size_in_bytes: i64,
    /// Files added less files deleted.
    pub file_count: i64,
    /// The newest `_CREATION_TIME` of the files, in milliseconds as written (lakescope writes
    /// epoch milliseconds; Java a local timestamp); 0 when none has one.
    pub last_file_creation_time: i64,
    /// Buckets of the partition (`-1`: bucket-unaware).
    pub total_buckets: i32,
}

/// The per-partition statistics of `entries`, in the order partitions first appear (Java's
/// `PartitionEntry.merge` of the commit's entries).
pub fn partition_statistics(
    table: &Table,
    entries: &[ManifestEntry],
) -> Result<Vec<PartitionStatistics>> {
    let types = table.current_schema().partition_types();
    let mut order: Vec<&[u8]> = Vec::new();
    let mut by_partition: BTreeMap<&[u8], PartitionStatistics> = BTreeMap::new();
    for e in entries {
        let stats = match by_partition.get_mut(e.partition.as_slice()) {
            Some(s) => s,
            None => {
                let values = BinaryRow::decode_in(table.path(), &e.partition, &types)?;
                let spec = table.partition_spec(&values)?.into_iter().collect();
                order.push(&e.partition);
                by_partition
                    .entry(&e.partition)
                    .or_insert(PartitionStatistics {
                        spec,
                        record_count: 0,
                        file_size_in_bytes: 0,
                        file_count: 0,
                        last_file_creation_time: 0,
                        total_buckets: 0,
                    })
            }
        };
        let sign = if e.kind == FileKind::Add { 1 } else { -1 };
        stats.record_count += sign * e.file.row_count;
        stats.file_size_in_bytes += sign * e.file.file_size;
        stats.file_count += sign;
        stats.last_file_creation_time = stats
            .last_file_creation_time
            .max(e.file.creation_time.unwrap_or(0));
        if let Some(b) = e.total_buckets {
            stats.total_buckets = b;
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|p| by_partition.remove(p))
        .collect())
}
