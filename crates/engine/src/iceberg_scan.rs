//! Iceberg tables in a warehouse: detection, Hadoop-style namespace listing, and scans.

use crate::scan_request::{ScanRequest, ScanResult};
use crate::version::iceberg_selector;
use crate::{Error, Result, TableEntry, TableRef, Version};
use lakescope_iceberg::{is_iceberg_table, PlannedRead, PlannedRows, ReadRequest, Table};
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
            out.push(TableEntry {
                name,
                path,
                format: crate::table::Format::Iceberg,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Plans the read of an open Iceberg table as [`Catalog::scan`] asks it (`table_ref` names the
/// version and the table in errors); `request.limit` is the reader's to apply.
pub async fn plan(
    table: &Table,
    table_ref: &TableRef,
    request: &ScanRequest,
) -> Result<PlannedRead> {
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
    let at = iceberg_selector(table_ref, &request.at)?;
    let read = ReadRequest {
        columns: request.columns.clone(),
        limit: None,
    };
    Ok(PlannedRead::plan(table, &at, &read).await?)
}

/// The plan of a read of every column of an open Iceberg table at `snapshot` (`None`: its
/// current one).
pub(crate) async fn plan_whole(
    table: &Table,
    table_ref: &TableRef,
    snapshot: Option<i64>,
) -> Result<PlannedRead> {
    let request = ScanRequest {
        at: snapshot.map_or(Version::Latest, Version::SnapshotId),
        ..ScanRequest::default()
    };
    plan(table, table_ref, &request).await
}

/// Reads an open Iceberg table as [`Catalog::scan`] does for Paimon tables; `table_ref` names
/// the version and the table in errors.
pub async fn scan_table(
    table: &Table,
    table_ref: &TableRef,
    request: &ScanRequest,
) -> Result<ScanResult> {
    let planned = plan(table, table_ref, request).await?;
    let schema = planned.schema().clone();
    let batches = PlannedRows::new(table, planned, request.limit)
        .read_all()
        .await?;
    Ok(ScanResult { schema, batches })
}
