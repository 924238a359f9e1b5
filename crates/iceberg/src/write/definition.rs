//! What CREATE TABLE says for an Iceberg table, Flink → Iceberg types, and the table's first metadata.

use crate::spec::metadata::SortOrder;
use crate::spec::transform::Transform;
use crate::spec::{NestedField, PartitionField, PartitionSpec, Schema, TableMetadata, Type};
use crate::{Error, Result};
use lakescope_format::spec::{DataType, TypeKind};
use std::collections::{BTreeMap, HashSet};

/// Table property naming the table format version (consumed, not stored as a property).
pub const FORMAT_VERSION: &str = "format-version";
/// Table property enabling upserts on the identifier fields.
pub const UPSERT_ENABLED: &str = "write.upsert.enabled";
/// Table property naming the data file format.
pub const DEFAULT_FILE_FORMAT: &str = "write.format.default";
/// Table property naming the Parquet compression codec.
pub const PARQUET_COMPRESSION: &str = "write.parquet.compression-codec";
/// Table property with the target size of data files.
pub const TARGET_FILE_SIZE: &str = "write.target-file-size-bytes";
/// First partition field id (Java's `PARTITION_DATA_ID_START`).
const FIRST_PARTITION_FIELD_ID: i32 = 1000;

/// What a CREATE TABLE says; field ids are assigned on creation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IcebergTableDefinition {
    /// Columns: name, (Flink) type, comment.
    pub columns: Vec<(String, DataType, Option<String>)>,
    /// Partition fields: source column and transform, in spec order.
    pub partition: Vec<(String, Transform)>,
    /// Primary-key columns (the schema's identifier fields; made required).
    pub identifier_fields: Vec<String>,
    /// Table properties (`write.upsert.enabled`, `write.format.default`, ...).
    pub properties: BTreeMap<String, String>,
}

