//! Arrow arrays and record batches as bytes between wasm instances (the page and the app's
//! decoder worker): their buffers as they are, each after a short binary description, so that
//! neither side links Arrow IPC (the explorer's first load then has no IPC reader or writer).
//!
//! An array: its type ([`put_type`]), length, offset, validity (flag, then bit offset, bit
//! length and bytes), its buffers (count, then each one's length and bytes) and its children
//! (count, then each one as an array). A batch list: the count of batches, then (when there are
//! any) the schema (fields and metadata) and each batch's row count and columns. Integers are
//! u64 little-endian; strings their length and UTF-8 bytes. Reading validates every array fully.

use arrow_array::{make_array, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{ArrowError, DataType, Field, IntervalUnit, Schema, TimeUnit};
use std::collections::HashMap;
use std::sync::Arc;

/// Why arrays cannot be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// A type this encoding does not carry (neither Parquet nor ORC files decode to it).
    #[error("an Arrow {0} array cannot be sent to or from the decoder worker")]
    Unsupported(String),
    /// Fewer bytes than described.
    #[error("the transferred arrays end after {available} more bytes, {needed} were described")]
    Truncated {
        /// The bytes the next part needs.
        needed: usize,
        /// The bytes left.
        available: usize,
    },
    /// More bytes than described.
    #[error("{0} bytes follow the transferred arrays")]
    TrailingBytes(usize),
    /// A description that is not one this module writes.
    #[error("the transferred arrays are malformed: {0}")]
    Malformed(String),
    /// The buffers do not make valid arrays of the described types.
    #[error("rebuilding the transferred arrays: {0}")]
    Invalid(#[from] ArrowError),
}

type Result<T> = std::result::Result<T, TransferError>;

/// `array` as bytes that [`from_bytes`] reads back.
pub fn to_bytes(array: &dyn Array) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    put_array(&array.to_data(), &mut out)?;
    Ok(out)
}

/// The array that [`to_bytes`] wrote.
pub fn from_bytes(bytes: &[u8]) -> Result<ArrayRef> {
    let mut rest = bytes;
    let data = take_array(&mut rest)?;
    finished(rest)?;
    Ok(make_array(data))
}

/// `batches` (all of the first one's schema) as bytes that [`batches_from_bytes`] reads back.
pub fn batches_to_bytes(batches: &[RecordBatch]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    put_len(batches.len(), &mut out);
    let Some(first) = batches.first() else {
        return Ok(out);
    };
    let schema = first.schema_ref();
    put_len(schema.fields().len(), &mut out);
    for field in schema.fields() {
        put_field(field, &mut out)?;
    }
    put_metadata(schema.metadata(), &mut out);
    for batch in batches {
        put_len(batch.num_rows(), &mut out);
        for column in batch.columns() {
            put_array(&column.to_data(), &mut out)?;
        }
    }
    Ok(out)
}

/// The batches that [`batches_to_bytes`] wrote.
pub fn batches_from_bytes(bytes: &[u8]) -> Result<Vec<RecordBatch>> {
    let mut rest = bytes;
    let count = take_len(&mut rest)?;
    if count == 0 {
        finished(rest)?;
        return Ok(Vec::new());
    }
    let fields = (0..take_len(&mut rest)?)
        .map(|_| take_field(&mut rest))
        .collect::<Result<Vec<_>>>()?;
    let schema = Arc::new(Schema::new_with_metadata(fields, take_metadata(&mut rest)?));
    let mut batches = Vec::new();
    for _ in 0..count {
        let rows = take_len(&mut rest)?;
        let columns = (0..schema.fields().len())
            .map(|_| take_array(&mut rest).map(make_array))
            .collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        batches.push(RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &options,
        )?);
    }
    finished(rest)?;
    Ok(batches)
}

fn put_array(data: &ArrayData, out: &mut Vec<u8>) -> Result<()> {
    put_type(data.data_type(), out)?;
    put_len(data.len(), out);
    put_len(data.offset(), out);
    match data.nulls() {
        Some(nulls) => {
            out.push(1);
            put_len(nulls.offset(), out);
            put_len(nulls.len(), out);
            put_bytes(nulls.buffer().as_slice(), out);
        }
        None => out.push(0),
    }
    put_len(data.buffers().len(), out);
    for buffer in data.buffers() {
        put_bytes(buffer.as_slice(), out);
    }
    put_len(data.child_data().len(), out);
    for child in data.child_data() {
        put_array(child, out)?;
    }
    Ok(())
}

