//! Full compaction: the live files of a (partition, bucket) merged with the table's merge engine,
//! rewritten at the top level and committed as a COMPACT snapshot.
//!
//! As Paimon's full compaction (`MergeTreeCompactManager` with `CompactStrategy.pickFullCompaction`
//! and `MergeTreeCompactRewriter`): every sorted run of the bucket is merged, retractions are
//! dropped (the output is the top level, `num-levels - 1`), each key keeps the sequence number
//! its merge function gives it, and the output rolls at `target-file-size`. Append tables get
//! their files of a bucket concatenated (level 0, as Java's append compaction). The commit deletes
//! the rewritten files and their deletion vectors in the same snapshot; a concurrent commit that
//! deleted one of them makes the compaction fail without touching the table. Tables with
//! `changelog-producer` = `lookup` / `full-compaction` also get the compaction's changelog files
//! (see [`changelog`]), listed in the COMPACT snapshot's changelog manifest list.

use crate::commit::{CommitOptions, CommitOutcome, Committer, CompactChange};
use crate::error::{Error, Result};
use crate::scan::{plan, PartitionFilter, Split};
use crate::spec::manifest::{FileKind, ManifestEntry};
use crate::spec::schema::TableSchema;
use crate::table::Table;
use crate::table_read::SplitReader;
use crate::write::binary_row::empty_row;
use crate::write::bucket::BucketAssigner;
use crate::write::table_write::{
    check_file_layout, write_changelog_file, write_file, FileLayout, FileRows,
};
use crate::write::{NewFile, WriteEnv};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{ArrayRef, RecordBatch};
use changelog::ChangelogRule;
use std::collections::HashSet;

mod changelog;

/// Default `num-sorted-run.compaction-trigger`; without `num-levels` Paimon's LSM tree has one
/// level more than that (6: the top is level 5, where Java's full compaction writes).
const DEFAULT_COMPACTION_TRIGGER: i32 = 5;

/// Fully compacts every bucket of the partitions `partitions` selects (every partition when
/// empty) and commits one COMPACT snapshot. Returns `None` when nothing needed compacting (no
/// snapshot, or every bucket is a single top-level file without deletion vector).
pub async fn compact(
    table: &Table,
    env: &dyn WriteEnv,
    options: CommitOptions,
    partitions: &[PartitionFilter],
) -> Result<Option<CommitOutcome>> {
    let change = rewrite(table, env, partitions).await?;
    commit_rewrite(table, env, options, &change).await
}

/// The first half of [`compact`]: writes the compacted files of the selected buckets of the
/// latest snapshot and returns the change to commit with [`Committer::commit_compact`]
/// (nothing is committed; an empty change when nothing needs compacting).
pub async fn rewrite(
    table: &Table,
    env: &dyn WriteEnv,
    partitions: &[PartitionFilter],
) -> Result<CompactChange> {
    let schema = table.current_schema().clone();
    rewrite_buckets(table, env, |split| {
        partitions.is_empty()
            || partitions
                .iter()
                .any(|p| p.matches(&schema, &split.partition))
    })
    .await
}

/// Commits a [`rewrite`]: `None` when it rewrote nothing. When the commit is refused (a
/// conflicting commit deleted a rewritten file), the new files are removed (best effort) and
/// the table is left as the other commits made it; after a storage error they are kept, since
/// the snapshot may have been created all the same.
pub(crate) async fn commit_rewrite(
    table: &Table,
    env: &dyn WriteEnv,
    options: CommitOptions,
    change: &CompactChange,
) -> Result<Option<CommitOutcome>> {
    if change.before.is_empty() {
        return Ok(None);
    }
    let committed = Committer::new(table, env, options)
        .commit_compact(change)
        .await;
    match committed {
        // A storage error may have hidden a snapshot that was created (a lost answer): the new
        // files may be referenced, so they stay (orphans at worst).
        Err(e @ Error::Storage(_)) => Err(e),
        Err(e) => {
            remove_files(table, &change.after).await;
            remove_files(table, &change.changelog).await;
            Err(e)
        }
        Ok(done) => Ok(Some(done)),
    }
}

