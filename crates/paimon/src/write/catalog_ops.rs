//! Renaming and dropping tables and databases of a filesystem warehouse, as Paimon's `FileSystemCatalog`.
//!
//! Paths are store keys: a table is `<db>.db/<table>`, a database `<db>.db`. Only the
//! [`ObjectStore`] trait is used, so folders are walked with `list_dir` and there is no rename:
//! a table rename copies objects, which is not atomic (see [`rename_table`]).

use crate::error::{Error, Result};
use lakescope_storage::{join, ObjectStore};

/// Every object key under `prefix` (recursively), sorted; empty if the folder does not exist.
async fn list_recursive(store: &dyn ObjectStore, prefix: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut pending = vec![prefix.trim_matches('/').to_string()];
    while let Some(dir) = pending.pop() {
        let listing = match store.list_dir(&dir).await {
            Ok(l) => l,
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(e.into()),
        };
        out.extend(listing.files.into_iter().map(|f| f.path));
        pending.extend(listing.dirs.iter().map(|d| join(&dir, d)));
    }
    out.sort();
    Ok(out)
}

/// Whether `path` holds a Paimon table: a `schema/schema-N` file (Java's `tableExistsInFileSystem`).
async fn is_table(store: &dyn ObjectStore, path: &str) -> Result<bool> {
    match store.list_dir(&join(path, "schema")).await {
        Ok(l) => Ok(l.files.iter().any(|f| {
            f.path
                .rsplit('/')
                .next()
                .and_then(|n| n.strip_prefix("schema-"))
                .is_some_and(|id| id.parse::<u64>().is_ok())
        })),
        Err(e) if e.is_not_found() => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Moves the table at `from` to `to` (store keys of the table folders, e.g. `db.db/t` →
/// `db.db/t2`), like `ALTER TABLE t RENAME TO t2` in a filesystem catalog.
///
/// Refuses when `from` is not a table or anything already exists under `to`. Object stores have
/// no rename, so every object is copied to the new folder, the copies are verified (same size),
/// and only then are the originals deleted. **This is not atomic**: readers may briefly see both
/// tables, and a failure midway leaves a partial copy under `to` (before any original is
/// deleted) or a partially deleted `from` (after the copy is complete, so `to` is whole). Errors
/// name the object that failed. Writers must not commit to the table while it is renamed.
/// External data paths (`data-file.external-paths`) are not moved.
pub async fn rename_table(store: &dyn ObjectStore, from: &str, to: &str) -> Result<()> {
    let (from, to) = (from.trim_matches('/'), to.trim_matches('/'));
    if from == to || to.starts_with(&format!("{from}/")) || from.starts_with(&format!("{to}/")) {
        return Err(Error::Invalid(format!(
            "cannot rename table {from} to {to}: the paths overlap"
        )));
    }
    if !is_table(store, from).await? {
        return Err(Error::table_not_found(from));
    }
    if !list_recursive(store, to).await?.is_empty() {
        return Err(Error::Invalid(format!(
            "cannot rename table {from} to {to}: {to} already exists"
        )));
    }
    let keys = list_recursive(store, from).await?;
    let fail = |what: &str, key: &str, e: &dyn std::fmt::Display| {
        Error::Invalid(format!(
            "renaming table {from} to {to}: {what} {key} failed: {e}"
        ))
    };
    for key in &keys {
        let target = join(to, &key[from.len()..]);
        let data = store.get(key).await.map_err(|e| fail("reading", key, &e))?;
        store
            .put(&target, data)
            .await
            .map_err(|e| fail("writing", &target, &e))?;
    }
    for key in &keys {
        let target = join(to, &key[from.len()..]);
        let (src, dst) = (store.head(key).await, store.head(&target).await);
        match (src, dst) {
            (Ok(s), Ok(d)) if s.size == d.size => {}
            (_, Err(e)) => return Err(fail("verifying the copy", &target, &e)),
            (Err(e), _) => return Err(fail("verifying the original", key, &e)),
            (Ok(s), Ok(d)) => {
                return Err(fail(
                    "verifying the copy",
                    &target,
                    &format!("size {} differs from the original's {}", d.size, s.size),
                ))
            }
        }
    }
    for key in &keys {
        store
            .delete(key)
            .await
            .map_err(|e| fail("deleting the original", key, &e))?;
    }
    Ok(())
}

/// Deletes every object of the table at `path` (`DROP TABLE`); errors if it is not a table.
/// Folders are not removed (the trait has no rmdir): on a local filesystem empty directories remain.
pub async fn drop_table(store: &dyn ObjectStore, path: &str) -> Result<()> {
    let path = path.trim_matches('/');
    if !is_table(store, path).await? {
        return Err(Error::table_not_found(path));
    }
    delete_all(store, path).await
}

async fn delete_all(store: &dyn ObjectStore, prefix: &str) -> Result<()> {
    for key in list_recursive(store, prefix).await? {
        store.delete(&key).await.map_err(|e| {
            Error::Invalid(format!("dropping {prefix}: deleting {key} failed: {e}"))
        })?;
    }
    Ok(())
}

/// Deletes the database folder `db_path` (e.g. `sales.db`) and everything in it (`DROP DATABASE`).
///
/// Without `cascade`, refuses a database that holds a table ("Database sales is not empty"), as
/// Flink and Java's `AbstractCatalog.dropDatabase` do; other objects in the folder do not count.
/// An empty or missing folder is a no-op: object stores cannot tell an empty database from a
/// missing one, so the caller decides whether a missing database is an error (IF EXISTS).
/// Folders themselves are not removed (the trait has no rmdir): on a local filesystem empty
/// directories remain.
pub async fn drop_database(store: &dyn ObjectStore, db_path: &str, cascade: bool) -> Result<()> {
    let db_path = db_path.trim_matches('/');
    let name = db_path.rsplit('/').next().unwrap_or(db_path);
    let name = name.strip_suffix(".db").unwrap_or(name);
    let listing = match store.list_dir(db_path).await {
        Ok(l) => l,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    if !cascade {
        for dir in &listing.dirs {
            if is_table(store, &join(db_path, dir)).await? {
                return Err(Error::Invalid(format!(
                    "Database {name} is not empty (it holds table {dir}); use CASCADE to drop its tables too"
                )));
            }
        }
    }
    delete_all(store, db_path).await
}
