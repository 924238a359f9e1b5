//! INSERT into a table: data files (plus equality deletes in upsert mode) in one snapshot,
//! committed as the next `v<N>.metadata.json` with put-if-absent, retried on conflicts.

use super::catalog::{latest_metadata, write_metadata};
use super::data::{compression, conform, encode_parquet, file_schema};
use super::definition::{
    DEFAULT_FILE_FORMAT, PARQUET_COMPRESSION, TARGET_FILE_SIZE, UPSERT_ENABLED,
};
use super::manifest::{
    encode_manifest, encode_manifest_list, ListContext, ManifestContext, NewFile,
};
use super::partition::{partition_path, spec_fields, split, PartitionTuple, SpecField};
use crate::spec::manifest::read_manifest_list;
use crate::spec::metadata::{MetadataLogEntry, SnapshotLogEntry};
use crate::spec::{
    DataContentType, ManifestFile, NestedField, Schema, Snapshot, SnapshotRef, TableMetadata,
};
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::{RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_select::concat::concat_batches;
use arrow_select::take::take_record_batch;
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::join;
use std::collections::{BTreeMap, HashSet};

/// Commit attempts before a conflict is reported.
const COMMIT_ATTEMPTS: u32 = 4;
/// Java's default `write.target-file-size-bytes` (512 MiB).
const DEFAULT_TARGET_FILE_SIZE: u64 = 512 * 1024 * 1024;

/// Whether the table upserts by its identifier fields (`write.upsert.enabled=true`).
pub fn upsert_enabled(metadata: &TableMetadata) -> bool {
    metadata
        .properties
        .get(UPSERT_ENABLED)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Checks what Iceberg's Flink sink checks before an upsert write, with its messages: the
/// equality (identifier) fields are set and hold every partition source column.
pub fn check_upsert(metadata: &TableMetadata, schema: &Schema) -> Result<()> {
    let ids = &schema.identifier_field_ids;
    if ids.is_empty() {
        return Err(Error::Invalid(
            "Equality field columns shouldn't be empty when configuring to use UPSERT data stream."
                .into(),
        ));
    }
    let spec_id = metadata.default_spec_id.unwrap_or(0);
    let Some(spec) = metadata.spec(spec_id) else {
        return Ok(());
    };
    let names: Vec<&str> = ids
        .iter()
        .filter_map(|id| schema.field(*id).map(|f| f.name.as_str()))
        .collect();
    for f in spec.fields.iter().filter(|f| f.transform != "void") {
        if !ids.contains(&f.source_id) {
            let column = schema
                .field(f.source_id)
                .map_or("null", |c| c.name.as_str());
            return Err(Error::Invalid(format!(
                "In UPSERT mode, source column '{column}' of partition field '{}: {}: {}({})', \
                 should be included in equality fields: '[{}]'",
                f.field_id.unwrap_or(1000),
                f.name,
                f.transform,
                f.source_id,
                names.join(", ")
            )));
        }
    }
    Ok(())
}

/// Keeps the last row of each key (the key columns at `key_indices`), in row order.
fn last_per_key(table: &str, batch: &RecordBatch, key_indices: &[usize]) -> Result<RecordBatch> {
    let err = |e: arrow_schema::ArrowError| Error::Invalid(format!("{table}: upsert keys: {e}"));
    let columns: Vec<_> = key_indices
        .iter()
        .map(|i| batch.column(*i).clone())
        .collect();
    let fields = columns
        .iter()
        .map(|c| SortField::new(c.data_type().clone()))
        .collect();
    let rows = RowConverter::new(fields)
        .and_then(|c| c.convert_columns(&columns))
        .map_err(err)?;
    let mut seen = HashSet::new();
    let mut keep: Vec<u32> = (0..rows.num_rows())
        .rev()
        .filter(|i| seen.insert(rows.row(*i).as_ref().to_vec()))
        .filter_map(|i| u32::try_from(i).ok())
        .collect();
    if keep.len() == batch.num_rows() {
        return Ok(batch.clone());
    }
    keep.reverse();
    take_record_batch(batch, &UInt32Array::from(keep)).map_err(err)
}

/// Rows of one partition to write.
struct PartitionRows {
    tuple: PartitionTuple,
    batches: Vec<RecordBatch>,
}

/// Files written for one commit (not yet visible).
struct Written {
    data: Vec<NewFile>,
    deletes: Vec<NewFile>,
}

/// Settings of one write, from the table metadata.
struct Plan<'a> {
    table: &'a Table,
    metadata: &'a TableMetadata,
    schema: &'a Schema,
    fields: Vec<SpecField>,
    /// Indices (in the schema) of the equality fields when upserting.
    key_indices: Option<Vec<usize>>,
    codec: parquet::basic::Compression,
    target_size: u64,
}

impl Plan<'_> {
    fn name(&self) -> &str {
        self.table.key()
    }

    async fn put_file(
        &self,
        env: &dyn WriteEnv,
        tuple: &PartitionTuple,
        suffix: &str,
        batch: &RecordBatch,
        fields: &[NestedField],
        content: DataContentType,
    ) -> Result<Vec<NewFile>> {
        let mut dir = String::from("data");
        if !self.fields.is_empty() {
            dir = join(&dir, &partition_path(&self.fields, tuple));
        }
        let target = if content == DataContentType::Data {
            self.target_size
        } else {
            u64::MAX
        };
        let operation = env.uuid();
        let files = encode_parquet(self.name(), batch, self.codec, target)?;
        let mut out = Vec::with_capacity(files.len());
        for (n, (bytes, rows)) in files.into_iter().enumerate() {
            let name = format!("00000-0-{operation}-{:05}{suffix}.parquet", n + 1);
            let rel = join(&dir, &name);
            let size = bytes.len() as i64;
            self.table
                .store()
                .put(&join(self.table.key(), &rel), bytes.into())
                .await?;
            out.push(NewFile {
                content,
                path: format!("{}/{rel}", self.metadata.location.trim_end_matches('/')),
                partition: tuple.clone(),
                record_count: rows.num_rows() as i64,
                file_size_in_bytes: size,
                equality_ids: if content == DataContentType::EqualityDeletes {
                    fields.iter().map(|f| f.id).collect()
                } else {
                    Vec::new()
                },
            });
        }
        Ok(out)
    }

    /// Writes the data files (and equality deletes of their keys when upserting).
    async fn write_files(&self, parts: Vec<PartitionRows>, env: &dyn WriteEnv) -> Result<Written> {
        let mut written = Written {
            data: Vec::new(),
            deletes: Vec::new(),
        };
        let file_schema = file_schema(&self.schema.fields)?;
        for part in parts {
            let mut rows = concat_batches(&file_schema, &part.batches)
                .map_err(|e| Error::Invalid(format!("{}: {e}", self.name())))?;
            if rows.num_rows() == 0 {
                continue;
            }
            if let Some(keys) = &self.key_indices {
                rows = last_per_key(self.name(), &rows, keys)?;
                let key_fields: Vec<NestedField> = keys
                    .iter()
                    .map(|i| self.schema.fields[*i].clone())
                    .collect();
                let key_rows = rows
                    .project(keys)
                    .map_err(|e| Error::Invalid(format!("{}: {e}", self.name())))?;
                let deletes = self
                    .put_file(
                        env,
                        &part.tuple,
                        "-eq-deletes",
                        &key_rows,
                        &key_fields,
                        DataContentType::EqualityDeletes,
                    )
                    .await?;
                written.deletes.extend(deletes);
            }
            let data = self
                .put_file(
                    env,
                    &part.tuple,
                    "",
                    &rows,
                    &self.schema.fields,
                    DataContentType::Data,
                )
                .await?;
            written.data.extend(data);
        }
        Ok(written)
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

/// The snapshot summary: what was added and the running totals (as Java's `SnapshotSummary`).
fn summary(parent: Option<&Snapshot>, written: &Written) -> BTreeMap<String, String> {
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
    let operation = if written.deletes.is_empty() {
        "append"
    } else {
        "overwrite"
    };
    let mut s = BTreeMap::new();
    let mut put = |k: &str, v: i64| {
        s.insert(k.to_string(), v.to_string());
    };
    put("added-data-files", written.data.len() as i64);
    put("added-records", added_records);
    put("added-files-size", added_size);
    if !written.deletes.is_empty() {
        put("added-delete-files", written.deletes.len() as i64);
        put("added-equality-delete-files", written.deletes.len() as i64);
        put("added-equality-deletes", added_eq_deletes);
    }
    put("changed-partition-count", partitions.len() as i64);
    put(
        "total-records",
        counter(before, "total-records") + added_records,
    );
    put(
        "total-files-size",
        counter(before, "total-files-size") + added_size,
    );
    put(
        "total-data-files",
        counter(before, "total-data-files") + written.data.len() as i64,
    );
    put(
        "total-delete-files",
        counter(before, "total-delete-files") + written.deletes.len() as i64,
    );
    put(
        "total-position-deletes",
        counter(before, "total-position-deletes"),
    );
    put(
        "total-equality-deletes",
        counter(before, "total-equality-deletes") + added_eq_deletes,
    );
    s.insert("operation".into(), operation.into());
    s
}

/// Writes the manifests of the new files (once; entries inherit sequence numbers).
async fn write_manifests(
    plan: &Plan<'_>,
    written: &Written,
    snapshot_id: i64,
    env: &dyn WriteEnv,
) -> Result<Vec<ManifestFile>> {
    let spec_id = plan.metadata.default_spec_id.unwrap_or(0);
    let spec = plan.metadata.spec(spec_id).ok_or_else(|| {
        Error::corrupt(
            plan.table.metadata_key(),
            format!("no partition spec {spec_id}"),
        )
    })?;
    let ctx = ManifestContext {
        schema: plan.schema,
        spec,
        fields: &plan.fields,
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
        plan.table
            .store()
            .put(&join(plan.table.key(), &rel), bytes.into())
            .await?;
        out.push(ManifestFile {
            manifest_path: format!("{}/{rel}", plan.metadata.location.trim_end_matches('/')),
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

/// The latest metadata of the table (by listing: the version hint may lag) and its version.
async fn load_latest(table: &Table) -> Result<(u64, Table)> {
    let (version, key) = latest_metadata(table.store().as_ref(), table.key())
        .await?
        .ok_or_else(|| Error::not_found(format!("Iceberg metadata of {}", table.key()), None))?;
    let bytes = table.store().get(&key).await?;
    let metadata = TableMetadata::parse(&key, &bytes)?;
    Ok((
        version,
        Table::from_metadata(table.store().clone(), table.key(), key, metadata),
    ))
}

/// Commits the new manifests as a snapshot on top of the latest metadata; `Ok(None)` if
/// another writer took the next version first.
async fn try_commit(
    base_version: u64,
    base: &Table,
    schema_id: i32,
    new_manifests: &[ManifestFile],
    written: &Written,
    snapshot_id: i64,
    env: &dyn WriteEnv,
) -> Result<Option<Table>> {
    let meta = base.metadata();
    if meta.current_schema_id != Some(schema_id) {
        return Err(Error::Conflict {
            table: base.key().to_string(),
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
    if let Some(p) = parent {
        manifests.extend(snapshot_manifests(base, p).await?);
    }
    let location = meta.location.trim_end_matches('/');
    let list_rel = format!(
        "metadata/snap-{snapshot_id}-{base_version}-{}.avro",
        env.uuid()
    );
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
        summary: summary(parent, written),
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
    let version = base_version + 1;
    match write_metadata(base.store().as_ref(), base.key(), version, &next).await {
        Ok(key) => Ok(Some(Table::from_metadata(
            base.store().clone(),
            base.key(),
            key,
            next,
        ))),
        Err(Error::Conflict { .. }) => {
            // The manifest list names this attempt's parent: drop it, the next attempt writes its own.
            base.store().delete(&join(base.key(), &list_rel)).await?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Appends `batches` (columns matched to the table schema by name) to the table in one
/// snapshot and returns the table at the new metadata version.
///
/// With `write.upsert.enabled=true` the table must have identifier fields holding every
/// partition source column (else the Flink sink's error), and each insert replaces earlier rows
/// of its keys: one snapshot holds an equality delete file of the keys plus the data file, as
/// Flink's upsert writer does (of duplicate keys within the insert, the last row is kept).
/// Another writer committing first is retried on the latest metadata, then a
/// [`Error::Conflict`]. Only Parquet data files are written.
pub async fn append(table: &Table, batches: &[RecordBatch], env: &dyn WriteEnv) -> Result<Table> {
    let (_, latest) = load_latest(table).await?;
    let metadata = latest.metadata();
    let name = latest.key();
    if metadata.format_version != 2 {
        return Err(Error::unsupported(
            latest.metadata_key(),
            format!(
                "writing to format-version {} tables (only 2)",
                metadata.format_version
            ),
        ));
    }
    if let Some(format) = metadata.properties.get(DEFAULT_FILE_FORMAT) {
        if !format.eq_ignore_ascii_case("parquet") {
            return Err(Error::unsupported(
                name,
                format!("writing {format} data files (only parquet)"),
            ));
        }
    }
    let schema = metadata
        .current_schema()
        .ok_or_else(|| Error::corrupt(latest.metadata_key(), "no current schema"))?;
    let spec_id = metadata.default_spec_id.unwrap_or(0);
    let spec = metadata.spec(spec_id).ok_or_else(|| {
        Error::corrupt(
            latest.metadata_key(),
            format!("no partition spec {spec_id}"),
        )
    })?;
    let key_indices = if upsert_enabled(metadata) {
        check_upsert(metadata, schema)?;
        Some(
            schema
                .identifier_field_ids
                .iter()
                .filter_map(|id| schema.fields.iter().position(|f| f.id == *id))
                .collect(),
        )
    } else {
        None
    };
    let target_size = match metadata.properties.get(TARGET_FILE_SIZE) {
        Some(v) => v.trim().parse().map_err(|_| {
            Error::Invalid(format!(
                "{name}: {TARGET_FILE_SIZE} '{v}' is not a number of bytes"
            ))
        })?,
        None => DEFAULT_TARGET_FILE_SIZE,
    };
    let plan = Plan {
        table: &latest,
        metadata,
        schema,
        fields: spec_fields(name, schema, spec)?,
        key_indices,
        codec: compression(
            metadata
                .properties
                .get(PARQUET_COMPRESSION)
                .map_or("zstd", String::as_str),
        )?,
        target_size,
    };
    let mut parts: BTreeMap<String, PartitionRows> = BTreeMap::new();
    for batch in batches {
        let rows = conform(name, schema, batch)?;
        for (tuple, part) in split(&rows, &plan.fields)? {
            parts
                .entry(format!("{tuple:?}"))
                .or_insert_with(|| PartitionRows {
                    tuple,
                    batches: Vec::new(),
                })
                .batches
                .push(part);
        }
    }
    let written = plan.write_files(parts.into_values().collect(), env).await?;
    if written.data.is_empty() {
        return Ok(latest);
    }
    let snapshot_id = snapshot_id(env, metadata);
    let manifests = write_manifests(&plan, &written, snapshot_id, env).await?;
    let schema_id = schema.schema_id;
    for attempt in 0..COMMIT_ATTEMPTS {
        if attempt > 0 {
            env.sleep(100 << attempt).await;
        }
        let (version, base) = load_latest(table).await?;
        if let Some(done) = try_commit(
            version,
            &base,
            schema_id,
            &manifests,
            &written,
            snapshot_id,
            env,
        )
        .await?
        {
            return Ok(done);
        }
    }
    Err(Error::Conflict {
        table: name.to_string(),
        reason: format!(
            "other writers kept committing first; gave up after {COMMIT_ATTEMPTS} attempts"
        ),
    })
}
