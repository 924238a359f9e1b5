//! Paimon's serialized `BinaryRow` (partitions, keys, stats): decoding into [`Datum`] values.
//!
//! Layout of the serialized form (Java `SerializationUtils.serializeBinaryRow`):
//! a 4-byte big-endian arity, then the row bytes. The row starts with a fixed part: one header
//! byte (the RowKind) followed by the null bitset — together `((arity + 63 + 8) / 64) * 8` bytes,
//! null bit of field `i` at bit `i + 8` — then one 8-byte little-endian slot per field. Values
//! longer than 8 bytes live in the variable part after the fixed part; their slot holds
//! `offset << 32 | length` with the offset relative to the start of the row bytes. Strings and
//! binaries of at most 7 bytes are stored inline: the slot's top bit is set, the next 7 bits hold
//! the length, and the bytes sit in the low-order (first) bytes of the slot.

use super::types::{DataType, TypeKind};
use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::fmt;

/// Name used in errors when the caller did not say which file a row came from.
const UNNAMED: &str = "BinaryRow";

/// One decoded value of a `BinaryRow` field.
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    /// SQL NULL.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// TINYINT.
    TinyInt(i8),
    /// SMALLINT.
    SmallInt(i16),
    /// INT.
    Int(i32),
    /// BIGINT.
    BigInt(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// DECIMAL(precision, scale): `unscaled * 10^-scale`.
    Decimal {
        /// The unscaled integer value.
        unscaled: i128,
        /// Declared precision.
        precision: u8,
        /// Declared scale.
        scale: u8,
    },
    /// CHAR / VARCHAR / STRING.
    String(String),
    /// BINARY / VARBINARY / BYTES.
    Binary(Vec<u8>),
    /// DATE: days since 1970-01-01.
    Date(i32),
    /// TIME: milliseconds of the day.
    Time(i32),
    /// TIMESTAMP (without time zone).
    Timestamp {
        /// Milliseconds since the epoch (of the wall-clock value).
        millis: i64,
        /// Additional nanoseconds within the millisecond (0..1_000_000).
        nanos_of_milli: i32,
    },
    /// TIMESTAMP WITH LOCAL TIME ZONE: an instant.
    LocalZonedTimestamp {
        /// Milliseconds since the epoch (UTC).
        millis: i64,
        /// Additional nanoseconds within the millisecond (0..1_000_000).
        nanos_of_milli: i32,
    },
    /// A nested value (ARRAY, MAP, MULTISET, ROW, VARIANT) left in its serialized form.
    Nested(Vec<u8>),
}

/// Decoder for the serialized `BinaryRow` form (see the module docs).
pub struct BinaryRow;

impl BinaryRow {
    /// Width in bytes of the header byte plus the null bitset, for `arity` fields.
    pub fn header_width(arity: usize) -> usize {
        arity.saturating_add(63 + 8) / 64 * 8
    }

    /// The arity stored in the first 4 bytes of a serialized row.
    pub fn arity(bytes: &[u8]) -> Result<usize> {
        Self::arity_in(UNNAMED, bytes)
    }

    fn arity_in(file: &str, bytes: &[u8]) -> Result<usize> {
        let head: [u8; 4] = bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                Error::corrupt(
                    file,
                    format!("BinaryRow of {} bytes has no arity", bytes.len()),
                )
            })?;
        let arity = i32::from_be_bytes(head);
        usize::try_from(arity)
            .map_err(|_| Error::corrupt(file, format!("BinaryRow with negative arity {arity}")))
    }

    /// Decodes a serialized row whose fields have the given types.
    ///
    /// Errors with [`Error::Corrupt`] on an arity mismatch, out-of-bounds offsets or lengths,
    /// bad UTF-8 or impossible values; never panics.
    pub fn decode(bytes: &[u8], types: &[DataType]) -> Result<Vec<Datum>> {
        Self::decode_in(UNNAMED, bytes, types)
    }

    /// Like [`BinaryRow::decode`], naming `file` in errors.
    pub fn decode_in(file: &str, bytes: &[u8], types: &[DataType]) -> Result<Vec<Datum>> {
        let arity = Self::arity_in(file, bytes)?;
        if arity != types.len() {
            return Err(Error::corrupt(
                file,
                format!("BinaryRow has {arity} fields, expected {}", types.len()),
            ));
        }
        let row = &bytes[4..];
        let bitset = Self::header_width(arity);
        let fixed = arity
            .checked_mul(8)
            .and_then(|n| n.checked_add(bitset))
            .ok_or_else(|| Error::corrupt(file, "BinaryRow arity overflows"))?;
        if row.len() < fixed {
            return Err(Error::corrupt(
                file,
                format!(
                    "BinaryRow with {arity} fields needs a fixed part of {fixed} bytes, has {}",
                    row.len()
                ),
            ));
        }
        let reader = RowReader { file, row, bitset };
        types
            .iter()
            .enumerate()
            .map(|(i, t)| reader.field(i, t))
            .collect()
    }
}

