//! Schema evolution: maps decoded file columns to the read schema by field id and converts types.
//!
//! A read field whose id is absent from the file's schema becomes a null column; file columns
//! whose id is not read are skipped; renamed columns are found through the file schema's name
//! for the same id. Types are converted to exactly [`to_arrow_type`] of the read type: nested
//! types field by field (ROW children by id as well), timestamps by rescaling, everything else
//! with `arrow-cast` (INT→BIGINT, FLOAT→DOUBLE, DECIMAL precision changes, numbers↔strings...).

use super::arrow_schema::{list_element_field, map_entries_field, to_arrow_type};
use crate::spec::{DataField, DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    make_array, new_null_array, Array, ArrayRef, Decimal128Array, Int64Array, ListArray, MapArray,
    PrimitiveArray, StructArray,
};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType as ArrowType, Fields, TimeUnit};
use std::sync::Arc;

/// Where one read column comes from.
#[derive(Debug, Clone)]
pub struct ColumnPlan {
    /// The field of the read schema.
    pub read: DataField,
    /// The same field (same id) in the file's schema, if the file has it.
    pub file: Option<DataField>,
}

/// Pairs every read field with the file field of the same id.
pub fn plan(file_fields: &[DataField], read_fields: &[DataField]) -> Vec<ColumnPlan> {
    read_fields
        .iter()
        .map(|read| ColumnPlan {
            read: read.clone(),
            file: file_fields.iter().find(|f| f.id == read.id).cloned(),
        })
        .collect()
}

fn cast_error(file: &str, what: impl std::fmt::Display, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("cannot convert {what}: {e}"))
}

