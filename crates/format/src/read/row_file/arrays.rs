//! Decoded values into the Arrow arrays of their Paimon types.

use super::rows::Value;
use super::{corrupt, variant_fields};
use crate::read::arrow_schema::{
    list_element_field, map_entries_field, to_arrow_fields, to_arrow_type,
};
use crate::spec::{DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time64MicrosecondType, TimestampMicrosecondType, TimestampNanosecondType,
};
use arrow_array::{ArrayRef, BooleanArray, ListArray, MapArray, PrimitiveArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType as ArrowType;
use std::sync::Arc;

fn mismatch(file: &str, column: &str, ty: &DataType, v: &Value) -> Error {
    corrupt(file, format!("column {column}: {v:?} is not a {ty}"))
}

fn nulls(values: &[Value]) -> Option<NullBuffer> {
    let valid: Vec<bool> = values.iter().map(|v| !matches!(v, Value::Null)).collect();
    valid.iter().any(|v| !v).then(|| NullBuffer::from(valid))
}

fn ints<T>(
    file: &str,
    column: &str,
    ty: &DataType,
    values: &[Value],
    scale: i64,
) -> Result<ArrayRef>
where
    T: arrow_array::ArrowPrimitiveType,
    T::Native: TryFrom<i64>,
{
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        out.push(match v {
            Value::Null => None,
            Value::Int(i) => Some(
                i.checked_mul(scale)
                    .and_then(|i| T::Native::try_from(i).ok())
                    .ok_or_else(|| mismatch(file, column, ty, v))?,
            ),
            other => return Err(mismatch(file, column, ty, other)),
        });
    }
    Ok(Arc::new(PrimitiveArray::<T>::from_iter(out)))
}

