//! The versions a table offers to read (snapshots in commit order, tags, branches), whichever
//! the format: what the app's version pickers list.

use crate::Result;
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::table::{Table, MAIN_BRANCH};

/// A table's versions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Versions {
    /// Snapshots `(id, commit time ms)` in commit order.
    pub snapshots: Vec<(i64, i64)>,
    /// Tags `(name, snapshot id)`.
    pub tags: Vec<(String, i64)>,
    /// Branches other than `main` `(name, head snapshot id)`, sorted by name; the head is known
    /// for Iceberg (the ref), not for Paimon (the branch's own snapshot folder).
    pub branches: Vec<(String, Option<i64>)>,
}

/// The versions of a Paimon table: its snapshots and tags, and the folders
/// `branch/branch-<name>/` (none where the store cannot list: a `branch` read still finds one).
pub async fn paimon_versions(table: &Table) -> Result<Versions> {
    let (snapshots, tags, branches) =
        futures::try_join!(table.snapshots(), table.tags(), table.branches())?;
    Ok(Versions {
        snapshots: snapshots.iter().map(|s| (s.id, s.time_millis)).collect(),
        tags: tags
            .into_iter()
            .map(|(name, tag)| (name, tag.snapshot.id))
            .collect(),
        branches: branches.into_iter().map(|name| (name, None)).collect(),
    })
}

/// The versions of branch `branch` of a Paimon table (`table` is any branch's handle): the
/// branch's own snapshots and tags (`branch/branch-<name>/`), and the table's branches.
pub async fn paimon_branch_versions(table: &Table, branch: &str) -> Result<Versions> {
    paimon_versions(&table.branch(branch).await?).await
}

/// The versions of an Iceberg table: its snapshots by sequence number (then time), and its
/// refs other than `main` (by name).
pub fn iceberg_versions(table: &IcebergTable) -> Versions {
    let m = table.metadata();
    let mut snapshots: Vec<_> = m.snapshots.iter().collect();
    snapshots.sort_by_key(|s| (s.sequence_number, s.timestamp_ms));
    let refs = |kind: &'static str| {
        m.refs
            .iter()
            .filter(move |(n, r)| r.ref_type == kind && n.as_str() != MAIN_BRANCH)
            .map(|(n, r)| (n.clone(), r.snapshot_id))
    };
    Versions {
        snapshots: snapshots
            .iter()
            .map(|s| (s.snapshot_id, s.timestamp_ms))
            .collect(),
        tags: refs("tag").collect(),
        branches: refs("branch").map(|(n, id)| (n, Some(id))).collect(),
    }
}
