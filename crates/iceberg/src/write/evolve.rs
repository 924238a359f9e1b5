//! Schema and partition-spec evolution: each change is a new metadata version with a new
//! current schema / default spec. Field ids are kept; new ones come from `last-column-id` /
//! `last-partition-id`, so files written before read by id (Iceberg's rules for v2 tables).

use super::commit::commit_metadata;
use super::definition::iceberg_type;
use crate::spec::transform::Transform;
use crate::spec::{NestedField, PartitionField, PartitionSpec, Schema, TableMetadata, Type};
use crate::table::Table;
use crate::{Error, Result};
use lakescope_format::spec::DataType;
use lakescope_format::write_env::WriteEnv;
use std::collections::BTreeMap;

/// Where an added column goes (default: last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    /// Before every other top-level column.
    First,
    /// Right after the top-level column of this name.
    After(String),
}

/// One change of the table schema.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaChange {
    /// A new optional column (Iceberg cannot add a required column to existing rows).
    Add {
        /// The new top-level column's name (it must not exist yet).
        name: String,
        /// Its type, which must be nullable; nested types get new field ids inside too.
        data_type: DataType,
        /// Its comment (the field's `doc`), if any.
        doc: Option<String>,
        /// Where it goes among the top-level columns (`None`: last).
        position: Option<ColumnPosition>,
    },
    /// A new name for a column (same field id).
    Rename {
        /// The top-level column's current name.
        from: String,
        /// Its new name (no other column may have it).
        to: String,
    },
    /// The column leaves the schema (its id is never reused).
    Drop {
        /// The top-level column's name; it may not be an identifier field, a source of the
        /// current partition spec or the only column.
        name: String,
    },
    /// A type promotion: int → long, float → double, decimal(P, S) → decimal(P', S) with
    /// P' ≥ P; also a required column (not an identifier field) made optional when `data_type`
    /// is nullable.
    Update {
        /// The top-level column's name.
        name: String,
        /// Its new type (and nullability).
        data_type: DataType,
    },
}

/// One change of the partition spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecChange {
    /// Partition also by `transform(column)`.
    Add {
        /// The top-level source column's name.
        column: String,
        /// The transform applied to it; the new field is named as Java names it
        /// ([`Transform::field_name`]).
        transform: Transform,
    },
    /// Stop partitioning by the field named `name`.
    Remove {
        /// The partition field's name in the current spec (e.g. `ts_day`).
        name: String,
    },
    /// Stop partitioning by `transform(column)`, whatever its field is named.
    RemoveTerm {
        /// The top-level source column's name.
        column: String,
        /// The transform of the partition field to remove.
        transform: Transform,
    },
}

fn invalid(table: &str, message: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("{table}: {message}"))
}

fn current_schema<'a>(table: &str, meta: &'a TableMetadata) -> Result<&'a Schema> {
    meta.current_schema()
        .ok_or_else(|| Error::corrupt(table, "no current schema"))
}

/// Whether `from` may be promoted to `to` (Iceberg's allowed type promotions).
fn promotable(from: &Type, to: &Type) -> bool {
    match (from, to) {
        (a, b) if a == b => true,
        (Type::Int, Type::Long) | (Type::Float, Type::Double) => true,
        (
            Type::Decimal {
                precision: p1,
                scale: s1,
            },
            Type::Decimal {
                precision: p2,
                scale: s2,
            },
        ) => s1 == s2 && p2 >= p1,
        _ => false,
    }
}

