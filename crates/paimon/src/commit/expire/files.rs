//! Which files an expiring snapshot leaves unused (Paimon's `SnapshotDeletion`/`FileDeletionBase`).
//!
//! Reads that fail because a manifest is already gone (an expiration that died half-way) count
//! as empty, as in Java: the rerun deletes what it can still find and never more.

use crate::error::{Error, Result};
use crate::scan::{plan, PartitionFilter};
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use lakescope_storage::join;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A data file as a tag knows it: (partition bytes, bucket, file name).
pub(super) type FileId = (Vec<u8>, i32, String);

/// `Ok(None)` for a missing file, the value otherwise.
fn missing_as_none<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The manifests a manifest list names; empty when the list is gone.
async fn manifests_of(table: &Table, list: &str) -> Result<Rc<Vec<ManifestFileMeta>>> {
    Ok(missing_as_none(table.manifest_list(list).await)?.unwrap_or_default())
}

/// Store key of the data file of `entry` and of its extra files (which sit beside it).
fn entry_paths(table: &Table, e: &ManifestEntry) -> Result<Vec<String>> {
    let schema = table.current_schema();
    let key = format!("{}/manifest", table.path());
    let values = BinaryRow::decode_in(&key, &e.partition, &schema.partition_types())?;
    let path = table.data_file_path(&values, e.bucket, &e.file)?;
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut out = vec![path];
    out.extend(e.file.extra_files.iter().map(|x| join(&dir, x)));
    Ok(out)
}

/// Data files (with their extra files) that `snapshot`'s delta deletes and does not add back,
/// less those `kept` (the live files of the previous tag) names.
pub(super) async fn deleted_in_delta(
    table: &Table,
    snapshot: &Snapshot,
    kept: &HashSet<FileId>,
) -> Result<Vec<String>> {
    let mut deleted: HashMap<String, (&ManifestEntry, Vec<String>)> = HashMap::new();
    let mut order = Vec::new();
    let metas = manifests_of(table, &snapshot.delta_manifest_list).await?;
    let mut manifests = Vec::with_capacity(metas.len());
    for m in metas.iter() {
        // Java cancels the snapshot's data-file deletion when a manifest cannot be read.
        match missing_as_none(table.manifest(&m.file_name).await)? {
            Some(entries) => manifests.push(entries),
            None => return Ok(Vec::new()),
        }
    }
    for e in manifests.iter().flat_map(|m| m.iter()) {
        let mut paths = entry_paths(table, e)?;
        let data = paths.remove(0);
        match e.kind {
            FileKind::Add => {
                deleted.remove(&data);
            }
            FileKind::Delete => {
                order.push(data.clone());
                deleted.insert(data, (e, paths));
            }
        }
    }
    let mut out = Vec::new();
    for path in order {
        let Some((e, extra)) = deleted.remove(&path) else {
            continue;
        };
        if kept.contains(&(e.partition.clone(), e.bucket, e.file.file_name.clone())) {
            continue;
        }
        out.push(path);
        out.extend(extra);
    }
    Ok(out)
}

/// The changelog files `snapshot` added (ADD entries of its changelog manifests).
pub(super) async fn added_in_changelog(table: &Table, snapshot: &Snapshot) -> Result<Vec<String>> {
    let Some(list) = &snapshot.changelog_manifest_list else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for m in manifests_of(table, list).await?.iter() {
        let Some(entries) = missing_as_none(table.manifest(&m.file_name).await)? else {
            continue;
        };
        for e in entries.iter().filter(|e| e.kind == FileKind::Add) {
            out.extend(entry_paths(table, e)?.into_iter().take(1));
        }
    }
    Ok(out)
}

/// The live data files of a tagged snapshot (its merged base and delta manifests).
pub(super) async fn live_files(table: &Table, tag: &Snapshot) -> Result<HashSet<FileId>> {
    let p = plan(table, tag, &PartitionFilter::All).await?;
    Ok(p.splits
        .into_iter()
        .flat_map(|s| {
            let (partition, bucket) = (s.partition_bytes, s.bucket);
            s.files
                .into_iter()
                .map(move |f| (partition.clone(), bucket, f.file_name.clone()))
        })
        .collect())
}

/// Names of the manifest lists, manifests, index manifest, index files and statistics file the
/// `snapshots` reference (they must survive: Java's `manifestSkippingSet`).
pub(super) async fn skipping_set(
    table: &Table,
    snapshots: &[&Snapshot],
) -> Result<HashSet<String>> {
    let mut set = HashSet::new();
    for s in snapshots {
        for list in [&s.base_manifest_list, &s.delta_manifest_list] {
            set.insert(list.clone());
            set.extend(
                table
                    .manifest_list(list)
                    .await?
                    .iter()
                    .map(|m| m.file_name.clone()),
            );
        }
        if let Some(index) = &s.index_manifest {
            set.insert(index.clone());
            set.extend(
                table
                    .index_manifest(index)
                    .await?
                    .iter()
                    .map(|e| e.file_name.clone()),
            );
        }
        if let Some(stats) = &s.statistics {
            set.insert(stats.clone());
        }
    }
    Ok(set)
}

/// Store keys of the metadata files `snapshot` references that no snapshot kept so far (the
/// `skipping` set, which grows with each name taken) references: manifest lists and their
/// manifests (base, delta, changelog), index files, the index manifest, the statistics file.
pub(super) async fn unused_metadata(
    table: &Table,
    snapshot: &Snapshot,
    skipping: &mut HashSet<String>,
) -> Result<Vec<String>> {
    let manifest_key = |name: &str| join(&join(table.path(), "manifest"), name);
    let mut manifests = Vec::new();
    let lists = [
        Some(&snapshot.base_manifest_list),
        Some(&snapshot.delta_manifest_list),
        snapshot.changelog_manifest_list.as_ref(),
    ];
    for list in lists.into_iter().flatten() {
        for m in manifests_of(table, list).await?.iter() {
            if skipping.insert(m.file_name.clone()) {
                manifests.push(manifest_key(&m.file_name));
            }
        }
        if skipping.insert(list.clone()) {
            manifests.push(manifest_key(list));
        }
    }
    let mut index_files = Vec::new();
    let mut index_manifests = Vec::new();
    if let Some(index) = &snapshot.index_manifest {
        // Gone already (an earlier run deleted it): nothing of it to find.
        if let Some(entries) = missing_as_none(table.index_manifest(index).await)? {
            for e in entries.iter() {
                if skipping.insert(e.file_name.clone()) {
                    index_files.push(match e.external_path.as_deref().filter(|p| !p.is_empty()) {
                        Some(ext) => table.external_file_key(&e.file_name, ext)?,
                        None => table.index_file_path(&e.file_name),
                    });
                }
            }
            if skipping.insert(index.clone()) {
                index_manifests.push(manifest_key(index));
            }
        }
    }
    let mut statistics = Vec::new();
    if let Some(stats) = &snapshot.statistics {
        if skipping.insert(stats.clone()) {
            statistics.push(join(&join(table.path(), "statistics"), stats));
        }
    }
    manifests.extend(index_files);
    manifests.extend(index_manifests);
    manifests.extend(statistics);
    Ok(manifests)
}
