//! Deletion vectors: Paimon's 32-bit and 64-bit DV records (index files) and row filtering.
//!
//! A DV index file is a version byte (1) followed by one record per data file:
//!
//! ```text
//! length   int32 BE   = byte count of magic + bitmap
//! magic    int32      1581511376 big-endian (32-bit DV) | 1681511377 little-endian (64-bit DV)
//! bitmap   32-bit: portable RoaringBitmap | 64-bit: u64 LE count, then (u32 LE key, RoaringBitmap)*
//! crc      int32 BE   = CRC-32 of magic + bitmap
//! ```
//!
//! The index manifest's `(offset, length)` for a data file points at `length` (the int32), with
//! `length` = the int32's value for 32-bit DVs and the whole record (+8) for 64-bit ones.

use crate::{Error, Result};
use arrow_array::{BooleanArray, RecordBatch};
use roaring::{RoaringBitmap, RoaringTreemap};
use std::io::Cursor;

/// Magic number of 32-bit (RoaringBitmap) deletion vectors, stored big-endian.
pub const MAGIC_32: u32 = 1_581_511_376;
/// Magic number of 64-bit (`deletion-vectors.bitmap64`) deletion vectors, stored little-endian.
pub const MAGIC_64: u32 = 1_681_511_377;
/// Version byte at the start of a DV index file.
pub const INDEX_FILE_VERSION: u8 = 1;

/// The deleted row positions of one data file.
#[derive(Debug, Clone, PartialEq)]
pub enum DeletionVector {
    /// Default form: positions below 2^32.
    Bitmap32(RoaringBitmap),
    /// `deletion-vectors.bitmap64=true` form (Iceberg-compatible).
    Bitmap64(RoaringTreemap),
}

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid deletion vector: {e}"))
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    be_u32(bytes, at).map(u32::swap_bytes)
}

/// Decodes one deletion vector. `bytes` is either a whole record (starting at the length int32,
/// with or without the trailing CRC, which is checked when present; anything after it is
/// ignored) or a bare `magic + bitmap`. `file_name` names the index file in errors.
pub fn decode(file_name: &str, bytes: &[u8]) -> Result<DeletionVector> {
    let first_be = be_u32(bytes, 0).ok_or_else(|| corrupt(file_name, "shorter than 4 bytes"))?;
    if first_be == MAGIC_32 || first_be.swap_bytes() == MAGIC_64 {
        return decode_body(file_name, bytes);
    }
    let len = first_be as usize;
    let body = bytes
        .get(4..4usize.saturating_add(len))
        .filter(|_| len <= bytes.len())
        .ok_or_else(|| {
            corrupt(
                file_name,
                format!("record of {len} bytes, only {} present", bytes.len() - 4),
            )
        })?;
    if let Some(expected) = be_u32(bytes, 4 + len) {
        let actual = crc32(body);
        if actual != expected {
            return Err(corrupt(
                file_name,
                format!("checksum {actual:#010x} != stored {expected:#010x}"),
            ));
        }
    }
    decode_body(file_name, body)
}

/// Decodes the deletion vector of a data file from a whole DV index file, given the
/// `(offset, length)` of its `_DELETIONS_VECTORS_RANGES` entry (either length convention).
pub fn decode_range(
    file_name: &str,
    index_file: &[u8],
    offset: u64,
    length: u64,
) -> Result<DeletionVector> {
    let start = usize::try_from(offset)
        .ok()
        .filter(|s| *s <= index_file.len())
        .ok_or_else(|| {
            corrupt(
                file_name,
                format!("offset {offset} past the end ({} bytes)", index_file.len()),
            )
        })?;
    let rest = &index_file[start..];
    let len = be_u32(rest, 0)
        .ok_or_else(|| corrupt(file_name, format!("no record at offset {offset}")))?;
    let len = u64::from(len);
    if length != len && length != len + 8 {
        return Err(corrupt(
            file_name,
            format!("record at {offset} has {len} bytes, index says {length}"),
        ));
    }
    let end = usize::try_from(len + 8)
        .unwrap_or(usize::MAX)
        .min(rest.len());
    decode(file_name, &rest[..end])
}

/// Decodes every record of a DV index file, in file order, with the offset of each record.
pub fn decode_index_file(file_name: &str, bytes: &[u8]) -> Result<Vec<(u64, DeletionVector)>> {
    match bytes.first() {
        Some(&INDEX_FILE_VERSION) => {}
        Some(v) => {
            return Err(corrupt(
                file_name,
                format!("unknown index file version {v}"),
            ))
        }
        None => return Err(corrupt(file_name, "empty index file")),
    }
    let mut out = Vec::new();
    let mut at = 1usize;
    while at < bytes.len() {
        let len = be_u32(bytes, at)
            .ok_or_else(|| corrupt(file_name, format!("truncated record at {at}")))?;
        let end = at
            .checked_add(len as usize)
            .and_then(|e| e.checked_add(8))
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| corrupt(file_name, format!("truncated record at {at}")))?;
        out.push((at as u64, decode(file_name, &bytes[at..end])?));
        at = end;
    }
    Ok(out)
}

