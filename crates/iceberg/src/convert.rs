//! Iceberg types ↔ the shared (Paimon-typed) Arrow readers: read fields, file fields, UUID text.

use crate::spec::{NestedField, Type};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StringArray};
use arrow_schema::{DataType as ArrowType, Field, TimeUnit};
use lakescope_format::spec::types::MAX_LENGTH;
use lakescope_format::spec::{DataField, DataType, TypeKind};
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;
use std::sync::Arc;

/// The shared reader's type for an Iceberg type (UUID reads as 16 bytes, see [`uuid_to_text`]).
pub fn to_data_type(t: &Type, required: bool) -> Option<DataType> {
    let kind = match t {
        Type::Boolean => TypeKind::Boolean,
        Type::Int => TypeKind::Int,
        Type::Long => TypeKind::BigInt,
        Type::Float => TypeKind::Float,
        Type::Double => TypeKind::Double,
        Type::Decimal { precision, scale } => TypeKind::Decimal {
            precision: *precision,
            scale: *scale,
        },
        Type::Date => TypeKind::Date,
        Type::Time => TypeKind::Time(6),
        Type::Timestamp => TypeKind::Timestamp(6),
        Type::Timestamptz => TypeKind::LocalZonedTimestamp(6),
        Type::TimestampNs => TypeKind::Timestamp(9),
        Type::TimestamptzNs => TypeKind::LocalZonedTimestamp(9),
        Type::String => TypeKind::VarChar(MAX_LENGTH),
        Type::Uuid => TypeKind::Binary(16),
        Type::Fixed(n) => TypeKind::Binary(*n),
        Type::Binary => TypeKind::VarBinary(MAX_LENGTH),
        Type::Struct(fields) => TypeKind::Row(to_data_fields(fields)?),
        Type::List {
            element,
            element_required,
            ..
        } => TypeKind::Array(Box::new(to_data_type(element, *element_required)?)),
        Type::Map {
            key,
            value,
            value_required,
            ..
        } => TypeKind::Map(
            Box::new(to_data_type(key, true)?),
            Box::new(to_data_type(value, *value_required)?),
        ),
        Type::Other(_) => return None,
    };
    Some(DataType::nullable(kind).with_nullable(!required))
}

/// The read fields of an Iceberg struct (`None` if a type cannot be read).
pub fn to_data_fields(fields: &[NestedField]) -> Option<Vec<DataField>> {
    fields
        .iter()
        .map(|f| {
            Some(DataField {
                id: f.id,
                name: f.name.clone(),
                data_type: to_data_type(&f.field_type, f.required)?,
                description: f.doc.clone(),
            })
        })
        .collect()
}

fn parquet_id(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(PARQUET_FIELD_ID_META_KEY)?
        .parse()
        .ok()
}

