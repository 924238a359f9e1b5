//! Two tiny tables built into the program (a primary-key table of two overlapping sorted runs, an
//! append table; written by `scripts/warm-up-tables.sh`), for a browser to read once before the
//! user opens a table: V8 compiles each WebAssembly function on its first call, 90–130 ms of the
//! page's main thread on the way to a table's first rows otherwise (docs/benchmarks.md, P4).

use bytes::Bytes;
use lakescope_storage::{MemoryStore, ObjectStore};

include!("../warm-up/files.rs");

/// The tables' paths in [`warehouse`]: the merged one first.
pub const TABLES: [&str; 2] = ["warm_up.db/merged", "warm_up.db/appended"];

/// A memory store holding the two tables.
pub async fn warehouse() -> crate::Result<MemoryStore> {
    let store = MemoryStore::new();
    for (key, bytes) in FILES {
        store.put(key, Bytes::from_static(bytes)).await?;
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use arrow_array::types::{Int32Type, Int64Type};
    use lakescope_paimon::table::Table;
    use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
    use std::path::Path;
    use std::rc::Rc;

    /// (id, n) of every row of `path`'s latest snapshot, read as a viewer reads it.
    async fn ids_and_ns(store: Rc<dyn ObjectStore>, path: &str) -> Vec<(i64, Option<i32>)> {
        let table = Table::open(store, path).await.unwrap();
        let snapshot = table.latest_snapshot().await.unwrap();
        let request = ReadRequest {
            first_batch_bytes: Some(512 * 1024),
            first_batch_rows: Some(1024),
            ..ReadRequest::default()
        };
        let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), &request)
            .await
            .unwrap();
        let mut rows = Vec::new();
        while let Some(batch) = reader.next_batch().await {
            let batch = batch.unwrap();
            let ids = batch.column(0).as_primitive::<Int64Type>();
            let ns = batch.column(1).as_primitive::<Int32Type>();
            rows.extend(
                (0..batch.num_rows()).map(|i| (ids.value(i), ns.is_valid(i).then(|| ns.value(i)))),
            );
        }
        rows
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_tables_read_back_merged_and_appended() {
        let store: Rc<dyn ObjectStore> = Rc::new(warehouse().await.unwrap());
        // Key 2 is in both sorted runs: the second commit's row wins.
        assert_eq!(
            ids_and_ns(store.clone(), TABLES[0]).await,
            [(1, Some(1)), (2, Some(20)), (3, Some(3)), (4, Some(4))]
        );
        assert_eq!(
            ids_and_ns(store, TABLES[1]).await,
            [(1, Some(1)), (2, None)]
        );
    }

    #[test]
    fn every_file_of_the_warehouse_folder_is_built_in() {
        fn count(dir: &Path) -> usize {
            std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| if p.is_dir() { count(&p) } else { 1 })
                .sum()
        }
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("warm-up/warehouse");
        assert_eq!(count(&dir), FILES.len(), "run scripts/warm-up-tables.sh");
    }
}
