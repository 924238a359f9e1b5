//! Partition tuples of rows (the spec's transforms), their folder names and their Avro form.

use super::data::literal_at;
use crate::spec::transform::{civil_from_days, Transform};
use crate::spec::{Literal, PartitionSpec, Schema, Type};
use crate::{Error, Result};
use apache_avro::types::Value;
use arrow_array::{RecordBatch, UInt32Array};
use arrow_select::take::take_record_batch;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// The partition values of one row, in spec order (`None`: null).
pub type PartitionTuple = Vec<Option<Literal>>;

/// One field of a partition spec, resolved against the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecField {
    /// The partition field's id (`field-id`).
    pub field_id: i32,
    /// The partition field's name (the key in folder names and the Avro partition record).
    pub name: String,
    /// Index of the source column among the schema's top-level fields.
    pub source_index: usize,
    /// The transform that makes the partition value from the source value.
    pub transform: Transform,
    /// Type of the partition values.
    pub result_type: Type,
}

/// The fields of `spec` resolved against `schema` (top-level source columns only).
pub fn spec_fields(table: &str, schema: &Schema, spec: &PartitionSpec) -> Result<Vec<SpecField>> {
    spec.fields
        .iter()
        .map(|f| {
            let transform = Transform::parse(&f.transform).ok_or_else(|| {
                Error::unsupported(table, format!("partition transform {}", f.transform))
            })?;
            let source_index = schema
                .fields
                .iter()
                .position(|c| c.id == f.source_id)
                .ok_or_else(|| {
                    Error::unsupported(
                        table,
                        format!("partition field {} of a nested or dropped column", f.name),
                    )
                })?;
            Ok(SpecField {
                field_id: f.field_id.unwrap_or(1000),
                name: f.name.clone(),
                source_index,
                transform,
                result_type: transform.result_type(&schema.fields[source_index].field_type),
            })
        })
        .collect()
}

/// Splits a batch (in file schema) into one batch per partition tuple, in tuple order.
pub fn split(
    batch: &RecordBatch,
    fields: &[SpecField],
) -> Result<Vec<(PartitionTuple, RecordBatch)>> {
    if fields.is_empty() {
        return Ok(vec![(Vec::new(), batch.clone())]);
    }
    // Tuples are grouped by their debug text: literals of one column have one variant, so equal
    // texts are equal tuples (floats included, unlike `==` on NaN).
    let mut groups: BTreeMap<String, (PartitionTuple, Vec<u32>)> = BTreeMap::new();
    for row in 0..batch.num_rows() {
        let tuple: PartitionTuple = fields
            .iter()
            .map(|f| {
                let source = literal_at(batch.column(f.source_index).as_ref(), row);
                f.transform.apply(source.as_ref())
            })
            .collect();
        let key = format!("{tuple:?}");
        let row = u32::try_from(row)
            .map_err(|_| Error::Invalid("more than 2^32 rows in one batch".into()))?;
        groups
            .entry(key)
            .or_insert_with(|| (tuple, Vec::new()))
            .1
            .push(row);
    }
    groups
        .into_values()
        .map(|(tuple, rows)| {
            let part = take_record_batch(batch, &UInt32Array::from(rows))
                .map_err(|e| Error::Invalid(format!("splitting rows by partition: {e}")))?;
            Ok((tuple, part))
        })
        .collect()
}

