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

mod arrays;
pub(crate) mod cursor;
mod index;
mod rows;

use self::index::BlockIndex;
use super::arrow_schema::to_arrow_type;
use super::{FileKind, Wanted};
use crate::spec::{DataField, DataType, TableSchema, TypeKind};
use crate::{Error, Result};
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema};
use bytes::Bytes;
use std::sync::Arc;

const FOOTER_SIZE: usize = 32;
const MAGIC: u32 = 0x524F_5753; // "ROWS"
const VERSION: u8 = 1;

pub(super) fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
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
    Ok(super::key_value_fields(
        schema.trimmed_primary_key_fields(),
        &schema.fields,
    ))
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
        let mut values: Vec<Vec<rows::Value>> = vec![Vec::new(); columns.len()];
        let rows = rows::read_block(file, n, &data, layout, &keep, &mut values)?;
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
            .map(|((_, f), v)| arrays::build(file, &f.name, &f.data_type, v))
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

pub(super) fn variant_fields() -> Fields {
    Fields::from(vec![
        Field::new("metadata", ArrowType::Binary, false),
        Field::new("value", ArrowType::Binary, true),
    ])
}

#[cfg(test)]
mod tests {
    use super::index::delta_varints;
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
