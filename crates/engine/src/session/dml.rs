//! INSERT INTO / OVERWRITE, UPDATE and DELETE: query rows shaped to the target table and committed as one snapshot.

use super::catalogs::{Location, Resolved};
use super::convert::{
    batch, cast_to, enforce_not_null, literal_column, literal_datum, null_column,
};
use super::query::input_name;
use super::{at, Outcome, QueryOutput, Session, StatementError, StatementResult};
use crate::write::{insert_into_table, Overwrite};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use lakescope_paimon::commit::commits_nothing;
use lakescope_paimon::read::arrow_schema::to_arrow_schema;
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::ROW_KIND_COLUMN;
use lakescope_sql::ast::{Insert, InsertSource, OptionEntry, RowLevel};
use lakescope_sql::rewrite::row_level_change;
use lakescope_sql::Pos;
use std::sync::Arc;

/// `_VALUE_KIND` of an upsert (`+U`).
const UPDATE_AFTER: i8 = 2;
/// `_VALUE_KIND` of a delete (`-D`).
const DELETE: i8 = 3;

/// How a query's columns land in a table: by position into `targets` (table column names);
/// the other columns get a static partition value, their default value, or NULL.
pub(super) struct Shape<'a> {
    pub(super) targets: Vec<String>,
    pub(super) statics: &'a [OptionEntry],
}

impl Session {
    /// Opens the Paimon table at a resolved location (Iceberg and connectors are refused).
    pub(super) async fn paimon_table(
        &self,
        r: &Resolved,
        pos: Pos,
        verb: &str,
    ) -> StatementResult<Table> {
        match r.existing(pos)? {
            // a branch (`t$branch_dev`) is opened as one: reads see it, writes are refused
            Location::Paimon(location) => match r.branch() {
                // a REST catalog's table commits through the catalog's snapshot commit
                None => location.clone().open().await.map_err(|e| at(pos, e)),
                Some(b) => Table::open_branch(location.store.clone(), location.path.as_str(), b)
                    .await
                    .map_err(|e| at(pos, e)),
            },
            Location::Iceberg(_) => Err(StatementError::new(
                pos,
                format!("{verb} {} (an Iceberg table) is not supported yet", r.qualified()),
            )),
            Location::Connector(c) => Err(StatementError::new(
                pos,
                format!(
                    "{verb} {} needs a Flink cluster: its connector '{c}' is a sink lakescope cannot run",
                    r.qualified()
                ),
            )),
        }
    }

    /// The rows of `out` as the table's columns (cast, defaults, NOT NULL enforced).
    pub(super) fn shape_rows(
        &self,
        out: &QueryOutput,
        schema: &TableSchema,
        shape: &Shape<'_>,
        table_name: &str,
        pos: Pos,
    ) -> StatementResult<Vec<RecordBatch>> {
        let query_columns = out.schema.fields().len();
        if query_columns != shape.targets.len() {
            let query: Vec<String> = out
                .schema
                .fields()
                .iter()
                .map(|f| format!("{}: {}", f.name(), f.data_type()))
                .collect();
            return Err(StatementError::new(
                pos,
                format!(
                    "Column types of query result and sink for '{table_name}' do not match. Cause: Different number of columns. Query schema: [{}] ({query_columns} columns); sink columns to fill: [{}]",
                    query.join(", "),
                    shape.targets.join(", ")
                ),
            ));
        }
        for t in &shape.targets {
            if !schema.fields.iter().any(|f| &f.name == t) {
                return Err(StatementError::new(
                    pos,
                    format!("Unknown target column '{t}' of table {table_name}"),
                ));
            }
        }
        let drop_nulls = self
            .options
            .get("table.exec.sink.not-null-enforcer")
            .is_some_and(|v| v.eq_ignore_ascii_case("drop"));
        let options = &schema.options;
        let arrow_schema = to_arrow_schema(&schema.fields);
        let mut batches = Vec::new();
        for b in &out.batches {
            let rows = b.num_rows();
            let mut columns = Vec::new();
            for f in &schema.fields {
                let column = if let Some(k) = shape.targets.iter().position(|t| t == &f.name) {
                    cast_to(b.column(k), &f.data_type, &f.name, pos)?
                } else if let Some(s) = shape.statics.iter().find(|s| s.key == f.name) {
                    literal_column(&s.value, rows, &f.data_type, &f.name, s.value_pos)?
                } else if let Some(d) = options.get(&format!("fields.{}.default-value", f.name)) {
                    literal_column(d, rows, &f.data_type, &f.name, pos)?
                } else {
                    null_column(&f.data_type, rows)
                };
                columns.push(column);
            }
            let columns = enforce_not_null(columns, &schema.fields, table_name, drop_nulls, pos)?;
            batches.push(batch(arrow_schema.clone(), columns, pos)?);
        }
        Ok(batches)
    }

