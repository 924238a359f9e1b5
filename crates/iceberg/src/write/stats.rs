//! Column metrics of a written file (value/null counts, lower/upper bounds) in manifest form.

use super::data::literal_at;
use crate::spec::transform::decimal_bytes;
use crate::spec::{Literal, NestedField, Type};
use arrow_array::{Array, RecordBatch};
use std::cmp::Ordering;

/// Metrics of the columns of one file, by field id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnStats {
    /// `value_counts`: `(field id, values in the column, nulls included)` for each top-level
    /// column.
    pub value_counts: Vec<(i32, i64)>,
    /// `null_value_counts`: `(field id, null values in the column)` for each top-level column.
    pub null_value_counts: Vec<(i32, i64)>,
    /// `lower_bounds`: `(field id, smallest non-null value)` in the spec's single-value binary
    /// form, for the columns whose type has bounds here and that hold a non-null value.
    pub lower_bounds: Vec<(i32, Vec<u8>)>,
    /// `upper_bounds`: `(field id, largest non-null value)`, like `lower_bounds`.
    pub upper_bounds: Vec<(i32, Vec<u8>)>,
}

/// Order of two values of one column (`None` for types without bounds here).
fn compare(a: &Literal, b: &Literal) -> Option<Ordering> {
    Some(match (a, b) {
        (Literal::Boolean(x), Literal::Boolean(y)) => x.cmp(y),
        (Literal::Int(x), Literal::Int(y)) => x.cmp(y),
        (Literal::Long(x), Literal::Long(y)) => x.cmp(y),
        (Literal::Decimal(x), Literal::Decimal(y)) => x.cmp(y),
        // UTF-8 byte order is code point order, as Iceberg compares strings.
        (Literal::String(x), Literal::String(y)) => x.cmp(y),
        (Literal::Bytes(x), Literal::Bytes(y)) => x.cmp(y),
        _ => return None,
    })
}

/// The single-value serialization of a bound (little-endian numbers, UTF-8, big-endian
/// two's-complement decimals). Floats get no bounds (NaN ordering is left to readers).
fn bound_bytes(value: &Literal) -> Option<Vec<u8>> {
    Some(match value {
        Literal::Boolean(b) => vec![u8::from(*b)],
        Literal::Int(v) => v.to_le_bytes().to_vec(),
        Literal::Long(v) => v.to_le_bytes().to_vec(),
        Literal::Decimal(v) => decimal_bytes(*v),
        Literal::String(s) => s.as_bytes().to_vec(),
        Literal::Bytes(b) => b.clone(),
        Literal::Float(_) | Literal::Double(_) => return None,
    })
}

fn has_bounds(t: &Type) -> bool {
    matches!(
        t,
        Type::Boolean
            | Type::Int
            | Type::Long
            | Type::Decimal { .. }
            | Type::Date
            | Type::Time
            | Type::Timestamp
            | Type::Timestamptz
            | Type::String
            | Type::Binary
            | Type::Fixed(_)
    )
}

/// Metrics of `batch` (a file's rows; its columns are `fields`, in file types).
pub fn column_stats(fields: &[NestedField], batch: &RecordBatch) -> ColumnStats {
    let mut stats = ColumnStats::default();
    for (field, column) in fields.iter().zip(batch.columns()) {
        stats.value_counts.push((field.id, column.len() as i64));
        stats
            .null_value_counts
            .push((field.id, column.null_count() as i64));
        if !has_bounds(&field.field_type) {
            continue;
        }
        let mut bounds: Option<(Literal, Literal)> = None;
        for row in 0..column.len() {
            let Some(v) = literal_at(column.as_ref(), row) else {
                continue;
            };
            bounds = Some(match bounds {
                None => (v.clone(), v),
                Some((lo, hi)) => {
                    let lo = if compare(&v, &lo) == Some(Ordering::Less) {
                        v.clone()
                    } else {
                        lo
                    };
                    let hi = if compare(&v, &hi) == Some(Ordering::Greater) {
                        v
                    } else {
                        hi
                    };
                    (lo, hi)
                }
            });
        }
        if let Some((lo, hi)) = bounds {
            if let (Some(l), Some(h)) = (bound_bytes(&lo), bound_bytes(&hi)) {
                stats.lower_bounds.push((field.id, l));
                stats.upper_bounds.push((field.id, h));
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
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
    fn counts_and_bounds() {
        let fields = [
            field(1, "s", Type::String),
            field(2, "n", Type::Long),
            field(3, "d", Type::Double),
        ];
        let batch = RecordBatch::try_from_iter(vec![
            (
                "s",
                Arc::new(StringArray::from(vec![Some("b"), None, Some("aa")])) as ArrayRef,
            ),
            ("n", Arc::new(Int64Array::from(vec![5, -2, 9])) as ArrayRef),
            (
                "d",
                Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef,
            ),
        ])
        .unwrap();
        let s = column_stats(&fields, &batch);
        assert_eq!(s.value_counts, vec![(1, 3), (2, 3), (3, 3)]);
        assert_eq!(s.null_value_counts, vec![(1, 1), (2, 0), (3, 0)]);
        assert_eq!(
            s.lower_bounds,
            vec![(1, b"aa".to_vec()), (2, (-2i64).to_le_bytes().to_vec())]
        );
        assert_eq!(
            s.upper_bounds,
            vec![(1, b"b".to_vec()), (2, 9i64.to_le_bytes().to_vec())]
        );
    }
}
