//! Writes that take files out: INSERT OVERWRITE (dynamic partition replace), copy-on-write
//! rewrites of data files (DELETE / UPDATE), and upserts by identifier fields (UPDATE).

use super::append::Plan;
use super::commit::{commit, load_latest, Removal};
use crate::plan::{plan, FileTask};
use crate::read::{read_task, DeleteCache};
use crate::scan::{output_batch, output_schema, read_fields};
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use lakescope_format::write_env::WriteEnv;
use std::collections::BTreeSet;

/// INSERT OVERWRITE as Iceberg's Flink sink does it: the rows replace every file of the
/// partitions (of the default spec) they land in; an unpartitioned table is replaced whole.
/// No rows: nothing is committed. Upsert tables refuse it with the Flink sink's message.
pub async fn overwrite(
    table: &Table,
    batches: &[RecordBatch],
    env: &dyn WriteEnv,
) -> Result<Table> {
    let latest = load_latest(table).await?;
    let plan = Plan::new(&latest)?;
    if plan.upserts() {
        return Err(Error::Invalid(
            "OVERWRITE mode shouldn't be enable when configuring to use UPSERT data stream.".into(),
        ));
    }
    let written = plan.write(batches, env).await?;
    if written.data.is_empty() {
        return Ok(latest);
    }
    let removal = if plan.fields.is_empty() {
        Removal::All
    } else {
        let mut tuples = Vec::new();
        for f in &written.data {
            if !tuples.contains(&f.partition) {
                tuples.push(f.partition.clone());
            }
        }
        Removal::Partitions {
            spec_id: latest.metadata().default_spec_id.unwrap_or(0),
            tuples,
        }
    };
    commit(&latest, plan.schema, &plan.fields, &written, &removal, env).await
}

/// The live data files of a table's latest metadata, to be read (deletes applied) with
/// [`LiveFiles::read`] and rewritten with [`LiveFiles::replace`].
pub struct LiveFiles {
    /// The table at the metadata the files were planned from.
    pub table: Table,
    /// The current snapshot's data files, each with the delete files that apply to it (empty
    /// for a table without snapshots).
    pub tasks: Vec<FileTask>,
}

impl LiveFiles {
    /// The live data files of the current snapshot of the latest metadata.
    pub async fn of(table: &Table) -> Result<Self> {
        let latest = load_latest(table).await?;
        let tasks = match latest.metadata().current_snapshot() {
            Some(s) => plan(&latest, s).await?.tasks,
            None => Vec::new(),
        };
        Ok(LiveFiles {
            table: latest,
            tasks,
        })
    }

    /// The rows of one file in the current schema (as [`crate::read_table`] gives them),
    /// its position and equality deletes applied (delete files decoded once per `cache`).
    pub async fn read(&self, task: &FileTask, cache: &mut DeleteCache) -> Result<Vec<RecordBatch>> {
        let table = &self.table;
        let schema = table
            .metadata()
            .current_schema()
            .ok_or_else(|| Error::corrupt(table.metadata_key(), "no current schema"))?;
        let fields = read_fields(table, schema)?;
        let out_schema = output_schema(table, schema)?;
        let all: Vec<usize> = (0..fields.len()).collect();
        read_task(table, task, &fields, cache)
            .await?
            .iter()
            .map(|b| output_batch(schema, &out_schema, &all, &all, b, &task.data.key))
            .collect()
    }

    /// Replaces the data files `removed` (of these live files) by the rows of `batches` in
    /// one snapshot (operation `delete` when there are no rows, else `overwrite`): a
    /// copy-on-write rewrite. The new files carry no equality deletes, even on upsert tables
    /// (their rows were read with the deletes applied). A conflict if another commit removed
    /// one of the files or added delete files since they were planned.
    pub async fn replace(
        &self,
        removed: &[&FileTask],
        batches: &[RecordBatch],
        env: &dyn WriteEnv,
    ) -> Result<Table> {
        if removed.is_empty() && batches.iter().all(|b| b.num_rows() == 0) {
            return Ok(self.table.clone());
        }
        let plan = Plan::new(&self.table)?.plain();
        let written = plan.write(batches, env).await?;
        let removal = Removal::Files {
            keys: removed
                .iter()
                .map(|t| t.data.key.clone())
                .collect::<BTreeSet<_>>(),
            read_at: self.table.metadata().current_snapshot_id,
        };
        commit(
            &self.table,
            plan.schema,
            &plan.fields,
            &written,
            &removal,
            env,
        )
        .await
    }
}

/// Writes `batches` as an upsert by the table's identifier fields (equality deletes of their
/// keys plus the rows, one snapshot), whether or not the table sets `write.upsert.enabled`:
/// UPDATE on a table with identifier fields, as Flink's upsert writer would emit it.
pub async fn upsert(table: &Table, batches: &[RecordBatch], env: &dyn WriteEnv) -> Result<Table> {
    let latest = load_latest(table).await?;
    let plan = Plan::new(&latest)?.upserting()?;
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
