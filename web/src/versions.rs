//! A table's versions for the pickers (snapshots in commit order, tags, branches) and its
//! current column names, whichever the table format.

use crate::app::Selection;
use crate::snapshots_tab::snapshots_and_tags;
use crate::table_panel::is_iceberg;
use crate::warehouse;
use lakescope_iceberg::Table as IcebergTable;

/// What the version pickers offer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Versions {
    /// Snapshots `(id, commit time ms)` in commit order.
    pub snapshots: Vec<(i64, i64)>,
    /// Tags `(name, snapshot id)`.
    pub tags: Vec<(String, i64)>,
    /// Branches other than `main` `(name, head snapshot id)`; the head is known for Iceberg
    /// (the ref), not for Paimon (the branch's own snapshot folder).
    pub branches: Vec<(String, Option<i64>)>,
}

/// The picker text of a branch.
pub fn branch_label(name: &str, head: Option<i64>) -> String {
    match head {
        Some(id) => format!("branch {name} (snapshot {id})"),
        None => format!("branch {name}"),
    }
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
        return (true, iceberg_versions(path).await);
    }
    let paimon = match snapshots_and_tags(path).await {
        Ok((snaps, tags)) => Ok(Versions {
            snapshots: snaps.iter().map(|s| (s.id, s.time_millis)).collect(),
            tags,
            branches: paimon_branches(path).await,
        }),
        Err(m) => Err(m),
    };
    (false, paimon)
}

/// The Paimon branches: the folders `branch/branch-<name>/` of the table, listed through the
/// warehouse's store. A store that cannot list (a static host without an index) offers none:
/// a `branch=` URL still reads the branch.
async fn paimon_branches(path: &str) -> Vec<(String, Option<i64>)> {
    let Ok(store) = warehouse::store() else {
        return Vec::new();
    };
    let Ok(listing) = store.list_dir(&format!("{path}/branch/")).await else {
        return Vec::new();
    };
    let mut names: Vec<_> = listing
        .dirs
        .iter()
        .filter_map(|d| d.strip_prefix("branch-"))
        .filter(|n| !n.is_empty())
        .map(|n| (n.to_string(), None))
        .collect();
    names.sort();
    names
}

async fn iceberg_versions(path: &str) -> Result<Versions, String> {
    let t = open_iceberg(path).await?;
    let m = t.metadata();
    let mut snaps: Vec<_> = m.snapshots.iter().collect();
    snaps.sort_by_key(|s| (s.sequence_number, s.timestamp_ms));
    let refs = |kind: &'static str| {
        m.refs
            .iter()
            .filter(move |(n, r)| r.ref_type == kind && n.as_str() != "main")
            .map(|(n, r)| (n.clone(), r.snapshot_id))
    };
    Ok(Versions {
        snapshots: snaps
            .iter()
            .map(|s| (s.snapshot_id, s.timestamp_ms))
            .collect(),
        tags: refs("tag").collect(),
        branches: refs("branch").map(|(n, id)| (n, Some(id))).collect(),
    })
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
