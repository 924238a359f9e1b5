//! Column defaults (`initial-default`, `write-default`): JSON single values decoded into Arrow columns.
//!
//! Defaults are written in the spec's JSON single-value serialisation (Appendix D): booleans and
//! numbers as JSON values, decimals as strings with exactly the type's scale, dates, times and
//! timestamps as ISO-8601 strings, UUIDs in their 8-4-4-4-12 form, fixed and binary as hex, and
//! structs as objects keyed by field id. A struct's default is null or non-null (`{}`); its
//! fields carry their own defaults.

use crate::spec::{NestedField, Type};
use crate::{Error, Result};
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, Int32Array, Int64Array, StringArray, StructArray, UInt32Array,
};
use arrow_schema::DataType as ArrowType;
use serde_json::Value;
use std::sync::Arc;

/// Casts that fail on text that does not parse instead of giving null.
const STRICT: arrow_cast::CastOptions<'static> = arrow_cast::CastOptions {
    safe: false,
    format_options: arrow_cast::display::FormatOptions::new(),
};

/// A column of `rows` copies of `value` (a default of `field`) as `target`. `file` names the
/// metadata (or data) file in errors.
pub fn column(
    file: &str,
    field: &NestedField,
    value: Option<&Value>,
    target: &ArrowType,
    rows: usize,
) -> Result<ArrayRef> {
    let one = single(file, field, &field.field_type, value, target)?;
    if rows == 1 {
        return Ok(one);
    }
    let zeros = UInt32Array::from(vec![0u32; rows]);
    arrow_select::take::take(one.as_ref(), &zeros, None).map_err(|e| Error::corrupt(file, e))
}

fn bad(file: &str, field: &NestedField, value: &Value, why: impl std::fmt::Display) -> Error {
    Error::corrupt(
        file,
        format!(
            "default value {value} of field '{}' (id {}, {}): {why}",
            field.name,
            field.id,
            field.field_type.to_json()
        ),
    )
}

/// One value as a length-1 array of `target`.
fn single(
    file: &str,
    field: &NestedField,
    ty: &Type,
    value: Option<&Value>,
    target: &ArrowType,
) -> Result<ArrayRef> {
    let value = match value {
        None | Some(Value::Null) => return Ok(new_null_array(target, 1)),
        Some(v) => v,
    };
    let text = || {
        value
            .as_str()
            .ok_or_else(|| bad(file, field, value, "expected a JSON string"))
    };
    let array: ArrayRef = match ty {
        Type::Boolean => Arc::new(BooleanArray::from(vec![value
            .as_bool()
            .ok_or_else(|| bad(file, field, value, "expected true or false"))?])),
        Type::Int => Arc::new(Int32Array::from(vec![value
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| bad(file, field, value, "expected a 32-bit integer"))?])),
        Type::Long => Arc::new(Int64Array::from(vec![value
            .as_i64()
            .ok_or_else(|| bad(file, field, value, "expected a 64-bit integer"))?])),
        Type::Float => Arc::new(Float32Array::from(vec![float(value)
            .ok_or_else(|| bad(file, field, value, "expected a number"))?
            as f32])),
        Type::Double => Arc::new(Float64Array::from(vec![
            float(value).ok_or_else(|| bad(file, field, value, "expected a number"))?
        ])),
        Type::Decimal { precision, scale } => {
            let unscaled =
                decimal(text()?, *precision, *scale).map_err(|why| bad(file, field, value, why))?;
            Arc::new(
                Decimal128Array::from(vec![unscaled])
                    .with_precision_and_scale(*precision, *scale as i8)
                    .map_err(|e| bad(file, field, value, e))?,
            )
        }
        Type::Date
        | Type::Time
        | Type::Timestamp
        | Type::Timestamptz
        | Type::TimestampNs
        | Type::TimestamptzNs => {
            let t = text()?;
            let zoned = matches!(ty, Type::Timestamptz | Type::TimestamptzNs);
            let has_zone = t.ends_with('Z') || t.rfind(['+', '-']).is_some_and(|i| i > 10);
            if matches!(ty, Type::Timestamp | Type::TimestampNs) && has_zone {
                return Err(bad(
                    file,
                    field,
                    value,
                    "a timestamp without zone has an offset",
                ));
            }
            if zoned && !has_zone {
                return Err(bad(file, field, value, "a timestamptz without offset"));
            }
            let strings: ArrayRef = Arc::new(StringArray::from(vec![t]));
            // Offsets are parsed to a UTC instant; the zone name is attached afterwards (the
            // cast itself cannot resolve zone names without chrono-tz).
            let (parse_as, zone) = match target {
                ArrowType::Timestamp(unit, zone) => {
                    (ArrowType::Timestamp(*unit, None), zone.clone())
                }
                other => (other.clone(), None),
            };
            let parsed = arrow_cast::cast_with_options(&strings, &parse_as, &STRICT)
                .map_err(|e| bad(file, field, value, e))?;
            match zone {
                None => parsed,
                Some(_) => arrow_array::make_array(
                    parsed
                        .to_data()
                        .into_builder()
                        .data_type(target.clone())
                        .build()
                        .map_err(|e| bad(file, field, value, e))?,
                ),
            }
        }
        Type::String => Arc::new(StringArray::from(vec![text()?])),
        Type::Uuid => {
            let t = text()?;
            let hex_digits: String = t.chars().filter(|c| *c != '-').collect();
            let bytes = hex(&hex_digits)
                .filter(|b| b.len() == 16 && t.len() == 36)
                .ok_or_else(|| bad(file, field, value, "expected a UUID (8-4-4-4-12 hex)"))?;
            Arc::new(BinaryArray::from(vec![bytes.as_slice()]))
        }
        Type::Fixed(n) => {
            let bytes = hex(text()?)
                .filter(|b| b.len() == *n as usize)
                .ok_or_else(|| bad(file, field, value, format!("expected {n} bytes as hex")))?;
            Arc::new(BinaryArray::from(vec![bytes.as_slice()]))
        }
        Type::Binary => {
            let bytes = hex(text()?).ok_or_else(|| bad(file, field, value, "expected hex"))?;
            Arc::new(BinaryArray::from(vec![bytes.as_slice()]))
        }
        Type::Struct(children) => {
            let Value::Object(given) = value else {
                return Err(bad(file, field, value, "expected a JSON object"));
            };
            let ArrowType::Struct(arrow_children) = target else {
                return Err(bad(file, field, value, format!("read as {target}")));
            };
            let columns = children
                .iter()
                .zip(arrow_children.iter())
                .map(|(child, af)| {
                    let v = given
                        .get(&child.id.to_string())
                        .or(child.initial_default.as_ref());
                    single(file, child, &child.field_type, v, af.data_type())
                })
                .collect::<Result<Vec<_>>>()?;
            Arc::new(
                StructArray::try_new(arrow_children.clone(), columns, None)
                    .map_err(|e| bad(file, field, value, e))?,
            )
        }
        Type::List { .. } | Type::Map { .. } => {
            return Err(Error::unsupported(
                file,
                format!(
                    "a non-null default of list or map field '{}' (id {})",
                    field.name, field.id
                ),
            ))
        }
        Type::Other(name) => {
            return Err(bad(
                file,
                field,
                value,
                format!("columns of type {name} must default to null"),
            ))
        }
    };
    if array.data_type() == target {
        return Ok(array);
    }
    arrow_cast::cast_with_options(&array, target, &STRICT).map_err(|e| bad(file, field, value, e))
}

fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// The unscaled value of a decimal string with exactly `scale` fraction digits.
fn decimal(text: &str, precision: u8, scale: u8) -> std::result::Result<i128, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if frac.len() != scale as usize {
        return Err(format!("expected {scale} digits after the point"));
    }
    let all = format!("{int}{frac}");
    if all.is_empty() || !all.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a plain decimal number".into());
    }
    if all.trim_start_matches('0').len() > precision as usize {
        return Err(format!("more than {precision} digits"));
    }
    let v: i128 = all.parse().map_err(|e| format!("{e}"))?;
    Ok(if negative { -v } else { v })
}

/// Bytes of a hex string (`None` if it is not hex).
pub(crate) fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_schema::TimeUnit;
    use serde_json::json;

    fn field(t: Type) -> NestedField {
        NestedField {
            id: 5,
            name: "c".into(),
            required: false,
            field_type: t,
            doc: None,
            initial_default: None,
            write_default: None,
        }
    }

    fn one(t: Type, v: Value, target: ArrowType) -> Result<ArrayRef> {
        column("m.json", &field(t), Some(&v), &target, 3)
    }

    #[test]
    fn decodes_single_values_per_type() {
        let d = one(
            Type::Decimal {
                precision: 9,
                scale: 2,
            },
            json!("-1.50"),
            ArrowType::Decimal128(9, 2),
        )
        .unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(
            d.as_primitive::<arrow_array::types::Decimal128Type>()
                .value(2),
            -150
        );
        let ts = one(
            Type::Timestamp,
            json!("2024-05-01T10:00:00.123456"),
            ArrowType::Timestamp(TimeUnit::Microsecond, None),
        )
        .unwrap();
        assert_eq!(
            ts.as_primitive::<arrow_array::types::TimestampMicrosecondType>()
                .value(0),
            1_714_557_600_123_456
        );
        let tz = one(
            Type::Timestamptz,
            json!("2024-05-01T12:00:00.5+02:00"),
            ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        )
        .unwrap();
        assert_eq!(
            tz.as_primitive::<arrow_array::types::TimestampMicrosecondType>()
                .value(0),
            1_714_557_600_500_000
        );
        let u = one(
            Type::Uuid,
            json!("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
            ArrowType::Binary,
        )
        .unwrap();
        assert_eq!(u.as_binary::<i32>().value(1)[0], 0xf7);
        let f = one(Type::Fixed(2), json!("00ff"), ArrowType::Binary).unwrap();
        assert_eq!(f.as_binary::<i32>().value(0), &[0, 255]);
        let n = column("m", &field(Type::Int), None, &ArrowType::Int32, 2).unwrap();
        assert_eq!(n.null_count(), 2);
    }

    #[test]
    fn bad_defaults_are_named_errors() {
        for (t, v, target) in [
            (Type::Int, json!("seven"), ArrowType::Int32),
            (Type::Int, json!(5_000_000_000i64), ArrowType::Int32),
            (
                Type::Decimal {
                    precision: 9,
                    scale: 2,
                },
                json!("1.5"),
                ArrowType::Decimal128(9, 2),
            ),
            (Type::Date, json!("2024-02-30"), ArrowType::Date32),
            (
                Type::Timestamptz,
                json!("2024-05-01T10:00:00"),
                ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            ),
            (Type::Uuid, json!("xyz"), ArrowType::Binary),
            (Type::Other("unknown".into()), json!(1), ArrowType::Null),
        ] {
            let err = one(t.clone(), v.clone(), target).unwrap_err().to_string();
            assert!(
                err.contains("m.json") && err.contains("'c'"),
                "{t:?} {v}: {err}"
            );
        }
    }
}