struct RowReader<'a> {
    file: &'a str,
    row: &'a [u8],
    bitset: usize,
}

impl RowReader<'_> {
    fn corrupt(&self, reason: impl fmt::Display) -> Error {
        Error::corrupt(self.file, reason)
    }

    fn is_null(&self, i: usize) -> bool {
        let bit = i + 8;
        self.row
            .get(bit / 8)
            .is_some_and(|b| b & (1u8 << (bit % 8)) != 0)
    }

    fn slot(&self, i: usize) -> Result<[u8; 8]> {
        let start = self.bitset + i * 8;
        self.row
            .get(start..start + 8)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| self.corrupt(format!("BinaryRow field {i} slot out of bounds")))
    }

    fn slot_i64(&self, i: usize) -> Result<i64> {
        Ok(i64::from_le_bytes(self.slot(i)?))
    }

    fn slot_i32(&self, i: usize) -> Result<i32> {
        let s = self.slot(i)?;
        Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// Bytes at `offset..offset+len` of the row, bounds-checked.
    fn var(&self, i: usize, offset: i64, len: i64) -> Result<&[u8]> {
        let bad = || {
            self.corrupt(format!(
                "BinaryRow field {i}: variable part {offset}+{len} outside a row of {} bytes",
                self.row.len()
            ))
        };
        let start = usize::try_from(offset).map_err(|_| bad())?;
        let len = usize::try_from(len).map_err(|_| bad())?;
        let end = start.checked_add(len).ok_or_else(bad)?;
        self.row.get(start..end).ok_or_else(bad)
    }

    /// A variable-length value: inline (≤ 7 bytes) or in the variable part.
    fn var_len(&self, i: usize) -> Result<&[u8]> {
        let slot = self.slot(i)?;
        let v = u64::from_le_bytes(slot);
        if v & (1u64 << 63) != 0 {
            let len = ((v >> 56) & 0x7f) as usize;
            if len > 7 {
                return Err(self.corrupt(format!("BinaryRow field {i}: inline length {len} > 7")));
            }
            let start = self.bitset + i * 8;
            Ok(&self.row[start..start + len])
        } else {
            self.offset_and_size(i, v)
        }
    }

    /// A value always stored in the variable part (`offset << 32 | size`).
    fn offset_and_size(&self, i: usize, v: u64) -> Result<&[u8]> {
        let offset = (v >> 32) as u32 as i32;
        let size = v as u32 as i32;
        self.var(i, i64::from(offset), i64::from(size))
    }

    fn field(&self, i: usize, t: &DataType) -> Result<Datum> {
        if self.is_null(i) {
            return Ok(Datum::Null);
        }
        let d = match &t.kind {
            TypeKind::Boolean => Datum::Boolean(self.slot(i)?[0] != 0),
            TypeKind::TinyInt => Datum::TinyInt(self.slot(i)?[0] as i8),
            TypeKind::SmallInt => {
                let s = self.slot(i)?;
                Datum::SmallInt(i16::from_le_bytes([s[0], s[1]]))
            }
            TypeKind::Int => Datum::Int(self.slot_i32(i)?),
            TypeKind::Date => Datum::Date(self.slot_i32(i)?),
            TypeKind::Time(_) => Datum::Time(self.slot_i32(i)?),
            TypeKind::BigInt => Datum::BigInt(self.slot_i64(i)?),
            TypeKind::Float => Datum::Float(f32::from_bits(self.slot_i32(i)? as u32)),
            TypeKind::Double => Datum::Double(f64::from_bits(self.slot_i64(i)? as u64)),
            TypeKind::Char(_) | TypeKind::VarChar(_) => {
                let b = self.var_len(i)?;
                let s = std::str::from_utf8(b).map_err(|e| {
                    self.corrupt(format!("BinaryRow field {i}: invalid UTF-8: {e}"))
                })?;
                Datum::String(s.to_string())
            }
            TypeKind::Binary(_) | TypeKind::VarBinary(_) => {
                Datum::Binary(self.var_len(i)?.to_vec())
            }
            TypeKind::Decimal { precision, scale } => {
                let unscaled = if *precision <= 18 {
                    i128::from(self.slot_i64(i)?)
                } else {
                    let v = u64::from_le_bytes(self.slot(i)?);
                    let b = self.offset_and_size(i, v)?;
                    be_twos_complement(b).ok_or_else(|| {
                        self.corrupt(format!(
                            "BinaryRow field {i}: decimal of {} bytes does not fit DECIMAL({precision})",
                            b.len()
                        ))
                    })?
                };
                Datum::Decimal {
                    unscaled,
                    precision: *precision,
                    scale: *scale,
                }
            }
            TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
                let (millis, nanos_of_milli) = if *p <= 3 {
                    (self.slot_i64(i)?, 0)
                } else {
                    let v = u64::from_le_bytes(self.slot(i)?);
                    let offset = (v >> 32) as u32 as i32;
                    let nanos = v as u32 as i32;
                    if !(0..1_000_000).contains(&nanos) {
                        return Err(self.corrupt(format!(
                            "BinaryRow field {i}: nanos-of-millisecond {nanos} out of range"
                        )));
                    }
                    let b = self.var(i, i64::from(offset), 8)?;
                    let mut m = [0u8; 8];
                    m.copy_from_slice(b);
                    (i64::from_le_bytes(m), nanos)
                };
                if matches!(t.kind, TypeKind::Timestamp(_)) {
                    Datum::Timestamp {
                        millis,
                        nanos_of_milli,
                    }
                } else {
                    Datum::LocalZonedTimestamp {
                        millis,
                        nanos_of_milli,
                    }
                }
            }
            TypeKind::Array(_)
            | TypeKind::Multiset(_)
            | TypeKind::Map(..)
            | TypeKind::Row(_)
            | TypeKind::Variant
            | TypeKind::Vector(..)
            | TypeKind::Blob => {
                let v = u64::from_le_bytes(self.slot(i)?);
                Datum::Nested(self.offset_and_size(i, v)?.to_vec())
            }
        };
        Ok(d)
    }
}

