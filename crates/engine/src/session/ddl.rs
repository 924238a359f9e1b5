//! CREATE TABLE (plain, LIKE, AS SELECT), ALTER, DROP, SHOW CREATE TABLE, DESCRIBE and CALL.

use super::catalogs::{CatalogKind, Location, SessionTable};
use super::convert::{literal_datum, paimon_type};
use super::dml::Shape;
use super::{at, show, Outcome, Session, StatementError, StatementResult};
use crate::write::Overwrite;
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::spec::types::DataField;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::schema_change::commit_schema;
use lakescope_sql::apply_alter;
use lakescope_sql::ast::{AlterAction, AlterTable, CreateTable, ObjectName};
use lakescope_sql::show::{flink_type, show_create_table, show_declared};
use lakescope_sql::{create_table_schema, Pos, Statement, TableFormat, ValidationContext};
use std::collections::BTreeMap;

fn definition(schema: &TableSchema) -> TableDefinition {
    TableDefinition {
        columns: schema
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.data_type.clone(), f.description.clone()))
            .collect(),
        partition_keys: schema.partition_keys.clone(),
        primary_keys: schema.primary_keys.clone(),
        options: schema.options.clone(),
        comment: schema.comment.clone(),
    }
}

/// `'a,b'` → `[a, b]`.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl Session {
    /// CREATE TABLE.
    pub(super) async fn create_table(
        &mut self,
        t: &CreateTable,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let target = self.resolve(&t.name).await?;
        if target.system.is_some() {
            return Err(StatementError::new(
                t.name.pos,
                format!(
                    "'{}' is a system table name: table names cannot contain '$'",
                    t.name
                ),
            ));
        }
        if target.location.is_some() {
            if t.if_not_exists {
                return Ok(Outcome::Done(format!(
                    "[INFO] {} exists: nothing done (IF NOT EXISTS)",
                    target.qualified()
                )));
            }
            return Err(StatementError::new(
                t.name.pos,
                format!(
                    "Table (or view) {} already exists in Catalog {}.",
                    target.table, target.catalog
                ),
            ));
        }
        let catalog = self.catalog(&target.catalog, t.name.pos)?;
        let kind = catalog.kind;
        let databases = catalog.databases().await.map_err(|e| at(pos, e))?;
        if !databases.contains(&target.database) {
            return Err(StatementError::new(
                t.name.pos,
                format!(
                    "Database {} does not exist in Catalog {}.",
                    target.database, target.catalog
                ),
            ));
        }
        let connector = t
            .options
            .iter()
            .find(|o| o.key == "connector")
            .map(|o| (o.value.to_ascii_lowercase(), o.value_pos));
        // Tables the session keeps itself: TEMPORARY ones and those of the in-memory catalog.
        if t.temporary || kind == CatalogKind::Memory {
            let Some((connector, _)) = connector else {
                return Err(StatementError::new(
                    t.name.pos,
                    format!("Table options do not contain an option key 'connector' for discovering a connector. (catalog {} keeps no data itself: give 'connector' = 'paimon' and 'path', or create the table in a Paimon catalog)", target.catalog),
                ));
            };
            let table = if connector == "paimon" {
                let path = t.options.iter().find(|o| o.key == "path").ok_or_else(|| {
                    StatementError::new(
                        t.name.pos,
                        "a 'connector' = 'paimon' table needs a 'path' option",
                    )
                })?;
                let store = self
                    .opener
                    .open(&path.value)
                    .map_err(|e| at(path.value_pos, e))?;
                let exists = lakescope_paimon::table::Table::exists_at(store.as_ref(), "")
                    .await
                    .unwrap_or(false);
                if !exists {
                    let mut schema = self.plain_schema(t, TableFormat::Paimon).await?;
                    for key in ["connector", "path", "auto-create"] {
                        schema.options.remove(key);
                    }
                    create_table(store.as_ref(), "", &definition(&schema), self.env.as_ref())
                        .await
                        .map_err(|e| at(pos, e))?;
                }
                SessionTable::Paimon {
                    store,
                    path: String::new(),
                }
            } else {
                lakescope_sql::validate(
                    &Statement::CreateTable(Box::new(t.clone())),
                    &ValidationContext {
                        format: TableFormat::Unknown,
                        existing: None,
                    },
                )?;
                SessionTable::Connector(connector, Box::new(t.clone()))
            };
            let key = (target.database.clone(), target.table.clone());
            self.catalog_mut(&target.catalog, pos)?
                .tables
                .insert(key, table);
            return Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()));
        }
        if let Some((connector, at_pos)) = &connector {
            if connector != "paimon" || kind != CatalogKind::Paimon {
                return Err(StatementError::new(
                    *at_pos,
                    format!("'connector' = '{connector}' in catalog {}: a {} catalog creates its own tables; drop the 'connector' option, or create a TEMPORARY table for a Flink cluster to run", target.catalog, if kind == CatalogKind::Iceberg { "Iceberg" } else { "Paimon" }),
                ));
            }
        }
        if kind == CatalogKind::Iceberg {
            return self.create_iceberg_table(t, &target, pos).await;
        }
        // the warehouse's folders, or the REST catalog service
        let Some(catalog) = self.catalog(&target.catalog, pos)?.warehouse() else {
            return Err(StatementError::new(
                t.name.pos,
                "the catalog has no warehouse",
            ));
        };
        let (schema, rows) = if let Some(q) = &t.as_select {
            let out = self.query(q, pos).await?;
            let sources = self.source_fields(q).await;
            let mut schema = self.query_schema(t, &out.schema, &sources)?;
            schema.options.remove("primary-key");
            schema.options.remove("partition");
            (schema, Some(out))
        } else if let Some(like) = &t.like {
            let source = self.resolve(&like.source).await?;
            let source_table = self.paimon_table(&source, like.source.pos, "LIKE").await?;
            let mut schema = (**source_table.current_schema()).clone();
            if like.excludes_options() {
                schema.options.clear();
            }
            for o in &t.options {
                schema.options.insert(o.key.clone(), o.value.clone());
            }
            (schema, None)
        } else {
            (self.plain_schema(t, TableFormat::Paimon).await?, None)
        };
        catalog
            .create_table_with(
                self.env.as_ref(),
                &target.database,
                &target.table,
                &definition(&schema),
            )
            .await
            .map_err(|e| at(pos, e))?;
        let Some(out) = rows else {
            return Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()));
        };
        let created = self.resolve(&t.name).await?;
        let table = self.paimon_table(&created, t.name.pos, "writing").await?;
        let schema = table.current_schema().clone();
        let shape = Shape {
            targets: out
                .schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect(),
            statics: &[],
        };
        let batches = self.shape_rows(&out, &schema, &shape, &created.qualified(), pos)?;
        self.commit_rows(&table, &created, batches, None, pos).await
    }

    /// The schema of a CREATE TABLE with columns (validated).
    async fn plain_schema(
        &self,
        t: &CreateTable,
        format: TableFormat,
    ) -> StatementResult<TableSchema> {
        lakescope_sql::validate(
            &Statement::CreateTable(Box::new(t.clone())),
            &ValidationContext {
                format,
                existing: None,
            },
        )?;
        Ok(create_table_schema(t)?)
    }

    /// The schema of CREATE TABLE ... AS SELECT: the query's columns, keys from the
    /// `'primary-key'` and `'partition'` options (as Paimon's CTAS).
    fn query_schema(
        &self,
        t: &CreateTable,
        query: &arrow_schema::Schema,
        sources: &[DataField],
    ) -> StatementResult<TableSchema> {
        let options: BTreeMap<String, String> = t
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect();
        let primary_keys = options
            .get("primary-key")
            .map(|v| list(v))
            .unwrap_or_default();
        let partition_keys = options
            .get("partition")
            .map(|v| list(v))
            .unwrap_or_default();
        let mut fields = Vec::new();
        for (i, f) in query.fields().iter().enumerate() {
            let mut data_type = paimon_type(f.name(), f.data_type(), f.is_nullable(), sources)
                .map_err(|e| StatementError::new(t.name.pos, e))?;
            if primary_keys.contains(f.name()) {
                data_type.nullable = false;
            }
            fields.push(DataField {
                id: i as i32,
                name: f.name().clone(),
                data_type,
                description: None,
            });
        }
        for k in primary_keys.iter().chain(&partition_keys) {
            if !fields.iter().any(|f| &f.name == k) {
                return Err(StatementError::new(
                    t.name.pos,
                    format!(
                        "key column '{k}' is not a column of the query (columns: {})",
                        fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        Ok(TableSchema {
            version: lakescope_paimon::spec::schema::CURRENT_SCHEMA_VERSION,
            id: 0,
            highest_field_id: fields.len() as i32 - 1,
            fields,
            partition_keys,
            primary_keys,
            options,
            comment: t.comment.clone(),
            time_millis: 0,
        })
    }

    /// ALTER TABLE.
    pub(super) async fn alter_table(
        &mut self,
        a: &AlterTable,
        statement: &Statement,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let target = self.resolve(&a.name).await?;
        target.refuse_non_main(&[], a.name.pos, "ALTER TABLE on")?;
        if target.location.is_none() && a.if_exists {
            return Ok(Outcome::Done(
                "[INFO] no such table: nothing done (IF EXISTS)".into(),
            ));
        }
        target.existing(a.name.pos)?;
        if let Some(Location::Iceberg(_)) = &target.location {
            target.refuse_service(a.name.pos, "ALTER TABLE")?;
            return self.alter_iceberg(a, &target, pos).await;
        }
        let table = self.paimon_table(&target, a.name.pos, "altering").await?;
        let schema = table.current_schema().clone();
        lakescope_sql::validate(
            statement,
            &ValidationContext {
                format: TableFormat::Paimon,
                existing: Some(&schema),
            },
        )?;
        if target.service {
            return self.alter_service_table(&target, &table, a, pos).await;
        }
        if let AlterAction::RenameTo(new_name) = &a.action {
            return self.rename_table(&target, new_name, pos).await;
        }
        if let AlterAction::DropPartitions { partitions, .. } = &a.action {
            return self.drop_partitions(&table, &target, partitions, pos).await;
        }
        let next = apply_alter(&schema, a);
        if next == *schema {
            return Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()));
        }
        commit_schema(&table, &next, self.env.as_ref())
            .await
            .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] {}: schema {} committed",
            target.qualified(),
            next.id
        )))
    }

    /// ALTER TABLE ... DROP PARTITION: each partition is overwritten with nothing, as Paimon does.
    async fn drop_partitions(
        &self,
        table: &Table,
        target: &super::catalogs::Resolved,
        partitions: &[Vec<lakescope_sql::ast::OptionEntry>],
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let schema = table.current_schema().clone();
        let mut done = Vec::new();
        for spec in partitions {
            let mut values = Vec::new();
            for p in spec {
                let field = schema
                    .fields
                    .iter()
                    .find(|f| f.name == p.key)
                    .ok_or_else(|| {
                        StatementError::new(
                            p.key_pos,
                            format!(
                                "'{}' is not a partition column of {}",
                                p.key,
                                target.qualified()
                            ),
                        )
                    })?;
                values.push((
                    p.key.clone(),
                    literal_datum(&p.value, &field.data_type, &p.key, p.value_pos)?,
                ));
            }
            let outcome = self
                .commit_rows(
                    table,
                    target,
                    Vec::new(),
                    Some(Overwrite::Static(values)),
                    pos,
                )
                .await?;
            if let Outcome::Done(m) = outcome {
                done.push(m);
            }
        }
        Ok(Outcome::Done(done.join("\n")))
    }

    /// ALTER TABLE ... RENAME TO (within the table's catalog).
    async fn rename_table(
        &mut self,
        from: &super::catalogs::Resolved,
        to: &ObjectName,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let to_resolved = self.resolve(to).await?;
        to_resolved.refuse_non_main(&[], to.pos, "RENAME TO")?;
        if to_resolved.catalog != from.catalog {
            return Err(StatementError::new(
                to.pos,
                format!(
                    "RENAME TO another catalog ({}) is not supported: tables move within {}",
                    to_resolved.catalog, from.catalog
                ),
            ));
        }
        if to_resolved.location.is_some() {
            return Err(StatementError::new(
                to.pos,
                format!(
                    "Table (or view) {} already exists in Catalog {}.",
                    to_resolved.table, to_resolved.catalog
                ),
            ));
        }
        let (Some(catalog), Some(Location::Paimon(_))) = (
            self.catalog(&from.catalog, pos)?.warehouse(),
            &from.location,
        ) else {
            return Err(StatementError::new(
                pos,
                format!(
                    "RENAME of {} is not supported: only Paimon catalog tables can be renamed",
                    from.qualified()
                ),
            ));
        };
        let table_ref = |r: &super::catalogs::Resolved| crate::TableRef {
            database: r.database.clone(),
            table: r.table.clone(),
            system: None,
        };
        catalog
            .rename_table(&table_ref(from), &table_ref(&to_resolved))
            .await
            .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
    }

    /// DROP TABLE.
    pub(super) async fn drop_table(
        &mut self,
        name: &ObjectName,
        _temporary: bool,
        if_exists: bool,
    ) -> StatementResult<Outcome> {
        let target = self.resolve(name).await?;
        target.refuse_non_main(&[], name.pos, "DROP TABLE on")?;
        let key = (target.database.clone(), target.table.clone());
        if self
            .catalog(&target.catalog, name.pos)?
            .tables
            .contains_key(&key)
        {
            self.catalog_mut(&target.catalog, name.pos)?
                .tables
                .remove(&key);
            return Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()));
        }
        if target.location.is_none() {
            if if_exists {
                return Ok(Outcome::Done(
                    "[INFO] no such table: nothing done (IF EXISTS)".into(),
                ));
            }
            target.existing(name.pos)?;
        }
        // a catalog service drops any of its tables; a warehouse, its Paimon folders
        let catalog = self
            .catalog(&target.catalog, name.pos)?
            .warehouse()
            .filter(|c| c.is_service() || matches!(target.location, Some(Location::Paimon(_))));
        match catalog {
            Some(catalog) => {
                catalog
                    .drop_table(&target.database, &target.table)
                    .await
                    .map_err(|e| at(name.pos, e))?;
                Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
            }
            _ => Err(StatementError::new(
                name.pos,
                format!(
                    "DROP TABLE {} is not supported yet (Paimon catalog tables only)",
                    target.qualified()
                ),
            )),
        }
    }

    /// The CREATE TABLE a session table of another connector was declared with.
    fn declared(&self, target: &super::catalogs::Resolved) -> Option<&CreateTable> {
        let key = (target.database.clone(), target.table.clone());
        match self.catalogs.get(&target.catalog)?.tables.get(&key)? {
            SessionTable::Connector(_, create) => Some(create),
            SessionTable::Paimon { .. } => None,
        }
    }

    /// SHOW CREATE TABLE (Paimon and Iceberg tables, and session tables of other connectors).
    pub(super) async fn show_create_table(&self, name: &ObjectName) -> StatementResult<Outcome> {
        let target = self.resolve(name).await?;
        let parts = [
            target.catalog.as_str(),
            target.database.as_str(),
            target.table.as_str(),
        ];
        let ddl = if let Some(declared) = self.declared(&target) {
            show_declared(&parts, declared)
        } else if let Some(Location::Iceberg(_)) = &target.location {
            let table = self.iceberg_table(&target, name.pos).await?;
            crate::iceberg_ddl::show_create_table(&parts, table.metadata()).map_err(|e| {
                at(
                    name.pos,
                    format!("SHOW CREATE TABLE {}: {e}", target.qualified()),
                )
            })?
        } else {
            let table = self
                .paimon_table(&target, name.pos, "SHOW CREATE TABLE of")
                .await?;
            show_create_table(&parts, table.current_schema())
        };
        Ok(show::strings(&["result"], vec![vec![Some(ddl)]]))
    }

    /// DESCRIBE: name, type, null, key, extras, watermark (Flink's columns).
    pub(super) async fn describe(&self, name: &ObjectName) -> StatementResult<Outcome> {
        let target = self.resolve(name).await?;
        if let Some(declared) = self.declared(&target) {
            return Ok(show::describe_declared(declared));
        }
        if let Some(Location::Iceberg(_)) = &target.location {
            let table = self.iceberg_table(&target, name.pos).await?;
            let columns = crate::iceberg_ddl::describe(table.metadata())
                .map_err(|e| at(name.pos, format!("DESCRIBE {}: {e}", target.qualified())))?;
            let rows = columns
                .into_iter()
                .map(|c| {
                    let null = if c.nullable { "TRUE" } else { "FALSE" };
                    vec![
                        Some(c.name),
                        Some(c.flink_type),
                        Some(null.to_string()),
                        c.key,
                        None,
                        None,
                    ]
                })
                .collect();
            return Ok(show::strings(
                &["name", "type", "null", "key", "extras", "watermark"],
                rows,
            ));
        }
        let table: Table = self.paimon_table(&target, name.pos, "DESCRIBE of").await?;
        let schema = table.current_schema();
        let pk = (!schema.primary_keys.is_empty())
            .then(|| format!("PRI({})", schema.primary_keys.join(", ")));
        let rows = schema
            .fields
            .iter()
            .map(|f| {
                let nullable = f.data_type.clone().with_nullable(true);
                vec![
                    Some(f.name.clone()),
                    Some(flink_type(&nullable)),
                    Some(
                        if f.data_type.nullable {
                            "TRUE"
                        } else {
                            "FALSE"
                        }
                        .to_string(),
                    ),
                    pk.clone().filter(|_| schema.primary_keys.contains(&f.name)),
                    None,
                    None,
                ]
            })
            .collect();
        Ok(show::strings(
            &["name", "type", "null", "key", "extras", "watermark"],
            rows,
        ))
    }
}
