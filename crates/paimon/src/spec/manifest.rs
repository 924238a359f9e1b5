//! Avro manifest lists, manifests and index manifests, decoded by field name.
//!
//! Fields are looked up by name, never by position: newer writers append nullable fields
//! (pypaimon 2.1 writes `_VALUE_STATS_COLS`, `_EXTERNAL_PATH`, `_FIRST_ROW_ID`, …) that Java 0.9
//! files lack, and record names differ between writers (`record__FILE` vs `DataFileMeta`).
//! Missing optional fields become `None`; missing required fields are [`Error::Corrupt`].

use crate::error::{Error, Result};
use apache_avro::types::Value;

pub use super::manifest_entries::{decode_manifest, decode_manifest_where};

/// Whether a manifest entry adds or removes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The file becomes live.
    Add,
    /// The file stops being live.
    Delete,
}

/// Column statistics of a file or manifest: min and max as serialized `BinaryRow`s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleStats {
    /// Minimum values (raw `BinaryRow` bytes).
    pub min_values: Vec<u8>,
    /// Maximum values (raw `BinaryRow` bytes).
    pub max_values: Vec<u8>,
    /// Null count per column (`None`: unknown).
    pub null_counts: Vec<Option<i64>>,
}

/// One entry of a manifest list: a manifest file and its summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFileMeta {
    /// Manifest file name (under `manifest/`).
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Number of ADD entries.
    pub num_added_files: i64,
    /// Number of DELETE entries.
    pub num_deleted_files: i64,
    /// Min/max of the partitions in the manifest.
    pub partition_stats: SimpleStats,
    /// Schema id the manifest was written with.
    pub schema_id: i64,
    /// Smallest bucket (newer writers).
    pub min_bucket: Option<i32>,
    /// Largest bucket (newer writers).
    pub max_bucket: Option<i32>,
    /// Smallest level (newer writers).
    pub min_level: Option<i32>,
    /// Largest level (newer writers).
    pub max_level: Option<i32>,
    /// Smallest first row id (row tracking).
    pub min_row_id: Option<i64>,
    /// Largest row id (row tracking).
    pub max_row_id: Option<i64>,
    /// Total buckets (pypaimon 2.x).
    pub total_buckets: Option<i32>,
}

/// Metadata of one data (or changelog) file, `_FILE` of a manifest entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFileMeta {
    /// File name (in the bucket directory).
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Rows in the file (adds and deletes).
    pub row_count: i64,
    /// Smallest key (`BinaryRow` of the trimmed primary key; empty row for append tables).
    pub min_key: Vec<u8>,
    /// Largest key.
    pub max_key: Vec<u8>,
    /// Statistics of the key columns.
    pub key_stats: SimpleStats,
    /// Statistics of the value columns (see `value_stats_cols`).
    pub value_stats: SimpleStats,
    /// Smallest sequence number.
    pub min_sequence_number: i64,
    /// Largest sequence number.
    pub max_sequence_number: i64,
    /// Schema id the file was written with.
    pub schema_id: i64,
    /// LSM level (0: unsorted flush).
    pub level: i32,
    /// Extra files (e.g. `<file>.index`).
    pub extra_files: Vec<String>,
    /// Creation time, epoch milliseconds.
    pub creation_time: Option<i64>,
    /// Rows in the file that are deletes (`-D`/`-U`).
    pub delete_row_count: Option<i64>,
    /// File index embedded in the manifest.
    pub embedded_file_index: Option<Vec<u8>>,
    /// 0 = APPEND, 1 = COMPACT.
    pub file_source: Option<i32>,
    /// Columns covered by `value_stats` (`None`: all columns, empty: none).
    pub value_stats_cols: Option<Vec<String>>,
    /// Absolute location when the file lives outside the table directory.
    pub external_path: Option<String>,
    /// First row id (row tracking).
    pub first_row_id: Option<i64>,
    /// Columns the file holds (data evolution; `None`: all).
    pub write_cols: Option<Vec<String>>,
    /// Sequence numbers per written column (data evolution).
    pub write_cols_sequences: Option<Vec<i64>>,
}

