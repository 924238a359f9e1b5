//! BLOB columns: values Paimon keeps in `.blob` files, read as references (file, offset, length)
//! so a scan never loads blob bytes; [`fetch`] reads one value's bytes with a range read.
//!
//! A `.blob` file (Paimon's `BlobFormatWriter`, version 1) is a sequence of records, one per
//! non-null value: magic `1481511375` (u32 LE), the bytes, the record's length (u64 LE, magic
//! and trailer included) and a CRC-32 of everything before it (u32 LE); then the index, the
//! record lengths as zig-zag varint deltas (-1 for a null value, -2 for a placeholder), its
//! length (u32 LE) and the format version (u8). A `.blob` file holds one BLOB column
//! (`_WRITE_COLS`) of the rows `_FIRST_ROW_ID ..` of the normal data files it is stitched with
//! ([`super::stitch`]).
//!
//! The Arrow column of a BLOB is a struct of the blob's store key ([`BLOB_FILE`], in the
//! table's store), the byte offset of its bytes ([`BLOB_OFFSET`]) and their length
//! ([`BLOB_LENGTH`]), as Paimon's `BlobDescriptor` (uri, offset, length).

use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::spec::{DataField, TypeKind};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, StringArray, StructArray};
use arrow_buffer::NullBuffer;
use bytes::Bytes;
use lakescope_storage::ObjectStore;
use std::sync::Arc;

pub use lakescope_format::read::blob_reference::{
    reference_fields, reference_type, BLOB_FILE, BLOB_LENGTH, BLOB_OFFSET,
};

/// File name ending of blob files.
pub const BLOB_EXTENSION: &str = ".blob";
/// Record magic number.
const MAGIC: u32 = 1_481_511_375;
/// The blob file format version this reader knows.
const VERSION: u8 = 1;
/// Bytes of a record besides the value: magic (4), length (8), CRC-32 (4).
const OVERHEAD: u64 = 16;
/// Index length (4) and version (1) at the end of the file.
const FOOTER: u64 = 5;

/// Where one BLOB value's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobRef {
    /// Store key of the `.blob` file.
    pub file: String,
    /// Offset of the value's bytes in the file.
    pub offset: u64,
    /// Number of bytes.
    pub length: u64,
}

/// The reference in row `row` of a BLOB column (`None` for a NULL value); an error if `column`
/// is not a BLOB column ([`reference_type`]).
pub fn reference(column: &dyn Array, row: usize) -> Result<Option<BlobRef>> {
    let not_blob = || Error::Invalid(format!("not a BLOB column: {}", column.data_type()));
    let refs = column.as_struct_opt().ok_or_else(not_blob)?;
    if refs.fields() != &reference_fields() {
        return Err(not_blob());
    }
    if row >= refs.len() {
        return Err(Error::Invalid(format!(
            "row {row} of a BLOB column of {} rows",
            refs.len()
        )));
    }
    if refs.is_null(row) {
        return Ok(None);
    }
    let int = |i: usize| refs.column(i).as_primitive::<Int64Type>().value(row);
    let non_negative =
        |v: i64| u64::try_from(v).map_err(|_| Error::Invalid(format!("BLOB reference with {v}")));
    Ok(Some(BlobRef {
        file: refs.column(0).as_string::<i32>().value(row).to_string(),
        offset: non_negative(int(1))?,
        length: non_negative(int(2))?,
    }))
}

/// The bytes of one BLOB value: reads its record (the value and its 16 bytes of framing) with
/// one range read and checks its magic number, length and CRC-32.
pub async fn fetch(store: &dyn ObjectStore, blob: &BlobRef) -> Result<Bytes> {
    let corrupt =
        |what: String| Error::corrupt(&blob.file, format!("BLOB at {}: {what}", blob.offset));
    let start = blob
        .offset
        .checked_sub(4)
        .ok_or_else(|| corrupt("offset before the record's magic number".into()))?;
    let end = blob
        .offset
        .checked_add(blob.length)
        .and_then(|e| e.checked_add(OVERHEAD - 4))
        .ok_or_else(|| corrupt("length out of range".into()))?;
    let record = store.get_range(&blob.file, start..end).await?;
    let len = record.len();
    if u64::try_from(len).ok() != Some(end - start) {
        return Err(corrupt(format!("{len} bytes read of {}", end - start)));
    }
    let u32_at = |at: usize| {
        u32::from_le_bytes([record[at], record[at + 1], record[at + 2], record[at + 3]])
    };
    if u32_at(0) != MAGIC {
        return Err(corrupt("no blob record magic number".into()));
    }
    let mut length = [0u8; 8];
    length.copy_from_slice(&record[len - 12..len - 4]);
    if u64::from_le_bytes(length) != blob.length + OVERHEAD {
        return Err(corrupt(format!(
            "record length {} for {} bytes",
            u64::from_le_bytes(length),
            blob.length
        )));
    }
    if crc32fast::hash(&record[..len - 4]) != u32_at(len - 4) {
        return Err(corrupt("CRC-32 mismatch".into()));
    }
    Ok(record.slice(4..len - 12))
}

