//! Encoding manifests and manifest lists as Avro, with the Paimon 1.x field set.
//!
//! The schemas list every field current Paimon writes (`_VALUE_STATS_COLS`, `_EXTERNAL_PATH`,
//! `_FIRST_ROW_ID`, … and the manifest list's `_MIN/_MAX_BUCKET/LEVEL/ROW_ID`): pypaimon 2.1
//! needs them, Java 0.9 skips them. Record names follow Java's converter.

use crate::error::{Error, Result};
use crate::spec::manifest::{DataFileMeta, FileKind, ManifestEntry, ManifestFileMeta, SimpleStats};
use apache_avro::types::Value;
use apache_avro::{Codec, Schema, Writer, ZstandardSettings};

const NS: &str = "org.apache.paimon.avro.generated";

fn stats_schema(name: &str) -> String {
    format!(
        r#"{{"type":"record","name":"{NS}.record_{name}","fields":[
        {{"name":"_MIN_VALUES","type":"bytes"}},
        {{"name":"_MAX_VALUES","type":"bytes"}},
        {{"name":"_NULL_COUNTS","type":["null",{{"type":"array","items":["null","long"]}}],"default":null}}]}}"#
    )
}

fn manifest_schema() -> String {
    format!(
        r#"{{"type":"record","name":"{NS}.record","fields":[
        {{"name":"_VERSION","type":"int"}},
        {{"name":"_KIND","type":"int"}},
        {{"name":"_PARTITION","type":"bytes"}},
        {{"name":"_BUCKET","type":"int"}},
        {{"name":"_TOTAL_BUCKETS","type":"int"}},
        {{"name":"_FILE","type":{{"type":"record","name":"{NS}.record__FILE","fields":[
          {{"name":"_FILE_NAME","type":"string"}},
          {{"name":"_FILE_SIZE","type":"long"}},
          {{"name":"_ROW_COUNT","type":"long"}},
          {{"name":"_MIN_KEY","type":"bytes"}},
          {{"name":"_MAX_KEY","type":"bytes"}},
          {{"name":"_KEY_STATS","type":{}}},
          {{"name":"_VALUE_STATS","type":{}}},
          {{"name":"_MIN_SEQUENCE_NUMBER","type":"long"}},
          {{"name":"_MAX_SEQUENCE_NUMBER","type":"long"}},
          {{"name":"_SCHEMA_ID","type":"long"}},
          {{"name":"_LEVEL","type":"int"}},
          {{"name":"_EXTRA_FILES","type":{{"type":"array","items":"string"}}}},
          {{"name":"_CREATION_TIME","type":["null",{{"type":"long","logicalType":"timestamp-millis"}}],"default":null}},
          {{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null}},
          {{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null}},
          {{"name":"_FILE_SOURCE","type":["null","int"],"default":null}},
          {{"name":"_VALUE_STATS_COLS","type":["null",{{"type":"array","items":"string"}}],"default":null}},
          {{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}},
          {{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null}},
          {{"name":"_WRITE_COLS","type":["null",{{"type":"array","items":"string"}}],"default":null}},
          {{"name":"_WRITE_COLS_SEQUENCES","type":["null",{{"type":"array","items":"long"}}],"default":null}}
        ]}}}}]}}"#,
        stats_schema("_FILE__KEY_STATS"),
        stats_schema("_FILE__VALUE_STATS"),
    )
}

fn manifest_list_schema() -> String {
    format!(
        r#"{{"type":"record","name":"{NS}.record","fields":[
        {{"name":"_VERSION","type":"int"}},
        {{"name":"_FILE_NAME","type":"string"}},
        {{"name":"_FILE_SIZE","type":"long"}},
        {{"name":"_NUM_ADDED_FILES","type":"long"}},
        {{"name":"_NUM_DELETED_FILES","type":"long"}},
        {{"name":"_PARTITION_STATS","type":{}}},
        {{"name":"_SCHEMA_ID","type":"long"}},
        {{"name":"_MIN_BUCKET","type":["null","int"],"default":null}},
        {{"name":"_MAX_BUCKET","type":["null","int"],"default":null}},
        {{"name":"_MIN_LEVEL","type":["null","int"],"default":null}},
        {{"name":"_MAX_LEVEL","type":["null","int"],"default":null}},
        {{"name":"_MIN_ROW_ID","type":["null","long"],"default":null}},
        {{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}}
        ]}}"#,
        stats_schema("_PARTITION_STATS"),
    )
}

fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Value) -> Value {
    match v {
        Some(x) => Value::Union(1, Box::new(f(x))),
        None => Value::Union(0, Box::new(Value::Null)),
    }
}

fn str_array(v: Vec<String>) -> Value {
    Value::Array(v.into_iter().map(Value::String).collect())
}

fn stats_value(s: &SimpleStats) -> Value {
    let nulls = Value::Array(s.null_counts.iter().map(|n| opt(*n, Value::Long)).collect());
    Value::Record(vec![
        ("_MIN_VALUES".into(), Value::Bytes(s.min_values.clone())),
        ("_MAX_VALUES".into(), Value::Bytes(s.max_values.clone())),
        ("_NULL_COUNTS".into(), Value::Union(1, Box::new(nulls))),
    ])
}

