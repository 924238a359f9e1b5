//! Decoding VARIANT group columns (feature `variant`): shredded groups reassembled with
//! `parquet-variant-compute`, each value validated with `parquet-variant` and rendered as
//! Paimon's `GenericVariant.toJson()` text ([`super::variant_json`]).

use super::variant_json::write_json;
use crate::{Error, Result};
use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_cast::cast;
use arrow_schema::{DataType as ArrowType, Field, Fields, TimeUnit};
use parquet_variant::Variant;
use parquet_variant_compute::{unshred_variant, VariantArray};
use std::sync::Arc;

fn malformed(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("malformed VARIANT value: {e}"))
}

/// The JSON text of every value of a variant group column (null where the group is null).
pub(crate) fn to_json(file: &str, array: &ArrayRef) -> Result<ArrayRef> {
    let ArrowType::Struct(_) = array.data_type() else {
        return Err(malformed(
            file,
            format!("a {} column, not a variant group", array.data_type()),
        ));
    };
    check_present(file, array)?;
    let array = micros_timestamps(file, array)?;
    let variants = VariantArray::try_new(array.as_ref()).map_err(|e| malformed(file, e))?;
    let plain = unshred_variant(&variants).map_err(|e| {
        let metadata = variants.metadata_column();
        let rows = (0..variants.len()).filter_map(|row| bytes_at(metadata, row));
        decode_error(file, e, rows)
    })?;
    let (metadata, value) = (plain.metadata_column(), plain.value_column());
    let mut out = StringBuilder::with_capacity(plain.len(), plain.len() * 16);
    let mut text = String::new();
    for row in 0..plain.len() {
        if plain.is_null(row) {
            out.append_null();
            continue;
        }
        let (Some(m), Some(v)) = (bytes_at(metadata, row), bytes_at(value, row)) else {
            return Err(malformed(
                file,
                format!("row {row} has no metadata or value"),
            ));
        };
        let variant = Variant::try_new(m, v).map_err(|e| decode_error(file, e, [m]))?;
        text.clear();
        write_json(&variant, &mut text).map_err(|e| malformed(file, e))?;
        out.append_value(&text);
    }
    Ok(Arc::new(out.finish()))
}

/// The error of a value the decoder rejects: valid data it cannot decode (an empty key) is
/// refused as unsupported, anything else is malformed.
fn decode_error<'a>(
    file: &str,
    e: impl std::fmt::Display,
    metadata: impl IntoIterator<Item = &'a [u8]>,
) -> Error {
    if metadata.into_iter().any(has_empty_key) {
        return Error::unsupported(
            file,
            "a VARIANT object with an empty key (\"\"): parquet-variant 59 rejects the metadata \
             dictionary of such a value (offsets must strictly increase), though the variant \
             encoding allows it",
        );
    }
    malformed(file, e)
}

/// Whether a variant metadata dictionary (header byte, dictionary size, offsets, key bytes)
/// holds a key of zero bytes: two equal consecutive offsets. parquet-variant 60 accepts those
/// (it needs arrow 60): this refusal goes with the move to it.
fn has_empty_key(metadata: &[u8]) -> bool {
    let Some((&header, rest)) = metadata.split_first() else {
        return false;
    };
    let width = usize::from(header >> 6) + 1;
    let uint = |i: usize| {
        let bytes = rest.get(i * width..(i + 1) * width)?;
        Some(bytes.iter().rev().fold(0u64, |n, &b| n << 8 | u64::from(b)))
    };
    let Some(keys) = uint(0).and_then(|n| usize::try_from(n).ok()) else {
        return false;
    };
    // Offsets of key k and k + 1 are entries 1 + k and 2 + k after the size.
    (0..keys.min(rest.len()))
        .any(|k| matches!((uint(1 + k), uint(2 + k)), (Some(a), Some(b)) if a == b))
}

/// The bytes of row `row` of a binary-like column (None if null or not binary).
fn bytes_at(array: &ArrayRef, row: usize) -> Option<&[u8]> {
    if array.is_null(row) {
        return None;
    }
    match array.data_type() {
        ArrowType::Binary => Some(array.as_binary::<i32>().value(row)),
        ArrowType::LargeBinary => Some(array.as_binary::<i64>().value(row)),
        ArrowType::BinaryView => Some(array.as_binary_view().value(row)),
        _ => None,
    }
}

