//! Committing the next schema version (`schema/schema-{latest+1}`) atomically, as Paimon's `SchemaManager.commit`.

use super::env::WriteEnv;
use crate::error::{Error, Result};
use crate::spec::schema::{TableSchema, CURRENT_SCHEMA_VERSION};
use crate::table::Table;
use lakescope_storage::{join, PutOutcome};
use std::collections::HashSet;

/// Checks what Java's `SchemaValidation` needs for a schema to be readable: unique names and
/// ids, ids not above `highestFieldId`, keys naming columns, primary-key columns NOT NULL (unless
/// `primary-key.nullable` is true), parseable bucket and merge-engine options.
fn check_schema(table: &str, s: &TableSchema) -> Result<()> {
    let invalid = |why: String| {
        Err(Error::Invalid(format!(
            "table {table}: schema-{}: {why}",
            s.id
        )))
    };
    if s.fields.is_empty() {
        return invalid("a table needs at least one column".into());
    }
    let mut names = HashSet::new();
    let mut ids = HashSet::new();
    for f in &s.fields {
        if !names.insert(f.name.as_str()) {
            return invalid(format!("duplicate column {}", f.name));
        }
        if !ids.insert(f.id) || f.id > s.highest_field_id {
            return invalid(format!(
                "column {} has field id {} (duplicate or above highestFieldId {})",
                f.name, f.id, s.highest_field_id
            ));
        }
    }
    for k in s.partition_keys.iter().chain(&s.primary_keys) {
        if !names.contains(k.as_str()) {
            return invalid(format!("key column {k} is not a column of the table"));
        }
    }
    let nullable_keys = s
        .options
        .get("primary-key.nullable")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let nullable_key = s
        .primary_key_fields()
        .into_iter()
        .find(|f| f.data_type.nullable);
    if let Some(f) = nullable_key.filter(|_| !nullable_keys) {
        return invalid(format!("primary-key column {} must be NOT NULL", f.name));
    }
    let options = s.core_options();
    options.bucket()?;
    options.merge_engine()?;
    Ok(())
}

/// Writes `next` as the table's next schema version and returns it as written.
///
/// `next.id` must be the latest schema id + 1 (as computed from the latest schema, e.g. by
/// `lakescope_sql::apply_alter`). The file is created with put-if-absent: if another writer
/// committed that id first (or the table moved on since `next` was computed), this returns an
/// error saying so and the caller should recompute `next` from the new latest schema and retry,
/// as Java's `SchemaManager.commitChanges` loop does. `timeMillis` comes from `env` and the file
/// format version is the current one (3). Field ids may never go down: `highestFieldId` must not
/// be below the latest schema's.
pub async fn commit_schema(
    table: &Table,
    next: &TableSchema,
    env: &dyn WriteEnv,
) -> Result<TableSchema> {
    table.ensure_main("changing the schema")?;
    let latest = table.latest_schema().await?;
    let path = table.path();
    if next.id != latest.id + 1 {
        return Err(Error::Invalid(format!(
            "table {path}: schema conflict: cannot commit schema-{} because the latest schema is schema-{} (expected id {}); re-read the table and apply the change again",
            next.id,
            latest.id,
            latest.id + 1
        )));
    }
    if next.highest_field_id < latest.highest_field_id {
        return Err(Error::Invalid(format!(
            "table {path}: schema-{}: highestFieldId {} is below schema-{}'s {} (field ids are never reused)",
            next.id, next.highest_field_id, latest.id, latest.highest_field_id
        )));
    }
    let mut schema = next.clone();
    schema.version = CURRENT_SCHEMA_VERSION;
    schema.time_millis = env.now_millis();
    check_schema(path, &schema)?;
    let key = join(path, &format!("schema/schema-{}", schema.id));
    let json = serde_json::to_vec_pretty(&schema)
        .map_err(|e| Error::Invalid(format!("{key}: serializing the schema: {e}")))?;
    match table.store().put_if_absent(&key, json.into()).await? {
        PutOutcome::Created => Ok(schema),
        PutOutcome::AlreadyExists => Err(Error::Invalid(format!(
            "table {path}: schema conflict: {key} was written concurrently by another writer; re-read the table and apply the change again"
        ))),
    }
}
