//! Paimon's `mosaic` data files (`file.format = mosaic`, the Apache Paimon Mosaic format 1):
//! columns sorted by name and spread over buckets, each bucket of each row group compressed on
//! its own, decoded into Arrow with projection (only the buckets, and in a paged bucket only the
//! pages, of the wanted columns are decompressed).
//!
//! Layout: the row groups' buckets, the schema block (a big-endian u32 size, then the
//! compressed schema: see [`schema`]), the row group index, then a 32-byte big-endian footer
//! (index offset u64, schema offset u64, bucket count u32, row group count u32, compression
//! byte 0 none / 1 zstd, version byte 1, two reserved bytes, magic `MOSA`). The index gives, per
//! row group, its row count, then for each non-empty bucket its id, offset, size and
//! decompressed size (0: a paged bucket, see [`bucket`]), then optional column statistics.
//! Values are big-endian; ARRAY and MAP columns are a lengths column and child columns.

mod bucket;
mod column;
mod schema;

use self::bucket::{Directory, Node, Page};
use self::column::Pages;
use self::schema::{MosaicSchema, MosaicType};
use super::arrow_schema::to_arrow_type;
use super::row_file::cursor::{Cursor, Step};
use super::Wanted;
use crate::{Error, Result};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use std::sync::Arc;

const FOOTER_SIZE: usize = 32;
const MAGIC: &[u8; 4] = b"MOSA";
const VERSION: u8 = 1;
const COMPRESSION_NONE: u8 = 0;
const COMPRESSION_ZSTD: u8 = 1;

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid mosaic file: {e}"))
}

/// Where a bucket of a row group is, as the row group index gives it.
#[derive(Debug, Clone, Copy)]
enum Layout {
    Empty,
    Monolithic {
        offset: usize,
        size: usize,
        raw: usize,
    },
    Paged {
        offset: usize,
        size: usize,
    },
}

struct RowGroup {
    rows: usize,
    buckets: Vec<Layout>,
}

/// Decodes the wanted columns of a whole mosaic file, one batch per row group; columns keep
/// their names, a wanted column the file lacks is left out.
pub(crate) fn decode(file: &str, bytes: Bytes, wanted: &[Wanted]) -> Result<Vec<RecordBatch>> {
    let footer = bytes
        .len()
        .checked_sub(FOOTER_SIZE)
        .map(|at| &bytes[at..])
        .filter(|f| &f[28..] == MAGIC)
        .ok_or_else(|| corrupt(file, "no MOSA magic at the end"))?;
    if footer[25] != VERSION {
        return Err(Error::unsupported(
            file,
            format!("mosaic file format version {}", footer[25]),
        ));
    }
    let compression = footer[24];
    if compression != COMPRESSION_NONE && compression != COMPRESSION_ZSTD {
        return Err(Error::unsupported(
            file,
            format!("mosaic compression {compression}"),
        ));
    }
    let be = |at: usize| u64::from_be_bytes(footer[at..at + 8].try_into().unwrap_or_default());
    let footer_start = bytes.len() - FOOTER_SIZE;
    let (index_at, schema_at) = (be(0), be(8));
    let num_row_groups = u32::from_be_bytes([footer[20], footer[21], footer[22], footer[23]]);
    let (index_at, schema_at) = match (usize::try_from(index_at), usize::try_from(schema_at)) {
        (Ok(i), Ok(s)) if s.checked_add(4).is_some_and(|e| e <= i) && i <= footer_start => (i, s),
        _ => return Err(corrupt(file, "footer offsets out of range")),
    };
    let schema_block = &bytes[schema_at..index_at];
    let raw_size = u32::from_be_bytes([
        schema_block[0],
        schema_block[1],
        schema_block[2],
        schema_block[3],
    ]) as usize;
    let schema_bytes = decompress(compression, &schema_block[4..], raw_size)
        .map_err(|e| corrupt(file, format!("schema block: {e}")))?;
    let schema = MosaicSchema::parse(&schema_bytes)
        .map_err(|e| corrupt(file, format!("schema block: {e}")))?;
    let num_buckets = u32::from_be_bytes([footer[16], footer[17], footer[18], footer[19]]);
    if schema.buckets.len() != num_buckets as usize {
        return Err(corrupt(
            file,
            format!(
                "the footer says {num_buckets} buckets, the schema {}",
                schema.buckets.len()
            ),
        ));
    }
    let groups = row_groups(
        &bytes[index_at..footer_start],
        &schema,
        num_row_groups,
        schema_at,
    )
    .map_err(|e| corrupt(file, format!("row group index: {e}")))?;

    // The wanted columns the file has: (name, Paimon type, position, bucket, index in bucket).
    let columns: Vec<(&Wanted, usize, usize, usize)> = wanted
        .iter()
        .filter_map(|w| {
            let position = schema.columns.iter().position(|c| c.name == w.name)?;
            let (bucket, local) = schema.locate(position)?;
            Some((w, position, bucket, local))
        })
        .collect();
    let fields: Vec<Field> = columns
        .iter()
        .map(|(w, ..)| Field::new(&w.name, to_arrow_type(&w.data_type), true))
        .collect();
    let out_schema = Arc::new(Schema::new(fields));
    let mut batches = Vec::with_capacity(groups.len());
    for (n, group) in groups.iter().enumerate() {
        let mut arrays: Vec<Option<ArrayRef>> = vec![None; columns.len()];
        for (b, layout) in group.buckets.iter().enumerate() {
            let in_bucket: Vec<usize> = (0..columns.len()).filter(|i| columns[*i].2 == b).collect();
            if in_bucket.is_empty() {
                continue;
            }
            let types: Vec<&MosaicType> = schema.buckets[b]
                .iter()
                .map(|p| &schema.columns[*p].ty)
                .collect();
            let (nodes, physical) = bucket::physical_layout(&types);
            let wanted_nodes: Vec<&Node> =
                in_bucket.iter().map(|i| &nodes[columns[*i].3]).collect();
            let pages = bucket_pages(
                &bytes,
                compression,
                *layout,
                &physical,
                types.len(),
                group.rows,
                &bucket::needed(&wanted_nodes),
            )
            .map_err(|e| corrupt(file, format!("row group {n}, bucket {b}: {e}")))?;
            let pages = Pages {
                pages: &pages,
                types: &physical,
            };
            for i in in_bucket {
                let (w, position, _, local) = columns[i];
                let array = column::build(
                    &pages,
                    &nodes[local],
                    &schema.columns[position].ty,
                    &w.data_type,
                )
                .map_err(|e| corrupt(file, format!("column '{}', row group {n}: {e}", w.name)))?;
                if array.len() != group.rows {
                    return Err(corrupt(
                        file,
                        format!(
                            "column '{}' has {} rows in row group {n} of {} rows",
                            w.name,
                            array.len(),
                            group.rows
                        ),
                    ));
                }
                arrays[i] = Some(array);
            }
        }
        let arrays: Vec<ArrayRef> = arrays.into_iter().flatten().collect();
        let options = RecordBatchOptions::new().with_row_count(Some(group.rows));
        batches.push(
            RecordBatch::try_new_with_options(out_schema.clone(), arrays, &options)
                .map_err(|e| corrupt(file, e))?,
        );
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(out_schema));
    }
    Ok(batches)
}