fn take_array(rest: &mut &[u8]) -> Result<ArrayData> {
    let data_type = take_type(rest)?;
    let len = take_len(rest)?;
    let offset = take_len(rest)?;
    let nulls = match take_u8(rest)? {
        0 => None,
        _ => {
            let (bit_offset, bit_len) = (take_len(rest)?, take_len(rest)?);
            let bits = take_bytes(rest)?;
            let fits = bit_offset
                .checked_add(bit_len)
                .map(|end| end.div_ceil(8) <= bits.len());
            if fits != Some(true) {
                return Err(TransferError::Malformed(format!(
                    "validity of {bit_len} bits from bit {bit_offset} in {} bytes",
                    bits.len()
                )));
            }
            let bits = BooleanBuffer::new(Buffer::from_slice_ref(bits), bit_offset, bit_len);
            Some(NullBuffer::new(bits))
        }
    };
    let buffers = (0..take_len(rest)?)
        .map(|_| take_bytes(rest).map(Buffer::from_slice_ref))
        .collect::<Result<Vec<_>>>()?;
    let children = (0..take_len(rest)?)
        .map(|_| take_array(rest))
        .collect::<Result<Vec<_>>>()?;
    Ok(ArrayDataBuilder::new(data_type)
        .len(len)
        .offset(offset)
        .nulls(nulls)
        .buffers(buffers)
        .child_data(children)
        .build()?)
}

fn put_field(field: &Field, out: &mut Vec<u8>) -> Result<()> {
    put_bytes(field.name().as_bytes(), out);
    out.push(u8::from(field.is_nullable()));
    put_metadata(field.metadata(), out);
    put_type(field.data_type(), out)
}

fn take_field(rest: &mut &[u8]) -> Result<Field> {
    let name = take_string(rest)?;
    let nullable = take_u8(rest)? != 0;
    let metadata = take_metadata(rest)?;
    Ok(Field::new(name, take_type(rest)?, nullable).with_metadata(metadata))
}

fn put_metadata(metadata: &HashMap<String, String>, out: &mut Vec<u8>) {
    put_len(metadata.len(), out);
    for (key, value) in metadata {
        put_bytes(key.as_bytes(), out);
        put_bytes(value.as_bytes(), out);
    }
}

fn take_metadata(rest: &mut &[u8]) -> Result<HashMap<String, String>> {
    (0..take_len(rest)?)
        .map(|_| Ok((take_string(rest)?, take_string(rest)?)))
        .collect()
}