/// The Iceberg type of a Flink type; nested field ids are taken from `next_id`.
///
/// TINYINT/SMALLINT widen to int, CHAR/VARCHAR/STRING become string, BINARY(n) `fixed[n]`,
/// TIMESTAMP(p ≤ 6) timestamp (µs), TIMESTAMP_LTZ timestamptz, p > 6 the `_ns` variants,
/// `MULTISET<T>` `map<T, int>` — the mapping of Iceberg's `FlinkSchemaUtil`.
pub fn iceberg_type(t: &DataType, next_id: &mut i32) -> Result<Type> {
    let mut fresh = || {
        *next_id += 1;
        *next_id
    };
    Ok(match &t.kind {
        TypeKind::Boolean => Type::Boolean,
        TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int => Type::Int,
        TypeKind::BigInt => Type::Long,
        TypeKind::Float => Type::Float,
        TypeKind::Double => Type::Double,
        TypeKind::Decimal { precision, scale } => Type::Decimal {
            precision: *precision,
            scale: *scale,
        },
        TypeKind::Char(_) | TypeKind::VarChar(_) => Type::String,
        TypeKind::Binary(n) => Type::Fixed(*n),
        TypeKind::VarBinary(_) => Type::Binary,
        TypeKind::Date => Type::Date,
        TypeKind::Time(_) => Type::Time,
        TypeKind::Timestamp(p) if *p > 6 => Type::TimestampNs,
        TypeKind::Timestamp(_) => Type::Timestamp,
        TypeKind::LocalZonedTimestamp(p) if *p > 6 => Type::TimestamptzNs,
        TypeKind::LocalZonedTimestamp(_) => Type::Timestamptz,
        TypeKind::Array(e) => {
            let element_id = fresh();
            Type::List {
                element_id,
                element: Box::new(iceberg_type(e, next_id)?),
                element_required: !e.nullable,
            }
        }
        TypeKind::Multiset(e) => {
            let (key_id, value_id) = (fresh(), fresh());
            Type::Map {
                key_id,
                key: Box::new(iceberg_type(e, next_id)?),
                value_id,
                value: Box::new(Type::Int),
                value_required: true,
            }
        }
        TypeKind::Map(k, v) => {
            let (key_id, value_id) = (fresh(), fresh());
            Type::Map {
                key_id,
                key: Box::new(iceberg_type(k, next_id)?),
                value_id,
                value: Box::new(iceberg_type(v, next_id)?),
                value_required: !v.nullable,
            }
        }
        TypeKind::Row(fields) => {
            let ids: Vec<i32> = fields.iter().map(|_| fresh()).collect();
            let children = fields
                .iter()
                .zip(ids)
                .map(|(f, id)| {
                    Ok(NestedField {
                        id,
                        name: f.name.clone(),
                        required: !f.data_type.nullable,
                        field_type: iceberg_type(&f.data_type, next_id)?,
                        doc: f.description.clone(),
                        initial_default: None,
                        write_default: None,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Type::Struct(children)
        }
        TypeKind::Variant | TypeKind::Vector(..) | TypeKind::Blob => {
            return Err(Error::Invalid(format!(
                "{} columns cannot be stored in an Iceberg v2 table",
                t.clone().with_nullable(true)
            )))
        }
    })
}

fn invalid(table: &str, reason: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("cannot create Iceberg table {table}: {reason}"))
}

/// The schema of a definition: top-level ids 1..=n, nested ids after them (as Java assigns
/// fresh ids), identifier fields required. Returns the schema and the last column id.
fn initial_schema(table: &str, def: &IcebergTableDefinition) -> Result<(Schema, i32)> {
    let mut seen = HashSet::new();
    for (name, _, _) in &def.columns {
        if !seen.insert(name.as_str()) {
            return Err(invalid(table, format!("duplicate column {name}")));
        }
    }
    let mut next_id = def.columns.len() as i32;
    let fields = def
        .columns
        .iter()
        .enumerate()
        .map(|(i, (name, t, doc))| {
            let key = def.identifier_fields.contains(name);
            Ok(NestedField {
                id: i as i32 + 1,
                name: name.clone(),
                required: key || !t.nullable,
                field_type: iceberg_type(t, &mut next_id)?,
                doc: doc.clone(),
                initial_default: None,
                write_default: None,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let identifier_field_ids =
        def.identifier_fields
            .iter()
            .map(|k| {
                let f = fields.iter().find(|f| &f.name == k).ok_or_else(|| {
                    invalid(table, format!("primary key column {k} does not exist"))
                })?;
                if f.field_type.is_nested() || matches!(f.field_type, Type::Float | Type::Double) {
                    return Err(invalid(
                        table,
                        format!(
                        "primary key column {k} has type {}, which cannot be an identifier field",
                        f.field_type.to_json()
                    ),
                    ));
                }
                Ok(f.id)
            })
            .collect::<Result<Vec<_>>>()?;
    let schema = Schema {
        schema_id: 0,
        identifier_field_ids,
        fields,
    };
    Ok((schema, next_id))
}

fn initial_spec(
    table: &str,
    def: &IcebergTableDefinition,
    schema: &Schema,
) -> Result<PartitionSpec> {
    let mut names = HashSet::new();
    let fields = def
        .partition
        .iter()
        .enumerate()
        .map(|(i, (column, transform))| {
            let source = schema
                .fields
                .iter()
                .find(|f| &f.name == column)
                .ok_or_else(|| {
                    invalid(table, format!("partition column {column} does not exist"))
                })?;
            if !transform.can_transform(&source.field_type) {
                return Err(invalid(
                    table,
                    format!(
                        "cannot partition by {transform}({column}): column type {}",
                        source.field_type.to_json()
                    ),
                ));
            }
            let name = transform.field_name(column);
            if !names.insert(name.clone()) {
                return Err(invalid(table, format!("duplicate partition field {name}")));
            }
            Ok(PartitionField {
                source_id: source.id,
                field_id: Some(FIRST_PARTITION_FIELD_ID + i as i32),
                name,
                transform: transform.to_string(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(PartitionSpec { spec_id: 0, fields })
}

/// The first metadata of a new v2 table at `location` (an absolute URI), without snapshots.
///
/// `format-version` is consumed (only 2 is written); `write.parquet.compression-codec=zstd` is
/// stored unless set, as Java does for new tables.
pub fn initial_metadata(
    table: &str,
    location: &str,
    def: &IcebergTableDefinition,
    table_uuid: String,
    now_ms: i64,
) -> Result<TableMetadata> {
    let mut properties = def.properties.clone();
    if let Some(v) = properties.remove(FORMAT_VERSION) {
        if v.trim() != "2" {
            return Err(invalid(
                table,
                format!("format-version {v} cannot be written (only 2)"),
            ));
        }
    }
    properties
        .entry(PARQUET_COMPRESSION.to_string())
        .or_insert_with(|| "zstd".to_string());
    let (schema, last_column_id) = initial_schema(table, def)?;
    let spec = initial_spec(table, def, &schema)?;
    let last_partition_id = FIRST_PARTITION_FIELD_ID - 1 + spec.fields.len() as i32;
    Ok(TableMetadata {
        format_version: 2,
        table_uuid: Some(table_uuid),
        location: location.trim_end_matches('/').to_string(),
        last_sequence_number: 0,
        last_updated_ms: now_ms,
        last_column_id,
        schemas: vec![schema],
        schema: None,
        current_schema_id: Some(0),
        partition_specs: vec![spec],
        partition_spec: None,
        default_spec_id: Some(0),
        last_partition_id: Some(last_partition_id),
        properties,
        current_snapshot_id: None,
        snapshots: Vec::new(),
        snapshot_log: Vec::new(),
        metadata_log: Vec::new(),
        sort_orders: vec![SortOrder {
            order_id: 0,
            fields: Vec::new(),
        }],
        default_sort_order_id: Some(0),
        refs: BTreeMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_format::spec::DataField;

    fn col(name: &str, kind: TypeKind) -> (String, DataType, Option<String>) {
        (name.into(), DataType::nullable(kind), None)
    }

    #[test]
    fn ids_types_keys_and_spec() {
        let row = TypeKind::Row(vec![DataField {
            id: 0,
            name: "x".into(),
            data_type: DataType::nullable(TypeKind::Int),
            description: None,
        }]);
        let def = IcebergTableDefinition {
            columns: vec![
                col("id", TypeKind::VarChar(10)),
                col("ts", TypeKind::Timestamp(3)),
                col(
                    "amount",
                    TypeKind::Decimal {
                        precision: 10,
                        scale: 2,
                    },
                ),
                col("st", row),
                col("n", TypeKind::SmallInt),
            ],
            partition: vec![
                ("ts".into(), Transform::Day),
                ("id".into(), Transform::Bucket(16)),
            ],
            identifier_fields: vec!["id".into(), "ts".into()],
            properties: BTreeMap::from([("format-version".into(), "2".into())]),
        };
        let m = initial_metadata("t", "file:///w/t/", &def, "u".into(), 5).unwrap();
        let s = m.current_schema().unwrap();
        assert_eq!(s.identifier_field_ids, vec![1, 2]);
        assert!(s.fields[0].required && s.fields[1].required && !s.fields[2].required);
        assert_eq!(s.fields[1].field_type, Type::Timestamp);
        assert_eq!(s.fields[4].field_type, Type::Int);
        assert_eq!(s.find_field(6).map(|f| f.name.as_str()), Some("x"));
        assert_eq!(m.last_column_id, 6);
        let spec = m.spec(0).unwrap();
        assert_eq!(spec.fields[0].name, "ts_day");
        assert_eq!(spec.fields[1].transform, "bucket[16]");
        assert_eq!(spec.fields[1].field_id, Some(1001));
        assert_eq!(m.last_partition_id, Some(1001));
        assert_eq!(m.location, "file:///w/t");
        assert!(!m.properties.contains_key("format-version"));
        // The written JSON reads back.
        let json = serde_json::to_vec(&m).unwrap();
        let again = TableMetadata::parse("m", &json).unwrap();
        assert_eq!(again.current_schema(), Some(s));
        assert_eq!(again.current_snapshot_id, None);

        let mut bad = def.clone();
        bad.partition = vec![("ts".into(), Transform::Truncate(4))];
        let err = initial_metadata("t", "l", &bad, "u".into(), 5).unwrap_err();
        assert!(err.to_string().contains("truncate[4](ts)"), "{err}");
        bad.partition.clear();
        bad.identifier_fields = vec!["nope".into()];
        assert!(initial_metadata("t", "l", &bad, "u".into(), 5).is_err());
        bad.identifier_fields.clear();
        bad.properties.insert("format-version".into(), "1".into());
        assert!(initial_metadata("t", "l", &bad, "u".into(), 5).is_err());
    }
}
