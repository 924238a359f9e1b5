//! Encoding one data file: Arrow batch → Parquet bytes in Java Paimon's physical layout.
//!
//! Java's mapping is kept where readers care: DECIMAL p ≤ 9 as INT32 and p ≤ 18 as INT64 (the
//! Parquet crate's own choice for p ≥ 2), TIMESTAMP(p ≤ 3) as INT64 millis and p ≤ 6 as INT64
//! micros, TIME as INT32 millis, root group `paimon_schema`, NOT NULL columns `required`.

#[cfg(feature = "orc")]
use super::orc_file;
use crate::error::{Error, Result};
use crate::read::arrow_schema::to_arrow_field;
use crate::spec::options::CoreOptions;
use crate::spec::types::{DataField, TypeKind};
use arrow_array::cast::AsArray;
use arrow_array::types::{ByteArrayType, ByteViewType};
use arrow_array::{Array, ArrayRef, GenericByteArray, GenericByteViewArray, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, Type as PhysicalType, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

/// The Arrow field a Paimon field is written with (Java's physical units).
pub fn physical_field(field: &DataField) -> Result<Field> {
    let base = to_arrow_field(field);
    let t = match &field.data_type.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let tz = match base.data_type() {
                ArrowType::Timestamp(_, tz) => tz.clone(),
                _ => None,
            };
            let unit = match p {
                0..=3 => TimeUnit::Millisecond,
                4..=6 => TimeUnit::Microsecond,
                _ => {
                    return Err(Error::unsupported(
                        &field.name,
                        format!(
                            "writing {} (Java stores precision > 6 as INT96)",
                            field.data_type
                        ),
                    ))
                }
            };
            ArrowType::Timestamp(unit, tz)
        }
        TypeKind::Time(_) => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Decimal { precision: 1, .. } => {
            return Err(Error::unsupported(
                &field.name,
                "writing DECIMAL(1, s) to Parquet (Java expects INT32)",
            ))
        }
        TypeKind::Decimal { .. } => base.data_type().clone(),
        TypeKind::Variant => {
            return Err(Error::unsupported(
                &field.name,
                "writing VARIANT columns (read as JSON text; Paimon stores the variant binary encoding)",
            ))
        }
        _ if matches!(field.data_type.kind, TypeKind::Vector(..) | TypeKind::Blob)
            || field.data_type.is_nested() =>
        {
            return Err(Error::unsupported(
                &field.name,
                format!("writing {} columns", field.data_type.clone().with_nullable(true)),
            ))
        }
        _ => base.data_type().clone(),
    };
    Ok(Field::new(&field.name, t, field.data_type.nullable))
}

/// The Arrow schema of a file holding these fields.
pub fn physical_schema(fields: &[DataField]) -> Result<SchemaRef> {
    Ok(Arc::new(Schema::new(
        fields
            .iter()
            .map(physical_field)
            .collect::<Result<Vec<_>>>()?,
    )))
}

/// Casts `columns` (lakescope's Arrow mapping) to the physical schema and builds the batch.
pub fn physical_batch(fields: &[DataField], columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    cast_batch(physical_schema(fields)?, columns)
}

/// Casts `columns` to `schema`'s types and builds the batch.
fn cast_batch(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    let columns = columns
        .into_iter()
        .zip(schema.fields().iter())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c)
            } else {
                arrow_cast::cast(&c, f.data_type()).map_err(|e| {
                    Error::Invalid(format!(
                        "column {}: cannot cast to {}: {e}",
                        f.name(),
                        f.data_type()
                    ))
                })
            }
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema, columns)
        .map_err(|e| Error::Invalid(format!("building a data file batch: {e}")))
}

/// Parquet compression for Paimon's `file.compression` value.
pub fn compression(name: &str, zstd_level: i32) -> Result<Compression> {
    let c =
        match name {
            "zstd" => Compression::ZSTD(
                ZstdLevel::try_new(zstd_level)
                    .map_err(|e| Error::Invalid(format!("zstd level: {e}")))?,
            ),
            "snappy" => Compression::SNAPPY,
            "lz4" => Compression::LZ4_RAW,
            "gzip" => Compression::GZIP(GzipLevel::default()),
            "brotli" if cfg!(feature = "brotli") => Compression::BROTLI(BrotliLevel::default()),
            "brotli" => return Err(Error::Invalid(
                "file.compression 'brotli': this build leaves the BROTLI codec out (the browser \
                 app does, to keep its first load small); write with the lakescope CLI"
                    .to_string(),
            )),
            "none" | "uncompressed" => Compression::UNCOMPRESSED,
            other => {
                return Err(Error::Invalid(format!(
                    "file.compression '{other}' is not supported for Parquet"
                )))
            }
        };
    Ok(c)
}

