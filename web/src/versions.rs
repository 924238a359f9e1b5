//! A table's versions for the pickers (listed by the engine's `versions`) and its current
//! column names, whichever the table format.

use crate::app::Selection;
use crate::table_panel::is_iceberg;
use crate::warehouse;
use lakescope_engine::versions::{
    iceberg_versions, paimon_branch_versions, paimon_versions, Versions,
};
use lakescope_engine::Version;
use lakescope_iceberg::Table as IcebergTable;
use leptos::prelude::*;

/// The picker text of a branch.
pub fn branch_label(name: &str, head: Option<i64>) -> String {
    match head {
        Some(id) => format!("branch {name} (snapshot {id})"),
        None => format!("branch {name}"),
    }
}

/// The picker group of branch `branch`'s own tags and snapshots (newest snapshot first, as the
/// table's own), each option valued `value(version)`, the one equal to `cur` selected.
pub fn branch_group(
    branch: &str,
    versions: &Versions,
    value: fn(&Version) -> String,
    cur: &str,
) -> AnyView {
    let tags = versions
        .tags
        .iter()
        .map(|(n, id)| (Version::Tag(n.clone()), format!("tag {n} (snapshot {id})")));
    let snapshots = versions.snapshots.iter().rev().map(|&(id, ms)| {
        (
            Version::SnapshotId(id),
            format!("snapshot {id} · {}", crate::util::time(ms)),
        )
    });
    let options = tags
        .chain(snapshots)
        .filter_map(|(at, text)| {
            let v = value(&Version::on_branch(branch, at).ok()?);
            let selected = v == cur;
            Some(
                view! { <option value=v selected=selected>{format!("{branch} · {text}")}</option> },
            )
        })
        .collect_view();
    view! { <optgroup label=format!("branch {branch}")>{options}</optgroup> }.into_any()
}

/// The snapshots and tags of branch `branch` of the selected Paimon table.
pub async fn branch_versions(sel: &Selection, branch: &str) -> Result<Versions, String> {
    let t = warehouse::table(&sel.table.path).await?;
    paimon_branch_versions(&t, branch)
        .await
        .map_err(|e| e.to_string())
}

/// Opens the Iceberg table at `path` in the connected warehouse.
pub async fn open_iceberg(path: &str) -> Result<IcebergTable, String> {
    let store = warehouse::store()?;
    IcebergTable::open(store, path)
        .await
        .map_err(|e| format!("Cannot open Iceberg table {path}: {e}"))
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
