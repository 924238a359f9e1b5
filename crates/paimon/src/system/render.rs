//! Text renderings of partition rows, keys and statistics as Paimon's system tables print them.

use crate::spec::binary_row::{civil_from_days, Datum};
use std::fmt::{self, Write};

fn date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Java `LocalDateTime.toString()` (Paimon `Timestamp.toString()`): `YYYY-MM-DDTHH:MM`, then
/// `:SS` and 3/6/9 fraction digits only when non-zero.
pub(crate) fn java_local_date_time(millis: i64, nanos_of_milli: i32) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms = millis.rem_euclid(86_400_000);
    let secs = ms / 1000;
    let nanos = (ms % 1000) * 1_000_000 + i64::from(nanos_of_milli);
    let mut s = format!("{}T{:02}:{:02}", date(days), secs / 3600, secs / 60 % 60);
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

/// Java `LocalTime.toString()` of milliseconds of the day.
fn java_local_time(ms: i32) -> String {
    let ms = i64::from(ms);
    let secs = ms / 1000;
    let mut s = format!("{:02}:{:02}", secs / 3600, secs / 60 % 60);
    if secs % 60 != 0 || ms % 1000 != 0 {
        s.push_str(&format!(":{:02}", secs % 60));
        if ms % 1000 != 0 {
            s.push_str(&format!(".{:03}", ms % 1000));
        }
    }
    s
}

/// A value cast to STRING (Paimon `CastExecutors.resolveToString`); NULL as `null`.
pub(crate) fn cast_to_string(v: &Datum) -> String {
    match v {
        Datum::Null => "null".into(),
        Datum::Binary(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

/// A row cast to STRING (Paimon `RowToStringCastRule`): `{v1, v2}`.
pub(crate) fn row_cast_to_string(values: &[Datum]) -> String {
    let parts: Vec<String> = values.iter().map(cast_to_string).collect();
    format!("{{{}}}", parts.join(", "))
}

/// A value as its Java external object's `toString()` (`RowDataToObjectArrayConverter`):
/// dates `YYYY-MM-DD`, timestamps as `LocalDateTime`, binary as lowercase hex.
fn external_value(v: &Datum) -> String {
    match v {
        Datum::Null => "null".into(),
        Datum::Time(ms) => java_local_time(*ms),
        Datum::Timestamp {
            millis,
            nanos_of_milli,
        } => java_local_date_time(*millis, *nanos_of_milli),
        Datum::LocalZonedTimestamp {
            millis,
            nanos_of_milli,
        } => format!("{}Z", java_local_date_time(*millis, *nanos_of_milli)),
        other => other.to_string(),
    }
}

/// Writes Java `Arrays.toString` of the external values: `[v1, v2]`.
pub(crate) fn write_java_array(out: &mut impl Write, values: &[Datum]) -> fmt::Result {
    out.write_char('[')?;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str(&external_value(v))?;
    }
    out.write_char(']')
}

/// Writes a value as Paimon's internal object's `toString()` (`InternalRowUtils.get`): DATE as
/// the day number, TIME as milliseconds, TIMESTAMP as `LocalDateTime`; NULL as `null` (as a
/// `TreeMap` prints a null value).
pub(crate) fn write_internal_value(out: &mut impl Write, v: &Datum) -> fmt::Result {
    match v {
        Datum::Null => out.write_str("null"),
        Datum::Date(d) => write!(out, "{d}"),
        Datum::Time(ms) => write!(out, "{ms}"),
        Datum::Timestamp {
            millis,
            nanos_of_milli,
        }
        | Datum::LocalZonedTimestamp {
            millis,
            nanos_of_milli,
        } => out.write_str(&java_local_date_time(*millis, *nanos_of_milli)),
        other => write!(out, "{other}"),
    }
}

/// Writes Java `TreeMap.toString()` of the names `keys` (already in the map's order, see
/// [`tree_map_order`]), the value at each position written by `value`: `{a=1, b=x}`.
pub(crate) fn write_tree_map<W: Write>(
    out: &mut W,
    keys: &[String],
    mut value: impl FnMut(&mut W, usize) -> fmt::Result,
) -> fmt::Result {
    out.write_char('{')?;
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str(key)?;
        out.write_char('=')?;
        value(out, i)?;
    }
    out.write_char('}')
}

/// The order of a Java `TreeMap<String, _>`'s keys (`String.compareTo`): by UTF-16 code units.
pub(crate) fn tree_map_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_java() {
        assert_eq!(java_local_date_time(0, 0), "1970-01-01T00:00");
        assert_eq!(java_local_date_time(1_500, 0), "1970-01-01T00:00:01.500");
        assert_eq!(java_local_date_time(0, 1_000), "1970-01-01T00:00:00.000001");
        assert_eq!(
            row_cast_to_string(&[Datum::String("a".into()), Datum::Null, Datum::Int(1)]),
            "{a, null, 1}"
        );
        let mut out = String::new();
        write_java_array(&mut out, &[Datum::Int(1), Datum::Date(0)]).unwrap();
        assert_eq!(out, "[1, 1970-01-01]");
        let mut out = String::new();
        write_internal_value(&mut out, &Datum::Date(3)).unwrap();
        write_internal_value(&mut out, &Datum::Null).unwrap();
        assert_eq!(out, "3null");
        // Java's String.compareTo orders by UTF-16 code units: U+10000 (a surrogate pair,
        // 0xD800…) before U+FFFF, where Rust's str order puts it after
        let mut keys: Vec<String> = ["b", "a", "\u{ffff}", "\u{10000}"].map(String::from).into();
        keys.sort_by(|a, b| tree_map_order(a, b));
        assert_eq!(keys, ["a", "b", "\u{10000}", "\u{ffff}"]);
        let mut out = String::new();
        write_tree_map(&mut out, &keys[..2], |out, i| match i {
            0 => out.write_str("null"),
            _ => out.write_str("2"),
        })
        .unwrap();
        assert_eq!(out, "{a=null, b=2}");
    }
}
