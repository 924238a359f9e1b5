//! A small v2 table built in memory (Parquet with field ids, Avro manifests): equality deletes
//! apply only to older data files, position deletes to the same and older ones, and a Puffin
//! deletion vector to its referenced data file.

use apache_avro::types::Value;
use apache_avro::{Schema as AvroSchema, Writer};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use lakescope_iceberg::{read_table, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{MemoryStore, ObjectStore};
use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

const LOC: &str = "s3://bucket/wh/db/t";

fn field(name: &str, t: DataType, id: i32) -> Field {
    Field::new(name, t, true).with_metadata(HashMap::from([(
        PARQUET_FIELD_ID_META_KEY.to_string(),
        id.to_string(),
    )]))
}

fn parquet(columns: Vec<(Field, ArrayRef)>) -> Bytes {
    let (fields, arrays): (Vec<_>, Vec<_>) = columns.into_iter().unzip();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

fn data_file(ids: &[i64]) -> Bytes {
    let names: Vec<String> = ids.iter().map(|i| format!("v{i}")).collect();
    parquet(vec![
        (
            field("id", DataType::Int64, 1),
            Arc::new(Int64Array::from(ids.to_vec())),
        ),
        (
            field("v", DataType::Utf8, 2),
            Arc::new(StringArray::from(names)),
        ),
    ])
}

const ENTRY_SCHEMA: &str = r#"{"type":"record","name":"manifest_entry","fields":[
  {"name":"status","type":"int"},
  {"name":"snapshot_id","type":["null","long"]},
  {"name":"sequence_number","type":["null","long"]},
  {"name":"file_sequence_number","type":["null","long"]},
  {"name":"data_file","type":{"type":"record","name":"r2","fields":[
    {"name":"content","type":"int"},
    {"name":"file_path","type":"string"},
    {"name":"file_format","type":"string"},
    {"name":"partition","type":{"type":"record","name":"r102","fields":[]}},
    {"name":"record_count","type":"long"},
    {"name":"file_size_in_bytes","type":"long"},
    {"name":"equality_ids","type":["null",{"type":"array","items":"int"}]},
    {"name":"referenced_data_file","type":["null","string"]},
    {"name":"content_offset","type":["null","long"]},
    {"name":"content_size_in_bytes","type":["null","long"]}
  ]}}
]}"#;

const LIST_SCHEMA: &str = r#"{"type":"record","name":"manifest_file","fields":[
  {"name":"manifest_path","type":"string"},
  {"name":"manifest_length","type":"long"},
  {"name":"partition_spec_id","type":"int"},
  {"name":"content","type":"int"},
  {"name":"sequence_number","type":"long"},
  {"name":"min_sequence_number","type":"long"},
  {"name":"added_snapshot_id","type":"long"}
]}"#;

struct Entry {
    seq: i64,
    content: i32,
    path: String,
    format: &'static str,
    eq_ids: Option<Vec<i32>>,
    /// Referenced data file, content offset, content size and record count of a deletion vector.
    dv: Option<(String, i64, i64, i64)>,
}

fn union(i: u32, v: Value) -> Value {
    Value::Union(i, Box::new(v))
}