/// One entry of a data manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// ADD or DELETE.
    pub kind: FileKind,
    /// Partition as raw `BinaryRow` bytes.
    pub partition: Vec<u8>,
    /// Bucket.
    pub bucket: i32,
    /// Number of buckets of the partition when written (absent in very old files).
    pub total_buckets: Option<i32>,
    /// The file.
    pub file: std::sync::Arc<DataFileMeta>,
}

/// Where the deletion vector of one data file sits inside a DV index file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionVectorMeta {
    /// Data file the vector applies to.
    pub data_file_name: String,
    /// Byte offset of the vector (its 4-byte size prefix) in the index file.
    pub offset: i32,
    /// Length of the serialized vector in bytes.
    pub length: i32,
    /// Number of deleted rows (newer writers).
    pub cardinality: Option<i64>,
}

/// One entry of an index manifest (hash index or deletion-vector file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexManifestEntry {
    /// ADD or DELETE.
    pub kind: FileKind,
    /// Partition as raw `BinaryRow` bytes.
    pub partition: Vec<u8>,
    /// Bucket.
    pub bucket: i32,
    /// `HASH`, `DELETION_VECTORS`, or a global index type.
    pub index_type: String,
    /// Index file name (under `index/`).
    pub file_name: String,
    /// Size in bytes.
    pub file_size: i64,
    /// Rows (hashes, or data files with a vector).
    pub row_count: i64,
    /// Ranges of the deletion vectors in the file (`DELETION_VECTORS` only).
    pub deletion_vectors: Option<Vec<DeletionVectorMeta>>,
    /// Absolute location when the index file lives outside the table directory.
    pub external_path: Option<String>,
}

/// Index type of deletion-vector index files.
pub const DELETION_VECTORS_INDEX: &str = "DELETION_VECTORS";
/// Index type of dynamic-bucket hash index files.
pub const HASH_INDEX: &str = "HASH";

/// Decodes the records of an Avro object-container file one at a time with `decode` (`None`:
/// the record is skipped), so that a large manifest's generic Avro values never all live at once.
fn decode_records<T>(
    file: &str,
    bytes: &[u8],
    mut decode: impl FnMut(&Value) -> Result<Option<T>>,
) -> Result<Vec<T>> {
    let reader =
        super::avro_names::reader(bytes).map_err(|e| super::avro_names::open_error(file, &e))?;
    let mut out = Vec::new();
    for record in reader {
        let record =
            record.map_err(|e| Error::corrupt(file, format!("invalid Avro record: {e}")))?;
        out.extend(decode(&record)?);
    }
    Ok(out)
}

/// Strips (possibly nested) unions.
fn plain(v: &Value) -> &Value {
    let mut v = v;
    while let Value::Union(_, inner) = v {
        v = inner;
    }
    v
}

/// A record being read, with the file and record path for messages.
struct Rec<'a> {
    file: &'a str,
    path: &'a str,
    fields: &'a [(String, Value)],
}

impl<'a> Rec<'a> {
    fn new(file: &'a str, path: &'a str, v: &'a Value) -> Result<Self> {
        match plain(v) {
            Value::Record(fields) => Ok(Rec { file, path, fields }),
            other => Err(Error::corrupt(
                file,
                format!("{path}: expected a record, found {other:?}"),
            )),
        }
    }

    fn err(&self, name: &str, what: impl std::fmt::Display) -> Error {
        Error::corrupt(self.file, format!("{}{name}: {what}", self.path))
    }

