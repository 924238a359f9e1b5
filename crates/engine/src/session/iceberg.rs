//! Iceberg catalogs in a session: CREATE TABLE, ALTER TABLE, INSERT (OVERWRITE), DELETE and UPDATE through the Hadoop-catalog writer.

use super::catalogs::{Location, Resolved};
use super::dml::Shape;
use super::query::input_name;
use super::{at, Outcome, QueryInput, QueryOutput, Session, StatementError, StatementResult};
use crate::iceberg_ddl::{definition, transform};
use arrow_array::RecordBatch;
use lakescope_iceberg::convert::to_data_fields;
use lakescope_iceberg::read::DeleteCache;
use lakescope_iceberg::write::append::check_upsert;
use lakescope_iceberg::write::{
    append, overwrite, update_properties, update_schema, update_spec, upsert, ColumnPosition,
    LiveFiles, SchemaChange, SpecChange,
};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_sql::ast::{
    AlterAction, AlterTable, ColumnKind, CreateTable, Insert, RowLevel, SchemaChange as SqlChange,
};
use lakescope_sql::rewrite::row_level_change;
use lakescope_sql::show::quote_ident;
use lakescope_sql::Pos;

impl Session {
    /// CREATE TABLE in an Iceberg catalog.
    pub(super) async fn create_iceberg_table(
        &self,
        t: &CreateTable,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        lakescope_sql::validate(
            &lakescope_sql::Statement::CreateTable(Box::new(t.clone())),
            &lakescope_sql::ValidationContext {
                format: lakescope_sql::TableFormat::Iceberg,
                existing: None,
            },
        )?;
        let def = definition(t)?;
        // the catalog service, or the warehouse's files (Java's HadoopCatalog)
        let Some(catalog) = self.catalog(&target.catalog, pos)?.warehouse() else {
            return Err(StatementError::new(
                pos,
                format!("catalog {} has no warehouse", target.catalog),
            ));
        };
        catalog
            .create_iceberg_table_with(self.env.as_ref(), &target.database, &target.table, &def)
            .await
            .map_err(|e| at(t.name.pos, e))?;
        Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
    }