fn arrow_to_kind(t: &ArrowType) -> Option<TypeKind> {
    let unit_precision = |u: &TimeUnit| match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    };
    Some(match t {
        ArrowType::Boolean => TypeKind::Boolean,
        ArrowType::Int8 => TypeKind::TinyInt,
        ArrowType::Int16 => TypeKind::SmallInt,
        ArrowType::Int32 | ArrowType::UInt8 | ArrowType::UInt16 => TypeKind::Int,
        ArrowType::Int64 | ArrowType::UInt32 => TypeKind::BigInt,
        ArrowType::Float16 | ArrowType::Float32 => TypeKind::Float,
        ArrowType::Float64 => TypeKind::Double,
        ArrowType::Decimal32(p, s) | ArrowType::Decimal64(p, s) | ArrowType::Decimal128(p, s) => {
            TypeKind::Decimal {
                precision: *p,
                scale: u8::try_from(*s).ok()?,
            }
        }
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => {
            TypeKind::VarChar(MAX_LENGTH)
        }
        ArrowType::Binary | ArrowType::LargeBinary | ArrowType::BinaryView => {
            TypeKind::VarBinary(MAX_LENGTH)
        }
        ArrowType::FixedSizeBinary(n) => TypeKind::Binary(u32::try_from(*n).ok()?),
        ArrowType::Date32 | ArrowType::Date64 => TypeKind::Date,
        ArrowType::Time32(_) | ArrowType::Time64(_) => TypeKind::Time(6),
        ArrowType::Timestamp(u, None) => TypeKind::Timestamp(unit_precision(u)),
        ArrowType::Timestamp(u, Some(_)) => TypeKind::LocalZonedTimestamp(unit_precision(u)),
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            TypeKind::Array(Box::new(arrow_to_type(f)?))
        }
        ArrowType::Map(entries, _) => {
            let ArrowType::Struct(kv) = entries.data_type() else {
                return None;
            };
            if kv.len() != 2 {
                return None;
            }
            TypeKind::Map(
                Box::new(arrow_to_type(&kv[0])?),
                Box::new(arrow_to_type(&kv[1])?),
            )
        }
        ArrowType::Struct(children) => {
            TypeKind::Row(children.iter().filter_map(|c| file_field(c)).collect())
        }
        ArrowType::Dictionary(_, v) => arrow_to_kind(v)?,
        _ => return None,
    })
}

fn arrow_to_type(field: &Field) -> Option<DataType> {
    Some(DataType::nullable(arrow_to_kind(field.data_type())?).with_nullable(field.is_nullable()))
}

/// A data file's column as a field (id from the Parquet field id; `None` without one).
pub fn file_field(field: &Field) -> Option<DataField> {
    Some(DataField {
        id: parquet_id(field)?,
        name: field.name().clone(),
        data_type: arrow_to_type(field)?,
        description: None,
    })
}

/// The fields of a data file's Arrow schema that carry Iceberg field ids.
pub fn file_fields(schema: &arrow_schema::Schema) -> Vec<DataField> {
    schema
        .fields()
        .iter()
        .filter_map(|f| file_field(f))
        .collect()
}

/// Renders 16-byte UUID values as canonical text (`8-4-4-4-12` lowercase hex).
pub fn uuid_to_text(array: &ArrayRef) -> Option<ArrayRef> {
    let values: Vec<Option<String>> = match array.data_type() {
        ArrowType::Binary => {
            let b = array.as_binary::<i32>();
            (0..b.len())
                .map(|i| (!b.is_null(i)).then(|| uuid_string(b.value(i))))
                .collect()
        }
        ArrowType::FixedSizeBinary(_) => {
            let b = array.as_fixed_size_binary();
            (0..b.len())
                .map(|i| (!b.is_null(i)).then(|| uuid_string(b.value(i))))
                .collect()
        }
        _ => return None,
    };
    Some(Arc::new(StringArray::from(values)))
}

fn uuid_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::BinaryArray;
    use std::collections::HashMap;

    #[test]
    fn uuid_text_and_file_fields() {
        let a: ArrayRef = Arc::new(BinaryArray::from_opt_vec(vec![Some(&[0xab; 16][..]), None]));
        let t = uuid_to_text(&a).unwrap();
        assert_eq!(
            t.as_string::<i32>().value(0),
            "abababab-abab-abab-abab-abababababab"
        );
        assert!(t.is_null(1));
        let f = Field::new("x", ArrowType::Int32, true).with_metadata(HashMap::from([(
            PARQUET_FIELD_ID_META_KEY.to_string(),
            "7".to_string(),
        )]));
        let df = file_field(&f).unwrap();
        assert_eq!((df.id, df.data_type.kind), (7, TypeKind::Int));
        assert!(file_field(&Field::new("y", ArrowType::Int32, true)).is_none());
        assert_eq!(
            to_data_type(&Type::Uuid, true).map(|t| t.kind),
            Some(TypeKind::Binary(16))
        );
    }
}
