//! The JSON text of a VARIANT value exactly as Paimon's `GenericVariant.toJson()` writes it.
//!
//! Read from Paimon's `GenericVariant.toJsonImpl` (its no-argument `toJson()` renders in UTC):
//! objects and arrays without spaces, in the encoded field order; integers of every width as
//! `long`; DOUBLE and FLOAT as Java's `Double.toString` / `Float.toString` (`1.5`, `100.0`,
//! `1.0E10`), non-finite ones quoted (`"NaN"`); DECIMAL as `BigDecimal.toPlainString` (its scale
//! kept: `1.50`); DATE as `LocalDate.toString`; TIMESTAMP as `"yyyy-MM-dd HH:mm:ss[.f]+00:00"`
//! and TIMESTAMP_NTZ without the offset (the fraction without trailing zeros); BINARY as padded
//! base64; UUID in lower case; strings and keys escaped as Jackson's `writeString` does (`\"`,
//! `\\`, `\b \t \n \f \r`, other control characters `\u00XX` in upper-case hex, everything else
//! as is). Java knows no TIME or nanosecond timestamps in a variant (`unknownPrimitiveTypeInVariant`):
//! they are errors here too.
//!
//! `parquet-variant-json`'s rendering differs (Rust float formatting, RFC 3339 timestamps,
//! lower-case `\u00xx`, bare `NaN`), so the decoded [`Variant`] is rendered here.

use base64::Engine as _;
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Timelike, Utc};
use parquet_variant::Variant;
use std::fmt::Write as _;

/// Appends the JSON text of `v` to `out`; `Err` names a value Paimon cannot render.
pub(crate) fn write_json(v: &Variant, out: &mut String) -> Result<(), String> {
    match v {
        Variant::Null => out.push_str("null"),
        Variant::BooleanTrue => out.push_str("true"),
        Variant::BooleanFalse => out.push_str("false"),
        Variant::Int8(i) => push(out, i),
        Variant::Int16(i) => push(out, i),
        Variant::Int32(i) => push(out, i),
        Variant::Int64(i) => push(out, i),
        Variant::Double(d) if d.is_finite() => out.push_str(&java_double(*d)),
        Variant::Double(d) => quoted(out, java_non_finite(d.is_nan(), *d < 0.0)),
        Variant::Float(f) if f.is_finite() => out.push_str(&java_float(*f)),
        Variant::Float(f) => quoted(out, java_non_finite(f.is_nan(), *f < 0.0)),
        Variant::Decimal4(d) => out.push_str(&plain_decimal(d.integer().into(), d.scale())),
        Variant::Decimal8(d) => out.push_str(&plain_decimal(d.integer().into(), d.scale())),
        Variant::Decimal16(d) => out.push_str(&plain_decimal(d.integer(), d.scale())),
        Variant::Date(d) => quoted(out, &java_date(d)),
        Variant::TimestampMicros(t) => quoted(out, &format!("{}+00:00", java_timestamp(t))),
        Variant::TimestampNtzMicros(t) => quoted(out, &java_timestamp_ntz(t)),
        Variant::Binary(b) => {
            quoted(out, &base64::engine::general_purpose::STANDARD.encode(b));
        }
        Variant::Uuid(u) => quoted(out, &u.to_string()),
        Variant::String(s) => crate::spec::jackson::write_string(out, s),
        Variant::ShortString(s) => crate::spec::jackson::write_string(out, s.as_str()),
        Variant::Object(o) => {
            out.push('{');
            for (i, field) in o.iter_try().enumerate() {
                let (key, value) = field.map_err(|e| e.to_string())?;
                if i > 0 {
                    out.push(',');
                }
                crate::spec::jackson::write_string(out, key);
                out.push(':');
                write_json(&value, out)?;
            }
            out.push('}');
        }
        Variant::List(l) => {
            out.push('[');
            for (i, element) in l.iter_try().enumerate() {
                let element = element.map_err(|e| e.to_string())?;
                if i > 0 {
                    out.push(',');
                }
                write_json(&element, out)?;
            }
            out.push(']');
        }
        Variant::Time(_) => return Err(unknown("TIME")),
        Variant::TimestampNanos(_) => return Err(unknown("TIMESTAMP_NANOS")),
        Variant::TimestampNtzNanos(_) => return Err(unknown("TIMESTAMP_NTZ_NANOS")),
    }
    Ok(())
}

fn unknown(name: &str) -> String {
    format!("variant value of type {name}, which Paimon's variant does not define")
}

