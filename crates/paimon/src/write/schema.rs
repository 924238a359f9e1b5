//! Creating a table: validating the definition and writing `schema/schema-0` atomically.

use super::env::WriteEnv;
use crate::error::{Error, Result};
use crate::spec::schema::{TableSchema, CURRENT_SCHEMA_VERSION};
use crate::spec::types::{DataField, DataType, TypeKind};
use lakescope_storage::{join, ObjectStore, PutOutcome};
use std::collections::BTreeMap;

/// What a CREATE TABLE says; field ids are assigned on creation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableDefinition {
    /// Columns: name, type, comment.
    pub columns: Vec<(String, DataType, Option<String>)>,
    /// Partition columns.
    pub partition_keys: Vec<String>,
    /// Primary-key columns (made NOT NULL, as Paimon does).
    pub primary_keys: Vec<String>,
    /// Table options.
    pub options: BTreeMap<String, String>,
    /// Table comment.
    pub comment: Option<String>,
}

fn assign_nested_ids(t: &mut DataType, next: &mut i32) {
    match &mut t.kind {
        TypeKind::Row(fields) => {
            for f in fields {
                f.id = *next;
                *next += 1;
                assign_nested_ids(&mut f.data_type, next);
            }
        }
        TypeKind::Array(e) | TypeKind::Multiset(e) => assign_nested_ids(e, next),
        TypeKind::Map(k, v) => {
            assign_nested_ids(k, next);
            assign_nested_ids(v, next);
        }
        _ => {}
    }
}

/// The schema-0 of a definition (validated; ids assigned; primary keys NOT NULL).
pub fn initial_schema(def: &TableDefinition, time_millis: i64) -> Result<TableSchema> {
    let mut seen = std::collections::HashSet::new();
    for (name, _, _) in &def.columns {
        if !seen.insert(name.as_str()) {
            return Err(Error::Invalid(format!("duplicate column {name}")));
        }
    }
    for k in def.partition_keys.iter().chain(&def.primary_keys) {
        if !seen.contains(k.as_str()) {
            return Err(Error::Invalid(format!(
                "key column {k} is not a column of the table"
            )));
        }
    }
    if !def.primary_keys.is_empty() {
        // A key lacking partition fields is a cross-partition upsert table: dynamic bucket only
        // (Java's SchemaValidation).
        let bucket = def.options.get("bucket").map_or("-1", |b| b.trim());
        if let Some(p) = def
            .partition_keys
            .iter()
            .find(|p| !def.primary_keys.contains(p))
        {
            if bucket != "-1" {
                return Err(Error::Invalid(format!(
                    "primary key constraint {:?} should include all partition fields (missing {p}) unless 'bucket' = '-1' (cross-partition upsert)",
                    def.primary_keys
                )));
            }
        }
        if def.primary_keys.len() == def.partition_keys.len() {
            return Err(Error::Invalid(
                "primary key constraint should not be the same as the partition fields".into(),
            ));
        }
    }
    let top = def.columns.len() as i32;
    let mut next = top;
    let fields: Vec<DataField> = def
        .columns
        .iter()
        .enumerate()
        .map(|(i, (name, t, comment))| {
            let mut t = t.clone();
            if def.primary_keys.contains(name) {
                t.nullable = false;
            }
            assign_nested_ids(&mut t, &mut next);
            DataField {
                id: i as i32,
                name: name.clone(),
                data_type: t,
                description: comment.clone(),
            }
        })
        .collect();
    let schema = TableSchema {
        version: CURRENT_SCHEMA_VERSION,
        id: 0,
        fields,
        highest_field_id: next - 1,
        partition_keys: def.partition_keys.clone(),
        primary_keys: def.primary_keys.clone(),
        options: def.options.clone(),
        comment: def.comment.clone(),
        time_millis,
    };
    let options = schema.core_options();
    options.bucket()?;
    options.merge_engine()?;
    Ok(schema)
}

/// Creates the table at `path` (a key relative to the store root) by writing `schema/schema-0`
/// with put-if-absent; errors if the table already exists.
pub async fn create_table(
    store: &dyn ObjectStore,
    path: &str,
    def: &TableDefinition,
    env: &dyn WriteEnv,
) -> Result<TableSchema> {
    let schema = initial_schema(def, env.now_millis())?;
    let key = join(&join(path.trim_matches('/'), "schema"), "schema-0");
    let json = serde_json::to_vec_pretty(&schema)
        .map_err(|e| Error::Invalid(format!("{key}: serializing the schema: {e}")))?;
    match store.put_if_absent(&key, json.into()).await? {
        PutOutcome::Created => Ok(schema),
        PutOutcome::AlreadyExists => Err(Error::Invalid(format!(
            "table {path} already exists ({key})"
        ))),
    }
}
