//! The rows of one decompressed block, decoded field after field into values.

use super::corrupt;
use super::cursor::{Cursor, Step};
use crate::read::evolution::be_bytes_to_i128;
use crate::spec::{DataField, DataType, TypeKind};
use crate::Result;

/// One decoded value, before it is put into an Arrow column.
#[derive(Debug, Clone)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Decimal(i128),
    Text(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Map(Vec<Value>, Vec<Value>),
    Row(Vec<Value>),
    Variant { value: Vec<u8>, metadata: Vec<u8> },
}

/// Reads the rows of one decompressed block, appending the kept fields' values to `out`;
/// returns the row count.
pub(super) fn read_block(
    file: &str,
    n: usize,
    data: &[u8],
    layout: &[DataField],
    keep: &[Option<usize>],
    out: &mut [Vec<Value>],
) -> Result<usize> {
    let fail = |e: String| corrupt(file, format!("block {n}: {e}"));
    let len = data.len();
    if len < 4 {
        return Err(fail(format!("{len} bytes hold no row count")));
    }
    let rows = i32::from_le_bytes([data[len - 4], data[len - 3], data[len - 2], data[len - 1]]);
    let rows = usize::try_from(rows).map_err(|_| fail(format!("row count {rows}")))?;
    let offsets_start = rows
        .checked_mul(4)
        .and_then(|b| (len - 4).checked_sub(b))
        .ok_or_else(|| fail(format!("{rows} row offsets do not fit in {len} bytes")))?;
    let mut offsets = Cursor::new(&data[offsets_start..len - 4]);
    let mut cursor = Cursor::new(&data[..offsets_start]);
    for v in out.iter_mut() {
        v.reserve(rows);
    }
    for row in 0..rows {
        let start = offsets.i32().map_err(&fail)?;
        if usize::try_from(start).ok() != Some(cursor.pos) {
            return Err(fail(format!(
                "row {row} starts at {start}, the previous row ends at {} (read with another row type than it was written with?)",
                cursor.pos
            )));
        }
        let nulls = cursor.bitmap(layout.len()).map_err(&fail)?;
        for (i, field) in layout.iter().enumerate() {
            let value = if cursor.bit(nulls, i) {
                Value::Null
            } else {
                read_value(&mut cursor, &field.data_type)
                    .map_err(|e| fail(format!("row {row}, column {}: {e}", field.name)))?
            };
            if let Some(slot) = keep[i] {
                out[slot].push(value);
            }
        }
    }
    if cursor.pos != offsets_start {
        return Err(fail(format!(
            "the rows end at {}, the row offsets start at {offsets_start} (read with another row type than it was written with?)",
            cursor.pos
        )));
    }
    Ok(rows)
}

fn read_elements(c: &mut Cursor, element: &DataType) -> Step<Vec<Value>> {
    let size = c.varint()?;
    let nulls = c.bitmap(size)?;
    (0..size)
        .map(|i| {
            if c.bit(nulls, i) {
                Ok(Value::Null)
            } else {
                read_value(c, element)
            }
        })
        .collect()
}

fn read_value(c: &mut Cursor, ty: &DataType) -> Step<Value> {
    Ok(match &ty.kind {
        TypeKind::Boolean => Value::Bool(c.u8()? != 0),
        TypeKind::TinyInt => Value::Int(i64::from(c.u8()? as i8)),
        TypeKind::SmallInt => Value::Int(i64::from(c.i16()?)),
        TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => Value::Int(i64::from(c.i32()?)),
        TypeKind::BigInt => Value::Int(c.i64()?),
        TypeKind::Float => Value::Float(f64::from(f32::from_le_bytes(c.array()?))),
        TypeKind::Double => Value::Float(f64::from_le_bytes(c.array()?)),
        TypeKind::Decimal { precision, .. } => {
            if *precision <= 18 {
                Value::Decimal(i128::from(c.i64()?))
            } else {
                let raw = c.bytes()?;
                Value::Decimal(
                    be_bytes_to_i128(raw)
                        .ok_or_else(|| format!("a {}-byte unscaled decimal", raw.len()))?,
                )
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => Value::Text(
            std::str::from_utf8(c.bytes()?)
                .map_err(|e| format!("a string that is not UTF-8: {e}"))?
                .to_string(),
        ),
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Value::Bytes(c.bytes()?.to_vec()),
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let millis = c.i64()?;
            let nanos = if *p <= 3 { 0 } else { c.varint()? };
            if nanos >= 1_000_000 {
                return Err(format!("{nanos} nanoseconds of a millisecond"));
            }
            let value = if *p <= 6 {
                millis.checked_mul(1000).map(|m| m + (nanos / 1000) as i64)
            } else {
                millis.checked_mul(1_000_000).map(|m| m + nanos as i64)
            };
            Value::Int(value.ok_or_else(|| format!("timestamp {millis} ms out of range"))?)
        }
        TypeKind::Array(element) => Value::List(read_elements(c, element)?),
        TypeKind::Map(key, value) => {
            let keys = read_elements(c, key)?;
            let values = read_elements(c, value)?;
            Value::Map(keys, values)
        }
        TypeKind::Multiset(element) => {
            let keys = read_elements(c, element)?;
            let counts = read_elements(c, &DataType::nullable(TypeKind::Int))?;
            Value::Map(keys, counts)
        }
        TypeKind::Row(fields) => {
            let nulls = c.bitmap(fields.len())?;
            let mut values = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                values.push(if c.bit(nulls, i) {
                    Value::Null
                } else {
                    read_value(c, &f.data_type)?
                });
            }
            Value::Row(values)
        }
        TypeKind::Variant => {
            let value = c.bytes()?.to_vec();
            let metadata = c.bytes()?.to_vec();
            Value::Variant { value, metadata }
        }
        // A varint size, then the elements, none null (no bitmap).
        TypeKind::Vector(element, _) => {
            let size = c.varint()?;
            let mut values = Vec::with_capacity(size.min(c.data.len()));
            for _ in 0..size {
                values.push(read_value(c, element)?);
            }
            Value::List(values)
        }
        // Refused before decoding (see `decode`).
        TypeKind::Blob => return Err(format!("a {ty} value")),
    })
}