/// Big-endian two's complement bytes (Java `BigInteger.toByteArray`) to i128.
fn be_twos_complement(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

impl Datum {
    /// Whether this is [`Datum::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    /// A total order for sorting: NULL first, then by value within a kind (floats by
    /// `total_cmp`), then by kind.
    pub fn total_cmp(&self, other: &Datum) -> Ordering {
        use Datum::*;
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Null, _) => Ordering::Less,
            (_, Null) => Ordering::Greater,
            (Boolean(a), Boolean(b)) => a.cmp(b),
            (TinyInt(a), TinyInt(b)) => a.cmp(b),
            (SmallInt(a), SmallInt(b)) => a.cmp(b),
            (Int(a), Int(b)) | (Date(a), Date(b)) | (Time(a), Time(b)) => a.cmp(b),
            (BigInt(a), BigInt(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Double(a), Double(b)) => a.total_cmp(b),
            (
                Decimal {
                    unscaled: a,
                    scale: sa,
                    ..
                },
                Decimal {
                    unscaled: b,
                    scale: sb,
                    ..
                },
            ) => {
                if sa == sb {
                    a.cmp(b)
                } else {
                    // Different scales: compare as text-free rationals via f64 (rare path).
                    let fa = *a as f64 / 10f64.powi(i32::from(*sa));
                    let fb = *b as f64 / 10f64.powi(i32::from(*sb));
                    fa.total_cmp(&fb)
                }
            }
            (String(a), String(b)) => a.cmp(b),
            (Binary(a), Binary(b)) | (Nested(a), Nested(b)) => a.cmp(b),
            (
                Timestamp {
                    millis: a,
                    nanos_of_milli: na,
                },
                Timestamp {
                    millis: b,
                    nanos_of_milli: nb,
                },
            )
            | (
                LocalZonedTimestamp {
                    millis: a,
                    nanos_of_milli: na,
                },
                LocalZonedTimestamp {
                    millis: b,
                    nanos_of_milli: nb,
                },
            ) => (a, na).cmp(&(b, nb)),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Datum::Null => 0,
            Datum::Boolean(_) => 1,
            Datum::TinyInt(_) => 2,
            Datum::SmallInt(_) => 3,
            Datum::Int(_) => 4,
            Datum::BigInt(_) => 5,
            Datum::Float(_) => 6,
            Datum::Double(_) => 7,
            Datum::Decimal { .. } => 8,
            Datum::String(_) => 9,
            Datum::Binary(_) => 10,
            Datum::Date(_) => 11,
            Datum::Time(_) => 12,
            Datum::Timestamp { .. } => 13,
            Datum::LocalZonedTimestamp { .. } => 14,
            Datum::Nested(_) => 15,
        }
    }

    /// The text Paimon puts in a partition path for this value, or `None` for NULL.
    ///
    /// `legacy` is the table option `partition.legacy-name` (default true): Java then uses the
    /// `toString()` of its internal value, so a DATE renders as its day number (`19723`) and a
    /// TIMESTAMP like `LocalDateTime.toString()` (`2024-01-01T10:00`). Otherwise values are cast
    /// to STRING (`2024-01-01`, `2024-01-01 10:00:00.000000` with the type's precision).
    /// Empty or whitespace-only results mean "use `partition.default-name`" to Paimon; this
    /// function returns them as they are and Paimon's `Table::data_file_path` maps them.
    /// BINARY values render as lowercase hex (Java would print an object id; such tables
    /// cannot be read back by partition name anyway).
    pub fn to_partition_string(&self, data_type: &DataType, legacy: bool) -> Option<String> {
        let s = match self {
            Datum::Null => return None,
            Datum::Date(d) if legacy => d.to_string(),
            Datum::Time(t) if legacy => t.to_string(),
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            }
            | Datum::LocalZonedTimestamp {
                millis,
                nanos_of_milli,
            } if legacy => java_local_date_time(*millis, *nanos_of_milli),
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            }
            | Datum::LocalZonedTimestamp {
                millis,
                nanos_of_milli,
            } => {
                let precision = match data_type.kind {
                    TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => p,
                    _ => 6,
                };
                sql_timestamp(*millis, *nanos_of_milli, precision)
            }
            other => other.to_string(),
        };
        Some(s)
    }
}