/// Converts a decoded column (`array`, written as `file_type`, or `None` if unknown) to the Arrow
/// type of `read_type`. `file` names the data file in errors.
pub fn conform(
    file: &str,
    array: ArrayRef,
    file_type: Option<&DataType>,
    read_type: &DataType,
) -> Result<ArrayRef> {
    if read_type.kind == TypeKind::Variant || file_type.is_some_and(|t| t.kind == TypeKind::Variant)
    {
        return super::variant::conform(file, array, file_type, read_type);
    }
    let target = to_arrow_type(read_type);
    let array = match array.data_type() {
        ArrowType::Dictionary(_, value) => {
            let value = value.as_ref().clone();
            cast_with_options(&array, &value, &strict())
                .map_err(|e| cast_error(file, "dictionary", e))?
        }
        _ => array,
    };
    if array.data_type() == &target {
        return Ok(array);
    }
    let nested_type = |f: fn(&TypeKind) -> Option<&DataType>| file_type.and_then(|t| f(&t.kind));
    match (&read_type.kind, array.data_type()) {
        (TypeKind::Row(read_fields), ArrowType::Struct(_)) => {
            let file_fields = match file_type.map(|t| &t.kind) {
                Some(TypeKind::Row(f)) => Some(f.as_slice()),
                _ => None,
            };
            conform_struct(file, array.as_struct(), file_fields, read_fields)
        }
        (
            TypeKind::Array(elem),
            ArrowType::List(_) | ArrowType::LargeList(_) | ArrowType::FixedSizeList(..),
        ) => {
            let list = to_list(file, &array)?;
            let file_elem = nested_type(|k| match k {
                TypeKind::Array(e) => Some(e),
                _ => None,
            });
            let values = conform(file, list.values().clone(), file_elem, elem)?;
            let out = ListArray::try_new(
                list_element_field(elem),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )
            .map_err(|e| cast_error(file, "list", e))?;
            Ok(Arc::new(out))
        }
        (
            TypeKind::Vector(elem, length),
            ArrowType::List(_) | ArrowType::LargeList(_) | ArrowType::FixedSizeList(..),
        ) => {
            let list = to_list(file, &array)?;
            let file_elem = nested_type(|k| match k {
                TypeKind::Vector(e, _) | TypeKind::Array(e) => Some(e),
                _ => None,
            });
            to_vector(file, &list, file_elem, elem, *length)
        }
        (TypeKind::Map(key, value), _) => conform_map(file, &array, file_type, key, value),
        (TypeKind::Multiset(elem), _) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            conform_map(file, &array, file_type, elem, &count)
        }
        (TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_), source) => {
            let ArrowType::Timestamp(to_unit, tz) = &target else {
                return Err(cast_error(file, "timestamp", "bad target"));
            };
            let from_unit = match source {
                ArrowType::Timestamp(u, _) => *u,
                ArrowType::Int64 => match file_type.map(|t| &t.kind) {
                    Some(TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p)) if *p <= 3 => {
                        TimeUnit::Millisecond
                    }
                    _ => TimeUnit::Microsecond,
                },
                ArrowType::Date32 | ArrowType::Date64 | ArrowType::Utf8 | ArrowType::LargeUtf8 => {
                    return cast_with_options(&array, &target, &strict())
                        .map_err(|e| cast_error(file, format!("{source} to {target}"), e));
                }
                other => {
                    return Err(cast_error(
                        file,
                        format!("{other} to {target}"),
                        "unsupported",
                    ))
                }
            };
            let raw = cast_with_options(&array, &ArrowType::Int64, &strict())
                .map_err(|e| cast_error(file, "timestamp", e))?;
            let scaled = rescale(file, raw.as_primitive::<Int64Type>(), from_unit, *to_unit)?;
            retype(file, scaled, ArrowType::Timestamp(*to_unit, tz.clone()))
        }
        (TypeKind::Time(_), ArrowType::Int32 | ArrowType::Int64) => {
            // Paimon stores TIME as milliseconds of the day.
            let raw = cast_with_options(&array, &ArrowType::Int64, &strict())
                .map_err(|e| cast_error(file, "time", e))?;
            let scaled = rescale(
                file,
                raw.as_primitive::<Int64Type>(),
                TimeUnit::Millisecond,
                TimeUnit::Microsecond,
            )?;
            retype(file, scaled, ArrowType::Time64(TimeUnit::Microsecond))
        }
        (
            TypeKind::Decimal { .. },
            ArrowType::FixedSizeBinary(_) | ArrowType::Binary | ArrowType::LargeBinary,
        ) => {
            let (p, s) = match file_type.map(|t| &t.kind) {
                Some(TypeKind::Decimal { precision, scale }) => (*precision, *scale),
                _ => match &target {
                    ArrowType::Decimal128(p, s) => (*p, u8::try_from(*s).unwrap_or(0)),
                    _ => (38, 0),
                },
            };
            let decoded = decimal_from_bytes(file, &array, p, s)?;
            cast_with_options(&decoded, &target, &strict())
                .map_err(|e| cast_error(file, "decimal", e))
        }
        (
            TypeKind::TinyInt | TypeKind::SmallInt | TypeKind::Int | TypeKind::BigInt,
            ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View,
        ) => {
            let strings = cast_with_options(&array, &ArrowType::Utf8, &strict())
                .map_err(|e| cast_error(file, "string", e))?;
            let parsed: Int64Array = strings
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(parse_paimon_integer).transpose())
                .collect::<Result<_, String>>()
                .map_err(|e| cast_error(file, format!("string to {target}"), e))?;
            cast_with_options(&parsed, &target, &strict())
                .map_err(|e| cast_error(file, format!("string to {target}"), e))
        }
        (_, source) => cast_with_options(&array, &target, &strict())
            .map_err(|e| cast_error(file, format!("{source} to {target}"), e)),
    }
}

/// Parses a string as Paimon's `BinaryStringUtils.toLong` does when a STRING column was changed
/// to an integer type: optional sign, decimal digits, and an optional fraction of digits that is
/// truncated (`"4.9"` → 4); anything else (spaces, empty, overflow) is an error, as in Java.
fn parse_paimon_integer(s: &str) -> Result<i64, String> {
    let bad = |why: &str| Err(format!("'{s}' is not a number: {why}"));
    let (negative, rest) = match s.as_bytes().first() {
        None => return bad("input is empty"),
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        Some(_) => (false, s),
    };
    if rest.is_empty() {
        return bad("input has only a sign");
    }
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return bad("invalid character found");
    }
    let mut value: i64 = 0;
    for b in int.bytes() {
        if !b.is_ascii_digit() {
            return bad("invalid character found");
        }
        let digit = i64::from(b - b'0');
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_sub(digit))
            .ok_or_else(|| format!("'{s}' is not a number: overflow"))?;
    }
    if negative {
        Ok(value)
    } else {
        value
            .checked_neg()
            .ok_or_else(|| format!("'{s}' is not a number: overflow"))
    }
}

fn strict() -> CastOptions<'static> {
    CastOptions {
        safe: false,
        ..Default::default()
    }
}

fn to_list(file: &str, array: &ArrayRef) -> Result<ListArray> {
    match array.data_type() {
        ArrowType::List(_) => Ok(array.as_list::<i32>().clone()),
        ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            let casted = cast_with_options(array, &ArrowType::List(f.clone()), &strict())
                .map_err(|e| cast_error(file, "list", e))?;
            Ok(casted.as_list::<i32>().clone())
        }
        other => Err(cast_error(file, other, "not a list")),
    }
}

