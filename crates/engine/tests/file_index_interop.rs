//! Interop: a table Java Paimon 0.9 wrote with file indexes (a bloom filter on `id`, a bitmap on
//! `name`; first embedded in the manifest, then in an `.index` file beside the data file) reads
//! in lakescope as Java 0.9 reads it, at every snapshot and with filters on the indexed columns:
//! the indexes never change or drop rows. (pypaimon 2.1 cannot read Java 0.9's manifests:
//! `KeyError: '_VALUE_STATS_COLS'`.) The oracles are subprocesses set up by
//! `scripts/oracles.sh`; without them the test fails (set `LAKESCOPE_SKIP_ORACLES=1` to skip it).

use lakescope_engine::scan::{parse_filter, ScanRequest};
use lakescope_engine::{canonical::batches_to_lines, Catalog, TableRef, Version};
use lakescope_storage::LocalStore;
use lakescope_test_support::interop::{agree_at_snapshots, Pypaimon};
use lakescope_test_support::oracles::{normalize, oracles, run};
use lakescope_test_support::temp_dir;
use std::path::Path;
use std::rc::Rc;

#[tokio::test(flavor = "current_thread")]
async fn tables_with_embedded_and_separate_file_indexes_read_as_java_reads_them() {
    let Some(o) = oracles() else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // its own class folder: crates/paimon's system_tables test compiles the same source
    let classes = std::env::temp_dir().join("lakescope-file-index-java-classes-engine");
    let o = o.with_java(&repo.join("tests/oracles/FileIndexJava.java"), &classes);
    let wh = temp_dir("lakescope-interop", "file-index");
    run(
        o.java("FileIndexJava").arg("write").arg(&wh),
        "Java writing file indexes",
    );
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let table: TableRef = "fi.t".parse().unwrap();
    let rows = agree_at_snapshots(&o, &catalog, &wh, &table, &[1, 2], Pypaimon::Skip).await;
    let latest = &rows[&2];
    assert!(latest.len() > rows[&1].len(), "{latest:?}");
    // Filters on the indexed columns keep exactly the agreed rows whose column holds the value.
    let cases = [
        ("id = 12", "id", serde_json::Value::from(12)),
        ("id = 3", "id", serde_json::Value::from(3)),
        ("name IS NULL", "name", serde_json::Value::Null),
        ("name = 'n3'", "name", serde_json::Value::from("n3")),
    ];
    for (filter, column, value) in cases {
        let want: Vec<String> = latest
            .iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()[column] == value)
            .cloned()
            .collect();
        assert!(!want.is_empty(), "{filter}: no agreed row matches");
        let request = ScanRequest {
            at: Version::SnapshotId(2),
            filter: Some(parse_filter(filter).unwrap()),
            ..ScanRequest::default()
        };
        let got = catalog.scan(&table, &request).await.unwrap();
        assert_eq!(
            normalize(batches_to_lines(&got.batches).unwrap()),
            want,
            "{filter}"
        );
    }
    let _ = std::fs::remove_dir_all(&wh);
}
