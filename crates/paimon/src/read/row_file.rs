//! Paimon's `row` data files (`file.format = row`, Paimon's `RowFileFormat`): zstd blocks of rows
//! serialised field after field in the file's row type, decoded into Arrow arrays.
//!
//! Layout (all little-endian): the blocks, then the block index (three varint-length-prefixed
//! arrays of zigzag delta varints: compressed sizes, uncompressed sizes, first row of each block),
//! then a 32-byte footer (row count i64, block count i32, index offset i64, index length i32,
//! version byte 1, three reserved bytes, magic `ROWS`). A block, once decompressed, is the rows
//! back to back, one i32 offset per row and the row count. A row is a null bitmap of its fields
//! (bit set = null) followed by each non-null field: fixed-width numbers, varint-length strings
//! and bytes, DECIMAL(p ≤ 18) as the unscaled i64 (else big-endian bytes), TIMESTAMP(p ≤ 3) as
//! epoch millis (else millis + varint nanos of the milli), arrays and maps as a varint size, a
//! null bitmap and the elements, nested rows like rows, VARIANT as its value then its metadata.
//!
//! The file stores no schema: the caller gives its row type ([`layout`]). Every row must end
//! where the next one starts, so a file read with the wrong row type is an error, never rows.

use super::arrow_schema::{list_element_field, map_entries_field, to_arrow_fields, to_arrow_type};
use super::evolution::be_bytes_to_i128;
use super::{FileKind, Wanted, SEQUENCE_NUMBER, VALUE_KIND};
use crate::spec::{DataField, DataType, TableSchema, TypeKind};
use crate::{Error, Result};
use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time64MicrosecondType, TimestampMicrosecondType, TimestampNanosecondType,
};
use arrow_array::{
    ArrayRef, BooleanArray, ListArray, MapArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
    StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema};
use bytes::Bytes;
use std::sync::Arc;

const FOOTER_SIZE: usize = 32;
const MAGIC: u32 = 0x524F_5753; // "ROWS"
const VERSION: u8 = 1;
/// Field id offset of `_KEY_` columns (Java `SpecialFields.KEY_FIELD_ID_START`).
const KEY_FIELD_ID_START: i32 = i32::MAX / 2;

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid row file: {e}"))
}

/// The row type a `row` data file was written with: its `_WRITE_COLS` (in that order) when it
/// holds only some columns; for a primary-key table the key columns (`_KEY_` + the trimmed
/// primary keys), `_SEQUENCE_NUMBER`, `_VALUE_KIND` and the value columns (Paimon's
/// `KeyValue.schema`); else the schema's columns.
pub(crate) fn layout(
    file: &str,
    schema: &TableSchema,
    write_cols: Option<&[String]>,
    kind: FileKind,
) -> Result<Vec<DataField>> {
    if let Some(cols) = write_cols {
        return cols
            .iter()
            .map(|name| {
                schema.field(name).cloned().ok_or_else(|| {
                    Error::corrupt(
                        file,
                        format!(
                            "_WRITE_COLS names '{name}', which schema {} does not have",
                            schema.id
                        ),
                    )
                })
            })
            .collect();
    }
    if kind == FileKind::Append {
        return Ok(schema.fields.clone());
    }
    if schema.core_options().get("data-file.thin-mode") == Some("true") {
        return Err(Error::unsupported(
            file,
            "a row-format file of a primary-key table in thin mode (option 'data-file.thin-mode' = 'true': files without key columns)",
        ));
    }
    let mut fields: Vec<DataField> = schema
        .trimmed_primary_key_fields()
        .into_iter()
        .map(|f| DataField {
            id: KEY_FIELD_ID_START + f.id,
            name: format!("{}{}", super::KEY_PREFIX, f.name),
            data_type: f.data_type.clone().with_nullable(false),
            description: None,
        })
        .collect();
    for (id, name, kind) in [
        (i32::MAX - 1, SEQUENCE_NUMBER, TypeKind::BigInt),
        (i32::MAX - 2, VALUE_KIND, TypeKind::TinyInt),
    ] {
        fields.push(DataField {
            id,
            name: name.to_string(),
            data_type: DataType::nullable(kind).with_nullable(false),
            description: None,
        });
    }
    fields.extend(schema.fields.iter().cloned());
    Ok(fields)
}