fn date_text(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// `2024-05-01T10:00:00.000000` (the hour alone with `hour_only`: `2024-05-01-10`).
fn micros_text(micros: i64, hour_only: bool) -> String {
    let date = date_text(micros.div_euclid(MICROS_PER_DAY));
    let t = micros.rem_euclid(MICROS_PER_DAY);
    let (h, m, s, us) = (
        t / 3_600_000_000,
        t / 60_000_000 % 60,
        t / 1_000_000 % 60,
        t % 1_000_000,
    );
    if hour_only {
        format!("{date}-{h:02}")
    } else {
        format!("{date}T{h:02}:{m:02}:{s:02}.{us:06}")
    }
}

/// The human-readable text of a partition value, as Java's `PartitionSpec.partitionToPath`
/// writes it (days as `2024-05-01`, hours as `2024-05-01-10`, months as `2024-05`).
fn value_text(field: &SpecField, value: &Literal) -> String {
    match (field.transform, value) {
        (Transform::Day, Literal::Int(d)) => date_text(i64::from(*d)),
        (Transform::Hour, Literal::Int(h)) => micros_text(i64::from(*h) * 3_600_000_000, true),
        (Transform::Month, Literal::Int(m)) => {
            let (y, m) = (1970 + m.div_euclid(12), m.rem_euclid(12) + 1);
            format!("{y:04}-{m:02}")
        }
        (Transform::Year, Literal::Int(y)) => format!("{:04}", 1970 + y),
        (_, v) => match (&field.result_type, v) {
            (Type::Date, Literal::Int(d)) => date_text(i64::from(*d)),
            (Type::Timestamp | Type::Timestamptz, Literal::Long(us)) => micros_text(*us, false),
            (Type::Decimal { scale, .. }, Literal::Decimal(u)) => decimal_text(*u, *scale),
            (_, Literal::Boolean(b)) => b.to_string(),
            (_, Literal::Int(i)) => i.to_string(),
            (_, Literal::Long(l)) => l.to_string(),
            (_, Literal::Float(f)) => f.to_string(),
            (_, Literal::Double(f)) => f.to_string(),
            (_, Literal::String(s)) => s.clone(),
            (_, Literal::Bytes(b)) => b.iter().map(|x| format!("{x:02x}")).collect(),
            (_, Literal::Decimal(u)) => u.to_string(),
        },
    }
}

fn decimal_text(unscaled: i128, scale: u8) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// Escapes a path segment as `URLEncoder` does for the characters that matter in keys.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'*') {
            out.push(char::from(b));
        } else if b == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The folder of a partition under `data/`: `ts_day=2024-05-01/id_bucket=3` (`null` for nulls).
