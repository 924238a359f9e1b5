//! Manifest lists and manifests (Avro), v1 to v3: fields are looked up by name, nulls inherited.

use crate::{Error, Result};
use apache_avro::types::Value;

/// What a manifest (and its files) holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataContentType {
    /// Rows.
    Data,
    /// Position deletes (file path + row position, or a deletion vector).
    PositionDeletes,
    /// Equality deletes (rows whose equality columns match are deleted).
    EqualityDeletes,
}

impl DataContentType {
    fn from_int(file: &str, v: i64) -> Result<Self> {
        match v {
            0 => Ok(Self::Data),
            1 => Ok(Self::PositionDeletes),
            2 => Ok(Self::EqualityDeletes),
            other => Err(Error::corrupt(
                file,
                format!("unknown content type {other}"),
            )),
        }
    }
}

/// The format of a data or delete file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// `PARQUET`: Apache Parquet.
    Parquet,
    /// `AVRO`: Apache Avro object-container files.
    Avro,
    /// `ORC`: Apache ORC.
    Orc,
    /// `PUFFIN`: a Puffin file; in a manifest, it holds v3 deletion vectors.
    Puffin,
}

impl FileFormat {
    fn parse(file: &str, s: &str) -> Result<Self> {
        match s.to_ascii_uppercase().as_str() {
            "PARQUET" => Ok(Self::Parquet),
            "AVRO" => Ok(Self::Avro),
            "ORC" => Ok(Self::Orc),
            "PUFFIN" => Ok(Self::Puffin),
            other => Err(Error::unsupported(file, format!("file format {other}"))),
        }
    }
}

/// One entry of a manifest list: a manifest file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// `manifest_path`: the manifest file's location (absolute URI as written).
    pub manifest_path: String,
    /// `manifest_length`: the manifest file's size in bytes (0 when the entry lacks it).
    pub manifest_length: i64,
    /// `partition_spec_id`: the id of the partition spec the manifest's files were written with
    /// (0 when the entry lacks it, as in some v1 lists).
    pub partition_spec_id: i32,
    /// `content`: whether the manifest lists data files or delete files (v1: always data).
    pub content: DataContentType,
    /// `sequence_number`: the data sequence number of the commit that added the manifest; its
    /// ADDED entries with a null sequence number inherit it. v2+; 0 in v1.
    pub sequence_number: i64,
    /// `min_sequence_number`: the smallest data sequence number of the manifest's live files;
    /// v2+, in v1 the manifest's `sequence_number` (0).
    pub min_sequence_number: i64,
    /// `added_snapshot_id`: the snapshot that added the manifest; its entries with a null
    /// `snapshot_id` inherit it.
    pub added_snapshot_id: i64,
    /// `added_files_count`: how many entries have status ADDED (`None`: not written).
    pub added_files_count: Option<i32>,
    /// `existing_files_count`: how many entries have status EXISTING (`None`: not written).
    pub existing_files_count: Option<i32>,
    /// `deleted_files_count`: how many entries have status DELETED (`None`: not written).
    pub deleted_files_count: Option<i32>,
    /// `added_rows_count`: the sum of `record_count` of the ADDED files (`None`: not written).
    pub added_rows_count: Option<i64>,
    /// `existing_rows_count`: the sum of `record_count` of the EXISTING files (`None`: not
    /// written).
    pub existing_rows_count: Option<i64>,
    /// `deleted_rows_count`: the sum of `record_count` of the DELETED files (`None`: not written).
    pub deleted_rows_count: Option<i64>,
    /// `first_row_id` (v3 row lineage): the first row id of the manifest's data files without
    /// their own; `None` before v3.
    pub first_row_id: Option<i64>,
}

/// A partition or bound value, as stored in a manifest.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A `boolean` value.
    Boolean(bool),
    /// An `int` value, or a `date` (days since 1970-01-01).
    Int(i32),
    /// A `long` value, or a `time` or a timestamp of any kind (microseconds, nanoseconds for the v3
    /// `_ns` types).
    Long(i64),
    /// A `float` value.
    Float(f32),
    /// A `double` value.
    Double(f64),
    /// A `string` value, or a `uuid` written as an Avro `uuid` string.
    String(String),
    /// A `binary` or `fixed[L]` value (and a `uuid` stored as 16 bytes).
    Bytes(Vec<u8>),
    /// Unscaled decimal value.
    Decimal(i128),
}

