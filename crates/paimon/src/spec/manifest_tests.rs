//! The manifest entry decoder against apache-avro's own reading of the same bytes (a generic
//! `Value` per record, converted field by field as the manifest list is): every manifest of
//! `../shared/corpus` (Java Paimon 0.9 and pypaimon layouts), the manifests this crate writes with
//! every optional field set and every codec, unknown fields, other integer widths, and damage.

use super::*;
use crate::spec::manifest_entries::{decode_manifest, decode_manifest_where};
use apache_avro::types::Value;
use apache_avro::{Codec, DeflateSettings, Schema, Writer, ZstandardSettings};
use std::path::{Path, PathBuf};

/// The entries of a data manifest as apache-avro's generic reader decodes them.
fn by_value(file_name: &str, bytes: &[u8]) -> Result<Vec<ManifestEntry>> {
    decode_records(file_name, bytes, |v| {
        let r = Rec::new(file_name, "", v)?;
        Ok(Some(ManifestEntry {
            kind: r.kind()?,
            partition: r.req_bytes("_PARTITION")?,
            bucket: r.req_int("_BUCKET")?,
            total_buckets: r.opt_int("_TOTAL_BUCKETS")?,
            file: std::sync::Arc::new(decode_data_file(file_name, r.req("_FILE")?)?),
        }))
    })
}

fn decode_data_file(file_name: &str, v: &Value) -> Result<DataFileMeta> {
    let f = Rec::new(file_name, "_FILE.", v)?;
    Ok(DataFileMeta {
        file_name: f.req_str("_FILE_NAME")?,
        file_size: f.req_long("_FILE_SIZE")?,
        row_count: f.req_long("_ROW_COUNT")?,
        min_key: f.req_bytes("_MIN_KEY")?,
        max_key: f.req_bytes("_MAX_KEY")?,
        key_stats: f.stats("_KEY_STATS", "_FILE._KEY_STATS.")?,
        value_stats: f.stats("_VALUE_STATS", "_FILE._VALUE_STATS.")?,
        min_sequence_number: f.req_long("_MIN_SEQUENCE_NUMBER")?,
        max_sequence_number: f.req_long("_MAX_SEQUENCE_NUMBER")?,
        schema_id: f.req_long("_SCHEMA_ID")?,
        level: f.req_int("_LEVEL")?,
        extra_files: f.opt_str_array("_EXTRA_FILES")?.unwrap_or_default(),
        creation_time: f.opt_long("_CREATION_TIME")?,
        delete_row_count: f.opt_long("_DELETE_ROW_COUNT")?,
        embedded_file_index: f.opt_bytes("_EMBEDDED_FILE_INDEX")?,
        file_source: f.opt_int("_FILE_SOURCE")?,
        value_stats_cols: f.opt_str_array("_VALUE_STATS_COLS")?,
        external_path: f.opt_str("_EXTERNAL_PATH")?,
        first_row_id: f.opt_long("_FIRST_ROW_ID")?,
        write_cols: f.opt_str_array("_WRITE_COLS")?,
        write_cols_sequences: f.opt_long_array("_WRITE_COLS_SEQUENCES")?,
    })
}

/// Every data manifest under `dir` (files named `manifest-…` in a `manifest` folder).
fn data_manifests(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            data_manifests(&path, out);
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let in_manifest_dir = dir.file_name().is_some_and(|d| d == "manifest");
        if in_manifest_dir && name.starts_with("manifest-") && !name.starts_with("manifest-list") {
            out.push(path);
        }
    }
}

/// Decodes `bytes` both ways: the same entries, and a partition filter keeps the same subset.
fn assert_both_ways(name: &str, bytes: &[u8]) -> Vec<ManifestEntry> {
    let expected = by_value(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let decoded = decode_manifest(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(decoded, expected, "{name}");
    let odd = |p: &[u8]| p.iter().map(|b| u32::from(*b)).sum::<u32>() % 2 == 1;
    let (kept, kept_all) = decode_manifest_where(name, bytes, |p| Ok(odd(p))).unwrap();
    let expected_kept: Vec<_> = expected
        .iter()
        .filter(|e| odd(&e.partition))
        .cloned()
        .collect();
    assert_eq!(kept_all, expected_kept.len() == expected.len(), "{name}");
    assert_eq!(kept, expected_kept, "{name}");
    expected
}

#[test]
fn every_corpus_manifest_decodes_as_apache_avro_reads_it() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let mut files = Vec::new();
    data_manifests(&corpus, &mut files);
    assert!(
        files.len() >= 50,
        "{} manifests under {corpus:?}",
        files.len()
    );
    let mut entries = 0;
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let bytes = lakescope_format::read::avro_container::readable_now(&name, &bytes).unwrap();
        entries += assert_both_ways(&name, &bytes).len();
    }
    assert!(
        entries >= files.len(),
        "{entries} entries in {} files",
        files.len()
    );
}

