//! Iceberg tables as Flink DDL: SHOW CREATE TABLE and DESCRIBE columns from table metadata, and the Iceberg definition a CREATE TABLE gives (its inverse).

use crate::session::{StatementError, StatementResult};
use lakescope_iceberg::convert::to_data_type;
use lakescope_iceberg::spec::transform::Transform as IcebergTransform;
use lakescope_iceberg::spec::{NestedField, PartitionField, Schema, TableMetadata};
use lakescope_iceberg::write::definition::FORMAT_VERSION;
use lakescope_iceberg::write::IcebergTableDefinition;
use lakescope_paimon::spec::DataType;
use lakescope_sql::ast::{ColumnKind, CreateTable, Transform};
use lakescope_sql::show::{flink_type, quote_ident, quote_str};
use std::fmt::Write;

/// One column as DESCRIBE shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeColumn {
    /// Column name.
    pub name: String,
    /// Flink type, written nullable (nullability is its own column).
    pub flink_type: String,
    /// Whether the column may hold NULL.
    pub nullable: bool,
    /// `PRI(a, b)` on the identifier-field columns.
    pub key: Option<String>,
}

/// The Flink type of an Iceberg column, as Iceberg's `FlinkSchemaUtil` maps it (long → BIGINT,
/// timestamp → TIMESTAMP(6), timestamptz → TIMESTAMP_LTZ(6), uuid → BINARY(16), ...).
fn column_type(f: &NestedField) -> Result<DataType, String> {
    to_data_type(&f.field_type, f.required).ok_or_else(|| {
        format!(
            "column {} has type {}, which has no Flink type",
            f.name,
            f.field_type.to_json()
        )
    })
}

fn current_schema(metadata: &TableMetadata) -> Result<&Schema, String> {
    metadata
        .current_schema()
        .ok_or_else(|| "the table metadata has no current schema".to_string())
}

/// Names of the identifier fields (top-level columns only: Flink's PRIMARY KEY names columns).
fn identifier_names(schema: &Schema) -> Result<Vec<String>, String> {
    schema
        .identifier_field_ids
        .iter()
        .map(|id| {
            schema
                .fields
                .iter()
                .find(|f| f.id == *id)
                .map(|f| f.name.clone())
                .ok_or_else(|| {
                    format!("identifier field id {id} is not a top-level column: a Flink PRIMARY KEY cannot name it")
                })
        })
        .collect()
}

/// A partition field as lakescope's PARTITIONED BY writes it (`c`, `days(c)`, `bucket(16, c)`);
/// `None` for a `void` field (it partitions nothing: a field dropped from a v1 spec).
fn partition_entry(schema: &Schema, field: &PartitionField) -> Result<Option<String>, String> {
    let source = schema
        .fields
        .iter()
        .find(|f| f.id == field.source_id)
        .ok_or_else(|| {
            format!(
                "partition field {} has source id {}, which is not a top-level column: PARTITIONED BY cannot name it",
                field.name, field.source_id
            )
        })?;
    let transform = IcebergTransform::parse(&field.transform).ok_or_else(|| {
        format!(
            "partition field {} has transform '{}', which PARTITIONED BY cannot write",
            field.name, field.transform
        )
    })?;
    let c = quote_ident(&source.name);
    Ok(Some(match transform {
        IcebergTransform::Identity => c,
        IcebergTransform::Year => format!("years({c})"),
        IcebergTransform::Month => format!("months({c})"),
        IcebergTransform::Day => format!("days({c})"),
        IcebergTransform::Hour => format!("hours({c})"),
        IcebergTransform::Bucket(n) => format!("bucket({n}, {c})"),
        IcebergTransform::Truncate(w) => format!("truncate({w}, {c})"),
        IcebergTransform::Void => return Ok(None),
    }))
}

/// Flink DDL for an Iceberg table, as the Iceberg Flink connector's users write it: columns with
/// Flink types (NOT NULL for required fields, COMMENT from docs), PRIMARY KEY from the identifier
/// fields, PARTITIONED BY with the default spec's transforms, and WITH `format-version` and the
/// table properties. `name` parts are backquoted.
pub fn show_create_table(name: &[&str], metadata: &TableMetadata) -> Result<String, String> {
    let schema = current_schema(metadata)?;
    let mut lines = Vec::new();
    for f in &schema.fields {
        let mut line = format!(
            "  {} {}",
            quote_ident(&f.name),
            flink_type(&column_type(f)?)
        );
        if let Some(doc) = &f.doc {
            let _ = write!(line, " COMMENT {}", quote_str(doc));
        }
        lines.push(line);
    }
    let keys = identifier_names(schema)?;
    if !keys.is_empty() {
        let keys: Vec<String> = keys.iter().map(|k| quote_ident(k)).collect();
        lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", keys.join(", ")));
    }
    let qualified: Vec<String> = name.iter().map(|p| quote_ident(p)).collect();
    let mut out = format!("CREATE TABLE {} (\n", qualified.join("."));
    out.push_str(&lines.join(",\n"));
    out.push_str("\n)");
    let spec = metadata
        .default_spec_id
        .and_then(|id| metadata.spec(id))
        .or_else(|| metadata.partition_specs.last());
    if let Some(spec) = spec {
        let mut entries = Vec::new();
        for field in &spec.fields {
            entries.extend(partition_entry(schema, field)?);
        }
        if !entries.is_empty() {
            let _ = write!(out, "\nPARTITIONED BY ({})", entries.join(", "));
        }
    }
    let mut options = vec![(
        FORMAT_VERSION.to_string(),
        metadata.format_version.to_string(),
    )];
    options.extend(
        metadata
            .properties
            .iter()
            .filter(|(k, _)| k.as_str() != FORMAT_VERSION)
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let options: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("  {} = {}", quote_str(k), quote_str(v)))
        .collect();
    let _ = write!(out, "\nWITH (\n{}\n)", options.join(",\n"));
    Ok(out)
}

/// DESCRIBE's columns of an Iceberg table.
pub fn describe(metadata: &TableMetadata) -> Result<Vec<DescribeColumn>, String> {
    let schema = current_schema(metadata)?;
    let keys = identifier_names(schema)?;
    let key = (!keys.is_empty()).then(|| format!("PRI({})", keys.join(", ")));
    schema
        .fields
        .iter()
        .map(|f| {
            let t = column_type(f)?;
            Ok(DescribeColumn {
                name: f.name.clone(),
                flink_type: flink_type(&t.clone().with_nullable(true)),
                nullable: t.nullable,
                key: key.clone().filter(|_| keys.contains(&f.name)),
            })
        })
        .collect()
}

pub(crate) fn transform(t: Option<Transform>) -> IcebergTransform {
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

/// The Iceberg definition of a CREATE TABLE with columns: physical columns, partition transforms,
/// PRIMARY KEY as identifier fields, WITH options as table properties.
pub fn definition(t: &CreateTable) -> StatementResult<IcebergTableDefinition> {
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
