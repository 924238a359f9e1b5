//! The buckets of a Mosaic row group: the physical columns of a bucket's columns (ARRAY and MAP
//! columns are split into a lengths column and child columns), and each physical column's page
//! (encoding, null bitmap, constant, dictionary, values) from a monolithic or a paged bucket.

use super::schema::MosaicType;
use crate::read::row_file::cursor::{Cursor, Step};
use bytes::Bytes;

const PLAIN: u8 = 0;
const CONST: u8 = 1;
const DICT: u8 = 2;
const ALL_NULL: u8 = 3;

/// Where a column's values are among the bucket's physical columns.
#[derive(Debug)]
pub(super) enum Node {
    Leaf(usize),
    /// The lengths column, then the elements.
    List(usize, Box<Node>),
    /// The lengths column, then the keys and the values.
    Map(usize, Box<Node>, Box<Node>),
}

impl Node {
    fn physical(&self) -> usize {
        match self {
            Self::Leaf(p) | Self::List(p, _) | Self::Map(p, ..) => *p,
        }
    }

    /// Every physical column of this column.
    fn collect(&self, out: &mut Vec<usize>) {
        out.push(self.physical());
        match self {
            Self::Leaf(_) => {}
            Self::List(_, e) => e.collect(out),
            Self::Map(_, k, v) => {
                k.collect(out);
                v.collect(out);
            }
        }
    }
}

/// The physical columns of a bucket whose columns have types `types`: one per column (a
/// container's is its lengths), then the child columns, depth first. Returns each column's node
/// and the physical types.
pub(super) fn physical_layout(types: &[&MosaicType]) -> (Vec<Node>, Vec<MosaicType>) {
    let mut physical: Vec<MosaicType> = types
        .iter()
        .map(|t| match t {
            MosaicType::Array(_) | MosaicType::Map(..) => MosaicType::Int,
            other => (*other).clone(),
        })
        .collect();
    let nodes = types
        .iter()
        .enumerate()
        .map(|(i, t)| expand(i, t, &mut physical))
        .collect();
    (nodes, physical)
}

fn expand(at: usize, ty: &MosaicType, physical: &mut Vec<MosaicType>) -> Node {
    fn child(ty: &MosaicType, physical: &mut Vec<MosaicType>) -> Node {
        let at = physical.len();
        physical.push(match ty {
            MosaicType::Array(_) | MosaicType::Map(..) => MosaicType::Int,
            other => other.clone(),
        });
        expand(at, ty, physical)
    }
    match ty {
        MosaicType::Array(e) => Node::List(at, Box::new(child(e, physical))),
        MosaicType::Map(k, v) => {
            let key = child(k, physical);
            Node::Map(at, Box::new(key), Box::new(child(v, physical)))
        }
        _ => Node::Leaf(at),
    }
}

/// One physical column of a row group.
#[derive(Debug, Default)]
pub(super) struct Page {
    pub rows: usize,
    pub encoding: u8,
    /// Bit set = null (absent: no nulls).
    pub nulls: Option<Bytes>,
    pub constant: Bytes,
    pub dict: Vec<Bytes>,
    /// PLAIN values or DICT indices.
    pub data: Bytes,
}

impl Page {
    pub(super) fn all_null(rows: usize) -> Self {
        Self {
            rows,
            encoding: ALL_NULL,
            ..Self::default()
        }
    }

    fn non_null(&self) -> usize {
        match (&self.nulls, self.encoding) {
            (_, ALL_NULL) => 0,
            (None, _) => self.rows,
            (Some(bits), _) => self.rows - (0..self.rows).filter(|i| is_set(bits, *i)).count(),
        }
    }

    /// Each row's value bytes (None = null).
    pub(super) fn cells(&self, ty: &MosaicType) -> Step<Vec<Option<&[u8]>>> {
        if self.encoding == ALL_NULL {
            return Ok(vec![None; self.rows]);
        }
        let mut c = Cursor::new(&self.data);
        let bits = dict_bit_width(self.dict.len());
        let mut index_bit = 0usize;
        let mut out = Vec::with_capacity(self.rows);
        for row in 0..self.rows {
            if self.nulls.as_ref().is_some_and(|n| is_set(n, row)) {
                out.push(None);
                continue;
            }
            out.push(Some(match self.encoding {
                CONST => &self.constant[..],
                DICT => {
                    let mut index = 0usize;
                    for b in 0..bits {
                        let at = index_bit + b;
                        let byte = self
                            .data
                            .get(at / 8)
                            .ok_or("dictionary indices run short")?;
                        if byte & (1 << (at % 8)) != 0 {
                            index |= 1 << b;
                        }
                    }
                    index_bit += bits;
                    self.dict
                        .get(index)
                        .ok_or_else(|| format!("dictionary index {index} out of range"))?
                }
                _ => value(&mut c, ty)?,
            }));
        }
        Ok(out)
    }
}

fn is_set(bits: &[u8], i: usize) -> bool {
    bits.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
}

fn dict_bit_width(entries: usize) -> usize {
    if entries <= 1 {
        0
    } else {
        (usize::BITS - (entries - 1).leading_zeros()) as usize
    }
}