/// A type as its tag byte, then its parameters (units as [`unit_tag`], fields as [`put_field`]).
fn put_type(data_type: &DataType, out: &mut Vec<u8>) -> Result<()> {
    use DataType as T;
    let simple = match data_type {
        T::Null => 0,
        T::Boolean => 1,
        T::Int8 => 2,
        T::Int16 => 3,
        T::Int32 => 4,
        T::Int64 => 5,
        T::UInt8 => 6,
        T::UInt16 => 7,
        T::UInt32 => 8,
        T::UInt64 => 9,
        T::Float16 => 10,
        T::Float32 => 11,
        T::Float64 => 12,
        T::Date32 => 13,
        T::Date64 => 14,
        T::Binary => 15,
        T::LargeBinary => 16,
        T::BinaryView => 17,
        T::Utf8 => 18,
        T::LargeUtf8 => 19,
        T::Utf8View => 20,
        _ => u8::MAX,
    };
    if simple != u8::MAX {
        out.push(simple);
        return Ok(());
    }
    match data_type {
        T::Timestamp(unit, zone) => {
            out.extend([30, unit_tag(unit)]);
            match zone {
                Some(zone) => {
                    out.push(1);
                    put_bytes(zone.as_bytes(), out);
                }
                None => out.push(0),
            }
        }
        T::Time32(unit) => out.extend([31, unit_tag(unit)]),
        T::Time64(unit) => out.extend([32, unit_tag(unit)]),
        T::Duration(unit) => out.extend([33, unit_tag(unit)]),
        T::Interval(unit) => out.extend([
            34,
            match unit {
                IntervalUnit::YearMonth => 0,
                IntervalUnit::DayTime => 1,
                IntervalUnit::MonthDayNano => 2,
            },
        ]),
        T::FixedSizeBinary(size) => {
            out.push(35);
            out.extend(size.to_le_bytes());
        }
        T::Decimal32(p, s) | T::Decimal64(p, s) | T::Decimal128(p, s) | T::Decimal256(p, s) => {
            let tag = match data_type {
                T::Decimal32(..) => 36,
                T::Decimal64(..) => 37,
                T::Decimal128(..) => 38,
                _ => 39,
            };
            out.extend([tag, *p]);
            out.extend(s.to_le_bytes());
        }
        T::List(f) | T::LargeList(f) | T::ListView(f) | T::LargeListView(f) => {
            out.push(match data_type {
                T::List(_) => 40,
                T::LargeList(_) => 41,
                T::ListView(_) => 42,
                _ => 43,
            });
            put_field(f, out)?;
        }
        T::FixedSizeList(f, size) => {
            out.push(44);
            out.extend(size.to_le_bytes());
            put_field(f, out)?;
        }
        T::Struct(fields) => {
            out.push(45);
            put_len(fields.len(), out);
            for f in fields {
                put_field(f, out)?;
            }
        }
        T::Map(f, sorted) => {
            out.extend([46, u8::from(*sorted)]);
            put_field(f, out)?;
        }
        T::Dictionary(key, value) => {
            out.push(47);
            put_type(key, out)?;
            put_type(value, out)?;
        }
        T::RunEndEncoded(run_ends, values) => {
            out.push(48);
            put_field(run_ends, out)?;
            put_field(values, out)?;
        }
        other => return Err(TransferError::Unsupported(other.to_string())),
    }
    Ok(())
}

fn take_type(rest: &mut &[u8]) -> Result<DataType> {
    use DataType as T;
    let tag = take_u8(rest)?;
    Ok(match tag {
        0 => T::Null,
        1 => T::Boolean,
        2 => T::Int8,
        3 => T::Int16,
        4 => T::Int32,
        5 => T::Int64,
        6 => T::UInt8,
        7 => T::UInt16,
        8 => T::UInt32,
        9 => T::UInt64,
        10 => T::Float16,
        11 => T::Float32,
        12 => T::Float64,
        13 => T::Date32,
        14 => T::Date64,
        15 => T::Binary,
        16 => T::LargeBinary,
        17 => T::BinaryView,
        18 => T::Utf8,
        19 => T::LargeUtf8,
        20 => T::Utf8View,
        30 => {
            let unit = take_unit(rest)?;
            let zone = match take_u8(rest)? {
                0 => None,
                _ => Some(take_string(rest)?.into()),
            };
            T::Timestamp(unit, zone)
        }
        31 => T::Time32(take_unit(rest)?),
        32 => T::Time64(take_unit(rest)?),
        33 => T::Duration(take_unit(rest)?),
        34 => T::Interval(match take_u8(rest)? {
            0 => IntervalUnit::YearMonth,
            1 => IntervalUnit::DayTime,
            2 => IntervalUnit::MonthDayNano,
            other => return Err(TransferError::Malformed(format!("interval unit {other}"))),
        }),
        35 => T::FixedSizeBinary(i32::from_le_bytes(take_array_of(rest)?)),
        36..=39 => {
            let precision = take_u8(rest)?;
            let scale = i8::from_le_bytes(take_array_of(rest)?);
            match tag {
                36 => T::Decimal32(precision, scale),
                37 => T::Decimal64(precision, scale),
                38 => T::Decimal128(precision, scale),
                _ => T::Decimal256(precision, scale),
            }
        }
        40..=43 => {
            let field = Arc::new(take_field(rest)?);
            match tag {
                40 => T::List(field),
                41 => T::LargeList(field),
                42 => T::ListView(field),
                _ => T::LargeListView(field),
            }
        }
        44 => {
            let size = i32::from_le_bytes(take_array_of(rest)?);
            T::FixedSizeList(Arc::new(take_field(rest)?), size)
        }
        45 => T::Struct(
            (0..take_len(rest)?)
                .map(|_| take_field(rest))
                .collect::<Result<Vec<_>>>()?
                .into(),
        ),
        46 => {
            let sorted = take_u8(rest)? != 0;
            T::Map(Arc::new(take_field(rest)?), sorted)
        }
        47 => T::Dictionary(Box::new(take_type(rest)?), Box::new(take_type(rest)?)),
        48 => T::RunEndEncoded(Arc::new(take_field(rest)?), Arc::new(take_field(rest)?)),
        other => return Err(TransferError::Malformed(format!("type tag {other}"))),
    })
}