/// Decodes the wanted columns of a whole row file written with row type `layout` (columns keep
/// their names; a wanted column not in the layout is left out). One batch per block.
pub(crate) fn decode(
    file: &str,
    bytes: Bytes,
    layout: &[DataField],
    wanted: &[Wanted],
) -> Result<Vec<RecordBatch>> {
    if let Some(w) = wanted.iter().find(|w| {
        !matches!(w.data_type.kind, TypeKind::Variant)
            && super::variant::contains_variant(&w.data_type)
    }) {
        return Err(Error::unsupported(
            file,
            format!(
                "column '{}': a VARIANT inside a ROW, ARRAY or MAP of a row-format file",
                w.name
            ),
        ));
    }
    // A BLOB in a row file is its bytes inline (Java's `Blob.fromData`), which the reader's BLOB
    // reference column cannot hold. Every field of the layout is decoded in turn, so one BLOB
    // anywhere refuses the file.
    if let Some(f) = layout.iter().find(|f| holds_blob(&f.data_type)) {
        return Err(Error::unsupported(
            file,
            format!(
                "column '{}' of type {} in a row-format file (BLOB bytes stored inline)",
                f.name, f.data_type
            ),
        ));
    }
    let index = BlockIndex::read(file, &bytes)?;
    // Position in the layout of each wanted column that the file has.
    let columns: Vec<(usize, &DataField)> = wanted
        .iter()
        .filter_map(|w| {
            let pos = layout.iter().position(|f| f.name == w.name)?;
            Some((pos, &layout[pos]))
        })
        .collect();
    let mut keep: Vec<Option<usize>> = vec![None; layout.len()];
    for (slot, (pos, _)) in columns.iter().enumerate() {
        keep[*pos] = Some(slot);
    }
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(_, f)| Field::new(&f.name, file_arrow_type(&f.data_type), true))
            .collect::<Vec<_>>(),
    ));
    let mut batches = Vec::with_capacity(index.blocks.len());
    for (n, block) in index.blocks.iter().enumerate() {
        let data = block.decompress(file, n, &bytes)?;
        let mut values: Vec<Vec<Value>> = vec![Vec::new(); columns.len()];
        let rows = read_block(file, n, &data, layout, &keep, &mut values)?;
        if rows != block.rows {
            return Err(corrupt(
                file,
                format!(
                    "block {n} holds {rows} rows, the block index says {}",
                    block.rows
                ),
            ));
        }
        let arrays = columns
            .iter()
            .zip(&values)
            .map(|((_, f), v)| build(file, &f.name, &f.data_type, v))
            .collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        batches.push(
            RecordBatch::try_new_with_options(schema.clone(), arrays, &options)
                .map_err(|e| corrupt(file, e))?,
        );
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(schema));
    }
    Ok(batches)
}

/// Whether `t` is or holds a BLOB.
fn holds_blob(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Blob => true,
        TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector(e, _) => holds_blob(e),
        TypeKind::Map(k, v) => holds_blob(k) || holds_blob(v),
        TypeKind::Row(fields) => fields.iter().any(|f| holds_blob(&f.data_type)),
        _ => false,
    }
}

/// The Arrow type a decoded column has before evolution: the read type, except VARIANT, which
/// is the plain variant group (`metadata`, `value`) that `read::variant` turns into JSON text.
fn file_arrow_type(ty: &DataType) -> ArrowType {
    match &ty.kind {
        TypeKind::Variant => ArrowType::Struct(variant_fields()),
        _ => to_arrow_type(ty),
    }
}

fn variant_fields() -> Fields {
    Fields::from(vec![
        Field::new("metadata", ArrowType::Binary, false),
        Field::new("value", ArrowType::Binary, true),
    ])
}

/// One block's place in the file and its row count.
struct Block {
    offset: usize,
    compressed: usize,
    uncompressed: usize,
    rows: usize,
}

impl Block {
    fn decompress(&self, file: &str, n: usize, bytes: &Bytes) -> Result<Vec<u8>> {
        let input = &bytes[self.offset..self.offset + self.compressed];
        let data = zstd::bulk::decompress(input, self.uncompressed)
            .map_err(|e| corrupt(file, format!("block {n}: zstd: {e}")))?;
        if data.len() != self.uncompressed {
            return Err(corrupt(
                file,
                format!(
                    "block {n} decompresses to {} bytes, the block index says {}",
                    data.len(),
                    self.uncompressed
                ),
            ));
        }
        Ok(data)
    }
}

/// The footer and block index, checked against each other and the file size.
struct BlockIndex {
    blocks: Vec<Block>,
}