/// [`rewrite`] of the buckets of the latest snapshot that `select` picks.
pub(crate) async fn rewrite_buckets(
    table: &Table,
    env: &dyn WriteEnv,
    select: impl Fn(&Split) -> bool,
) -> Result<CompactChange> {
    let mut change = CompactChange::default();
    let Some(latest) = table.latest_snapshot().await? else {
        return Ok(change);
    };
    let schema = table.current_schema().clone();
    check_file_layout(table, &schema)?;
    let is_pk = !schema.primary_keys.is_empty();
    let top = if is_pk { max_level(&schema)? } else { 0 };
    let rule = ChangelogRule::of(&schema, top)?;
    let splits = plan(table, &latest, &PartitionFilter::All).await?.splits;
    let reader = SplitReader::new(table, schema.clone())?;
    let layout = FileLayout::new(&schema, env)?;
    let default_buckets = BucketAssigner::new(&schema)?.total_buckets();
    let writer_uuid = env.uuid();
    for split in splits.iter().filter(|s| select(s)) {
        let settled = split.files.len() == 1
            && split.deletion_files.is_empty()
            && split.files.iter().all(|f| f.level == top);
        if split.files.is_empty() || settled {
            continue;
        }
        let mut files: Vec<_> = split.files.iter().collect();
        // Append files are concatenated in write order.
        files.sort_by_key(|f| (f.min_sequence_number, f.max_sequence_number));
        let mut runs = Vec::with_capacity(files.len());
        for f in &files {
            runs.push(reader.read_live_rows(split, f).await?);
        }
        let total_buckets = split.total_buckets.unwrap_or(default_buckets);
        let merge = |runs: Vec<Vec<RecordBatch>>| -> Result<Option<RecordBatch>> {
            if runs.is_empty() {
                return Ok(None);
            }
            let merged = reader
                .merge_reader(runs, false)?
                .with_sequence_numbers()
                .collect::<Result<Vec<_>>>()?;
            concat(&merged)
        };
        let changelog_rows = match &rule {
            Some(rule) => {
                let mut before = Vec::new();
                let mut touched = HashSet::new();
                for (f, run) in files.iter().zip(&runs) {
                    if rule.is_before(f.level) {
                        before.push(run.clone());
                    }
                    if rule.touches(f.level) {
                        for batch in run {
                            for row in 0..batch.num_rows() {
                                touched.insert(layout.key_row(batch.columns(), row)?);
                            }
                        }
                    }
                }
                Some((merge(before)?, touched))
            }
            None => None,
        };
        let rows = if is_pk {
            merge(runs)?
        } else {
            concat(&runs.into_iter().flatten().collect::<Vec<_>>())?
        };
        let min_seq = files.iter().map(|f| f.min_sequence_number).min();
        let max_seq = files.iter().map(|f| f.max_sequence_number).max();
        let out = Output {
            table,
            layout: &layout,
            writer_uuid: &writer_uuid,
            split,
            total_buckets,
            level: top,
            is_pk,
            seq_range: [min_seq, max_seq].into_iter().flatten().collect(),
        };
        if let (Some(rule), Some((before, touched))) = (&rule, changelog_rows) {
            if let Some(records) = rule.diff(&layout, &touched, before.as_ref(), rows.as_ref())? {
                out.write(&records, true, &mut change).await?;
            }
        }
        if let Some(rows) = rows {
            out.write(&rows, false, &mut change).await?;
        }
        for f in files {
            change.before.push(ManifestEntry {
                kind: FileKind::Delete,
                partition: split.partition_bytes.clone(),
                bucket: split.bucket,
                total_buckets: split.total_buckets,
                file: f.clone(),
            });
            if let Some(dv) = split.deletion_files.get(&f.file_name) {
                change
                    .applied_deletion_vectors
                    .insert(f.file_name.clone(), dv.clone());
            }
        }
    }
    Ok(change)
}

