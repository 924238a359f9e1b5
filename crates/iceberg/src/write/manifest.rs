//! Encoding v2 manifests and manifest lists (Avro, with the spec's field ids and file metadata).

use super::partition::{avro_partition, avro_partition_schema, PartitionTuple, SpecField};
use super::stats::ColumnStats;
use crate::spec::manifest::{ManifestEntry, Status};
use crate::spec::{DataContentType, ManifestFile, PartitionSpec, Schema};
use crate::{Error, Result};
use apache_avro::schema::UnionSchema;
use apache_avro::types::Value;
use apache_avro::{Codec, Schema as AvroSchema, Writer};
use serde_json::{json, Value as Json};

/// A data or delete file written by this commit, as its manifest entry describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFile {
    /// Data, position deletes or equality deletes (the entry's `content`).
    pub content: DataContentType,
    /// Absolute URI (under the table location).
    pub path: String,
    /// The file's partition values, in the order of the spec's fields.
    pub partition: PartitionTuple,
    /// The number of rows in the file (`record_count`).
    pub record_count: i64,
    /// The file's size in bytes (`file_size_in_bytes`).
    pub file_size_in_bytes: i64,
    /// Field ids of an equality delete file (empty otherwise).
    pub equality_ids: Vec<i32>,
    /// Column metrics.
    pub stats: ColumnStats,
}

fn optional(id: i32, name: &str, t: Json) -> Json {
    json!({"field-id": id, "default": null, "name": name, "type": ["null", t]})
}

fn required(id: i32, name: &str, t: Json) -> Json {
    json!({"field-id": id, "name": name, "type": t})
}

/// An Iceberg map with int keys as Avro sees it: an array of key/value records.
fn map_type(key_id: i32, value_id: i32, value: &str) -> Json {
    json!({"type": "array", "logicalType": "map", "items": {
        "type": "record", "name": format!("k{key_id}_v{value_id}"), "fields": [
            required(key_id, "key", json!("int")), required(value_id, "value", json!(value))]}})
}

/// Puts back `logicalType: map` on arrays of key/value records: the Avro crate's parser drops
/// it, and readers need it to see those arrays as maps.
fn mark_maps(schema: &mut AvroSchema) {
    match schema {
        AvroSchema::Record(r) => r.fields.iter_mut().for_each(|f| mark_maps(&mut f.schema)),
        AvroSchema::Union(u) => {
            let mut variants = u.variants().to_vec();
            variants.iter_mut().for_each(mark_maps);
            if let Ok(marked) = UnionSchema::new(variants) {
                *u = marked;
            }
        }
        AvroSchema::Array(a) => {
            let kv = matches!(a.items.as_ref(), AvroSchema::Record(r)
                if r.fields.len() == 2 && r.fields[0].name == "key" && r.fields[1].name == "value");
            if kv {
                a.attributes.insert("logicalType".into(), json!("map"));
            }
        }
        _ => {}
    }
}

/// The v2 `manifest_entry` schema with this partition record (without the optional column
/// sizes, NaN counts, key metadata and split offsets, which are not written).
fn entry_schema(partition: Json) -> Json {
    let data_file = json!({"type": "record", "name": "r2", "fields": [
        required(134, "content", json!("int")),
        required(100, "file_path", json!("string")),
        required(101, "file_format", json!("string")),
        required(102, "partition", partition),
        required(103, "record_count", json!("long")),
        required(104, "file_size_in_bytes", json!("long")),
        optional(109, "value_counts", map_type(119, 120, "long")),
        optional(110, "null_value_counts", map_type(121, 122, "long")),
        optional(125, "lower_bounds", map_type(126, 127, "bytes")),
        optional(128, "upper_bounds", map_type(129, 130, "bytes")),
        optional(131, "key_metadata", json!("bytes")),
        optional(132, "split_offsets", json!({"type": "array", "element-id": 133, "items": "long"})),
        optional(135, "equality_ids", json!({"type": "array", "element-id": 136, "items": "int"})),
        optional(140, "sort_order_id", json!("int")),
    ]});
    json!({"type": "record", "name": "manifest_entry", "fields": [
        required(0, "status", json!("int")),
        optional(1, "snapshot_id", json!("long")),
        optional(3, "sequence_number", json!("long")),
        optional(4, "file_sequence_number", json!("long")),
        required(2, "data_file", data_file),
    ]})
}