fn manifest(entries: &[Entry]) -> Bytes {
    let schema = AvroSchema::parse_str(ENTRY_SCHEMA).unwrap();
    let mut w = Writer::new(&schema, Vec::new()).unwrap();
    for e in entries {
        let data_file = Value::Record(vec![
            ("content".into(), Value::Int(e.content)),
            (
                "file_path".into(),
                Value::String(format!("{LOC}/{}", e.path)),
            ),
            ("file_format".into(), Value::String(e.format.into())),
            ("partition".into(), Value::Record(vec![])),
            (
                "record_count".into(),
                Value::Long(e.dv.as_ref().map_or(1, |d| d.3)),
            ),
            ("file_size_in_bytes".into(), Value::Long(1)),
            (
                "equality_ids".into(),
                match &e.eq_ids {
                    Some(ids) => union(
                        1,
                        Value::Array(ids.iter().map(|i| Value::Int(*i)).collect()),
                    ),
                    None => union(0, Value::Null),
                },
            ),
            (
                "referenced_data_file".into(),
                match &e.dv {
                    Some((r, _, _, _)) => union(1, Value::String(format!("{LOC}/{r}"))),
                    None => union(0, Value::Null),
                },
            ),
            (
                "content_offset".into(),
                e.dv.as_ref()
                    .map_or(union(0, Value::Null), |d| union(1, Value::Long(d.1))),
            ),
            (
                "content_size_in_bytes".into(),
                e.dv.as_ref()
                    .map_or(union(0, Value::Null), |d| union(1, Value::Long(d.2))),
            ),
        ]);
        w.append_value(Value::Record(vec![
            ("status".into(), Value::Int(1)),
            ("snapshot_id".into(), union(1, Value::Long(1))),
            ("sequence_number".into(), union(1, Value::Long(e.seq))),
            ("file_sequence_number".into(), union(1, Value::Long(e.seq))),
            ("data_file".into(), data_file),
        ]))
        .unwrap();
    }
    Bytes::from(w.into_inner().unwrap())
}

fn manifest_list(manifests: &[(&str, i32)]) -> Bytes {
    let schema = AvroSchema::parse_str(LIST_SCHEMA).unwrap();
    let mut w = Writer::new(&schema, Vec::new()).unwrap();
    for (path, content) in manifests {
        w.append_value(Value::Record(vec![
            (
                "manifest_path".into(),
                Value::String(format!("{LOC}/metadata/{path}")),
            ),
            ("manifest_length".into(), Value::Long(1)),
            ("partition_spec_id".into(), Value::Int(0)),
            ("content".into(), Value::Int(*content)),
            ("sequence_number".into(), Value::Long(3)),
            ("min_sequence_number".into(), Value::Long(1)),
            ("added_snapshot_id".into(), Value::Long(1)),
        ]))
        .unwrap();
    }
    Bytes::from(w.into_inner().unwrap())
}

/// A `deletion-vector-v1` blob deleting `positions`.
fn dv_blob(positions: &[u64]) -> Vec<u8> {
    let bitmap: roaring::RoaringTreemap = positions.iter().copied().collect();
    let mut vector = Vec::new();
    bitmap.serialize_into(&mut vector).unwrap();
    let mut blob = ((vector.len() + 4) as u32).to_be_bytes().to_vec();
    blob.extend([0xD1, 0xD3, 0x39, 0x64]);
    blob.extend(vector);
    // CRC-32 (big-endian) of the magic and the bitmap.
    let crc = crc32fast::hash(&blob[4..]);
    blob.extend(crc.to_be_bytes());
    blob
}

fn metadata() -> String {
    format!(
        r#"{{"format-version":2,"table-uuid":"u","location":"{LOC}","last-sequence-number":3,
        "last-updated-ms":1,"last-column-id":2,"current-schema-id":0,
        "schemas":[{{"type":"struct","schema-id":0,"fields":[
          {{"id":1,"name":"id","required":false,"type":"long"}},
          {{"id":2,"name":"v","required":false,"type":"string"}}]}}],
        "default-spec-id":0,"partition-specs":[{{"spec-id":0,"fields":[]}}],"last-partition-id":999,
        "current-snapshot-id":1,"snapshots":[{{"snapshot-id":1,"sequence-number":3,"timestamp-ms":1,
          "manifest-list":"{LOC}/metadata/snap-1.avro","summary":{{"operation":"overwrite"}},"schema-id":0}}],
        "refs":{{"main":{{"snapshot-id":1,"type":"branch"}},"t1":{{"snapshot-id":1,"type":"tag"}}}}}}"#
    )
}

