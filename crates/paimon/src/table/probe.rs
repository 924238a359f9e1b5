//! Finding a table's numbered metadata files (`schema-<id>`, `snapshot-<id>`): listed, or probed
//! where the store cannot list; and reading schema files.

use crate::error::{Error, Result};
use crate::spec::schema::TableSchema;
use lakescope_storage::{join, ObjectStore};

/// Parses the id out of `<prefix><id>` (e.g. `snapshot-12`).
fn id_from_name(name: &str, prefix: &str) -> Option<i64> {
    name.strip_prefix(prefix)?
        .parse()
        .ok()
        .filter(|id: &i64| *id >= 0)
}

/// Whether the object exists.
pub(super) async fn exists(store: &dyn ObjectStore, key: &str) -> Result<bool> {
    match store.head(key).await {
        Ok(_) => Ok(true),
        Err(e) if e.is_not_found() => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Ids of the schema files of the table at `table`, ascending: listed, or, where the store
/// cannot list, probed from `schema-0` up to the first missing one.
pub(super) async fn schema_ids(store: &dyn ObjectStore, table: &str) -> Result<Vec<i64>> {
    schema_ids_from(store, table, 0).await
}

/// [`schema_ids`] where, unlisted, the first schema file is `schema-<first>` (a branch starts
/// at the id of the schema it was created with).
pub(super) async fn schema_ids_from(
    store: &dyn ObjectStore,
    table: &str,
    first: i64,
) -> Result<Vec<i64>> {
    let dir = join(table, "schema");
    if let Some(ids) = list_ids(store, &dir, "schema-").await? {
        return Ok(ids);
    }
    if !exists(store, &join(&dir, &format!("schema-{first}"))).await? {
        return Ok(Vec::new());
    }
    let last = walk_ids(store, &dir, "schema-", first, 1).await?;
    Ok((first..=last).collect())
}

/// The id of a branch's first schema file where the store cannot list: Java copies the schema
/// the branch starts from (the latest, or the tag's) under its own id, so it is one of main's
/// ids; `0` when none is found (or the store lists).
pub(super) async fn first_branch_schema(
    store: &dyn ObjectStore,
    table: &str,
    meta: &str,
) -> Result<i64> {
    if list_ids(store, &join(meta, "schema"), "schema-")
        .await?
        .is_some()
    {
        return Ok(0);
    }
    for id in schema_ids(store, table).await? {
        if exists(store, &join(meta, &format!("schema/schema-{id}"))).await? {
            return Ok(id);
        }
    }
    Ok(0)
}

/// From the existing `<dir>/<prefix><from>`, steps the id by `step` (never below 1) while the
/// next file exists; the last existing id.
pub(super) async fn walk_ids(
    store: &dyn ObjectStore,
    dir: &str,
    prefix: &str,
    from: i64,
    step: i64,
) -> Result<i64> {
    let mut id = from;
    while id + step > 0 && exists(store, &join(dir, &format!("{prefix}{}", id + step))).await? {
        id += step;
    }
    Ok(id)
}

/// Lists `<dir>/` and returns the ids of files named `<prefix><id>`, ascending; `None` when the
/// store cannot list (callers then probe).
pub(super) async fn list_ids(
    store: &dyn ObjectStore,
    dir: &str,
    prefix: &str,
) -> Result<Option<Vec<i64>>> {
    let listing = match store.list_dir(dir).await {
        Ok(l) => l,
        Err(e) if e.is_not_found() => return Ok(Some(Vec::new())),
        Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut ids: Vec<i64> = listing
        .files
        .iter()
        .filter_map(|f| f.path.rsplit('/').next())
        .filter_map(|name| id_from_name(name, prefix))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(Some(ids))
}

pub(super) async fn load_schema(
    store: &dyn ObjectStore,
    table: &str,
    id: i64,
) -> Result<TableSchema> {
    let key = join(table, &format!("schema/schema-{id}"));
    let bytes = match store.get(&key).await {
        Ok(b) => b,
        Err(e) if e.is_not_found() => {
            return Err(Error::NotFound {
                what: format!("schema {id}"),
                context: Some(table.to_string()),
            })
        }
        Err(e) => return Err(e.into()),
    };
    let schema =
        TableSchema::from_json(&bytes).map_err(|e| match TableSchema::unknown_type(&bytes) {
            Some((column, ty)) => Error::unsupported(
                &key,
                format!("column '{column}' has type {ty}, which lakescope does not read"),
            ),
            None => Error::corrupt(&key, format!("invalid schema JSON: {e}")),
        })?;
    if schema.id != id {
        return Err(Error::corrupt(
            &key,
            format!("file holds schema id {}", schema.id),
        ));
    }
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::table::fixtures::{snapshot_json, unlisted_table, SCHEMA};
    use crate::table::Table;

    #[tokio::test(flavor = "current_thread")]
    async fn without_listing_probes_from_the_hints() {
        let schema1 = SCHEMA.replace(r#""id": 0, "fields""#, r#""id": 1, "fields""#);
        let mut files: Vec<(&str, String)> = vec![
            ("schema/schema-0", SCHEMA.into()),
            ("schema/schema-1", schema1),
            ("tag/tag-v1", snapshot_json(4, 400)),
        ];
        for (name, id) in [
            ("snapshot/snapshot-3", 3),
            ("snapshot/snapshot-4", 4),
            ("snapshot/snapshot-5", 5),
        ] {
            files.push((name, snapshot_json(id, 100 * id)));
        }
        // A stale LATEST and no EARLIEST (as pypaimon writes): probed both ways from 4.
        files.push(("snapshot/LATEST", "4".into()));
        let t = unlisted_table(&files).await.unwrap();
        assert!(Table::exists_at(t.store().as_ref(), "db.db/t")
            .await
            .unwrap());
        assert!(!Table::exists_at(t.store().as_ref(), "db.db/u")
            .await
            .unwrap());
        assert_eq!(t.current_schema().id, 1);
        let schema_ids: Vec<i64> = t.schemas().await.unwrap().iter().map(|s| s.id).collect();
        assert_eq!(schema_ids, vec![0, 1]);
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(t.earliest_snapshot_id().await.unwrap(), Some(3));
        assert_eq!(t.snapshot_ids().await.unwrap(), vec![3, 4, 5]);
        assert_eq!(
            t.snapshot_at_or_before_timestamp(450)
                .await
                .unwrap()
                .unwrap()
                .id,
            4
        );
        // Tags need a listing, but one is read by name.
        assert!(t.tags().await.unwrap().is_empty());
        assert_eq!(t.tag("v1").await.unwrap().snapshot.id, 4);

        // No hints at all: found from snapshot 1 onwards.
        let no_hints: Vec<(&str, String)> = vec![
            ("schema/schema-0", SCHEMA.into()),
            ("snapshot/snapshot-1", snapshot_json(1, 100)),
            ("snapshot/snapshot-2", snapshot_json(2, 200)),
        ];
        let t = unlisted_table(&no_hints).await.unwrap();
        assert_eq!(t.snapshot_ids().await.unwrap(), vec![1, 2]);
        // Only a schema: a table without snapshots.
        let t = unlisted_table(&no_hints[..1]).await.unwrap();
        assert_eq!(t.latest_snapshot().await.unwrap(), None);
        // Hints that name no existing snapshot cannot be resolved without a listing.
        let mut lost = no_hints[..1].to_vec();
        lost.push(("snapshot/LATEST", "99".into()));
        let t = unlisted_table(&lost).await.unwrap();
        let err = t.latest_snapshot_id().await.unwrap_err().to_string();
        assert!(
            err.contains("cannot list") && err.contains("db.db/t/snapshot"),
            "{err}"
        );
        // A missing table names its path.
        let err = unlisted_table(&[]).await.unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }), "{err}");
        assert!(err.to_string().contains("db.db/t/schema"), "{err}");
    }
}