/// A non-null top-level variant needs its `metadata`, and a `value` or a `typed_value` (Paimon's
/// `ShreddingUtils.rebuild` throws `MALFORMED_VARIANT` otherwise; the arrow-rs crates would read
/// such a row as a variant null).
fn check_present(file: &str, array: &ArrayRef) -> Result<()> {
    let group = array.as_struct();
    let Some(metadata) = group.column_by_name("metadata") else {
        return Err(malformed(file, "the variant group has no 'metadata' field"));
    };
    let (value, typed) = (
        group.column_by_name("value"),
        group.column_by_name("typed_value"),
    );
    for row in 0..group.len() {
        if group.is_null(row) {
            continue;
        }
        let present = |c: Option<&ArrayRef>| c.is_some_and(|c| c.is_valid(row));
        if metadata.is_null(row) || !(present(value) || present(typed)) {
            return Err(malformed(
                file,
                format!("row {row} has no metadata, value or typed_value"),
            ));
        }
    }
    Ok(())
}

/// Shredded TIMESTAMP(p ≤ 3) sub-columns are millisecond Parquet columns; Paimon rebuilds them as
/// microsecond variant timestamps, which is what the arrow-rs reassembly accepts: rescaled here.
fn micros_timestamps(file: &str, array: &ArrayRef) -> Result<ArrayRef> {
    let target = with_micros(array.data_type());
    if &target == array.data_type() {
        return Ok(array.clone());
    }
    cast(array, &target).map_err(|e| malformed(file, e))
}