pub fn partition_path(fields: &[SpecField], tuple: &PartitionTuple) -> String {
    fields
        .iter()
        .zip(tuple)
        .map(|(f, v)| {
            let text = v
                .as_ref()
                .map_or_else(|| "null".to_string(), |v| value_text(f, v));
            format!("{}={}", escape(&f.name), escape(&text))
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Bytes of the fixed type Java stores a decimal of this precision in.
fn decimal_size(precision: u8) -> usize {
    let bits = f64::from(precision) * std::f64::consts::LOG2_10;
    (1..=16).find(|n| (8 * n - 1) as f64 >= bits).unwrap_or(16)
}

/// The Avro schema of a partition value type (always optional, as Java writes it).
fn avro_type(field: &SpecField) -> Result<Json> {
    let t = match &field.result_type {
        Type::Boolean => json!("boolean"),
        Type::Int => json!("int"),
        Type::Long => json!("long"),
        Type::Float => json!("float"),
        Type::Double => json!("double"),
        Type::Date => json!({"type": "int", "logicalType": "date"}),
        Type::Time => json!({"type": "long", "logicalType": "time-micros"}),
        Type::Timestamp => {
            json!({"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": false})
        }
        Type::Timestamptz => {
            json!({"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true})
        }
        Type::String => json!("string"),
        Type::Binary => json!("bytes"),
        Type::Fixed(n) => {
            json!({"type": "fixed", "name": format!("fixed_{}", field.field_id), "size": n})
        }
        Type::Decimal { precision, scale } => json!({
            "type": "fixed", "name": format!("decimal_{}", field.field_id),
            "size": decimal_size(*precision), "logicalType": "decimal",
            "precision": precision, "scale": scale
        }),
        other => {
            return Err(Error::Invalid(format!(
                "partition field {}: {} values cannot be written",
                field.name,
                other.to_json()
            )))
        }
    };
    Ok(
        json!({"field-id": field.field_id, "default": null, "name": field.name, "type": ["null", t]}),
    )
}

/// The Avro record schema of the partition tuple (`r102`, as in Java's manifests).
pub fn avro_partition_schema(fields: &[SpecField]) -> Result<Json> {
    let fields = fields.iter().map(avro_type).collect::<Result<Vec<_>>>()?;
    Ok(json!({"type": "record", "name": "r102", "fields": fields}))
}

fn avro_value(field: &SpecField, value: &Literal) -> Result<Value> {
    Ok(match (&field.result_type, value) {
        (Type::Date, Literal::Int(d)) => Value::Date(*d),
        (Type::Time, Literal::Long(us)) => Value::TimeMicros(*us),
        // Both are `timestamp-micros` in Avro; `adjust-to-utc` tells them apart.
        (Type::Timestamp | Type::Timestamptz, Literal::Long(us)) => Value::TimestampMicros(*us),
        (Type::Decimal { precision, .. }, Literal::Decimal(u)) => {
            let size = decimal_size(*precision);
            let bytes = u.to_be_bytes();
            Value::Decimal(apache_avro::Decimal::from(&bytes[16 - size..]))
        }
        (Type::Fixed(n), Literal::Bytes(b)) => Value::Fixed(*n as usize, b.clone()),
        (_, Literal::Boolean(b)) => Value::Boolean(*b),
        (_, Literal::Int(i)) => Value::Int(*i),
        (_, Literal::Long(l)) => Value::Long(*l),
        (_, Literal::Float(f)) => Value::Float(*f),
        (_, Literal::Double(f)) => Value::Double(*f),
        (_, Literal::String(s)) => Value::String(s.clone()),
        (_, Literal::Bytes(b)) => Value::Bytes(b.clone()),
        (t, v) => {
            return Err(Error::Invalid(format!(
                "partition field {}: value {v:?} does not fit type {}",
                field.name,
                t.to_json()
            )))
        }
    })
}

/// The Avro record of a partition tuple.
pub fn avro_partition(fields: &[SpecField], tuple: &PartitionTuple) -> Result<Value> {
    let values = fields
        .iter()
        .zip(tuple)
        .map(|(f, v)| {
            let v = match v {
                None => Value::Union(0, Box::new(Value::Null)),
                Some(v) => Value::Union(1, Box::new(avro_value(f, v)?)),
            };
            Ok((f.name.clone(), v))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::Record(values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{NestedField, PartitionField};
    use arrow_array::{ArrayRef, StringArray, TimestampMicrosecondArray};
    use std::sync::Arc;

    fn field(id: i32, name: &str, t: Type) -> NestedField {
        NestedField {
            id,
            name: name.into(),
            required: false,
            field_type: t,
            doc: None,
            initial_default: None,
            write_default: None,
        }
    }

    #[test]
    fn splits_rows_and_names_folders() {
        let schema = Schema {
            schema_id: 0,
            identifier_field_ids: vec![],
            fields: vec![
                field(1, "user_id", Type::String),
                field(2, "ts", Type::Timestamp),
            ],
        };
        let pf = |source_id, field_id, name: &str, transform: &str| PartitionField {
            source_id,
            field_id: Some(field_id),
            name: name.into(),
            transform: transform.into(),
        };
        let spec = PartitionSpec {
            spec_id: 0,
            fields: vec![
                pf(2, 1000, "ts_day", "day"),
                pf(1, 1001, "user_id_bucket", "bucket[16]"),
                pf(1, 1002, "user_id_trunc", "truncate[4]"),
            ],
        };
        let fields = spec_fields("t", &schema, &spec).unwrap();
        let day = 1_714_557_600_000_000; // 2024-05-01T10:00
        let batch = RecordBatch::try_from_iter(vec![
            (
                "user_id",
                Arc::new(StringArray::from(vec![
                    Some("iceberg"),
                    Some("iceberg"),
                    None,
                ])) as ArrayRef,
            ),
            (
                "ts",
                Arc::new(TimestampMicrosecondArray::from(vec![
                    Some(day),
                    Some(day + 1),
                    None,
                ])) as ArrayRef,
            ),
        ])
        .unwrap();
        let parts = split(&batch, &fields).unwrap();
        assert_eq!(parts.len(), 2);
        let (tuple, rows) = parts.iter().find(|(t, _)| t[0].is_some()).unwrap();
        assert_eq!(rows.num_rows(), 2);
        // bucket: murmur3("iceberg") = 1210000089 → 1210000089 % 16 = 9.
        assert_eq!(
            tuple,
            &vec![
                Some(Literal::Int(19844)),
                Some(Literal::Int(9)),
                Some(Literal::String("iceb".into()))
            ]
        );
        assert_eq!(
            partition_path(&fields, tuple),
            "ts_day=2024-05-01/user_id_bucket=9/user_id_trunc=iceb"
        );
        let (nulls, rows) = parts.iter().find(|(t, _)| t[0].is_none()).unwrap();
        assert_eq!(nulls, &vec![None, None, None]);
        assert!(rows.column(0).is_null(0));
        assert_eq!(
            partition_path(&fields, nulls),
            "ts_day=null/user_id_bucket=null/user_id_trunc=null"
        );
        // The Avro schema and record agree.
        let schema = apache_avro::Schema::parse(&avro_partition_schema(&fields).unwrap()).unwrap();
        let record = avro_partition(&fields, tuple).unwrap();
        assert!(record.validate(&schema));
        assert_eq!(escape("a b/c"), "a+b%2Fc");
        assert_eq!(micros_text(day, false), "2024-05-01T10:00:00.000000");
        assert_eq!(micros_text(-1, true), "1969-12-31-23");
        assert_eq!(decimal_text(-1250, 2), "-12.50");
        assert_eq!(decimal_text(5, 2), "0.05");
        assert_eq!(decimal_size(10), 5);
        assert_eq!(decimal_size(9), 4);
    }
}
