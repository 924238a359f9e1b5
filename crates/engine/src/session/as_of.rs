//! `FOR SYSTEM_TIME AS OF TIMESTAMP '…'`: the literal read in the session time zone
//! (`table.local-time-zone`, UTC when unset or `default`) as epoch milliseconds.

use chrono::{FixedOffset, LocalResult, NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

/// The session option holding the time zone of `TIMESTAMP` literals, as in Flink.
pub(super) const TIME_ZONE_OPTION: &str = "table.local-time-zone";

/// Epoch milliseconds of `expr`, which must be a `TIMESTAMP '<date>[ <time>]'` literal; `zone`
/// is the session's `table.local-time-zone`.
pub(super) fn as_of_millis(expr: &str, zone: Option<&str>) -> Result<i64, String> {
    let literal = timestamp_literal(expr).ok_or_else(|| {
        format!(
            "FOR SYSTEM_TIME AS OF {expr}: only a constant TIMESTAMP '…' is supported for time \
             travel (for example TIMESTAMP '2024-01-01 00:00:00'); lookup joins on a time \
             attribute are streaming-only"
        )
    })?;
    local_millis(literal, zone).map_err(|e| format!("FOR SYSTEM_TIME AS OF {expr}: {e}"))
}

/// Epoch milliseconds of the timestamp text `literal` (`yyyy-MM-dd[ HH:mm[:ss[.f]]]`) read in
/// `zone` (the session's `table.local-time-zone`; UTC when `None`).
pub(super) fn local_millis(literal: &str, zone: Option<&str>) -> Result<i64, String> {
    let local = parse_local(literal).ok_or_else(|| {
        format!("'{literal}' is not a timestamp like '2024-01-01 12:30:00[.123]'")
    })?;
    let zone_name = zone.unwrap_or("UTC").trim();
    let resolved = match parse_zone(zone_name) {
        Some(SessionZone::Fixed(offset)) => offset
            .from_local_datetime(&local)
            .map(|t| t.timestamp_millis()),
        Some(SessionZone::Named(tz)) => {
            tz.from_local_datetime(&local).map(|t| t.timestamp_millis())
        }
        None => {
            return Err(format!(
                "'{TIME_ZONE_OPTION}' = '{zone_name}' is not a time zone: use UTC, an offset such \
                 as GMT+08:00, or a region such as Europe/Berlin"
            ))
        }
    };
    match resolved {
        LocalResult::Single(millis) => Ok(millis),
        // The hour repeated when clocks go back: the first of the two, as java.time does.
        LocalResult::Ambiguous(first, _) => Ok(first),
        LocalResult::None => Err(format!(
            "{literal} does not exist in {zone_name} (the clocks skip it): give a time outside \
             the gap"
        )),
    }
}

/// The quoted text of `TIMESTAMP '<text>'` (any case, any spacing), if `expr` is one.
fn timestamp_literal(expr: &str) -> Option<&str> {
    let expr = expr.trim();
    let keyword = expr.get(..9)?;
    if !keyword.eq_ignore_ascii_case("TIMESTAMP") {
        return None;
    }
    let rest = &expr[9..];
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None; // `TIMESTAMPADD(…)`: another word
    }
    rest.trim_start().strip_prefix('\'')?.strip_suffix('\'')
}

/// `yyyy-MM-dd HH:mm:ss[.fraction]`, `yyyy-MM-dd HH:mm` or `yyyy-MM-dd` (midnight).
fn parse_local(text: &str) -> Option<NaiveDateTime> {
    let text = text.trim();
    ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()?
                .and_hms_opt(0, 0, 0)
        })
}

/// A time zone as Flink's `table.local-time-zone` names it.
enum SessionZone {
    Fixed(FixedOffset),
    Named(Tz),
}

