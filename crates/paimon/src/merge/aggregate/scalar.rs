//! Single values read from / written to Arrow arrays, and merge cells that reference input rows.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, StringArray,
};
use arrow_schema::DataType;

use crate::merge::arrow_err;
use crate::{Error, Result};

/// An owned value of one column.
#[derive(Debug, Clone)]
pub(crate) enum Scalar {
    Null,
    Bool(bool),
    I8(i8),
    I16(i16),
    /// Int32, Date32, Time32.
    I32(i32),
    /// Int64, Date64, Time64, Timestamp, Duration.
    I64(i64),
    F32(f32),
    F64(f64),
    /// Decimal128 unscaled value with its precision.
    Decimal(i128, u8),
    Str(String),
    Bytes(Vec<u8>),
    /// Any other type: a length-1 slice.
    Nested(ArrayRef),
}

/// A merge cell: NULL, a reference to an input value, or a computed value.
#[derive(Debug, Clone)]
pub(crate) enum Cell {
    Null,
    /// (batch, row) of the column's input.
    Pick(u32, u32),
    Owned(Scalar),
}

impl Cell {
    pub fn is_null(&self) -> bool {
        matches!(self, Cell::Null | Cell::Owned(Scalar::Null))
    }
}

impl Scalar {
    /// Reads `array[row]`.
    pub fn read(array: &dyn Array, row: usize) -> Scalar {
        if array.is_null(row) {
            return Scalar::Null;
        }
        match array.data_type() {
            DataType::Boolean => Scalar::Bool(array.as_boolean().value(row)),
            DataType::Int8 => Scalar::I8(array.as_primitive::<Int8Type>().value(row)),
            DataType::Int16 => Scalar::I16(array.as_primitive::<Int16Type>().value(row)),
            DataType::Int32 => Scalar::I32(array.as_primitive::<Int32Type>().value(row)),
            DataType::Date32 => Scalar::I32(array.as_primitive::<Date32Type>().value(row)),
            DataType::Int64 => Scalar::I64(array.as_primitive::<Int64Type>().value(row)),
            DataType::Date64 => Scalar::I64(array.as_primitive::<Date64Type>().value(row)),
            DataType::Timestamp(unit, _) => Scalar::I64(match unit {
                arrow_schema::TimeUnit::Second => {
                    array.as_primitive::<TimestampSecondType>().value(row)
                }
                arrow_schema::TimeUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                arrow_schema::TimeUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                arrow_schema::TimeUnit::Nanosecond => {
                    array.as_primitive::<TimestampNanosecondType>().value(row)
                }
            }),
            DataType::Float32 => Scalar::F32(array.as_primitive::<Float32Type>().value(row)),
            DataType::Float64 => Scalar::F64(array.as_primitive::<Float64Type>().value(row)),
            DataType::Decimal128(p, _) => {
                Scalar::Decimal(array.as_primitive::<Decimal128Type>().value(row), *p)
            }
            DataType::Utf8 => Scalar::Str(array.as_string::<i32>().value(row).to_string()),
            DataType::LargeUtf8 => Scalar::Str(array.as_string::<i64>().value(row).to_string()),
            DataType::Utf8View => Scalar::Str(array.as_string_view().value(row).to_string()),
            DataType::Binary => Scalar::Bytes(array.as_binary::<i32>().value(row).to_vec()),
            DataType::LargeBinary => Scalar::Bytes(array.as_binary::<i64>().value(row).to_vec()),
            DataType::BinaryView => Scalar::Bytes(array.as_binary_view().value(row).to_vec()),
            _ => Scalar::Nested(array.slice(row, 1)),
        }
    }

    /// Paimon's comparison of two non-null values of the same type (for max/min).
    pub fn compare(&self, other: &Scalar) -> Result<Ordering> {
        use Scalar::*;
        Ok(match (self, other) {
            (Bool(a), Bool(b)) => a.cmp(b),
            (I8(a), I8(b)) => a.cmp(b),
            (I16(a), I16(b)) => a.cmp(b),
            (I32(a), I32(b)) => a.cmp(b),
            (I64(a), I64(b)) => a.cmp(b),
            (F32(a), F32(b)) => a.total_cmp(b),
            (F64(a), F64(b)) => a.total_cmp(b),
            (Decimal(a, _), Decimal(b, _)) => a.cmp(b),
            (Str(a), Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            _ => {
                return Err(Error::Invalid(format!(
                    "merge: cannot compare values {self:?} and {other:?}"
                )))
            }
        })
    }
}

/// Builds an array of type `data_type` from owned values.
pub(crate) fn build_array(data_type: &DataType, values: &[Scalar]) -> Result<ArrayRef> {
    macro_rules! prim {
        ($arr:ty, $var:ident) => {{
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Scalar::Null => None,
                    Scalar::$var(x) => Some(*x),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(<$arr>::from(out)) as ArrayRef
        }};
    }
    if values.iter().any(|v| matches!(v, Scalar::Nested(_))) {
        return concat_nested(data_type, values);
    }
    let built: ArrayRef = match data_type {
        DataType::Boolean => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Scalar::Null => None,
                    Scalar::Bool(x) => Some(*x),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        DataType::Int8 => prim!(Int8Array, I8),
        DataType::Int16 => prim!(Int16Array, I16),
        DataType::Int32 | DataType::Date32 => prim!(Int32Array, I32),
        DataType::Int64 | DataType::Date64 | DataType::Timestamp(_, _) => prim!(Int64Array, I64),
        DataType::Float32 => prim!(Float32Array, F32),
        DataType::Float64 => prim!(Float64Array, F64),
        DataType::Decimal128(p, s) => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Scalar::Null => None,
                    Scalar::Decimal(x, _) => Some(*x),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(
                Decimal128Array::from(out)
                    .with_precision_and_scale(*p, *s)
                    .map_err(arrow_err)?,
            )
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Scalar::Null => None,
                    Scalar::Str(x) => Some(x.as_str()),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(StringArray::from(out))
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Scalar::Null => None,
                    Scalar::Bytes(x) => Some(x.as_slice()),
                    other => return Err(mismatch(data_type, other)),
                });
            }
            Arc::new(BinaryArray::from(out))
        }
        _ => return concat_nested(data_type, values),
    };
    if built.data_type() == data_type {
        Ok(built)
    } else {
        arrow_cast::cast(&built, data_type).map_err(arrow_err)
    }
}

fn concat_nested(data_type: &DataType, values: &[Scalar]) -> Result<ArrayRef> {
    let null = new_null_array(data_type, 1);
    let mut parts: Vec<&dyn Array> = Vec::with_capacity(values.len());
    for v in values {
        match v {
            Scalar::Null => parts.push(null.as_ref()),
            Scalar::Nested(a) => parts.push(a.as_ref()),
            other => return Err(mismatch(data_type, other)),
        }
    }
    if parts.is_empty() {
        return Ok(new_null_array(data_type, 0));
    }
    arrow_select::concat::concat(&parts).map_err(arrow_err)
}

fn mismatch(data_type: &DataType, value: &Scalar) -> Error {
    Error::Invalid(format!(
        "merge: value {value:?} does not fit column type {data_type}"
    ))
}