fn push(out: &mut String, v: impl std::fmt::Display) {
    // Writing to a String cannot fail.
    let _ = write!(out, "{v}");
}

fn quoted(out: &mut String, s: &str) {
    out.push('"');
    out.push_str(s);
    out.push('"');
}

fn java_non_finite(nan: bool, negative: bool) -> &'static str {
    match (nan, negative) {
        (true, _) => "NaN",
        (false, true) => "-Infinity",
        (false, false) => "Infinity",
    }
}

/// Java's `Double.toString` of a finite double.
fn java_double(v: f64) -> String {
    let shortest = format!("{:e}", v.abs());
    // Java (JDK 19+) picks the 2-digit decimal closest to v when a 1-digit one would do
    // (4.9E-324, not 5.0E-324).
    let two = format!("{:.1e}", v.abs());
    let pick = if single_digit(&shortest) && two.parse::<f64>() == Ok(v.abs()) {
        two
    } else {
        shortest
    };
    java_float_text(v.is_sign_negative(), v == 0.0, &pick)
}

/// Java's `Float.toString` of a finite float.
fn java_float(v: f32) -> String {
    let shortest = format!("{:e}", v.abs());
    let two = format!("{:.1e}", v.abs());
    let pick = if single_digit(&shortest) && two.parse::<f32>() == Ok(v.abs()) {
        two
    } else {
        shortest
    };
    java_float_text(v.is_sign_negative(), v == 0.0, &pick)
}

fn single_digit(sci: &str) -> bool {
    sci.split_once('e')
        .is_some_and(|(m, _)| m.chars().filter(char::is_ascii_digit).count() == 1)
}

/// Java's layout of a float's decimal digits: `sci` is Rust's `{:e}` text of its absolute value
/// (`d.ddde±x`); plain notation for 10^-3 ≤ |v| < 10^7, `d.dddE±x` otherwise, always with a digit
/// after the point.
fn java_float_text(negative: bool, zero: bool, sci: &str) -> String {
    let sign = if negative { "-" } else { "" };
    if zero {
        return format!("{sign}0.0");
    }
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        d => d,
    };
    if (-3..7).contains(&exp) {
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        } else {
            let int_len = exp as usize + 1;
            if digits.len() > int_len {
                format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
            } else {
                let zeros = "0".repeat(int_len - digits.len());
                format!("{sign}{digits}{zeros}.0")
            }
        }
    } else {
        let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{rest}E{exp}", &digits[..1])
    }
}

/// `BigDecimal.toPlainString` of `unscaled × 10^-scale`.
fn plain_decimal(unscaled: i128, scale: u8) -> String {
    let sign = if unscaled < 0 { "-" } else { "" };
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    if digits.len() > scale {
        let point = digits.len() - scale;
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    } else {
        format!("{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
    }
}

/// A year as `LocalDate.toString` / `ISO_LOCAL_DATE` print it: 4 digits at least, `+` above 9999.
fn java_year(year: i32) -> String {
    match year {
        0..=9999 => format!("{year:04}"),
        y if y > 9999 => format!("+{y}"),
        y => format!("-{:04}", y.unsigned_abs()),
    }
}

fn java_date(d: &NaiveDate) -> String {
    format!("{}-{:02}-{:02}", java_year(d.year()), d.month(), d.day())
}

/// `ISO_LOCAL_DATE ' ' ISO_LOCAL_TIME`: seconds always, the fraction without trailing zeros.
fn java_timestamp_ntz(t: &NaiveDateTime) -> String {
    let mut s = format!(
        "{} {:02}:{:02}:{:02}",
        java_date(&t.date()),
        t.hour(),
        t.minute(),
        t.second()
    );
    let nanos = t.nanosecond();
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        s.push('.');
        s.push_str(fraction.trim_end_matches('0'));
    }
    s
}