/// Status of a manifest entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 0, EXISTING: the file was already in the table and is carried over from an earlier manifest.
    Existing,
    /// 1, ADDED: the snapshot that wrote this manifest added the file.
    Added,
    /// 2, DELETED: the snapshot that wrote this manifest removed the file (kept as a tombstone).
    Deleted,
}

/// One entry of a manifest: a data or delete file with its status and sequence numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestEntry {
    /// `status`: whether this manifest's snapshot added, kept or removed the file.
    pub status: Status,
    /// `snapshot_id`: the snapshot that added or removed the file (null: inherited from the
    /// manifest's `added_snapshot_id`).
    pub snapshot_id: i64,
    /// `sequence_number`: the data sequence number of the file's rows, which decides which
    /// delete files apply to it (null: inherited from the manifest; 0 in v1).
    pub sequence_number: i64,
    /// `file_sequence_number`: the sequence number of the commit that added the file, even when
    /// it kept an older data sequence number (null: inherited from the manifest; 0 in v1).
    pub file_sequence_number: i64,
    /// `data_file`: the file itself.
    pub data_file: DataFile,
}

/// A data or delete file.
#[derive(Debug, Clone, PartialEq)]
pub struct DataFile {
    /// `content`: data, position deletes or equality deletes (always data in v1).
    pub content: DataContentType,
    /// `file_path`: the file's location (absolute URI as written).
    pub file_path: String,
    /// `file_format`: the file's format (`file_format`, e.g. `PARQUET`).
    pub file_format: FileFormat,
    /// `partition`: the partition tuple, `(name, value)` in the order of the manifest's spec
    /// fields (`None`: null).
    pub partition: Vec<(String, Option<Literal>)>,
    /// `record_count`: the number of rows in the file (of deletes in a delete file).
    pub record_count: i64,
    /// `file_size_in_bytes`: the file's total size in bytes.
    pub file_size_in_bytes: i64,
    /// `equality_ids`: the field ids an equality delete file matches rows on (empty otherwise).
    pub equality_ids: Vec<i32>,
    /// `referenced_data_file`: the one data file a position delete file or deletion vector
    /// applies to, when it applies to one file only (v2+, optional; always set for v3 deletion
    /// vectors).
    pub referenced_data_file: Option<String>,
    /// `content_offset` (v3 deletion vectors): where the deletion-vector blob starts in the
    /// Puffin file, in bytes.
    pub content_offset: Option<i64>,
    /// `content_size_in_bytes` (v3 deletion vectors): the blob's length in bytes.
    pub content_size_in_bytes: Option<i64>,
    /// `first_row_id` (v3 row lineage): the `_row_id` of the file's first row (inherited when
    /// null, see [`read_manifest`]).
    pub first_row_id: Option<i64>,
}

/// Reads the records of an Avro object-container file.
fn read_avro(file: &str, bytes: &[u8]) -> Result<Vec<Value>> {
    let bytes =
        lakescope_format::read::avro_container::readable_now(file, bytes).map_err(Error::Data)?;
    let reader = lakescope_format::spec::avro_names::reader(&bytes[..])
        .map_err(|e| Error::corrupt(file, format!("invalid Avro file: {e}")))?;
    reader
        .map(|r| r.map_err(|e| Error::corrupt(file, format!("invalid Avro record: {e}"))))
        .collect()
}

fn plain(v: &Value) -> &Value {
    let mut v = v;
    while let Value::Union(_, inner) = v {
        v = inner;
    }
    v
}

/// A record being read, with the file name for messages.
struct Rec<'a> {
    file: &'a str,
    fields: &'a [(String, Value)],
}

impl<'a> Rec<'a> {
    fn new(file: &'a str, what: &str, v: &'a Value) -> Result<Self> {
        match plain(v) {
            Value::Record(fields) => Ok(Rec { file, fields }),
            _ => Err(Error::corrupt(file, format!("{what} is not a record"))),
        }
    }

