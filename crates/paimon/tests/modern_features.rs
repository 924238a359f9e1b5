//! Tables written by pypaimon 2.1 with modern Paimon features (issue 25, "unknown means refuse"):
//! each is read exactly as pypaimon reads it, or refused with an error naming the table or file
//! and the feature — never a silently wrong row. The tables are written at test time by
//! `tests/modern/gen_modern.py`, which also prints pypaimon's rows.

use arrow_array::{Array, BinaryArray, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use lakescope_paimon::predicate::parse::parse as parse_filter;
use lakescope_paimon::read::blob;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::Error;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::files_under;
use lakescope_test_support::modern::generate;
use lakescope_test_support::tables::rows;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

/// lakescope's batches of the latest snapshot of `m.<feature>`.
async fn latest_batches(dir: &Path, feature: &str) -> Result<Vec<RecordBatch>, Error> {
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir));
    let table = Table::open(store, &format!("m.db/{feature}")).await?;
    let snapshot = table.latest_snapshot().await?;
    let out = read_snapshot(&table, snapshot.as_ref(), &ReadRequest::default()).await?;
    Ok(out.batches)
}

/// lakescope's rows of the latest snapshot of `m.<feature>`.
async fn read_latest(dir: &Path, feature: &str) -> Result<Vec<String>, Error> {
    Ok(rows(&latest_batches(dir, feature).await?))
}

/// Reads `feature` in lakescope and pypaimon and asserts the same rows at the latest snapshot
/// and at every snapshot pypaimon reads (`snapshots.json` of gen_modern.py); returns the latest.
async fn same_as_pypaimon(feature: &str) -> Option<Vec<String>> {
    let (dir, expected) = generate(feature)?;
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon cannot read {feature}: {e}"));
    let got = read_latest(dir.path(), feature)
        .await
        .unwrap_or_else(|e| panic!("{feature}: {e}"));
    assert_eq!(got, expected, "{feature}");
    let per_snapshot: BTreeMap<i64, serde_json::Value> = serde_json::from_slice(
        &std::fs::read(dir.path().join("snapshots.json")).expect("gen_modern.py's snapshots.json"),
    )
    .unwrap();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, &format!("m.db/{feature}"))
        .await
        .unwrap();
    for (id, want) in &per_snapshot {
        let Some(want) = want.as_array() else {
            panic!("pypaimon cannot read {feature} at snapshot {id}: {want}");
        };
        let snapshot = table.snapshot(*id).await.unwrap();
        let out = read_snapshot(&table, Some(&snapshot), &ReadRequest::default())
            .await
            .unwrap_or_else(|e| panic!("{feature} at snapshot {id}: {e}"));
        let want: Vec<String> = want
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(rows(&out.batches), want, "{feature} at snapshot {id}");
    }
    assert!(!per_snapshot.is_empty(), "{feature}: no snapshots compared");
    Some(got)
}

/// Asserts lakescope refuses `feature` with [`Error::Unsupported`] whose message has every
/// one of `words`; returns the message.
async fn refused(feature: &str, words: &[&str]) -> Option<String> {
    let (dir, _) = generate(feature)?;
    let err = read_latest(dir.path(), feature)
        .await
        .expect_err(&format!("{feature} must be refused"));
    let msg = err.to_string();
    assert!(matches!(err, Error::Unsupported { .. }), "{feature}: {msg}");
    for w in words {
        assert!(msg.contains(w), "{feature}: '{w}' not in: {msg}");
    }
    Some(msg)
}

#[tokio::test]
async fn data_evolution_column_updates_are_stitched_by_row_id() {
    // Two full files and two files of column b over the same row ids: 16 rows, each b from the
    // newer file (lakescope once read 32).
    let rows = same_as_pypaimon("data_evolution").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(16), 16);
}

#[tokio::test]
async fn data_evolution_updates_of_some_rows_and_columns_read_exactly() {
    // b and c updated by row id in two commits, then rows written with only (id, c).
    let Some(rows) = same_as_pypaimon("data_evolution_some_rows").await else {
        return;
    };
    assert_eq!(rows.len(), 18);
    assert!(rows.contains(&"3|u3|-3".to_string()), "{rows:?}");
    assert!(rows.contains(&"16|null|160".to_string()), "{rows:?}");
}

#[tokio::test]
async fn data_evolution_deletes_apply_to_the_stitched_rows() {
    // b updated for rows 1, 2, 12, then rows 2, 3, 12 deleted (a deletion vector per range).
    let Some(rows) = same_as_pypaimon("data_evolution_deletes").await else {
        return;
    };
    assert_eq!(rows.len(), 13, "{rows:?}");
    assert!(rows.contains(&"1|u1".to_string()), "{rows:?}");
}

#[tokio::test]
async fn consumers_are_listed_like_pypaimon() {
    let Some((dir, expected)) = generate("consumers") else {
        return;
    };
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon $consumers: {e}"));
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store.clone(), "m.db/consumers").await.unwrap();
    let out = lakescope_paimon::system::scan(&table, "consumers")
        .await
        .unwrap();
    assert_eq!(rows(&out.batches), expected);
    assert_eq!(expected.len(), 2, "{expected:?}");
    // A consumer file that is not Paimon's JSON is a named error.
    store
        .put(
            "m.db/consumers/consumer/consumer-bad",
            bytes::Bytes::from_static(b"{\"next\": 1}"),
        )
        .await
        .unwrap();
    let err = lakescope_paimon::system::scan(&table, "consumers")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("consumer/consumer-bad"), "{err}");
}

#[tokio::test]
async fn a_filter_on_an_updated_column_sees_the_stitched_value() {
    // The full file's stats say b in a0..a7; row 2's b is now u2 in the newer file: neither
    // file may be pruned on its own.
    let Some((dir, _)) = generate("data_evolution_some_rows") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/data_evolution_some_rows")
        .await
        .unwrap();
    let snapshot = table.latest_snapshot().await.unwrap();
    for (filter, want) in [("b = 'u2'", vec!["2|u2|2"]), ("b = 'a2'", vec![])] {
        let request = ReadRequest {
            filter: Some(parse_filter(filter).unwrap()),
            ..ReadRequest::default()
        };
        let out = read_snapshot(&table, snapshot.as_ref(), &request)
            .await
            .unwrap();
        assert_eq!(rows(&out.batches), want, "{filter}");
    }
}

#[tokio::test]
async fn data_evolution_plain_appends_read_exactly() {
    let rows = same_as_pypaimon("data_evolution_appends").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(16), 16);
}

#[tokio::test]
async fn row_tracking_appends_read_exactly() {
    let rows = same_as_pypaimon("row_tracking").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(16), 16);
}

