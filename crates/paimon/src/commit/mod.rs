//! The commit protocol: latest snapshot → conflict checks → manifests → the table's
//! [`SnapshotCommit`] of `snapshot-(N+1)` (put-if-absent and best-effort hints on a filesystem,
//! the catalog's commit endpoint for a REST catalog's table) → retry on a lost race.
//!
//! A commit that fails or is abandoned at any step leaves the table reading exactly as before:
//! only unreferenced data/manifest files remain (Paimon's `CALL sys.remove_orphan_files`
//! removes them). Snapshot files are never overwritten or renamed.

pub mod expire;
mod overwrite;
mod snapshot_commit;
mod stats;
pub mod tags;

pub use overwrite::Overwrite;
pub use snapshot_commit::{
    partition_statistics, PartitionStatistics, RenamingSnapshotCommit, SnapshotCommit,
};

use crate::error::{Error, Result};
use crate::scan::DeletionFile;
use crate::scan::{plan, PartitionFilter, Split};
use crate::spec::binary_row::BinaryRow;
use crate::spec::manifest::{FileKind, ManifestEntry, ManifestFileMeta};
use crate::spec::manifest::{IndexManifestEntry, DELETION_VECTORS_INDEX, HASH_INDEX};
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::{CommitKind, Snapshot};
use crate::table::Table;
use crate::write::dynamic_bucket::encode_index_manifest;
use crate::write::manifest::{codec, encode_manifest, encode_manifest_list};
use crate::write::{CommitMessage, IndexChange, NewFile, WriteEnv};
use lakescope_storage::join;
use std::collections::{HashMap, HashSet};

/// Commit identifier of batch commits (Java `BatchWriteBuilder.COMMIT_IDENTIFIER`).
pub const BATCH_COMMIT_IDENTIFIER: i64 = i64::MAX;

/// How a commit behaves on conflicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitOptions {
    /// `commitUser` written into snapshots.
    pub commit_user: String,
    /// Attempts after the first lost race (`commit.max-retries`, default 10).
    pub max_retries: u32,
    /// First back-off wait in ms (`commit.min-retry-wait`, default 10).
    pub min_retry_wait_ms: u64,
    /// Longest back-off wait in ms (`commit.max-retry-wait`, default 10 000).
    pub max_retry_wait_ms: u64,
}

impl CommitOptions {
    /// Defaults (or the table's `commit.*` options) with this commit user.
    pub fn for_table(table: &Table, commit_user: impl Into<String>) -> Result<Self> {
        let o = table.options();
        let num = |key: &str, default: u64| -> Result<u64> {
            match o.get(key) {
                None => Ok(default),
                Some(v) => {
                    let t = v.trim().trim_end_matches("ms").trim();
                    t.parse()
                        .map_err(|_| Error::Invalid(format!("{key} '{v}' is not a number of ms")))
                }
            }
        };
        Ok(Self {
            commit_user: commit_user.into(),
            max_retries: num("commit.max-retries", 10)? as u32,
            min_retry_wait_ms: num("commit.min-retry-wait", 10)?,
            max_retry_wait_ms: num("commit.max-retry-wait", 10_000)?,
        })
    }
}

/// What a successful commit produced.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitOutcome {
    /// The snapshot created.
    pub snapshot: Snapshot,
    /// Lost races before winning.
    pub retries: u32,
}

/// Why one attempt did not create the snapshot.
enum Attempt {
    Done(Box<Snapshot>),
    Lost,
}

/// A compaction's change: the live files it rewrote (with the deletion vectors it applied)
/// and the files it wrote in their place.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompactChange {
    /// Rewritten files, as DELETE entries of their (partition, bucket).
    pub before: Vec<ManifestEntry>,
    /// Deletion vectors of rewritten files the compaction applied, by data file name.
    pub applied_deletion_vectors: HashMap<String, DeletionFile>,
    /// The files written in their place.
    pub after: Vec<NewFile>,
    /// Changelog files of the compaction (`changelog-producer` = `lookup` /
    /// `full-compaction`), listed in the snapshot's changelog manifest list.
    pub changelog: Vec<NewFile>,
}

