//! System tables (`t$snapshots`, `t$files`, `t$audit_log`, ...) as Arrow record batches, with Paimon's column names.

mod aggregation;
mod consumers;
mod file_indexes;
mod files;
mod indexes;
mod metadata;
mod render;
mod statistics;
mod views;

use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
pub use lakescope_format::system_tables::{NOT_SERVED, SYSTEM_TABLES};

/// Whether the system table `name` depends on a snapshot (so time travel applies to it).
pub fn is_snapshot_dependent(name: &str) -> bool {
    matches!(
        name,
        "files"
            | "manifests"
            | "partitions"
            | "buckets"
            | "audit_log"
            | "ro"
            | "table_indexes"
            | "row_tracking"
            | "statistics"
            | "binlog"
            | "file_indexes"
            | "file_key_ranges"
    )
}

/// Reads the system table `name` of `table` at the latest snapshot.
pub async fn scan(table: &Table, name: &str) -> Result<ReadOutput> {
    if is_snapshot_dependent(name) {
        let latest = table.latest_snapshot().await?;
        return scan_at(table, name, latest.as_ref()).await;
    }
    scan_at(table, name, None).await
}

/// Reads the system table `name` of `table`; snapshot-dependent tables
/// ([`is_snapshot_dependent`]: `$files`, `$audit_log`, …) describe `snapshot` (empty when
/// `None`), the others ignore it.
pub async fn scan_at(table: &Table, name: &str, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    match name {
        "snapshots" => metadata::snapshots(table).await,
        "schemas" => metadata::schemas(table).await,
        "options" => metadata::options(table).await,
        "tags" => metadata::tags(table).await,
        "branches" => metadata::branches(table).await,
        "files" => files::files(table, snapshot).await,
        "file_key_ranges" => files::file_key_ranges(table, snapshot).await,
        "manifests" => files::manifests(table, snapshot).await,
        "partitions" => files::partitions(table, snapshot).await,
        "buckets" => files::buckets(table, snapshot).await,
        "audit_log" => views::audit_log(table, snapshot).await,
        "binlog" => views::binlog(table, snapshot).await,
        "file_indexes" => file_indexes::file_indexes(table, snapshot).await,
        "ro" => views::read_optimized(table, snapshot).await,
        "row_tracking" => views::row_tracking(table, snapshot).await,
        "statistics" => statistics::statistics(table, snapshot).await,
        "consumers" => consumers::consumers(table).await,
        "aggregation_fields" => aggregation::aggregation_fields(table).await,
        "table_indexes" => indexes::table_indexes(table, snapshot).await,
        other if NOT_SERVED.contains(&other) => Err(Error::unsupported(
            table.path(),
            format!(
                "system table '${other}': Paimon has it, lakescope does not read it yet (it reads: {})",
                SYSTEM_TABLES.join(", ")
            ),
        )),
        other => Err(Error::NotFound {
            what: format!("system table '{other}' of {}", table.path()),
            context: Some(format!("available: {}", SYSTEM_TABLES.join(", "))),
        }),
    }
}
