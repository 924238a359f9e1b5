//! `$file_indexes`: the file indexes of a snapshot's data files (bloom filters, bitmaps, …, kept
//! in the manifest or in an `.index` file beside the data file), one row per column and index
//! type, with Paimon's columns (Java `FileIndexesTable`); only each index's header is read.

use super::render;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// First bytes of a file index (Java `FileIndexFormat.MAGIC`, a big-endian long).
const MAGIC: i64 = 1_493_475_289_347_502;
/// The only file index format version (Java `FileIndexFormat.Version.V_1`).
const VERSION: i32 = 1;
/// Start offset of an index with no bytes (Java `FileIndexFormat.EMPTY_INDEX_FLAG`).
const EMPTY_INDEX_FLAG: i32 = -1;
/// Bytes of an `.index` file fetched first; a longer header is fetched whole afterwards.
const FIRST_FETCH: u64 = 64 * 1024;

/// One index of a file index's header.
#[derive(Debug, PartialEq)]
struct IndexMeta {
    column: String,
    index_type: String,
    /// Bytes of the index (Java `FileIndexMeta.sizeInBytes`).
    length: i32,
    empty: bool,
}

/// A big-endian reader over a file index's header (Java `DataInputStream`).
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a str,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(Error::corrupt(self.path, "file index header is truncated"));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn int(&mut self) -> Result<i32> {
        let b = self.take(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Java `DataInput.readUTF`: a u16 length, then (modified) UTF-8; names that are not plain
    /// UTF-8 (a NUL, characters outside the BMP) are refused as corrupt.
    fn utf(&mut self) -> Result<String> {
        let b = self.take(2)?;
        let n = usize::from(u16::from_be_bytes([b[0], b[1]]));
        let text = self.take(n)?;
        std::str::from_utf8(text)
            .map(String::from)
            .map_err(|e| Error::corrupt(self.path, format!("file index header: {e}")))
    }
}

/// The length in bytes of the header of the file index `bytes` starts with (its first 16 bytes
/// are enough), checking the magic number and the format version.
fn header_length(path: &str, bytes: &[u8]) -> Result<usize> {
    let mut c = Cursor { bytes, at: 0, path };
    let magic = c.take(8)?;
    let magic = i64::from_be_bytes(
        magic
            .try_into()
            .map_err(|_| Error::corrupt(path, "magic"))?,
    );
    if magic != MAGIC {
        return Err(Error::corrupt(
            path,
            "not a file index (wrong magic number)",
        ));
    }
    let version = c.int()?;
    if version != VERSION {
        return Err(Error::unsupported(
            path,
            format!("file index format version {version} (known: {VERSION})"),
        ));
    }
    let length = c.int()?;
    usize::try_from(length)
        .ok()
        .filter(|l| *l >= 16)
        .ok_or_else(|| Error::corrupt(path, format!("file index header length {length}")))
}

/// The indexes a file index's header lists (Java `FileIndexFormat.Reader.indexMetas`), by
/// column then index type (Java lists them in `HashMap` order). `bytes` holds at least the
/// header ([`header_length`]).
fn index_metas(path: &str, bytes: &[u8]) -> Result<Vec<IndexMeta>> {
    let length = header_length(path, bytes)?;
    let Some(head) = bytes.get(16..length) else {
        return Err(Error::corrupt(path, "file index header is truncated"));
    };
    let mut c = Cursor {
        bytes: head,
        at: 0,
        path,
    };
    let mut metas = Vec::new();
    for _ in 0..c.int()? {
        let column = c.utf()?;
        for _ in 0..c.int()? {
            let index_type = c.utf()?;
            let start = c.int()?;
            let length = c.int()?;
            // a later entry for the same column and type replaces an earlier one, as in Java's map
            metas.retain(|m: &IndexMeta| !(m.column == column && m.index_type == index_type));
            metas.push(IndexMeta {
                column: column.clone(),
                index_type,
                length,
                empty: start == EMPTY_INDEX_FLAG,
            });
        }
    }
    metas.sort_by(|a, b| (&a.column, &a.index_type).cmp(&(&b.column, &b.index_type)));
    Ok(metas)
}

/// The header of the `.index` file at `key`, with the file's size: its first bytes, and the
/// whole header when it is longer.
async fn index_file(table: &Table, key: &str) -> Result<(Vec<IndexMeta>, u64)> {
    let store = table.store();
    let size = store.head(key).await?.size;
    let first = store.get_range(key, 0..size.min(FIRST_FETCH)).await?;
    let length = header_length(key, &first)?;
    if length <= first.len() {
        return Ok((index_metas(key, &first)?, size));
    }
    let end = u64::try_from(length).map_err(|e| Error::corrupt(key, e))?;
    let head = store.get_range(key, 0..end).await?;
    Ok((index_metas(key, &head)?, size))
}

/// `$file_indexes` of `snapshot` (empty without one): per data file and index of its file index
/// `partition` (the row cast to STRING, `{v1, v2}`), `bucket`, `file_path`, `file_size_in_bytes`,
/// `record_count`, `schema_id`, `column_name`, `index_type`, `storage_type` (`EMBEDDED` in the
/// manifest, `FILE` beside the data file), `index_file_path` (null when embedded),
/// `index_size_in_bytes`, `index_container_size_in_bytes` (the whole file index), `is_empty`.
/// Paths are store keys, as in `$files`. A data file with two `.index` files is refused, as in
/// Java.
pub async fn file_indexes(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let mut partition = StringBuilder::new();
    let mut bucket = Int32Builder::new();
    let mut file_path = StringBuilder::new();
    let mut file_size = Int64Builder::new();
    let mut record_count = Int64Builder::new();
    let mut schema_id = Int64Builder::new();
    let mut column_name = StringBuilder::new();
    let mut index_type = StringBuilder::new();
    let mut storage_type = StringBuilder::new();
    let mut index_file_path = StringBuilder::new();
    let mut index_size = Int64Builder::new();
    let mut container_size = Int64Builder::new();
    let mut is_empty = BooleanBuilder::new();
    let plan = super::files::plan_of(table, snapshot).await?;
    for split in plan.iter().flat_map(|p| &p.splits) {
        let part_text = render::row_cast_to_string(&split.partition);
        for file in &split.files {
            let path = table.data_file_path(&split.partition, split.bucket, file)?;
            let index_files: Vec<&String> = file
                .extra_files
                .iter()
                .filter(|f| f.ends_with(".index"))
                .collect();
            let (metas, storage, index_key, container) =
                match (&file.embedded_file_index, &index_files[..]) {
                    (Some(bytes), _) => {
                        let size =
                            u64::try_from(bytes.len()).map_err(|e| Error::corrupt(&path, e))?;
                        (index_metas(&path, bytes)?, "EMBEDDED", None, size)
                    }
                    (None, []) => continue,
                    (None, [name]) => {
                        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                        let key = format!("{dir}/{name}");
                        let (metas, size) = index_file(table, &key).await?;
                        (metas, "FILE", Some(key), size)
                    }
                    (None, names) => {
                        return Err(Error::corrupt(
                            &path,
                            format!(
                                "more than one file index: {}",
                                names
                                    .iter()
                                    .map(|n| n.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ))
                    }
                };
            let container = i64::try_from(container).map_err(|e| Error::corrupt(&path, e))?;
            for meta in metas {
                partition.append_value(&part_text);
                bucket.append_value(split.bucket);
                file_path.append_value(&path);
                file_size.append_value(file.file_size);
                record_count.append_value(file.row_count);
                schema_id.append_value(file.schema_id);
                column_name.append_value(&meta.column);
                index_type.append_value(&meta.index_type);
                storage_type.append_value(storage);
                index_file_path.append_option(index_key.as_deref());
                index_size.append_value(i64::from(meta.length));
                container_size.append_value(container);
                is_empty.append_value(meta.empty);
            }
        }
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("partition", DataType::Utf8, true),
        Field::new("bucket", DataType::Int32, false),
        Field::new("file_path", DataType::Utf8, false),
        Field::new("file_size_in_bytes", DataType::Int64, false),
        Field::new("record_count", DataType::Int64, false),
        Field::new("schema_id", DataType::Int64, false),
        Field::new("column_name", DataType::Utf8, false),
        Field::new("index_type", DataType::Utf8, false),
        Field::new("storage_type", DataType::Utf8, false),
        Field::new("index_file_path", DataType::Utf8, true),
        Field::new("index_size_in_bytes", DataType::Int64, false),
        Field::new("index_container_size_in_bytes", DataType::Int64, false),
        Field::new("is_empty", DataType::Boolean, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(partition.finish()),
        Arc::new(bucket.finish()),
        Arc::new(file_path.finish()),
        Arc::new(file_size.finish()),
        Arc::new(record_count.finish()),
        Arc::new(schema_id.finish()),
        Arc::new(column_name.finish()),
        Arc::new(index_type.finish()),
        Arc::new(storage_type.finish()),
        Arc::new(index_file_path.finish()),
        Arc::new(index_size.finish()),
        Arc::new(container_size.finish()),
        Arc::new(is_empty.finish()),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building $file_indexes: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One column's indexes: type, start, length.
    type Column<'a> = (&'a str, &'a [(&'a str, i32, i32)]);

    /// A header as Java's `FileIndexFormat.Writer` lays it out.
    fn header(columns: &[Column]) -> Vec<u8> {
        let mut head = Vec::new();
        head.extend((columns.len() as i32).to_be_bytes());
        for (name, indexes) in columns {
            head.extend((name.len() as u16).to_be_bytes());
            head.extend(name.as_bytes());
            head.extend((indexes.len() as i32).to_be_bytes());
            for (ty, start, len) in *indexes {
                head.extend((ty.len() as u16).to_be_bytes());
                head.extend(ty.as_bytes());
                head.extend(start.to_be_bytes());
                head.extend(len.to_be_bytes());
            }
        }
        let mut out = MAGIC.to_be_bytes().to_vec();
        out.extend(VERSION.to_be_bytes());
        out.extend(((head.len() + 16) as i32).to_be_bytes());
        out.extend(head);
        out
    }

    #[test]
    fn headers_list_each_column_and_index_with_empty_ones_flagged() {
        let bytes = header(&[
            (
                "name",
                &[("bitmap", 100, 29), ("bloom-filter", EMPTY_INDEX_FLAG, 0)],
            ),
            ("id", &[("bloom-filter", 129, 10)]),
        ]);
        let metas = index_metas("f", &bytes).unwrap();
        let rows: Vec<_> = metas
            .iter()
            .map(|m| (m.column.as_str(), m.index_type.as_str(), m.length, m.empty))
            .collect();
        assert_eq!(
            rows,
            [
                ("id", "bloom-filter", 10, false),
                ("name", "bitmap", 29, false),
                ("name", "bloom-filter", 0, true),
            ]
        );
    }

    #[test]
    fn other_magic_versions_and_truncated_headers_are_errors_naming_the_file() {
        let mut bytes = header(&[("id", &[("bloom-filter", 40, 10)])]);
        let err = index_metas("f.index", &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(
            err.to_string().contains("f.index: truncated") || err.to_string().contains("truncated"),
            "{err}"
        );
        bytes[11] = 2; // version 2
        let err = index_metas("f.index", &bytes).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("version 2"), "{err}");
        bytes[0] ^= 1;
        let err = index_metas("f.index", &bytes).unwrap_err();
        assert!(
            err.to_string().contains("f.index: not a file index"),
            "{err}"
        );
    }
}