/// What one commit changes.
enum Change<'c> {
    Write {
        files: &'c [NewFile],
        changelog: &'c [NewFile],
        index: Option<&'c IndexChange>,
        overwrite: Option<&'c Overwrite>,
    },
    Compact(&'c CompactChange),
}

/// Commits new files to a table, appending or overwriting.
pub struct Committer<'a> {
    table: &'a Table,
    env: &'a dyn WriteEnv,
    options: CommitOptions,
}

impl<'a> Committer<'a> {
    /// A committer for `table`.
    pub fn new(table: &'a Table, env: &'a dyn WriteEnv, options: CommitOptions) -> Self {
        Self {
            table,
            env,
            options,
        }
    }

    /// Commits a write's files (and the message's changelog files, listed in the snapshot's
    /// changelog manifest list): APPEND, or OVERWRITE of the partitions `overwrite` selects (their
    /// live files and index entries are deleted in the same snapshot; dynamic-bucket rows must come
    /// from `write_overwrite`, those of an append from `write`). Retries lost races with exponential
    /// back-off; a real conflict (changed bucket count, concurrent schema change) fails without
    /// retry. `None` without touching the table when Paimon commits nothing ([`commits_nothing`]).
    /// Only commits: writes go through `write_commit::commit_write`, which also compacts the
    /// tables whose batch readers skip level-0 files.
    pub(crate) async fn commit_or_skip(
        &self,
        message: impl Into<CommitMessage>,
        overwrite: Option<Overwrite>,
    ) -> Result<Option<CommitOutcome>> {
        let message = message.into();
        if commits_nothing(
            self.table.current_schema(),
            message.files.len(),
            overwrite.as_ref(),
        ) {
            // Java's committer expires snapshots after empty commits too.
            self.expire().await;
            return Ok(None);
        }
        let files = message.files;
        let mismatch = match (&message.index, &overwrite) {
            (Some(i), None) if i.for_overwrite => Some(
                "buckets assigned for INSERT OVERWRITE (write_overwrite) cannot be appended: keys already in the table would land in a second bucket",
            ),
            (Some(i), Some(_)) if !i.for_overwrite => Some(
                "buckets assigned against the live index (write) cannot be committed as INSERT OVERWRITE: write the rows with write_overwrite",
            ),
            _ => None,
        };
        if let Some(why) = mismatch {
            return Err(Error::Invalid(format!(
                "{}: dynamic bucket: {why}",
                self.table.path()
            )));
        }
        let index = message.index.filter(|i| !i.added.is_empty());
        // Java's FileStoreCommitImpl commits no changelog with an overwrite (it logs the
        // ignored files); `write_overwrite` writes none.
        let changelog = if overwrite.is_some() {
            &[][..]
        } else {
            message.changelog.as_slice()
        };
        let change = Change::Write {
            files: &files,
            changelog,
            index: index.as_ref(),
            overwrite: overwrite.as_ref(),
        };
        Ok(Some(self.run(&change).await?))
    }

    /// Commits a compaction: a COMPACT snapshot deleting `change.before` and adding
    /// `change.after`. Fails without retry when a concurrent commit deleted one of the rewritten
    /// files or changed a deletion vector the compaction applied (the compaction is abandoned;
    /// its new files are orphans).
    pub async fn commit_compact(&self, change: &CompactChange) -> Result<CommitOutcome> {
        self.run(&Change::Compact(change)).await
    }