fn with_micros(t: &ArrowType) -> ArrowType {
    let field = |f: &Arc<Field>| {
        Arc::new(
            f.as_ref()
                .clone()
                .with_data_type(with_micros(f.data_type())),
        )
    };
    match t {
        ArrowType::Timestamp(TimeUnit::Second | TimeUnit::Millisecond, tz) => {
            ArrowType::Timestamp(TimeUnit::Microsecond, tz.clone())
        }
        ArrowType::Struct(fields) => {
            ArrowType::Struct(fields.iter().map(field).collect::<Fields>())
        }
        ArrowType::List(f) => ArrowType::List(field(f)),
        ArrowType::LargeList(f) => ArrowType::LargeList(field(f)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::variant::conform;
    use crate::spec::DataType;
    use arrow_array::{BinaryArray, Int64Array, ListArray, StringArray, StructArray};
    use arrow_buffer::{NullBuffer, OffsetBuffer};
    use parquet_variant::VariantBuilder;

    fn plain_group(rows: &[Option<(Vec<u8>, Vec<u8>)>]) -> ArrayRef {
        let value: Vec<&[u8]> = rows
            .iter()
            .map(|r| r.as_ref().map_or(&b""[..], |(_, v)| v.as_slice()))
            .collect();
        let metadata: Vec<&[u8]> = rows
            .iter()
            .map(|r| r.as_ref().map_or(&b""[..], |(m, _)| m.as_slice()))
            .collect();
        let nulls = NullBuffer::from(rows.iter().map(Option::is_some).collect::<Vec<_>>());
        Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("value", ArrowType::Binary, false),
                Field::new("metadata", ArrowType::Binary, false),
            ]),
            vec![
                Arc::new(BinaryArray::from(value)),
                Arc::new(BinaryArray::from(metadata)),
            ],
            Some(nulls),
        ))
    }

    fn encoded(build: impl FnOnce(&mut VariantBuilder)) -> (Vec<u8>, Vec<u8>) {
        let mut b = VariantBuilder::new();
        build(&mut b);
        b.finish()
    }

    #[test]
    fn plain_groups_become_json_and_sql_nulls_stay_null() {
        let object = encoded(|b| {
            let mut o = b.new_object();
            o.insert("k", 1.5f64);
            o.finish();
        });
        let null = encoded(|b| b.append_value(()));
        let array = plain_group(&[Some(object), None, Some(null)]);
        let json = to_json("t/f.parquet", &array).unwrap();
        let json: &StringArray = json.as_string();
        assert_eq!(json.value(0), r#"{"k":1.5}"#);
        assert!(json.is_null(1));
        // A variant null is the JSON text null, not a SQL NULL.
        assert!(json.is_valid(2));
        assert_eq!(json.value(2), "null");
    }

    #[test]
    fn corrupt_metadata_is_an_error_naming_the_file() {
        let (mut metadata, value) = encoded(|b| {
            let mut o = b.new_object();
            o.insert("key", 1i32);
            o.finish();
        });
        // Version 2 in the header byte, then a dictionary offset past the end.
        metadata[0] = 0x02;
        let array = plain_group(&[Some((metadata.clone(), value.clone()))]);
        let err = to_json("t/bucket-0/data-1.parquet", &array).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.starts_with("t/bucket-0/data-1.parquet: malformed VARIANT value"),
            "{msg}"
        );
        metadata[0] = 0x01;
        let last = metadata.len() - 1;
        metadata.truncate(last);
        let array = plain_group(&[Some((metadata, value))]);
        let msg = to_json("t/f.parquet", &array).unwrap_err().to_string();
        assert!(
            msg.contains("t/f.parquet") && msg.contains("VARIANT"),
            "{msg}"
        );
    }

    #[test]
    fn shredded_arrays_are_reassembled() {
        // Java's layout of a shredded ARRAY<BIGINT>: typed_value is a list of element groups;
        // the second element did not fit BIGINT and stays in its `value` (the string "x").
        let element = Fields::from(vec![
            Field::new("value", ArrowType::Binary, true),
            Field::new("typed_value", ArrowType::Int64, true),
        ]);
        let elements = StructArray::new(
            element.clone(),
            vec![
                Arc::new(BinaryArray::from(vec![None, Some(&[0x05, b'x'][..]), None])),
                Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])),
            ],
            None,
        );
        let item = Arc::new(Field::new("element", ArrowType::Struct(element), false));
        let list = ListArray::new(
            item.clone(),
            OffsetBuffer::from_lengths([3]),
            Arc::new(elements),
            None,
        );
        let group: ArrayRef = Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("metadata", ArrowType::Binary, false),
                Field::new("value", ArrowType::Binary, true),
                Field::new("typed_value", ArrowType::List(item), true),
            ]),
            vec![
                Arc::new(BinaryArray::from(vec![&[0x01, 0, 0][..]])),
                Arc::new(BinaryArray::from(vec![None::<&[u8]>])),
                Arc::new(list),
            ],
            None,
        ));
        let json = to_json("t/f.parquet", &group).unwrap();
        assert_eq!(json.as_string::<i32>().value(0), r#"[1,"x",3]"#);
    }

    #[test]
    fn a_row_without_value_or_typed_value_is_malformed() {
        // Paimon's `ShreddingUtils.rebuild` throws MALFORMED_VARIANT (arrow-rs would read null).
        let (metadata, _) = encoded(|b| b.append_value(1i8));
        let group: ArrayRef = Arc::new(StructArray::new(
            Fields::from(vec![
                Field::new("metadata", ArrowType::Binary, false),
                Field::new("value", ArrowType::Binary, true),
            ]),
            vec![
                Arc::new(BinaryArray::from(vec![metadata.as_slice()])),
                Arc::new(BinaryArray::from(vec![None::<&[u8]>])),
            ],
            None,
        ));
        let msg = to_json("t/f.parquet", &group).unwrap_err().to_string();
        assert!(
            msg.contains("t/f.parquet") && msg.contains("no metadata, value or typed_value"),
            "{msg}"
        );
    }

    #[test]
    fn objects_with_an_empty_key_are_refused_by_name() {
        // Dictionary ["k", ""] in insertion order (unsorted, as Paimon's and pypaimon's builders
        // write it), object {"": 1, "k": 2}: valid, but parquet-variant 59 rejects the dictionary.
        let metadata = vec![0x01, 2, 0, 1, 1, b'k'];
        let value = vec![0x02, 2, 1, 0, 0, 2, 4, 0x0c, 1, 0x0c, 2];
        assert!(has_empty_key(&metadata));
        assert!(!has_empty_key(&[0x01, 1, 0, 1, b'k']));
        assert!(!has_empty_key(&[0x01]));
        let array = plain_group(&[Some((metadata, value))]);
        let err = to_json("t/f.parquet", &array).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("empty key"), "{err}");
    }

    #[test]
    fn type_changes_to_or_from_variant_are_refused() {
        let variant = DataType::parse("VARIANT").unwrap();
        let string = DataType::parse("STRING").unwrap();
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["{}"]));
        let err = conform("t/f.parquet", strings, Some(&string), &variant).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("STRING"), "{err}");
        let array = plain_group(&[Some(encoded(|b| b.append_value(1i8)))]);
        let err = conform("t/f.parquet", array, Some(&variant), &string).unwrap_err();
        assert!(err.to_string().contains("VARIANT"), "{err}");
    }
}