/// The v2 `manifest_file` schema of manifest lists.
fn list_schema() -> Json {
    let summary = json!({"type": "record", "name": "r508", "fields": [
        required(509, "contains_null", json!("boolean")),
        optional(518, "contains_nan", json!("boolean")),
        optional(510, "lower_bound", json!("bytes")),
        optional(511, "upper_bound", json!("bytes")),
    ]});
    json!({"type": "record", "name": "manifest_file", "fields": [
        required(500, "manifest_path", json!("string")),
        required(501, "manifest_length", json!("long")),
        required(502, "partition_spec_id", json!("int")),
        required(517, "content", json!("int")),
        required(515, "sequence_number", json!("long")),
        required(516, "min_sequence_number", json!("long")),
        required(503, "added_snapshot_id", json!("long")),
        required(504, "added_files_count", json!("int")),
        required(505, "existing_files_count", json!("int")),
        required(506, "deleted_files_count", json!("int")),
        required(512, "added_rows_count", json!("long")),
        required(513, "existing_rows_count", json!("long")),
        required(514, "deleted_rows_count", json!("long")),
        optional(507, "partitions", json!({"type": "array", "element-id": 508, "items": summary})),
        optional(519, "key_metadata", json!("bytes")),
    ]})
}

fn some(v: Value) -> Value {
    Value::Union(1, Box::new(v))
}

fn none() -> Value {
    Value::Union(0, Box::new(Value::Null))
}

fn int_map<T>(pairs: &[(i32, T)], value: impl Fn(&T) -> Value) -> Value {
    some(Value::Array(
        pairs
            .iter()
            .map(|(k, v)| {
                Value::Record(vec![
                    ("key".into(), Value::Int(*k)),
                    ("value".into(), value(v)),
                ])
            })
            .collect(),
    ))
}

fn content_code(c: DataContentType) -> i32 {
    match c {
        DataContentType::Data => 0,
        DataContentType::PositionDeletes => 1,
        DataContentType::EqualityDeletes => 2,
    }
}

fn write_avro(
    file: &str,
    schema: &Json,
    metadata: &[(&str, String)],
    records: Vec<Value>,
) -> Result<Vec<u8>> {
    let err = |e: apache_avro::Error| Error::corrupt(file, format!("writing Avro: {e}"));
    let mut schema = AvroSchema::parse(schema).map_err(err)?;
    mark_maps(&mut schema);
    let mut w =
        Writer::with_codec(&schema, Vec::new(), Codec::Deflate(Default::default())).map_err(err)?;
    for (k, v) in metadata {
        w.add_user_metadata((*k).to_string(), v).map_err(err)?;
    }
    for r in records {
        w.append_value(r).map_err(err)?;
    }
    w.into_inner().map_err(err)
}

/// What a manifest is written for: the table schema and partition spec it describes.
pub struct ManifestContext<'a> {
    /// The table schema, written into the manifest's Avro metadata (`schema`, `schema-id`).
    pub schema: &'a Schema,
    /// The partition spec of the files, written into the metadata (`partition-spec`,
    /// `partition-spec-id`).
    pub spec: &'a PartitionSpec,
    /// The spec's fields resolved against the schema: they shape the `partition` record.
    pub fields: &'a [SpecField],
    /// The committing snapshot's id, written as each entry's `snapshot_id`.
    pub snapshot_id: i64,
}