/// `UTC`/`GMT`/`Z`/`default`, `GMT+08:00`/`UTC-5`/`+08:00`, or an IANA region name.
fn parse_zone(name: &str) -> Option<SessionZone> {
    if ["UTC", "GMT", "Z", "default"]
        .iter()
        .any(|z| name.eq_ignore_ascii_case(z))
    {
        return FixedOffset::east_opt(0).map(SessionZone::Fixed);
    }
    let offset = ["GMT", "UTC", ""].iter().find_map(|prefix| {
        name.strip_prefix(prefix)
            .filter(|r| r.starts_with(['+', '-']))
    });
    if let Some(offset) = offset {
        return parse_offset(offset).map(SessionZone::Fixed);
    }
    name.parse::<Tz>().ok().map(SessionZone::Named)
}

/// `+8`, `+08`, `+08:00`, `-0530` as a fixed offset.
fn parse_offset(text: &str) -> Option<FixedOffset> {
    let (sign, digits) = match text.split_at(1) {
        ("+", d) => (1, d),
        ("-", d) => (-1, d),
        _ => return None,
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some((h, m)) => (h, m),
        None if digits.len() == 4 => digits.split_at(2),
        None => (digits, "0"),
    };
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    if !(0..=18).contains(&hours) || !(0..60).contains(&minutes) {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_read_in_the_session_zone() {
        let utc = as_of_millis("TIMESTAMP '2024-01-01 00:00:00'", None).unwrap();
        assert_eq!(utc, 1_704_067_200_000);
        assert_eq!(
            as_of_millis("timestamp   '2024-01-01'", Some("default")),
            Ok(utc)
        );
        assert_eq!(
            as_of_millis("TIMESTAMP '2024-01-01 00:00:00.250'", None),
            Ok(utc + 250)
        );
        for zone in ["GMT+08:00", "+08:00", "UTC+8", "Asia/Shanghai"] {
            assert_eq!(
                as_of_millis("TIMESTAMP '2024-01-01 08:00:00'", Some(zone)),
                Ok(utc),
                "{zone}"
            );
        }
        assert_eq!(
            as_of_millis("TIMESTAMP '2024-01-01 00:00'", Some("GMT-05:30")),
            Ok(utc + 5 * 3_600_000 + 30 * 60_000)
        );
    }

    #[test]
    fn clocks_going_back_take_the_first_and_a_skipped_hour_is_an_error() {
        // Europe/Berlin: 2024-10-27 02:30 happens twice (CEST, then CET); 2024-03-31 02:30 never.
        assert_eq!(
            as_of_millis("TIMESTAMP '2024-10-27 02:30:00'", Some("Europe/Berlin")),
            Ok(as_of_millis("TIMESTAMP '2024-10-27 00:30:00'", None).unwrap())
        );
        let gap = as_of_millis("TIMESTAMP '2024-03-31 02:30:00'", Some("Europe/Berlin"));
        assert!(gap.unwrap_err().contains("does not exist in Europe/Berlin"));
    }

    #[test]
    fn what_is_not_a_constant_timestamp_is_explained() {
        let e = as_of_millis("o.proc_time", None).unwrap_err();
        assert!(e.contains("only a constant TIMESTAMP"), "{e}");
        let e = as_of_millis("TIMESTAMP 'yesterday'", None).unwrap_err();
        assert!(e.contains("'yesterday' is not a timestamp"), "{e}");
        assert_eq!(
            as_of_millis("TIMESTAMP'2024-01-01'", None),
            Ok(1_704_067_200_000)
        );
        let e = as_of_millis("TIMESTAMPADD(DAY, 1, x)", None).unwrap_err();
        assert!(e.contains("only a constant TIMESTAMP"), "{e}");
        let e = as_of_millis("TIMESTAMP '2024-01-01'", Some("Mars/Olympus")).unwrap_err();
        assert!(
            e.contains("'table.local-time-zone' = 'Mars/Olympus' is not a time zone"),
            "{e}"
        );
    }
}