/// The schema after `changes` (schema id not yet set) and the new last column id.
fn evolve_schema(
    table: &str,
    meta: &TableMetadata,
    changes: &[SchemaChange],
) -> Result<(Schema, i32)> {
    let mut schema = current_schema(table, meta)?.clone();
    let mut last_id = meta.last_column_id;
    let index = |schema: &Schema, name: &str| {
        schema
            .fields
            .iter()
            .position(|f| f.name == name)
            .ok_or_else(|| invalid(table, format!("column '{name}' does not exist")))
    };
    let spec_sources: Vec<i32> = meta
        .spec(meta.default_spec_id.unwrap_or(0))
        .map(|s| s.fields.iter().map(|f| f.source_id).collect())
        .unwrap_or_default();
    for change in changes {
        match change {
            SchemaChange::Add {
                name,
                data_type,
                doc,
                position,
            } => {
                if schema.fields.iter().any(|f| &f.name == name) {
                    return Err(invalid(table, format!("column '{name}' already exists")));
                }
                if !data_type.nullable {
                    return Err(invalid(
                        table,
                        format!("cannot add required column '{name}': existing rows have no value for it (add it nullable)"),
                    ));
                }
                last_id += 1;
                let id = last_id;
                let field = NestedField {
                    id,
                    name: name.clone(),
                    required: false,
                    field_type: iceberg_type(data_type, &mut last_id)?,
                    doc: doc.clone(),
                    initial_default: None,
                    write_default: None,
                };
                let at = match position {
                    None => schema.fields.len(),
                    Some(ColumnPosition::First) => 0,
                    Some(ColumnPosition::After(c)) => index(&schema, c)? + 1,
                };
                schema.fields.insert(at, field);
            }
            SchemaChange::Rename { from, to } => {
                if schema.fields.iter().any(|f| &f.name == to) {
                    return Err(invalid(table, format!("column '{to}' already exists")));
                }
                let i = index(&schema, from)?;
                schema.fields[i].name = to.clone();
            }
            SchemaChange::Drop { name } => {
                let i = index(&schema, name)?;
                let id = schema.fields[i].id;
                if schema.identifier_field_ids.contains(&id) {
                    return Err(invalid(
                        table,
                        format!("cannot drop identifier (primary-key) column '{name}'"),
                    ));
                }
                if spec_sources.contains(&id) {
                    return Err(invalid(
                        table,
                        format!("cannot drop column '{name}': the current partition spec uses it (drop the partition field first)"),
                    ));
                }
                if schema.fields.len() == 1 {
                    return Err(invalid(table, "cannot drop the last column"));
                }
                schema.fields.remove(i);
            }
            SchemaChange::Update { name, data_type } => {
                let i = index(&schema, name)?;
                let mut scratch = last_id;
                let to = iceberg_type(data_type, &mut scratch)?;
                let field = &mut schema.fields[i];
                if !promotable(&field.field_type, &to) {
                    return Err(invalid(
                        table,
                        format!(
                            "cannot change column '{name}' from {} to {}: Iceberg promotes only int to long, float to double and decimal(P, S) to a larger precision",
                            field.field_type.to_json(),
                            to.to_json()
                        ),
                    ));
                }
                // Identifier (primary-key) columns stay required whatever the new type says.
                if field.required
                    && data_type.nullable
                    && !schema.identifier_field_ids.contains(&field.id)
                {
                    field.required = false;
                } else if !field.required && !data_type.nullable {
                    return Err(invalid(
                        table,
                        format!("cannot make optional column '{name}' required: existing rows may hold nulls"),
                    ));
                }
                field.field_type = to;
            }
        }
    }
    Ok((schema, last_id))
}

/// Applies `changes` to the current schema and commits it as a new schema (reusing the id of
/// an identical earlier schema, as Java does); no change: no commit.
pub async fn update_schema(
    table: &Table,
    changes: &[SchemaChange],
    env: &dyn WriteEnv,
) -> Result<Table> {
    let name = table.name().to_string();
    commit_metadata(table, env, |meta| {
        let (mut schema, last_id) = evolve_schema(&name, meta, changes)?;
        let current = current_schema(&name, meta)?;
        if schema == *current {
            return Ok(false);
        }
        let same = meta.schemas.iter().find(|s| {
            s.fields == schema.fields && s.identifier_field_ids == schema.identifier_field_ids
        });
        schema.schema_id = match same {
            Some(s) => s.schema_id,
            None => meta.schemas.iter().map(|s| s.schema_id).max().unwrap_or(-1) + 1,
        };
        meta.current_schema_id = Some(schema.schema_id);
        meta.last_column_id = last_id;
        if same.is_none() {
            meta.schemas.push(schema);
        }
        Ok(true)
    })
    .await
}

/// Sets and removes table properties (`format-version` cannot change).
pub async fn update_properties(
    table: &Table,
    set: &BTreeMap<String, String>,
    remove: &[String],
    env: &dyn WriteEnv,
) -> Result<Table> {
    let name = table.name().to_string();
    if set.contains_key("format-version") || remove.iter().any(|k| k == "format-version") {
        return Err(invalid(
            &name,
            "format-version cannot be changed (lakescope writes v2 tables)",
        ));
    }
    commit_metadata(table, env, |meta| {
        let before = meta.properties.clone();
        meta.properties.extend(set.clone());
        for k in remove {
            meta.properties.remove(k);
        }
        Ok(meta.properties != before)
    })
    .await
}