#[tokio::test]
async fn deletion_vectors_merge_on_read_sees_level_zero() {
    // Two level-0 files with overlapping keys: 9 rows after merging (lakescope read 0 before).
    let rows = same_as_pypaimon("dv_merge_on_read").await;
    if let Some(rows) = rows {
        assert_eq!(rows.len(), 9);
        assert!(rows.contains(&"3|y3".to_string()), "{rows:?}");
    }
}

#[tokio::test]
async fn deletion_vectors_hide_level_zero_without_merge_on_read() {
    let rows = same_as_pypaimon("dv_level0_hidden").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(0), 0);
}

#[tokio::test]
async fn postpone_bucket_files_are_not_read() {
    let rows = same_as_pypaimon("postpone").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(0), 0);
}

/// [`same_as_pypaimon`] for tables with BLOB columns: lakescope reads references; each value's
/// bytes are fetched on demand (one range read each) and shown as hex, as gen_modern.py prints
/// pypaimon's bytes. Returns the latest rows.
async fn blobs_same_as_pypaimon(feature: &str) -> Option<Vec<String>> {
    let (dir, expected) = generate(feature)?;
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon cannot read {feature}: {e}"));
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store.clone(), &format!("m.db/{feature}"))
        .await
        .unwrap();
    let per_snapshot: BTreeMap<i64, Vec<String>> = serde_json::from_slice(
        &std::fs::read(dir.path().join("snapshots.json")).expect("gen_modern.py's snapshots.json"),
    )
    .unwrap_or_else(|e| panic!("pypaimon cannot read {feature} at some snapshot: {e}"));
    let mut latest = None;
    for (id, want) in &per_snapshot {
        let snapshot = table.snapshot(*id).await.unwrap();
        let out = read_snapshot(&table, Some(&snapshot), &ReadRequest::default())
            .await
            .unwrap_or_else(|e| panic!("{feature} at snapshot {id}: {e}"));
        let mut fetched = Vec::new();
        for batch in &out.batches {
            fetched.push(with_blob_bytes(store.as_ref(), batch).await);
        }
        assert_eq!(&rows(&fetched), want, "{feature} at snapshot {id}");
        latest = Some(rows(&fetched));
    }
    let latest = latest.expect("no snapshots compared");
    assert_eq!(latest, expected, "{feature}");
    Some(latest)
}

/// `batch` with each BLOB column (a struct of references) replaced by the fetched bytes.
async fn with_blob_bytes(store: &dyn ObjectStore, batch: &RecordBatch) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if column.data_type() != &blob::reference_type() {
            fields.push(field.as_ref().clone());
            columns.push(column.clone());
            continue;
        }
        let mut bytes: Vec<Option<bytes::Bytes>> = Vec::new();
        for row in 0..column.len() {
            bytes.push(match blob::reference(column.as_ref(), row).unwrap() {
                Some(r) => Some(blob::fetch(store, &r).await.unwrap()),
                None => None,
            });
        }
        let array = BinaryArray::from_iter(bytes.iter().map(|b| b.as_deref()));
        fields.push(Field::new(field.name(), ArrowType::Binary, true));
        columns.push(Arc::new(array));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

#[tokio::test]
async fn blob_columns_read_as_references_fetched_on_demand() {
    // Three commits: blobs with a NULL, an empty value and 64 KiB in .blob files, then the
    // name column updated by row id (stitched with the blob files).
    let Some(rows) = blobs_same_as_pypaimon("blob").await else {
        return;
    };
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert!(rows.contains(&"0|n0|6162".to_string()), "{rows:?}");
    assert!(rows.contains(&"1|u1|null".to_string()), "{rows:?}");
    assert!(rows.contains(&"2|n2|".to_string()), "{rows:?}");
    assert!(rows.contains(&"4|u4|78797a".to_string()), "{rows:?}");
    // The scan reads the blob files' indexes only: each reference points into a .blob file,
    // and the 64 KiB value is 65536 bytes long there.
    let (dir, _) = generate("blob").unwrap();
    let batches = latest_batches(dir.path(), "blob").await.unwrap();
    let mut lengths = Vec::new();
    for b in &batches {
        for row in 0..b.num_rows() {
            if let Some(r) = blob::reference(b.column(2).as_ref(), row).unwrap() {
                assert!(
                    r.file.starts_with("m.db/blob/bucket-0/data-") && r.file.ends_with(".blob"),
                    "{r:?}"
                );
                lengths.push(r.length);
            }
        }
    }
    lengths.sort();
    assert_eq!(lengths, [0, 2, 3, 65536]);
}

#[tokio::test]
async fn blob_files_rolled_by_size_are_concatenated() {
    // blob.target-file-size below one value: three .blob files hold the rows of one data file.
    let rows = blobs_same_as_pypaimon("blob_rolled").await;
    if let Some(rows) = rows {
        assert_eq!(
            rows,
            [
                "0|n0|6162",
                "1|n1|6364",
                "2|n2|6566",
                "3|n3|6768",
                "4|n4|null"
            ]
        );
    }
}

#[tokio::test]
async fn blob_as_descriptor_is_refused() {
    refused(
        "blob_as_descriptor",
        &["m.db/blob_as_descriptor", "blob-as-descriptor"],
    )
    .await;
}

#[tokio::test]
async fn vector_columns_read_exactly_in_every_format() {
    for format in ["parquet", "orc", "avro", "row"] {
        let feature = format!("vector_{format}");
        let Some(rows) = same_as_pypaimon(&feature).await else {
            return;
        };
        assert_eq!(rows.len(), 5, "{feature}: {rows:?}");
        assert_eq!(
            row(&rows, "1"),
            "1|[1.5, -1.0, 2.0]|[0.25, 1250.0]|[1, -2147483648]",
            "{feature}"
        );
        let (dir, _) = generate(&feature).unwrap();
        let batches = latest_batches(dir.path(), &feature).await.unwrap();
        let ArrowType::FixedSizeList(element, 3) = batches[0].schema().field(1).data_type().clone()
        else {
            panic!("{feature}: {:?}", batches[0].schema());
        };
        assert_eq!(element.data_type(), &ArrowType::Float32, "{feature}");
    }
}

#[tokio::test]
async fn vector_files_are_refused() {
    // vector-field: Paimon keeps these VECTOR columns in separate vector files.
    refused("vector_files", &["m.db/vector_files", "vector-field"]).await;
}

#[tokio::test]
async fn row_format_files_read_exactly() {
    let rows = same_as_pypaimon("row_format").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(7), 7);
}

#[tokio::test]
async fn row_format_primary_key_files_are_merged() {
    // Key-value row files: `_KEY_id`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the columns.
    let rows = same_as_pypaimon("row_format_pk").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(9), 9);
}

#[tokio::test]
async fn row_format_column_updates_are_stitched() {
    // The update's row file holds only `c` (`_WRITE_COLS`): its row type is that column alone.
    let Some(rows) = same_as_pypaimon("row_format_evolution").await else {
        return;
    };
    assert_eq!(row(&rows, "1"), "1|a1|-1");
    assert_eq!(row(&rows, "2"), "2|a2|2");
}

