//! Identity-partition values of a data file, the values of the source fields the file lacks.
//!
//! Spec "Column Projection": a field id absent from a data file reads the value of an identity
//! partition field on it from the file's partition tuple (metadata-only Hive migrations), before
//! its `initial-default`. Like Java's `PartitionUtil.constantsMap`, a null partition value is
//! a value (null).

use crate::plan::FileEntry;
use crate::spec::manifest::Literal;
use crate::spec::transform::Transform;
use crate::spec::{NestedField, TableMetadata, Type};
use crate::{Error, Result};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array, Float64Array, Int32Array,
    Int64Array, StringArray, UInt32Array,
};
use arrow_schema::DataType as ArrowType;
use std::collections::HashMap;
use std::sync::Arc;

/// The identity-partition values of `data` by source field id (from the spec of its manifest).
pub fn identity_values(meta: &TableMetadata, data: &FileEntry) -> HashMap<i32, Option<Literal>> {
    let Some(spec) = meta.spec(data.spec_id) else {
        return HashMap::new();
    };
    spec.fields
        .iter()
        .filter(|f| Transform::parse(&f.transform) == Some(Transform::Identity))
        .filter_map(|f| {
            let (_, value) = data.file.partition.iter().find(|(n, _)| *n == f.name)?;
            Some((f.source_id, value.clone()))
        })
        .collect()
}

/// `rows` copies of the partition value `value` of `field`, as `target`.
pub fn column(
    file: &str,
    field: &NestedField,
    value: Option<&Literal>,
    target: &ArrowType,
    rows: usize,
) -> Result<ArrayRef> {
    let bad = |why: String| {
        Error::corrupt(
            file,
            format!(
                "identity partition value of field '{}' (id {}, {}): {why}",
                field.name,
                field.id,
                field.field_type.to_json()
            ),
        )
    };
    let Some(value) = value else {
        return Ok(arrow_array::new_null_array(target, rows));
    };
    let one: ArrayRef = match (value, target) {
        (Literal::Boolean(b), _) => Arc::new(BooleanArray::from(vec![*b])),
        (Literal::Int(v), _) => Arc::new(Int32Array::from(vec![*v])),
        (Literal::Long(v), _) => Arc::new(Int64Array::from(vec![*v])),
        (Literal::Float(v), _) => Arc::new(Float32Array::from(vec![*v])),
        (Literal::Double(v), _) => Arc::new(Float64Array::from(vec![*v])),
        // A uuid partition value decoded as its text: the 16 bytes it stands for.
        (Literal::String(s), _) if field.field_type == Type::Uuid => {
            let digits: String = s.chars().filter(|c| *c != '-').collect();
            let bytes = crate::defaults::hex(&digits)
                .filter(|b| b.len() == 16)
                .ok_or_else(|| bad(format!("'{s}' is not a UUID")))?;
            Arc::new(BinaryArray::from(vec![bytes.as_slice()]))
        }
        (Literal::String(s), _) => Arc::new(StringArray::from(vec![s.as_str()])),
        (Literal::Bytes(b), _) => Arc::new(BinaryArray::from(vec![b.as_slice()])),
        (Literal::Decimal(v), ArrowType::Decimal128(p, s)) => Arc::new(
            Decimal128Array::from(vec![*v])
                .with_precision_and_scale(*p, *s)
                .map_err(|e| bad(e.to_string()))?,
        ),
        (Literal::Decimal(_), other) => return Err(bad(format!("a decimal read as {other}"))),
    };
    // Dates (days), times and timestamps (in the type's unit) reinterpret their integer.
    let typed = if one.data_type() == target {
        one
    } else {
        arrow_cast::cast(&one, target).map_err(|e| bad(e.to_string()))?
    };
    let zeros = UInt32Array::from(vec![0u32; rows]);
    arrow_select::take::take(typed.as_ref(), &zeros, None).map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Date32Type, TimestampMicrosecondType};
    use arrow_array::Array;
    use arrow_schema::TimeUnit;

    fn field(t: Type) -> NestedField {
        NestedField {
            id: 1,
            name: "p".into(),
            required: false,
            field_type: t,
            doc: None,
            initial_default: None,
            write_default: None,
        }
    }

    #[test]
    fn literals_become_columns_of_the_read_type() {
        let d = column(
            "f",
            &field(Type::Date),
            Some(&Literal::Int(19_844)),
            &ArrowType::Date32,
            2,
        )
        .unwrap();
        assert_eq!(d.as_primitive::<Date32Type>().values(), &[19_844, 19_844]);
        let ts = ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let t = column(
            "f",
            &field(Type::Timestamptz),
            Some(&Literal::Long(7)),
            &ts,
            1,
        )
        .unwrap();
        assert_eq!(t.data_type(), &ts);
        assert_eq!(t.as_primitive::<TimestampMicrosecondType>().value(0), 7);
        let u = column(
            "f",
            &field(Type::Uuid),
            Some(&Literal::String(
                "00112233-4455-6677-8899-aabbccddeeff".into(),
            )),
            &ArrowType::Binary,
            1,
        )
        .unwrap();
        assert_eq!(u.as_binary::<i32>().value(0)[..2], [0x00, 0x11]);
        assert_eq!(u.as_binary::<i32>().value(0).len(), 16);
        let n = column("f", &field(Type::String), None, &ArrowType::Utf8, 3).unwrap();
        assert_eq!(n.null_count(), 3);
        let err = column(
            "data/x.parquet",
            &field(Type::Long),
            Some(&Literal::Decimal(1)),
            &ArrowType::Int64,
            1,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("data/x.parquet") && err.contains("'p'"),
            "{err}"
        );
    }
}
