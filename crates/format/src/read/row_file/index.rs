//! The footer and block index of a row file, checked against each other and the file size.

use super::cursor::Cursor;
use super::{corrupt, FOOTER_SIZE, MAGIC, VERSION};
use crate::{Error, Result};
use bytes::Bytes;

/// One block's place in the file and its row count.
pub(super) struct Block {
    offset: usize,
    compressed: usize,
    uncompressed: usize,
    pub(super) rows: usize,
}

impl Block {
    pub(super) fn decompress(&self, file: &str, n: usize, bytes: &Bytes) -> Result<Vec<u8>> {
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
pub(super) struct BlockIndex {
    pub(super) blocks: Vec<Block>,
}

impl BlockIndex {
    pub(super) fn read(file: &str, bytes: &[u8]) -> Result<Self> {
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
pub(super) fn delta_varints(bytes: &[u8]) -> std::result::Result<Vec<i64>, String> {
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