/// Encodes a manifest of ADDED entries (data files, or delete files if `deletes`); sequence
/// numbers are left null so they are inherited from the manifest list.
pub fn encode_manifest(
    file: &str,
    ctx: &ManifestContext<'_>,
    deletes: bool,
    files: &[NewFile],
) -> Result<Vec<u8>> {
    let schema = entry_schema(avro_partition_schema(ctx.fields)?);
    let json_err =
        |e: serde_json::Error| Error::Invalid(format!("{file}: serializing metadata: {e}"));
    let metadata = [
        (
            "schema",
            serde_json::to_string(ctx.schema).map_err(json_err)?,
        ),
        ("schema-id", ctx.schema.schema_id.to_string()),
        (
            "partition-spec",
            serde_json::to_string(&ctx.spec.fields).map_err(json_err)?,
        ),
        ("partition-spec-id", ctx.spec.spec_id.to_string()),
        ("format-version", "2".to_string()),
        (
            "content",
            if deletes { "deletes" } else { "data" }.to_string(),
        ),
    ];
    let records = files
        .iter()
        .map(|f| {
            let equality_ids = if f.equality_ids.is_empty() {
                none()
            } else {
                some(Value::Array(
                    f.equality_ids.iter().map(|i| Value::Int(*i)).collect(),
                ))
            };
            let data_file = Value::Record(vec![
                ("content".into(), Value::Int(content_code(f.content))),
                ("file_path".into(), Value::String(f.path.clone())),
                ("file_format".into(), Value::String("PARQUET".into())),
                (
                    "partition".into(),
                    avro_partition(ctx.fields, &f.partition)?,
                ),
                ("record_count".into(), Value::Long(f.record_count)),
                (
                    "file_size_in_bytes".into(),
                    Value::Long(f.file_size_in_bytes),
                ),
                (
                    "value_counts".into(),
                    int_map(&f.stats.value_counts, |v| Value::Long(*v)),
                ),
                (
                    "null_value_counts".into(),
                    int_map(&f.stats.null_value_counts, |v| Value::Long(*v)),
                ),
                (
                    "lower_bounds".into(),
                    int_map(&f.stats.lower_bounds, |v| Value::Bytes(v.clone())),
                ),
                (
                    "upper_bounds".into(),
                    int_map(&f.stats.upper_bounds, |v| Value::Bytes(v.clone())),
                ),
                ("key_metadata".into(), none()),
                ("split_offsets".into(), none()),
                ("equality_ids".into(), equality_ids),
                (
                    "sort_order_id".into(),
                    if f.content == DataContentType::EqualityDeletes {
                        none()
                    } else {
                        some(Value::Int(0))
                    },
                ),
            ]);
            Ok(Value::Record(vec![
                ("status".into(), Value::Int(1)),
                ("snapshot_id".into(), some(Value::Long(ctx.snapshot_id))),
                ("sequence_number".into(), none()),
                ("file_sequence_number".into(), none()),
                ("data_file".into(), data_file),
            ]))
        })
        .collect::<Result<Vec<_>>>()?;
    write_avro(file, &schema, &metadata, records)
}

/// Sets field `name` of a record to `v` (through its union's non-null branch); fields the
/// schema lacks are left alone.
fn set_field(record: &mut [(String, Value)], schema: &AvroSchema, name: &str, v: Value) {
    let AvroSchema::Record(rs) = schema else {
        return;
    };
    let Some(field) = rs.fields.iter().find(|f| f.name == name) else {
        return;
    };
    let value = match &field.schema {
        AvroSchema::Union(u) => match u
            .variants()
            .iter()
            .position(|s| !matches!(s, AvroSchema::Null))
        {
            Some(i) => Value::Union(i as u32, Box::new(v)),
            None => return,
        },
        _ => v,
    };
    if let Some(slot) = record.iter_mut().find(|(n, _)| n == name) {
        slot.1 = value;
    }
}

