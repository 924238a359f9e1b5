//! Partition transforms (identity, bucket with Murmur3, truncate, year/month/day/hour, void).

use super::manifest::Literal;
use super::types::Type;

/// A partition transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// `identity`: the source value itself.
    Identity,
    /// `bucket[N]`: a hash bucket, 0 to N-1: the value's 32-bit Murmur3 hash (as the spec defines
    /// it per type), made non-negative, modulo N.
    Bucket(u32),
    /// `truncate[W]`: the value cut to width W: integers and decimals rounded down to a multiple of
    /// W, strings to W characters, binary to W bytes.
    Truncate(u32),
    /// `year`: years since 1970 of a date or timestamp.
    Year,
    /// `month`: months since 1970-01 of a date or timestamp.
    Month,
    /// `day`: the date of a date or timestamp (days since 1970-01-01).
    Day,
    /// `hour`: hours since 1970-01-01T00:00 of a timestamp.
    Hour,
    /// `void`: always null (how a v1 table drops a partition field).
    Void,
}

impl Transform {
    /// Parses `identity`, `bucket[16]`, `truncate[4]`, `year`, ... (`None` if unknown).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim().to_ascii_lowercase();
        let arg = |prefix: &str| -> Option<u32> {
            t.strip_prefix(prefix)?
                .strip_suffix(']')?
                .trim()
                .parse()
                .ok()
                .filter(|n| *n > 0)
        };
        Some(match t.as_str() {
            "identity" => Self::Identity,
            "year" => Self::Year,
            "month" => Self::Month,
            "day" => Self::Day,
            "hour" => Self::Hour,
            "void" => Self::Void,
            _ => {
                if let Some(n) = arg("bucket[") {
                    Self::Bucket(n)
                } else {
                    Self::Truncate(arg("truncate[")?)
                }
            }
        })
    }
}

impl std::fmt::Display for Transform {
    /// The form written in partition specs (`bucket[16]`, `day`, ...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Identity => f.write_str("identity"),
            Self::Bucket(n) => write!(f, "bucket[{n}]"),
            Self::Truncate(w) => write!(f, "truncate[{w}]"),
            Self::Year => f.write_str("year"),
            Self::Month => f.write_str("month"),
            Self::Day => f.write_str("day"),
            Self::Hour => f.write_str("hour"),
            Self::Void => f.write_str("void"),
        }
    }
}

impl Transform {
    /// The type of the partition values this transform makes from a `source` column.
    pub fn result_type(&self, source: &Type) -> Type {
        match self {
            Self::Identity | Self::Truncate(_) | Self::Void => source.clone(),
            Self::Bucket(_) | Self::Year | Self::Month | Self::Hour => Type::Int,
            Self::Day => Type::Date,
        }
    }

    /// The default partition field name for a source column, as Java's spec builder names it
    /// (`ts_day`, `id_bucket`, `s_trunc`; identity keeps the column name).
    pub fn field_name(&self, source: &str) -> String {
        match self {
            Self::Identity => source.to_string(),
            Self::Bucket(_) => format!("{source}_bucket"),
            Self::Truncate(_) => format!("{source}_trunc"),
            Self::Year => format!("{source}_year"),
            Self::Month => format!("{source}_month"),
            Self::Day => format!("{source}_day"),
            Self::Hour => format!("{source}_hour"),
            Self::Void => format!("{source}_null"),
        }
    }

    /// Whether the transform accepts a source column of this type.
    pub fn can_transform(&self, source: &Type) -> bool {
        match self {
            Self::Identity | Self::Void => !source.is_nested(),
            Self::Bucket(_) => matches!(
                source,
                Type::Int
                    | Type::Long
                    | Type::Decimal { .. }
                    | Type::Date
                    | Type::Time
                    | Type::Timestamp
                    | Type::Timestamptz
                    | Type::String
                    | Type::Fixed(_)
                    | Type::Binary
            ),
            Self::Truncate(_) => matches!(
                source,
                Type::Int | Type::Long | Type::Decimal { .. } | Type::String | Type::Binary
            ),
            Self::Year | Self::Month | Self::Day => {
                matches!(source, Type::Date | Type::Timestamp | Type::Timestamptz)
            }
            Self::Hour => matches!(source, Type::Timestamp | Type::Timestamptz),
        }
    }

    /// The partition value of a source value (`None`: null).
    pub fn apply(&self, value: Option<&Literal>) -> Option<Literal> {
        let value = value?;
        match self {
            Self::Identity => Some(value.clone()),
            Self::Bucket(n) => bucket(value, *n).map(Literal::Int),
            Self::Truncate(w) => truncate(value, *w),
            Self::Year | Self::Month | Self::Day | Self::Hour => {
                temporal(value, *self).map(Literal::Int)
            }
            Self::Void => None,
        }
    }
}

