//! A table's versions for the pickers (listed by the engine's `versions`) and its current
//! column names, whichever the table format.

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::is_iceberg;
use lakescope_engine::format_types::MAIN_BRANCH;
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;

/// The picker text of a branch.
pub fn branch_label(name: &str, head: Option<i64>) -> String {
    match head {
        Some(id) => format!("branch {name} (snapshot {id})"),
        None => format!("branch {name}"),
    }
}

/// The picker options of branch `branch`'s own tags and snapshots (newest snapshot first, as the
/// table's own; each text starts with the branch), valued `value(version)`, the one equal to
/// `cur` selected.
pub fn branch_options(
    branch: &str,
    versions: &Versions,
    value: fn(&Version) -> String,
    cur: &str,
) -> Vec<AnyView> {
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
    tags.chain(snapshots)
        .filter_map(|(at, text)| {
            let v = value(&Version::on_branch(branch, at).ok()?);
            let selected = cur == v;
            Some(
                view! { <option value=v selected=selected>{format!("{branch} · {text}")}</option> }
                    .into_any(),
            )
        })
        .collect()
}

/// The own snapshots and tags of the Paimon branches read so far: `(branch, versions)`.
pub type BranchVersions = RwSignal<Vec<(String, Versions)>, LocalStorage>;

/// Reads the own snapshots and tags of branch `branch` of the Paimon table at `path` into
/// `into`, unless there already or `main` (the table's own); a branch that cannot be read lists
/// nothing (its reads say why).
pub fn load_branch_versions(path: &str, branch: &str, into: BranchVersions) {
    if branch == MAIN_BRANCH || into.with_untracked(|o| o.iter().any(|(b, _)| b == branch)) {
        return;
    }
    let (path, branch) = (path.to_string(), branch.to_string());
    leptos::task::spawn_local(async move {
        let Ok(tables) = warehouse::tables() else {
            return;
        };
        if let Ok(v) = tables.branch_versions(&path, &branch).await {
            into.try_update(|o| {
                if !o.iter().any(|(b, _)| *b == branch) {
                    o.push((branch, v));
                }
            });
        }
    });
}

/// The versions of the selected table (`Table::versions`), and whether it is an Iceberg table.
pub async fn versions(sel: &Selection) -> (bool, Result<Versions, String>) {
    let path = &sel.table.path;
    let versions = match warehouse::any_table(path).await {
        Ok(t) => t.versions().await.map_err(|e| e.to_string()),
        Err(m) => Err(m),
    };
    (is_iceberg(sel), versions)
}

/// The column names of the table's current schema.
pub async fn current_columns(sel: &Selection) -> Result<Vec<String>, String> {
    let tables = warehouse::tables()?;
    let columns = tables.current_columns(&sel.table.path).await;
    columns.map_err(|e| e.to_string())
}