/// Rows of parquet-mr's first data page (`parquet.page.row.count.limit`, default 20,000; the
/// Parquet crate's `DEFAULT_DATA_PAGE_ROW_COUNT_LIMIT` is the same).
const PAGE_ROW_COUNT_LIMIT: usize = 20_000;

/// The Parquet writer settings of a table: Paimon 0.9 hands every `parquet.*` table option to
/// parquet-mr (`ParquetFileFormat.getParquetConfiguration`, `RowDataParquetBuilder`); these are
/// the ones lakescope implements, with parquet-mr's defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParquetSettings {
    /// `parquet.compression` if set, else `file.compression` (zstd); the zstd level is
    /// `parquet.compression.codec.zstd.level` if set, else `file.compression.zstd-level` (1).
    pub compression: Compression,
    /// `parquet.row-group.rows` (lakescope's; default 1,048,576 rows).
    pub row_group_rows: usize,
    /// `parquet.enable.dictionary` (default true): dictionary encoding where it pays off, as
    /// parquet-mr decides it (see [`dictionary_pays_off`]).
    pub dictionary: bool,
    /// `parquet.dictionary.page.size` (default 1 MiB): past it a column falls back to PLAIN.
    pub dictionary_page_size: usize,
    /// `parquet.page.size` (default 1 MiB).
    pub page_size: usize,
}

impl ParquetSettings {
    /// The settings a table's options give (Paimon's and parquet-mr's defaults otherwise).
    pub fn from_options(options: &CoreOptions) -> Result<Self> {
        let int = |key: &str, default: usize| -> Result<usize> {
            match options.get(key) {
                None => Ok(default),
                Some(v) => match v.trim().parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(Error::Invalid(format!(
                        "{key} '{v}' is not a positive integer"
                    ))),
                },
            }
        };
        let zstd_level = match options
            .get("parquet.compression.codec.zstd.level")
            .map(|v| ("parquet.compression.codec.zstd.level", v))
            .or_else(|| {
                options
                    .get("file.compression.zstd-level")
                    .map(|v| ("file.compression.zstd-level", v))
            }) {
            None => 1,
            Some((key, v)) => v
                .trim()
                .parse()
                .map_err(|_| Error::Invalid(format!("{key} '{v}' is not an integer")))?,
        };
        let codec = match options.get("parquet.compression") {
            Some(v) => v.trim().to_ascii_lowercase(),
            None => options.file_compression(),
        };
        Ok(Self {
            compression: compression(&codec, zstd_level)?,
            row_group_rows: int("parquet.row-group.rows", 1 << 20)?,
            dictionary: options.get_bool("parquet.enable.dictionary", true)?,
            dictionary_page_size: int("parquet.dictionary.page.size", 1 << 20)?,
            page_size: int("parquet.page.size", 1 << 20)?,
        })
    }
}