/// The BLOB references of the `rows` values of the `.blob` file `path` (`size` bytes): reads
/// only its footer and index. Refuses format versions other than 1 and placeholders.
pub(crate) async fn read_references(
    store: &dyn ObjectStore,
    path: &str,
    size: u64,
    rows: usize,
) -> Result<ArrayRef> {
    let corrupt = |what: String| Error::corrupt(path, format!("blob file: {what}"));
    if size < FOOTER {
        return Err(corrupt(format!("{size} bytes")));
    }
    let footer = store.get_range(path, size - FOOTER..size).await?;
    if footer.len() != 5 {
        return Err(corrupt("short footer".into()));
    }
    if footer[4] != VERSION {
        return Err(Error::unsupported(
            path,
            format!("blob file format version {} (known: {VERSION})", footer[4]),
        ));
    }
    let index_len = u64::from(u32::from_le_bytes([
        footer[0], footer[1], footer[2], footer[3],
    ]));
    let data_end = (size - FOOTER)
        .checked_sub(index_len)
        .ok_or_else(|| corrupt(format!("index of {index_len} bytes")))?;
    let index = store.get_range(path, data_end..size - FOOTER).await?;
    let lengths = decode_lengths(&index).map_err(corrupt)?;
    if lengths.len() != rows {
        return Err(corrupt(format!(
            "{} values, {rows} rows recorded",
            lengths.len()
        )));
    }
    let (mut offsets, mut sizes, mut valid) = (Vec::new(), Vec::new(), Vec::new());
    let mut at: u64 = 0;
    for length in lengths {
        match length {
            -1 => {
                offsets.push(0);
                sizes.push(0);
                valid.push(false);
            }
            -2 => {
                return Err(Error::unsupported(
                    path,
                    "blob file with placeholder values (BLOB values kept in other files)",
                ))
            }
            n => {
                let n = u64::try_from(n)
                    .ok()
                    .filter(|n| *n >= OVERHEAD)
                    .ok_or_else(|| corrupt(format!("record length {n}")))?;
                let offset = i64::try_from(at + 4).map_err(|e| corrupt(e.to_string()))?;
                let len = i64::try_from(n - OVERHEAD).map_err(|e| corrupt(e.to_string()))?;
                offsets.push(offset);
                sizes.push(len);
                valid.push(true);
                at = at
                    .checked_add(n)
                    .filter(|end| *end <= data_end)
                    .ok_or_else(|| corrupt("records past the index".into()))?;
            }
        }
    }
    let files = StringArray::from(vec![path; offsets.len()]);
    let array = StructArray::try_new(
        reference_fields(),
        vec![
            Arc::new(files),
            Arc::new(Int64Array::from(offsets)),
            Arc::new(Int64Array::from(sizes)),
        ],
        Some(NullBuffer::from(valid)),
    )
    .map_err(|e| corrupt(e.to_string()))?;
    Ok(Arc::new(array))
}