/// Entry `i` with every optional field set or not, in turn.
fn entry(i: i64) -> ManifestEntry {
    let some = i % 2 == 0;
    let stats = |k: i64| SimpleStats {
        min_values: vec![k as u8; (k % 5) as usize],
        max_values: vec![0xff; (k % 3) as usize],
        null_counts: (0..k % 4).map(|n| (n % 2 == 0).then_some(n * k)).collect(),
    };
    ManifestEntry {
        kind: if i % 3 == 0 {
            FileKind::Delete
        } else {
            FileKind::Add
        },
        partition: vec![(i % 7) as u8, 0, 1],
        bucket: (i % 4) as i32 - 1,
        total_buckets: Some((i % 5) as i32 - 1),
        file: std::sync::Arc::new(DataFileMeta {
            file_name: format!("data-{i}-é.parquet"),
            file_size: i * 1_000_003,
            row_count: i << 33,
            min_key: vec![1; (i % 6) as usize],
            max_key: vec![2; (i % 4) as usize],
            key_stats: stats(i),
            value_stats: stats(i + 1),
            min_sequence_number: -i,
            max_sequence_number: i64::MAX - i,
            schema_id: i % 3,
            level: (i % 6) as i32,
            extra_files: (0..i % 3).map(|k| format!("extra-{k}")).collect(),
            creation_time: some.then_some(1_700_000_000_000 + i),
            delete_row_count: some.then_some(i),
            embedded_file_index: some.then(|| vec![9; (i % 4) as usize]),
            file_source: some.then_some((i % 2) as i32),
            value_stats_cols: (i % 3 == 1).then(|| vec!["a".into(), "b".into()]),
            external_path: some.then(|| format!("s3://b/x-{i}")),
            first_row_id: some.then_some(i * 10),
            write_cols: (i % 4 == 1).then(|| vec!["c".into()]),
            write_cols_sequences: (i % 4 == 1).then(|| vec![i, -i]),
        }),
    }
}

#[test]
fn manifests_this_crate_writes_decode_to_their_entries_with_every_codec() {
    let entries: Vec<_> = (0..40).map(entry).collect();
    for codec in [
        Codec::Null,
        Codec::Deflate(DeflateSettings::default()),
        Codec::Snappy,
        Codec::Zstandard(ZstandardSettings::default()),
    ] {
        let bytes = crate::write::manifest::encode_manifest("m", &entries, codec).unwrap();
        assert_eq!(assert_both_ways("m", &bytes), entries, "{codec:?}");
    }
}

