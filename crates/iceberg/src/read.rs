//! Reading one data file onto the read schema by field id, then dropping deleted rows.

use crate::convert::file_fields;
use crate::name_mapping::{self, MappingSource};
use crate::plan::{FileEntry, FileTask};
use crate::spec::FileFormat;
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_row::{RowConverter, SortField};
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use lakescope_format::read::parquet::ParquetFooter;
use lakescope_format::read::{read_file, FileFormat as ReadFormat, FileKind};
use lakescope_format::spec::{DataField, DataType, TypeKind};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use roaring::RoaringTreemap;
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Field id of `file_path` in position delete files.
pub const DELETE_FILE_PATH_ID: i32 = 2_147_483_546;
/// Field id of `pos` in position delete files.
pub const DELETE_POS_ID: i32 = 2_147_483_545;
/// Magic bytes of a `deletion-vector-v1` Puffin blob.
const DV_MAGIC: [u8; 4] = [0xD1, 0xD3, 0x39, 0x64];

/// Decodes a whole data file (bytes of `key`) onto `read_fields`, matching columns by field id
/// (through the table's name mapping, `mapping`, when the file has no ids).
pub async fn decode_file(
    key: &str,
    bytes: Bytes,
    format: FileFormat,
    read_fields: &[DataField],
    mapping: MappingSource<'_>,
) -> Result<Vec<RecordBatch>> {
    let (fmt, file_side) = match format {
        FileFormat::Parquet => {
            let builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                .map_err(|e| Error::corrupt(key, format!("invalid Parquet file: {e}")))?;
            let schema = name_mapping::arrow_schema_with_ids(key, builder.schema(), mapping)?;
            (ReadFormat::Parquet, file_fields(&schema))
        }
        FileFormat::Avro => (
            ReadFormat::Avro,
            avro_file_fields(key, &bytes, read_fields, mapping)?,
        ),
        // ORC columns are matched by name through the read schema.
        FileFormat::Orc => (ReadFormat::Orc, read_fields.to_vec()),
        FileFormat::Puffin => {
            return Err(Error::unsupported(key, "a Puffin file is not a data file"))
        }
    };
    Ok(read_file(key, bytes, fmt, &file_side, read_fields, FileKind::Append).await?)
}

/// Reads the Parquet data file `data` of `table` onto `read_fields` with ranged requests: its
/// footer (found from the manifest's file size), then only the column chunks the read needs;
/// fields the file lacks read as [`decode_data_file`] reads them.
pub async fn read_parquet_data_file(
    table: &Table,
    data: &FileEntry,
    read_fields: &[DataField],
) -> Result<Vec<RecordBatch>> {
    let key = data.key.as_str();
    let store = table.store();
    // The manifest's size saves a `head` request; a manifest that states it wrongly (pyiceberg
    // and DuckDB read such files, asking the store for the size) costs one.
    let stated = u64::try_from(data.file.file_size_in_bytes).ok();
    let footer = match ParquetFooter::fetch(store.as_ref(), key, stated).await {
        Ok(footer) => footer,
        Err(_) if stated.is_some() => ParquetFooter::fetch(store.as_ref(), key, None).await?,
        Err(e) => return Err(e.into()),
    };
    let schema = name_mapping::arrow_schema_with_ids(
        key,
        footer.arrow_schema()?.as_ref(),
        MappingSource::of(table),
    )?;
    let present = crate::missing::arrow_schema_ids(&schema);
    let fill = missing_fill(table, data, Some(present), read_fields)?;
    let decode = fill.as_ref().map_or(read_fields, |f| &f.decode);
    let batches = footer
        .read(
            store.as_ref(),
            &file_fields(&schema),
            decode,
            FileKind::Append,
        )
        .await?;
    filled(fill, batches)
}