/// Where the files of one compacted bucket go.
struct Output<'a> {
    table: &'a Table,
    layout: &'a FileLayout,
    writer_uuid: &'a str,
    split: &'a Split,
    total_buckets: i32,
    level: i32,
    is_pk: bool,
    /// Sequence number range of the rewritten files (append files record it).
    seq_range: Vec<i64>,
}

impl Output<'_> {
    /// Writes `rows` (the table's columns, then `_SEQUENCE_NUMBER` and `_VALUE_KIND` for
    /// primary-key tables) as files of `target-file-size`: data files, or changelog files.
    async fn write(
        &self,
        rows: &RecordBatch,
        changelog: bool,
        change: &mut CompactChange,
    ) -> Result<()> {
        let value_columns = self.layout.value_columns();
        let is_pk = self.is_pk;
        let per_file = self
            .layout
            .rows_per_file(&rows.columns()[..value_columns], rows.num_rows())?;
        let mut offset = 0;
        while offset < rows.num_rows() {
            let len = per_file.min(rows.num_rows() - offset);
            let chunk = rows.slice(offset, len);
            offset += len;
            let values: Vec<ArrayRef> = chunk.columns()[..value_columns].to_vec();
            let (sequences, kinds, min_key, max_key) = if is_pk {
                let seq = chunk.column(value_columns).as_primitive::<Int64Type>();
                let kind = chunk.column(value_columns + 1).as_primitive::<Int8Type>();
                (
                    seq.values().to_vec(),
                    kind.values().to_vec(),
                    self.layout.key_row(&values, 0)?,
                    self.layout.key_row(&values, len - 1)?,
                )
            } else {
                (self.seq_range.clone(), Vec::new(), empty_row(), empty_row())
            };
            let file = FileRows {
                partition: self.split.partition.clone(),
                partition_bytes: self.split.partition_bytes.clone(),
                bucket: self.split.bucket,
                total_buckets: self.total_buckets,
                level: self.level,
                values,
                sequences,
                kinds,
                min_key,
                max_key,
            };
            // Data and changelog files share the writer's name counter, as in Java.
            let n = change.after.len() + change.changelog.len();
            let (table, layout, uuid) = (self.table, self.layout, self.writer_uuid);
            if changelog {
                let f = write_changelog_file(table, layout, uuid, n, file).await?;
                change.changelog.push(f);
            } else {
                change
                    .after
                    .push(write_file(table, layout, uuid, n, file).await?);
            }
        }
        Ok(())
    }
}

/// Best effort: the files of an abandoned compaction are never referenced.
async fn remove_files(table: &Table, files: &[NewFile]) {
    for f in files {
        if let Ok(path) = table.data_file_path(&f.partition, f.bucket, &f.file) {
            let _ = table.store().delete(&path).await;
        }
    }
}

/// The top level of the LSM tree (`num-levels - 1`; `num-levels` defaults to
/// `num-sorted-run.compaction-trigger` + 1, as in Paimon's `CoreOptions.numLevels`).
pub(crate) fn max_level(schema: &TableSchema) -> Result<i32> {
    let int = |key: &str| -> Result<Option<i32>> {
        schema
            .options
            .get(key)
            .map(|v| {
                v.trim()
                    .parse()
                    .map_err(|_| Error::Invalid(format!("{key} '{v}' is not an integer")))
            })
            .transpose()
    };
    let levels = match int("num-levels")? {
        Some(levels) => levels,
        None => int("num-sorted-run.compaction-trigger")?.unwrap_or(DEFAULT_COMPACTION_TRIGGER) + 1,
    };
    if levels < 2 {
        return Err(Error::Invalid(format!(
            "num-levels {levels}: a compacted LSM tree needs at least 2 levels"
        )));
    }
    Ok(levels - 1)
}

/// All rows of `batches` in one batch (`None` when there is none).
fn concat(batches: &[RecordBatch]) -> Result<Option<RecordBatch>> {
    let Some(first) = batches.first() else {
        return Ok(None);
    };
    let batch = arrow_select::concat::concat_batches(&first.schema(), batches)
        .map_err(|e| Error::Invalid(format!("compaction: concatenating rows: {e}")))?;
    Ok((batch.num_rows() > 0).then_some(batch))
}