/// A VECTOR column from a list column (Parquet, ORC and Avro store vectors as lists): every
/// non-null list must have exactly `length` elements.
fn to_vector(
    file: &str,
    list: &ListArray,
    file_elem: Option<&DataType>,
    elem: &DataType,
    length: u32,
) -> Result<ArrayRef> {
    let n = usize::try_from(length).map_err(|e| cast_error(file, "vector", e))?;
    // Element positions of each row; a null row takes n null elements.
    let mut take: Vec<Option<u64>> = Vec::with_capacity(list.len() * n);
    for row in 0..list.len() {
        if list.is_null(row) {
            take.extend(std::iter::repeat_n(None, n));
            continue;
        }
        let offsets = list.value_offsets();
        let (start, end) = (offsets[row], offsets[row + 1]);
        let count = usize::try_from(end - start).unwrap_or(usize::MAX);
        if count != n {
            return Err(Error::corrupt(
                file,
                format!("a VECTOR of length {n} holds {count} elements (row {row})"),
            ));
        }
        let start = u64::try_from(start).map_err(|e| cast_error(file, "vector", e))?;
        take.extend((start..start + n as u64).map(Some));
    }
    let values =
        arrow_select::take::take(list.values(), &arrow_array::UInt64Array::from(take), None)
            .map_err(|e| cast_error(file, "vector", e))?;
    let values = conform(file, values, file_elem, elem)?;
    let out = arrow_array::FixedSizeListArray::try_new(
        list_element_field(elem),
        i32::try_from(length).map_err(|e| cast_error(file, "vector", e))?,
        values,
        list.nulls().cloned(),
    )
    .map_err(|e| cast_error(file, "vector", e))?;
    Ok(Arc::new(out))
}

fn conform_struct(
    file: &str,
    array: &StructArray,
    file_fields: Option<&[DataField]>,
    read_fields: &[DataField],
) -> Result<ArrayRef> {
    let fields: Fields = super::arrow_schema::to_arrow_fields(read_fields);
    let mut columns = Vec::with_capacity(read_fields.len());
    for read in read_fields {
        let file_field = file_fields.and_then(|ff| ff.iter().find(|f| f.id == read.id));
        let name = match (file_fields, file_field) {
            (Some(_), Some(f)) => Some(f.name.as_str()),
            (Some(_), None) => None,
            (None, _) => Some(read.name.as_str()),
        };
        let column = name.and_then(|n| array.column_by_name(n)).cloned();
        columns.push(match column {
            Some(c) => conform(file, c, file_field.map(|f| &f.data_type), &read.data_type)?,
            None => new_null_array(&to_arrow_type(&read.data_type), array.len()),
        });
    }
    let out =
        StructArray::try_new_with_length(fields, columns, array.nulls().cloned(), array.len())
            .map_err(|e| cast_error(file, "row", e))?;
    Ok(Arc::new(out))
}

fn conform_map(
    file: &str,
    array: &ArrayRef,
    file_type: Option<&DataType>,
    key: &DataType,
    value: &DataType,
) -> Result<ArrayRef> {
    let (file_key, file_value) = match file_type.map(|t| &t.kind) {
        Some(TypeKind::Map(k, v)) => (Some(k.as_ref()), Some(v.as_ref())),
        Some(TypeKind::Multiset(k)) => (Some(k.as_ref()), None),
        _ => (None, None),
    };
    // A map is stored either as an Arrow map or as a list of (key, value) structs.
    let (offsets, entries, nulls): (OffsetBuffer<i32>, StructArray, _) = match array.data_type() {
        ArrowType::Map(..) => {
            let map = array.as_map();
            (
                map.offsets().clone(),
                map.entries().clone(),
                map.nulls().cloned(),
            )
        }
        ArrowType::List(_) | ArrowType::LargeList(_) => {
            let list = to_list(file, array)?;
            let Some(entries) = list.values().as_struct_opt() else {
                return Err(cast_error(
                    file,
                    "map",
                    "list elements are not (key, value) rows",
                ));
            };
            (
                list.offsets().clone(),
                entries.clone(),
                list.nulls().cloned(),
            )
        }
        other => return Err(cast_error(file, format!("{other} to a map"), "unsupported")),
    };
    if entries.num_columns() != 2 {
        return Err(cast_error(file, "map", "entries must have two columns"));
    }
    let keys = conform(
        file,
        entries.column(0).clone(),
        file_key,
        &key.clone().with_nullable(false),
    )?;
    let values = conform(file, entries.column(1).clone(), file_value, value)?;
    let entries_field = map_entries_field(key, value);
    let ArrowType::Struct(kv_fields) = entries_field.data_type() else {
        return Err(cast_error(file, "map", "bad entries type"));
    };
    let entries = StructArray::try_new(kv_fields.clone(), vec![keys, values], None)
        .map_err(|e| cast_error(file, "map entries", e))?;
    let out = MapArray::try_new(entries_field, offsets, entries, nulls, false)
        .map_err(|e| cast_error(file, "map", e))?;
    Ok(Arc::new(out))
}