    /// The Iceberg table at a resolved location.
    pub(super) async fn iceberg_table(
        &self,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<lakescope_iceberg::Table> {
        let Some(Location::Iceberg(table)) = &target.location else {
            return Err(StatementError::new(
                pos,
                format!("{} is not an Iceberg table", target.qualified()),
            ));
        };
        Ok((**table).clone())
    }

    /// INSERT INTO an Iceberg table (an upsert when the table says `write.upsert.enabled`);
    /// INSERT OVERWRITE replaces the partitions the rows land in (the whole table when it is
    /// unpartitioned), as Iceberg's Flink sink does. `PARTITION (c = v)` fills column `c`.
    pub(super) async fn insert_iceberg(
        &self,
        i: &Insert,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let table = self.iceberg_table(target, pos).await?;
        let schema = shape_schema(&table, target, pos)?;
        for p in &i.partition {
            if !schema.fields.iter().any(|f| f.name == p.key) {
                return Err(StatementError::new(
                    p.key_pos,
                    format!("'{}' is not a column of {}", p.key, target.qualified()),
                ));
            }
        }
        let batches = self
            .insert_rows(i, &schema, &target.qualified(), pos)
            .await?;
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        if rows == 0 {
            // As Flink: no rows, no commit (an OVERWRITE without rows replaces nothing).
            return Ok(Outcome::Done(format!(
                "[INFO] no rows: nothing committed to {}",
                target.qualified()
            )));
        }
        let written = if i.overwrite {
            overwrite(&table, &batches, self.env.as_ref()).await
        } else {
            append(&table, &batches, self.env.as_ref()).await
        }
        .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] {rows} row(s) written to {}: snapshot {}",
            target.qualified(),
            snapshot_of(&written)
        )))
    }

    /// UPDATE / DELETE on an Iceberg table. On a table with identifier fields (holding every
    /// partition source) UPDATE writes the changed rows as an upsert (equality deletes of their
    /// keys plus the rows), as Flink's upsert writer would; otherwise, and for DELETE, every data
    /// file holding a matching row is rewritten without it / with it changed (copy-on-write:
    /// readable by every Iceberg reader, no delete files pile up).
    pub(super) async fn row_level_iceberg(
        &self,
        r: &RowLevel,
        is_delete: bool,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let table = self.iceberg_table(target, r.table.pos).await?;
        let schema = shape_schema(&table, target, pos)?;
        let change = row_level_change(r, pos)?;
        for (column, _) in &change.assignments {
            if !schema.fields.iter().any(|f| &f.name == column) {
                return Err(StatementError::new(
                    pos,
                    format!("Unknown column '{column}' in table {}", target.qualified()),
                ));
            }
        }
        let matched = format!(
            "COALESCE(({}), FALSE)",
            change.filter.as_deref().unwrap_or("TRUE")
        );
        let current = table.metadata().current_schema();
        let keys: Vec<String> = current
            .map(|s| {
                s.identifier_field_ids
                    .iter()
                    .filter_map(|id| s.field(*id).map(|f| f.name.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let shape = Shape {
            targets: schema.fields.iter().map(|f| f.name.clone()).collect(),
            statics: &[],
        };
        // Rows are upserted by key only where Flink's upsert writer could: identifier fields
        // holding every partition source column; elsewhere UPDATE rewrites files too.
        let by_key = current.is_some_and(|s| check_upsert(table.metadata(), s).is_ok());
        if !is_delete && by_key {
            if let Some((column, _)) = change.assignments.iter().find(|(c, _)| keys.contains(c)) {
                return Err(StatementError::new(
                    pos,
                    format!("UPDATE of identifier (primary-key) column '{column}' is not supported: delete the row and insert it again"),
                ));
            }
            let select = change.updated_columns(schema.fields.iter().map(|f| f.name.as_str()));
            let sql = format!(
                "SELECT {} FROM \"{}\" WHERE {matched}",
                select.join(", "),
                input_name(0)
            );
            let out = self.query_one(&sql, target, pos).await?;
            let batches = self.shape_rows(&out, &schema, &shape, &target.qualified(), pos)?;
            let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
            if rows == 0 {
                return Ok(no_match(target));
            }
            let written = upsert(&table, &batches, self.env.as_ref())
                .await
                .map_err(|e| at(pos, e))?;
            return Ok(Outcome::Done(format!(
                "[INFO] {rows} row(s) updated in {}: snapshot {}",
                target.qualified(),
                snapshot_of(&written)
            )));
        }
        // Copy-on-write: the rows each file keeps (DELETE) or all its rows, changed (UPDATE).
        let keep = if is_delete {
            format!("SELECT * FROM \"{}\" WHERE NOT {matched}", input_name(0))
        } else {
            let select: Vec<String> = schema
                .fields
                .iter()
                .map(|f| {
                    let name = quote_ident(&f.name);
                    match change.assignments.iter().find(|(c, _)| c == &f.name) {
                        Some((_, expr)) => {
                            format!("CASE WHEN {matched} THEN ({expr}) ELSE {name} END AS {name}")
                        }
                        None => name,
                    }
                })
                .collect();
            format!("SELECT {} FROM \"{}\"", select.join(", "), input_name(0))
        };
        let count = format!(
            "SELECT COUNT(*) AS n FROM \"{}\" WHERE {matched}",
            input_name(0)
        );
        let live = LiveFiles::of(&table).await.map_err(|e| at(pos, e))?;
        let mut cache = DeleteCache::default();
        let mut removed = Vec::new();
        let mut batches = Vec::new();
        let mut changed = 0i64;
        let out_schema =
            lakescope_iceberg::scan::output_schema(&live.table, current_or(&live.table, pos)?)
                .map_err(|e| at(pos, e))?;
        for task in &live.tasks {
            let rows = live.read(task, &mut cache).await.map_err(|e| at(pos, e))?;
            let input = || QueryInput {
                name: input_name(0),
                data: QueryOutput {
                    schema: out_schema.clone(),
                    batches: rows.clone(),
                },
            };
            let n = self.run_on(&count, input(), pos).await?;
            let hits = count_of(&n);
            if hits == 0 {
                continue;
            }
            changed += hits;
            let kept = self.run_on(&keep, input(), pos).await?;
            batches.extend(self.shape_rows(&kept, &schema, &shape, &target.qualified(), pos)?);
            removed.push(task);
        }
        if removed.is_empty() {
            return Ok(no_match(target));
        }
        let written = live
            .replace(&removed, &batches, self.env.as_ref())
            .await
            .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] {changed} row(s) {} {}: snapshot {} ({} data file(s) rewritten)",
            if is_delete {
                "deleted from"
            } else {
                "updated in"
            },
            target.qualified(),
            snapshot_of(&written),
            removed.len()
        )))
    }

    /// ALTER TABLE on an Iceberg table: properties (SET / RESET), the schema (ADD, MODIFY to a
    /// promoted type, RENAME and DROP columns) and the partition spec (Spark's ADD / DROP
    /// PARTITION FIELD), each a new metadata version.
    pub(super) async fn alter_iceberg(
        &self,
        a: &AlterTable,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let table = self.iceberg_table(target, a.name.pos).await?;
        let env = self.env.as_ref();
        let refuse = |what: &str| {
            Err(StatementError::new(
                pos,
                format!("{what} on Iceberg table {}", target.qualified()),
            ))
        };
        let done = match &a.action {
            AlterAction::Set(options) => {
                let set = options
                    .iter()
                    .map(|o| (o.key.clone(), o.value.clone()))
                    .collect();
                update_properties(&table, &set, &[], env).await
            }
            AlterAction::Reset(keys) => {
                let keys: Vec<String> = keys.iter().map(|(k, _)| k.clone()).collect();
                update_properties(&table, &Default::default(), &keys, env).await
            }
            AlterAction::RenameTo(_) => {
                return refuse(
                    "RENAME TO is not supported: a Hadoop catalog cannot rename tables (as Java's HadoopCatalog)",
                )
            }
            AlterAction::Add(change) => {
                let changes = column_changes(change, true, pos)?;
                update_schema(&table, &changes, env).await
            }
            AlterAction::Modify(change) => {
                let changes = column_changes(change, false, pos)?;
                update_schema(&table, &changes, env).await
            }
            AlterAction::RenameColumn { from, to } => {
                let change = SchemaChange::Rename {
                    from: from.name.clone(),
                    to: to.name.clone(),
                };
                update_schema(&table, &[change], env).await
            }
            AlterAction::DropColumns(columns) => {
                let changes: Vec<SchemaChange> = columns
                    .iter()
                    .map(|c| SchemaChange::Drop {
                        name: c.name.clone(),
                    })
                    .collect();
                update_schema(&table, &changes, env).await
            }
            AlterAction::DropWatermark(_) => {
                return refuse("DROP WATERMARK is meaningless (Iceberg tables store no watermark)")
            }
            AlterAction::DropPrimaryKey(_) => {
                return refuse("DROP PRIMARY KEY (identifier fields) is not supported")
            }
            AlterAction::AddPartitionField(f) => {
                let change = SpecChange::Add {
                    column: f.column.name.clone(),
                    transform: transform(f.transform),
                };
                update_spec(&table, &[change], env).await
            }
            AlterAction::DropPartitionField(f) => {
                let change = match f.transform {
                    // A bare name: the partition field's name (an identity field is named
                    // after its column).
                    None => SpecChange::Remove {
                        name: f.column.name.clone(),
                    },
                    Some(t) => SpecChange::RemoveTerm {
                        column: f.column.name.clone(),
                        transform: transform(Some(t)),
                    },
                };
                update_spec(&table, &[change], env).await
            }
            AlterAction::DropPartitions { .. } => {
                return refuse(
                    "DROP PARTITION is not supported: use DELETE FROM ... WHERE on the partition columns",
                )
            }
        }
        .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] {}: metadata {} committed (schema {}, partition spec {})",
            target.qualified(),
            done.metadata_key().rsplit('/').next().unwrap_or_default(),
            done.metadata().current_schema_id.unwrap_or(0),
            done.metadata().default_spec_id.unwrap_or(0)
        )))
    }

    /// Runs `sql` over one in-memory input.
    async fn run_on(&self, sql: &str, input: QueryInput, pos: Pos) -> StatementResult<QueryOutput> {
        self.query_engine
            .run(sql, vec![input])
            .await
            .map_err(|e| StatementError::new(pos, e))
    }
}

