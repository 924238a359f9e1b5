//! Two tiny tables built into the program (a primary-key table of two overlapping sorted runs, an
//! append table; written by `scripts/warm-up-tables.sh`), for a browser to open and read once
//! before the user opens a table: V8 compiles each WebAssembly function on its first call, 90–130
//! ms of the page's main thread on the way to a table's first rows otherwise (docs/benchmarks.md,
//! P4).

use std::future::Future;
use std::rc::Rc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use lakescope_storage::MemoryStore;

use crate::{scan::ScanRequest, Version};
use crate::{Catalog, Result, TableRef};

include!("../warm-up/files.rs");

/// The tables, as `database.table`: the merged one first.
pub const TABLES: [&str; 2] = ["warm_up.merged", "warm_up.appended"];

/// A catalog over a memory store holding the two tables, opened for browsing.
pub fn catalog() -> Catalog {
    Catalog::browse(Rc::new(MemoryStore::from_static(FILES)))
}

/// Opens `name` as a table view does (the Iceberg check, schemas, snapshots, tags, the latest
/// snapshot's files) and
/// reads its latest snapshot with `request`, whose first piece and footer request are made
/// smaller than these files so that they are read in pieces as large files are. Awaits `pause()`
/// between steps (a page passes a yield to its event loop).
pub async fn open_and_read<P, F>(
    catalog: &Catalog,
    name: &str,
    request: &ReadRequest,
    pause: P,
) -> Result<(SchemaRef, Vec<RecordBatch>)>
where
    P: Fn() -> F,
    F: Future<Output = ()>,
{
    let table_ref: TableRef = name.parse().map_err(crate::Error::Invalid)?;
    let path = table_ref.path();
    let store = catalog.store()?;
    catalog.format(&path).await;
    let table = Table::open(store.clone(), &path).await?;
    let snapshot = table.latest_snapshot().await?;
    pause().await;
    futures::try_join!(table.schemas(), table.snapshot_ids(), table.tags())?;
    pause().await;
    let files = TableRef {
        system: Some("files".into()),
        ..table_ref
    };
    let at = snapshot
        .as_ref()
        .map_or(Version::Latest, |s| Version::SnapshotId(s.id));
    let scan = ScanRequest {
        at,
        ..ScanRequest::default()
    };
    catalog.scan(&files, &scan).await?;
    pause().await;
    let request = ReadRequest {
        first_batch_bytes: Some(1024),
        footer_prefetch: Some(4096),
        ..request.clone()
    };
    let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), &request).await?;
    let mut batches = Vec::new();
    loop {
        pause().await;
        let Some(batch) = reader.next_batch().await else {
            break;
        };
        batches.push(batch?);
    }
    Ok((reader.schema().clone(), batches))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::Array;
    use std::path::Path;

    /// (id, n) of every row of `name`'s latest snapshot, and the batches' row counts.
    async fn ids_and_ns(name: &str) -> (Vec<(i64, Option<i32>)>, Vec<usize>) {
        let catalog = catalog();
        let request = ReadRequest {
            first_batch_rows: Some(64),
            ..ReadRequest::default()
        };
        let (_, batches) = open_and_read(&catalog, name, &request, || async {})
            .await
            .unwrap();
        let mut rows = Vec::new();
        for batch in &batches {
            let ids = batch.column(0).as_primitive::<Int64Type>();
            let ns = batch.column(1).as_primitive::<Int32Type>();
            rows.extend(
                (0..batch.num_rows()).map(|i| (ids.value(i), ns.is_valid(i).then(|| ns.value(i)))),
            );
        }
        (rows, batches.iter().map(|b| b.num_rows()).collect())
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_tables_read_back_merged_and_appended() {
        // Keys 100..200 are in both sorted runs: the second commit's row (n = id % 5) wins.
        let (merged, sizes) = ids_and_ns(TABLES[0]).await;
        let expected: Vec<_> = (0..300)
            .map(|i| (i, Some(if i < 100 { i % 7 } else { i % 5 } as i32)))
            .collect();
        assert_eq!(merged, expected);
        assert_eq!(
            sizes[0], 64,
            "the first merged batch has first_batch_rows rows"
        );
        // In the order written (the generator's join order); every tenth n is NULL.
        let (mut appended, _) = ids_and_ns(TABLES[1]).await;
        appended.sort();
        let expected: Vec<_> = (0..300)
            .map(|i| (i, (i % 10 != 0).then_some(i as i32)))
            .collect();
        assert_eq!(appended, expected);
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