    /// The value of a field, `None` if absent or null.
    fn opt(&self, name: &str) -> Option<&'a Value> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| plain(v))
            .filter(|v| !matches!(v, Value::Null))
    }

    fn req(&self, name: &str) -> Result<&'a Value> {
        self.opt(name)
            .ok_or_else(|| self.err(name, "required field missing or null"))
    }

    fn long_of(&self, name: &str, v: &Value) -> Result<i64> {
        match v {
            Value::Long(x)
            | Value::TimestampMillis(x)
            | Value::TimestampMicros(x)
            | Value::LocalTimestampMillis(x)
            | Value::LocalTimestampMicros(x) => Ok(*x),
            Value::Int(x) | Value::Date(x) | Value::TimeMillis(x) => Ok(i64::from(*x)),
            other => Err(self.err(name, format!("expected an integer, found {other:?}"))),
        }
    }

    fn req_long(&self, name: &str) -> Result<i64> {
        self.long_of(name, self.req(name)?)
    }

    fn opt_long(&self, name: &str) -> Result<Option<i64>> {
        self.opt(name).map(|v| self.long_of(name, v)).transpose()
    }

    fn int_of(&self, name: &str, v: &Value) -> Result<i32> {
        let x = self.long_of(name, v)?;
        i32::try_from(x).map_err(|_| self.err(name, format!("{x} does not fit an int")))
    }

    fn req_int(&self, name: &str) -> Result<i32> {
        self.int_of(name, self.req(name)?)
    }

    fn opt_int(&self, name: &str) -> Result<Option<i32>> {
        self.opt(name).map(|v| self.int_of(name, v)).transpose()
    }

    fn str_of(&self, name: &str, v: &'a Value) -> Result<&'a str> {
        match v {
            Value::String(s) | Value::Enum(_, s) => Ok(s),
            other => Err(self.err(name, format!("expected a string, found {other:?}"))),
        }
    }

    fn req_str(&self, name: &str) -> Result<String> {
        Ok(self.str_of(name, self.req(name)?)?.to_string())
    }

    fn opt_str(&self, name: &str) -> Result<Option<String>> {
        self.opt(name)
            .map(|v| self.str_of(name, v).map(String::from))
            .transpose()
    }

    fn bytes_of(&self, name: &str, v: &Value) -> Result<Vec<u8>> {
        match v {
            Value::Bytes(b) | Value::Fixed(_, b) => Ok(b.clone()),
            other => Err(self.err(name, format!("expected bytes, found {other:?}"))),
        }
    }

    fn req_bytes(&self, name: &str) -> Result<Vec<u8>> {
        self.bytes_of(name, self.req(name)?)
    }

    #[cfg(test)]
    fn opt_bytes(&self, name: &str) -> Result<Option<Vec<u8>>> {
        self.opt(name).map(|v| self.bytes_of(name, v)).transpose()
    }

    fn array_of(&self, name: &str, v: &'a Value) -> Result<&'a [Value]> {
        match v {
            Value::Array(items) => Ok(items),
            other => Err(self.err(name, format!("expected an array, found {other:?}"))),
        }
    }

    #[cfg(test)]
    fn opt_str_array(&self, name: &str) -> Result<Option<Vec<String>>> {
        let Some(v) = self.opt(name) else {
            return Ok(None);
        };
        self.array_of(name, v)?
            .iter()
            .map(|item| self.str_of(name, plain(item)).map(String::from))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    #[cfg(test)]
    fn opt_long_array(&self, name: &str) -> Result<Option<Vec<i64>>> {
        let Some(v) = self.opt(name) else {
            return Ok(None);
        };
        self.array_of(name, v)?
            .iter()
            .map(|item| self.long_of(name, plain(item)))
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    fn kind(&self) -> Result<FileKind> {
        match self.req_long("_KIND")? {
            0 => Ok(FileKind::Add),
            1 => Ok(FileKind::Delete),
            k => Err(self.err("_KIND", format!("unknown file kind {k}"))),
        }
    }

    fn stats(&self, name: &'a str, path: &'a str) -> Result<SimpleStats> {
        let rec = Rec::new(self.file, path, self.req(name)?)?;
        let null_counts = match rec.opt("_NULL_COUNTS") {
            None => Vec::new(),
            Some(v) => rec
                .array_of("_NULL_COUNTS", v)?
                .iter()
                .map(|item| match plain(item) {
                    Value::Null => Ok(None),
                    other => rec.long_of("_NULL_COUNTS", other).map(Some),
                })
                .collect::<Result<Vec<_>>>()?,
        };
        Ok(SimpleStats {
            min_values: rec.req_bytes("_MIN_VALUES")?,
            max_values: rec.req_bytes("_MAX_VALUES")?,
            null_counts,
        })
    }
}

/// Decodes a manifest list (`manifest/manifest-list-…`).
pub fn decode_manifest_list(file_name: &str, bytes: &[u8]) -> Result<Vec<ManifestFileMeta>> {
    decode_records(file_name, bytes, |v| {
        let r = Rec::new(file_name, "", v)?;
        Ok(Some(ManifestFileMeta {
            file_name: r.req_str("_FILE_NAME")?,
            file_size: r.req_long("_FILE_SIZE")?,
            num_added_files: r.req_long("_NUM_ADDED_FILES")?,
            num_deleted_files: r.req_long("_NUM_DELETED_FILES")?,
            partition_stats: r.stats("_PARTITION_STATS", "_PARTITION_STATS.")?,
            schema_id: r.req_long("_SCHEMA_ID")?,
            min_bucket: r.opt_int("_MIN_BUCKET")?,
            max_bucket: r.opt_int("_MAX_BUCKET")?,
            min_level: r.opt_int("_MIN_LEVEL")?,
            max_level: r.opt_int("_MAX_LEVEL")?,
            min_row_id: r.opt_long("_MIN_ROW_ID")?,
            max_row_id: r.opt_long("_MAX_ROW_ID")?,
            total_buckets: r.opt_int("_TOTAL_BUCKETS")?,
        }))
    })
}

/// Decodes an index manifest (`manifest/index-manifest-…`).
pub fn decode_index_manifest(file_name: &str, bytes: &[u8]) -> Result<Vec<IndexManifestEntry>> {
    decode_records(file_name, bytes, |v| {
        let r = Rec::new(file_name, "", v)?;
        let deletion_vectors = match r.opt("_DELETIONS_VECTORS_RANGES") {
            None => None,
            Some(arr) => Some(
                r.array_of("_DELETIONS_VECTORS_RANGES", arr)?
                    .iter()
                    .filter(|item| !matches!(plain(item), Value::Null))
                    .map(|item| {
                        let d = Rec::new(file_name, "_DELETIONS_VECTORS_RANGES.", item)?;
                        Ok(DeletionVectorMeta {
                            data_file_name: d.req_str("f0")?,
                            offset: d.req_int("f1")?,
                            length: d.req_int("f2")?,
                            cardinality: d.opt_long("_CARDINALITY")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(Some(IndexManifestEntry {
            kind: r.kind()?,
            partition: r.req_bytes("_PARTITION")?,
            bucket: r.req_int("_BUCKET")?,
            index_type: r.req_str("_INDEX_TYPE")?,
            file_name: r.req_str("_FILE_NAME")?,
            file_size: r.req_long("_FILE_SIZE")?,
            row_count: r.req_long("_ROW_COUNT")?,
            deletion_vectors,
            external_path: r.opt_str("_EXTERNAL_PATH")?,
        }))
    })
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod equivalence_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::{Schema, Writer};

    const LIST_SCHEMA: &str = r#"["null", {"type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated", "fields": [
        {"name": "_VERSION", "type": "int"},
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_NUM_ADDED_FILES", "type": "long"},
        {"name": "_NUM_DELETED_FILES", "type": "long"},
        {"name": "_PARTITION_STATS", "type": {"type": "record", "name": "record__PARTITION_STATS", "fields": [
            {"name": "_MIN_VALUES", "type": "bytes"},
            {"name": "_MAX_VALUES", "type": "bytes"},
            {"name": "_NULL_COUNTS", "type": ["null", {"type": "array", "items": ["null", "long"]}]}]}},
        {"name": "_SCHEMA_ID", "type": "long"}]}]"#;

    fn list_record(name: &str, with_schema_id: bool) -> Value {
        let mut fields = vec![
            ("_VERSION".to_string(), Value::Int(2)),
            ("_FILE_NAME".to_string(), Value::String(name.into())),
            ("_FILE_SIZE".to_string(), Value::Long(10)),
            ("_NUM_ADDED_FILES".to_string(), Value::Long(2)),
            ("_NUM_DELETED_FILES".to_string(), Value::Long(1)),
            (
                "_PARTITION_STATS".to_string(),
                Value::Record(vec![
                    ("_MIN_VALUES".into(), Value::Bytes(vec![0, 0, 0, 0])),
                    ("_MAX_VALUES".into(), Value::Bytes(vec![0, 0, 0, 0])),
                    (
                        "_NULL_COUNTS".into(),
                        Value::Union(
                            1,
                            Box::new(Value::Array(vec![
                                Value::Union(1, Box::new(Value::Long(0))),
                                Value::Union(0, Box::new(Value::Null)),
                            ])),
                        ),
                    ),
                ]),
            ),
        ];
        if with_schema_id {
            fields.push(("_SCHEMA_ID".to_string(), Value::Long(3)));
        }
        Value::Union(1, Box::new(Value::Record(fields)))
    }

    fn avro_file(records: Vec<Value>) -> Vec<u8> {
        let schema = Schema::parse_str(LIST_SCHEMA).unwrap();
        let mut w = Writer::new(&schema, Vec::new()).unwrap();
        for r in records {
            w.append_value(r).unwrap();
        }
        w.into_inner().unwrap()
    }

    #[test]
    fn decodes_java09_style_manifest_list() {
        let bytes = avro_file(vec![
            list_record("manifest-a-0", true),
            list_record("manifest-b-0", true),
        ]);
        let metas = decode_manifest_list("manifest-list-x", &bytes).unwrap();
        assert_eq!(metas.len(), 2);
        assert_eq!(metas[1].file_name, "manifest-b-0");
        assert_eq!(metas[0].schema_id, 3);
        assert_eq!(metas[0].num_deleted_files, 1);
        assert_eq!(metas[0].partition_stats.null_counts, vec![Some(0), None]);
        assert_eq!(metas[0].min_bucket, None);
        assert_eq!(metas[0].total_buckets, None);
    }

    #[test]
    fn a_manifest_block_with_bytes_after_its_records_is_corrupt() {
        let entry = |name: &str| ManifestEntry {
            kind: FileKind::Add,
            partition: vec![1],
            bucket: 0,
            total_buckets: None,
            file: std::sync::Arc::new(DataFileMeta {
                file_name: name.into(),
                ..DataFileMeta::default()
            }),
        };
        let mut bytes = crate::write::manifest::encode_manifest(
            "m",
            &[entry("a"), entry("b")],
            apache_avro::Codec::Null,
        )
        .unwrap();
        assert_eq!(decode_manifest("m", &bytes).unwrap().len(), 2);
        // The header ends with the sync marker (also the file's last 16 bytes); the one block's
        // record count, zigzag-encoded, follows it: say 1 record instead of 2.
        let sync = bytes[bytes.len() - 16..].to_vec();
        let count_at = bytes.windows(16).position(|w| w == sync).unwrap() + 16;
        assert_eq!(bytes[count_at], 4);
        bytes[count_at] = 2;
        let err = decode_manifest("m", &bytes).unwrap_err().to_string();
        assert!(
            err.starts_with("m: invalid Avro file: ")
                && err.ends_with(" bytes after the 1 records of a block"),
            "{err}"
        );
    }

    #[test]
    fn errors_name_the_file() {
        let bytes = avro_file(vec![list_record("m", true)]);
        for cut in [0, 5, bytes.len() / 2, bytes.len() - 3] {
            let err = decode_manifest_list("manifest-list-cut", &bytes[..cut]).unwrap_err();
            assert!(
                matches!(err, Error::Corrupt { ref file, .. } if file == "manifest-list-cut"),
                "{err}"
            );
        }
        // A data manifest decoder on a manifest list: the partition, read first, is missing.
        let err = decode_manifest("manifest-list-y", &bytes).unwrap_err();
        assert!(
            err.to_string().contains("manifest-list-y") && err.to_string().contains("_PARTITION"),
            "{err}"
        );
        let err = decode_index_manifest("idx", b"not avro at all").unwrap_err();
        assert!(err.to_string().starts_with("idx: "), "{err}");
    }
}