    /// The attempt loop: retries lost races with exponential back-off.
    async fn run(&self, change: &Change<'_>) -> Result<CommitOutcome> {
        self.table.ensure_main("committing")?;
        let mut retries = 0;
        loop {
            match self.attempt(change).await? {
                Attempt::Done(snapshot) => {
                    self.expire().await;
                    return Ok(CommitOutcome {
                        snapshot: *snapshot,
                        retries,
                    });
                }
                Attempt::Lost if retries < self.options.max_retries => {
                    let wait = self
                        .options
                        .min_retry_wait_ms
                        .saturating_mul(1u64 << retries.min(20))
                        .min(self.options.max_retry_wait_ms);
                    let jitter = self.env.uuid().bytes().fold(0u64, |a, b| a.wrapping_mul(31).wrapping_add(u64::from(b)));
                    self.env.sleep(wait + jitter % (wait / 2 + 1)).await;
                    retries += 1;
                }
                Attempt::Lost => {
                    return Err(Error::Invalid(format!(
                        "{}: commit gave up after {} retries: other writers kept creating the next snapshot first (commit.max-retries)",
                        self.table.path(),
                        retries
                    )))
                }
            }
        }
    }

    fn manifest_key(&self, name: &str) -> String {
        join(&join(self.table.path(), "manifest"), name)
    }

