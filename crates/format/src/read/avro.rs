//! Avro data files: object-container records decoded into Arrow arrays typed by the file schema.
//!
//! Avro has no column projection, so every record is decoded; only the wanted fields are
//! converted. Avro `map` values come back unordered from apache-avro, so their entries are sorted
//! by key (Paimon writes non-string-key maps as arrays of records, which keep their order).

use super::arrow_schema::{list_element_field, map_entries_field, to_arrow_fields, to_arrow_type};
use super::evolution::be_bytes_to_i128;
use super::{Wanted, BATCH_SIZE};
use crate::spec::{DataType, TypeKind};
use crate::{Error, Result};
use apache_avro::types::Value;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time64MicrosecondType,
};
use arrow_array::{
    new_null_array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, ListArray, MapArray,
    PrimitiveArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType as ArrowType, Field, Schema, TimeUnit};
use bytes::Bytes;
use std::sync::Arc;

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid Avro file: {e}"))
}

/// Decodes the wanted columns of a whole Avro file (columns keep their file names; a wanted
/// column missing from the file is left out). Blocks compressed with xz or bzip2 are
/// decompressed first ([`super::avro_container::readable`]).
pub(crate) async fn decode(
    file: &str,
    bytes: Bytes,
    wanted: &[Wanted],
) -> Result<Vec<RecordBatch>> {
    super::variant::refuse_outside_parquet(file, wanted, "Avro")?;
    let bytes = super::avro_container::readable(file, bytes).await?;
    let reader = crate::spec::avro_names::reader(&bytes[..])
        .map_err(|e| crate::spec::avro_names::open_error(file, &e))?;
    let mut batches = Vec::new();
    let mut rows: Vec<Vec<(String, Value)>> = Vec::with_capacity(BATCH_SIZE);
    for record in reader {
        let record = record.map_err(|e| corrupt(file, e))?;
        rows.push(match unwrap_union(record) {
            Value::Record(fields) => fields,
            other => {
                return Err(corrupt(
                    file,
                    format!("a data row is not a record: {other:?}"),
                ))
            }
        });
        if rows.len() == BATCH_SIZE {
            batches.push(to_batch(file, &rows, wanted)?);
            rows.clear();
        }
    }
    if !rows.is_empty() || batches.is_empty() {
        batches.push(to_batch(file, &rows, wanted)?);
    }
    Ok(batches)
}

fn unwrap_union(v: Value) -> Value {
    match v {
        Value::Union(_, inner) => unwrap_union(*inner),
        other => other,
    }
}

fn to_batch(file: &str, rows: &[Vec<(String, Value)>], wanted: &[Wanted]) -> Result<RecordBatch> {
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for w in wanted {
        // Field positions are the same in every record of a file; look them up in the first.
        let Some(pos) = rows
            .first()
            .and_then(|r| r.iter().position(|(n, _)| n == &w.name))
        else {
            if rows.is_empty() {
                fields.push(Field::new(&w.name, to_arrow_type(&w.data_type), true));
                columns.push(new_null_array(&to_arrow_type(&w.data_type), 0));
            }
            continue;
        };
        let values: Vec<Option<&Value>> = rows
            .iter()
            .map(|r| match r.get(pos) {
                Some((n, v)) if n == &w.name => Some(v),
                _ => r.iter().find(|(n, _)| n == &w.name).map(|(_, v)| v),
            })
            .collect();
        let array = to_array(file, &w.name, &values, &w.data_type)?;
        fields.push(Field::new(&w.name, array.data_type().clone(), true));
        columns.push(array);
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows.len()));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)
        .map_err(|e| corrupt(file, e))
}

/// The value with unions unwrapped; `None` for null.
fn present(v: Option<&Value>) -> Option<&Value> {
    match v? {
        Value::Null => None,
        Value::Union(_, inner) => present(Some(inner)),
        other => Some(other),
    }
}

fn mismatch(file: &str, column: &str, ty: &DataType, v: &Value) -> Error {
    corrupt(file, format!("column {column}: {v:?} is not a {ty}"))
}

fn primitive<T: ArrowPrimitiveType>(
    file: &str,
    column: &str,
    values: &[Option<&Value>],
    ty: &DataType,
    f: impl Fn(&Value) -> Option<T::Native>,
) -> Result<ArrayRef> {
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        out.push(match present(*v) {
            None => None,
            Some(v) => Some(f(v).ok_or_else(|| mismatch(file, column, ty, v))?),
        });
    }
    Ok(Arc::new(out.into_iter().collect::<PrimitiveArray<T>>()))
}

fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) | Value::Date(i) | Value::TimeMillis(i) => Some(i64::from(*i)),
        Value::Long(i)
        | Value::TimeMicros(i)
        | Value::TimestampMillis(i)
        | Value::TimestampMicros(i)
        | Value::TimestampNanos(i)
        | Value::LocalTimestampMillis(i)
        | Value::LocalTimestampMicros(i)
        | Value::LocalTimestampNanos(i) => Some(*i),
        _ => None,
    }
}

