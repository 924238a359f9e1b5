//! Iceberg catalogs in a session: namespaces, CREATE TABLE and INSERT through the Hadoop-catalog writer.

use super::catalogs::{Location, Resolved};
use super::dml::Shape;
use super::{at, Outcome, Session, StatementError, StatementResult};
use lakescope_iceberg::convert::to_data_fields;
use lakescope_iceberg::spec::transform::Transform as IcebergTransform;
use lakescope_iceberg::write::{append, HadoopCatalog, IcebergTableDefinition};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_sql::ast::{ColumnKind, CreateTable, Insert, Transform};
use lakescope_sql::Pos;
use lakescope_storage::ObjectStore;
use std::rc::Rc;

/// The absolute URI of a warehouse, as Iceberg metadata records locations.
pub(super) fn absolute_uri(warehouse: &str) -> String {
    if warehouse.starts_with('/') {
        format!("file://{warehouse}")
    } else {
        warehouse.to_string()
    }
}

fn transform(t: Option<Transform>) -> IcebergTransform {
    match t {
        None => IcebergTransform::Identity,
        Some(Transform::Years) => IcebergTransform::Year,
        Some(Transform::Months) => IcebergTransform::Month,
        Some(Transform::Days) => IcebergTransform::Day,
        Some(Transform::Hours) => IcebergTransform::Hour,
        Some(Transform::Bucket(n)) => IcebergTransform::Bucket(n),
        Some(Transform::Truncate(n)) => IcebergTransform::Truncate(n),
    }
}

/// The Iceberg definition of a CREATE TABLE with columns.
fn definition(t: &CreateTable) -> StatementResult<IcebergTableDefinition> {
    if t.as_select.is_some() || t.like.is_some() {
        return Err(StatementError::new(
            t.name.pos,
            "CREATE TABLE ... AS SELECT / LIKE in an Iceberg catalog is not supported yet: create the table with columns, then INSERT",
        ));
    }
    if t.watermark.is_some() {
        return Err(StatementError::new(
            t.name.pos,
            "WATERMARK on an Iceberg table needs a Flink job to mean anything; lakescope creates Iceberg tables without it (drop the WATERMARK clause)",
        ));
    }
    let mut columns = Vec::new();
    for c in &t.columns {
        match &c.kind {
            ColumnKind::Physical(dt) => {
                columns.push((c.name.name.clone(), dt.clone(), c.comment.clone()))
            }
            _ => {
                return Err(StatementError::new(
                    c.name.pos,
                    format!(
                        "computed or metadata column '{}': Iceberg tables store physical columns only (Flink computes such columns in the job; drop it here)",
                        c.name.name
                    ),
                ))
            }
        }
    }
    Ok(IcebergTableDefinition {
        columns,
        partition: t
            .partitioned_by
            .iter()
            .map(|p| (p.column.name.clone(), transform(p.transform)))
            .collect(),
        identifier_fields: t
            .primary_key
            .iter()
            .flat_map(|pk| pk.columns.iter().map(|c| c.name.clone()))
            .collect(),
        properties: t
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect(),
    })
}

impl Session {
    /// The Hadoop catalog and store of an Iceberg session catalog.
    fn hadoop(
        &self,
        catalog: &str,
        pos: Pos,
    ) -> StatementResult<(HadoopCatalog, Rc<dyn ObjectStore>)> {
        let c = self.catalog(catalog, pos)?;
        match (&c.store, &c.warehouse) {
            (Some(store), Some(uri)) => {
                Ok((HadoopCatalog::new("", &absolute_uri(uri)), store.clone()))
            }
            _ => Err(StatementError::new(
                pos,
                format!("catalog {catalog} has no warehouse"),
            )),
        }
    }

    /// CREATE DATABASE in an Iceberg catalog: the namespace's marker.
    pub(super) async fn create_namespace(
        &self,
        catalog: &str,
        namespace: &str,
        pos: Pos,
    ) -> StatementResult<()> {
        let (hadoop, store) = self.hadoop(catalog, pos)?;
        hadoop
            .create_namespace(store.as_ref(), namespace)
            .await
            .map_err(|e| at(pos, e))?;
        Ok(())
    }

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
        self.create_namespace(&target.catalog, &target.database, pos)
            .await?;
        let (hadoop, store) = self.hadoop(&target.catalog, pos)?;
        hadoop
            .create_table(
                store.as_ref(),
                &target.database,
                &target.table,
                &def,
                self.env.as_ref(),
            )
            .await
            .map_err(|e| at(t.name.pos, e))?;
        Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
    }

    /// INSERT INTO an Iceberg table (an upsert when the table says `write.upsert.enabled`).
    pub(super) async fn insert_iceberg(
        &self,
        i: &Insert,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        if i.overwrite || !i.partition.is_empty() {
            return Err(StatementError::new(
                pos,
                format!(
                    "INSERT OVERWRITE / PARTITION (...) into Iceberg table {} is not supported yet",
                    target.qualified()
                ),
            ));
        }
        let Some(Location::Iceberg { store, path }) = &target.location else {
            return Err(StatementError::new(
                pos,
                format!("{} is not an Iceberg table", target.qualified()),
            ));
        };
        let table = lakescope_iceberg::Table::open(store.clone(), path)
            .await
            .map_err(|e| at(pos, e))?;
        let fields = table
            .metadata()
            .current_schema()
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
        let schema = TableSchema {
            version: lakescope_paimon::spec::schema::CURRENT_SCHEMA_VERSION,
            id: 0,
            highest_field_id: 0,
            fields,
            partition_keys: Vec::new(),
            primary_keys: Vec::new(),
            options: Default::default(),
            comment: None,
            time_millis: 0,
        };
        let targets: Vec<String> = if i.columns.is_empty() {
            schema.fields.iter().map(|f| f.name.clone()).collect()
        } else {
            i.columns.iter().map(|c| c.name.clone()).collect()
        };
        let out = self.insert_rows(i, pos).await?;
        let shape = Shape {
            targets,
            statics: &[],
        };
        let batches = self.shape_rows(&out, &schema, &shape, &target.qualified(), pos)?;
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let written = append(&table, &batches, self.env.as_ref())
            .await
            .map_err(|e| at(pos, e))?;
        let snapshot = written
            .metadata()
            .current_snapshot_id
            .map_or_else(|| "none".to_string(), |id| id.to_string());
        Ok(Outcome::Done(format!(
            "[INFO] {rows} row(s) written to {}: snapshot {snapshot}",
            target.qualified()
        )))
    }
}
