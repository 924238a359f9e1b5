//! The schema block of a Mosaic file: its columns in name order (front-coded names, optionally
//! byte-pair encoded) with their type descriptors, and the bucket each column falls in.

use crate::read::row_file::cursor::{Cursor, Step};

/// A Mosaic column type (the file's type descriptor).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum MosaicType {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    Date,
    /// CHAR, VARCHAR and STRING: varint-length UTF-8.
    String,
    /// BINARY, VARBINARY and BYTES: varint-length bytes.
    Binary,
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// TIME: milliseconds of the day.
    Time,
    /// TIMESTAMP (`zoned` false) and TIMESTAMP_LTZ.
    Timestamp {
        precision: u32,
        zoned: bool,
    },
    Array(Box<MosaicType>),
    Map(Box<MosaicType>, Box<MosaicType>),
}

impl MosaicType {
    /// Bytes of one value, or None for a varint-length value.
    pub(super) fn width(&self) -> Option<usize> {
        match self {
            Self::Boolean | Self::TinyInt => Some(1),
            Self::SmallInt => Some(2),
            Self::Int | Self::Date | Self::Time | Self::Float => Some(4),
            Self::BigInt | Self::Double => Some(8),
            Self::Decimal { precision, .. } if *precision <= 18 => Some(8),
            Self::Timestamp { precision, .. } if *precision <= 6 => Some(8),
            Self::Timestamp { .. } => Some(12),
            // Containers are stored as an INT column of lengths.
            Self::Array(_) | Self::Map(..) => Some(4),
            Self::String | Self::Binary | Self::Decimal { .. } => None,
        }
    }

    /// The type's name in errors.
    pub(super) fn name(&self) -> String {
        match self {
            Self::Boolean => "BOOLEAN".into(),
            Self::TinyInt => "TINYINT".into(),
            Self::SmallInt => "SMALLINT".into(),
            Self::Int => "INT".into(),
            Self::BigInt => "BIGINT".into(),
            Self::Float => "FLOAT".into(),
            Self::Double => "DOUBLE".into(),
            Self::Date => "DATE".into(),
            Self::String => "STRING".into(),
            Self::Binary => "BYTES".into(),
            Self::Decimal { precision, scale } => format!("DECIMAL({precision}, {scale})"),
            Self::Time => "TIME".into(),
            Self::Timestamp { precision, zoned } => {
                let ltz = if *zoned { "_LTZ" } else { "" };
                format!("TIMESTAMP{ltz}({precision})")
            }
            Self::Array(e) => format!("ARRAY<{}>", e.name()),
            Self::Map(k, v) => format!("MAP<{}, {}>", k.name(), v.name()),
        }
    }
}

/// One column of the file, in name order.
#[derive(Debug)]
pub(super) struct Column {
    pub name: String,
    pub ty: MosaicType,
}

/// The parsed schema block.
#[derive(Debug)]
pub(super) struct MosaicSchema {
    /// Columns sorted by name (the file's column order).
    pub columns: Vec<Column>,
    /// For each bucket, its columns (positions in `columns`), in name order.
    pub buckets: Vec<Vec<usize>>,
}

impl MosaicSchema {
    /// Parses the (decompressed) schema block.
    pub(super) fn parse(data: &[u8]) -> Step<Self> {
        let mut c = Cursor::new(data);
        let count = c.varint()?;
        let num_buckets = c.varint()?;
        if num_buckets == 0 {
            return Err("the schema has 0 buckets".into());
        }
        let rules: Option<Vec<[u8; 2]>> = match c.u8()? {
            0 => None,
            1 => {
                let n = c.varint()?;
                if n > 128 {
                    return Err(format!("{n} name-encoding rules (at most 128)"));
                }
                Some((0..n).map(|_| c.array::<2>()).collect::<Step<_>>()?)
            }
            other => return Err(format!("unknown column name encoding {other}")),
        };
        let mut columns: Vec<Column> = Vec::with_capacity(count.min(data.len()));
        let mut previous: Vec<u8> = Vec::new();
        for _ in 0..count {
            let shared = c.varint()?;
            let suffix = c.bytes()?;
            if shared > previous.len() {
                return Err("a column name shares more bytes than the previous name has".into());
            }
            previous.truncate(shared);
            previous.extend_from_slice(suffix);
            let raw = match &rules {
                Some(rules) => bpe_decode(&previous, rules)?,
                None => previous.clone(),
            };
            let name = String::from_utf8(raw).map_err(|_| "a column name is not UTF-8")?;
            if name.is_empty() || columns.iter().any(|col| col.name == name) {
                return Err(format!("empty or duplicate column name '{name}'"));
            }
            let ty = read_type(&mut c, 0)?;
            columns.push(Column { name, ty });
        }
        // (The original column order follows; columns are read by name.)
        let buckets_used = num_buckets.min(count.max(1));
        if buckets_used != num_buckets {
            return Err(format!("{num_buckets} buckets for {count} columns"));
        }
        let mut buckets = vec![Vec::new(); num_buckets];
        for position in 0..count {
            buckets[position * num_buckets / count].push(position);
        }
        Ok(Self { columns, buckets })
    }