fn file_value(f: &DataFileMeta) -> Value {
    Value::Record(vec![
        ("_FILE_NAME".into(), Value::String(f.file_name.clone())),
        ("_FILE_SIZE".into(), Value::Long(f.file_size)),
        ("_ROW_COUNT".into(), Value::Long(f.row_count)),
        ("_MIN_KEY".into(), Value::Bytes(f.min_key.clone())),
        ("_MAX_KEY".into(), Value::Bytes(f.max_key.clone())),
        ("_KEY_STATS".into(), stats_value(&f.key_stats)),
        ("_VALUE_STATS".into(), stats_value(&f.value_stats)),
        (
            "_MIN_SEQUENCE_NUMBER".into(),
            Value::Long(f.min_sequence_number),
        ),
        (
            "_MAX_SEQUENCE_NUMBER".into(),
            Value::Long(f.max_sequence_number),
        ),
        ("_SCHEMA_ID".into(), Value::Long(f.schema_id)),
        ("_LEVEL".into(), Value::Int(f.level)),
        ("_EXTRA_FILES".into(), str_array(f.extra_files.clone())),
        (
            "_CREATION_TIME".into(),
            opt(f.creation_time, Value::TimestampMillis),
        ),
        (
            "_DELETE_ROW_COUNT".into(),
            opt(f.delete_row_count, Value::Long),
        ),
        (
            "_EMBEDDED_FILE_INDEX".into(),
            opt(f.embedded_file_index.clone(), Value::Bytes),
        ),
        ("_FILE_SOURCE".into(), opt(f.file_source, Value::Int)),
        (
            "_VALUE_STATS_COLS".into(),
            opt(f.value_stats_cols.clone(), str_array),
        ),
        (
            "_EXTERNAL_PATH".into(),
            opt(f.external_path.clone(), Value::String),
        ),
        ("_FIRST_ROW_ID".into(), opt(f.first_row_id, Value::Long)),
        ("_WRITE_COLS".into(), opt(f.write_cols.clone(), str_array)),
        (
            "_WRITE_COLS_SEQUENCES".into(),
            opt(f.write_cols_sequences.clone(), |v| {
                Value::Array(v.into_iter().map(Value::Long).collect())
            }),
        ),
    ])
}

/// Avro codec for `manifest.compression` (`zstd` default, `snappy`, `deflate`, `none`).
pub fn codec(name: &str) -> Result<Codec> {
    match name.trim().to_ascii_lowercase().as_str() {
        "zstd" => Ok(Codec::Zstandard(ZstandardSettings::new(1))),
        "snappy" => Ok(Codec::Snappy),
        "deflate" => Ok(Codec::Deflate(Default::default())),
        "none" | "null" | "uncompressed" => Ok(Codec::Null),
        other => Err(Error::Invalid(format!(
            "manifest.compression '{other}' is not supported"
        ))),
    }
}

fn write_all(file: &str, schema_json: &str, codec: Codec, records: Vec<Value>) -> Result<Vec<u8>> {
    let err = |e: apache_avro::Error| Error::corrupt(file, format!("writing Avro: {e}"));
    let schema = Schema::parse_str(schema_json).map_err(err)?;
    let mut w = Writer::with_codec(&schema, Vec::new(), codec).map_err(err)?;
    for r in records {
        w.append_value(r).map_err(err)?;
    }
    w.into_inner().map_err(err)
}

/// Encodes a data manifest.
pub fn encode_manifest(file: &str, entries: &[ManifestEntry], codec: Codec) -> Result<Vec<u8>> {
    let records = entries
        .iter()
        .map(|e| {
            Value::Record(vec![
                ("_VERSION".into(), Value::Int(2)),
                (
                    "_KIND".into(),
                    Value::Int(match e.kind {
                        FileKind::Add => 0,
                        FileKind::Delete => 1,
                    }),
                ),
                ("_PARTITION".into(), Value::Bytes(e.partition.clone())),
                ("_BUCKET".into(), Value::Int(e.bucket)),
                (
                    "_TOTAL_BUCKETS".into(),
                    Value::Int(e.total_buckets.unwrap_or(-1)),
                ),
                ("_FILE".into(), file_value(&e.file)),
            ])
        })
        .collect();
    write_all(file, &manifest_schema(), codec, records)
}

/// Encodes a manifest list.
pub fn encode_manifest_list(
    file: &str,
    metas: &[ManifestFileMeta],
    codec: Codec,
) -> Result<Vec<u8>> {
    let records = metas
        .iter()
        .map(|m| {
            Value::Record(vec![
                ("_VERSION".into(), Value::Int(2)),
                ("_FILE_NAME".into(), Value::String(m.file_name.clone())),
                ("_FILE_SIZE".into(), Value::Long(m.file_size)),
                ("_NUM_ADDED_FILES".into(), Value::Long(m.num_added_files)),
                (
                    "_NUM_DELETED_FILES".into(),
                    Value::Long(m.num_deleted_files),
                ),
                ("_PARTITION_STATS".into(), stats_value(&m.partition_stats)),
                ("_SCHEMA_ID".into(), Value::Long(m.schema_id)),
                ("_MIN_BUCKET".into(), opt(m.min_bucket, Value::Int)),
                ("_MAX_BUCKET".into(), opt(m.max_bucket, Value::Int)),
                ("_MIN_LEVEL".into(), opt(m.min_level, Value::Int)),
                ("_MAX_LEVEL".into(), opt(m.max_level, Value::Int)),
                ("_MIN_ROW_ID".into(), opt(m.min_row_id, Value::Long)),
                ("_MAX_ROW_ID".into(), opt(m.max_row_id, Value::Long)),
            ])
        })
        .collect();
    write_all(file, &manifest_list_schema(), codec, records)
}