/// Murmur3 x86 32-bit hash with seed 0, as Iceberg's bucket transform uses it.
pub fn murmur3_32(data: &[u8]) -> i32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h: u32 = 0;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut k: u32 = 0;
        for (i, b) in tail.iter().enumerate() {
            k ^= u32::from(*b) << (8 * i);
        }
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// Minimal big-endian two's complement bytes of an unscaled decimal.
pub fn decimal_bytes(unscaled: i128) -> Vec<u8> {
    let bytes = unscaled.to_be_bytes();
    let negative = unscaled < 0;
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        let redundant = if negative {
            b == 0xff && next & 0x80 != 0
        } else {
            b == 0 && next & 0x80 == 0
        };
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

/// The Murmur3 hash of a value as the spec defines it (ints and dates hash as longs).
pub fn hash_literal(value: &Literal) -> Option<i32> {
    Some(match value {
        Literal::Int(v) => murmur3_32(&i64::from(*v).to_le_bytes()),
        Literal::Long(v) => murmur3_32(&v.to_le_bytes()),
        Literal::String(s) => murmur3_32(s.as_bytes()),
        Literal::Bytes(b) => murmur3_32(b),
        Literal::Decimal(d) => murmur3_32(&decimal_bytes(*d)),
        Literal::Boolean(_) | Literal::Float(_) | Literal::Double(_) => return None,
    })
}

/// `bucket[n]` of a value.
pub fn bucket(value: &Literal, n: u32) -> Option<i32> {
    let h = hash_literal(value)?;
    Some(((h & i32::MAX) as u32 % n) as i32)
}

/// `truncate[w]` of an int, long, decimal, string (code points) or binary value.
pub fn truncate(value: &Literal, w: u32) -> Option<Literal> {
    Some(match value {
        Literal::Int(v) => Literal::Int(v - v.rem_euclid(w as i32)),
        Literal::Long(v) => Literal::Long(v - v.rem_euclid(i64::from(w))),
        Literal::Decimal(v) => Literal::Decimal(v - v.rem_euclid(i128::from(w))),
        Literal::String(s) => Literal::String(s.chars().take(w as usize).collect()),
        Literal::Bytes(b) => Literal::Bytes(b.iter().take(w as usize).copied().collect()),
        _ => return None,
    })
}

const MICROS_PER_HOUR: i64 = 3_600_000_000;
const MICROS_PER_DAY: i64 = 24 * MICROS_PER_HOUR;

/// The civil date (year, month 1-12, day 1-31) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Applies a temporal transform to a date (days, `Int`) or timestamp (µs, `Long`): years,
/// months, days or hours since the epoch.
pub fn temporal(value: &Literal, t: Transform) -> Option<i32> {
    let (days, micros) = match value {
        Literal::Int(d) => (i64::from(*d), None),
        Literal::Long(us) => (us.div_euclid(MICROS_PER_DAY), Some(*us)),
        _ => return None,
    };
    let (year, month, _) = civil_from_days(days);
    let out = match t {
        Transform::Year => year - 1970,
        Transform::Month => (year - 1970) * 12 + month - 1,
        Transform::Day => days,
        Transform::Hour => micros?.div_euclid(MICROS_PER_HOUR),
        _ => return None,
    };
    i32::try_from(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_hash_vectors() {
        assert_eq!(hash_literal(&Literal::Int(34)), Some(2017239379));
        assert_eq!(hash_literal(&Literal::Long(34)), Some(2017239379));
        assert_eq!(hash_literal(&Literal::Int(17486)), Some(-653330422));
        assert_eq!(
            hash_literal(&Literal::String("iceberg".into())),
            Some(1210000089)
        );
        assert_eq!(
            hash_literal(&Literal::Bytes(vec![0, 1, 2, 3])),
            Some(-188683207)
        );
        assert_eq!(hash_literal(&Literal::Decimal(1420)), Some(-500754589));
        let uuid = [
            0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7,
            0x85, 0xe7,
        ];
        assert_eq!(
            hash_literal(&Literal::Bytes(uuid.to_vec())),
            Some(1488055340)
        );
        // timestamp 2017-11-16T22:31:08 µs
        assert_eq!(
            hash_literal(&Literal::Long(1_510_871_468_000_000)),
            Some(-2047944441)
        );
    }

    #[test]
    fn transforms() {
        assert_eq!(Transform::parse("bucket[16]"), Some(Transform::Bucket(16)));
        assert_eq!(
            Transform::parse("truncate[4]"),
            Some(Transform::Truncate(4))
        );
        assert_eq!(Transform::parse("bucket[x]"), None);
        for t in [
            "identity",
            "bucket[16]",
            "truncate[4]",
            "year",
            "month",
            "day",
            "hour",
            "void",
        ] {
            assert_eq!(
                Transform::parse(t).map(|t| t.to_string()).as_deref(),
                Some(t)
            );
        }
        assert_eq!(Transform::Day.field_name("ts"), "ts_day");
        assert_eq!(Transform::Day.result_type(&Type::Timestamp), Type::Date);
        assert!(!Transform::Hour.can_transform(&Type::Date));
        // 2024-05-01T10:00 → day 19844; "user" → bucket 16 per the spec's Murmur3.
        let ts = Literal::Long(1_714_557_600_000_000);
        assert_eq!(Transform::Day.apply(Some(&ts)), Some(Literal::Int(19844)));
        assert_eq!(
            Transform::Truncate(4).apply(Some(&Literal::String("user_42".into()))),
            Some(Literal::String("user".into()))
        );
        assert_eq!(Transform::Bucket(16).apply(None), None);
        assert_eq!(truncate(&Literal::Int(-1), 10), Some(Literal::Int(-10)));
        assert_eq!(
            truncate(&Literal::String("iceberg".into()), 3),
            Some(Literal::String("ice".into()))
        );
        assert_eq!(
            truncate(&Literal::Decimal(1065), 50),
            Some(Literal::Decimal(1050))
        );
        // 2017-11-16
        assert_eq!(temporal(&Literal::Int(17486), Transform::Year), Some(47));
        assert_eq!(temporal(&Literal::Int(17486), Transform::Month), Some(574));
        assert_eq!(temporal(&Literal::Int(-1), Transform::Month), Some(-1));
        assert_eq!(temporal(&Literal::Long(-1), Transform::Hour), Some(-1));
        assert_eq!(civil_from_days(19844), (2024, 5, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(decimal_bytes(-200), vec![0xff, 0x38]);
        assert_eq!(decimal_bytes(128), vec![0x00, 0x80]);
    }
}
