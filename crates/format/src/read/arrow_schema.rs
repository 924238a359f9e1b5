//! Paimon types → Arrow types (the one mapping every reader and the engine agree on).
//!
//! | Paimon | Arrow |
//! |---|---|
//! | BOOLEAN, TINYINT, SMALLINT, INT, BIGINT | Boolean, Int8, Int16, Int32, Int64 |
//! | FLOAT, DOUBLE | Float32, Float64 |
//! | DECIMAL(p, s) | Decimal128(p, s) |
//! | CHAR, VARCHAR, STRING | Utf8 |
//! | BINARY, VARBINARY, BYTES | Binary |
//! | DATE | Date32 |
//! | TIME(p) | Time64(µs) for every p (Paimon stores milliseconds; µs keeps p ≤ 6 exact) |
//! | TIMESTAMP(p) | Timestamp(µs, None) for p ≤ 6, Timestamp(ns, None) for p > 6 |
//! | TIMESTAMP(p) WITH LOCAL TIME ZONE | same unit, time zone `"UTC"` |
//! | ARRAY<T> | List(`"element"`: T) |
//! | MAP<K, V> | Map(`"entries"`: Struct(`"key"`: K non-null, `"value"`: V), unsorted) |
//! | MULTISET<T> | Map<T, Int32 non-null> (element → count) |
//! | ROW<...> | Struct(...) |
//! | VARIANT | Utf8: each value's JSON text, as Paimon's `Variant.toJson()` (see `read::variant`) |
//! | VECTOR<T, n> | FixedSizeList(`"element"`: T, n) |
//! | BLOB | Struct(`file`: Utf8, `offset`: Int64, `length`: Int64): a reference, see `read::blob` |
//!
//! Every field carries its Paimon field id in the metadata key [`FIELD_ID_KEY`] (top-level and
//! ROW fields; list elements and map entries have no Paimon id).

use crate::spec::{DataField, DataType, TypeKind};
use arrow_schema::{DataType as ArrowType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};
use std::collections::HashMap;
use std::sync::Arc;

/// Arrow field metadata key holding the Paimon field id.
pub const FIELD_ID_KEY: &str = "paimon.field_id";
/// Name of the list element field.
pub const LIST_ELEMENT_NAME: &str = "element";
/// Name of the map entries struct field.
pub const MAP_ENTRIES_NAME: &str = "entries";
/// Time zone of TIMESTAMP WITH LOCAL TIME ZONE columns.
pub const LTZ_TIME_ZONE: &str = "UTC";

/// The Arrow field of a Paimon field (name, type, nullability, field id in metadata).
pub fn to_arrow_field(field: &DataField) -> Field {
    Field::new(
        &field.name,
        to_arrow_type(&field.data_type),
        field.data_type.nullable,
    )
    .with_metadata(HashMap::from([(
        FIELD_ID_KEY.to_string(),
        field.id.to_string(),
    )]))
}

/// The Arrow schema of a row of Paimon fields.
pub fn to_arrow_schema(fields: &[DataField]) -> SchemaRef {
    Arc::new(Schema::new(
        fields.iter().map(to_arrow_field).collect::<Vec<_>>(),
    ))
}

/// The Arrow fields of a ROW type's fields.
pub fn to_arrow_fields(fields: &[DataField]) -> Fields {
    fields.iter().map(to_arrow_field).collect()
}

/// The Arrow type of a Paimon type (nullability is carried by the enclosing field).
pub fn to_arrow_type(data_type: &DataType) -> ArrowType {
    match &data_type.kind {
        TypeKind::Boolean => ArrowType::Boolean,
        TypeKind::TinyInt => ArrowType::Int8,
        TypeKind::SmallInt => ArrowType::Int16,
        TypeKind::Int => ArrowType::Int32,
        TypeKind::BigInt => ArrowType::Int64,
        TypeKind::Float => ArrowType::Float32,
        TypeKind::Double => ArrowType::Float64,
        TypeKind::Decimal { precision, scale } => {
            ArrowType::Decimal128(*precision, i8::try_from(*scale).unwrap_or(i8::MAX))
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) | TypeKind::Variant => ArrowType::Utf8,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => ArrowType::Binary,
        TypeKind::Date => ArrowType::Date32,
        TypeKind::Time(_) => ArrowType::Time64(TimeUnit::Microsecond),
        TypeKind::Timestamp(p) => ArrowType::Timestamp(timestamp_unit(*p), None),
        TypeKind::LocalZonedTimestamp(p) => {
            ArrowType::Timestamp(timestamp_unit(*p), Some(LTZ_TIME_ZONE.into()))
        }
        TypeKind::Array(element) => ArrowType::List(list_element_field(element)),
        TypeKind::Map(key, value) => ArrowType::Map(map_entries_field(key, value), false),
        TypeKind::Multiset(element) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            ArrowType::Map(map_entries_field(element, &count), false)
        }
        TypeKind::Row(fields) => ArrowType::Struct(to_arrow_fields(fields)),
        TypeKind::Vector(element, length) => ArrowType::FixedSizeList(
            list_element_field(element),
            i32::try_from(*length).unwrap_or(i32::MAX),
        ),
        TypeKind::Blob => super::blob_reference::reference_type(),
    }
}