/// Days since the epoch to (year, month, day) in the proleptic Gregorian calendar.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn split_millis(millis: i64) -> (i64, i64) {
    (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000))
}

fn date_string(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD HH:MM:SS[.fraction]` with `precision` fraction digits.
fn sql_timestamp(millis: i64, nanos_of_milli: i32, precision: u8) -> String {
    let (days, ms) = split_millis(millis);
    let secs = ms / 1000;
    let nanos = (ms % 1000) * 1_000_000 + i64::from(nanos_of_milli);
    let mut s = format!(
        "{} {:02}:{:02}:{:02}",
        date_string(days),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if precision > 0 {
        let frac = format!("{nanos:09}");
        s.push('.');
        s.push_str(&frac[..usize::from(precision.min(9))]);
    }
    s
}

/// Java `LocalDateTime.toString()`: `YYYY-MM-DDTHH:MM`, then `:SS` and the shortest of
/// 3/6/9 fraction digits when non-zero.
fn java_local_date_time(millis: i64, nanos_of_milli: i32) -> String {
    let (days, ms) = split_millis(millis);
    let secs = ms / 1000;
    let nanos = (ms % 1000) * 1_000_000 + i64::from(nanos_of_milli);
    let mut s = format!(
        "{}T{:02}:{:02}",
        date_string(days),
        secs / 3600,
        secs / 60 % 60
    );
    if secs % 60 != 0 || nanos != 0 {
        s.push_str(&format!(":{:02}", secs % 60));
        if nanos != 0 {
            if nanos % 1_000_000 == 0 {
                s.push_str(&format!(".{:03}", nanos / 1_000_000));
            } else if nanos % 1000 == 0 {
                s.push_str(&format!(".{:06}", nanos / 1000));
            } else {
                s.push_str(&format!(".{nanos:09}"));
            }
        }
    }
    s
}

/// Java `Float.toString` / `Double.toString` style: plain between 1e-3 and 1e7, else `d.dddE±n`.
fn java_float(v: f64, shortest: String) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let a = v.abs();
    if a == 0.0 || (1e-3..1e7).contains(&a) {
        if shortest.contains('.') || shortest.contains('e') || shortest.contains("inf") {
            shortest
        } else {
            format!("{shortest}.0")
        }
    } else {
        // Rust `{:e}` gives e.g. `1.5e7`; Java wants `1.5E7` and at least one fraction digit.
        let (mant, exp) = shortest.split_once('e').unwrap_or((shortest.as_str(), "0"));
        let mant = if mant.contains('.') {
            mant.to_string()
        } else {
            format!("{mant}.0")
        };
        format!("{mant}E{exp}")
    }
}

fn decimal_string(unscaled: i128, scale: u8) -> String {
    let neg = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let body = if scale == 0 {
        digits
    } else if digits.len() > scale {
        format!(
            "{}.{}",
            &digits[..digits.len() - scale],
            &digits[digits.len() - scale..]
        )
    } else {
        format!("0.{}{}", "0".repeat(scale - digits.len()), digits)
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

impl fmt::Display for Datum {
    /// Human-readable text: SQL-style dates/times, plain decimals, hex for binary.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Datum::Null => write!(f, "NULL"),
            Datum::Boolean(b) => write!(f, "{b}"),
            Datum::TinyInt(v) => write!(f, "{v}"),
            Datum::SmallInt(v) => write!(f, "{v}"),
            Datum::Int(v) => write!(f, "{v}"),
            Datum::BigInt(v) => write!(f, "{v}"),
            Datum::Float(v) => {
                let shortest = if (1e-3..1e7).contains(&v.abs()) || *v == 0.0 {
                    format!("{v}")
                } else {
                    format!("{v:e}")
                };
                write!(f, "{}", java_float(f64::from(*v), shortest))
            }
            Datum::Double(v) => {
                let shortest = if (1e-3..1e7).contains(&v.abs()) || *v == 0.0 {
                    format!("{v}")
                } else {
                    format!("{v:e}")
                };
                write!(f, "{}", java_float(*v, shortest))
            }
            Datum::Decimal {
                unscaled, scale, ..
            } => write!(f, "{}", decimal_string(*unscaled, *scale)),
            Datum::String(s) => write!(f, "{s}"),
            Datum::Binary(b) | Datum::Nested(b) => {
                for byte in b {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
            Datum::Date(d) => write!(f, "{}", date_string(i64::from(*d))),
            Datum::Time(ms) => {
                let ms = i64::from(*ms);
                let secs = ms / 1000;
                write!(
                    f,
                    "{:02}:{:02}:{:02}",
                    secs / 3600,
                    secs / 60 % 60,
                    secs % 60
                )?;
                if ms % 1000 != 0 {
                    write!(f, ".{:03}", ms % 1000)?;
                }
                Ok(())
            }
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            }
            | Datum::LocalZonedTimestamp {
                millis,
                nanos_of_milli,
            } => {
                let precision = if *nanos_of_milli != 0 { 9 } else { 3 };
                let s = sql_timestamp(*millis, *nanos_of_milli, precision);
                let s = s.trim_end_matches('0').trim_end_matches('.');
                write!(f, "{s}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DataType {
        DataType::parse(s).unwrap()
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn decodes_long_string_from_corpus_partition() {
        // _PARTITION of corpus.pk_dedup: dt = '2024-03-01' (10 bytes, in the variable part).
        let b = hex("0000000100000000000000000a00000010000000323032342d30332d3031000000000000");
        let row = BinaryRow::decode(&b, &[t("STRING NOT NULL")]).unwrap();
        assert_eq!(row, vec![Datum::String("2024-03-01".into())]);
    }

    #[test]
    fn decodes_inline_strings_and_ints_from_corpus_stats() {
        // _VALUE_STATS min of java09.pk_compacted: (id INT, name, qty BIGINT, price DECIMAL(12,3), dt)
        let b = hex("0000000500000000000000000a00000030000000010000000000000076315f31000000840a00000000000000e903000000000000323032342d30332d3031000000000000");
        let types = [
            t("STRING"),
            t("INT"),
            t("STRING"),
            t("BIGINT"),
            t("DECIMAL(12, 3)"),
        ];
        let row = BinaryRow::decode(&b, &types).unwrap();
        assert_eq!(row[0], Datum::String("2024-03-01".into()));
        assert_eq!(row[1], Datum::Int(1));
        assert_eq!(row[2], Datum::String("v1_1".into()));
        assert_eq!(row[3], Datum::BigInt(10));
        assert_eq!(
            row[4],
            Datum::Decimal {
                unscaled: 1001,
                precision: 12,
                scale: 3
            }
        );
        assert_eq!(row[4].to_string(), "1.001");
    }

    #[test]
    fn decodes_empty_row_and_nulls() {
        let empty = hex("000000000000000000000000");
        assert_eq!(BinaryRow::decode(&empty, &[]).unwrap(), vec![]);
        // arity 2, field 1 null: bit 9 → byte 1, bit 1.
        let mut b = vec![0, 0, 0, 2];
        b.extend_from_slice(&[0, 0b10, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&7i32.to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&[0; 8]);
        let row = BinaryRow::decode(&b, &[t("INT"), t("STRING")]).unwrap();
        assert_eq!(row, vec![Datum::Int(7), Datum::Null]);
    }

    #[test]
    fn decodes_wide_decimal_and_timestamps() {
        // arity 3: DECIMAL(20,2) = -12345 (var part), TIMESTAMP(6), TIMESTAMP(3)
        let mut b = vec![0, 0, 0, 3];
        let fixed = 8 + 3 * 8;
        let mut row = vec![0u8; 8];
        let dec = (-12345i64).to_be_bytes()[5..].to_vec(); // 3 bytes two's complement
        assert_eq!(dec, vec![0xff, 0xcf, 0xc7]);
        row.extend_from_slice(&(((fixed as u64) << 32) | dec.len() as u64).to_le_bytes());
        let ts_off = fixed + 8;
        row.extend_from_slice(&(((ts_off as u64) << 32) | 123_456).to_le_bytes());
        row.extend_from_slice(&1_700_000_000_123i64.to_le_bytes());
        let mut var = dec.clone();
        var.resize(8, 0);
        row.extend_from_slice(&var);
        row.extend_from_slice(&1_700_000_000_999i64.to_le_bytes());
        b.extend_from_slice(&row);
        let types = [t("DECIMAL(20, 2)"), t("TIMESTAMP(6)"), t("TIMESTAMP(3)")];
        let got = BinaryRow::decode(&b, &types).unwrap();
        assert_eq!(
            got[0],
            Datum::Decimal {
                unscaled: -12345,
                precision: 20,
                scale: 2
            }
        );
        assert_eq!(got[0].to_string(), "-123.45");
        assert_eq!(
            got[1],
            Datum::Timestamp {
                millis: 1_700_000_000_999,
                nanos_of_milli: 123_456
            }
        );
        assert_eq!(
            got[2],
            Datum::Timestamp {
                millis: 1_700_000_000_123,
                nanos_of_milli: 0
            }
        );
    }

    #[test]
    fn corrupt_inputs_are_errors_not_panics() {
        let good = hex("0000000100000000000000000a00000010000000323032342d30332d3031000000000000");
        let types = [t("STRING")];
        // Every truncation fails cleanly.
        for n in 0..good.len() - 6 {
            let r = BinaryRow::decode(&good[..n], &types);
            assert!(
                matches!(r, Err(Error::Corrupt { .. })),
                "truncated to {n}: {r:?}"
            );
        }
        // Arity mismatch.
        assert!(matches!(
            BinaryRow::decode(&good, &[]),
            Err(Error::Corrupt { .. })
        ));
        // Negative arity.
        assert!(BinaryRow::decode(&hex("ffffffff"), &types).is_err());
        // Huge arity.
        assert!(BinaryRow::decode(&hex("7fffffff00"), &types).is_err());
        // Offset pointing far away.
        let mut bad = good.clone();
        bad[16] = 0xff;
        assert!(matches!(
            BinaryRow::decode(&bad, &types),
            Err(Error::Corrupt { .. })
        ));
        // Bad UTF-8 in the variable part.
        let mut bad = good.clone();
        bad[20] = 0xff;
        let err = BinaryRow::decode(&bad, &types).unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
        // Inline length larger than 7.
        let mut bad = good.clone();
        bad[19] = 0x80 | 0x0f;
        assert!(BinaryRow::decode(&bad, &types).is_err());
        // Garbage of every length never panics.
        for len in 0..64 {
            let garbage: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let _ = BinaryRow::decode(&garbage, &[t("STRING"), t("DECIMAL(30, 2)")]);
            let _ = BinaryRow::decode(&garbage, &[t("TIMESTAMP(9)")]);
        }
    }

    #[test]
    fn oversized_decimal_is_corrupt() {
        let mut b = vec![0, 0, 0, 1];
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&((16u64 << 32) | 17).to_le_bytes());
        row.extend_from_slice(&[1u8; 24]);
        b.extend_from_slice(&row);
        assert!(BinaryRow::decode(&b, &[t("DECIMAL(38, 0)")]).is_err());
    }

    #[test]
    fn partition_strings() {
        let date = t("DATE");
        assert_eq!(
            Datum::Date(19723).to_partition_string(&date, true).unwrap(),
            "19723"
        );
        assert_eq!(
            Datum::Date(19723)
                .to_partition_string(&date, false)
                .unwrap(),
            "2024-01-01"
        );
        let ts = t("TIMESTAMP(3)");
        let v = Datum::Timestamp {
            millis: 1_704_103_200_000,
            nanos_of_milli: 0,
        };
        assert_eq!(
            v.to_partition_string(&ts, true).unwrap(),
            "2024-01-01T10:00"
        );
        assert_eq!(
            v.to_partition_string(&ts, false).unwrap(),
            "2024-01-01 10:00:00.000"
        );
        let v = Datum::Timestamp {
            millis: 1_704_103_201_500,
            nanos_of_milli: 0,
        };
        assert_eq!(
            v.to_partition_string(&ts, true).unwrap(),
            "2024-01-01T10:00:01.500"
        );
        assert_eq!(Datum::Null.to_partition_string(&ts, true), None);
        assert_eq!(Datum::Double(1.0).to_string(), "1.0");
        assert_eq!(Datum::Double(1e10).to_string(), "1.0E10");
        assert_eq!(Datum::Float(0.5).to_string(), "0.5");
        assert_eq!(
            Datum::Decimal {
                unscaled: 5,
                precision: 5,
                scale: 3
            }
            .to_string(),
            "0.005"
        );
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(Datum::Date(-1).to_string(), "1969-12-31");
    }

    #[test]
    fn total_order_puts_null_first() {
        let mut v = [Datum::Int(3), Datum::Null, Datum::Int(1)];
        v.sort_by(|a, b| a.total_cmp(b));
        assert_eq!(v, [Datum::Null, Datum::Int(1), Datum::Int(3)]);
    }
}