fn as_bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::Bytes(b) | Value::Fixed(_, b) => Some(b),
        Value::String(s) | Value::Enum(_, s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// Timestamp value in `unit`; bare longs are millis for precision ≤ 3, else micros.
fn timestamp(v: &Value, precision: u8, unit: TimeUnit) -> Option<i64> {
    let (raw, per_second) = match v {
        Value::TimestampMillis(i) | Value::LocalTimestampMillis(i) => (*i, 1_000),
        Value::TimestampMicros(i) | Value::LocalTimestampMicros(i) => (*i, 1_000_000),
        Value::TimestampNanos(i) | Value::LocalTimestampNanos(i) => (*i, 1_000_000_000),
        Value::Long(i) if precision <= 3 => (*i, 1_000),
        Value::Long(i) => (*i, 1_000_000),
        _ => return None,
    };
    let target: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    if target >= per_second {
        raw.checked_mul(target / per_second)
    } else {
        Some(raw.div_euclid(per_second / target))
    }
}

fn to_array(
    file: &str,
    column: &str,
    values: &[Option<&Value>],
    ty: &DataType,
) -> Result<ArrayRef> {
    let nulls = || {
        NullBuffer::from(
            values
                .iter()
                .map(|v| present(*v).is_some())
                .collect::<Vec<_>>(),
        )
    };
    let array: ArrayRef = match &ty.kind {
        TypeKind::Boolean => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match present(*v) {
                    None => None,
                    Some(Value::Boolean(b)) => Some(*b),
                    Some(other) => return Err(mismatch(file, column, ty, other)),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        TypeKind::TinyInt => primitive::<Int8Type>(file, column, values, ty, |v| {
            as_i64(v).and_then(|i| i8::try_from(i).ok())
        })?,
        TypeKind::SmallInt => primitive::<Int16Type>(file, column, values, ty, |v| {
            as_i64(v).and_then(|i| i16::try_from(i).ok())
        })?,
        TypeKind::Int => primitive::<Int32Type>(file, column, values, ty, |v| {
            as_i64(v).and_then(|i| i32::try_from(i).ok())
        })?,
        TypeKind::BigInt => primitive::<Int64Type>(file, column, values, ty, as_i64)?,
        TypeKind::Float => primitive::<Float32Type>(file, column, values, ty, |v| match v {
            Value::Float(f) => Some(*f),
            Value::Double(d) => Some(*d as f32),
            _ => None,
        })?,
        TypeKind::Double => primitive::<Float64Type>(file, column, values, ty, |v| match v {
            Value::Double(d) => Some(*d),
            Value::Float(f) => Some(f64::from(*f)),
            _ => None,
        })?,
        TypeKind::Decimal { precision, scale } => {
            let array = primitive::<Decimal128Type>(file, column, values, ty, |v| match v {
                Value::Decimal(d) => Vec::<u8>::try_from(d)
                    .ok()
                    .and_then(|b| be_bytes_to_i128(&b)),
                Value::Bytes(b) | Value::Fixed(_, b) => be_bytes_to_i128(b),
                Value::Int(i) => Some(i128::from(*i)),
                Value::Long(i) => Some(i128::from(*i)),
                _ => None,
            })?;
            let array = arrow_array::cast::AsArray::as_primitive::<Decimal128Type>(&array)
                .clone()
                .with_precision_and_scale(*precision, i8::try_from(*scale).unwrap_or(i8::MAX))
                .map_err(|e| corrupt(file, format!("column {column}: {e}")))?;
            Arc::new(array)
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match present(*v) {
                    None => None,
                    Some(Value::String(s) | Value::Enum(_, s)) => Some(s.as_str()),
                    Some(Value::Bytes(b)) => Some(
                        std::str::from_utf8(b)
                            .map_err(|e| corrupt(file, format!("column {column}: {e}")))?,
                    ),
                    Some(other) => return Err(mismatch(file, column, ty, other)),
                });
            }
            Arc::new(StringArray::from(out))
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match present(*v) {
                    None => None,
                    Some(v) => Some(as_bytes(v).ok_or_else(|| mismatch(file, column, ty, v))?),
                });
            }
            Arc::new(BinaryArray::from(out))
        }
        TypeKind::Date => primitive::<Date32Type>(file, column, values, ty, |v| match v {
            Value::Date(d) | Value::Int(d) => Some(*d),
            _ => None,
        })?,
        TypeKind::Time(_) => {
            primitive::<Time64MicrosecondType>(file, column, values, ty, |v| match v {
                Value::TimeMillis(ms) | Value::Int(ms) => Some(i64::from(*ms) * 1_000),
                Value::TimeMicros(us) => Some(*us),
                _ => None,
            })?
        }
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let target = to_arrow_type(ty);
            let ArrowType::Timestamp(unit, _) = &target else {
                return Err(corrupt(file, "bad timestamp type"));
            };
            let raw =
                primitive::<Int64Type>(file, column, values, ty, |v| timestamp(v, *p, *unit))?;
            let raw = arrow_array::cast::AsArray::as_primitive::<Int64Type>(&raw).clone();
            super::evolution::retype(file, raw, target)?
        }
        TypeKind::Array(elem) => {
            let mut offsets = Vec::with_capacity(values.len() + 1);
            offsets.push(0i32);
            let mut flat: Vec<Option<&Value>> = Vec::new();
            for v in values {
                match present(*v) {
                    None => {}
                    Some(Value::Array(items)) => flat.extend(items.iter().map(Some)),
                    Some(other) => return Err(mismatch(file, column, ty, other)),
                }
                offsets.push(i32::try_from(flat.len()).map_err(|e| corrupt(file, e))?);
            }
            let child = to_array(file, column, &flat, elem)?;
            let list = ListArray::try_new(
                list_element_field(elem),
                OffsetBuffer::new(offsets.into()),
                child,
                Some(nulls()),
            )
            .map_err(|e| corrupt(file, format!("column {column}: {e}")))?;
            Arc::new(list)
        }
        TypeKind::Map(key, value) => map_array(file, column, values, ty, key, value)?,
        TypeKind::Multiset(elem) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            map_array(file, column, values, ty, elem, &count)?
        }
        TypeKind::Row(fields) => {
            let mut children = Vec::with_capacity(fields.len());
            for f in fields {
                let child: Vec<Option<&Value>> = values
                    .iter()
                    .map(|v| match present(*v) {
                        Some(Value::Record(rf)) => {
                            rf.iter().find(|(n, _)| n == &f.name).map(|(_, v)| v)
                        }
                        _ => None,
                    })
                    .collect();
                children.push(to_array(file, column, &child, &f.data_type)?);
            }
            let array = StructArray::try_new_with_length(
                to_arrow_fields(fields),
                children,
                Some(nulls()),
                values.len(),
            )
            .map_err(|e| corrupt(file, format!("column {column}: {e}")))?;
            Arc::new(array)
        }
        TypeKind::Variant => return Err(super::variant::outside_parquet(file, column, "Avro")),
        // An Avro array of exactly n elements.
        TypeKind::Vector(elem, _) => {
            let list = DataType {
                nullable: ty.nullable,
                kind: TypeKind::Array(elem.clone()),
            };
            let list = to_array(file, column, values, &list)?;
            super::evolution::conform(file, list, None, ty)?
        }
        TypeKind::Blob => {
            return Err(Error::unsupported(
                file,
                format!(
                    "BLOB column '{column}' stored in an Avro file (only .blob files are read)"
                ),
            ))
        }
    };
    Ok(array)
}