/// A Java-0.9-like layout with a top-level union, fields this decoder does not know (before
/// `_PARTITION`, inside `_FILE` and inside the stats), `_FILE_SIZE` an `int`, the stats one named
/// record referred to twice, and `_EXTRA_FILES` items a union, `_EXTERNAL_PATH` an enum.
const ODD_SCHEMA: &str = r#"["null", {"type": "record", "name": "entry", "fields": [
    {"name": "_KIND", "type": "int"},
    {"name": "_UNKNOWN", "type": {"type": "map", "values": {"type": "array", "items": "string"}}},
    {"name": "_PARTITION", "type": "bytes"},
    {"name": "_BUCKET", "type": "int"},
    {"name": "_FILE", "type": ["null", {"type": "record", "name": "file", "fields": [
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "int"},
        {"name": "_ROW_COUNT", "type": "long"},
        {"name": "_MIN_KEY", "type": "bytes"},
        {"name": "_MAX_KEY", "type": {"type": "fixed", "name": "key4", "size": 4}},
        {"name": "_KEY_STATS", "type": {"type": "record", "name": "stats", "fields": [
            {"name": "_MIN_VALUES", "type": "bytes"},
            {"name": "_EXTRA", "type": ["null", "double"]},
            {"name": "_MAX_VALUES", "type": "bytes"},
            {"name": "_NULL_COUNTS", "type": {"type": "array", "items": ["null", "int"]}}]}},
        {"name": "_VALUE_STATS", "type": "stats"},
        {"name": "_NESTED", "type": ["null", {"type": "record", "name": "n", "fields": [
            {"name": "x", "type": "float"}, {"name": "y", "type": "boolean"}]}]},
        {"name": "_MIN_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_MAX_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_SCHEMA_ID", "type": "long"},
        {"name": "_LEVEL", "type": "int"},
        {"name": "_EXTRA_FILES", "type": {"type": "array", "items": ["null", "string"]}},
        {"name": "_CREATION_TIME", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
        {"name": "_EXTERNAL_PATH", "type": {"type": "enum", "name": "path", "symbols": ["A", "C"]}}]}]}]}]"#;

fn odd_record(i: i32) -> Value {
    let stats = Value::Record(vec![
        ("_MIN_VALUES".into(), Value::Bytes(vec![i as u8])),
        (
            "_EXTRA".into(),
            Value::Union(1, Box::new(Value::Double(0.5))),
        ),
        ("_MAX_VALUES".into(), Value::Bytes(vec![])),
        (
            "_NULL_COUNTS".into(),
            Value::Array(vec![
                Value::Union(1, Box::new(Value::Int(i))),
                Value::Union(0, Box::new(Value::Null)),
            ]),
        ),
    ]);
    let file = Value::Record(vec![
        ("_FILE_NAME".into(), Value::String(format!("f{i}"))),
        ("_FILE_SIZE".into(), Value::Int(-i)),
        ("_ROW_COUNT".into(), Value::Long(i64::from(i))),
        ("_MIN_KEY".into(), Value::Bytes(vec![1, 2])),
        ("_MAX_KEY".into(), Value::Fixed(4, vec![1, 2, 3, i as u8])),
        ("_KEY_STATS".into(), stats.clone()),
        ("_VALUE_STATS".into(), stats),
        (
            "_NESTED".into(),
            Value::Union(
                1,
                Box::new(Value::Record(vec![
                    ("x".into(), Value::Float(1.5)),
                    ("y".into(), Value::Boolean(true)),
                ])),
            ),
        ),
        ("_MIN_SEQUENCE_NUMBER".into(), Value::Long(1)),
        ("_MAX_SEQUENCE_NUMBER".into(), Value::Long(2)),
        ("_SCHEMA_ID".into(), Value::Long(0)),
        ("_LEVEL".into(), Value::Int(5)),
        (
            "_EXTRA_FILES".into(),
            Value::Array(vec![Value::Union(1, Box::new(Value::String("x".into())))]),
        ),
        (
            "_CREATION_TIME".into(),
            Value::Union(1, Box::new(Value::TimestampMicros(7))),
        ),
        ("_EXTERNAL_PATH".into(), Value::Enum(1, "C".into())),
    ]);
    let unknown = Value::Map(
        [(
            "k".to_string(),
            Value::Array(vec![Value::String("v".into())]),
        )]
        .into_iter()
        .collect(),
    );
    Value::Union(
        1,
        Box::new(Value::Record(vec![
            ("_KIND".into(), Value::Int(i % 2)),
            ("_UNKNOWN".into(), unknown),
            ("_PARTITION".into(), Value::Bytes(vec![i as u8])),
            ("_BUCKET".into(), Value::Int(i)),
            ("_FILE".into(), Value::Union(1, Box::new(file))),
        ])),
    )
}

fn odd_manifest(records: impl IntoIterator<Item = Value>) -> Vec<u8> {
    let schema = Schema::parse_str(ODD_SCHEMA).unwrap();
    let mut writer = Writer::new(&schema, Vec::new()).unwrap();
    for record in records {
        writer.append_value(record).unwrap();
    }
    writer.into_inner().unwrap()
}

