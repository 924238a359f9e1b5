//! The wasm core reads one corpus table of each kind (Paimon and Iceberg) in headless Chromium exactly
//! as Paimon and pyiceberg do.
#![cfg(target_arch = "wasm32")]

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_wasm_conformance::{corpus_warehouse, file_count, EXPECTED};
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn corpus_tables_read_exactly_in_the_browser() {
    assert!(
        file_count() > 100,
        "corpus not embedded: {} files",
        file_count()
    );
    assert!(
        EXPECTED.len() >= 30,
        "expected files not embedded: {}",
        EXPECTED.len()
    );
    let iceberg_cases = EXPECTED
        .iter()
        .filter(|(t, _, _)| *t == "corpus.events")
        .count();
    assert!(
        iceberg_cases >= 9,
        "Iceberg expected files not embedded: {iceberg_cases}"
    );
    let catalog = Catalog::new(Rc::new(corpus_warehouse()));
    let mut failures = Vec::new();
    for (table, label, jsonl) in EXPECTED {
        let table_ref: TableRef = table.parse().unwrap();
        let at = match label.split_once('-') {
            Some(("snapshot", id)) => Version::SnapshotId(id.parse().unwrap()),
            Some(("tag", name)) => Version::Tag(name.to_string()),
            _ => continue,
        };
        let request = ScanRequest {
            at,
            ..ScanRequest::default()
        };
        let mut got = match catalog.scan(&table_ref, &request).await {
            Ok(r) => batches_to_lines(&r.batches).unwrap(),
            Err(e) => {
                failures.push(format!("{table}/{label}: {e}"));
                continue;
            }
        };
        got.sort();
        let mut expected: Vec<String> = jsonl.lines().map(str::to_string).collect();
        expected.sort();
        if got != expected {
            failures.push(format!(
                "{table}/{label}: {} rows, expected {}",
                got.len(),
                expected.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
async fn catalog_lists_the_embedded_tables() {
    let catalog = Catalog::new(Rc::new(corpus_warehouse()));
    let tree = catalog.tree().await.unwrap();
    let names: Vec<String> = tree
        .iter()
        .flat_map(|db| {
            db.tables
                .iter()
                .map(move |t| format!("{}.{}", db.name, t.name))
        })
        .collect();
    assert!(names.contains(&"corpus.pk_dedup".to_string()), "{names:?}");
    assert!(
        names.contains(&"java09.pk_deletion_vectors".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"corpus.mor_position_deletes".to_string()),
        "{names:?}"
    );
}

#[wasm_bindgen_test]
async fn a_viewer_read_with_a_small_first_piece_ends_in_the_browser() {
    use lakescope_paimon::table::Table;
    use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
    use lakescope_storage::ObjectStore;
    let store: Rc<dyn ObjectStore> = Rc::new(corpus_warehouse());
    let catalog = Catalog::new(store.clone());
    for name in ["corpus.append_dt", "corpus.pk_dedup"] {
        let table_ref: TableRef = name.parse().unwrap();
        let table = Table::open(store.clone(), table_ref.path()).await.unwrap();
        let snapshot = table.latest_snapshot().await.unwrap();
        let request = ReadRequest {
            first_batch_bytes: Some(512 * 1024),
            first_batch_rows: Some(1024),
            ..ReadRequest::default()
        };
        let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), &request)
            .await
            .unwrap();
        let mut rows = 0;
        while let Some(batch) = reader.next_batch().await {
            rows += batch.unwrap().num_rows();
        }
        let scanned = catalog
            .scan(&table_ref, &ScanRequest::default())
            .await
            .unwrap();
        let expected: usize = scanned.batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, expected, "{name}");
    }
}

#[wasm_bindgen_test]
async fn the_built_in_warm_up_tables_open_and_read_in_the_browser() {
    use lakescope_engine::warm_up::{catalog, open_and_read, TABLES};
    use lakescope_paimon::table_read::ReadRequest;
    let catalog = catalog();
    let request = ReadRequest {
        first_batch_rows: Some(1024),
        ..ReadRequest::default()
    };
    for name in TABLES {
        let (schema, batches) = open_and_read(&catalog, name, &request, || async {})
            .await
            .unwrap();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        // Merged: keys 0..300 once each; appended: 300 rows.
        assert_eq!(rows, 300, "{name}");
        assert_eq!(schema.fields().len(), 8, "{name}");
    }
}

/// An object container header (magic, metadata {avro.schema: "int", avro.codec: codec}, sync),
/// then `block` as its one block of one row, if any.
fn avro_container(codec: &str, block: Option<&[u8]>) -> Vec<u8> {
    let mut file = b"Obj\x01\x04".to_vec();
    for (key, value) in [("avro.schema", "\"int\""), ("avro.codec", codec)] {
        for s in [key, value] {
            file.push(u8::try_from(s.len() * 2).unwrap());
            file.extend_from_slice(s.as_bytes());
        }
    }
    file.push(0);
    file.extend_from_slice(&[7; 16]);
    if let Some(block) = block {
        file.push(2);
        file.push(u8::try_from(block.len() * 2).unwrap());
        file.extend_from_slice(block);
        file.extend_from_slice(&[7; 16]);
    }
    file
}

/// In wasm, xz and bzip2 blocks go through the transcoder the app's decoder worker runs: a
/// corrupt block is an error naming the file, the codec and the block, never a panic; a codec no
/// reader knows is refused by name.
#[wasm_bindgen_test]
async fn corrupt_xz_and_bzip2_blocks_and_unknown_codecs_are_named_errors_in_the_browser() {
    use lakescope_paimon::read::avro_container::readable;
    use lakescope_paimon::spec::avro_names::{open_error, reader};
    for codec in ["xz", "bzip2"] {
        let file = avro_container(codec, Some(b"not compressed at all"));
        let err = readable("t/bucket-0/data-0.avro", file.into())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t/bucket-0/data-0.avro")
                && err.contains(&format!("codec '{codec}'"))
                && err.contains("block 0"),
            "{err}"
        );
        // A container without blocks reads as no rows.
        let empty = readable("t/e.avro", avro_container(codec, None).into())
            .await
            .unwrap();
        assert_eq!(reader(&empty[..]).unwrap().count(), 0, "{codec}");
    }
    let lzo = avro_container("lzo", None);
    let err = match reader(&lzo[..]) {
        Ok(_) => panic!("an Avro file with an unknown codec was opened"),
        Err(e) => open_error("t/bucket-0/data-0.avro", &e).to_string(),
    };
    assert!(
        err.contains("t/bucket-0/data-0.avro") && err.contains("'lzo'"),
        "{err}"
    );
}