fn unit_tag(unit: &TimeUnit) -> u8 {
    match unit {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    }
}

fn take_unit(rest: &mut &[u8]) -> Result<TimeUnit> {
    Ok(match take_u8(rest)? {
        0 => TimeUnit::Second,
        1 => TimeUnit::Millisecond,
        2 => TimeUnit::Microsecond,
        3 => TimeUnit::Nanosecond,
        other => return Err(TransferError::Malformed(format!("time unit {other}"))),
    })
}

fn put_len(len: usize, out: &mut Vec<u8>) {
    out.extend((len as u64).to_le_bytes());
}

fn put_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    put_len(bytes.len(), out);
    out.extend_from_slice(bytes);
}

fn take_len(rest: &mut &[u8]) -> Result<usize> {
    let len = u64::from_le_bytes(take_array_of(rest)?);
    usize::try_from(len).map_err(|_| TransferError::Malformed(format!("a length of {len}")))
}

fn take_u8(rest: &mut &[u8]) -> Result<u8> {
    Ok(take(rest, 1)?[0])
}

fn take_array_of<const N: usize>(rest: &mut &[u8]) -> Result<[u8; N]> {
    let mut out = [0; N];
    out.copy_from_slice(take(rest, N)?);
    Ok(out)
}

fn take_bytes<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8]> {
    let len = take_len(rest)?;
    take(rest, len)
}

fn take_string(rest: &mut &[u8]) -> Result<String> {
    String::from_utf8(take_bytes(rest)?.to_vec())
        .map_err(|e| TransferError::Malformed(format!("a name or metadata entry: {e}")))
}

/// The first `needed` bytes of `rest`, which then starts after them.
fn take<'a>(rest: &mut &'a [u8], needed: usize) -> Result<&'a [u8]> {
    if needed > rest.len() {
        return Err(TransferError::Truncated {
            needed,
            available: rest.len(),
        });
    }
    let (front, back) = rest.split_at(needed);
    *rest = back;
    Ok(front)
}