fn java_timestamp(t: &DateTime<Utc>) -> String {
    java_timestamp_ntz(&t.naive_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet_variant::{VariantBuilder, VariantDecimal16, VariantDecimal4, VariantDecimal8};

    fn json(v: Variant) -> String {
        let mut s = String::new();
        write_json(&v, &mut s).unwrap();
        s
    }

    #[test]
    fn doubles_and_floats_as_java_prints_them() {
        // Java's Double.toString / Float.toString of each value.
        for (v, java) in [
            (1.5, "1.5"),
            (100.0, "100.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (9_999_999.0, "9999999.0"),
            (10_000_000.0, "1.0E7"),
            (1.5e10, "1.5E10"),
            (-2.5e-7, "-2.5E-7"),
            (123.456, "123.456"),
            (0.1 + 0.2, "0.30000000000000004"),
            (2f64.powi(70), "1.1805916207174113E21"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::from_bits(1), "4.9E-324"),
        ] {
            assert_eq!(json(Variant::Double(v)), java, "{v:e}");
        }
        for (v, java) in [
            (1.1f32, "1.1"),
            (1.0e10, "1.0E10"),
            (3.4028235e38, "3.4028235E38"),
            (f32::from_bits(1), "1.4E-45"),
            (0.5, "0.5"),
        ] {
            assert_eq!(json(Variant::Float(v)), java, "{v:e}");
        }
        assert_eq!(json(Variant::Double(f64::NAN)), r#""NaN""#);
        assert_eq!(json(Variant::Double(f64::NEG_INFINITY)), r#""-Infinity""#);
        assert_eq!(json(Variant::Float(f32::INFINITY)), r#""Infinity""#);
    }

    #[test]
    fn decimals_keep_their_scale() {
        let d4 = |i, s| Variant::Decimal4(VariantDecimal4::try_new(i, s).unwrap());
        assert_eq!(json(d4(150, 2)), "1.50");
        assert_eq!(json(d4(-5, 3)), "-0.005");
        assert_eq!(json(d4(0, 2)), "0.00");
        assert_eq!(json(d4(42, 0)), "42");
        let d8 = Variant::Decimal8(VariantDecimal8::try_new(-1_234_567_890_123, 4).unwrap());
        assert_eq!(json(d8), "-123456789.0123");
        let big = 10i128.pow(37) + 1;
        let d16 = Variant::Decimal16(VariantDecimal16::try_new(big, 38).unwrap());
        assert_eq!(json(d16), "0.10000000000000000000000000000000000001");
    }

    #[test]
    fn strings_are_escaped_as_jackson_does() {
        // '/' and non-ASCII as is, DEL as is, control characters in upper-case hex.
        assert_eq!(
            json(Variant::from(
                "q\"b\\s/é😀\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}"
            )),
            "\"q\\\"b\\\\s/é😀\\n\\t\\r\\b\\f\\u0001\\u001F\u{7f}\""
        );
        let long = "x".repeat(100);
        assert_eq!(json(Variant::from(long.as_str())), format!("\"{long}\""));
    }

    #[test]
    fn dates_and_timestamps_as_java_prints_them() {
        let date = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap();
        assert_eq!(json(Variant::Date(date)), r#""2024-02-29""#);
        let old = NaiveDate::from_ymd_opt(-5, 1, 2).unwrap();
        assert_eq!(json(Variant::Date(old)), r#""-0005-01-02""#);
        let far = NaiveDate::from_ymd_opt(12345, 1, 2).unwrap();
        assert_eq!(json(Variant::Date(far)), r#""+12345-01-02""#);
        let micros = |m: i64| DateTime::from_timestamp_micros(m).unwrap();
        assert_eq!(
            json(Variant::TimestampMicros(micros(1_700_000_000_500_000))),
            r#""2023-11-14 22:13:20.5+00:00""#
        );
        assert_eq!(
            json(Variant::TimestampNtzMicros(micros(0).naive_utc())),
            r#""1970-01-01 00:00:00""#
        );
        assert_eq!(
            json(Variant::TimestampNtzMicros(micros(-1).naive_utc())),
            r#""1969-12-31 23:59:59.999999""#
        );
    }

    #[test]
    fn objects_arrays_binary_and_unknown_types() {
        let mut b = VariantBuilder::new();
        let mut o = b.new_object();
        o.insert("z", 1i8);
        o.insert("a", "x");
        o.insert("n", ());
        o.insert("bin", &b"\x00\xffab"[..]);
        let mut l = o.new_list("l");
        l.append_value(true);
        l.append_value(-7i64);
        l.finish();
        o.finish();
        let (metadata, value) = b.finish();
        let v = Variant::try_new(&metadata, &value).unwrap();
        // Fields in the encoded (sorted by key) order, as Java iterates them.
        assert_eq!(
            json(v),
            r#"{"a":"x","bin":"AP9hYg==","l":[true,-7],"n":null,"z":1}"#
        );
        let time = Variant::Time(chrono::NaiveTime::from_hms_opt(1, 2, 3).unwrap());
        let err = write_json(&time, &mut String::new()).unwrap_err();
        assert!(err.contains("TIME"), "{err}");
    }
}
