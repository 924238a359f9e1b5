//! Builds the Arrow array of one Mosaic column in the Arrow type of its Paimon type: leaf values
//! (big-endian numbers, varint-length strings and bytes) and ARRAY / MAP columns from their
//! lengths and child columns. A file type that does not match the Paimon type is an error.

use super::bucket::{Node, Page};
use super::schema::MosaicType;
use crate::read::arrow_schema::{list_element_field, map_entries_field, to_arrow_type};
use crate::read::row_file::cursor::Step;
use crate::spec::{DataType, TypeKind};
use arrow_array::{
    make_array, Array, ArrayRef, BinaryArray, BooleanArray, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, MapArray, StringArray,
    StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use std::sync::Arc;

/// The physical columns of one row group of one bucket, with their types.
pub(super) struct Pages<'a> {
    pub pages: &'a [Option<super::bucket::Page>],
    pub types: &'a [MosaicType],
}

impl Pages<'_> {
    fn page(&self, at: usize) -> Step<(&Page, &MosaicType)> {
        match (self.pages.get(at), self.types.get(at)) {
            (Some(Some(p)), Some(t)) => Ok((p, t)),
            _ => Err(format!("physical column {at} was not read")),
        }
    }
}

/// The array of the column at `node` (file type `file`) in the Arrow type of `ty`.
pub(super) fn build(
    pages: &Pages<'_>,
    node: &Node,
    file: &MosaicType,
    ty: &DataType,
) -> Step<ArrayRef> {
    let mismatch = || format!("mosaic type {} where the schema says {}", file.name(), ty);
    match (node, file, &ty.kind) {
        (Node::List(at, element), MosaicType::Array(file_element), TypeKind::Array(element_ty)) => {
            let (offsets, nulls) = lengths(pages, *at)?;
            let values = build(pages, element, file_element, element_ty)?;
            check_children(&offsets, values.len())?;
            let list = ListArray::try_new(list_element_field(element_ty), offsets, values, nulls)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(list))
        }
        (Node::Map(at, key, value), MosaicType::Map(file_key, file_value), kind) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            let (key_ty, value_ty) = match kind {
                TypeKind::Map(k, v) => (k.as_ref(), v.as_ref()),
                TypeKind::Multiset(e) => (e.as_ref(), &count),
                _ => return Err(mismatch()),
            };
            let (offsets, nulls) = lengths(pages, *at)?;
            let keys = build(pages, key, file_key, key_ty)?;
            let values = build(pages, value, file_value, value_ty)?;
            check_children(&offsets, keys.len())?;
            check_children(&offsets, values.len())?;
            let field = map_entries_field(key_ty, value_ty);
            let arrow_schema::DataType::Struct(fields) = field.data_type() else {
                return Err("map entries are not a struct".into());
            };
            let entries = StructArray::try_new(fields.clone(), vec![keys, values], None)
                .map_err(|e| e.to_string())?;
            let map = MapArray::try_new(field.clone(), offsets, entries, nulls, false)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(map))
        }
        (Node::Leaf(at), _, _) => {
            let (page, physical) = pages.page(*at)?;
            let cells = page.cells(physical)?;
            leaf(&cells, file, ty).ok_or_else(mismatch)?
        }
        _ => Err(mismatch()),
    }
}

/// The offsets and nulls of a container from its lengths column.
fn lengths(pages: &Pages<'_>, at: usize) -> Step<(OffsetBuffer<i32>, Option<NullBuffer>)> {
    let (page, physical) = pages.page(at)?;
    let cells = page.cells(physical)?;
    let mut offsets = Vec::with_capacity(cells.len() + 1);
    offsets.push(0i32);
    let mut end = 0i32;
    for cell in &cells {
        if let Some(b) = cell {
            let n = i32::from_be_bytes(fixed(b)?);
            if n < 0 {
                return Err(format!("negative length {n}"));
            }
            end = end.checked_add(n).ok_or("lengths overflow")?;
        }
        offsets.push(end);
    }
    let nulls = NullBuffer::from(cells.iter().map(Option::is_some).collect::<Vec<_>>());
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok((offsets, nulls))
}

