//! Text renderings of partition rows, keys and statistics as Paimon's system tables print them.

use crate::spec::binary_row::{civil_from_days, Datum};

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

/// Java `Arrays.toString` of the external values: `[v1, v2]`.
pub(crate) fn java_array(values: &[Datum]) -> String {
    let parts: Vec<String> = values.iter().map(external_value).collect();
    format!("[{}]", parts.join(", "))
}

/// A value as Paimon's internal object's `toString()` (`InternalRowUtils.get`): DATE as the
/// day number, TIME as milliseconds, TIMESTAMP as `LocalDateTime`; `None` for NULL.
pub(crate) fn internal_value(v: &Datum) -> Option<String> {
    match v {
        Datum::Null => None,
        Datum::Date(d) => Some(d.to_string()),
        Datum::Time(ms) => Some(ms.to_string()),
        Datum::Timestamp {
            millis,
            nanos_of_milli,
        }
        | Datum::LocalZonedTimestamp {
            millis,
            nanos_of_milli,
        } => Some(java_local_date_time(*millis, *nanos_of_milli)),
        other => Some(other.to_string()),
    }
}

/// Java `TreeMap.toString()` of name → value (NULL as `null`), keys sorted: `{a=1, b=x}`.
pub(crate) fn tree_map<'a>(entries: impl Iterator<Item = (&'a str, Option<String>)>) -> String {
    let mut sorted: Vec<(&str, Option<String>)> = entries.collect();
    sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let parts: Vec<String> = sorted
        .into_iter()
        .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("null")))
        .collect();
    format!("{{{}}}", parts.join(", "))
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
        assert_eq!(
            java_array(&[Datum::Int(1), Datum::Date(0)]),
            "[1, 1970-01-01]"
        );
        assert_eq!(internal_value(&Datum::Date(3)).as_deref(), Some("3"));
        assert_eq!(
            tree_map(
                [("b", Some("2".to_string())), ("a", None)]
                    .iter()
                    .map(|(k, v)| (*k, v.clone()))
            ),
            "{a=null, b=2}"
        );
    }
}