#[test]
fn unknown_fields_are_skipped_and_other_widths_and_names_decode_the_same() {
    let bytes = odd_manifest((0..9).map(odd_record));
    let entries = assert_both_ways("odd", &bytes);
    assert_eq!(entries.len(), 9);
    let e = &entries[3];
    assert_eq!(e.total_buckets, None);
    assert_eq!(e.file.file_size, -3);
    assert_eq!(e.file.max_key, [1, 2, 3, 3]);
    assert_eq!(e.file.key_stats.null_counts, [Some(3), None]);
    assert_eq!(e.file.extra_files, ["x"]);
    assert_eq!(e.file.creation_time, Some(7));
    assert_eq!(e.file.external_path.as_deref(), Some("C"));
}

#[test]
fn a_value_of_the_wrong_type_or_a_null_required_one_is_an_error_naming_file_and_field() {
    let cases = [
        (
            r#""_FILE_SIZE", "type": "int""#,
            r#""_FILE_SIZE", "type": "string""#,
            "_FILE._FILE_SIZE",
        ),
        (
            r#""_MIN_KEY", "type": "bytes""#,
            r#""_MIN_KEY", "type": "long""#,
            "_FILE._MIN_KEY",
        ),
        (
            r#""_BUCKET", "type": "int""#,
            r#""_BUCKET", "type": ["null", "int"]"#,
            "_BUCKET",
        ),
    ];
    for (from, to, field) in cases {
        let schema = Schema::parse_str(&ODD_SCHEMA.replace(from, to)).unwrap();
        let mut record = odd_record(1);
        let Value::Union(_, inner) = &mut record else {
            unreachable!()
        };
        let Value::Record(fields) = &mut **inner else {
            unreachable!()
        };
        let file = match field {
            "_BUCKET" => {
                fields[3].1 = Value::Union(0, Box::new(Value::Null));
                None
            }
            _ => Some(&mut fields[4].1),
        };
        if let Some(Value::Union(_, file)) = file {
            let Value::Record(file) = &mut **file else {
                unreachable!()
            };
            for (name, value) in file.iter_mut() {
                match (name.as_str(), field) {
                    ("_FILE_SIZE", "_FILE._FILE_SIZE") => *value = Value::String("9".into()),
                    ("_MIN_KEY", "_FILE._MIN_KEY") => *value = Value::Long(9),
                    _ => {}
                }
            }
        }
        let mut writer = Writer::new(&schema, Vec::new()).unwrap();
        writer.append_value(record).unwrap();
        let bytes = writer.into_inner().unwrap();
        assert!(by_value("bad", &bytes).is_err(), "{field}");
        let err = decode_manifest("bad", &bytes).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { file, reason } if file == "bad" && reason.starts_with(&format!("{field}: "))),
            "{field}: {err}"
        );
    }
}

#[test]
fn damaged_manifests_are_errors_never_panics() {
    // one block: a cut file is an error, or (cut right after the header) holds no entries
    let bytes = odd_manifest((0..6).map(odd_record));
    for cut in 0..bytes.len() {
        if let Ok(entries) = decode_manifest("cut", &bytes[..cut]) {
            assert!(
                entries.is_empty(),
                "cut at {cut}: {} entries",
                entries.len()
            );
        }
    }
    for at in 0..bytes.len() {
        for flip in [0x01, 0x5a, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            let _ = decode_manifest("damaged", &damaged);
        }
    }
}

#[test]
fn a_block_claiming_more_entries_than_it_has_bytes_is_an_error_not_an_allocation() {
    let entries: Vec<_> = (0..3).map(entry).collect();
    let bytes = crate::write::manifest::encode_manifest("m", &entries, Codec::Null).unwrap();
    // The header ends with the sync marker (also the file's last 16 bytes); the block's record
    // count follows it: 3, zigzag-encoded in one byte, becomes 2^60 in nine.
    let sync = bytes[bytes.len() - 16..].to_vec();
    let count_at = bytes.windows(16).position(|w| w == sync).unwrap() + 16;
    assert_eq!(bytes[count_at], 6);
    let mut huge = bytes[..count_at].to_vec();
    huge.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    huge.extend_from_slice(&bytes[count_at + 1..]);
    let err = decode_manifest("m", &huge).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { file, .. } if file == "m"),
        "{err}"
    );
}