    /// The rows an INSERT writes (its VALUES or its query, run), shaped to the table: its
    /// column list, or every column but the static `PARTITION (c = v)` ones, in order.
    pub(super) async fn insert_rows(
        &self,
        i: &Insert,
        schema: &TableSchema,
        table_name: &str,
        pos: Pos,
    ) -> StatementResult<Vec<RecordBatch>> {
        let out = match &i.source {
            InsertSource::Values { text, .. } => self.query_text(text, pos).await,
            InsertSource::Select(q) => self.query(q, pos).await,
        }?;
        let targets: Vec<String> = if i.columns.is_empty() {
            schema
                .fields
                .iter()
                .filter(|f| !i.partition.iter().any(|p| p.key == f.name))
                .map(|f| f.name.clone())
                .collect()
        } else {
            i.columns.iter().map(|c| c.name.clone()).collect()
        };
        let shape = Shape {
            targets,
            statics: &i.partition,
        };
        self.shape_rows(&out, schema, &shape, table_name, pos)
    }

    /// INSERT INTO / INSERT OVERWRITE.
    pub(super) async fn insert(&mut self, i: &Insert, pos: Pos) -> StatementResult<Outcome> {
        let target = self.resolve(&i.table).await?;
        let verb = if i.overwrite {
            "INSERT OVERWRITE"
        } else {
            "INSERT INTO"
        };
        target.refuse_non_main(&i.hints, i.table.pos, verb)?;
        if let Some(Location::Iceberg(_)) = &target.location {
            return self.insert_iceberg(i, &target, pos).await;
        }
        let table = self.paimon_table(&target, i.table.pos, "writing").await?;
        let schema = table.current_schema().clone();
        for p in &i.partition {
            if !schema.partition_keys.contains(&p.key) {
                return Err(StatementError::new(
                    p.key_pos,
                    format!(
                        "'{}' is not a partition column of {}; partition keys: [{}]",
                        p.key,
                        target.qualified(),
                        schema.partition_keys.join(", ")
                    ),
                ));
            }
        }
        let batches = self
            .insert_rows(i, &schema, &target.qualified(), pos)
            .await?;
        let overwrite = if i.overwrite {
            let dynamic = !i.hints.iter().any(|h| {
                h.key == "dynamic-partition-overwrite" && h.value.eq_ignore_ascii_case("false")
            });
            Some(if !i.partition.is_empty() {
                let mut spec = Vec::new();
                for p in &i.partition {
                    let field = schema.fields.iter().find(|f| f.name == p.key);
                    let Some(field) = field else { continue };
                    spec.push((
                        p.key.clone(),
                        literal_datum(&p.value, &field.data_type, &p.key, p.value_pos)?,
                    ));
                }
                Overwrite::Static(spec)
            } else if dynamic {
                Overwrite::Dynamic
            } else {
                Overwrite::Static(Vec::new())
            })
        } else {
            None
        };
        self.commit_rows(&table, &target, batches, overwrite, pos)
            .await
    }