/// Reinterprets Int64 values as another 64-bit type (timestamps, times).
pub(crate) fn retype(
    file: &str,
    array: PrimitiveArray<Int64Type>,
    to: ArrowType,
) -> Result<ArrayRef> {
    let data = array
        .into_data()
        .into_builder()
        .data_type(to)
        .build()
        .map_err(|e| cast_error(file, "64-bit values", e))?;
    Ok(make_array(data))
}

fn unit_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Rescales raw Int64 time values between units (flooring when reducing precision).
fn rescale(
    file: &str,
    values: &PrimitiveArray<Int64Type>,
    from: TimeUnit,
    to: TimeUnit,
) -> Result<PrimitiveArray<Int64Type>> {
    let (f, t) = (unit_per_second(from), unit_per_second(to));
    if f == t {
        return Ok(values.clone());
    }
    if t > f {
        let factor = t / f;
        values
            .try_unary(|v| v.checked_mul(factor).ok_or(()))
            .map_err(|_| cast_error(file, "timestamp", "value out of range"))
    } else {
        let factor = f / t;
        Ok(values.unary(|v| v.div_euclid(factor)))
    }
}

/// Big-endian two's complement bytes (Parquet/Avro unscaled decimals) → Decimal128(p, s).
fn decimal_from_bytes(file: &str, array: &ArrayRef, precision: u8, scale: u8) -> Result<ArrayRef> {
    let binary = cast_with_options(array, &ArrowType::Binary, &strict())
        .map_err(|e| cast_error(file, "decimal bytes", e))?;
    let binary = binary.as_binary::<i32>();
    let mut values = Vec::with_capacity(binary.len());
    for i in 0..binary.len() {
        values.push(if binary.is_null(i) {
            0
        } else {
            be_bytes_to_i128(binary.value(i))
                .ok_or_else(|| cast_error(file, "decimal", "unscaled value longer than 16 bytes"))?
        });
    }
    let out = Decimal128Array::new(ScalarBuffer::from(values), binary.nulls().cloned())
        .with_precision_and_scale(precision, i8::try_from(scale).unwrap_or(i8::MAX))
        .map_err(|e| cast_error(file, "decimal", e))?;
    Ok(Arc::new(out))
}