/// Whether parquet-mr (v1 writer) would keep this column chunk dictionary-encoded.
///
/// parquet-mr encodes the first page with a dictionary and keeps it only if the dictionary stays
/// within `parquet.dictionary.page.size` and the page's RLE-encoded ids plus the dictionary are
/// smaller than the values PLAIN (`DictionaryValuesWriter.isCompressionSatisfying`, checked by
/// `FallbackValuesWriter` on the first page); otherwise the whole chunk is PLAIN. The Parquet
/// crate has no such check and dictionary-encodes unique values (keys, sequence numbers, random
/// doubles, unique strings) until the dictionary page is full: the dictionary then holds every
/// value and the ids come on top, which zstd cannot take back (issue 27, P10: 1.4–1.6× Java's
/// bytes). The first page is the first 20,000 values, or fewer when 4 bytes per buffered id
/// reach `page_size` (parquet-mr's dictionary writer buffers ids as ints).
fn dictionary_pays_off(
    array: &dyn Array,
    plain_width: Option<usize>,
    settings: &ParquetSettings,
) -> bool {
    let rows = array
        .len()
        .min(PAGE_ROW_COUNT_LIMIT)
        .min((settings.page_size / 4).max(1));
    let array = array.slice(0, rows);
    let nulls = array.nulls();
    let valid = |i: usize| nulls.is_none_or(|n| n.is_valid(i));
    let limit = settings.dictionary_page_size;
    let page = match array.data_type().primitive_width() {
        // Fixed-width values as integer keys (cheaper to hash than slices).
        Some(width) if width <= 16 => {
            let data = array.to_data();
            let start = data.offset() * width;
            let Some(bytes) = data
                .buffers()
                .first()
                .and_then(|b| b.as_slice().get(start..start + rows * width))
            else {
                return true;
            };
            let size = plain_width.unwrap_or(width);
            let keys: Vec<u128> = bytes
                .chunks_exact(width)
                .enumerate()
                .filter(|(i, _)| valid(*i))
                .map(|(_, v)| {
                    let mut key = [0u8; 16];
                    key[..width].copy_from_slice(v);
                    u128::from_le_bytes(key)
                })
                .collect();
            first_page(keys, |_| size, limit)
        }
        _ => {
            let Some(values) = byte_values(array.as_ref()) else {
                // Types without a dictionary in Parquet (BOOLEAN) or not written here.
                return true;
            };
            // PLAIN byte arrays: a 4-byte length + the bytes.
            let size = |v: &&[u8]| plain_width.unwrap_or(4 + v.len());
            first_page(values, size, limit)
        }
    };
    let Some(page) = page else {
        return false;
    };
    let bit_width = 32 - (page.distinct.saturating_sub(1) as u32).leading_zeros();
    rle_hybrid_size(&page.ids, bit_width) + page.dictionary < page.raw
}

/// A first page dictionary-encoded: PLAIN bytes of its values and of its dictionary, the ids.
struct FirstPage {
    raw: usize,
    dictionary: usize,
    distinct: usize,
    ids: Vec<u32>,
}

/// Encodes `values` (PLAIN size `size`) with a dictionary; `None` once the dictionary exceeds
/// `limit` bytes or when the values are strictly monotonic (the keys of a primary-key file, a
/// sequence): all distinct, so the dictionary alone is as large as the values (parquet-mr's
/// test fails) and hashing them can be skipped.
fn first_page<K: Hash + Ord>(
    values: Vec<K>,
    size: impl Fn(&K) -> usize,
    limit: usize,
) -> Option<FirstPage> {
    if values.windows(2).all(|w| w[0] < w[1]) || values.windows(2).all(|w| w[0] > w[1]) {
        return None;
    }
    let mut dict: HashMap<K, u32, BuildHasherDefault<MixHasher>> = HashMap::default();
    let (mut raw, mut dictionary, mut ids) = (0usize, 0usize, Vec::new());
    for v in values {
        let n = size(&v);
        raw += n;
        let next = dict.len() as u32;
        let id = *dict.entry(v).or_insert_with(|| {
            dictionary += n;
            next
        });
        if dictionary > limit {
            return None;
        }
        ids.push(id);
    }
    Some(FirstPage {
        raw,
        dictionary,
        distinct: dict.len(),
        ids,
    })
}

/// A fast hasher for [`first_page`] (std's SipHash costs as much as the rest of the test, and
/// its DoS resistance is not needed for at most 20,000 values of a file being written): 8 bytes
/// at a time, finished with MurmurHash3's 64-bit mix so that every input bit reaches the bits
/// the table indexes with.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0 ^ word)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }

    fn write_u128(&mut self, word: u128) {
        self.write_u64(word as u64);
        self.write_u64((word >> 64) as u64);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// The bytes of each non-null value of a byte-array column; `None` for other types.
fn byte_values(array: &dyn Array) -> Option<Vec<&[u8]>> {
    fn bytes_of<T: ByteArrayType>(a: &GenericByteArray<T>) -> Vec<&[u8]> {
        a.iter()
            .flatten()
            .map(|v| -> &[u8] { v.as_ref() })
            .collect()
    }
    fn views_of<T: ByteViewType + ?Sized>(a: &GenericByteViewArray<T>) -> Vec<&[u8]> {
        a.iter()
            .flatten()
            .map(|v| -> &[u8] { v.as_ref() })
            .collect()
    }
    let out = match array.data_type() {
        ArrowType::Utf8 => bytes_of(array.as_string::<i32>()),
        ArrowType::LargeUtf8 => bytes_of(array.as_string::<i64>()),
        ArrowType::Binary => bytes_of(array.as_binary::<i32>()),
        ArrowType::LargeBinary => bytes_of(array.as_binary::<i64>()),
        ArrowType::Utf8View => views_of(array.as_string_view()),
        ArrowType::BinaryView => views_of(array.as_binary_view()),
        ArrowType::FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            (0..a.len())
                .filter(|&i| a.is_valid(i))
                .map(|i| a.value(i))
                .collect()
        }
        // Paimon's types have no fixed width over 16 bytes (DECIMAL is at most 38 digits).
        _ => return None,
    };
    Some(out)
}

