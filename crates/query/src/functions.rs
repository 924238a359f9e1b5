//! Flink's SQL functions that DataFusion lacks, registered under Flink's names (DATE_FORMAT).

use arrow_array::{Array, ArrayRef, StringArray, TimestampMicrosecondArray};
use arrow_schema::{DataType, TimeUnit};
use datafusion::common::{exec_err, plan_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::prelude::SessionContext;
use std::sync::Arc;

/// Registers the Flink functions in a context.
pub fn register(ctx: &SessionContext) {
    ctx.register_udf(ScalarUDF::from(DateFormat::default()));
}

/// A Java `SimpleDateFormat` / `DateTimeFormatter` pattern as a chrono format string: letters
/// y M d H m s S (fraction digits), quoted literals `'...'` and `''`; other letters are errors.
pub fn java_pattern_to_chrono(pattern: &str) -> std::result::Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|x| **x == c).count();
        match c {
            '\'' => {
                if run >= 2 {
                    out.push('\'');
                    i += 2;
                    continue;
                }
                let end = chars[i + 1..]
                    .iter()
                    .position(|x| *x == '\'')
                    .ok_or_else(|| format!("unterminated quote in date pattern '{pattern}'"))?;
                for l in &chars[i + 1..i + 1 + end] {
                    if *l == '%' {
                        out.push_str("%%");
                    } else {
                        out.push(*l);
                    }
                }
                i += end + 2;
                continue;
            }
            'y' => out.push_str(if run == 2 { "%y" } else { "%Y" }),
            'M' => out.push_str(match run {
                1 => "%-m",
                3 => "%b",
                4.. => "%B",
                _ => "%m",
            }),
            'd' => out.push_str(if run == 1 { "%-d" } else { "%d" }),
            'H' => out.push_str(if run == 1 { "%-H" } else { "%H" }),
            'm' => out.push_str(if run == 1 { "%-M" } else { "%M" }),
            's' => out.push_str(if run == 1 { "%-S" } else { "%S" }),
            'S' => out.push_str(match run {
                1 => "%1f",
                2 => "%2f",
                3 => "%3f",
                6 => "%6f",
                _ => {
                    return Err(format!(
                        "fraction of {run} digits in date pattern '{pattern}'"
                    ))
                }
            }),
            c if c.is_ascii_alphabetic() => {
                return Err(format!(
                    "pattern letter '{c}' of '{pattern}' is not supported"
                ))
            }
            '%' => out.push_str(&"%%".repeat(run)),
            c => out.extend(std::iter::repeat_n(c, run)),
        }
        i += run;
    }
    Ok(out)
}

/// Flink's `DATE_FORMAT(timestamp | string, pattern)`: the timestamp (or a string Flink parses
/// as `yyyy-MM-dd HH:mm:ss[.fff]`) formatted with a Java date pattern.
#[derive(Debug, PartialEq, Eq, Hash)]
struct DateFormat {
    signature: Signature,
}

impl Default for DateFormat {
    fn default() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

fn parse_text(s: &str) -> Option<chrono::NaiveDateTime> {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f")
        .ok()
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
}

impl ScalarUDFImpl for DateFormat {
    fn name(&self) -> &str {
        "DATE_FORMAT"
    }

    fn aliases(&self) -> &[String] {
        static ALIASES: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["date_format".to_string()]);
        &ALIASES
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [value, pattern] = arg_types else {
            return plan_err!("DATE_FORMAT takes (timestamp or string, pattern)");
        };
        let value = match value {
            DataType::Timestamp(_, _) | DataType::Date32 | DataType::Date64 => {
                DataType::Timestamp(TimeUnit::Microsecond, None)
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => {
                DataType::Utf8
            }
            other => return plan_err!("DATE_FORMAT of {other}: expected a TIMESTAMP or a STRING"),
        };
        if !matches!(
            pattern,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ) {
            return plan_err!("DATE_FORMAT pattern must be a string, not {pattern}");
        }
        Ok(vec![value, DataType::Utf8])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let pattern = match args.args.get(1) {
            Some(ColumnarValue::Scalar(ScalarValue::Utf8(Some(p)))) => p.clone(),
            _ => return exec_err!("DATE_FORMAT needs a constant pattern"),
        };
        let format = java_pattern_to_chrono(&pattern)
            .map_err(datafusion::error::DataFusionError::Execution)?;
        let arrays = ColumnarValue::values_to_arrays(&args.args[..1])?;
        let values = &arrays[0];
        let out: StringArray =
            if let Some(ts) = values.as_any().downcast_ref::<TimestampMicrosecondArray>() {
                (0..ts.len())
                    .map(|i| {
                        (!ts.is_null(i))
                            .then(|| chrono::DateTime::from_timestamp_micros(ts.value(i)))
                            .flatten()
                            .map(|t| t.naive_utc().format(&format).to_string())
                    })
                    .collect()
            } else if let Some(text) = values.as_any().downcast_ref::<StringArray>() {
                (0..text.len())
                    .map(|i| {
                        (!text.is_null(i))
                            .then(|| parse_text(text.value(i)))
                            .flatten()
                            .map(|t| t.format(&format).to_string())
                    })
                    .collect()
            } else {
                return exec_err!("DATE_FORMAT of {}", values.data_type());
            };
        Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_patterns() {
        assert_eq!(java_pattern_to_chrono("yyyy-MM-dd").unwrap(), "%Y-%m-%d");
        assert_eq!(
            java_pattern_to_chrono("yyyy-MM-dd HH:mm:ss.SSS").unwrap(),
            "%Y-%m-%d %H:%M:%S.%3f"
        );
        assert_eq!(
            java_pattern_to_chrono("yyyyMMdd'T'HH").unwrap(),
            "%Y%m%dT%H"
        );
        assert_eq!(java_pattern_to_chrono("''yy''").unwrap(), "'%y'");
        assert!(java_pattern_to_chrono("EEE").is_err());
        assert!(java_pattern_to_chrono("'open").is_err());
    }
}