#[tokio::test]
async fn row_format_types_read_as_their_parquet_twin() {
    // Every type the row format serialises (decimals compact and wide, timestamps of precision
    // 3/6/9, lists, maps, rows, nulls at every level), written by pypaimon 2.1 to a row-format
    // table and to a Parquet table: lakescope reads both alike.
    let Some((dir, _)) = generate("row_format_types") else {
        return;
    };
    let row_file = read_latest(dir.path(), "row_format_types").await.unwrap();
    let parquet = read_latest(dir.path(), "row_format_types_parquet")
        .await
        .unwrap();
    assert_eq!(row_file, parquet);
    assert_eq!(row_file.len(), 3);
    let first = row(&row_file, "1");
    for cell in [
        "1234567890123456789012.12345",
        "2024-01-02T03:04:05.678901",
        "2023-11-14T22:13:20.123456",
        "[1, , 3]",
        "{x: 1, y: q}",
    ] {
        assert!(first.contains(cell), "{cell} not in {first}");
    }
}

#[tokio::test]
async fn row_format_variants_read_as_paimon_json() {
    // The values of `variant_columns_read_as_paimon_json`, stored in row files.
    let Some(rows) = same_as_pypaimon("variant_row_format").await else {
        return;
    };
    assert_eq!(rows.len(), 16, "{rows:?}");
    assert_eq!(
        row(&rows, "0"),
        r#"0|{"age":30,"name":"ann","nested":{"k":[1,{"z":null}]},"tags":["a","b"]}"#
    );
}

/// A [`VariantCodec`] as the app's worker is one: it gets each variant group column and answers
/// its JSON text (here with this build's decoder), counting the columns it decoded. Both go
/// through `read::array_transfer` bytes, as between the page and the worker.
struct CountingCodec(std::cell::Cell<usize>);

#[async_trait::async_trait(?Send)]
impl lakescope_paimon::read::variant::VariantCodec for CountingCodec {
    async fn to_json(
        &self,
        file: &str,
        groups: arrow_array::ArrayRef,
    ) -> Result<arrow_array::ArrayRef, String> {
        use lakescope_paimon::read::array_transfer::{from_bytes, to_bytes};
        self.0.set(self.0.get() + 1);
        let sent = to_bytes(groups.as_ref()).map_err(|e| e.to_string())?;
        let groups = from_bytes(&sent).map_err(|e| e.to_string())?;
        let json = lakescope_paimon::read::variant::json_column(file, &groups)
            .map_err(|e| e.to_string())?;
        from_bytes(&to_bytes(json.as_ref()).map_err(|e| e.to_string())?).map_err(|e| e.to_string())
    }
}

#[tokio::test]
async fn variants_decoded_by_a_codec_read_as_without_one() {
    // The app's first load has no VARIANT decoder: it hands each group column (top level or
    // nested in ROW/ARRAY/MAP, plain or shredded) to its worker. The rows must be the same.
    let codec = Rc::new(CountingCodec(std::cell::Cell::new(0)));
    lakescope_paimon::read::variant::set_codec(codec.clone());
    for feature in [
        "variant",
        "variant_shredded",
        "variant_nested",
        "variant_row_format",
    ] {
        let before = codec.0.get();
        if same_as_pypaimon(feature).await.is_none() {
            return;
        }
        assert!(
            codec.0.get() > before,
            "{feature}: the codec decoded nothing"
        );
    }
}

#[tokio::test]
async fn a_damaged_row_file_is_an_error_naming_it() {
    let Some((dir, _)) = generate("row_format") else {
        return;
    };
    let data = files_under(dir.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "row"))
        .expect("a row data file");
    let mut bytes = std::fs::read(&data).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 0xff; // the magic
    std::fs::write(&data, &bytes).unwrap();
    let err = read_latest(dir.path(), "row_format").await.unwrap_err();
    let msg = err.to_string();
    let name = data.file_name().unwrap().to_str().unwrap();
    assert!(matches!(err, Error::Corrupt { .. }), "{msg}");
    assert!(msg.contains(name) && msg.contains("magic"), "{msg}");
}

#[tokio::test]
async fn lance_data_files_are_refused_naming_the_file() {
    // pypaimon 2.1 writes them with pylance; lakescope does not read the format.
    let Some(msg) = refused(
        "lance_format",
        &["data file format 'lance'", ".lance", "bucket-0/data-"],
    )
    .await
    else {
        return;
    };
    assert!(msg.contains("lance_format"), "{msg}");
}

#[cfg(not(feature = "vortex"))]
#[tokio::test]
async fn vortex_data_files_are_refused_naming_the_format_without_the_vortex_feature() {
    // The build of the browser app: the Vortex decoder is left out, the CLI reads the files.
    let Some(msg) = refused(
        "vortex_format",
        &[
            "format vortex is not supported in the browser; the lakescope CLI reads it",
            ".vortex",
            "bucket-0/data-",
        ],
    )
    .await
    else {
        return;
    };
    assert!(msg.contains("vortex_format"), "{msg}");
}

#[cfg(feature = "vortex")]
#[tokio::test]
async fn vortex_tables_read_as_pypaimon_reads_them_at_every_snapshot() {
    // Files written by vortex-data 0.93 (pypaimon 2.1), read with the 0.90 Vortex crates: an
    // append table with nulls, a primary-key table updated twice (`_KEY_id`,
    // `_SEQUENCE_NUMBER`, `_VALUE_KIND` columns) and a partitioned table of two buckets.
    for (feature, count) in [
        ("vortex_format", 5),
        ("vortex_pk", 9),
        ("vortex_buckets", 5007),
    ] {
        let rows = same_as_pypaimon(feature).await;
        assert_eq!(rows.map(|r| r.len()).unwrap_or(count), count, "{feature}");
    }
}

#[cfg(feature = "vortex")]
#[tokio::test]
async fn vortex_files_of_every_type_read_as_their_parquet_twin() {
    // Three commits of every type (decimals compact and wide, timestamps of precision 3/6/9,
    // binary, nested lists, maps and rows, nulls at every level), written by pypaimon 2.1 to a
    // vortex table and to a Parquet table: lakescope reads both alike at every snapshot.
    reads_as_its_parquet_twin(
        "vortex_types",
        &[
            "-3703703670370370367036.37035",
            "[[a, ]]",
            "{1: [0.5, ]}",
            "s1é",
        ],
    )
    .await;
}