    /// Commits shaped rows (nothing to commit for an INSERT INTO or a dynamic partition
    /// overwrite without rows, as in Flink).
    pub(super) async fn commit_rows(
        &self,
        table: &Table,
        target: &Resolved,
        batches: Vec<RecordBatch>,
        overwrite: Option<Overwrite>,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        // As Paimon: no snapshot for an INSERT INTO without rows, nor for a dynamic partition
        // overwrite without rows (it replaces no partition).
        let schema = table.current_schema();
        if rows == 0 && (overwrite.is_none() || commits_nothing(schema, 0, overwrite.as_ref())) {
            return Ok(Outcome::Done(format!(
                "[INFO] no rows: nothing committed to {}",
                target.qualified()
            )));
        }
        // Nor when `ignore-delete` drops every row (a DELETE): Java's batch commit of no files
        // creates no snapshot (ignoreEmptyCommit).
        let ignore_delete = table.options().ignore_delete().map_err(|e| at(pos, e))?;
        if overwrite.is_none() && ignore_delete && batches.iter().all(only_retractions) {
            return Ok(Outcome::Done(format!(
                "[INFO] 'ignore-delete' drops all {rows} row(s): nothing committed to {}",
                target.qualified()
            )));
        }
        let outcome = insert_into_table(self.env.as_ref(), table, &batches, overwrite)
            .await
            .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] {rows} row(s) written to {}: snapshot {}",
            target.qualified(),
            outcome.snapshot.id
        )))
    }

    /// UPDATE / DELETE on a primary-key table: the matching rows are written again as `+U`
    /// with the new values, or as `-D`.
    pub(super) async fn row_level(
        &mut self,
        r: &RowLevel,
        is_delete: bool,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let verb = if is_delete { "DELETE" } else { "UPDATE" };
        let target = self.resolve(&r.table).await?;
        target.refuse_non_main(&[], r.table.pos, verb)?;
        if let Some(Location::Iceberg(_)) = &target.location {
            return self.row_level_iceberg(r, is_delete, &target, pos).await;
        }
        let table = self.paimon_table(&target, r.table.pos, verb).await?;
        let schema = table.current_schema().clone();
        if schema.primary_keys.is_empty() {
            return Err(StatementError::new(
                r.table.pos,
                format!(
                    "{verb} needs a primary-key table: {} has no primary key, so its rows cannot be identified (Paimon supports row-level {verb} on primary-key tables)",
                    target.qualified()
                ),
            ));
        }
        let engine = schema
            .options
            .get("merge-engine")
            .map_or("deduplicate", String::as_str);
        if engine != "deduplicate" && (is_delete || engine != "partial-update") {
            return Err(StatementError::new(
                r.table.pos,
                format!(
                    "{verb} on a table with 'merge-engine' = '{engine}' is not supported: Paimon's batch {verb} needs the deduplicate engine{}",
                    if is_delete { "" } else { " or partial-update" }
                ),
            ));
        }
        let change = row_level_change(r, pos)?;
        for (column, _) in &change.assignments {
            if !schema.fields.iter().any(|f| &f.name == column) {
                return Err(StatementError::new(
                    pos,
                    format!("Unknown column '{column}' in table {}", target.qualified()),
                ));
            }
            if schema.primary_keys.contains(column) || schema.partition_keys.contains(column) {
                return Err(StatementError::new(
                    pos,
                    format!("UPDATE of primary-key or partition column '{column}' is not supported: delete the row and insert it again"),
                ));
            }
        }
        let select = change.updated_columns(schema.fields.iter().map(|f| f.name.as_str()));
        let sql = format!(
            "SELECT {} FROM \"{}\"{}",
            select.join(", "),
            input_name(0),
            change
                .filter
                .as_ref()
                .map(|f| format!(" WHERE {f}"))
                .unwrap_or_default()
        );
        let out = self.query_one(&sql, &target, pos).await?;
        let shape = Shape {
            targets: schema.fields.iter().map(|f| f.name.clone()).collect(),
            statics: &[],
        };
        let kind = if is_delete { DELETE } else { UPDATE_AFTER };
        let batches = self
            .shape_rows(&out, &schema, &shape, &target.qualified(), pos)?
            .into_iter()
            .map(|b| with_row_kind(b, kind, pos))
            .collect::<StatementResult<Vec<_>>>()?;
        self.commit_rows(&table, &target, batches, None, pos).await
    }
}

/// `batch` with a `_VALUE_KIND` column of `kind`.
/// Whether every row of `b` is a retraction (`-U`/`-D` in its row-kind column).
fn only_retractions(b: &RecordBatch) -> bool {
    let kinds = b
        .column_by_name(ROW_KIND_COLUMN)
        .and_then(|c| c.as_any().downcast_ref::<Int8Array>());
    kinds.is_some_and(|k| k.null_count() == 0 && k.values().iter().all(|v| *v == 1 || *v == 3))
}

fn with_row_kind(b: RecordBatch, kind: i8, pos: Pos) -> StatementResult<RecordBatch> {
    let mut fields: Vec<Arc<Field>> = b.schema().fields().iter().cloned().collect();
    fields.push(Arc::new(Field::new(
        ROW_KIND_COLUMN,
        ArrowType::Int8,
        false,
    )));
    let mut columns: Vec<ArrayRef> = b.columns().to_vec();
    columns.push(Arc::new(Int8Array::from(vec![kind; b.num_rows()])));
    batch(Arc::new(Schema::new(fields)), columns, pos)
}