    fn opt(&self, name: &str) -> Option<&'a Value> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| plain(v))
            .filter(|v| !matches!(v, Value::Null))
    }

    fn missing(&self, name: &str) -> Error {
        Error::corrupt(self.file, format!("manifest record without field '{name}'"))
    }

    fn opt_long(&self, name: &str) -> Result<Option<i64>> {
        match self.opt(name) {
            None => Ok(None),
            Some(Value::Long(x)) => Ok(Some(*x)),
            Some(Value::Int(x)) => Ok(Some(i64::from(*x))),
            Some(other) => Err(Error::corrupt(
                self.file,
                format!("field '{name}' is not an integer: {other:?}"),
            )),
        }
    }

    fn long(&self, name: &str) -> Result<i64> {
        self.opt_long(name)?.ok_or_else(|| self.missing(name))
    }

    fn opt_int(&self, name: &str) -> Result<Option<i32>> {
        Ok(self.opt_long(name)?.and_then(|v| i32::try_from(v).ok()))
    }

    fn string(&self, name: &str) -> Result<String> {
        match self.opt(name) {
            Some(Value::String(s)) | Some(Value::Enum(_, s)) => Ok(s.clone()),
            Some(other) => Err(Error::corrupt(
                self.file,
                format!("field '{name}' is not a string: {other:?}"),
            )),
            None => Err(self.missing(name)),
        }
    }

    fn opt_string(&self, name: &str) -> Option<String> {
        match self.opt(name) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Decodes a manifest list (`snap-….avro`).
pub fn read_manifest_list(file: &str, bytes: &[u8]) -> Result<Vec<ManifestFile>> {
    let records = read_avro(file, bytes)?;
    records
        .iter()
        .map(|r| {
            let rec = Rec::new(file, "manifest list entry", r)?;
            let content = match rec.opt_long("content")? {
                Some(c) => DataContentType::from_int(file, c)?,
                None => DataContentType::Data,
            };
            let sequence_number = rec.opt_long("sequence_number")?.unwrap_or(0);
            Ok(ManifestFile {
                manifest_path: rec.string("manifest_path")?,
                manifest_length: rec.opt_long("manifest_length")?.unwrap_or(0),
                partition_spec_id: rec.opt_int("partition_spec_id")?.unwrap_or(0),
                content,
                sequence_number,
                min_sequence_number: rec
                    .opt_long("min_sequence_number")?
                    .unwrap_or(sequence_number),
                added_snapshot_id: rec.opt_long("added_snapshot_id")?.unwrap_or(0),
                added_files_count: rec.opt_int("added_files_count")?,
                existing_files_count: rec.opt_int("existing_files_count")?,
                deleted_files_count: rec.opt_int("deleted_files_count")?,
                added_rows_count: rec.opt_long("added_rows_count")?,
                existing_rows_count: rec.opt_long("existing_rows_count")?,
                deleted_rows_count: rec.opt_long("deleted_rows_count")?,
                first_row_id: rec.opt_long("first_row_id")?,
            })
        })
        .collect()
}

fn literal(file: &str, name: &str, v: &Value) -> Result<Option<Literal>> {
    Ok(Some(match plain(v) {
        Value::Null => return Ok(None),
        Value::Boolean(b) => Literal::Boolean(*b),
        Value::Int(x) | Value::Date(x) | Value::TimeMillis(x) => Literal::Int(*x),
        Value::Long(x)
        | Value::TimeMicros(x)
        | Value::TimestampMillis(x)
        | Value::TimestampMicros(x)
        | Value::TimestampNanos(x)
        | Value::LocalTimestampMillis(x)
        | Value::LocalTimestampMicros(x)
        | Value::LocalTimestampNanos(x) => Literal::Long(*x),
        Value::Float(x) => Literal::Float(*x),
        Value::Double(x) => Literal::Double(*x),
        Value::String(s) => Literal::String(s.clone()),
        Value::Uuid(u) => Literal::String(u.to_string()),
        Value::Bytes(b) | Value::Fixed(_, b) => Literal::Bytes(b.clone()),
        Value::Decimal(d) => {
            let bytes: Vec<u8> = d
                .try_into()
                .map_err(|e| Error::corrupt(file, format!("partition field {name}: {e}")))?;
            let v = lakescope_decimal(&bytes).ok_or_else(|| {
                Error::corrupt(file, format!("partition field {name}: decimal too long"))
            })?;
            Literal::Decimal(v)
        }
        other => {
            return Err(Error::corrupt(
                file,
                format!("partition field {name}: unsupported value {other:?}"),
            ))
        }
    }))
}

/// Big-endian two's complement → i128.
fn lakescope_decimal(bytes: &[u8]) -> Option<i128> {
    if bytes.len() > 16 {
        return None;
    }
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut buf = [if negative { 0xff } else { 0 }; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}

/// Decodes a manifest, inheriting null snapshot ids and sequence numbers from `manifest`, and
/// null `first_row_id`s of live data files from the manifest's (spec "First Row ID
/// Inheritance": the manifest's `first_row_id` plus the record counts of the preceding live
/// data files that had none; a manifest without one leaves every file without one).
pub fn read_manifest(
    file: &str,
    bytes: &[u8],
    manifest: &ManifestFile,
) -> Result<Vec<ManifestEntry>> {
    let records = read_avro(file, bytes)?;
    let mut next_row_id = manifest.first_row_id;
    records
        .iter()
        .map(|r| {
            let rec = Rec::new(file, "manifest entry", r)?;
            let status = match rec.long("status")? {
                0 => Status::Existing,
                1 => Status::Added,
                2 => Status::Deleted,
                other => {
                    return Err(Error::corrupt(
                        file,
                        format!("unknown entry status {other}"),
                    ))
                }
            };
            let df = rec
                .opt("data_file")
                .ok_or_else(|| rec.missing("data_file"))?;
            let df = Rec::new(file, "data_file", df)?;
            let content = match df.opt_long("content")? {
                Some(c) => DataContentType::from_int(file, c)?,
                None => DataContentType::Data,
            };
            let partition = match df.opt("partition") {
                Some(Value::Record(fields)) => fields
                    .iter()
                    .map(|(n, v)| Ok((n.clone(), literal(file, n, v)?)))
                    .collect::<Result<Vec<_>>>()?,
                _ => Vec::new(),
            };
            let equality_ids = match df.opt("equality_ids") {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|v| match plain(v) {
                        Value::Int(x) => Some(*x),
                        Value::Long(x) => i32::try_from(*x).ok(),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            // Null sequence numbers are inherited from the manifest (only valid for ADDED).
            let sequence_number = rec
                .opt_long("sequence_number")?
                .unwrap_or(manifest.sequence_number);
            let file_sequence_number = rec
                .opt_long("file_sequence_number")?
                .unwrap_or(manifest.sequence_number);
            let record_count = df.long("record_count")?;
            let first_row_id = match (next_row_id.as_mut(), df.opt_long("first_row_id")?) {
                (None, _) => None,
                // Always null for delete files.
                (Some(_), _) if content != DataContentType::Data => None,
                (Some(_), Some(own)) => Some(own),
                (Some(_), None) if status == Status::Deleted => None,
                (Some(next), None) => {
                    let first = *next;
                    *next = next.checked_add(record_count).ok_or_else(|| {
                        Error::corrupt(file, "first_row_id overflows past i64::MAX")
                    })?;
                    Some(first)
                }
            };
            let file_path = df.string("file_path")?;
            if df.opt("key_metadata").is_some() {
                return Err(Error::unsupported(
                    file,
                    format!("encrypted file {file_path} (key_metadata is set)"),
                ));
            }
            Ok(ManifestEntry {
                status,
                snapshot_id: rec
                    .opt_long("snapshot_id")?
                    .unwrap_or(manifest.added_snapshot_id),
                sequence_number,
                file_sequence_number,
                data_file: DataFile {
                    content,
                    file_path,
                    file_format: FileFormat::parse(file, &df.string("file_format")?)?,
                    partition,
                    record_count,
                    file_size_in_bytes: df.long("file_size_in_bytes")?,
                    equality_ids,
                    referenced_data_file: df.opt_string("referenced_data_file"),
                    content_offset: df.opt_long("content_offset")?,
                    content_size_in_bytes: df.opt_long("content_size_in_bytes")?,
                    first_row_id,
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest-list entry of `content` for `m.avro`, all counts unknown.
    fn manifest_file(content: DataContentType) -> ManifestFile {
        ManifestFile {
            manifest_path: "m.avro".into(),
            manifest_length: 0,
            partition_spec_id: 0,
            content,
            sequence_number: 1,
            min_sequence_number: 1,
            added_snapshot_id: 1,
            added_files_count: None,
            existing_files_count: None,
            deleted_files_count: None,
            added_rows_count: None,
            existing_rows_count: None,
            deleted_rows_count: None,
            first_row_id: None,
        }
    }

    #[test]
    fn not_avro_is_a_named_error() {
        let m = manifest_file(DataContentType::Data);
        let err = read_manifest("metadata/x-m0.avro", b"garbage", &m).unwrap_err();
        assert!(err.to_string().contains("metadata/x-m0.avro"), "{err}");
        let err = read_manifest_list("snap-1.avro", b"Obj\x01trunc").unwrap_err();
        assert!(err.to_string().contains("snap-1.avro"), "{err}");
    }

    /// Java `ManifestReader.idAssigner`: live data files without a first row id take the
    /// manifest's plus the record counts of the earlier ones that had none; deleted entries
    /// take none and do not count; a manifest without one leaves every file without one.
    #[test]
    fn first_row_ids_are_inherited_by_live_data_files() {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type":"record","name":"manifest_entry","fields":[
              {"name":"status","type":"int"},
              {"name":"data_file","type":{"type":"record","name":"r2","fields":[
                {"name":"file_path","type":"string"},
                {"name":"file_format","type":"string"},
                {"name":"record_count","type":"long"},
                {"name":"file_size_in_bytes","type":"long"},
                {"name":"first_row_id","type":["null","long"]}]}}]}"#,
        )
        .unwrap();
        let mut w = apache_avro::Writer::new(&schema, Vec::new()).unwrap();
        // (status, record count, own first row id)
        for (status, rows, own) in [(1, 3, None), (2, 5, None), (0, 2, Some(50)), (1, 4, None)] {
            let own = match own {
                Some(v) => Value::Union(1, Box::new(Value::Long(v))),
                None => Value::Union(0, Box::new(Value::Null)),
            };
            w.append_value(Value::Record(vec![
                ("status".into(), Value::Int(status)),
                (
                    "data_file".into(),
                    Value::Record(vec![
                        ("file_path".into(), Value::String("d.parquet".into())),
                        ("file_format".into(), Value::String("PARQUET".into())),
                        ("record_count".into(), Value::Long(rows)),
                        ("file_size_in_bytes".into(), Value::Long(1)),
                        ("first_row_id".into(), own),
                    ]),
                ),
            ]))
            .unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let ids = |first_row_id| {
            let m = ManifestFile {
                first_row_id,
                ..manifest_file(DataContentType::Data)
            };
            read_manifest("m.avro", &bytes, &m)
                .unwrap()
                .iter()
                .map(|e| e.data_file.first_row_id)
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(Some(100)), [Some(100), None, Some(50), Some(103)]);
        assert_eq!(ids(None), [None, None, None, None]);
    }

    #[test]
    fn decimals_sign_extend() {
        assert_eq!(lakescope_decimal(&[0xff, 0x38]), Some(-200));
        assert_eq!(lakescope_decimal(&[]), Some(0));
    }

    #[test]
    fn encrypted_files_are_refused_by_name() {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type":"record","name":"manifest_entry","fields":[
              {"name":"status","type":"int"},
              {"name":"data_file","type":{"type":"record","name":"r2","fields":[
                {"name":"content","type":"int"},
                {"name":"file_path","type":"string"},
                {"name":"file_format","type":"string"},
                {"name":"partition","type":{"type":"record","name":"r102","fields":[]}},
                {"name":"record_count","type":"long"},
                {"name":"file_size_in_bytes","type":"long"},
                {"name":"key_metadata","type":["null","bytes"]}]}}]}"#,
        )
        .unwrap();
        let write = |key: Option<Vec<u8>>| {
            let mut w = apache_avro::Writer::new(&schema, Vec::new()).unwrap();
            let key = match key {
                Some(k) => Value::Union(1, Box::new(Value::Bytes(k))),
                None => Value::Union(0, Box::new(Value::Null)),
            };
            w.append_value(Value::Record(vec![
                ("status".into(), Value::Int(1)),
                (
                    "data_file".into(),
                    Value::Record(vec![
                        ("content".into(), Value::Int(1)),
                        (
                            "file_path".into(),
                            Value::String("s3://b/t/data/d.parquet".into()),
                        ),
                        ("file_format".into(), Value::String("PARQUET".into())),
                        ("partition".into(), Value::Record(vec![])),
                        ("record_count".into(), Value::Long(1)),
                        ("file_size_in_bytes".into(), Value::Long(1)),
                        ("key_metadata".into(), key),
                    ]),
                ),
            ]))
            .unwrap();
            w.into_inner().unwrap()
        };
        let m = manifest_file(DataContentType::PositionDeletes);
        assert_eq!(read_manifest("m.avro", &write(None), &m).unwrap().len(), 1);
        let err = read_manifest("m.avro", &write(Some(vec![1, 2, 3])), &m)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("m.avro") && err.contains("data/d.parquet") && err.contains("encrypted"),
            "{err}"
        );
    }
}
