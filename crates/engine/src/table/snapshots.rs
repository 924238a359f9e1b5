//! The snapshot log of a table: each commit with its kind, time, record counts and refs.

use crate::Result;
use lakescope_iceberg::inspect::{table_info, SnapshotInfo};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::spec::snapshot::{CommitKind, Snapshot};
use lakescope_paimon::table::Table as PaimonTable;
use serde::Serialize;

/// One snapshot of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// Snapshot id.
    pub id: i64,
    /// The parent snapshot Iceberg records (Paimon records none: a branch's snapshots are
    /// numbered in order).
    pub parent: Option<i64>,
    /// Commit time, epoch milliseconds.
    pub time_millis: i64,
    /// What the commit did, in the format's words: Paimon's commit kind (`APPEND`, `COMPACT`,
    /// `OVERWRITE`, `ANALYZE`), Iceberg's operation (`append`, `replace`, `overwrite`, `delete`).
    pub kind: String,
    /// The schema the snapshot was written with.
    pub schema_id: Option<i64>,
    /// Records the commit added minus those it removed (Iceberg: deleted rows and position and
    /// equality delete records count as removed).
    pub delta_records: Option<i64>,
    /// Records in the table after the commit (before merging or deletes).
    pub total_records: Option<i64>,
    /// Refs at this snapshot: tags (Paimon), tags and branches (Iceberg), by name.
    pub refs: Vec<String>,
    /// What only one format records.
    pub detail: CommitDetail,
}

/// The facts of a commit that only one format records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum CommitDetail {
    /// Paimon.
    Paimon {
        /// The committing user (a writer's uuid).
        commit_user: String,
        /// Changelog records the commit produced.
        changelog_records: Option<i64>,
        /// The watermark (unset: `None`).
        watermark: Option<i64>,
    },
    /// Iceberg: the snapshot's summary as the metadata gives it.
    Iceberg(Box<SnapshotInfo>),
}

/// A table's snapshots in commit order, with the branches whose history they hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotLog {
    /// Snapshots, oldest first.
    pub commits: Vec<Commit>,
    /// The current snapshot (`None`: no snapshot yet).
    pub current: Option<i64>,
    /// Branches whose heads are in `commits` (`(name, head)`, `main` first, then by name):
    /// Iceberg's branches, `main` included; none for Paimon, which keeps each branch's snapshots
    /// in its own folder.
    pub branches: Vec<(String, i64)>,
    /// Tags `(name, snapshot id)`.
    pub tags: Vec<(String, i64)>,
}

/// A Paimon commit kind as Paimon writes it.
fn kind_name(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "APPEND",
        CommitKind::Compact => "COMPACT",
        CommitKind::Overwrite => "OVERWRITE",
        CommitKind::Analyze => "ANALYZE",
    }
}

/// A Paimon snapshot as a [`Commit`] with the tags `refs` at it.
pub(super) fn paimon_commit(s: &Snapshot, refs: Vec<String>) -> Commit {
    Commit {
        id: s.id,
        parent: None,
        time_millis: s.time_millis,
        kind: kind_name(s.commit_kind).to_string(),
        schema_id: Some(s.schema_id),
        delta_records: s.delta_record_count,
        total_records: s.total_record_count,
        refs,
        detail: CommitDetail::Paimon {
            commit_user: s.commit_user.clone(),
            changelog_records: s.changelog_record_count,
            watermark: s.watermark.filter(|w| *w > i64::MIN),
        },
    }
}

/// An Iceberg snapshot as a [`Commit`].
pub(super) fn iceberg_commit(s: &SnapshotInfo) -> Commit {
    let removed = s.deleted_records.unwrap_or(0)
        + s.added_position_deletes.unwrap_or(0)
        + s.added_equality_deletes.unwrap_or(0);
    Commit {
        id: s.id,
        parent: s.parent_id,
        time_millis: s.timestamp_ms,
        kind: s.operation.clone(),
        schema_id: s.schema_id.map(i64::from),
        delta_records: Some(s.added_records.unwrap_or(0) - removed),
        total_records: s.total_records,
        refs: s.refs.clone(),
        detail: CommitDetail::Iceberg(Box::new(s.clone())),
    }
}

/// The snapshots and tags of a Paimon table (its `main` branch or the branch of the handle).
pub(super) async fn paimon(table: &PaimonTable) -> Result<SnapshotLog> {
    let (snapshots, tags) = futures::try_join!(table.snapshots(), table.tags())?;
    let tags: Vec<(String, i64)> = tags.into_iter().map(|(n, t)| (n, t.snapshot.id)).collect();
    let at = |id: i64| {
        tags.iter()
            .filter(|(_, t)| *t == id)
            .map(|(n, _)| n.clone())
            .collect()
    };
    Ok(SnapshotLog {
        current: snapshots.last().map(|s| s.id),
        commits: snapshots
            .iter()
            .map(|s| paimon_commit(s, at(s.id)))
            .collect(),
        branches: Vec::new(),
        tags,
    })
}

/// The snapshots of an Iceberg table by sequence number, with its refs.
pub(super) fn iceberg(table: &IcebergTable) -> SnapshotLog {
    let info = table_info(table);
    let mut branches: Vec<(String, i64)> = info
        .refs
        .iter()
        .filter(|r| r.kind == "branch")
        .map(|r| (r.name.clone(), r.snapshot_id))
        .collect();
    branches.sort_by_key(|(name, _)| (name != "main", name.clone()));
    let mut tags: Vec<(String, i64)> = info
        .refs
        .iter()
        .filter(|r| r.kind == "tag")
        .map(|r| (r.name.clone(), r.snapshot_id))
        .collect();
    tags.sort();
    SnapshotLog {
        commits: info.snapshots.iter().map(iceberg_commit).collect(),
        current: info.current_snapshot_id,
        branches,
        tags,
    }
}