fn decode_body(file_name: &str, body: &[u8]) -> Result<DeletionVector> {
    let magic = be_u32(body, 0).ok_or_else(|| corrupt(file_name, "no magic number"))?;
    let payload = &body[4..];
    let mut cursor = Cursor::new(payload);
    let dv = if magic == MAGIC_32 {
        DeletionVector::Bitmap32(
            RoaringBitmap::deserialize_from(&mut cursor).map_err(|e| corrupt(file_name, e))?,
        )
    } else if le_u32(body, 0) == Some(MAGIC_64) {
        DeletionVector::Bitmap64(
            RoaringTreemap::deserialize_from(&mut cursor).map_err(|e| corrupt(file_name, e))?,
        )
    } else {
        return Err(corrupt(file_name, format!("unknown magic number {magic}")));
    };
    if cursor.position() != payload.len() as u64 {
        return Err(corrupt(
            file_name,
            format!(
                "{} trailing bytes after the bitmap",
                payload.len() as u64 - cursor.position()
            ),
        ));
    }
    Ok(dv)
}

impl DeletionVector {
    /// A 64-bit vector deleting the given positions.
    pub fn from_positions(positions: impl IntoIterator<Item = u64>) -> Self {
        DeletionVector::Bitmap64(positions.into_iter().collect())
    }

    /// Whether the row at `row_position` (0-based within the data file) is deleted.
    pub fn is_deleted(&self, row_position: u64) -> bool {
        match self {
            DeletionVector::Bitmap32(b) => u32::try_from(row_position).is_ok_and(|p| b.contains(p)),
            DeletionVector::Bitmap64(b) => b.contains(row_position),
        }
    }

    /// Number of deleted rows.
    pub fn cardinality(&self) -> u64 {
        match self {
            DeletionVector::Bitmap32(b) => b.len(),
            DeletionVector::Bitmap64(b) => b.len(),
        }
    }

    /// Whether no row is deleted.
    pub fn is_empty(&self) -> bool {
        self.cardinality() == 0
    }