impl BlockIndex {
    fn read(file: &str, bytes: &[u8]) -> Result<Self> {
        let size = bytes.len();
        if size < FOOTER_SIZE {
            return Err(corrupt(
                file,
                format!("{size} bytes hold no {FOOTER_SIZE}-byte footer"),
            ));
        }
        let footer = &bytes[size - FOOTER_SIZE..];
        let mut cursor = Cursor::new(footer);
        let total_rows = cursor.i64().map_err(|e| corrupt(file, e))?;
        let block_count = cursor.i32().map_err(|e| corrupt(file, e))?;
        let index_offset = cursor.i64().map_err(|e| corrupt(file, e))?;
        let index_length = cursor.i32().map_err(|e| corrupt(file, e))?;
        let magic = u32::from_le_bytes([footer[28], footer[29], footer[30], footer[31]]);
        if magic != MAGIC {
            return Err(corrupt(
                file,
                format!("magic 0x{magic:08X}, expected 0x{MAGIC:08X} (ROWS)"),
            ));
        }
        if footer[24] != VERSION {
            return Err(Error::unsupported(
                file,
                format!("row file version {} (known: {VERSION})", footer[24]),
            ));
        }
        let (Ok(index_offset), Ok(index_length), Ok(block_count), Ok(total_rows)) = (
            usize::try_from(index_offset),
            usize::try_from(index_length),
            usize::try_from(block_count),
            usize::try_from(total_rows),
        ) else {
            return Err(corrupt(file, "negative sizes in the footer"));
        };
        if index_offset
            .checked_add(index_length)
            .is_none_or(|end| end > size - FOOTER_SIZE)
        {
            return Err(corrupt(
                file,
                format!("block index at {index_offset} (+{index_length}) is not inside the {size}-byte file"),
            ));
        }
        let mut cursor = Cursor::new(&bytes[index_offset..index_offset + index_length]);
        let mut arrays = Vec::with_capacity(3);
        for what in ["compressed sizes", "uncompressed sizes", "row starts"] {
            let len = cursor.varint().map_err(|e| corrupt(file, e))?;
            let part = cursor
                .take(len)
                .map_err(|e| corrupt(file, format!("block index {what}: {e}")))?;
            arrays.push(
                delta_varints(part)
                    .map_err(|e| corrupt(file, format!("block index {what}: {e}")))?,
            );
        }
        let (compressed, uncompressed, starts) = (&arrays[0], &arrays[1], &arrays[2]);
        if compressed.len() != block_count
            || uncompressed.len() != block_count
            || starts.len() != block_count
        {
            return Err(corrupt(
                file,
                format!(
                    "the footer declares {block_count} blocks, the block index has {}/{}/{}",
                    compressed.len(),
                    uncompressed.len(),
                    starts.len()
                ),
            ));
        }
        let mut blocks = Vec::with_capacity(block_count);
        let mut offset = 0usize;
        for i in 0..block_count {
            let sizes = (
                usize::try_from(compressed[i]),
                usize::try_from(uncompressed[i]),
            );
            let start = usize::try_from(starts[i]).ok();
            let next = if i + 1 < block_count {
                usize::try_from(starts[i + 1]).ok()
            } else {
                Some(total_rows)
            };
            let (Ok(c), Ok(u)) = sizes else {
                return Err(corrupt(file, format!("block {i} has a negative size")));
            };
            let rows = match (start, next) {
                (Some(s), Some(e)) if e > s && (i > 0 || s == 0) => e - s,
                _ => {
                    return Err(corrupt(
                        file,
                        format!(
                            "block {i}'s first row {} does not fit the row count {total_rows}",
                            starts[i]
                        ),
                    ))
                }
            };
            blocks.push(Block {
                offset,
                compressed: c,
                uncompressed: u,
                rows,
            });
            offset = offset
                .checked_add(c)
                .ok_or_else(|| corrupt(file, "block sizes overflow"))?;
        }
        if offset != index_offset {
            return Err(corrupt(
                file,
                format!("the blocks end at {offset}, the block index starts at {index_offset}"),
            ));
        }
        if block_count == 0 && total_rows != 0 {
            return Err(corrupt(file, format!("no blocks but {total_rows} rows")));
        }
        Ok(Self { blocks })
    }
}

/// Zigzag delta varints (Paimon's `DeltaVarintCompressor`): the first value, then differences.
fn delta_varints(bytes: &[u8]) -> std::result::Result<Vec<i64>, String> {
    let mut cursor = Cursor::new(bytes);
    let mut out = Vec::new();
    let mut value = 0i64;
    while !cursor.at_end() {
        let z = cursor.varint_u64()?;
        let delta = (z >> 1) as i64 ^ -((z & 1) as i64);
        value = value.checked_add(delta).ok_or("a value overflows")?;
        out.push(value);
    }
    Ok(out)
}

