//! The benchmarks' full-read checksum: row count plus every cell touched (numeric sums, string byte lengths).

use crate::{Catalog, Result, TableRef};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, OffsetSizeTrait, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::DataType;
use lakescope_iceberg::PlannedRows;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};

/// What a full read touched ([`touch_table`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Touched {
    /// Rows read.
    pub rows: u64,
    /// The [`touch`] checksum of every batch, summed.
    pub checksum: f64,
    /// Batches the reader produced.
    pub batches: usize,
}

/// Reads the whole table `table_ref` names (Paimon at snapshot `snapshot`, `None`: the latest, a
/// table without snapshots reads nothing; Iceberg at its current snapshot, or `snapshot`) batch by
/// batch through [`touch`], holding one batch at a time.
pub async fn touch_table(
    catalog: &Catalog,
    table_ref: &TableRef,
    snapshot: Option<i64>,
) -> Result<Touched> {
    let mut touched = Touched::default();
    if let Some(table) = catalog.open_iceberg(table_ref).await? {
        let planned = crate::iceberg_scan::plan_whole(&table, table_ref, snapshot).await?;
        let mut rows = PlannedRows::new(&table, planned, None);
        while let Some(batch) = rows.next_batch().await {
            touched.add(touch(&[batch?]));
        }
        return Ok(touched);
    }
    let table = catalog.open_table(table_ref).await?;
    let snapshot = match snapshot {
        Some(id) => Some(table.snapshot(id).await?),
        None => table.latest_snapshot().await?,
    };
    let mut reader =
        SnapshotReader::open(&table, snapshot.as_ref(), &ReadRequest::default()).await?;
    touch_reader(&mut reader).await
}

/// Reads `reader` to its end through [`touch`], holding one batch at a time.
pub async fn touch_reader(reader: &mut SnapshotReader<'_>) -> Result<Touched> {
    let mut touched = Touched::default();
    while let Some(batch) = reader.next_batch().await {
        touched.add(touch(&[batch?]));
    }
    Ok(touched)
}

impl Touched {
    /// Counts one batch's [`touch`].
    fn add(&mut self, (rows, checksum): (u64, f64)) {
        self.rows += rows;
        self.checksum += checksum;
        self.batches += 1;
    }
}

/// Row count and a checksum over every cell of `batches`, like the anchors' readers: the sum of
/// every numeric column and the byte lengths of every string/binary column; other types count
/// their non-null values.
pub fn touch(batches: &[RecordBatch]) -> (u64, f64) {
    let mut rows = 0u64;
    let mut check = 0f64;
    for batch in batches {
        rows += batch.num_rows() as u64;
        for column in batch.columns() {
            check += touch_array(column.as_ref());
        }
    }
    (rows, check)
}

fn sum<T: ArrowPrimitiveType>(array: &dyn Array) -> f64
where
    T::Native: Into<f64>,
{
    let a = array.as_primitive::<T>();
    if a.null_count() == 0 {
        a.values().iter().map(|&v| v.into()).sum()
    } else {
        a.iter().flatten().map(|v| v.into()).sum()
    }
}

fn sum_i64<T: ArrowPrimitiveType<Native = i64>>(array: &dyn Array) -> f64 {
    let a = array.as_primitive::<T>();
    // Integer sums wrap like pyarrow's int64 sum would not; fine for a checksum.
    let s: i64 = if a.null_count() == 0 {
        a.values().iter().fold(0i64, |s, &v| s.wrapping_add(v))
    } else {
        a.iter().flatten().fold(0i64, |s, v| s.wrapping_add(v))
    };
    s as f64
}

fn sum_u64(array: &dyn Array) -> f64 {
    let a = array.as_primitive::<UInt64Type>();
    a.iter().flatten().fold(0u64, |s, v| s.wrapping_add(v)) as f64
}

/// Bytes of the non-null values of a string or binary array, from its offsets alone.
fn value_bytes<O: OffsetSizeTrait>(offsets: &OffsetBuffer<O>, nulls: Option<&NullBuffer>) -> f64 {
    let len = |i: usize| (offsets[i + 1] - offsets[i]).as_usize();
    let total = match nulls {
        Some(n) if n.null_count() > 0 => n.valid_indices().map(len).sum::<usize>(),
        _ => (offsets[offsets.len() - 1] - offsets[0]).as_usize(),
    };
    total as f64
}

fn touch_array(array: &dyn Array) -> f64 {
    match array.data_type() {
        DataType::Int8 => sum::<Int8Type>(array),
        DataType::Int16 => sum::<Int16Type>(array),
        DataType::Int32 => sum::<Int32Type>(array),
        DataType::Int64 => sum_i64::<Int64Type>(array),
        DataType::UInt8 => sum::<UInt8Type>(array),
        DataType::UInt16 => sum::<UInt16Type>(array),
        DataType::UInt32 => sum::<UInt32Type>(array),
        DataType::UInt64 => sum_u64(array),
        DataType::Float32 => sum::<Float32Type>(array),
        DataType::Float64 => sum::<Float64Type>(array),
        DataType::Utf8 => value_bytes(array.as_string::<i32>().offsets(), array.nulls()),
        DataType::LargeUtf8 => value_bytes(array.as_string::<i64>().offsets(), array.nulls()),
        DataType::Utf8View => {
            let a = array.as_string_view();
            a.iter().flatten().map(str::len).sum::<usize>() as f64
        }
        DataType::Binary => value_bytes(array.as_binary::<i32>().offsets(), array.nulls()),
        DataType::LargeBinary => value_bytes(array.as_binary::<i64>().offsets(), array.nulls()),
        _ => (array.len() - array.null_count()) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, LargeBinaryArray, StringArray};
    use std::sync::Arc;

    #[test]
    fn touches_numbers_and_strings() {
        let batch = RecordBatch::try_from_iter([
            (
                "a",
                Arc::new(Int32Array::from(vec![Some(1), None, Some(3)])) as _,
            ),
            ("b", Arc::new(Float64Array::from(vec![0.5, 0.5, 1.0])) as _),
            (
                "c",
                Arc::new(StringArray::from(vec![Some("ab"), None, Some("cde")])) as _,
            ),
            (
                "d",
                Arc::new(LargeBinaryArray::from(vec![
                    Some(&b"wxyz"[..]),
                    Some(&b""[..]),
                    None,
                ])) as _,
            ),
        ])
        .unwrap();
        let (rows, check) = touch(&[batch.slice(1, 2), batch.slice(0, 1)]);
        assert_eq!(rows, 3);
        assert_eq!(check, 1.0 + 3.0 + 2.0 + 2.0 + 3.0 + 4.0);
    }
}
