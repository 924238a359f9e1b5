//! A table's versions for the pickers (listed by the engine's `versions`) and its current
//! column names, whichever the table format.

use crate::app::Selection;
use crate::table_panel::is_iceberg;
use crate::warehouse;
use lakescope_engine::versions::{iceberg_versions, paimon_versions, Versions};
use lakescope_iceberg::Table as IcebergTable;

/// The picker text of a branch.
pub fn branch_label(name: &str, head: Option<i64>) -> String {
    match head {
        Some(id) => format!("branch {name} (snapshot {id})"),
        None => format!("branch {name}"),
    }
}

/// Opens the Iceberg table at `path` in the connected warehouse.
pub async fn open_iceberg(path: &str) -> Result<IcebergTable, String> {
    warehouse::iceberg_table(path).await
}

/// The versions of the selected table, and whether it is an Iceberg table.
pub async fn versions(sel: &Selection) -> (bool, Result<Versions, String>) {
    let path = &sel.table.path;
    if is_iceberg(sel).await {
        let versions = open_iceberg(path).await.map(|t| iceberg_versions(&t));
        return (true, versions);
    }
    let versions = match warehouse::table(path).await {
        Ok(t) => paimon_versions(&t).await.map_err(|e| e.to_string()),
        Err(m) => Err(m),
    };
    (false, versions)
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
