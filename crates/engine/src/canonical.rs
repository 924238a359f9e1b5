//! Canonical JSON lines of Arrow rows: the corpus's expected-row format (`MANIFEST.md`), byte-exact.
//!
//! One JSON object per row, keys in schema order, `,`/`:` separators, non-ASCII kept, strings
//! escaped like Python's `json.dumps(ensure_ascii=False)`. FLOAT is the shortest decimal that
//! round-trips through f32, printed like Python's `repr` of that decimal as a double; DOUBLE is
//! Python's `repr` (`0.1`, `3.0`, `1e+16`, `1e-05`); NaN/±Infinity are the strings `"NaN"`,
//! `"Infinity"`, `"-Infinity"`. DECIMAL is a string with exactly `scale` fraction digits; DATE
//! `YYYY-MM-DD`; TIME `HH:MM:SS.ffffff`; TIMESTAMP `YYYY-MM-DDTHH:MM:SS.ffffff` (nanoseconds are
//! truncated), with a `Z` suffix (UTC) when the Arrow type has a time zone; binary is lowercase
//! hex; lists are arrays, structs objects, maps arrays of `[key, value]` pairs.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{ArrowError, DataType, TimeUnit};
use std::fmt::Write;

/// The canonical JSON line of one row.
pub fn row_to_json_line(batch: &RecordBatch, row: usize) -> Result<String, ArrowError> {
    if row >= batch.num_rows() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "row {row} of a batch of {} rows",
            batch.num_rows()
        )));
    }
    let mut out = String::with_capacity(64 * batch.num_columns());
    out.push('{');
    for (i, (field, column)) in batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .enumerate()
    {
        if i > 0 {
            out.push(',');
        }
        write_json_string(&mut out, field.name());
        out.push(':');
        write_value(&mut out, column.as_ref(), row)?;
    }
    out.push('}');
    Ok(out)
}

/// The canonical lines of all rows, in row order.
pub fn batches_to_lines_unsorted(batches: &[RecordBatch]) -> Result<Vec<String>, ArrowError> {
    let mut lines = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            lines.push(row_to_json_line(batch, row)?);
        }
    }
    Ok(lines)
}

/// The canonical lines of all rows, sorted by their UTF-8 bytes (duplicates kept), as in the
/// corpus's `snapshot-N.jsonl` files.
pub fn batches_to_lines(batches: &[RecordBatch]) -> Result<Vec<String>, ArrowError> {
    let mut lines = batches_to_lines_unsorted(batches)?;
    lines.sort_unstable();
    Ok(lines)
}

/// Appends `s` as a JSON string, escaped like Python's `json.dumps(..., ensure_ascii=False)`.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `repr` of a finite double: shortest round-trip digits, positional notation for
/// decimal exponents in [-4, 16), otherwise `d.ddde±XX`.
pub fn python_float_repr(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::from(sign);
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

/// The canonical text of a FLOAT: the shortest decimal that round-trips through f32, read back
/// as a double and printed with [`python_float_repr`].
pub fn python_float32_repr(v: f32) -> String {
    let shortest = format!("{v:e}");
    let as_double: f64 = shortest.parse().unwrap_or(f64::from(v));
    python_float_repr(as_double)
}

fn write_float(out: &mut String, v: f64, repr: impl FnOnce() -> String) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else {
        out.push_str(&repr());
    }
}

/// `unscaled / 10^scale` in plain notation with exactly `scale` fraction digits.
pub fn decimal_to_string(unscaled: &str, scale: i8) -> String {
    let (sign, digits) = match unscaled.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", unscaled),
    };
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        return if digits == "0" {
            "0".into()
        } else {
            format!("{sign}{digits}{zeros}")
        };
    }
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits.to_string()
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

fn unsupported(what: impl std::fmt::Display) -> ArrowError {
    ArrowError::NotYetImplemented(format!("canonical JSON of {what}"))
}

/// (year, month, day) of a day count since 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn push_date(out: &mut String, days: i64) -> Result<(), ArrowError> {
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return Err(unsupported(format!("date {days} (year {y})")));
    }
    write!(out, "{y:04}-{m:02}-{d:02}").map_err(fmt_err)
}