#[cfg(feature = "vortex")]
#[tokio::test]
async fn vortex_files_are_projected_and_a_damaged_one_is_an_error_naming_it() {
    let Some((dir, _)) = generate("vortex_buckets") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/vortex_buckets").await.unwrap();
    let snapshot = table.latest_snapshot().await.unwrap();
    let request = ReadRequest {
        columns: Some(vec!["b".into()]),
        ..ReadRequest::default()
    };
    let out = read_snapshot(&table, snapshot.as_ref(), &request)
        .await
        .unwrap();
    assert!(out.batches.iter().all(|b| b.num_columns() == 1));
    let mut got = rows(&out.batches);
    got.sort();
    assert_eq!(got.len(), 5007);
    assert!(got.contains(&"v0007919".to_string()), "{:?}", &got[..3]);
    // Every byte but the trailing magic and version flipped: a corrupt file, named.
    let data = files_under(dir.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "vortex"))
        .expect("a vortex data file");
    let mut bytes = std::fs::read(&data).unwrap();
    let n = bytes.len();
    for b in &mut bytes[4..n - 8] {
        *b ^= 0x5a;
    }
    std::fs::write(&data, &bytes).unwrap();
    let err = read_latest(dir.path(), "vortex_buckets").await.unwrap_err();
    let msg = err.to_string();
    let name = data.file_name().unwrap().to_str().unwrap();
    assert!(matches!(err, Error::Corrupt { .. }), "{msg}");
    assert!(
        msg.contains(name) && msg.contains("invalid vortex file"),
        "{msg}"
    );
}

#[tokio::test]
async fn mosaic_files_of_every_type_read_as_their_parquet_twin() {
    // Three commits of every type Mosaic stores (decimals compact and wide, timestamps of
    // precision 3/6/9, nested lists and maps, nulls at every level; constant, dictionary and
    // plain columns), written by pypaimon 2.1 to a mosaic table and to a Parquet table:
    // lakescope reads both alike at every snapshot, with pypaimon's row counts.
    reads_as_its_parquet_twin(
        "mosaic_format",
        &[
            "-3703703670370370367036.37035",
            "[[a, ]]",
            "{1: [0.5, ]}",
            "0100",
            "s1é",
        ],
    )
    .await;
}

/// The generator's table `name` of every type and its twin `<name>_parquet` (the same three
/// pypaimon 2.1 commits to a Parquet table): lakescope reads both alike at every snapshot, the
/// last with pypaimon's row count, and row 1 holds each of `cells`.
async fn reads_as_its_parquet_twin(name: &str, cells: &[&str]) {
    let Some((dir, expected)) = generate(name) else {
        return;
    };
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon cannot read {name}: {e}"));
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store.clone(), &format!("m.db/{name}"))
        .await
        .unwrap();
    let parquet = Table::open(store, &format!("m.db/{name}_parquet"))
        .await
        .unwrap();
    let mut last = Vec::new();
    for (id, count) in [(1, 3), (2, 43), (3, 44)] {
        let got = snapshot_rows(&table, id).await;
        assert_eq!(
            got,
            snapshot_rows(&parquet, id).await,
            "{name} snapshot {id}"
        );
        assert_eq!(got.len(), count, "{name} snapshot {id}");
        last = got;
    }
    assert_eq!(last.len(), expected.len(), "{name}");
    let first = row(&last, "1");
    for cell in cells {
        assert!(first.contains(cell), "{name}: {cell} not in {first}");
    }
}

/// lakescope's sorted rows of snapshot `id` of `table`.
async fn snapshot_rows(table: &Table, id: i64) -> Vec<String> {
    let snapshot = table.snapshot(id).await.unwrap();
    let out = read_snapshot(table, Some(&snapshot), &ReadRequest::default())
        .await
        .unwrap();
    let mut r = rows(&out.batches);
    r.sort();
    r
}

#[tokio::test]
async fn mosaic_primary_key_files_are_merged() {
    let rows = same_as_pypaimon("mosaic_pk").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(9), 9);
}

#[tokio::test]
async fn mosaic_files_of_two_buckets_are_projected() {
    // mosaic.num-buckets 2 and 20000 rows (paged buckets); a projection reads one bucket.
    let Some((dir, _)) = generate("mosaic_buckets") else {
        return;
    };
    assert_eq!(
        read_latest(dir.path(), "mosaic_buckets")
            .await
            .unwrap()
            .len(),
        20003
    );
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/mosaic_buckets").await.unwrap();
    let snapshot = table.latest_snapshot().await.unwrap();
    let request = ReadRequest {
        columns: Some(vec!["b".into()]),
        ..ReadRequest::default()
    };
    let out = read_snapshot(&table, snapshot.as_ref(), &request)
        .await
        .unwrap();
    let mut got = rows(&out.batches);
    got.sort();
    assert_eq!(got.len(), 20003);
    assert_eq!(got[0], "a20000");
    assert!(got.contains(&"v0007919".to_string()));
}

#[tokio::test]
async fn a_damaged_mosaic_file_is_an_error_naming_it() {
    let Some((dir, _)) = generate("mosaic_pk") else {
        return;
    };
    let data = files_under(dir.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "mosaic"))
        .expect("a mosaic data file");
    let name = data.file_name().unwrap().to_str().unwrap().to_string();
    let good = std::fs::read(&data).unwrap();
    let n = good.len();
    // An unknown format version (footer byte 25) is refused by name.
    let mut bytes = good.clone();
    bytes[n - 7] = 2;
    std::fs::write(&data, &bytes).unwrap();
    let err = read_latest(dir.path(), "mosaic_pk").await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Unsupported { .. }), "{msg}");
    assert!(
        msg.contains(&name) && msg.contains("mosaic file format version 2"),
        "{msg}"
    );
    // Damaged buckets (every byte before the schema block, whose offset the footer gives) are
    // a corrupt file. (Damaging only the first bucket would go unnoticed: it holds `_KEY_id`,
    // which the read does not decompress.)
    let schema_at = u64::from_be_bytes(good[n - 24..n - 16].try_into().unwrap()) as usize;
    let mut bytes = good;
    for b in &mut bytes[..schema_at] {
        *b ^= 0x5a;
    }
    std::fs::write(&data, &bytes).unwrap();
    let err = read_latest(dir.path(), "mosaic_pk").await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Corrupt { .. }), "{msg}");
    assert!(
        msg.contains(&name) && msg.contains("invalid mosaic file"),
        "{msg}"
    );
}

/// pypaimon 2.1's partition cell (`dt=d1`, `null` unpartitioned) as Java casts the partition
/// row to STRING (`{d1}`, `{}`), which lakescope follows.
fn java_partition(cell: &str) -> String {
    let values: Vec<&str> = match cell {
        "null" => Vec::new(),
        p => p
            .split('/')
            .map(|kv| kv.split_once('=').unwrap().1)
            .collect(),
    };
    format!("{{{}}}", values.join(", "))
}

