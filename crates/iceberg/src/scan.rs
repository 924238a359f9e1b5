//! Reading a table at a point in time into Arrow batches of the snapshot's schema.

use crate::convert::{to_data_fields, uuid_to_text};
use crate::plan::{plan, FileTask};
use crate::read::{read_task, DeleteCache};
use crate::spec::{NestedField, Schema, Type};
use crate::table::{SnapshotSelector, Table};
use crate::{Error, Result};
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema, SchemaRef};
use lakescope_format::read::to_arrow_field;
use lakescope_format::spec::DataField;
use std::collections::VecDeque;
use std::sync::Arc;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// Only these columns (by name, in this order).
    pub columns: Option<Vec<String>>,
    /// Stop after this many rows.
    pub limit: Option<usize>,
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ReadOutput {
    /// The Arrow schema of the rows: the requested columns in order (all columns of the read
    /// schema when none were asked for), UUID columns as canonical text.
    pub schema: SchemaRef,
    /// The rows, with deletes applied.
    pub batches: Vec<RecordBatch>,
}

/// The Arrow schema of rows read with `schema` (UUID columns as canonical text).
pub fn output_schema(table: &Table, schema: &Schema) -> Result<SchemaRef> {
    let fields = read_fields(table, schema)?;
    Ok(Arc::new(ArrowSchema::new(
        schema
            .fields
            .iter()
            .zip(&fields)
            .map(|(f, d)| output_field(&f.field_type, d))
            .collect::<Vec<_>>(),
    )))
}

fn output_field(t: &Type, d: &DataField) -> Field {
    let f = to_arrow_field(d);
    match t {
        Type::Uuid => f.with_data_type(ArrowType::Utf8),
        t if is_unknown(t) => f.with_data_type(ArrowType::Null),
        _ => f,
    }
}

/// The v3 `unknown` type: always null, never written to data files.
fn is_unknown(t: &Type) -> bool {
    matches!(t, Type::Other(name) if name == "unknown")
}

/// The read field of a top-level column; a type this reader cannot decode is refused by name.
/// `unknown` columns are decoded as (absent, so null) booleans and output as Arrow nulls.
pub(crate) fn read_field(table: &Table, field: &NestedField) -> Result<DataField> {
    if is_unknown(&field.field_type) && !field.required {
        return Ok(DataField {
            id: field.id,
            name: field.name.clone(),
            data_type: lakescope_format::spec::DataType::nullable(
                lakescope_format::spec::TypeKind::Boolean,
            ),
            description: field.doc.clone(),
        });
    }
    to_data_fields(std::slice::from_ref(field))
        .and_then(|mut v| v.pop())
        .ok_or_else(|| {
            Error::unsupported(
                table.metadata_key(),
                format!(
                    "column '{}' of type {}: {}",
                    field.name,
                    field.field_type.to_json(),
                    unsupported_type_feature(&field.field_type)
                ),
            )
        })
}

/// What an undecodable type is, for the refusal.
fn unsupported_type_feature(t: &Type) -> String {
    let mut names = Vec::new();
    fn walk(t: &Type, out: &mut Vec<String>) {
        match t {
            Type::Other(n) => out.push(n.clone()),
            Type::Struct(fields) => fields.iter().for_each(|f| walk(&f.field_type, out)),
            Type::List { element, .. } => walk(element, out),
            Type::Map { key, value, .. } => {
                walk(key, out);
                walk(value, out);
            }
            _ => {}
        }
    }
    walk(t, &mut names);
    let what = |n: &str| -> String {
        if n == "variant" {
            "the Iceberg v3 variant type is not supported".into()
        } else if n.starts_with("geometry") || n.starts_with("geography") {
            format!("the Iceberg v3 geospatial type {n} is not supported")
        } else if n == "unknown" {
            "the Iceberg v3 unknown type is only supported as an optional top-level column".into()
        } else {
            format!("unknown type {n}")
        }
    };
    names
        .first()
        .map(|n| what(n))
        .unwrap_or_else(|| "type not supported".into())
}

pub(crate) fn read_fields(table: &Table, schema: &Schema) -> Result<Vec<DataField>> {
    schema.fields.iter().map(|f| read_field(table, f)).collect()
}

