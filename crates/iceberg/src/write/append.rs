//! INSERT into a table: data files plus, in upsert mode, equality deletes of their keys.

use super::commit::{commit, load_latest, Removal, Written};
use super::data::{compression, conform, encode_parquet, file_schema};
use super::definition::{
    DEFAULT_FILE_FORMAT, PARQUET_COMPRESSION, TARGET_FILE_SIZE, UPSERT_ENABLED,
};
use super::manifest::NewFile;
use super::partition::{partition_path, spec_fields, split, PartitionTuple, SpecField};
use super::stats::column_stats;
use crate::spec::{DataContentType, NestedField, Schema, TableMetadata};
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::{RecordBatch, UInt32Array};
use arrow_row::{RowConverter, SortField};
use arrow_select::concat::concat_batches;
use arrow_select::take::take_record_batch;
use lakescope_format::write_env::WriteEnv;
use lakescope_storage::join;
use std::collections::{BTreeMap, HashSet};

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
    for f in &spec.fields {
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

/// Indices (among the top-level fields) of the schema's identifier fields.
fn identifier_indices(schema: &Schema) -> Vec<usize> {
    schema
        .identifier_field_ids
        .iter()
        .filter_map(|id| schema.fields.iter().position(|f| f.id == *id))
        .collect()
}

/// Rows of one partition to write.
struct PartitionRows {
    tuple: PartitionTuple,
    batches: Vec<RecordBatch>,
}

/// Settings of one write, from the table metadata.
pub(super) struct Plan<'a> {
    table: &'a Table,
    metadata: &'a TableMetadata,
    pub(super) schema: &'a Schema,
    pub(super) fields: Vec<SpecField>,
    /// Indices (in the schema) of the equality fields when upserting.
    key_indices: Option<Vec<usize>>,
    codec: parquet::basic::Compression,
    target_size: u64,
}

impl<'a> Plan<'a> {
    /// The settings of a write to the table at `latest` (its current schema and default spec).
    pub(super) fn new(latest: &'a Table) -> Result<Self> {
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
            Some(identifier_indices(schema))
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
        let codec = metadata
            .properties
            .get(PARQUET_COMPRESSION)
            .map_or("zstd", String::as_str);
        Ok(Plan {
            table: latest,
            metadata,
            schema,
            fields: spec_fields(name, schema, spec)?,
            key_indices,
            codec: compression(codec)?,
            target_size,
        })
    }

    /// Whether the write upserts (equality deletes of the written keys).
    pub(super) fn upserts(&self) -> bool {
        self.key_indices.is_some()
    }

    /// The plan without upserting: rows rewritten from existing files need no equality deletes.
    pub(super) fn plain(mut self) -> Self {
        self.key_indices = None;
        self
    }

    /// The plan upserting by the identifier fields, whatever the table's `write.upsert.enabled`.
    pub(super) fn upserting(mut self) -> Result<Self> {
        check_upsert(self.metadata, self.schema)?;
        self.key_indices = Some(identifier_indices(self.schema));
        Ok(self)
    }

    /// Writes the rows of `batches` as files of their partitions (not yet committed).
    pub(super) async fn write(
        &self,
        batches: &[RecordBatch],
        env: &dyn WriteEnv,
    ) -> Result<Written> {
        let mut parts: BTreeMap<String, PartitionRows> = BTreeMap::new();
        for batch in batches {
            let rows = conform(self.name(), self.schema, batch)?;
            for (tuple, part) in split(&rows, &self.fields)? {
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
        self.write_files(parts.into_values().collect(), env).await
    }

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
                stats: column_stats(fields, &rows),
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
    let latest = load_latest(table).await?;
    let plan = Plan::new(&latest)?;
    let written = plan.write(batches, env).await?;
    if written.data.is_empty() {
        return Ok(latest);
    }
    commit(
        &latest,
        plan.schema,
        &plan.fields,
        &written,
        &Removal::Nothing,
        env,
    )
    .await
}