/// Little-endian reads over a byte slice; every read is bounds-checked.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

type Step<T> = std::result::Result<T, String>;

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn take(&mut self, n: usize) -> Step<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.data.len())
            .ok_or_else(|| {
                format!(
                    "{n} bytes at {} run past the end ({})",
                    self.pos,
                    self.data.len()
                )
            })?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Step<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Step<u8> {
        Ok(self.array::<1>()?[0])
    }
    fn i16(&mut self) -> Step<i16> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    fn i32(&mut self) -> Step<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    fn i64(&mut self) -> Step<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn varint_u64(&mut self) -> Step<u64> {
        let mut result = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            result |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(result);
            }
        }
        Err("a varint longer than 64 bits".into())
    }

    /// A non-negative 32-bit varint (Paimon's `readVarInt`: sizes and lengths).
    fn varint(&mut self) -> Step<usize> {
        let v = self.varint_u64()?;
        usize::try_from(v)
            .ok()
            .filter(|v| *v <= i32::MAX as usize)
            .ok_or_else(|| format!("size {v} out of range"))
    }

    fn bytes(&mut self) -> Step<&'a [u8]> {
        let len = self.varint()?;
        self.take(len)
    }

    /// Whether bit `i` of the bitmap starting at `start` is set.
    fn bit(&self, start: usize, i: usize) -> bool {
        self.data[start + i / 8] & (1 << (i % 8)) != 0
    }

    /// Skips a null bitmap of `n` bits and returns where it starts.
    fn bitmap(&mut self, n: usize) -> Step<usize> {
        let start = self.pos;
        self.take(n.div_ceil(8))?;
        Ok(start)
    }
}

/// One decoded value, before it is put into an Arrow column.
#[derive(Debug, Clone)]
enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Decimal(i128),
    Text(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Map(Vec<Value>, Vec<Value>),
    Row(Vec<Value>),
    Variant { value: Vec<u8>, metadata: Vec<u8> },
}

/// Reads the rows of one decompressed block, appending the kept fields' values to `out`;
/// returns the row count.
fn read_block(
    file: &str,
    n: usize,
    data: &[u8],
    layout: &[DataField],
    keep: &[Option<usize>],
    out: &mut [Vec<Value>],
) -> Result<usize> {
    let fail = |e: String| corrupt(file, format!("block {n}: {e}"));
    let len = data.len();
    if len < 4 {
        return Err(fail(format!("{len} bytes hold no row count")));
    }
    let rows = i32::from_le_bytes([data[len - 4], data[len - 3], data[len - 2], data[len - 1]]);
    let rows = usize::try_from(rows).map_err(|_| fail(format!("row count {rows}")))?;
    let offsets_start = rows
        .checked_mul(4)
        .and_then(|b| (len - 4).checked_sub(b))
        .ok_or_else(|| fail(format!("{rows} row offsets do not fit in {len} bytes")))?;
    let mut offsets = Cursor::new(&data[offsets_start..len - 4]);
    let mut cursor = Cursor::new(&data[..offsets_start]);
    for v in out.iter_mut() {
        v.reserve(rows);
    }
    for row in 0..rows {
        let start = offsets.i32().map_err(&fail)?;
        if usize::try_from(start).ok() != Some(cursor.pos) {
            return Err(fail(format!(
                "row {row} starts at {start}, the previous row ends at {} (read with another row type than it was written with?)",
                cursor.pos
            )));
        }
        let nulls = cursor.bitmap(layout.len()).map_err(&fail)?;
        for (i, field) in layout.iter().enumerate() {
            let value = if cursor.bit(nulls, i) {
                Value::Null
            } else {
                read_value(&mut cursor, &field.data_type)
                    .map_err(|e| fail(format!("row {row}, column {}: {e}", field.name)))?
            };
            if let Some(slot) = keep[i] {
                out[slot].push(value);
            }
        }
    }
    if cursor.pos != offsets_start {
        return Err(fail(format!(
            "the rows end at {}, the row offsets start at {offsets_start} (read with another row type than it was written with?)",
            cursor.pos
        )));
    }
    Ok(rows)
}