/// Decodes the data file `data` of `table` (its bytes) onto `read_fields`: fields the file lacks
/// read as their identity-partition value or `initial-default` ([`crate::missing`]).
pub async fn decode_data_file(
    table: &Table,
    data: &FileEntry,
    bytes: Bytes,
    read_fields: &[DataField],
) -> Result<Vec<RecordBatch>> {
    let (key, format) = (data.key.as_str(), data.file.file_format);
    let mapping = MappingSource::of(table);
    let present = crate::missing::file_ids(key, &bytes, format, mapping)?;
    let fill = missing_fill(table, data, present, read_fields)?;
    let decode = fill.as_ref().map_or(read_fields, |f| &f.decode);
    let batches = decode_file(key, bytes, format, decode, mapping).await?;
    filled(fill, batches)
}

/// How `data` is read onto `read_fields` when it holds the field ids `present` (`None`: matched
/// by name): `None` when it has them all, else the fields to decode and the fill for the rest.
fn missing_fill<'a>(
    table: &Table,
    data: &'a FileEntry,
    present: Option<HashSet<i32>>,
    read_fields: &[DataField],
) -> Result<Option<crate::missing::Fill<'a>>> {
    crate::missing::Fill::plan(
        &data.key,
        table.metadata_key(),
        table.metadata(),
        present,
        read_fields,
        crate::partition_values::identity_values(table.metadata(), data),
    )
}