/// The v2 table of [`deletes_follow_sequence_number_rules`], whose deletion vector blob and
/// record count are given.
async fn deletes_table(blob: Vec<u8>, dv_records: i64) -> Table {
    let store = MemoryStore::new();
    let put = |k: &str, b: Bytes| {
        let k = format!("db/t/{k}");
        let s = &store;
        async move { s.put(&k, b).await.unwrap() }
    };
    put("data/a.parquet", data_file(&[1, 2, 3, 4])).await; // seq 1
    put("data/b.parquet", data_file(&[2, 5])).await; // seq 2
    put("data/c.parquet", data_file(&[6, 7, 8])).await; // seq 1, has a deletion vector
                                                        // Equality delete (seq 2) of id 2 and 3: removes them from a (seq 1), not from b (seq 2).
    put(
        "data/eq.parquet",
        parquet(vec![(
            field("id", DataType::Int64, 1),
            Arc::new(Int64Array::from(vec![2, 3])),
        )]),
    )
    .await;
    // Position delete (seq 2) of b pos 1 (id 5) and a pos 3 (id 4).
    put(
        "data/pos.parquet",
        parquet(vec![
            (
                field("file_path", DataType::Utf8, 2_147_483_546),
                Arc::new(StringArray::from(vec![
                    format!("{LOC}/data/a.parquet"),
                    format!("{LOC}/data/b.parquet"),
                ])),
            ),
            (
                field("pos", DataType::Int64, 2_147_483_545),
                Arc::new(Int64Array::from(vec![3, 1])),
            ),
        ]),
    )
    .await;
    let mut puffin = b"PFA1".to_vec();
    let offset = puffin.len() as i64;
    puffin.extend(&blob);
    put("data/dv.puffin", Bytes::from(puffin)).await;
    let data = manifest(&[
        Entry {
            seq: 1,
            content: 0,
            path: "data/a.parquet".into(),
            format: "PARQUET",
            eq_ids: None,
            dv: None,
        },
        Entry {
            seq: 2,
            content: 0,
            path: "data/b.parquet".into(),
            format: "PARQUET",
            eq_ids: None,
            dv: None,
        },
        Entry {
            seq: 1,
            content: 0,
            path: "data/c.parquet".into(),
            format: "PARQUET",
            eq_ids: None,
            dv: None,
        },
    ]);
    let deletes = manifest(&[
        Entry {
            seq: 2,
            content: 2,
            path: "data/eq.parquet".into(),
            format: "PARQUET",
            eq_ids: Some(vec![1]),
            dv: None,
        },
        Entry {
            seq: 2,
            content: 1,
            path: "data/pos.parquet".into(),
            format: "PARQUET",
            eq_ids: None,
            dv: None,
        },
        Entry {
            seq: 3,
            content: 1,
            path: "data/dv.puffin".into(),
            format: "PUFFIN",
            eq_ids: None,
            dv: Some((
                "data/c.parquet".into(),
                offset,
                blob.len() as i64,
                dv_records,
            )),
        },
    ]);
    put("metadata/d-m0.avro", data).await;
    put("metadata/d-m1.avro", deletes).await;
    put(
        "metadata/snap-1.avro",
        manifest_list(&[("d-m0.avro", 0), ("d-m1.avro", 1)]),
    )
    .await;
    put("metadata/00001-x.metadata.json", Bytes::from(metadata())).await;

    Table::open(Rc::new(store), "db/t").await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn deletes_follow_sequence_number_rules() {
    let table = deletes_table(dv_blob(&[0, 2]), 2).await;
    for at in [
        SnapshotSelector::Current,
        SnapshotSelector::Ref("t1".into()),
    ] {
        let out = read_table(&table, &at, &ReadRequest::default())
            .await
            .unwrap();
        let mut ids: Vec<i64> = out
            .batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        ids.sort();
        // a: 1 (2, 3 equality-deleted; 4 position-deleted); b: 2 (5 position-deleted); c: 7.
        assert_eq!(ids, vec![1, 2, 7]);
    }
    // Projecting away the equality column still applies the equality delete.
    let only_v = ReadRequest {
        columns: Some(vec!["v".into()]),
        limit: None,
    };
    let out = read_table(&table, &SnapshotSelector::Current, &only_v)
        .await
        .unwrap();
    let mut vs: Vec<String> = out
        .batches
        .iter()
        .flat_map(|b| {
            let c = b.column(0).as_string::<i32>();
            (0..c.len())
                .map(|i| c.value(i).to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    vs.sort();
    assert_eq!(vs, vec!["v1", "v2", "v7"]);
    let none = ReadRequest {
        columns: Some(vec![]),
        limit: None,
    };
    let out = read_table(&table, &SnapshotSelector::Current, &none)
        .await
        .unwrap();
    assert_eq!(out.batches.iter().map(|b| b.num_rows()).sum::<usize>(), 3);
}

/// A deletion vector whose CRC-32 does not match, or whose cardinality is not the delete file's
/// `record_count`, is an error naming the Puffin file.
#[tokio::test(flavor = "current_thread")]
async fn corrupt_deletion_vectors_are_named_errors() {
    let mut bad_crc = dv_blob(&[0, 2]);
    let last = bad_crc.len() - 1;
    bad_crc[last] ^= 0xff;
    let table = deletes_table(bad_crc, 2).await;
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("dv.puffin") && err.contains("CRC"), "{err}");
    let table = deletes_table(dv_blob(&[0, 2]), 3).await;
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dv.puffin")
            && err.contains("record_count is 3")
            && err.contains("2 positions"),
        "{err}"
    );
}

/// v3 metadata by the spec: row lineage, an `unknown` column, nanosecond timestamps, and
/// `extra` fields / spec / properties spliced in.
fn v3_metadata(extra_fields: &str, extra_top: &str) -> String {
    format!(
        r#"{{"format-version":3,"table-uuid":"u","location":"{LOC}","last-sequence-number":1,
        "last-updated-ms":1,"last-column-id":6,"current-schema-id":0,"next-row-id":2,
        "schemas":[{{"type":"struct","schema-id":0,"fields":[
          {{"id":1,"name":"id","required":false,"type":"long"}},
          {{"id":2,"name":"u","required":false,"type":"unknown"}},
          {{"id":3,"name":"tn","required":false,"type":"timestamp_ns"}},
          {{"id":4,"name":"tzn","required":false,"type":"timestamptz_ns"}}{extra_fields}]}}],
        "default-spec-id":0,"partition-specs":[{{"spec-id":0,"fields":[]}}],"last-partition-id":999,
        "current-snapshot-id":1,"snapshots":[{{"snapshot-id":1,"sequence-number":1,"timestamp-ms":1,
          "first-row-id":0,"added-rows":2,
          "manifest-list":"{LOC}/metadata/snap-1.avro","summary":{{"operation":"append"}},"schema-id":0}}],
        "refs":{{"main":{{"snapshot-id":1,"type":"branch"}}}}{extra_top}}}"#
    )
}