/// Sign-extends big-endian two's complement bytes to an i128 (`None` if longer than 16 bytes).
pub(crate) fn be_bytes_to_i128(bytes: &[u8]) -> Option<i128> {
    if bytes.len() > 16 {
        return None;
    }
    if bytes.is_empty() {
        return Some(0);
    }
    let negative = bytes[0] & 0x80 != 0;
    let mut buf = [if negative { 0xff } else { 0 }; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float32Array, Int32Array, StringArray, TimestampNanosecondArray};

    fn ty(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    fn field(id: i32, name: &str, t: &str) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: ty(t),
            description: None,
        }
    }

    #[test]
    fn lists_become_vectors_of_exactly_their_length() {
        use arrow_array::types::Int32Type;
        let list = |rows: Vec<Option<Vec<Option<i32>>>>| -> ArrayRef {
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(rows))
        };
        let vector = ty("VECTOR<BIGINT, 2>");
        let a = list(vec![
            Some(vec![Some(1), Some(2)]),
            None,
            Some(vec![Some(3), None]),
        ]);
        let out = conform("f", a, Some(&ty("VECTOR<INT, 2>")), &vector).unwrap();
        let out = out.as_fixed_size_list();
        assert_eq!(out.value_length(), 2);
        assert!(out.is_null(1));
        let values = out.values().as_primitive::<Int64Type>();
        assert_eq!(values.value(0), 1);
        assert_eq!(values.value(4), 3);
        assert!(values.is_null(5));
        let short = list(vec![Some(vec![Some(1), Some(2)]), Some(vec![Some(3)])]);
        let err = conform("t/f.parquet", short, None, &vector)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t/f.parquet") && err.contains("length 2 holds 1"),
            "{err}"
        );
    }

    #[test]
    fn widens_numbers() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(-3)]));
        let out = conform("f", a, Some(&ty("INT")), &ty("BIGINT")).unwrap();
        assert_eq!(out.data_type(), &ArrowType::Int64);
        assert_eq!(out.as_primitive::<Int64Type>().value(2), -3);
        assert!(out.is_null(1));
        let f: ArrayRef = Arc::new(Float32Array::from(vec![1.5f32]));
        let out = conform("f", f, Some(&ty("FLOAT")), &ty("DOUBLE")).unwrap();
        assert_eq!(
            out.as_primitive::<arrow_array::types::Float64Type>()
                .value(0),
            1.5
        );
    }

    #[test]
    fn rescales_timestamps_with_floor() {
        let a: ArrayRef = Arc::new(TimestampNanosecondArray::from(vec![-1_500, 2_000_999]));
        let out = conform("f", a, None, &ty("TIMESTAMP(6) WITH LOCAL TIME ZONE")).unwrap();
        assert_eq!(
            out.data_type(),
            &ArrowType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        let raw = out.as_primitive::<arrow_array::types::TimestampMicrosecondType>();
        assert_eq!(raw.values().to_vec(), vec![-2, 2_000]);
    }

    #[test]
    fn strings_become_integers_as_in_paimon() {
        let a: ArrayRef = Arc::new(StringArray::from(vec![
            Some("42"),
            None,
            Some("-7"),
            Some("+3"),
            Some("4.9"),
            Some("-0.5"),
        ]));
        let out = conform("f", a, Some(&ty("STRING")), &ty("INT")).unwrap();
        let v = out.as_primitive::<arrow_array::types::Int32Type>();
        assert!(v.is_null(1));
        assert_eq!(
            [v.value(0), v.value(2), v.value(3), v.value(4), v.value(5)],
            [42, -7, 3, 4, 0]
        );
        for bad in [" 42", "", "-", "4x", "1.2.3", "99999999999999999999"] {
            let a: ArrayRef = Arc::new(StringArray::from(vec![bad]));
            let err = conform("data-9.parquet", a, Some(&ty("STRING")), &ty("BIGINT")).unwrap_err();
            assert!(err.to_string().contains("data-9.parquet"), "{bad}: {err}");
        }
        // Out of range for the target type is an error too (Java's toByte checks the range).
        let a: ArrayRef = Arc::new(StringArray::from(vec!["300"]));
        assert!(conform("f", a, Some(&ty("STRING")), &ty("TINYINT")).is_err());
    }

    #[test]
    fn bad_cast_is_an_error() {
        let a: ArrayRef = Arc::new(StringArray::from(vec!["x"]));
        let err = conform("data-1.parquet", a, Some(&ty("STRING")), &ty("INT")).unwrap_err();
        assert!(err.to_string().contains("data-1.parquet"), "{err}");
    }

    #[test]
    fn struct_children_by_id() {
        let file_row = DataType::nullable(TypeKind::Row(vec![
            field(1, "a", "INT"),
            field(2, "old", "STRING"),
        ]));
        let read_row = DataType::nullable(TypeKind::Row(vec![
            field(2, "new", "STRING"),
            field(1, "a", "BIGINT"),
            field(3, "added", "INT"),
        ]));
        let source = StructArray::from(vec![
            (
                Arc::new(arrow_schema::Field::new("a", ArrowType::Int32, true)),
                Arc::new(Int32Array::from(vec![7])) as ArrayRef,
            ),
            (
                Arc::new(arrow_schema::Field::new("old", ArrowType::Utf8, true)),
                Arc::new(StringArray::from(vec!["s"])) as ArrayRef,
            ),
        ]);
        let out = conform("f", Arc::new(source), Some(&file_row), &read_row).unwrap();
        let s = out.as_struct();
        assert_eq!(s.column(0).as_string::<i32>().value(0), "s");
        assert_eq!(s.column(1).as_primitive::<Int64Type>().value(0), 7);
        assert!(s.column(2).is_null(0));
    }

    #[test]
    fn decodes_big_endian_decimals() {
        assert_eq!(be_bytes_to_i128(&[0xff, 0x38]), Some(-200));
        assert_eq!(be_bytes_to_i128(&[0x01, 0x00]), Some(256));
        assert_eq!(be_bytes_to_i128(&[0; 17]), None);
    }
}