/// `$table_indexes` of `m.<feature>` in lakescope and in pypaimon 2.1 (its sorted lines).
async fn table_indexes_as_pypaimon(feature: &str) -> Option<Vec<String>> {
    let (dir, expected) = generate(feature)?;
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon cannot read {feature}: {e}"));
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, &format!("m.db/{feature}"))
        .await
        .unwrap();
    let got = rows(
        &lakescope_paimon::system::scan(&table, "table_indexes")
            .await
            .unwrap()
            .batches,
    );
    // Java's `TableIndexesTable` casts the partition row to STRING (`{d1}`, `{}` unpartitioned);
    // pypaimon 2.1 prints `dt=d1` and null. Java decides: pypaimon's cell is rewritten to Java's.
    let mut want: Vec<String> = expected
        .iter()
        .map(|line| {
            let (partition, rest) = line.split_once('|').unwrap();
            format!("{}|{rest}", java_partition(partition))
        })
        .collect();
    want.sort();
    assert_eq!(got, want, "{feature}");
    Some(got)
}

#[tokio::test]
async fn table_indexes_list_deletion_vector_files_as_paimon() {
    let Some(rows) = table_indexes_as_pypaimon("table_indexes_dv").await else {
        return;
    };
    assert!(
        rows.iter()
            .any(|r| r.contains("DELETION_VECTORS") && r.contains("_CARDINALITY")),
        "{rows:?}"
    );
}

#[tokio::test]
async fn table_indexes_list_hash_indexes_per_partition_as_paimon() {
    let Some(rows) = table_indexes_as_pypaimon("table_indexes_hash").await else {
        return;
    };
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[0].starts_with("{d1}|0|HASH|"), "{rows:?}");
}

#[tokio::test]
async fn avro_xz_files_read_exactly() {
    let rows = same_as_pypaimon("avro_xz").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(6), 6);
}

/// The compression codecs of every column chunk of the Parquet files under `dir`.
fn parquet_codecs(dir: &Path) -> Vec<String> {
    let mut codecs = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            codecs.extend(parquet_codecs(&path));
        } else if path.extension().is_some_and(|e| e == "parquet") {
            let file = std::fs::File::open(&path).unwrap();
            let reader = parquet::file::reader::SerializedFileReader::new(file).unwrap();
            let metadata = parquet::file::reader::FileReader::metadata(&reader);
            for group in metadata.row_groups() {
                codecs.extend(group.columns().iter().map(|c| c.compression().to_string()));
            }
        }
    }
    codecs
}

#[tokio::test]
async fn parquet_brotli_files_read_exactly() {
    // The native build decodes BROTLI pages (feature `brotli`); the browser app leaves the codec
    // out and refuses such a file by name (tests/e2e/paimon_modern.test.js).
    let Some((dir, _)) = generate("parquet_brotli") else {
        return;
    };
    let codecs = parquet_codecs(&dir.path().join("m.db/parquet_brotli"));
    assert!(
        !codecs.is_empty() && codecs.iter().all(|c| c.starts_with("BROTLI")),
        "{codecs:?}"
    );
    let rows = same_as_pypaimon("parquet_brotli").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(6), 6);
}

#[tokio::test]
async fn avro_bzip2_files_read_exactly() {
    let rows = same_as_pypaimon("avro_bzip2").await;
    assert_eq!(rows.map(|r| r.len()).unwrap_or(4), 4);
}

#[tokio::test]
async fn fallback_branch_option_is_refused() {
    refused(
        "fallback_branch",
        &["m.db/fallback_branch", "scan.fallback-branch"],
    )
    .await;
}

#[tokio::test]
async fn unknown_index_types_are_refused() {
    refused(
        "unknown_index_type",
        &[
            "m.db/unknown_index_type/manifest/index-manifest-",
            "index type 'btree'",
        ],
    )
    .await;
}

#[tokio::test]
async fn unknown_file_sources_are_refused_naming_the_file() {
    // pypaimon 2.1 reads the relabelled entries as it reads any; a value Paimon may define later
    // (0 APPEND and 1 COMPACT are known) must not be read as one of them.
    refused(
        "unknown_file_source",
        &[
            "m.db/unknown_file_source/bucket-0/data-",
            "unknown file source 7 (_FILE_SOURCE)",
        ],
    )
    .await;
}

#[tokio::test]
async fn snapshots_of_a_newer_format_version_are_refused_and_older_ones_read() {
    // pypaimon 2.1 reads snapshot 2 with format version 4 as if it were 3; lakescope refuses it
    // naming the table and the version, and still reads snapshot 1 (version 3) as pypaimon does.
    let Some((dir, _)) = generate("unknown_snapshot_version") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/unknown_snapshot_version")
        .await
        .unwrap();
    let newer = table.snapshot(2).await;
    let err = match newer {
        Ok(s) => read_snapshot(&table, Some(&s), &ReadRequest::default())
            .await
            .expect_err("a snapshot of format version 4 must be refused"),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(matches!(err, Error::Unsupported { .. }), "{msg}");
    assert!(
        msg.contains("m.db/unknown_snapshot_version")
            && msg.contains("snapshot 2 has format version 4"),
        "{msg}"
    );
    let latest = read_latest(dir.path(), "unknown_snapshot_version")
        .await
        .expect_err("the latest snapshot is the newer one")
        .to_string();
    assert!(latest.contains("format version 4"), "{latest}");
    let per_snapshot: BTreeMap<i64, Vec<String>> = serde_json::from_slice(
        &std::fs::read(dir.path().join("snapshots.json")).expect("gen_modern.py's snapshots.json"),
    )
    .unwrap();
    let one = table.snapshot(1).await.unwrap();
    let out = read_snapshot(&table, Some(&one), &ReadRequest::default())
        .await
        .unwrap();
    assert_eq!(rows(&out.batches), per_snapshot[&1]);
}

/// The row of `rows` whose first cell is `id`.
fn row<'a>(rows: &'a [String], id: &str) -> &'a str {
    rows.iter()
        .find(|r| r.split('|').next() == Some(id))
        .unwrap_or_else(|| panic!("no row {id} in {rows:?}"))
}

// VARIANT values are read as the JSON text Paimon's Java `Variant.toJson()` gives (UTC).
// pypaimon 2.1 has no JSON rendering (it returns the value/metadata bytes, or Python objects),
// so gen_modern.py renders pypaimon's decoded values the way Java's `GenericVariant.toJsonImpl`
// does; where Python's own text differs (`1.5e10`, `Decimal('1.50')`, `True`), Java decides.
// The rows below are Java's text written out by hand, so the two renderings are checked
// against each other too.

