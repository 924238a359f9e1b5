//! A table's versions for the pickers (snapshots in commit order, tags) and its current column
//! names, whichever the table format.

use crate::app::Selection;
use crate::snapshots_tab::snapshots_and_tags;
use crate::table_panel::is_iceberg;
use crate::warehouse;
use lakescope_iceberg::Table as IcebergTable;

/// Snapshots `(id, commit time ms)` in commit order and tags `(name, snapshot id)`.
pub type Versions = (Vec<(i64, i64)>, Vec<(String, i64)>);

/// Opens the Iceberg table at `path` in the connected warehouse.
pub async fn open_iceberg(path: &str) -> Result<IcebergTable, String> {
    let store = warehouse::catalog()?.store().clone();
    IcebergTable::open(store, path)
        .await
        .map_err(|e| format!("Cannot open Iceberg table {path}: {e}"))
}

/// The versions of the selected table, and whether it is an Iceberg table.
pub async fn versions(sel: &Selection) -> (bool, Result<Versions, String>) {
    let path = &sel.table.path;
    if is_iceberg(sel).await {
        return (true, iceberg_versions(path).await);
    }
    let paimon = snapshots_and_tags(path)
        .await
        .map(|(snaps, tags)| (snaps.iter().map(|s| (s.id, s.time_millis)).collect(), tags));
    (false, paimon)
}

async fn iceberg_versions(path: &str) -> Result<Versions, String> {
    let t = open_iceberg(path).await?;
    let m = t.metadata();
    let mut snaps: Vec<_> = m.snapshots.iter().collect();
    snaps.sort_by_key(|s| (s.sequence_number, s.timestamp_ms));
    let tags = m
        .refs
        .iter()
        .filter(|(_, r)| r.ref_type == "tag")
        .map(|(n, r)| (n.clone(), r.snapshot_id))
        .collect();
    let snaps = snaps
        .iter()
        .map(|s| (s.snapshot_id, s.timestamp_ms))
        .collect();
    Ok((snaps, tags))
}

/// The column names of the table's current schema.
pub async fn current_columns(sel: &Selection, iceberg: bool) -> Result<Vec<String>, String> {
    let path = &sel.table.path;
    if iceberg {
        let t = open_iceberg(path).await?;
        let schema = t.read_schema(None).map_err(|e| e.to_string())?;
        return Ok(schema.fields.iter().map(|f| f.name.clone()).collect());
    }
    let t = warehouse::table(path).await?;
    Ok(t.current_schema()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect())
}