/// The column changes of ALTER TABLE ADD (`add`) or MODIFY (type promotions).
fn column_changes(change: &SqlChange, add: bool, pos: Pos) -> StatementResult<Vec<SchemaChange>> {
    if change.watermark.is_some() || change.primary_key.is_some() {
        return Err(StatementError::new(
            pos,
            "WATERMARK / PRIMARY KEY cannot be added to or changed on an Iceberg table",
        ));
    }
    change
        .columns
        .iter()
        .map(|c| {
            let ColumnKind::Physical(data_type) = &c.column.kind else {
                return Err(StatementError::new(
                    c.column.name.pos,
                    format!(
                        "computed or metadata column '{}': Iceberg tables store physical columns only",
                        c.column.name.name
                    ),
                ));
            };
            let name = c.column.name.name.clone();
            if add {
                Ok(SchemaChange::Add {
                    name,
                    data_type: data_type.clone(),
                    doc: c.column.comment.clone(),
                    position: c.position.as_ref().map(|p| match p {
                        lakescope_sql::ast::ColumnPosition::First => ColumnPosition::First,
                        lakescope_sql::ast::ColumnPosition::After(a) => {
                            ColumnPosition::After(a.name.clone())
                        }
                    }),
                })
            } else if c.position.is_some() {
                Err(StatementError::new(
                    c.column.name.pos,
                    "MODIFY ... FIRST / AFTER (moving a column) is not supported on Iceberg tables",
                ))
            } else {
                Ok(SchemaChange::Update {
                    name,
                    data_type: data_type.clone(),
                })
            }
        })
        .collect()
}