#[tokio::test]
async fn variant_columns_read_as_paimon_json() {
    // Plain groups (value, metadata) in three commits.
    let Some(rows) = same_as_pypaimon("variant").await else {
        return;
    };
    assert_eq!(rows.len(), 16, "{rows:?}");
    for (id, json) in [
        (
            "0",
            r#"{"age":30,"name":"ann","nested":{"k":[1,{"z":null}]},"tags":["a","b"]}"#,
        ),
        (
            "1",
            "[1,-7,300,70000,1099511627776,-9223372036854775808,\"two\",true,false,null]",
        ),
        // Double.toString: plain from 10^-3 to 10^7, else computerized scientific notation.
        (
            "2",
            r#"{"doubles":[1.5,100.0,1.5E10,-2.5E-7,0.001,1.0E-4,1.0E7,0.30000000000000004,1.1805916207174113E21]}"#,
        ),
        // BigDecimal.toPlainString keeps the scale.
        (
            "3",
            r#"{"decimals":[1.50,-0.005,0,123456789012345678901234567.8901]}"#,
        ),
        // Jackson's escapes: control characters in upper-case hex, non-ASCII as is.
        (
            "4",
            r#""quote \" backslash \\ slash / tab \t newline \n bell \u0007 unit \u001F é 😀 中""#,
        ),
        ("5", r#"{"b":true,"k\"ey":"quoted key","é":"unicode key"}"#),
        (
            "6",
            r#"{"date":"2024-02-29","ntz":"2024-01-02 03:04:05.6","utc":"1969-12-31 23:59:59.999999+00:00","whole":"2000-01-01 00:00:00"}"#,
        ),
        (
            "7",
            r#"{"bytes":"AP9hYg==","uuid":"123e4567-e89b-12d3-a456-426614174000"}"#,
        ),
        ("8", "42"),
        ("9", "1.5"),
        ("11", r#""""#),
        ("12", "[]"),
        ("13", "{}"),
        ("14", "null"),
        ("15", "null"),
    ] {
        assert_eq!(row(&rows, id), format!("{id}|{json}"), "row {id}");
    }
    // Row 14 is a variant null (the JSON text `null`), row 15 a SQL NULL.
    let (dir, _) = generate("variant").unwrap();
    let batches = latest_batches(dir.path(), "variant").await.unwrap();
    assert_eq!(batches[0].schema().field(1).data_type(), &ArrowType::Utf8);
    let sql_nulls: usize = batches.iter().map(|b| b.column(1).null_count()).sum();
    assert_eq!(sql_nulls, 1);
}

#[tokio::test]
async fn shredded_variant_columns_are_reassembled() {
    // variant.shreddingSchema: typed sub-columns (BIGINT, STRING, DECIMAL, DOUBLE, BOOLEAN,
    // TIMESTAMP(6), TIMESTAMP(3) in milliseconds, DATE, a nested ROW), overflow fields in `value`,
    // missing fields, values that are not objects; two commits.
    let Some(rows) = same_as_pypaimon("variant_shredded").await else {
        return;
    };
    assert_eq!(rows.len(), 10, "{rows:?}");
    assert_eq!(
        row(&rows, "0"),
        r#"0|{"a":1,"b":true,"d":1.50,"dt":"2024-02-29","f":2.5,"o":{"extra":[1,null],"x":5,"y":"q"},"other":"ov","s":"x\"y","t3":"2024-01-02 03:04:05.123","ts":"2024-01-02 03:04:05.6"}"#
    );
    assert_eq!(row(&rows, "4"), r#"4|{"o":{"y":"only"}}"#);
    assert_eq!(row(&rows, "9"), r#"9|{"b":false,"f":1.0E300,"o":{}}"#);
}

#[tokio::test]
async fn variants_nested_in_rows_arrays_and_maps_read_exactly() {
    let Some(rows) = same_as_pypaimon("variant_nested").await else {
        return;
    };
    assert_eq!(
        rows,
        [
            r#"1|{x: 1, v: {"a":[1,2]}}|[{"k":"v"}, , [1,"x"]]|{a: {"x":1.5}, b: }"#,
            "2|null|[]|null",
            r#"3|{x: 3, v: }|null|{c: "s"}"#,
        ]
    );
}

#[tokio::test]
async fn variant_values_of_a_primary_key_table_are_merged() {
    // Keys 1 and 2 updated by the second commit (2 to a SQL NULL).
    let rows = same_as_pypaimon("variant_pk").await;
    if let Some(rows) = rows {
        assert_eq!(rows, [r#"0|{"n":0}"#, r#"1|{"n":"one"}"#, "2|null"]);
    }
}

#[tokio::test]
async fn variant_objects_with_an_empty_key_are_refused_naming_the_file() {
    // Valid (Paimon and pypaimon read it), but the parquet-variant 59 decoder rejects the
    // metadata dictionary of an object with an empty key: refused by name, never a wrong row.
    refused(
        "variant_empty_key",
        &[
            "m.db/variant_empty_key/bucket-0/data-",
            ".parquet",
            "empty key",
        ],
    )
    .await;
}

#[tokio::test]
async fn a_malformed_variant_is_an_error_naming_the_file() {
    // pypaimon fails on it too ("MALFORMED_VARIANT: invalid metadata version").
    let Some((dir, expected)) = generate("variant_corrupt") else {
        return;
    };
    let pypaimon = expected.expect_err("pypaimon reads a malformed variant");
    assert!(pypaimon.contains("MALFORMED_VARIANT"), "{pypaimon}");
    let err = read_latest(dir.path(), "variant_corrupt")
        .await
        .expect_err("a malformed variant must not be read");
    let msg = err.to_string();
    assert!(matches!(err, Error::Corrupt { .. }), "{msg}");
    assert!(
        msg.starts_with("m.db/variant_corrupt/bucket-0/data-")
            && msg.contains(".parquet: malformed VARIANT value"),
        "{msg}"
    );
}

#[tokio::test]
async fn variant_columns_of_avro_and_orc_files_are_refused_naming_the_file() {
    // pypaimon writes VARIANT into Avro and ORC files; Paimon writes VARIANT only to Parquet.
    for (feature, format) in [("variant_avro", ".avro"), ("variant_orc", ".orc")] {
        refused(
            feature,
            &[
                &format!("m.db/{feature}/bucket-0/data-"),
                format,
                "VARIANT column 'v'",
                "only to Parquet",
            ],
        )
        .await;
    }
}

/// `$row_tracking` of `m.<feature>` at every snapshot, asserted equal to pypaimon 2.1's rows
/// read with a projection adding `_ROW_ID` and `_SEQUENCE_NUMBER` (gen_modern.py's
/// row_tracking.json; BLOB columns left out on both sides); returns lakescope's rows by snapshot.
async fn row_tracking_as_pypaimon(feature: &str) -> Option<BTreeMap<i64, Vec<String>>> {
    let (dir, _) = generate(feature)?;
    let tracked: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("row_tracking.json"))
            .expect("gen_modern.py's row_tracking.json"),
    )
    .unwrap();
    let columns: Vec<&str> = tracked["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, &format!("m.db/{feature}"))
        .await
        .unwrap();
    let mut out = BTreeMap::new();
    for (id, want) in tracked["snapshots"].as_object().unwrap() {
        let id: i64 = id.parse().unwrap();
        let Some(want) = want.as_array() else {
            panic!("pypaimon cannot read {feature}'s row ids at snapshot {id}: {want}");
        };
        let snapshot = table.snapshot(id).await.unwrap();
        let read = lakescope_paimon::system::scan_at(&table, "row_tracking", Some(&snapshot))
            .await
            .unwrap_or_else(|e| panic!("{feature}$row_tracking at snapshot {id}: {e}"));
        let names: Vec<&str> = read
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(
            names.last(),
            Some(&"_SEQUENCE_NUMBER"),
            "{feature}: {names:?}"
        );
        let indices: Vec<usize> = columns
            .iter()
            .map(|c| read.schema.index_of(c).unwrap())
            .collect();
        let batches: Vec<RecordBatch> = read
            .batches
            .iter()
            .map(|b| b.project(&indices).unwrap())
            .collect();
        let mut got = rows(&batches);
        got.sort();
        let want: Vec<String> = want
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, want, "{feature}$row_tracking at snapshot {id}");
        out.insert(id, got);
    }
    assert!(!out.is_empty(), "{feature}: no snapshots compared");
    Some(out)
}

#[tokio::test]
async fn row_tracking_numbers_appended_rows_as_paimon() {
    for feature in ["row_tracking", "data_evolution_appends"] {
        let Some(by_snapshot) = row_tracking_as_pypaimon(feature).await else {
            return;
        };
        // rows 8..16 were the second commit: their own file, first row id 8, sequence number 2
        let latest = by_snapshot.values().last().unwrap();
        assert!(
            latest.contains(&"8|a8|8|2".to_string()),
            "{feature}: {latest:?}"
        );
        assert!(
            latest.contains(&"7|a7|7|1".to_string()),
            "{feature}: {latest:?}"
        );
    }
}

#[tokio::test]
async fn row_tracking_of_stitched_rows_takes_the_newest_data_file() {
    // Decision (Java's `DataEvolutionSplitRead`: a range's data files newest first, the first
    // gives `_ROW_ID` and `_SEQUENCE_NUMBER` through `DataFileRecordReader`; pypaimon 2.1 agrees):
    // a row gets the max sequence number of the newest data file of its row-id range, even
    // when that file did not change the row. In data_evolution_some_rows, row 0 is in the range
    // of the update of b (snapshot 3) and of c (snapshot 4), which did not touch it.
    let Some(by_snapshot) = row_tracking_as_pypaimon("data_evolution_some_rows").await else {
        return;
    };
    assert!(
        by_snapshot[&2].contains(&"0|a0|0|0|1".to_string()),
        "{by_snapshot:?}"
    );
    assert!(
        by_snapshot[&3].contains(&"0|a0|0|0|3".to_string()),
        "{by_snapshot:?}"
    );
    assert!(
        by_snapshot[&4].contains(&"3|u3|-3|3|4".to_string()),
        "{by_snapshot:?}"
    );
    // rows written with only (id, c): their own range, sequence number 5
    assert!(
        by_snapshot[&5].contains(&"16|null|160|16|5".to_string()),
        "{by_snapshot:?}"
    );
    for feature in ["data_evolution", "row_format_evolution", "modern_refs"] {
        row_tracking_as_pypaimon(feature).await;
    }
}

/// The diff a row-id match of pypaimon's `_ROW_ID` reads gives between two snapshots: `change|`
/// then the row's columns (`tracked` lines end with `|_ROW_ID|_SEQUENCE_NUMBER`).
fn diff_by_row_id(a: &[String], b: &[String]) -> Vec<String> {
    let by_id = |lines: &[String]| -> BTreeMap<String, String> {
        lines
            .iter()
            .map(|l| {
                let mut parts = l.rsplitn(3, '|');
                let _sequence = parts.next().unwrap();
                let id = parts.next().unwrap().to_string();
                (id, parts.next().unwrap().to_string())
            })
            .collect()
    };
    let (a, b) = (by_id(a), by_id(b));
    let mut out = Vec::new();
    for (id, row) in &b {
        match a.get(id) {
            None => out.push(format!("insert|{row}")),
            Some(old) if old != row => {
                out.push(format!("update_before|{old}"));
                out.push(format!("update_after|{row}"));
            }
            Some(_) => {}
        }
    }
    out.extend(
        a.iter()
            .filter(|(id, _)| !b.contains_key(*id))
            .map(|(_, row)| format!("delete|{row}")),
    );
    out.sort();
    out
}

#[tokio::test]
async fn data_evolution_diffs_match_rows_by_row_id_as_pypaimon_reads_them() {
    // Decision: a diff of a data-evolution table matches rows by `_ROW_ID` (files holding only
    // some columns cannot be compared file by file), so an update by row id is an
    // update_before/update_after pair. Expected: pypaimon 2.1's rows with `_ROW_ID` at each
    // snapshot, matched by row id (from the empty table to the first snapshot, then each
    // snapshot against the one before).
    for feature in [
        "data_evolution",
        "data_evolution_some_rows",
        "data_evolution_deletes",
        "row_format_evolution",
    ] {
        let Some(by_snapshot) = row_tracking_as_pypaimon(feature).await else {
            return;
        };
        let (dir, _) = generate(feature).unwrap();
        let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
        let table = Table::open(store, &format!("m.db/{feature}"))
            .await
            .unwrap();
        let mut previous: Option<(i64, &Vec<String>)> = None;
        let mut updates = 0;
        for (id, rows_b) in &by_snapshot {
            let b = table.snapshot(*id).await.unwrap();
            let a = match previous {
                Some((pid, _)) => Some(table.snapshot(pid).await.unwrap()),
                None => None,
            };
            let d = lakescope_paimon::diff::diff_snapshots(&table, a.as_ref(), &b)
                .await
                .unwrap_or_else(|e| panic!("{feature} diff → {id}: {e}"));
            let mut got = rows(&d.batches);
            got.sort();
            let want = diff_by_row_id(previous.map_or(&[][..], |(_, r)| r), rows_b);
            assert_eq!(got, want, "{feature} diff {previous:?} → {id}");
            updates += d.partitions.iter().map(|p| p.updated).sum::<u64>();
            previous = Some((*id, rows_b));
        }
        assert!(updates > 0, "{feature}: no update by row id was diffed");
    }
}

#[tokio::test]
async fn row_tracking_row_ids_count_rows_deleted_by_deletion_vectors() {
    // rows 2, 3, 12 deleted: the others keep their row ids (positions before the deletion vector)
    let Some(by_snapshot) = row_tracking_as_pypaimon("data_evolution_deletes").await else {
        return;
    };
    let latest = by_snapshot.values().last().unwrap();
    assert_eq!(latest.len(), 13, "{latest:?}");
    assert!(latest.contains(&"4|a4|4|3".to_string()), "{latest:?}");
    assert!(latest.contains(&"13|a13|13|3".to_string()), "{latest:?}");
}

#[tokio::test]
async fn row_tracking_of_blob_tables_takes_the_data_files() {
    for feature in ["blob", "blob_rolled"] {
        row_tracking_as_pypaimon(feature).await;
    }
}

#[tokio::test]
async fn row_tracking_is_refused_on_tables_without_it() {
    let Some((dir, _)) = generate("dv_level0_hidden") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/dv_level0_hidden").await.unwrap();
    let err = lakescope_paimon::system::scan(&table, "row_tracking")
        .await
        .expect_err("no row tracking");
    let msg = err.to_string();
    assert!(matches!(err, Error::Invalid(_)), "{msg}");
    assert!(msg.contains("m.db/dv_level0_hidden$row_tracking"), "{msg}");
    assert!(msg.contains("'row-tracking.enabled'"), "{msg}");
}

/// `m.<feature>` itself read at every snapshot with `_ROW_ID` and `_SEQUENCE_NUMBER` named as
/// columns (hidden columns: read when named, as Paimon's Spark metadata columns), `_ROW_ID`
/// first, asserted equal to pypaimon 2.1's read with the projection naming them
/// (row_tracking.json); a read without columns has neither.
async fn hidden_columns_as_pypaimon(feature: &str) {
    let Some((dir, _)) = generate(feature) else {
        return;
    };
    let tracked: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("row_tracking.json"))
            .expect("gen_modern.py's row_tracking.json"),
    )
    .unwrap();
    let pypaimon_columns: Vec<String> = tracked["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    // `_ROW_ID` leading, as `SELECT _ROW_ID, * FROM t` reads, then the table's columns and
    // `_SEQUENCE_NUMBER`; pypaimon's lines are reordered the same way
    let order: Vec<usize> = std::iter::once(pypaimon_columns.len() - 2)
        .chain(0..pypaimon_columns.len() - 2)
        .chain([pypaimon_columns.len() - 1])
        .collect();
    let columns: Vec<String> = order.iter().map(|i| pypaimon_columns[*i].clone()).collect();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, &format!("m.db/{feature}"))
        .await
        .unwrap();
    for (id, want) in tracked["snapshots"].as_object().unwrap() {
        let id: i64 = id.parse().unwrap();
        let snapshot = table.snapshot(id).await.unwrap();
        let request = ReadRequest {
            columns: Some(columns.clone()),
            ..ReadRequest::default()
        };
        let read = read_snapshot(&table, Some(&snapshot), &request)
            .await
            .unwrap_or_else(|e| panic!("{feature} at snapshot {id} with {columns:?}: {e}"));
        let names: Vec<&String> = read.schema.fields().iter().map(|f| f.name()).collect();
        assert_eq!(names, columns.iter().collect::<Vec<_>>(), "{feature}");
        let mut got = rows(&read.batches);
        got.sort();
        let mut want: Vec<String> = want
            .as_array()
            .unwrap_or_else(|| panic!("pypaimon cannot read {feature} at {id}: {want}"))
            .iter()
            .map(|v| {
                let cells: Vec<&str> = v.as_str().unwrap().split('|').collect();
                let cells: Vec<&str> = order.iter().map(|i| cells[*i]).collect();
                cells.join("|")
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "{feature} at snapshot {id} with {columns:?}");
        let all = read_snapshot(&table, Some(&snapshot), &ReadRequest::default())
            .await
            .unwrap();
        assert!(
            all.schema.index_of("_ROW_ID").is_err()
                && all.schema.index_of("_SEQUENCE_NUMBER").is_err(),
            "{feature}: hidden columns read without being named: {:?}",
            all.schema
        );
    }
}

#[tokio::test]
async fn row_ids_are_hidden_columns_of_row_tracking_tables() {
    for feature in [
        "row_tracking",
        "data_evolution_some_rows",
        "data_evolution_deletes",
    ] {
        hidden_columns_as_pypaimon(feature).await;
    }
}

#[tokio::test]
async fn row_ids_of_a_table_without_row_tracking_are_unknown_columns() {
    let Some((dir, _)) = generate("dv_level0_hidden") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, "m.db/dv_level0_hidden").await.unwrap();
    let snapshot = table.latest_snapshot().await.unwrap();
    for hidden in ["_ROW_ID", "_SEQUENCE_NUMBER"] {
        let request = ReadRequest {
            columns: Some(vec![hidden.to_string()]),
            ..ReadRequest::default()
        };
        let err = read_snapshot(&table, snapshot.as_ref(), &request)
            .await
            .expect_err("no row tracking");
        let msg = err.to_string();
        assert!(matches!(err, Error::NotFound { .. }), "{msg}");
        assert!(msg.contains(&format!("column '{hidden}'")), "{msg}");
        assert!(msg.contains("'row-tracking.enabled' = 'true'"), "{msg}");
    }
}

/// `$file_key_ranges` of `feature` (gen_modern.py prints pypaimon 2.1's), asserted equal: the
/// partition as Java casts it ([`java_partition`]), `file_path` as a store key (pypaimon prints
/// the absolute path). Returns lakescope's lines.
async fn file_key_ranges_as_pypaimon(feature: &str) -> Option<Vec<String>> {
    let (dir, expected) = generate(feature)?;
    let expected = expected.unwrap_or_else(|e| panic!("pypaimon cannot read {feature}: {e}"));
    let root = format!("{}/", dir.path().display());
    let mut want: Vec<String> = expected
        .iter()
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            let path = cells[2].strip_prefix(&root).unwrap_or(cells[2]);
            let rest = cells[3..].join("|");
            format!("{}|{}|{path}|{rest}", java_partition(cells[0]), cells[1])
        })
        .collect();
    want.sort();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store, &format!("m.db/{feature}"))
        .await
        .unwrap();
    let out = lakescope_paimon::system::scan(&table, "file_key_ranges")
        .await
        .unwrap();
    let mut got = rows(&out.batches);
    got.sort();
    assert_eq!(got, want, "{feature}");
    Some(got)
}

#[tokio::test]
async fn file_key_ranges_list_primary_key_files_as_paimon() {
    let Some(rows) = file_key_ranges_as_pypaimon("file_key_ranges_pk").await else {
        return;
    };
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(
        rows.iter().any(
            |r| r.starts_with("{d1}|0|m.db/file_key_ranges_pk/dt=d1/bucket-0/")
                && r.ends_with("|[1]|[2]|null")
        ),
        "{rows:?}"
    );
}

#[tokio::test]
async fn file_key_ranges_list_data_evolution_files_with_first_row_ids_as_paimon() {
    let Some(rows) = file_key_ranges_as_pypaimon("file_key_ranges_evolution").await else {
        return;
    };
    assert_eq!(
        rows.iter().filter(|r| r.ends_with("|null|null|8")).count(),
        2,
        "{rows:?}"
    );
}