fn push_time(out: &mut String, micros_of_day: i64) -> Result<(), ArrowError> {
    if !(0..86_400_000_000).contains(&micros_of_day) {
        return Err(unsupported(format!("time {micros_of_day}µs")));
    }
    let secs = micros_of_day / 1_000_000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    write!(out, "{h:02}:{m:02}:{s:02}.{:06}", micros_of_day % 1_000_000).map_err(fmt_err)
}

fn write_time(out: &mut String, micros_of_day: i64) -> Result<(), ArrowError> {
    out.push('"');
    push_time(out, micros_of_day)?;
    out.push('"');
    Ok(())
}

fn write_timestamp(out: &mut String, micros: i64, utc: bool) -> Result<(), ArrowError> {
    out.push('"');
    push_date(out, micros.div_euclid(86_400_000_000))?;
    out.push('T');
    push_time(out, micros.rem_euclid(86_400_000_000))?;
    if utc {
        out.push('Z');
    }
    out.push('"');
    Ok(())
}

fn write_date(out: &mut String, days: i64) -> Result<(), ArrowError> {
    out.push('"');
    push_date(out, days)?;
    out.push('"');
    Ok(())
}

fn to_micros(v: i64, unit: &TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => v.saturating_mul(1_000_000),
        TimeUnit::Millisecond => v.saturating_mul(1_000),
        TimeUnit::Microsecond => v,
        TimeUnit::Nanosecond => v.div_euclid(1_000),
    }
}

fn write_hex(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out.push('"');
}

