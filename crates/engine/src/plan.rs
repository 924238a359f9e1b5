//! Planning a Paimon table's read without reading it: the live files and splits of a snapshot.

use crate::{Catalog, Result, TableRef};
use lakescope_paimon::predicate::Predicate;
use lakescope_paimon::scan::{plan_filtered, PartitionFilter};

/// What a read of one snapshot would take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPlan {
    /// The snapshot planned.
    pub snapshot: i64,
    /// Live data files kept.
    pub files: usize,
    /// Splits (the files grouped by partition and bucket).
    pub splits: usize,
    /// Manifest files skipped by their partition stats (the filter's partition predicate).
    pub pruned_manifests: usize,
    /// Bytes of the live data files kept.
    pub data_bytes: u64,
}

impl Catalog {
    /// Opens the Paimon table `table_ref` names afresh (nothing decoded by an earlier call is
    /// reused) and plans a read of snapshot `snapshot` (`None`: the latest; `Ok(None)`: the
    /// table has none yet): manifests replayed, live files grouped into splits, and with a
    /// `filter` ([`crate::scan::parse_filter`]) manifests, partitions and files pruned.
    pub async fn plan_scan(
        &self,
        table_ref: &TableRef,
        snapshot: Option<i64>,
        filter: Option<&Predicate>,
    ) -> Result<Option<ScanPlan>> {
        let table = self.open_table(table_ref).await?;
        let snapshot = match snapshot {
            Some(id) => table.snapshot(id).await?,
            None => match table.latest_snapshot().await? {
                Some(latest) => latest,
                None => return Ok(None),
            },
        };
        let planned = plan_filtered(&table, &snapshot, &PartitionFilter::All, filter).await?;
        let data_bytes = planned
            .splits
            .iter()
            .flat_map(|s| &s.files)
            .map(|f| f.file_size as u64)
            .sum();
        Ok(Some(ScanPlan {
            snapshot: snapshot.id,
            files: planned.file_count(),
            splits: planned.splits.len(),
            pruned_manifests: planned.pruned_manifests,
            data_bytes,
        }))
    }
}
