//! Parquet data files are read with ranged requests: the footer, then only the column chunks the
//! read needs; the rows are those of a whole-file decode.

use lakescope_iceberg::plan::FileTask;
use lakescope_iceberg::read::{decode_data_file, read_parquet_data_file};
use lakescope_iceberg::write::{append, IcebergTableDefinition};
use lakescope_iceberg::{read_table, PlannedRead, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{IoMeter, MeteredStore, ObjectStore};
use std::rc::Rc;
use std::sync::Arc;

mod common;
use common::*;

/// A table of one data file of 100,000 rows: `id` and a `payload` of 64 pseudo-random hex digits.
async fn wide_table(wh: &Warehouse) -> Table {
    let def = IcebergTableDefinition {
        columns: vec![col("id", bigint()), col("payload", string())],
        ..Default::default()
    };
    let table = wh.create("db", "wide", def).await;
    let ids: Vec<i64> = (0..100_000).collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let payloads: Vec<String> = ids
        .iter()
        .map(|_| (0..4).map(|_| format!("{:016x}", next())).collect())
        .collect();
    let refs: Vec<&str> = payloads.iter().map(String::as_str).collect();
    let rows = batch(vec![("id", longs(&ids)), ("payload", strings(&refs))]);
    append(&table, &[rows], &wh.env).await.unwrap()
}

/// The one data file of the table's current snapshot.
async fn only_data_file(table: &Table) -> FileTask {
    let plan = PlannedRead::plan(table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap();
    let [task] = plan.files() else {
        panic!("{} data files", plan.files().len());
    };
    task.clone()
}

#[tokio::test(flavor = "current_thread")]
async fn a_projection_fetches_only_its_column_chunks() {
    let wh = Warehouse::new();
    let written = wide_table(&wh).await;
    let meter = Arc::new(IoMeter::default());
    let metered = MeteredStore::new(wh.store.clone() as Rc<dyn ObjectStore>, meter.clone());
    let table = Table::open(Rc::new(metered), written.key()).await.unwrap();
    let task = only_data_file(&table).await;
    let size = task.data.file.file_size_in_bytes as u64;
    assert!(size > 1_000_000, "a data file of {size} bytes");

    let read = |columns: Option<Vec<String>>| {
        let (table, meter) = (&table, meter.clone());
        async move {
            let before = meter.read();
            let out = read_table(
                table,
                &SnapshotSelector::Current,
                &ReadRequest {
                    columns,
                    limit: None,
                },
            )
            .await
            .unwrap();
            let rows: usize = out.batches.iter().map(|b| b.num_rows()).sum();
            (rows, meter.read().since(&before))
        }
    };
    let (rows, ids_only) = read(Some(vec!["id".into()])).await;
    assert_eq!(rows, 100_000);
    // the footer and the id column's chunk: a small part of the file
    assert!(
        ids_only.bytes_read * 4 < size,
        "{} of {size} bytes for the id column",
        ids_only.bytes_read
    );
    let (rows, everything) = read(None).await;
    assert_eq!(rows, 100_000);
    assert!(everything.bytes_read >= ids_only.bytes_read * 4);
    assert!(everything.bytes_read <= size + 128 * 1024);
}

#[tokio::test(flavor = "current_thread")]
async fn ranged_reads_give_the_rows_of_a_whole_file_decode() {
    let wh = Warehouse::new();
    let table = wide_table(&wh).await;
    let task = only_data_file(&table).await;
    let size = task.data.file.file_size_in_bytes as u64;
    let fields = lakescope_iceberg::convert::to_data_fields(
        &table.metadata().current_schema().unwrap().fields,
    )
    .unwrap();
    let ranged = read_parquet_data_file(&table, &task.data, &fields)
        .await
        .unwrap();
    let bytes = wh.store.get(&task.data.key).await.unwrap();
    let whole = decode_data_file(&table, &task.data, bytes, &fields)
        .await
        .unwrap();
    assert_eq!(ranged, whole);
    // a manifest that states the file's size wrongly (too small, too large, a placeholder):
    // the store's size is asked for, and the rows are the same
    for stated in [size - 1, size + 10, 1, 0] {
        let mut wrong = task.data.clone();
        wrong.file.file_size_in_bytes = stated as i64;
        let read = read_parquet_data_file(&table, &wrong, &fields)
            .await
            .unwrap();
        assert_eq!(read, whole, "stated size {stated}");
    }
    // a file that is not Parquet is an error naming it
    wh.store
        .put(
            &task.data.key,
            bytes::Bytes::from_static(b"not a parquet file at all"),
        )
        .await
        .unwrap();
    let err = read_parquet_data_file(&table, &task.data, &fields)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(&task.data.key), "{err}");
}