/// Bytes of `ids` in the RLE / bit-packing hybrid at `bit_width` (+1 for the width byte), as
/// parquet-mr's encoder writes them: runs of 8 or more equal ids as RLE runs, the rest
/// bit-packed (headers between bit-packed groups are not counted).
fn rle_hybrid_size(ids: &[u32], bit_width: u32) -> usize {
    let (mut bytes, mut packed_bits) = (1usize, 0usize);
    let mut run = 0usize;
    for (i, id) in ids.iter().enumerate() {
        run += 1;
        if ids.get(i + 1) != Some(id) {
            if run >= 8 {
                bytes += 1 + (bit_width as usize).div_ceil(8);
            } else {
                packed_bits += run * bit_width as usize;
            }
            run = 0;
        }
    }
    bytes + packed_bits.div_ceil(8)
}

/// The writer properties of one file: `settings`, with dictionary encoding on only for the
/// columns where parquet-mr would keep it (judged on the first batch's first page).
fn writer_properties(
    schema: &SchemaRef,
    first: Option<&RecordBatch>,
    settings: &ParquetSettings,
) -> Result<WriterProperties> {
    let mut props = WriterProperties::builder()
        .set_compression(settings.compression)
        .set_max_row_group_row_count(Some(settings.row_group_rows.max(1)))
        .set_data_page_size_limit(settings.page_size)
        .set_dictionary_page_size_limit(settings.dictionary_page_size)
        .set_dictionary_enabled(settings.dictionary)
        .set_created_by("lakescope".into());
    if let (true, Some(batch)) = (settings.dictionary, first) {
        let parquet = ArrowSchemaConverter::new()
            .schema_root("paimon_schema")
            .convert(schema)
            .map_err(|e| Error::Invalid(format!("Parquet schema of a data file: {e}")))?;
        // Flat columns only (nested types are refused by `physical_field`): one leaf per field.
        for (column, leaf) in batch.columns().iter().zip(parquet.columns()) {
            let width = match leaf.physical_type() {
                PhysicalType::BYTE_ARRAY => None,
                PhysicalType::INT32 | PhysicalType::FLOAT => Some(4),
                PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
                PhysicalType::INT96 => Some(12),
                PhysicalType::FIXED_LEN_BYTE_ARRAY => Some(leaf.type_length().max(0) as usize),
                PhysicalType::BOOLEAN => continue,
            };
            if !dictionary_pays_off(column.as_ref(), width, settings) {
                props = props.set_column_dictionary_enabled(leaf.path().clone(), false);
            }
        }
    }
    Ok(props.build())
}

/// Encodes `batches` (all with the same physical schema) as one Parquet file.
pub fn encode_parquet(
    file: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    settings: &ParquetSettings,
) -> Result<Vec<u8>> {
    let props = writer_properties(schema, batches.first(), settings)?;
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_skip_arrow_metadata(true)
        .with_schema_root("paimon_schema".into());
    let err =
        |e: parquet::errors::ParquetError| Error::corrupt(file, format!("writing Parquet: {e}"));
    let mut writer =
        ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options).map_err(err)?;
    for b in batches {
        writer.write(b).map_err(err)?;
    }
    writer.into_inner().map_err(err)
}

/// How new data files are encoded: `file.format` with its `file.compression`.
#[derive(Debug, Clone, Copy)]
pub enum FileEncoding {
    /// Parquet with these writer settings.
    Parquet(ParquetSettings),
    /// ORC with this codec (`None` = uncompressed).
    #[cfg(feature = "orc")]
    Orc {
        /// Stream compression.
        compression: Option<orc_rust::compression::CompressionType>,
    },
}