/// Appends the canonical JSON of `array[i]`.
pub fn write_value(out: &mut String, array: &dyn Array, i: usize) -> Result<(), ArrowError> {
    if matches!(array.data_type(), DataType::Null) || array.is_null(i) {
        out.push_str("null");
        return Ok(());
    }
    match array.data_type() {
        DataType::Boolean => out.push_str(if array.as_boolean().value(i) {
            "true"
        } else {
            "false"
        }),
        DataType::Int8 => {
            write!(out, "{}", array.as_primitive::<Int8Type>().value(i)).map_err(fmt_err)?
        }
        DataType::Int16 => {
            write!(out, "{}", array.as_primitive::<Int16Type>().value(i)).map_err(fmt_err)?
        }
        DataType::Int32 => {
            write!(out, "{}", array.as_primitive::<Int32Type>().value(i)).map_err(fmt_err)?
        }
        DataType::Int64 => {
            write!(out, "{}", array.as_primitive::<Int64Type>().value(i)).map_err(fmt_err)?
        }
        DataType::UInt8 => {
            write!(out, "{}", array.as_primitive::<UInt8Type>().value(i)).map_err(fmt_err)?
        }
        DataType::UInt16 => {
            write!(out, "{}", array.as_primitive::<UInt16Type>().value(i)).map_err(fmt_err)?
        }
        DataType::UInt32 => {
            write!(out, "{}", array.as_primitive::<UInt32Type>().value(i)).map_err(fmt_err)?
        }
        DataType::UInt64 => {
            write!(out, "{}", array.as_primitive::<UInt64Type>().value(i)).map_err(fmt_err)?
        }
        DataType::Float32 => {
            let v = array.as_primitive::<Float32Type>().value(i);
            write_float(out, f64::from(v), || python_float32_repr(v));
        }
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(i);
            write_float(out, v, || python_float_repr(v));
        }
        DataType::Decimal32(_, s) => {
            let v = array.as_primitive::<Decimal32Type>().value(i);
            write_json_string(out, &decimal_to_string(&v.to_string(), *s));
        }
        DataType::Decimal64(_, s) => {
            let v = array.as_primitive::<Decimal64Type>().value(i);
            write_json_string(out, &decimal_to_string(&v.to_string(), *s));
        }
        DataType::Decimal128(_, s) => {
            let v = array.as_primitive::<Decimal128Type>().value(i);
            write_json_string(out, &decimal_to_string(&v.to_string(), *s));
        }
        DataType::Decimal256(_, s) => {
            let v = array.as_primitive::<Decimal256Type>().value(i);
            write_json_string(out, &decimal_to_string(&v.to_string(), *s));
        }
        DataType::Date32 => {
            write_date(out, i64::from(array.as_primitive::<Date32Type>().value(i)))?
        }
        DataType::Date64 => write_date(
            out,
            array
                .as_primitive::<Date64Type>()
                .value(i)
                .div_euclid(86_400_000),
        )?,
        DataType::Time32(unit) => {
            let v = i64::from(match unit {
                TimeUnit::Second => array.as_primitive::<Time32SecondType>().value(i),
                _ => array.as_primitive::<Time32MillisecondType>().value(i),
            });
            write_time(out, to_micros(v, unit))?
        }
        DataType::Time64(unit) => {
            let v = match unit {
                TimeUnit::Nanosecond => array.as_primitive::<Time64NanosecondType>().value(i),
                _ => array.as_primitive::<Time64MicrosecondType>().value(i),
            };
            write_time(out, to_micros(v, unit))?
        }
        DataType::Timestamp(unit, tz) => {
            let v = match unit {
                TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i),
                TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i),
                TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
                TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i),
            };
            write_timestamp(out, to_micros(v, unit), tz.is_some())?
        }
        DataType::Utf8 => write_json_string(out, array.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => write_json_string(out, array.as_string::<i64>().value(i)),
        DataType::Utf8View => write_json_string(out, array.as_string_view().value(i)),
        DataType::Binary => write_hex(out, array.as_binary::<i32>().value(i)),
        DataType::LargeBinary => write_hex(out, array.as_binary::<i64>().value(i)),
        DataType::BinaryView => write_hex(out, array.as_binary_view().value(i)),
        DataType::FixedSizeBinary(_) => write_hex(out, array.as_fixed_size_binary().value(i)),
        DataType::List(_) => write_list(out, array.as_list::<i32>().value(i).as_ref())?,
        DataType::LargeList(_) => write_list(out, array.as_list::<i64>().value(i).as_ref())?,
        DataType::FixedSizeList(..) => {
            write_list(out, array.as_fixed_size_list().value(i).as_ref())?
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            out.push('{');
            for (n, (field, column)) in fields.iter().zip(s.columns()).enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_json_string(out, field.name());
                out.push(':');
                write_value(out, column.as_ref(), i)?;
            }
            out.push('}');
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(i);
            out.push('[');
            for n in 0..entries.len() {
                if n > 0 {
                    out.push(',');
                }
                out.push('[');
                write_value(out, entries.column(0).as_ref(), n)?;
                out.push(',');
                write_value(out, entries.column(1).as_ref(), n)?;
                out.push(']');
            }
            out.push(']');
        }
        DataType::Dictionary(..) => {
            let dict = array.as_any_dictionary();
            let key = dict.normalized_keys()[i];
            write_value(out, dict.values().as_ref(), key)?;
        }
        other => return Err(unsupported(other)),
    }
    Ok(())
}

fn fmt_err(e: std::fmt::Error) -> ArrowError {
    ArrowError::ComputeError(e.to_string())
}

fn write_list(out: &mut String, values: &dyn Array) -> Result<(), ArrowError> {
    out.push('[');
    for n in 0..values.len() {
        if n > 0 {
            out.push(',');
        }
        write_value(out, values, n)?;
    }
    out.push(']');
    Ok(())
}