/// `batches`, decoded with `fill`'s fields, with the missing fields filled in.
fn filled(
    fill: Option<crate::missing::Fill<'_>>,
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>> {
    match fill {
        None => Ok(batches),
        Some(fill) => batches.into_iter().map(|b| fill.apply(b)).collect(),
    }
}

/// The fields of an Avro data file: the read fields found in its writer schema by `field-id`
/// (from the name mapping when the file has no ids), named as in the file, at every level.
fn avro_file_fields(
    key: &str,
    bytes: &[u8],
    read_fields: &[DataField],
    mapping: MappingSource<'_>,
) -> Result<Vec<DataField>> {
    let bytes =
        lakescope_format::read::avro_container::readable_now(key, bytes).map_err(Error::Data)?;
    let reader = lakescope_format::spec::avro_names::reader(&bytes[..])
        .map_err(|e| Error::corrupt(key, format!("invalid Avro file: {e}")))?;
    let schema = name_mapping::avro_schema_with_ids(key, reader.writer_schema(), mapping)?;
    let apache_avro::Schema::Record(record) = &schema else {
        return Err(Error::corrupt(
            key,
            "Avro data file whose schema is not a record",
        ));
    };
    Ok(avro_record_fields(record, read_fields))
}

/// The read fields present (by id) in an Avro record, with the record's names and nested types.
fn avro_record_fields(
    record: &apache_avro::schema::RecordSchema,
    read_fields: &[DataField],
) -> Vec<DataField> {
    read_fields
        .iter()
        .filter_map(|r| {
            let f = record.fields.iter().find(|f| {
                f.custom_attributes
                    .get("field-id")
                    .and_then(|v| v.as_i64())
                    .is_some_and(|id| id == i64::from(r.id))
            })?;
            Some(DataField {
                name: f.name.clone(),
                data_type: avro_nested(&r.data_type, &f.schema),
                ..r.clone()
            })
        })
        .collect()
}

/// `read` with the struct fields inside it named (and found) as in the Avro schema `file`.
fn avro_nested(read: &DataType, file: &apache_avro::Schema) -> DataType {
    use apache_avro::Schema as S;
    let file = match file {
        S::Union(u) => {
            let mut non_null = u.variants().iter().filter(|v| !matches!(v, S::Null));
            match (non_null.next(), non_null.next()) {
                (Some(v), None) => v,
                _ => return read.clone(),
            }
        }
        other => other,
    };
    let kind = match (&read.kind, file) {
        (TypeKind::Row(children), S::Record(r)) => TypeKind::Row(avro_record_fields(r, children)),
        (TypeKind::Array(e), S::Array(a)) => TypeKind::Array(Box::new(avro_nested(e, &a.items))),
        (TypeKind::Map(k, v), S::Map(m)) => {
            TypeKind::Map(k.clone(), Box::new(avro_nested(v, &m.types)))
        }
        _ => return read.clone(),
    };
    DataType {
        kind,
        ..read.clone()
    }
}

/// Deleted row positions per data file key, collected from position delete files once each.
#[derive(Default)]
pub struct DeleteCache {
    positions: HashMap<String, HashMap<String, Vec<i64>>>,
    vectors: HashMap<(String, i64), RoaringTreemap>,
    equality: HashMap<String, (Vec<i32>, HashSet<Vec<u8>>)>,
}

fn position_fields() -> Vec<DataField> {
    vec![
        DataField {
            id: DELETE_FILE_PATH_ID,
            name: "file_path".into(),
            data_type: DataType::nullable(TypeKind::VarChar(u32::MAX >> 1)),
            description: None,
        },
        DataField {
            id: DELETE_POS_ID,
            name: "pos".into(),
            data_type: DataType::nullable(TypeKind::BigInt),
            description: None,
        },
    ]
}

impl DeleteCache {
    /// Deleted positions of `data_key` from one position delete file (or deletion vector).
    async fn positions(
        &mut self,
        table: &Table,
        delete: &FileEntry,
        data_key: &str,
        out: &mut BTreeSet<u64>,
    ) -> Result<()> {
        if delete.file.file_format == FileFormat::Puffin {
            let offset = delete.file.content_offset.unwrap_or(0);
            let dv = match self.vectors.entry((delete.key.clone(), offset)) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(read_deletion_vector(table, delete).await?),
            };
            out.extend(dv.iter());
            return Ok(());
        }
        if !self.positions.contains_key(&delete.key) {
            let bytes = table.store().get(&delete.key).await?;
            let batches = decode_file(
                &delete.key,
                bytes,
                delete.file.file_format,
                &position_fields(),
                MappingSource::of(table),
            )
            .await?;
            let mut by_file: HashMap<String, Vec<i64>> = HashMap::new();
            for batch in &batches {
                let paths = batch.column(0).as_string::<i32>();
                let pos = batch.column(1).as_primitive::<Int64Type>();
                for i in 0..batch.num_rows() {
                    if paths.is_null(i) || pos.is_null(i) {
                        return Err(Error::corrupt(&delete.key, "null file_path or pos"));
                    }
                    let target = table.resolve(paths.value(i), &delete.key)?;
                    by_file.entry(target).or_default().push(pos.value(i));
                }
            }
            self.positions.insert(delete.key.clone(), by_file);
        }
        if let Some(p) = self
            .positions
            .get(&delete.key)
            .and_then(|m| m.get(data_key))
        {
            out.extend(p.iter().filter_map(|v| u64::try_from(*v).ok()));
        }
        Ok(())
    }

    /// The equality ids and the encoded key rows of an equality delete file.
    async fn equality(
        &mut self,
        table: &Table,
        delete: &FileEntry,
        fields: &[DataField],
    ) -> Result<&(Vec<i32>, HashSet<Vec<u8>>)> {
        if !self.equality.contains_key(&delete.key) {
            let bytes = table.store().get(&delete.key).await?;
            let batches = decode_file(
                &delete.key,
                bytes,
                delete.file.file_format,
                fields,
                MappingSource::of(table),
            )
            .await?;
            let converter = converter(&delete.key, fields)?;
            let mut keys = HashSet::new();
            for batch in &batches {
                let rows = converter
                    .convert_columns(batch.columns())
                    .map_err(|e| Error::corrupt(&delete.key, e))?;
                keys.extend(rows.iter().map(|r| r.as_ref().to_vec()));
            }
            let ids = fields.iter().map(|f| f.id).collect();
            self.equality.insert(delete.key.clone(), (ids, keys));
        }
        self.equality
            .get(&delete.key)
            .ok_or_else(|| Error::corrupt(&delete.key, "equality deletes not cached"))
    }
}

fn converter(file: &str, fields: &[DataField]) -> Result<RowConverter> {
    let sort_fields = fields
        .iter()
        .map(|f| {
            SortField::new(lakescope_format::read::arrow_schema::to_arrow_type(
                &f.data_type,
            ))
        })
        .collect();
    RowConverter::new(sort_fields).map_err(|e| Error::corrupt(file, e))
}