    /// The bucket of column `position` and its index among the bucket's columns.
    pub(super) fn locate(&self, position: usize) -> Option<(usize, usize)> {
        self.buckets
            .iter()
            .enumerate()
            .find_map(|(b, cols)| Some((b, cols.iter().position(|p| *p == position)?)))
    }
}

/// Expands byte-pair tokens (0x80 + rule index) of an encoded name.
fn bpe_decode(encoded: &[u8], rules: &[[u8; 2]]) -> Step<Vec<u8>> {
    fn expand(token: u8, rules: &[[u8; 2]], depth: usize, out: &mut Vec<u8>) -> Step<()> {
        if token < 0x80 {
            out.push(token);
            return Ok(());
        }
        let rule = rules
            .get(usize::from(token - 0x80))
            .filter(|_| depth < rules.len())
            .ok_or_else(|| format!("a column name uses an undefined token {token:#x}"))?;
        expand(rule[0], rules, depth + 1, out)?;
        expand(rule[1], rules, depth + 1, out)
    }
    let mut out = Vec::with_capacity(encoded.len() * 2);
    for &b in encoded {
        expand(b, rules, 0, &mut out)?;
    }
    Ok(out)
}

/// Reads a type descriptor (type byte, nullable byte, parameters).
fn read_type(c: &mut Cursor<'_>, depth: usize) -> Step<MosaicType> {
    if depth > 64 {
        return Err("types nested more than 64 deep".into());
    }
    let tag = c.u8()?;
    let _nullable = c.u8()?;
    Ok(match tag {
        0 => MosaicType::Boolean,
        1 => MosaicType::TinyInt,
        2 => MosaicType::SmallInt,
        3 => MosaicType::Int,
        4 => MosaicType::BigInt,
        5 => MosaicType::Float,
        6 => MosaicType::Double,
        7 => MosaicType::Date,
        8 | 9 => {
            c.varint()?;
            MosaicType::String
        }
        10 => MosaicType::String,
        11 | 12 => {
            c.varint()?;
            MosaicType::Binary
        }
        13 => MosaicType::Binary,
        14 => {
            let precision = c.varint()? as u32;
            let scale = c.varint()? as u32;
            if !(1..=38).contains(&precision) || scale > precision {
                return Err(format!("DECIMAL({precision}, {scale})"));
            }
            MosaicType::Decimal { precision, scale }
        }
        15 => {
            c.varint()?;
            MosaicType::Time
        }
        16 | 17 => {
            let precision = c.varint()? as u32;
            if tag == 17 {
                c.bytes()?;
            }
            MosaicType::Timestamp {
                precision,
                zoned: tag == 17,
            }
        }
        18 => {
            c.bytes()?;
            MosaicType::Array(Box::new(read_type(c, depth + 1)?))
        }
        19 => {
            c.bytes()?;
            c.bytes()?;
            let key = read_type(c, depth + 1)?;
            c.bytes()?;
            let value = read_type(c, depth + 1)?;
            MosaicType::Map(Box::new(key), Box::new(value))
        }
        other => return Err(format!("unknown type tag {other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_pair_tokens_expand_recursively() {
        // 0x80 = "ab", 0x81 = 0x80 + "c".
        let rules = [[b'a', b'b'], [0x80, b'c']];
        assert_eq!(bpe_decode(&[0x81, b'x', 0x80], &rules).unwrap(), b"abcxab");
        assert!(bpe_decode(&[0x82], &rules).is_err());
    }

    #[test]
    fn columns_are_spread_over_buckets_in_name_order() {
        // 3 columns, 2 buckets, front coding; names "a", "ab", "b" (shared prefixes 0, 1, 0).
        let mut block = vec![3, 2, 0];
        for (shared, suffix, ty) in [(0u8, "a", 3u8), (1, "b", 10), (0, "b", 4)] {
            block.extend([shared, suffix.len() as u8]);
            block.extend(suffix.as_bytes());
            block.extend([ty, 1]);
        }
        let schema = MosaicSchema::parse(&block).unwrap();
        let names: Vec<_> = schema.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "ab", "b"]);
        assert_eq!(schema.columns[1].ty, MosaicType::String);
        assert_eq!(schema.buckets, vec![vec![0, 1], vec![2]]);
        assert_eq!(schema.locate(2), Some((1, 0)));
        block[2] = 7;
        assert!(MosaicSchema::parse(&block)
            .unwrap_err()
            .contains("name encoding 7"));
    }
}
