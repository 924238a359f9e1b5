//! Writes into the tables pypaimon 2.1 writes with modern Paimon features (issue 25, "writes
//! stay compatible"): lakescope's INSERT of a table's own rows either commits what pypaimon then
//! reads back exactly, or is refused with an `Unsupported` error naming the table and the
//! feature, leaving the table as it was (no snapshot, no file).

use lakescope_engine::write::insert_into_table;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::modern::generate;
use lakescope_test_support::oracles::{oracles, read_pypaimon};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Every table of `gen_modern.py` whose rows lakescope reads (the others are refused on read,
/// see `crates/paimon/tests/modern_features.rs`, and cannot be written back from their rows).
const FEATURES: &[&str] = &[
    "data_evolution",
    "data_evolution_some_rows",
    "data_evolution_deletes",
    "data_evolution_appends",
    "row_tracking",
    "consumers",
    "table_indexes_dv",
    "table_indexes_hash",
    "file_key_ranges_pk",
    "file_key_ranges_evolution",
    "dv_merge_on_read",
    "dv_level0_hidden",
    "postpone",
    "blob",
    "blob_rolled",
    "vector_parquet",
    "vector_orc",
    "vector_avro",
    "vector_row",
    "avro_xz",
    "parquet_brotli",
    "avro_bzip2",
    "row_format",
    "row_format_pk",
    "row_format_evolution",
    "modern_refs",
    "row_format_types",
    "variant",
    "variant_row_format",
    "variant_shredded",
    "variant_nested",
    "variant_pk",
    "mosaic_format",
    "mosaic_pk",
    "mosaic_buckets",
    "external_paths",
    "external_paths_pk",
];

/// Every file under `dir`, as paths relative to it.
fn files(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn inserts_into_modern_tables_are_read_back_by_pypaimon_or_refused_by_name() {
    let Some(o) = oracles() else { return };
    let env = FixedEnv::new(1_800_000_000_000, 25);
    let (mut committed, mut refused) = (Vec::new(), Vec::new());
    for feature in FEATURES {
        let (dir, _) = generate(feature).unwrap();
        let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
        let path = format!("m.db/{feature}");
        let table = Table::open(store, &path).await.unwrap();
        let before = table.latest_snapshot().await.unwrap().unwrap();
        let rows = read_snapshot(&table, Some(&before), &ReadRequest::default())
            .await
            .unwrap_or_else(|e| panic!("{feature}: lakescope reads it (modern_features.rs): {e}"))
            .batches;
        let on_disk = files(dir.path());
        match insert_into_table(&env, &table, &rows, None).await {
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    matches!(
                        e,
                        lakescope_engine::Error::Paimon(
                            lakescope_paimon::Error::Unsupported { .. }
                        )
                    ),
                    "{feature}: a refusal is Unsupported: {msg}"
                );
                assert!(msg.contains(&path), "{feature}: names the table: {msg}");
                let after = table.latest_snapshot().await.unwrap().unwrap();
                assert_eq!(after.id, before.id, "{feature}: refused, yet committed");
                assert_eq!(files(dir.path()), on_disk, "{feature}: refused, yet wrote");
                refused.push(format!("{feature}: {msg}"));
            }
            Ok(outcome) => {
                // pypaimon reads the commit: an append table has its rows twice, a primary-key
                // table (the same keys upserted with the same values) the same rows.
                let ids = [before.id, outcome.snapshot.id];
                let read = read_pypaimon(&o, dir.path(), &format!("m.{feature}"), &ids);
                let old = read[&before.id]
                    .clone()
                    .unwrap_or_else(|e| panic!("{feature}: {e}"));
                let new = read[&outcome.snapshot.id].clone().unwrap_or_else(|e| {
                    panic!("{feature}: pypaimon cannot read lakescope's commit: {e}")
                });
                let want = if table.current_schema().primary_keys.is_empty() {
                    let mut twice = [old.clone(), old].concat();
                    twice.sort();
                    twice
                } else {
                    old
                };
                assert_eq!(
                    new, want,
                    "{feature}: pypaimon's read of lakescope's commit"
                );
                committed.push(feature.to_string());
            }
        }
    }
    println!("committed and read back by pypaimon: {committed:?}");
    println!("refused:\n{}", refused.join("\n"));
    // both outcomes happen: plain tables in a modern codec take writes, the modern layouts do not
    assert!(
        !committed.is_empty() && !refused.is_empty(),
        "{committed:?} {refused:?}"
    );
    // what docs/paimon-features.md says lakescope writes (the Write column): primary-key tables
    // with deletion vectors, merge-on-read included, hash indexes, consumers, BROTLI Parquet
    for feature in [
        "dv_merge_on_read",
        "dv_level0_hidden",
        "table_indexes_hash",
        "consumers",
        "parquet_brotli",
    ] {
        assert!(
            committed.iter().any(|f| f == feature),
            "{feature} is written: {committed:?}"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn inserts_into_vortex_and_lance_tables_are_refused_naming_the_table_and_format() {
    // lakescope writes Parquet and ORC only. The engine's tests read no vortex files (the
    // `vortex` reader is the CLI's feature) and no reader reads lance files, so the INSERT's rows
    // are new ones of the table's schema rather than the table's own; they are refused before any
    // file is written.
    if oracles().is_none() {
        return;
    }
    let env = FixedEnv::new(1_800_000_000_000, 25);
    for (feature, format) in [
        ("vortex_format", "vortex"),
        ("vortex_pk", "vortex"),
        ("vortex_buckets", "vortex"),
        ("lance_format", "lance"),
    ] {
        let (dir, pypaimon) = generate(feature).unwrap();
        assert!(
            pypaimon.is_ok(),
            "{feature}: pypaimon reads it: {pypaimon:?}"
        );
        let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
        let path = format!("m.db/{feature}");
        let table = Table::open(store, &path).await.unwrap();
        let before = table.latest_snapshot().await.unwrap().unwrap();
        let schema = lakescope_paimon::read::to_arrow_schema(&table.current_schema().fields);
        let columns: Vec<arrow_array::ArrayRef> = schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                arrow_schema::DataType::Int64 => {
                    std::sync::Arc::new(arrow_array::Int64Array::from(vec![90_001]))
                        as arrow_array::ArrayRef
                }
                arrow_schema::DataType::Utf8 => {
                    std::sync::Arc::new(arrow_array::StringArray::from(vec!["w"]))
                }
                other => panic!("{feature}: column {} of type {other}", f.name()),
            })
            .collect();
        let rows = arrow_array::RecordBatch::try_new(schema, columns).unwrap();
        let on_disk = files(dir.path());
        let err = insert_into_table(&env, &table, &[rows], None)
            .await
            .expect_err("a vortex or lance table must not take lakescope's Parquet files");
        let msg = err.to_string();
        assert!(
            matches!(
                err,
                lakescope_engine::Error::Paimon(lakescope_paimon::Error::Unsupported { .. })
            ),
            "{feature}: {msg}"
        );
        assert!(
            msg.contains(&path) && msg.contains(&format!("file.format={format}")),
            "{feature}: {msg}"
        );
        let after = table.latest_snapshot().await.unwrap().unwrap();
        assert_eq!(after.id, before.id, "{feature}: refused, yet committed");
        assert_eq!(files(dir.path()), on_disk, "{feature}: refused, yet wrote");
    }
}