    async fn latest(&self) -> Result<Option<Snapshot>> {
        // A snapshot being created by another writer may be briefly unreadable on stores whose
        // create is not atomic with its content; try a few times.
        let mut last_err = None;
        for _ in 0..5 {
            match self.table.latest_snapshot().await {
                Ok(s) => return Ok(s),
                Err(e @ Error::Corrupt { .. }) => {
                    last_err = Some(e);
                    self.env.sleep(self.options.min_retry_wait_ms).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(last_err.unwrap_or_else(|| Error::Invalid("latest snapshot unreadable".into())))
    }

    async fn attempt(&self, change: &Change<'_>) -> Result<Attempt> {
        let (files, changelog, index, overwrite, compact) = match change {
            Change::Write {
                files,
                changelog,
                index,
                overwrite,
            } => (*files, *changelog, *index, *overwrite, None),
            Change::Compact(c) => (
                c.after.as_slice(),
                c.changelog.as_slice(),
                None,
                None,
                Some(*c),
            ),
        };
        let table = self.table;
        let latest = self.latest().await?;
        let schema_id = table.current_schema().id;
        if let Some(s) = &latest {
            if s.schema_id > schema_id {
                return Err(Error::Invalid(format!(
                    "{}: conflict: the table schema changed to {} since the files were written with schema {schema_id}",
                    table.path(),
                    s.schema_id
                )));
            }
        }
        let live: Vec<Split> = match &latest {
            Some(s) => plan(table, s, &PartitionFilter::All).await?.splits,
            None => Vec::new(),
        };
        let overwritten: Vec<&[u8]> = match overwrite {
            Some(o) => {
                let schema = table.current_schema();
                let mut v = Vec::new();
                for split in &live {
                    if o.selects(schema, &split.partition, files)? {
                        v.push(split.partition_bytes.as_slice());
                    }
                }
                v
            }
            None => Vec::new(),
        };
        check_bucket_counts(table, &live, files, &overwritten)?;
        if let Some(c) = compact {
            check_still_live(table, latest.as_ref(), &live, c)?;
        }

        let mut entries = Vec::new();
        if let Some(c) = compact {
            entries.extend(c.before.iter().cloned());
        }
        if let Some(o) = overwrite {
            let schema = table.current_schema();
            for split in &live {
                if o.selects(schema, &split.partition, files)? {
                    for f in &split.files {
                        entries.push(ManifestEntry {
                            kind: FileKind::Delete,
                            partition: split.partition_bytes.clone(),
                            bucket: split.bucket,
                            total_buckets: split.total_buckets,
                            file: f.clone(),
                        });
                    }
                }
            }
            o.check_new_files(schema, files)?;
        }
        entries.extend(files.iter().map(add_entry));

        let mcodec = || {
            codec(
                table
                    .options()
                    .get("manifest.compression")
                    .unwrap_or("zstd"),
            )
        };
        let uuid = self.env.uuid();
        let mut written = Vec::new();
        let mut delta_metas = Vec::new();
        if !entries.is_empty() {
            let name = format!("manifest-{uuid}-0");
            let bytes = encode_manifest(&name, &entries, mcodec()?)?;
            let meta = stats::manifest_meta(
                table.current_schema(),
                &name,
                bytes.len() as i64,
                &entries,
                schema_id,
            )?;
            table
                .store()
                .put(&self.manifest_key(&name), bytes.into())
                .await?;
            written.push(name);
            delta_metas.push(meta);
        }
        let mut base_metas: Vec<ManifestFileMeta> = Vec::new();
        if let Some(s) = &latest {
            base_metas.extend(
                table
                    .manifest_list(&s.base_manifest_list)
                    .await?
                    .iter()
                    .cloned(),
            );
            base_metas.extend(
                table
                    .manifest_list(&s.delta_manifest_list)
                    .await?
                    .iter()
                    .cloned(),
            );
        }
        let list_uuid = self.env.uuid();
        let base_name = format!("manifest-list-{list_uuid}-0");
        let delta_name = format!("manifest-list-{list_uuid}-1");
        let base_bytes = encode_manifest_list(&base_name, &base_metas, mcodec()?)?;
        let delta_bytes = encode_manifest_list(&delta_name, &delta_metas, mcodec()?)?;
        let (base_size, delta_size) = (base_bytes.len() as i64, delta_bytes.len() as i64);
        let changelog_list = self.put_changelog_list(changelog, &mut written).await?;
        let changelog_records: i64 = changelog.iter().map(|f| f.file.row_count).sum();
        table
            .store()
            .put(&self.manifest_key(&base_name), base_bytes.into())
            .await?;
        written.push(base_name.clone());
        table
            .store()
            .put(&self.manifest_key(&delta_name), delta_bytes.into())
            .await?;
        written.push(delta_name.clone());

        let mut index_manifest = latest.as_ref().and_then(|s| s.index_manifest.clone());
        if let Some(ic) = index.filter(|ic| !ic.for_overwrite) {
            if index_manifest != ic.base_index_manifest {
                return Err(Error::Invalid(format!(
                    "{}: conflict: another commit changed the dynamic-bucket index ({:?} → {:?}) since the buckets were assigned; write again",
                    table.path(),
                    ic.base_index_manifest,
                    index_manifest
                )));
            }
        }
        let added_index = index.map_or(&[][..], |ic| ic.added.as_slice());
        if let Some(c) = compact {
            if let Some(name) = self
                .drop_deletion_vectors(index_manifest.as_deref(), c)
                .await?
            {
                written.push(name.clone());
                index_manifest = Some(name);
            }
        } else if !added_index.is_empty() || overwrite.is_some() {
            if let Some(name) = self
                .write_index_manifest(index_manifest.as_deref(), added_index, overwrite, files)
                .await?
            {
                written.push(name.clone());
                index_manifest = Some(name);
            }
        }
        let added: i64 = entries
            .iter()
            .filter(|e| e.kind == FileKind::Add)
            .map(|e| e.file.row_count)
            .sum();
        let deleted: i64 = entries
            .iter()
            .filter(|e| e.kind == FileKind::Delete)
            .map(|e| e.file.row_count)
            .sum();
        let previous_total = latest
            .as_ref()
            .and_then(|s| s.total_record_count)
            .unwrap_or_else(|| live.iter().map(Split::row_count).sum());
        let id = latest.as_ref().map_or(1, |s| s.id + 1);
        let snapshot = Snapshot {
            version: Some(3),
            id,
            schema_id,
            base_manifest_list: base_name,
            base_manifest_list_size: Some(base_size),
            delta_manifest_list: delta_name,
            delta_manifest_list_size: Some(delta_size),
            changelog_manifest_list: changelog_list.as_ref().map(|(n, _)| n.clone()),
            changelog_manifest_list_size: changelog_list.as_ref().map(|(_, s)| *s),
            index_manifest,
            commit_user: self.options.commit_user.clone(),
            commit_identifier: BATCH_COMMIT_IDENTIFIER,
            commit_kind: if compact.is_some() {
                CommitKind::Compact
            } else if overwrite.is_some() {
                CommitKind::Overwrite
            } else {
                CommitKind::Append
            },
            time_millis: self.env.now_millis(),
            log_offsets: None,
            total_record_count: Some(previous_total + added - deleted),
            delta_record_count: Some(added - deleted),
            changelog_record_count: Some(changelog_records),
            watermark: None,
            statistics: None,
            properties: None,
            next_row_id: None,
            uuid: Some(self.env.uuid()),
            writer_version: None,
            operation: None,
        };
        match table
            .snapshot_commit()
            .commit(table, latest.as_ref(), &snapshot, &entries)
            .await
        {
            Ok(true) => return Ok(Attempt::Done(Box::new(snapshot))),
            Ok(false) => {}
            // As Java's next attempt does: the service may have created the snapshot after all.
            Err(e @ Error::CommitStateUnknown { .. }) => {
                return match self.landed(&snapshot).await {
                    true => Ok(Attempt::Done(Box::new(snapshot))),
                    false => Err(e),
                }
            }
            Err(e) => return Err(e),
        }
        for name in written {
            // Best effort: leftovers are orphans, never referenced.
            let _ = table.store().delete(&self.manifest_key(&name)).await;
        }
        Ok(Attempt::Lost)
    }

    /// Whether `snapshot` exists as this commit made it (same commit user, identifier, kind and
    /// uuid): a commit whose answer was lost may have been applied.
    async fn landed(&self, snapshot: &Snapshot) -> bool {
        matches!(
            self.table.snapshot(snapshot.id).await,
            Ok(s) if s.commit_user == snapshot.commit_user
                && s.commit_identifier == snapshot.commit_identifier
                && s.commit_kind == snapshot.commit_kind
                && s.uuid == snapshot.uuid
        )
    }

    /// Writes the changelog manifest and manifest list of `changelog` (as Java's
    /// `tryCommitOnce`: the files as ADD entries of their own manifest, named by the list the
    /// snapshot references as `changelogManifestList`); returns the list's name and size, or
    /// `None` without changelog files. The names written are added to `written`.
    async fn put_changelog_list(
        &self,
        changelog: &[NewFile],
        written: &mut Vec<String>,
    ) -> Result<Option<(String, i64)>> {
        if changelog.is_empty() {
            return Ok(None);
        }
        let table = self.table;
        let codec = || {
            codec(
                table
                    .options()
                    .get("manifest.compression")
                    .unwrap_or("zstd"),
            )
        };
        let entries: Vec<ManifestEntry> = changelog.iter().map(add_entry).collect();
        let uuid = self.env.uuid();
        let name = format!("manifest-{uuid}-0");
        let bytes = encode_manifest(&name, &entries, codec()?)?;
        let schema = table.current_schema();
        let meta = stats::manifest_meta(schema, &name, bytes.len() as i64, &entries, schema.id)?;
        table
            .store()
            .put(&self.manifest_key(&name), bytes.into())
            .await?;
        written.push(name);
        let list_name = format!("manifest-list-{uuid}-1");
        let list_bytes = encode_manifest_list(&list_name, &[meta], codec()?)?;
        let size = list_bytes.len() as i64;
        table
            .store()
            .put(&self.manifest_key(&list_name), list_bytes.into())
            .await?;
        written.push(list_name.clone());
        Ok(Some((list_name, size)))
    }

    /// Writes an index manifest holding `entries` under a fresh name; returns the name.
    async fn put_index_manifest(&self, entries: &[IndexManifestEntry]) -> Result<String> {
        let name = format!("index-manifest-{}-0", self.env.uuid());
        let codec = codec(
            self.table
                .options()
                .get("manifest.compression")
                .unwrap_or("zstd"),
        )?;
        let bytes = encode_index_manifest(&name, entries, codec)?;
        self.table
            .store()
            .put(&self.manifest_key(&name), bytes.into())
            .await?;
        Ok(name)
    }

    /// Writes the cumulative index manifest of the new snapshot, as Java's
    /// `IndexManifestFileHandler` combines them: the previous entries, less every entry of an
    /// overwritten partition (DELETE entries in Java's overwrite) and less the HASH entry of
    /// each (partition, bucket) that gets a new file, plus the new files. Returns its name, or
    /// `None` when nothing changes (an overwrite of partitions without index entries).
    async fn write_index_manifest(
        &self,
        previous: Option<&str>,
        added: &[IndexManifestEntry],
        overwrite: Option<&Overwrite>,
        files: &[NewFile],
    ) -> Result<Option<String>> {
        let table = self.table;
        let schema = table.current_schema();
        let partition_types = schema.partition_types();
        let replaced: HashSet<(&[u8], i32)> = added
            .iter()
            .map(|e| (e.partition.as_slice(), e.bucket))
            .collect();
        let mut all: Vec<IndexManifestEntry> = Vec::new();
        let mut removed = 0usize;
        if let Some(name) = previous {
            let mut overwritten: HashMap<&[u8], bool> = HashMap::new();
            let entries = table.index_manifest(name).await?;
            for e in entries.iter() {
                let dropped = match overwrite {
                    None => false,
                    Some(o) => match overwritten.get(e.partition.as_slice()) {
                        Some(d) => *d,
                        None => {
                            let key = self.manifest_key(name);
                            let values =
                                BinaryRow::decode_in(&key, &e.partition, &partition_types)?;
                            let d = o.selects(schema, &values, files)?;
                            overwritten.insert(&e.partition, d);
                            d
                        }
                    },
                };
                if dropped
                    || (e.index_type == HASH_INDEX
                        && replaced.contains(&(e.partition.as_slice(), e.bucket)))
                {
                    removed += 1;
                } else {
                    all.push(e.clone());
                }
            }
        }
        if removed == 0 && added.is_empty() {
            return Ok(None);
        }
        all.extend(added.iter().cloned());
        self.put_index_manifest(&all).await.map(Some)
    }

    /// The index manifest after a compaction: the deletion-vector entries of the rewritten
    /// files' buckets are dropped (Java's compaction deletes them). `None` when nothing changes.
    /// An entry that also covers a file the compaction did not rewrite is a conflict.
    async fn drop_deletion_vectors(
        &self,
        previous: Option<&str>,
        change: &CompactChange,
    ) -> Result<Option<String>> {
        let Some(name) = previous else {
            return Ok(None);
        };
        let table = self.table;
        let rewritten: HashSet<(&[u8], i32, &str)> = change
            .before
            .iter()
            .map(|e| (e.partition.as_slice(), e.bucket, e.file.file_name.as_str()))
            .collect();
        let buckets: HashSet<(&[u8], i32)> = rewritten.iter().map(|(p, b, _)| (*p, *b)).collect();
        let entries = table.index_manifest(name).await?;
        let mut kept = Vec::new();
        let mut removed = 0;
        for e in entries.iter() {
            if e.index_type != DELETION_VECTORS_INDEX
                || !buckets.contains(&(e.partition.as_slice(), e.bucket))
            {
                kept.push(e.clone());
                continue;
            }
            let vectors = e.deletion_vectors.as_deref().unwrap_or_default();
            if let Some(other) = vectors.iter().find(|v| {
                !rewritten.contains(&(e.partition.as_slice(), e.bucket, v.data_file_name.as_str()))
            }) {
                return Err(Error::Invalid(format!(
                    "{}: conflict: deletion-vector index {} also covers {}, which the compaction did not rewrite; the compaction is abandoned",
                    table.path(),
                    e.file_name,
                    other.data_file_name
                )));
            }
            removed += 1;
        }
        if removed == 0 {
            return Ok(None);
        }
        self.put_index_manifest(&kept).await.map(Some)
    }

    /// Expires snapshots as Paimon's committer does after each commit (unless `write-only`).
    /// Best effort: the commit stands whatever happens here, every retained snapshot stays
    /// readable, and the next commit's expiration picks up what this one left.
    async fn expire(&self) {
        let _ = expire::expire_after_commit(self.table, self.env).await;
    }
}

/// The ADD entry of a new file.
fn add_entry(f: &NewFile) -> ManifestEntry {
    ManifestEntry {
        kind: FileKind::Add,
        partition: f.partition_bytes.clone(),
        bucket: f.bucket,
        total_buckets: Some(f.total_buckets),
        file: std::sync::Arc::new(f.file.clone()),
    }
}

/// Whether Paimon commits nothing for `new_files` files written with `overwrite`: a dynamic
/// partition overwrite of a partitioned table without rows replaces no partition, and Java's
/// `FileStoreCommitImpl.overwrite` skips it (no snapshot). Unpartitioned tables are overwritten
/// whole, also without rows.
pub fn commits_nothing(
    schema: &TableSchema,
    new_files: usize,
    overwrite: Option<&Overwrite>,
) -> bool {
    new_files == 0
        && matches!(overwrite, Some(Overwrite::Dynamic))
        && !schema.partition_keys.is_empty()
}

/// Fails when a file a compaction rewrote is no longer live in the latest snapshot (another
/// commit deleted it: an overwrite, a compaction) or its deletion vector changed since the
/// compaction read it: committing would resurrect or lose rows.
fn check_still_live(
    table: &Table,
    latest: Option<&Snapshot>,
    live: &[Split],
    change: &CompactChange,
) -> Result<()> {
    let by_bucket: HashMap<(&[u8], i32), &Split> = live
        .iter()
        .map(|s| ((s.partition_bytes.as_slice(), s.bucket), s))
        .collect();
    let snapshot = latest.map_or(0, |s| s.id);
    for e in &change.before {
        let name = &e.file.file_name;
        let split = by_bucket.get(&(e.partition.as_slice(), e.bucket));
        let Some(split) = split.filter(|s| s.files.iter().any(|f| &f.file_name == name)) else {
            return Err(Error::Invalid(format!(
                "{}: conflict: data file {name} (bucket {}) that the compaction rewrote was deleted by a concurrent commit (latest snapshot {snapshot}); the compaction is abandoned",
                table.path(),
                e.bucket
            )));
        };
        if split.deletion_files.get(name) != change.applied_deletion_vectors.get(name) {
            return Err(Error::Invalid(format!(
                "{}: conflict: the deletion vector of {name} changed since the compaction read it (latest snapshot {snapshot}); the compaction is abandoned",
                table.path()
            )));
        }
    }
    Ok(())
}

/// Fails when a new file's bucket count differs from the partition's live files (Paimon's
/// "total buckets changed" conflict: the table was rescaled concurrently).
fn check_bucket_counts(
    table: &Table,
    live: &[Split],
    files: &[NewFile],
    overwritten: &[&[u8]],
) -> Result<()> {
    let mut live_buckets: HashMap<&[u8], i32> = HashMap::new();
    for s in live {
        if overwritten.contains(&s.partition_bytes.as_slice()) {
            continue;
        }
        if let Some(t) = s.total_buckets {
            live_buckets.insert(&s.partition_bytes, t);
        }
    }
    for f in files {
        if let Some(t) = live_buckets.get(f.partition_bytes.as_slice()) {
            if *t != f.total_buckets {
                return Err(Error::Invalid(format!(
                    "{}: conflict: partition {:?} has {t} buckets but the new file {} was written for {}",
                    table.path(),
                    f.partition,
                    f.file.file_name,
                    f.total_buckets
                )));
            }
        }
    }
    Ok(())
}

/// The first sequence number for new primary-key rows: one more than the largest in the
/// latest snapshot (0 for an empty table).
pub async fn next_sequence_number(table: &Table) -> Result<i64> {
    let Some(s) = table.latest_snapshot().await? else {
        return Ok(0);
    };
    let p = plan(table, &s, &PartitionFilter::All).await?;
    Ok(p.splits
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.max_sequence_number + 1))
        .max()
        .unwrap_or(0))
}