async fn v3_store(meta: &str) -> MemoryStore {
    use arrow_array::TimestampNanosecondArray;
    let store = MemoryStore::new();
    let ns = 1_714_557_600_123_456_789i64;
    let data = parquet(vec![
        (
            field("id", DataType::Int64, 1),
            Arc::new(Int64Array::from(vec![1, 2])),
        ),
        (
            field(
                "tn",
                DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
                3,
            ),
            Arc::new(TimestampNanosecondArray::from(vec![ns, ns + 1])),
        ),
        (
            field(
                "tzn",
                DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, Some("UTC".into())),
                4,
            ),
            Arc::new(TimestampNanosecondArray::from(vec![ns, ns + 2]).with_timezone("UTC")),
        ),
    ]);
    for (k, b) in [
        ("data/a.parquet", data),
        (
            "metadata/d-m0.avro",
            manifest(&[Entry {
                seq: 1,
                content: 0,
                path: "data/a.parquet".into(),
                format: "PARQUET",
                eq_ids: None,
                dv: None,
            }]),
        ),
        ("metadata/snap-1.avro", manifest_list(&[("d-m0.avro", 0)])),
        (
            "metadata/00001-x.metadata.json",
            Bytes::from(meta.to_string()),
        ),
    ] {
        store.put(&format!("db/t/{k}"), b).await.unwrap();
    }
    store
}