/// Re-encodes a manifest (`bytes`, whose decoded `entries` are given) for a snapshot that
/// removes some of its files: entries flagged in `removed` become DELETED by `snapshot_id`, the
/// other live entries EXISTING, and entries deleted by earlier snapshots are dropped. Sequence
/// numbers and snapshot ids are written out, since the new manifest is listed with the new
/// snapshot's. Everything else (schema, metrics, file metadata) is kept as written.
pub fn rewrite_manifest(
    file: &str,
    bytes: &[u8],
    entries: &[ManifestEntry],
    removed: &[bool],
    snapshot_id: i64,
) -> Result<Vec<u8>> {
    let err = |e: apache_avro::Error| Error::corrupt(file, format!("rewriting manifest: {e}"));
    let bytes =
        lakescope_format::read::avro_container::readable_now(file, bytes).map_err(Error::Data)?;
    let reader = lakescope_format::spec::avro_names::reader(&bytes[..]).map_err(err)?;
    let mut schema = reader.writer_schema().clone();
    mark_maps(&mut schema);
    let metadata: Vec<(String, Vec<u8>)> = reader
        .user_metadata()
        .iter()
        .filter(|(k, _)| !k.starts_with("avro."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let records = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(err)?;
    if records.len() != entries.len() || removed.len() != entries.len() {
        return Err(Error::corrupt(
            file,
            "manifest entries changed while rewriting",
        ));
    }
    let mut w =
        Writer::with_codec(&schema, Vec::new(), Codec::Deflate(Default::default())).map_err(err)?;
    for (k, v) in metadata {
        w.add_user_metadata(k, v).map_err(err)?;
    }
    for ((record, entry), gone) in records.into_iter().zip(entries).zip(removed) {
        if entry.status == Status::Deleted {
            continue;
        }
        let Value::Record(mut fields) = record else {
            return Err(Error::corrupt(file, "manifest entry is not a record"));
        };
        let (status, snapshot) = if *gone {
            (2, snapshot_id)
        } else {
            (0, entry.snapshot_id)
        };
        set_field(&mut fields, &schema, "status", Value::Int(status));
        set_field(&mut fields, &schema, "snapshot_id", Value::Long(snapshot));
        set_field(
            &mut fields,
            &schema,
            "sequence_number",
            Value::Long(entry.sequence_number),
        );
        set_field(
            &mut fields,
            &schema,
            "file_sequence_number",
            Value::Long(entry.file_sequence_number),
        );
        w.append_value(Value::Record(fields)).map_err(err)?;
    }
    w.into_inner().map_err(err)
}

/// Where a manifest list is written: the snapshot and its parent.
pub struct ListContext {
    /// The snapshot's id (the list's `snapshot-id` metadata).
    pub snapshot_id: i64,
    /// Its parent's id (`parent-snapshot-id`; `None`: not written, a first snapshot).
    pub parent_snapshot_id: Option<i64>,
    /// The snapshot's data sequence number (`sequence-number`).
    pub sequence_number: i64,
}

/// Encodes a manifest list; manifests without a sequence number take the snapshot's.
pub fn encode_manifest_list(
    file: &str,
    ctx: &ListContext,
    manifests: &[ManifestFile],
) -> Result<Vec<u8>> {
    let mut metadata = vec![
        ("snapshot-id", ctx.snapshot_id.to_string()),
        ("sequence-number", ctx.sequence_number.to_string()),
        ("format-version", "2".to_string()),
    ];
    if let Some(p) = ctx.parent_snapshot_id {
        metadata.push(("parent-snapshot-id", p.to_string()));
    }
    let records = manifests
        .iter()
        .map(|m| {
            Value::Record(vec![
                (
                    "manifest_path".into(),
                    Value::String(m.manifest_path.clone()),
                ),
                ("manifest_length".into(), Value::Long(m.manifest_length)),
                ("partition_spec_id".into(), Value::Int(m.partition_spec_id)),
                (
                    "content".into(),
                    Value::Int(match m.content {
                        DataContentType::Data => 0,
                        _ => 1,
                    }),
                ),
                ("sequence_number".into(), Value::Long(m.sequence_number)),
                (
                    "min_sequence_number".into(),
                    Value::Long(m.min_sequence_number),
                ),
                ("added_snapshot_id".into(), Value::Long(m.added_snapshot_id)),
                (
                    "added_files_count".into(),
                    Value::Int(m.added_files_count.unwrap_or(0)),
                ),
                (
                    "existing_files_count".into(),
                    Value::Int(m.existing_files_count.unwrap_or(0)),
                ),
                (
                    "deleted_files_count".into(),
                    Value::Int(m.deleted_files_count.unwrap_or(0)),
                ),
                (
                    "added_rows_count".into(),
                    Value::Long(m.added_rows_count.unwrap_or(0)),
                ),
                (
                    "existing_rows_count".into(),
                    Value::Long(m.existing_rows_count.unwrap_or(0)),
                ),
                (
                    "deleted_rows_count".into(),
                    Value::Long(m.deleted_rows_count.unwrap_or(0)),
                ),
                ("partitions".into(), none()),
                ("key_metadata".into(), none()),
            ])
        })
        .collect();
    write_avro(file, &list_schema(), &metadata, records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::{read_manifest, read_manifest_list};
    use crate::spec::{Literal, NestedField, PartitionField, Type};
    use crate::write::partition::spec_fields;

    #[test]
    fn manifests_read_back() {
        let schema = Schema {
            schema_id: 0,
            identifier_field_ids: vec![1],
            fields: vec![NestedField {
                id: 1,
                name: "k".into(),
                required: true,
                field_type: Type::String,
                doc: None,
                initial_default: None,
                write_default: None,
            }],
        };
        let spec = PartitionSpec {
            spec_id: 0,
            fields: vec![PartitionField {
                source_id: 1,
                field_id: Some(1000),
                name: "k_bucket".into(),
                transform: "bucket[4]".into(),
            }],
        };
        let fields = spec_fields("t", &schema, &spec).unwrap();
        let ctx = ManifestContext {
            schema: &schema,
            spec: &spec,
            fields: &fields,
            snapshot_id: 42,
        };
        let file = NewFile {
            content: DataContentType::EqualityDeletes,
            path: "s3://b/t/data/k_bucket=1/x.parquet".into(),
            partition: vec![Some(Literal::Int(1))],
            record_count: 3,
            file_size_in_bytes: 100,
            equality_ids: vec![1],
            stats: ColumnStats {
                value_counts: vec![(1, 3)],
                null_value_counts: vec![(1, 0)],
                lower_bounds: vec![(1, b"a".to_vec())],
                upper_bounds: vec![(1, b"c".to_vec())],
            },
        };
        let bytes = encode_manifest("m.avro", &ctx, true, &[file]).unwrap();
        let listed = ManifestFile {
            manifest_path: "s3://b/t/metadata/m.avro".into(),
            manifest_length: bytes.len() as i64,
            partition_spec_id: 0,
            content: DataContentType::EqualityDeletes,
            sequence_number: 7,
            min_sequence_number: 7,
            added_snapshot_id: 42,
            added_files_count: Some(1),
            existing_files_count: Some(0),
            deleted_files_count: Some(0),
            added_rows_count: Some(3),
            existing_rows_count: Some(0),
            deleted_rows_count: Some(0),
            first_row_id: None,
        };
        let entries = read_manifest("m.avro", &bytes, &listed).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            (entries[0].status, entries[0].sequence_number),
            (Status::Added, 7)
        );
        assert_eq!(entries[0].data_file.equality_ids, vec![1]);
        assert_eq!(
            entries[0].data_file.partition,
            vec![("k_bucket".to_string(), Some(Literal::Int(1)))]
        );
        let list = encode_manifest_list(
            "snap.avro",
            &ListContext {
                snapshot_id: 42,
                parent_snapshot_id: None,
                sequence_number: 7,
            },
            std::slice::from_ref(&listed),
        )
        .unwrap();
        let read = read_manifest_list("snap.avro", &list).unwrap();
        // Delete manifests are content 1 in a list, whatever their files hold.
        assert_eq!(read[0].content, DataContentType::PositionDeletes);
        assert_eq!(read[0].added_rows_count, Some(3));
        let reader = apache_avro::Reader::new(&bytes[..]).unwrap();
        assert_eq!(reader.user_metadata()["content"], b"deletes");
        // The stats maps keep their map logical type in the written schema (file header).
        let header = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
        assert_eq!(
            header.matches(r#""logicalType":"map""#).count(),
            4,
            "{header}"
        );
    }
}