/// One value (fixed width, or varint length then bytes).
fn value<'a>(c: &mut Cursor<'a>, ty: &MosaicType) -> Step<&'a [u8]> {
    match ty.width() {
        Some(w) => c.take(w),
        None => c.bytes(),
    }
}

/// A slice of `data` (the buffer `c` reads) as shared bytes.
fn share(data: &Bytes, c: &Cursor<'_>, from: usize) -> Bytes {
    data.slice(from..c.pos)
}

/// One value of `data` (the buffer `c` reads), without its length prefix, as shared bytes.
fn shared_value(data: &Bytes, c: &mut Cursor<'_>, ty: &MosaicType) -> Step<Bytes> {
    let len = value(c, ty)?.len();
    Ok(data.slice(c.pos - len..c.pos))
}

/// The pages of a monolithic bucket (decompressed): child counts, 2-bit encodings, has-nulls
/// bits, the constants, the dictionaries, the null bitmaps, then each column's values.
pub(super) fn monolithic(
    data: &Bytes,
    types: &[MosaicType],
    primary: usize,
    rows: usize,
) -> Step<Vec<Page>> {
    let total = types.len();
    if rows == 0 || data.is_empty() {
        return Ok((0..total).map(|_| Page::all_null(0)).collect());
    }
    let mut c = Cursor::new(data);
    let mut row_counts = vec![rows; primary];
    if total > primary {
        let (p, children) = (c.varint()?, c.varint()?);
        if p != primary || primary + children != total {
            return Err(format!(
                "bucket header has {p} + {children} columns, the schema gives {primary} + {}",
                total - primary
            ));
        }
        for _ in 0..children {
            row_counts.push(c.varint()?);
        }
    }
    let flags = c.take((total * 2).div_ceil(8))?;
    let has_nulls = c.take(total.div_ceil(8))?;
    let mut pages: Vec<Page> = (0..total)
        .map(|i| Page {
            rows: row_counts[i],
            encoding: (flags[i * 2 / 8] >> (i * 2 % 8)) & 3,
            ..Page::default()
        })
        .collect();
    for (page, ty) in pages.iter_mut().zip(types) {
        if page.encoding == CONST {
            page.constant = shared_value(data, &mut c, ty)?;
        }
    }
    for (page, ty) in pages.iter_mut().zip(types) {
        if page.encoding == DICT {
            page.dict = dictionary(data, &mut c, ty)?;
        }
    }
    for (i, page) in pages.iter_mut().enumerate() {
        if is_set(has_nulls, i) && page.encoding != ALL_NULL {
            let from = c.pos;
            c.take(page.rows.div_ceil(8))?;
            page.nulls = Some(share(data, &c, from));
        }
    }
    for (page, ty) in pages.iter_mut().zip(types) {
        let from = c.pos;
        skip_values(&mut c, page, ty)?;
        page.data = share(data, &c, from);
    }
    Ok(pages)
}

/// A dictionary: varint entry count, then the entries.
fn dictionary(data: &Bytes, c: &mut Cursor<'_>, ty: &MosaicType) -> Step<Vec<Bytes>> {
    let n = c.varint()?;
    if n > 255 {
        return Err(format!("a dictionary of {n} entries (at most 255)"));
    }
    (0..n).map(|_| shared_value(data, c, ty)).collect()
}

/// Moves past a page's values (PLAIN values or DICT indices).
fn skip_values(c: &mut Cursor<'_>, page: &Page, ty: &MosaicType) -> Step<()> {
    let n = page.non_null();
    match page.encoding {
        PLAIN => match ty.width() {
            Some(w) => {
                c.take(n.checked_mul(w).ok_or("value size overflows")?)?;
            }
            None => {
                for _ in 0..n {
                    c.bytes()?;
                }
            }
        },
        DICT => {
            c.take((n * dict_bit_width(page.dict.len())).div_ceil(8))?;
        }
        _ => {}
    }
    Ok(())
}

/// The child element counts and the slot sizes at the start of a paged bucket.
pub(super) struct Directory {
    pub child_rows: Vec<usize>,
    pub slots: Vec<usize>,
    /// Bytes of the child header and the directory.
    pub len: usize,
}

impl Directory {
    /// Parses the directory of a paged bucket of `total` physical columns, `primary` of them
    /// top-level, `size` bytes in all.
    pub(super) fn parse(head: &[u8], total: usize, primary: usize, size: usize) -> Step<Self> {
        let mut c = Cursor::new(head);
        let mut child_rows = Vec::new();
        if total > primary {
            let n = usize::from(u16::from_le_bytes(c.array()?));
            if n != total - primary {
                return Err(format!(
                    "paged bucket has {n} child columns, the schema gives {}",
                    total - primary
                ));
            }
            for _ in 0..n {
                child_rows.push(u32::from_le_bytes(c.array()?) as usize);
            }
        }
        let slots = (0..total)
            .map(|_| Ok(u32::from_le_bytes(c.array()?) as usize))
            .collect::<Step<Vec<usize>>>()?;
        let len = c.pos;
        if len + slots.iter().sum::<usize>() != size {
            return Err("paged bucket's slot sizes do not add up to its size".into());
        }
        Ok(Self {
            child_rows,
            slots,
            len,
        })
    }
}