fn decompress(compression: u8, data: &[u8], size: usize) -> Step<Vec<u8>> {
    let out = match compression {
        COMPRESSION_NONE => data.to_vec(),
        _ => zstd::bulk::decompress(data, size).map_err(|e| format!("zstd: {e}"))?,
    };
    if out.len() != size {
        return Err(format!("{} bytes, {size} expected", out.len()));
    }
    Ok(out)
}

/// Parses the row group index (statistics are skipped).
fn row_groups(
    index: &[u8],
    schema: &MosaicSchema,
    count: u32,
    data_end: usize,
) -> Step<Vec<RowGroup>> {
    let mut c = Cursor::new(index);
    let mut groups = Vec::new();
    for _ in 0..count {
        let rows = c.varint()?;
        let non_empty = c.varint()?;
        let mut buckets = vec![Layout::Empty; schema.buckets.len()];
        for _ in 0..non_empty {
            let id = c.varint()?;
            let offset = usize::try_from(u64::from_be_bytes(c.array()?))
                .map_err(|_| "bucket offset out of range")?;
            let (size, raw) = (c.varint()?, c.varint()?);
            let slot = buckets
                .get_mut(id)
                .filter(|l| matches!(l, Layout::Empty))
                .ok_or_else(|| format!("bucket {id} out of range or listed twice"))?;
            if offset.checked_add(size).is_none_or(|end| end > data_end) {
                return Err(format!("bucket {id} runs past the data"));
            }
            *slot = match (size, raw) {
                (0, 0) => Layout::Empty,
                (0, _) => return Err(format!("bucket {id}: no bytes but a decompressed size")),
                (size, 0) => Layout::Paged { offset, size },
                (size, raw) => Layout::Monolithic { offset, size, raw },
            };
        }
        for _ in 0..c.varint()? {
            let column = c.varint()?;
            let nulls = c.varint()?;
            let ty = &schema
                .columns
                .get(column)
                .ok_or_else(|| format!("statistics of column {column} out of range"))?
                .ty;
            if nulls < rows {
                for _ in 0..2 {
                    match ty.width() {
                        Some(w) => c.take(w)?,
                        None => c.bytes()?,
                    };
                }
            }
        }
        groups.push(RowGroup { rows, buckets });
    }
    if !c.at_end() {
        return Err("trailing bytes".into());
    }
    Ok(groups)
}

/// The pages of the `needed` physical columns of one bucket of a row group (None for the
/// others); `primary` of the `physical` columns are top-level.
fn bucket_pages(
    bytes: &Bytes,
    compression: u8,
    layout: Layout,
    physical: &[MosaicType],
    primary: usize,
    rows: usize,
    needed: &[usize],
) -> Step<Vec<Option<Page>>> {
    let total = physical.len();
    match layout {
        Layout::Empty => Ok((0..total)
            .map(|i| Some(Page::all_null(if i < primary { rows } else { 0 })))
            .collect()),
        Layout::Monolithic { offset, size, raw } => {
            let data = decompress(compression, &bytes[offset..offset + size], raw)?;
            let pages = bucket::monolithic(&Bytes::from(data), physical, primary, rows)?;
            Ok(pages.into_iter().map(Some).collect())
        }
        Layout::Paged { offset, size } => {
            if compression != COMPRESSION_ZSTD {
                return Err("a paged bucket in a file without zstd".into());
            }
            let data = &bytes[offset..offset + size];
            let dir = Directory::parse(data, total, primary, size)?;
            let mut pages: Vec<Option<Page>> = (0..total).map(|_| None).collect();
            for &i in needed {
                let start = dir.len + dir.slots[..i].iter().sum::<usize>();
                let rows = match i.checked_sub(primary) {
                    None => rows,
                    Some(child) => dir.child_rows[child],
                };
                let page = bucket::slot(&data[start..start + dir.slots[i]], &physical[i], rows)
                    .map_err(|e| format!("page {i}: {e}"))?;
                pages[i] = Some(page);
            }
            Ok(pages)
        }
    }
}
