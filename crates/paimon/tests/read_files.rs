//! Reads the real corpus data files (pypaimon 2.1 and Java Paimon 0.9 writers) and compares the
//! canonical JSON lines with the expected rows of the corpus.

#[path = "../../engine/src/canonical.rs"]
#[allow(dead_code)]
mod canonical;

use apache_avro::types::Value;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{Array, RecordBatch};
use bytes::Bytes;
use lakescope_paimon::read::deletion_vector::{self, DeletionVector};
use lakescope_paimon::read::orc::{self, OrcCodec, OrcRequest};
use lakescope_paimon::read::{
    output_schema, read_file, to_arrow_schema, FileFormat, FileKind, SEQUENCE_NUMBER, VALUE_KIND,
};
use lakescope_paimon::spec::DataField;
use lakescope_paimon::Error;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn corpus() -> PathBuf {
    match std::env::var("LAKESCOPE_CORPUS") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn table_dir(db: &str, table: &str) -> PathBuf {
    corpus()
        .join("paimon/warehouse")
        .join(format!("{db}.db"))
        .join(table)
}

fn schema_fields(db: &str, table: &str, id: i64) -> Vec<DataField> {
    let path = table_dir(db, table).join(format!("schema/schema-{id}"));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    serde_json::from_value(json["fields"].clone()).unwrap()
}

fn expected_lines(db: &str, table: &str, snapshot: u32) -> Vec<String> {
    let path = corpus().join(format!(
        "expected/paimon/{db}.{table}/snapshot-{snapshot}.jsonl"
    ));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines().map(str::to_string).collect()
}

fn data_files(db: &str, table: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![table_dir(db, table)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if !["manifest", "schema", "snapshot", "index"].contains(&name.as_str()) {
                    stack.push(p);
                }
            } else if name.starts_with("data-") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().to_string()
}

fn read_path(
    path: &Path,
    file_fields: &[DataField],
    read_fields: &[DataField],
    kind: FileKind,
) -> Vec<RecordBatch> {
    let name = name_of(path);
    let format = FileFormat::from_file_name(&name).unwrap();
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let batches = futures::executor::block_on(read_file(
        &name,
        bytes,
        format,
        file_fields,
        read_fields,
        kind,
    ))
    .unwrap();
    let schema = output_schema(read_fields, kind);
    for b in &batches {
        assert_eq!(b.schema(), schema, "{name}");
    }
    batches
}

fn record_field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    match v {
        Value::Union(_, inner) => record_field(inner, name),
        Value::Record(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
        _ => None,
    }
}

fn unwrap(v: &Value) -> &Value {
    match v {
        Value::Union(_, inner) => unwrap(inner),
        other => other,
    }
}

fn avro_records(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    apache_avro::Reader::new(&bytes[..])
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// `_SCHEMA_ID` of every data file named in the table's data manifests.
fn schema_ids(db: &str, table: &str) -> HashMap<String, i64> {
    let mut out = HashMap::new();
    for entry in std::fs::read_dir(table_dir(db, table).join("manifest")).unwrap() {
        let p = entry.unwrap().path();
        let name = name_of(&p);
        if !name.starts_with("manifest-") || name.starts_with("manifest-list-") {
            continue;
        }
        for record in avro_records(&p) {
            let file = record_field(&record, "_FILE").unwrap();
            let Value::String(file_name) = unwrap(record_field(file, "_FILE_NAME").unwrap()) else {
                panic!()
            };
            let Value::Long(id) = unwrap(record_field(file, "_SCHEMA_ID").unwrap()) else {
                panic!()
            };
            out.insert(file_name.clone(), *id);
        }
    }
    out
}

fn lines(batches: &[RecordBatch]) -> Vec<String> {
    canonical::batches_to_lines(batches).unwrap()
}

#[test]
fn append_types_match_expected_rows_in_every_format() {
    for table in [
        "append_types_parquet",
        "append_types_orc",
        "append_types_avro",
    ] {
        let fields = schema_fields("corpus", table, 0);
        let files = data_files("corpus", table);
        assert_eq!(files.len(), 2, "{table}");
        let mut batches = Vec::new();
        for f in &files {
            batches.extend(read_path(f, &fields, &fields, FileKind::Append));
        }
        assert_eq!(
            lines(&batches),
            expected_lines("corpus", table, 2),
            "{table}"
        );
    }
}

/// The 10 rows of `m, id, tsltz` of the corpus's `append_types_*` tables, one of them checked.
fn assert_projected_rows(batches: &[RecordBatch]) {
    let got = lines(batches);
    assert_eq!(got.len(), 10);
    assert!(
        got.contains(
            &r#"{"m":[["k0",null],["k1",1]],"id":2,"tsltz":"2024-06-01T08:30:00.638539Z"}"#
                .to_string()
        ),
        "{got:?}"
    );
}

#[test]
fn projection_reads_a_subset_in_read_order() {
    let fields = schema_fields("corpus", "append_types_parquet", 0);
    let pick = |names: &[&str]| -> Vec<DataField> {
        names
            .iter()
            .map(|n| fields.iter().find(|f| f.name == *n).unwrap().clone())
            .collect()
    };
    let read = pick(&["m", "id", "tsltz"]);
    for table in ["append_types_parquet", "append_types_orc"] {
        let mut batches = Vec::new();
        for f in data_files("corpus", table) {
            batches.extend(read_path(&f, &fields, &read, FileKind::Append));
        }
        assert_projected_rows(&batches);
    }
}

/// Hands ORC files to orc-rust and records each request; or fails with a fixed cause.
struct RecordingCodec {
    requests: RefCell<Vec<OrcRequest>>,
    fail: Option<&'static str>,
}

#[async_trait::async_trait(?Send)]
impl OrcCodec for RecordingCodec {
    async fn decode(
        &self,
        _file: &str,
        bytes: Bytes,
        request: &OrcRequest,
    ) -> Result<Vec<RecordBatch>, String> {
        self.requests.borrow_mut().push(request.clone());
        match self.fail {
            Some(cause) => Err(cause.to_string()),
            None => orc::decode_with_orc_rust(bytes, request),
        }
    }
}

#[test]
fn orc_files_decode_through_a_set_codec() {
    // The codec is per thread: a thread of its own keeps it away from the other tests.
    std::thread::spawn(|| {
        let fields = schema_fields("corpus", "append_types_orc", 0);
        let read: Vec<DataField> = ["m", "id", "tsltz"]
            .iter()
            .map(|n| fields.iter().find(|f| f.name == *n).unwrap().clone())
            .collect();
        let codec = Rc::new(RecordingCodec {
            requests: RefCell::default(),
            fail: None,
        });
        orc::set_codec(codec.clone());
        let files = data_files("corpus", "append_types_orc");
        let mut batches = Vec::new();
        for f in &files {
            batches.extend(read_path(f, &fields, &read, FileKind::Append));
        }
        assert_projected_rows(&batches);
        let requests = codec.requests.borrow();
        assert_eq!(requests.len(), files.len());
        assert_eq!(requests[0].columns, ["m", "id", "tsltz"]);
        assert!(!requests[0].nanosecond_timestamps);

        orc::set_codec(Rc::new(RecordingCodec {
            requests: RefCell::default(),
            fail: Some("the ORC worker did not start"),
        }));
        let name = name_of(&files[0]);
        let bytes = Bytes::from(std::fs::read(&files[0]).unwrap());
        let err = futures::executor::block_on(read_file(
            &name,
            bytes,
            FileFormat::Orc,
            &fields,
            &read,
            FileKind::Append,
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains(&name), "{err}");
        assert!(err.contains("the ORC worker did not start"), "{err}");
    })
    .join()
    .unwrap();
}

#[test]
fn schema_evolution_reads_every_file_with_the_latest_schema() {
    let ids = schema_ids("corpus", "schema_evolution");
    let latest = schema_fields("corpus", "schema_evolution", 5);
    let mut batches = Vec::new();
    let mut seen_schemas = Vec::new();
    for f in data_files("corpus", "schema_evolution") {
        let id = ids[&name_of(&f)];
        seen_schemas.push(id);
        let file_fields = schema_fields("corpus", "schema_evolution", id);
        batches.extend(read_path(&f, &file_fields, &latest, FileKind::Append));
    }
    seen_schemas.sort();
    assert_eq!(seen_schemas, vec![0, 1, 2, 3, 5]);
    assert_eq!(
        lines(&batches),
        expected_lines("corpus", "schema_evolution", 5)
    );
}

#[test]
fn key_value_files_have_sequence_numbers_and_row_kinds() {
    for table in ["pk_dedup_orc", "pk_dedup_avro", "pk_dedup"] {
        let fields = schema_fields("corpus", table, 0);
        let mut batches = Vec::new();
        let mut kinds = Vec::new();
        for f in data_files("corpus", table) {
            for b in read_path(&f, &fields, &fields, FileKind::KeyValue) {
                let k = b
                    .column_by_name(VALUE_KIND)
                    .unwrap()
                    .as_primitive::<Int8Type>();
                assert_eq!(b.column_by_name(SEQUENCE_NUMBER).unwrap().null_count(), 0);
                kinds.extend(k.values().iter().copied());
                batches.push(b);
            }
        }
        assert!(
            kinds.iter().all(|k| (0..=3).contains(k)),
            "{table}: {kinds:?}"
        );
        assert!(kinds.contains(&3), "{table} has deletes");
        let last = if table == "pk_dedup" { 5 } else { 3 };
        // pk_dedup is partitioned: its key is (dt, id).
        let keys: &[&str] = if table == "pk_dedup" {
            &["dt", "id"]
        } else {
            &["id"]
        };
        let merged = dedup(&batches, keys);
        assert_eq!(
            lines(&merged),
            expected_lines("corpus", table, last),
            "{table}"
        );
    }
}

/// Merges key-value batches the dedup way: last sequence number per key wins, -U/-D drop it.
fn dedup(batches: &[RecordBatch], keys: &[&str]) -> Vec<RecordBatch> {
    let mut best: BTreeMap<String, (i64, RecordBatch)> = BTreeMap::new();
    for b in batches {
        let idx: Vec<usize> = keys
            .iter()
            .map(|k| b.schema().index_of(k).unwrap())
            .collect();
        let key_batch = b.project(&idx).unwrap();
        let seq = b
            .column_by_name(SEQUENCE_NUMBER)
            .unwrap()
            .as_primitive::<Int64Type>();
        for row in 0..b.num_rows() {
            let k = canonical::row_to_json_line(&key_batch, row).unwrap();
            if best.get(&k).is_none_or(|(s, _)| seq.value(row) >= *s) {
                best.insert(k, (seq.value(row), b.slice(row, 1)));
            }
        }
    }
    best.into_values()
        .filter(|(_, b)| {
            let kind = b
                .column_by_name(VALUE_KIND)
                .unwrap()
                .as_primitive::<Int8Type>()
                .value(0);
            kind == 0 || kind == 2
        })
        .map(|(_, b)| {
            b.project(&(0..b.num_columns() - 2).collect::<Vec<_>>())
                .unwrap()
        })
        .collect()
}

#[test]
fn java_key_value_parquet_files_drop_key_columns() {
    let fields = schema_fields("java09", "pk_deletion_vectors", 0);
    let files = data_files("java09", "pk_deletion_vectors");
    assert!(!files.is_empty());
    for f in files {
        let batches = read_path(&f, &fields, &fields, FileKind::KeyValue);
        let names: Vec<String> = batches[0]
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["id", "v", SEQUENCE_NUMBER, VALUE_KIND]);
    }
}

#[test]
fn arrow_schema_carries_field_ids() {
    let fields = schema_fields("corpus", "append_types_parquet", 0);
    let schema = to_arrow_schema(&fields);
    assert_eq!(schema.field(17).name(), "m");
    assert_eq!(schema.field(17).metadata()["paimon.field_id"], "19");
}

/// (data file, offset, length, cardinality) of the DV ranges of an index manifest.
fn dv_ranges(path: &Path) -> Vec<(String, String, i64, i64, Option<i64>)> {
    let mut out = Vec::new();
    for record in avro_records(path) {
        let Value::String(kind) = unwrap(record_field(&record, "_INDEX_TYPE").unwrap()) else {
            panic!()
        };
        if kind != "DELETION_VECTORS" {
            continue;
        }
        let Value::String(index_file) = unwrap(record_field(&record, "_FILE_NAME").unwrap()) else {
            panic!()
        };
        let Value::Array(ranges) =
            unwrap(record_field(&record, "_DELETIONS_VECTORS_RANGES").unwrap())
        else {
            panic!()
        };
        for r in ranges {
            let Value::String(data_file) = unwrap(record_field(r, "f0").unwrap()) else {
                panic!()
            };
            let Value::Int(offset) = unwrap(record_field(r, "f1").unwrap()) else {
                panic!()
            };
            let Value::Int(length) = unwrap(record_field(r, "f2").unwrap()) else {
                panic!()
            };
            let card = record_field(r, "_CARDINALITY").and_then(|v| match unwrap(v) {
                Value::Long(c) => Some(*c),
                _ => None,
            });
            out.push((
                index_file.clone(),
                data_file.clone(),
                i64::from(*offset),
                i64::from(*length),
                card,
            ));
        }
    }
    out
}

#[test]
fn real_deletion_vector_index_files_decode() {
    for (db, table) in [
        ("java09", "pk_deletion_vectors"),
        ("corpus", "append_dv_row_tracking"),
    ] {
        let dir = table_dir(db, table);
        let mut checked = 0;
        for entry in std::fs::read_dir(dir.join("manifest")).unwrap() {
            let p = entry.unwrap().path();
            if !name_of(&p).starts_with("index-manifest-") {
                continue;
            }
            for (index_file, data_file, offset, length, card) in dv_ranges(&p) {
                let bytes = std::fs::read(dir.join("index").join(&index_file)).unwrap();
                let dv = deletion_vector::decode_range(
                    &index_file,
                    &bytes,
                    offset as u64,
                    length as u64,
                )
                .unwrap();
                if let Some(c) = card {
                    assert_eq!(dv.cardinality(), c as u64, "{data_file}");
                }
                assert!(matches!(dv, DeletionVector::Bitmap32(_)));
                // The whole-file scan finds the same record at the same offset.
                let all = deletion_vector::decode_index_file(&index_file, &bytes).unwrap();
                assert!(all.iter().any(|(o, v)| *o == offset as u64 && v == &dv));
                checked += 1;
            }
        }
        assert!(checked > 0, "{table}: no DV ranges found");
    }
    // append_dv_row_tracking: DELETE WHERE id IN (1,2,11) → positions {1,2} and {1}.
    let dir = table_dir("corpus", "append_dv_row_tracking").join("index");
    let entry = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let all = deletion_vector::decode_index_file("idx", &std::fs::read(entry).unwrap()).unwrap();
    let positions: Vec<Vec<u64>> = all.iter().map(|(_, dv)| dv.positions().collect()).collect();
    assert_eq!(positions, vec![vec![1, 2], vec![1]]);
}

#[test]
fn deletion_vectors_filter_append_rows() {
    let table = "append_dv_row_tracking";
    let dir = table_dir("corpus", table);
    let fields = schema_fields("corpus", table, 0);
    let mut dvs: HashMap<String, DeletionVector> = HashMap::new();
    for entry in std::fs::read_dir(dir.join("manifest")).unwrap() {
        let p = entry.unwrap().path();
        if name_of(&p).starts_with("index-manifest-") {
            for (index_file, data_file, offset, length, _) in dv_ranges(&p) {
                let bytes = std::fs::read(dir.join("index").join(&index_file)).unwrap();
                let dv = deletion_vector::decode_range(
                    &index_file,
                    &bytes,
                    offset as u64,
                    length as u64,
                )
                .unwrap();
                dvs.insert(data_file, dv);
            }
        }
    }
    let mut batches = Vec::new();
    for f in data_files("corpus", table) {
        let read = read_path(&f, &fields, &fields, FileKind::Append);
        match dvs.get(&name_of(&f)) {
            Some(dv) => batches.extend(dv.apply(read).unwrap()),
            None => batches.extend(read),
        }
    }
    assert_eq!(lines(&batches), expected_lines("corpus", table, 3));
}

#[test]
fn corrupt_or_truncated_files_are_errors_naming_the_file() {
    let cases = [
        ("corpus", "append_types_parquet"),
        ("corpus", "append_types_orc"),
        ("corpus", "append_types_avro"),
    ];
    for (db, table) in cases {
        let fields = schema_fields(db, table, 0);
        let path = &data_files(db, table)[0];
        let name = name_of(path);
        let format = FileFormat::from_file_name(&name).unwrap();
        let bytes = std::fs::read(path).unwrap();
        let mut attempts: Vec<Vec<u8>> = vec![
            Vec::new(),
            bytes[..bytes.len() / 2].to_vec(),
            bytes[..bytes.len() - 1].to_vec(),
        ];
        let mut flipped = bytes.clone();
        let mid = flipped.len() / 2;
        for b in &mut flipped[mid..mid + 64] {
            *b = !*b;
        }
        attempts.push(flipped);
        let mut footer = bytes.clone();
        let n = footer.len();
        for b in &mut footer[n - 40..n - 8] {
            *b ^= 0x5a;
        }
        attempts.push(footer);
        for (i, data) in attempts.into_iter().enumerate() {
            let result = std::panic::catch_unwind(|| {
                futures::executor::block_on(read_file(
                    &name,
                    Bytes::from(data),
                    format,
                    &fields,
                    &fields,
                    FileKind::Append,
                ))
            });
            let result = result.unwrap_or_else(|_| panic!("{table} attempt {i} panicked"));
            match result {
                Err(e @ Error::Corrupt { .. }) => assert!(e.to_string().contains(&name), "{e}"),
                Err(other) => panic!("{table} attempt {i}: unexpected error kind {other}"),
                // A flip inside compressed data can still decode (e.g. only string bytes change).
                Ok(_) if i >= 3 => {}
                Ok(_) => panic!("{table} attempt {i}: truncated file decoded"),
            }
        }
    }
}

/// Every data and changelog file of every corpus table decodes with its own schema.
#[test]
fn every_corpus_data_file_decodes() {
    let mut files_read = 0;
    for db in ["corpus", "java09"] {
        let db_dir = corpus().join("paimon/warehouse").join(format!("{db}.db"));
        for entry in std::fs::read_dir(&db_dir).unwrap() {
            let table = name_of(&entry.unwrap().path());
            let ids = schema_ids(db, &table);
            let schema0: serde_json::Value = serde_json::from_slice(
                &std::fs::read(table_dir(db, &table).join("schema/schema-0")).unwrap(),
            )
            .unwrap();
            let has_pk = schema0["primaryKeys"]
                .as_array()
                .is_some_and(|a| !a.is_empty());
            let kind = if has_pk {
                FileKind::KeyValue
            } else {
                FileKind::Append
            };
            for f in data_files(db, &table) {
                let Some(id) = ids.get(&name_of(&f)) else {
                    continue;
                };
                let fields = schema_fields(db, &table, *id);
                let batches = read_path(&f, &fields, &fields, kind);
                assert!(
                    batches.iter().map(RecordBatch::num_rows).sum::<usize>() > 0,
                    "{}",
                    f.display()
                );
                files_read += 1;
            }
        }
    }
    assert!(files_read > 50, "{files_read}");
}

mod ranged {
    use super::*;
    use async_trait::async_trait;
    use lakescope_paimon::read::parquet::{read_parquet_async, read_parquet_ranged};
    use lakescope_storage::{Listing, MemoryStore, ObjectMeta, ObjectStore, PutOutcome};
    use std::cell::RefCell;
    use std::ops::Range;

    /// A memory store that records the ranges asked for.
    #[derive(Default)]
    struct Recording {
        inner: MemoryStore,
        ranges: RefCell<Vec<Range<u64>>>,
        whole_gets: RefCell<usize>,
    }

    #[async_trait(?Send)]
    impl ObjectStore for Recording {
        fn describe(&self) -> String {
            "recording".into()
        }
        async fn get(&self, path: &str) -> lakescope_storage::Result<Bytes> {
            *self.whole_gets.borrow_mut() += 1;
            self.inner.get(path).await
        }
        async fn get_range(
            &self,
            path: &str,
            range: Range<u64>,
        ) -> lakescope_storage::Result<Bytes> {
            self.ranges.borrow_mut().push(range.clone());
            self.inner.get_range(path, range).await
        }
        async fn head(&self, path: &str) -> lakescope_storage::Result<ObjectMeta> {
            self.inner.head(path).await
        }
        async fn list_dir(&self, prefix: &str) -> lakescope_storage::Result<Listing> {
            self.inner.list_dir(prefix).await
        }
        async fn put(&self, path: &str, data: Bytes) -> lakescope_storage::Result<()> {
            self.inner.put(path, data).await
        }
        async fn put_if_absent(
            &self,
            path: &str,
            data: Bytes,
        ) -> lakescope_storage::Result<PutOutcome> {
            self.inner.put_if_absent(path, data).await
        }
        async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
            self.inner.delete(path).await
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn ranged_reads_fetch_only_footer_and_needed_chunks() {
        let fields = schema_fields("corpus", "append_types_parquet", 0);
        let read: Vec<DataField> = fields
            .iter()
            .filter(|f| f.name == "id" || f.name == "s")
            .cloned()
            .collect();
        let store = Recording::default();
        let mut expected = Vec::new();
        let mut got_all = Vec::new();
        let mut got_some = Vec::new();
        for f in data_files("corpus", "append_types_parquet") {
            let name = name_of(&f);
            let bytes = Bytes::from(std::fs::read(&f).unwrap());
            let size = bytes.len() as u64;
            store.put(&name, bytes.clone()).await.unwrap();
            expected.extend(read_path(&f, &fields, &fields, FileKind::Append));

            store.ranges.borrow_mut().clear();
            let some = read_parquet_ranged(
                &store,
                &name,
                Some(size),
                &fields,
                &read,
                FileKind::Append,
                64,
            )
            .await
            .unwrap();
            // Requests: the 64-byte tail, the footer, then the coalesced column chunks of `id`, `s`.
            let ranges = store.ranges.borrow().clone();
            assert!(ranges.len() >= 3, "{ranges:?}");
            assert_eq!(ranges[0], size - 64..size);
            let data_len = ranges[1].start - 4;
            let chunk_bytes: u64 = ranges[2..].iter().map(|r| r.end - r.start).sum();
            assert!(
                chunk_bytes < data_len / 2,
                "{name}: {chunk_bytes} of {data_len} data bytes: {ranges:?}"
            );
            got_some.extend(some);

            let all =
                read_parquet_ranged(&store, &name, None, &fields, &fields, FileKind::Append, 64)
                    .await
                    .unwrap();
            got_all.extend(all);
            // The default prefetch covers these small files in one request.
            store.ranges.borrow_mut().clear();
            read_parquet_async(&store, &name, Some(size), &fields, &read, FileKind::Append)
                .await
                .unwrap();
            assert_eq!(store.ranges.borrow().len(), 1);
        }
        assert_eq!(*store.whole_gets.borrow(), 0);
        assert_eq!(lines(&got_all), lines(&expected));
        let projected: Vec<RecordBatch> = expected
            .iter()
            .map(|b| b.project(&[0, 8]).unwrap())
            .collect();
        assert_eq!(lines(&got_some), lines(&projected));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn ranged_reads_of_corrupt_files_are_errors() {
        let fields = schema_fields("corpus", "append_types_parquet", 0);
        let store = MemoryStore::new();
        let f = &data_files("corpus", "append_types_parquet")[0];
        let mut bytes = std::fs::read(f).unwrap();
        let n = bytes.len();
        bytes[n - 6] = 0xff; // footer length far too large
        store.put("bad.parquet", Bytes::from(bytes)).await.unwrap();
        let err = read_parquet_ranged(
            &store,
            "bad.parquet",
            None,
            &fields,
            &fields,
            FileKind::Append,
            64,
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("bad.parquet"), "{err}");
        store
            .put("tiny.parquet", Bytes::from_static(b"PAR1"))
            .await
            .unwrap();
        assert!(read_parquet_async(
            &store,
            "tiny.parquet",
            None,
            &fields,
            &fields,
            FileKind::Append
        )
        .await
        .is_err());
    }
}