/// The display text of `array[i]` (`None` for SQL NULL), as the explorer and the SQL console
/// show it: strings raw; nested values as their canonical JSON; other scalars (decimals, dates,
/// times, binary) in their canonical text without JSON quotes.
pub fn cell_text(array: &dyn Array, i: usize) -> Option<String> {
    if array.is_null(i) {
        return None;
    }
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(i).to_string(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(i).to_string(),
        DataType::Utf8View => array.as_string_view().value(i).to_string(),
        data_type => {
            let mut s = String::new();
            if write_value(&mut s, array, i).is_err() {
                s.push('?');
            }
            let nested = matches!(
                data_type,
                DataType::List(_)
                    | DataType::LargeList(_)
                    | DataType::FixedSizeList(..)
                    | DataType::Struct(_)
                    | DataType::Map(..)
            );
            if !nested && s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                s = s[1..s.len() - 1].to_string();
            }
            s
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{
        ArrayRef, BinaryArray, Decimal128Array, Float32Array, Float64Array, StringArray,
        TimestampMicrosecondArray,
    };
    use std::sync::Arc;

    #[test]
    fn doubles_print_like_python_repr() {
        let cases = [
            (0.1, "0.1"),
            (3.0, "3.0"),
            (-2.5e300, "-2.5e+300"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (0.3333333333333333, "0.3333333333333333"),
            (12345.678, "12345.678"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (1e-7, "1e-07"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (v, expected) in cases {
            assert_eq!(python_float_repr(v), expected, "{v:e}");
        }
    }

    #[test]
    fn floats_use_the_shortest_f32_decimal() {
        assert_eq!(python_float32_repr(2.71), "2.71");
        assert_eq!(python_float32_repr(0.001), "0.001");
        assert_eq!(python_float32_repr(-1.25), "-1.25");
        assert_eq!(python_float32_repr(1e16), "1e+16");
        assert_eq!(python_float32_repr(16777216.0), "16777216.0");
        assert_eq!(python_float32_repr(f32::MAX), "3.4028235e+38");
        assert_eq!(python_float32_repr(1e-7), "1e-07");
    }

    #[test]
    fn dates_and_times() {
        let mut s = String::new();
        write_date(&mut s, 0).unwrap();
        write_date(&mut s, -1).unwrap();
        write_date(&mut s, 19_782).unwrap();
        write_date(&mut s, 11_016).unwrap();
        write_time(&mut s, 45_296_000_001).unwrap();
        write_timestamp(&mut s, -1, false).unwrap();
        assert_eq!(
            s,
            "\"1970-01-01\"\"1969-12-31\"\"2024-02-29\"\"2000-02-29\"\"12:34:56.000001\"\"1969-12-31T23:59:59.999999\""
        );
        assert!(write_time(&mut s, -1).is_err());
    }

    #[test]
    fn decimals_keep_the_scale() {
        assert_eq!(decimal_to_string("1230", 2), "12.30");
        assert_eq!(decimal_to_string("-5", 3), "-0.005");
        assert_eq!(decimal_to_string("0", 2), "0.00");
        assert_eq!(decimal_to_string("42", 0), "42");
    }

    #[test]
    fn strings_escape_like_python_json() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c/d\n\t\u{1}\u{7f}é日\u{2028}");
        assert_eq!(s, "\"a\\\"b\\\\c/d\\n\\t\\u0001\u{7f}é日\u{2028}\"");
    }

    #[test]
    fn a_row_in_schema_order() {
        let batch = RecordBatch::try_from_iter(vec![
            (
                "s",
                Arc::new(StringArray::from(vec![Some("x"), None])) as ArrayRef,
            ),
            (
                "f",
                Arc::new(Float32Array::from(vec![f32::NAN, f32::NEG_INFINITY])) as ArrayRef,
            ),
            (
                "d",
                Arc::new(Float64Array::from(vec![f64::INFINITY, 2.0])) as ArrayRef,
            ),
            (
                "dec",
                Arc::new(
                    Decimal128Array::from(vec![-12345, 7])
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ) as ArrayRef,
            ),
            (
                "b",
                Arc::new(BinaryArray::from(vec![&b"\x01\xab"[..], b""])) as ArrayRef,
            ),
            (
                "ts",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![-1, 1_717_230_600_252_353])
                        .with_timezone("UTC"),
                ) as ArrayRef,
            ),
        ])
        .unwrap();
        assert_eq!(
            row_to_json_line(&batch, 0).unwrap(),
            r#"{"s":"x","f":"NaN","d":"Infinity","dec":"-123.45","b":"01ab","ts":"1969-12-31T23:59:59.999999Z"}"#
        );
        assert_eq!(
            row_to_json_line(&batch, 1).unwrap(),
            r#"{"s":null,"f":"-Infinity","d":2.0,"dec":"0.07","b":"","ts":"2024-06-01T08:30:00.252353Z"}"#
        );
        assert!(row_to_json_line(&batch, 2).is_err());
        let lines = batches_to_lines(&[batch]).unwrap();
        assert!(lines[0] < lines[1]);
    }
}