fn read_elements(c: &mut Cursor, element: &DataType) -> Step<Vec<Value>> {
    let size = c.varint()?;
    let nulls = c.bitmap(size)?;
    (0..size)
        .map(|i| {
            if c.bit(nulls, i) {
                Ok(Value::Null)
            } else {
                read_value(c, element)
            }
        })
        .collect()
}

fn read_value(c: &mut Cursor, ty: &DataType) -> Step<Value> {
    Ok(match &ty.kind {
        TypeKind::Boolean => Value::Bool(c.u8()? != 0),
        TypeKind::TinyInt => Value::Int(i64::from(c.u8()? as i8)),
        TypeKind::SmallInt => Value::Int(i64::from(c.i16()?)),
        TypeKind::Int | TypeKind::Date | TypeKind::Time(_) => Value::Int(i64::from(c.i32()?)),
        TypeKind::BigInt => Value::Int(c.i64()?),
        TypeKind::Float => Value::Float(f64::from(f32::from_le_bytes(c.array()?))),
        TypeKind::Double => Value::Float(f64::from_le_bytes(c.array()?)),
        TypeKind::Decimal { precision, .. } => {
            if *precision <= 18 {
                Value::Decimal(i128::from(c.i64()?))
            } else {
                let raw = c.bytes()?;
                Value::Decimal(
                    be_bytes_to_i128(raw)
                        .ok_or_else(|| format!("a {}-byte unscaled decimal", raw.len()))?,
                )
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => Value::Text(
            std::str::from_utf8(c.bytes()?)
                .map_err(|e| format!("a string that is not UTF-8: {e}"))?
                .to_string(),
        ),
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Value::Bytes(c.bytes()?.to_vec()),
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let millis = c.i64()?;
            let nanos = if *p <= 3 { 0 } else { c.varint()? };
            if nanos >= 1_000_000 {
                return Err(format!("{nanos} nanoseconds of a millisecond"));
            }
            let value = if *p <= 6 {
                millis.checked_mul(1000).map(|m| m + (nanos / 1000) as i64)
            } else {
                millis.checked_mul(1_000_000).map(|m| m + nanos as i64)
            };
            Value::Int(value.ok_or_else(|| format!("timestamp {millis} ms out of range"))?)
        }
        TypeKind::Array(element) => Value::List(read_elements(c, element)?),
        TypeKind::Map(key, value) => {
            let keys = read_elements(c, key)?;
            let values = read_elements(c, value)?;
            Value::Map(keys, values)
        }
        TypeKind::Multiset(element) => {
            let keys = read_elements(c, element)?;
            let counts = read_elements(c, &DataType::nullable(TypeKind::Int))?;
            Value::Map(keys, counts)
        }
        TypeKind::Row(fields) => {
            let nulls = c.bitmap(fields.len())?;
            let mut values = Vec::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                values.push(if c.bit(nulls, i) {
                    Value::Null
                } else {
                    read_value(c, &f.data_type)?
                });
            }
            Value::Row(values)
        }
        TypeKind::Variant => {
            let value = c.bytes()?.to_vec();
            let metadata = c.bytes()?.to_vec();
            Value::Variant { value, metadata }
        }
        // A varint size, then the elements, none null (no bitmap).
        TypeKind::Vector(element, _) => {
            let size = c.varint()?;
            let mut values = Vec::with_capacity(size.min(c.data.len()));
            for _ in 0..size {
                values.push(read_value(c, element)?);
            }
            Value::List(values)
        }
        // Refused before decoding (see `decode`).
        TypeKind::Blob => return Err(format!("a {ty} value")),
    })
}

fn mismatch(file: &str, column: &str, ty: &DataType, v: &Value) -> Error {
    corrupt(file, format!("column {column}: {v:?} is not a {ty}"))
}

fn nulls(values: &[Value]) -> Option<NullBuffer> {
    let valid: Vec<bool> = values.iter().map(|v| !matches!(v, Value::Null)).collect();
    valid.iter().any(|v| !v).then(|| NullBuffer::from(valid))
}

fn ints<T>(
    file: &str,
    column: &str,
    ty: &DataType,
    values: &[Value],
    scale: i64,
) -> Result<ArrayRef>
where
    T: arrow_array::ArrowPrimitiveType,
    T::Native: TryFrom<i64>,
{
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        out.push(match v {
            Value::Null => None,
            Value::Int(i) => Some(
                i.checked_mul(scale)
                    .and_then(|i| T::Native::try_from(i).ok())
                    .ok_or_else(|| mismatch(file, column, ty, v))?,
            ),
            other => return Err(mismatch(file, column, ty, other)),
        });
    }
    Ok(Arc::new(PrimitiveArray::<T>::from_iter(out)))
}

