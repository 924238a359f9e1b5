//! Binding a [`Predicate`] to a schema: columns to field ids, literals coerced to column types.

use super::unbound::literal_text;
use super::{BoundLeaf, BoundPredicate, Node, Op, Predicate};
use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataType, TypeKind};
use std::cmp::Ordering;

impl Predicate {
    /// Resolves column names against `schema` (to field ids) and coerces literals to the
    /// column types. Errors name the column and literal.
    pub fn bind(&self, schema: &TableSchema) -> Result<BoundPredicate> {
        Ok(BoundPredicate {
            node: bind_node(self, schema)?,
        })
    }
}

fn bind_node(p: &Predicate, schema: &TableSchema) -> Result<Node> {
    Ok(match p {
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let field = schema.field(column).ok_or_else(|| Error::NotFound {
                what: format!("filter column '{column}'"),
                context: Some(format!(
                    "columns: {}",
                    schema
                        .fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            })?;
            if field.data_type.is_nested() {
                return Err(Error::Invalid(format!(
                    "filter on column '{column}': {} columns cannot be compared",
                    field.data_type.to_json()
                )));
            }
            match op.arity() {
                Some(n) if n != literals.len() => {
                    return Err(Error::Invalid(format!(
                        "filter on column '{column}': {} takes {n} literal(s), got {}",
                        op.symbol(),
                        literals.len()
                    )))
                }
                None if literals.is_empty() => {
                    return Err(Error::Invalid(format!(
                        "filter on column '{column}': {} needs at least one literal",
                        op.symbol()
                    )))
                }
                _ => {}
            }
            if *op == Op::StartsWith
                && !matches!(
                    field.data_type.kind,
                    TypeKind::Char(_) | TypeKind::VarChar(_)
                )
            {
                return Err(Error::Invalid(format!(
                    "filter on column '{column}': STARTS WITH needs a string column"
                )));
            }
            let literals = literals
                .iter()
                .map(|l| coerce(l, &field.data_type, column))
                .collect::<Result<Vec<_>>>()?;
            Node::Leaf(BoundLeaf {
                field_id: field.id,
                name: column.clone(),
                data_type: field.data_type.clone(),
                op: *op,
                literals,
            })
        }
        Predicate::And(v) => Node::And(
            v.iter()
                .map(|p| bind_node(p, schema))
                .collect::<Result<_>>()?,
        ),
        Predicate::Or(v) => Node::Or(
            v.iter()
                .map(|p| bind_node(p, schema))
                .collect::<Result<_>>()?,
        ),
        Predicate::Not(p) => Node::Not(Box::new(bind_node(p, schema)?)),
    })
}

/// Converts a literal to the Datum kind of `ty`; errors name the column and literal.
fn coerce(lit: &Datum, ty: &DataType, column: &str) -> Result<Datum> {
    let bad = |why: &str| {
        Error::Invalid(format!(
            "filter on column '{column}': literal {} {why}",
            literal_text(lit)
        ))
    };
    if lit.is_null() {
        return Ok(Datum::Null);
    }
    let int = || -> Option<i128> {
        match lit {
            Datum::TinyInt(v) => Some(i128::from(*v)),
            Datum::SmallInt(v) => Some(i128::from(*v)),
            Datum::Int(v) => Some(i128::from(*v)),
            Datum::BigInt(v) => Some(i128::from(*v)),
            Datum::Decimal {
                unscaled, scale: 0, ..
            } => Some(*unscaled),
            Datum::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    };
    let out_of_range = || bad(&format!("is not a value of type {}", type_name(ty)));
    Ok(match &ty.kind {
        TypeKind::Boolean => match lit {
            Datum::Boolean(b) => Datum::Boolean(*b),
            Datum::String(s) if s.eq_ignore_ascii_case("true") => Datum::Boolean(true),
            Datum::String(s) if s.eq_ignore_ascii_case("false") => Datum::Boolean(false),
            _ => return Err(out_of_range()),
        },
        TypeKind::TinyInt => Datum::TinyInt(
            int()
                .and_then(|v| i8::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::SmallInt => Datum::SmallInt(
            int()
                .and_then(|v| i16::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::Int => Datum::Int(
            int()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::BigInt => Datum::BigInt(
            int()
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::Float | TypeKind::Double => {
            let v = match lit {
                Datum::Float(v) => f64::from(*v),
                Datum::Double(v) => *v,
                Datum::Decimal {
                    unscaled, scale, ..
                } => *unscaled as f64 / 10f64.powi(i32::from(*scale)),
                Datum::String(s) => s.trim().parse().map_err(|_| out_of_range())?,
                _ => int().ok_or_else(out_of_range)? as f64,
            };
            if ty.kind == TypeKind::Float {
                Datum::Float(v as f32)
            } else {
                Datum::Double(v)
            }
        }
        TypeKind::Decimal { precision, scale } => {
            let (unscaled, from_scale) = match lit {
                Datum::Decimal {
                    unscaled, scale, ..
                } => (*unscaled, *scale),
                Datum::String(s) => parse_decimal(s.trim()).ok_or_else(out_of_range)?,
                _ => (int().ok_or_else(out_of_range)?, 0),
            };
            let unscaled = rescale(unscaled, from_scale, *scale).ok_or_else(|| {
                bad(&format!(
                    "has more fractional digits than {}",
                    type_name(ty)
                ))
            })?;
            if unscaled.unsigned_abs() >= 10u128.pow(u32::from(*precision).min(38)) {
                return Err(out_of_range());
            }
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => match lit {
            Datum::String(s) => Datum::String(s.clone()),
            other => Datum::String(other.to_string()),
        },
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => match lit {
            Datum::Binary(b) => Datum::Binary(b.clone()),
            Datum::String(s) => Datum::Binary(s.as_bytes().to_vec()),
            _ => return Err(out_of_range()),
        },
        TypeKind::Date => match lit {
            Datum::Date(d) => Datum::Date(*d),
            Datum::String(s) => {
                Datum::Date(parse_date(s.trim()).ok_or_else(|| bad("is not a DATE (YYYY-MM-DD)"))?)
            }
            _ => return Err(out_of_range()),
        },
        TypeKind::Time(p) => match lit {
            Datum::Time(t) => Datum::Time(*t),
            Datum::String(s) => {
                let (secs, nanos, digits) =
                    parse_time(s.trim()).ok_or_else(|| bad("is not a TIME (HH:MM:SS[.fff])"))?;
                if digits > usize::from((*p).min(3)) {
                    return Err(bad(&format!(
                        "has more fractional digits than {}",
                        type_name(ty)
                    )));
                }
                Datum::Time(secs * 1000 + nanos / 1_000_000)
            }
            _ => return Err(out_of_range()),
        },
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let (millis, nanos_of_milli) = match lit {
                Datum::Timestamp {
                    millis,
                    nanos_of_milli,
                }
                | Datum::LocalZonedTimestamp {
                    millis,
                    nanos_of_milli,
                } => (*millis, *nanos_of_milli),
                Datum::String(s) => {
                    let (millis, nanos, digits) = parse_timestamp(s.trim()).ok_or_else(|| {
                        bad("is not a TIMESTAMP (YYYY-MM-DD HH:MM:SS[.fffffffff])")
                    })?;
                    if digits > usize::from(*p) {
                        return Err(bad(&format!(
                            "has more fractional digits than {}",
                            type_name(ty)
                        )));
                    }
                    (millis, nanos)
                }
                _ => return Err(out_of_range()),
            };
            if matches!(ty.kind, TypeKind::Timestamp(_)) {
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
        _ => return Err(out_of_range()),
    })
}

fn type_name(ty: &DataType) -> String {
    match ty.to_json() {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// `unscaled * 10^-from` as an unscaled value of scale `to`, if exact.
fn rescale(unscaled: i128, from: u8, to: u8) -> Option<i128> {
    match from.cmp(&to) {
        Ordering::Equal => Some(unscaled),
        Ordering::Less => unscaled.checked_mul(10i128.checked_pow(u32::from(to - from))?),
        Ordering::Greater => {
            let div = 10i128.checked_pow(u32::from(from - to))?;
            (unscaled % div == 0).then_some(unscaled / div)
        }
    }
}

/// Parses `-12.345` into (unscaled, scale).
pub(crate) fn parse_decimal(s: &str) -> Option<(i128, u8)> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let v: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let scale = u8::try_from(frac.len()).ok()?;
    Some((if neg { -v } else { v }, scale))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn parse_date(s: &str) -> Option<i32> {
    let mut parts = s.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `HH:MM[:SS[.fraction]]` → (seconds of day, nanos, fraction digits).
fn parse_time(s: &str) -> Option<(i32, i32, usize)> {
    let (hms, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut parts = hms.split(':');
    let h: i32 = parts.next()?.parse().ok()?;
    let m: i32 = parts.next()?.parse().ok()?;
    let sec: i32 = parts.next().map_or(Some(0), |p| p.parse().ok())?;
    if parts.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&sec)
    {
        return None;
    }
    if frac.len() > 9 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let nanos: i32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    Some((h * 3600 + m * 60 + sec, nanos, frac.len()))
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.f]]` or a date → (millis, nanos of milli, fraction digits).
fn parse_timestamp(s: &str) -> Option<(i64, i32, usize)> {
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let days = i64::from(parse_date(date)?);
    let (secs, nanos, digits) = match time {
        Some(t) => parse_time(t)?,
        None => (0, 0, 0),
    };
    let millis = days * 86_400_000 + i64::from(secs) * 1000 + i64::from(nanos / 1_000_000);
    Some((millis, nanos % 1_000_000, digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_parsing() {
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("2024-03-01"), Some(19783));
        assert_eq!(parse_timestamp("1970-01-01 00:00:01.5"), Some((1500, 0, 1)));
        assert_eq!(parse_decimal("-1.50"), Some((-150, 2)));
        assert_eq!(rescale(150, 2, 1), Some(15));
        assert_eq!(rescale(155, 2, 1), None);
    }
}