fn check_children(offsets: &OffsetBuffer<i32>, children: usize) -> Step<()> {
    let total = offsets.last().copied().unwrap_or(0);
    if usize::try_from(total).ok() != Some(children) {
        return Err(format!(
            "the lengths add up to {total} elements, the child column has {children}"
        ));
    }
    Ok(())
}

fn fixed<const N: usize>(b: &[u8]) -> Step<[u8; N]> {
    b.try_into()
        .map_err(|_| format!("a value of {} bytes, {N} expected", b.len()))
}

/// A leaf column's array, or None when the file type does not fit the Paimon type.
fn leaf(cells: &[Option<&[u8]>], file: &MosaicType, ty: &DataType) -> Option<Step<ArrayRef>> {
    fn map<'a, T>(
        cells: &[Option<&'a [u8]>],
        f: impl Fn(&'a [u8]) -> Step<T>,
    ) -> Step<Vec<Option<T>>> {
        cells.iter().map(|c| c.map(&f).transpose()).collect()
    }
    use MosaicType as M;
    let target = to_arrow_type(ty);
    Some(match (file, &ty.kind) {
        (M::Boolean, TypeKind::Boolean) => map(cells, |b| Ok(fixed::<1>(b)?[0] != 0))
            .map(|v| Arc::new(BooleanArray::from(v)) as ArrayRef),
        (M::TinyInt, TypeKind::TinyInt) => map(cells, |b| Ok(i8::from_be_bytes(fixed(b)?)))
            .map(|v| Arc::new(Int8Array::from(v)) as ArrayRef),
        (M::SmallInt, TypeKind::SmallInt) => map(cells, |b| Ok(i16::from_be_bytes(fixed(b)?)))
            .map(|v| Arc::new(Int16Array::from(v)) as ArrayRef),
        (M::Int, TypeKind::Int) | (M::Date, TypeKind::Date) => {
            map(cells, |b| Ok(i32::from_be_bytes(fixed(b)?)))
                .and_then(|v| retype(Arc::new(Int32Array::from(v)), &target))
        }
        (M::BigInt, TypeKind::BigInt) => map(cells, |b| Ok(i64::from_be_bytes(fixed(b)?)))
            .map(|v| Arc::new(Int64Array::from(v)) as ArrayRef),
        (M::Float, TypeKind::Float) => map(cells, |b| Ok(f32::from_be_bytes(fixed(b)?)))
            .map(|v| Arc::new(Float32Array::from(v)) as ArrayRef),
        (M::Double, TypeKind::Double) => map(cells, |b| Ok(f64::from_be_bytes(fixed(b)?)))
            .map(|v| Arc::new(Float64Array::from(v)) as ArrayRef),
        (M::String, TypeKind::Char(_) | TypeKind::VarChar(_)) => map(cells, |b| {
            std::str::from_utf8(b).map_err(|_| "a string value is not UTF-8".to_string())
        })
        .map(|v| Arc::new(StringArray::from(v)) as ArrayRef),
        (M::Binary, TypeKind::Binary(_) | TypeKind::VarBinary(_)) => {
            Ok(Arc::new(BinaryArray::from(cells.to_vec())) as ArrayRef)
        }
        (
            M::Decimal { precision, scale },
            TypeKind::Decimal {
                precision: p,
                scale: s,
            },
        ) if *precision == u32::from(*p) && *scale == u32::from(*s) => {
            let compact = *precision <= 18;
            map(cells, |b| {
                if compact {
                    return Ok(i128::from(i64::from_be_bytes(fixed(b)?)));
                }
                if b.is_empty() || b.len() > 16 {
                    return Err(format!("a decimal of {} bytes", b.len()));
                }
                let mut buf = [if b[0] & 0x80 != 0 { 0xFF } else { 0 }; 16];
                buf[16 - b.len()..].copy_from_slice(b);
                Ok(i128::from_be_bytes(buf))
            })
            .and_then(|v| {
                Decimal128Array::from(v)
                    .with_precision_and_scale(*p, i8::try_from(*s).unwrap_or(i8::MAX))
                    .map(|a| Arc::new(a) as ArrayRef)
                    .map_err(|e| e.to_string())
            })
        }
        // TIME: milliseconds of the day; Paimon's Arrow type counts microseconds.
        (M::Time, TypeKind::Time(_)) => map(cells, |b| {
            Ok(i64::from(i32::from_be_bytes(fixed(b)?)) * 1000)
        })
        .and_then(|v| retype(Arc::new(Int64Array::from(v)), &target)),
        (
            M::Timestamp {
                precision,
                zoned: false,
            },
            TypeKind::Timestamp(p),
        )
        | (
            M::Timestamp {
                precision,
                zoned: true,
            },
            TypeKind::LocalZonedTimestamp(p),
        ) => {
            let nanos_per_unit: i128 = if *p <= 6 { 1_000 } else { 1 };
            map(cells, |b| {
                let nanos = timestamp_nanos(b, *precision)?;
                i64::try_from(nanos.div_euclid(nanos_per_unit))
                    .map_err(|_| "a timestamp out of range".to_string())
            })
            .and_then(|v| retype(Arc::new(Int64Array::from(v)), &target))
        }
        _ => return None,
    })
}

/// A timestamp value in nanoseconds since the epoch: millis (precision ≤ 3) or micros (≤ 6) as
/// a big-endian i64, else millis then the nanoseconds of the milli (i32).
fn timestamp_nanos(b: &[u8], precision: u32) -> Step<i128> {
    Ok(match precision {
        0..=3 => i128::from(i64::from_be_bytes(fixed(b)?)) * 1_000_000,
        4..=6 => i128::from(i64::from_be_bytes(fixed(b)?)) * 1_000,
        _ => {
            let b: [u8; 12] = fixed(b)?;
            let millis = i64::from_be_bytes(b[..8].try_into().map_err(|_| "short timestamp")?);
            let nanos = i32::from_be_bytes(b[8..].try_into().map_err(|_| "short timestamp")?);
            if !(0..1_000_000).contains(&nanos) {
                return Err(format!("{nanos} nanoseconds of a millisecond"));
            }
            i128::from(millis) * 1_000_000 + i128::from(nanos)
        }
    })
}

/// The same values as another primitive type of the same width (Date32, Time64, Timestamp).
fn retype(array: ArrayRef, target: &arrow_schema::DataType) -> Step<ArrayRef> {
    if array.data_type() == target {
        return Ok(array);
    }
    let data = array
        .to_data()
        .into_builder()
        .data_type(target.clone())
        .build()
        .map_err(|e| e.to_string())?;
    Ok(make_array(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_of_each_precision() {
        let millis = 1_700_000_000_123i64.to_be_bytes();
        assert_eq!(
            timestamp_nanos(&millis, 3).unwrap(),
            1_700_000_000_123_000_000
        );
        assert_eq!(timestamp_nanos(&millis, 6).unwrap(), 1_700_000_000_123_000);
        let mut twelve = (-1i64).to_be_bytes().to_vec();
        twelve.extend(999_999i32.to_be_bytes());
        assert_eq!(timestamp_nanos(&twelve, 9).unwrap(), -1);
        twelve[11] = 0x40; // 1_000_000 + ... out of range
        twelve[8..].copy_from_slice(&1_000_000i32.to_be_bytes());
        assert!(timestamp_nanos(&twelve, 9).is_err());
    }

    #[test]
    fn a_file_type_must_fit_the_schema() {
        let cells = [Some(&[0u8, 0, 0, 5][..]), None];
        let int = DataType::nullable(TypeKind::Int);
        let array = leaf(&cells, &MosaicType::Int, &int).unwrap().unwrap();
        let ints = array.as_any().downcast_ref::<Int32Array>().unwrap();
        assert_eq!((ints.value(0), ints.is_null(1)), (5, true));
        let string = DataType::nullable(TypeKind::VarChar(10));
        assert!(leaf(&cells, &MosaicType::Int, &string).is_none());
        // Large decimals are big-endian two's complement bytes.
        let dec = DataType::nullable(TypeKind::Decimal {
            precision: 20,
            scale: 2,
        });
        let file = MosaicType::Decimal {
            precision: 20,
            scale: 2,
        };
        let cells = [Some(&[0xFFu8, 0x85][..])];
        let array = leaf(&cells, &file, &dec).unwrap().unwrap();
        let d = array.as_any().downcast_ref::<Decimal128Array>().unwrap();
        assert_eq!(d.value(0), -123);
    }
}