/// Reads the `deletion-vector-v1` blob of a Puffin delete file.
async fn read_deletion_vector(table: &Table, delete: &FileEntry) -> Result<RoaringTreemap> {
    let key = &delete.key;
    let (Some(offset), Some(len)) = (
        delete.file.content_offset,
        delete.file.content_size_in_bytes,
    ) else {
        return Err(Error::corrupt(
            key,
            "deletion vector without content offset/size",
        ));
    };
    let (Ok(offset), Ok(len)) = (u64::try_from(offset), u64::try_from(len)) else {
        return Err(Error::corrupt(key, "negative deletion vector offset/size"));
    };
    let blob = table.store().get_range(key, offset..offset + len).await?;
    let bitmap = parse_deletion_vector(key, &blob)?;
    let cardinality = bitmap.len();
    if u64::try_from(delete.file.record_count).ok() != Some(cardinality) {
        return Err(Error::corrupt(
            key,
            format!(
                "deletion vector for {} holds {cardinality} positions, but the delete file's record_count is {}",
                delete.file.referenced_data_file.as_deref().unwrap_or("?"),
                delete.file.record_count
            ),
        ));
    }
    Ok(bitmap)
}

/// Parses a `deletion-vector-v1` blob: length (big-endian, of magic + bitmap), magic, portable
/// 64-bit roaring bitmap, CRC-32 (big-endian, of magic + bitmap).
fn parse_deletion_vector(key: &str, blob: &[u8]) -> Result<RoaringTreemap> {
    if blob.len() < 12 || blob[4..8] != DV_MAGIC {
        return Err(Error::corrupt(key, "not a deletion-vector-v1 blob"));
    }
    let declared = u32::from_be_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
    let end = 4 + declared;
    if declared < 4 || end + 4 > blob.len() {
        return Err(Error::corrupt(key, "deletion vector length past the blob"));
    }
    let stored = u32::from_be_bytes([blob[end], blob[end + 1], blob[end + 2], blob[end + 3]]);
    let computed = crc32fast::hash(&blob[4..end]);
    if stored != computed {
        return Err(Error::corrupt(
            key,
            format!(
                "deletion vector CRC-32 mismatch (stored {stored:08x}, computed {computed:08x})"
            ),
        ));
    }
    RoaringTreemap::deserialize_from(&blob[8..end])
        .map_err(|e| Error::corrupt(key, format!("invalid deletion vector bitmap: {e}")))
}