fn map_array(
    file: &str,
    column: &str,
    values: &[Option<&Value>],
    ty: &DataType,
    key: &DataType,
    value: &DataType,
) -> Result<ArrayRef> {
    let mut offsets = Vec::with_capacity(values.len() + 1);
    offsets.push(0i32);
    let mut keys: Vec<Option<&Value>> = Vec::new();
    let mut vals: Vec<Option<&Value>> = Vec::new();
    let mut string_keys: Vec<Value> = Vec::new();
    // Avro maps have string keys: collect them first so the key values can be borrowed.
    for v in values {
        if let Some(Value::Map(m)) = present(*v) {
            let mut names: Vec<&String> = m.keys().collect();
            names.sort();
            string_keys.extend(names.into_iter().map(|k| Value::String(k.clone())));
        }
    }
    let mut next_key = string_keys.iter();
    for v in values {
        match present(*v) {
            None => {}
            Some(Value::Map(m)) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (_, val) in entries {
                    keys.push(next_key.next());
                    vals.push(Some(val));
                }
            }
            Some(Value::Array(items)) => {
                for item in items {
                    let Some(Value::Record(kv)) = present(Some(item)) else {
                        return Err(mismatch(file, column, ty, item));
                    };
                    keys.push(kv.iter().find(|(n, _)| n == "key").map(|(_, v)| v));
                    vals.push(kv.iter().find(|(n, _)| n == "value").map(|(_, v)| v));
                }
            }
            Some(other) => return Err(mismatch(file, column, ty, other)),
        }
        offsets.push(i32::try_from(keys.len()).map_err(|e| corrupt(file, e))?);
    }
    let key_array = to_array(file, column, &keys, key)?;
    let value_array = to_array(file, column, &vals, value)?;
    let entries_field = map_entries_field(key, value);
    let ArrowType::Struct(kv_fields) = entries_field.data_type() else {
        return Err(corrupt(file, "bad map entries type"));
    };
    let entries = StructArray::try_new(kv_fields.clone(), vec![key_array, value_array], None)
        .map_err(|e| corrupt(file, format!("column {column}: {e}")))?;
    let nulls = NullBuffer::from(
        values
            .iter()
            .map(|v| present(*v).is_some())
            .collect::<Vec<_>>(),
    );
    let map = MapArray::try_new(
        entries_field,
        OffsetBuffer::new(offsets.into()),
        entries,
        Some(nulls),
        false,
    )
    .map_err(|e| corrupt(file, format!("column {column}: {e}")))?;
    Ok(Arc::new(map))
}