/// The table's current schema.
fn current_or(
    table: &lakescope_iceberg::Table,
    pos: Pos,
) -> StatementResult<&lakescope_iceberg::spec::Schema> {
    table.metadata().current_schema().ok_or_else(|| {
        StatementError::new(pos, format!("{}: no current schema", table.metadata_key()))
    })
}

/// The current schema of an Iceberg table as the fields rows are shaped to.
fn shape_schema(
    table: &lakescope_iceberg::Table,
    target: &Resolved,
    pos: Pos,
) -> StatementResult<TableSchema> {
    let fields = current_or(table, pos)
        .ok()
        .and_then(|s| to_data_fields(&s.fields))
        .ok_or_else(|| {
            StatementError::new(
                pos,
                format!(
                    "{}: the current schema has types lakescope cannot write yet",
                    target.qualified()
                ),
            )
        })?;
    Ok(TableSchema {
        version: lakescope_paimon::spec::schema::CURRENT_SCHEMA_VERSION,
        id: 0,
        highest_field_id: 0,
        fields,
        partition_keys: Vec::new(),
        primary_keys: Vec::new(),
        options: Default::default(),
        comment: None,
        time_millis: 0,
    })
}

fn snapshot_of(t: &lakescope_iceberg::Table) -> String {
    t.metadata()
        .current_snapshot_id
        .map_or_else(|| "none".to_string(), |id| id.to_string())
}

fn no_match(target: &Resolved) -> Outcome {
    Outcome::Done(format!(
        "[INFO] no rows matched: nothing committed to {}",
        target.qualified()
    ))
}

/// The single count of a `SELECT COUNT(*)`.
fn count_of(out: &QueryOutput) -> i64 {
    out.batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .and_then(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<arrow_array::Int64Array>()
                .map(|a| a.value(0))
        })
        .unwrap_or(0)
}
