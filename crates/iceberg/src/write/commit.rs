//! Committing written files as a snapshot through the table's [`crate::MetadataCatalog`] (the
//! next `v<N>.metadata.json`, or a REST catalog's `updateTable`), planned again on conflicts.

use super::manifest::{
    encode_manifest, encode_manifest_list, rewrite_manifest, ListContext, ManifestContext, NewFile,
};
use super::partition::{PartitionTuple, SpecField};
use crate::spec::manifest::{read_manifest, read_manifest_list, ManifestEntry, Status};
use crate::spec::metadata::{MetadataLogEntry, SnapshotLogEntry};
use crate::spec::{DataContentType, ManifestFile, Schema, Snapshot, SnapshotRef, TableMetadata};
use crate::table::Table;
use crate::{Error, Result};
use lakescope_format::write_env::WriteEnv;
use lakescope_storage::join;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The table property: how many times a commit that lost a race is planned again.
const COMMIT_NUM_RETRIES: &str = "commit.retry.num-retries";

/// Java's default of [`COMMIT_NUM_RETRIES`].
const DEFAULT_COMMIT_RETRIES: u32 = 4;

/// Commit attempts the table allows: the first and `commit.retry.num-retries` more.
fn commit_attempts(metadata: &TableMetadata) -> u32 {
    let retries = metadata
        .properties
        .get(COMMIT_NUM_RETRIES)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(DEFAULT_COMMIT_RETRIES);
    retries.saturating_add(1)
}

/// Waits before attempt `attempt` (none before the first): 200 ms, doubling, at most ~51 s.
async fn back_off(env: &dyn WriteEnv, attempt: u32) {
    if attempt > 0 {
        env.sleep(100 << attempt.min(9)).await;
    }
}

/// The error after every allowed attempt lost its race.
fn gave_up(table: &Table, attempts: u32) -> Error {
    Error::Conflict {
        table: table.name().to_string(),
        reason: format!("other writers kept committing first; gave up after {attempts} attempts"),
    }
}

/// Files written for one commit (not yet visible).
pub(crate) struct Written {
    pub data: Vec<NewFile>,
    pub deletes: Vec<NewFile>,
}

/// Files a commit takes out of the table, decided against the metadata it lands on.
pub(crate) enum Removal {
    /// Nothing (append).
    Nothing,
    /// Every data and delete file (overwrite of an unpartitioned table).
    All,
    /// The data and delete files of these partitions of spec `spec_id` (dynamic overwrite).
    Partitions {
        spec_id: i32,
        tuples: Vec<PartitionTuple>,
    },
    /// Exactly these data files (store keys) of the rows read at snapshot `read_at`: a conflict
    /// if one is no longer live, or if a later snapshot added delete files (they could apply to
    /// the rows being rewritten).
    Files {
        keys: BTreeSet<String>,
        read_at: Option<i64>,
    },
}

impl Removal {
    /// Whether the live entry (store key `key`) of a manifest of spec `spec_id` is removed.
    fn takes(&self, spec_id: i32, key: &str, entry: &ManifestEntry) -> bool {
        match self {
            Removal::Nothing => false,
            Removal::All => true,
            Removal::Partitions {
                spec_id: spec,
                tuples,
            } => {
                *spec == spec_id
                    && tuples.iter().any(|t| {
                        t.len() == entry.data_file.partition.len()
                            && t.iter()
                                .zip(&entry.data_file.partition)
                                .all(|(a, (_, b))| a == b)
                    })
            }
            Removal::Files { keys, .. } => {
                entry.data_file.content == DataContentType::Data && keys.contains(key)
            }
        }
    }
}

/// Totals of the files a commit removes, for the snapshot summary.
#[derive(Default)]
struct Removed {
    data_files: i64,
    records: i64,
    size: i64,
    position_delete_files: i64,
    equality_delete_files: i64,
    position_deletes: i64,
    equality_deletes: i64,
}

impl Removed {
    fn add(&mut self, entry: &ManifestEntry) {
        let f = &entry.data_file;
        self.size += f.file_size_in_bytes;
        match f.content {
            DataContentType::Data => {
                self.data_files += 1;
                self.records += f.record_count;
            }
            DataContentType::PositionDeletes => {
                self.position_delete_files += 1;
                self.position_deletes += f.record_count;
            }
            DataContentType::EqualityDeletes => {
                self.equality_delete_files += 1;
                self.equality_deletes += f.record_count;
            }
        }
    }

