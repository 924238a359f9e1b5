//! Iceberg tables in a warehouse: detection, Hadoop-style namespace listing, and scans.

use crate::scan::{ScanRequest, ScanResult, TimeTravel};
use crate::{Error, Result, TableEntry, TableRef};
use lakescope_iceberg::{is_iceberg_table, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{join, ObjectStore};

/// The key of the Iceberg table a reference names in a warehouse store (`<ns>/<table>`, or
/// `<ns>.db/<table>`), if that folder holds an Iceberg table.
pub async fn locate(store: &dyn ObjectStore, table_ref: &TableRef) -> Option<String> {
    for key in [
        format!("{}/{}", table_ref.database, table_ref.table),
        table_ref.path(),
    ] {
        if is_iceberg_table(store, &key).await {
            return Some(key);
        }
    }
    None
}

/// The Iceberg tables of a namespace folder (`<ns>/<table>/metadata/`), sorted by name.
pub async fn tables(
    store: &dyn ObjectStore,
    namespace: &str,
) -> lakescope_storage::Result<Vec<TableEntry>> {
    let listing = store.list_dir(namespace).await?;
    let mut out = Vec::new();
    for name in listing.dirs {
        let path = join(namespace, &name);
        if is_iceberg_table(store, &path).await {
            out.push(TableEntry { name, path });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Reads an open Iceberg table as [`Catalog::scan`] does for Paimon tables; `table_ref` names
/// the version and the table in errors.
pub async fn scan_table(
    table: &Table,
    table_ref: &TableRef,
    request: &ScanRequest,
) -> Result<ScanResult> {
    if let Some(system) = table_ref.system_table() {
        return Err(Error::Invalid(format!(
            "{table_ref}: system table ${system} is not available for Iceberg tables yet"
        )));
    }
    if request.filter.is_some() {
        return Err(Error::Invalid(format!(
            "{table_ref}: filters are not supported for Iceberg tables yet"
        )));
    }
    let at = selector(table_ref, &request.at)?;
    let read = ReadRequest {
        columns: request.columns.clone(),
        limit: request.limit,
    };
    let out = lakescope_iceberg::read_table(table, &at, &read).await?;
    Ok(ScanResult {
        schema: out.schema,
        batches: out.batches,
    })
}

/// The Iceberg snapshot a read selects: a tag (`scan.tag-name`, Flink's `tag`) as a tag, a branch
/// (`t$branch_dev`, [`TimeTravel::Branch`], Flink's `branch`) as a branch, each read with the
/// schema Java gives it ([`lakescope_iceberg::Table::read_schema_at`]). A snapshot id, time or
/// tag is one snapshot of the whole table, so it does not combine with a branch.
pub fn selector(table_ref: &TableRef, at: &TimeTravel) -> Result<SnapshotSelector> {
    let branch = crate::scan::read_branch(table_ref, at)?;
    Ok(match (at, branch) {
        (TimeTravel::Latest | TimeTravel::Branch(_), Some(b)) => SnapshotSelector::Branch(b.into()),
        (TimeTravel::Branch(_), None) => SnapshotSelector::Branch("main".into()),
        (TimeTravel::Latest, None) => SnapshotSelector::Current,
        (TimeTravel::SnapshotId(id), None) => SnapshotSelector::Id(*id),
        (TimeTravel::Tag(name), None) => SnapshotSelector::Tag(name.clone()),
        (TimeTravel::TimestampMillis(ms), None) => SnapshotSelector::AsOfTimestamp(*ms),
        (TimeTravel::IncrementalBetween { .. }, _) => {
            return Err(Error::Invalid(format!(
                "{table_ref}: incremental-between is not supported for Iceberg tables yet"
            )))
        }
        (other, Some(b)) => {
            return Err(Error::Invalid(format!(
                "{table_ref}: branch '{b}' and {} both select the Iceberg snapshot to read: keep one (a snapshot id, time or tag names one snapshot of the whole table)",
                match other {
                    TimeTravel::SnapshotId(id) => format!("snapshot {id}"),
                    TimeTravel::Tag(t) => format!("tag '{t}'"),
                    TimeTravel::TimestampMillis(ms) => format!("timestamp {ms}"),
                    _ => "another version".into(),
                }
            )))
        }
    })
}