#[tokio::test(flavor = "current_thread")]
async fn v3_unknown_and_nanosecond_columns_read_and_unsupported_features_are_refused_by_name() {
    use arrow_array::types::TimestampNanosecondType;
    let table = Table::open(Rc::new(v3_store(&v3_metadata("", "")).await), "db/t")
        .await
        .unwrap();
    let out = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap();
    let b = &out.batches[0];
    assert_eq!(b.num_rows(), 2);
    // unknown: always null, an Arrow null column.
    assert_eq!(b.column(1).data_type(), &DataType::Null);
    assert_eq!(b.column(1).logical_null_count(), 2);
    // timestamp_ns / timestamptz_ns: every nanosecond kept.
    assert_eq!(
        b.column(2)
            .as_primitive::<TimestampNanosecondType>()
            .value(1),
        1_714_557_600_123_456_790
    );
    assert_eq!(
        b.column(3)
            .as_primitive::<TimestampNanosecondType>()
            .value(1),
        1_714_557_600_123_456_791
    );

    // A variant column: reading it is refused naming the column, type and metadata file; the
    // other columns still read.
    let variant = v3_metadata(
        r#",{"id":5,"name":"w","required":false,"type":"variant"}"#,
        "",
    );
    let table = Table::open(Rc::new(v3_store(&variant).await), "db/t")
        .await
        .unwrap();
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("00001-x.metadata.json") && err.contains("'w'") && err.contains("variant"),
        "{err}"
    );
    let only_id = ReadRequest {
        columns: Some(vec!["id".into()]),
        limit: None,
    };
    let out = read_table(&table, &SnapshotSelector::Current, &only_id)
        .await
        .unwrap();
    assert_eq!(out.batches[0].num_rows(), 2);
    let geo = v3_metadata(
        r#",{"id":5,"name":"g","required":false,"type":"geometry(srid:4326)"}"#,
        "",
    );
    let table = Table::open(Rc::new(v3_store(&geo).await), "db/t")
        .await
        .unwrap();
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("'g'") && err.contains("geospatial"), "{err}");

    // Metadata-level features: refused when the table is opened, naming file and feature.
    for (top, feature) in [
        (
            r#","encryption-keys":[{"key-id":"k","encrypted-key-metadata":"AA=="}]"#,
            "encryption-keys",
        ),
        (
            r#"{"source-ids":[1,3],"field-id":1000,"name":"p","transform":"bucket[4]"}"#,
            "multi-argument partition transform",
        ),
        (
            r#"{"source-id":1,"field-id":1000,"name":"p","transform":"zorder"}"#,
            "partition transform 'zorder'",
        ),
    ] {
        // A partition field goes into the spec, anything else at the top level.
        let meta = if top.starts_with('{') {
            v3_metadata("", "").replace(
                r#""spec-id":0,"fields":[]"#,
                &format!(r#""spec-id":0,"fields":[{top}]"#),
            )
        } else {
            v3_metadata("", top)
        };
        let err = Table::open(Rc::new(v3_store(&meta).await), "db/t")
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("00001-x.metadata.json") && err.contains(feature),
            "{feature}: {err}"
        );
    }
    let v4 = v3_metadata("", "").replace(r#""format-version":3"#, r#""format-version":4"#);
    let err = Table::open(Rc::new(v3_store(&v4).await), "db/t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("00001-x.metadata.json") && err.contains("format-version 4"),
        "{err}"
    );
}