/// Paimon's `DeltaVarintCompressor`: the first value, then differences, each a zig-zag varint.
fn decode_lengths(bytes: &[u8]) -> std::result::Result<Vec<i64>, String> {
    let mut out = Vec::new();
    let mut previous: i64 = 0;
    let mut at = 0;
    while at < bytes.len() {
        let mut raw: u64 = 0;
        let mut shift = 0;
        loop {
            let b = *bytes.get(at).ok_or("index ends inside a varint")?;
            at += 1;
            if shift > 63 {
                return Err("index varint overflow".into());
            }
            raw |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        let delta = (raw >> 1) as i64 ^ -((raw & 1) as i64);
        previous = if out.is_empty() {
            delta
        } else {
            previous
                .checked_add(delta)
                .ok_or("index length out of range")?
        };
        out.push(previous);
    }
    Ok(out)
}

/// Refuses reading `file` (a Parquet, ORC or Avro file of `file_schema`) as holding a BLOB
/// column: Paimon keeps BLOB values in `.blob` files; inline BLOB bytes (descriptor or view
/// fields) are not implemented.
pub(crate) fn check_inline(
    path: &str,
    file: &DataFileMeta,
    file_schema: &TableSchema,
) -> Result<()> {
    let held = super::stitch::written_field_ids(file, file_schema);
    match file_schema
        .fields
        .iter()
        .find(|f| f.data_type.kind == TypeKind::Blob && held.contains(&f.id))
    {
        Some(f) => Err(Error::unsupported(
            path,
            format!(
                "BLOB column '{}' stored in a {} file (only .blob files are read)",
                f.name,
                file.file_name.rsplit_once('.').map_or("data", |(_, e)| e)
            ),
        )),
        None => Ok(()),
    }
}

/// The one BLOB field a `.blob` file holds (its `_WRITE_COLS`), in `file_schema`.
pub(crate) fn blob_field<'a>(
    path: &str,
    file: &DataFileMeta,
    file_schema: &'a TableSchema,
) -> Result<&'a DataField> {
    let held = super::stitch::written_field_ids(file, file_schema);
    let mut fields = file_schema.fields.iter().filter(|f| held.contains(&f.id));
    match (fields.next(), fields.next()) {
        (Some(f), None) if f.data_type.kind == TypeKind::Blob => Ok(f),
        _ => Err(Error::unsupported(
            path,
            format!(
                "blob file of columns {:?} (one BLOB column is read)",
                file.write_cols.as_deref().unwrap_or_default()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_storage::MemoryStore;

    /// A blob file as Paimon's `BlobFormatWriter` writes it.
    fn blob_file(values: &[Option<&[u8]>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut lengths = Vec::new();
        for v in values {
            let Some(v) = v else {
                lengths.push(-1i64);
                continue;
            };
            let start = out.len();
            out.extend_from_slice(&MAGIC.to_le_bytes());
            out.extend_from_slice(v);
            let len = (out.len() - start + 12) as u64;
            out.extend_from_slice(&len.to_le_bytes());
            let crc = crc32fast::hash(&out[start..]);
            out.extend_from_slice(&crc.to_le_bytes());
            lengths.push(len as i64);
        }
        let mut index = Vec::new();
        let mut previous = 0;
        for (i, l) in lengths.iter().enumerate() {
            let delta: i64 = if i == 0 { *l } else { l - previous };
            previous = *l;
            let mut z = ((delta << 1) ^ (delta >> 63)) as u64;
            while z >= 0x80 {
                index.push((z as u8 & 0x7f) | 0x80);
                z >>= 7;
            }
            index.push(z as u8);
        }
        out.extend_from_slice(&index);
        out.extend_from_slice(&(index.len() as u32).to_le_bytes());
        out.push(VERSION);
        out
    }

    async fn store_with(bytes: Vec<u8>) -> (MemoryStore, u64) {
        let store = MemoryStore::new();
        let size = bytes.len() as u64;
        store.put("t/b.blob", Bytes::from(bytes)).await.unwrap();
        (store, size)
    }

    #[test]
    fn references_point_at_the_bytes_and_fetch_checks_them() {
        futures::executor::block_on(async {
            let big = vec![7u8; 300];
            let values: [Option<&[u8]>; 4] = [Some(b"ab"), None, Some(b""), Some(&big)];
            let (store, size) = store_with(blob_file(&values)).await;
            let refs = read_references(&store, "t/b.blob", size, 4).await.unwrap();
            for (row, want) in values.iter().enumerate() {
                let got = match reference(refs.as_ref(), row).unwrap() {
                    Some(r) => Some(fetch(&store, &r).await.unwrap()),
                    None => None,
                };
                assert_eq!(got.as_deref(), *want, "row {row}");
            }
            // A wrong row count, a wrong reference and a newer format are named errors.
            let err = read_references(&store, "t/b.blob", size, 3)
                .await
                .unwrap_err();
            assert!(err.to_string().contains("4 values, 3 rows"), "{err}");
            let Some(mut r) = reference(refs.as_ref(), 0).unwrap() else {
                panic!("row 0 is not null")
            };
            r.offset += 1;
            let err = fetch(&store, &r).await.unwrap_err().to_string();
            assert!(
                err.starts_with("t/b.blob") && err.contains("magic"),
                "{err}"
            );
            let mut v2 = blob_file(&values);
            *v2.last_mut().unwrap() = 2;
            let (store, size) = store_with(v2).await;
            let err = read_references(&store, "t/b.blob", size, 4)
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Unsupported { .. }), "{err}");
            assert!(err.to_string().contains("version 2"), "{err}");
        });
    }

    #[test]
    fn a_flipped_byte_fails_the_crc() {
        futures::executor::block_on(async {
            let mut bytes = blob_file(&[Some(b"hello")]);
            bytes[5] ^= 1;
            let (store, size) = store_with(bytes).await;
            let refs = read_references(&store, "t/b.blob", size, 1).await.unwrap();
            let r = reference(refs.as_ref(), 0).unwrap().unwrap();
            let err = fetch(&store, &r).await.unwrap_err().to_string();
            assert!(err.contains("CRC-32"), "{err}");
        });
    }

    #[test]
    fn index_lengths_are_zig_zag_varint_deltas() {
        assert_eq!(decode_lengths(&[0x03, 0x04]).unwrap(), vec![-2, 0]);
    }
}