    /// The deleted positions in increasing order.
    pub fn positions(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            DeletionVector::Bitmap32(b) => Box::new(b.iter().map(u64::from)),
            DeletionVector::Bitmap64(b) => Box::new(b.iter()),
        }
    }

    /// Drops the deleted rows from the batches of one data file (positions count from 0 across
    /// the batches, in order).
    pub fn apply(&self, batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
        self.filter(batches, false)
    }

    /// Keeps only the deleted rows of the batches of one data file, the complement of
    /// [`Self::apply`] (a batch without any of them comes back empty).
    pub fn select(&self, batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
        self.filter(batches, true)
    }

    /// Keeps the rows whose deleted-ness is `deleted`.
    fn filter(&self, batches: Vec<RecordBatch>, deleted: bool) -> Result<Vec<RecordBatch>> {
        let mut start = 0u64;
        let mut out = Vec::with_capacity(batches.len());
        for batch in batches {
            let rows = batch.num_rows() as u64;
            out.push(self.filter_batch(batch, start, deleted)?);
            start += rows;
        }
        Ok(out)
    }

    /// Drops the deleted rows of one batch whose first row is at file position `start`.
    pub fn apply_at(&self, batch: RecordBatch, start: u64) -> Result<RecordBatch> {
        self.filter_batch(batch, start, false)
    }

    /// Keeps the rows of one batch (first row at file position `start`) whose deleted-ness is
    /// `deleted`.
    fn filter_batch(&self, batch: RecordBatch, start: u64, deleted: bool) -> Result<RecordBatch> {
        let rows = batch.num_rows() as u64;
        let any = match self {
            DeletionVector::Bitmap32(b) => {
                let lo = u32::try_from(start).unwrap_or(u32::MAX);
                let hi = u32::try_from(start + rows).unwrap_or(u32::MAX);
                lo < hi && b.range_cardinality(lo..hi) > 0
            }
            DeletionVector::Bitmap64(b) => b.range_cardinality(start..start + rows) > 0,
        };
        if any {
            let keep: BooleanArray = (start..start + rows)
                .map(|p| Some(self.is_deleted(p) == deleted))
                .collect();
            arrow_select::filter::filter_record_batch(&batch, &keep)
                .map_err(|e| Error::Invalid(format!("applying a deletion vector: {e}")))
        } else if deleted {
            Ok(batch.slice(0, 0))
        } else {
            Ok(batch)
        }
    }

    /// The serialized record (`length`, magic, bitmap, CRC) as Paimon writes it in index files.
    pub fn to_record(&self) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        let io = |e: std::io::Error| Error::Invalid(format!("serializing a deletion vector: {e}"));
        match self {
            DeletionVector::Bitmap32(b) => {
                body.extend_from_slice(&MAGIC_32.to_be_bytes());
                b.serialize_into(&mut body).map_err(io)?;
            }
            DeletionVector::Bitmap64(b) => {
                body.extend_from_slice(&MAGIC_64.to_le_bytes());
                b.serialize_into(&mut body).map_err(io)?;
            }
        }
        let len = u32::try_from(body.len())
            .map_err(|_| Error::Invalid("deletion vector over 4 GiB".into()))?;
        let mut out = Vec::with_capacity(body.len() + 8);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
        Ok(out)
    }
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// CRC-32 (IEEE, as `java.util.zip.CRC32`).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int32Array};
    use std::sync::Arc;

    #[test]
    fn crc_matches_java() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn round_trips_64_bit_vectors() {
        let big = (1u64 << 32) + 5;
        let dv = DeletionVector::from_positions([0, 3, big]);
        let record = dv.to_record().unwrap();
        // magic is little-endian right after the BE length
        assert_eq!(&record[4..8], &MAGIC_64.to_le_bytes());
        let back = decode("index-1", &record).unwrap();
        assert_eq!(back, dv);
        assert!(back.is_deleted(big));
        assert!(!back.is_deleted(1));
        assert_eq!(back.cardinality(), 3);
        // the 64-bit length convention: the whole record
        let mut file = vec![INDEX_FILE_VERSION];
        file.extend_from_slice(&record);
        let via_range = decode_range("index-1", &file, 1, record.len() as u64).unwrap();
        assert_eq!(via_range, dv);
        assert_eq!(decode_index_file("index-1", &file).unwrap(), vec![(1, dv)]);
    }

    #[test]
    fn hand_built_64_bit_layout() {
        // count=1 (u64 LE), key=1 (u32 LE), then a 32-bit portable bitmap {7}
        let mut inner = Vec::new();
        RoaringBitmap::from_iter([7u32])
            .serialize_into(&mut inner)
            .unwrap();
        let mut body = MAGIC_64.to_le_bytes().to_vec();
        body.extend_from_slice(&1u64.to_le_bytes());
        body.extend_from_slice(&1u32.to_le_bytes());
        body.extend_from_slice(&inner);
        let dv = decode("dv", &body).unwrap();
        assert!(dv.is_deleted((1u64 << 32) | 7));
        assert_eq!(dv.cardinality(), 1);
    }

    #[test]
    fn corrupt_inputs_are_errors() {
        let record = DeletionVector::Bitmap32([1u32, 2].into_iter().collect())
            .to_record()
            .unwrap();
        for cut in 0..record.len() - 4 {
            let err = decode("index-x", &record[..cut]).unwrap_err();
            assert!(err.to_string().contains("index-x"), "{err}");
        }
        let mut bad_crc = record.clone();
        let last = bad_crc.len() - 1;
        bad_crc[last] ^= 1;
        assert!(decode("index-x", &bad_crc).is_err());
        let mut bad_magic = record.clone();
        bad_magic[5] ^= 0x40;
        assert!(decode("index-x", &bad_magic).is_err());
        assert!(decode("index-x", &[0xff; 12]).is_err());
        assert!(decode_index_file("index-x", &[2, 0, 0]).is_err());
        assert!(decode_range("index-x", &record, 100, 4).is_err());
        assert!(decode_range("index-x", &record, 0, 3).is_err());
    }

    #[test]
    fn apply_filters_across_batches() {
        let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "v",
            arrow_schema::DataType::Int32,
            false,
        )]));
        let batch = |v: Vec<i32>| {
            RecordBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(v))]).unwrap()
        };
        let values = |out: Vec<RecordBatch>| -> Vec<i32> {
            out.iter()
                .flat_map(|b| {
                    let a = b
                        .column(0)
                        .as_any()
                        .downcast_ref::<Int32Array>()
                        .unwrap()
                        .clone();
                    a.values().to_vec()
                })
                .collect()
        };
        let dv = DeletionVector::Bitmap32([0u32, 4].into_iter().collect());
        let input = || {
            vec![
                batch(vec![10, 11, 12]),
                batch(vec![13, 14]),
                batch(vec![15]),
            ]
        };
        assert_eq!(values(dv.apply(input()).unwrap()), vec![11, 12, 13, 15]);
        let selected = dv.select(input()).unwrap();
        assert_eq!(selected.len(), 3);
        assert_eq!(values(selected), vec![10, 14]);
    }
}
