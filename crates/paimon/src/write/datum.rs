//! Reading one value of an Arrow array (in lakescope's Paimon→Arrow mapping) as a [`Datum`].

use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::types::{DataType, TypeKind};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::Array;
use arrow_schema::{DataType as ArrowType, TimeUnit};

fn split_millis(v: i64, per_milli: i64) -> (i64, i32) {
    let millis = v.div_euclid(per_milli);
    let rest = v.rem_euclid(per_milli) * (1_000_000 / per_milli);
    (millis, rest as i32)
}

/// The value at `row` of `array` as a [`Datum`] of Paimon type `t`; nested values are refused.
pub fn datum_at(array: &dyn Array, row: usize, t: &DataType) -> Result<Datum> {
    if array.is_null(row) {
        return Ok(Datum::Null);
    }
    let bad = || {
        Error::Invalid(format!(
            "cannot convert Arrow {} to Paimon {t}",
            array.data_type()
        ))
    };
    let d = match (&t.kind, array.data_type()) {
        (TypeKind::Boolean, ArrowType::Boolean) => Datum::Boolean(array.as_boolean().value(row)),
        (TypeKind::TinyInt, ArrowType::Int8) => {
            Datum::TinyInt(array.as_primitive::<Int8Type>().value(row))
        }
        (TypeKind::SmallInt, ArrowType::Int16) => {
            Datum::SmallInt(array.as_primitive::<Int16Type>().value(row))
        }
        (TypeKind::Int, ArrowType::Int32) => {
            Datum::Int(array.as_primitive::<Int32Type>().value(row))
        }
        (TypeKind::BigInt, ArrowType::Int64) => {
            Datum::BigInt(array.as_primitive::<Int64Type>().value(row))
        }
        (TypeKind::Float, ArrowType::Float32) => {
            Datum::Float(array.as_primitive::<Float32Type>().value(row))
        }
        (TypeKind::Double, ArrowType::Float64) => {
            Datum::Double(array.as_primitive::<Float64Type>().value(row))
        }
        (TypeKind::Decimal { precision, scale }, ArrowType::Decimal128(..)) => Datum::Decimal {
            unscaled: array.as_primitive::<Decimal128Type>().value(row),
            precision: *precision,
            scale: *scale,
        },
        (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::Utf8) => {
            Datum::String(array.as_string::<i32>().value(row).to_string())
        }
        (TypeKind::Char(_) | TypeKind::VarChar(_), ArrowType::LargeUtf8) => {
            Datum::String(array.as_string::<i64>().value(row).to_string())
        }
        (TypeKind::Binary(_) | TypeKind::VarBinary(_), ArrowType::Binary) => {
            Datum::Binary(array.as_binary::<i32>().value(row).to_vec())
        }
        (TypeKind::Date, ArrowType::Date32) => {
            Datum::Date(array.as_primitive::<Date32Type>().value(row))
        }
        (TypeKind::Time(_), ArrowType::Time64(TimeUnit::Microsecond)) => {
            Datum::Time((array.as_primitive::<Time64MicrosecondType>().value(row) / 1000) as i32)
        }
        (TypeKind::Time(_), ArrowType::Time32(TimeUnit::Millisecond)) => {
            Datum::Time(array.as_primitive::<Time32MillisecondType>().value(row))
        }
        (
            TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_),
            ArrowType::Timestamp(unit, _),
        ) => {
            let (millis, nanos_of_milli) = match unit {
                TimeUnit::Millisecond => (
                    array.as_primitive::<TimestampMillisecondType>().value(row),
                    0,
                ),
                TimeUnit::Microsecond => split_millis(
                    array.as_primitive::<TimestampMicrosecondType>().value(row),
                    1000,
                ),
                TimeUnit::Nanosecond => split_millis(
                    array.as_primitive::<TimestampNanosecondType>().value(row),
                    1_000_000,
                ),
                TimeUnit::Second => return Err(bad()),
            };
            if matches!(t.kind, TypeKind::Timestamp(_)) {
                Datum::Timestamp {
                    millis,
                    nanos_of_milli,
                }
            } else {
                Datum::LocalZonedTimestamp {
                    millis,
                    nanos_of_milli,
                }
            }
        }
        _ => return Err(bad()),
    };
    Ok(d)
}

/// Whether min/max statistics can be kept for this type (nested types have none).
pub fn has_stats(t: &DataType) -> bool {
    !t.is_nested()
}