/// The Arrow column of `values` (one per row) of a column of type `ty`.
fn build(file: &str, column: &str, ty: &DataType, values: &[Value]) -> Result<ArrayRef> {
    let bad = |v: &Value| mismatch(file, column, ty, v);
    Ok(match &ty.kind {
        TypeKind::Boolean => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Bool(b) => Some(*b),
                    other => return Err(bad(other)),
                });
            }
            Arc::new(BooleanArray::from(out))
        }
        TypeKind::TinyInt => ints::<Int8Type>(file, column, ty, values, 1)?,
        TypeKind::SmallInt => ints::<Int16Type>(file, column, ty, values, 1)?,
        TypeKind::Int => ints::<Int32Type>(file, column, ty, values, 1)?,
        TypeKind::Date => ints::<Date32Type>(file, column, ty, values, 1)?,
        // Paimon stores TIME as milliseconds of the day; Arrow holds microseconds.
        TypeKind::Time(_) => ints::<Time64MicrosecondType>(file, column, ty, values, 1000)?,
        TypeKind::BigInt => ints::<Int64Type>(file, column, ty, values, 1)?,
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let array = if *p <= 6 {
                ints::<TimestampMicrosecondType>(file, column, ty, values, 1)?
            } else {
                ints::<TimestampNanosecondType>(file, column, ty, values, 1)?
            };
            arrow_cast::cast(&array, &to_arrow_type(ty)).map_err(|e| corrupt(file, e))?
        }
        TypeKind::Float | TypeKind::Double => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Float(f) => Some(*f),
                    other => return Err(bad(other)),
                });
            }
            if matches!(ty.kind, TypeKind::Float) {
                Arc::new(PrimitiveArray::<Float32Type>::from_iter(
                    out.into_iter().map(|v| v.map(|f| f as f32)),
                ))
            } else {
                Arc::new(PrimitiveArray::<Float64Type>::from_iter(out))
            }
        }
        TypeKind::Decimal { precision, scale } => {
            let mut out = Vec::with_capacity(values.len());
            for v in values {
                out.push(match v {
                    Value::Null => None,
                    Value::Decimal(d) => Some(*d),
                    other => return Err(bad(other)),
                });
            }
            let scale = i8::try_from(*scale).map_err(|_| corrupt(file, format!("{ty}")))?;
            Arc::new(
                PrimitiveArray::<Decimal128Type>::from_iter(out)
                    .with_precision_and_scale(*precision, scale)
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => {
            let mut out = StringBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => out.append_null(),
                    Value::Text(s) => out.append_value(s),
                    other => return Err(bad(other)),
                }
            }
            Arc::new(out.finish())
        }
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
            let mut out = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => out.append_null(),
                    Value::Bytes(b) => out.append_value(b),
                    other => return Err(bad(other)),
                }
            }
            Arc::new(out.finish())
        }
        TypeKind::Variant => {
            let mut metadata = BinaryBuilder::with_capacity(values.len(), 0);
            let mut value = BinaryBuilder::with_capacity(values.len(), 0);
            for v in values {
                match v {
                    Value::Null => {
                        metadata.append_value([]);
                        value.append_null();
                    }
                    Value::Variant {
                        value: v,
                        metadata: m,
                    } => {
                        metadata.append_value(m);
                        value.append_value(v);
                    }
                    other => return Err(bad(other)),
                }
            }
            let columns: Vec<ArrayRef> =
                vec![Arc::new(metadata.finish()), Arc::new(value.finish())];
            Arc::new(
                StructArray::try_new(variant_fields(), columns, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Array(element) => {
            let mut lengths = Vec::with_capacity(values.len());
            let mut items = Vec::new();
            for v in values {
                match v {
                    Value::Null => lengths.push(0),
                    Value::List(elements) => {
                        lengths.push(elements.len());
                        items.extend(elements.iter().cloned());
                    }
                    other => return Err(bad(other)),
                }
            }
            let child = build(file, column, element, &items)?;
            Arc::new(
                ListArray::try_new(
                    list_element_field(element),
                    OffsetBuffer::from_lengths(lengths),
                    child,
                    nulls(values),
                )
                .map_err(|e| corrupt(file, e))?,
            )
        }
        TypeKind::Map(key, value) => build_map(file, column, ty, key, value, values)?,
        TypeKind::Vector(element, length) => {
            let n = usize::try_from(*length).map_err(|_| corrupt(file, format!("{ty}")))?;
            let mut items = Vec::with_capacity(values.len() * n);
            for v in values {
                match v {
                    // A null vector still takes its n slots in a FixedSizeList.
                    Value::Null => items.extend(std::iter::repeat_n(Value::Null, n)),
                    Value::List(elements) if elements.len() == n => {
                        items.extend(elements.iter().cloned())
                    }
                    Value::List(elements) => {
                        return Err(corrupt(
                            file,
                            format!(
                                "column {column}: a vector of {} elements, the type says {n}",
                                elements.len()
                            ),
                        ))
                    }
                    other => return Err(bad(other)),
                }
            }
            let child = build(file, column, element, &items)?;
            let ArrowType::FixedSizeList(field, size) = to_arrow_type(ty) else {
                return Err(corrupt(file, format!("{ty} is not a fixed-size list")));
            };
            Arc::new(
                arrow_array::FixedSizeListArray::try_new(field, size, child, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
        // Refused before decoding (see `decode`).
        TypeKind::Blob => {
            return Err(Error::unsupported(
                file,
                format!("column '{column}' of type {ty} in a row-format file"),
            ))
        }
        TypeKind::Multiset(element) => {
            let count = DataType::nullable(TypeKind::Int).with_nullable(false);
            build_map(file, column, ty, element, &count, values)?
        }
        TypeKind::Row(fields) => {
            let mut children: Vec<Vec<Value>> =
                vec![Vec::with_capacity(values.len()); fields.len()];
            for v in values {
                match v {
                    Value::Null => children.iter_mut().for_each(|c| c.push(Value::Null)),
                    Value::Row(parts) if parts.len() == fields.len() => {
                        for (c, p) in children.iter_mut().zip(parts) {
                            c.push(p.clone());
                        }
                    }
                    other => return Err(bad(other)),
                }
            }
            let arrays = fields
                .iter()
                .zip(&children)
                .map(|(f, c)| build(file, &format!("{column}.{}", f.name), &f.data_type, c))
                .collect::<Result<Vec<_>>>()?;
            Arc::new(
                StructArray::try_new(to_arrow_fields(fields), arrays, nulls(values))
                    .map_err(|e| corrupt(file, e))?,
            )
        }
    })
}

fn build_map(
    file: &str,
    column: &str,
    ty: &DataType,
    key: &DataType,
    value: &DataType,
    values: &[Value],
) -> Result<ArrayRef> {
    let mut lengths = Vec::with_capacity(values.len());
    let (mut keys, mut items) = (Vec::new(), Vec::new());
    for v in values {
        match v {
            Value::Null => lengths.push(0),
            Value::Map(k, i) if k.len() == i.len() => {
                if k.iter().any(|k| matches!(k, Value::Null)) {
                    return Err(corrupt(
                        file,
                        format!("column {column}: a map with a null key"),
                    ));
                }
                lengths.push(k.len());
                keys.extend(k.iter().cloned());
                items.extend(i.iter().cloned());
            }
            other => return Err(mismatch(file, column, ty, other)),
        }
    }
    let key_array = build(file, column, key, &keys)?;
    let value_array = build(file, column, value, &items)?;
    let entries_field = map_entries_field(key, value);
    let ArrowType::Struct(entry_fields) = entries_field.data_type() else {
        return Err(corrupt(file, "map entries are not a struct"));
    };
    let entries = StructArray::try_new(entry_fields.clone(), vec![key_array, value_array], None)
        .map_err(|e| corrupt(file, e))?;
    Ok(Arc::new(
        MapArray::try_new(
            entries_field,
            OffsetBuffer::from_lengths(lengths),
            entries,
            nulls(values),
            false,
        )
        .map_err(|e| corrupt(file, e))?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_varints_are_zigzag_deltas() {
        // 0, then +5, then -3: zigzag 0, 10, 5.
        assert_eq!(delta_varints(&[0, 10, 5]).unwrap(), vec![0, 5, 2]);
        // 300 = zigzag 600 = 0xD8 0x04.
        assert_eq!(delta_varints(&[0xD8, 0x04]).unwrap(), vec![300]);
        assert!(
            delta_varints(&[0x80]).is_err(),
            "a truncated varint is an error"
        );
    }

    fn zigzag(values: &[i64]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut prev = 0;
        for v in values {
            let mut z = ((v - prev) << 1 ^ ((v - prev) >> 63)) as u64;
            prev = *v;
            while z >= 0x80 {
                out.push((z as u8 & 0x7F) | 0x80);
                z >>= 7;
            }
            out.push(z as u8);
        }
        out
    }

    /// A row file of one block holding `rows` (each already serialised).
    fn file(rows: &[Vec<u8>]) -> Vec<u8> {
        let mut block = Vec::new();
        let mut offsets = Vec::new();
        for r in rows {
            offsets.push(block.len() as i32);
            block.extend_from_slice(r);
        }
        for o in &offsets {
            block.extend_from_slice(&o.to_le_bytes());
        }
        block.extend_from_slice(&(rows.len() as i32).to_le_bytes());
        let compressed = zstd::bulk::compress(&block, 1).unwrap();
        let mut out = compressed.clone();
        let index_offset = out.len() as i64;
        for array in [
            zigzag(&[compressed.len() as i64]),
            zigzag(&[block.len() as i64]),
            zigzag(&[0]),
        ] {
            out.push(array.len() as u8);
            out.extend_from_slice(&array);
        }
        let index_length = out.len() as i64 - index_offset;
        out.extend_from_slice(&(rows.len() as i64).to_le_bytes());
        out.extend_from_slice(&1i32.to_le_bytes());
        out.extend_from_slice(&index_offset.to_le_bytes());
        out.extend_from_slice(&(index_length as i32).to_le_bytes());
        out.extend_from_slice(&[VERSION, 0, 0, 0]);
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out
    }

    fn column(name: &str, ty: &str) -> (Vec<DataField>, Vec<Wanted>) {
        let data_type = DataType::parse(ty).unwrap();
        let field = DataField {
            id: 0,
            name: name.into(),
            data_type: data_type.clone(),
            description: None,
        };
        let wanted = Wanted {
            name: name.into(),
            id: Some(0),
            data_type,
        };
        (vec![field], vec![wanted])
    }

    #[test]
    fn rows_decode_with_their_row_type() {
        // Two BIGINT rows: null bitmap byte, then the value; and a null row.
        let mut a = vec![0u8];
        a.extend_from_slice(&42i64.to_le_bytes());
        let bytes = Bytes::from(file(&[a, vec![1u8]]));
        let (layout, wanted) = column("v", "BIGINT");
        let batches = decode("f.row", bytes, &layout, &wanted).unwrap();
        let rows = lakescope_rows(&batches);
        assert_eq!(rows, vec!["42", "null"]);
    }

    #[test]
    fn a_file_read_with_another_row_type_is_an_error_not_rows() {
        // Written as BIGINT (8 bytes), read as INT (4 bytes): the row would end early.
        let mut a = vec![0u8];
        a.extend_from_slice(&42i64.to_le_bytes());
        let bytes = Bytes::from(file(&[a.clone(), a]));
        let (layout, wanted) = column("v", "INT");
        let err = decode("f.row", bytes, &layout, &wanted)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("f.row") && err.contains("another row type"),
            "{err}"
        );
    }

    #[test]
    fn a_blob_anywhere_in_the_row_type_refuses_the_file() {
        // Even when only another column is wanted: every field is decoded in turn.
        let (mut layout, wanted) = column("v", "BIGINT");
        layout.push(DataField {
            id: 1,
            name: "p".into(),
            data_type: DataType::parse("BLOB").unwrap(),
            description: None,
        });
        let bytes = Bytes::from(file(&[vec![2u8, 0, 0, 0, 0, 0, 0, 0, 0]]));
        let err = decode("f.row", bytes, &layout, &wanted).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("'p'"), "{err}");
    }

    fn lakescope_rows(batches: &[RecordBatch]) -> Vec<String> {
        use arrow_array::Array;
        let mut out = Vec::new();
        for b in batches {
            let c = b.column(0);
            let f = arrow_cast::display::ArrayFormatter::try_new(c.as_ref(), &Default::default())
                .unwrap();
            for r in 0..b.num_rows() {
                out.push(if c.is_null(r) {
                    "null".to_string()
                } else {
                    f.value(r).to_string()
                });
            }
        }
        out
    }

    #[test]
    fn a_file_too_short_for_its_footer_is_corrupt() {
        let err = BlockIndex::read("f.row", &[0u8; 8])
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("f.row") && err.contains("footer"), "{err}");
    }

    #[test]
    fn a_wrong_magic_is_corrupt() {
        let err = BlockIndex::read("f.row", &[0u8; 32])
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("magic"), "{err}");
    }
}