/// Refuses bytes after the last described part.
fn finished(rest: &[u8]) -> Result<()> {
    match rest.len() {
        0 => Ok(()),
        extra => Err(TransferError::TrailingBytes(extra)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{
        BinaryBuilder, Int64Builder, ListBuilder, MapBuilder, StringBuilder,
        TimestampMicrosecondBuilder,
    };
    use arrow_array::types::Int32Type;
    use arrow_array::{BinaryArray, Decimal128Array, DictionaryArray, StringArray, StructArray};
    use arrow_schema::{DataType as ArrowType, Fields};

    /// A shredded-variant-like group: metadata and value binaries, a typed list, a timestamp
    /// with a zone, decimals, a map and a dictionary, nulls at several levels, field metadata.
    fn group() -> ArrayRef {
        let metadata: BinaryArray = [
            Some(&b"\x01\x00"[..]),
            None,
            Some(b"\x01\x01\x00\x01a"),
            Some(b""),
        ]
        .into_iter()
        .collect();
        let mut value = BinaryBuilder::new();
        for v in [Some(&b"\x0c\x01"[..]), None, Some(b""), Some(b"\x00")] {
            value.append_option(v);
        }
        let mut typed = ListBuilder::new(Int64Builder::new());
        typed.append_value([Some(1), None, Some(3)]);
        typed.append_null();
        typed.append_value([]);
        typed.append_value([Some(-7)]);
        let mut names = StringBuilder::new();
        for n in [Some("a"), Some("é"), None, Some("")] {
            names.append_option(n);
        }
        let mut at = TimestampMicrosecondBuilder::new().with_timezone("+01:00");
        for t in [Some(1), None, Some(-5), Some(i64::MAX)] {
            at.append_option(t);
        }
        let decimals = Decimal128Array::from(vec![Some(12345), None, Some(-1), Some(0)])
            .with_precision_and_scale(10, -2)
            .unwrap();
        let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
        map.keys().append_value("k");
        map.values().append_value(1);
        map.append(true).unwrap();
        map.append(false).unwrap();
        map.append(true).unwrap();
        map.keys().append_value("j");
        map.values().append_null();
        map.append(true).unwrap();
        let dictionary: DictionaryArray<Int32Type> = vec![Some("x"), Some("y"), None, Some("x")]
            .into_iter()
            .collect();
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("metadata", Arc::new(metadata)),
            ("value", Arc::new(value.finish())),
            ("typed_value", Arc::new(typed.finish())),
            ("name", Arc::new(names.finish())),
            ("at", Arc::new(at.finish())),
            ("amount", Arc::new(decimals)),
            ("map", Arc::new(map.finish())),
            ("dictionary", Arc::new(dictionary)),
        ];
        let fields: Fields = columns
            .iter()
            .map(|(name, array)| {
                Field::new(*name, array.data_type().clone(), true).with_metadata(HashMap::from([(
                    "PARQUET:field_id".to_string(),
                    name.len().to_string(),
                )]))
            })
            .collect();
        let arrays = columns.into_iter().map(|(_, a)| a).collect();
        let nulls = Some(NullBuffer::from(vec![true, true, false, true]));
        Arc::new(StructArray::try_new(fields, arrays, nulls).unwrap())
    }

    #[test]
    fn round_trips_arrays_whole_and_sliced() {
        let whole = group();
        for array in [
            whole.clone(),
            whole.slice(1, 3),
            whole.slice(3, 1),
            whole.slice(2, 0),
        ] {
            let back = from_bytes(&to_bytes(array.as_ref()).unwrap()).unwrap();
            assert_eq!(back.data_type(), array.data_type());
            assert_eq!(back.to_data(), array.to_data());
        }
    }

    #[test]
    fn round_trips_batches_with_their_schema() {
        let group = group();
        let ArrowType::Struct(fields) = group.data_type() else {
            unreachable!("a struct")
        };
        let schema = Arc::new(Schema::new_with_metadata(
            fields.clone(),
            HashMap::from([("origin".to_string(), "orc".to_string())]),
        ));
        let columns = group
            .as_any()
            .downcast_ref::<StructArray>()
            .unwrap()
            .columns();
        let batch = RecordBatch::try_new(schema.clone(), columns.to_vec()).unwrap();
        let batches = vec![batch.slice(0, 2), batch.slice(2, 2), batch.slice(4, 0)];
        let back = batches_from_bytes(&batches_to_bytes(&batches).unwrap()).unwrap();
        assert_eq!(back, batches);
        assert_eq!(back[0].schema(), schema);
        assert!(batches_from_bytes(&batches_to_bytes(&[]).unwrap())
            .unwrap()
            .is_empty());
        let no_columns = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &RecordBatchOptions::new().with_row_count(Some(3)),
        )
        .unwrap();
        let back =
            batches_from_bytes(&batches_to_bytes(std::slice::from_ref(&no_columns)).unwrap())
                .unwrap();
        assert_eq!(back, vec![no_columns]);
    }

    #[test]
    fn refuses_cut_extended_or_inconsistent_bytes() {
        let bytes = to_bytes(group().as_ref()).unwrap();
        for cut in [0, 1, 7, 8, 20, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut} of {}",
                bytes.len()
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            from_bytes(&longer),
            Err(TransferError::TrailingBytes(1))
        ));
        // a string array whose last offset points past its values: refused by validation
        let strings = StringArray::from(vec!["ab", "c"]);
        let mut bytes = to_bytes(&strings).unwrap();
        // ... offsets (0, 2, 3), then the values' length (8 bytes) and "abc", then no children
        let last_offset = bytes.len() - 8 - 3 - 8 - 4;
        assert_eq!(bytes[last_offset], 3);
        bytes[last_offset] = 200;
        assert!(matches!(from_bytes(&bytes), Err(TransferError::Invalid(_))));
        let union = ArrowType::Union(
            arrow_schema::UnionFields::empty(),
            arrow_schema::UnionMode::Sparse,
        );
        assert!(matches!(
            put_type(&union, &mut Vec::new()),
            Err(TransferError::Unsupported(_))
        ));
    }
}