    fn delete_files(&self) -> i64 {
        self.position_delete_files + self.equality_delete_files
    }
}

/// A positive snapshot id from a fresh UUID, unused in the table.
fn snapshot_id(env: &dyn WriteEnv, metadata: &TableMetadata) -> i64 {
    loop {
        let uuid = env.uuid().replace('-', "");
        let hi = u64::from_str_radix(uuid.get(..16).unwrap_or("1"), 16).unwrap_or(1);
        let lo = u64::from_str_radix(uuid.get(16..).unwrap_or("1"), 16).unwrap_or(1);
        let id = ((hi ^ lo) & (i64::MAX as u64)) as i64;
        if id != 0 && metadata.snapshot(id).is_none() {
            return id;
        }
    }
}

fn counter(summary: &BTreeMap<String, String>, key: &str) -> i64 {
    summary.get(key).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// The snapshot summary: what was added and removed and the running totals (as Java's
/// `SnapshotSummary`).
fn summary(
    parent: Option<&Snapshot>,
    written: &Written,
    removing: bool,
    removed: &Removed,
) -> BTreeMap<String, String> {
    let empty = BTreeMap::new();
    let before = parent.map_or(&empty, |p| &p.summary);
    let sum = |files: &[NewFile], f: fn(&NewFile) -> i64| files.iter().map(f).sum::<i64>();
    let added_records = sum(&written.data, |f| f.record_count);
    let added_size = sum(&written.data, |f| f.file_size_in_bytes)
        + sum(&written.deletes, |f| f.file_size_in_bytes);
    let added_eq_deletes = sum(&written.deletes, |f| f.record_count);
    let partitions: HashSet<String> = written
        .data
        .iter()
        .chain(&written.deletes)
        .map(|f| format!("{:?}", f.partition))
        .collect();
    let operation = if removing && written.data.is_empty() {
        "delete"
    } else if removing || !written.deletes.is_empty() {
        "overwrite"
    } else {
        "append"
    };
    let mut s = BTreeMap::new();
    let mut put = |k: &str, v: i64| {
        s.insert(k.to_string(), v.to_string());
    };
    if !written.data.is_empty() {
        put("added-data-files", written.data.len() as i64);
        put("added-records", added_records);
    }
    if added_size > 0 {
        put("added-files-size", added_size);
    }
    if !written.deletes.is_empty() {
        put("added-delete-files", written.deletes.len() as i64);
        put("added-equality-delete-files", written.deletes.len() as i64);
        put("added-equality-deletes", added_eq_deletes);
    }
    if removed.data_files > 0 {
        put("deleted-data-files", removed.data_files);
        put("deleted-records", removed.records);
    }
    if removed.size > 0 {
        put("removed-files-size", removed.size);
    }
    if removed.delete_files() > 0 {
        put("removed-delete-files", removed.delete_files());
    }
    if removed.equality_delete_files > 0 {
        put(
            "removed-equality-delete-files",
            removed.equality_delete_files,
        );
        put("removed-equality-deletes", removed.equality_deletes);
    }
    if removed.position_delete_files > 0 {
        put(
            "removed-position-delete-files",
            removed.position_delete_files,
        );
        put("removed-position-deletes", removed.position_deletes);
    }
    put("changed-partition-count", partitions.len() as i64);
    put(
        "total-records",
        counter(before, "total-records") + added_records - removed.records,
    );
    put(
        "total-files-size",
        counter(before, "total-files-size") + added_size - removed.size,
    );
    put(
        "total-data-files",
        counter(before, "total-data-files") + written.data.len() as i64 - removed.data_files,
    );
    put(
        "total-delete-files",
        counter(before, "total-delete-files") + written.deletes.len() as i64
            - removed.delete_files(),
    );
    put(
        "total-position-deletes",
        counter(before, "total-position-deletes") - removed.position_deletes,
    );
    put(
        "total-equality-deletes",
        counter(before, "total-equality-deletes") + added_eq_deletes - removed.equality_deletes,
    );
    s.insert("operation".into(), operation.into());
    s
}

/// Writes the manifests of the new files (once; entries inherit sequence numbers).
async fn write_manifests(
    table: &Table,
    schema: &Schema,
    fields: &[SpecField],
    written: &Written,
    snapshot_id: i64,
    env: &dyn WriteEnv,
) -> Result<Vec<ManifestFile>> {
    let metadata = table.metadata();
    let spec_id = metadata.default_spec_id.unwrap_or(0);
    let spec = metadata.spec(spec_id).ok_or_else(|| {
        Error::corrupt(table.metadata_key(), format!("no partition spec {spec_id}"))
    })?;
    let ctx = ManifestContext {
        schema,
        spec,
        fields,
        snapshot_id,
    };
    let prefix = env.uuid();
    let mut out = Vec::new();
    for (n, (files, deletes)) in [(&written.data, false), (&written.deletes, true)]
        .into_iter()
        .enumerate()
    {
        if files.is_empty() {
            continue;
        }
        let rel = format!("metadata/{prefix}-m{n}.avro");
        let bytes = encode_manifest(&rel, &ctx, deletes, files)?;
        let length = bytes.len() as i64;
        table
            .store()
            .put(&join(table.key(), &rel), bytes.into())
            .await?;
        out.push(ManifestFile {
            manifest_path: format!("{}/{rel}", metadata.location.trim_end_matches('/')),
            manifest_length: length,
            partition_spec_id: spec_id,
            content: if deletes {
                DataContentType::EqualityDeletes
            } else {
                DataContentType::Data
            },
            // Set when committing.
            sequence_number: 0,
            min_sequence_number: 0,
            added_snapshot_id: snapshot_id,
            added_files_count: Some(files.len() as i32),
            existing_files_count: Some(0),
            deleted_files_count: Some(0),
            added_rows_count: Some(files.iter().map(|f| f.record_count).sum()),
            existing_rows_count: Some(0),
            deleted_rows_count: Some(0),
            first_row_id: None,
        });
    }
    Ok(out)
}

/// The manifests of a snapshot's manifest list.
async fn snapshot_manifests(table: &Table, snapshot: &Snapshot) -> Result<Vec<ManifestFile>> {
    let Some(list) = &snapshot.manifest_list else {
        return Err(Error::unsupported(
            table.metadata_key(),
            format!(
                "appending after v1 snapshot {} without a manifest list",
                snapshot.snapshot_id
            ),
        ));
    };
    let key = table.resolve(list, table.metadata_key())?;
    let bytes = table.store().get(&key).await?;
    read_manifest_list(&key, &bytes)
}

/// The table's latest metadata, as its [`crate::MetadataCatalog`] has it (the Hadoop layout's
/// highest `v<N>.metadata.json`, or a catalog service's current metadata).
pub(crate) async fn load_latest(table: &Table) -> Result<Table> {
    table.metadata_catalog().load(table).await
}

/// Deletes files of an abandoned commit attempt (best effort: they are unreferenced).
async fn discard(table: &Table, rels: &[String]) {
    for rel in rels {
        // An orphan left behind is harmless; the error that abandoned the attempt matters more.
        let _ = table.store().delete(&join(table.key(), rel)).await;
    }
}

/// Deletes the files written for a commit that failed for certain (best effort): the data and
/// delete files and their manifests, named by absolute URI.
async fn discard_written(table: &Table, written: &Written, manifests: &[ManifestFile]) {
    let uris = written
        .data
        .iter()
        .chain(&written.deletes)
        .map(|f| &f.path)
        .chain(manifests.iter().map(|m| &m.manifest_path));
    for uri in uris {
        if let Ok(key) = table.resolve(uri, table.metadata_key()) {
            let _ = table.store().delete(&key).await;
        }
    }
}

/// Whether an error of a commit attempt leaves it unapplied for certain (so its files can go).
fn surely_not_applied(error: &Error) -> bool {
    !matches!(error, Error::CommitStateUnknown { .. })
}

/// Whether a snapshot after `read_at` (up to the current one) added delete files.
fn deletes_added_since(meta: &TableMetadata, read_at: Option<i64>) -> bool {
    let mut at = meta.current_snapshot_id;
    let mut steps = meta.snapshots.len();
    while let Some(id) = at {
        if Some(id) == read_at || steps == 0 {
            return false;
        }
        steps -= 1;
        let Some(s) = meta.snapshot(id) else {
            return false;
        };
        if counter(&s.summary, "added-delete-files") > 0 {
            return true;
        }
        at = s.parent_snapshot_id;
    }
    false
}

/// The parent's manifests as the new snapshot lists them: unchanged, or rewritten without the
/// files `removal` takes (their keys relative to the table go to `scratch`).
#[allow(clippy::too_many_arguments)]
async fn carry_manifests(
    base: &Table,
    parent: &Snapshot,
    removal: &Removal,
    snapshot_id: i64,
    sequence_number: i64,
    env: &dyn WriteEnv,
    removed: &mut Removed,
    scratch: &mut Vec<String>,
) -> Result<Vec<ManifestFile>> {
    let manifests = snapshot_manifests(base, parent).await?;
    if matches!(removal, Removal::Nothing) {
        return Ok(manifests);
    }
    if let Removal::Files { read_at, .. } = removal {
        if deletes_added_since(base.metadata(), *read_at) {
            return Err(Error::Conflict {
                table: base.name().to_string(),
                reason: "another commit added delete files since the rows were read; run the statement again".into(),
            });
        }
    }
    let location = base.metadata().location.trim_end_matches('/').to_string();
    let prefix = env.uuid();
    let mut out = Vec::with_capacity(manifests.len());
    for (n, m) in manifests.into_iter().enumerate() {
        let key = base.resolve(&m.manifest_path, base.metadata_key())?;
        let bytes = base.store().get(&key).await?;
        let entries = read_manifest(&key, &bytes, &m)?;
        let flags = entries
            .iter()
            .map(|e| {
                if e.status == Status::Deleted {
                    return Ok(false);
                }
                let file = base.resolve(&e.data_file.file_path, &key)?;
                Ok(removal.takes(m.partition_spec_id, &file, e))
            })
            .collect::<Result<Vec<bool>>>()?;
        if !flags.contains(&true) {
            out.push(m);
            continue;
        }
        let rel = format!("metadata/{prefix}-r{n}.avro");
        let rewritten = rewrite_manifest(&rel, &bytes, &entries, &flags, snapshot_id)?;
        let length = rewritten.len() as i64;
        base.store()
            .put(&join(base.key(), &rel), rewritten.into())
            .await?;
        let (mut existing, mut existing_rows, mut deleted, mut deleted_rows) = (0, 0, 0, 0);
        let mut min_sequence = sequence_number;
        for (e, gone) in entries.iter().zip(&flags) {
            if *gone {
                removed.add(e);
                deleted += 1;
                deleted_rows += e.data_file.record_count;
            } else if e.status != Status::Deleted {
                existing += 1;
                existing_rows += e.data_file.record_count;
                min_sequence = min_sequence.min(e.sequence_number);
            }
        }
        out.push(ManifestFile {
            manifest_path: format!("{location}/{rel}"),
            manifest_length: length,
            sequence_number,
            min_sequence_number: min_sequence,
            added_snapshot_id: snapshot_id,
            added_files_count: Some(0),
            existing_files_count: Some(existing),
            deleted_files_count: Some(deleted),
            added_rows_count: Some(0),
            existing_rows_count: Some(existing_rows),
            deleted_rows_count: Some(deleted_rows),
            first_row_id: None,
            ..m
        });
        scratch.push(rel);
    }
    Ok(out)
}

/// Commits the new manifests as a snapshot on top of `base` (the latest metadata, loaded for
/// attempt `attempt`, 1-based), through the table's [`crate::MetadataCatalog`]; `Ok(None)` if
/// another writer committed first.
#[allow(clippy::too_many_arguments)]
async fn try_commit(
    attempt: u32,
    base: &Table,
    schema_id: i32,
    new_manifests: &[ManifestFile],
    written: &Written,
    removal: &Removal,
    snapshot_id: i64,
    env: &dyn WriteEnv,
) -> Result<Option<Table>> {
    let meta = base.metadata();
    if meta.current_schema_id != Some(schema_id) {
        return Err(Error::Conflict {
            table: base.name().to_string(),
            reason: "the schema changed while appending; retry the insert".into(),
        });
    }
    let parent = meta.current_snapshot();
    let sequence_number = meta.last_sequence_number + 1;
    let mut manifests: Vec<ManifestFile> = new_manifests
        .iter()
        .map(|m| ManifestFile {
            sequence_number,
            min_sequence_number: sequence_number,
            ..m.clone()
        })
        .collect();
    let mut removed = Removed::default();
    let mut scratch = Vec::new();
    if let Some(p) = parent {
        let carried = carry_manifests(
            base,
            p,
            removal,
            snapshot_id,
            sequence_number,
            env,
            &mut removed,
            &mut scratch,
        )
        .await;
        match carried {
            Ok(m) => manifests.extend(m),
            Err(e) => {
                discard(base, &scratch).await;
                return Err(e);
            }
        }
    }
    if let Removal::Files { keys, .. } = removal {
        if removed.data_files != keys.len() as i64 {
            discard(base, &scratch).await;
            return Err(Error::Conflict {
                table: base.name().to_string(),
                reason: "another commit removed files this one rewrites; run the statement again"
                    .into(),
            });
        }
    }
    let location = meta.location.trim_end_matches('/');
    let list_rel = format!("metadata/snap-{snapshot_id}-{attempt}-{}.avro", env.uuid());
    let ctx = ListContext {
        snapshot_id,
        parent_snapshot_id: parent.map(|p| p.snapshot_id),
        sequence_number,
    };
    let list = encode_manifest_list(&list_rel, &ctx, &manifests)?;
    base.store()
        .put(&join(base.key(), &list_rel), list.into())
        .await?;
    let now = env.now_millis().max(meta.last_updated_ms);
    let snapshot = Snapshot {
        snapshot_id,
        parent_snapshot_id: ctx.parent_snapshot_id,
        sequence_number,
        timestamp_ms: now,
        manifest_list: Some(format!("{location}/{list_rel}")),
        manifests: None,
        summary: summary(
            parent,
            written,
            !matches!(removal, Removal::Nothing),
            &removed,
        ),
        schema_id: Some(schema_id),
    };
    let mut next = meta.clone();
    let base_name = base.metadata_key().rsplit('/').next().unwrap_or_default();
    next.metadata_log.push(MetadataLogEntry {
        metadata_file: format!("{location}/metadata/{base_name}"),
        timestamp_ms: meta.last_updated_ms,
    });
    next.snapshot_log.push(SnapshotLogEntry {
        snapshot_id,
        timestamp_ms: now,
    });
    next.snapshots.push(snapshot);
    next.current_snapshot_id = Some(snapshot_id);
    next.last_sequence_number = sequence_number;
    next.last_updated_ms = now;
    next.refs.insert(
        "main".into(),
        SnapshotRef {
            snapshot_id,
            ref_type: "branch".into(),
            max_ref_age_ms: None,
            max_snapshot_age_ms: None,
            min_snapshots_to_keep: None,
        },
    );
    let published = base.metadata_catalog().commit(base, &next).await;
    let lost = match &published {
        Ok(done) => done.is_none(),
        Err(e) => surely_not_applied(e),
    };
    if lost {
        // The manifest list (and rewritten manifests) name this attempt's parent: drop them,
        // the next attempt writes its own. (When the outcome is unknown a catalog may have
        // applied the commit, so its files stay.)
        scratch.push(list_rel);
        discard(base, &scratch).await;
    }
    published
}

/// Commits `change` applied to the latest metadata as its next version (a schema, spec or
/// property change without a new snapshot), retrying on the metadata another writer committed
/// first. `change` says whether it changed anything; if not, nothing is written.
pub(crate) async fn commit_metadata(
    table: &Table,
    env: &dyn WriteEnv,
    change: impl Fn(&mut TableMetadata) -> Result<bool>,
) -> Result<Table> {
    let attempts = commit_attempts(table.metadata());
    for attempt in 0..attempts {
        back_off(env, attempt).await;
        let base = load_latest(table).await?;
        let meta = base.metadata();
        // v3 metadata carries state this writer does not maintain (row lineage, ...).
        if meta.format_version > 2 {
            return Err(Error::unsupported(
                base.metadata_key(),
                format!(
                    "changing format-version {} tables (only 1 and 2)",
                    meta.format_version
                ),
            ));
        }
        let mut next = meta.clone();
        if !change(&mut next)? {
            return Ok(base);
        }
        let location = meta.location.trim_end_matches('/');
        let base_name = base.metadata_key().rsplit('/').next().unwrap_or_default();
        next.metadata_log.push(MetadataLogEntry {
            metadata_file: format!("{location}/metadata/{base_name}"),
            timestamp_ms: meta.last_updated_ms,
        });
        next.last_updated_ms = env.now_millis().max(meta.last_updated_ms);
        if let Some(done) = base.metadata_catalog().commit(&base, &next).await? {
            return Ok(done);
        }
    }
    Err(gave_up(table, attempts))
}

/// Commits the written files (taking out what `removal` names) as one snapshot of the table:
/// writes their manifests once, then a manifest list and the next metadata on top of the latest
/// metadata (the next `v<N>.metadata.json`, or an `updateTable` through the table's catalog),
/// planned again after a back-off when another writer committed first, up to
/// `commit.retry.num-retries` times. When the commit surely failed, its files are deleted; when
/// its outcome is unknown ([`Error::CommitStateUnknown`]) they stay.
pub(crate) async fn commit(
    table: &Table,
    schema: &Schema,
    fields: &[SpecField],
    written: &Written,
    removal: &Removal,
    env: &dyn WriteEnv,
) -> Result<Table> {
    let snapshot_id = snapshot_id(env, table.metadata());
    let manifests = write_manifests(table, schema, fields, written, snapshot_id, env).await;
    let manifests = match manifests {
        Ok(m) => m,
        Err(e) => {
            discard_written(table, written, &[]).await;
            return Err(e);
        }
    };
    let attempts = commit_attempts(table.metadata());
    let mut outcome = Err(gave_up(table, attempts));
    for attempt in 0..attempts {
        back_off(env, attempt).await;
        let committed = match load_latest(table).await {
            Ok(base) => {
                try_commit(
                    attempt + 1,
                    &base,
                    schema.schema_id,
                    &manifests,
                    written,
                    removal,
                    snapshot_id,
                    env,
                )
                .await
            }
            Err(e) => Err(e),
        };
        match committed {
            Ok(None) => {}
            Ok(Some(done)) => return Ok(done),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    if matches!(&outcome, Err(e) if surely_not_applied(e)) {
        discard_written(table, written, &manifests).await;
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::super::append::{append, Plan};
    use super::*;
    use crate::write::{create_table, IcebergTableDefinition};
    use crate::{read_table, ReadRequest, SnapshotSelector};
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use lakescope_format::spec::{DataType, TypeKind};
    use lakescope_format::write_env::FixedEnv;
    use lakescope_storage::{MemoryStore, ObjectStore};
    use std::rc::Rc;
    use std::sync::Arc;

    fn ids(v: std::ops::Range<i64>) -> RecordBatch {
        let column: ArrayRef = Arc::new(Int64Array::from_iter_values(v));
        RecordBatch::try_from_iter(vec![("id", column)]).unwrap()
    }

    async fn manifest_lists(store: &MemoryStore) -> usize {
        let listing = store.list_dir("t/metadata").await.unwrap();
        listing
            .files
            .iter()
            .filter(|f| f.path.contains("/snap-"))
            .count()
    }

    /// A memory store whose `version-hint.text` cannot be written and, when `lose_metadata`,
    /// whose metadata puts succeed but answer with an error (a lost answer).
    struct LossyStore {
        inner: Rc<MemoryStore>,
        lose_metadata: bool,
    }

    fn lost(path: &str) -> lakescope_storage::Error {
        lakescope_storage::Error::Io {
            operation: "put",
            path: path.into(),
            message: "connection reset".into(),
        }
    }

    #[async_trait::async_trait(?Send)]
    impl ObjectStore for LossyStore {
        fn describe(&self) -> String {
            "lossy".into()
        }
        async fn get(&self, path: &str) -> lakescope_storage::Result<bytes::Bytes> {
            self.inner.get(path).await
        }
        async fn get_range(
            &self,
            path: &str,
            range: std::ops::Range<u64>,
        ) -> lakescope_storage::Result<bytes::Bytes> {
            self.inner.get_range(path, range).await
        }
        async fn head(
            &self,
            path: &str,
        ) -> lakescope_storage::Result<lakescope_storage::ObjectMeta> {
            self.inner.head(path).await
        }
        async fn list_dir(
            &self,
            prefix: &str,
        ) -> lakescope_storage::Result<lakescope_storage::Listing> {
            self.inner.list_dir(prefix).await
        }
        async fn put(&self, path: &str, data: bytes::Bytes) -> lakescope_storage::Result<()> {
            if path.ends_with("version-hint.text") {
                return Err(lost(path));
            }
            self.inner.put(path, data).await
        }
        async fn put_if_absent(
            &self,
            path: &str,
            data: bytes::Bytes,
        ) -> lakescope_storage::Result<lakescope_storage::PutOutcome> {
            let outcome = self.inner.put_if_absent(path, data).await?;
            if self.lose_metadata && path.ends_with(".metadata.json") {
                return Err(lost(path));
            }
            Ok(outcome)
        }
        async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
            self.inner.delete(path).await
        }
    }

    async fn rows_of(store: Rc<dyn ObjectStore>) -> usize {
        let t = Table::open(store, "t").await.unwrap();
        read_table(&t, &SnapshotSelector::Current, &ReadRequest::default())
            .await
            .unwrap()
            .batches
            .iter()
            .map(RecordBatch::num_rows)
            .sum()
    }

    #[tokio::test]
    async fn a_lost_metadata_answer_is_an_unknown_outcome_and_keeps_the_files() {
        let env = FixedEnv::new(1, 4);
        let def = IcebergTableDefinition {
            columns: vec![("id".into(), DataType::nullable(TypeKind::BigInt), None)],
            ..Default::default()
        };
        let memory = Rc::new(MemoryStore::new());
        create_table(memory.as_ref(), "t", "s3://b/t", &def, &env)
            .await
            .unwrap();
        for lose_metadata in [false, true] {
            let store: Rc<dyn ObjectStore> = Rc::new(LossyStore {
                inner: memory.clone(),
                lose_metadata,
            });
            let t = Table::open(store.clone(), "t").await.unwrap();
            let done = append(&t, &[ids(0..3)], &env).await;
            if lose_metadata {
                let Err(err @ Error::CommitStateUnknown { .. }) = &done else {
                    panic!("{done:?}");
                };
                assert!(
                    err.to_string().contains("may or may not have been applied"),
                    "{err}"
                );
            } else {
                // the hint is best effort: the version is committed
                assert_eq!(done.unwrap().metadata_key(), "t/metadata/v2.metadata.json");
            }
        }
        // the lost answer's commit was applied: its data and manifests are still there
        assert_eq!(rows_of(memory).await, 6);
    }

    #[tokio::test]
    async fn a_commit_that_loses_the_race_is_rebased() {
        let store = Rc::new(MemoryStore::new());
        let env = FixedEnv::new(1, 3);
        let def = IcebergTableDefinition {
            columns: vec![("id".into(), DataType::nullable(TypeKind::BigInt), None)],
            ..Default::default()
        };
        create_table(store.as_ref(), "t", "s3://b/t", &def, &env)
            .await
            .unwrap();
        let t0 = Table::open(store.clone(), "t").await.unwrap();
        // Writer A writes its files and reads v1 ...
        let plan = Plan::new(&t0).unwrap();
        let written = plan.write(&[ids(0..3)], &env).await.unwrap();
        let manifests = write_manifests(&t0, plan.schema, &plan.fields, &written, 7, &env)
            .await
            .unwrap();
        let base = load_latest(&t0).await.unwrap();
        assert_eq!(base.metadata_key(), "t/metadata/v1.metadata.json");
        // ... while writer B commits v2.
        let b = append(&t0, &[ids(10..12)], &env).await.unwrap();
        assert_eq!(b.metadata_key(), "t/metadata/v2.metadata.json");
        let lost = try_commit(
            1,
            &base,
            0,
            &manifests,
            &written,
            &Removal::Nothing,
            7,
            &env,
        )
        .await
        .unwrap();
        assert!(lost.is_none());
        assert_eq!(
            manifest_lists(&store).await,
            1,
            "the losing list is removed"
        );
        // The retrying commit lands on top of B's snapshot.
        let a = commit(
            &t0,
            plan.schema,
            &plan.fields,
            &written,
            &Removal::Nothing,
            &env,
        )
        .await
        .unwrap();
        assert_eq!(a.metadata_key(), "t/metadata/v3.metadata.json");
        let rows: usize = read_table(&a, &SnapshotSelector::Current, &ReadRequest::default())
            .await
            .unwrap()
            .batches
            .iter()
            .map(RecordBatch::num_rows)
            .sum();
        assert_eq!(rows, 5);
        let snap = a.metadata().current_snapshot().unwrap();
        assert_eq!(snap.parent_snapshot_id, b.metadata().current_snapshot_id);
        assert_eq!(snap.sequence_number, 2);
        assert_eq!(snap.summary["total-records"], "5");
        assert_eq!(manifest_lists(&store).await, 2);
        let hint = store.get("t/metadata/version-hint.text").await.unwrap();
        assert_eq!(&hint[..], b"3");
    }
}