/// The default spec after `changes`, with field ids kept (a field removed earlier and added
/// again gets its old id back), and the new last partition id.
fn evolve_spec(
    table: &str,
    meta: &TableMetadata,
    changes: &[SpecChange],
) -> Result<(Vec<PartitionField>, i32)> {
    let schema = current_schema(table, meta)?;
    let spec_id = meta.default_spec_id.unwrap_or(0);
    let mut fields = meta
        .spec(spec_id)
        .ok_or_else(|| Error::corrupt(table, format!("no partition spec {spec_id}")))?
        .fields
        .clone();
    let mut last_id = meta.last_partition_id.unwrap_or(999);
    for change in changes {
        match change {
            SpecChange::Add { column, transform } => {
                let source = schema
                    .fields
                    .iter()
                    .find(|f| &f.name == column)
                    .ok_or_else(|| invalid(table, format!("column '{column}' does not exist")))?;
                if !transform.can_transform(&source.field_type) {
                    return Err(invalid(
                        table,
                        format!(
                            "cannot partition by {transform}({column}): column type {}",
                            source.field_type.to_json()
                        ),
                    ));
                }
                let text = transform.to_string();
                if fields
                    .iter()
                    .any(|f| f.source_id == source.id && f.transform == text)
                {
                    return Err(invalid(
                        table,
                        format!("the spec already partitions by {transform}({column})"),
                    ));
                }
                let name = transform.field_name(column);
                if fields.iter().any(|f| f.name == name) {
                    return Err(invalid(
                        table,
                        format!("partition field '{name}' already exists"),
                    ));
                }
                let earlier = meta
                    .partition_specs
                    .iter()
                    .flat_map(|s| &s.fields)
                    .find(|f| f.source_id == source.id && f.transform == text)
                    .and_then(|f| f.field_id);
                let field_id = match earlier {
                    Some(id) => id,
                    None => {
                        last_id += 1;
                        last_id
                    }
                };
                fields.push(PartitionField {
                    source_id: source.id,
                    field_id: Some(field_id),
                    name,
                    transform: text,
                });
            }
            SpecChange::RemoveTerm { column, transform } => {
                let id = schema
                    .fields
                    .iter()
                    .find(|f| &f.name == column)
                    .map(|f| f.id)
                    .ok_or_else(|| invalid(table, format!("column '{column}' does not exist")))?;
                let text = transform.to_string();
                let before = fields.len();
                fields.retain(|f| !(f.source_id == id && f.transform == text));
                if fields.len() == before {
                    return Err(invalid(
                        table,
                        format!("the spec does not partition by {transform}({column})"),
                    ));
                }
            }
            SpecChange::Remove { name } => {
                let before = fields.len();
                fields.retain(|f| &f.name != name);
                if fields.len() == before {
                    return Err(invalid(
                        table,
                        format!("partition field '{name}' does not exist"),
                    ));
                }
            }
        }
    }
    Ok((fields, last_id))
}

/// Changes the partition spec (Spark's ALTER TABLE ... ADD / DROP PARTITION FIELD): a new
/// default spec (or an identical earlier one again). Files already written keep their spec;
/// new writes use the new one; reads plan every file with its own spec.
pub async fn update_spec(
    table: &Table,
    changes: &[SpecChange],
    env: &dyn WriteEnv,
) -> Result<Table> {
    let name = table.name().to_string();
    commit_metadata(table, env, |meta| {
        let (fields, last_id) = evolve_spec(&name, meta, changes)?;
        let spec_id = match meta.partition_specs.iter().find(|s| s.fields == fields) {
            Some(s) => s.spec_id,
            None => {
                let id = meta
                    .partition_specs
                    .iter()
                    .map(|s| s.spec_id)
                    .max()
                    .unwrap_or(-1)
                    + 1;
                meta.partition_specs.push(PartitionSpec {
                    spec_id: id,
                    fields,
                });
                id
            }
        };
        if meta.default_spec_id == Some(spec_id) {
            return Ok(false);
        }
        meta.default_spec_id = Some(spec_id);
        meta.last_partition_id = Some(last_id);
        Ok(true)
    })
    .await
}