/// The columns `indices` of the schema out of `batch` (decoded columns `needed`, sorted), UUIDs
/// as text, in `out_schema`.
pub(crate) fn output_batch(
    schema: &Schema,
    out_schema: &SchemaRef,
    indices: &[usize],
    needed: &[usize],
    batch: &RecordBatch,
    key: &str,
) -> Result<RecordBatch> {
    let columns = indices
        .iter()
        .map(|i| {
            let at = needed
                .binary_search(i)
                .map_err(|_| Error::Invalid(format!("column {i} was not decoded")))?;
            let c = batch.column(at).clone();
            if is_unknown(&schema.fields[*i].field_type) {
                Ok(arrow_array::new_null_array(&ArrowType::Null, c.len()))
            } else if schema.fields[*i].field_type == Type::Uuid {
                uuid_to_text(&c)
                    .ok_or_else(|| Error::corrupt(key, "uuid column is not 16-byte binary"))
            } else {
                Ok(c)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new_with_options(
        out_schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )
    .map_err(|e| Error::corrupt(key, e))
}

/// A read planned: the live data files of the selected snapshot with the deletes that apply to
/// each, and how a file's decoded rows become output rows. Plain data (`Send`): readers on other
/// threads, each with its own table handle, can read its files ([`PlannedRead::read_file`]).
#[derive(Debug, Clone)]
pub struct PlannedRead {
    /// The read schema (the columns asked for, row-lineage columns included).
    schema: Schema,
    /// The output rows' Arrow schema.
    out_schema: SchemaRef,
    /// The read schema's columns output, in order.
    indices: Vec<usize>,
    /// The read schema's columns decoded (the output's and those equality deletes compare),
    /// sorted.
    needed: Vec<usize>,
    /// The decoded columns as the data file readers take them.
    task_fields: Vec<DataField>,
    /// One task per live data file, in manifest order.
    tasks: Vec<FileTask>,
}

impl PlannedRead {
    /// Plans the read of the snapshot `at` selects: the current snapshot and the head of a
    /// branch with the table's current schema, a snapshot named by id, time or tag with its own
    /// ([`Table::read_schema_at`], Java's `SnapshotUtil.schemaFor`). `request.limit` is the
    /// reader's to apply ([`PlannedRows`]).
    pub async fn plan(table: &Table, at: &SnapshotSelector, request: &ReadRequest) -> Result<Self> {
        let snapshot = table.snapshot(at)?;
        // A branch reads with the current schema (columns added or renamed since its last
        // commit show); time travel to a fixed snapshot with the schema of that snapshot.
        let schema = table.read_schema_at(at)?;
        let schema = crate::lineage::with_requested(
            table.metadata().format_version,
            schema,
            request.columns.as_deref(),
        )
        .into_owned();
        let indices: Vec<usize> = match &request.columns {
            Some(cols) => cols
                .iter()
                .map(|c| {
                    schema
                        .fields
                        .iter()
                        .position(|f| &f.name == c)
                        .ok_or_else(|| Error::Invalid(format!("unknown column '{c}'")))
                })
                .collect::<Result<_>>()?,
            None => (0..schema.fields.len()).collect(),
        };
        // Only the selected columns must be readable (a column of an unsupported type can be
        // left out).
        let out_schema = Arc::new(ArrowSchema::new(
            indices
                .iter()
                .map(|i| {
                    let f = &schema.fields[*i];
                    Ok(output_field(&f.field_type, &read_field(table, f)?))
                })
                .collect::<Result<Vec<_>>>()?,
        ));
        let tasks = match snapshot {
            Some(snapshot) => plan(table, snapshot).await?.tasks,
            None => Vec::new(),
        };
        // Decode only the selected columns and those equality deletes compare.
        let mut needed = indices.clone();
        for task in &tasks {
            for d in &task.equality_deletes {
                for id in &d.file.equality_ids {
                    if let Some(i) = schema.fields.iter().position(|f| f.id == *id) {
                        needed.push(i);
                    }
                }
            }
        }
        needed.sort_unstable();
        needed.dedup();
        let task_fields: Vec<DataField> = needed
            .iter()
            .map(|i| read_field(table, &schema.fields[*i]))
            .collect::<Result<_>>()?;
        Ok(Self {
            schema,
            out_schema,
            indices,
            needed,
            task_fields,
            tasks,
        })
    }

    /// The Arrow schema of the rows: the requested columns in order (all columns of the read
    /// schema when none were asked for), UUID columns as canonical text.
    pub fn schema(&self) -> &SchemaRef {
        &self.out_schema
    }

    /// The data files to read, each with its deletes, in the order a read yields their rows.
    pub fn files(&self) -> &[FileTask] {
        &self.tasks
    }

    /// The rows of data file `index` of [`PlannedRead::files`] read through `table` (a handle of
    /// the table planned, possibly opened on another thread), deletes applied; `cache` keeps the
    /// delete files already read. Batches without rows are left out.
    pub async fn read_file(
        &self,
        table: &Table,
        index: usize,
        cache: &mut DeleteCache,
    ) -> Result<Vec<RecordBatch>> {
        let task = self.tasks.get(index).ok_or_else(|| {
            Error::Invalid(format!(
                "data file {index} is not in this read's plan ({} files)",
                self.tasks.len()
            ))
        })?;
        read_task(table, task, &self.task_fields, cache)
            .await?
            .iter()
            .filter(|batch| batch.num_rows() > 0)
            .map(|batch| {
                output_batch(
                    &self.schema,
                    &self.out_schema,
                    &self.indices,
                    &self.needed,
                    batch,
                    &task.data.key,
                )
            })
            .collect()
    }
}

/// The rows of a planned read, data file by data file (a file is fetched and decoded when the
/// rows before it have been taken), up to a limit.
pub struct PlannedRows<'a> {
    table: &'a Table,
    plan: PlannedRead,
    /// The next data file to read.
    next_file: usize,
    /// The read file's batches not taken yet.
    pending: VecDeque<RecordBatch>,
    /// Rows handed out so far.
    rows: usize,
    limit: Option<usize>,
    cache: DeleteCache,
}

impl<'a> PlannedRows<'a> {
    /// Reads `plan` through `table`, at most `limit` rows.
    pub fn new(table: &'a Table, plan: PlannedRead, limit: Option<usize>) -> Self {
        Self {
            table,
            plan,
            next_file: 0,
            pending: VecDeque::new(),
            rows: 0,
            limit,
            cache: DeleteCache::default(),
        }
    }

    /// The Arrow schema of the rows.
    pub fn schema(&self) -> &SchemaRef {
        self.plan.schema()
    }

    /// Data files of the read in all.
    pub fn total_files(&self) -> usize {
        self.plan.tasks.len()
    }

    /// Data files not read yet.
    pub fn remaining_files(&self) -> usize {
        self.plan.tasks.len() - self.next_file
    }

    /// Every remaining batch.
    pub async fn read_all(mut self) -> Result<Vec<RecordBatch>> {
        let mut batches = Vec::new();
        while let Some(batch) = self.next_batch().await {
            batches.push(batch?);
        }
        Ok(batches)
    }

    /// The next batch of rows (`None`: the read is over, or the limit reached).
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.limit.is_some_and(|l| self.rows >= l) {
                return None;
            }
            if let Some(mut batch) = self.pending.pop_front() {
                if let Some(limit) = self.limit {
                    batch = batch.slice(0, (limit - self.rows).min(batch.num_rows()));
                }
                self.rows += batch.num_rows();
                return Some(Ok(batch));
            }
            if self.next_file >= self.plan.tasks.len() {
                return None;
            }
            let index = self.next_file;
            self.next_file += 1;
            match self
                .plan
                .read_file(self.table, index, &mut self.cache)
                .await
            {
                Ok(batches) => self.pending.extend(batches),
                Err(e) => {
                    // the read is over after an error
                    self.next_file = self.plan.tasks.len();
                    return Some(Err(e));
                }
            }
        }
    }
}

/// Reads the rows of the selected snapshot, deletes applied, as [`PlannedRead::plan`] plans them.
pub async fn read(
    table: &Table,
    at: &SnapshotSelector,
    request: &ReadRequest,
) -> Result<ReadOutput> {
    let plan = PlannedRead::plan(table, at, request).await?;
    let schema = plan.schema().clone();
    let batches = PlannedRows::new(table, plan, request.limit)
        .read_all()
        .await?;
    Ok(ReadOutput { schema, batches })
}