/// Reads one task: the data file onto `read_fields` (which must contain every equality-delete
/// column), with position and equality deletes applied.
pub async fn read_task(
    table: &Table,
    task: &FileTask,
    read_fields: &[DataField],
    cache: &mut DeleteCache,
) -> Result<Vec<RecordBatch>> {
    let key = &task.data.key;
    let decoded = match task.data.file.file_format {
        FileFormat::Parquet => read_parquet_data_file(table, &task.data, read_fields).await?,
        _ => {
            let bytes = table.store().get(key).await?;
            decode_data_file(table, &task.data, bytes, read_fields).await?
        }
    };
    let mut batches = crate::lineage::inherit(&task.data, read_fields, decoded)?;
    let mut deleted = BTreeSet::new();
    for d in &task.position_deletes {
        cache.positions(table, d, key, &mut deleted).await?;
    }
    if !deleted.is_empty() {
        let mut offset = 0u64;
        let mut out = Vec::with_capacity(batches.len());
        for batch in batches {
            let n = batch.num_rows() as u64;
            let keep: BooleanArray = (0..n)
                .map(|i| Some(!deleted.contains(&(offset + i))))
                .collect();
            offset += n;
            out.push(filter_record_batch(&batch, &keep).map_err(|e| Error::corrupt(key, e))?);
        }
        batches = out;
    }
    for d in &task.equality_deletes {
        let fields: Vec<DataField> = d
            .file
            .equality_ids
            .iter()
            .map(|id| {
                read_fields
                    .iter()
                    .find(|f| f.id == *id)
                    .cloned()
                    .ok_or_else(|| {
                        Error::unsupported(
                            &d.key,
                            format!("equality field {id} not in the read schema"),
                        )
                    })
            })
            .collect::<Result<_>>()?;
        let indices: Vec<usize> = fields
            .iter()
            .filter_map(|f| read_fields.iter().position(|r| r.id == f.id))
            .collect();
        let (_, keys) = cache.equality(table, d, &fields).await?;
        let converter = converter(&d.key, &fields)?;
        let mut out = Vec::with_capacity(batches.len());
        for batch in batches {
            let columns: Vec<_> = indices.iter().map(|i| batch.column(*i).clone()).collect();
            let rows = converter
                .convert_columns(&columns)
                .map_err(|e| Error::corrupt(key, e))?;
            let keep: BooleanArray = rows
                .iter()
                .map(|r| Some(!keys.contains(r.as_ref())))
                .collect();
            out.push(filter_record_batch(&batch, &keep).map_err(|e| Error::corrupt(key, e))?);
        }
        batches = out;
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::types::Value;

    fn field(id: i32, name: &str, kind: TypeKind) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: DataType::nullable(kind),
            description: None,
        }
    }

    #[tokio::test]
    async fn avro_columns_by_field_id() {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type":"record","name":"r","fields":[
                {"name":"ident","type":"long","field-id":1},
                {"name":"nm","type":["null","string"],"field-id":2},
                {"name":"gone","type":"int","field-id":9}]}"#,
        )
        .unwrap();
        let mut w = apache_avro::Writer::new(&schema, Vec::new()).unwrap();
        w.append_value(Value::Record(vec![
            ("ident".into(), Value::Long(7)),
            (
                "nm".into(),
                Value::Union(1, Box::new(Value::String("x".into()))),
            ),
            ("gone".into(), Value::Int(1)),
        ]))
        .unwrap();
        let bytes = Bytes::from(w.into_inner().unwrap());
        let read = vec![
            field(1, "id", TypeKind::BigInt),
            field(2, "name", TypeKind::VarChar(100)),
            field(3, "added", TypeKind::Int),
        ];
        let batches = decode_file(
            "d.avro",
            bytes,
            FileFormat::Avro,
            &read,
            MappingSource::none(),
        )
        .await
        .unwrap();
        let b = &batches[0];
        assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 7);
        assert_eq!(b.column(1).as_string::<i32>().value(0), "x");
        assert!(b.column(2).is_null(0));
        let err = decode_file(
            "bad.avro",
            Bytes::from_static(b"nope"),
            FileFormat::Avro,
            &read,
            MappingSource::none(),
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("bad.avro"), "{err}");
    }

    /// An Avro file without field ids: columns (and struct fields) matched through the name
    /// mapping by their names in the file; without a mapping the file is refused.
    #[tokio::test]
    async fn avro_without_ids_uses_the_name_mapping() {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type":"record","name":"r","fields":[
                {"name":"old_id","type":"long"},
                {"name":"s","type":{"type":"record","name":"s","fields":[
                    {"name":"old_a","type":"int"}]}}]}"#,
        )
        .unwrap();
        let mut w = apache_avro::Writer::new(&schema, Vec::new()).unwrap();
        w.append_value(Value::Record(vec![
            ("old_id".into(), Value::Long(7)),
            (
                "s".into(),
                Value::Record(vec![("old_a".into(), Value::Int(5))]),
            ),
        ]))
        .unwrap();
        let bytes = Bytes::from(w.into_inner().unwrap());
        let read = vec![
            field(1, "id", TypeKind::BigInt),
            field(2, "s", TypeKind::Row(vec![field(3, "a", TypeKind::Int)])),
        ];
        let json = r#"[{"field-id":1,"names":["old_id","id"]},
            {"field-id":2,"names":["s"],"fields":[{"field-id":3,"names":["old_a","a"]}]}]"#;
        let source = name_mapping::MappingSource::from_json("m.json", Some(json));
        let batches = decode_file("d.avro", bytes.clone(), FileFormat::Avro, &read, source)
            .await
            .unwrap();
        let b = &batches[0];
        assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 7);
        let s = b.column(1).as_struct();
        assert_eq!(
            s.column(0)
                .as_primitive::<arrow_array::types::Int32Type>()
                .value(0),
            5
        );
        let err = decode_file(
            "d.avro",
            bytes,
            FileFormat::Avro,
            &read,
            MappingSource::none(),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("d.avro") && err.contains("no Iceberg field ids"),
            "{err}"
        );
    }
}