/// One page of a paged bucket: a varint decompressed size, then zstd of the encoding, the
/// flags (bit 0: has nulls) and the page (constant or dictionary, null bitmap, values).
pub(super) fn slot(raw: &[u8], ty: &MosaicType, rows: usize) -> Step<Page> {
    if raw.is_empty() {
        return Ok(Page::all_null(rows));
    }
    let mut c = Cursor::new(raw);
    let size = c.varint()?;
    let content =
        Bytes::from(zstd::bulk::decompress(&raw[c.pos..], size).map_err(|e| format!("zstd: {e}"))?);
    if content.len() != size {
        return Err(format!(
            "a page of {} bytes, {size} expected",
            content.len()
        ));
    }
    let mut c = Cursor::new(&content);
    let encoding = c.u8()?;
    let has_nulls = c.u8()? & 1 != 0;
    if encoding > ALL_NULL {
        return Err(format!("unknown encoding {encoding}"));
    }
    let mut page = Page {
        rows,
        encoding,
        ..Page::default()
    };
    if encoding == ALL_NULL {
        return Ok(page);
    }
    if encoding == CONST {
        page.constant = shared_value(&content, &mut c, ty)?;
    }
    if encoding == DICT {
        page.dict = dictionary(&content, &mut c, ty)?;
    }
    if has_nulls {
        let from = c.pos;
        c.take(rows.div_ceil(8))?;
        page.nulls = Some(share(&content, &c, from));
    }
    let from = c.pos;
    skip_values(&mut c, &page, ty)?;
    page.data = share(&content, &c, from);
    Ok(page)
}

/// The physical columns (sorted) that column nodes `nodes` need.
pub(super) fn needed(nodes: &[&Node]) -> Vec<usize> {
    let mut out = Vec::new();
    for n in nodes {
        n.collect(&mut out);
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_split_depth_first() {
        // a: ARRAY<ARRAY<INT>>, b: MAP<STRING, ARRAY<BIGINT>>, c: DOUBLE.
        let a = MosaicType::Array(Box::new(MosaicType::Array(Box::new(MosaicType::Int))));
        let b = MosaicType::Map(
            Box::new(MosaicType::String),
            Box::new(MosaicType::Array(Box::new(MosaicType::BigInt))),
        );
        let (nodes, physical) = physical_layout(&[&a, &b, &MosaicType::Double]);
        assert_eq!(
            physical,
            [
                MosaicType::Int,    // a lengths
                MosaicType::Int,    // b lengths
                MosaicType::Double, // c
                MosaicType::Int,    // a's inner lengths
                MosaicType::Int,    // a's elements
                MosaicType::String, // b's keys
                MosaicType::Int,    // b's value lengths
                MosaicType::BigInt, // b's value elements
            ]
        );
        assert_eq!(needed(&[&nodes[1]]), [1, 5, 6, 7]);
        assert_eq!(dict_bit_width(2), 1);
        assert_eq!(dict_bit_width(5), 3);
        assert_eq!(dict_bit_width(256), 8);
    }

    #[test]
    fn constants_and_dictionary_entries_are_values_without_their_length() {
        // One STRING column of 2 rows, CONST "ab".
        let bucket = Bytes::from(vec![0b01, 0, 2, b'a', b'b']);
        let pages = monolithic(&bucket, &[MosaicType::String], 1, 2).unwrap();
        let cells = pages[0].cells(&MosaicType::String).unwrap();
        assert_eq!(cells, [Some(&b"ab"[..]), Some(&b"ab"[..])]);
    }

    #[test]
    fn monolithic_pages_are_split_by_encoding() {
        // Two INT columns of 3 rows: PLAIN with row 1 null; DICT of {7, 9} indices 1, 0, 1.
        let mut bucket = vec![0b0000_1000, 0b01];
        bucket.extend([2, 0, 0, 0, 7, 0, 0, 0, 9]); // dictionary of column 1
        bucket.push(0b010); // column 0 nulls
        bucket.extend([0, 0, 0, 1, 0, 0, 0, 3]); // column 0 values 1, 3
        bucket.push(0b101); // column 1 indices
        let pages = monolithic(
            &Bytes::from(bucket),
            &[MosaicType::Int, MosaicType::Int],
            2,
            3,
        )
        .unwrap();
        let cells = pages[0].cells(&MosaicType::Int).unwrap();
        assert_eq!(
            cells,
            [Some(&[0, 0, 0, 1][..]), None, Some(&[0, 0, 0, 3][..])]
        );
        let cells = pages[1].cells(&MosaicType::Int).unwrap();
        assert_eq!(
            cells,
            [
                Some(&[0, 0, 0, 9][..]),
                Some(&[0, 0, 0, 7][..]),
                Some(&[0, 0, 0, 9][..])
            ]
        );
    }
}