impl FileEncoding {
    /// The encoding of a table's options: `file.format` (`parquet` or `orc`), `file.compression`
    /// and, for Parquet, the [`ParquetSettings`].
    pub fn new(options: &CoreOptions) -> Result<Self> {
        match options.file_format().as_str() {
            "parquet" => Ok(Self::Parquet(ParquetSettings::from_options(options)?)),
            #[cfg(feature = "orc")]
            "orc" => Ok(Self::Orc {
                compression: orc_file::compression(&options.file_compression())?,
            }),
            // The browser app writes data files only in its SQL worker, which has orc-rust.
            #[cfg(not(feature = "orc"))]
            "orc" => Err(Error::unsupported(
                "file.format",
                "writing ORC: this build has no ORC encoder (lakescope-paimon feature `orc`)",
            )),
            other => Err(Error::unsupported(
                "file.format",
                format!("writing file.format={other} (only parquet and orc)"),
            )),
        }
    }

    /// The data file name extension (`parquet`, `orc`).
    pub fn extension(&self) -> &'static str {
        match self {
            Self::Parquet(_) => "parquet",
            #[cfg(feature = "orc")]
            Self::Orc { .. } => "orc",
        }
    }

    /// Checks that a field can be written in this format.
    pub fn check_field(&self, field: &DataField) -> Result<()> {
        match self {
            Self::Parquet(_) => physical_field(field).map(|_| ()),
            #[cfg(feature = "orc")]
            Self::Orc { .. } => orc_file::physical_field(field).map(|_| ()),
        }
    }

    /// Casts `columns` to the format's physical types and encodes them as one file.
    pub fn encode(
        &self,
        file: &str,
        fields: &[DataField],
        columns: Vec<ArrayRef>,
    ) -> Result<(Vec<u8>, usize)> {
        match self {
            Self::Parquet(settings) => {
                let batch = physical_batch(fields, columns)?;
                let bytes = encode_parquet(
                    file,
                    batch.schema_ref(),
                    std::slice::from_ref(&batch),
                    settings,
                )?;
                Ok((bytes, batch.num_rows()))
            }
            #[cfg(feature = "orc")]
            Self::Orc { compression } => {
                let batch = cast_batch(orc_file::physical_schema(fields)?, columns)?;
                Ok((
                    orc_file::encode_orc(file, &batch, *compression)?,
                    batch.num_rows(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BooleanArray, Float64Array, Int32Array, Int64Array, Int8Array, StringArray};
    use bytes::Bytes;
    use parquet::basic::Encoding;
    use parquet::file::properties::WriterVersion;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::schema::types::ColumnPath;

    /// A pk_upsert-like batch (`perf.pk_upsert` of `lakescope bench-write`): keys, sequence
    /// numbers and `qty` unique, `price` random, `name` unique, `ver`/kind constant, `note` few.
    fn pk_batch(rows: usize) -> RecordBatch {
        let keys: Vec<i64> = (0..rows as i64).map(|k| k * 5 / 2).collect();
        let mut x: u64 = 42;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let words = [
            "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
        ];
        let cols: Vec<(&str, ArrayRef)> = vec![
            ("_KEY_id", Arc::new(Int64Array::from(keys.clone()))),
            (
                "_SEQUENCE_NUMBER",
                Arc::new(Int64Array::from_iter_values(0..rows as i64)),
            ),
            ("_VALUE_KIND", Arc::new(Int8Array::from(vec![0i8; rows]))),
            ("id", Arc::new(Int64Array::from(keys.clone()))),
            ("ver", Arc::new(Int32Array::from(vec![Some(1); rows]))),
            (
                "qty",
                Arc::new(Int64Array::from_iter(keys.iter().map(|k| Some(k * 31 + 1)))),
            ),
            (
                "price",
                Arc::new(Float64Array::from_iter((0..rows).map(|_| {
                    Some((rnd() >> 11) as f64 / (1u64 << 53) as f64 * 1000.0)
                }))),
            ),
            (
                "name",
                Arc::new(StringArray::from_iter(
                    keys.iter()
                        .map(|k| Some(format!("{}-{k}", words[*k as usize % 8]))),
                )),
            ),
            (
                "note",
                Arc::new(StringArray::from_iter((0..rows).map(|_| {
                    let (a, b) = (rnd() as usize % 8, rnd() as usize % 8);
                    Some(format!("commit1 {} {}", words[a], words[b]))
                }))),
            ),
        ];
        RecordBatch::try_from_iter(cols).unwrap()
    }

    fn options(pairs: &[(&str, &str)]) -> CoreOptions {
        CoreOptions::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// (column, encodings, has a dictionary page) of each column chunk of row group 0.
    fn chunks(bytes: Vec<u8>) -> Vec<(String, Vec<Encoding>, bool)> {
        let reader = SerializedFileReader::new(Bytes::from(bytes)).unwrap();
        let meta = reader.metadata().row_group(0).clone();
        meta.columns()
            .iter()
            .map(|c| {
                let mut e: Vec<Encoding> = c.encodings().collect();
                e.sort_by_key(|e| format!("{e:?}"));
                (
                    c.column_path().string(),
                    e,
                    c.dictionary_page_offset().is_some(),
                )
            })
            .collect()
    }

    #[test]
    fn vector_and_blob_columns_are_not_written() {
        for (name, ty) in [("v", "VECTOR<FLOAT, 3>"), ("p", "BLOB")] {
            let field = DataField {
                id: 0,
                name: name.into(),
                data_type: crate::spec::DataType::parse(ty).unwrap(),
                description: None,
            };
            for err in [
                physical_field(&field).unwrap_err(),
                crate::write::orc_file::physical_field(&field).unwrap_err(),
            ] {
                let msg = err.to_string();
                assert!(matches!(err, Error::Unsupported { .. }), "{msg}");
                assert!(
                    msg.starts_with(name) && msg.contains(&format!("writing {ty}")),
                    "{msg}"
                );
            }
        }
    }

    #[test]
    fn default_settings_are_paimon_09s() {
        // Paimon 0.9 (ParquetFileFormat, RowDataParquetBuilder) with parquet-mr 1.13's defaults:
        // zstd level 1 (`file.compression.zstd-level`), dictionary on, 1 MiB pages and
        // dictionary pages.
        let s = ParquetSettings::from_options(&options(&[])).unwrap();
        assert_eq!(
            s,
            ParquetSettings {
                compression: Compression::ZSTD(ZstdLevel::try_new(1).unwrap()),
                row_group_rows: 1 << 20,
                dictionary: true,
                dictionary_page_size: 1 << 20,
                page_size: 1 << 20,
            }
        );
        let b = pk_batch(100);
        let props = writer_properties(b.schema_ref(), Some(&b), &s).unwrap();
        let path = ColumnPath::from("ver");
        assert_eq!(props.compression(&path), s.compression);
        assert_eq!(props.data_page_size_limit(), 1 << 20);
        assert_eq!(props.dictionary_page_size_limit(), 1 << 20);
        assert_eq!(props.data_page_row_count_limit(), PAGE_ROW_COUNT_LIMIT);
        assert_eq!(props.writer_version(), WriterVersion::PARQUET_1_0);
        assert!(props.dictionary_enabled(&path));
        assert!(!props.dictionary_enabled(&ColumnPath::from("id")));
    }

    #[test]
    fn parquet_options_are_honoured() {
        let s = ParquetSettings::from_options(&options(&[
            ("file.compression.zstd-level", "3"),
            ("parquet.enable.dictionary", "false"),
            ("parquet.page.size", "4096"),
            ("parquet.dictionary.page.size", "2048"),
        ]))
        .unwrap();
        assert_eq!(
            s.compression,
            Compression::ZSTD(ZstdLevel::try_new(3).unwrap())
        );
        assert!(!s.dictionary);
        assert_eq!((s.page_size, s.dictionary_page_size), (4096, 2048));
        // parquet-mr's own keys win over Paimon's, as Java's `getParquetConfiguration` does.
        let s = ParquetSettings::from_options(&options(&[
            ("file.compression.zstd-level", "3"),
            ("parquet.compression.codec.zstd.level", "9"),
        ]))
        .unwrap();
        assert_eq!(
            s.compression,
            Compression::ZSTD(ZstdLevel::try_new(9).unwrap())
        );
        let s = ParquetSettings::from_options(&options(&[
            ("file.compression", "zstd"),
            ("parquet.compression", "SNAPPY"),
        ]))
        .unwrap();
        assert_eq!(s.compression, Compression::SNAPPY);
        for bad in [
            ("parquet.enable.dictionary", "yes"),
            ("parquet.page.size", "1mb"),
            ("parquet.dictionary.page.size", "0"),
            ("parquet.compression", "lzo"),
            ("parquet.compression.codec.zstd.level", "high"),
        ] {
            assert!(
                ParquetSettings::from_options(&options(&[bad])).is_err(),
                "{bad:?} accepted"
            );
        }
        // No dictionary anywhere when it is off.
        let b = pk_batch(1000);
        let s = ParquetSettings::from_options(&options(&[("parquet.enable.dictionary", "false")]))
            .unwrap();
        let bytes = encode_parquet("f", b.schema_ref(), std::slice::from_ref(&b), &s).unwrap();
        assert!(chunks(bytes).iter().all(|(_, _, dict)| !dict));
    }

    #[test]
    fn dictionary_only_where_parquet_mr_keeps_it() {
        // As Java Paimon 0.9 writes perf.pk_upsert: unique keys, sequence numbers, qty, random
        // prices and unique names PLAIN; the constant kind and ver and the few notes with a
        // dictionary.
        let b = pk_batch(30_000);
        let s = ParquetSettings::from_options(&options(&[])).unwrap();
        let bytes = encode_parquet("f", b.schema_ref(), std::slice::from_ref(&b), &s).unwrap();
        let dict: Vec<(String, bool)> = chunks(bytes).into_iter().map(|(c, _, d)| (c, d)).collect();
        let want = [
            ("_KEY_id", false),
            ("_SEQUENCE_NUMBER", false),
            ("_VALUE_KIND", true),
            ("id", false),
            ("ver", true),
            ("qty", false),
            ("price", false),
            ("name", false),
            ("note", true),
        ];
        assert_eq!(
            dict,
            want.iter()
                .map(|(c, d)| (c.to_string(), *d))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_first_page_decides() {
        let s = ParquetSettings::from_options(&options(&[])).unwrap();
        let pays = |a: &dyn Array, w| dictionary_pays_off(a, w, &s);
        // 20,000 rows of 4 values, then unique values: kept (parquet-mr falls back later, when
        // the dictionary page is full).
        let a =
            Int64Array::from_iter_values((0..40_000).map(|i| if i < 20_000 { i % 4 } else { i }));
        assert!(pays(&a, Some(8)));
        // Unique values differing only in high bits (the hasher must spread them): PLAIN.
        let a = Int64Array::from_iter_values((0..20_000).map(|i| i << 40));
        assert!(!pays(&a, Some(8)));
        // Unique first: PLAIN.
        let a = Int64Array::from_iter_values((0..40_000).map(|i| if i < 20_000 { i } else { 0 }));
        assert!(!pays(&a, Some(8)));
        // Each value twice: 14-bit ids + a dictionary of half the values < the values.
        let a = Int64Array::from_iter_values((0..20_000).map(|i| i / 2));
        assert!(pays(&a, Some(8)));
        // 90% distinct: 15-bit ids + the dictionary exceed the values, at 4 bytes as at 8.
        let a = Int32Array::from_iter_values((0..20_000).map(|i| i * 9 / 10));
        assert!(!pays(&a, Some(4)));
        let a = Int64Array::from_iter_values((0..20_000).map(|i| i * 9 / 10));
        assert!(!pays(&a, Some(8)));
        // Nulls are not values; an all-null column has nothing to gain.
        let a = StringArray::from_iter((0..1000).map(|i| (i % 10 == 0).then_some("x")));
        assert!(pays(&a, None));
        let a = StringArray::from_iter((0..1000).map(|_| None::<&str>));
        assert!(!pays(&a, None));
        // A dictionary past `parquet.dictionary.page.size` on the first page: PLAIN.
        let long: Vec<String> = (0..300)
            .map(|i| format!("{i:04}{}", "x".repeat(4000)))
            .collect();
        let a = StringArray::from_iter_values((0..3000).map(|i| long[i % 300].as_str()));
        assert!(!pays(&a, None));
        // Booleans have no dictionary in Parquet: left to the writer.
        let a = BooleanArray::from(vec![true; 10]);
        assert!(pays(&a, None));
    }

    #[test]
    fn rle_hybrid_sizes() {
        assert_eq!(rle_hybrid_size(&[0; 100], 0), 1 + 1);
        assert_eq!(rle_hybrid_size(&(0..16).collect::<Vec<_>>(), 4), 1 + 8);
        assert_eq!(rle_hybrid_size(&[3; 8], 2), 1 + 2);
    }
}