/// The Arrow column of `values` (one per row) of a column of type `ty`.
pub(super) fn build(file: &str, column: &str, ty: &DataType, values: &[Value]) -> Result<ArrayRef> {
    let bad = |v: &Value| mismatch(file, column, ty, v);
    Ok(match &ty.kind {
        TypeKind::Boolean => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Bool(b) => Some(*b),
                    other => return Err(bad(other)),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        TypeKind::TinyInt => ints::<Int8Type>(file, column, ty, values, 1)?,
        TypeKind::SmallInt => ints::<Int16Type>(file, column, ty, values, 1)?,
        TypeKind::Int => ints::<Int32Type>(file, column, ty, values, 1)?,
        TypeKind::Date => ints::<Date32Type>(file, column, ty, values, 1)?,
        // Paimon stores TIME as milliseconds of the day; Arrow holds microseconds.
        TypeKind::Time(_) => ints::<Time64MicrosecondType>(file, column, ty, values, 1000)?,
        TypeKind::BigInt => ints::<Int64Type>(file, column, ty, values, 1)?,
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let array = if *p <= 6 {
                ints::<TimestampMicrosecondType>(file, column, ty, values, 1)?
            } else {
                ints::<TimestampNanosecondType>(file, column, ty, values, 1)?
            };
            arrow_cast::cast(&array, &to_arrow_type(ty)).map_err(|e| corrupt(file, e))?
        }
        TypeKind::Float | TypeKind::Double => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Float(f) => Some(*f),
                    other => return Err(bad(other)),
                });
            }
            if matches!(ty.kind, TypeKind::Float) {
                Arc::new(PrimitiveArray::<Float32Type>::from_iter(
                    out.into_iter().map(|v| v.map(|f| f as f32)),
                ))
            } else {
                Arc::new(PrimitiveArray::<Float64Type>::from_iter(out))
            }
        }
        TypeKind::Decimal { precision, scale } => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Decimal(d) => Some(*d),
                    other => return Err(bad(other)),
                });
            }
            let scale = i8::try_from(*scale).map_err(|_| corrupt(file, format!("{ty}")))?;
            Arc::new(
                PrimitiveArray::<Decimal128Type>::from_iter(out)
                    .with_precision_and_scale(*precision, scale)
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut out = StringBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => out.append_null(),
                    Value::Text(s) => out.append_value(s),
                    other => return Err(bad(other)),
                }
            }
            Arc::new(out.finish())
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            let mut out = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => out.append_null(),
                    Value::Bytes(b) => out.append_value(b),
                    other => return Err(bad(other)),
                }
            }
            Arc::new(out.finish())
        }
        TypeKind::Variant => {
            let mut metadata = BinaryBuilder::with_capacity(values.len(), 0);
            let mut value = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => {
                        metadata.append_value([]);
                        value.append_null();
                    }
                    Value::Variant {
                        value: v,
                        metadata: m,
                    } => {
                        metadata.append_value(m);
                        value.append_value(v);
                    }
                    other => return Err(bad(other)),
                }
            }
            let columns: Vec<ArrayRef> =
                vec![Arc::new(metadata.finish()), Arc::new(value.finish())];
            Arc::new(
                StructArray::try_new(variant_fields(), columns, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Array(element) => {
            let mut lengths = Vec::with_capacity(values.len());
            let mut items = Vec::new();
            for v in values {
                match v {
                    Value::Null => lengths.push(0),
                    Value::List(elements) => {
                        lengths.push(elements.len());
                        items.extend(elements.iter().cloned());
                    }
                    other => return Err(bad(other)),
                }
            }
            let child = build(file, column, element, &items)?;
            Arc::new(
                ListArray::try_new(
                    list_element_field(element),
                    OffsetBuffer::from_lengths(lengths),
                    child,
                    nulls(values),
                )
                .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Map(key, value) => build_map(file, column, ty, key, value, values)?,
        TypeKind::Vector(element, length) => {
            let n = usize::try_from(*length).map_err(|_| corrupt(file, format!("{ty}")))?;
            let mut items = Vec::with_capacity(values.len() * n);
            for v in values {
                match v {
                    // A null vector still takes its n slots in a FixedSizeList.
                    Value::Null => items.extend(std::iter::repeat_n(Value::Null, n)),
                    Value::List(elements) if elements.len() == n => {
                        items.extend(elements.iter().cloned())
                    }
                    Value::List(elements) => {
                        return Err(corrupt(
                            file,
                            format!(
                                "column {column}: a vector of {} elements, the type says {n}",
                                elements.len()
                            ),
                        ))
                    }
                    other => return Err(bad(other)),
                }
            }
            let child = build(file, column, element, &items)?;
            let ArrowType::FixedSizeList(field, size) = to_arrow_type(ty) else {
                return Err(corrupt(file, format!("{ty} is not a fixed-size list")));
            };
            Arc::new(
                arrow_array::FixedSizeListArray::try_new(field, size, child, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        // Refused before decoding (see `decode`).
        TypeKind::Blob => {
            return Err(Error::unsupported(
                file,
                format!("column '{column}' of type {ty} in a row-format file"),
            ))
        }
        TypeKind::Multiset(element) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            build_map(file, column, ty, element, &count, values)?
        }
        TypeKind::Row(fields) => {
            let mut children: Vec<Vec<Value>> =
                vec![Vec::with_capacity(values.len()); fields.len()];
            for v in values {
                match v {
                    Value::Null => children.iter_mut().for_each(|c| c.push(Value::Null)),
                    Value::Row(parts) if parts.len() == fields.len() => {
                        for (c, p) in children.iter_mut().zip(parts) {
                            c.push(p.clone());
                        }
                    }
                    other => return Err(bad(other)),
                }
            }
            let arrays = fields
                .iter()
                .zip(&children)
                .map(|(f, c)| build(file, &format!("{column}.{}", f.name), &f.data_type, c))
                .collect::<Result<Vec<_>>>()?;
            Arc::new(
                StructArray::try_new(to_arrow_fields(fields), arrays, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
    })
}

fn build_map(
    file: &str,
    column: &str,
    ty: &DataType,
    key: &DataType,
    value: &DataType,
    values: &[Value],
) -> Result<ArrayRef> {
    let mut lengths = Vec::with_capacity(values.len());
    let (mut keys, mut items) = (Vec::new(), Vec::new());
    for v in values {
        match v {
            Value::Null => lengths.push(0),
            Value::Map(k, i) if k.len() == i.len() => {
                if k.iter().any(|k| matches!(k, Value::Null)) {
                    return Err(corrupt(
                        file,
                        format!("column {column}: a map with a null key"),
                    ));
                }
                lengths.push(k.len());
                keys.extend(k.iter().cloned());
                items.extend(i.iter().cloned());
            }
            other => return Err(mismatch(file, column, ty, other)),
        }
    }
    let key_array = build(file, column, key, &keys)?;
    let value_array = build(file, column, value, &items)?;
    let entries_field = map_entries_field(key, value);
    let ArrowType::Struct(entry_fields) = entries_field.data_type() else {
        return Err(corrupt(file, "map entries are not a struct"));
    };
    let entries = StructArray::try_new(entry_fields.clone(), vec![key_array, value_array], None)
        .map_err(|e| corrupt(file, e))?;
    Ok(Arc::new(
        MapArray::try_new(
            entries_field,
            OffsetBuffer::from_lengths(lengths),
            entries,
            nulls(values),
            false,
        )
        .map_err(|e| corrupt(file, e))?,
    ))
}