/// Unit used for TIMESTAMP(p) / TIMESTAMP_LTZ(p).
pub fn timestamp_unit(precision: u8) -> TimeUnit {
    if precision <= 6 {
        TimeUnit::Microsecond
    } else {
        TimeUnit::Nanosecond
    }
}

/// The `"element"` field of a list of `element`.
pub fn list_element_field(element: &DataType) -> FieldRef {
    Arc::new(Field::new(
        LIST_ELEMENT_NAME,
        to_arrow_type(element),
        element.nullable,
    ))
}

/// The `"entries"` field of a map (keys are never null in Arrow).
pub fn map_entries_field(key: &DataType, value: &DataType) -> FieldRef {
    let entries = Fields::from(vec![
        Field::new("key", to_arrow_type(key), false),
        Field::new("value", to_arrow_type(value), value.nullable),
    ]);
    Arc::new(Field::new(
        MAP_ENTRIES_NAME,
        ArrowType::Struct(entries),
        false,
    ))
}

/// The Paimon field id stored in an Arrow field's metadata, if any.
pub fn field_id(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(FIELD_ID_KEY)
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(id: i32, name: &str, ty: &str) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: DataType::parse(ty).unwrap(),
            description: None,
        }
    }

    #[test]
    fn maps_scalar_types() {
        let cases = [
            ("BOOLEAN", ArrowType::Boolean),
            ("TINYINT", ArrowType::Int8),
            ("SMALLINT", ArrowType::Int16),
            ("INT", ArrowType::Int32),
            ("BIGINT", ArrowType::Int64),
            ("FLOAT", ArrowType::Float32),
            ("DOUBLE", ArrowType::Float64),
            ("DECIMAL(38, 10)", ArrowType::Decimal128(38, 10)),
            ("VARCHAR(3)", ArrowType::Utf8),
            ("CHAR(2)", ArrowType::Utf8),
            ("VARIANT", ArrowType::Utf8),
            ("BYTES", ArrowType::Binary),
            ("BINARY(4)", ArrowType::Binary),
            ("DATE", ArrowType::Date32),
            ("TIME(3)", ArrowType::Time64(TimeUnit::Microsecond)),
            (
                "TIMESTAMP(3)",
                ArrowType::Timestamp(TimeUnit::Microsecond, None),
            ),
            (
                "TIMESTAMP(9)",
                ArrowType::Timestamp(TimeUnit::Nanosecond, None),
            ),
            (
                "TIMESTAMP(6) WITH LOCAL TIME ZONE",
                ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            ),
        ];
        for (paimon, arrow) in cases {
            assert_eq!(
                to_arrow_type(&DataType::parse(paimon).unwrap()),
                arrow,
                "{paimon}"
            );
        }
    }

    #[test]
    fn keeps_ids_names_and_nullability() {
        let f = to_arrow_field(&field(7, "k", "BIGINT NOT NULL"));
        assert_eq!(f.name(), "k");
        assert!(!f.is_nullable());
        assert_eq!(field_id(&f), Some(7));
        let schema = to_arrow_schema(&[field(1, "a", "INT"), field(2, "b", "STRING")]);
        assert_eq!(schema.fields().len(), 2);
        assert_eq!(field_id(schema.field(1)), Some(2));
    }

    #[test]
    fn maps_nested_types() {
        let json = r#"{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ROW","fields":[{"id":3,"name":"a","type":"INT"}]}}"#;
        let ty = DataType::from_json(&serde_json::from_str(json).unwrap()).unwrap();
        let ArrowType::Map(entries, false) = to_arrow_type(&ty) else {
            panic!("not a map")
        };
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!("entries not a struct")
        };
        assert_eq!(kv[0].data_type(), &ArrowType::Utf8);
        assert!(!kv[0].is_nullable());
        let ArrowType::Struct(row) = kv[1].data_type() else {
            panic!("value not a struct")
        };
        assert_eq!(field_id(&row[0]), Some(3));
        let arr = DataType::parse("INT").unwrap();
        let list = to_arrow_type(&DataType::nullable(TypeKind::Array(Box::new(arr))));
        assert_eq!(
            list,
            ArrowType::List(Arc::new(Field::new("element", ArrowType::Int32, true)))
        );
    }
}
